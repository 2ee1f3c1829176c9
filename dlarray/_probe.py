"""The interop probe that ``python -m dlarray`` runs (``dlarray.__main__`` is its command line).

For every producer installed, a buffer is imported into dlarray and handed on to every consumer
installed; what each consumer returns is then used (``result + result``, ``numpy.asarray``).
Each cell says whether that hop kept the same pointer (zero-copy), copied, was refused, gave a
result that cannot be used, or crashed the process; every cell but a zero-copy one has a
footnote saying why.

The hops run in a child process (``dlarray.testing._isolation``): a hop that aborts it (torch
importing negative strides, tensorflow computing on a buffer that is not 64-byte aligned) is a
``CRASH`` cell with the signal and what the framework printed, and a new child goes on with the
next hop. The child finds every producer and consumer by the names of their functions, which is
why they are module-level functions here; yours join them when theirs are too (with a lambda
among them, the probe runs in this process).

The probe's buffers start on a 64-byte boundary, so the table is the same from run to run: jax
copies any CPU buffer that does not (XLA's alignment), and numpy or ``malloc`` place buffers on
16-byte boundaries only, so an unaligned buffer would make jax's cells flip between runs. Two rows
make the layouts that trouble frameworks on purpose: a reversed numpy array (negative strides) and
one 16 bytes past a boundary.
"""

from __future__ import annotations

import array
import importlib
import importlib.util
import json
import sys
import warnings
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import Any

import numpy as np

import dlarray
from dlarray.testing._buffers import aligned_float32
from dlarray.testing._capsules import DATA_ALIGNMENT, read_capsule
from dlarray.testing._consumer_checks import use_problems
from dlarray.testing._isolation import Crash, resolve, run_jobs, serve, spec_of

Pointer = Callable[[Any], int]

# Buffers the probe makes start at a multiple of this many bytes: jax (XLA) copies a CPU buffer
# that does not, numpy and malloc only promise 16.
ALIGNMENT = DATA_ALIGNMENT
# the first hop's column: the producer's buffer into dlarray
IMPORT = "dlarray.asarray"
# What a child runs: the plan (producers and consumers as importable functions), its pipe, its hops.
_CHILD = "import sys; from dlarray._probe import serve_hops; serve_hops(sys.argv[1:])"
# Frameworks that must be imported before another in one process: paddle 3.3 crashes (SIGSEGV)
# when it is imported after tensorflow 2.21. A child imports a hop's frameworks before the hop,
# these first when its plan has them.
_IMPORT_FIRST = {"tensorflow": ("paddle",)}


@dataclass(frozen=True)
class Producer:
    """A framework that makes a 1024-element buffer, and how to read that buffer's address.

    ``requires``: the framework's module, imported (in a safe order) before the hops run.
    """

    name: str
    make: Callable[[], Any]
    pointer: Pointer
    requires: str | None = None


@dataclass(frozen=True)
class Consumer:
    """A framework that imports an Array through DLPack, and how to read the result's address."""

    name: str
    consume: Callable[[Any], Any]
    pointer: Pointer
    requires: str | None = None


@dataclass
class ProbeResult:
    """The table (header first, one row per producer) and the footnotes its cells point to."""

    rows: list[list[str]]
    notes: list[str] = field(default_factory=list)
    # one dict per cell: producer, consumer (IMPORT for the import), verdict, note (or None)
    cells: list[dict[str, Any]] = field(default_factory=list)
    # distribution -> version of numpy and of every framework the hops used
    versions: dict[str, str] = field(default_factory=dict)


# ------------------------------------------------------------------------------ the buffers
def _numpy_pointer(a: Any) -> int:
    return int(np.asarray(a).__array_interface__["data"][0])


def _buffer_pointer(b: Any) -> int:
    return int(np.frombuffer(b, dtype=np.uint8).__array_interface__["data"][0])


def _capsule_pointer(x: Any) -> int:
    """Where the object's own DLPack export says its first element is."""
    return read_capsule(x.__dlpack__()).pointer


