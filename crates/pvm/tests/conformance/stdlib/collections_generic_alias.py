"""Generic aliases of collections classes, builtin container subclasses and GenericAlias(origin, args)."""
import collections
print(collections.deque[int], collections.defaultdict[str, list[int]], collections.OrderedDict[str, int], collections.Counter[str], collections.ChainMap[str, int])
class MyList(list):
    pass
print(MyList[int], MyList[int]([1]), type(list[int])(list, (int,)), type(list[int])(dict, int))
try:
    type(list[int])(list)
except TypeError as e:
    print("TypeError", e)
