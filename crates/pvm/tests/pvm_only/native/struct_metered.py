# pvm-args: --cycles 100000
# struct charges one cycle per output byte before packing: a 100 MB pad format ends in
# OutOfCycles at once, before any memory is touched.
import struct

print(struct.calcsize("<100000000x"))
try:
    struct.pack("<100000000x")
except BaseException:
    print("caught")
print("not reached")
