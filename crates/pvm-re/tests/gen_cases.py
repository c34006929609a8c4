#!/usr/bin/env python3
"""Writes re_cases.json, the case list of the differential test.

Cases are written here in Python syntax (raw strings keep patterns
readable); the JSON file is what both the CPython oracle (re_oracle.py) and
the Rust test read. Regenerate with: python3 tests/gen_cases.py
"""
import json
import os
import random

S = ["", "a", "abc", "aaa", "abcabc", "xaybz", "Hello World", "a\nb\nc\n", "foo bar  baz", "123 abc 456"]
C = []


def add(p, f="", subs=None, repl=None):
    c = [p, f, subs if subs is not None else S]
    if repl is not None:
        c.append(repl)
    C.append(c)


# Literals and escapes
for p in [r"a", r"abc", r"b", r"\a", r"\f\n\r\t\v", r"\x41", r"\x61b", r"\u0061", r"\U00000061", r"\0", r"\01", r"\141",
          r"\\", r"\.", r"\-", r"\ ", r"a\nb", r"\n", r"\x0a", r"\012", r"\777", r"\x4", r"\u12", r"\U0001", r"\U00110000",
          r"\q", r"\_", r"\%", r"\N", r"\N{", r"\e", r"\C", r"\z", r"\9", r"\1", r"\10", r"a\\", "\\"]:
    add(p)
# Classes
for p in [r"[abc]", r"[^abc]", r"[a-c]", r"[^a-c]", r"[a-]", r"[-a]", r"[]a]", r"[^]a]", r"[\]]", r"[\w]", r"[\W\d]",
          r"[\s]", r"[^\s]", r"[\x61-\x63]", r"[a-\x63]", r"[\d-z]", r"[z-a]", r"[a", r"[", r"[^", r"[]", r"[a-", r"[\b]",
          r"[\A]", r"[\0]", r"[\08]", r"[\777]", r"[.]", r"[$^]", r"[a-cx-z]", r"[\n]", r"[\t-\r]", r"[\u0061]", r"[\q]",
          r"[\-]", r"[a\-z]", r"[\\]", r"[^\\]", r"[\x]", r"[\[]", r"[\D]", r"[^\D]", r"[b-b]", r"[\d\s]"]:
    add(p)
# Any and anchors
for p in [r".", r"..", r"a.c", r"^a", r"^", r"$", r"a$", r"c$", r"^b", r"\Aa", r"a\Z", r"\Z", r"\A", r"\bb", r"\Bb",
          r"\b", r"\B", r"o\b", r"\bfoo\b", r"^$", r"$^", r".$", r"^.", r"(?m)^b", r"(?m)c$", r"(?m)^", r"(?m)$",
          r"(?s).", r"(?s)a.b", r"a.b", r"\b\w+\b", r"\B\w\B"]:
    add(p)
    add(p, "m", ["a\nb\nc\n", "\n", "x\n\ny"])
# Categories
for p in [r"\d", r"\d+", r"\D+", r"\w+", r"\W+", r"\s+", r"\S+", r"[\w-]+"]:
    add(p, "", ["abc 123", "éß_9", "٣٤ ١", "\u2003x\x1c", "\x85a", "x\u00b2y", "\u2160", ""])
    add(p, "a", ["abc 123", "éß_9", "٣٤ ١", "\u2003x\x1c", "\x85a", ""])
    add(p, "b", ["abc 123", "\xe9\xdf_9", "\x85a\x0b", "\x1c\xa0"])
