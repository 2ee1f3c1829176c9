"""CUDA streams at the DLPack boundary, through the CUDA driver (``libcuda``) and ctypes.

DLPack names a CUDA stream with an integer: ``1`` the legacy default stream, ``2`` the per-thread
default stream, a larger value a ``cudaStream_t`` pointer, ``-1`` "do not synchronize"; ``0`` is
refused as ambiguous, and ``None`` means the legacy default stream. Every CUDA Array remembers the
stream its data is ordered on (``1`` unless cupy computed it on another one). When a consumer asks
for the data on another stream, the consumer's stream waits for the array's stream through an
event (record on one, wait on the other): no host synchronization, no device-wide barrier.

The driver is optional. Without it there is no GPU and so no work in flight on any stream: there
is nothing to order, and dlarray only validates the stream values. This module imports no numpy
and needs no cupy.
"""

from __future__ import annotations

import ctypes
import os
from typing import Any

#: DLPack's integer for the legacy default stream, which ``stream=None`` means on CUDA.
LEGACY_DEFAULT_STREAM = 1
PER_THREAD_DEFAULT_STREAM = 2
NO_SYNC = -1

_CU_EVENT_DISABLE_TIMING = 0x2
# No locks here: loading the driver and retaining a context allocate Python objects, so garbage
# collection can run a finalizer that exports or imports CUDA memory and comes back here on the
# same thread; a lock would deadlock it. Both are idempotent instead, and the first result stored
# is the one everybody uses.
_driver_state: list[Any] = []  # [libcuda or None], once known
_contexts: dict[int, int] = {}  # device ordinal -> retained primary context (kept for the process)
# device ordinal -> events not in use. An ordering takes one out (list.pop: atomic, so a thread, or
# a finalizer that re-enters on the same thread, never shares one) and puts it back after the wait:
# a stream waits for the record made before its cuStreamWaitEvent, so recording the event again
# later changes nothing for it. The pool holds at most as many events as orderings ever ran at
# once; they live as long as the process (the driver frees them with the context).
_idle_events: dict[int, list[int]] = {}


def driver() -> Any:
    """``libcuda`` through ctypes (initialized), or None where there is none (no GPU, no driver)."""
    if not _driver_state:
        # Two threads (or a finalizer) may both load it: dlopen and cuInit may be repeated, and
        # every caller reads the first entry appended.
        _driver_state.append(_load_driver())
    return _driver_state[0]


def _load_driver() -> Any:
    try:
        lib = ctypes.CDLL("libcuda.so.1")
    except OSError:
        return None
    return prepared_driver(lib)


def prepared_driver(lib: Any) -> Any:
    """``lib`` (a loaded ``libcuda``) with the functions dlarray calls typed, after ``cuInit``;
    None where ``cuInit`` fails. (Also takes a library with the same functions, such as the
    do-nothing one benchmarks/bench_cuda_standin.py builds to time the ctypes calls.)"""
    lib.cuGetErrorName.argtypes = [ctypes.c_int, ctypes.POINTER(ctypes.c_char_p)]
    lib.cuPointerGetAttribute.argtypes = [ctypes.c_void_p, ctypes.c_int, ctypes.c_void_p]
    lib.cuStreamSynchronize.argtypes = [ctypes.c_void_p]
    lib.cuDeviceGet.argtypes = [ctypes.POINTER(ctypes.c_int), ctypes.c_int]
    lib.cuDevicePrimaryCtxRetain.argtypes = [ctypes.POINTER(ctypes.c_void_p), ctypes.c_int]
    lib.cuCtxPushCurrent_v2.argtypes = [ctypes.c_void_p]
    lib.cuCtxPopCurrent_v2.argtypes = [ctypes.POINTER(ctypes.c_void_p)]
    lib.cuEventCreate.argtypes = [ctypes.POINTER(ctypes.c_void_p), ctypes.c_uint]
    lib.cuEventRecord.argtypes = [ctypes.c_void_p, ctypes.c_void_p]
    lib.cuStreamWaitEvent.argtypes = [ctypes.c_void_p, ctypes.c_void_p, ctypes.c_uint]
    lib.cuEventDestroy_v2.argtypes = [ctypes.c_void_p]
    lib.cuCtxGetCurrent.argtypes = [ctypes.POINTER(ctypes.c_void_p)]
    if lib.cuInit(0) != 0:  # a driver without a usable GPU (e.g. in a container without one)
        return None
    return lib


