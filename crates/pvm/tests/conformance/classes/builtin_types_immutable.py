# Builtin types cannot be changed: setting or deleting any attribute of one raises
# TypeError, however it is reached (the VM shares them between invocations).
try:
    int.x = 1
    print('changed:', 'int.x = 1')
except TypeError as e:
    print('TypeError:', e)
try:
    type.__setattr__(int, 'x', 1)
    print('changed:', "type.__setattr__(int, 'x', 1)")
except TypeError as e:
    print('TypeError:', e)
try:
    object.__setattr__(int, 'x', 1)
    print('changed:', "object.__setattr__(int, 'x', 1)")
except TypeError as e:
    print('TypeError:', e)
try:
    int.__qualname__ = 'q'
    print('changed:', "int.__qualname__ = 'q'")
except TypeError as e:
    print('TypeError:', e)
try:
    int.__name__ = 'n'
    print('changed:', "int.__name__ = 'n'")
except TypeError as e:
    print('TypeError:', e)
try:
    del int.bit_length
    print('changed:', 'del int.bit_length')
except TypeError as e:
    print('TypeError:', e)
try:
    ValueError.x = 1
    print('changed:', 'ValueError.x = 1')
except TypeError as e:
    print('TypeError:', e)
try:
    BaseException.add_note = None
    print('changed:', 'BaseException.add_note = None')
except TypeError as e:
    print('TypeError:', e)
try:
    Exception.__init__ = None
    print('changed:', 'Exception.__init__ = None')
except TypeError as e:
    print('TypeError:', e)
try:
    object.__eq__ = None
    print('changed:', 'object.__eq__ = None')
except TypeError as e:
    print('TypeError:', e)
try:
    type.mro = None
    print('changed:', 'type.mro = None')
except TypeError as e:
    print('TypeError:', e)
try:
    setattr(KeyError, '__str__', None)
    print('changed:', "setattr(KeyError, '__str__', None)")
except TypeError as e:
    print('TypeError:', e)
try:
    list.__hash__ = 1
    print('changed:', 'list.__hash__ = 1')
except TypeError as e:
    print('TypeError:', e)
try:
    dict.__init__ = 2
    print('changed:', 'dict.__init__ = 2')
except TypeError as e:
    print('TypeError:', e)
try:
    complex.real = 1
    print('changed:', 'complex.real = 1')
except TypeError as e:
    print('TypeError:', e)
try:
    type(len).x = 1
    print('changed:', 'type(len).x = 1')
except TypeError as e:
    print('TypeError:', e)
try:
    type(None).x = 1
    print('changed:', 'type(None).x = 1')
except TypeError as e:
    print('TypeError:', e)
try:
    type(lambda: 0).x = 1
    print('changed:', 'type(lambda: 0).x = 1')
except TypeError as e:
    print('TypeError:', e)
try:
    type({}.keys()).x = 1
    print('changed:', 'type({}.keys()).x = 1')
except TypeError as e:
    print('TypeError:', e)
try:
    type(print).__call__ = 1
    print('changed:', 'type(print).__call__ = 1')
except TypeError as e:
    print('TypeError:', e)
try:
    delattr(ValueError, '__init__')
    print('changed:', "delattr(ValueError, '__init__')")
except TypeError as e:
    print('TypeError:', e)
try:
    type.__delattr__(str, 'upper')
    print('changed:', "type.__delattr__(str, 'upper')")
except TypeError as e:
    print('TypeError:', e)
try:
    bool.y = 2
    print('changed:', 'bool.y = 2')
except TypeError as e:
    print('TypeError:', e)
try:
    range.start = 0
    print('changed:', 'range.start = 0')
except TypeError as e:
    print('TypeError:', e)
try:
    type(x for x in ()).x = 1
    print('changed:', 'type(x for x in ()).x = 1')
except TypeError as e:
    print('TypeError:', e)
class Mine(int):
    pass
Mine.x = 1
print('a subclass is mutable:', Mine.x)
print(sorted(c.__name__ for c in {int, str, float, list, dict, ValueError}))