# Quantifiers
for p in [r"a*", r"a+", r"a?", r"a*?", r"a+?", r"a??", r"a{2}", r"a{2,}", r"a{,2}", r"a{1,2}", r"a{2,1}", r"a{}",
          r"a{", r"a{1", r"a{1,", r"a{,}", r"a{x}", r"{", r"{1}", r"a{2}?", r"a{1,2}?", r"a*+", r"a++", r"a?+", r"a{1,2}+",
          r"*", r"+a", r"?", r"a**", r"a*{2}", r"a??+", r"^*", r"\b*", r"$+", r"a{4294967295}", r"a{4294967294}",
          r"a{99999999999999}", r"(?:a*)*", r"(?:a|b)*", r"(?:ab)+", r"(?:a|)*", r"(a*)*", r"(a*)+", r"(a?)*?", r"(a|b)*?c",
          r"(?:)*", r"(?:)+", r".*", r".*?", r".+", r"[ab]*c", r"[^a]*", r"(ab)*", r"(?:a(b)?)+", r"(a)|b", r"x*",
          r"(?:x*)*y", r"\w*", r"(?:a+)+$", r"a{0}", r"(a){0}", r"a{0,0}b"]:
    add(p)
# Groups, names, backrefs
for p in [r"(a)", r"(a)(b)", r"((a)b)", r"(a)?", r"(a)*", r"(?:a)", r"(?P<x>a)", r"(?P<x>a)(?P=x)", r"(?P<x>a)(?P<x>b)",
          r"(?P<1>a)", r"(?P<>a)", r"(?P<x", r"(?P=x)", r"(?P<x>a)(?P=y)", r"(?P<x>(?P=x))", r"(?Px)", r"(?P", r"(a)\1",
          r"(a)\2", r"(a\1)", r"(a)(b)(c)(d)(e)(f)(g)(h)(i)(j)\10", r"(a)\10", r"(a)\01", r"(a)\11", r"(.)\1", r"(\w+) \1",
          r"(", r")", r"(a", r"a)", r"((a)", r"(?:", r"(?", r"(?x", r"(?<x>a)", r"(?<", r"(?<x", r"(?#comment)a", r"(?#x",
          r"(?P<é>a)", r"(?P<a b>x)", "(?P<\u00b7x>a)", "(?P<x\u00b7>a)", "(?P<\u2160>a)", "(?P<x\u0300>a)", "(?P<\u2e2f>a)", r"(a)|(b)", r"(a)|(b)|(c)", r"(?:(a)|b)*", r"(a(b(c)))", r"(a)(?:b)(c)",
          r"(?P<first>\w+) (?P<last>\w+)", r"(?P<n>a)(?P=n)+", r"()", r"(()())", r"(a|ab)(c|bcd)(d*)"]:
    add(p)
# Lookaround
for p in [r"a(?=b)", r"a(?!b)", r"(?<=a)b", r"(?<!a)b", r"(?<=ab)c", r"(?<=a|b)c", r"(?<=a|bc)d", r"(?<=a*)b",
          r"(?<=a+)b", r"(?<=a{2})a", r"(?<=(a))b", r"(?<=(a)\1)b", r"(a)(?<=\1)", r"(?<=a)(?=b)", r"(?=(a))\w",
          r"(?!(a))\w", r"(?=a)*", r"(?<x)", r"(?<=", r"(?=", r"(?!a", r"\w+(?=\s)", r"(?<![a-z])\d", r"(?<=\b)a",
          r"^(?=.*b).*", r"(?=a|b)\w+", r"(?<=a(?=b))b", r"(?!)", r"(?=)", r"(?<=)a", r"(?<!)a", r"(?<=a(?P<n>b))c",
          r"(?P<n>a)(?<=(?P=n))", r"(?<=(?P<n>a)(?P=n))b", r"(?<=\d{3})x"]:
    add(p)
# Conditionals
for p in [r"(a)?(?(1)b|c)", r"(a)?(?(1)b)", r"(?P<n>a)?(?(n)b|c)", r"(?(1)a|b)", r"(a)(?(2)b)", r"(a)(?(1)b|c|d)",
          r"(a)(?(0)b)", r"(a)(?(-1)b)", r"(a)(?(x)b)", r"(a)(?(1", r"(?(1)", r"(a)(?(1)b", r"^(<)?\w+(?(1)>)$",
          r"(a)?(?(1)|c)", r"(?P<n>x)?(?(n)y|z)+"]:
    add(p, "", S + ["<abc>", "<abc", "ab", "ac", "c", "xyz", "zz"])
