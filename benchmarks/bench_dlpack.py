"""DLPack import/export latency of dlarray against its peers, across buffer sizes.

Run from the repository root::

    .venv/bin/python benchmarks/bench_dlpack.py            # dlarray + anchors, 10 .. 1e8 elements
    .venv/bin/python benchmarks/bench_dlpack.py --compare  # + numpy/torch/jax/array-api-strict/pydlpack matrix
    .venv/bin/python benchmarks/bench_dlpack.py --memory   # + resident memory added per 400 MB import
    .venv/bin/python benchmarks/bench_dlpack.py --quick    # smoke run: two sizes, short repeats

Every buffer is float32 and allocated (and touched) once per size, then reused by every timed
statement. Times are medians in microseconds (see ``_harness.py``). Besides the fast paths (numpy,
torch, bytes) it times the general path, a producer dlarray has no rule for and a raw capsule,
against a minimal ctypes consumer (the floor, ``floor_import``) and numpy's C consumer reading the
same producer, and the C exchange API of the publishers besides torch that are installed (the
``exchange`` extra: cuda-core's StridedMemoryView, tvm-ffi's DLTensorTestWrapper) against the
same object read through its ``__dlpack__``, numpy's C consumer and the publisher's own
``from_dlpack``. Prints the tables and the targets with MET / NOT MET, writes
``results/dlpack.json`` and ``results/dlpack_latency.png``.
"""

from __future__ import annotations

import argparse
import ctypes
import functools
import gc
import os
import resource
import statistics
import struct
import sys
import time
from dataclasses import asdict
from pathlib import Path
from typing import Any, Callable

# jax would probe for accelerators (and warn); this benchmark compares CPU buffers.
os.environ.setdefault("JAX_PLATFORMS", "cpu")

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parent))
from _harness import (  # noqa: E402
    Against,
    RESULTS_DIR,
    Results,
    Settings,
    Target,
    against,
    environment,
    fmt,
    measure_against,
    print_table,
    print_targets,
    ratio,
    sample_rounds,
    worst,
    write_json,
)
from plots import render

import dlarray  # noqa: E402

FULL_SIZES = [10, 1_000, 100_000, 1_000_000, 10_000_000, 100_000_000]
QUICK_SIZES = [10, 100_000]
MIB = 1024 * 1024

# The operations every run measures: (label, statement). Names in statements are bound in
# ``_namespace``: a = numpy array, t = torch tensor, x = dlarray Array, b = bytes of the same size.
ANCHOR = "numpy.from_dlpack(torch)"
MAIN_IMPORTS = [
    ("dlarray.from_dlpack(numpy)", "dl_from(a)"),
    ("dlarray.from_dlpack(torch)", "dl_from(t)"),
    (ANCHOR, "np_from(t)"),
]
MAIN_EXPORTS = [
    ("numpy.from_dlpack(dlarray)", "np_from(x)"),
    ("torch.from_dlpack(dlarray)", "torch_from(x)"),
    ("torch.from_dlpack(numpy)", "torch_from(a)"),
]
# Hand-offs: the same consumer reading the dlarray Array and the numpy array it holds, and the
# Array's own export and slice beside numpy's (a Python method against numpy's C one).
MAIN_HANDOFFS = [
    ("dlarray.Array.__dlpack__()", "x.__dlpack__()"),
    ("numpy.ndarray.__dlpack__()", "a.__dlpack__()"),
    ("numpy.from_dlpack(numpy)", "np_from(a)"),
    # jax imports asynchronously (a copy, where it makes one, runs on its thread pool): wait
    ("jax.dlpack.from_dlpack(dlarray)", "jax_from(x).block_until_ready()"),
    ("jax.dlpack.from_dlpack(numpy)", "jax_from(a).block_until_ready()"),
    ("dlarray.Array[1:-1]", "x[1:-1]"),
    ("numpy.ndarray[1:-1]", "a[1:-1]"),
]
# The hand-off targets: (target, the statement, bound, the rows of the size sweep that time the
# same statement with the Array and with numpy's array, shown per size beside the target).
# ``{array}`` is the Array ``x``, the PythonFloor ``f`` or numpy's array ``a``. The three are timed
# in the same rounds on one buffer (a hand-off is zero-copy: its cost does not depend on the size,
# as the per-size rows show), so that each ratio compares repeats moments apart.
HANDOFF_TARGETS = [
    ("Array.__dlpack__() / numpy's ndarray.__dlpack__()", "{array}.__dlpack__()", 3.0,
     ("dlarray.Array.__dlpack__()", "numpy.ndarray.__dlpack__()")),
    ("torch.from_dlpack(dlarray) / torch.from_dlpack(numpy)", "torch_from({array})", 1.1,
     ("torch.from_dlpack(dlarray)", "torch.from_dlpack(numpy)")),
    ("jax.dlpack.from_dlpack(dlarray) / (numpy)", "jax_from({array}).block_until_ready()", 1.1,
     ("jax.dlpack.from_dlpack(dlarray)", "jax.dlpack.from_dlpack(numpy)")),
    ("numpy.from_dlpack(dlarray) / numpy.from_dlpack(floor)", "np_from({array})", 1.15,
     ("numpy.from_dlpack(dlarray)", "numpy.from_dlpack(numpy)")),
]
SLICE_TARGET = ("Array[1:-1] overhead / the floor's, over numpy's ndarray[1:-1]", "{array}[1:-1]", 1.5,
                ("dlarray.Array[1:-1]", "numpy.ndarray[1:-1]"))