def aligned_bytearray(size: int) -> bytearray:
    """A zeroed bytearray of ``size`` bytes whose data is ALIGNMENT-aligned.

    Deleting a bytearray's first bytes moves its start within the same allocation (CPython keeps
    the offset), and trimming less than half of it does not reallocate: over-allocate, then cut.
    """
    buffer = bytearray(size + ALIGNMENT)
    del buffer[: -_buffer_pointer(buffer) % ALIGNMENT]
    del buffer[size:]
    return buffer


def _aligned_python_buffer(make: Callable[[], Any], pointer: Pointer) -> Any:
    """A bytes/array.array whose data is ALIGNMENT-aligned.

    Python places their data where its allocator chooses (16-byte steps): allocate until one
    lands on the boundary, keeping the misses alive meanwhile so that each try gets a new address
    (a heap where many free blocks of that size share one offset needs many tries).
    """
    misses = []
    for _ in range(4096):
        candidate = make()
        if pointer(candidate) % ALIGNMENT == 0:
            return candidate
        misses.append(candidate)
    return make()  # the allocator never obliged: the footnotes say what alignment did


# array.array's initial values as bytes: one allocation of the final size (growing it from a
# range reallocates, and the final block lands on a boundary far less often)
_FLOAT32_BYTES = np.arange(1024, dtype=np.float32).tobytes()


# ------------------------------------------------------------------------------ producers
# Module-level functions, so that a child process imports them by name.
def _numpy() -> np.ndarray:
    return aligned_float32(1024)


def _numpy_reversed() -> np.ndarray:
    return aligned_float32(1024)[::-1]  # stride -1: element 0 is the buffer's last


def _numpy_unaligned() -> np.ndarray:
    return aligned_float32(1024, misalign=16)  # where numpy's and Python's allocators may put it


def _torch() -> Any:
    import torch

    return torch.arange(1024, dtype=torch.float32)  # torch's CPU allocator aligns to 64 bytes itself


def _torch_cuda() -> Any:
    import torch

    return torch.arange(1024, dtype=torch.float32, device="cuda")


def _data_ptr(t: Any) -> int:
    return int(t.data_ptr())


def _jax() -> Any:
    import jax.numpy as jnp

    return jnp.arange(1024, dtype=jnp.float32)


def _jax_pointer(a: Any) -> int:
    return int(a.unsafe_buffer_pointer())


def _strict() -> Any:
    import array_api_strict as strict

    return strict.asarray(aligned_float32(1024))


def _strict_pointer(a: Any) -> int:
    return _numpy_pointer(np.from_dlpack(a))


def _import_paddle() -> Any:
    with warnings.catch_warnings():  # about compiling C++ extensions, not about arrays
        warnings.filterwarnings("ignore", message="No ccache found")
        return importlib.import_module("paddle")


def _paddle() -> Any:
    return _import_paddle().arange(1024, dtype="float32")


def _tensorflow() -> Any:
    import tensorflow as tf

    return tf.range(1024, dtype=tf.float32)


def _pyarrow() -> Any:
    import pyarrow as pa

    return pa.array(aligned_float32(1024))  # wraps the aligned buffer (arrow itself aligns to 64 too)


def _pyarrow_pointer(a: Any) -> int:
    return int(a.buffers()[1].address) + a.offset * a.type.byte_width


def _cupy() -> Any:
    import cupy

    return cupy.arange(1024, dtype=cupy.float32)


def _cupy_pointer(a: Any) -> int:
    return int(a.data.ptr)


def _bytes() -> bytes:
    return _aligned_python_buffer(lambda: bytes(4096), _buffer_pointer)  # type: ignore[no-any-return]


def _bytearray() -> bytearray:
    return aligned_bytearray(4096)


def _array_array() -> array.array:
    return _aligned_python_buffer(lambda: array.array("f", _FLOAT32_BYTES), _array_pointer)  # type: ignore[no-any-return]


def _array_pointer(a: array.array) -> int:
    return int(a.buffer_info()[0])


def _memoryview() -> memoryview:
    # a view that does not start at its buffer's start (64 bytes in, so still aligned)
    return memoryview(aligned_bytearray(4096 + ALIGNMENT))[ALIGNMENT:]


def _installed(module: str) -> bool:
    return importlib.util.find_spec(module) is not None


def _torch_has_cuda() -> bool:
    import torch

    return bool(torch.cuda.is_available())


