"""`python -m dlarray`: the interop table is zero-copy where promised, the same on every run, explains
every COPY, refusal, unusable result and crash, survives a hop that kills its process (each hop runs
in a child), and has real options (--help, --json, --producers/--consumers, --list)."""

from __future__ import annotations

import json
import os
import re
import subprocess
import sys
from typing import Any

import gpu_view
import needs
import numpy as np
import pytest

import dlarray
from dlarray.__main__ import main
from dlarray._probe import (
    ALIGNMENT,
    IMPORT,
    Consumer,
    ProbeResult,
    Producer,
    _numpy_pointer,
    aligned_bytearray,
    aligned_float32,
    probe,
)

# the rows and columns of the libraries installed here (the probe shows only those; make test requires
# torch, make test-latest has none: tests/needs.py)
_MODULES = {"torch": "torch", "jax": "jax", "array-api-strict": "array_api_strict"}


def _installed(*names: str) -> tuple[str, ...]:
    return tuple(name for name in names if name not in _MODULES or needs.available(_MODULES[name]))


CPU_PRODUCERS = _installed("numpy", "torch", "jax", "array-api-strict", "bytes", "bytearray", "array.array",
                           "memoryview")
JAX = needs.optional("jax")
# jax up to 0.11 asks for a legacy capsule (no max_version), which cannot say read-only: a read-only
# Array refuses it. jax 0.12 and newer ask with max_version and take read-only data zero-copy.
JAX_ASKS_VERSIONED = JAX is not None and needs.version(JAX) >= (0, 12)


def _table(rows: list[list[str]]) -> dict[str, dict[str, str]]:
    header = rows[0]
    return {row[0]: dict(zip(header, row)) for row in rows[1:]}


def _run(*args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, "-m", "dlarray", *args], capture_output=True, text=True, timeout=300,
                          check=False)


@pytest.fixture(scope="module")
def full_probe() -> ProbeResult:
    """Every hop installed here, run once for the tests that read the whole table, with the GPU
    hidden as in every test and in the child processes the table is compared with (a module's
    fixture is made before the per-test view of the GPU is set: tests/conftest.py)."""
    with pytest.MonkeyPatch.context() as monkeypatch:
        gpu_view.forget_devices()
        unhide = gpu_view.hide_gpu(monkeypatch)
        try:
            return probe()
        finally:
            unhide()
            gpu_view.forget_devices()


def test_probe_table_zero_copy_where_promised(full_probe: ProbeResult) -> None:
    table = _table(full_probe.rows)
    for producer in CPU_PRODUCERS:
        assert table[producer][IMPORT] == "zero-copy", producer
        assert table[producer]["-> numpy"] == "zero-copy", producer
        assert table[producer]["-> dlarray"] == "zero-copy", producer
    for producer in _installed("numpy", "torch", "jax", "array-api-strict", "bytearray"):
        for consumer in _installed("torch", "array-api-strict"):
            assert table[producer][f"-> {consumer}"] == "zero-copy", (producer, consumer)


@needs.skip_without("jax")
def test_probe_buffers_are_aligned_so_jax_keeps_them(full_probe: ProbeResult) -> None:
    # jax copies a CPU buffer off a 64-byte boundary: the probe's own buffers are all on one
    result = full_probe
    table = _table(result.rows)
    # (jax's and bytes' own buffers are read-only: see test_read_only_buffers_reach_jax_as_its_version_allows)
    for producer in _installed("numpy", "torch", "array-api-strict", "bytearray", "array.array", "memoryview"):
        assert table[producer]["-> jax"] == "zero-copy", (producer, result.notes)
    buffer = aligned_bytearray(100)
    assert len(buffer) == 100 and np.frombuffer(buffer, np.uint8).ctypes.data % ALIGNMENT == 0
    assert aligned_float32(1024).ctypes.data % ALIGNMENT == 0
    assert np.array_equal(aligned_float32(5), np.arange(5, dtype=np.float32))


def test_probe_is_the_same_on_every_run(full_probe: ProbeResult) -> None:
    runs = [_run("--json") for _ in range(2)]
    for run in runs:
        assert run.returncode == 0, run.stderr[-3000:]
    results = [json.loads(run.stdout) for run in runs]
    for result in results:  # the notes too: crashes are quoted without addresses
        assert [result["header"], *result["rows"]] == full_probe.rows, (full_probe.notes, result["notes"])
        assert result["notes"] == full_probe.notes


