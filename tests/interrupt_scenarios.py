"""Ctrl-C inside an import: an interrupt at every point of the import in turn, and what must hold.

A KeyboardInterrupt from a signal handler is raised between two bytecodes of whatever Python frame
runs (never inside a C call, ctypes calls included). This module raises one at the k-th point of
an import, for k = 1, 2, ... until the import runs to its end without reaching k: a point is every
bytecode instruction of a source line (but a few that never raise, see ``Interrupt.points``) and
every function entry executed in dlarray's own frames, found with ``sys.settrace`` and
``frame.f_trace_opcodes``. That is more points than real signals have: the interpreter checks
for them only at function entries, after calls and at the end of a loop's body. The producer's
code (``dlarray.testing``, numpy, torch) is not interrupted: what it does on Ctrl-C is its own
affair.

After each attempt, interrupted or not, an import must have completed or left nothing behind:

* a capsule still carrying its name belongs to its producer: its deleter has not run, and it
  imports now (no claim of the interrupted call outlives it); a renamed one is refused as
  "consumed already" (not "being consumed");
* once everything is dropped, every tensor's deleter has run exactly once (never twice, never not);
* every buffer-protocol export is released: the bytearray can be resized, the memoryview released;
* nothing is reported as "Exception ignored" (an interrupt lost in a finalizer).

Run as a script (``python interrupt_scenarios.py NAME``) in a child process, since a double free
could crash; it prints one JSON line: the number of points interrupted and the problems found.
``tests/test_interrupts.py`` runs every scenario.
"""

from __future__ import annotations

import array
import dis
import gc
import json
import os
import sys
from collections.abc import Callable
from itertools import count
from pathlib import Path
from typing import Any, ClassVar

os.environ.setdefault("JAX_PLATFORMS", "cpu")
sys.path.insert(0, str(Path(__file__).resolve().parent))

import numpy as np
import producer
from producer import AloneProducer, ExchangeProducer, Producer, deleter_calls, make_capsule

import dlarray as xp
from dlarray.testing._capsules import DeleterWatch, capsule_name

PACKAGE = str(Path(xp.__file__).resolve().parent) + os.sep
PRODUCER_CODE = PACKAGE + "testing" + os.sep  # the synthetic producer: not dlarray's import
UNUSED = (b"dltensor_versioned", b"dltensor")
_NEVER_INTERRUPTED = frozenset(dis.opmap[name] for name in ("NOP", "PUSH_EXC_INFO", "POP_EXCEPT", "RERAISE"))
_POINT_EVENTS = ("opcode", "line") if sys.version_info >= (3, 12) else ("opcode",)


class Interrupt:
    """A trace function that raises KeyboardInterrupt at the k-th point of dlarray's frames."""

    def __init__(self, k: int) -> None:
        self.k = k
        self.seen = 0
        self.where = ""

    def calls(self, frame: Any, event: str, arg: Any) -> Any:
        filename = frame.f_code.co_filename
        if not filename.startswith(PACKAGE) or filename.startswith(PRODUCER_CODE):
            return None
        frame.f_trace_opcodes = True
        return self.points(frame, event, arg)

    def points(self, frame: Any, event: str, arg: Any) -> Any:
        # Left out: instructions where no signal is ever checked for, and where an exception
        # raised by a tracer does what no real one can. Those without a source line and the
        # interpreter's bookkeeping of exception handlers (PUSH_EXC_INFO, POP_EXCEPT, RERAISE, also
        # on the line of a ``return`` inside an ``except``): raised there, the thread's handled
        # exception stays set, holding what it refers to. A NOP (the trace of a ``try:`` line) lies
        # outside every handler's range, as an instruction that cannot raise.
        # Python 3.12+ delivers no opcode events in a code object's first run after tracing was
        # switched on (each attempt switches it on anew): its line events, at each line's first
        # instruction, are points there too.
        if event == "call" or (event in _POINT_EVENTS and frame.f_lineno is not None
                               and frame.f_code.co_code[frame.f_lasti] not in _NEVER_INTERRUPTED):
            self.seen += 1
            if self.seen == self.k:
                self.where = f"{frame.f_code.co_name}:{frame.f_lineno}"
                raise KeyboardInterrupt(self.where)  # tracing stops here: one interrupt per attempt
        return self.points

    @property
    def fired(self) -> bool:
        return self.seen >= self.k


