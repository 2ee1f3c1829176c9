#!/usr/bin/env python
"""Long reliability runs of dlarray's DLPack core: exactly-once deleters, no leak, threads.

Run ``python tests/stress/stress.py`` for the full sizes (1e5 mixed imports, 3e5
import/export/capsule cycles with a resident-memory check, 8 threads for 10 s) or add ``--quick``
for a run of a few seconds. Each check prints ``PASS``/``FAIL``/``SKIP`` with its numbers, then a
summary line; the exit status is 1 if any check failed.

The checks:

``exactly-once``
    Imports mixing versioned and legacy capsules, producer objects (with ``__dlpack__`` or the C
    exchange API), views, slices, exports that are consumed (by dlarray, numpy, torch) or dropped,
    refused capsules, unknown major versions, double consumption, copies and reference cycles.
    Every test-producer tensor must see its deleter exactly once, none a second time, and none may
    be left alive at the end.
``rss``
    Import/export/capsule cycles (numpy, legacy and versioned capsules, the ctypes test producer,
    torch through its C exchange API, read-only buffers, reference cycles): resident memory may grow by less than 4 MiB over
    the run after a warm-up, and no dlarray object may be left behind.
``tracemalloc``
    The same cycles under tracemalloc, filtered on dlarray's own files: their allocations may not
    grow (less than 32 KiB over the run).
``threads``
    8 threads importing, viewing, exporting, computing and freeing concurrently, handing arrays to
    each other so that buffers are freed on other threads than the one that imported them, with a
    tiny switch interval. No error, and every buffer (test producer, numpy, torch) released.
``exit``
    Child interpreters that exit with arrays, exports, cycles, shutdown hooks and daemon threads
    still importing and freeing (``tests/exit_scenarios.py``), run many times, four at once, so
    that shutdown races show up. Every child must exit cleanly.
``interrupts``
    Imports of every kind (capsules, refused ones, unknown major versions, producer objects, the C
    exchange API, numpy capsules, torch tensors, bytearrays, memoryviews, ``__array_interface__``,
    a structured array's field that only a copy can hold) in a loop while an interval timer (20 to 160 us) raises KeyboardInterrupt whenever a dlarray
    frame runs, as Ctrl-C does. After each batch, with the timer paused: every tensor's deleter ran exactly
    once, no claim outlived its import (an unconsumed capsule imports), every buffer export was
    released (the bytearray grows, the memoryview is released), every numpy array and torch
    tensor was let go, and no interrupt was lost in a finalizer ("Exception ignored").

Under valgrind (detected from its preloaded libraries) the sizes shrink further and the RSS check
is skipped: valgrind's own memory makes it meaningless there.

``--json PATH`` also writes the verdicts with the sizes, the date, the commit, the machine and the
versions they were measured with; the docs' safety page is built from ``docs/results/stress.json``
(``make stress`` writes it).
"""

from __future__ import annotations

import argparse
import gc
import json
import os
import random
import signal
import sys
import tempfile
import threading
import time
import tracemalloc
import weakref
from collections import deque
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, ClassVar

TESTS = Path(__file__).resolve().parent.parent
if str(TESTS) not in sys.path:
    sys.path.insert(0, str(TESTS))

sys.path.insert(0, str(TESTS.parent / "benchmarks"))
try:  # one way to name the commit measured, shared by the benchmark, stress and conformance results
    from _harness import run_context
finally:
    sys.path.remove(str(TESTS.parent / "benchmarks"))

import exit_scenarios
import numpy as np
import producer

import dlarray
from dlarray._dlpack import FLAG_READ_ONLY, consume_capsule
from dlarray.testing._capsules import capsule_name

try:
    import torch
except ImportError:  # pragma: no cover - torch is in the test extra
    torch = None

DLARRAY_DIR = str(Path(dlarray.__file__).resolve().parent)
MiB = 1 << 20

# (code, bits, numpy dtype or None, torch dtype name or None)
DTYPES = [
    (2, 32, "float32", "float32"),
    (2, 64, "float64", "float64"),
    (0, 8, "int8", "int8"),
    (0, 64, "int64", "int64"),
    (1, 16, "uint16", "uint16"),
    (6, 8, "bool", "bool"),
    (5, 64, "complex64", "complex64"),
    (4, 16, None, "bfloat16"),
    (10, 8, None, "float8_e4m3fn"),
]


def under_valgrind() -> bool:
    """True when this process runs under valgrind (its preload libraries are mapped)."""
    try:
        with open("/proc/self/maps") as maps:
            return "vgpreload" in maps.read()
    except OSError:
        return False


