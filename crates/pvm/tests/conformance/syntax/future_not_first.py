"""from __future__ imports must open the file."""
x = 1
from __future__ import annotations
