"""Jobs run in a child process, so that a job that kills the process is reported, not suffered.

Used by the consumer checks (one job per case) and by the interop probe (one job per hop). The
child announces each job on a pipe before it runs it and writes the job's result after, one JSON
line each; its stderr goes to a file in which a marker line opens each job. When the child dies,
or a job runs longer than ``timeout`` seconds, the job it had announced is reported as a
:class:`Crash` (how the process ended, and what the job last wrote to stderr: a C++ abort's
message, a failed check), and a new child goes on with the jobs after it.

A child is a fresh process (``command``) when what it runs can be imported by name there, else a
fork of this one (``work``). Frameworks that keep threads (jax, tensorflow) can deadlock in a
fork: give them by name.
"""

from __future__ import annotations

import gc
import importlib
import json
import os
import re
import selectors
import signal
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable, Iterable
from dataclasses import dataclass
from typing import Any

# opens each job's part of the child's stderr (a record separator: no library prints one)
MARKER = "\x1edlarray-job "


@dataclass(frozen=True)
class Crash:
    """A job that ended its process: ``how`` it ended and the ``message`` it wrote to stderr.

    Examples
    --------
    >>> from dlarray.testing._isolation import Crash
    >>> str(Crash("died of SIGABRT (status -6)", "Check failed: IsAligned()"))
    'the process died of SIGABRT (status -6): Check failed: IsAligned()'
    """

    how: str
    message: str = ""

    def __str__(self) -> str:
        return f"the process {self.how}" + (f": {self.message}" if self.message else "")


def resolve(spec: str) -> Any:
    """The object ``"module:qualname"`` names (the module imported).

    Examples
    --------
    >>> from dlarray.testing._isolation import resolve
    >>> resolve("os.path:join")("a", "b")
    'a/b'
    """
    module, _, qualname = spec.partition(":")
    obj: Any = importlib.import_module(module)
    for part in qualname.split("."):
        obj = getattr(obj, part)
    return obj


def spec_of(function: Any) -> str | None:
    """``"module:qualname"`` naming ``function`` in a fresh process, or None (a lambda, a closure,
    anything defined in ``__main__``).

    Examples
    --------
    >>> import os.path
    >>> from dlarray.testing._isolation import spec_of
    >>> spec_of(os.path.join), spec_of(lambda: 0)
    ('posixpath:join', None)
    """
    module, qualname = getattr(function, "__module__", None), getattr(function, "__qualname__", None)
    if not module or not qualname or "<" in qualname or module == "__main__":
        return None
    spec = f"{module}:{qualname}"
    try:
        return spec if resolve(spec) is function else None
    except Exception:
        return None


def serve(names: Iterable[str], fd: int, run: Callable[[str], Any]) -> None:
    """The child's loop: for each job, a stderr marker, ``{"start"}``, ``run(name)``, ``{"done"}``.

    ``run`` returns the job's result (JSON-ready); an exception it lets out ends the child and is
    reported as that job's crash, with its message.
    """
    # Every caller is a child process of the kit's own (a fresh one or a fork): what its library
    # imported is set aside from the collector, so that the checks' gc.collect() walk only the
    # objects they make (with torch imported, a full collection is ~80 ms; the checks make dozens).
    gc.collect()
    gc.freeze()
    with os.fdopen(fd, "w", buffering=1) as out:
        out.write(json.dumps({"ready": True}) + "\n")
        for name in names:
            print(f"\n{MARKER}{name}", file=sys.stderr, flush=True)
            out.write(json.dumps({"start": name}) + "\n")
            result = run(name)
            out.write(json.dumps({"done": name, "result": result}) + "\n")


# stack-trace lines of glog, c10, faulthandler and Python: what a crash summary leaves out
_FRAME = re.compile(r"^\s*(@ |frame #|File \"|<omitting|\*\*\*|Exception raised from|Current thread|Thread 0x"
                    r"|Extension modules|Traceback \(most recent call last\))")
# a log line below error level: glog's and absl's INFO and WARNING (a crash's own line is E or F)
_NOT_AN_ERROR = re.compile(r"^([IW]\d{4} |WARNING: All log messages before absl)")
_GLOG_PREFIX = re.compile(r"^[IWEF]\d{4} [\d:.]+\s+\d+ ")
_ADDRESS = re.compile(r"0x[0-9a-fA-F]{6,}")


def stderr_summary(text: str, lines: int = 2) -> str:
    """The last ``lines`` lines of ``text`` that are not stack frames, joined with ``" / "``.

    Log prefixes (time, thread) are dropped and addresses shown as ``0x…``, so that the same crash
    reads the same on every run.

    Examples
    --------
    >>> from dlarray.testing._isolation import stderr_summary
    >>> stderr_summary("terminate called after throwing an instance of 'c10::Error'\\n"
    ...                "  what():  sizes overflowed\\nframe #0: c10::Error::Error() + 0x9d (0x7fca6cd78b8d)\\n")
    "terminate called after throwing an instance of 'c10::Error' / what():  sizes overflowed"
    """
    kept = [line.strip() for line in text.splitlines()
            if line.strip() and not _FRAME.match(line) and not _NOT_AN_ERROR.match(line)]
    summary = " / ".join(_ADDRESS.sub("0x…", _GLOG_PREFIX.sub("", line)) for line in kept[-lines:])
    return summary[:300]


