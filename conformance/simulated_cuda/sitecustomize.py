"""Loaded by every Python process of a simulated CUDA conformance run (``run.py --simulated-cuda``
puts this folder first on ``PYTHONPATH``): ``import cupy`` finds tests/numpy_cupy.py, numpy playing
cupy over host memory (``import cupyx`` its cupyx), and dlarray loads no CUDA driver, so nothing is ever ordered on a stream.

Arrays on ``cuda:0`` then take every CUDA path of the spec modules (computed through the cupy
namespace, refused by numpy conversions), which is what the run checks. Not a GPU: never recorded.
"""

import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[2] / "tests"))
import numpy_cupy  # noqa: E402

sys.path.pop(0)
sys.modules["cupy"] = numpy_cupy
sys.modules["cupyx"] = numpy_cupy.cupyx  # its errstate, which the namespace's linalg checks under

from dlarray import _cuda  # noqa: E402

_cuda._driver_state[:] = [None]  # no driver: streams and events are never touched