#: Hand-off targets judged against the PythonFloor (timed in the same rounds) rather than numpy's
#: array: numpy's consumer costs so little that what is left is a Python method's own cost, which
#: the floor measures. The slice's is its overhead over numpy's slice against the floor's overhead.
FLOOR_RELATIVE = {HANDOFF_TARGETS[-1][0], SLICE_TARGET[0]}
HANDOFF_SIZE = 1_000
MAIN_BYTES = [
    ("dlarray.asarray(bytes)", "dl_asarray(b)"),
    ("pydlpack.asdlpack(bytes)", "asdlpack(b)"),
]
DLARRAY_IMPORTS = ["dlarray.from_dlpack(numpy)", "dlarray.from_dlpack(torch)", "dlarray.asarray(bytes)"]

# --compare: every consumer reads every producer's object (not its own). pydlpack "consumes" by
# wrapping (asdlpack); as a producer it wraps the numpy array afresh in each call, because a
# pydlpack object can be consumed only once. jax imports asynchronously (a copy, where it makes
# one, runs on its thread pool after the call returns): the statement waits for the result.
CONSUMERS = {
    "dlarray": "dl_from({})",
    "numpy": "np_from({})",
    "torch": "torch_from({})",
    "jax": "jax_from({}).block_until_ready()",
    "array_api_strict": "xs_from({})",
    "pydlpack": "asdlpack({})",
}
PRODUCERS = {
    "numpy": "a",
    "torch": "t",
    "dlarray": "x",
    "jax": "j",
    "array_api_strict": "s",
    "pydlpack": "asdlpack(a)",
}


def _optional(name: str) -> Any:
    """Import a peer library, or None if it is not installed (its rows are then n/a)."""
    try:
        return __import__(name, fromlist=["_"])
    except Exception as error:
        print(f"note: {name} unavailable ({type(error).__name__}: {error}); its rows are n/a")
        return None


def _missing(library: str) -> Callable[..., Any]:
    """Stand-in for a function of an uninstalled library: its rows report n/a."""

    def unavailable(*_args: Any, **_kwargs: Any) -> Any:
        raise ImportError(f"{library} is not installed")

    return unavailable


def _peers(compare: bool) -> dict[str, Any]:
    """The peer modules: torch and pydlpack always, jax and array-api-strict with --compare."""
    peers = {"torch": _optional("torch"), "dlpack": _optional("dlpack"), "jax": _optional("jax")}
    if peers["jax"] is not None:
        import jax.dlpack  # noqa: F401  (a submodule: not imported by ``import jax``)
    if compare:
        peers["array_api_strict"] = _optional("array_api_strict")
    return peers


def _namespace(size: int, peers: dict[str, Any], compare: bool) -> dict[str, Any]:
    """Buffers of ``size`` float32 elements (allocated and touched once) and the functions timed."""
    torch, jax = peers["torch"], peers["jax"]
    a = np.ones(size, dtype=np.float32)
    ns: dict[str, Any] = {
        "a": a,
        "b": bytes(4 * size),  # as many bytes as the float32 buffers
        "dl_from": dlarray.from_dlpack,
        "dl_asarray": dlarray.asarray,
        "np_from": np.from_dlpack,
        "torch_from": torch.from_dlpack if torch else _missing("torch"),
        "asdlpack": peers["dlpack"].asdlpack if peers["dlpack"] else _missing("pydlpack"),
        "t": torch.ones(size, dtype=torch.float32) if torch else None,
        "jax_from": jax.dlpack.from_dlpack if jax else _missing("jax"),
    }
    try:
        ns["x"] = dlarray.from_dlpack(a)
    except Exception as error:  # export rows become n/a (the error is recorded with them)
        print(f"note: dlarray.from_dlpack(numpy) failed at size {size}: {error}")
        ns["x"] = None
    if compare:
        xs = peers.get("array_api_strict")
        ns["j"] = jax.device_put(a).block_until_ready() if jax else None
        ns["xs_from"] = xs.from_dlpack if xs else _missing("array_api_strict")
        ns["s"] = xs.asarray(a) if xs else None
    return ns


