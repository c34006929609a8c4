# Calibration cases for `benches/calibrate/main.rs` (see the PVM README, "Calibration").
#
# Each case starts with a header line `### group | op | worst-case input` and runs until the
# cycle budget stops it (OutOfCycles): a little setup, then a `while True:` loop repeating the
# operation on the input that makes it do the most work per cycle charged, chosen by reading
# its implementation. Setup must be cheap next to the loop and memory must stay bounded.

### opcode | loop | `while True: i += 1` (the plain loop)
i = 0
while True:
    i += 1

### opcode | call | one-argument Python function
def f(x):
    return x
while True:
    f(1)

### opcode | method call | bound method of a plain instance
class C:
    def m(self, x):
        return x
c = C()
while True:
    c.m(1)

### opcode | attribute | load and store on an instance
class C:
    pass
c = C()
c.x = 0
while True:
    c.x = c.x + 1

### opcode | raise/except | raise and catch ValueError
while True:
    try:
        raise ValueError("x")
    except ValueError:
        pass

### opcode | generator | resume a generator
def g():
    while True:
        yield 1
it = g()
while True:
    next(it)

### opcode | class | `class C: pass`
while True:
    class C:
        pass

### opcode | closure | make a closure
while True:
    y = 1
    f = lambda: y

### opcode | import | cached `import math`
while True:
    import math

### opcode | comprehension | `[x for x in r]`, 8 items
r = range(8)
while True:
    [x for x in r]

### opcode | with | a plain context manager
class M:
    def __enter__(self):
        return self
    def __exit__(self, *a):
        return False
m = M()
while True:
    with m:
        pass

### opcode | unpack | `a, b, *c = t` with 20 items
t = tuple(range(20))
while True:
    a, b, *c = t

### opcode | call kwargs | `f(*args, **kw)` with 10 + 10
def f(*a, **k):
    return a
args = list(range(10))
kw = {"k%d" % i: i for i in range(10)}
while True:
    f(*args, **kw)

### hash table | dict insert, colliding ints | `d[i * (2**61 - 1)] = 0`, 3,000 keys hashing to 0
M = 2**61 - 1
while True:
    d = {}
    for i in range(3000):
        d[i * M] = 0

### hash table | set add/discard, colliding ints | 2,000 members hashing to 0, add+discard a new one
M = 2**61 - 1
s = {i * M for i in range(2000)}
k = 5000 * M
while True:
    s.add(k)
    s.discard(k)

### hash table | dict lookup miss, colliding ints | 3,000 keys hashing to 0, look up a missing one
M = 2**61 - 1
d = dict.fromkeys([i * M for i in range(3000)])
k = 9999 * M
while True:
    k in d

### hash table | set lookup, ints equal mod 2**61-1 | 3,000 keys `i * P + 7`
M = 2**61 - 1
s = {i * M + 7 for i in range(3000)}
while True:
    (4000 * M + 7) in s

### hash table | set lookup, colliding tuples | 2,000 `(i * (2**61-1),)`
M = 2**61 - 1
s = {(i * M,) for i in range(2000)}
k = (9999 * M,)
while True:
    k in s

### hash table | set lookup, colliding frozensets | 1,000 `frozenset({i * (2**61-1)})`
M = 2**61 - 1
s = {frozenset({i * M}) for i in range(1000)}
k = frozenset({9999 * M})
while True:
    k in s

### hash table | set.pop loop | empty a 20,000-entry set by `pop()`, refill (pops walked the tombstones before them)
while True:
    s = set(range(20000))
    while s:
        s.pop()

### hash table | dict.popitem loop | empty a 20,000-entry dict by `popitem()`, refill
while True:
    d = dict.fromkeys(range(20000))
    while d:
        d.popitem()

### hash table | iteration over tombstones | `next` twice on a set whose first 49,999 entries after the first are deleted
s = set(range(100000))
for i in range(1, 50000):
    s.discard(i)
while True:
    it = iter(s)
    next(it)
    next(it)

### hash table | dict lookup, -1/-2 and float/int | keys -1, -2, 1.0, True...
d = {-1: 1, -2: 2, 1.0: 3, 2: 4}
while True:
    d[-2]
    d[True]

### hash table | dict copy / update | 2,000-key dict
d = {i: i for i in range(2000)}
while True:
    e = dict(d)
    e.update(d)

### hash table | set algebra | `a | b`, `a & b`, `a - b` on 2,000 ints
a = set(range(2000))
b = set(range(1000, 3000))
while True:
    a | b
    a & b
    a - b

