def greet(name):
    return f"Howdy, {name}!"

print(greet("world"))
print(sum(i * i for i in range(10)))
