"""Read-only memory stays read-only on every path: assignment, in-place operators, numpy views,
views and functions, exports, and copies (writable and separate), from every kind of read-only
source; legacy capsules, which cannot say read-only, import read-only."""

from __future__ import annotations

from typing import Any

import numpy as np
import needs
import pytest
from producer import Producer, make_capsule

import dlarray
from dlarray._dlpack import (
    FLAG_IS_COPIED,
    FLAG_READ_ONLY,
    consume_capsule,
)


def _sources() -> dict[str, Any]:
    """Read-only arrays, each from another origin (built on demand: some hold producer state)."""

    def producer_flagged() -> Any:
        made = make_capsule((4, 4), flags=FLAG_READ_ONLY, fill=np.arange(16, dtype=np.float32).tobytes())
        x = dlarray.from_dlpack(made.capsule)
        return x

    def numpy_flagged() -> Any:
        a = np.arange(16.0).reshape(4, 4)
        a.flags.writeable = False
        return dlarray.asarray(a)

    def numpy_capsule() -> Any:
        a = np.arange(16.0).reshape(4, 4)
        a.flags.writeable = False
        return dlarray.from_dlpack(a.__dlpack__(max_version=(1, 3)))

    def from_bytes() -> Any:
        return dlarray.reshape(dlarray.asarray(bytes(range(16))), (4, 4))

    def from_memoryview() -> Any:
        return dlarray.reshape(dlarray.asarray(memoryview(np.arange(16.0).tobytes()).cast("d")), (4, 4))

    def reexport() -> Any:
        return dlarray.from_dlpack(producer_flagged().__dlpack__(max_version=(1, 3)))

    def view() -> Any:
        return numpy_flagged().T[::-1]

    # Legacy capsules cannot say read-only: every one is imported read-only, whatever memory it
    # points at.
    def producer_legacy() -> Any:
        made = make_capsule((4, 4), versioned=False, fill=np.arange(16, dtype=np.float32).tobytes())
        return dlarray.from_dlpack(made.capsule)

    def numpy_legacy() -> Any:
        return dlarray.from_dlpack(np.arange(16.0).reshape(4, 4).__dlpack__())

    def pre_dlpack_1_producer() -> Any:  # __dlpack__ takes no keywords: a legacy capsule
        return dlarray.asarray(Producer(legacy_only=True, shape=(4, 4)))

    def jax_array() -> Any:
        import jax.numpy as jnp

        return dlarray.from_dlpack(jnp.arange(16.0, dtype=jnp.float32).reshape(4, 4))

    return {"producer-flag": producer_flagged, "numpy-readonly": numpy_flagged,
            "numpy-capsule": numpy_capsule, "bytes": from_bytes, "memoryview": from_memoryview,
            "re-export": reexport, "view": view, "legacy-producer": producer_legacy,
            "legacy-numpy": numpy_legacy, "legacy-only-producer": pre_dlpack_1_producer,
            "jax": jax_array}


SOURCES = _sources()
IN_PLACE = ["__iadd__", "__isub__", "__imul__", "__itruediv__", "__ifloordiv__", "__imod__",
            "__ipow__", "__iand__", "__ior__", "__ixor__", "__ilshift__", "__irshift__", "__imatmul__"]


@pytest.fixture(params=sorted(SOURCES))
def readonly_array(request: pytest.FixtureRequest) -> Any:
    x = SOURCES[request.param]()
    assert x.readonly
    before = np.asarray(x).tobytes()
    yield x
    assert np.asarray(x).tobytes() == before, "read-only data changed"


def test_readonly_setitem(readonly_array: Any) -> None:
    x = readonly_array
    mask = dlarray.asarray(np.eye(4, dtype=bool))
    for key in (0, (1, 2), slice(None), ..., mask, dlarray.asarray(np.array([0, 2]))):
        with pytest.raises(ValueError, match="read-only"):
            x[key] = 1
    with pytest.raises(ValueError, match="read-only"):
        x[1:][0] = 1  # through a view