### hash table | dict from colliding str keys | 2,000 distinct short strings
ks = ["k%d" % i for i in range(2000)]
while True:
    d = dict.fromkeys(ks)

### hash table | class attribute, names sharing a probe chain | 1,200 names `a<i>` sharing one probe chain and tag under the former fixed keys
# The i are the first 1,200 for which SipHash-1-3 of `a<i>` (bytes then 0xff, as IndexMap
# hashes a str) under the PVM's former fixed name-map keys (0x243F6A8885A308D3,
# 0x13198A2E03707344) has its low 12 bits and top 7 bits zero: one probe sequence and one tag
# in a 2,048-slot table, so every lookup compared every name (38x the median before the
# name maps took per-thread random keys). `C.z = 0` bumps the class epoch, so the lookup
# cache never answers.
N = [293286, 2179995, 2218672, 2976179, 3198020, 4035927, 4341839, 4953234, 6469198, 6504085, 8284018, 8871536, 9206612, 9266921, 9829450, 10465792, 10540274, 11047271, 11144784, 11494693, 11860513, 13799900, 14186235, 14263283, 14726578, 14982309, 15016253, 16470873, 17016020, 17491759, 18292156, 18858060, 18916784, 19664428, 20504152, 20510941, 21167000, 22099651, 23202969, 23535989, 23605125, 24004375, 24042304, 24311121, 24784832, 25331659, 25486039, 28779564, 28873490, 28903118, 29387353, 29503979, 29756702, 29873839, 30577331, 30941075, 32290057, 32479482, 32921335, 33125547, 33572593, 33599704, 34157957, 34440196, 34706611, 34832097, 35329095, 36166388, 37520944, 37610201, 37621317, 37787136, 37984305, 38576108, 39252334, 39563910, 39648137, 40404180, 40631618, 41407505, 41474299, 41669420, 41695420, 42090884, 42681117, 43185093, 43558324, 44385319, 45642078, 46346179, 47010076, 47409998, 49075075, 49517464, 50394378, 51535324, 52011879, 52362441, 52870716, 53143935, 53539657, 53639117, 53992093, 54041830, 54409551, 54491432, 54584915, 55530928, 55893024, 56167054, 56293192, 56485589, 57000334, 57969177, 57983439, 58659380, 58687755, 58778719, 60421623, 60596873, 61257621, 61359822, 61519119, 61635618, 62496439, 63023286, 63450685, 63457133, 63695187, 64797004, 65249627, 65755556, 65833296, 66365326, 68508705, 68559007, 68567447, 68659063, 69295823, 70430208, 71319010, 71482901, 71904202, 72664183, 74233262, 74527333, 74652792, 74726723, 74825569, 75260142, 75484880, 75952460, 76121127, 76481332, 77278426, 79397110, 79467522, 79726071, 80396225, 80505593, 80555379, 80754048, 80906183, 81251327, 81467262, 81975629, 82033218, 82062538, 82303546, 82373746, 86318229, 86866429, 88564603, 88952766, 90197957, 90534279, 91417122, 91494098, 91737207, 91793785, 92135495, 93126340, 93837988, 94109871, 94337071, 95387572, 96177996, 96185690, 96206950, 96331930, 97597637, 97673086, 98001639, 98662057, 98695858, 99516493, 100450598, 100775869, 100819561, 101250126, 101640202, 101737913, 101934802, 102035956, 102114960, 102232763, 102366605, 103191102, 103334097, 103471513, 104612240, 104691066, 104979493, 105930893, 106135241, 106172710, 106417195, 107016208, 107060939, 107988060, 108050073, 108770269, 109035530, 109130827, 109243278, 112466033, 112631637, 114251782, 114423412, 114498747, 114841652, 116297102, 116593514, 117015055, 117235336, 118106821, 118531154, 118561338, 119148234, 119925583, 120220651, 120792606, 120822510, 121734959, 122127704, 122251211, 122611466, 123158790, 123248170, 123352252, 123725411, 124409281, 124423581, 125676590, 126002865, 126424431, 126658077, 126793431, 127595966, 128636865, 130622111, 130921853, 131231024, 131432089, 131568476, 131864479, 132252724, 132435808, 132468460, 135343424, 136732700, 136795530, 136945358, 137337176, 137762101, 138186194, 139327261, 139486553, 140752574, 142344439, 142722918, 142854697, 144141227, 144722156, 145318681, 145579376, 146319299, 146320897, 146495501, 147232624, 147460244, 147695437, 148460945, 151161898, 151765941, 151814779, 152343060, 152362598, 152627636, 153103790, 154087281, 155202798, 155906055, 156292507, 157403727, 158498944, 159520233, 160163019, 160483085, 160637986, 160944678, 162809557, 163309590, 163913200, 164133841, 164191031, 164430845, 164913187, 165745320, 166458559, 166713607, 166947090, 168079705, 168407302, 169014548, 169142872, 169168152, 169999551, 170153033, 170933823, 172678246, 173500064, 173754963, 174067267, 174678030, 174980909, 176586913, 176805097, 176936093, 176998501, 177471434, 177705660, 177930057, 178358266, 178538471, 179433399, 179652345, 179720214, 180387011, 182581375, 183169935, 183377070, 184440379, 184642968, 185150368, 185288270, 186730049, 188667417, 188984256, 189038410, 190369119, 190468212, 190893118, 190906278, 191240097, 191693982, 192347625, 193344248, 193396351, 193795937, 194474525, 194946907, 195414498, 196843481, 197044964, 197353320, 197576050, 197786355, 197916749, 197951454, 198084676, 198783705, 198817248, 198919961, 199605109, 200847118, 201707403, 202169459, 202570400, 203802465, 205950348, 206423347, 206678928, 206742865, 208167578, 208707696, 208750648, 208951597, 209255828, 209560863, 210638549, 212213123, 212903116, 213207055, 213403387, 214662213, 214699639, 214744839, 216397566, 216883087, 218134362, 218225320, 218654038, 219378029, 219861122, 221380762, 222323600, 222479170, 223159909, 224216702, 224223953, 225411079, 226223474, 226733675, 227650270, 228624847, 229609781, 230015216, 230446233, 230500706, 230733232, 231260279, 231416697, 231659843, 232458028, 232825210, 232854787, 232875873, 233413681, 233877093, 233934557, 234978764, 235445470, 236271707, 238125262, 240017495, 240430504, 240763254, 240784806, 241171954, 241449956, 241918608, 242457766, 242506091, 243008944, 243091969, 244018901, 244515745, 245055060, 245066544, 245465926, 245722171, 245862925, 246000102, 246275193, 246531513, 247939775, 248661216, 249223414, 249640431, 250280353, 250500158, 252313867, 252386554, 253125302, 253464478, 254644020, 255045516, 255876001, 256484538, 257868483, 258158846, 258755425, 259030968, 259034442, 259141206, 260841992, 261447430, 262083996, 262252512, 263059821, 263831594, 264653717, 264897163, 264904019, 264947735, 264950543, 265108335, 268199216, 268417905, 268942909, 269567027, 270296659, 270496524, 270536249, 270598919, 270971902, 271130291, 271288507, 272057252, 272505229, 272812926, 273481454, 273972411, 274434959, 274946043, 275084609, 276466947, 276695369, 279705600, 279740841, 279836643, 279959924, 280585115, 281344270, 281443883, 282811765, 282873335, 282896232, 283279782, 283475828, 283654767, 285483471, 285721515, 286824000, 287231615, 287289817, 287584583, 287915266, 288413825, 288842668, 290132374, 290876293, 290879976, 292042128, 292097981, 292104636, 293833758, 294641682, 295007299, 296397505, 296601353, 296729832, 297002996, 297792294, 297916563, 300032997, 300189748, 300206634, 301539928, 301725487, 302013626, 303051736, 303847578, 303898515, 303940555, 304370513, 304413133, 304661223, 305690545, 306135271, 306428073, 306514801, 307186507, 307643946, 307871723, 308682886, 309235758, 309447941, 309609878, 309642864, 310650568, 311186593, 311271952, 311375964, 311591126, 311890090, 315622308, 316423651, 318368967, 318899543, 319533015, 319649468, 320045493, 320697222, 320708345, 321050524, 324681939, 325211463, 326382078, 326679101, 327498753, 327755978, 327909893, 329165062, 330072521, 330272982, 330428386, 330494005, 331758676, 332990360, 333368827, 333766448, 334385698, 335693051, 335855154, 336370271, 336453869, 336978339, 337035768, 337493320, 338070193, 338237173, 338670600, 339109612, 339109719, 339395176, 339425218, 339746105, 340453870, 342655559, 343316059, 344786286, 345227275, 345275940, 345331100, 345754530, 346727742, 348205241, 348321507, 349694717, 350158306, 350286895, 350703006, 350765869, 350812879, 352077691, 352119661, 352259700, 352421173, 352606113, 352610797, 353332683, 354105124, 355140621, 355336271, 355596300, 355700604, 355707987, 355972416, 355995378, 356838683, 356889598, 357398688, 357721454, 359793433, 359937688, 360317752, 360454219, 360805453, 361101345, 361359670, 362248800, 363560905, 363756806, 363843757, 364482990, 364552797, 364629198, 364737270, 366059884, 366178887, 366409208, 366510145, 368209903, 368456773, 368607281, 369798845, 369870225, 369999390, 370566345, 370632871, 370847880, 370866820, 371125067, 371433982, 371876737, 373331565, 373409208, 373420795, 373920065, 373936616, 374379790, 374669975, 377189315, 379191691, 379754977, 379817636, 380147046, 381015391, 381058260, 381617606, 381675721, 381984598, 382669053, 383592253, 383707562, 383723507, 383744429, 384458975, 384460190, 384607908, 384646608, 384803173, 387016443, 387072888, 387150132, 387390243, 388366767, 388606166, 388736974, 389075707, 389260494, 389449623, 389685228, 389709563, 389949866, 390228569, 390871123, 391615437, 391655400, 392086042, 392902329, 393411238, 393770253, 394822555, 395392064, 396187274, 396294984, 396758039, 396764624, 397228053, 397406606, 397460329, 398246975, 398287311, 399121388, 399180033, 399413932, 399499503, 399568257, 399887148, 399984023, 400345276, 400968067, 401086058, 401758368, 402008175, 402182607, 402246862, 402668916, 402913062, 402985280, 403085821, 403159741, 403202517, 403973313, 404378202, 404544495, 404898875, 405060029, 405374054, 406455800, 407693879, 408695302, 409588533, 410431238, 410633234, 411694004, 412149938, 412174635, 412280187, 413138154, 414121829, 414906500, 415259401, 416537100, 416581428, 417034889, 417070213, 417158868, 417210976, 417410580, 417601669, 417945277, 418293666, 419612295, 419664919, 419944573, 420652791, 421842814, 422241311, 423313551, 423629447, 423845334, 424421919, 424655420, 426402902, 426718012, 426775683, 426782982, 428465420, 428712777, 430237824, 430870121, 431273645, 432542636, 432762851, 433532447, 434232798, 434550781, 435164583, 435275361, 436787864, 436997207, 437100845, 437129366, 438386415, 438610990, 439746837, 441515779, 441700028, 442711769, 443023678, 443163394, 443688626, 443832257, 444024634, 444539806, 444589617, 445318859, 445438086, 445955562, 446450031, 446542381, 446644721, 446709477, 447013033, 447170587, 447280848, 448173902, 448885852, 449571582, 449712769, 449795035, 450131141, 451072087, 451802746, 452040506, 452672991, 453025642, 453780680, 454699837, 455047775, 455123741, 455968754, 456263258, 456297715, 456675503, 457933077, 458101079, 458472819, 458832592, 458965207, 460249891, 460716185, 461731284, 462121737, 462347095, 462866745, 463911500, 464220555, 464726098, 464781027, 464943662, 465017917, 465041655, 465206400, 465336004, 466052701, 466260837, 466303580, 466477546, 466735096, 467757737, 467790707, 468672469, 468859249, 469621168, 470056488, 470393345, 471163129, 472176242, 472389319, 473067517, 473483737, 473952686, 474586143, 474635835, 475106330, 475132964, 475391043, 477695908, 477917978, 478177915, 478401563, 478537366, 478827678, 478883790, 479096648, 479348887, 480072706, 480103734, 480520247, 480875108, 482081561, 482649574, 482777610, 483588019, 483657336, 484649109, 484681285, 485181647, 485262033, 485277789, 485833812, 486502976, 487342250, 489155115, 489374969, 489624639, 490316520, 490396148, 490761088, 490785037, 491865477, 491902858, 491925873, 492549142, 492708873, 493767822, 494257279, 494413064, 494683208, 497428701, 498282230, 498753786, 500297702, 501147737, 501184521, 501190044, 501334857, 501814091, 502660891, 503383002, 503538654, 504077467, 505741742, 505802585, 506176048, 506387195, 506868960, 508250483, 508456578, 508488033, 508528478, 508959762, 509264933, 509445459, 509467634, 509700785, 510007074, 510702969, 511006024, 511243311, 512108235, 512755002, 513095561, 513220092, 513946399, 514115799, 514785935, 515432289, 516141453, 516819472, 517106288, 517297202, 517330167, 517546995, 517603318, 517793105, 518663378, 519262067, 519728088, 521794326, 521836606, 521840359, 521956572, 522798649, 522860239, 523337053, 523347232, 523535028, 523546546, 524321361, 524588023, 524979114, 525099637, 525115301, 525595381, 525856343, 526937508, 527196937, 529161712, 530099992, 530868333, 531188789, 531541726, 531586954, 531862675, 531926307, 532664607, 533139094, 533234460, 533578840, 534517099, 535146844, 535230410, 535989029, 536641093, 536980477, 537479142, 537605783, 537687947, 537713207, 537769395, 537840544, 538156045, 538156421, 538469810, 538798423, 539009191, 539062054, 539435112, 539640851, 540128395, 540320743, 540401277, 540510730, 540962954, 541362983, 542760232, 543101560, 543501668, 543512324, 543524228, 544289560, 545046465, 545249578, 546850700, 546981549, 547338395, 548135145, 548187800, 548263687, 548427599, 548555057, 548669545, 548699553, 548717072, 549199517, 550961234, 551243227, 551603092, 552645118, 552784462, 553296538, 553635766, 553679081, 553905683, 555362179, 555452094, 556898091, 558536835, 558813608, 559373578, 559575520, 560114964, 560210732, 560431668, 561317364, 562027047, 562419638, 562652119, 562749791, 562891896, 563013305, 563037904, 563693092, 563962223, 564260403, 564347646, 564854444, 565348669, 565780182, 565865360, 566134586, 566365756, 566895327, 567924823, 567962254, 567966525, 568025649, 568517097, 569040144, 569558488, 569744387, 570991164, 571011472, 571074602, 572397402, 572401741, 574558339, 575577001, 576878247, 577371266, 577888101, 578598007, 578859720, 580130097, 580324120, 580724051, 581626362, 581752269, 581983108, 582826774, 582902754, 583089421, 583166373, 583282972, 583412790, 584699196, 585143765, 586232193, 586634251, 587409020, 587498007, 587534647, 588266403, 588878355, 588900946, 589433813, 592287158, 592326023, 595443931, 596477017, 596705635, 596830854, 597562555, 599330282, 599773741, 601024056, 601353880, 601372470, 602148433, 602812671, 603626280, 604290359, 605159876, 605554181, 605624321, 607487255, 607905674, 608088750, 608712622, 609444762, 612001513, 613163636, 614540922, 614561429]
class C:
    pass
