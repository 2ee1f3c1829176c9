"""DLPack with C code on the other side: a consumer and a producer written in C (tests/c/dlpack_c.c),
compiled here with the system's C compiler (skipped without one or without Python's headers).

What a framework's C code relies on, checked from C: every field of dlarray's legacy and versioned
capsules (pointer, shape, strides in elements, dtype, device, the READ_ONLY flag), the rename to
``used_*`` and one deleter call per capsule; and what dlarray relies on from a C producer: its
memory held zero-copy with its strides and read-only flag, and its deleter called exactly once,
when the last Array, view and export of it is gone. Each case runs in a child process: a wrong
deleter call is a crash there, not here.
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
import sysconfig
import textwrap
from pathlib import Path

import pytest

import dlarray

SOURCE = Path(__file__).parent / "c" / "dlpack_c.c"


def _compiler() -> str | None:
    configured = (sysconfig.get_config_var("CC") or "").split()
    for candidate in ([configured[0]] if configured else []) + ["cc", "gcc", "clang"]:
        found = shutil.which(candidate)
        if found:
            return found
    return None


@pytest.fixture(scope="module")
def c_module_dir(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A folder holding the compiled ``dlpack_c`` extension module."""
    compiler = _compiler()
    include = sysconfig.get_paths()["include"]
    if compiler is None:
        pytest.skip("no C compiler (cc, gcc or clang) on PATH")
    if not (Path(include) / "Python.h").exists():
        pytest.skip(f"no Python headers in {include}")
    folder = tmp_path_factory.mktemp("dlpack_c")
    target = folder / f"dlpack_c{sysconfig.get_config_var('EXT_SUFFIX') or '.so'}"
    built = subprocess.run(
        [compiler, "-shared", "-fPIC", "-O1", "-Wall", "-Werror", f"-I{include}", "-o", str(target), str(SOURCE)],
        capture_output=True, text=True, timeout=120,
    )
    assert built.returncode == 0, built.stderr
    return folder


def run_in_child(c_module_dir: Path, body: str) -> dict:
    """Run ``body`` (with dlpack_c, dlarray as xp, numpy as np and gc imported) in a child process;
    it reports through ``report(**values)``; returns what it reported."""
    script = textwrap.dedent("""
        import gc, json, sys
        import numpy as np
        import dlarray as xp
        import dlpack_c
        def report(**values):
            print("REPORT " + json.dumps(values))
    """) + textwrap.dedent(body)
    package_root = str(Path(dlarray.__file__).resolve().parent.parent)
    env = dict(os.environ, PYTHONPATH=os.pathsep.join([str(c_module_dir), package_root, os.environ.get("PYTHONPATH", "")]))
    done = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True, timeout=120, env=env)
    assert done.returncode == 0, f"child exited with {done.returncode}:\n{done.stdout}\n{done.stderr}"
    reports = [line[len("REPORT "):] for line in done.stdout.splitlines() if line.startswith("REPORT ")]
    assert len(reports) == 1, done.stdout
    return json.loads(reports[0])


# ------------------------------------------------------------------ dlarray's capsules, read by C
@pytest.mark.parametrize("versioned", [False, True], ids=["legacy", "versioned"])
def test_the_c_consumer_reads_every_field_of_dlarrays_capsules(c_module_dir: Path, versioned: bool) -> None:
    seen = run_in_child(c_module_dir, f"""
        base = xp.asarray(np.arange(12.0).reshape(3, 4))
        views = {{"whole": base, "strided": base[1:, ::2], "transposed": base.T, "scalar": base[2, 3]}}
        fields = {{}}
        for name, view in views.items():
            capsule = view.__dlpack__(max_version={(1, 3) if versioned else None})
            got = dlpack_c.consume(capsule)
            got["renamed"] = repr(capsule).split('"')[1]
            got["address_matches"] = got["data"] + got["byte_offset"] == view.data_ptr
            got["expected_shape"], got["expected_strides"] = list(view.shape), list(view.strides)
            fields[name] = got
            del capsule
        report(fields=fields)
    """)["fields"]
    for name, got in seen.items():
        assert got["versioned"] is versioned, name
        assert got["renamed"] == ("used_dltensor_versioned" if versioned else "used_dltensor"), name
        assert got["address_matches"], name
        assert (got["device_type"], got["device_id"]) == (1, 0)
        assert (got["code"], got["bits"], got["lanes"]) == (2, 64, 1)
        assert got["shape"] == got["expected_shape"], name
        # DLPack 1.2: strides may be NULL only for 0-d tensors (NULL means C-contiguous)
        assert got["strides"] == got["expected_strides"] or (got["ndim"] == 0 and got["strides"] is None), name
        if versioned:
            assert got["major"] == 1 and got["flags"] & 1 == 0, name  # writable: no READ_ONLY flag
    assert [seen[name]["first"] for name in ("whole", "strided", "transposed", "scalar")] == [0.0, 4.0, 0.0, 11.0]


