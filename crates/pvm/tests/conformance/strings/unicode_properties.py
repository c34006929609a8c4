"""str character predicates and case mappings follow CPython 3.11's Unicode 14.0 tables,
including code points assigned or changed after Unicode 14 (which 3.11 does not know)."""

# Assigned in Unicode 15/16: digits, numerals and letters that 3.11 treats as unassigned.
later = [0x11F50, 0x11F59, 0x1E4F0, 0x10D40, 0x1D2C0, 0x1D2D3, 0x1E030, 0x1C89, 0x1C8A,
         0xA7CB, 0xA7CC, 0xA7DA, 0x10D50, 0x10D70, 0x1DF25, 0x16D40, 0x1CCF0]
preds = ["isdecimal", "isdigit", "isnumeric", "isalpha", "isalnum", "isupper", "islower",
         "istitle", "isspace", "isprintable", "isidentifier"]
for cp in later:
    ch = chr(cp)
    flags = "".join("1" if getattr(ch, p)() else "0" for p in preds)
    print(f"U+{cp:05X}", flags, ascii(ch.lower()), ascii(ch.upper()), ascii(ch.title()),
          ascii(ch.casefold()))

# Code points where the definitions (not the versions) differ from Rust's char methods.
samples = "\x1c\x1f\x85\xa0\u2028\u3000\u093e\u0345\u2167\u00aa\u02b0\u01c5\u1fbc\u00bd\u00b2\u0660\u0f33\u2460\u4e00\u00df\u0149\ufb01\u0130\u03a3\u2126"
for ch in samples:
    flags = "".join("1" if getattr(ch, p)() else "0" for p in preds)
    print(f"U+{ord(ch):04X}", flags, ascii(ch.lower()), ascii(ch.upper()), ascii(ch.title()),
          ascii(ch.swapcase()), ascii(ch.capitalize()))

# Whole-string algorithms.
words = ["hello world", "HELLO", "Hello World", "hELLO wORLD", "\u4e00a b", "\u01c5ungla",
         "\u01c4UNGLA", "\u00df und \ufb01sh", "o'neil is 3rd", "\u03a3\u0391\u03a3 \u03a3",
         "\u0391\u03a3'\u0391", "\u03a3", "a\u03a3", "\u0391\u0345\u03a3", "ab\u0130c", "\u1fb3",
         "1st 2nd", "x\u0301y", "\u2167\u2168", "\u00aa\u00ba"]
for w in words:
    print(ascii(w), ascii(w.lower()), ascii(w.upper()), ascii(w.title()), ascii(w.capitalize()),
          ascii(w.swapcase()), w.istitle(), w.isupper(), w.islower())

# split()/strip() without arguments use str.isspace
s = "\x1ca\x1d\x1eb\x1f c\u3000d\x85"
print(ascii(s.split()), ascii(s.strip()), ascii(" \x1c x \x1f".rsplit(None, 1)))
print(int("\u3000 42\xa0"), int("\u0664\u0662"), float("\u0661.\u0665"))
print("".isalpha(), "".isspace(), "".istitle(), "".isupper(), " ".isupper(), "A1".isupper(), "a_".islower())
print("a\u3000b\u2028c d".rsplit(None, 1), "a\u3000b\u2028c d".split(None, 2), "\u3000x\u3000".strip())