class Attempt:
    """One import under one interrupt: ``result`` (None if interrupted) and where it fired."""

    def __init__(self, k: int, action: Callable[[], Any]) -> None:
        trap = Interrupt(k)
        self.result: Any = None
        self.error: BaseException | None = None
        sys.settrace(trap.calls)
        try:
            self.result = action()
        except BaseException as exc:  # noqa: BLE001 - KeyboardInterrupt, or the import's own refusal
            self.error = exc
        finally:
            sys.settrace(None)
        self.fired = trap.fired
        self.where = trap.where
        self.interrupted = isinstance(self.error, KeyboardInterrupt)
        if self.error is not None:
            self.error.__traceback__ = None  # no frame of the import kept alive by the report

    def drop(self) -> None:
        self.result = self.error = None
        gc.collect()


unraisable: list[str] = []
sys.unraisablehook = lambda report: unraisable.append(
    f"{report.exc_type.__name__} in {getattr(report.object, '__qualname__', report.object)!r}")


def _still_usable_capsule(capsule: Any, problems: list[str], where: str) -> None:
    """A capsule the interrupted import left: unconsumed (then it imports now), or consumed."""
    if capsule_name(capsule) in UNUSED:
        try:
            x = xp.from_dlpack(capsule)
        except BufferError as exc:
            if "being consumed" in str(exc):
                problems.append(f"{where}: a claim outlived the interrupted import: {exc}")
            # else: the tensor's own refusal (refused scenarios), the capsule left to its producer
        else:
            del x
    else:
        try:
            xp.from_dlpack(capsule)
        except BufferError as exc:
            if "consumed already" not in str(exc):
                problems.append(f"{where}: a consumed capsule is refused with {exc}")
        else:
            problems.append(f"{where}: a consumed capsule imported again")


def capsule(versioned: bool = True, with_deleter: bool = True, **fields: Any) -> Callable[[int, list[str]], Attempt]:
    """A synthetic capsule, imported with ``from_dlpack``. A NULL deleter is never called: its
    tensor is freed by the capsule's destructor if unconsumed, by nobody (here: the test) if not."""

    def attempt(k: int, problems: list[str]) -> Attempt:
        made = make_capsule((2, 3), versioned=versioned, with_deleter=with_deleter, **fields)
        tried = Attempt(k, lambda: xp.from_dlpack(made.capsule))
        where = f"k={k} at {tried.where or 'end'}"
        if capsule_name(made.capsule) in UNUSED and made.deleted:
            problems.append(f"{where}: the deleter ran but the capsule is still unconsumed")
        tried.drop()
        _still_usable_capsule(made.capsule, problems, where)
        consumed = capsule_name(made.capsule) not in UNUSED
        made.capsule = None
        gc.collect()
        expected = 0 if consumed and not with_deleter else 1
        if made.deleted != expected:
            problems.append(f"{where}: deleter ran {made.deleted} times, not {expected}")
        made.free_unowned()
        return tried

    return attempt


def numpy_capsule(k: int, problems: list[str]) -> Attempt:
    """numpy's own capsule (its C deleter, watched), imported with ``from_dlpack``."""
    held = np.arange(4.0).__dlpack__(max_version=(1, 0))
    watch = DeleterWatch(held)
    tried = Attempt(k, lambda: xp.from_dlpack(held))
    where = f"k={k} at {tried.where or 'end'}"
    if capsule_name(held) in UNUSED and watch.calls:
        problems.append(f"{where}: the deleter ran but the capsule is still unconsumed")
    tried.drop()
    _still_usable_capsule(held, problems, where)
    held = None
    gc.collect()
    if watch.calls != 1:
        problems.append(f"{where}: deleter ran {watch.calls} times")
    return tried


def numpy_capsule_numpys_deleter(k: int, problems: list[str]) -> Attempt:
    """numpy's own capsule with its own deleter (compiled code), held, imported with
    ``from_dlpack``: numpy's consumer takes it. The deleter gives back the reference numpy's
    export took of the source: the source's count tells how often it ran."""
    source = np.arange(4.0)
    unexported = sys.getrefcount(source)
    held = source.__dlpack__(max_version=(1, 0))
    tried = Attempt(k, lambda: xp.from_dlpack(held))
    where = f"k={k} at {tried.where or 'end'}"
    if capsule_name(held) in UNUSED and sys.getrefcount(source) != unexported + 1:
        problems.append(f"{where}: the deleter ran but the capsule is still unconsumed")
    tried.drop()
    _still_usable_capsule(held, problems, where)
    held = None
    gc.collect()
    if sys.getrefcount(source) != unexported:
        problems.append(f"{where}: the source's count is {sys.getrefcount(source)}, not {unexported}: "
                        "its deleter did not run exactly once")
    return tried


