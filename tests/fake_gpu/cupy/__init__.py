"""The fake cupy of the simulated GPU machine (see ../simulated_gpu.py): one device, no memory.

Importing it from a test that hides the GPU is a violation, and so is any compute, copy or
import entry point (every device pointer it could be handed is made up).
"""

import simulated_gpu as _simulated

if _simulated.gpu_hidden():
    raise _simulated.violation("import cupy", "cupy imported")

__version__ = "0.0.0+simulated"
ndarray = _simulated.FakeCupyArray


def __getattr__(name: str) -> object:
    return _simulated.cupy_attribute(name)
