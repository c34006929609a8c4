"""re.RegexFlag for the native `re` module (src/native/re.rs).

The flags are an IntFlag, and enum is written in Python, so the class is defined here in
Python rather than rebuilt in Rust: re.rs runs this file once when `re` is first imported
(compiled once and cached like the stdlib modules) and copies RegexFlag and the flag names
into the module. It is not importable on its own. The values are the engine's
(cowboy-pvm-re::flags), which are CPython's; LOCALE, TEMPLATE and DEBUG are not supported by
the PVM, so they are not members.
"""

import enum


class RegexFlag(enum.IntFlag, boundary=enum.KEEP):
    # Definition order is CPython's; the values are not sorted, so iteration keeps it.
    NOFLAG = 0
    ASCII = A = 256
    IGNORECASE = I = 2
    UNICODE = U = 32
    MULTILINE = M = 8
    DOTALL = S = 16
    VERBOSE = X = 64

    # As CPython's: members print as the module globals they are (re.IGNORECASE, also from
    # str()), unknown bits in hex; format() stays int's.
    __repr__ = enum.global_flag_repr
    __str__ = object.__str__
    _numeric_repr_ = hex
