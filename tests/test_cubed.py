"""cubed computing with dlarray as its chunk namespace (``CUBED_BACKEND_ARRAY_API_MODULE=dlarray``).

cubed (Python 3.12 and newer: make test-latest installs it) splits an array into chunks and computes
each chunk with the namespace its environment variable names, read once, when cubed is imported. So
the same script runs in two child processes, one with the variable set to dlarray and one without it
(cubed's numpy backend), nothing patched, and the tests compare what they computed with each other
and with numpy's own computation on the same numbers. The full-size run, timed against cubed's numpy
backend, is ``make scale-out`` (benchmarks/scale_out.py); the calls cubed makes that dlarray does not
take are listed in docs/guide/scaling-out.md and checked here.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path
from typing import Any

import needs
import numpy as np
import pytest

pytestmark = needs.skip_without("cubed")

ROOT = Path(__file__).resolve().parent.parent

_SCRIPT = r"""
import json, random, sys
import numpy as np
import cubed, cubed.random
import cubed.array_api as xp
from cubed.backend_array_api import namespace
from cubed.runtime.create import create_executor
import dlarray

spec = cubed.Spec(work_dir=sys.argv[1], allowed_mem="100MB")
threads = create_executor("threads")
found = {"namespace": namespace.__name__}

# a few of each kind of operation, on the threads executor
random.seed(0)  # cubed.random takes its root seed from Python's random module
a = cubed.random.random((60, 45), chunks=(25, 20), spec=spec)
i = xp.astype(xp.floor(a * 10), xp.int32)
lazy = {
    "a": a,
    "sum(a @ a.T)": xp.sum(a @ a.T),
    "mean(a, axis=0)": xp.mean(a, axis=0),
    "max(a, axis=1)": xp.max(a, axis=1),
    "where(a > 0.5, sqrt(a), -a)": xp.where(a > 0.5, xp.sqrt(a), -a),
    "a[5:50:3, 1::2].T": a[5:50:3, 1::2].T,
    "concat([a, a * 2], axis=1)": xp.concat([a, a * 2], axis=1),
    "rechunk(a, (30, 45)) + 1": cubed.rechunk(a, (30, 45)) + 1,
    "astype(floor(a * 10), int32)": i,
    "sum(i, axis=0, dtype=int64)": xp.sum(i, axis=0, dtype=xp.int64),
    "var(a)": xp.var(a),  # cubed's var and std ask the chunks for numpy's mean(x, dtype=)
    "std(a, axis=0)": xp.std(a, axis=0),
}
computed = cubed.compute(*lazy.values(), executor=threads)
found["cubed_dtypes"] = [str(a.dtype), str(i.dtype)]
found["cubed_dtypes_are_dlarrays"] = bool(a.dtype == dlarray.float64 and i.dtype == dlarray.int32)
found["results"] = {name: {"type": f"{type(value).__module__}.{type(value).__qualname__}",
                           "dtype": str(value.dtype), "shape": list(value.shape),
                           "values": np.asarray(value).tolist()}
                    for name, value in zip(lazy, computed)}

# one value, bit for bit, on the threads and on a worker process (spawn: it imports cubed itself),
# and what the chunks are where the tasks run: 1 for a dlarray Array, 0 for anything else
def chunk_is_dlarray(x):
    import dlarray
    from cubed.backend_array_api import namespace
    return namespace.full(x.shape, 1.0 if isinstance(x, dlarray.Array) else 0.0)

found["values"], found["chunks_are_dlarrays"] = {}, {}
for name, executor in (("threads", threads), ("processes", create_executor("processes", {"max_workers": 1}))):
    random.seed(1)
    b = cubed.random.random((60, 60), chunks=(30, 30), spec=spec)
    value, kinds = cubed.compute(xp.sum(b @ b.T), xp.min(cubed.map_blocks(chunk_is_dlarray, b, dtype=b.dtype)),
                                 executor=executor)
    found["values"][name] = float(value).hex()
    found["chunks_are_dlarrays"][name] = float(kinds)

# cubed's functions that call numpy-only functions or keywords on their chunks
c = xp.asarray(np.arange(24.0).reshape(4, 6), chunks=(2, 3), spec=spec)
cases = {
    "nanmean": lambda: cubed.nanmean(c),
    "nansum": lambda: cubed.nansum(c),
    "map_overlap": lambda: cubed.map_overlap(lambda x: x, xp.asarray(np.arange(6.0), chunks=(3,), spec=spec),
                                             dtype=c.dtype, chunks=((5, 5),), depth=1, boundary=0,
                                             trim=False),
}
found["numpy_only"] = {}
for name, case in cases.items():
    try:
        case().compute(executor=threads)
        found["numpy_only"][name] = "computed"
    except Exception as error:
        found["numpy_only"][name] = f"{type(error).__name__}: {error}"