def rss_bytes() -> int:
    """Resident set size now (Linux: /proc/self/statm; elsewhere the peak, which only grows)."""
    try:
        with open("/proc/self/statm") as statm:
            return int(statm.read().split()[1]) * os.sysconf("SC_PAGE_SIZE")
    except OSError:  # pragma: no cover - not Linux
        import resource

        return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss * 1024


def live_dlarray_objects() -> int:
    """How many dlarray-owned objects (arrays, owners, host views, buffer holds) are alive."""
    from dlarray._array import Array
    from dlarray._backend import HostBuffer
    from dlarray._dlpack import ImportedTensor
    from dlarray._interfaces import BufferHold

    kinds = (Array, ImportedTensor, HostBuffer, BufferHold)
    return sum(1 for obj in gc.get_objects() if type(obj) in kinds)


@dataclass
class Outcome:
    """The verdict of one check."""

    name: str
    ok: bool | None  # None: skipped
    detail: str
    seconds: float = 0.0
    problems: list[str] = field(default_factory=list)


# ----------------------------------------------------------------------------- exactly once


def _fresh(rng: random.Random, **extra: Any) -> tuple[producer.Made, tuple]:
    """A well-formed test-producer tensor with random geometry, dtype, version and read-only flag."""
    dtype = rng.choice(DTYPES)
    ndim = rng.randrange(0, 4)
    shape = tuple(rng.randrange(0, 5) for _ in range(ndim))
    strides = None
    if ndim == 2 and rng.random() < 0.3:
        strides = (1, shape[0])  # column-major, same buffer size
    flags = FLAG_READ_ONLY if rng.random() < 0.2 else 0
    options = {"shape": shape, "strides": strides, "code": dtype[0], "bits": dtype[1],
               "flags": flags, "versioned": rng.random() < 0.5}
    options.update(extra)
    return producer.make_capsule(**options), dtype


def _op_unconsumed(rng, keep, serials):
    made, _ = _fresh(rng)
    serials.append(made.serial)
    del made  # the capsule's destructor hands the tensor back to its producer


def _op_view(rng, keep, serials):
    made, _ = _fresh(rng)
    serials.append(made.serial)
    x = dlarray.from_dlpack(made.capsule)
    keep.append(x[1:] if x.ndim else x)


def _op_producer_object(rng, keep, serials):
    dtype = rng.choice(DTYPES)
    source = producer.Producer(legacy_only=rng.random() < 0.5, shape=(3, 2), code=dtype[0], bits=dtype[1])
    x = dlarray.from_dlpack(source)
    serials.extend(m.serial for m in source.made)
    keep.append(x.T)


def _op_export_consumed(rng, keep, serials):
    made, _ = _fresh(rng)
    serials.append(made.serial)
    x = dlarray.from_dlpack(made.capsule)
    y = dlarray.from_dlpack(x.__dlpack__(max_version=(1, 3)))
    assert y.shape == x.shape and y.data_ptr == x.data_ptr
    keep.append(y)


def _op_export_dropped(rng, keep, serials):
    made, _ = _fresh(rng)
    serials.append(made.serial)
    x = dlarray.from_dlpack(made.capsule)
    x.__dlpack__(max_version=(1, 3))
    try:
        x.__dlpack__()
    except BufferError:
        assert x.readonly  # only a read-only array refuses a legacy export


def _op_numpy_consumer(rng, keep, serials):
    made, dtype = _fresh(rng)
    serials.append(made.serial)
    x = dlarray.from_dlpack(made.capsule)
    view = x[::-1] if x.ndim else x
    if dtype[2] is None:
        try:
            np.from_dlpack(view)
        except (BufferError, TypeError, ValueError, RuntimeError):
            pass  # numpy has no such dtype: its error, our capsule cleaned up
        return
    n = np.from_dlpack(view)
    assert n.shape == view.shape
    keep.append(n)


def _op_torch_consumer(rng, keep, serials):
    made, dtype = _fresh(rng)
    serials.append(made.serial)
    x = dlarray.from_dlpack(made.capsule)
    if torch is None or dtype[3] is None:
        keep.append(x)
        return
    t = torch.from_dlpack(x)
    assert tuple(t.shape) == x.shape
    keep.append(t)
    back = dlarray.from_dlpack(t)
    assert back.data_ptr == x.data_ptr or x.size == 0
    keep.append(back)


def _op_refused(rng, keep, serials):
    bad = rng.choice([{"lanes": 2}, {"ndim": -1}, {"code": 99}, {"device": (99, 0)}, {"null_shape": True}])
    made = producer.make_capsule((2, 3), versioned=rng.random() < 0.5, **bad)
    serials.append(made.serial)
    try:
        dlarray.from_dlpack(made.capsule)
    except BufferError:
        return
    raise AssertionError(f"malformed capsule {bad} was accepted")


