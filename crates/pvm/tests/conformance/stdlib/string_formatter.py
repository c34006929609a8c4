# string.Formatter: format/vformat, parse, get_field, overriding the steps, errors; and
# str.format_map.
import string

f = string.Formatter()
print(f.format("{} + {} = {:>5}", 1, 2, 3), f.format("{0}{1}{0}", "a", "b"))
print(f.format("{name!r:>8}|{x.real}|{d[k]}|{l[1]}", name="n", x=3, d={"k": 7}, l=[4, 5]))
print(f.format("{:{w}.{p}f}", 3.14159, w=8, p=2), f.format("{{literal}} {0}", "x"))
print(f.format("{0!s} {0!r} {0!a}", "é"), f.vformat("{a}-{0}", ("p",), {"a": "q"}))
for s in ("a{{b", "x}}y{0:>{1}}z", "{0!r:^10}", "{a.b[c][0]}", "", "plain", "{:}", "{!s}",
          "{a[x:y]!r:2}", "{0}{{}}"):
    print(repr(s), list(f.parse(s)))
print(list(f.parse("{0!:}")), list(f.parse("{a[}]}")), list(f.parse("{a[]]}x")),
      list(f.parse("{a:x[}")), list(f.parse("{a[x]:{b}}")), list(f.parse("{a[!]}")))
for s in ("{", "}", "a{0", "{0!}", "{0!rx}", "{0!", "x}y", "{!}", "{0!r", "{0!r:", "{a[}",
          "{a[x]:{b[}", "{a!r[}"):
    try:
        list(f.parse(s))
    except ValueError as e:
        print(repr(s), type(e).__name__, e)
for fmt, args, kw in (("{0}{}", (1, 2), {}), ("{}{0}", (1, 2), {}), ("{a.}", (), {"a": 1}),
                      ("{a[}", (), {"a": 1}), ("{a[0]x}", (), {"a": [1]}), ("{0!x}", (1,), {}),
                      ("{5}", (1,), {}), ("{z}", (), {}), ("{:{:{}}}", (1, 2, 3), {}),
                      ("{0.nope}", (1,), {})):
    try:
        print(f.vformat(fmt, args, kw))
    except (ValueError, IndexError, KeyError, AttributeError) as e:
        print(repr(fmt), type(e).__name__, e)
print(f.get_field("a.real", (), {"a": 5}), f.get_field("0[1]", ([7, 8],), {}),
      f.get_value(0, ("v",), {}), f.get_value("k", (), {"k": 1}))
print(f.convert_field(1, None), f.convert_field("x", "r"), f.format_field(3.5, "06.2f"))
try:
    f.convert_field(1, "z")
except ValueError as e:
    print(type(e).__name__, e)


class Strict(string.Formatter):
    def check_unused_args(self, used_args, args, kwargs):
        unused = [k for k in kwargs if k not in used_args]
        unused += [i for i in range(len(args)) if i not in used_args]
        if unused:
            raise ValueError(f"unused: {unused}")


class Defaulting(string.Formatter):
    def get_value(self, key, args, kwargs):
        if isinstance(key, str):
            return kwargs.get(key, f"<{key}>")
        return super().get_value(key, args, kwargs)

    def format_field(self, value, format_spec):
        return super().format_field(value, format_spec).upper()

    def convert_field(self, value, conversion):
        if conversion == "u":
            return str(value) + "!"
        return super().convert_field(value, conversion)


print(Strict().format("{a}{0}", 1, a=2))
try:
    Strict().format("{a}", a=1, b=2)
except ValueError as e:
    print(type(e).__name__, e)
print(Defaulting().format("{x} {known} {0!u}", 7, known="yes"))


class Default(dict):
    def __missing__(self, key):
        return f"?{key}?"


print("{a} {b:>4} {c[0]}".format_map({"a": 1, "b": 2, "c": [3]}), "{x}".format_map(Default()))
for call in (lambda: "{0}".format_map({}), lambda: "{}".format_map({}),
             lambda: "{q}".format_map({}), lambda: "{}".format_map(), lambda: "{a}".format_map(5)):
    try:
        print(call())
    except (ValueError, KeyError, TypeError) as e:
        print(type(e).__name__, e)