@pytest.mark.parametrize("method", IN_PLACE)
def test_readonly_in_place_operators(readonly_array: Any, method: str) -> None:
    x = readonly_array
    other = x if method == "__imatmul__" else 1
    with pytest.raises(ValueError, match="read-only"):
        getattr(x, method)(other)
    with pytest.raises(ValueError, match="read-only"):
        getattr(x[1:], method)(x[1:] if method == "__imatmul__" else 1)


def test_readonly_through_numpy(readonly_array: Any) -> None:
    x = readonly_array
    for view in (np.asarray(x), np.array(x, copy=False), x.__array__(), np.from_dlpack(x),
                 np.asarray(x[1:]), np.from_dlpack(x.mT), x._as_native()):
        assert not view.flags.writeable
        with pytest.raises(ValueError):
            view[...] = 0
        with pytest.raises(ValueError):
            np.add(view, 1, out=view)
        with pytest.raises(ValueError):
            np.copyto(view, 0)
        if view.base is not None and not isinstance(view.base, np.ndarray):
            # a view dlarray made: numpy must refuse to turn it writable. (An Array adopted from a
            # read-only numpy array hands back that array or views of it; numpy lets the owner of
            # the memory flip its own flag, see docs/safety.md.)
            with pytest.raises(ValueError, match="WRITEABLE"):
                view.flags.writeable = True


def test_readonly_through_views_and_functions(readonly_array: Any) -> None:
    x = readonly_array
    for name, view in {
        "slice": x[1:, ::2], "T": x.T, "mT": x.mT, "reshape": dlarray.reshape(x, (16,)),
        "permute_dims": dlarray.permute_dims(x, (1, 0)), "flip": dlarray.flip(x),
        "broadcast_to": dlarray.broadcast_to(x, (2, 4, 4)), "expand_dims": dlarray.expand_dims(x, axis=0),
        "squeeze": dlarray.squeeze(dlarray.expand_dims(x, axis=0), axis=0),
        "astype(copy=False)": dlarray.astype(x, x.dtype, copy=False),
        "asarray(copy=False)": dlarray.asarray(x, copy=False), "from_dlpack": dlarray.from_dlpack(x),
        "from_dlpack(copy=False)": dlarray.from_dlpack(x, copy=False),
        "re-import": dlarray.from_dlpack(x.__dlpack__(max_version=(1, 3))),
    }.items():
        # whatever shares the memory is read-only; a result that had to copy may be writable
        assert view.readonly or not np.shares_memory(np.asarray(view), np.asarray(x)), name
    assert dlarray.asarray(x, copy=False).readonly and dlarray.from_dlpack(x).readonly
    assert x[1:, ::2].readonly and x.mT.readonly and dlarray.flip(x).readonly


def test_readonly_exports(readonly_array: Any) -> None:
    x = readonly_array
    info, _owner = consume_capsule(x.__dlpack__(max_version=(1, 3)))
    assert info.readonly
    with pytest.raises(BufferError, match="read-only"):
        x.__dlpack__()  # a legacy capsule has no flag to carry it
    with pytest.raises(BufferError, match="read-only"):
        x.__dlpack__(max_version=(0, 8))
    import array_api_strict

    assert not array_api_strict.from_dlpack(x)._array.flags.writeable


def test_readonly_copies_are_writable_and_separate(readonly_array: Any) -> None:
    x = readonly_array
    for copy in (dlarray.asarray(x, copy=True), dlarray.from_dlpack(x, copy=True)):
        assert not copy.readonly and copy.data_ptr != x.data_ptr
        copy[...] = 0
    info, _owner = consume_capsule(x.__dlpack__(copy=True))  # a legacy copy is allowed
    assert info.data_ptr != x.data_ptr
    info, _owner = consume_capsule(x.__dlpack__(max_version=(1, 3), copy=True))
    assert info.is_copied and not info.readonly


