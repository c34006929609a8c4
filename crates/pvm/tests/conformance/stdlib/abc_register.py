import abc

class Sized(abc.ABC):
    @classmethod
    def __subclasshook__(cls, C):
        if cls is Sized:
            return any("__len__" in B.__dict__ for B in C.__mro__)
        return NotImplemented
print(issubclass(list, Sized), issubclass(int, Sized), isinstance("abc", Sized), isinstance(3, Sized))
class Drawable(abc.ABC):
    @abc.abstractmethod
    def draw(self): pass
class Pic:
    pass
print(issubclass(Pic, Drawable), isinstance(Pic(), Drawable))
r = Drawable.register(Pic)
print(r is Pic, issubclass(Pic, Drawable), isinstance(Pic(), Drawable))
class SubPic(Pic):
    pass
print(issubclass(SubPic, Drawable), isinstance(SubPic(), Drawable))
@Drawable.register
class Deco:
    pass
print(issubclass(Deco, Drawable), Deco.__name__)
try:
    Drawable.register(3)
except TypeError as e:
    print("TypeError", e)
try:
    issubclass(3, Drawable)
except TypeError as e:
    print("TypeError", e)
class Child(Drawable):
    pass
class Other:
    pass
Child.register(Other)
print(issubclass(Other, Child), issubclass(Other, Drawable), issubclass(Drawable, Child))
print(Drawable.register(Child) is Child)
try:
    Child.register(Drawable)
except RuntimeError as e:
    print("RuntimeError", e)
print(isinstance(Other(), (int, Drawable)), issubclass(bool, Drawable))
t1 = abc.get_cache_token()
class Fresh(abc.ABC):
    pass
Fresh.register(int)
print(abc.get_cache_token() != t1, isinstance(5, Fresh), isinstance(True, Fresh), isinstance("s", Fresh))
