"""`wherein.history` exports exactly its public names, and each module lists what it defines."""

from __future__ import annotations

import importlib
import pkgutil

import wherein.history


def test_the_package_exports_every_name_in_all_and_nothing_more():
    public = {name for name in dir(wherein.history) if not name.startswith("_")}
    modules = {info.name for info in pkgutil.iter_modules(wherein.history.__path__)}
    assert set(wherein.history.__all__) == public - modules
    assert all(getattr(wherein.history, name) is not None for name in wherein.history.__all__)


def test_every_module_names_its_public_api():
    for info in pkgutil.iter_modules(wherein.history.__path__):
        module = importlib.import_module(f"wherein.history.{info.name}")
        for name in module.__all__:
            assert hasattr(module, name), f"{info.name}.{name}"
