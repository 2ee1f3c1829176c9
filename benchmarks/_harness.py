"""Shared helpers of the benchmark scripts: timing, targets, tables, JSON.

Times are medians over repeats of a tight loop (``timeit`` with ``time.perf_counter_ns``; the loop
count is calibrated so that one repeat lasts ``min_time`` seconds). The statement is compiled into
the loop by ``timeit``, so no Python call wrapper is timed with it. Garbage collection is off
during a repeat, as ``timeit`` does by default. Statements that are compared with each other are
measured in rounds (one repeat of each per round, in a new shuffled order each round), so that a
change of load hits them alike.
"""

from __future__ import annotations

import json
import math
import os
import datetime
import platform
import random
import statistics
import subprocess
import sys
import time
import timeit
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Iterable

RESULTS_DIR = Path(__file__).resolve().parent / "results"


@dataclass(frozen=True)
class Settings:
    """How long to time each statement."""

    min_time: float  # seconds one repeat should last at least
    repeats: int  # repeats whose median is reported

    @classmethod
    def for_mode(cls, quick: bool, *, long: bool = False) -> Settings:
        """Few short repeats for ``--quick`` (a smoke run), enough for stable medians otherwise.

        ``long``: statements of milliseconds each (large inputs), whose times vary with page faults
        and memory bandwidth: longer repeats. Either way 21 of them: a burst of load from another
        process spoils whole repeats, and a median of many short interleaved ones discards more
        such repeats than a median of a few long ones.
        """
        if quick:
            return cls(min_time=0.002, repeats=3)
        return cls(min_time=0.1, repeats=21) if long else cls(min_time=0.02, repeats=21)


@dataclass
class Timing:
    """One measured statement: median and minimum time per call, in microseconds."""

    median_us: float
    min_us: float
    number: int  # calls per repeat
    repeats: int

    def as_dict(self) -> dict[str, Any]:
        return {"median_us": self.median_us, "min_us": self.min_us, "number": self.number, "repeats": self.repeats}


def _calibrate(timer: timeit.Timer, min_ns: float) -> int:
    """Loop count for which one repeat lasts at least ``min_ns`` nanoseconds."""
    number = 1
    while True:
        elapsed = timer.timeit(number)
        if elapsed >= min_ns:
            return number
        # Grow towards the target from the measured rate, at least doubling, at most 100x at once.
        estimate = number * min_ns / max(elapsed, 1) * 1.1
        number = int(min(max(estimate, number * 2), number * 100))


def measure(stmt: str, namespace: dict[str, Any], settings: Settings) -> Timing:
    """Time ``stmt`` (evaluated in ``namespace``); exceptions propagate from a first, untimed run."""
    return measure_interleaved([(stmt, namespace)], settings)[0]


def sample_rounds(
    jobs: list[tuple[str, dict[str, Any]]], rounds: int, min_time: float
) -> tuple[list[list[float]], list[int]]:
    """Microseconds per call of each statement (evaluated in its namespace), one repeat of each per
    round in a new order each round, ``rounds`` rounds, each repeat lasting about ``min_time``
    seconds; and each statement's calls per repeat. A statement that raises does so in the
    calibration, before anything is timed."""
    timers, numbers = [], []
    for stmt, namespace in jobs:
        timer = timeit.Timer(stmt, globals=namespace, timer=time.perf_counter_ns)
        timers.append(timer)
        numbers.append(_calibrate(timer, min_time * 1e9))
    samples: list[list[float]] = [[] for _ in jobs]
    order = list(range(len(jobs)))
    shuffler = random.Random(0)  # the same orders in every run
    for _ in range(rounds):
        # A new order each round: a burst of load lasting a few seconds hits different
        # statements in different rounds, and the median discards it.
        shuffler.shuffle(order)
        for k in order:
            samples[k].append(timers[k].timeit(numbers[k]) / numbers[k] / 1000.0)
    return samples, numbers


def measure_interleaved(jobs: list[tuple[str, dict[str, Any]]], settings: Settings) -> list[Timing]:
    """Time several statements in rounds: one repeat of each per round, ``settings.repeats`` rounds.

    Interleaving spreads a change of machine load over all statements alike, so the ratios between
    them (what the targets are) stay meaningful on a machine that is not quiet.
    """
    samples, numbers = sample_rounds(jobs, settings.repeats, settings.min_time)
    return [
        Timing(statistics.median(per_call), min(per_call), number, settings.repeats)
        for per_call, number in zip(samples, numbers)
    ]