def _producers() -> list[Producer]:
    found = [
        Producer("numpy", _numpy, _numpy_pointer),
        Producer("numpy[::-1]", _numpy_reversed, _numpy_pointer),
        Producer("numpy (unaligned)", _numpy_unaligned, _numpy_pointer),
    ]
    for name, module, make, _consume, pointer in _frameworks():
        if make is not None:
            found.append(Producer(name, make, pointer, module))
            if name == "torch" and _torch_has_cuda():
                found.append(Producer("torch (cuda)", _torch_cuda, _data_ptr, "torch"))
    found += [
        Producer("bytes", _bytes, _buffer_pointer),
        Producer("bytearray", _bytearray, _buffer_pointer),
        Producer("array.array", _array_array, _array_pointer),
        Producer("memoryview", _memoryview, _buffer_pointer),
    ]
    return found


def _cuda_cupy() -> Any:
    if not _installed("cupy"):
        return None
    try:
        import cupy

        return cupy if cupy.cuda.runtime.getDeviceCount() > 0 else None
    except Exception:  # noqa: BLE001 - no usable CUDA runtime: no cupy row or column
        return None


# ------------------------------------------------------------------------------ consumers
def _dlarray_pointer(x: Any) -> int:
    return int(x.data_ptr)


def _torch_from_dlpack(x: Any) -> Any:
    import torch

    return torch.from_dlpack(x)


def _jax_from_dlpack(x: Any) -> Any:
    import jax.numpy as jnp

    return jnp.from_dlpack(x)


def _strict_from_dlpack(x: Any) -> Any:
    import array_api_strict as strict

    return strict.from_dlpack(x)


def _paddle_from_dlpack(x: Any) -> Any:
    return _import_paddle().from_dlpack(x)


def _tensorflow_from_dlpack(x: Any) -> Any:
    import tensorflow as tf

    # tensorflow's consumer takes a capsule only, and reads only legacy ones: what __dlpack__()
    # without arguments gives, as its users call it
    return tf.experimental.dlpack.from_dlpack(x.__dlpack__())


def _cupy_from_dlpack(x: Any) -> Any:
    import cupy

    return cupy.from_dlpack(x)


def _consumers() -> list[Consumer]:
    found = [
        Consumer("numpy", np.from_dlpack, _numpy_pointer),
        Consumer("dlarray", dlarray.from_dlpack, _dlarray_pointer),
    ]
    for name, module, _make, consume, pointer in _frameworks():
        if consume is not None:
            found.append(Consumer(name, consume, pointer, module))
    return found


def _frameworks() -> list[tuple[str, str, Callable[[], Any] | None, Callable[[Any], Any] | None, Pointer]]:
    """The installed frameworks, in the table's order: (name, module, producer, consumer, pointer);
    None where a framework has no producer or no consumer (pyarrow consumes nothing)."""
    known = [
        ("torch", "torch", _torch, _torch_from_dlpack, _data_ptr),
        ("jax", "jax", _jax, _jax_from_dlpack, _jax_pointer),
        ("array-api-strict", "array_api_strict", _strict, _strict_from_dlpack, _strict_pointer),
        ("paddle", "paddle", _paddle, _paddle_from_dlpack, _data_ptr),
        ("tensorflow", "tensorflow", _tensorflow, _tensorflow_from_dlpack, _capsule_pointer),
        ("pyarrow", "pyarrow", _pyarrow, None, _pyarrow_pointer),
        ("cupy", "cupy", _cupy, _cupy_from_dlpack, _cupy_pointer),
    ]
    # cupy only where it reaches a GPU: no cupy row or column otherwise
    return [entry for entry in known if (_cuda_cupy() is not None if entry[1] == "cupy" else _installed(entry[1]))]


# the import as a hop of its own: the producer's buffer into dlarray
_IMPORTER = Consumer(IMPORT, dlarray.asarray, _dlarray_pointer)


# ------------------------------------------------------------------------------ the reasons
def _copy_reason(consumer: str, address: int) -> str:
    """Why ``consumer`` copied the buffer at ``address``, as far as the probe knows."""
    if consumer == "jax" and address % ALIGNMENT:
        return (f"jax copies a CPU buffer whose address is not a multiple of {ALIGNMENT} bytes (XLA's "
                f"alignment); this one's is {address % ALIGNMENT} past a boundary")
    return f"{consumer} returned a buffer at another address: it copied (no known rule of {consumer} explains it)"


