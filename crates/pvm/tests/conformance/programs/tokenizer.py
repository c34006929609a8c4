def tokenize(src):
    toks, i = [], 0
    while i < len(src):
        c = src[i]
        if c.isspace(): i += 1
        elif c.isdigit():
            j = i
            while j < len(src) and src[j].isdigit(): j += 1
            toks.append(("NUM", int(src[i:j]))); i = j
        elif c.isalpha() or c == "_":
            j = i
            while j < len(src) and (src[j].isalnum() or src[j] == "_"): j += 1
            toks.append(("ID", src[i:j])); i = j
        elif c in "+-*/()=": toks.append(("OP", c)); i += 1
        else: raise SyntaxError(f"bad char {c!r} at {i}")
    return toks
def parse_expr(toks, env):
    pos = 0
    def peek(): return toks[pos] if pos < len(toks) else ("EOF", None)
    def take():
        nonlocal pos; pos += 1; return toks[pos - 1]
    def atom():
        kind, v = take()
        if kind == "NUM": return v
        if kind == "ID": return env[v]
        if v == "(":
            r = expr(); take(); return r
        if v == "-": return -atom()
        raise SyntaxError("unexpected " + str(v))
    def term():
        r = atom()
        while peek()[1] in ("*", "/"):
            op = take()[1]; r = r * atom() if op == "*" else r // atom()
        return r
    def expr():
        r = term()
        while peek()[1] in ("+", "-"):
            op = take()[1]; r = r + term() if op == "+" else r - term()
        return r
    return expr()
env = {"x": 6, "y_2": 7}
for src in ["1 + 2 * 3", "(1 + 2) * 3", "x * y_2 - -4", "100 / 7 / 2", "2 * (x + (y_2 - 1)) * 10"]:
    print(src, "=", parse_expr(tokenize(src), env), tokenize(src)[:3])
try: tokenize("1 $ 2")
except SyntaxError as e: print("SyntaxError", e)
