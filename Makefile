# Every target sets itself up: a virtual environment in .venv with the project and its test/docs
# dependencies (torch pinned to the CPU build in pyproject's test extra).
PYTHON ?= python3
VENV := .venv
PY := $(VENV)/bin/python
STAMP := $(VENV)/.installed

.PHONY: setup demo test test-thorough test-quick test-gpu test-gpu-sim stress docs serve-docs bench bench-cuda conformance conformance-cuda clean

$(STAMP): pyproject.toml
	test -x $(PY) || $(PYTHON) -m venv $(VENV)
	$(PY) -m pip install --quiet --upgrade pip
	$(PY) -m pip install --quiet -e '.[test,docs,bench]'
	touch $(STAMP)

setup: $(STAMP)

demo: $(STAMP)
	$(PY) -m dlarray

test: $(STAMP)
	$(PY) -m pytest -n 2 -p no:cacheprovider tests

# property tests with 500 fresh random examples each (new inputs every run; not part of CI)
test-thorough: $(STAMP)
	HYPOTHESIS_PROFILE=thorough $(PY) -m pytest -n 2 -p no:cacheprovider tests

test-quick: $(STAMP)
	$(PY) -m pytest -x -q tests

# GPU machines only (torch and cupy with CUDA installed): skips cleanly elsewhere
test-gpu: $(STAMP)
	$(PY) -m pytest -v -p no:cacheprovider -rs tests/gpu

# the whole suite on a simulated GPU machine (fake libcuda and cupy, tests/fake_gpu): fails if any
# test hands a made-up CUDA pointer or stream to the "GPU" (a crash or hang on a real one)
test-gpu-sim: $(STAMP)
	$(PY) tests/fake_gpu/simulated_gpu.py -n 2 -p no:cacheprovider -q tests

stress: $(STAMP)
	$(PY) tests/stress/stress.py

docs: $(STAMP)
	$(VENV)/bin/mkdocs build --strict

serve-docs: $(STAMP)
	$(VENV)/bin/mkdocs serve

bench: $(STAMP)
	$(PY) benchmarks/bench_dlpack.py --compare --memory
	$(PY) benchmarks/bench_dispatch.py

bench-cuda: $(STAMP)
	$(PY) benchmarks/bench_cuda.py

conformance: $(STAMP)
	@test -n "$$ARRAY_API_TESTS_DIR" || echo "ARRAY_API_TESTS_DIR is not set: cloning the pinned suite (needs a network)"
	$(PY) conformance/run.py

conformance-cuda: $(STAMP)
	$(PY) conformance/run.py --device cuda:0

clean:
	rm -rf $(VENV) site .pytest_cache .hypothesis
