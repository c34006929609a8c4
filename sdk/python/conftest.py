# Lets `python3 -m pytest` run from sdk/python without installing the package first; when
# cowboy-py is installed its pytest11 entry point (named like this module) registers the plugin
# and this line is a no-op.
pytest_plugins = ["cowboy.pytest_plugin"]