def _op_unknown_major(rng, keep, serials):
    made = producer.make_capsule((2,), version=(rng.choice([0, 2, 7]), 0))
    serials.append(made.serial)
    try:
        dlarray.from_dlpack(made.capsule)
    except BufferError:
        assert made.deleted == 1
        return
    raise AssertionError("unknown major version accepted")


def _op_double_consume(rng, keep, serials):
    made, _ = _fresh(rng)
    serials.append(made.serial)
    x = dlarray.from_dlpack(made.capsule)
    try:
        dlarray.from_dlpack(made.capsule)
    except BufferError:
        keep.append(x)
        return
    raise AssertionError("a capsule was consumed twice")


def _op_copy(rng, keep, serials):
    source = producer.Producer(shape=(4,), code=2, bits=32)
    x = dlarray.from_dlpack(source, copy=True)
    serials.extend(m.serial for m in source.made)
    keep.append(x)


def _op_chain(rng, keep, serials):
    made = producer.make_capsule((4, 6), versioned=rng.random() < 0.5)
    serials.append(made.serial)
    x = dlarray.from_dlpack(made.capsule)
    y = dlarray.reshape(x.T[::2], (-1,)) if rng.random() < 0.5 else x.mT[1:, ::-1]
    info, owner = consume_capsule(y.__dlpack__(max_version=(1, 3)))
    assert info.shape == y.shape
    keep.append(owner)


def _op_cycle(rng, keep, serials):
    made, _ = _fresh(rng)
    serials.append(made.serial)
    x = dlarray.from_dlpack(made.capsule)
    cycle: list[Any] = [x, x.__dlpack__(max_version=(1, 3))]
    cycle.append(cycle)  # only the cyclic collector frees this one


def _op_exchange_api(rng, keep, serials):
    # the C exchange API: the struct arrives without a capsule; off the CPU it is let go and
    # __dlpack__ asked instead; a malformed one is refused and deleted at once
    fields = rng.choice([{}, {"device": (2, 0)}, {"lanes": 2}, {"version": (2, 0)}, {"flags": FLAG_READ_ONLY}])
    source = producer.ExchangeProducer(shape=(3, 4), **fields)
    try:
        x = dlarray.from_dlpack(source)
        keep.append(x[::2])
    except BufferError:
        assert "lanes" in fields or "version" in fields
    serials.extend(m.serial for m in source.exchanged + source.made)


MIXED_OPS: list[Callable[..., None]] = [
    _op_unconsumed, _op_view, _op_producer_object, _op_export_consumed, _op_export_dropped,
    _op_numpy_consumer, _op_torch_consumer, _op_refused, _op_unknown_major, _op_double_consume,
    _op_copy, _op_chain, _op_cycle, _op_exchange_api,
]


#: Objects kept on purpose by ``--inject-fault`` (a self-test of the checks: they must fail).
_INJECTED: list[Any] = []


def exactly_once(count: int, seed: int = 0, inject_fault: bool = False) -> Outcome:
    """``count`` mixed imports; every deleter must run exactly once and nothing stay alive."""
    rng = random.Random(seed)
    baseline = producer.alive_count()
    doubles_before = len(producer.double_deletes)
    keep: deque[Any] = deque(maxlen=97)  # some objects live a while: frees come out of order
    serials: list[int] = []
    wrong: list[int] = []
    start = time.perf_counter()
    for i in range(count):
        rng.choice(MIXED_OPS)(rng, keep, serials)
        if inject_fault and i == count // 2:  # an import whose array is never let go
            made = producer.make_capsule((2,))
            serials.append(made.serial)
            _INJECTED.append(dlarray.from_dlpack(made.capsule))
        if i % 5000 == 4999:
            keep.clear()
            gc.collect()
            wrong += producer.settle(serials)
            serials.clear()
    keep.clear()
    gc.collect()
    wrong += producer.settle(serials)
    elapsed = time.perf_counter() - start
    # (negative if tensors made before this run were freed meanwhile: not this run's business)
    left = max(0, producer.alive_count() - baseline)
    doubles = len(producer.double_deletes) - doubles_before
    problems = []
    if wrong:
        problems.append(f"{len(wrong)} tensors whose deleter did not run exactly once")
    if left:
        problems.append(f"{left} tensors still alive")
    if doubles:
        problems.append(f"{doubles} deleter calls on already-deleted tensors")
    detail = f"{count} mixed imports; deleters exactly once, 0 alive, 0 double deletes"
    return Outcome("exactly-once", not problems, "; ".join(problems) or detail, elapsed, problems)


# ----------------------------------------------------------------------------- leak cycles

_READONLY_BYTES = b"read-only bytes!" * 4


