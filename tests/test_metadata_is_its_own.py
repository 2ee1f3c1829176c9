"""An Array's metadata is its own: what it shows never changes after it is made.

numpy lets the holder of an array set its shape, strides and dtype in place (``n.shape = (2, 3)``,
``n.dtype = np.int64``); none of that reaches an Array imported from it, or the numpy array it hands
out (``np.asarray(x)``). The shape and dtype an Array shows are always those of the elements it
computes on. A result's description is read from the backend when first asked for, and a reader on
another thread never sees it half filled.
"""

from __future__ import annotations

import sys
import threading

import numpy as np
import pytest

import dlarray as xp

# numpy deprecates setting these in place (strides: 2.4, shape and dtype: 2.5) and still does it:
# what users' code does until numpy refuses
pytestmark = pytest.mark.filterwarnings(r"ignore:Setting the (shape|dtype|strides).*:DeprecationWarning")

IMPORTS = {
    "from_dlpack": xp.from_dlpack,
    "asarray": xp.asarray,
    "asarray copy=False": lambda n: xp.asarray(n, copy=False),
}


@pytest.mark.parametrize("make", list(IMPORTS))
def test_reshaping_the_source_in_place_does_not_reach_the_array(make: str) -> None:
    n = np.arange(6.0)
    x = IMPORTS[make](n)
    n.shape = (2, 3)
    assert x.shape == (6,) and x.strides == (1,) and x.ndim == 1
    assert np.asarray(x).shape == (6,)
    assert float(xp.sum(x[3:])) == 12.0
    n[1, 0] = 30.0  # still one memory
    assert float(x[3]) == 30.0


@pytest.mark.parametrize("make", list(IMPORTS))
def test_retyping_the_source_in_place_does_not_reach_the_array(make: str) -> None:
    """The dtype shown is the dtype computed on: a re-typed source must not make sum() read int64
    bit patterns while x.dtype still says float64."""
    n = np.arange(6.0)
    x = IMPORTS[make](n)
    n.dtype = np.int64
    assert x.dtype == xp.float64
    assert float(xp.sum(x)) == 15.0
    assert (x + 0).dtype == xp.float64 and np.asarray(x + 0).tolist() == [0.0, 1.0, 2.0, 3.0, 4.0, 5.0]


def test_re_striding_the_source_in_place_does_not_reach_the_array() -> None:
    n = np.arange(6.0)
    x = xp.from_dlpack(n)
    n.strides = (0,)
    assert x.strides == (1,) and np.asarray(x).tolist() == [0.0, 1.0, 2.0, 3.0, 4.0, 5.0]


def test_changing_what_np_asarray_gave_does_not_reach_the_array() -> None:
    x = xp.asarray(np.arange(6.0))
    given = np.asarray(x)
    given.shape = (3, 2)
    given.dtype = np.int64
    assert x.shape == (6,) and x.dtype == xp.float64 and float(xp.sum(x)) == 15.0
    assert np.shares_memory(np.asarray(x), given)  # a view: still zero-copy


def test_a_read_only_source_made_writable_again_leaves_the_array_read_only() -> None:
    n = np.arange(4.0)
    n.flags.writeable = False
    x = xp.asarray(n)
    n.flags.writeable = True  # the owner of the memory may; the Array keeps its own answer
    assert x.readonly
    with pytest.raises(ValueError):
        x[0] = 1.0


@pytest.mark.parametrize("attribute", ["strides", "data_ptr", "readonly", "shape", "ndim", "size", "nbytes"])
def test_a_fresh_results_metadata_never_fails_for_a_reader_on_another_thread(attribute: str) -> None:
    """Four threads read the description of a result made just before, all at once, while it is
    filled on first read (by whichever thread comes first), with a tiny switch interval: every
    read gives the value, never AttributeError."""
    base = xp.asarray(np.arange(12.0).reshape(3, 4))
    expected = {"strides": (4, 1), "shape": (3, 4), "ndim": 2, "size": 12, "nbytes": 96, "readonly": False}
    readers = 4
    rounds = 1000
    problems: list[object] = []
    current: list[xp.Array] = []
    gate = threading.Barrier(readers + 1)

    def reader() -> None:
        for _ in range(rounds):
            gate.wait()  # a fresh result is there
            try:
                value = getattr(current[0], attribute)
            except BaseException as error:  # noqa: BLE001 - what a reader could meet is the point
                problems.append(error)
            else:
                if attribute in expected and value != expected[attribute]:
                    problems.append(value)
            gate.wait()  # every reader is done with it

    switch = sys.getswitchinterval()
    sys.setswitchinterval(1e-6)
    threads = [threading.Thread(target=reader) for _ in range(readers)]
    try:
        for thread in threads:
            thread.start()
        for i in range(rounds):
            current[:] = [base + i]  # its description not read yet
            gate.wait()
            gate.wait()
    except BaseException:
        gate.abort()  # the readers stop waiting for rounds that will not come
        raise
    finally:
        sys.setswitchinterval(switch)
        for thread in threads:
            thread.join()
    assert not problems, problems[:3]
