# Dict lookups by str key next to keys of other types: distinct but equal strings, one-char
# strings, str subclasses (whose __eq__/__hash__ decide), ints, floats, None and bytes.
class S(str):
    def __eq__(self, other):
        print("S.__eq__", str.__repr__(self), repr(other))
        return str.__eq__(self, other)
    __hash__ = str.__hash__

d = {"alpha": 1, "b": 2, 3: "three", 3.5: "float", None: "none", b"alpha": "bytes"}
key = "".join(["al", "pha"])  # equal to "alpha", another object
print(d[key], d["b"], d["".join(["b"])], d[3], d[3.5], d[None], d[b"alpha"])
print(key in d, "gamma" in d, d.get("alpha"), d.get("gamma", "absent"))
d[key] = 10
d["".join(["ga", "mma"])] = 30
print(d)
d[S("beta")] = 20
print(d["beta"], S("alpha") in d, d.get(S("gamma")))
try:
    d["missing"]
except KeyError as e:
    print("KeyError", e)
big = {str(i): i for i in range(2000)}
print(sum(big[str(i)] for i in range(0, 2000, 7)), big.get("2000"), "1999" in big)
del big["5"]
print(len(big), "5" in big, big.get("6"))
