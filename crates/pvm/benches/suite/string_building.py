"""String building: f-strings, str.join, %-formatting, concatenation in loops, and a small
template renderer that splits and replaces."""


def render(template, values):
    out = []
    for part in template.split("{{"):
        if "}}" in part:
            name, rest = part.split("}}", 1)
            out.append(str(values.get(name.strip(), "?")))
            out.append(rest)
        else:
            out.append(part)
    return "".join(out)


def csv_rows(n):
    lines = []
    for i in range(n):
        lines.append(f"{i},{i * i % 97},{'even' if i % 2 == 0 else 'odd'},{i / 7:.3f}")
    return "\n".join(lines)


def report(n):
    s = ""
    for i in range(n):
        s += "%05d|%-8s|%x;" % (i, "k" + str(i % 13), i * 31)
    return s


# Repeated so that CPython runs for at least 0.5 s (issue 18's benchmark rule).
for _round in range(3):
    template = "Dear {{ name }}, your order {{id}} of {{ qty }} items ships {{when}}. {{missing}}"
    total = 0
    for i in range(60000):
        total += len(render(template, {"name": "user%d" % i, "id": i, "qty": i % 9, "when": "today"}))
    text = csv_rows(160000)
    words = text.replace(",", " ").split()
    print(total, len(text), len(words), len(report(60000)), text[-40:])
