"""The low-level actor form: a class named Actor whose instance attributes persist."""


class Actor:
    def __init__(self):
        self.counter = 0
        self.history = []

    def increment(self):
        self.counter += 1
        self.history.append(self.counter)
        return self.counter

    def get_count(self):
        return self.counter
