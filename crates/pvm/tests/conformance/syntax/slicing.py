s = list(range(10)); t = "abcdefghij"
print(s[::2], s[1::3], s[::-1], s[-3:], s[:-7], s[8:2:-2], s[100:], s[-100:2])
print(t[::-2], t[2:8:3], t[-1], t[5:5], (1, 2, 3)[::-1])
s[2:5] = ["x"]; print(s)
s[::3] = [0] * len(s[::3]); print(s)
del s[::2]; print(s)
try: s[::2] = [1]
except ValueError as e: print("ValueError", e)
print(slice(1, 10, 2).indices(5), b"hello"[1:3], bytearray(b"abc")[::-1])
