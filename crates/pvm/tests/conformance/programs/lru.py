class Node:
    __slots__ = ("key", "val", "prev", "next")
    def __init__(self, key, val): self.key, self.val, self.prev, self.next = key, val, None, None
class LRU:
    def __init__(self, cap):
        self.cap = cap; self.map = {}
        self.head = Node(None, None); self.tail = Node(None, None)
        self.head.next = self.tail; self.tail.prev = self.head
    def _unlink(self, n): n.prev.next = n.next; n.next.prev = n.prev
    def _push(self, n):
        n.next = self.head.next; n.prev = self.head
        self.head.next.prev = n; self.head.next = n
    def get(self, k):
        n = self.map.get(k)
        if n is None: return -1
        self._unlink(n); self._push(n); return n.val
    def put(self, k, v):
        if k in self.map: self._unlink(self.map[k])
        n = Node(k, v); self.map[k] = n; self._push(n)
        if len(self.map) > self.cap:
            last = self.tail.prev; self._unlink(last); del self.map[last.key]
    def keys(self):
        out, n = [], self.head.next
        while n is not self.tail: out.append(n.key); n = n.next
        return out
c = LRU(3)
for k in "abcd": c.put(k, ord(k))
print(c.keys(), c.get("a"), c.get("b"), c.keys())
c.put("e", 1); c.put("c", 99); print(c.keys(), c.get("c"), len(c.map))
