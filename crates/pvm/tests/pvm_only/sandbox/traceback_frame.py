# Traceback objects have no tb_frame (frames are forbidden introspection: LIMITATIONS 26).
try:
    1 / 0
except ZeroDivisionError as e:
    tb = e.__traceback__
print(type(tb).__name__, tb.tb_lineno, tb.tb_next)
print(hasattr(tb, "tb_lasti"))
tb.tb_frame
