m = __import__("os")