def test_every_cell_but_zero_copy_has_a_footnote(full_probe: ProbeResult) -> None:
    result = full_probe
    for row in result.rows[1:]:
        for cell in row[1:]:
            if cell not in ("zero-copy", "-"):
                number = int(re.fullmatch(r"(?:COPY|refused|unusable|CRASH) \[(\d+)\]", cell).group(1))
                assert 1 <= number <= len(result.notes)
    for cell in result.cells:
        assert (cell["note"] is None) == (cell["verdict"] == "zero-copy"), cell


def test_the_layouts_that_trouble_frameworks_have_rows_of_their_own() -> None:
    # a reversed array (negative strides) and one 16 bytes past a boundary: numpy and dlarray take both
    table = _table(probe(producers=["numpy[::-1]", "numpy (unaligned)"], consumers=["numpy", "dlarray"]).rows)
    for producer in ("numpy[::-1]", "numpy (unaligned)"):
        assert [table[producer][column] for column in (IMPORT, "-> numpy", "-> dlarray")] == ["zero-copy"] * 3
    assert aligned_float32(8, misalign=16).ctypes.data % ALIGNMENT == 16


# Module-level: the probe's child process imports them by name.
def aborting_consumer(x: Any) -> Any:
    """A consumer that kills its process, as torch does on negative strides."""
    os.write(2, b"fatal: this consumer cannot take it\n")
    os.abort()


class _AsksForALegacyCapsule:
    """An Array shown to numpy as a producer from before DLPack 1.0 (no max_version): numpy then asks
    for a legacy capsule, as jax up to 0.11 did."""

    def __init__(self, array: Any) -> None:
        self.array = array

    def __dlpack__(self, stream: Any = None) -> Any:
        return self.array.__dlpack__(stream=stream)

    def __dlpack_device__(self) -> Any:
        return self.array.__dlpack_device__()


def legacy_numpy_consumer(x: Any) -> Any:
    return np.from_dlpack(_AsksForALegacyCapsule(x))


def consumer_of_unaddable_results(x: Any) -> Any:
    return UnaddableResult(np.from_dlpack(x))


class UnaddableResult:
    """A result that holds the buffer but cannot be computed with."""

    def __init__(self, array: np.ndarray) -> None:
        self.array = array

    def __add__(self, other: Any) -> Any:
        raise RuntimeError("no kernel for this layout")


def test_a_hop_that_kills_its_process_is_a_crash_cell_and_the_next_hops_run() -> None:
    aborting = Consumer("aborting", aborting_consumer, _numpy_pointer)
    result = probe(producers=["numpy", "bytearray"], consumers=[aborting, "numpy"])
    table = _table(result.rows)
    for producer in ("numpy", "bytearray"):
        assert table[producer]["-> aborting"] == "CRASH [1]"
        assert table[producer]["-> numpy"] == "zero-copy"  # in a new child process
    assert result.notes == ["aborting: the process died of SIGABRT (status -6): fatal: this consumer cannot take it"]
    assert {"producer": "numpy", "consumer": "aborting", "verdict": "CRASH", "note": result.notes[0]} in result.cells


def test_a_result_that_cannot_be_used_is_unusable() -> None:
    unaddable = Consumer("unaddable", consumer_of_unaddable_results, lambda r: _numpy_pointer(r.array))
    result = probe(producers=["numpy"], consumers=[unaddable])  # a lambda: run in this process
    assert _table(result.rows)["numpy"]["-> unaddable"] == "unusable [1]"
    assert result.notes == [("unaddable: accepted, but the result cannot be used: result + result raised "
                             "RuntimeError: no kernel for this layout")]


def test_hops_run_in_a_child_process_unless_a_function_has_no_name() -> None:
    from dlarray._probe import _IMPORTER, _entry

    assert _entry(Producer("numpy", aligned_float32, _numpy_pointer)) is not None
    assert _entry(Producer("lambda", lambda: aligned_float32(4), _numpy_pointer)) is None
    assert _entry(Consumer("dlarray", dlarray.from_dlpack, _numpy_pointer)) is not None
    assert _IMPORTER.name == IMPORT


