"""tensorflow, paddle and pyarrow in the probe and the DLPack conformance kit (`make frameworks`;
skipped where they are not installed, as in `make test`).

Each framework's faults that its users meet through dlarray are named by the report of
`python -m dlarray check LIBRARY`, and the probe shows the hops that abort as CRASH cells. Every
run is its own process: paddle 3.3 cannot be imported after tensorflow 2.21 in one process. These
are facts about the versions measured (tensorflow-cpu 2.21, paddlepaddle 3.3.1, pyarrow 26): a
framework that fixes one fails its test here, and the docs pages that describe it need the update.
"""

from __future__ import annotations

import importlib.util
import json
import subprocess
import sys
from pathlib import Path
from typing import Any

import needs
import pytest

from dlarray.testing import Report


def _needs(module: str) -> None:
    if importlib.util.find_spec(module) is None:
        pytest.skip(f"{module} is not installed (make frameworks installs it)")


def _check(library: str, tmp_path: Path) -> tuple[dict[str, Any], subprocess.CompletedProcess[str]]:
    path = tmp_path / "record.json"
    done = subprocess.run([sys.executable, "-m", "dlarray", "check", library, "--json", str(path)],
                          capture_output=True, text=True, timeout=1200, check=False)
    assert done.returncode == 1, done.stdout[-3000:] + done.stderr[-3000:]  # failures found, and a report
    assert "Traceback" not in done.stdout + done.stderr
    return json.loads(path.read_text()), done


def _row(record: dict[str, Any], role: str, name: str) -> Any:
    return Report.from_dict(record[role])[name]


@pytest.fixture(scope="module")
def tensorflow_record(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Any]:
    _needs("tensorflow")
    return _check("tensorflow", tmp_path_factory.mktemp("tensorflow"))[0]


def test_tensorflow_refuses_copy_and_dl_device_with_runtime_error(tensorflow_record: dict[str, Any]) -> None:
    for name in ("copy=True", "dl_device=own", "dl_device=other,copy=False", "dl_device=unknown"):
        row = _row(tensorflow_record, "producer", name)
        assert row.status == "failed" and "RuntimeError" in row.detail, row


def test_tensorflow_reads_only_legacy_capsules(tensorflow_record: dict[str, Any]) -> None:
    assert _row(tensorflow_record, "consumer", "legacy").status == "passed"
    row = _row(tensorflow_record, "consumer", "versioned")
    assert row.status == "failed" and "InvalidArgumentError" in row.detail and '"%s"' in row.detail, row
    assert _row(tensorflow_record, "consumer", "call_arguments").status == "not applicable"  # takes capsules


def test_tensorflow_aborts_on_unaligned_data_and_the_report_says_so(tensorflow_record: dict[str, Any]) -> None:
    row = _row(tensorflow_record, "consumer", "unaligned")
    assert row.status == "crashed" and "SIGABRT" in row.detail and "IsAligned()" in row.detail, row


def test_tensorflow_aborting_producer_check_is_reported(tensorflow_record: dict[str, Any]) -> None:
    row = _row(tensorflow_record, "producer", "refusals")  # a string tensor: __dlpack__ aborts
    assert row.status == "crashed" and "SIGABRT" in row.detail, row
    assert _row(tensorflow_record, "producer", "deleter_once (every capsule)").status == "passed"


def test_tensorflow_consumer_by_name_is_checked_with_capsules(tmp_path: Path) -> None:
    _needs("tensorflow")
    record, done = _check("tensorflow.experimental.dlpack:from_dlpack", tmp_path)
    assert "takes capsules" in done.stdout
    assert _row(record, "consumer", "legacy").status == "passed"
    assert _row(record, "producer", "layout").status == "passed"  # what it returns for a capsule


@pytest.fixture(scope="module")
def paddle_record(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Any]:
    _needs("paddle")
    return _check("paddle", tmp_path_factory.mktemp("paddle"))[0]


def test_paddle_writes_through_read_only_data(paddle_record: dict[str, Any]) -> None:
    row = _row(paddle_record, "consumer", "read_only")
    assert row.status == "failed" and "wrote into the read-only buffer" in row.detail, row


def test_paddle_cannot_convert_negative_strides_to_numpy(paddle_record: dict[str, Any]) -> None:
    row = _row(paddle_record, "consumer", "negative_strides")
    assert row.status == "failed" and "numpy.asarray(result) raised MemoryError" in row.detail, row


def test_paddle_crash_on_a_cuda_capsule_is_reported(paddle_record: dict[str, Any]) -> None:
    row = _row(paddle_record, "consumer", "device=cuda")
    assert row.status == "crashed" and "SIGSEGV" in row.detail, row


def test_pyarrow_refuses_bit_packed_booleans_with_a_type_error(tmp_path: Path) -> None:
    """pyarrow 26 takes ``max_version`` (apache/arrow#41670) and refuses a bit-packed boolean array
    with its TypeError; an older pyarrow's ``__dlpack__`` takes no ``max_version``, which the kit,
    asking as the standard says, reports instead."""
    _needs("pyarrow")
    try:
        import pyarrow
    except ImportError as error:  # pyarrow < 16 is built against numpy 1
        pytest.skip(f"pyarrow does not import here: {error}")
    record, done = _check("pyarrow", tmp_path)
    row = _row(record, "producer", "edge_cases")
    if needs.version(pyarrow) >= (26, 0):
        assert row.status == "failed" and "ArrowTypeError" in row.detail and "Bit-packed boolean" in row.detail, row
    else:
        assert row.status == "failed" and "unexpected keyword argument 'max_version'" in row.detail, row
    assert record["consumer"] is None and "pyarrow: no consumer to check" in done.stdout


def test_the_probe_shows_the_frameworks_and_their_crashes() -> None:
    for module in ("tensorflow", "paddle", "pyarrow", "torch"):
        _needs(module)
    done = subprocess.run([sys.executable, "-m", "dlarray", "--json"], capture_output=True, text=True, timeout=1200,
                          check=False)
    assert done.returncode == 0, done.stderr[-3000:]
    found = json.loads(done.stdout)
    table = {row[0]: dict(zip(found["header"], row)) for row in found["rows"]}
    for producer in ("tensorflow", "paddle", "pyarrow"):  # imported without a copy
        assert table[producer]["dlarray.asarray"] == "zero-copy", table[producer]
    assert table["numpy"]["-> tensorflow"] == table["numpy"]["-> paddle"] == "zero-copy"

    def note(cell: str) -> str:
        return found["notes"][int(cell.split("[")[1].rstrip("]")) - 1]

    for producer, consumer, what in (("numpy (unaligned)", "tensorflow", "IsAligned()"),
                                     ("numpy[::-1]", "torch", "strides=[-1]")):
        cell = table[producer][f"-> {consumer}"]
        assert cell.startswith("CRASH") and "SIGABRT" in note(cell) and what in note(cell), (cell, found["notes"])
    cell = table["numpy[::-1]"]["-> paddle"]
    assert cell.startswith("unusable") and "MemoryError" in note(cell), (cell, found["notes"])
