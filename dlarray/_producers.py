"""What dlarray knows of DLPack producers' own export rules.

The C exchange API (``__dlpack_c_exchange_api__`` on a producer's type; the core reads it in
``_dlpack/_exchange.py``) hands a tensor over without calling the producer's ``__dlpack__``, and
so without the checks ``__dlpack__`` makes. torch's ``Tensor.__dlpack__`` first dispatches to
``__torch_function__`` (subclasses, torch function modes), then refuses a tensor that requires
grad, has the conjugate bit set or is not strided; its exchange function does none of that. The
result of ``dlarray.from_dlpack`` must not depend on which path ran, so:

- **Per type**, when the cache is filled: the fast path is open only to the very type that
  defines the exchange API (a subclass inherits the API, but its ``__dlpack__`` or
  ``__torch_function__`` may differ; DLPack also asks for an object of the type the API was found
  on), with a table of a version whose fields are known (``_dlpack/_exchange.py``).
- **Per object**, for a producer whose ``__dlpack__`` rules are written down (torch's here, any
  other through :func:`register_exchange_rules`): its cheap checks (``admits``), mirroring its
  ``__dlpack__`` refusals and conversions. An object that fails one goes through ``__dlpack__``,
  which raises or converts exactly as the producer does; so does any object whose exchange
  function raises.
- **Per situation**, for every other producer (cuda-core's ``StridedMemoryView``, tvm-ffi's, a C
  library's): its exchange function need not refuse what its ``__dlpack__`` refuses (torch's
  shows the gap), so its ``__dlpack__`` is asked, once, for the first object of each situation
  the exchange import shows (dtype, device, flags, ndim, C-contiguous or not): where it refuses,
  or gives another tensor (other memory, shape, strides, dtype, device or flags), the fast path
  stays closed to that situation and every such object goes through ``__dlpack__``; where it
  gives the same, the fast path is open to the situation. An object that also describes its
  memory otherwise (buffer protocol, ``__array_interface__``: ``from_dlpack`` cross-checks its
  read-only answer) goes through ``__dlpack__`` always. The limit: a refusal that depends on
  state no tensor field shows (torch's ``requires_grad``) cannot be learnt so; a producer with
  such rules needs them written down (:func:`register_exchange_rules`).

One refusal is dlarray's own: torch's ``__dlpack__`` exports a tensor with the negative bit set
(a lazy negation: ``x.conj().imag``, ``torch._neg_view``) as its un-negated memory, so the values
would be silently wrong. :func:`import_refusal_for` gives that check for every type whose
``__dlpack__`` is torch's; ``from_dlpack`` runs it before calling ``__dlpack__``.

Nothing here imports torch: a torch tensor can only exist once torch is imported, so the rules
are looked up in ``sys.modules`` when the first tensor arrives.

**Producers from before DLPack 1.0** take no keywords (``__dlpack__(self, stream=None)``).
:func:`export_with` asks every producer with the keywords first and again with fewer only where
the producer itself shows that it does not take them (its signature, or where it has none, a
TypeError saying so). A TypeError a producer raises for its own reasons (pyarrow's for a boolean
array) reaches the caller as it was raised, after a single call: a legacy retry would only
repeat the refusal (and, for pyarrow, warn that legacy exports are deprecated) or, worse, turn a
refused versioned export into a read-only legacy import.
"""

from __future__ import annotations

import inspect
import re
import sys
from collections.abc import Callable
from typing import Any

from ._array import Array, _adopt
from ._dlpack import DLPACK_VERSION, consume_capsule
from ._dlpack._exchange import import_with, importer_for, stream_reader_for, view_with, viewer_for
from ._interfaces import described_otherwise
from ._dtypes import complex64 as _complex64
from ._dtypes import complex128 as _complex128

#: ``admits(obj)``: may the exchange function stand in for ``obj.__dlpack__()`` (True), or must
#: ``__dlpack__`` be asked (False)?
Admits = Callable[[Any], bool]
#: ``fast_import(obj)``: ``obj`` imported through the exchange API, or None: ask ``__dlpack__``.
FastImport = Callable[[Any], "Array | None"]

