"""When memory runs out: a MemoryError (or the producer's own error), never a crash, a leak or a
tensor owned twice.

CPython's failure injection (``_testcapi.set_nomemory(k, k + 1)``: the k-th allocation from then on
fails, and only it) is swept over every allocation of an import (capsules, producers, numpy
capsules, bytearrays, memoryviews), a view, an export, an operation and a release, each sweep in a
child process. After each try: the deleter ran exactly once or the capsule is still importable,
buffers are released, numpy's memory is freed, nothing was printed as "Exception ignored".

Skipped where the interpreter has no ``_testcapi`` (a build without its test modules), and where
the interpreter itself mishandles the injection in its own code, checked first with weak
references in a dict (CPython 3.13.0: ``weakref.ref`` returns a result with an exception set, a
SystemError, and a dict whose resize failed later crashes the garbage collector): a failure there
would be the interpreter's, not dlarray's.
"""

from __future__ import annotations

import ast
import json
import subprocess
import sys
import textwrap
from pathlib import Path

import needs
import pytest

TESTS = Path(__file__).resolve().parent
PACKAGE = TESTS.parent / "dlarray"


def _injection_available() -> bool:
    try:
        import _testcapi
    except ImportError:
        return False
    return hasattr(_testcapi, "set_nomemory")


def _run(code: str, *args: str, timeout: float = 300) -> subprocess.CompletedProcess[str]:
    prelude = f"import sys, faulthandler\nfaulthandler.enable()\nsys.path.insert(0, {str(TESTS)!r})\n"
    return subprocess.run([sys.executable, "-c", prelude + textwrap.dedent(code), *args],
                          capture_output=True, text=True, timeout=timeout, check=False)


# CPython's own weak references in a dict (what a capsule's claim is), swept the same way: anything
# but MemoryError, or a crash, is the interpreter's own mishandling
_INTERPRETER_SELF_CHECK = """
    import gc, weakref, _testcapi
    class Thing:
        pass
    for k in range(1, 40):
        table = {i: weakref.ref(Thing) for i in range(4)}
        _testcapi.set_nomemory(k, k + 1)
        try:
            for i in range(4, 40):
                table.setdefault(i, weakref.ref(Thing))
        except MemoryError:
            pass
        except BaseException as error:
            _testcapi.remove_mem_hooks()
            print(f"{type(error).__name__}: {error}")
            raise SystemExit(0)
        finally:
            _testcapi.remove_mem_hooks()
        gc.collect()
    print("ok")
"""


def _interpreter_mishandles_injection() -> str | None:
    """None where the interpreter's own code meets allocation failures with MemoryError; else what
    it did instead."""
    done = _run(_INTERPRETER_SELF_CHECK, timeout=120)
    if done.returncode != 0:
        return f"its process died ({done.returncode})"
    answer = done.stdout.strip()
    return None if answer == "ok" else answer


pytestmark = [
    pytest.mark.skipif(not _injection_available(), reason="this Python has no _testcapi.set_nomemory"),
]

_self_check: list[str | None] = []


@pytest.fixture()
def injection() -> None:
    if not _self_check:
        _self_check.append(_interpreter_mishandles_injection())
    if _self_check[0] is not None:
        pytest.skip(f"Python {sys.version.split()[0]} itself mishandles allocation failures (weakref.ref in a "
                    f"dict: {_self_check[0][:120]}), so a failure could not be told from dlarray's")