def cycle_once(i: int) -> None:
    """One import/export/capsule cycle touching every ownership path."""
    a = np.arange(16.0).reshape(4, 4)
    x = dlarray.from_dlpack(a.__dlpack__(max_version=(1, 3)))  # versioned capsule
    y = dlarray.from_dlpack(a.__dlpack__())  # legacy capsule: imported read-only
    v = x[1:, ::2]
    n = np.from_dlpack(v)  # export consumed by numpy
    assert n.shape == (3, 2)
    v.__dlpack__(max_version=(1, 3))  # export dropped unconsumed
    x.__dlpack__()  # legacy export dropped unconsumed
    y.__dlpack__(copy=True)  # a read-only array's legacy export: a copy
    made = producer.make_capsule((3, 4), versioned=bool(i & 1), code=4 if i % 3 == 0 else 2,
                                 bits=16 if i % 3 == 0 else 32)
    z = dlarray.from_dlpack(made.capsule)
    w = dlarray.from_dlpack(z.T.__dlpack__(max_version=(1, 3)))
    assert w.shape == (4, 3)
    serial = made.serial
    del made, z, w
    ro = dlarray.asarray(_READONLY_BYTES)
    info, owner = consume_capsule(ro.__dlpack__(max_version=(1, 3)))
    assert info.readonly
    del owner
    if torch is not None:
        t = torch.from_dlpack(v)
        back = dlarray.from_dlpack(torch.arange(4.0) + i)
        assert back.shape == (4,) and t.shape == (3, 2)
    cyc: list[Any] = [x, x.__dlpack__(max_version=(1, 3))]
    cyc.append(cyc)
    if producer.settle([serial]):
        raise AssertionError(f"test-producer tensor {serial}: deleter did not run exactly once")


def rss_growth(count: int, warmup: int) -> Outcome:
    """Resident memory growth over ``count`` cycles after ``warmup`` cycles: less than 4 MiB."""
    if under_valgrind():
        return Outcome("rss", None, "skipped under valgrind (its own memory dominates RSS)")
    for i in range(warmup):
        cycle_once(i)
    gc.collect()
    objects_before = live_dlarray_objects()
    rss_before = rss_bytes()
    start = time.perf_counter()
    for i in range(count):
        cycle_once(i)
        if i % 10000 == 9999:
            gc.collect()
    gc.collect()
    elapsed = time.perf_counter() - start
    growth = rss_bytes() - rss_before
    objects_after = live_dlarray_objects()
    problems = []
    if growth >= 4 * MiB:
        problems.append(f"RSS grew by {growth / MiB:.2f} MiB (limit 4 MiB)")
    if objects_after > objects_before:
        problems.append(f"{objects_after - objects_before} dlarray objects left behind")
    detail = (f"{count} cycles: RSS {growth / MiB:+.2f} MiB (limit 4 MiB), "
              f"dlarray objects {objects_before} -> {objects_after}")
    return Outcome("rss", not problems, "; ".join(problems + [detail]) if problems else detail,
                   elapsed, problems)


def tracemalloc_growth(count: int, warmup: int, inject_fault: bool = False) -> Outcome:
    """Growth of allocations made from dlarray's own files over ``count`` cycles (< 32 KiB)."""
    # the library's files, not the synthetic producer the cycles use (dlarray.testing's capsules)
    only_dlarray = [tracemalloc.Filter(True, os.path.join(DLARRAY_DIR, "*")),
                    tracemalloc.Filter(False, os.path.join(DLARRAY_DIR, "testing", "*"))]
    tracemalloc.start(1)
    try:
        for i in range(warmup):
            cycle_once(i)
        gc.collect()
        before = tracemalloc.take_snapshot().filter_traces(only_dlarray)
        start = time.perf_counter()
        for i in range(count):
            cycle_once(i)
            if inject_fault:  # a leak of dlarray objects, one view per cycle
                _INJECTED.append(dlarray.asarray(np.arange(4.0))[1:])
        gc.collect()
        elapsed = time.perf_counter() - start
        after = tracemalloc.take_snapshot().filter_traces(only_dlarray)
    finally:
        tracemalloc.stop()
    stats = after.compare_to(before, "lineno")
    growth = sum(stat.size_diff for stat in stats)
    worst = [f"{s.traceback[0].filename.rsplit(os.sep, 1)[-1]}:{s.traceback[0].lineno} "
             f"{s.size_diff:+d} B ({s.count_diff:+d})" for s in stats[:3] if s.size_diff > 0]
    ok = growth < 32 * 1024
    detail = f"{count} cycles: dlarray allocations {growth:+d} B (limit 32 KiB)"
    if worst:
        detail += "; largest: " + ", ".join(worst)
    return Outcome("tracemalloc", ok, detail, elapsed, [] if ok else [detail])


# ----------------------------------------------------------------------------- threads