_registered: dict[type, Admits] = {}
_CACHE_LIMIT = 1024  # one entry per producer type


def register_exchange_rules(kind: type, admits: Admits) -> None:
    """Open the C exchange fast path to ``kind``, whose ``__dlpack__`` rules ``admits`` mirrors.

    Parameters
    ----------
    kind
        A type that defines ``__dlpack_c_exchange_api__`` itself (subclasses never take the
        fast path).
    admits
        Called with each object before the fast path is taken: True only if the exchange
        function gives exactly what ``obj.__dlpack__(max_version=...)`` gives (False sends the
        object through ``__dlpack__``).

    Examples
    --------
    >>> class Plain:  # a producer whose __dlpack__ refuses nothing its exchange function accepts
    ...     pass
    >>> register_exchange_rules(Plain, lambda obj: True)
    """
    _registered[kind] = admits
    _fast_imports.pop(kind, None)


def _fast_import(importer: Any, admits: Admits, streams: Any) -> FastImport:
    """The fast path for a registered producer: its rules, then the exchange import."""

    def fast_import(obj: Any) -> Array | None:
        return import_with(importer, obj, _adopt, streams) if admits(obj) else None

    return fast_import


#: What says one situation from another for a producer whose rules are learnt: what an import
#: shows and a ``__dlpack__`` may decide by (dtype, device, flags, ndim, C-contiguous or not).
Situation = tuple[int, Any, int, int, bool]


def _situation(array: Array) -> Situation:
    shape = array._shape
    strides = array._strides
    expected = 1
    contiguous = True
    for axis in range(len(shape) - 1, -1, -1):  # a loop, not all(generator): the import hot path
        extent = shape[axis]
        if extent != 1 and strides[axis] != expected:
            contiguous = False
            break
        expected *= extent
    # the dtype by its _index: a DType hashes as numpy's dtype, through Python, at every lookup
    return (array._dtype._index, array._device, array._flags, len(shape), contiguous)


def _same_tensor(a: Array, b: Array) -> bool:
    """Whether two imports describe the same elements the same way (the stream aside: an
    exchange import keeps the producer's, a capsule's data is ordered on the legacy default)."""
    return ((a._data + a._offset, a._shape, a._strides, a._dtype, a._device, a._flags)
            == (b._data + b._offset, b._shape, b._strides, b._dtype, b._device, b._flags))


def _dunder_agrees(obj: Any, array: Array) -> bool:
    """Whether ``obj.__dlpack__`` gives what the exchange import gave (``array``): False where it
    raises anything (``from_dlpack`` then asks it again and raises or converts as it does)."""
    try:
        capsule = export_with(obj.__dlpack__, max_version=DLPACK_VERSION)
        reference = consume_capsule(capsule, _adopt)
    except Exception:
        return False
    return _same_tensor(reference, array)


def _learning_fast_import(importer: Any, streams: Any) -> FastImport:
    """The fast path for a producer whose ``__dlpack__`` rules are not written down: its
    ``__dlpack__`` asked once per situation (see the module's notes), the answer kept."""
    verdicts: dict[Situation, bool] = {}

    def fast_import(obj: Any) -> Array | None:
        if described_otherwise(obj):  # from_dlpack cross-checks another description: not here
            return None
        array = import_with(importer, obj, _adopt, streams)
        if array is None:
            return None
        situation = _situation(array)
        verdict = verdicts.get(situation)
        if verdict is None:
            verdict = _dunder_agrees(obj, array)
            if len(verdicts) < _CACHE_LIMIT:
                verdicts[situation] = verdict
        return array if verdict else None  # not taken: the array is let go, its deleter runs

    return fast_import


