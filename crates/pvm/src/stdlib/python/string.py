"""string for the PVM: string constants, capwords, Formatter and Template.

Covers: the constants ascii_letters, ascii_lowercase, ascii_uppercase, digits, hexdigits,
octdigits, punctuation, printable, whitespace; capwords(s, sep=None); Template with
substitute, safe_substitute, get_identifiers, is_valid, a custom `delimiter` in subclasses,
and CPython's "Invalid placeholder in string: line N, col M" ValueError.

Formatter: format, vformat, parse, get_field, get_value, check_unused_args, format_field,
convert_field, with str.format's parsing and error messages (the parser is written here; CPython
uses its C _string module).

Does not: honour a subclass's custom `idpattern`,
`braceidpattern`, `flags` or `pattern` (CPython compiles those as regular expressions; ours
is a hand-written scanner for the default ASCII identifier syntax [_a-zA-Z][_a-zA-Z0-9]*).
Written for the PVM from the documented behaviour; builtins only.
"""

__all__ = ["ascii_letters", "ascii_lowercase", "ascii_uppercase", "capwords", "digits",
           "hexdigits", "octdigits", "printable", "punctuation", "whitespace", "Formatter",
           "Template"]

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


def _parse_format(s):
    """Split a format string as str.format reads it: yields (literal_text, field_name,
    format_spec, conversion); literal-only chunks have None for the last three."""
    n = len(s)
    i = 0
    while i < n:
        # Literal text up to the next brace; a doubled brace ends the chunk with one brace.
        start = i
        while i < n and s[i] not in '{}':
            i += 1
        if i >= n:
            yield s[start:], None, None, None
            return
        c = s[i]
        if i + 1 < n and s[i + 1] == c:
            yield s[start:i + 1], None, None, None
            i += 2
            continue
        if c == '}':
            raise ValueError("Single '}' encountered in format string")
        literal = s[start:i]
        i += 1
        if i >= n:
            raise ValueError("Single '{' encountered in format string")
        # The field name runs to '}', ':' or '!' outside [...] (inside, braces are text).
        start = i
        bracket = False
        while i < n and (bracket or s[i] not in '}:!'):
            if s[i] == '[':
                bracket = True
            elif s[i] == ']':
                bracket = False
            i += 1
        if i >= n:
            raise ValueError("expected '}' before end of string")
        name = s[start:i]
        conversion = None
        spec = ''
        if s[i] == '!':
            if i + 1 >= n:
                raise ValueError("end of string while looking for conversion specifier")
            conversion = s[i + 1]
            i += 2
            if i >= n:
                raise ValueError("unmatched '{' in format spec")
            if s[i] not in ':}':
                raise ValueError("expected ':' after conversion specifier")
        if s[i] == ':':
            # The spec runs to the matching '}', counting nested braces.
            i += 1
            start = i
            depth = 1
            while i < n:
                if s[i] == '{':
                    depth += 1
                elif s[i] == '}':
                    depth -= 1
                    if depth == 0:
                        break
                i += 1
            if i >= n:
                raise ValueError("unmatched '{' in format spec")
            spec = s[start:i]
        i += 1
        yield literal, name, spec, conversion


def _split_field_name(name):
    """The first part of a field name (an int if all digits) and an iterator of
    (is_attribute, key) for the .attr and [key] parts that follow."""
    n = len(name)
    i = 0
    while i < n and name[i] not in '.[':
        i += 1
    first = name[:i]
    if first.isdigit():
        first = int(first)
    rest = []
    while i < n:
        if name[i] == '.':
            j = i + 1
            while j < n and name[j] not in '.[':
                j += 1
            if j == i + 1:
                raise ValueError("Empty attribute in format string")
            rest.append((True, name[i + 1:j]))
            i = j
        else:
            j = name.find(']', i + 1)
            if j < 0:
                raise ValueError("Missing ']' in format string")
            key = name[i + 1:j]
            if key == '':
                raise ValueError("Empty attribute in format string")
            rest.append((False, int(key) if key.isdigit() else key))
            i = j + 1
            if i < n and name[i] not in '.[':
                raise ValueError("Only '.' or '[' may follow ']' in format field specifier")
    return first, iter(rest)


class Formatter:
    """str.format as overridable steps: parse, get_field/get_value, convert_field,
    format_field and check_unused_args."""

    def format(self, format_string, /, *args, **kwargs):
        return self.vformat(format_string, args, kwargs)

    def vformat(self, format_string, args, kwargs):
        used_args = set()
        result, _ = self._vformat(format_string, args, kwargs, used_args, 2)
        self.check_unused_args(used_args, args, kwargs)
        return result

    def _vformat(self, format_string, args, kwargs, used_args, recursion_depth,
                 auto_arg_index=0):
        if recursion_depth < 0:
            raise ValueError('Max string recursion exceeded')
        result = []
        for literal_text, field_name, format_spec, conversion in self.parse(format_string):
            if literal_text:
                result.append(literal_text)
            if field_name is None:
                continue
            # auto_arg_index is False once a field was numbered by hand.
            if field_name == '':
                if auto_arg_index is False:
                    raise ValueError('cannot switch from manual field specification to '
                                     'automatic field numbering')
                field_name = str(auto_arg_index)
                auto_arg_index += 1
            elif field_name.isdigit():
                if auto_arg_index:
                    raise ValueError('cannot switch from manual field specification to '
                                     'automatic field numbering')
                auto_arg_index = False
            obj, arg_used = self.get_field(field_name, args, kwargs)
            used_args.add(arg_used)
            obj = self.convert_field(obj, conversion)
            format_spec, auto_arg_index = self._vformat(
                format_spec, args, kwargs, used_args, recursion_depth - 1,
                auto_arg_index=auto_arg_index)
            result.append(self.format_field(obj, format_spec))
        return ''.join(result), auto_arg_index

    def get_value(self, key, args, kwargs):
        if isinstance(key, int):
            return args[key]
        return kwargs[key]

    def check_unused_args(self, used_args, args, kwargs):
        pass

    def format_field(self, value, format_spec):
        return format(value, format_spec)

    def convert_field(self, value, conversion):
        if conversion is None:
            return value
        if conversion == 's':
            return str(value)
        if conversion == 'r':
            return repr(value)
        if conversion == 'a':
            return ascii(value)
        raise ValueError(f"Unknown conversion specifier {conversion!s}")

    def parse(self, format_string):
        """An iterable of (literal_text, field_name, format_spec, conversion)."""
        return _parse_format(format_string)

    def get_field(self, field_name, args, kwargs):
        """The object a field name refers to, and the key it used in args/kwargs."""
        first, rest = _split_field_name(field_name)
        obj = self.get_value(first, args, kwargs)
        for is_attr, i in rest:
            if is_attr:
                obj = getattr(obj, i)
            else:
                obj = obj[i]
        return obj, first
