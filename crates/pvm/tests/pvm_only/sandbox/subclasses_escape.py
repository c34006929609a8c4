print(().__class__.__name__)
print(().__class__.__bases__[0].__subclasses__())
