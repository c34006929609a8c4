# open(): argument errors, missing files, directories, closed files and unsupported operations,
# with CPython's exception classes and messages.
P = "/tmp/pvm_conf_errors.txt"
MISSING = "/tmp/pvm_conf_never_created_5c1e.txt"


def show(label, f):
    try:
        r = f()
        print(label, "->", repr(r))
    except Exception as e:
        print(label, "!", type(e).__name__, "|", e, "|", e.args, isinstance(e, OSError), isinstance(e, ValueError))


g = open(P, "w")
g.write("data\n")
g.close()

show("missing", lambda: open(MISSING))
show("missing r+", lambda: open(MISSING, "r+"))
show("tmp dir", lambda: open("/tmp"))
show("tmp dir w", lambda: open("/tmp/", "w"))
show("exists x", lambda: open(P, "x"))
show("not a dir", lambda: open(P + "/inner", "w"))
show("not a dir slash", lambda: open(P + "/"))
show("no dir", lambda: open(MISSING + "/inner", "w"))
show("new dir slash", lambda: open(MISSING + "/", "w"))
show("missing bytes", lambda: open(MISSING.encode()))
show("nul", lambda: open("/tmp/a\0b"))
show("nul bytes", lambda: open(b"/tmp/a\0b"))
show("float", lambda: open(1.5))
show("list", lambda: open([P]))
show("none", lambda: open(None))
show("neg fd", lambda: open(-1))
show("mode int", lambda: open(P, 5))
show("mode rr", lambda: open(P, "rr"))
show("mode rw", lambda: open(P, "rw"))
show("mode rbt", lambda: open(P, "rbt"))
show("mode b", lambda: open(P, "b"))
show("mode empty", lambda: open(P, ""))
show("mode U", lambda: open(P, "rU"))
show("mode q", lambda: open(P, "rq"))
show("bin enc", lambda: open(P, "rb", encoding="utf-8"))
show("bin errors", lambda: open(P, "rb", errors="strict"))
show("bin newline", lambda: open(P, "rb", newline=""))
show("bad newline", lambda: open(P, newline="x"))
show("enc type", lambda: open(P, encoding=5))
show("errors type", lambda: open(P, errors=5))
show("newline type", lambda: open(P, newline=5))
show("unknown enc", lambda: open(P, encoding="no-such-codec"))
show("unbuffered text", lambda: open(P, buffering=0))
show("buffering str", lambda: open(P, buffering="x"))
show("closefd", lambda: open(P, closefd=False))
show("bad kw", lambda: open(P, foo=1))
show("twice", lambda: open(P, "r", mode="r"))
show("no args", lambda: open())
show("too many", lambda: open(P, "r", -1, None, None, None, True, None, 1))

for mode in ["r", "w", "rb", "wb", "r+b"]:
    f = open(P, mode)
    f.close()
    for m in ["read", "readline", "readlines", "tell", "flush", "truncate", "readable", "writable",
              "seekable", "fileno", "isatty", "__enter__", "__next__", "__iter__"]:
        show(mode + " closed " + m, getattr(f, m))
    show(mode + " closed seek", lambda: f.seek(0))
    show(mode + " closed write", lambda: f.write(b"" if "b" in mode else ""))
    show(mode + " closed writelines", lambda: f.writelines([]))

f = open(P, "r")
show("r write", lambda: f.write("x"))
show("r write bytes", lambda: f.write(b"x"))
show("r truncate", lambda: f.truncate())
show("r seek cur", lambda: f.seek(1, 1))
show("r seek end", lambda: f.seek(1, 2))
show("r seek neg", lambda: f.seek(-1))
show("r seek whence", lambda: f.seek(0, 3))
show("r seek float", lambda: f.seek(1.0))
show("r read str", lambda: f.read("x"))
f.close()
f = open(P, "w")
show("w read", lambda: f.read())
show("w readline", lambda: f.readline())
show("w iter", lambda: next(f))
show("w write bytes", lambda: f.write(b"x"))
show("w write int", lambda: f.write(5))
show("w writelines", lambda: f.writelines(["a", 1]))
f.close()
f = open(P, "rb")
show("rb write", lambda: f.write(b"x"))
show("rb read neg", lambda: f.read(-5))
show("rb read float", lambda: f.read(1.5))
show("rb seek neg", lambda: f.seek(-1))
show("rb seek rel", lambda: f.seek(-100, 1))
show("rb seek whence", lambda: f.seek(0, 5))
f.close()
f = open(P, "wb")
show("wb read", lambda: f.read())
show("wb write str", lambda: f.write("x"))
show("wb truncate neg", lambda: f.truncate(-1))
f.close()

try:
    open(MISSING)
except FileNotFoundError as e:
    print(e.errno, e.strerror, e.filename, e.filename2, repr(e))
try:
    open(P, "x")
except OSError as e:
    print(type(e).__name__, e.errno, e.strerror, e.filename)
try:
    open(P).write("x")
except ValueError as e:
    print(type(e).__name__, type(e).__module__, e, [c.__name__ for c in type(e).__mro__])
