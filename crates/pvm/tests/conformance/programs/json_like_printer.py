def dump(v, indent=0):
    pad = "  " * indent
    if isinstance(v, dict):
        if not v: return "{}"
        items = [f'{pad}  "{k}": {dump(val, indent + 1)}' for k, val in v.items()]
        return "{\n" + ",\n".join(items) + "\n" + pad + "}"
    if isinstance(v, list):
        if not v: return "[]"
        return "[" + ", ".join(dump(x, indent) for x in v) + "]"
    if isinstance(v, str): return '"' + v.replace('"', '\\"') + '"'
    if v is None: return "null"
    if isinstance(v, bool): return "true" if v else "false"
    return repr(v)
doc = {"name": "cowboy", "tags": ["l1", "python"], "meta": {"version": 1, "stable": False, "ratio": 0.5, "none": None}, "empty": {}, "q": 'say "hi"'}
print(dump(doc))
