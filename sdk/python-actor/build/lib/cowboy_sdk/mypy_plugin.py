"""A mypy plugin for actor code: the chain gives every actor instance a `storage` attribute
(a `cowboy_sdk.Storage`) before a handler runs, which no class body declares. The plugin adds
that attribute to classes decorated with `@actor` and to classes named `Actor` (the low-level
form), so `self.storage["count"] += 1` type-checks.

Enable it in mypy's configuration:

    [mypy]
    plugins = cowboy_sdk.mypy_plugin
"""

from __future__ import annotations

from typing import Callable

from mypy.nodes import TypeInfo
from mypy.plugin import ClassDefContext, Plugin
from mypy.plugins.common import add_attribute_to_class
from mypy.types import Instance

_ACTOR_DECORATOR = "cowboy_sdk.actor"
_STORAGE = "cowboy_sdk.Storage"


def _add_storage(ctx: ClassDefContext) -> None:
    info: TypeInfo = ctx.cls.info
    if "storage" in info.names:
        return
    storage = ctx.api.lookup_fully_qualified_or_none(_STORAGE)
    if storage is None or not isinstance(storage.node, TypeInfo):
        # cowboy_sdk is not imported under its name here: nothing to add.
        return
    add_attribute_to_class(ctx.api, ctx.cls, "storage", Instance(storage.node, []))


class _CowboyPlugin(Plugin):
    def get_class_decorator_hook(self, fullname: str) -> Callable[[ClassDefContext], None] | None:
        return _add_storage if fullname == _ACTOR_DECORATOR else None

    def get_base_class_hook(self, fullname: str) -> Callable[[ClassDefContext], None] | None:
        return None

    def get_customize_class_mro_hook(
        self, fullname: str
    ) -> Callable[[ClassDefContext], None] | None:
        # Called for every class being defined: the low-level form names its class `Actor`.
        if fullname.rsplit(".", 1)[-1] == "Actor":
            return _add_storage
        return None


def plugin(version: str) -> type[Plugin]:
    """mypy's entry point."""
    return _CowboyPlugin