def test_legacy_imports_are_read_only_versioned_ones_writable() -> None:
    """A legacy capsule cannot say read-only: read-only, as numpy imports it; copies are writable."""
    a = np.arange(6.0)
    assert dlarray.from_dlpack(a.__dlpack__()).readonly
    assert not dlarray.from_dlpack(a.__dlpack__(max_version=(1, 0))).readonly
    assert not dlarray.from_dlpack(a).readonly
    legacy_only = lambda: Producer(legacy_only=True, shape=(2, 3))  # noqa: E731
    shared = dlarray.from_dlpack(legacy_only())
    assert shared.readonly
    with pytest.raises(ValueError):
        shared[...] = 1
    for copy in (dlarray.from_dlpack(legacy_only(), copy=True), dlarray.asarray(legacy_only(), copy=True)):
        assert not copy.readonly
        copy[...] = 1
    # the same memory through a versioned capsule without READ_ONLY is writable
    made = make_capsule((2, 3), versioned=True)
    writable = dlarray.from_dlpack(made.capsule)
    assert not writable.readonly
    writable[...] = 1


class ReadOnlyCopies:
    """A producer of read-only data whose copies are flagged READ_ONLY | IS_COPIED, as jax 0.12 and
    newer flag theirs (a fresh capsule per call, each remembered)."""

    def __init__(self) -> None:
        self.made: list[Any] = []

    def __dlpack_device__(self) -> tuple[int, int]:
        return (1, 0)

    def __dlpack__(self, *, stream: Any = None, max_version: Any = None, dl_device: Any = None,
                   copy: bool | None = None) -> Any:
        flags = FLAG_READ_ONLY | (FLAG_IS_COPIED if copy else 0)
        made = make_capsule((2, 3), flags=flags, fill=np.arange(6, dtype=np.float32).tobytes())
        self.made.append(made)
        return made.capsule


def test_copy_true_is_writable_even_where_the_producers_copy_is_read_only() -> None:
    """copy=True gives memory of the caller's own, writable: a copy the producer flagged READ_ONLY
    is copied once more (numpy's from_dlpack keeps it read-only)."""
    producer = ReadOnlyCopies()
    for copy in (dlarray.from_dlpack(producer, copy=True), dlarray.asarray(producer, copy=True)):
        assert not copy.readonly
        assert copy.data_ptr != producer.made[-1].data_address  # not the producer's (read-only) copy
        assert np.asarray(copy).tolist() == [[0.0, 1.0, 2.0], [3.0, 4.0, 5.0]]
        copy[0, 0] = 7.0
        assert float(copy[0, 0]) == 7.0
    assert dlarray.from_dlpack(ReadOnlyCopies()).readonly  # shared, not copied: read-only as flagged


@needs.skip_without("jax")
def test_jax_arrays_import_read_only_and_copy_true_gives_a_writable_copy() -> None:
    """jax up to 0.11 hands out legacy capsules (which cannot say read-only), 0.12 and newer
    versioned ones flagged READ_ONLY, its copy=True capsules READ_ONLY | IS_COPIED: read-only
    either way, and copy=True writable under both."""
    import jax
    import jax.numpy as jnp

    source = jnp.arange(6.0, dtype=jnp.float32)
    capsule_name = str(source.__dlpack__(max_version=(1, 3)))
    versioned = needs.version(jax) >= (0, 12)
    assert ('"dltensor_versioned"' in capsule_name) == versioned, (jax.__version__, capsule_name)
    shared = dlarray.from_dlpack(source)
    assert shared.readonly and shared.data_ptr == source.unsafe_buffer_pointer()
    copy = dlarray.from_dlpack(source, copy=True)
    assert not copy.readonly and copy.data_ptr != source.unsafe_buffer_pointer()
    copy[0] = 9.0
    assert float(source[0]) == 0.0
    assert np.from_dlpack(source).flags.writeable is False  # numpy's rule, both ways


def test_torch_ignores_the_read_only_flag() -> None:
    """What torch does with a read-only export (documented in docs/safety.md).

    torch 2.13 reads the versioned capsule, ignores FLAG_READ_ONLY and returns a writable tensor
    over the memory. dlarray cannot prevent it: the flag is set, honouring it is the consumer's
    duty. ``torch.from_dlpack(x, copy=True)`` is the safe way to hand read-only data to torch.
    """
    torch = needs.library("torch")
    made = make_capsule((4,), flags=FLAG_READ_ONLY, fill=np.arange(4, dtype=np.float32).tobytes())
    x = dlarray.from_dlpack(made.capsule)
    info, _ = consume_capsule(x.__dlpack__(max_version=(1, 3)))
    assert info.readonly  # dlarray's part: the flag is there
    shared = torch.from_dlpack(x)
    assert shared.data_ptr() == x.data_ptr, (
        "torch no longer shares read-only exports: update docs/safety.md")
    safe = torch.from_dlpack(x, copy=True)
    assert safe.data_ptr() != x.data_ptr
    safe[0] = 99.0
    assert float(x[0]) == 0.0


