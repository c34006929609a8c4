count = 0
for i in range(300):
    try:
        if i % 3 == 0:
            raise ValueError(i)
        {}[i]
    except ValueError as e:
        count += 1
    except KeyError:
        count += 2
    finally:
        count += 0
print(count)
