"""Process-wide state another library can change does not change dlarray.

``ctypes.pythonapi`` and its cached function objects are shared by every library in a process; a
library that sets ``ctypes.pythonapi.PyCapsule_GetName.argtypes`` its own way must not break
dlarray. Each check runs in a child interpreter, so that the mangled ``pythonapi`` cannot reach the
other tests.
"""

from __future__ import annotations

import subprocess
import sys
import textwrap

import needs
import pytest

# Every C-API function dlarray calls, and a few it does not: a mangling library changes them all.
MANGLED = [
    "PyCapsule_GetName", "PyCapsule_GetPointer", "PyCapsule_SetName", "PyCapsule_New",
    "PyCapsule_IsValid", "PyCapsule_GetContext", "Py_IncRef", "Py_DecRef", "PyObject_GetBuffer",
    "PyBuffer_Release", "PyObject_CheckBuffer", "PyBytes_AsString", "PyMemoryView_FromObject",
]

CHILD = textwrap.dedent(
    """
    import array, ctypes, faulthandler, gc, sys
    faulthandler.enable()

    class Mangled(ctypes.Structure):
        _fields_ = [("a", ctypes.c_double), ("b", ctypes.c_double)]

    def mangle():
        # What a careless library does: its own (wrong for anyone else) signatures on the
        # shared function objects.
        for name in {mangled!r}:
            function = getattr(ctypes.pythonapi, name)
            function.argtypes = [Mangled, ctypes.c_double]
            function.restype = Mangled

    if {before}:
        mangle()
    import numpy as np
    import torch
    import dlarray as xp
    from dlarray._dlpack import capsule_name, consume_capsule
    mangle()  # and again after dlarray was imported

    def values(x):
        return np.asarray(x).tolist()

    # sanity: the shared objects really are unusable now
    try:
        ctypes.pythonapi.PyCapsule_GetName(np.arange(2).__dlpack__())
    except (ctypes.ArgumentError, TypeError):
        pass
    else:
        raise AssertionError("the mangling did not take")

    a = np.arange(6.0)
    for capsule in (a.__dlpack__(), a.__dlpack__(max_version=(1, 0))):
        x = xp.from_dlpack(capsule)
        assert x.data_ptr == a.ctypes.data and values(x) == a.tolist(), x
        assert capsule_name(capsule).startswith(b"used_")
        try:
            xp.from_dlpack(capsule)
        except BufferError:
            pass
        else:
            raise AssertionError("a consumed capsule was accepted")
    t = torch.arange(5.0)
    assert xp.from_dlpack(t).data_ptr == t.data_ptr()
    assert xp.from_dlpack(a).data_ptr == a.ctypes.data
    assert values(xp.asarray(b"abc")) == [97, 98, 99]
    assert values(xp.asarray(bytearray(b"ab"))) == [97, 98]
    assert values(xp.asarray(memoryview(b"xyz")[::2])) == [120, 122]
    assert values(xp.asarray(array.array("d", [1.5, 2.5]))) == [1.5, 2.5]

    class Interface:  # __array_interface__ only
        __array_interface__ = a[::2].__array_interface__

    assert values(xp.asarray(Interface())) == [0.0, 2.0, 4.0]

    # export, every way
    x = xp.asarray([1.0, 2.0, 3.0])
    info, owner = consume_capsule(x.__dlpack__(max_version=(1, 3)))
    assert info.data_ptr == x.data_ptr
    del owner
    assert np.from_dlpack(x).tolist() == [1.0, 2.0, 3.0]
    assert torch.from_dlpack(x).tolist() == [1.0, 2.0, 3.0]
    assert values(xp.from_dlpack(x.__dlpack__())) == [1.0, 2.0, 3.0]
    del x, t, a
    gc.collect()
    print("ok")
    """
)


@needs.skip_without("torch")  # torch's C exchange API is one of the paths checked
@pytest.mark.parametrize("before", [True, False], ids=["mangled-before-import", "mangled-after-import"])
def test_mangled_pythonapi_does_not_reach_dlarray(before: bool) -> None:
    script = CHILD.format(mangled=MANGLED, before=before)
    result = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True, timeout=120)
    assert result.returncode == 0 and result.stdout.strip().endswith("ok"), result.stderr[-4000:]


def test_bindings_are_private_objects() -> None:
    """Every binding in the core is its own function object, not one ``ctypes.pythonapi`` caches."""
    import ctypes

    from dlarray._dlpack import _capi

    bindings = {name: value for name, value in vars(_capi).items()
                if isinstance(value, ctypes._CFuncPtr)}  # type: ignore[attr-defined]
    assert len(bindings) >= 9, sorted(bindings)
    shared = {id(getattr(ctypes.pythonapi, function.__name__)) for function in bindings.values()}
    assert not shared & {id(function) for function in bindings.values()}