@dataclass(frozen=True)
class Against:
    """A statement timed against a reference in the same rounds: the medians per call, and over the
    rounds the median of its time divided by the reference's (with the quartiles of that ratio,
    which show how much the load moved it) and of its time minus the reference's."""

    us: float
    reference_us: float
    ratio: float
    ratio_quartiles: tuple[float, float]
    difference_us: float


def measure_against(
    reference: str, statements: list[str], namespace: dict[str, Any], rounds: int, min_time: float
) -> list[Against]:
    """Time ``statements`` and ``reference`` in the same short rounds (``sample_rounds``) and
    compare each with the reference round by round: a ratio of repeats moments apart sees one load,
    so on a shared machine the median of such ratios moves far less than a ratio of medians taken
    seconds apart."""
    samples, _ = sample_rounds([(stmt, namespace) for stmt in [reference, *statements]], rounds, min_time)
    return [against(times, samples[0]) for times in samples[1:]]


def against(times: list[float], base: list[float]) -> Against:
    """``times`` compared with ``base``, both timed in the same rounds (``sample_rounds``), round by
    round: the medians, and the median (and quartiles) of the ratio and of the difference."""
    ratios = [t / b for t, b in zip(times, base)]
    low, _, high = statistics.quantiles(ratios, n=4)
    return Against(
        statistics.median(times), statistics.median(base), statistics.median(ratios), (low, high),
        statistics.median([t - b for t, b in zip(times, base)]),
    )


@dataclass
class Results:
    """Timings of named operations, keyed by a case label (a size, or "small"/"large")."""

    timings: dict[str, dict[str, Timing | None]] = field(default_factory=dict)
    errors: dict[str, str] = field(default_factory=dict)

    def run(self, jobs: list[tuple[str, str, str, dict[str, Any]]], settings: Settings) -> None:
        """Measure ``(name, case, statement, namespace)`` jobs, interleaved (see measure_interleaved).

        A statement that raises records its operation as unavailable ("n/a") with the error; the
        others are measured as usual.
        """
        runnable = []
        for name, case, stmt, namespace in jobs:
            row = self.timings.setdefault(name, {})
            try:
                exec(stmt, namespace)
            except Exception as error:  # any failure of the measured library makes the row "n/a"
                self.errors.setdefault(name, f"{type(error).__name__}: {error}".splitlines()[0][:200])
                row[case] = None
                continue
            runnable.append((name, case, stmt, namespace))
        timings = measure_interleaved([(stmt, ns) for _, _, stmt, ns in runnable], settings)
        for (name, case, _, _), timing in zip(runnable, timings):
            self.timings[name][case] = timing

    def median(self, name: str, case: str) -> float | None:
        timing = self.timings.get(name, {}).get(case)
        return None if timing is None else timing.median_us

    def as_dict(self) -> dict[str, Any]:
        return {
            name: {case: (None if t is None else t.as_dict()) for case, t in row.items()}
            for name, row in self.timings.items()
        }


@dataclass
class Target:
    """A performance target: a measured value, how it compares with its bound, and whether it holds."""

    name: str
    value: float | None  # None: could not be computed (an operation was n/a)
    op: str  # "<=" or ">="
    bound: float
    detail: dict[str, float | None] = field(default_factory=dict)  # e.g. the value per size
    unit: str = ""

    @property
    def met(self) -> bool | None:
        if self.value is None or math.isnan(self.value):
            return None
        return self.value <= self.bound if self.op == "<=" else self.value >= self.bound

    @property
    def verdict(self) -> str:
        return {True: "MET", False: "NOT MET", None: "n/a"}[self.met]

    def as_dict(self) -> dict[str, Any]:
        return {
            "value": self.value,
            "target": f"{self.op} {self.bound:g}",
            "met": self.met,
            "verdict": self.verdict,
            "unit": self.unit,
            "detail": self.detail,
        }


def ratio(numerator: float | None, denominator: float | None) -> float | None:
    """``numerator / denominator``, or None when either is missing."""
    if numerator is None or denominator is None or denominator == 0:
        return None
    return numerator / denominator


def worst(values: Iterable[float | None], op: str) -> float | None:
    """The value that decides a target over several cases: the max for "<=", the min for ">="."""
    present = [v for v in values if v is not None]
    if not present:
        return None
    return max(present) if op == "<=" else min(present)


def fmt(value: float | None, digits: int = 3) -> str:
    """A number for a table cell, "n/a" when missing."""
    if value is None:
        return "n/a"
    if value == 0 or 0.01 <= abs(value) < 1e5:
        return f"{value:.{digits}g}" if abs(value) < 10 ** digits else f"{value:.0f}"
    return f"{value:.2e}"