def _refusal_reason(exc: BaseException) -> str:
    lines = str(exc).splitlines()
    return f"{type(exc).__name__}: {lines[0]}" if lines else type(exc).__name__


def _select(available: Sequence[Any], wanted: Sequence[Any] | None, what: str) -> list[Any]:
    """The ``wanted`` entries of ``available`` by name (a Producer/Consumer given as such is kept)."""
    if wanted is None:
        return list(available)
    by_name = {item.name: item for item in available}
    unknown = [name for name in wanted if isinstance(name, str) and name not in by_name]
    if unknown:
        raise ValueError(f"unknown {what} {', '.join(map(repr, unknown))}; installed here: {', '.join(by_name)}")
    return [by_name[name] if isinstance(name, str) else name for name in wanted]


# ------------------------------------------------------------------------------ one hop
def hop(producer: Producer, consumer: Consumer) -> dict[str, Any]:
    """Make the producer's buffer, import it into dlarray and, unless ``consumer`` is the import
    itself, hand the Array on to it; then use the result. Returns ``{"verdict", "note"}``.

    Verdicts: ``zero-copy``, ``COPY``, ``refused``, ``unusable`` (the result cannot be used: see
    `dlarray.testing._consumer_checks.use_problems`), and ``-`` for a consumer hop whose import
    was refused (the import's own cell says why). A hop that kills the process is seen by the
    caller (`run_hops`).
    """
    try:
        source = producer.make()
        address = producer.pointer(source)
        imported = dlarray.asarray(source)
    except Exception as exc:  # noqa: BLE001 - the probe reports any refusal, it does not stop
        return {"verdict": "refused" if consumer is _IMPORTER else "-", "note": _refusal_reason(exc)}
    try:
        received = imported if consumer is _IMPORTER else consumer.consume(imported)
        same = consumer.pointer(received) == address
    except Exception as exc:  # noqa: BLE001 - reported in the cell and its footnote
        return {"verdict": "refused", "note": _refusal_reason(exc)}
    on_cpu = imported.__dlpack_device__()[0] == 1
    values = np.ascontiguousarray(np.from_dlpack(imported)).tobytes() if on_cpu else None
    problems = use_problems(received, values, imported.shape, on_cpu=on_cpu)
    if problems:
        return {"verdict": "unusable", "note": f"{consumer.name}: {problems[0]}"}
    if same:
        return {"verdict": "zero-copy", "note": None}
    return {"verdict": "COPY", "note": _copy_reason(consumer.name, address)}


def _entry(item: Producer | Consumer) -> dict[str, Any] | None:
    """``item`` as a child process rebuilds it (None: one of its functions has no importable name)."""
    functions = {"make": item.make, "pointer": item.pointer} if isinstance(item, Producer) else \
        {"consume": item.consume, "pointer": item.pointer}
    specs = {key: spec_of(function) for key, function in functions.items()}
    if None in specs.values():
        return None
    return {"name": item.name, "requires": item.requires, **specs}


def serve_hops(argv: list[str]) -> None:
    """A child: ``PLAN FD HOP...``; PLAN is JSON (producers, consumers); a hop is ``"i:j"``
    (producer i into consumer j, or into dlarray for j = -1)."""
    plan_text, fd, *hops = argv
    plan = json.loads(plan_text)
    planned = {entry["requires"] for entry in plan["producers"] + plan["consumers"]} - {None}
    producers = [Producer(e["name"], resolve(e["make"]), resolve(e["pointer"]), e["requires"])
                 for e in plan["producers"]]
    consumers = [Consumer(e["name"], resolve(e["consume"]), resolve(e["pointer"]), e["requires"])
                 for e in plan["consumers"]]

    def need(module: str | None) -> None:
        if module is None or module in sys.modules:
            return
        for first in _IMPORT_FIRST.get(module, ()):
            if first in planned:
                need(first)
        _import_paddle() if module == "paddle" else importlib.import_module(module)

    def run(name: str) -> dict[str, Any]:
        i, j = map(int, name.split(":"))
        consumer = _IMPORTER if j < 0 else consumers[j]
        need(producers[i].requires)
        need(consumer.requires)
        return hop(producers[i], consumer)

    serve(hops, int(fd), run)