def describe_exit(code: int) -> str:
    """How a child ended, from its exit status (negative: killed by that signal).

    Examples
    --------
    >>> from dlarray.testing._isolation import describe_exit
    >>> describe_exit(-6), describe_exit(3)
    ('died of SIGABRT (status -6)', 'died (status 3)')
    """
    if code < 0:
        try:
            return f"died of {signal.Signals(-code).name} (status {code})"
        except ValueError:
            pass
    return f"died (status {code})"


def _job_stderr(log: Any, name: str) -> str:
    """What the child wrote to stderr since it announced job ``name``."""
    log.flush()
    log.seek(0)
    text = log.read().decode("utf-8", "replace")
    return text.rpartition(f"{MARKER}{name}\n")[2]


def _child_env() -> dict[str, str]:
    # the child imports what this process imports: its PYTHONPATH first (a sitecustomize there
    # still applies), then this process's sys.path (e.g. a test folder pytest added)
    inherited = os.environ.get("PYTHONPATH", "").split(os.pathsep)
    return dict(os.environ, PYTHONPATH=os.pathsep.join(dict.fromkeys(p for p in inherited + sys.path if p)))


def _spawn(command: Callable[[int, list[str]], list[str]] | None, work: Callable[[list[str], int], None] | None,
           names: list[str], log: Any) -> tuple[Any, int]:
    read_fd, write_fd = os.pipe()
    if command is not None:
        process = subprocess.Popen(command(write_fd, names), pass_fds=(write_fd,), env=_child_env(),
                                   stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL, stderr=log)
        os.close(write_fd)
        return process, read_fd
    assert work is not None
    pid = os.fork()
    if pid == 0:  # the child: run, then leave without running the parent's cleanup
        os.close(read_fd)
        try:
            devnull = os.open(os.devnull, os.O_WRONLY)
            os.dup2(devnull, 1)
            os.dup2(log.fileno(), 2)
            work(names, write_fd)
        finally:
            os._exit(0)
    os.close(write_fd)
    return pid, read_fd


def _wait(process: Any) -> int:
    if isinstance(process, int):
        status = os.waitpid(process, 0)[1]
        return -os.WTERMSIG(status) if os.WIFSIGNALED(status) else os.WEXITSTATUS(status)
    return int(process.wait())


def _stop(process: Any) -> None:
    if isinstance(process, int):
        try:
            os.kill(process, signal.SIGKILL)
        except ProcessLookupError:
            pass
        os.waitpid(process, 0)
    else:
        process.kill()
        process.wait()


def run_jobs(
    names: Iterable[str],
    *,
    command: Callable[[int, list[str]], list[str]] | None = None,
    work: Callable[[list[str], int], None] | None = None,
    timeout: float = 30.0,
    startup: float = 120.0,
) -> dict[str, Any]:
    """Run the jobs ``names`` in order in child processes; return ``{name: result or Crash}``.

    Parameters
    ----------
    names
        The jobs, in the order to run them.
    command
        ``command(fd, names)``: the argv of a fresh child that runs ``names`` with :func:`serve`,
        writing to the inherited file descriptor ``fd``.
    work
        Without ``command``: ``work(names, fd)`` runs them in a fork of this process.
    timeout
        Seconds one job may run; then its child is killed and the job reported as timed out.
    startup
        Seconds a child may take before it is ready (imports).

    Returns
    -------
    dict
        Each job's result as ``run`` returned it, or a :class:`Crash`.
    """
    remaining = list(names)
    results: dict[str, Any] = {}
    with tempfile.TemporaryFile() as log:
        while remaining:
            log.seek(0)
            log.truncate()
            process, fd = _spawn(command, work, remaining, log)
            selector = selectors.DefaultSelector()
            selector.register(fd, selectors.EVENT_READ)
            buffer, current, ready, ended = b"", None, False, None
            deadline = time.monotonic() + startup
            while ended is None and remaining:
                left = deadline - time.monotonic()
                if left <= 0 or not selector.select(left):
                    ended = "timed out" if ready else "did not start in time"
                    break
                chunk = os.read(fd, 65536)
                if not chunk:
                    ended = "died"
                    break
                buffer += chunk
                *lines, buffer = buffer.split(b"\n")
                for line in lines:
                    message = json.loads(line)
                    if "ready" in message:
                        ready = True
                    elif "start" in message:
                        current = message["start"]
                        deadline = time.monotonic() + timeout
                    else:
                        results[message["done"]] = message["result"]
                        remaining.remove(message["done"])
                        current = None
            selector.close()
            os.close(fd)
            if ended == "died":
                how = describe_exit(_wait(process))
            else:
                _stop(process)
                how = f"timed out after {timeout:g} s" if ended == "timed out" else ended or ""
            if not remaining:
                break
            if current is None:
                if not ready:  # it never started: nothing after this would either
                    message = stderr_summary(_job_stderr(log, ""), lines=3)
                    for name in remaining:
                        results[name] = Crash(f"{how} before its first job", message)
                    break
                current = remaining[0]  # it died between jobs: blame the next, which never ran
            results[current] = Crash(how, stderr_summary(_job_stderr(log, current)) if ended == "died" else "")
            remaining.remove(current)
    return results


__all__ = ["Crash", "describe_exit", "resolve", "run_jobs", "serve", "spec_of", "stderr_summary"]
