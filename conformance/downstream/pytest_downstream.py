"""pytest plugin: a library's own array-API tests, run with another namespace where they use array_api_strict.

scikit-learn and SciPy test their array-API support by parametrizing tests over namespaces, and both
name ``array_api_strict`` as their strict reference on the CPU:

* scikit-learn parametrizes with ``pytest.mark.parametrize`` over values that name it:
  ``("array_api_strict", "CPU_DEVICE", "float64")`` (``yield_namespace_device_dtype_combinations``),
  ``NamespaceAndDevice("array_api_strict", "device1")`` (``yield_mixed_namespace_input_permutations``),
  estimator checks ``partial(check_array_api_input, array_namespace="array_api_strict", ...)``;
  ``_array_api_for_tests`` then imports the namespace by that name.
* SciPy's ``xp`` fixture is parametrized over ``xp_available_backends``, which holds
  ``pytest.param(array_api_strict, id="array_api_strict")`` when ``SCIPY_ARRAY_API=1``; it skips or
  xfails a backend by its module's ``__name__`` (``skip_xp_backends`` / ``xfail_xp_backends`` marks).

With ``--downstream-standin=MODULE``, every parametrization (a ``parametrize`` mark, or a parametrized
fixture's params) that names array_api_strict gets, beside each value naming it, a twin naming the
stand-in: the module or its name replaced, and array_api_strict's device names or devices replaced by
the stand-in's device at the same position of ``__array_namespace_info__().devices()`` (its default
device where it has fewer). The values of such a parametrization that name neither (numpy, torch, ...)
are dropped, and every test left with no namespace of the two is deselected: what runs is the suite's
array-API tests, once per namespace. Nothing in the stand-in is special-cased, nor any test.

SciPy's skip and xfail marks do not know the stand-in's ``__name__``, so they would never apply to it.
Before a stand-in test is set up, SciPy's own rule (``_backends_kwargs_from_request`` of its conftest)
is asked what it would do to array_api_strict, with the marks that name array_api_strict itself left
out: ``np_only`` marks skip the stand-in as they skip array_api_strict, and a test SciPy skips or
xfails *because* it names array_api_strict runs with the stand-in.

``--downstream-namespaces`` keeps one of the two (``array_api_strict`` or the stand-in's name);
``--downstream-record=PATH`` writes every test's outcome as JSON (the namespace, the key that pairs it
with its twin, the first error line or skip reason and where it was raised); ``--downstream-timeout``
fails a test that runs longer (a hang guard, not a speed check). The terminal summary gives the counts
per namespace.
"""

from __future__ import annotations

import enum
import functools
import importlib
import inspect
import json
import re
import signal
import threading
from collections.abc import Collection, Iterator
from pathlib import Path
from types import ModuleType, SimpleNamespace
from typing import Any

import pytest

#: the namespace both suites use as their strict reference, and whose place the stand-in takes
REFERENCE = "array_api_strict"
#: the mark each kept parametrization value carries: the namespace of the tests made from it
NAMESPACE_MARK = "downstream_namespace"
ParameterSet = type(pytest.param(None))  # what pytest.param makes (its class is not exported)
OUTCOMES = ("passed", "failed", "error", "skipped", "xfailed", "xpassed")


def pytest_addoption(parser: pytest.Parser) -> None:
    group = parser.getgroup("downstream", "a namespace put in where the suite uses array_api_strict")
    group.addoption("--downstream-standin", metavar="MODULE",
                    help="the namespace (an importable module) to run beside array_api_strict")
    group.addoption("--downstream-namespaces", metavar="NAMES",
                    help="comma-separated: which of array_api_strict and the stand-in run (default: both)")
    group.addoption("--downstream-record", metavar="PATH", help="write every test's outcome there as JSON")
    group.addoption("--downstream-timeout", type=float, default=0.0, metavar="SECONDS",
                    help="fail a test whose call runs longer (0: no limit)")


