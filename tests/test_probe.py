"""`python -m dlarray`: the interop table is zero-copy where promised, the same on every run, explains
every COPY and refusal, and has real options (--help, --json, --producers/--consumers, --list)."""

from __future__ import annotations

import json
import re
import subprocess
import sys

import numpy as np
import pytest

from dlarray.__main__ import (
    ALIGNMENT,
    IMPORT,
    Producer,
    _numpy_pointer,
    aligned_bytearray,
    aligned_float32,
    main,
    probe,
)

CPU_PRODUCERS = ("numpy", "torch", "jax", "array-api-strict", "bytes", "bytearray", "array.array", "memoryview")


def _table(rows: list[list[str]]) -> dict[str, dict[str, str]]:
    header = rows[0]
    return {row[0]: dict(zip(header, row)) for row in rows[1:]}


def _run(*args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, "-m", "dlarray", *args], capture_output=True, text=True, timeout=300,
                          check=False)


def test_probe_table_zero_copy_where_promised() -> None:
    table = _table(probe().rows)
    for producer in CPU_PRODUCERS:
        assert table[producer][IMPORT] == "zero-copy", producer
        assert table[producer]["-> numpy"] == "zero-copy", producer
        assert table[producer]["-> dlarray"] == "zero-copy", producer
    for producer in ("numpy", "torch", "jax", "array-api-strict", "bytearray"):
        assert table[producer]["-> torch"] == "zero-copy", producer
        assert table[producer]["-> array-api-strict"] == "zero-copy", producer


def test_probe_buffers_are_aligned_so_jax_keeps_them() -> None:
    # jax copies a CPU buffer off a 64-byte boundary: the probe's own buffers are all on one
    result = probe()
    table = _table(result.rows)
    # (jax's and bytes' own buffers are read-only: refused to jax's legacy request, see below)
    for producer in ("numpy", "torch", "array-api-strict", "bytearray", "array.array", "memoryview"):
        assert table[producer]["-> jax"] == "zero-copy", (producer, result.notes)
    buffer = aligned_bytearray(100)
    assert len(buffer) == 100 and np.frombuffer(buffer, np.uint8).ctypes.data % ALIGNMENT == 0
    assert aligned_float32(1024).ctypes.data % ALIGNMENT == 0
    assert np.array_equal(aligned_float32(5), np.arange(5, dtype=np.float32))


def test_probe_is_the_same_on_every_run() -> None:
    runs = [_run("--json") for _ in range(3)]
    for run in runs:
        assert run.returncode == 0, run.stderr[-3000:]
    results = [json.loads(run.stdout) for run in runs]
    for result in results[1:]:
        assert result["rows"] == results[0]["rows"], (results[0]["notes"], result["notes"])


def test_every_copy_and_refusal_has_a_footnote() -> None:
    result = probe()
    for row in result.rows[1:]:
        for cell in row[1:]:
            if cell.startswith(("COPY", "refused")):
                number = int(re.fullmatch(r"(?:COPY|refused) \[(\d+)\]", cell).group(1))
                assert 1 <= number <= len(result.notes)
    for cell in result.cells:
        assert (cell["note"] is None) == (cell["verdict"] == "zero-copy"), cell


@pytest.mark.parametrize("producer", ["bytes", "jax"])
def test_refusal_footnote_gives_the_exception_and_its_reason(producer: str) -> None:
    # bytes and jax arrays are read-only; jax asks for a legacy capsule, which cannot say read-only
    result = probe(producers=[producer], consumers=["jax"])
    cell = _table(result.rows)[producer]["-> jax"]
    assert cell == "refused [1]"
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
    assert "producer" in result.stdout and "zero-copy" in result.stdout and "[1] BufferError" in result.stdout


def test_help_describes_the_options() -> None:
    result = _run("--help")
    assert result.returncode == 0
    for option in ("--json", "--producers", "--consumers", "--list"):
        assert option in result.stdout
    assert result.stdout.startswith("usage: python -m dlarray") and "zero-copy " not in result.stdout
    assert "python -m dlarray check LIBRARY" in result.stdout  # the subcommand is found from here


def test_json_output_and_choosing_hops(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["--json", "--producers", "numpy,bytes", "--consumers", "numpy,jax"]) == 0
    out = json.loads(capsys.readouterr().out)
    assert out["header"] == ["producer", IMPORT, "-> numpy", "-> jax"]
    assert out["rows"] == [["numpy", "zero-copy", "zero-copy", "zero-copy"],
                           ["bytes", "zero-copy", "zero-copy", "refused [1]"]]
    assert out["alignment"] == ALIGNMENT and len(out["notes"]) == 1
    assert {"producer": "bytes", "consumer": "jax", "verdict": "refused", "note": out["notes"][0]} in out["cells"]


def test_list_names_what_is_installed(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["--list"]) == 0
    out = capsys.readouterr().out
    assert out.startswith("producers: numpy, ") and "\nconsumers: numpy, dlarray" in out