def _compare_ops(main_names: set[str]) -> list[tuple[str, str]]:
    """(label, statement) for every consumer/producer pair not already timed by the main set."""
    ops = []
    for consumer, template in CONSUMERS.items():
        for producer, obj in PRODUCERS.items():
            if consumer == producer:
                continue
            if consumer == "pydlpack":
                label = f"pydlpack.asdlpack({producer})"
            elif producer == "pydlpack":
                label = f"{consumer}.from_dlpack(pydlpack.asdlpack(numpy))"
            else:
                label = f"{consumer}.from_dlpack({producer})"
            if label not in main_names:
                ops.append((label, template.format(obj)))
    return ops


def run_latency(sizes: list[int], settings: Settings, peers: dict[str, Any], compare: bool) -> tuple[Results, list[str]]:
    """Time the main (and with ``compare`` the peer) operations at every size.

    All sizes are allocated first and every (operation, size) pair is measured in the same rounds,
    so that flatness over sizes and ratios between operations are not skewed by a change of load.
    """
    main = MAIN_IMPORTS + MAIN_EXPORTS + MAIN_HANDOFFS + MAIN_BYTES
    ops = main + (_compare_ops({label for label, _ in main}) if compare else [])
    spaces = {size: _namespace(size, peers, compare) for size in sizes}
    jobs = [(label, str(size), stmt, spaces[size]) for size in sizes for label, stmt in ops]
    print(f"timing {len(ops)} operations x {len(sizes)} sizes, {settings.repeats} interleaved rounds", flush=True)
    started = time.perf_counter()
    results = Results()
    results.run(jobs, settings)
    print(f"done in {time.perf_counter() - started:.0f} s", flush=True)
    del spaces, jobs
    gc.collect()
    return results, [label for label, _ in ops]


class PythonFloor:
    """A reference for the hand-offs: about the least a pure-Python array over a numpy array can
    do, a ``__dlpack__`` that forwards ``max_version`` to numpy's with no check of its own and a
    slice that wraps numpy's in a new object of two slots. Timed beside each target; what is left
    of the Array's cost above it is its own (its checks, its constructor), and the targets of
    ``FLOOR_RELATIVE`` bound it."""

    __slots__ = ("_native", "_owner")

    def __init__(self, native: np.ndarray) -> None:
        self._native = native
        self._owner = native

    def __dlpack__(self, *, stream: Any = None, max_version: Any = None, dl_device: Any = None, copy: Any = None) -> Any:
        # max_version only, as the Array's own shortcut passes it (dl_device and copy: None here)
        return self._native.__dlpack__(max_version=max_version)

    def __dlpack_device__(self) -> tuple[int, int]:
        return self._native.__dlpack_device__()  # type: ignore[no-any-return]

    def __getitem__(self, key: Any) -> PythonFloor:
        view = self._native[key]
        result = _new_floor(PythonFloor)
        result._native = result._owner = view
        return result


_new_floor = object.__new__


def run_handoffs(peers: dict[str, Any], quick: bool) -> dict[str, dict[str, Against] | str]:
    """Time each statement of ``HANDOFF_TARGETS`` and the slice with the Array, the ``PythonFloor``
    and numpy's array in the same rounds (``_harness.measure_against``, numpy's the reference); a
    target whose statements fail is recorded by its error."""
    ns = _namespace(HANDOFF_SIZE, peers, compare=False)
    ns["f"] = PythonFloor(ns["a"])
    rounds, min_time = (11, 0.002) if quick else (201, 0.005)
    found: dict[str, dict[str, Against] | str] = {}
    rows = []
    for name, statement, _, _ in [*HANDOFF_TARGETS, SLICE_TARGET]:
        try:
            dlarray_, floor = measure_against(
                statement.format(array="a"), [statement.format(array="x"), statement.format(array="f")],
                ns, rounds, min_time,
            )
        except Exception as error:  # a consumer that cannot read one of them: the target is n/a
            found[name] = f"{type(error).__name__}: {error}".splitlines()[0][:200]
            rows.append([name, found[name], "", "", "", ""])
            continue
        found[name] = {"dlarray": dlarray_, "floor": floor}
        for who, timed in found[name].items():
            low, high = timed.ratio_quartiles
            rows.append([f"{name} ({who})", fmt(timed.us), fmt(timed.reference_us), fmt(timed.ratio),
                         f"{fmt(low)}-{fmt(high)}", fmt(timed.difference_us)])
    print_table(
        f"Hand-offs against numpy's array ({HANDOFF_SIZE:,} float32; {rounds} rounds, medians)",
        ["statement", "us", "numpy us", "ratio", "ratio quartiles", "difference us"],
        rows,
    )
    return found


# ------------------------------------------------------------------------------ the general path
class Forwarding:
    """A DLPack producer dlarray has no rule for: it only forwards ``__dlpack__`` and
    ``__dlpack_device__`` to a numpy array, so every consumer reads it through a capsule (what
    cupy, pyarrow, tvm-ffi, paddle or a C library's object are to dlarray)."""

    def __init__(self, array: np.ndarray) -> None:
        self.array = array

    def __dlpack__(self, *, stream: Any = None, max_version: Any = None, dl_device: Any = None, copy: Any = None) -> Any:
        return self.array.__dlpack__(stream=stream, max_version=max_version, dl_device=dl_device, copy=copy)

    def __dlpack_device__(self) -> tuple[int, int]:
        return self.array.__dlpack_device__()  # type: ignore[no-any-return]


