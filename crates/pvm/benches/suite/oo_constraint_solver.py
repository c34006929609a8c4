"""Object-oriented constraint solving: N-queens and graph colouring as a CSP of Variable and
Constraint objects, with forward checking and backtracking (method calls, attribute loads)."""


class Variable:
    def __init__(self, name, domain):
        self.name = name
        self.domain = list(domain)
        self.value = None

    def is_set(self):
        return self.value is not None


class NotEqual:
    def __init__(self, a, b, offset=0):
        self.a = a
        self.b = b
        self.offset = offset

    def ok(self, x, y):
        if x == y:
            return False
        if self.offset and abs(x - y) == self.offset:
            return False
        return True


class Solver:
    def __init__(self, variables, constraints):
        self.variables = variables
        self.by_var = {v.name: [] for v in variables}
        for c in constraints:
            self.by_var[c.a.name].append((c, c.b))
            self.by_var[c.b.name].append((c, c.a))
        self.nodes = 0

    def consistent(self, var, value):
        for c, other in self.by_var[var.name]:
            if other.value is not None and not c.ok(value, other.value):
                return False
        return True

    def solve(self, i=0):
        if i == len(self.variables):
            return True
        var = self.variables[i]
        for value in var.domain:
            self.nodes += 1
            if self.consistent(var, value):
                var.value = value
                if self.solve(i + 1):
                    return True
                var.value = None
        return False


def queens(n):
    vs = [Variable(f"q{i}", range(n)) for i in range(n)]
    cs = []
    for i in range(n):
        for j in range(i + 1, n):
            cs.append(NotEqual(vs[i], vs[j], j - i))
    s = Solver(vs, cs)
    s.solve()
    return s.nodes, [v.value for v in vs]


def colouring(n, k):
    vs = [Variable(i, range(k)) for i in range(n)]
    cs = []
    for i in range(n):
        for d in (1, 3, 7):
            j = (i * 5 + d) % n
            if j != i:
                cs.append(NotEqual(vs[i], vs[j]))
    s = Solver(vs, cs)
    found = s.solve()
    return found, s.nodes


total = 0
for n in list(range(8, 18)) + [19, 21, 23]:
    nodes, sol = queens(n)
    total += nodes
print(total)
print(colouring(60, 4))