def test_the_c_consumer_sees_the_read_only_flag_and_no_legacy_capsule_of_read_only_data(c_module_dir: Path) -> None:
    seen = run_in_child(c_module_dir, """
        frozen = xp.from_dlpack(np.frombuffer(np.arange(4.0).tobytes()))  # read-only float64 memory
        got = dlpack_c.consume(frozen.__dlpack__(max_version=(1, 3)))
        try:
            frozen.__dlpack__()
            legacy = "exported"
        except BufferError as error:
            legacy = str(error)
        report(readonly=frozen.readonly, flags=got["flags"], first=got["first"], legacy=legacy)
    """)
    assert seen["readonly"] is True
    assert seen["flags"] & 1 == 1  # READ_ONLY, read from C
    assert seen["first"] == 0.0
    assert "read-only" in seen["legacy"]


# ------------------------------------------------------------------ a C producer's capsules in dlarray
@pytest.mark.parametrize("versioned, read_only", [(True, False), (True, True), (False, False)],
                         ids=["versioned", "versioned-read-only", "legacy"])
@pytest.mark.parametrize("transposed", [False, True], ids=["c-order", "transposed"])
def test_a_c_producers_memory_is_held_zero_copy_and_freed_exactly_once(
    c_module_dir: Path, versioned: bool, read_only: bool, transposed: bool
) -> None:
    seen = run_in_child(c_module_dir, f"""
        capsule, address = dlpack_c.produce({versioned}, {read_only}, 2, 3, {transposed})
        x = xp.from_dlpack(capsule)
        consumed = repr(capsule).split('"')[1]
        del capsule
        state = dict(zero_copy=x.data_ptr == address, strides=list(x.strides), shape=list(x.shape),
                     values=np.asarray(x).tolist(), readonly=x.readonly, consumed=consumed)
        try:
            x[0, 0] = 7.0
            state["write"] = "written"
        except ValueError as error:
            state["write"] = str(error)
        views = [x[1:], x.T, xp.reshape(x, (-1,)) if not {transposed} else x[:, ::2]]
        exported = views[0].__dlpack__(max_version=(1, 3))
        del x
        gc.collect()
        state["after_array"] = dlpack_c.deleter_calls()
        del views
        gc.collect()
        state["after_views"] = dlpack_c.deleter_calls()
        dlpack_c.consume(exported)  # the C consumer calls dlarray's deleter: the last hold
        state["after_consumer"] = dlpack_c.deleter_calls()
        del exported
        gc.collect()
        state["at_end"] = dlpack_c.deleter_calls()
        report(**state)
    """)
    assert seen["consumed"] == ("used_dltensor_versioned" if versioned else "used_dltensor")
    assert seen["zero_copy"]
    values = [[0.5 * (r * 3 + c) for c in range(3)] for r in range(2)]
    if transposed:
        assert seen["shape"] == [3, 2] and seen["strides"] == [1, 3]
        assert seen["values"] == [list(column) for column in zip(*values)]
    else:
        assert seen["shape"] == [2, 3] and seen["strides"] == [3, 1]
        assert seen["values"] == values
    # a legacy capsule cannot say read-only: imported read-only, as numpy does
    assert seen["readonly"] is (read_only or not versioned)
    assert (seen["write"] == "written") is not seen["readonly"]
    # held while any view or export lives; freed once, when the last one goes
    assert (seen["after_array"], seen["after_views"], seen["after_consumer"], seen["at_end"]) == (0, 0, 1, 1)


def test_an_unconsumed_c_capsule_is_freed_by_its_destructor_and_a_refused_one_stays_its_producers(c_module_dir: Path) -> None:
    seen = run_in_child(c_module_dir, """
        capsule, _ = dlpack_c.produce(True, False, 2, 2, False)
        del capsule
        gc.collect()
        dropped = dlpack_c.deleter_calls()
        capsule, _ = dlpack_c.produce(True, False, 2, 2, False)
        x = xp.from_dlpack(capsule)
        try:
            xp.from_dlpack(capsule)  # consumed already
            second = "imported twice"
        except BufferError as error:
            second = str(error)
        del x, capsule
        gc.collect()
        report(dropped=dropped, second=second, at_end=dlpack_c.deleter_calls())
    """)
    assert seen["dropped"] == 1
    assert "used" in seen["second"] or "consumed" in seen["second"]
    assert seen["at_end"] == 2
