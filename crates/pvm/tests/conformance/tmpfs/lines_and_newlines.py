# open(): universal newlines and the newline= argument, readline/readlines/iteration, UTF-8.
P = "/tmp/pvm_conf_lines.txt"

f = open(P, "wb")
f.write("héllo\r\nx\ry\nlast".encode())
f.close()

for nl in [None, "", "\n", "\r", "\r\n"]:
    f = open(P, newline=nl)
    print(repr(nl), f.readlines())
    f.seek(0)
    print(repr(nl), repr(f.read()))
    f.seek(0)
    print(repr(nl), [f.readline(2), f.readline(), f.tell()])
    f.close()

for nl in [None, "", "\n", "\r", "\r\n"]:
    f = open(P, "w", newline=nl)
    f.write("a\nb\r\nc\r")
    f.close()
    f = open(P, "rb")
    print(repr(nl), f.read())
    f.close()

f = open(P, "w")
f.writelines(["one\n", "two\n", "three"])
f.close()
with open(P) as f:
    for i, line in enumerate(f):
        print(i, repr(line))
with open(P) as f:
    print(f.readlines(5))
    print(f.readlines(0))
with open(P) as f:
    print(next(f), f.readline(), f.read())

f = open(P, "w")
f.write("añ€😀z")
f.close()
f = open(P)
print(repr(f.read(2)), f.tell(), repr(f.read(1)), f.tell(), repr(f.read(1)), f.tell())
print(f.seek(1), repr(f.read()))
f.close()

f = open(P, "wb")
f.write(b"ok\xff\xfe\xe2\x82 end")
f.close()
for errors in ["replace", "ignore"]:
    f = open(P, errors=errors)
    print(errors, f.errors, repr(f.read()))
    f.close()
f = open(P)
try:
    f.read()
except UnicodeDecodeError as e:
    print("UnicodeDecodeError", type(e).__mro__[1].__name__)
f.close()