for i in N:
    setattr(C, 'a' + str(i), 0)
while True:
    C.z = 0
    C.a614561429

### class namespace | class store, method load | `C.z = 0` then `o.m`: every lookup cache emptied each time
class C:
    def m(self):
        return 1
o = C()
while True:
    C.z = 0
    o.m

### class namespace | MRO walk | a method of the root of a 150-class chain, caches emptied each time
class C0:
    def m(self):
        return 1
Leaf = C0
for i in range(1, 150):
    Leaf = type("C%d" % i, (Leaf,), {})
o = Leaf()
while True:
    Leaf.z = 0
    o.m

### class namespace | delete and re-add | the first of 20,000 class attributes, rotating
class C:
    pass
for i in range(20000):
    setattr(C, "a%d" % i, 0)
i = 0
while True:
    n = "a%d" % i
    delattr(C, n)
    setattr(C, n, 0)
    i = (i + 1) % 20000

### class namespace | slot store | `s.a = 1` on an instance of a class with 3,000 slots
C = type("C", (), {"__slots__": tuple("s%d" % i for i in range(3000))})
s = C()
while True:
    s.s2999 = 1

### sequence | list.insert(0) | 20,000-item list
l = list(range(20000))
while True:
    l.insert(0, 1)
    l.pop(0)

