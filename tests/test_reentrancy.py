"""Re-entrancy: Python code that runs inside an import can itself import.

Garbage collection runs finalizers (``__del__`` of objects in reference cycles) and ``gc.callbacks``
at any allocation; an import also calls a producer's ``__dlpack__`` and, for an unknown major
version, its deleter. Any of these may import another capsule on the same thread. A lock held
across them deadlocked such imports, so each scenario runs in a child interpreter with a deadline
(a hang fails the test with every thread's stack), under ``gc.set_threshold(1)`` so that the
collector runs at nearly every allocation, inside the consumption of a capsule too. Each scenario
also counts how often its Python code really ran inside a consumption (``consume_capsule`` on the
stack) and requires that it did.
"""

from __future__ import annotations

import subprocess
import sys
import textwrap
from pathlib import Path

import pytest

TESTS = Path(__file__).resolve().parent
HANG_AFTER_S = 120  # the child dumps its stacks and exits when it runs this long: a deadlock

PRELUDE = textwrap.dedent(
    """
    import ctypes, faulthandler, gc, sys
    faulthandler.dump_traceback_later({hang_after}, exit=True)
    sys.path.insert(0, {tests!r})
    import numpy as np
    import dlarray as xp
    import producer
    from producer import make_capsule

    stats = dict(inside=0, ran=0)
    errors = []

    def note_where():
        # count the runs of Python code (finalizer, callback, deleter) inside a consumption
        stats["ran"] += 1
        frame = sys._getframe(1)
        while frame is not None:
            if frame.f_code.co_name == "consume_capsule":
                stats["inside"] += 1
                return True
            frame = frame.f_back
        return False

    def import_some():
        # imports of other capsules: a versioned and a legacy one, and a numpy array
        try:
            made = make_capsule((2, 3), versioned=True)
            assert xp.from_dlpack(made.capsule).shape == (2, 3)
            assert xp.from_dlpack(np.arange(3.0).__dlpack__()).shape == (3,)
            assert xp.from_dlpack(np.arange(4.0)).shape == (4,)
        except BaseException as exc:  # a finalizer's or callback's error would be lost
            errors.append(repr(exc))

    def imports_when_finalized():
        note_where()
        import_some()

    armed = [True]
    finalizer_action = [imports_when_finalized]

    class Cycle:
        # In a reference cycle: only the collector frees it. Its finalizer re-arms (makes the next
        # one), so that with gc.set_threshold(1) a finalizer is pending at nearly every collection.
        def __init__(self):
            self.me = self

        def __del__(self):
            finalizer_action[0]()
            if armed[0]:
                Cycle()

    def finish():
        armed[0] = False
        gc.set_threshold(700, 10, 10)
        gc.collect()
        gc.collect()
        assert not errors, errors[:5]
        assert not producer.double_deletes, producer.double_deletes[:5]
        assert producer.alive_count() == 0, producer.alive_count()
        assert stats["inside"] > 0, stats
        print("ok", stats)
    """
)

