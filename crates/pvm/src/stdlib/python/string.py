"""string for the PVM: string constants, capwords and Template.

Covers: the constants ascii_letters, ascii_lowercase, ascii_uppercase, digits, hexdigits,
octdigits, punctuation, printable, whitespace; capwords(s, sep=None); Template with
substitute, safe_substitute, get_identifiers, is_valid, a custom `delimiter` in subclasses,
and CPython's "Invalid placeholder in string: line N, col M" ValueError.

Does not: provide string.Formatter, or honour a subclass's custom `idpattern`,
`braceidpattern`, `flags` or `pattern` (CPython compiles those as regular expressions; ours
is a hand-written scanner for the default ASCII identifier syntax [_a-zA-Z][_a-zA-Z0-9]*).
Written for the PVM from the documented behaviour; builtins only.
"""

__all__ = ["ascii_letters", "ascii_lowercase", "ascii_uppercase", "capwords", "digits",
           "hexdigits", "octdigits", "printable", "punctuation", "whitespace", "Template"]

whitespace = ' \t\n\r\x0b\x0c'
ascii_lowercase = 'abcdefghijklmnopqrstuvwxyz'
ascii_uppercase = 'ABCDEFGHIJKLMNOPQRSTUVWXYZ'
ascii_letters = ascii_lowercase + ascii_uppercase
digits = '0123456789'
hexdigits = digits + 'abcdef' + 'ABCDEF'
octdigits = '01234567'
punctuation = r"""!"#$%&'()*+,-./:;<=>?@[\]^_`{|}~"""
printable = digits + ascii_letters + punctuation + whitespace


def capwords(s, sep=None):
    """Split on sep, capitalize each word, join with sep (a single space if sep is None)."""
    return (sep or ' ').join(word.capitalize() for word in s.split(sep))


_ID_START = frozenset('_' + ascii_letters)
_ID_CHAR = frozenset('_' + ascii_letters + digits)


def _ident_len(text, pos):
    """Length of the ASCII identifier starting at text[pos] (0 if none)."""
    n = len(text)
    if pos >= n or text[pos] not in _ID_START:
        return 0
    end = pos + 1
    while end < n and text[end] in _ID_CHAR:
        end += 1
    return end - pos


class Template:
    """A string class for supporting $-substitutions."""

    delimiter = '$'

    def __init__(self, template):
        self.template = template

    def _scan(self):
        """Yield (start, end, kind, name) for each delimiter occurrence, left to right;
        kind is 'escaped', 'named', 'braced' or 'invalid' (then end is just past the
        delimiter, where CPython's error position points)."""
        text = self.template
        delim = self.delimiter
        dl = len(delim)
        pos = 0
        while True:
            start = text.find(delim, pos)
            if start < 0:
                return
            after = start + dl
            if text.startswith(delim, after):
                pos = after + dl
                yield start, pos, 'escaped', None
                continue
            m = _ident_len(text, after)
            if m:
                pos = after + m
                yield start, pos, 'named', text[after:pos]
                continue
            if text.startswith('{', after):
                m = _ident_len(text, after + 1)
                if m and text.startswith('}', after + 1 + m):
                    pos = after + m + 2
                    yield start, pos, 'braced', text[after + 1:after + 1 + m]
                    continue
            pos = after
            yield start, after, 'invalid', None

    def _invalid(self, i):
        lines = self.template[:i].splitlines(keepends=True)
        if not lines:
            colno = 1
            lineno = 1
        else:
            colno = i - len(''.join(lines[:-1]))
            lineno = len(lines)
        raise ValueError(f'Invalid placeholder in string: line {lineno}, col {colno}')

    def _render(self, lookup):
        text = self.template
        out = []
        last = 0
        for start, end, kind, name in self._scan():
            out.append(text[last:start])
            out.append(lookup(start, end, kind, name))
            last = end
        out.append(text[last:])
        return ''.join(out)

    @staticmethod
    def _mapping(mapping, kws):
        if mapping is None:
            return kws
        if kws:
            return _Overlay(kws, mapping)
        return mapping

    def substitute(self, mapping=None, /, **kws):
        """Substitute placeholders; a missing key raises KeyError, a bad one ValueError."""
        mapping = self._mapping(mapping, kws)

        def lookup(start, end, kind, name):
            if kind == 'escaped':
                return self.delimiter
            if kind == 'invalid':
                self._invalid(end)
            return str(mapping[name])

        return self._render(lookup)

    def safe_substitute(self, mapping=None, /, **kws):
        """Substitute placeholders, leaving missing or malformed ones in place."""
        mapping = self._mapping(mapping, kws)
        text = self.template

        def lookup(start, end, kind, name):
            if kind == 'escaped':
                return self.delimiter
            if kind == 'invalid':
                return self.delimiter
            try:
                return str(mapping[name])
            except KeyError:
                return text[start:end]

        return self._render(lookup)

    def is_valid(self):
        """False if the template has a malformed placeholder."""
        return all(kind != 'invalid' for _, _, kind, _ in self._scan())

    def get_identifiers(self):
        """The valid identifiers in the template, in order of first appearance."""
        ids = []
        for _, _, kind, name in self._scan():
            if name is not None and name not in ids:
                ids.append(name)
        return ids


class _Overlay:
    """Keyword arguments looked up before the positional mapping."""

    __slots__ = ('first', 'second')

    def __init__(self, first, second):
        self.first = first
        self.second = second

    def __getitem__(self, key):
        try:
            return self.first[key]
        except KeyError:
            return self.second[key]