### sequence | list.remove / index / count | 20,000 items, target at the end
l = list(range(20000))
while True:
    l.index(19999)
    l.count(19999)
    l.remove(19999)
    l.append(19999)

### sequence | list.index / remove at the front | 200,000 items, target first (the scan copied the list before its first comparison)
l = list(range(200000))
x = l[0]
while True:
    l.index(x)
    l.count
    l.remove(l[0])
    l.append(0)

### sequence | repr failing at the first item | `repr` of a 100,000-item list whose first item's repr raises
class Bad:
    def __repr__(self):
        raise ValueError
l = [Bad()] + [0] * 100000
while True:
    try:
        repr(l)
    except ValueError:
        pass

### sequence | startswith with a tuple, first item matches | a 200,001-item tuple of prefixes (the tuple was copied before the first test)
t = ("",) + ("x",) * 200000
s = "abc"
while True:
    s.startswith(t)

### sequence | `in` list miss | 20,000 ints
l = list(range(20000))
while True:
    -1 in l

### sequence | slice assignment | `l[0:0] = [1]`, `del l[0]` on 20,000 items
l = list(range(20000))
while True:
    l[0:0] = [1]
    del l[0]

### sequence | list == | two equal 20,000-item lists
a = list(range(20000))
b = list(range(20000))
while True:
    a == b