def check(result: int, call: str) -> None:
    """Raise BufferError naming the driver call and its error when ``result`` is not CUDA_SUCCESS."""
    if result != 0:
        name = ctypes.c_char_p()
        lib = driver()
        if lib is not None:
            lib.cuGetErrorName(result, ctypes.byref(name))
        label = name.value.decode() if name.value else f"error {result}"
        raise BufferError(f"CUDA driver call {call} failed: {label}")


def consumer_stream(stream: Any) -> int:
    """Validate a consumer's ``stream`` argument for a CUDA array; return DLPack's integer for it.

    Raises
    ------
    TypeError
        ``stream`` is not None or an integer.
    ValueError
        ``stream`` is 0 (ambiguous in DLPack: legacy, per-thread or none) or below -1.
    """
    if stream is None:
        return LEGACY_DEFAULT_STREAM
    if isinstance(stream, bool) or not isinstance(stream, int):
        raise TypeError(f"stream must be None or an int (a CUDA stream pointer, 1, 2 or -1), got {stream!r}")
    if stream == 0:
        raise ValueError(
            "stream=0 is ambiguous for CUDA (DLPack and the CUDA Array Interface disallow it): pass "
            "1 for the legacy default stream, 2 for the per-thread default stream, or the stream pointer"
        )
    if stream < NO_SYNC:
        raise ValueError(f"stream must be -1, 1, 2 or a CUDA stream pointer, got {stream}")
    return stream


def order(producer: int, consumer: int, device_id: int) -> bool:
    """Make work on ``consumer`` wait for the work already queued on ``producer``.

    Both are DLPack stream integers. Nothing happens when they are the same stream, when the
    consumer asked for no synchronization (-1), or without a CUDA driver (nothing can be in flight).
    Returns whether an event was recorded and waited on.
    """
    if consumer == NO_SYNC or consumer == producer:
        return False
    lib = _driver_state[0] if _driver_state else driver()
    if lib is None:
        return False
    context = _contexts.get(device_id) or _primary_context(lib, device_id)
    # Every ordered hand-off comes here: the driver's results are checked inline (check() is
    # called only on a failure), and the context is read into a c_void_p that ctypes passes by
    # reference itself (argtypes: a pointer to one), without a byref() object.
    # The legacy and per-thread streams (1, 2) are those of the current context: the device's
    # primary context must be current. It usually is already (cupy and torch make it so); only
    # when it is not is it pushed, and popped after.
    current = ctypes.c_void_p()
    result = lib.cuCtxGetCurrent(current)
    if result:
        check(result, "cuCtxGetCurrent")
    pushed = current.value != context
    if pushed:
        check(lib.cuCtxPushCurrent_v2(context), "cuCtxPushCurrent")
    try:
        idle = _idle_events.get(device_id)
        if idle is None:
            idle = _idle_events.setdefault(device_id, [])
        try:
            event = idle.pop()
        except IndexError:
            created = ctypes.c_void_p()
            check(lib.cuEventCreate(ctypes.byref(created), _CU_EVENT_DISABLE_TIMING), "cuEventCreate")
            event = created.value
        try:
            # DLPack's 1 and 2 are also the driver's CU_STREAM_LEGACY and CU_STREAM_PER_THREAD
            result = lib.cuEventRecord(event, producer)
            if result:
                check(result, "cuEventRecord")
            result = lib.cuStreamWaitEvent(consumer, event, 0)
            if result:
                check(result, "cuStreamWaitEvent")
        except BaseException:
            lib.cuEventDestroy_v2(event)  # in an unknown state: not reused
            raise
        idle.append(event)
    finally:
        if pushed:
            popped = ctypes.c_void_p()
            lib.cuCtxPopCurrent_v2(ctypes.byref(popped))
    return True


