# pvm-args: --cycles 200000
caught = 0
while True:
    try:
        while True:
            pass
    except Exception:
        caught += 1
    except BaseException:
        caught += 1
    except:
        caught += 1
    finally:
        print("finally does not run past the budget")