def producer_object(kind: type, copy: bool | None = None, **fields: Any) -> Callable[[int, list[str]], Attempt]:
    """An object with ``__dlpack__`` (and, for ExchangeProducer, the C exchange API)."""

    def attempt(k: int, problems: list[str]) -> Attempt:
        obj = kind(shape=(2, 3), **fields)
        tried = Attempt(k, lambda: xp.from_dlpack(obj, copy=copy))
        where = f"k={k} at {tried.where or 'end'}"
        tried.drop()
        made = list(obj.made) + list(getattr(obj, "exchanged", []))
        obj = None
        for one in made:
            one.capsule = None
        gc.collect()
        for one in made:
            if one.deleted != 1:
                problems.append(f"{where}: deleter of tensor {one.serial} ran {one.deleted} times")
        return tried

    return attempt


def alone_producer(temporary: bool = False, **fields: Any) -> Callable[[int, list[str]], Attempt]:
    """A producer that keeps no reference to its capsules (``from_dlpack`` holds the only one: the
    capsule, unrenamed, becomes the owner), or with ``temporary`` a capsule of it passed in as a
    temporary. Afterwards each tensor's deleter has run exactly once (the capsule's destructor or,
    for an unknown major version, dlarray's owner)."""

    def attempt(k: int, problems: list[str]) -> Attempt:
        obj = AloneProducer(shape=(2, 3), **fields)
        if temporary:
            tried = Attempt(k, lambda: xp.from_dlpack(obj.__dlpack__(max_version=(1, 3))))
        else:
            tried = Attempt(k, lambda: xp.from_dlpack(obj))
        where = f"k={k} at {tried.where or 'end'}"
        tried.drop()
        for one in obj.made:
            if deleter_calls.get(one.serial, 0) != 1:
                problems.append(f"{where}: deleter of tensor {one.serial} ran {deleter_calls.get(one.serial, 0)} times")
        return tried

    return attempt


def torch_tensor(make: Callable[[], Any]) -> Callable[[int, list[str]], Attempt]:
    """A torch tensor (borrowed, or through the exchange API's managed import): the tensor's
    use count must come back to what it was (torch's deleter releases the reference it took)."""

    def attempt(k: int, problems: list[str]) -> Attempt:
        tensor = make()
        before = tensor._use_count()
        tried = Attempt(k, lambda: xp.from_dlpack(tensor))
        where = f"k={k} at {tried.where or 'end'}"
        tried.drop()
        if tensor._use_count() != before:
            problems.append(f"{where}: the tensor's use count is {tensor._use_count()}, was {before}")
        return tried

    return attempt


class _Described(bytearray):
    """A bytearray that describes its own buffer through ``__array_interface__`` (data None)."""

    __array_interface__: ClassVar[dict[str, Any]] = {"version": 3, "shape": (4,), "typestr": "|u1",
                                                    "data": None, "offset": 2}


def buffer_export(make: Callable[[], Any], view: bool = False) -> Callable[[int, list[str]], Attempt]:
    """An object imported through the buffer protocol (or ``__array_interface__`` over its own
    buffer): afterwards no export may remain (it can grow, or its memoryview be released)."""

    def attempt(k: int, problems: list[str]) -> Attempt:
        storage = make()
        source = memoryview(storage) if view else storage
        tried = Attempt(k, lambda: xp.asarray(source))
        where = f"k={k} at {tried.where or 'end'}"
        tried.drop()
        try:
            if view:
                source.release()
            storage.append(storage[0])  # refused (BufferError) while an export is held
        except BufferError as exc:
            problems.append(f"{where}: the buffer is still exported: {exc}")
        return tried

    return attempt


