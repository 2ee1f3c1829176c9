"""`python -m dlarray` prints the interop table, and the hops that must be zero-copy are."""

from __future__ import annotations

import subprocess
import sys

from dlarray.__main__ import probe


def test_probe_table_zero_copy_where_promised() -> None:
    rows, _notes = probe()
    header = rows[0]
    table = {row[0]: dict(zip(header, row)) for row in rows[1:]}
    for producer in ("numpy", "torch", "jax", "array-api-strict", "bytes", "bytearray", "array.array", "memoryview"):
        assert table[producer]["-> dlarray"] == "zero-copy", producer
        assert table[producer]["-> numpy"] == "zero-copy", producer
        assert table[producer]["-> dlarray"] == "zero-copy", producer
    for producer in ("numpy", "torch", "jax", "array-api-strict", "bytearray"):
        assert table[producer]["-> torch"] == "zero-copy", producer
        assert table[producer]["-> array-api-strict"] == "zero-copy", producer


def test_probe_runs_as_a_module() -> None:
    result = subprocess.run([sys.executable, "-m", "dlarray"], capture_output=True, text=True, timeout=300)
    assert result.returncode == 0, result.stderr
    assert "producer" in result.stdout and "zero-copy" in result.stdout
