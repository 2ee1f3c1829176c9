"""The few CPython C-API calls dlarray needs, bound to function objects no other code can reach.

Every module of dlarray takes its C-API bindings from here, never from ``ctypes.pythonapi``.

Why private objects: ``ctypes.pythonapi`` is one ``PyDLL`` shared by every library in the process,
and ``pythonapi.PyCapsule_GetName`` is one function object cached on it. A library that sets that
object's ``argtypes``/``restype`` its own way (several ctypes DLPack helpers do) would change how
dlarray's calls convert their arguments and results: every import would fail with
``ctypes.ArgumentError``, or worse, misread a pointer. So this module opens its own ``PyDLL`` on the
same library handle (``_api``): its function objects, and the ``_FuncPtr`` class they are made
from, belong to that instance alone, and their ``argtypes``/``restype`` are set once, here.

A ``PyDLL``'s calls keep the GIL and turn a set Python error into an exception, which is what the
capsule and buffer functions need.
"""

from __future__ import annotations

import ctypes
from typing import Any, NoReturn

# The handle is only the loaded library (an address); what other code can change lives on the
# shared ``pythonapi`` object, not in the handle.
_api = ctypes.PyDLL(None, handle=ctypes.pythonapi._handle)


def _bind(name: str, argtypes: list[Any], restype: Any) -> Any:
    function = getattr(_api, name)  # cached on _api, which nothing outside this module holds
    function.argtypes = argtypes
    function.restype = restype
    return function


class PyBuffer(ctypes.Structure):
    """CPython's ``Py_buffer``, filled by :data:`object_get_buffer`."""

    _fields_ = [
        ("buf", ctypes.c_void_p),
        ("obj", ctypes.c_void_p),
        ("len", ctypes.c_ssize_t),
        ("itemsize", ctypes.c_ssize_t),
        ("readonly", ctypes.c_int),
        ("ndim", ctypes.c_int),
        ("format", ctypes.c_char_p),
        ("shape", ctypes.POINTER(ctypes.c_ssize_t)),
        ("strides", ctypes.POINTER(ctypes.c_ssize_t)),
        ("suboffsets", ctypes.POINTER(ctypes.c_ssize_t)),
        ("internal", ctypes.c_void_p),
    ]


capsule_new = _bind("PyCapsule_New", [ctypes.c_void_p, ctypes.c_char_p, ctypes.c_void_p], ctypes.py_object)
# PyCapsule_New with the name as an address (a static C string's): a function object of its own
# (``_api["..."]`` makes a new one), so capsule_new's argtypes stay as they are
capsule_new_at = _api["PyCapsule_New"]
capsule_new_at.argtypes = [ctypes.c_void_p, ctypes.c_void_p, ctypes.c_void_p]
capsule_new_at.restype = ctypes.py_object
capsule_get_name = _bind("PyCapsule_GetName", [ctypes.py_object], ctypes.c_char_p)
capsule_get_pointer = _bind("PyCapsule_GetPointer", [ctypes.py_object, ctypes.c_char_p], ctypes.c_void_p)
capsule_set_name = _bind("PyCapsule_SetName", [ctypes.py_object, ctypes.c_char_p], ctypes.c_int)
py_incref = _bind("Py_IncRef", [ctypes.py_object], None)
object_get_buffer = _bind("PyObject_GetBuffer", [ctypes.py_object, ctypes.POINTER(PyBuffer), ctypes.c_int],
                          ctypes.c_int)
buffer_release = _bind("PyBuffer_Release", [ctypes.POINTER(PyBuffer)], None)
object_check_buffer = _bind("PyObject_CheckBuffer", [ctypes.py_object], ctypes.c_int)
bytes_as_string = _bind("PyBytes_AsString", [ctypes.py_object], ctypes.c_void_p)


class _DlInfo(ctypes.Structure):
    """The C library's ``Dl_info``, filled by ``dladdr``."""

    _fields_ = [("fname", ctypes.c_char_p), ("fbase", ctypes.c_void_p), ("sname", ctypes.c_char_p),
                ("saddr", ctypes.c_void_p)]


def _dladdr() -> Any:
    try:
        function = ctypes.CDLL(None).dladdr  # POSIX C libraries (glibc, musl, macOS); not Windows
    except (AttributeError, OSError, TypeError):
        return None
    function.argtypes = [ctypes.c_void_p, ctypes.POINTER(_DlInfo)]
    function.restype = ctypes.c_int
    return function


_DLADDR = _dladdr()


def _in_a_loaded_library(address: int) -> bool:
    return bool(_DLADDR(address, ctypes.byref(_DlInfo())))


def _thunks_lie_outside_libraries() -> bool:
    """Whether a ctypes callback's code lies outside every loaded library, as libffi's closures
    (pages of their own) do; not where libffi serves closures from trampolines inside its own
    library (its static trampolines), or where there is no ``dladdr``."""
    if _DLADDR is None:
        return False
    thunk = ctypes.CFUNCTYPE(None)(int)
    return not _in_a_loaded_library(ctypes.cast(thunk, ctypes.c_void_p).value or 0)


_TELLS_COMPILED_CODE = _thunks_lie_outside_libraries()


def compiled_code(address: int) -> bool:
    """Whether the function at ``address`` is code of a loaded library (compiled C, C++, Rust,
    Cython...), not a callback into Python made at run time (a ctypes or cffi thunk, whose code
    lies in memory of its own). False wherever that cannot be told (no ``dladdr``, or libffi's
    static trampolines): then every function counts as a callback. One C call: callers cache it.

    Examples
    --------
    >>> import ctypes
    >>> compiled_code(ctypes.cast(ctypes.pythonapi.Py_IncRef, ctypes.c_void_p).value) in (True, False)
    True
    """
    return _TELLS_COMPILED_CODE and _in_a_loaded_library(address)


def out_of_memory(error: BaseException) -> bool:
    """Whether ``error``, raised by a call of one of these functions, is a MemoryError in disguise.

    ctypes converts each argument to C before the call, and a MemoryError met there (the memory
    is exhausted) reaches the caller as ``ArgumentError("argument N: MemoryError: ...")``, its
    type lost (ctypes keeps only this text). The arguments are always of the declared types, so a
    conversion fails for want of memory only; callers raise a MemoryError for it
    (:data:`OUT_OF_MEMORY`).
    """
    return type(error) is ctypes.ArgumentError and ": MemoryError" in str(error)


#: The message of the MemoryError raised for :func:`out_of_memory`'s errors.
OUT_OF_MEMORY = "out of memory converting an argument of a C-API call"


def reraise(error: ctypes.ArgumentError) -> NoReturn:
    """Raise what a caller gets for ``error``, an ArgumentError from a call of one of these
    functions: a MemoryError where it is one in disguise (:func:`out_of_memory`), else ``error``."""
    if out_of_memory(error):
        raise MemoryError(OUT_OF_MEMORY) from None
    raise error


def static_c_string(text: bytes) -> ctypes.Array[ctypes.c_char]:
    """A NUL-terminated string that is never freed, not even at interpreter exit.

    Capsule names must outlive every capsule that points at them, and a capsule can be the last
    object the interpreter frees, so the buffer is made immortal by an extra reference.
    """
    buffer = ctypes.create_string_buffer(text)
    py_incref(buffer)
    return buffer
