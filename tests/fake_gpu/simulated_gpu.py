"""A simulated GPU machine, on the CPU: checks that no test hands made-up CUDA pointers to a GPU.

On a real GPU machine ``libcuda.so.1`` loads and ``cupy`` imports, so any test that lets a made-up
device pointer or stream reach them crashes, hangs or computes on garbage. This makes a machine
without a GPU look like one to the test suite, and records every place where the GPU is reached:

* ``dlarray._cuda`` loads a strict fake driver instead of ``libcuda`` (unless
  ``CUDA_VISIBLE_DEVICES`` is empty: then, like ``cuInit``, it finds no device);
* ``import cupy`` finds a fake cupy (tests/fake_gpu/cupy) for one device with no memory;
* any driver call or cupy entry point reached from a test that hides the GPU (tests/gpu_view.py),
  and any made-up pointer or stream handed to them from any test, is a *violation*: it is
  appended to the file ``$DLARRAY_SIMULATED_GPU_LOG`` (the tests' own ``except`` clauses cannot
  swallow it), with the test that caused it (``PYTEST_CURRENT_TEST``, which child processes
  inherit), and raised as an error.

It works in every process of the run, xdist workers and the tests' child processes included,
through tests/gpu_site/sitecustomize.py, which ``PYTHONPATH`` puts first. Run it with::

    python tests/fake_gpu/simulated_gpu.py -n 2 -p no:cacheprovider -q tests     (make test-gpu-sim)

It runs pytest with those arguments under the simulation, then lists the violations; the exit
status is pytest's, or 1 if there was any violation. ``--show-gpu-to-all`` lets every test see
the (simulated) GPU, as the suite did before tests/gpu_view.py: the violations then name the
tests that would reach a real GPU with made-up pointers.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
import tempfile
import threading
from collections import defaultdict
from pathlib import Path
from typing import Any, Self

LOG_VARIABLE = "DLARRAY_SIMULATED_GPU_LOG"
VIEW_VARIABLE = "DLARRAY_TEST_GPU"  # tests/gpu_view.py: "hidden" or "visible"
SHOW_ALL_VARIABLE = "DLARRAY_TEST_SHOW_GPU"  # tests/conftest.py: "1" shows the GPU to every test
HERE = Path(__file__).resolve().parent
DEVICE_COUNT = 1
# DLPack's (and the driver's) legacy and per-thread default streams: the only streams that exist
# on the simulated GPU, which creates none.
DEFAULT_STREAMS = frozenset({1, 2})
_CUDA_ERROR_INVALID_HANDLE = 400


class SimulatedGPUViolation(RuntimeError):
    """The simulated GPU was reached where the real one must not be."""


def gpu_hidden() -> bool:
    return os.environ.get(VIEW_VARIABLE) == "hidden"


def violation(where: str, what: str) -> SimulatedGPUViolation:
    """Record a violation in the shared log; return the error to raise."""
    test = os.environ.get("PYTEST_CURRENT_TEST", "(outside a test)")
    if gpu_hidden():
        what = f"reached from a test that hides the GPU: {what}"
    entry = {"test": test, "where": where, "what": what, "pid": os.getpid()}
    log = os.environ.get(LOG_VARIABLE)
    if log:
        with open(log, "a", encoding="utf-8") as file:  # one short line per write: appends stay whole
            file.write(json.dumps(entry) + "\n")
    return SimulatedGPUViolation(f"simulated GPU, {where}: {what} (in {test})")


# ----------------------------------------------------------------------------- the driver


class StrictDriver:
    """Stands in for ``libcuda`` with the calls dlarray makes (through ctypes, as dlarray calls them).

    It has one device and no memory; it hands out contexts and events and knows the default
    streams. A call from a test that hides the GPU, or with a pointer, stream, event or context it
    did not hand out, is a violation (the real driver would crash or fail on it).
    """

    def __init__(self) -> None:
        self._handles: set[int] = set()
        self._next = 0x5100_0000
        self._lock = threading.Lock()

    def _new_handle(self) -> int:
        with self._lock:
            self._next += 0x100
            self._handles.add(self._next)
            return self._next

    def _enter(self, call: str) -> None:
        if gpu_hidden():
            raise violation(f"driver {call}", "a CUDA driver call")

    def _check(self, call: str, kind: str, value: Any, allowed: frozenset[int] | set[int]) -> int:
        number = _pointer_value(value)
        if number not in allowed:
            violation(f"driver {call}", f"a made-up {kind} {number!r}")
            return _CUDA_ERROR_INVALID_HANDLE
        return 0

    def cuGetErrorName(self, code: int, name: Any) -> int:
        _target(name).value = b"CUDA_ERROR_SIMULATED"
        return 0

    def cuPointerGetAttribute(self, value: Any, attribute: int, pointer: Any) -> int:
        self._enter("cuPointerGetAttribute")
        # the simulated GPU has no memory: every device pointer is made up
        return self._check("cuPointerGetAttribute", "device pointer", pointer, set())

    def cuStreamSynchronize(self, stream: Any) -> int:
        self._enter("cuStreamSynchronize")
        return self._check("cuStreamSynchronize", "stream", stream, DEFAULT_STREAMS)

    def cuDeviceGet(self, device: Any, ordinal: int) -> int:
        self._enter("cuDeviceGet")
        if not 0 <= ordinal < DEVICE_COUNT:
            return 101  # CUDA_ERROR_INVALID_DEVICE: a refusal, as the real driver gives
        _target(device).value = ordinal
        return 0

    def cuDevicePrimaryCtxRetain(self, context: Any, device: Any) -> int:
        self._enter("cuDevicePrimaryCtxRetain")
        _target(context).value = self._new_handle()
        return 0

    def cuCtxGetCurrent(self, context: Any) -> int:
        self._enter("cuCtxGetCurrent")
        _target(context).value = None  # no context is current: dlarray pushes the primary one
        return 0

    def cuCtxPushCurrent_v2(self, context: Any) -> int:
        self._enter("cuCtxPushCurrent")
        return self._check("cuCtxPushCurrent", "context", context, self._handles)

    def cuCtxPopCurrent_v2(self, context: Any) -> int:
        self._enter("cuCtxPopCurrent")
        return 0

    def cuEventCreate(self, event: Any, flags: int) -> int:
        self._enter("cuEventCreate")
        _target(event).value = self._new_handle()
        return 0

    def cuEventRecord(self, event: Any, stream: Any) -> int:
        self._enter("cuEventRecord")
        return (self._check("cuEventRecord", "event", event, self._handles)
                or self._check("cuEventRecord", "stream", stream, DEFAULT_STREAMS))

    def cuStreamWaitEvent(self, stream: Any, event: Any, flags: int) -> int:
        self._enter("cuStreamWaitEvent")
        return (self._check("cuStreamWaitEvent", "stream", stream, DEFAULT_STREAMS)
                or self._check("cuStreamWaitEvent", "event", event, self._handles))

    def cuEventDestroy_v2(self, event: Any) -> int:
        self._enter("cuEventDestroy")
        return self._check("cuEventDestroy", "event", event, self._handles)


def _pointer_value(value: Any) -> int | None:
    """The integer behind a ctypes pointer-sized argument (c_void_p) or a plain int."""
    return value if isinstance(value, int) else getattr(value, "value", None) or 0


def _target(reference: Any) -> Any:
    """The c_void_p an output argument writes to: a ``ctypes.byref(...)`` argument's target, or
    the c_void_p itself (ctypes passes one by reference where argtypes names a pointer to it)."""
    return reference._obj if type(reference).__name__ == "CArgObject" else reference


def load_driver() -> StrictDriver | None:
    """What ``dlarray._cuda._load_driver`` returns on the simulated machine."""
    if os.environ.get("CUDA_VISIBLE_DEVICES") == "":
        return None  # cuInit fails with CUDA_ERROR_NO_DEVICE: dlarray uses no driver
    return StrictDriver()


def install() -> None:
    """Turn this process into a simulated GPU machine (called by tests/gpu_site/sitecustomize.py,
    which has put this folder, and so the fake cupy, first on ``sys.path``)."""
    from gpu_hooks import AfterImport

    sys.meta_path.insert(0, AfterImport("dlarray._cuda", _load_fake_driver))


def _load_fake_driver(cuda_module: Any) -> None:
    cuda_module._load_driver = load_driver


# ----------------------------------------------------------------------------- cupy


class CUDARuntimeError(RuntimeError):
    """What cupy raises for CUDA runtime errors."""


class FakeCupyArray:
    """cupy.ndarray of the simulation: nothing is ever one (there is no memory to hold)."""


class _Stream:
    ptr = 0  # cupy's null stream

    def __enter__(self) -> Self:
        return self

    def __exit__(self, *exc: object) -> None:
        return None


class _Device:
    def __init__(self, device: int = 0) -> None:
        if gpu_hidden():
            raise violation("cupy.cuda.Device", f"device {device}")
        if not 0 <= int(device) < DEVICE_COUNT:
            raise CUDARuntimeError("cudaErrorInvalidDevice: invalid device ordinal")
        self.id = int(device)

    def __enter__(self) -> Self:
        return self

    def __exit__(self, *exc: object) -> None:
        return None


class _Runtime:
    CUDARuntimeError = CUDARuntimeError

    @staticmethod
    def getDeviceCount() -> int:
        if gpu_hidden():
            raise violation("cupy.cuda.runtime.getDeviceCount", "a device query")
        return DEVICE_COUNT


class _UnownedMemory:
    """Device memory handed to cupy by pointer (dlarray's CUDA view): the simulated GPU has none,
    so the pointer is made up."""

    def __init__(self, ptr: int, size: int, owner: object, device_id: int = -1) -> None:
        raise violation("cupy.cuda.UnownedMemory", f"a made-up pointer {ptr!r} ({size} bytes)")


class _Cuda:
    Device = _Device
    runtime = _Runtime()
    UnownedMemory = _UnownedMemory
    stream = type("stream", (), {})  # cupy.cuda.stream, without get_default_stream_ptr

    @staticmethod
    def get_current_stream(device_id: int = -1) -> _Stream:
        if gpu_hidden():
            raise violation("cupy.cuda.get_current_stream", "a stream query")
        return _Stream()


def cupy_attribute(name: str) -> Any:
    """Any other attribute of the fake cupy: compute, copies, imports. The simulated GPU has no
    memory, so every pointer it would be handed is made up."""
    if name == "cuda":
        if gpu_hidden():
            raise violation("cupy.cuda", "cupy's CUDA module")
        return _Cuda
    if name.startswith("__"):
        raise AttributeError(name)

    def entry_point(*args: Any, **kwargs: Any) -> Any:
        raise violation(f"cupy.{name}", "a call into cupy (the simulated GPU has no memory to compute on or copy to)")

    return entry_point


# ----------------------------------------------------------------------------- the runner


def main(argv: list[str]) -> int:
    show_all = "--show-gpu-to-all" in argv
    pytest_args = [a for a in argv if a != "--show-gpu-to-all"] or ["-n", "2", "-p", "no:cacheprovider", "-q", "tests"]
    with tempfile.TemporaryDirectory(prefix="simulated-gpu-") as folder:
        log = Path(folder) / "violations.jsonl"
        log.touch()
        # a fresh GPU machine: nothing hidden yet (when a test of the suite runs this, its own
        # view of the GPU is in the environment), this folder first on the path
        site = str(HERE.parent / "gpu_site")
        path = [p for p in os.environ.get("PYTHONPATH", "").split(os.pathsep) if p and p != site]
        env = dict(os.environ, **{LOG_VARIABLE: str(log)})
        env["PYTHONPATH"] = os.pathsep.join([site, *path])
        for variable in (VIEW_VARIABLE, SHOW_ALL_VARIABLE, "CUDA_VISIBLE_DEVICES"):
            env.pop(variable, None)
        if show_all:
            env[SHOW_ALL_VARIABLE] = "1"
        status = subprocess.call([sys.executable, "-m", "pytest", *pytest_args], env=env)
        entries = [json.loads(line) for line in log.read_text(encoding="utf-8").splitlines() if line]
    by_test: dict[str, set[str]] = defaultdict(set)
    for entry in entries:
        by_test[entry["test"].removesuffix(" (call)").removesuffix(" (setup)").removesuffix(" (teardown)")].add(
            f"{entry['where']}: {entry['what']}")
    print(f"\nsimulated GPU: {len(entries)} violations in {len(by_test)} tests"
          + (" (every test shown the GPU)" if show_all else ""))
    for test in sorted(by_test):
        print(f"  {test}")
        for line in sorted(by_test[test])[:5]:
            print(f"      {line}")
    return status or (1 if entries else 0)


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
