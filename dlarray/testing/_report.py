"""The result of a conformance run: one row per check, printable, serialisable."""

from __future__ import annotations

import json
from dataclasses import asdict, dataclass, field

from .._docs import Sections

PASSED = "passed"
FAILED = "failed"
NOT_APPLICABLE = "not applicable"
CRASHED = "crashed"
STATUSES = (PASSED, FAILED, NOT_APPLICABLE, CRASHED)

# The report the examples of Report's methods read: one check passed, one failed
# (dlarray._docs.Sections fills each ``{demo}`` line in).
_doc = Sections(demo="""
    Examples
    --------
    >>> from dlarray.testing import Report
    >>> report = Report("demo")
    >>> report.add("a", "passed")
    >>> report.add("b", "failed", "why")
""")


@dataclass(frozen=True)
class CheckResult:
    """One check: its name, its status (``passed``, ``failed``, ``not applicable``, ``crashed``),
    and why (for a pass, what was seen; for a failure, what was wrong).

    A status outside these four is refused with `ValueError`.

    Examples
    --------
    >>> from dlarray.testing import CheckResult
    >>> CheckResult("versioned", "passed", "read back as written")
    CheckResult(name='versioned', status='passed', detail='read back as written')
    """

    name: str
    status: str
    detail: str = ""

    def __post_init__(self) -> None:
        """Refuse a status that is not one of :data:`STATUSES` (ValueError)."""
        if self.status not in STATUSES:
            raise ValueError(f"unknown check status {self.status!r}; expected one of {STATUSES}")


@dataclass
class Report:
    """The rows of one conformance run, in the order the checks ran.

    Parameters
    ----------
    subject
        What was checked, e.g. ``"numpy producer"``.
    results
        One :class:`CheckResult` per check.

    Examples
    --------
    >>> from dlarray.testing import CheckResult, Report
    >>> report = Report("demo", [CheckResult("a", "passed"), CheckResult("b", "failed", "why")])
    >>> report.failures
    ['b']
    >>> print(report)  # doctest: +NORMALIZE_WHITESPACE
    demo: 1 passed, 1 failed, 0 not applicable, 0 crashed
      a  passed
      b  FAILED  why
    """

    subject: str
    results: list[CheckResult] = field(default_factory=list)

    @_doc.outside_standard
    def add(self, name: str, status: str, detail: str = "") -> None:
        """Append one row.

        Parameters
        ----------
        name
            The check's name.
        status
            ``"passed"``, ``"failed"``, ``"not applicable"`` or ``"crashed"``.
        detail
            Why: what was seen, or what was wrong.

        Raises
        ------
        ValueError
            Another ``status``.

        {demo}
        >>> report.results[-1]
        CheckResult(name='b', status='failed', detail='why')
        """
        self.results.append(CheckResult(name, status, detail))

    @property
    @_doc.outside_standard
    def failures(self) -> list[str]:
        """Names of the checks that failed or crashed.

        {demo}
        >>> report.failures
        ['b']
        """
        return [r.name for r in self.results if r.status in (FAILED, CRASHED)]

    @property
    @_doc.outside_standard
    def ok(self) -> bool:
        """True when no check failed or crashed.

        {demo}
        >>> report.ok
        False
        """
        return not self.failures

    def __getitem__(self, name: str) -> CheckResult:
        """The row of check ``name`` (KeyError if there is none)."""
        return {result.name: result for result in self.results}[name]

    @_doc.outside_standard
    def counts(self) -> dict[str, int]:
        """How many rows have each status.

        Returns
        -------
        dict[str, int]
            Status -> number of rows, every status present.

        {demo}
        >>> report.counts()
        {'passed': 1, 'failed': 1, 'not applicable': 0, 'crashed': 0}
        """
        return {status: sum(r.status == status for r in self.results) for status in STATUSES}

    def __str__(self) -> str:
        counts = self.counts()
        lines = [f"{self.subject}: " + ", ".join(f"{n} {status}" for status, n in counts.items())]
        width = max((len(r.name) for r in self.results), default=0)
        for r in self.results:
            status = r.status.upper() if r.status in (FAILED, CRASHED) else r.status
            lines.append(f"  {r.name.ljust(width)}  {status.ljust(14)}  {r.detail}".rstrip())
        return "\n".join(lines)

    @_doc.outside_standard
    def to_dict(self) -> dict[str, str | list[dict[str, str]]]:
        """A JSON-ready description (what ``python -m dlarray check --json`` writes).

        Returns
        -------
        dict[str, str | list[dict[str, str]]]
            ``{"subject": ..., "results": [{"name": ..., "status": ..., "detail": ...}, ...]}``.

        {demo}
        >>> report.to_dict()["results"][0]
        {'name': 'a', 'status': 'passed', 'detail': ''}
        """
        return {"subject": self.subject, "results": [asdict(r) for r in self.results]}

    @classmethod
    @_doc.outside_standard
    def from_dict(cls, data: dict[str, str | list[dict[str, str]]]) -> Report:
        """The inverse of `to_dict`.

        Parameters
        ----------
        data
            A description as `to_dict` returns it (or as read back from its JSON).

        Returns
        -------
        Report

        {demo}
        >>> Report.from_dict(report.to_dict()) == report
        True
        """
        return cls(data["subject"], [CheckResult(**row) for row in data["results"]])

    @_doc.outside_standard
    def to_json(self) -> str:
        """`to_dict` as JSON text.

        Returns
        -------
        str

        {demo}
        >>> import json
        >>> json.loads(report.to_json())["subject"]
        'demo'
        """
        return json.dumps(self.to_dict(), indent=1)