class _Released:
    """Counts foreign buffers (numpy, torch) not yet freed, through weak references."""

    def __init__(self) -> None:
        self.refs: dict[int, weakref.ref] = {}

    def track(self, obj: Any) -> Any:
        # keyed by the reference's id: numpy arrays are unhashable, so are references to them
        ref = weakref.ref(obj, lambda r: self.refs.pop(id(r), None))
        self.refs[id(ref)] = ref
        return obj

    @property
    def alive(self) -> int:
        return len(self.refs)


def _thread_work(rng: random.Random, shared: deque, serials: list[int], released: _Released) -> int:
    """One step of a worker thread; returns 1 (a count of steps)."""
    choice = rng.randrange(10)
    if choice == 0:  # test producer, view, numpy consumer
        made, dtype = _fresh(rng)
        serials.append(made.serial)
        x = dlarray.from_dlpack(made.capsule)
        if dtype[2] is not None:
            shared.append(np.from_dlpack(x[::-1] if x.ndim else x))
        else:
            shared.append(x)
    elif choice == 1:  # numpy source through a capsule; the array crosses to another thread
        a = released.track(np.arange(12.0).reshape(3, 4))
        x = dlarray.from_dlpack(a.__dlpack__(max_version=(1, 3)))
        del a
        shared.append(x.mT)
    elif choice == 2:  # torch source and torch consumer
        if torch is None:
            return 1
        t = released.track(torch.arange(10.0))
        x = dlarray.from_dlpack(t)
        del t
        shared.append(torch.from_dlpack(x[2:]))
    elif choice == 3:  # unconsumed exports
        made, _ = _fresh(rng)
        serials.append(made.serial)
        x = dlarray.from_dlpack(made.capsule)
        x.__dlpack__(max_version=(1, 3))
    elif choice == 4:  # compute on an imported array
        made = producer.make_capsule((8,), versioned=True)
        serials.append(made.serial)
        x = dlarray.from_dlpack(made.capsule)
        assert float(dlarray.sum(x + 1.0)) == 8.0
    elif choice == 5:  # free something another thread made
        for _ in range(rng.randrange(4)):
            try:
                shared.popleft()
            except IndexError:
                break
    elif choice == 6:  # refused capsule
        made = producer.make_capsule((2,), lanes=4, versioned=rng.random() < 0.5)
        serials.append(made.serial)
        try:
            dlarray.from_dlpack(made.capsule)
        except BufferError:
            pass
        else:
            raise AssertionError("lanes=4 accepted")
    elif choice == 7:  # export consumed by dlarray, kept by another thread
        made, _ = _fresh(rng)
        serials.append(made.serial)
        x = dlarray.from_dlpack(made.capsule)
        shared.append(dlarray.from_dlpack(x.__dlpack__(max_version=(1, 3))))
    elif choice == 8:  # C exchange API producer, the array handed to another thread
        source = producer.ExchangeProducer(shape=(4, 2), device=rng.choice([(1, 0), (2, 0)]))
        shared.append(dlarray.from_dlpack(source).T)
        serials.extend(m.serial for m in source.exchanged + source.made)
    else:  # bytes and read-only re-exports
        ro = dlarray.asarray(_READONLY_BYTES)
        info, owner = consume_capsule(ro.__dlpack__(max_version=(1, 3)))
        assert info.readonly
        shared.append(owner)
    return 1


def threads(seconds: float, count: int = 8, seed: int = 0) -> Outcome:
    """``count`` threads importing, viewing, exporting and freeing for ``seconds``."""
    baseline = producer.alive_count()
    doubles_before = len(producer.double_deletes)
    shared: deque[Any] = deque(maxlen=500)
    released = _Released()
    errors: list[str] = []
    steps = [0] * count
    serials: list[list[int]] = [[] for _ in range(count)]
    deadline = time.perf_counter() + seconds
    barrier = threading.Barrier(count)

    def worker(index: int) -> None:
        rng = random.Random(seed * 1000 + index)
        try:
            barrier.wait()
            while time.perf_counter() < deadline:
                steps[index] += _thread_work(rng, shared, serials[index], released)
        except BaseException as exc:  # noqa: BLE001 - any failure is reported in the outcome
            errors.append(f"thread {index}: {type(exc).__name__}: {exc}")

    interval = sys.getswitchinterval()
    sys.setswitchinterval(1e-5)
    start = time.perf_counter()
    try:
        workers = [threading.Thread(target=worker, args=(i,)) for i in range(count)]
        for t in workers:
            t.start()
        for t in workers:
            t.join()
    finally:
        sys.setswitchinterval(interval)
    elapsed = time.perf_counter() - start
    shared.clear()
    gc.collect()
    wrong = sum(len(producer.settle(s)) for s in serials)
    problems = list(errors[:5])
    left = max(0, producer.alive_count() - baseline)
    if left:
        problems.append(f"{left} test-producer tensors not released")
    if wrong:
        problems.append(f"{wrong} tensors whose deleter did not run exactly once")
    if released.alive:
        problems.append(f"{released.alive} numpy/torch buffers not released")
    doubles = len(producer.double_deletes) - doubles_before
    if doubles:
        problems.append(f"{doubles} double deletes")
    detail = (f"{count} threads, {sum(steps)} steps in {elapsed:.1f} s: no error, every buffer "
              f"released")
    return Outcome("threads", not problems, "; ".join(problems) or detail, elapsed, problems)


