"""break may not leave an except* clause (SyntaxError at compile time)."""
print("never printed")
for i in range(2):
    try:
        raise ValueError(i)
    except* ValueError:
        break
