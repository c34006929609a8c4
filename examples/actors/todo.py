"""A to-do list: values read from storage and mutated in place are persisted."""
from cowboy_sdk import actor


@actor
class Todo:
    def __init__(self):
        self.storage["items"] = []

    def add(self, text):
        if not text:
            raise ValueError("empty item")
        self.storage["items"].append({"text": text, "done": False})
        return len(self.storage["items"])

    def done(self, index):
        self.storage["items"][index]["done"] = True

    def items(self):
        return self.storage["items"]