# ----------------------------------------------------------------------------- interrupts

# The timer's period, drawn per batch: the shortest interrupts nearly every import several times,
# the longest lets many complete between two interrupts (which then land in finalizers and views).
INTERRUPT_INTERVALS_S = (20e-6, 40e-6, 80e-6, 160e-6)
_TESTING_DIR = os.path.join(DLARRAY_DIR, "testing")  # the synthetic producer: not dlarray's import


class _DescribedBuffer(bytearray):
    """A bytearray that describes its own buffer through ``__array_interface__`` (data None)."""

    __array_interface__: ClassVar[dict[str, Any]] = {"version": 3, "shape": (4,), "typestr": "|u1",
                                                    "data": None, "offset": 2}


class _InterruptBatch:
    """What one batch of interrupted imports left, to be checked with the timer paused."""

    def __init__(self) -> None:
        self.capsules: list[producer.Made] = []  # synthetic capsules (consumed or not)
        self.serials: list[int] = []  # every synthetic tensor made
        self.numpy_arrays: list[weakref.ref] = []  # numpy arrays exported as capsules
        self.buffers: list[tuple[bytearray, memoryview | None]] = []
        self.tensors: list[tuple[Any, int]] = []  # torch tensors and their use count before
        self.others: list[Any] = []  # capsules and sources kept until the check

    def attempt(self, rng: random.Random) -> Any:
        """Make one source at random; return the import to try on it."""
        kind = rng.randrange(9)
        if kind == 0:
            made = producer.make_capsule((2, 3), versioned=rng.random() < 0.5,
                                         **rng.choice([{}, {}, {"lanes": 2}, {"version": (2, 0)}]))
            self.capsules.append(made)
            self.serials.append(made.serial)
            return lambda: dlarray.from_dlpack(made.capsule)
        if kind in (1, 2):
            maker = producer.ExchangeProducer if kind == 2 else producer.Producer
            fields = rng.choice([{}, {}, {"lanes": 2}, {"device": (2, 0)}])
            source = maker(shape=(3, 2), **fields)
            self.others.append(source)
            copy = None if fields else rng.choice([None, True])  # nothing copies CUDA memory here
            return lambda: dlarray.from_dlpack(source, copy=copy)
        if kind == 3:
            array = np.arange(4.0)
            self.numpy_arrays.append(weakref.ref(array))
            capsule = array.__dlpack__(max_version=(1, 0))
            self.others.append(capsule)
            return lambda: dlarray.from_dlpack(capsule)
        if kind == 4 and torch is not None:
            tensor = torch.zeros(0) if rng.random() < 0.5 else torch.arange(4.0)  # managed, borrowed
            self.tensors.append((tensor, tensor._use_count()))
            return lambda: dlarray.from_dlpack(tensor)
        if kind == 8:  # a structured array's field over a bytearray: only a copy can hold it
            storage = bytearray(36)
            field = memoryview(np.frombuffer(storage, dtype=[("a", "f8"), ("b", "i4")])["a"])
            self.buffers.append((storage, field))
            return lambda: dlarray.asarray(field)
        storage = _DescribedBuffer(b"abcdef") if kind == 5 else bytearray(16)
        view = memoryview(storage) if kind == 6 else None
        self.buffers.append((storage, view))
        source = view if view is not None else storage
        return lambda: dlarray.asarray(source)

    def check(self) -> list[str]:
        """With the timer paused: what the batch's imports left must be whole."""
        problems = []
        while self.capsules:
            capsule = self.capsules.pop().capsule
            if capsule_name(capsule) in (b"dltensor_versioned", b"dltensor"):
                try:
                    dlarray.from_dlpack(capsule)
                except BufferError as exc:
                    if "being consumed" in str(exc):
                        problems.append(f"a claim outlived an interrupted import: {exc}")
            del capsule
        serials = self.serials + [made.serial for source in self.others
                                  for made in getattr(source, "made", []) + getattr(source, "exchanged", [])]
        self.others.clear()
        gc.collect()
        wrong = producer.settle(serials)
        if wrong:
            problems.append(f"{len(wrong)} tensors whose deleter did not run exactly once")
        alive = sum(1 for ref in self.numpy_arrays if ref() is not None)
        if alive:
            problems.append(f"{alive} numpy arrays exported as capsules never let go")
        for storage, view in self.buffers:
            try:
                if view is not None:
                    view.release()
                storage.append(0)
            except BufferError as exc:
                problems.append(f"a buffer export outlived its import: {exc}")
                break
        for tensor, before in self.tensors:
            if tensor._use_count() != before:
                problems.append(f"a torch tensor still held: use count {tensor._use_count()}, was {before}")
                break
        self.numpy_arrays.clear()
        self.buffers.clear()
        self.tensors.clear()
        return problems


