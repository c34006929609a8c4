print("before")
import os
print(os.getcwd())
