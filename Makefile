# Every target sets itself up in a virtual environment in .venv, installing only what it needs:
# `make demo` the package and the frameworks the probe's table shows (the `demo` extra), the other
# targets everything (tests, docs, benchmarks). The `demo` extra pins torch 2.13.0, whose Linux wheel
# on PyPI is a CUDA build of several GB: PIP_EXTRA_INDEX_URL=https://download.pytorch.org/whl/cpu
# (in the environment of `make`) gets its CPU build, 2.13.0+cpu, instead.
# Each install leaves a stamp, so `make test` after `make demo` installs only the rest.
PYTHON ?= python3
VENV := .venv
PY := $(VENV)/bin/python
DEMO_STAMP := $(VENV)/.installed-demo
STAMP := $(VENV)/.installed
CONFORMANCE_STAMP := $(VENV)/.installed-conformance
FRAMEWORKS_STAMP := $(VENV)/.installed-frameworks
TYPING_STAMP := $(VENV)/.installed-typing
# make test-latest: the newest Python found on this machine (.ci/newest_python.py: PATH, then pyenv),
# in a venv of its own with the newest numpy, jax, SciPy and scikit-learn from PyPI, and no torch
LATEST_VENV := .venv-latest
LATEST_PY := $(LATEST_VENV)/bin/python
LATEST_STAMP := $(LATEST_VENV)/.installed
NEWEST_PYTHON = $(shell python3 .ci/newest_python.py)
# what each leg must have: a test that needs one of these fails instead of skipping where it is missing
# (tests/needs.py); the other optional libraries are skipped, with the reason, where absent
TEST_REQUIRES := torch jax array_api_strict scipy sklearn mypy mkdocs matplotlib pyarrow dlpack ml_dtypes xarray cuda.core tvm_ffi
LATEST_TEST_REQUIRES := jax array_api_strict scipy sklearn mypy mkdocs matplotlib pyarrow dlpack ml_dtypes xarray cubed cuda.core tvm_ffi
# pip's own progress (a line per package, download bars on a terminal) instead of a silent minute
PIP := $(PY) -m pip install --disable-pip-version-check
# e.g. CONFORMANCE_ARGS="--record" or "--max-examples 5 -- -k test_abs"
CONFORMANCE_ARGS ?=
# e.g. DOWNSTREAM_ARGS="--suite scipy -- -k logsumexp" (a partial run writes conformance/.runs/ only)
DOWNSTREAM_ARGS ?=

# `make` alone: the demo (the first rule below would only create .venv)
.DEFAULT_GOAL := demo

.PHONY: setup demo frameworks kit-results typing test test-latest test-thorough test-quick test-gpu test-gpu-sim stress docs serve-docs docs-check bench bench-cuda scale-out conformance conformance-cuda conformance-cuda-sim downstream clean

$(PY):
	@echo "== creating $(VENV)"
	$(PYTHON) -m venv $(VENV)
	$(PY) -m pip install --disable-pip-version-check --upgrade pip

$(DEMO_STAMP): pyproject.toml | $(PY)
	@echo "== installing dlarray and what the probe shows (numpy, torch 2.13.0, jax, array-api-strict)"
	$(PIP) -e '.[demo]'
	touch $@

$(STAMP): pyproject.toml | $(PY)
	@echo "== installing dlarray with torch 2.13.0 and its test, docs and benchmark dependencies"
	$(PIP) -e '.[demo,test,docs,bench]'
	touch $@ $(DEMO_STAMP)

$(FRAMEWORKS_STAMP): pyproject.toml | $(PY)
	@echo "== installing tensorflow-cpu, paddlepaddle and pyarrow (the frameworks extra)"
	$(PIP) -e '.[frameworks]'
	touch $@

$(TYPING_STAMP): pyproject.toml | $(PY)
	@echo "== installing basedpyright (the typing extra)"
	$(PIP) -e '.[typing]'
	touch $@

$(LATEST_PY):
	@python="$(NEWEST_PYTHON)"; test -n "$$python" || { echo "no Python found for $(LATEST_VENV)"; exit 1; }; \
	  echo "== creating $(LATEST_VENV) with $$python"; \
	  "$$python" -m venv $(LATEST_VENV)
	$(LATEST_PY) -m pip install --disable-pip-version-check --upgrade pip

$(LATEST_STAMP): pyproject.toml | $(LATEST_PY)
	@echo "== installing dlarray with the newest test, docs and benchmark dependencies, without torch"
	$(LATEST_PY) -m pip install --disable-pip-version-check --upgrade -e '.[test,docs,bench]'
	touch $@

$(CONFORMANCE_STAMP): pyproject.toml | $(PY)
	@echo "== installing dlarray and what the Array API test suite needs"
	$(PIP) -e '.[conformance]'
	touch $@

setup: $(STAMP)

demo: $(DEMO_STAMP)
	$(PY) -m dlarray