# Inline flags, scoped flags
for p in [r"(?i)abc", r"(?i:a)b", r"a(?i:b)", r"(?-i:a)b", r"(?i)(?-i:a)b", r"(?m)^\w", r"(?s:.)", r"(?x) a b c",
          r"(?x)a # comment\n b", r"(?x)[ ]a", r"(?x)a\ b", r"(?a)\w+", r"(?u)\w+", r"(?au)x", r"(?L)a",
          r"(?z)a", r"(?i", r"(?i-", r"(?i-:a)", r"(?-)", r"(?-a:x)", r"(?i-i:a)", r"a(?i)", r"(?i)(?m)a", r"(?ix)A B",
          r"(?x:a b)c d", r"(?-x:a b)", r"(?i:(?-i:a)A)", r"(?a:\w)\w", r"(?:(?i)a)", r"(?1)", r"(?i:", r"(?#)(?i)a",
          r"(?i)[a-z]+", r"(?i)[^a-z]+", r"(?i)\w", r"(?i-s:a.)"]:
    add(p, "", S + ["ABC", "aBc", "A B", "é É", "\u0130i"])
# IGNORECASE details (unicode, ASCII, bytes, special cases)
for p in [r"s", r"S", r"k", r"K", "\u017f", "\u212a", "\u0131", "\u0130", r"i", r"I", "\u00b5", "\u03bc", r"[a-z]", r"[A-Z]",
          r"[k]", "[\u212a]", r"[^k]", "\u00df", "\u1e9e", r"[\u0370-\u03ff]+", r"\u03c3", "\u03a3", r"[sS]", r"(s)\1",
          r"(.)\1", r"\w", r"[^\W]", r"[\x80-\xff]"]:
    add(p, "i", ["s", "S", "\u017f", "k", "K", "\u212a", "i", "I", "\u0131", "\u0130", "\u00b5", "\u03bc", "\u039c", "\u00df",
                 "\u1e9e", "\u03c3\u03a3\u03c2", "sS\u017f", "\u00e9\u00c9", "KkK"])
    add(p, "ia", ["s", "S", "\u017f", "k", "K", "\u212a", "\u00e9\u00c9", "sS"])
for p in [r"abc", r"[a-z]+", r"(a)\1", r"\xe9", r"[\xc0-\xde]"]:
    add(p, "ib", ["ABC", "abc", "aA", "\xe9\xc9", "\xc0\xe0"])
# Atomic groups, possessive
for p in [r"(?>a+)b", r"(?>a+)a", r"(?>a|ab)c", r"(?>(a)|b)+", r"a*+a", r"a++b", r"(?:ab)++", r"(?>.*)x", r"(a+)++",
          r"(?>)", r"(?>", r"(?>a*)*", r"x(?>a*?)y", r"(?>a|b)*+c"]:
    add(p, "", S + ["aab", "aaab", "abc", "ababc", "xay", "xy"])
# Bytes patterns
for p in [r"a+", r"\w+", r"[\x00-\x7f]+", r"\u0061", r"\N{X}", r"(?u)a", r"(?a)a", r"\xff", r"[^\x00]"]:
    add(p, "b", ["aaa", "\xff\xfe", "abc def", ""])
add(r"a", "bu", ["a"])
add(r"a", "au", ["a"])
add(r"a", "L", ["a"])
add(r"\w", "ba", ["a"])
# Verbose
for p in ["a b # c\n d", "[ ]", "a\\ b", "a{1, 2}", "(?x)a  \n  b", "a #x", " a | b ", "a(?# x )b", "( a ) \\1"]:
    add(p, "x", ["ab", "a b", "abd", "a", "b", "aa", " "])
# Error positions spanning lines
for p in ["abc\n(", "a\nb\n)", "\n\n\\q", "a\n[", "a{2,1}\nb"]:
    add(p)
