log = []
def work(n):
    try:
        log.append(f"start {n}")
        try:
            if n == 0: raise KeyError(n)
            if n == 1: raise ValueError(n)
            return n * 10
        except KeyError:
            log.append("inner caught key")
            raise RuntimeError("converted") from None
        finally:
            log.append(f"inner finally {n}")
    except RuntimeError as e:
        log.append(f"outer caught {e} cause={e.__cause__} suppress={e.__suppress_context__}")
        return -1
    finally:
        log.append(f"outer finally {n}")
for n in range(3):
    try:
        print(work(n))
    except ValueError as e:
        print("escaped", repr(e))
print("\n".join(log))
