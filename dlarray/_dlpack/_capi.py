"""The few CPython C-API calls the core needs, bound through ``ctypes.pythonapi``.

``pythonapi`` is a ``PyDLL``: calls keep the GIL and turn a set Python error into an exception,
which is what the capsule functions need.
"""

from __future__ import annotations

import ctypes

_api = ctypes.pythonapi

capsule_get_name = _api.PyCapsule_GetName
capsule_get_name.argtypes = [ctypes.py_object]
capsule_get_name.restype = ctypes.c_char_p

capsule_get_pointer = _api.PyCapsule_GetPointer
capsule_get_pointer.argtypes = [ctypes.py_object, ctypes.c_char_p]
capsule_get_pointer.restype = ctypes.c_void_p

capsule_set_name = _api.PyCapsule_SetName
capsule_set_name.argtypes = [ctypes.py_object, ctypes.c_char_p]
capsule_set_name.restype = ctypes.c_int

py_incref = _api.Py_IncRef
py_incref.argtypes = [ctypes.py_object]
py_incref.restype = None



def static_c_string(text: bytes) -> ctypes.Array[ctypes.c_char]:
    """A NUL-terminated string that is never freed, not even at interpreter exit.

    Capsule names must outlive every capsule that points at them, and a capsule can be the last
    object the interpreter frees, so the buffer is made immortal by an extra reference.
    """
    buffer = ctypes.create_string_buffer(text)
    py_incref(buffer)
    return buffer

