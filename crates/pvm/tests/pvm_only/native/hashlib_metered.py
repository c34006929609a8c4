# pvm-args: --cycles 1300000
# Hashing is charged per byte before the work: 1 MB of input costs a million cycles, more than
# is left after building the input (1 cycle per byte and an eighth for its memory), so the
# update aborts with OutOfCycles, which no except clause catches.
import hashlib

data = b"x" * 1_000_000
h = hashlib.sha256(b"small")
print(len(h.hexdigest()))
try:
    h.update(data)
except BaseException:
    print("caught")
print("not reached")
