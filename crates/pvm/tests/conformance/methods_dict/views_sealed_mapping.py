# Dict views expose only their own methods (isdisjoint, mapping), never the dict's, and no
# item access; a view's .mapping is a live read-only mappingproxy of the dict.
def t(f):
    try:
        print(repr(f()))
    except Exception as e:
        print(type(e).__name__, e)


d = {1: 2}
k = d.keys()
t(lambda: k[1])
t(lambda: k.get(1))
t(lambda: k.pop(1))
t(lambda: d.values()[0])
t(lambda: d.items().update({3: 4}))
def s(): k[5] = 6
t(s)
def dl(): del k[1]
t(dl)
t(lambda: d)
t(lambda: len(k))
t(lambda: k | {9})
mp = k.mapping
t(lambda: mp)
def s2(): mp[1] = 3
def dl2(): del mp[1]
t(s2)
t(dl2)
t(lambda: mp.pop(1))
t(lambda: mp.update({}))
t(lambda: mp == {1: 2})
t(lambda: mp != {1: 2})
t(lambda: type(mp).__name__)
t(lambda: list(mp))
t(lambda: mp.get(1))
t(lambda: mp.get(7, 'no'))
t(lambda: mp.copy())
t(lambda: sorted(n for n in dir(mp) if not n.startswith('_')))
t(lambda: len(mp))
t(lambda: 1 in mp)
t(lambda: mp[1])
t(lambda: mp[5])
t(lambda: str(mp))
t(lambda: isinstance(mp, dict))
t(lambda: list(mp.keys()), )
t(lambda: list(mp.items()))
d[3] = 4
t(lambda: mp)
t(lambda: d.values().mapping is not None)
t(lambda: d.items().mapping == d)
t(lambda: mp.copy() is d)
t(lambda: dict(mp))
t(lambda: sorted(n for n in dir({}.keys()) if not n.startswith('_')))
t(lambda: sorted(n for n in dir({}.values()) if not n.startswith('_')))
t(lambda: d)
v = {1: 'a', 2: 'b'}.values()
t(lambda: v.__len__())
t(lambda: v.__contains__('a'))
t(lambda: v.__contains__(1))
t(lambda: list(v.__iter__()))
t(lambda: {1: 2}.items().__contains__((1, 2)))
t(lambda: mp.__getitem__(1))
t(lambda: mp.__len__())
t(lambda: mp.__contains__(3))
t(lambda: sorted(mp.__iter__()))
t(lambda: v.__getitem__(0))
t(lambda: mp.__setitem__(1, 2))