SCENARIOS = {
    # Finalizers of objects in reference cycles import capsules; each re-arms the next, so a
    # finalizer is pending at nearly every collection, inside imports too.
    "finalizer-imports": """
        gc.set_threshold(1)
        Cycle()
        for i in range(3000):
            x = xp.from_dlpack(make_capsule((1,) * 8, strides=(1,) * 8, versioned=bool(i % 2)).capsule)
            y = xp.from_dlpack(np.arange(5.0).__dlpack__(max_version=(1, 0)))
            del x, y
        finish()
    """,
    # A gc callback (Python code the collector runs at an allocation) imports whenever it finds
    # itself inside a consumption.
    "gc-callback-imports": """
        def callback(phase, info):
            if phase == "start" and note_where():
                import_some()

        gc.set_threshold(1)
        gc.callbacks.append(callback)
        for i in range(3000):
            x = xp.from_dlpack(make_capsule((1,) * 8, strides=(1,) * 8, versioned=bool(i % 2)).capsule)
            del x
        gc.callbacks.remove(callback)
        finish()
    """,
    # A producer's deleter imports: called inside the consumption for an unknown major version
    # (DLPack: the consumer calls it at once), and later when the last array goes.
    "deleter-imports": """
        from dlarray._dlpack._structs import VERSION_PREFIX_LAYOUT

        @ctypes.CFUNCTYPE(None, ctypes.c_void_p)
        def importing_deleter(address):
            try:
                note_where()
                import_some()
            finally:
                producer._on_delete(address)

        DELETER_OFFSET = VERSION_PREFIX_LAYOUT.size - 8  # major, minor, manager_ctx, deleter
        deleter_address = ctypes.cast(importing_deleter, ctypes.c_void_p).value
        refused = 0
        gc.set_threshold(1)
        for i in range(1500):
            made = make_capsule((2, 2), version=(2 if i % 2 else 1, 0))
            ctypes.c_void_p.from_address(made.address + DELETER_OFFSET).value = deleter_address
            try:
                x = xp.from_dlpack(made.capsule)
            except BufferError as exc:
                assert "major version" in str(exc), exc
                refused += 1
            else:
                del x  # the deleter runs here
            assert made.deleted == 1, (i, made.deleted)
        assert refused == 750
        finish()
    """,
    # A producer's __dlpack__ imports before it answers (with finalizers pending, as above).
    "dlpack-method-imports": """
        class Importing:
            def __dlpack__(self, **options):
                import_some()
                return make_capsule((3,), versioned=options.get("max_version") is not None).capsule

        gc.set_threshold(1)
        Cycle()
        for i in range(800):
            assert xp.from_dlpack(Importing()).shape == (3,)
            assert xp.from_dlpack(Importing(), copy=True).shape == (3,)
        finish()
    """,
    # Finalizers try to consume the very capsule being imported: exactly one party takes it
    # (the others get BufferError), its deleter runs exactly once.
    "same-capsule-from-a-finalizer": """
        current = [None]
        taken_by_finalizer = []
        refusals = dict(claimed=0, consumed=0)

        def try_current():
            capsule = current[0]
            if capsule is None:
                return
            try:
                taken_by_finalizer.append(xp.from_dlpack(capsule))
            except BufferError as exc:
                if "being consumed" in str(exc):
                    refusals["claimed"] += 1
                elif "consumed already" in str(exc):
                    refusals["consumed"] += 1
                else:
                    errors.append(repr(exc))

        def takes_current_when_inside():
            if note_where():
                try_current()

        finalizer_action[0] = takes_current_when_inside
        gc.set_threshold(1)
        Cycle()
        for i in range(3000):
            made = make_capsule((1,) * 16, strides=(1,) * 16, versioned=bool(i % 2))
            current[0] = made.capsule
            owners = 0
            try:
                x = xp.from_dlpack(made.capsule)
                owners += 1
            except BufferError as exc:
                assert "consumed already" in str(exc), exc
                x = None
            current[0] = None
            owners += len(taken_by_finalizer)
            assert owners == 1, (i, owners)
            del x, made.capsule
            taken_by_finalizer.clear()
            assert made.deleted == 1, (i, made.deleted)
        assert refusals["claimed"] > 0, refusals
        stats.update(refusals)
        finish()
    """,
}


@pytest.mark.parametrize("scenario", sorted(SCENARIOS))
def test_python_code_running_inside_an_import_can_import(scenario: str) -> None:
    script = PRELUDE.format(hang_after=HANG_AFTER_S, tests=str(TESTS)) + textwrap.dedent(SCENARIOS[scenario])
    try:
        result = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True,
                                timeout=HANG_AFTER_S + 60)
    except subprocess.TimeoutExpired as exc:
        pytest.fail(f"{scenario}: the child hung (a deadlock)\n{exc.stderr}")
    assert "Timeout" not in result.stderr, f"{scenario}: the child hung (a deadlock)\n{result.stderr[-6000:]}"
    assert result.returncode == 0 and result.stdout.startswith("ok"), result.stderr[-6000:]