# The floor: a minimal ctypes consumer doing only what consuming a capsule requires (the producer
# call, the name check, PyCapsule_GetPointer, the header and shape read, PyCapsule_SetName, an
# owner whose finalizer calls the deleter, a slotted result). No claim against a second consumer,
# no validation beyond the version, ndim and lanes, no interrupt safety: what dlarray's general
# path costs above it is the price of those, or of Python where the floor is leaner.
_api = ctypes.PyDLL(None, handle=ctypes.pythonapi._handle)
_floor_get_name = _api.PyCapsule_GetName
_floor_get_name.argtypes, _floor_get_name.restype = [ctypes.py_object], ctypes.c_char_p
_floor_get_pointer = _api.PyCapsule_GetPointer
_floor_get_pointer.argtypes, _floor_get_pointer.restype = [ctypes.py_object, ctypes.c_char_p], ctypes.c_void_p
_floor_set_name = _api.PyCapsule_SetName
_floor_set_name.argtypes, _floor_set_name.restype = [ctypes.py_object, ctypes.c_char_p], ctypes.c_int
_FLOOR_USED = ctypes.create_string_buffer(b"used_dltensor_versioned")
_FLOOR_MEMORY = memoryview((ctypes.c_char * sys.maxsize).from_address(0)).toreadonly()
# DLManagedTensorVersioned: version, manager_ctx, deleter, flags, then the DLTensor
_FLOOR_HEADER = struct.Struct("@IIPPQPiiiBBHPPQ").unpack_from
_FLOOR_INT64 = struct.Struct("@q").unpack_from
_FLOOR_DELETER = ctypes.PYFUNCTYPE(None, ctypes.c_void_p)
_floor_deleters: dict[int, Any] = {}
_FLOOR_VERSION = (1, 3)


class _FloorOwner(functools.partial):  # type: ignore[type-arg]
    """Calls the deleter when freed: ``partial.__call__`` as the finalizer."""

    __slots__ = ()
    __del__ = functools.partial.__call__


class FloorArray:
    """The floor's result: a slotted object over the tensor."""

    __slots__ = ("owner", "data", "shape", "strides", "dtype_code", "dtype_bits", "flags")


def floor_import(x: Any, capsule: Any = None) -> FloorArray:
    """The floor consumer: ``x.__dlpack__()``'s capsule (or ``capsule``, given) as a FloorArray."""
    if capsule is None:
        capsule = x.__dlpack__(max_version=_FLOOR_VERSION)
    if _floor_get_name(capsule) != b"dltensor_versioned":
        raise BufferError("not an unused versioned DLPack capsule")
    managed = _floor_get_pointer(capsule, b"dltensor_versioned")
    (major, _minor, _ctx, deleter, flags, data, _device_type, _device_id, ndim, code, bits, lanes, shape,
     strides, byte_offset) = _FLOOR_HEADER(_FLOOR_MEMORY, managed)
    if major != 1 or ndim != 1 or lanes != 1:
        raise BufferError("the floor reads 1-D tensors of DLPack 1.x, lanes 1")
    shape = _FLOOR_INT64(_FLOOR_MEMORY, shape)
    strides = _FLOOR_INT64(_FLOOR_MEMORY, strides) if strides else (1,)
    _floor_set_name(capsule, _FLOOR_USED)
    function = _floor_deleters.get(deleter)
    if function is None:
        function = _floor_deleters[deleter] = _FLOOR_DELETER(deleter)
    result = _new_floor(FloorArray)
    result.owner = _FloorOwner(function, managed)
    result.data = data + byte_offset
    result.shape = shape
    result.strides = strides
    result.dtype_code = code
    result.dtype_bits = bits
    result.flags = flags
    return result


# (label, statement): the general path, the floor and numpy's C consumer on the same producer ``p``
# (a Forwarding over numpy's array ``a``), then a raw capsule: a temporary (the producer call in the
# statement, no other reference), and one the caller holds in a variable while it is imported.
GENERAL = [
    ("dlarray.from_dlpack(producer)", "dl_from(p)"),
    ("floor(producer)", "floor_import(p)"),
    ("numpy.from_dlpack(producer)", "np_from(p)"),
    ("dlarray.from_dlpack(capsule)", "dl_from(a.__dlpack__(max_version=V))"),
    ("floor(capsule)", "floor_import(None, a.__dlpack__(max_version=V))"),
    ("dlarray.from_dlpack(held capsule)", "c = a.__dlpack__(max_version=V); dl_from(c)"),
    ("floor(held capsule)", "c = a.__dlpack__(max_version=V); floor_import(None, c)"),
]
# (target, numerator, denominator, bound): each ratio is the median over rounds of the two
# statements' times in that round
GENERAL_TARGETS = [
    ("general path: from_dlpack(producer) / floor(producer)", "dlarray.from_dlpack(producer)", "floor(producer)", 1.25),
    ("general path: from_dlpack(capsule) / floor(capsule)", "dlarray.from_dlpack(capsule)", "floor(capsule)", 1.25),
    ("general path: from_dlpack(held capsule) / floor(held capsule)", "dlarray.from_dlpack(held capsule)",
     "floor(held capsule)", 1.25),
    ("stretch: from_dlpack(producer) / numpy.from_dlpack(producer)", "dlarray.from_dlpack(producer)",
     "numpy.from_dlpack(producer)", 3.0),
]