# --------------------------------------------------------------------------- descriptions that disagree
# An object may describe its memory more than one way (its buffer, __array_interface__, its DLPack
# capsule's flags); where they disagree on read-only, the strictest answer is kept, as numpy keeps a
# read-only buffer's answer over __array_interface__'s.


def test_a_read_only_buffer_outranks_an_array_interface_that_says_writable(tmp_path: Any) -> None:
    import mmap

    class ClaimsWritable(mmap.mmap):
        @property
        def __array_interface__(self) -> dict[str, Any]:
            pointer = np.frombuffer(self, dtype=np.uint8).ctypes.data
            return {"version": 3, "shape": (len(self),), "typestr": "|u1", "data": (pointer, False)}

    path = tmp_path / "sixteen"
    path.write_bytes(bytes(range(16)))
    with open(path, "rb") as file:
        claims = ClaimsWritable(file.fileno(), 16, access=mmap.ACCESS_READ)
    assert np.asarray(claims).flags.writeable is False  # numpy's answer
    x = dlarray.asarray(claims)
    assert x.readonly and x.data_ptr == np.frombuffer(claims, dtype=np.uint8).ctypes.data
    with pytest.raises(ValueError):
        x[0] = 1  # the write would fault: the page is mapped read-only
    with pytest.raises(BufferError):
        x.__dlpack__()  # and it is exported as read-only
    assert np.asarray(x).tolist() == list(range(16))


class _Described:
    """A DLPack producer that also publishes ``__array_interface__`` and/or a buffer."""

    def __init__(self, array: np.ndarray, interface_read_only: bool | None, buffer: Any = None) -> None:
        self.array = array
        self.interface_read_only = interface_read_only
        self.buffer = buffer

    def __dlpack__(self, **options: Any) -> Any:
        return self.array.__dlpack__(**options)

    def __dlpack_device__(self) -> tuple[int, int]:
        return self.array.__dlpack_device__()

    def __getattr__(self, name: str) -> Any:
        if name == "__array_interface__" and self.interface_read_only is not None:
            return {"version": 3, "shape": self.array.shape, "typestr": self.array.dtype.str,
                    "data": (self.array.ctypes.data, self.interface_read_only)}
        raise AttributeError(name)


@pytest.mark.parametrize("function", ["from_dlpack", "asarray"])
@pytest.mark.parametrize(("interface_read_only", "expected"), [(None, False), (False, False), (True, True)])
def test_a_capsule_that_says_writable_keeps_the_interfaces_read_only(
    function: str, interface_read_only: bool | None, expected: bool
) -> None:
    source = np.arange(4.0)
    x = getattr(dlarray, function)(_Described(source, interface_read_only))
    assert x.data_ptr == source.ctypes.data and x.readonly is expected


def test_a_buffer_that_says_read_only_outranks_a_writable_capsule() -> None:
    class WithBuffer(bytes):
        """A bytes (read-only buffer) that exports a writable numpy array's capsule."""

        array: np.ndarray

        def __dlpack__(self, **options: Any) -> Any:
            return self.array.__dlpack__(**options)

        def __dlpack_device__(self) -> tuple[int, int]:
            return (1, 0)

    obj = WithBuffer(b"abcd")
    obj.array = np.arange(4.0)
    x = dlarray.from_dlpack(obj)
    assert x.readonly and x.data_ptr == obj.array.ctypes.data
    assert dlarray.asarray(obj).readonly  # asarray reads a bytes object's own buffer: read-only too


def test_read_only_says_the_same_for_each_description_when_they_agree() -> None:
    writable = np.arange(3.0)
    assert not dlarray.from_dlpack(_Described(writable, False)).readonly
    frozen = np.arange(3.0)
    frozen.flags.writeable = False
    assert dlarray.from_dlpack(_Described(frozen, True)).readonly
