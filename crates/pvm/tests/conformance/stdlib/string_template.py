import string

t = string.Template("$who likes $what")
print(t.substitute(who="tim", what="kung pao"))
print(t.substitute({"who": "ann", "what": 3}))
print(t.substitute({"who": "x", "what": "y"}, what="override"))
print(string.Template("${noun}ification costs $$10").substitute(noun="verb"))
print(string.Template("$a$b ${a}b $_c9").substitute(a=1, b=2, _c9=3))
print(t.template, t.get_identifiers(), t.is_valid())
print(string.Template("$x ${y} $x $$z").get_identifiers())
print(string.Template("nothing here").substitute(), string.Template("").substitute())
print(string.Template("$x.y $x-y").substitute(x="V"))
try:
    t.substitute(who="only")
except KeyError as e:
    print("KeyError", e)
print(t.safe_substitute(who="only"))
print(string.Template("${missing} and $ and ${bad").safe_substitute())
for s in ["cost: $", "a\nb $1", "line1\nline2\n  ${", "$ x", "${}", "${1}"]:
    try:
        string.Template(s).substitute()
    except ValueError as e:
        print("ValueError", e)
print(string.Template("$ x").is_valid(), string.Template("$$").is_valid())
print(string.Template("$über").safe_substitute(), string.Template("$abc").safe_substitute({"abc": None}))
