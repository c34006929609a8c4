"""str.format: auto/manual numbering, attribute and index fields, nested specs, conversions, errors."""
print("{} {} {}".format(1, "two", 3.0), "{2} {0} {1}".format("a", "b", "c"), "{0}{0}".format("ab"))
print("{name} is {age}".format(name="Ann", age=30), "{0[1]} {1[k]} {2.real}".format([5, 6], {"k": "v"}, 7))
print("{:>{w}} {:.{p}f}".format("r", 3.14159, w=5, p=2), "{0:{1}}".format("x", ">4"), "{!r:>6}".format("q"))
class O:
    attr = "A"
    items = {"key": ["deep"]}
print("{0.attr} {0.items[key][0]}".format(O()), "{:%Y}".format(O()) if False else "skip-date")
print("{{}} {{{0}}}".format("in"), "{:,.2f}".format(1234567.891), "{:x} {:X} {:o} {:b} {:c}".format(255, 255, 8, 5, 65))
print("{:+.3e}".format(-1234.5), "{:10.3%}".format(0.12345), "{:<5}|{:^5}|{:>5}".format(1, 2, 3), "{:*>+8.2f}".format(3.14159))
def attempt(fmt, *a, **k):
    try:
        print(repr(fmt.format(*a, **k)))
    except (ValueError, IndexError, KeyError, AttributeError, TypeError) as e:
        print(fmt, type(e).__name__, e)
attempt("{} {1}", 1, 2)
attempt("{0} {}", 1, 2)
attempt("{2}", 1)
attempt("{}")
attempt("{missing}")
attempt("{0.nope}", 5)
attempt("{0[5]}", [1])
attempt("{0[x]}", {"y": 1})
attempt("{:q}", 5)
attempt("{", 1)
attempt("}", 1)
attempt("{0!x}", 1)
attempt("{:>>>}", 1)
attempt("{0:{1}}", 1, "{")