def run_general(quick: bool) -> dict[str, Any]:
    """Time ``GENERAL`` in the same rounds on one buffer of ``HANDOFF_SIZE`` float32 (an import is
    zero-copy: its cost does not depend on the size); the medians and minima per call, and each
    pair of ``GENERAL_TARGETS`` compared round by round (``_harness.against``)."""
    a = np.ones(HANDOFF_SIZE, dtype=np.float32)
    ns = {"a": a, "p": Forwarding(a), "V": _FLOOR_VERSION, "dl_from": dlarray.from_dlpack, "np_from": np.from_dlpack,
          "floor_import": floor_import}
    rounds, min_time = (11, 0.002) if quick else (201, 0.005)
    samples, _ = sample_rounds([(stmt, ns) for _, stmt in GENERAL], rounds, min_time)
    times = {label: per_call for (label, _), per_call in zip(GENERAL, samples)}
    pairs = {name: against(times[numerator], times[denominator]) for name, numerator, denominator, _ in GENERAL_TARGETS}
    rows = [[label, fmt(statistics.median(times[label])), fmt(min(times[label])), "", ""] for label, _ in GENERAL]
    rows += [[name, fmt(timed.us), fmt(timed.reference_us), fmt(timed.ratio),
              f"{fmt(timed.ratio_quartiles[0])}-{fmt(timed.ratio_quartiles[1])}"] for name, timed in pairs.items()]
    print_table(
        f"The general path: a producer dlarray has no rule for, a raw capsule ({HANDOFF_SIZE:,} float32; "
        f"{rounds} rounds, medians)",
        ["statement / ratio", "us (median)", "min us / denominator us", "ratio", "ratio quartiles"],
        rows,
    )
    return {
        "rounds": rounds,
        "statements": {label: stmt for label, stmt in GENERAL},
        "median_us": {label: statistics.median(per_call) for label, per_call in times.items()},
        "min_us": {label: min(per_call) for label, per_call in times.items()},
        "ratios": {name: asdict(timed) for name, timed in pairs.items()},
    }


# ------------------------------------------------------------------------------ the C exchange API
# Publishers of ``__dlpack_c_exchange_api__`` besides torch, from PyPI (the ``exchange`` extra),
# over the same numpy buffer: ``make(a)`` gives the publisher's object, ``peer`` its library's own
# from_dlpack reading it. Each is read four ways in the same rounds: dlarray through the exchange
# API, dlarray through its ``__dlpack__`` (a Forwarding wrapper: the general path), numpy's C
# consumer, and the peer.
def _publishers() -> dict[str, tuple[Callable[[np.ndarray], Any], Callable[[Any], Any]]]:
    found: dict[str, tuple[Callable[[np.ndarray], Any], Callable[[Any], Any]]] = {}
    try:
        from cuda.core.utils import StridedMemoryView
    except Exception:  # noqa: BLE001 - not installed, or no usable cuda-bindings
        pass
    else:
        found["cuda-core StridedMemoryView"] = (
            functools.partial(StridedMemoryView.from_dlpack, stream_ptr=-1),
            functools.partial(StridedMemoryView.from_dlpack, stream_ptr=-1),
        )
    try:
        import tvm_ffi
        from tvm_ffi.core import DLTensorTestWrapper
    except Exception:  # noqa: BLE001
        pass
    else:
        found["tvm-ffi DLTensorTestWrapper"] = (lambda a: DLTensorTestWrapper(tvm_ffi.from_dlpack(a)), tvm_ffi.from_dlpack)
    return found


EXCHANGE_PUBLISHERS = ["cuda-core StridedMemoryView", "tvm-ffi DLTensorTestWrapper"]
EXCHANGE = [
    ("dlarray.from_dlpack (exchange API)", "dl_from(o)"),
    ("dlarray.from_dlpack (its __dlpack__)", "dl_from(f)"),
    ("numpy.from_dlpack", "np_from(o)"),
    ("peer's own from_dlpack", "peer(o)"),
]


def _distribution_versions(names: list[str]) -> dict[str, str | None]:
    """Installed versions of the named distributions (None where one is not installed)."""
    from importlib import metadata

    found: dict[str, str | None] = {}
    for name in names:
        try:
            found[name] = metadata.version(name)
        except metadata.PackageNotFoundError:
            found[name] = None
    return found


