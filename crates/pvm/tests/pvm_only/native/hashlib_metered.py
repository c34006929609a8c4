# pvm-args: --cycles 1100000
# Hashing is charged per 32-byte word before the work: 1 MB of input costs 6 * 32768 cycles,
# more than is left after building the input (1 cycle per byte), so the update aborts with
# OutOfCycles, which no except clause catches.
import hashlib

data = b"x" * 1_000_000
h = hashlib.sha256(b"small")
print(len(h.hexdigest()))
try:
    h.update(data)
except BaseException:
    print("caught")
print("not reached")