def interrupts(count: int, seed: int = 0, batch: int = 500) -> Outcome:
    """``count`` imports under a 20-160 us timer that raises KeyboardInterrupt in dlarray's frames."""
    if count == 0:
        return Outcome("interrupts", None, "skipped (under valgrind a 20 us timer stalls the run; with "
                                           "--inject-fault it has nothing to show)")
    rng = random.Random(seed)
    baseline = producer.alive_count()
    doubles_before = len(producer.double_deletes)
    active = [False]
    raised = [0]

    def interrupt(signum: int, frame: Any) -> None:
        # as Ctrl-C would, but only while dlarray's own code (not the test producer's) runs
        if active[0] and frame is not None:
            filename = frame.f_code.co_filename
            if filename.startswith(DLARRAY_DIR) and not filename.startswith(_TESTING_DIR):
                raised[0] += 1
                raise KeyboardInterrupt

    lost: list[str] = []
    hook = sys.unraisablehook
    sys.unraisablehook = lambda report: lost.append(f"{report.exc_type.__name__} in {report.object!r}")
    previous = signal.signal(signal.SIGALRM, interrupt)
    problems: list[str] = []
    interrupted = completed = 0
    start = time.perf_counter()
    try:
        done = 0
        while done < count:
            work = _InterruptBatch()
            attempts = [work.attempt(rng) for _ in range(min(batch, count - done))]
            active[0] = True
            period = rng.choice(INTERRUPT_INTERVALS_S)
            signal.setitimer(signal.ITIMER_REAL, period, period)
            while attempts:
                try:
                    attempts.pop()()  # the import's result is dropped at once
                    completed += 1
                except KeyboardInterrupt:
                    interrupted += 1
                except BufferError:
                    completed += 1  # refused: the refusal must leave the capsule whole too
            signal.setitimer(signal.ITIMER_REAL, 0)
            active[0] = False
            problems += work.check()
            done += batch
            if len(problems) > 10:
                break
    finally:
        signal.setitimer(signal.ITIMER_REAL, 0)
        active[0] = False
        signal.signal(signal.SIGALRM, previous)
        sys.unraisablehook = hook
    elapsed = time.perf_counter() - start
    gc.collect()
    left = max(0, producer.alive_count() - baseline)
    if left:
        problems.append(f"{left} test-producer tensors still alive")
    doubles = len(producer.double_deletes) - doubles_before
    if doubles:
        problems.append(f"{doubles} double deletes")
    if lost:
        problems.append(f"{len(lost)} interrupts lost in finalizers, e.g. {lost[0]}")
    if not interrupted:
        problems.append("no import was interrupted: the check tried nothing")
    detail = (f"{interrupted + completed} imports, {interrupted} interrupted ({raised[0]} interrupts "
              f"raised), {completed} completed: every deleter exactly once, no claim or export left")
    return Outcome("interrupts", not problems, "; ".join(problems[:5]) or detail, elapsed, problems)


# ----------------------------------------------------------------------------- main

FULL = {"mixed": 100_000, "cycles": 300_000, "warmup": 20_000, "traced": 20_000, "seconds": 10.0,
        "exits": 240, "interrupted": 100_000}
QUICK = {"mixed": 3_000, "cycles": 6_000, "warmup": 1_000, "traced": 1_000, "seconds": 1.5, "exits": 4,
         "interrupted": 3_000}
VALGRIND_QUICK = {"mixed": 2_000, "cycles": 0, "warmup": 50, "traced": 200, "seconds": 3.0, "exits": 0,
                  "interrupted": 0}


