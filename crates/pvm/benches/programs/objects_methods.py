# Object-heavy: instances, attribute access, method calls, small classes.
class Vec:
    def __init__(self, x, y):
        self.x = x
        self.y = y

    def add(self, other):
        return Vec(self.x + other.x, self.y + other.y)

    def scale(self, k):
        return Vec(self.x * k, self.y * k)

    def dot(self, other):
        return self.x * other.x + self.y * other.y


class Particle:
    def __init__(self, i):
        self.pos = Vec(i, -i)
        self.vel = Vec(1, 2)

    def step(self):
        self.pos = self.pos.add(self.vel.scale(2))
        return self.pos.dot(self.vel)


ps = [Particle(i) for i in range(100)]
total = 0
for _ in range(1500):
    for p in ps:
        total += p.step()
print(total)
