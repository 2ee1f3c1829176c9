"""Child interpreters that exit with dlarray objects still alive: the scenarios, and their runner.

Each scenario is a script that leaves arrays, views, unconsumed exports, cycles, daemon threads or
shutdown hooks behind and lets the interpreter exit. A clean exit is: status 0, ``ok`` printed,
and no "Exception ignored", fatal error, traceback or C++ termination on stderr.
``tests/test_process_exit.py`` runs each scenario a few times; ``tests/stress/stress.py`` runs
them hundreds of times, concurrently, which is what catches shutdown races.
"""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import needs

TESTS = Path(__file__).resolve().parent

PRELUDE = """
import faulthandler, gc, sys
faulthandler.enable()
sys.path.insert(0, {tests!r})
import numpy as np
import dlarray
from producer import make_capsule
"""

SCENARIOS = {
    # arrays, views, unconsumed exports and cycles from every producer, held where the
    # interpreter frees them last (builtins, sys, class attributes), the cyclic GC switched off
    "foreign-producers": """
import builtins, os
os.environ.setdefault("JAX_PLATFORMS", "cpu")
import torch, jax, jax.numpy as jnp
gc.disable()
made = make_capsule((8, 8))
x = dlarray.from_dlpack(made.capsule)
t = torch.arange(12.0).reshape(3, 4)
j = jnp.arange(6.0)
n = np.arange(5.0)
from_torch, from_jax = dlarray.from_dlpack(t), dlarray.from_dlpack(j)
from_numpy = dlarray.from_dlpack(n.__dlpack__(max_version=(1, 3)))
keep = [x, x[1:], x.mT, from_torch.T, from_jax[::-1], from_numpy,
        x.__dlpack__(max_version=(1, 3)), x.__dlpack__(), from_torch.__dlpack__(max_version=(1, 3)),
        torch.from_dlpack(from_numpy), torch.from_dlpack(x[::2]), np.from_dlpack(from_jax),
        jax.dlpack.from_dlpack(dlarray.asarray(np.ones(3))), make_capsule((2,)).capsule,
        dlarray.from_dlpack(torch.ones(4, dtype=torch.bfloat16)), dlarray.asarray(b"bytes!")]
cycle = [from_torch, from_jax, keep]
cycle.append(cycle)
builtins._dlarray_keep = [x[2:], from_jax.__dlpack__(max_version=(1, 3))]
sys._dlarray_keep = [from_torch, cycle]
class Holder:
    arrays = [from_numpy.__dlpack__(), x]
Holder.me = Holder
print("ok")
""",
    # daemon threads still importing, viewing, exporting and freeing when the main thread ends
    "daemon-threads": """
import threading, time
def spin(k):
    while True:
        made = make_capsule((4, 4), versioned=bool(k % 2))
        x = dlarray.from_dlpack(made.capsule)
        y = np.from_dlpack(x[1:])
        z = dlarray.from_dlpack(np.arange(6.0).__dlpack__(max_version=(1, 3)))
        z.__dlpack__(max_version=(1, 3))
        keep = [x.T, y, z]
        keep.append(keep)
for k in range(6):
    threading.Thread(target=spin, args=(k,), daemon=True).start()
time.sleep(0.3)
print("ok")
""",
    # code that imports and exports during shutdown: atexit, __del__ in a cycle, finalizers
    "shutdown-hooks": """
import atexit, weakref
made = make_capsule((3, 3))
x = dlarray.from_dlpack(made.capsule)
def at_exit(arr=x):
    y = dlarray.from_dlpack(arr.__dlpack__(max_version=(1, 3)))
    np.from_dlpack(y[1:])
    y.__dlpack__()
atexit.register(at_exit)
class Late:
    def __del__(self):
        z = dlarray.from_dlpack(self.array.__dlpack__(max_version=(1, 3)))
        self.capsule = z.__dlpack__()
late = Late()
late.array = dlarray.from_dlpack(make_capsule((5,)).capsule)
late.me = late
weakref.finalize(late, lambda a=x[1:]: a.__dlpack__(max_version=(1, 3)))
def exit_with_arrays_in_frames():
    local = dlarray.from_dlpack(make_capsule((2, 2), versioned=False).capsule)  # read-only
    capsule = dlarray.from_dlpack(make_capsule((2, 2)).capsule).__dlpack__()  # a legacy export
    copied = local.__dlpack__(copy=True)
    print("ok")
    sys.exit(0)
exit_with_arrays_in_frames()
""",
}


# the optional libraries a scenario imports: where one is absent (make test-latest has no torch) the
# scenario is not run, and says so, unless the run requires it (tests/needs.py)
LIBRARIES = {"foreign-producers": ("torch", "jax")}


def missing_libraries(scenario: str) -> list[str]:
    """The libraries ``scenario`` imports that are not installed (and not required: then it runs and fails)."""
    return needs.absent(*LIBRARIES.get(scenario, ()))


_FAILURE_MARKERS = ("Exception ignored", "Fatal Python error", "Segmentation fault", "Traceback",
                    "terminate called")


def write_script(scenario: str, folder: Path) -> Path:
    """Write ``scenario`` as a runnable script into ``folder`` and return its path."""
    script = folder / f"{scenario}.py"
    script.write_text(PRELUDE.format(tests=str(TESTS)) + SCENARIOS[scenario])
    return script


def run_children(scripts: list[Path]) -> list[subprocess.CompletedProcess]:
    """Run each of ``scripts`` in its own child interpreter, all at once (jax on CPU)."""
    env = dict(os.environ, JAX_PLATFORMS="cpu", PYTHONFAULTHANDLER="1")
    children = [subprocess.Popen([sys.executable, str(script)], stdout=subprocess.PIPE,
                                 stderr=subprocess.PIPE, text=True, env=env) for script in scripts]
    results = []
    for child in children:
        try:
            out, err = child.communicate(timeout=300)
        except subprocess.TimeoutExpired:
            child.kill()
            out, err = child.communicate()
            err += "\n[exit_scenarios] killed after 300 s: the interpreter did not exit"
        results.append(subprocess.CompletedProcess(child.args, child.returncode, out, err))
    return results


def exit_problem(result: subprocess.CompletedProcess) -> str | None:
    """What went wrong in one child's exit, or None for a clean exit."""
    if result.returncode != 0:
        return f"exit status {result.returncode}"
    if result.stdout.strip() != "ok":
        return f"printed {result.stdout.strip()[:200]!r} instead of 'ok'"
    for marker in _FAILURE_MARKERS:
        if marker in result.stderr:
            return f"{marker!r} on stderr"
    return None