class Standin:
    """What replaces array_api_strict in the parametrizations: the modules and device correspondences."""

    def __init__(self, name: str) -> None:
        self.name = name
        self.module = importlib.import_module(name)
        self.reference = importlib.import_module(REFERENCE)
        self.reference_devices = list(self.reference.__array_namespace_info__().devices())
        info = self.module.__array_namespace_info__()
        self.devices = list(info.devices())
        self.default_device = info.default_device()
        #: the device names the twins' ids may show: array_api_strict's met in the suite, the stand-in's
        self.device_names = {str(device) for device in self.devices}

    def device_for(self, reference_device: Any) -> Any:
        """The stand-in's device at ``reference_device``'s position (its default one where it has fewer)."""
        position = self.reference_devices.index(reference_device)
        return self.devices[position] if position < len(self.devices) else self.default_device

    def reference_device_named(self, text: str) -> Any | None:
        """array_api_strict's device named ``text`` (its ``Device(text)``), None if none is."""
        try:
            device = self.reference.Device(text)
        except (ValueError, TypeError):
            return None
        return device if device in self.reference_devices else None

    def names_reference(self, value: Any) -> bool:
        return _names(value, REFERENCE, self.reference)

    def twin(self, value: Any) -> Any:
        """``value`` with array_api_strict replaced by the stand-in, and its devices by the stand-in's."""
        if isinstance(value, str):
            if value == REFERENCE:
                return self.name
            device = self.reference_device_named(value)
            if device is None:
                return value
            self.device_names.add(value)
            return str(self.device_for(device))
        if value is self.reference:
            return self.module
        if type(value) is type(self.reference_devices[0]) and value in self.reference_devices:
            return self.device_for(value)
        if isinstance(value, functools.partial):
            return functools.partial(value.func, *map(self.twin, value.args),
                                     **{key: self.twin(item) for key, item in value.keywords.items()})
        if isinstance(value, tuple) and hasattr(value, "_fields"):  # a namedtuple
            return type(value)(*map(self.twin, value))
        if isinstance(value, (tuple, list)):
            return type(value)(map(self.twin, value))
        return value


def _names(value: Any, name: str, module: ModuleType) -> bool:
    """Whether ``value`` (a string, module, tuple, partial...) names the namespace ``name``."""
    if isinstance(value, str):
        return value == name
    if value is module:
        return True
    if isinstance(value, functools.partial):
        return any(_names(item, name, module) for item in (*value.args, *value.keywords.values()))
    if isinstance(value, (tuple, list)):
        return any(_names(item, name, module) for item in value)
    return False


def _standin(config: pytest.Config) -> Standin | None:
    return config.stash.get(_STANDIN, None)


_STANDIN = pytest.StashKey[Standin]()


def pytest_configure(config: pytest.Config) -> None:
    config.addinivalue_line("markers", f"{NAMESPACE_MARK}(name): the namespace this test runs with "
                                       "(set by the downstream plugin)")
    name = config.getoption("downstream_standin")
    if not name:
        return
    if name == REFERENCE:
        raise pytest.UsageError(f"--downstream-standin: {REFERENCE} is the reference; name another namespace")
    try:
        config.stash[_STANDIN] = Standin(name)
    except ImportError as exc:
        raise pytest.UsageError(f"--downstream-standin={name}: cannot import it ({exc})") from None
    chosen = config.getoption("downstream_namespaces")
    if chosen:
        wanted = {part.strip() for part in chosen.split(",") if part.strip()}
        unknown = wanted - {REFERENCE, name}
        if unknown or not wanted:
            raise pytest.UsageError(f"--downstream-namespaces: choose among {REFERENCE} and {name}, "
                                    f"got {chosen!r}")
    config.pluginmanager.register(Recorder(config, config.stash[_STANDIN]), "downstream-recorder")


# ------------------------------------------------------------------------------ parametrizations
def _parametrize_signature(argnames: Any, argvalues: Any, indirect: Any = False, ids: Any = None,
                           scope: Any = None) -> None:
    """``pytest.mark.parametrize``'s arguments, to read a mark's by name."""


def _arguments(mark: pytest.Mark) -> dict[str, Any]:
    """A parametrize mark's arguments by name, as given."""
    bound = inspect.signature(_parametrize_signature).bind(*mark.args, **mark.kwargs)
    return dict(bound.arguments)