def _torch_fast_import(torch: Any, importer: Any, streams: Any) -> FastImport:
    """torch's ``Tensor.__dlpack__`` (2.x) refusals and conversions as cheap checks, then the import.

    ``__dlpack__`` dispatches to ``__torch_function__`` when ``has_torch_function_unary`` says so
    (a torch function mode is active: the type is exact here), then raises BufferError for
    ``requires_grad`` and for the conjugate bit. The negative bit goes through ``__dlpack__`` too,
    where dlarray refuses it (see :func:`import_refusal_for`). A non-strided layout, an
    unsupported dtype or device makes the exchange function raise: ``__dlpack__`` is asked then
    (``import_with`` returns None), and so it is for any tensor neither on the CPU nor on CUDA
    (a CUDA tensor comes with torch's current stream, ``current_work_stream``). The checks cost
    about 0.15 us of the 2.3 us import; they are written out in one function (no call to a
    separate ``admits``) because this is the import hot path. torch keeps the conjugate bit for
    complex tensors only (setting it on another dtype fails an internal assertion), so that bit is
    read only when the imported dtype is complex: a conjugated tensor's import is dropped (its
    owner runs the deleter) and ``__dlpack__`` refuses it.
    """
    overridden = torch._C._has_torch_function_unary
    tensor_base = torch._C.TensorBase
    is_conj = tensor_base.is_conj
    is_neg = tensor_base.is_neg

    viewer = viewer_for(torch.Tensor)

    def fast_import(tensor: Any) -> Array | None:
        if overridden(tensor) or tensor.requires_grad or is_neg(tensor):
            return None
        # the ordinary CPU tensor is borrowed (the tensor is the owner: no managed struct to
        # allocate and free); anything else goes through the managed import's general checks
        array = view_with(viewer, tensor, _adopt) if viewer is not None else None
        if array is None:
            array = import_with(importer, tensor, _adopt, streams)
        if array is not None and (array._dtype is _complex64 or array._dtype is _complex128) and is_conj(tensor):
            return None
        return array

    return fast_import


def _torch_tensor_type() -> type | None:
    torch = sys.modules.get("torch")
    return getattr(torch, "Tensor", None) if torch is not None else None


class _FastImports(dict):  # type: ignore[type-arg]
    """Producer type -> its fast import where the fast path is open to it, else None.

    A lookup that hits is one C-level subscript, which the import hot path wants.
    """

    def __missing__(self, kind: type) -> FastImport | None:
        entry = None
        importer = importer_for(kind)
        if importer is not None and "__dlpack_c_exchange_api__" in vars(kind):
            streams = stream_reader_for(kind)
            admits = _registered.get(kind)
            if admits is not None:
                entry = _fast_import(importer, admits, streams)
            elif kind is _torch_tensor_type():
                entry = _torch_fast_import(sys.modules["torch"], importer, streams)
            else:
                entry = _learning_fast_import(importer, streams)
        if len(self) < _CACHE_LIMIT:
            self[kind] = entry
        return entry


_fast_imports = _FastImports()
#: ``fast_import_for(kind)``: a function taking an object of ``kind`` through the C exchange API
#: (an Array, or None where ``__dlpack__`` must be asked), or None where the fast path is closed.
fast_import_for = _fast_imports.__getitem__


def _refuse_negative_bit(tensor: Any) -> None:
    torch_c = sys.modules["torch"]._C
    with torch_c.DisableTorchFunction():  # read the bit; no __torch_function__ sees this call
        negative = torch_c.TensorBase.is_neg(tensor)
    if negative:
        raise BufferError(
            "this torch tensor has the negative bit set (a lazy negation, e.g. x.conj().imag): "
            "torch's __dlpack__ would export the un-negated memory; call .resolve_neg() first"
        )


class _ImportRefusals(dict):  # type: ignore[type-arg]
    """Producer type -> a check dlarray runs before calling its ``__dlpack__``, or None."""

    def __missing__(self, kind: type) -> Callable[[Any], None] | None:
        tensor = _torch_tensor_type()
        check = None
        if tensor is not None and getattr(kind, "__dlpack__", None) is tensor.__dlpack__:
            check = _refuse_negative_bit
        if len(self) < _CACHE_LIMIT:
            self[kind] = check
        return check


