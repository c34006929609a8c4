# open() as a context manager, and OSError's errno/strerror/filename from the constructor.
P = "/tmp/pvm_conf_with.txt"

with open(P, "w") as f:
    print(f.closed)
    f.write("inside\n")
print(f.closed)

try:
    with open(P, "a") as f:
        f.write("before error\n")
        raise KeyError("boom")
except KeyError as e:
    print("caught", e, f.closed)

with open(P) as f:
    print(f.read())

with open(P, "rb") as a, open(P, "r") as b:
    print(a.read(6), b.read(6))
print(a.closed, b.closed)

for args in [(), ("msg",), (2, "No such file"), (2, "x", "f"), (2, "x", None), (2, "x", "f", None, "g"),
             (1, 2, 3, 4, 5, 6)]:
    e = OSError(*args)
    print(args, "|", str(e), "|", e.args, e.errno, e.strerror, e.filename, e.filename2)
e = PermissionError(13, "Permission denied", "/x")
print(e, repr(e), isinstance(e, OSError))
print(IOError is OSError, EnvironmentError is OSError)
for cls in [FileNotFoundError, FileExistsError, IsADirectoryError, NotADirectoryError, PermissionError]:
    print(cls.__name__, cls.__mro__[1].__name__, issubclass(cls, OSError))
try:
    raise FileNotFoundError(2, "No such file or directory", "gone.txt")
except OSError as e:
    print(type(e).__name__, e)