def copied_field(k: int, problems: list[str]) -> Attempt:
    """A field of a structured array over a bytearray, through a memoryview: its strides are not
    multiples of its itemsize, so asarray copies it. No export of the bytearray may remain."""
    storage = bytearray(36)
    field = np.frombuffer(storage, dtype=[("a", "f8"), ("b", "i4")])["a"]
    view = memoryview(field)
    tried = Attempt(k, lambda: xp.asarray(view))
    where = f"k={k} at {tried.where or 'end'}"
    tried.drop()
    view.release()
    del field
    gc.collect()
    try:
        storage.append(0)
    except BufferError as exc:
        problems.append(f"{where}: the buffer is still exported: {exc}")
    return tried


def _torch() -> Any:
    import torch

    return torch


producer.current_streams[2, 0] = 2  # the per-thread default stream: one the simulated GPU knows
SCENARIOS: dict[str, Callable[[int, list[str]], Attempt]] = {
    "capsule-versioned": capsule(versioned=True),
    "capsule-legacy": capsule(versioned=False),
    "capsule-refused": capsule(lanes=2),
    "capsule-unknown-major": capsule(version=(2, 0)),
    "capsule-null-deleter": capsule(with_deleter=False),
    "numpy-capsule": numpy_capsule,
    "numpy-capsule-numpys-deleter": numpy_capsule_numpys_deleter,
    "producer": producer_object(Producer),
    "producer-copy": producer_object(Producer, copy=True),
    "producer-alone": alone_producer(),
    "producer-alone-legacy": alone_producer(versioned=False),
    "producer-alone-refused": alone_producer(lanes=2),
    "producer-alone-unknown-major": alone_producer(version=(2, 0)),
    "capsule-temporary": alone_producer(temporary=True),
    "exchange-api": producer_object(ExchangeProducer),
    "exchange-api-refused": producer_object(ExchangeProducer, lanes=2),
    "exchange-api-not-cpu": producer_object(ExchangeProducer, device=(2, 0)),
    # a publisher whose rules are learnt: its __dlpack__ asked (a new type each time), agreeing,
    # refusing; a CUDA tensor with the producer's current stream (producer.current_streams)
    "exchange-api-learning": producer_object(producer.new_publisher),
    "exchange-api-learning-refused": producer_object(producer.new_publisher, refuse=lambda fields: True),
    "exchange-api-learnt": producer_object(producer.LearntExchangeProducer),
    "exchange-api-cuda-stream": producer_object(producer.LearntExchangeProducer, device=(2, 0)),
    "torch-borrowed": torch_tensor(lambda: _torch().arange(6.0)),
    "torch-managed": torch_tensor(lambda: _torch().zeros(0)),
    "bytearray": buffer_export(lambda: bytearray(16)),
    "memoryview": buffer_export(lambda: bytearray(16), view=True),
    "array.array": buffer_export(lambda: array.array("d", [1.0, 2.0])),
    "array-interface": buffer_export(lambda: _Described(b"abcdef")),
    "copied-field": copied_field,
}


def run(name: str) -> dict[str, Any]:
    """Interrupt scenario ``name`` at each of its points in turn; the points and the problems."""
    attempt = SCENARIOS[name]
    problems: list[str] = []
    interrupted = 0
    for k in count(1):
        tried = attempt(k, problems)
        # What outlived the attempt (after its own gc.collect) is set aside from the collector's
        # scans: each attempt's gc.collect then walks that attempt's objects only, not torch's
        # hundreds of thousands (~80 ms a collection with torch imported, ~0.01 ms so). Collected
        # first, so that no garbage of this attempt is set aside unfinalized.
        gc.collect()
        gc.freeze()
        if not tried.fired:
            break  # the import ran to its end before the k-th point
        if not tried.interrupted and not unraisable:
            problems.append(f"k={k} at {tried.where}: the interrupt was swallowed")
        interrupted += 1
        if len(problems) > 20:
            break
    gc.unfreeze()  # the last check sees every object again, as without the freezes
    gc.collect()
    problems.extend(unraisable[:20])
    leftover = producer.alive_count()
    if leftover:
        problems.append(f"{leftover} synthetic tensors still wait for their deleter")
    if producer.double_deletes:
        problems.append(f"double deletes: {producer.double_deletes[:5]}")
    return {"scenario": name, "interrupted": interrupted, "problems": problems}


if __name__ == "__main__":
    print(json.dumps(run(sys.argv[1])))