def _names_of(argnames: Any) -> tuple[list[str], bool]:
    """(the argument names, whether each value is the argument itself rather than a tuple of them):
    pytest takes a bare value only where the names are one string naming one argument."""
    if isinstance(argnames, str):
        names = [part.strip() for part in argnames.split(",") if part.strip()]
        return names, len(names) == 1
    return list(argnames), False


def _value_id(value: Any, argname: str, index: int, idfn: Any) -> str:
    """The id pytest gives one argument's value when none is given (its ``ids`` function first)."""
    if callable(idfn):
        given = idfn(value)
        if given is not None:
            return str(given)
    if isinstance(value, str):
        return value.encode("unicode_escape").decode("ascii")
    if value is None or isinstance(value, (bool, int, float, complex, enum.Enum)):
        return str(value)
    if isinstance(getattr(value, "__name__", None), str):  # classes and functions
        return value.__name__
    return f"{argname}{index}"


def _twinned(standin: Standin, argnames: list[str], bare: bool, values: list[Any], ids: Any) -> list[Any]:
    """The values naming array_api_strict, each followed by its stand-in twin; the others dropped.

    Each kept value has its id made here, as pytest would make it at the value's place in the suite's
    list (its given id, ``ids[i]``, the ``ids`` function, or pytest's rule), so that dropping the others
    changes no id; the twin's id is made the same way from its own values at the same place.
    """
    kept: list[Any] = []
    for position, value in enumerate(values):
        param = value if isinstance(value, ParameterSet) else None
        inner = tuple(param.values) if param else ((value,) if bare else tuple(value))
        if not standin.names_reference(inner):
            continue
        given = param.id if param and param.id is not None else (
            ids[position] if ids is not None and not callable(ids) and position < len(ids) else None)
        twin = standin.twin(inner)

        def made_id(items: tuple[Any, ...]) -> str:
            return "-".join(_value_id(item, name, position, ids) for item, name in zip(items, argnames))

        marks = tuple(param.marks) if param else ()
        reference_id = str(given) if given is not None else made_id(inner)
        # the suite's own id naming the stand-in instead; beside it where the id names no namespace
        twin_id = str(given).replace(REFERENCE, standin.name) if given is not None else made_id(twin)
        if twin_id == reference_id:
            twin_id = f"{reference_id}-{standin.name}"
        namespace = getattr(pytest.mark, NAMESPACE_MARK)
        kept.append(pytest.param(*inner, marks=(*marks, namespace(REFERENCE)), id=reference_id))
        kept.append(pytest.param(*twin, marks=(*marks, namespace(standin.name)), id=twin_id))
    return kept


def _inner(value: Any) -> Any:
    return value.values if isinstance(value, ParameterSet) else value


def _twinned_already(value: Any) -> bool:
    return isinstance(value, ParameterSet) and any(mark.name == NAMESPACE_MARK for mark in value.marks)


@pytest.hookimpl(tryfirst=True)
def pytest_generate_tests(metafunc: pytest.Metafunc) -> None:
    """Before pytest applies the parametrize marks and parametrized fixtures: twin array_api_strict."""
    standin = _standin(metafunc.config)
    if standin is None:
        return
    parametrized: set[str] = set()
    for node, mark in list(metafunc.definition.iter_markers_with_node("parametrize")):
        arguments = _arguments(mark)
        argnames = arguments.pop("argnames")
        names, bare = _names_of(argnames)
        parametrized.update(names)
        given = arguments.pop("argvalues")
        values = list(given)
        if any(_twinned_already(value) for value in values):  # a class's mark, seen again from its next method
            continue
        if any(standin.names_reference(_inner(value)) for value in values):
            ids = arguments.pop("ids", None)
            twinned = _twinned(standin, names, bare, values, ids)
            replacement = pytest.mark.parametrize(argnames, twinned, **arguments).mark
        elif not isinstance(given, Collection):  # an iterator, spent by looking into it: kept as a list
            replacement = pytest.mark.parametrize(argnames, values, **arguments).mark
        else:
            continue
        position = next(i for i, own in enumerate(node.own_markers) if own is mark)
        node.own_markers[position] = replacement
    # a parametrized fixture over namespaces (SciPy's ``xp``): parametrized here, indirectly, with the
    # twinned params; pytest's own hook then leaves it alone (a parametrize mark names it).
    # pytest has no public way to a fixture's params: Metafunc._arg2fixturedefs (pytest 8 and 9).
    for argname in metafunc.fixturenames:
        if argname in parametrized:
            continue
        definitions = metafunc._arg2fixturedefs.get(argname, ())
        params = next((d.params for d in reversed(definitions) if d.params is not None), None)
        if params is None or not any(standin.names_reference(_inner(param)) for param in params):
            continue
        fixturedef = next(d for d in reversed(definitions) if d.params is not None)
        kept = _twinned(standin, [argname], True, list(params), fixturedef.ids)
        mark = pytest.mark.parametrize(argname, kept, indirect=True, scope=fixturedef.scope).mark
        metafunc.definition.own_markers.append(mark)