SWEEP = """
    import gc, json, weakref
    from collections import Counter
    import _testcapi
    import numpy as np
    import dlarray as xp
    from dlarray._dlpack import ImportedTensor, armed
    from producer import AloneProducer, Producer, deleter_calls, make_capsule

    scenario, tries = sys.argv[1], int(sys.argv[2])
    outcomes, problems = Counter(), []

    def prepare():
        state = {}
        if scenario == "capsule":
            state["made"] = made = make_capsule((3, 4))
            return state, lambda: xp.from_dlpack(made.capsule)
        if scenario == "producer":
            producer = Producer(shape=(3, 4))
            return state, lambda: xp.from_dlpack(producer)
        if scenario in ("alone producer", "temporary capsule"):
            # a producer keeping no reference to its capsules: from_dlpack's shortcut (the capsule,
            # unrenamed, is the owner)
            state["alone"] = producer = AloneProducer(shape=(3, 4))
            if scenario == "temporary capsule":
                return state, lambda: xp.from_dlpack(producer.__dlpack__(max_version=(1, 3)))
            return state, lambda: xp.from_dlpack(producer)
        if scenario == "numpy capsule":
            source = np.arange(12.0)
            state["alive"] = weakref.ref(source)
            state["capsule"] = capsule = source.__dlpack__(max_version=(1, 3))
            return state, lambda: xp.from_dlpack(capsule)
        if scenario in ("bytearray", "memoryview"):
            state["buffer"] = buffer = bytearray(16)
            source = memoryview(buffer) if scenario == "memoryview" else buffer
            state["view"] = source
            return state, lambda: xp.asarray(source)
        if scenario == "view":
            x = xp.asarray(np.arange(12.0).reshape(3, 4))
            return state, lambda: (x[1:, ::2].strides, x.mT.data_ptr)
        if scenario == "export":
            x = xp.asarray(np.arange(12.0))
            return state, lambda: (np.from_dlpack(x), x.__dlpack__(max_version=(1, 3)))
        if scenario == "retargeted export":
            x = xp.astype(xp.asarray(np.arange(12.0)), xp.bfloat16)
            return state, lambda: xp.from_dlpack(x.__dlpack__(max_version=(1, 3)))
        if scenario == "operation":
            x = xp.asarray(np.arange(12.0))
            return state, lambda: ((x + 1).strides, xp.sum(x))
        if scenario == "buffer release":
            state["buffer"] = buffer = bytearray(16)
            state["view"] = buffer
            held = [xp.asarray(buffer)]
            return state, held.clear
        if scenario == "release":
            source = np.arange(12.0)
            state["alive"] = weakref.ref(source)
            held = [xp.from_dlpack(source.__dlpack__(max_version=(1, 3)))]
            return state, held.clear
        if scenario == "owner":
            return state, lambda: armed(ImportedTensor, int)
        if scenario in ("torch", "torch release"):
            import torch
            tensor = torch.arange(12.0)
            state["alive"] = weakref.ref(tensor)
            if scenario == "torch":  # through its C exchange API
                state["tensor"] = tensor
                return state, lambda: xp.from_dlpack(tensor)
            held = [xp.from_dlpack(tensor)]
            del tensor
            return state, held.clear
        raise ValueError(scenario)

    for k in range(1, tries + 1):
        state, attempt = prepare()
        _testcapi.set_nomemory(k, k + 1)
        try:
            result = attempt()
            outcome = "ok"
        except MemoryError:
            outcome = "MemoryError"
        except BaseException as error:
            outcome = type(error).__name__
        finally:
            _testcapi.remove_mem_hooks()
        outcomes[outcome] += 1
        result = attempt = None
        gc.collect()
        made = state.get("made")
        if made is not None:
            calls = deleter_calls.get(made.serial, 0)
            if calls == 0:  # not taken: still importable, and then deleted once
                again = xp.from_dlpack(made.capsule)
                del again
                gc.collect()
                calls = deleter_calls.get(made.serial, 0)
            if calls != 1:
                problems.append(f"k={k} ({outcome}): the deleter ran {calls} times")
        for made in getattr(state.get("alone"), "made", ()):
            calls = deleter_calls.get(made.serial, 0)
            if calls != 1:  # nothing else holds its capsule: once dropped, it is deleted
                problems.append(f"k={k} ({outcome}): the deleter ran {calls} times")
        for kept in ("capsule", "tensor"):
            if kept in state:
                state.pop(kept)
                gc.collect()
        if "alive" in state and state["alive"]() is not None:
            problems.append(f"k={k} ({outcome}): numpy's memory was never freed")
        if "buffer" in state:
            if isinstance(state["view"], memoryview):
                state["view"].release()
            try:
                state["buffer"].extend(b"more")
            except BufferError:
                problems.append(f"k={k} ({outcome}): the buffer is still exported")
        # what outlived this try is set aside from the collector's scans, so that each try's
        # gc.collect walks that try's objects only (with torch imported, a full one is ~80 ms);
        # collected first, so that no garbage of this try is set aside unfinalized
        gc.collect()
        gc.freeze()
    gc.unfreeze()  # the end as without the freezes: whatever is left is finalized now, in the open
    gc.collect()
    print(json.dumps({"outcomes": outcomes, "problems": problems}))
"""

