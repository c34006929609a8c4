"""Recursion: binary trees built and traversed recursively (insert, height, in-order walk),
Ackermann for deep call chains, and a recursive-descent expression evaluator."""


class Node:
    __slots__ = ("key", "left", "right")

    def __init__(self, key):
        self.key = key
        self.left = None
        self.right = None


def insert(node, key):
    if node is None:
        return Node(key)
    if key < node.key:
        node.left = insert(node.left, key)
    else:
        node.right = insert(node.right, key)
    return node


def height(node):
    return 0 if node is None else 1 + max(height(node.left), height(node.right))


def inorder(node, out):
    if node is not None:
        inorder(node.left, out)
        out.append(node.key)
        inorder(node.right, out)
    return out


def ackermann(m, n):
    if m == 0:
        return n + 1
    if n == 0:
        return ackermann(m - 1, 1)
    return ackermann(m - 1, ackermann(m, n - 1))


def evaluate(tokens, pos=0):
    def expr(i):
        v, i = term(i)
        while i < len(tokens) and tokens[i] in "+-":
            op = tokens[i]
            r, i = term(i + 1)
            v = v + r if op == "+" else v - r
        return v, i

    def term(i):
        v, i = atom(i)
        while i < len(tokens) and tokens[i] == "*":
            r, i = atom(i + 1)
            v *= r
        return v, i

    def atom(i):
        if tokens[i] == "(":
            v, i = expr(i + 1)
            return v, i + 1
        return int(tokens[i]), i + 1

    return expr(pos)[0]


root = None
for i in range(60000):
    root = insert(root, (i * 7919) % 60001)
walk = inorder(root, [])
acks = sum(ackermann(2, n) for n in range(200)) + ackermann(3, 5)
src = "(1+2*(3-4*(5+6))-7)*(8+9*(1+(2*3)))-((4+5)*6-7)"
exprs = sum(evaluate(list(src)) for _ in range(3000))
print(height(root), walk[:3], walk == sorted(walk), acks, exprs)
