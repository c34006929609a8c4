"""print(): sep, end, several arguments, sep/end None, non-str objects, and argument errors."""
print("a", "b", "c")
print("a", "b", sep="")
print("a", "b", sep=" -> ", end=" <end>\n")
print("no newline", end="")
print(" continued")
print(1, 2.5, None, True, [1, "x"], {"k": (1,)}, sep="|")
print(sep="ignored-when-empty")
print()
print("x", end="\n\n")
print("sep None", "default", sep=None)
print("end None", end=None)
print(*range(5), sep=", ")
print(*"abc", sep="")
class Shown:
    def __str__(self):
        return "shown!"
print(Shown(), [Shown()] == [], sep=" / ")
for bad in [dict(sep=5), dict(end=[1]), dict(flush="yes")]:
    try:
        print("x", **bad)
    except TypeError as e:
        print(type(e).__name__, e)
try:
    print("x", file=None, flush=False)
except TypeError as e:
    print(type(e).__name__, e)
