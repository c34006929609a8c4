"""try/except/else/finally flow: ordering, return/break/continue through finally, re-raise, bare raise."""
log = []
def f(mode):
    try:
        log.append("try")
        if mode == "raise":
            raise ValueError("v")
        if mode == "return":
            return "from try"
    except ValueError:
        log.append("except")
        return "from except"
    else:
        log.append("else")
        return "from else"
    finally:
        log.append("finally")
for m in ["raise", "return", "normal"]:
    log.clear()
    print(m, f(m), log)
def finally_overrides():
    try:
        return "try"
    finally:
        return "finally"
print(finally_overrides())
def finally_swallows():
    try:
        raise KeyError("lost")
    finally:
        return "swallowed"
print(finally_swallows())
out = []
for i in range(5):
    try:
        if i == 1:
            continue
        if i == 3:
            break
        out.append(i)
    finally:
        out.append(f"f{i}")
print(out)
def reraise():
    try:
        raise ValueError("first")
    except ValueError:
        try:
            raise
        finally:
            print("inner finally")
try:
    reraise()
except ValueError as e:
    print("reraised", e)
try:
    raise
except RuntimeError as e:
    print(type(e).__name__, e)
def handler_order(exc):
    try:
        raise exc
    except KeyError:
        return "KeyError"
    except LookupError:
        return "LookupError"
    except Exception:
        return "Exception"
print(handler_order(KeyError()), handler_order(IndexError()), handler_order(ValueError()))
try:
    try:
        raise TypeError("t")
    except ValueError:
        print("not here")
    finally:
        print("finally runs before propagation")
except TypeError as e:
    print("outer got", e)
def exc_var_deleted():
    try:
        raise ValueError()
    except ValueError as err:
        pass
    try:
        return err
    except NameError as e:
        return type(e).__name__
print(exc_var_deleted())
