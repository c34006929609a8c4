"""A generator-based context manager written by hand (what contextlib.contextmanager does): setup and
teardown around the body, exceptions thrown into the generator, and managers that do not yield."""
class GeneratorCM:
    def __init__(self, gen):
        self.gen = gen
    def __enter__(self):
        try:
            return next(self.gen)
        except StopIteration:
            raise RuntimeError("generator didn't yield") from None
    def __exit__(self, et, ev, tb):
        if et is None:
            try:
                next(self.gen)
            except StopIteration:
                return False
            raise RuntimeError("generator didn't stop")
        try:
            self.gen.throw(ev)
        except StopIteration:
            return True
        except BaseException as e:
            if e is ev:
                return False
            raise
        raise RuntimeError("generator didn't stop after throw()")
def managed(f):
    return lambda *a: GeneratorCM(f(*a))
events = []
@managed
def tag(name):
    events.append(f"<{name}>")
    try:
        yield name.upper()
    except ValueError as e:
        events.append(f"handled {e}")
    finally:
        events.append(f"</{name}>")
with tag("a") as t:
    events.append(t)
with tag("b"):
    raise ValueError("inside b")
try:
    with tag("c"):
        raise KeyError("escapes c")
except KeyError:
    events.append("outer caught")
print(events)
@managed
def no_yield():
    if False:
        yield
try:
    with no_yield():
        pass
except RuntimeError as e:
    print(type(e).__name__, e)
@managed
def twice():
    yield 1
    yield 2
try:
    with twice():
        pass
except RuntimeError as e:
    print(type(e).__name__, e)