### sequence | sort | 5,000 ints, reversed runs
while True:
    l = [(i * 7919) % 5000 for i in range(5000)]
    l.sort()

### sequence | sorted with key | 2,000 strs, key=len
l = ["x" * (i % 50) for i in range(2000)]
while True:
    sorted(l, key=len)

### sequence | min / max / sum | 20,000 ints
l = list(range(20000))
while True:
    min(l)
    max(l)
    sum(l)

### sequence | list copy / concat / repeat | 10,000 items
l = list(range(10000))
while True:
    l[:]
    l + l
    l * 2

### sequence | reverse / extend | 20,000 items
l = list(range(20000))
while True:
    l.reverse()
    m = []
    m.extend(l)

### sequence | tuple compare | two equal 20,000-tuples differing last
a = tuple(range(20000))
b = tuple(range(19999)) + (0,)
while True:
    a < b

### str | expandtabs | `'\t'.expandtabs(100000)`
s = "\t" * 4
while True:
    s.expandtabs(100000)

### str | expandtabs, many tabs | 1,000 tabs, tab size 8
s = "a\t" * 1000
while True:
    s.expandtabs()

### str | replace | 10,000 one-char matches by two chars
s = "a" * 10000
while True:
    s.replace("a", "bc")

### str | split / join | 10,000 single chars
s = "a," * 10000
while True:
    ",".join(s.split(","))

