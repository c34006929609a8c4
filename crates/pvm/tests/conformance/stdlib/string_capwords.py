import string

print(string.capwords("hello world"))
print(string.capwords("  hello   world  "))
print(string.capwords("HELLO wORLD"))
print(string.capwords("hello-world foo-bar", "-"))
print(string.capwords("a,b,,c", ","))
print(string.capwords(""), repr(string.capwords("   ")))
print(string.capwords("o'neil mc-donald"))
print(string.capwords("tab\tsep\nline"))
print(string.capwords("x y", None), string.capwords("123abc def"))
print(string.capwords("ßtraße éclair"))
