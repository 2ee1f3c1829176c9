"""``python -m dlarray``: the interop probe (and ``python -m dlarray check LIBRARY``, the DLPack kit).

For every producer installed, a buffer is imported into dlarray and handed on to every consumer
installed; each cell says whether that hop kept the same pointer (zero-copy), copied, or was refused.
"""

from __future__ import annotations

import array
import importlib.util
import sys
from typing import Any, Callable

import numpy as np

import dlarray

Pointer = Callable[[Any], int]


def _numpy_pointer(a: Any) -> int:
    return int(np.asarray(a).__array_interface__["data"][0])


def _buffer_pointer(b: Any) -> int:
    return int(np.frombuffer(b, dtype=np.uint8).__array_interface__["data"][0])


def _producers() -> list[tuple[str, Callable[[], Any], Pointer]]:
    found: list[tuple[str, Callable[[], Any], Pointer]] = [
        ("numpy", lambda: np.arange(1024, dtype=np.float32), _numpy_pointer),
    ]
    if importlib.util.find_spec("torch"):
        import torch

        found.append(("torch", lambda: torch.arange(1024, dtype=torch.float32), lambda t: t.data_ptr()))
        if torch.cuda.is_available():
            found.append(("torch (cuda)", lambda: torch.arange(1024, dtype=torch.float32, device="cuda"),
                          lambda t: t.data_ptr()))
    if importlib.util.find_spec("jax"):
        import jax.numpy as jnp

        found.append(("jax", lambda: jnp.arange(1024, dtype=jnp.float32), lambda a: a.unsafe_buffer_pointer()))
    if importlib.util.find_spec("array_api_strict"):
        import array_api_strict as strict

        found.append(("array-api-strict", lambda: strict.arange(1024, dtype=strict.float32),
                      lambda a: _numpy_pointer(np.from_dlpack(a))))
    if _cuda_cupy() is not None:
        cupy = _cuda_cupy()
        found.append(("cupy", lambda: cupy.arange(1024, dtype=cupy.float32), lambda a: a.data.ptr))
    shared = bytearray(4096)
    found += [
        ("bytes", lambda: bytes(4096), _buffer_pointer),
        ("bytearray", lambda: shared, _buffer_pointer),
        ("array.array", lambda: array.array("f", range(1024)), lambda a: a.buffer_info()[0]),
        ("memoryview", lambda: memoryview(shared)[8:], _buffer_pointer),
    ]
    return found


def _cuda_cupy() -> Any:
    if not importlib.util.find_spec("cupy"):
        return None
    try:
        import cupy

        return cupy if cupy.cuda.runtime.getDeviceCount() > 0 else None
    except Exception:
        return None


def _consumers() -> list[tuple[str, Callable[[Any], Any], Pointer]]:
    found: list[tuple[str, Callable[[Any], Any], Pointer]] = [
        ("numpy", np.from_dlpack, _numpy_pointer),
        ("dlarray", dlarray.from_dlpack, lambda x: x.data_ptr),
    ]
    if importlib.util.find_spec("torch"):
        import torch

        found.append(("torch", torch.from_dlpack, lambda t: t.data_ptr()))
    if importlib.util.find_spec("jax"):
        import jax.numpy as jnp

        found.append(("jax", jnp.from_dlpack, lambda a: a.unsafe_buffer_pointer()))
    if importlib.util.find_spec("array_api_strict"):
        import array_api_strict as strict

        found.append(("array-api-strict", strict.from_dlpack, lambda a: _numpy_pointer(np.from_dlpack(a))))
    cupy = _cuda_cupy()
    if cupy is not None:
        found.append(("cupy", cupy.from_dlpack, lambda a: a.data.ptr))
    return found


def _hop(make: Callable[[], Any], pointer: Pointer) -> tuple[str, Any, int]:
    source = make()
    address = pointer(source)
    imported = dlarray.asarray(source)
    verdict = "zero-copy" if imported.data_ptr == address else "COPY"
    return verdict, imported, address


def probe() -> tuple[list[list[str]], list[str]]:
    """Run every producer -> dlarray -> consumer hop; return the table rows (header first) and
    the notes that explain each refusal."""
    notes: list[str] = []

    def _describe(exc: BaseException) -> str:
        text = f"{type(exc).__name__}: {str(exc).splitlines()[0] if str(exc) else ''}"
        if text not in notes:
            notes.append(text)
        return f"refused [{notes.index(text) + 1}]"

    consumers = _consumers()
    rows = [["producer", "-> dlarray", *(f"-> {name}" for name, _, _ in consumers)]]
    for name, make, pointer in _producers():
        try:
            verdict, imported, address = _hop(make, pointer)
        except Exception as exc:  # the probe reports, it does not stop
            rows.append([name, _describe(exc), *("-" for _ in consumers)])
            continue
        row = [name, verdict]
        for _consumer_name, consume, consumer_pointer in consumers:
            try:
                result = consume(imported)
                row.append("zero-copy" if consumer_pointer(result) == address else "COPY")
            except Exception as exc:
                row.append(_describe(exc))
        rows.append(row)
    return rows, notes


def main() -> int:
    """Print the interop table."""
    rows, notes = probe()
    widths = [max(len(row[i]) for row in rows) for i in range(len(rows[0]))]
    print(f"dlarray {dlarray.__version__} interop probe (Python {sys.version.split()[0]}, "
          f"numpy {np.__version__})")
    print("Each cell: the hop kept the producer's pointer (zero-copy), copied, or was refused.\n")
    for i, row in enumerate(rows):
        print("  ".join(cell.ljust(width) for cell, width in zip(row, widths)).rstrip())
        if i == 0:
            print("  ".join("-" * width for width in widths))
    for number, note in enumerate(notes, 1):
        print(f"[{number}] {note}")
    return 0


if __name__ == "__main__":
    # `python -m dlarray check LIBRARY`: the DLPack conformance kit (dlarray/testing/_cli.py).
    if sys.argv[1:2] == ["check"]:
        from dlarray.testing._cli import main as check_main

        raise SystemExit(check_main(sys.argv[2:]))
    raise SystemExit(main())
