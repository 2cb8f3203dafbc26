"""Package roots: installed distributions and npm packages, each indexed once per version.

`resolve` finds a package's own files in the workspace's environment, `shared` builds its
index under `$WHEREIN_HOME/packages`, `plan` and `overlay` decide what one search uses of it,
`federation` ranks it with the workspace's index, `catalog` lists and collects the indexes.
The members are imported on first use, as `wherein.index`'s are.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from wherein.lazy import lazy_members

if TYPE_CHECKING:
    from wherein.packages.adding import add_packages
    from wherein.packages.plan import plan_packages
    from wherein.packages.resolve import Package, resolve_package
    from wherein.packages.shared import ensure_package_index

_MODULE_OF = {
    "Package": "resolve",
    "add_packages": "adding",
    "ensure_package_index": "shared",
    "plan_packages": "plan",
    "resolve_package": "resolve",
}

__all__ = ["Package", "add_packages", "ensure_package_index", "plan_packages", "resolve_package"]


__getattr__, __dir__ = lazy_members(__name__, _MODULE_OF)
