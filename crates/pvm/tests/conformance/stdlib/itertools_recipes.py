import itertools
import operator

def take(n, iterable):
    return list(itertools.islice(iterable, n))
def flatten(list_of_lists):
    return itertools.chain.from_iterable(list_of_lists)
def powerset(iterable):
    s = list(iterable)
    return itertools.chain.from_iterable(itertools.combinations(s, r) for r in range(len(s) + 1))
def unique_justseen(iterable, key=None):
    return map(next, map(operator.itemgetter(1), itertools.groupby(iterable, key)))
def grouper(iterable, n, fillvalue=None):
    args = [iter(iterable)] * n
    return itertools.zip_longest(*args, fillvalue=fillvalue)
def roundrobin(*iterables):
    num_active = len(iterables)
    nexts = itertools.cycle(iter(it).__next__ for it in iterables)
    while num_active:
        try:
            for nxt in nexts:
                yield nxt()
        except StopIteration:
            num_active -= 1
            nexts = itertools.cycle(itertools.islice(nexts, num_active))
def partition(pred, iterable):
    t1, t2 = itertools.tee(iterable)
    return list(itertools.filterfalse(pred, t1)), list(filter(pred, t2))
print(take(3, itertools.count(10)))
print(list(flatten([[1, 2], [3], []])))
print(list(powerset([1, 2, 3])))
print(list(unique_justseen("AAAABBBCCDAABBB")))
print(list(grouper("ABCDEFG", 3, "x")))
print(list(roundrobin("ABC", "D", "EF")))
print(partition(lambda x: x % 2, range(10)))
print(sum(itertools.starmap(operator.mul, zip([1, 2, 3], [4, 5, 6]))))
print(list(itertools.accumulate(itertools.repeat(2, 5), operator.mul)))
print(dict(itertools.zip_longest("abc", range(2))))
print(list(itertools.islice(itertools.accumulate(itertools.count(1)), 5)))
print(max(itertools.permutations(range(3)), key=lambda p: p[0] * 10 + p[2]))
