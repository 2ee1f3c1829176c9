"""What real cupy offers, for tests/numpy_cupy.py: its names and the keywords each function takes.

tests/numpy_cupy.py plays cupy with numpy. numpy has names and keywords cupy lacks (``vecdot``,
``sort(stable=)``, ...): a CUDA path calling one would pass on the stand-in and fail on a GPU. So
the stand-in offers only what ``cupy_api.json`` lists, which this module writes from a real cupy.
cupy imports without a GPU, so the description is made on any machine::

    python -m venv /tmp/cupy && /tmp/cupy/bin/pip install numpy cupy-cuda13x==14.2.0
    /tmp/cupy/bin/python tests/cupy_api.py            # rewrites tests/cupy_api.json

The description: for the top level, ``linalg``, ``fft`` and ``ndarray`` (its methods and
attributes), each public name other than a submodule with the keyword arguments it accepts (``null``: any, for a
function whose signature cupy does not expose). A ufunc takes ``out``, ``dtype`` and ``casting``.
tests/test_cuda_namespace.py checks, where a real cupy is installed (a GPU machine), that the
file describes it.
"""

from __future__ import annotations

import inspect
import json
import re
import sys
import types
from pathlib import Path
from typing import Any

FILE = Path(__file__).resolve().with_name("cupy_api.json")
UFUNC_KEYWORDS = ["out", "dtype", "casting"]  # cupy's ufunc.__call__ (cupy/_core/_kernel.pyx)
_DOC_SIGNATURE = re.compile(r"^[\w.]+\((.*)\)")


def keywords(function: Any) -> list[str] | None:
    """The keyword arguments ``function`` accepts; None when it takes any (or cannot be told)."""
    if type(function).__name__ == "ufunc":
        return list(UFUNC_KEYWORDS)
    try:
        parameters = list(inspect.signature(function).parameters.values())
    except (TypeError, ValueError):
        # a Cython method: cupy embeds its signature as the first line of the docstring
        found = _DOC_SIGNATURE.match((getattr(function, "__doc__", None) or "").strip())
        if not found:
            return None
        names = [part.split("=")[0].strip() for part in found.group(1).split(",") if part.strip()]
        if any(name.startswith("**") for name in names):
            return None
        return [name for name in names if name not in ("self", "/", "*") and not name.startswith("*")]
    if any(p.kind is p.VAR_KEYWORD for p in parameters):
        return None
    return [p.name for p in parameters if p.kind in (p.POSITIONAL_OR_KEYWORD, p.KEYWORD_ONLY) and p.name != "self"]


def _names(namespace: Any) -> dict[str, list[str] | None]:
    found: dict[str, list[str] | None] = {}
    for name in sorted(dir(namespace)):
        if name.startswith("_"):
            continue
        try:
            value = getattr(namespace, name)
        except Exception:  # noqa: BLE001 - a lazy attribute that needs a GPU: listed, any keywords
            found[name] = None
            continue
        if isinstance(value, types.ModuleType):
            # a submodule is in dir() once something imported it (cupy.cublas after the first
            # linalg.solve on a GPU): not a name of the API, and not the same from run to run
            continue
        found[name] = keywords(value) if callable(value) and not isinstance(value, type) else None
    return found


def describe(cupy: Any) -> dict[str, Any]:
    """The description of ``cupy`` (a module) that tests/numpy_cupy.py keeps to."""
    return {
        "cupy": cupy.__version__,
        "top": _names(cupy),
        "linalg": _names(cupy.linalg),
        "fft": _names(cupy.fft),
        "ndarray": _names(cupy.ndarray),
    }


def load() -> dict[str, Any]:
    return json.loads(FILE.read_text())


def departures(described: dict[str, Any], actual: dict[str, Any]) -> list[str]:
    """Where ``described`` (the file) would let the stand-in do what ``actual`` (a real cupy's
    description) refuses, or refuse what it accepts: a name only one of them has, or keywords that
    differ. A function the file lists with any keywords (None, its signature unreadable where the
    file was made) is not held against a real cupy that shows its signature.

    Examples
    --------
    >>> departures({"top": {"sum": ["a", "axis"], "vecdot": None}}, {"top": {"sum": ["a", "axis"]}})
    ["top: vecdot is not cupy's"]
    """
    found = []
    for part in ("top", "linalg", "fft", "ndarray"):
        ours, theirs = described.get(part, {}), actual.get(part, {})
        found += [f"{part}: {name} is not cupy's" for name in sorted(set(ours) - set(theirs))]
        found += [f"{part}: cupy's {name} is missing" for name in sorted(set(theirs) - set(ours))]
        found += [f"{part}: {name} takes {theirs[name]}, the file says {ours[name]}"
                  for name in sorted(set(ours) & set(theirs))
                  if ours[name] is not None and ours[name] != theirs[name]]
    return found


if __name__ == "__main__":
    import cupy

    FILE.write_text(json.dumps(describe(cupy), indent=1, sort_keys=True) + "\n")
    print(f"described cupy {cupy.__version__} in {FILE}", file=sys.stderr)
