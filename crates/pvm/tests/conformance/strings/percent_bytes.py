print(b'%s|%b|%r|%a|%c|%c|%5s|%-5b|%.2s|%x|%05d|%%' % (b'ab', bytearray(b'cd'), 'é', b'x', 65, b'Z', b'ab', b'cd', b'xyz', 255, -3))
print(b'%(k)s %(k)r' % {b'k': b'v'}, b'%3c|%-3c|' % (b'a', 66), b'\xff%s\x00' % b'\xfe')
for a in [(1,), ('s',), (b'a',b'b')]:
  try: print(b'%s' % a)
  except Exception as e: print(type(e).__name__, e)
for fmt,a in [(b'%c', 256), (b'%c', -1), (b'%c', b'ab'), (b'%c','a'), (b'%d','x'), (b'%(k)s', (1,)), (b'%(k)s', {'k':1}), (b'%y', 1), (b'ab%s %s', (b'a',)), (b'%', ()), (b'%s', b'abc'), (b'%s', [1]), (b'%s', 1.5), (b'%f|%e|%g|%i|%o|%X', (1.5, 2.5, 1e20, 7, 8, 255))]:
  try: print(fmt % a)
  except Exception as e: print(type(e).__name__, e)
class B:
  def __bytes__(self): return b'BB'
class Bad:
  def __bytes__(self): return 'x'
print(b'%s' % B(), bytearray(b'%s-%d') % (b'x', 3), type(bytearray(b'%s') % b'q'))
try: print(b'%s' % Bad())
except Exception as e: print(type(e).__name__, e)
for fmt,a in [('%c', 'ab'), ('%c', 0x110000), ('%c', 'é'), ('%3c|', 'x'), ('%c', 1.5), ('%y', 1), ('ab%Q', 1), ('%a', 'é'), ('%s %s', (1, 2, 3))]:
  try: print(fmt % a)
  except Exception as e: print(type(e).__name__, e)
