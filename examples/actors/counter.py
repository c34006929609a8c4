"""A counter: the smallest useful actor (cowboy_sdk form)."""
from cowboy_sdk import actor


@actor
class Counter:
    def __init__(self, start=0):
        self.storage["count"] = start

    def increment(self, by=1):
        self.storage["count"] += by
        return self.storage["count"]

    def get(self):
        return self.storage["count"]
