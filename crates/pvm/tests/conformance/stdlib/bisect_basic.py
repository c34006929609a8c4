import bisect

a = [1, 2, 2, 2, 3, 5, 8]
for x in [0, 1, 2, 3, 4, 8, 9]:
    print(x, bisect.bisect_left(a, x), bisect.bisect_right(a, x), bisect.bisect(a, x))
print(bisect.bisect_left(a, 2, 2), bisect.bisect_right(a, 2, 0, 3), bisect.bisect_left(a, 2, 4, 6))
print(bisect.bisect_left([], 1), bisect.bisect_right([], 1))
print(bisect.bisect_left("acegi", "d"), bisect.bisect_right((1, 1, 1), 1))
def grade(score, breakpoints=[60, 70, 80, 90], grades="FDCBA"):
    return grades[bisect.bisect(breakpoints, score)]
print([grade(s) for s in [33, 99, 77, 70, 89, 90, 100]])
try:
    bisect.bisect([1], 1, -1)
except ValueError as e:
    print("ValueError", e)
print(bisect.bisect_left([1, 2, 3], 2, hi=1), bisect.bisect_right([1, 2, 3], 5, lo=1, hi=2))
print(bisect.bisect_left([0.5, 1.5], 1), bisect.bisect_right([1, 1.0, True], 1))
