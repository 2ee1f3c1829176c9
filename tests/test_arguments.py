"""Arguments of the DLPack functions are checked: TypeError for a wrong kind, ValueError for a bad value.

``copy`` is None or a bool (numpy's bools count), ``max_version`` and ``dl_device`` None or a tuple
of two ints, ``device`` a device, ``stream`` None or an int (per device rules). Each fast path
(``Array.__dlpack__``'s numpy shortcut, ``from_dlpack``'s numpy and exchange shortcuts) gives
exactly the general path's result for any argument values, refusals included.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import numpy as np
import needs
import pytest
from hypothesis import given
from hypothesis import strategies as st

import dlarray as xp
from dlarray._dlpack import capsule_name

WRONG_COPY = ["no", "x", "", 0, 1, 1.0, [], [1], object(), xp.asarray(True)]


def _name(value: Any) -> str:
    """A test id that is the same in every process (pytest-xdist compares them)."""
    return "object()" if type(value) is object else repr(value)


def _sources() -> list[Any]:
    """One of each import path: a numpy array, an Array, a producer object, a capsule."""
    numpy_array = np.arange(3.0)
    return [numpy_array, xp.asarray([1.0, 2.0]), ThroughDunder(np.arange(3.0)), numpy_array.__dlpack__()]


class ThroughDunder:
    """Only ``__dlpack__`` and ``__dlpack_device__`` of what it wraps: the general import path."""

    def __init__(self, inner: Any) -> None:
        self.inner = inner

    def __dlpack__(self, **options: Any) -> Any:
        return self.inner.__dlpack__(**options)

    def __dlpack_device__(self) -> Any:
        return self.inner.__dlpack_device__()


# --------------------------------------------------------------------------- copy
@pytest.mark.parametrize("copy", WRONG_COPY, ids=_name)
@pytest.mark.parametrize("index", range(4), ids=["numpy", "Array", "producer", "capsule"])
def test_from_dlpack_refuses_a_copy_that_is_not_a_bool(copy: Any, index: int) -> None:
    with pytest.raises(TypeError, match="copy must be None, True or False"):
        xp.from_dlpack(_sources()[index], copy=copy)


@pytest.mark.parametrize("copy", WRONG_COPY, ids=_name)
def test_asarray_and_dunder_dlpack_refuse_a_copy_that_is_not_a_bool(copy: Any) -> None:
    with pytest.raises(TypeError, match="copy"):
        xp.asarray([1.0, 2.0], copy=copy)
    with pytest.raises(TypeError, match="copy"):
        xp.asarray(np.arange(2.0), copy=copy)
    with pytest.raises(TypeError, match="copy"):
        xp.asarray([1.0, 2.0]).__dlpack__(max_version=(1, 0), copy=copy)
    with pytest.raises(TypeError, match="copy"):
        xp.from_dlpack(np.arange(2.0).__dlpack__()).__dlpack__(max_version=(1, 0), copy=copy)


def test_numpy_bools_are_bools() -> None:
    source = np.arange(3.0)
    assert xp.from_dlpack(source, copy=np.False_).data_ptr == source.ctypes.data
    assert xp.from_dlpack(source, copy=np.True_).data_ptr != source.ctypes.data
    assert xp.asarray(source, copy=np.True_).data_ptr != source.ctypes.data
    exported = xp.asarray(source).__dlpack__(max_version=(1, 0), copy=np.True_)
    assert xp.from_dlpack(exported).data_ptr != source.ctypes.data


# --------------------------------------------------------------------------- __dlpack__
BAD_EXPORT_OPTIONS = [
    ({"max_version": [1, 0]}, TypeError),
    ({"max_version": (1,)}, TypeError),
    ({"max_version": (1, 0, 0)}, TypeError),
    ({"max_version": (1.0, 0)}, TypeError),
    ({"max_version": (1, "a")}, TypeError),
    ({"max_version": (True, 0)}, TypeError),
    ({"max_version": 1}, TypeError),
    ({"max_version": "1.0"}, TypeError),
    ({"max_version": (-1, 0)}, ValueError),
    ({"max_version": (1, -1)}, ValueError),
    ({"dl_device": [1, 0]}, TypeError),
    ({"dl_device": (1,)}, TypeError),
    ({"dl_device": (1.0, 0)}, TypeError),
    ({"dl_device": ("cpu", 0)}, TypeError),
    ({"dl_device": (True, 0)}, TypeError),
    ({"dl_device": "cpu"}, TypeError),
    ({"dl_device": (99, 0)}, BufferError),  # the standard: a device the producer cannot handle
    ({"dl_device": (1, -1)}, BufferError),
    ({"dl_device": (4, 0)}, BufferError),  # OpenCL: DLPack's, but no backend copies there
    ({"stream": "a"}, TypeError),
    ({"stream": 1.0}, TypeError),
    ({"stream": True}, TypeError),
    ({"stream": 1}, BufferError),  # the rule for the CPU: there is no stream to order
    ({"stream": -1}, BufferError),
]


def _numpy_backed() -> xp.Array:
    return xp.asarray([1.0, 2.0, 3.0])


def _imported() -> xp.Array:
    """An Array with no numpy array behind it yet: ``__dlpack__`` takes its general path."""
    return xp.from_dlpack(np.arange(1.0, 4.0).__dlpack__(max_version=(1, 0)))


@pytest.mark.parametrize("options, expected", BAD_EXPORT_OPTIONS, ids=[repr(o) for o, _ in BAD_EXPORT_OPTIONS])
@pytest.mark.parametrize("make", [_numpy_backed, _imported], ids=["numpy-backed", "imported"])
def test_dunder_dlpack_refuses_a_bad_option(make: Callable[[], xp.Array], options: dict[str, Any],
                                            expected: type) -> None:
    with pytest.raises(expected):
        make().__dlpack__(**{"max_version": (1, 0), **options})


def test_dunder_dlpack_takes_numpy_integers() -> None:
    capsule = _numpy_backed().__dlpack__(max_version=(np.int64(1), np.int32(0)), dl_device=(np.int64(1), 0))
    assert capsule_name(capsule) == b"dltensor_versioned"


# --------------------------------------------------------------------------- devices
BAD_DEVICES = [
    ((1.0, 0), TypeError), (("cpu", 0), TypeError), ((True, 0), TypeError), ([1, 0], TypeError),
    (1, TypeError), (object(), TypeError), ((1, -1), ValueError), ((99, 0), ValueError),
    ("gpu", ValueError), ("cuda:-1", ValueError),
]


@pytest.mark.parametrize("device, expected", BAD_DEVICES, ids=[_name(d) for d, _ in BAD_DEVICES])
def test_a_bad_device_is_refused_everywhere(device: Any, expected: type) -> None:
    for source in _sources():
        with pytest.raises(expected):
            xp.from_dlpack(source, device=device)
    with pytest.raises(expected):
        xp.asarray(np.arange(2.0), device=device)
    with pytest.raises(expected):
        xp.ones(2).to_device(device)


# --------------------------------------------------------------------------- to_device's stream
@pytest.mark.parametrize("arguments, expected", [
    ((1.5,), TypeError), (("cuda", 1.0), TypeError), (("cuda", True), TypeError), ((True,), TypeError),
    (("cuda", -1), ValueError), ((2, -1), ValueError), ((99,), ValueError), (("gpu",), ValueError),
], ids=repr)
def test_device_constructor_refuses_bad_arguments(arguments: tuple[Any, ...], expected: type) -> None:
    """Device(...) as its name form does: ints for the type and id (numpy's too), no negative id."""
    with pytest.raises(expected):
        xp.Device(*arguments)


def test_device_constructor_takes_numpy_integers() -> None:
    assert xp.Device("cuda", np.int64(1)) is xp.Device(np.int32(2), 1) is xp.Device("cuda:1")


@pytest.mark.parametrize("stream, expected", [("x", TypeError), (1.5, TypeError), (True, TypeError),
                                              (1, ValueError), (-1, ValueError), (0, ValueError)])
def test_to_device_refuses_a_stream_without_cuda(stream: Any, expected: type) -> None:
    with pytest.raises(expected):
        xp.ones(2).to_device("cpu", stream=stream)


# --------------------------------------------------------------------------- fast == general
ODD_VALUES = [
    None, True, False, 0, 1, -1, 2, 1.0, "x", "cpu", "cuda:0", "gpu", [], [1, 0], (1, 0), (1, 3), (0, 8), (2, 0),
    (1,), (1, 0, 0), (1.0, 0), (True, 0), (-1, 0), (1, -1), (99, 0), (4, 0), np.True_, np.False_, np.int64(1),
    (np.int64(1), 0), object(),
]
odd = st.sampled_from(range(len(ODD_VALUES)))


def _capsule_outcome(call: Callable[[], Any], source: xp.Array) -> tuple[Any, ...]:
    try:
        capsule = call()
    except Exception as exc:  # noqa: BLE001 - the outcome is what is compared
        return ("raised", type(exc))
    name = capsule_name(capsule)
    x = xp.from_dlpack(capsule)
    shared = x.data_ptr == source.data_ptr
    geometry = (x.strides, x.readonly) if shared else ()
    return ("capsule", name, shared, x.shape, x.dtype, x.device, geometry, np.asarray(x).tolist())


def _import_outcome(call: Callable[[], Any], source: Any) -> tuple[Any, ...]:
    try:
        x = call()
    except Exception as exc:  # noqa: BLE001
        return ("raised", type(exc))
    shared = x.data_ptr == source.ctypes.data
    # a copy's layout is the copier's choice (numpy keeps the order, dlarray makes C order)
    geometry = (x.strides, x.readonly) if shared else ()
    return ("array", shared, x.shape, x.dtype, x.device, geometry, np.asarray(x.to_device("cpu")).tolist())


@given(stream=odd, max_version=odd, dl_device=odd, copy=odd, read_only=st.booleans(),
       given_keys=st.sets(st.sampled_from(["stream", "max_version", "dl_device", "copy"])))
def test_dunder_dlpack_fast_path_matches_the_general_path(stream: int, max_version: int, dl_device: int,
                                                          copy: int, read_only: bool,
                                                          given_keys: set[str]) -> None:
    values = {"stream": stream, "max_version": max_version, "dl_device": dl_device, "copy": copy}
    options = {key: ODD_VALUES[values[key]] for key in given_keys}
    base = np.arange(1.0, 4.0)
    if read_only:
        base.flags.writeable = False
    fast = xp.asarray(base)  # numpy-backed: the shortcut where the options allow it
    general = xp.from_dlpack(base.__dlpack__(max_version=(1, 0)))  # no numpy array behind it yet
    assert general._native is None
    assert _capsule_outcome(lambda: fast.__dlpack__(**options), fast) == \
        _capsule_outcome(lambda: general.__dlpack__(**options), general)


@given(device=odd, copy=odd, given_keys=st.sets(st.sampled_from(["device", "copy"])), read_only=st.booleans())
def test_from_dlpack_fast_paths_match_the_general_path(device: int, copy: int, given_keys: set[str],
                                                      read_only: bool) -> None:
    values = {"device": device, "copy": copy}
    options = {key: ODD_VALUES[values[key]] for key in given_keys}
    source = np.arange(1.0, 4.0)
    if read_only:
        source.flags.writeable = False
    fast = _import_outcome(lambda: xp.from_dlpack(source, **options), source)
    general = _import_outcome(lambda: xp.from_dlpack(ThroughDunder(source), **options), source)
    assert fast == general


@given(device=odd, copy=odd, given_keys=st.sets(st.sampled_from(["device", "copy"])))
def test_from_dlpack_exchange_path_matches_the_general_path(device: int, copy: int, given_keys: set[str]) -> None:
    torch = needs.library("torch")
    values = {"device": device, "copy": copy}
    options = {key: ODD_VALUES[values[key]] for key in given_keys}
    tensor = torch.arange(1.0, 4.0, dtype=torch.float64)
    source = tensor.numpy()  # the same memory, for the outcome's pointer test
    fast = _import_outcome(lambda: xp.from_dlpack(tensor, **options), source)
    general = _import_outcome(lambda: xp.from_dlpack(ThroughDunder(tensor), **options), source)
    assert fast == general


def test_an_accepted_max_version_does_not_vouch_for_an_equal_one_of_bools() -> None:
    """The export shortcut remembers the version tuples it has checked by identity: a tuple that
    compares equal to one of them but holds bools is still refused, on every call."""
    x = xp.asarray([1.0, 2.0])
    accepted = (1, 0)
    for _ in range(3):
        assert capsule_name(x.__dlpack__(max_version=accepted)) == b"dltensor_versioned"
        for equal in ((True, 0), (True, False), (1, False)):
            with pytest.raises(TypeError, match="max_version must be a tuple of two ints"):
                x.__dlpack__(max_version=equal)