# what each scenario may raise besides MemoryError: the producer's own error (the test producer
# makes its capsule with ctypes, whose MemoryError is an ArgumentError), numpy's own (an operation
# computes with numpy, whose ufunc.reduce can fail without setting an exception, a SystemError, and
# numpy 2.5's ufunc registry reports a failed allocation as a TypeError)
OWN_ERRORS = {"producer": {"ArgumentError"}, "alone producer": {"ArgumentError"},
              "temporary capsule": {"ArgumentError"}, "operation": {"SystemError", "TypeError", "RuntimeError", "ValueError"}}
SCENARIOS = ["capsule", "producer", "alone producer", "temporary capsule", "numpy capsule", "bytearray", "memoryview", "view", "export",
             "retargeted export", "operation", "release", "buffer release", "owner",
             *[pytest.param(name, marks=needs.skip_without("torch")) for name in ("torch", "torch release")]]


@pytest.mark.parametrize("scenario", SCENARIOS)
def test_every_allocation_failure_is_a_memory_error_and_nothing_leaks(scenario: str, injection: None) -> None:
    done = _run(SWEEP, scenario, "120")
    assert done.returncode == 0, f"the child died ({done.returncode}):\n{done.stderr[-3000:]}"
    assert "Exception ignored" not in done.stderr, done.stderr[-3000:]
    record = json.loads(done.stdout.strip().splitlines()[-1])
    assert not record["problems"], record["problems"][:5]
    unexpected = set(record["outcomes"]) - {"ok", "MemoryError"} - OWN_ERRORS.get(scenario, set())
    assert not unexpected, record["outcomes"]
    assert record["outcomes"].get("MemoryError", 0) or "release" in scenario or scenario == "owner", record["outcomes"]


def test_a_half_built_owner_is_never_finalized(injection: None) -> None:
    """partial's constructor frees the object it was building when an allocation inside it fails;
    a class whose finalizer is partial.__call__ would then call a partial with NULL fields. Owners
    are built unarmed and given their finalizing class only when whole (armed)."""
    done = _run("""
        import _testcapi, functools
        from dlarray._dlpack import ImportedTensor, armed
        from dlarray._interfaces import BufferHold
        failures = 0
        for k in range(1, 40):
            built = []  # finalized after the injection ends: this test is about construction
            _testcapi.set_nomemory(k, k + 1)
            try:
                built.append(armed(ImportedTensor, int))
                built.append(armed(BufferHold, int, 1))
                built.append(armed(ImportedTensor, max, 2, 3))  # arguments: a tuple partial's constructor builds
                built.append(armed(ImportedTensor, functools.partial(max, 4), 5))
            except MemoryError:
                failures += 1
            finally:
                _testcapi.remove_mem_hooks()
            built.clear()
        assert type(armed(ImportedTensor, int)) is ImportedTensor
        print("ok", failures)
    """)
    assert done.returncode == 0, done.stderr[-3000:]
    assert "Exception ignored" not in done.stderr, done.stderr[-3000:]
    ok, failures = done.stdout.split()
    assert ok == "ok" and int(failures) > 0  # the injection reached the constructors


def test_the_core_has_no_generator_expressions() -> None:
    """Creating a generator under allocation failure crashes CPython 3.12 and 3.13 (3.11 raises
    MemoryError): the package's code builds its tuples from lists instead (a list comprehension
    makes no generator). Tools and the kit, which run no user's data path, are left as they are."""
    exempt = {"__main__.py", "_docs.py", "_probe.py", "_info.py"}
    found = []
    for path in sorted(PACKAGE.rglob("*.py")):
        if path.name in exempt or "testing" in path.parts:
            continue
        tree = ast.parse(path.read_text())
        found += [f"{path.relative_to(PACKAGE.parent)}:{node.lineno}" for node in ast.walk(tree)
                  if isinstance(node, ast.GeneratorExp)]
    assert not found, found
