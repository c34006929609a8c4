# Imports of missing modules and names: ModuleNotFoundError (an ImportError) with CPython's
# message and attributes; ImportError's msg/name/path.
try:
    import notamodule
except ImportError as e:
    print(type(e).__name__, e, e.name, e.msg, e.path, isinstance(e, ModuleNotFoundError), e.args)
try:
    import notamodule.sub
except ModuleNotFoundError as e:
    print(type(e).__name__, e, e.name)
try:
    import json.notasub
except ModuleNotFoundError as e:
    print(type(e).__name__, e, e.name)
try:
    from notamodule import x
except ImportError as e:
    print(type(e).__name__, e, e.name)
try:
    from json import nothing
except ImportError as e:
    print(type(e).__name__, str(e).split(' (')[0], e.name, isinstance(e, ModuleNotFoundError))
print(issubclass(ModuleNotFoundError, ImportError), ModuleNotFoundError.__mro__)
e = ImportError('m')
print(e.msg, e.name, e.path)
e = ImportError('m', 'n')
print(e.msg, e.name, e.path, e.args)
e = ImportError('m', name='x', path='p')
print(e.msg, e.name, e.path, e.args, str(e))
try:
    ImportError(foo=1)
except TypeError as x:
    print(x)
e = ModuleNotFoundError()
print(e.msg, e.name, repr(str(e)))
e = ModuleNotFoundError('gone', name='gone')
print(e.msg, e.name, repr(e))