# ------------------------------------------------------------------------------ selection and pairing
def _namespaces_of(item: pytest.Item) -> set[str]:
    return {mark.args[0] for mark in item.iter_markers(NAMESPACE_MARK)}


def pair_key(nodeid: str, namespace_names: tuple[str, ...], device_names: tuple[str, ...]) -> str:
    """``nodeid`` with the namespaces' names and device names in its parameters made alike, so that
    a test and its twin have the same key (a name that ends an id part, ``-dlarray``, is dropped: the
    twin of an id naming no namespace has it added)."""
    path, bracket, parameters = nodeid.partition("[")
    if not bracket:
        return nodeid
    for names, token in ((namespace_names, "{namespace}"), (device_names, "{device}")):
        pattern = "|".join(re.escape(name) for name in sorted(names, key=len, reverse=True))
        parameters = re.sub(rf"(?<![\w.])(?:{pattern})(?![\w])", token, parameters)
    parameters = re.sub(r"-\{namespace\}(?=-|\]$)", "", parameters)
    return path + bracket + parameters


def pytest_collection_modifyitems(config: pytest.Config, items: list[pytest.Item]) -> None:
    standin = _standin(config)
    if standin is None:
        return
    chosen = config.getoption("downstream_namespaces")
    wanted = ({part.strip() for part in chosen.split(",") if part.strip()} if chosen
              else {REFERENCE, standin.name})
    device_names = tuple(standin.device_names)
    kept, dropped = [], []
    for item in items:
        namespaces = _namespaces_of(item)
        if len(namespaces) != 1 or not namespaces <= wanted:
            dropped.append(item)
            continue
        (namespace,) = namespaces
        key = pair_key(item.nodeid, (REFERENCE, standin.name), device_names)
        item.user_properties.append(("downstream", {"namespace": namespace, "pair": key}))
        kept.append(item)
    if dropped:
        config.hook.pytest_deselected(items=dropped)
        items[:] = kept


# ------------------------------------------------------------------------------ SciPy's backend marks
def _scipy_backend_rule(item: pytest.Item) -> Any | None:
    """SciPy's ``_backends_kwargs_from_request`` (its conftest), where this run loaded it."""
    for plugin in item.config.pluginmanager.get_plugins():
        rule = getattr(plugin, "_backends_kwargs_from_request", None)
        if callable(rule) and isinstance(plugin, ModuleType):
            return rule
    return None


@pytest.hookimpl(tryfirst=True)
def pytest_runtest_setup(item: pytest.Item) -> None:
    """A stand-in test gets the skip or xfail SciPy's marks give array_api_strict, except those naming it."""
    standin = _standin(item.config)
    if standin is None or _namespaces_of(item) != {standin.name}:
        return
    rule = _scipy_backend_rule(item)
    if rule is None:
        return
    for kind in ("skip", "xfail"):
        name = f"{kind}_xp_backends"
        markers = [mark for mark in item.iter_markers(name) if REFERENCE not in mark.args]
        if not markers:
            continue
        request = SimpleNamespace(node=SimpleNamespace(iter_markers=lambda wanted, found=markers: iter(found)))
        reasons = rule(request, kind)
        if REFERENCE in reasons:
            getattr(pytest, kind)(reason=reasons[REFERENCE])