def exits(runs: int, concurrent: int = 4) -> Outcome:
    """Run the exit scenarios ``runs`` times in all, ``concurrent`` children at once."""
    start = time.perf_counter()
    if runs == 0:
        return Outcome("exit", None, "skipped (under valgrind children take minutes each; with "
                                     "--inject-fault it has nothing to show)")
    # the daemon-thread race needs the most tries; the torch/jax scenario is slow to start
    weights = {"daemon-threads": 6, "shutdown-hooks": 3, "foreign-producers": 1}
    left_out = {name: missing for name in weights if (missing := exit_scenarios.missing_libraries(name))}
    weights = {name: weight for name, weight in weights.items() if name not in left_out}
    plan = [name for name, weight in weights.items() for _ in range(max(1, runs * weight // 10))]
    problems: list[str] = []
    with tempfile.TemporaryDirectory() as folder:
        scripts = {name: exit_scenarios.write_script(name, Path(folder)) for name in weights}
        for first in range(0, len(plan), concurrent):
            batch = plan[first:first + concurrent]
            results = exit_scenarios.run_children([scripts[name] for name in batch])
            for name, result in zip(batch, results):
                problem = exit_scenarios.exit_problem(result)
                if problem is not None:
                    problems.append(f"{name}: {problem}")
                    print(f"  {name}: {problem}\n{result.stderr[-2000:]}", flush=True)
    detail = f"{len(plan)} children ({', '.join(f'{plan.count(n)} {n}' for n in weights)}), "
    detail += f"{len(problems)} unclean exits" if problems else "every exit clean"
    detail += "".join(f"; {name} not run (needs {', '.join(missing)})" for name, missing in left_out.items())
    return Outcome("exit", not problems, detail, time.perf_counter() - start)


def write_record(path: Path, outcomes: list[Outcome], sizes: dict[str, Any], mode: str, valgrind: bool) -> None:
    """The run as JSON: each check's verdict and numbers, the sizes, and what it ran on."""
    record = {
        "mode": mode + (" under valgrind" if valgrind else ""),
        "sizes": sizes,
        "environment": {
            **run_context(),
            "versions": {"dlarray": getattr(dlarray, "__version__", None), "numpy": np.__version__,
                         "torch": getattr(torch, "__version__", None)},
        },
        "checks": [{"name": o.name, "verdict": {True: "PASS", False: "FAIL", None: "SKIP"}[o.ok],
                    "detail": o.detail, "seconds": round(o.seconds, 1)} for o in outcomes],
    }
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(json.dumps(record, indent=1) + "\n")


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n", 1)[0])
    parser.add_argument("--quick", action="store_true", help="small sizes (a few seconds)")
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--seconds", type=float, help="how long the threads run")
    parser.add_argument("--json", type=Path, help="also write the verdicts and the environment to this file")
    parser.add_argument("--inject-fault", action="store_true",
                        help="self-test: leak on purpose; exactly-once and tracemalloc must FAIL")
    args = parser.parse_args(argv)
    valgrind = under_valgrind()
    sizes = dict(VALGRIND_QUICK if (args.quick and valgrind) else QUICK if args.quick else FULL)
    if args.seconds is not None:
        sizes["seconds"] = args.seconds
    print(f"dlarray stress ({'quick' if args.quick else 'full'}{', under valgrind' if valgrind else ''}): "
          f"numpy {np.__version__}, torch {getattr(torch, '__version__', 'absent')}, "
          f"python {sys.version.split()[0]}", flush=True)
    checks: list[tuple[str, Callable[[], Outcome]]] = [
        ("exactly-once", lambda: exactly_once(sizes["mixed"], args.seed, args.inject_fault)),
        ("rss", lambda: rss_growth(sizes["cycles"], sizes["warmup"])),
        ("tracemalloc", lambda: tracemalloc_growth(sizes["traced"], sizes["warmup"], args.inject_fault)),
        ("threads", lambda: threads(sizes["seconds"], 8, args.seed)),
        ("exit", lambda: exits(0 if args.inject_fault else sizes["exits"])),
        ("interrupts", lambda: interrupts(0 if args.inject_fault else sizes["interrupted"], args.seed)),
    ]
    outcomes = []
    for name, check in checks:
        try:
            outcome = check()
        except Exception as exc:  # noqa: BLE001 - a check that blows up is a failure, not a crash
            import traceback

            traceback.print_exc()
            outcome = Outcome(name, False, f"{type(exc).__name__}: {exc}")
        verdict = {True: "PASS", False: "FAIL", None: "SKIP"}[outcome.ok]
        print(f"{verdict:4} {outcome.name:13} {outcome.detail} [{outcome.seconds:.1f} s]", flush=True)
        outcomes.append(outcome)
    failed = [o.name for o in outcomes if o.ok is False]
    if args.json:
        write_record(args.json, outcomes, sizes, "quick" if args.quick else "full", valgrind)
    if failed:
        print(f"SUMMARY: FAIL ({', '.join(failed)})")
        return 1
    passed = sum(1 for o in outcomes if o.ok)
    print(f"SUMMARY: PASS ({passed} checks passed, {len(outcomes) - passed} skipped)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
