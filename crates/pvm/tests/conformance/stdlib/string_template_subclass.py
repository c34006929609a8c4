import string

class Percent(string.Template):
    delimiter = "%"
t = Percent("%name is %% %{age}y")
print(t.substitute(name="bob", age=5))
print(Percent("100%").safe_substitute())
try:
    Percent("100% x").substitute()
except ValueError as e:
    print("ValueError", e)
class Hash(string.Template):
    delimiter = "#"
print(Hash("#a $b ##").substitute(a=1))
class Multi(string.Template):
    delimiter = "@@"
print(Multi("@@x @@@@ @y").substitute(x="X"))
class Obj:
    def __str__(self):
        return "OBJ"
print(string.Template("$o").substitute(o=Obj()), string.Template("$n").substitute(n=[1, 2]))
class Lookup(dict):
    def __missing__(self, key):
        return key.upper()
print(string.Template("$a $b").substitute(Lookup(a="x")))
print(string.Template.delimiter, Percent.delimiter)
