"""Run a function when a module is imported, or at once if it already is.

Gymnasium has no plugin entry points, so a package that registers environments would
have to import Gymnasium (and PettingZoo) to register them. :func:`when_imported` lets
``import yaniv_env`` stay light instead: registration waits until the application
imports the library. A finder at the front of ``sys.meta_path`` sees the import of a
watched module, lets the other finders find it, and runs the hooks once the module's code
has run (not if it failed). Each hook runs once.

:func:`needs_extra` names the extra of ``yaniv-env`` to install when an optional library
(Numba, torch, Stable-Baselines3, ...) is missing, instead of a bare ``No module named``.
"""

from __future__ import annotations

import contextlib
import importlib.abc
import sys
from collections.abc import Callable, Iterator
from types import ModuleType

Hook = Callable[[ModuleType], None]


class _RunHooks(importlib.abc.Loader):
    """The real loader, then the hooks."""

    def __init__(self, loader: importlib.abc.Loader, hooks: list[Hook]):
        self.loader = loader
        self.hooks = hooks

    def create_module(self, spec):
        return self.loader.create_module(spec)

    def exec_module(self, module: ModuleType) -> None:
        # The module sees its own loader (resources, reloads); only this call goes through us.
        module.__loader__ = module.__spec__.loader = self.loader
        self.loader.exec_module(module)
        for hook in self.hooks:
            hook(module)


class _Watch(importlib.abc.MetaPathFinder):
    def __init__(self):
        self.hooks: dict[str, list[Hook]] = {}

    def find_spec(self, fullname, path, target=None):
        hooks = self.hooks.pop(fullname, None)
        if hooks is None:
            return None
        for finder in sys.meta_path:
            if finder is self or not hasattr(finder, "find_spec"):
                continue
            spec = finder.find_spec(fullname, path, target)
            if spec is not None:
                if spec.loader is not None and hasattr(spec.loader, "exec_module"):
                    spec.loader = _RunHooks(spec.loader, hooks)
                return spec
        return None


_watch = _Watch()


def when_imported(name: str, hook: Hook) -> None:
    """Call ``hook(module)`` once module ``name`` is imported: now if it already is, else
    right after its import (a failed import runs nothing)."""
    module = sys.modules.get(name)
    if module is not None:
        hook(module)
        return
    if _watch not in sys.meta_path:
        sys.meta_path.insert(0, _watch)
    _watch.hooks.setdefault(name, []).append(hook)


#: The optional libraries and the extra of ``yaniv-env`` that installs each (``pyproject.toml``).
EXTRAS = {
    "numba": "vector",
    "llvmlite": "vector",
    "torch": "train",
    "stable_baselines3": "train",
    "sb3_contrib": "train",
    "safetensors": "train",
    "tensorboard": "train",
    "tqdm": "train",
    "openskill": "train",
    "matplotlib": "train",
    "ray": "rllib",
}


class MissingExtra(ModuleNotFoundError):
    """An optional library is not installed; ``extra`` is the extra of ``yaniv-env`` that
    installs it."""

    def __init__(self, what: str, library: str, name: str | None = None):
        self.extra = EXTRAS[library]
        super().__init__(f"{what} needs {library}, which is not installed: pip install 'yaniv-env[{self.extra}]'")
        self.name = name or library


@contextlib.contextmanager
def needs_extra(what: str) -> Iterator[None]:
    """Re-raise a ``ModuleNotFoundError`` for one of :data:`EXTRAS`'s libraries, met in the
    block, as a :class:`MissingExtra` that says what needed it and which extra installs it;
    other errors pass."""
    try:
        yield
    except MissingExtra:
        raise  # already says what needed it
    except ModuleNotFoundError as exc:
        library = (exc.name or "").partition(".")[0]
        if library not in EXTRAS:
            raise
        raise MissingExtra(what, library, exc.name) from exc


__all__ = ["EXTRAS", "MissingExtra", "needs_extra", "when_imported"]
