# dir() of a function lists its own attributes and the function type's, sorted.
def f(x, *, y=2):
    "doc"
    return x


f.custom = 1
f.other = [1]
names = dir(f)
print("custom" in names, "other" in names)
print([n for n in names if not n.startswith("__")])
print(all(n in names for n in ["__name__", "__qualname__", "__doc__", "__module__",
                               "__defaults__", "__kwdefaults__", "__closure__",
                               "__annotations__", "__dict__", "__get__"]))
print(names == sorted(names), len(names) == len(set(names)))
g = lambda: 0
print([n for n in dir(g) if not n.startswith("__")])
del f.custom
print("custom" in dir(f))