@needs.skip_without("jax")
@pytest.mark.parametrize("producer", ["bytes", "jax"])
def test_read_only_buffers_reach_jax_as_its_version_allows(producer: str) -> None:
    """bytes and jax arrays are read-only. jax up to 0.11 asks for a legacy capsule, which cannot say
    read-only: refused, and the footnote gives the exception and its reason; jax 0.12 and newer ask
    for a versioned one and read the buffer zero-copy."""
    result = probe(producers=[producer], consumers=["jax"])
    cell = _table(result.rows)[producer]["-> jax"]
    if JAX_ASKS_VERSIONED:
        assert cell == "zero-copy", (JAX.__version__, result.notes)
    else:
        assert cell == "refused [1]", (JAX.__version__, result.notes)
        assert result.notes[0].startswith("BufferError: ") and "read-only" in result.notes[0]


def test_a_refusal_footnote_gives_the_exception_and_its_reason() -> None:
    """numpy refuses a read-only buffer a legacy capsule would carry (it cannot say read-only)."""
    legacy = Consumer("legacy numpy", legacy_numpy_consumer, _numpy_pointer)
    result = probe(producers=["bytes"], consumers=[legacy])
    assert _table(result.rows)["bytes"]["-> legacy numpy"] == "refused [1]"
    assert result.notes[0].startswith("BufferError: ") and "read-only" in result.notes[0]


def test_copy_footnote_says_why_jax_copied_an_unaligned_buffer() -> None:
    unaligned = Producer("unaligned numpy", lambda: aligned_float32(1025)[1:], _numpy_pointer)
    result = probe(producers=[unaligned], consumers=["jax", "numpy"])
    row = _table(result.rows)["unaligned numpy"]
    assert row["-> numpy"] == "zero-copy"
    assert row["-> jax"] == "COPY [1]"
    assert f"not a multiple of {ALIGNMENT} bytes" in result.notes[0] and "4 past a boundary" in result.notes[0]


def test_unknown_producer_is_named() -> None:
    with pytest.raises(ValueError, match="unknown producer 'nonesuch'.*numpy"):
        probe(producers=["nonesuch"])
    run = _run("--consumers", "numpy,nonesuch")
    assert run.returncode == 2 and "unknown consumer 'nonesuch'" in run.stderr


def test_probe_runs_as_a_module() -> None:
    result = _run()
    assert result.returncode == 0, result.stderr
    assert "producer" in result.stdout and "zero-copy" in result.stdout
    assert re.search(r"^\[1\] \S", result.stdout, re.MULTILINE), result.stdout  # a footnote for a cell


def test_help_describes_the_options() -> None:
    result = _run("--help")
    assert result.returncode == 0
    for option in ("--json", "--producers", "--consumers", "--list"):
        assert option in result.stdout
    assert result.stdout.startswith("usage: python -m dlarray") and "zero-copy " not in result.stdout
    assert "python -m dlarray check LIBRARY" in result.stdout  # the subcommand is found from here


@needs.skip_without("jax")
def test_json_output_and_choosing_hops(capsys: pytest.CaptureFixture[str]) -> None:
    """jax takes only compact strides (every version so far): a reversed array is refused."""
    assert main(["--json", "--producers", "numpy,numpy[::-1]", "--consumers", "numpy,jax"]) == 0
    out = json.loads(capsys.readouterr().out)
    assert out["header"] == ["producer", IMPORT, "-> numpy", "-> jax"]
    assert out["rows"] == [["numpy", "zero-copy", "zero-copy", "zero-copy"],
                           ["numpy[::-1]", "zero-copy", "zero-copy", "refused [1]"]]
    assert out["alignment"] == ALIGNMENT and len(out["notes"]) == 1 and "strid" in out["notes"][0]
    assert {"producer": "numpy[::-1]", "consumer": "jax", "verdict": "refused", "note": out["notes"][0]} in out["cells"]


def test_list_names_what_is_installed(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["--list"]) == 0
    out = capsys.readouterr().out
    assert out.startswith("producers: numpy, ") and "\nconsumers: numpy, dlarray" in out
