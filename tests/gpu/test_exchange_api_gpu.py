"""The C exchange API on a real GPU: a CUDA tensor comes with its producer's current stream.

torch's ``current_work_stream`` names the stream current when the tensor is imported; dlarray
keeps it as the stream the data is ordered on, and reads the values after it. cuda-core's
StridedMemoryView over a CUDA tensor goes the same way. Skipped without a GPU (conftest.py).
"""

from __future__ import annotations

import numpy as np
import pytest

torch = pytest.importorskip("torch")

import dlarray as xp
from dlarray._producers import fast_import_for

SPIN_CYCLES = 200_000_000  # keeps the GPU busy on the producer's stream (see test_cuda.py)


def test_torch_tensor_on_a_side_stream_is_read_after_that_stream() -> None:
    side = torch.cuda.Stream()
    with torch.cuda.stream(side):
        tensor = torch.zeros(1 << 20, device="cuda")
        torch.cuda._sleep(SPIN_CYCLES)  # the fill below lands late on the side stream
        tensor.fill_(3.0)
        x = xp.from_dlpack(tensor)
        assert fast_import_for(type(tensor)) is not None
        assert x._stream == side.cuda_stream  # the producer's current stream, not a sync
    host = np.from_dlpack(x.to_device("cpu"))
    assert (host == 3.0).all()  # read after the side stream's work


def test_cuda_core_view_of_a_cuda_tensor() -> None:
    core = pytest.importorskip("cuda.core.utils")
    tensor = torch.arange(12, dtype=torch.float32, device="cuda").reshape(3, 4)[:, ::2]
    torch.cuda.synchronize()
    view = core.StridedMemoryView.from_dlpack(tensor, stream_ptr=-1)
    assert fast_import_for(type(view)) is not None
    x = xp.from_dlpack(view)
    assert x.device == xp.Device("cuda", 0) and x.data_ptr == tensor.data_ptr()
    assert x.shape == (3, 2) and x._strides == (4, 2)
    np.testing.assert_array_equal(np.from_dlpack(x.to_device("cpu")), tensor.cpu().numpy())
