"""Pickling and copies of CUDA arrays on a real GPU (tests/test_pickling.py covers the host).

A CUDA array pickles as its values, copied to the host with cupy, and loads back onto its device;
``copy.copy`` / ``copy.deepcopy`` copy on the device. Skipped without cupy or a GPU (conftest.py).
"""

from __future__ import annotations

import copy
import pickle
import subprocess
import sys
import textwrap

import numpy as np
import pytest

cupy = pytest.importorskip("cupy")
torch = pytest.importorskip("torch")

import dlarray as xp  # noqa: E402

PROTOCOLS = range(pickle.HIGHEST_PROTOCOL + 1)


def _ways() -> list:
    ways = [lambda x, p=p: pickle.loads(pickle.dumps(x, protocol=p)) for p in PROTOCOLS]
    return ways + [copy.copy, copy.deepcopy]


def test_a_cuda_array_travels_as_values_and_comes_back_on_its_device() -> None:
    host = np.arange(24, dtype=np.float32).reshape(4, 6)
    x = xp.asarray(host, device="cuda:0")[::-1, 1::2]
    x.data_ptr, x.strides  # metadata read (and kept) on the view before the copy
    expected = host[::-1, 1::2]
    for make in _ways():
        y = make(x)
        assert str(y.device) == "cuda:0" and y.dtype is xp.float32 and y.shape == expected.shape
        assert y.data_ptr != x.data_ptr and not y.readonly
        np.testing.assert_array_equal(np.asarray(y.to_device("cpu")), expected)
        cupy.from_dlpack(y)[...] = -1  # the copy is independent
        cupy.cuda.get_current_stream().synchronize()
        np.testing.assert_array_equal(np.asarray(x.to_device("cpu")), expected)


def test_bfloat16_on_the_gpu_is_copied_bit_for_bit() -> None:
    t = torch.linspace(-3, 3, 12, device="cuda", dtype=torch.bfloat16).reshape(3, 4)
    x = xp.from_dlpack(t).mT
    for make in _ways():
        y = make(x)
        assert str(y.device) == "cuda:0" and y.dtype is xp.bfloat16 and y.shape == (4, 3)
        assert y.data_ptr != x.data_ptr
        assert torch.equal(torch.from_dlpack(y).view(torch.int16), t.mT.view(torch.int16))


def test_a_cuda_pickle_loads_in_another_process(tmp_path) -> None:
    x = xp.asarray(np.arange(5, dtype=np.int64), device="cuda:0")
    path = tmp_path / "x.pickle"
    path.write_bytes(pickle.dumps(x))
    code = textwrap.dedent("""
        import pickle, sys
        import numpy as np
        import dlarray as xp
        y = pickle.loads(open(sys.argv[1], "rb").read())
        assert str(y.device) == "cuda:0", y.device
        assert np.asarray(y.to_device("cpu")).tolist() == [0, 1, 2, 3, 4]
        print("ok")
    """)
    done = subprocess.run([sys.executable, "-c", code, str(path)], capture_output=True, text=True, timeout=240)
    assert done.returncode == 0 and done.stdout.strip() == "ok", done.stderr[-3000:]
    # without cupy the device cannot be reached: a TypeError that says so
    blocked = 'import sys\nsys.modules["cupy"] = None\n' + code.replace('print("ok")', "")
    done = subprocess.run([sys.executable, "-c", blocked, str(path)], capture_output=True, text=True, timeout=240)
    assert done.returncode != 0 and "TypeError" in done.stderr and "cupy" in done.stderr, done.stderr[-3000:]