# the probe and the kit with tensorflow, paddle and pyarrow too (not in make test: several GB).
# Records the probe's table and the three kit results under docs/results/; the kit exits 1 when a
# framework fails a check (they do), 2 when it cannot check one (this target then fails).
frameworks: $(STAMP) $(FRAMEWORKS_STAMP)
	$(PY) -m dlarray --json > docs/results/probe-frameworks.json
	$(PY) -m dlarray
	@for library in tensorflow paddle pyarrow; do \
	  $(PY) -m dlarray check $$library --json docs/results/dlpack-kit/$$library.json; \
	  status=$$?; test $$status -le 1 || exit $$status; \
	done
	$(PY) -m pytest -n 2 -p no:cacheprovider tests/test_frameworks.py

# the DLPack conformance kit's results for the libraries make test installs (the matrix on the kit's
# page; make frameworks records tensorflow, paddle and pyarrow): the kit exits 1 when a library fails
# a check (they do), 2 when it cannot check one (this target then fails)
kit-results: $(STAMP)
	@for library in numpy torch jax array-api-strict pydlpack dlarray; do \
	  $(PY) -m dlarray check $$library --json docs/results/dlpack-kit/$$library.json > /dev/null; \
	  status=$$?; test $$status -le 1 || exit $$status; echo "recorded docs/results/dlpack-kit/$$library.json"; \
	done

# what mypy and pyright read of a user's script (make test runs the mypy part; pyright is ~280 MB)
typing: $(STAMP) $(TYPING_STAMP)
	$(PY) -m pytest -p no:cacheprovider tests/test_typing.py

test: $(STAMP)
	DLARRAY_TEST_REQUIRES="$(TEST_REQUIRES)" $(PY) -m pytest -n 2 -p no:cacheprovider tests

# the second CI leg: the whole suite on the newest Python with the newest libraries and no torch
test-latest: $(LATEST_STAMP)
	@$(LATEST_PY) -c "import sys, numpy; print('== Python', sys.version.split()[0], 'numpy', numpy.__version__)"
	DLARRAY_TEST_REQUIRES="$(LATEST_TEST_REQUIRES)" $(LATEST_PY) -m pytest -n 2 -p no:cacheprovider tests

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
	$(PY) tests/stress/stress.py --json docs/results/stress.json

docs: $(STAMP)
	$(VENV)/bin/mkdocs build --strict

serve-docs: $(STAMP)
	$(VENV)/bin/mkdocs serve

# the built site as a reader sees it (docs_hooks/site_check.py): bold double-underscore names, "1 tests",
# and, in headless Chromium at 1400x1000 (Debian's chromium, installed here when absent), code blocks and
# tables wider than the page, names broken mid-word in table cells, requests leaving the machine
docs-check: docs
	@command -v chromium >/dev/null || { echo "== installing chromium (apt-get)"; \
	  $$(test "$$(id -u)" = 0 || echo sudo) apt-get install -y chromium; }
	$(PY) docs_hooks/site_check.py site

bench: $(STAMP)
	$(PY) benchmarks/bench_dlpack.py --compare --memory
	$(PY) benchmarks/bench_dispatch.py
	$(PY) benchmarks/bench_sklearn.py

bench-cuda: $(STAMP)
	$(PY) benchmarks/bench_cuda.py
	$(PY) benchmarks/plots.py cuda  # bench_cuda.py writes the JSON only
	$(PY) benchmarks/bench_sklearn.py --device cuda:0  # writes sklearn_cuda.json and its plot

# cubed computing xp.sum(a @ a.T) of a (4000, 4000) array in (1000, 1000) chunks on dlarray and on its
# numpy backend, with its threads and processes executors: values, times and t(dlarray)/t(numpy);
# in .venv-latest (cubed needs Python 3.12+); writes benchmarks/results/scale_out.json
scale-out: $(LATEST_STAMP)
	$(LATEST_PY) benchmarks/scale_out.py

conformance: $(CONFORMANCE_STAMP)
	@test -n "$$ARRAY_API_TESTS_DIR" || echo "ARRAY_API_TESTS_DIR is not set: cloning the pinned suite (needs a network)"
	$(PY) conformance/run.py $(CONFORMANCE_ARGS)

conformance-cuda: $(CONFORMANCE_STAMP)
	$(PY) conformance/run.py --device cuda:0 $(CONFORMANCE_ARGS)

# the suite on cuda:0 without a GPU (tests/numpy_cupy.py plays cupy): finds CUDA-path bugs early;
# written to conformance/.runs/ only, never shown as a GPU result
conformance-cuda-sim: $(CONFORMANCE_STAMP)
	$(PY) conformance/run.py --simulated-cuda $(CONFORMANCE_ARGS)

# scikit-learn's and SciPy's own array-API tests, with dlarray where they use array_api_strict and with
# array_api_strict itself (about half an hour on 2 cores; the `test` extra has both libraries):
# writes conformance/results/downstream.json, which the conformance page shows
downstream: $(STAMP)
	$(PY) conformance/downstream.py $(DOWNSTREAM_ARGS)

clean:
	rm -rf $(VENV) $(LATEST_VENV) site .pytest_cache .hypothesis
