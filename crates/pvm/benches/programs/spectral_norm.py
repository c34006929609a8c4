# Float-heavy linear algebra: spectral norm of a small matrix.
def a(i, j):
    return 1.0 / ((i + j) * (i + j + 1) // 2 + i + 1)

def mul_av(v, n):
    return [sum(a(i, j) * v[j] for j in range(n)) for i in range(n)]

def mul_atv(v, n):
    return [sum(a(j, i) * v[j] for j in range(n)) for i in range(n)]

n = 110
u = [1.0] * n
for _ in range(10):
    v = mul_atv(mul_av(u, n), n)
    u = mul_atv(mul_av(v, n), n)
vbv = sum(ui * vi for ui, vi in zip(u, v))
vv = sum(vi * vi for vi in v)
print("%.9f" % ((vbv / vv) ** 0.5))