def print_table(title: str, header: list[str], rows: list[list[str]]) -> None:
    """A plain-text table: first column left-aligned, the others right-aligned."""
    widths = [max(len(str(cell)) for cell in column) for column in zip(header, *rows)]
    print(f"\n{title}")
    line = "  ".join(h.ljust(w) if i == 0 else h.rjust(w) for i, (h, w) in enumerate(zip(header, widths)))
    print(line)
    print("-" * len(line))
    for row in rows:
        print("  ".join(c.ljust(w) if i == 0 else c.rjust(w) for i, (c, w) in enumerate(zip(row, widths))))


def print_targets(targets: list[Target]) -> None:
    """The targets with their value, bound and MET/NOT MET."""
    rows = [[t.name, fmt(t.value) + (f" {t.unit}" if t.unit else ""), f"{t.op} {t.bound:g}", t.verdict] for t in targets]
    print_table("Targets", ["target", "value", "bound", "verdict"], rows)


def versions(modules: Iterable[str]) -> dict[str, str | None]:
    """Installed versions of the named modules (None where one cannot be imported)."""
    found: dict[str, str | None] = {}
    for name in modules:
        try:
            module = __import__(name)
        except Exception:
            found[name] = None
            continue
        found[name] = str(getattr(module, "__version__", "unknown"))
    return found


def cpu_model() -> str | None:
    """The processor's name (``/proc/cpuinfo`` on Linux, ``sysctl`` on macOS), or None if unknown."""
    try:
        with open("/proc/cpuinfo") as cpuinfo:
            for line in cpuinfo:
                key, _, value = line.partition(":")
                if key.strip() in ("model name", "Model", "Hardware") and value.strip():
                    return value.strip()
    except OSError:
        pass
    if sys.platform == "darwin":
        try:
            found = subprocess.run(["sysctl", "-n", "machdep.cpu.brand_string"], capture_output=True, text=True,
                                   timeout=10, check=False)
        except OSError:
            return None
        return found.stdout.strip() or None
    return platform.processor() or None


def source_commit() -> str | None:
    """The last commit that changed dlarray/ (what was measured; unchanged by rebases of other files),
    ``+dirty`` when dlarray's sources differ from it; None outside a git checkout. The conformance and
    stress result files name their commit the same way."""
    root = Path(__file__).resolve().parent.parent
    try:
        head = subprocess.run(["git", "-C", str(root), "log", "-1", "--format=%H", "--", "dlarray"],
                              capture_output=True, text=True, timeout=30, check=False)
        dirty = subprocess.run(["git", "-C", str(root), "status", "--porcelain", "--", "dlarray"],
                               capture_output=True, text=True, timeout=30, check=False)
    except (OSError, subprocess.SubprocessError):
        return None
    if head.returncode != 0 or not head.stdout.strip():
        return None
    return head.stdout.strip() + ("+dirty" if dirty.stdout.strip() else "")


def run_context() -> dict[str, Any]:
    """When, at which commit and on what a long run (stress, downstream suites) ran, one way for all."""
    return {
        "time": datetime.datetime.now(datetime.UTC).strftime("%Y-%m-%dT%H:%M:%SZ"),
        "commit": source_commit(),
        "platform": platform.platform(),
        "cpu_count": os.cpu_count(),
        "load_average": list(os.getloadavg()) if hasattr(os, "getloadavg") else None,
        "python": sys.version.split()[0],
    }


def environment(settings: Settings, quick: bool, modules: Iterable[str]) -> dict[str, Any]:
    """What the numbers were measured on, for the JSON file."""
    return {
        "quick": quick,
        "min_time_s": settings.min_time,
        "repeats": settings.repeats,
        "python": sys.version.split()[0],
        "platform": platform.platform(),
        "machine": platform.machine(),
        "cpu_model": cpu_model(),
        "cpu_count": os.cpu_count(),
        "load_average": list(os.getloadavg()) if hasattr(os, "getloadavg") else None,
        "time": time.strftime("%Y-%m-%dT%H:%M:%S"),
        "commit": source_commit(),
        "versions": versions(modules),
    }


def write_json(path: Path, payload: dict[str, Any]) -> None:
    """Write ``payload`` as indented JSON, creating the results folder if needed."""
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(json.dumps(payload, indent=2, sort_keys=False) + "\n")
    print(f"\nwrote {path}")
