"""Generators as coroutines and pipelines: producer/filter/consumer, infinite generators with islice, state checks."""
import itertools
def numbers():
    n = 0
    while True:
        yield n
        n += 1
def evens(src):
    for x in src:
        if x % 2 == 0:
            yield x
def squares(src):
    for x in src:
        yield x * x
print(list(itertools.islice(squares(evens(numbers())), 5)))
def tokenizer(text):
    word = ""
    for ch in text:
        if ch.isalnum():
            word += ch
        else:
            if word:
                yield ("WORD", word)
                word = ""
            if not ch.isspace():
                yield ("PUNCT", ch)
    if word:
        yield ("WORD", word)
print(list(tokenizer("Hi, there! x1 y2.")))
def running_max():
    best = None
    while True:
        x = yield best
        if best is None or x > best:
            best = x
rm = running_max()
next(rm)
print([rm.send(v) for v in [3, 1, 4, 1, 5, 9, 2]])
def gen():
    yield 1
g = gen()
print(g.gi_running if hasattr(g, "gi_running") else "n/a", type(g).__name__, g.__name__)
print(next(g))
print(next(g, "exhausted"), list(g))
def fib():
    a, b = 0, 1
    while True:
        yield a
        a, b = b, a + b
print(list(itertools.takewhile(lambda x: x < 100, fib())), next(itertools.dropwhile(lambda x: x < 1000, fib())))
