a = 2 ** 200 + 12345; b = 3 ** 100
print(a, b, a * b % 10 ** 30, a // b, a % b, -a // b, -a % b)
print(divmod(a, 7), divmod(-a, 7), pow(3, 1000, 10 ** 9 + 7), pow(2, -1, 7), pow(7, 0, 1))
print(a.bit_length(), (a >> 150), (a << 3) - (a * 8), a & 0xffff, a | 1, a ^ a, ~a < 0)
print(int("1" * 50), int("-0x1F", 16), int("0b101", 0), int("z", 36), int(" 42 "), int("1_000_000"))
print(hex(a), oct(255), bin(-5), (255).to_bytes(2, "big"), int.from_bytes(b"\x01\x00", "little"))
print((1234).to_bytes(4, "little", signed=True), int.from_bytes(b"\xff\xfe", "big", signed=True), (-1).bit_length())
print(abs(-a) == a, max(a, b) == a, sorted([b, a, 5])[0], a == float(a), 10 ** 20 == 1e20, 2 ** 53 + 1 == float(2 ** 53 + 1))