# Templates
for repl in [r"\1", r"\g<1>", r"\g<0>", r"\g<name>", r"\g<x>", r"\g<1", r"\g", r"\g<>", r"\g<-1>", r"\g<a b>",
             r"\2", r"\9", r"\10", r"\0", r"\07", r"\141", r"\777", r"\n\t", r"\q", r"\-", "\\", r"x\\y", r"[\1|\g<name>]",
             r"\g<99>", r"\01", r"\12", r"\g<01>", "\u00e9", r"\a\b\f\v\r"]:
    add(r"(?P<name>a)(b)?", "", ["ab", "a", "xabyaz", ""], repl)
    add(r"x*", "", ["", "abc", "xaxx"], repl)
# split/findall/sub empty-match rules
for p in [r"", r"x*", r"\b", r"\B", r"(x*)", r"(?=a)", r"(a)|(b)", r"(,)", r",", r"\s*", r"(\s)*", r"a|", r"|a", r"(?:)"]:
    add(p, "", ["", "a", "abc", "a,b,,c", "xaxbx", " a  b ", "aab", "ba"])
# Known deviations (README "does not") are tested in tests/it/api.rs, not here:
# \N{...} names, re.LOCALE for bytes, re.TEMPLATE.
# Hostile but small
for p in [r"(a+)+$", r"(a|a)*b", r"(a*)*b", r"(?:a|aa)*c", r"(x+x+)+y", r"(.*a){3}"]:
    add(p, "", ["aaaaaaaaab", "aaaaaaaaaa", "xxxxxxxxy", "aXaXaXa"])
# Misc
for p in [r"[a-z]+@[a-z]+\.com", r"(\d+)-(\d+)", r"^(\w+)\s*=\s*(.*?)\s*$", r"<(\w+)>.*?</\1>", r"(?P<y>\d{4})-(?P<m>\d\d)",
          r"\$\d+(\.\d\d)?", r"colou?r", r"(?i)hello|world", r"a|b|c", r"ab|ac|ad", r"a(?:b|c)d", r"(?:a|b)(?:c|d)",
          r"[^\n]+", r"\d{1,3}(?:,\d{3})*", r"(a|bc|def)+", r"(?s)<.*>", r"<.*?>", r"\(([^)]*)\)", r"\w+|\d+", r"(?<=\$)\d+"]:
    add(p, "", S + ["x@y.com", "12-34 5-6", "key = value ", "<b>bold</b><i>x</b>", "2024-05-01", "$3.50 $4",
                    "color colour", "1,234,567", "f(a, b) g()", "abcdef", "<a><b>"])

# Random patterns from a small grammar (fixed seed, so the file is stable):
# they find interactions between captures, loops, lookaround and
# backtracking that hand-written cases miss.
rng = random.Random(20261122)


def rand_pat(depth, groups):
    kind = rng.randrange(12 if depth < 3 else 4)
    if kind in (0, 1):
        return rng.choice(["a", "b", "ab", "ba"])
    if kind == 2:
        return rng.choice([".", "[ab]", "[^a]", "\\w", "$", "^", "\\b"])
    if kind == 3:
        return "a" if not groups[0] else rng.choice(["\\1", "a"])
    if kind == 4:
        groups[0] += 1
        return "(" + rand_seq(depth + 1, groups) + ")"
    if kind == 5:
        return "(?:" + rand_seq(depth + 1, groups) + "|" + rand_seq(depth + 1, groups) + ")"
    if kind in (6, 7, 8):
        q = rng.choice(["*", "+", "?", "{1,2}", "{2}", "{0,3}"]) + rng.choice(["", "", "?", "+"])
        groups[0] += 1
        return "(" + rand_seq(depth + 1, groups) + ")" + q
    if kind == 9:
        return "(?" + rng.choice(["=", "!"]) + rand_seq(depth + 1, groups) + ")"
    if kind == 10:
        return "(?>" + rand_seq(depth + 1, groups) + ")"
    return rng.choice(["a", "b"]) + rng.choice(["*", "+", "?", "*?", "+?", "{1,3}", "*+"])