### str | translate | 10,000 chars with a dict table
s = "abc" * 3000
t = {97: "xyz", 98: None}
while True:
    s.translate(t)

### str | find worst case | `'a'*10000` for `'a'*100 + 'b'`
s = "a" * 10000
n = "a" * 100 + "b"
while True:
    s.find(n)

### str | `in` substring worst case | `'ab'*5000` for `'ab'*50 + 'c'`
s = "ab" * 5000
n = "ab" * 50 + "c"
while True:
    n in s

### str | case / predicates | upper, isalnum of 10,000 non-ASCII chars
s = "é" * 10000
while True:
    s.upper()
    s.isalnum()

### str | == / < | two 20,000-char strings equal but the last char
a = "x" * 20000
b = "x" * 19999 + "y"
while True:
    a == b
    a < b

### str | format width | `format(1, '>100000')`, f-string `{x:^50000}`
x = 1
while True:
    format(x, ">100000")
    f"{x:^50000}"

### str | % formatting | `'%s' * 1000 % args`
fmt = "%s" * 1000
args = tuple(range(1000))
while True:
    fmt % args

### str | str.format | 500 fields
fmt = "{}" * 500
args = list(range(500))
while True:
    fmt.format(*args)

### str | center / zfill | width 100,000
while True:
    "x".center(100000)
    "1".zfill(100000)

### str | encode / decode | 10,000 non-ASCII chars
s = "é" * 10000
b = s.encode()
while True:
    s.encode()
    b.decode()

### str | splitlines / strip | 10,000 short lines
s = "a\n" * 10000
w = " " * 10000 + "x" + " " * 10000
while True:
    s.splitlines()
    w.strip()

### repr | repr of nested lists | `[[[...]]]` 60 deep, 20 wide at the leaves
x = [list(range(20))]
for _ in range(60):
    x = [x]
while True:
    repr(x)

### repr | repr of a list of strs | 2,000 strs needing escapes
l = ["a'\n\x00é" * 3] * 2000
while True:
    repr(l)

### repr | str() of a dict | 2,000 int keys
d = {i: i for i in range(2000)}
while True:
    str(d)

### nested | == of nested lists | 60 deep
a = [1]
b = [1]
for _ in range(60):
    a = [a, a]
    a = [a]
    b = [b, b]
    b = [b]
while True:
    a == b

### nested | hash of nested tuples | 60 deep, binary
t = (1,)
for _ in range(60):
    t = (t,)
while True:
    hash(t)

### nested | copy.deepcopy | nested list of 2,000 items
import copy
x = [[i, [i]] for i in range(500)]
while True:
    copy.deepcopy(x)

### nested | json.dumps / loads | 500 nested items
import json
x = [{"a": [i, "s"], "b": None} for i in range(200)]
s = json.dumps(x)
while True:
    json.dumps(x)
    json.loads(s)