#: ``import_refusal_for(kind)``: a check to run on an object of ``kind`` before its
#: ``__dlpack__`` is called (it raises BufferError where dlarray refuses the object), or None.
import_refusal_for = _ImportRefusals().__getitem__


# Python's own words (CPython, Cython) for a call with a keyword the callee lacks, and
# pybind11's and nanobind's for arguments matching no overload.
_KEYWORD_REFUSAL = re.compile(
    r"unexpected keyword argument|invalid keyword argument|takes no keyword arguments"
    r"|incompatible function arguments",
    re.IGNORECASE,
)


def _keywords_taken(method: Callable[..., Any], offered: dict[str, Any], error: TypeError) -> dict[str, Any] | None:
    """The ``offered`` keywords that ``method`` takes, where ``error`` says it does not take them
    all; None where ``error`` is the producer's own (it takes every keyword offered).

    The producer's signature decides where Python can read it; a ``**kwargs`` in it, or no
    signature at all (a C method without a text signature), leaves it to ``error``'s message.
    """
    try:
        parameters = inspect.signature(method).parameters.values()
    except (TypeError, ValueError):  # no signature to read
        named: set[str] = set()
        open_ended = True
    else:
        named = {p.name for p in parameters if p.kind in (p.POSITIONAL_OR_KEYWORD, p.KEYWORD_ONLY)}
        open_ended = any([p.kind is p.VAR_KEYWORD for p in parameters])
    taken = {name: value for name, value in offered.items() if name in named}
    if len(taken) == len(offered):
        return None  # it takes them all: the TypeError is about something else
    if open_ended and _KEYWORD_REFUSAL.search(str(error)) is None:
        return None
    return taken


def export_with(method: Callable[..., Any], **keywords: Any) -> Any:
    """Call a producer's bound ``__dlpack__`` with ``keywords``; where the producer does not take
    them all, call it once more with those it takes.

    Whether it takes them is read from the producer itself: its signature where Python can read
    one (a keyword it does not name, with no ``**kwargs``, is not taken), else the TypeError's
    message (Python's "unexpected keyword argument", pybind11's "incompatible function
    arguments", ...). Any other TypeError is the producer's own and is raised as it came, after
    the one call; so is everything the retry raises.

    Parameters
    ----------
    method
        The producer's bound ``__dlpack__``.
    **keywords
        What to offer: ``max_version``, and ``dl_device``/``copy`` where asked.

    Returns
    -------
    object
        What ``__dlpack__`` returned (a capsule, unless the producer is faulty).

    Examples
    --------
    >>> import numpy as np
    >>> class PreDLPack1:  # a producer from before DLPack 1.0: no keywords
    ...     def __init__(self, array):
    ...         self.array = array
    ...     def __dlpack__(self, stream=None):
    ...         return self.array.__dlpack__()
    >>> capsule = export_with(PreDLPack1(np.zeros(2)).__dlpack__, max_version=(1, 3))
    >>> repr(capsule).split('"')[1]  # the capsule's name: a legacy export
    'dltensor'
    >>> class Refusing(PreDLPack1):  # a versioned export refused for the producer's own reasons
    ...     def __dlpack__(self, stream=None, max_version=None):
    ...         raise TypeError("no DLPack export of bit-packed booleans")
    >>> export_with(Refusing(np.zeros(2)).__dlpack__, max_version=(1, 3))
    Traceback (most recent call last):
        ...
    TypeError: no DLPack export of bit-packed booleans
    """
    try:
        return method(**keywords)
    except TypeError as error:
        return export_again(method, error, **keywords)


def export_again(method: Callable[..., Any], error: TypeError, **keywords: Any) -> Any:
    """What :func:`export_with` does once ``method(**keywords)`` raised ``error``: call it again
    with the keywords it takes, where it does not take them all; else raise ``error``.

    For a caller that makes the first call itself (``from_dlpack``'s general path: no frame and no
    keyword dict in between on the way every producer takes).
    """
    taken = _keywords_taken(method, keywords, error)
    if taken is None:
        raise error
    return method(**taken)