# ------------------------------------------------------------------------------ hang guard
class TestTimedOut(Exception):
    """Raised in a test that ran past ``--downstream-timeout``."""


@pytest.hookimpl(wrapper=True)
def pytest_runtest_call(item: pytest.Item) -> Iterator[None]:
    limit = item.config.getoption("downstream_timeout")
    if not limit or threading.current_thread() is not threading.main_thread():
        return (yield)

    def expire(signum: int, frame: Any) -> None:
        raise TestTimedOut(f"the test ran for more than {limit:g} s (--downstream-timeout)")

    previous = signal.signal(signal.SIGALRM, expire)
    signal.setitimer(signal.ITIMER_REAL, limit)
    try:
        return (yield)
    finally:
        signal.setitimer(signal.ITIMER_REAL, 0)
        signal.signal(signal.SIGALRM, previous)


# ------------------------------------------------------------------------------ outcomes
def _message(report: pytest.TestReport) -> tuple[str, str]:
    """(message, where) of a failure, error or skip: the exception's text and the place it was raised."""
    longrepr = report.longrepr
    if isinstance(longrepr, tuple) and len(longrepr) == 3:  # a skip: (path, line, "Skipped: reason")
        return str(longrepr[2]).removeprefix("Skipped: "), f"{longrepr[0]}:{longrepr[1]}"
    crash = getattr(longrepr, "reprcrash", None)
    if crash is not None:
        return crash.message, f"{crash.path}:{crash.lineno}"
    text = str(longrepr or "")
    return (text.strip().splitlines() or [""])[-1], ""


def counts_of(entries: Iterator[dict[str, Any]] | list[dict[str, Any]]) -> dict[str, dict[str, int]]:
    """Namespace -> outcome -> number of tests."""
    counts: dict[str, dict[str, int]] = {}
    for entry in entries:
        per = counts.setdefault(entry["namespace"], dict.fromkeys(OUTCOMES, 0))
        if entry["outcome"] in per:
            per[entry["outcome"]] += 1
    return counts


class Recorder:
    """The outcome of every kept test, from the reports (on xdist's controller: every worker's)."""

    def __init__(self, config: pytest.Config, standin: Standin) -> None:
        self.config = config
        self.standin = standin
        self.tests: dict[str, dict[str, Any]] = {}

    def pytest_runtest_logreport(self, report: pytest.TestReport) -> None:
        properties = dict(report.user_properties).get("downstream")
        if properties is None:
            return
        entry = self.tests.setdefault(report.nodeid, {**properties, "outcome": None})
        was_xfail = hasattr(report, "wasxfail")
        if report.when == "setup" and not report.passed:
            outcome = "error" if report.failed else ("xfailed" if was_xfail else "skipped")
        elif report.when == "call":
            if report.passed:
                outcome = "xpassed" if was_xfail else "passed"
            elif report.failed:
                outcome = "failed"
            else:
                outcome = "xfailed" if was_xfail else "skipped"
        elif report.when == "teardown" and report.failed and entry["outcome"] in (None, "passed", "xpassed"):
            outcome = "error"
        else:
            return
        entry["outcome"], entry["when"] = outcome, report.when
        if outcome in ("failed", "error", "skipped"):
            message, entry["where"] = _message(report)
            entry["message"] = message[:2000]
        elif outcome in ("xfailed", "xpassed"):
            entry["message"] = str(report.wasxfail)[:2000]

    def pytest_terminal_summary(self, terminalreporter: Any) -> None:
        if hasattr(self.config, "workerinput"):
            return
        terminalreporter.section("downstream: outcomes per namespace")
        for namespace, counts in sorted(counts_of(self.tests.values()).items()):
            terminalreporter.write_line(f"{namespace}: " + ", ".join(f"{n} {k}" for k, n in counts.items() if n))

    def pytest_sessionfinish(self, exitstatus: int) -> None:
        path = self.config.getoption("downstream_record")
        if not path or hasattr(self.config, "workerinput"):
            return
        Path(path).write_text(json.dumps({
            "reference": REFERENCE, "standin": self.standin.name, "exitstatus": int(exitstatus),
            "tests": self.tests,
        }, indent=0) + "\n")
