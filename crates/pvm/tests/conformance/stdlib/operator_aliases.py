import operator

names = ["lt", "le", "eq", "ne", "ge", "gt", "abs", "add", "and", "floordiv", "index", "inv",
         "invert", "lshift", "mod", "mul", "matmul", "neg", "or", "pos", "pow", "rshift", "sub",
         "truediv", "xor", "concat", "contains", "delitem", "getitem", "setitem", "iadd",
         "iand", "iconcat", "ifloordiv", "ilshift", "imod", "imul", "imatmul", "ior", "ipow",
         "irshift", "isub", "itruediv", "ixor", "call"]
for n in names:
    plain = getattr(operator, n if hasattr(operator, n) else n + "_")
    print(n, getattr(operator, "__" + n + "__") is plain)
print(operator.__not__ is operator.not_)
print(sorted(operator.__all__) == sorted(set(operator.__all__)), len(operator.__all__))
print(operator.__add__(1, 2), operator.__getitem__("ab", 1))
for n in operator.__all__:
    print(n, callable(getattr(operator, n)))
