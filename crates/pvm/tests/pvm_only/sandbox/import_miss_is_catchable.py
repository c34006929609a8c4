try:
    import subprocess
except ImportError as e:
    print("ImportError caught")
import json
print(json.dumps({"b": 1, "a": [1.5, None]}, sort_keys=True, separators=(",", ":")))
