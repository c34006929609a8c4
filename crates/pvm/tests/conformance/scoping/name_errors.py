"""NameError, UnboundLocalError and free-variable errors with CPython 3.11's messages."""

def attempt(fn):
    try:
        fn()
        print("no error")
    except NameError as e:
        print(type(e).__name__, e)

def undefined():
    return not_defined_anywhere
attempt(undefined)

def local_before_assign():
    print(x)
    x = 1
attempt(local_before_assign)

x = "global x"
def shadowed_global():
    y = x
    x = 2
attempt(shadowed_global)

def free_before_assign():
    def inner():
        return v
    r = inner
    try:
        return r()
    finally:
        pass
    v = 1
attempt(free_before_assign)

def deleted():
    z = 1
    del z
    return z
attempt(deleted)

def deleted_global():
    global gone
    gone = 1
    del gone
    return gone
attempt(deleted_global)

def del_unbound():
    del never
    never = 1
attempt(del_unbound)

print(issubclass(UnboundLocalError, NameError))
try:
    del undefined_module_name
except NameError as e:
    print(type(e).__name__, e)

# a NameError carries the name
try:
    missing_name_here
except NameError as e:
    print(e.name if hasattr(e, "name") else "no attr", e.args)

# comprehension variables do not leak
[leak for leak in range(3)]
attempt(lambda: leak)

# except-clause names are deleted after the block
try:
    raise ValueError("v")
except ValueError as err:
    pass
attempt(lambda: err)
