"""Package members imported on first use, so importing one module of a package stays cheap.

`wherein.index.status` must not load the chunker and numpy just because it lives in
`wherein.index`, whose `__init__` names `refresh_index`; PEP 562's module `__getattr__`
imports such a member when it is first read.
"""

from __future__ import annotations

import importlib
from collections.abc import Callable, Mapping
from typing import Any

__all__ = ["lazy_members"]


def lazy_members(
    package: str, module_of: Mapping[str, str]
) -> tuple[Callable[[str], Any], Callable[[], list[str]]]:
    """A package's `__getattr__` and `__dir__` for members living in its submodules.

    Args:
        package: the package's `__name__`.
        module_of: member name -> the submodule (relative to `package`) that defines it.
    """
    namespace = importlib.import_module(package).__dict__

    def member(name: str) -> Any:
        module = module_of.get(name)
        if module is None:
            raise AttributeError(f"module {package!r} has no attribute {name!r}")
        value = getattr(importlib.import_module(f"{package}.{module}"), name)
        namespace[name] = value  # the next read finds it without this function
        return value

    def names() -> list[str]:
        return sorted({*namespace, *module_of})

    return member, names
