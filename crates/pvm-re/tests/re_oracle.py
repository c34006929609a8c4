#!/usr/bin/env python3
"""CPython oracle for the differential test of cowboy-pvm-re.

Reads a JSON list of cases from the file named on the command line and
prints, as JSON, what CPython 3.11's real `re` module does with each one.
A case is [pattern, flags, subjects] or [pattern, flags, subjects, repl]:
flags is a string of letters (i m s x a u L = re flags, b = bytes pattern
and subjects, decoded/encoded as latin-1). For a pattern that does not
compile the result is {"error": [exception type, str(exc)]}; otherwise, per
subject, the spans of search/match/fullmatch (and search from pos 1 and
findall up to endpos len-1), findall, split, sub with the template, and
subn with count 1.
"""
import json
import re
import sys
import warnings

assert sys.version_info[:2] == (3, 11), "the oracle must be CPython 3.11"
warnings.simplefilter("ignore")

FLAGS = {"i": re.I, "m": re.M, "s": re.S, "x": re.X, "a": re.A, "u": re.U, "L": re.L}


def enc(x, is_bytes):
    return x.encode("latin-1") if is_bytes else x


def dec(x):
    if x is None:
        return None
    if isinstance(x, bytes):
        return x.decode("latin-1")
    if isinstance(x, tuple):
        return [dec(v) for v in x]
    return x


def err(e):
    return {"error": [type(e).__name__, str(e)]}


def spans(m):
    if m is None:
        return None
    return {"spans": [list(m.span(g)) if m.span(g) != (-1, -1) else None
                      for g in range(m.re.groups + 1)],
            "lastindex": m.lastindex}


def run_case(case):
    pattern, flags, subjects = case[0], case[1], case[2]
    repl = case[3] if len(case) > 3 else "<\\g<0>>"
    is_bytes = "b" in flags
    f = 0
    for ch in flags:
        f |= FLAGS.get(ch, 0)
    try:
        p = re.compile(enc(pattern, is_bytes), f)
    except Exception as e:  # noqa: BLE001 - every exception type is data here
        return err(e)
    out = []
    for s in subjects:
        s = enc(s, is_bytes)
        r = {
            "search": spans(p.search(s)),
            "match": spans(p.match(s)),
            "fullmatch": spans(p.fullmatch(s)),
            "search1": spans(p.search(s, 1)),
            "findall": [dec(x) for x in p.findall(s)],
            "findall_end": [dec(x) for x in p.findall(s, 0, max(len(s) - 1, 0))],
            "finditer": [spans(m)["spans"][0] for m in p.finditer(s)],
            "split": [dec(x) for x in p.split(s)],
            "split1": [dec(x) for x in p.split(s, 1)],
        }
        try:
            r["sub"] = dec(p.sub(enc(repl, is_bytes), s))
            r["subn1"] = list(p.subn(enc(repl, is_bytes), s, 1))
            r["subn1"][0] = dec(r["subn1"][0])
        except Exception as e:  # noqa: BLE001
            r["sub"] = err(e)
            r["subn1"] = None
        out.append(r)
    return out


def main():
    with open(sys.argv[1], encoding="utf-8") as fh:
        cases = json.load(fh)
    json.dump([run_case(c) for c in cases], sys.stdout, ensure_ascii=True)


if __name__ == "__main__":
    main()
