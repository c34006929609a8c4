"""Float arithmetic on objects with attribute writes: particles under gravity and drag bouncing
in a box, updated in place each step."""


class Particle:
    def __init__(self, x, y, vx, vy, m):
        self.x = x
        self.y = y
        self.vx = vx
        self.vy = vy
        self.m = m

    def step(self, dt, g, drag):
        self.vy -= g * dt
        self.vx -= drag * self.vx * dt / self.m
        self.vy -= drag * self.vy * dt / self.m
        self.x += self.vx * dt
        self.y += self.vy * dt
        if self.y < 0.0:
            self.y = -self.y
            self.vy = -self.vy * 0.9
        if self.x < 0.0 or self.x > 100.0:
            self.vx = -self.vx
            self.x = min(max(self.x, 0.0), 100.0)

    def energy(self, g):
        return 0.5 * self.m * (self.vx * self.vx + self.vy * self.vy) + self.m * g * self.y


# Repeated so that CPython runs for at least 0.5 s (issue 18's benchmark rule).
for _round in range(2):
    ps = [Particle(i * 0.37 % 100.0, 10.0 + i % 17, (i % 7) - 3.0, (i % 5) * 0.5, 1.0 + i % 3)
          for i in range(1400)]
    for _ in range(1000):
        for p in ps:
            p.step(0.01, 9.81, 0.05)
    print(round(sum(p.energy(9.81) for p in ps), 6))
    print(round(max(p.x for p in ps), 6), round(min(p.y for p in ps), 6))
