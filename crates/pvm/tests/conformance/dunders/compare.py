class N:
    def __init__(self, v): self.v = v
    def __lt__(self, o): return self.v < o.v
    def __le__(self, o): return self.v <= o.v
    def __eq__(self, o): return self.v == o.v
    def __repr__(self): return f"N{self.v}"
xs = [N(3), N(1), N(2)]
print(sorted(xs), max(xs), min(xs), N(1) > N(0), N(2) >= N(3))
print(N(1) == N(1), N(1) != N(2), N(1) == 1 if False else "skip")
class Only:
    pass
try: Only() < Only()
except TypeError as e: print("TypeError", e)
print(Only() == Only(), [1, 2] < [1, 3], (1, "a") < (1, "b"), "abc" < "abd")