def _exchange_target(publisher: str) -> str:
    return f"exchange API: from_dlpack({publisher}) / from_dlpack(its __dlpack__)"


def run_exchange(quick: bool) -> dict[str, Any]:
    """Time ``EXCHANGE`` for each installed publisher in the same rounds on one buffer of
    ``HANDOFF_SIZE`` float32; the medians, and the exchange path compared round by round with the
    general path, numpy's consumer and the peer's own from_dlpack."""
    a = np.ones(HANDOFF_SIZE, dtype=np.float32)
    rounds, min_time = (11, 0.002) if quick else (201, 0.005)
    report: dict[str, Any] = {"rounds": rounds, "statements": dict(EXCHANGE), "publishers": {},
                              "versions": _distribution_versions(["cuda-core", "cuda-bindings", "apache-tvm-ffi"])}
    rows = []
    publishers = _publishers()
    for publisher in EXCHANGE_PUBLISHERS:
        if publisher not in publishers:
            report["publishers"][publisher] = {"error": "not installed (pip install dlarray[exchange])"}
            rows.append([publisher, "not installed", "", "", ""])
            continue
        make, peer = publishers[publisher]
        obj = make(a)
        ns = {"o": obj, "f": Forwarding(obj), "dl_from": dlarray.from_dlpack, "np_from": np.from_dlpack, "peer": peer}
        samples, _ = sample_rounds([(stmt, ns) for _, stmt in EXCHANGE], rounds, min_time)
        times = {label: per_call for (label, _), per_call in zip(EXCHANGE, samples)}
        fast = times[EXCHANGE[0][0]]
        pairs = {label: against(fast, times[label]) for label, _ in EXCHANGE[1:]}
        for label, _ in EXCHANGE:
            timed = pairs.get(label)
            rows.append([f"{publisher}: {label}", fmt(statistics.median(times[label])), fmt(min(times[label])),
                         fmt(timed.ratio) if timed else "",
                         f"{fmt(timed.ratio_quartiles[0])}-{fmt(timed.ratio_quartiles[1])}" if timed else ""])
        report["publishers"][publisher] = {
            "median_us": {label: statistics.median(per_call) for label, per_call in times.items()},
            "min_us": {label: min(per_call) for label, per_call in times.items()},
            "exchange_over": {label: asdict(timed) for label, timed in pairs.items()},
        }
    print_table(
        f"The C exchange API of other publishers ({HANDOFF_SIZE:,} float32; {rounds} rounds, medians; "
        f"ratio: the exchange path's time over the row's)",
        ["publisher: statement", "us (median)", "min us", "exchange / this", "ratio quartiles"],
        rows,
    )
    return report


# Tensors of other ranks (the sizes above are vectors): the import's checks grow with ndim.
SHAPES = [(), (3, 4), (2, 3, 4), (8, 3, 32, 32)]
SHAPE_OPS = [
    ("dlarray.from_dlpack(torch)", "dl_from(t)"),
    (ANCHOR, "np_from(t)"),
    ("dlarray.from_dlpack(numpy)", "dl_from(a)"),
]


def run_shapes(settings: Settings, peers: dict[str, Any]) -> dict[str, dict[str, float | None]] | None:
    """Import latency of torch and numpy tensors of several ranks, and the ratio to the anchor.

    Shown, not a target of issue 4 (whose sizes are vectors): the import's bound test for an
    n-dimensional tensor is one cached lookup, so these should stay near the vector's ratio.
    """
    torch = peers["torch"]
    if torch is None:
        return None
    jobs = []
    for shape in SHAPES:
        ns = {"dl_from": dlarray.from_dlpack, "np_from": np.from_dlpack,
              "t": torch.ones(shape, dtype=torch.float32), "a": np.ones(shape, dtype=np.float32)}
        jobs += [(label, str(shape), stmt, ns) for label, stmt in SHAPE_OPS]
    results = Results()
    results.run(jobs, settings)
    table = {}
    for shape in SHAPES:
        case = str(shape)
        times = {label: results.median(label, case) for label, _ in SHAPE_OPS}
        table[case] = {**times, "torch / anchor": ratio(times["dlarray.from_dlpack(torch)"], times[ANCHOR]),
                       "numpy / anchor": ratio(times["dlarray.from_dlpack(numpy)"], times[ANCHOR])}
    columns = [label for label, _ in SHAPE_OPS] + ["torch / anchor", "numpy / anchor"]
    print_table(
        "Import by shape (float32, median us; ratios to the anchor for the same shape; not targets)",
        ["shape"] + columns,
        [[case] + [fmt(row[c]) for c in columns] for case, row in table.items()],
    )
    return table


