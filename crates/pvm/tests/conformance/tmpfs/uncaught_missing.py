# An uncaught FileNotFoundError ends the program with CPython's last traceback line.
with open("/tmp/pvm_conf_uncaught_never_created_91b2.txt") as f:
    print(f.read())
