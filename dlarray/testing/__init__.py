"""A DLPack conformance kit: check any producer and any consumer against the spec.

DLPack has no conformance suite of its own. This package runs what the DLPack 1.3 header and the
Array API data-interchange page require:

- :func:`check_producer` calls ``__dlpack__`` / ``__dlpack_device__`` of objects a library makes
  (version negotiation, capsule names, layout, flags, ``copy``, ``dl_device``, ``stream``,
  deleters, refusals, the C exchange API) and reads each capsule without consuming it;
- :func:`check_consumer` feeds a ``from_dlpack``-like function synthetic capsules (every dtype and
  device, strided, unaligned, read-only, malformed field by field, used, of an unknown major
  version), or hands them over as capsules to a function that takes those (``capsules=True``), uses
  what it returns as its users would, each case in a child process so that a crash is reported,
  not suffered.

Both return a :class:`Report`. ``python -m dlarray check LIBRARY`` runs both for a library, the
producer checks in child processes too, and always ends in a report.
The kit needs only numpy (and dlarray's ctypes core); a framework is imported only to be tested.
"""

from ._capsules import SyntheticProducer, make_capsule, read_capsule
from ._consumer_checks import check_consumer
from ._producer_checks import check_producer
from ._report import CheckResult, Report

__all__ = [
    "CheckResult",
    "Report",
    "SyntheticProducer",
    "check_consumer",
    "check_producer",
    "make_capsule",
    "read_capsule",
]