### int | multiply 4096-bit | `a * b`, 2048-bit operands
a = 3**1290
b = 7**729
while True:
    a * b

### int | divmod 4096-bit | `divmod(a, b)`, 4,000 / 2,000 bits
a = 3**2500
b = 7**700
while True:
    divmod(a, b)

### int | pow with modulus | `pow(a, e, m)`, 4,000-bit operands
a = 3**2500
e = 5**1700
m = 7**1420 + 2
while True:
    pow(a, e, m)

### int | pow | `3 ** 2580`
while True:
    3 ** 2580

### int | shifts / bit ops | 4,000-bit `<<`, `>>`, `&`, `^`
a = 3**2500
while True:
    (a >> 7) << 3
    a & (a >> 1)
    a ^ 12345

### int | compare / hash | 4,000-bit ints
a = 3**2500
b = 3**2500 + 1
while True:
    a < b
    hash(a)

### int | math.gcd | two 4,000-bit Fibonacci numbers
a, b = 0, 1
for _ in range(5700):
    a, b = b, a + b
import math
while True:
    math.gcd(a, b)

### int | math.gcd of small ints | two 61-bit numbers (a pass per bit cost ~17 ns that the per-limb price did not see: 12x the median before 2026-12-04)
a = 2**61 - 1
b = 2**59 - 55
import math
while True:
    math.gcd(a, b)

### int | math.lcm of mid-sized ints | 254- and 285-bit numbers (12x before 2026-12-04)
a = 3**160
b = 7**90 + 1
import math
while True:
    math.lcm(a, b)

### int | math.lcm | two 2,000-bit numbers
a = 3**1260
b = 7**710 + 1
import math
while True:
    math.lcm(a, b)

### int | math.isqrt | 4,000-bit
import math
a = 3**2500
while True:
    math.isqrt(a)

### int | math.comb / perm | comb(4096, 2048)-sized results
import math
while True:
    math.comb(2000, 1000)
    math.perm(400, 300)

### int | math.factorial | factorial(450) (near 4,096 bits)
import math
while True:
    math.factorial(450)

### int | int -> str | 4,000-bit int
a = 3**2500
while True:
    str(a)

### int | str -> int | 1,200 decimal digits
s = "7" * 1200
while True:
    int(s)

### int | hex / to_bytes / from_bytes | 4,000-bit
a = 3**2500
b = a.to_bytes(500, "big")
while True:
    hex(a)
    a.to_bytes(500, "big")
    int.from_bytes(b, "big")

### int | int(str, base) | 1,000 digits in base 7
s = "6" * 1000
while True:
    int(s, 7)

### int | format with grouping | `format(a, ',')` 4,000-bit
a = 3**2500
while True:
    format(a, ",")

### int | small pow | `2 ** 100` and `(-3) ** 101`: a 7-bit exponent, up to 14 multiplications (6-11x the plain loop before each paid a step)
while True:
    2 ** 100
    (-3) ** 101

### int | pow with a small modulus | `pow(b, e, m)`, 64-bit exponent, 133-bit modulus (a Montgomery step per bit; 5.8x before)
m = 10**40 + 1
b = 2**64 + 1
e = 2**64 - 1
while True:
    pow(b, e, m)

### float | repr / format | `'%.300f' % 1e300`
x = 1e300
while True:
    "%.300f" % x
    repr(x)

### float | float(str) / float(int) | 300-digit literal, 1,000-bit int
s = "1" * 300
a = 3**640
while True:
    float(s)
    float(a)

### hashing | hash() of a long str | fresh 10,000-char strs
s = "x" * 10000
while True:
    hash(s + "y")

### hashing | hashlib.sha256 | 10,000 bytes
import hashlib
b = b"x" * 10000
while True:
    hashlib.sha256(b).digest()

### hashing | hashlib.keccak256 / sha3 | 10,000 bytes
import hashlib
b = b"x" * 10000
while True:
    hashlib.sha3_256(b).digest()

### bytes | hex / fromhex / replace | 10,000 bytes
b = b"ab" * 5000
h = b.hex()
while True:
    b.hex()
    bytes.fromhex(h)
    b.replace(b"a", b"cd")

### bytes | bytearray insert(0) / pop(0) | 20,000 bytes
b = bytearray(20000)
while True:
    b.insert(0, 1)
    b.pop(0)

### re | catastrophic backtracking | `(a*)*b` on `'a' * 18`
import re
p = re.compile("(a*)*b")
s = "a" * 18
while True:
    p.match(s)

### re | sub / findall | 5,000 matches
import re
s = "ab " * 5000
while True:
    re.sub("a", "xy", s)
    re.findall("b", s)