# ------------------------------------------------------------------------------------ memory
def _rss_bytes() -> int:
    """Resident set size now (/proc/self/statm), or the peak RSS where there is no /proc."""
    try:
        with open("/proc/self/statm") as statm:
            return int(statm.read().split()[1]) * os.sysconf("SC_PAGE_SIZE")
    except OSError:
        scale = 1 if sys.platform == "darwin" else 1024  # ru_maxrss: bytes on macOS, KiB elsewhere
        return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss * scale


def _mib_per_call(make: Callable[[], Any], count: int) -> float:
    """Resident MiB added per result of ``make`` while ``count`` results are kept alive."""
    gc.collect()
    before = _rss_bytes()
    kept = [make() for _ in range(count)]
    added = _rss_bytes() - before
    del kept
    gc.collect()
    return added / count / MIB


def run_memory(nbytes: int, count: int, peers: dict[str, Any]) -> dict[str, Any]:
    """Resident memory added by importing an ``nbytes`` buffer ``count`` times, against copying it."""
    size = nbytes // 4
    torch, a = peers["torch"], np.ones(size, dtype=np.float32)
    t = torch.ones(size, dtype=torch.float32) if torch else None
    raw = bytes(nbytes)
    cases: dict[str, Callable[[], Any]] = {
        "dlarray.from_dlpack(numpy)": lambda: dlarray.from_dlpack(a),
        "dlarray.from_dlpack(torch)": lambda: dlarray.from_dlpack(t),
        "dlarray.asarray(bytes)": lambda: dlarray.asarray(raw),
        "numpy.from_dlpack(torch)": lambda: np.from_dlpack(t),
        "numpy copy (a.copy())": lambda: a.copy(),
    }
    per_import: dict[str, float | None] = {}
    errors: dict[str, str] = {}
    for label, make in cases.items():
        try:
            per_import[label] = _mib_per_call(make, count)
        except Exception as error:
            per_import[label] = None
            errors[label] = f"{type(error).__name__}: {error}".splitlines()[0][:200]
    rows = [[label, fmt(mib, 4)] for label, mib in per_import.items()]
    print_table(
        f"Resident memory added per import of a {nbytes / 1e6:.0f} MB buffer ({count} kept alive)",
        ["operation", "MiB / import"],
        rows,
    )
    for label, message in errors.items():
        print(f"  {label}: {message}")
    return {"buffer_bytes": nbytes, "imports": count, "mib_per_import": per_import, "errors": errors}


# ------------------------------------------------------------------------------------ targets
def _per_size_ratio(results: Results, sizes: list[int], numerator: str, denominator: str) -> dict[str, float | None]:
    return {str(n): ratio(results.median(numerator, str(n)), results.median(denominator, str(n))) for n in sizes}


def _flatness(results: Results, sizes: list[int], label: str) -> float | None:
    """max/min of an operation's latency over all sizes (None if any size is n/a)."""
    values = [results.median(label, str(n)) for n in sizes]
    if any(v is None for v in values) or len(values) < 2:
        return None
    return max(values) / min(values)  # type: ignore[type-var,operator]


def targets(
    results: Results, sizes: list[int], memory: dict[str, Any] | None,
    handoffs: dict[str, dict[str, Against] | str], general: dict[str, Any] | None = None,
    exchange: dict[str, Any] | None = None,
) -> list[Target]:
    """The targets. An import's ratio per size must hold at every size: the worst size decides. A
    hand-off's is the median over rounds of its ratio to numpy's (``run_handoffs``); the ratio
    per size of the sweep is shown beside it. Those of ``FLOOR_RELATIVE`` are the Array's median
    (for the slice: its median overhead over numpy's) over the floor's, timed in the same rounds.
    The general path's are the median over rounds of each pair's ratio (``run_general``)."""
    found = []
    for name, numerator, denominator, op, bound in [
        ("from_dlpack(numpy) / anchor", "dlarray.from_dlpack(numpy)", ANCHOR, "<=", 1.0),
        ("from_dlpack(torch) / anchor", "dlarray.from_dlpack(torch)", ANCHOR, "<=", 1.0),
        ("numpy.from_dlpack(dlarray) / anchor", "numpy.from_dlpack(dlarray)", ANCHOR, "<=", 1.0),
        ("pydlpack(bytes) / dlarray.asarray(bytes)", "pydlpack.asdlpack(bytes)", "dlarray.asarray(bytes)", ">=", 10.0),
    ]:
        per_size = _per_size_ratio(results, sizes, numerator, denominator)
        found.append(Target(name, worst(per_size.values(), op), op, bound, per_size))
    # hand-offs: the consumer reading the Array against the same consumer reading numpy's array
    for name, _, bound, (numerator, denominator) in HANDOFF_TARGETS:
        timed = handoffs.get(name)
        if name in FLOOR_RELATIVE:  # no floor in the size sweep: no ratio per size
            value = ratio(timed["dlarray"].us, timed["floor"].us) if isinstance(timed, dict) else None
            found.append(Target(name, value, "<=", bound))
            continue
        per_size = _per_size_ratio(results, sizes, numerator, denominator)
        found.append(Target(name, timed["dlarray"].ratio if isinstance(timed, dict) else None, "<=", bound, per_size))
    # a slice's cost over numpy's (a Python method around numpy's slice) against the floor's
    name, _, bound, _ = SLICE_TARGET
    timed = handoffs.get(name)
    value = ratio(timed["dlarray"].difference_us, timed["floor"].difference_us) if isinstance(timed, dict) else None
    found.append(Target(name, value, "<=", bound))
    for name, _, _, bound in GENERAL_TARGETS:
        paired = (general or {}).get("ratios", {}).get(name)
        found.append(Target(name, paired["ratio"] if paired else None, "<=", bound))
    for publisher in EXCHANGE_PUBLISHERS:  # the exchange path no slower than the publisher's own __dlpack__
        timed = (exchange or {}).get("publishers", {}).get(publisher, {}).get("exchange_over", {})
        general_pair = timed.get(EXCHANGE[1][0])
        found.append(Target(_exchange_target(publisher), general_pair["ratio"] if general_pair else None, "<=", 1.0))
    for label in DLARRAY_IMPORTS:
        found.append(Target(f"import flatness max/min: {label}", _flatness(results, sizes, label), "<=", 1.3))
    if memory is not None:
        dl = {k: v for k, v in memory["mib_per_import"].items() if k.startswith("dlarray.")}
        # Zero copy: nothing but a few small Python objects per import, far below one MiB.
        found.append(Target(f"MiB per {memory['buffer_bytes'] / 1e6:.0f} MB import (0)", worst(dl.values(), "<="), "<=", 0.5, dl, "MiB"))
    return found


