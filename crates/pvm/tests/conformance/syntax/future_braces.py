"""from __future__ import braces."""
from __future__ import braces