def rand_seq(depth, groups):
    return "".join(rand_pat(depth, groups) for _ in range(rng.randrange(1, 4)))


for _ in range(300):
    pat = rand_seq(0, [0])
    subs = ["".join(rng.choice("ab") for _ in range(rng.randrange(0, 7))) for _ in range(4)]
    add(pat, rng.choice(["", "", "i"]), subs, "[\\g<0>]")

# A second grammar: look-behind, conditionals, classes, anchors, case
# variants and non-ASCII subjects, under every flag combination.
def rand2(depth, st):
    k = rng.randrange(14 if depth < 3 else 5)
    if k == 0:
        return rng.choice(["a", "B", "é", "ſ", "s", "K", "\\n"])
    if k == 1:
        return rng.choice(["[a-c]", "[^\\s]", "[\\wé]", "[S-s]", "[\\d\\W]", "[kK]"])
    if k == 2:
        return rng.choice(["^", "$", "\\A", "\\Z", "\\b", "\\B", "."])
    if k == 3:
        return rng.choice(["a", "s"]) + rng.choice(["*", "+?", "{0,2}", "?+"])
    if k == 4:
        return "\\%d" % rng.randrange(1, st[0] + 1) if st[0] else "x"
    if k == 5:
        st[0] += 1
        return "(" + seq2(depth + 1, st) + ")"
    if k == 6:
        return "(?<" + rng.choice("=!") + rng.choice(["a", "ab", "a|b", "\\w", "[as]", "\\b"]) + ")"
    if k == 7:
        if st[0]:
            return "(?(%d)" % rng.randrange(1, st[0] + 1) + seq2(depth + 1, st) + "|" + seq2(depth + 1, st) + ")"
        return "y"
    if k == 8:
        return "(?" + rng.choice(["i", "-i", "s", "m", "x", "a"]) + ":" + seq2(depth + 1, st) + ")"
    if k == 9:
        return "(?:" + seq2(depth + 1, st) + "|" + seq2(depth + 1, st) + ")" + rng.choice(["", "*", "+", "?", "{2}", "*?"])
    if k == 10:
        st[0] += 1
        return "(" + seq2(depth + 1, st) + ")" + rng.choice(["*", "+", "?", "{1,3}", "*?", "++"])
    if k == 11:
        return "(?=" + seq2(depth + 1, st) + ")"
    if k == 12:
        return "(?>" + seq2(depth + 1, st) + ")" + rng.choice(["", "*", "+"])
    return rng.choice(["\\d+", "\\s*", "\\W", "\\S+?"])


def seq2(depth, st):
    return "".join(rand2(depth, st) for _ in range(rng.randrange(1, 4)))


ALPH = ["a", "b", "s", "S", "ſ", "k", "K", "K", "é", "É", " ", "\n", "1", "_"]
for _ in range(400):
    pat = seq2(0, [0])
    subs = ["".join(rng.choice(ALPH).replace("\\n", "\n") for _ in range(rng.randrange(0, 8))) for _ in range(4)]
    add(pat, rng.choice(["", "i", "m", "s", "ms", "ia", "x"]), subs, "<\\g<0>>")

# Bytes patterns from the first grammar, with latin-1 subjects.
for _ in range(100):
    pat = rand_seq(0, [0])
    subs = ["".join(rng.choice(["a", "b", "A", "\xe9", "\xc9", " "]) for _ in range(rng.randrange(0, 7))) for _ in range(3)]
    add(pat, rng.choice(["b", "bi"]), subs, "[\\1]" if "(" in pat else "[\\g<0>]")

here = os.path.dirname(os.path.abspath(__file__))
with open(os.path.join(here, "re_cases.json"), "w", encoding="utf-8") as fh:
    json.dump(C, fh, ensure_ascii=True, indent=0)
print(len(C), "cases")