def _primary_context(lib: Any, device_id: int) -> int:
    """The device's primary context (the one torch, cupy and the runtime API share)."""
    context = _contexts.get(device_id)
    if context is None:
        device = ctypes.c_int()
        check(lib.cuDeviceGet(ctypes.byref(device), device_id), f"cuDeviceGet({device_id})")
        handle = ctypes.c_void_p()
        check(lib.cuDevicePrimaryCtxRetain(ctypes.byref(handle), device), "cuDevicePrimaryCtxRetain")
        # A device's primary context is one context, however often it is retained, and it is kept
        # for the process: a second retain by a racing caller changes nothing. First stored wins.
        context = _contexts.setdefault(device_id, handle.value)  # type: ignore[arg-type]
    return context


def is_cupy_stream(stream: Any) -> bool:
    """Whether ``stream`` is a cupy stream object (``with stream:`` makes it cupy's current one),
    as ``to_device`` takes one, rather than DLPack's integer for a stream."""
    return hasattr(stream, "ptr") and hasattr(stream, "__enter__")


def cupy_current_stream(cupy: Any, device_id: int) -> int:
    """cupy's current stream on ``device_id`` as a DLPack stream integer (see :func:`cupy_stream_number`)."""
    # no device switch: cupy keeps a current stream per device
    return cupy_stream_number(cupy, cupy.cuda.get_current_stream(device_id))


def cupy_stream_number(cupy: Any, stream: Any) -> int:
    """The DLPack stream integer of a cupy stream object, for an Array's ``_stream``.

    cupy's null stream (pointer 0) is the legacy default stream (1), or the per-thread default
    stream (2) when cupy runs in per-thread-default-stream mode (``CUPY_CUDA_PER_THREAD_DEFAULT_STREAM``,
    which cupy reads once, at import), as cupy says when it hands its stream to a DLPack producer.
    Any other stream is its pointer as a :class:`KeptStream`, which keeps the stream object alive.
    """
    pointer = stream.ptr
    if pointer == 0:
        number = _null_stream_of.get(cupy)
        return _null_stream_number(cupy) if number is None else number
    if pointer == PER_THREAD_DEFAULT_STREAM or pointer == LEGACY_DEFAULT_STREAM:
        return pointer  # the default streams are never destroyed
    return KeptStream(pointer, stream)


class KeptStream(int):
    """A CUDA stream's pointer (an int, as DLPack numbers streams) that keeps alive the cupy stream
    object it was read from.

    cupy destroys a stream when its Stream object dies (cupy/cuda/stream.pyx:517-524, v14.2.0), but
    work queued on it is ordered later: an Array computed inside ``with cupy.cuda.Stream():`` may be
    exported, read or viewed after that block, when its consumer must wait for the stream. So an
    Array's ``_stream`` holds the object with the number, and everything that copies ``_stream``
    (views, slices) keeps it too; handing the driver a destroyed stream is undefined behaviour.
    """

    stream: Any  # the cupy stream object; int subclasses take no __slots__

    def __new__(cls, pointer: int, stream: Any) -> KeptStream:
        number = super().__new__(cls, pointer)
        number.stream = stream
        return number

    def __repr__(self) -> str:
        return int.__repr__(self)

    def __reduce__(self) -> tuple[type[int], tuple[int]]:
        # copied or pickled (a __cuda_array_interface__ dict holds one) as the plain number: int's
        # own reduction would call KeptStream(pointer) without its stream, and a stream object
        # belongs to this process
        return int, (int(self),)


def _null_stream_number(cupy: Any) -> int:
    # cupy_backends/cuda/stream.pyx (v14.2.0, lines 10-11 and 40-42): per-thread mode is
    # int(CUPY_CUDA_PER_THREAD_DEFAULT_STREAM) != 0, and then the null stream's work goes to the
    # per-thread default stream. A value int() refuses makes cupy's import fail: never seen here.
    try:
        per_thread = int(os.environ.get("CUPY_CUDA_PER_THREAD_DEFAULT_STREAM", "0")) != 0
    except ValueError:
        per_thread = False
    return _null_stream_of.setdefault(cupy, PER_THREAD_DEFAULT_STREAM if per_thread else LEGACY_DEFAULT_STREAM)


_null_stream_of: dict[Any, int] = {}  # cupy module -> the DLPack number of its null stream