### re | compile | `re.compile` of `(?:a|b|c|d)` x 2,000 (a tree node per unit, ~10 instructions each)
import re
s = "(?:a|b|c|d)" * 2000
while True:
    re.compile(s)

### re | compile, IGNORECASE | `[é-ǅ]` x 2,000 under re.I (case-folding sets)
import re
s = "[é-ǅ]" * 2000
while True:
    re.compile(s, re.I)

### stdlib | deque / heapq / bisect | 5,000 items
import collections, heapq, bisect
d = collections.deque(range(5000))
h = list(range(5000))
l = list(range(5000))
while True:
    d.appendleft(d.pop())
    heapq.heappush(h, 2500)
    heapq.heappop(h)
    bisect.insort(l, 2500)
    l.pop(0)

### stdlib | itertools / Counter | permutations of 6, Counter of 1,000
import itertools, collections
l = [i % 50 for i in range(1000)]
while True:
    for p in itertools.permutations(range(6)):
        pass
    collections.Counter(l)

### stdlib | struct | pack / unpack 100 fields
import struct
fmt = "<" + "q" * 100
vals = list(range(100))
while True:
    struct.unpack(fmt, struct.pack(fmt, *vals))

### stdlib | decimal / fractions | arithmetic
from decimal import Decimal
from fractions import Fraction
a = Decimal("1.2345678901234567890")
f = Fraction(355, 113)
while True:
    a * a + a
    f * f + f

### builtin | bytes == | two equal 1 MB bytes (memcmp of the whole length)
a = b"x" * 1000000
b = b"x" * 1000000
while True:
    a == b

### builtin | bytearray == | two equal 1 MB bytearrays
a = bytearray(b"x" * 1000000)
b = bytearray(b"x" * 1000000)
while True:
    a == b

### builtin | bytearray < bytes | 1 MB bytearray against empty bytes (copied before the compare)
a = bytearray(b"x" * 1000000)
b = b""
while True:
    a < b

### builtin | set <= / issubset | 20,000-member set whose first member is missing (copied before the test)
s = set(range(20000))
t = set(range(-1, -20001, -1))
while True:
    s <= t

### builtin | set.copy / union() | 20,000 members (copied unpaid)
s = set(range(20000))
while True:
    s.copy()
    s.union()

### builtin | seq * 0 | 20,000-item list and tuple (copied before the count was read)
l = list(range(20000))
t = tuple(l)
while True:
    l * 0
    t * 0

### builtin | dict union | `d.__or__({})` on a 20,000-key dict (copied unpaid)
d = dict.fromkeys(range(20000))
e = {}
while True:
    d | e

### builtin | hash(frozenset) | 20,000 members (walked unpaid)
f = frozenset(range(20000))
while True:
    hash(f)

### builtin | str % tuple | 20,000-item tuple, failing at once (copied before the check)
t = tuple(range(20000))
while True:
    try:
        "x" % t
    except TypeError:
        pass

### builtin | strip / replace / partition | 100,000-char argument on a 1-char str (scanned per char, prepared whole)
chars = "ab" * 50000
bchars = b"ab" * 50000
while True:
    "c".strip(chars)
    "c".replace(chars, "")
    "c".partition(chars)
    b"c".strip(bchars)

### builtin | del bytearray[0] | 1 MB bytearray (the shift was unpaid)
b = bytearray(1000000)
while True:
    del b[0]
    b.append(0)

### alloc | set of scattered ints | 150,000 members inserted in a random order of the index, then freed (every insert misses the cache once the table outgrows it)
while True:
    s = {i * 2654435761 for i in range(150000)}
    s = None

### alloc | set from a range | `set(range(200000))`, then freed (native inserts; each paid 4 cycles for a table growing past the caches)
while True:
    s = set(range(200000))
    s = None

### alloc | dict comprehension | 100,000 int keys, then freed
while True:
    d = {i: i for i in range(100000)}
    d = None

### alloc | many small objects | 50,000 empty dicts in a list, then freed (allocation and drop of each)
while True:
    x = [{} for _ in range(50000)]
    x = None

### alloc | small-object churn | 100 empty lists built and dropped (3.8x before allocation was paid)
while True:
    x = [[] for _ in range(100)]

### alloc | list from a range | `list(range(300000))` and freed (8x before: the range was stepped through its iterator)
while True:
    x = list(range(300000))
    x = None

### alloc | instances | 50,000 instances of a plain class, then freed
class A:
    pass
while True:
    x = [A() for _ in range(50000)]
    x = None