print(json.dumps(found))
"""


def _run(backend: str | None, work_dir: Path) -> dict[str, Any]:
    """The script in a fresh Python whose cubed computes with ``backend`` (None: cubed's numpy)."""
    env = dict(os.environ)
    env.pop("CUBED_BACKEND_ARRAY_API_MODULE", None)
    if backend is not None:
        env["CUBED_BACKEND_ARRAY_API_MODULE"] = backend
    done = subprocess.run([sys.executable, "-c", _SCRIPT, str(work_dir)], env=env, capture_output=True,
                          text=True, timeout=300, cwd=ROOT, check=False)
    assert done.returncode == 0, done.stdout[-2000:] + done.stderr[-4000:]
    return json.loads(done.stdout.strip().splitlines()[-1])


@pytest.fixture(scope="module")
def runs(tmp_path_factory: pytest.TempPathFactory) -> dict[str, dict[str, Any]]:
    """What the script found on cubed's numpy backend and on dlarray."""
    found = {"numpy": _run(None, tmp_path_factory.mktemp("numpy")),
             "dlarray": _run("dlarray", tmp_path_factory.mktemp("dlarray"))}
    assert found["numpy"]["namespace"] == "numpy" and found["dlarray"]["namespace"] == "dlarray"
    return found


def test_cubed_computes_on_dlarray_chunks(runs: dict[str, dict[str, Any]]) -> None:
    """Every result a dlarray Array, with the values of numpy's whole-array computation and those of
    cubed's numpy backend."""
    ours, numpy_backend = runs["dlarray"]["results"], runs["numpy"]["results"]
    # cubed holds numpy's dtypes (np.dtype(...) of the backend's); they equal dlarray's
    assert runs["dlarray"]["cubed_dtypes"] == ["float64", "int32"]
    assert runs["dlarray"]["cubed_dtypes_are_dlarrays"]
    for name, result in ours.items():
        assert result["type"] == "dlarray._array.Array", name
        assert numpy_backend[name]["type"] == "numpy.ndarray", name

    a = np.asarray(ours["a"]["values"])
    assert a.shape == (60, 45) and np.all((a >= 0) & (a < 1))
    i = np.floor(a * 10).astype(np.int32)
    expected = {
        "a": np.asarray(numpy_backend["a"]["values"]),  # the same seed, the same numbers
        "sum(a @ a.T)": np.sum(a @ a.T),
        "mean(a, axis=0)": np.mean(a, axis=0),
        "max(a, axis=1)": np.max(a, axis=1),
        "where(a > 0.5, sqrt(a), -a)": np.where(a > 0.5, np.sqrt(a), -a),
        "a[5:50:3, 1::2].T": a[5:50:3, 1::2].T,
        "concat([a, a * 2], axis=1)": np.concatenate([a, a * 2], axis=1),
        "rechunk(a, (30, 45)) + 1": a + 1,
        "astype(floor(a * 10), int32)": i,
        "sum(i, axis=0, dtype=int64)": np.sum(i, axis=0, dtype=np.int64),
        "var(a)": np.var(a),
        "std(a, axis=0)": np.std(a, axis=0),
    }
    assert set(expected) == set(ours)
    for name, value in expected.items():
        result = ours[name]
        assert result["dtype"] == str(value.dtype) == numpy_backend[name]["dtype"], name
        assert tuple(result["shape"]) == value.shape, name
        # cubed's chunks are computed alike on both backends; numpy's whole-array reductions add in
        # another order
        assert result["values"] == numpy_backend[name]["values"], name
        np.testing.assert_allclose(np.asarray(result["values"]), value, rtol=1e-12, err_msg=name)


def test_the_same_value_as_cubeds_numpy_backend(runs: dict[str, dict[str, Any]]) -> None:
    """``xp.sum(b @ b.T)`` on dlarray and on cubed's numpy backend, bit for bit, on one process's
    threads and on a worker process (started with spawn: it imports cubed and dlarray itself)."""
    ours = runs["dlarray"]["values"]
    assert set(ours) == {"threads", "processes"}
    assert ours == runs["numpy"]["values"]
    assert ours["threads"] == ours["processes"]
    # the tasks computed on dlarray chunks, in the worker process too; on numpy's backend, on numpy's
    assert runs["dlarray"]["chunks_are_dlarrays"] == {"threads": 1.0, "processes": 1.0}
    assert runs["numpy"]["chunks_are_dlarrays"] == {"threads": 0.0, "processes": 0.0}


#: what each of cubed's functions asks of its chunk namespace that the standard does not have:
#: (the error dlarray raises, part of its message, the call as docs/guide/scaling-out.md names it)
NUMPY_ONLY = {
    "nanmean": ("AttributeError", "has no attribute 'nansum'", "`nansum(x)`"),
    "nansum": ("AttributeError", "has no attribute 'nansum'", "`nansum(x)`"),
    "map_overlap": ("TypeError", "full_like() got an unexpected keyword argument 'shape'",
                    "`full_like(x, fill_value, shape=...)`"),
}


def test_the_numpy_only_calls_are_those_the_guide_names(runs: dict[str, dict[str, Any]]) -> None:
    """cubed's functions that call numpy-only functions or keywords on their chunks compute on cubed's
    numpy backend and stop on dlarray at that call, as docs/guide/scaling-out.md says."""
    numpy_backend, ours = runs["numpy"]["numpy_only"], runs["dlarray"]["numpy_only"]
    assert set(numpy_backend) == set(ours) == set(NUMPY_ONLY)
    guide = (ROOT / "docs" / "guide" / "scaling-out.md").read_text()
    for name, (error, message, call) in NUMPY_ONLY.items():
        assert numpy_backend[name] == "computed", (name, numpy_backend[name])
        assert ours[name].startswith(f"{error}: ") and message in ours[name], (name, ours[name])
        assert f"`cubed.{name}`" in guide or f"`xp.{name}`" in guide, name
        assert call in guide, call


_ON_CUDA = r"""
import json
import cubed, cubed.random
import cubed.array_api as xp
import dlarray

found = {"default_device": str(dlarray.__array_namespace_info__().default_device())}
cases = {
    "ones": lambda: xp.sum(xp.ones((4, 4), chunks=(2, 2))),
    "random + 1": lambda: cubed.random.random((4, 4), chunks=(2, 2)) + 1,
}
for name, case in cases.items():
    try:
        case().compute()
        found[name] = "computed"
    except Exception as error:
        found[name] = f"{type(error).__name__}: {error}"
print(json.dumps(found))
"""


def test_device_chunks_stop_where_the_guide_says(tmp_path: Path) -> None:
    """With dlarray's default device on CUDA (here the suite's stand-in for cupy, numpy playing it
    without a GPU: conformance/simulated_cuda), cubed 0.28 hands a device chunk to ``np.asarray`` to
    store it, which dlarray refuses, and makes chunks from numpy arrays on the CPU, where they meet
    device arrays: what docs/guide/scaling-out.md says of CUDA."""
    env = dict(os.environ, CUBED_BACKEND_ARRAY_API_MODULE="dlarray", DLARRAY_DEFAULT_DEVICE="cuda:0",
               PYTHONPATH=os.pathsep.join(filter(None, [str(ROOT / "conformance" / "simulated_cuda"), str(ROOT),
                                                        os.environ.get("PYTHONPATH")])))
    done = subprocess.run([sys.executable, "-c", _ON_CUDA], env=env, capture_output=True, text=True,
                          timeout=300, cwd=tmp_path, check=False)
    assert done.returncode == 0, done.stdout[-2000:] + done.stderr[-4000:]
    found = json.loads(done.stdout.strip().splitlines()[-1])
    assert found["default_device"] == "cuda:0"
    stored = "TypeError: an array on cuda:0 is not converted to numpy implicitly"
    assert found["ones"].startswith(stored), found["ones"]
    assert found["random + 1"].startswith("ValueError: arrays are on different devices"), found["random + 1"]
    guide = (ROOT / "docs" / "guide" / "scaling-out.md").read_text()
    assert stored.split(": ", 1)[1] in guide and "arrays are on different devices" in guide


def test_scale_out_quick(tmp_path: Path) -> None:
    """benchmarks/scale_out.py (make scale-out) runs and writes its JSON: a smoke run, threads only;
    no time is asserted."""
    done = subprocess.run([sys.executable, str(ROOT / "benchmarks" / "scale_out.py"), "--quick", "--executors",
                           "threads", "--out", str(tmp_path)], capture_output=True, text=True, timeout=300,
                          check=False)
    assert done.returncode == 0, done.stdout[-2000:] + done.stderr[-4000:]
    assert "bit-identical" in done.stdout
    result = json.loads((tmp_path / "scale_out.json").read_text())
    assert result["benchmark"] == "scale_out" and result["environment"]["quick"] is True
    threads = result["executors"]["threads"]
    assert threads["values_bit_identical"]
    assert [run["result_type"] for run in threads["runs"]["dlarray"]] == ["dlarray._array.Array"]
    assert [run["result_type"] for run in threads["runs"]["numpy"]] == ["numpy.ndarray"]
    assert threads["runs"]["dlarray"][0]["value_hex"] == threads["runs"]["numpy"][0]["value_hex"]
