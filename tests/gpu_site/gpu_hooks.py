"""Import hooks that hide the GPU from a Python process (no pytest, no dlarray import: they run at
start-up of every child process of a test that hides the GPU, through sitecustomize).

* :class:`CupyBlocker` makes ``import cupy`` fail with ImportError, as if cupy were not installed.
  It fails in ``create_module``, before a module object exists, so a thread importing cupy at the
  same moment as another one gets ImportError too (a ``cupy`` package that raised in its
  ``__init__`` would hand such a thread the half-initialized module).
* :class:`AfterImport` changes a module right after it is executed: here ``dlarray._cuda``, whose
  driver loader then finds no driver.
"""

from __future__ import annotations

import importlib.abc
import importlib.machinery
import sys
from collections.abc import Callable
from typing import Any

HIDDEN_MESSAGE = "cupy is hidden from this test (tests/gpu_view.py); mark the test real_cuda to use it"


class CupyBlocker(importlib.abc.MetaPathFinder, importlib.abc.Loader):
    """Finds ``cupy`` (``importlib.util.find_spec`` sees it, as it sees an installed cupy) and
    fails to import it."""

    def find_spec(self, name: str, path: Any = None, target: Any = None) -> Any:
        if name == "cupy" or name.startswith("cupy."):
            return importlib.machinery.ModuleSpec(name, self)
        return None

    def create_module(self, spec: Any) -> None:
        raise ImportError(HIDDEN_MESSAGE, name=spec.name)

    def exec_module(self, module: Any) -> None:  # pragma: no cover - create_module raised
        raise ImportError(HIDDEN_MESSAGE, name=module.__name__)


class AfterImport(importlib.abc.MetaPathFinder):
    """Runs ``change(module)`` right after the module ``name`` is executed (first import)."""

    def __init__(self, name: str, change: Callable[[Any], None]) -> None:
        self.name = name
        self.change = change
        self._searching = False  # the module's import lock is held while its spec is searched

    def find_spec(self, name: str, path: Any = None, target: Any = None) -> Any:
        if name != self.name or self._searching:
            return None
        # The finders after this one find the module (another AfterImport among them changes it
        # first: the first one on sys.meta_path changes it last, so it wins).
        self._searching = True
        try:
            for finder in sys.meta_path:
                spec = finder.find_spec(name, path, target) if hasattr(finder, "find_spec") else None
                if spec is not None:
                    break
            else:
                return None
        finally:
            self._searching = False
        original = spec.loader.exec_module
        change = self.change

        def exec_module(module: Any) -> None:
            original(module)
            change(module)

        spec.loader.exec_module = exec_module  # this spec's own loader (finders make one per spec)
        return spec


def _no_driver(cuda_module: Any) -> None:
    cuda_module._load_driver = lambda: None  # as without libcuda: no GPU, nothing to order


def hide_in_this_process() -> None:
    """No cupy and no CUDA driver for dlarray in this process (outermost hooks: they win)."""
    sys.meta_path[:0] = [CupyBlocker(), AfterImport("dlarray._cuda", _no_driver)]
