"""Start-up hooks for the child processes of tests (Python imports the first ``sitecustomize`` on
``sys.path``; this folder is put first on ``PYTHONPATH`` by tests/gpu_view.py for the children of
tests that hide the GPU, and by tests/fake_gpu/simulated_gpu.py for a simulated-GPU run).

* ``DLARRAY_SIMULATED_GPU_LOG`` set: this process is on the simulated GPU machine (fake driver
  and cupy, tests/fake_gpu);
* ``DLARRAY_TEST_GPU=hidden``: cupy and the CUDA driver are hidden from dlarray (gpu_hooks.py),
  installed last so that they take precedence over the simulation's.
"""

import os
import sys

if os.environ.get("DLARRAY_SIMULATED_GPU_LOG"):
    sys.path.insert(0, os.path.join(os.path.dirname(os.path.dirname(os.path.abspath(__file__))), "fake_gpu"))
    import simulated_gpu

    simulated_gpu.install()

if os.environ.get("DLARRAY_TEST_GPU") == "hidden":
    import gpu_hooks

    gpu_hooks.hide_in_this_process()