def run_hops(producers: Sequence[Producer], consumers: Sequence[Consumer]) -> dict[str, Any]:
    """Every hop (``"i:j"``, j = -1 the import) -> `hop`'s record or a `Crash`: in a child process
    when every function can be imported by name there, else in this one."""
    names = [f"{i}:{j}" for i in range(len(producers)) for j in range(-1, len(consumers))]
    plan = {"producers": [_entry(p) for p in producers], "consumers": [_entry(c) for c in consumers]}
    if None in plan["producers"] or None in plan["consumers"]:
        return {name: hop(producers[int(name.split(":")[0])],
                          _IMPORTER if name.endswith(":-1") else consumers[int(name.split(":")[1])])
                for name in names}
    text = json.dumps(plan)
    return run_jobs(names, command=lambda fd, todo: [sys.executable, "-c", _CHILD, text, str(fd), *todo],
                    timeout=120.0, startup=300.0)


# ------------------------------------------------------------------------------ the probe
def probe(
    producers: Sequence[str | Producer] | None = None, consumers: Sequence[str | Consumer] | None = None
) -> ProbeResult:
    """Run every producer -> dlarray -> consumer hop, each in a child process.

    Parameters
    ----------
    producers, consumers
        Names to run (as ``--list`` shows them) or Producer/Consumer objects of your own; None:
        every one installed. ValueError names an unknown name. Objects whose functions are
        module-level (importable by name) run in the child too; with a lambda among them, every
        hop runs in this process, where one that crashes takes it down.

    Returns
    -------
    ProbeResult
        ``rows``: header first, then one row per producer; ``notes``: the footnotes the cells
        point to (``COPY [n]``, ``refused [n]``, ``unusable [n]``, ``CRASH [n]``); ``cells``: the
        same verdicts as records.

    Examples
    --------
    >>> result = probe(producers=["numpy"], consumers=["numpy"])
    >>> result.rows[1]
    ['numpy', 'zero-copy', 'zero-copy']
    >>> result.rows[0]
    ['producer', 'dlarray.asarray', '-> numpy']
    """
    chosen_producers = _select(_producers(), producers, "producer")
    chosen_consumers = _select(_consumers(), consumers, "consumer")
    result = ProbeResult(rows=[["producer", IMPORT, *(f"-> {c.name}" for c in chosen_consumers)]],
                         versions=_framework_versions([*chosen_producers, *chosen_consumers]))
    outcomes = run_hops(chosen_producers, chosen_consumers)

    def record(producer: str, consumer: str, outcome: Any) -> str:
        if isinstance(outcome, Crash):
            verdict, note = "CRASH", f"{consumer}: {outcome}"
        else:
            verdict, note = outcome["verdict"], outcome["note"]
        result.cells.append({"producer": producer, "consumer": consumer, "verdict": verdict, "note": note})
        if note is None:
            return verdict
        if note not in result.notes:
            result.notes.append(note)
        return f"{verdict} [{result.notes.index(note) + 1}]"

    for i, producer in enumerate(chosen_producers):
        row = [producer.name, record(producer.name, IMPORT, outcomes[f"{i}:-1"])]
        for j, consumer in enumerate(chosen_consumers):
            outcome = outcomes[f"{i}:{j}"]
            if isinstance(outcome, dict) and outcome["verdict"] == "-":  # the import's cell says why
                row.append("-")
                continue
            row.append(record(producer.name, consumer.name, outcome))
        result.rows.append(row)
    return result


def _framework_versions(items: Sequence[Producer | Consumer]) -> dict[str, str]:
    """Distribution -> version, for numpy and the modules ``items`` require."""
    import importlib.metadata

    distributions = importlib.metadata.packages_distributions()
    found = {"numpy": np.__version__}
    for module in sorted({item.requires for item in items} - {None}):  # type: ignore[type-var]
        for name in distributions.get(module, []):  # type: ignore[arg-type]
            distribution = importlib.metadata.distribution(name)
            found[distribution.metadata["Name"]] = distribution.version
    return found


def _versions() -> dict[str, str]:
    return {"dlarray": dlarray.__version__, "python": sys.version.split()[0], "numpy": np.__version__}
