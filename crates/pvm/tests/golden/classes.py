class Vec:
    def __init__(self, x, y):
        self.x, self.y = x, y
    def __add__(self, o):
        return Vec(self.x + o.x, self.y + o.y)
    def __repr__(self):
        return f"Vec({self.x}, {self.y})"
class Named(Vec):
    def __init__(self, name, x, y):
        super().__init__(x, y)
        self.name = name
v = Vec(0, 0)
for i in range(200):
    v = v + Named("n", i, -i)
print(v)