# ------------------------------------------------------------------------------------ output
def print_latency(results: Results, labels: list[str], sizes: list[int], main_count: int) -> None:
    header = ["operation (median us)"] + [f"{n:,}" for n in sizes]
    rows = [[label] + [fmt(results.median(label, str(n))) for n in sizes] for label in labels]
    print_table("DLPack latency, float32, microseconds", header, rows[:main_count])
    if len(rows) > main_count:
        print_table("Peers (--compare), microseconds", header, rows[main_count:])
    for label, message in results.errors.items():
        print(f"  n/a {label}: {message}")


def print_ratios(found: list[Target], sizes: list[int]) -> None:
    per_size = [t for t in found if t.detail and t.unit == ""]
    header = ["ratio"] + [f"{n:,}" for n in sizes]
    rows = [[t.name] + [fmt(t.detail.get(str(n))) for n in sizes] for t in per_size]
    print_table("Ratios per size", header, rows)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--quick", action="store_true", help="two sizes, short repeats (a smoke run)")
    parser.add_argument("--compare", action="store_true", help="also time numpy, torch, jax, array-api-strict, pydlpack")
    parser.add_argument("--memory", action="store_true", help="resident memory added per 400 MB import")
    parser.add_argument("--out", type=Path, default=RESULTS_DIR, help="folder for dlpack.json and the plot")
    args = parser.parse_args(argv)

    settings = Settings.for_mode(args.quick)
    sizes = QUICK_SIZES if args.quick else FULL_SIZES
    peers = _peers(args.compare)
    results, labels = run_latency(sizes, settings, peers, args.compare)
    main_count = len(MAIN_IMPORTS + MAIN_EXPORTS + MAIN_HANDOFFS + MAIN_BYTES)
    print_latency(results, labels, sizes, main_count)

    shapes = run_shapes(settings, peers)
    handoffs = run_handoffs(peers, args.quick)
    general = run_general(args.quick)
    exchange = run_exchange(args.quick)

    memory = None
    if args.memory:
        # A 40 MB buffer in a quick run keeps it quick; the target is per import either way.
        memory = run_memory(40_000_000 if args.quick else 400_000_000, 10, peers)

    found = targets(results, sizes, memory, handoffs, general, exchange)
    print_ratios(found, sizes)
    print_targets(found)

    modules = ["dlarray", "numpy", "torch", "dlpack"] + (["jax", "array_api_strict"] if args.compare else [])
    write_json(
        args.out / "dlpack.json",
        {
            "benchmark": "dlpack",
            "unit": "microseconds (median per call)",
            "dtype": "float32",
            "sizes": sizes,
            "environment": environment(settings, args.quick, modules),
            "anchor": ANCHOR,
            "operations": labels,
            "timings": results.as_dict(),
            "errors": results.errors,
            "memory": memory,
            "shapes": shapes,
            "handoffs": {name: {who: asdict(t) for who, t in timed.items()} if isinstance(timed, dict)
                         else {"error": timed} for name, timed in handoffs.items()},
            "general": general,
            "exchange": exchange,
            "targets": {t.name: t.as_dict() for t in found},
        },
    )
    render("dlpack", args.out)  # dlpack_latency.png, drawn from the JSON just written
    return 0


if __name__ == "__main__":
    sys.exit(main())
