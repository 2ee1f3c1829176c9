"""Property tests of the core: any dtype x shape x strides x offset survives import and export intact."""

from __future__ import annotations

import gc

import numpy as np
import needs
import pytest
from hypothesis import given, strategies as st
from hypothesis.extra import numpy as hnp

import dlarray

from producer import make_capsule

torch = needs.library("torch")

NUMPY_DTYPES = st.sampled_from(
    [np.bool_, np.int8, np.int16, np.int32, np.int64, np.uint8, np.uint16, np.uint32, np.uint64,
     np.float16, np.float32, np.float64, np.complex64, np.complex128]
)


@st.composite
def strided_views(draw):
    """A numpy array plus a basic-index view of it: negative steps, offsets, 0-d, empty, Fortran."""
    dtype = draw(NUMPY_DTYPES)
    base = draw(hnp.arrays(dtype, hnp.array_shapes(min_dims=0, max_dims=4, min_side=0, max_side=5)))
    if draw(st.booleans()):
        base = np.asfortranarray(base)
    index = draw(hnp.basic_indices(base.shape, allow_newaxis=True, allow_ellipsis=True))
    view = base[index]
    if not isinstance(view, np.ndarray):
        view = base[index + (Ellipsis,)] if isinstance(index, tuple) else base[(index, Ellipsis)]
    return base, view


@given(strided_views())
def test_numpy_views_survive_import_and_export(pair) -> None:
    base, view = pair
    x = dlarray.from_dlpack(view)
    assert x.shape == view.shape
    if view.size:
        assert x.data_ptr == view.__array_interface__["data"][0]
        assert x.strides == tuple(s // view.itemsize for s in view.strides)
    back = np.from_dlpack(x)
    assert back.shape == view.shape
    assert np.array_equal(back, view, equal_nan=view.dtype.kind in "fc")
    assert back.dtype == view.dtype


@given(strided_views())
def test_torch_hop_keeps_values(pair) -> None:
    _, view = pair
    if view.dtype in (np.uint16, np.uint32, np.uint64) or any(s < 0 for s in view.strides):
        return  # torch refuses these itself (unsigned types, negative strides): not ours to test
    x = dlarray.from_dlpack(view)
    t = torch.from_dlpack(x)
    if view.size:
        assert t.data_ptr() == x.data_ptr
    assert np.array_equal(t.numpy(), view, equal_nan=view.dtype.kind in "fc")


@st.composite
def raw_tensors(draw):
    ndim = draw(st.integers(0, 4))
    shape = tuple(draw(st.lists(st.integers(0, 4), min_size=ndim, max_size=ndim)))
    strides = tuple(draw(st.lists(st.integers(-6, 6), min_size=ndim, max_size=ndim)))
    code_bits = draw(st.sampled_from([(0, 8), (0, 32), (1, 16), (2, 64), (4, 16), (5, 64), (6, 8), (12, 8)]))
    versioned = draw(st.booleans())
    readonly = draw(st.booleans()) and versioned
    contiguous = draw(st.booleans())
    return shape, None if contiguous else strides, code_bits, versioned, readonly


@given(raw_tensors())
def test_raw_tensor_metadata_is_exact_and_deleted_once(params) -> None:
    shape, strides, (code, bits), versioned, readonly = params
    itemsize = bits // 8
    size = int(np.prod(shape)) if shape else 1
    # enough memory that any stride/offset combination stays inside the buffer
    span = sum(abs(s) * max(n - 1, 0) for s, n in zip(strides or (), shape)) if strides else size
    offset_elements = sum(abs(s) * max(n - 1, 0) for s, n in zip(strides or (), shape) if s < 0)
    made = make_capsule(
        shape, strides=strides, code=code, bits=bits, versioned=versioned, flags=int(readonly),
        byte_offset=offset_elements * itemsize, data_bytes=(span + offset_elements + size + 1) * itemsize,
    )
    x = dlarray.from_dlpack(made.capsule)
    assert x.shape == shape
    if strides is not None:
        assert x.strides == strides
    assert x.readonly == (readonly or not versioned)  # a legacy capsule imports read-only
    assert x.data_ptr == made.data_address + offset_elements * itemsize
    exported = x.__dlpack__(max_version=(1, 0))
    y = dlarray.from_dlpack(exported)
    assert (y.shape, y.strides, y.dtype, y.data_ptr, y.readonly) == (
        x.shape, x.strides, x.dtype, x.data_ptr, x.readonly
    )
    del x, y, exported
    gc.collect()
    assert made.deleted == 1
