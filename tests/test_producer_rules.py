"""The C exchange fast path gives exactly what the producer's ``__dlpack__`` gives, refusals included.

torch carries the exchange API; its exchange function skips the checks ``Tensor.__dlpack__`` makes
(``__torch_function__``, requires_grad, the conjugate bit, the layout). Each case below is imported
through ``dlarray.from_dlpack`` (the fast path where dlarray's rules admit it) and through the
ordinary protocol (an object offering only the tensor's ``__dlpack__``), and the two must agree:
the same exception type and message, or the same pointer, geometry, dtype, device, flags and
values. The negative bit is dlarray's own refusal, on both paths.
"""

from __future__ import annotations

import gc
import warnings
from collections.abc import Callable
from typing import Any
from unittest import mock

import numpy as np
import needs
import pytest
from hypothesis import given
from hypothesis import strategies as st

import dlarray as xp
from dlarray import _creation_functions, _producers
from tests import producer

torch = needs.library("torch")


class ThroughDunder:
    """Only the tensor's ``__dlpack__`` and ``__dlpack_device__``: the ordinary protocol path."""

    def __init__(self, tensor: Any) -> None:
        self.tensor = tensor

    def __dlpack__(self, **options: Any) -> Any:
        return self.tensor.__dlpack__(**options)

    def __dlpack_device__(self) -> Any:
        return self.tensor.__dlpack_device__()


class OwnDunder(torch.Tensor):
    """A subclass with its own ``__dlpack__``: it must be called, once per import."""

    calls = 0

    def __dlpack__(self, **options: Any) -> Any:
        OwnDunder.calls += 1
        return torch.Tensor.__dlpack__(self, **options)


class NoOverride(torch.Tensor):
    """A subclass with nothing of its own: torch's __dlpack__, through Tensor.__torch_function__."""


def _outcome(load: Callable[[], Any]) -> tuple[Any, ...]:
    """What an import gives: the exception (type, message), or the array's every field."""
    try:
        x = load()
    except Exception as exc:  # noqa: BLE001 - the outcome is what is compared
        return ("raised", type(exc), str(exc))
    values = np.asarray(x).copy() if x.dtype.numpy_dtype is not None else None
    return ("array", x.data_ptr, x.shape, x.strides, x.dtype, x.device, x.readonly, values)


def _same_outcome(first: tuple[Any, ...], second: tuple[Any, ...]) -> bool:
    """Two outcomes of ``_outcome`` agree: the same exception, or the same fields and values."""
    if first[0] != second[0] or len(first) != len(second):
        return False
    if first[0] == "raised":
        return first == second
    *fields_1, values_1 = first
    *fields_2, values_2 = second
    return fields_1 == fields_2 and (values_1 is None or np.array_equal(values_1, values_2, equal_nan=True))


def _without_fast_path() -> Any:
    """dlarray's general path for every producer: the exchange lookup finds nothing."""
    return mock.patch.object(_creation_functions, "fast_import_for", lambda kind: None)


def _complex() -> Any:
    return torch.tensor([1 + 2j, 3 - 4j, -5 + 6j])


# --------------------------------------------------------------------------- refusals
REFUSED = {
    "conjugate bit": lambda: _complex().conj(),
    "conjugate bit, strided view": lambda: _complex().conj()[::2],
    "requires_grad": lambda: torch.ones(3, requires_grad=True),
    "requires_grad, non-leaf view": lambda: torch.ones(4, requires_grad=True)[1:],
    "parameter (requires grad)": lambda: torch.nn.Parameter(torch.ones(3)),
    "sparse COO": lambda: torch.eye(3).to_sparse(),
    "sparse CSR": lambda: torch.eye(3).to_sparse_csr(),
    "meta device": lambda: torch.empty(3, device="meta"),
    "quantized": lambda: torch.quantize_per_tensor(torch.ones(3), 0.1, 0, torch.qint8),
    "bits dtype": lambda: torch.zeros(3, dtype=torch.bits8),
    "nested": lambda: torch.nested.nested_tensor([torch.ones(2), torch.ones(3)]),
    "zero tensor (no storage)": lambda: torch._efficientzerotensor((3,)),
    "conjugate bit, subclass": lambda: _complex().conj().as_subclass(NoOverride),
}


@pytest.mark.parametrize("make", REFUSED.values(), ids=REFUSED.keys())
def test_a_refusal_of_torchs_dunder_is_the_refusal_of_from_dlpack(make: Callable[[], Any]) -> None:
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # torch warns about beta layouts and nested tensors
        tensor = make()
        fast = _outcome(lambda: xp.from_dlpack(tensor))
        ordinary = _outcome(lambda: xp.from_dlpack(ThroughDunder(tensor)))
        with _without_fast_path():
            general = _outcome(lambda: xp.from_dlpack(tensor))
        via_asarray = _outcome(lambda: xp.asarray(tensor))
    assert fast[0] == "raised", fast
    assert fast == ordinary == general == via_asarray


# --------------------------------------------------------------------------- conversions
ACCEPTED = {
    "plain 1-D": lambda: torch.arange(5.0),
    "plain 2-D, transposed": lambda: torch.arange(12.0).reshape(3, 4).T,
    "expanded (zero strides)": lambda: torch.arange(3).expand(4, 3),
    "empty": lambda: torch.ones((0, 3)),
    "0-d": lambda: torch.tensor(2.5),
    "complex, conjugate resolved": lambda: _complex().conj().resolve_conj(),
    "real conj (no bit)": lambda: torch.arange(3.0).conj(),
    "negative bit resolved": lambda: torch._neg_view(torch.arange(3.0)).resolve_neg(),
    "detached from a graph": lambda: torch.ones(3, requires_grad=True).detach(),
    "parameter without grad": lambda: torch.nn.Parameter(torch.ones(3), requires_grad=False),
    "inference mode": lambda: _inference_tensor(),
    "bfloat16": lambda: torch.ones(3, dtype=torch.bfloat16),
    "float8": lambda: torch.ones(3).to(torch.float8_e4m3fn),
    "bool": lambda: torch.tensor([True, False]),
    "from a read-only numpy array": lambda: _from_read_only_numpy(),
    "subclass without override": lambda: torch.arange(3.0).as_subclass(NoOverride),
}


def _inference_tensor() -> Any:
    with torch.inference_mode():
        return torch.arange(4.0)


def _from_read_only_numpy() -> Any:
    source = np.arange(4.0)
    source.flags.writeable = False
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # torch: "The given NumPy array is not writable"
        return torch.from_numpy(source)


@pytest.mark.parametrize("make", ACCEPTED.values(), ids=ACCEPTED.keys())
def test_an_accepted_tensor_imports_as_through_torchs_dunder(make: Callable[[], Any]) -> None:
    tensor = make()
    fast = _outcome(lambda: xp.from_dlpack(tensor))
    ordinary = _outcome(lambda: xp.from_dlpack(ThroughDunder(tensor)))
    with _without_fast_path():
        general = _outcome(lambda: xp.from_dlpack(tensor))
    assert fast[0] == "array", fast
    assert _same_outcome(fast, ordinary) and _same_outcome(fast, general), (fast, ordinary, general)
    assert fast[1] == tensor.data_ptr() or tensor.numel() == 0
    if fast[-1] is not None:
        assert np.array_equal(fast[-1], tensor.detach().float().numpy() if tensor.dtype == torch.bfloat16
                              else tensor.detach().numpy())


def _spied_import(tensor: Any) -> tuple[Any, int, int]:
    """``from_dlpack(tensor)`` with both exchange paths spied on: (array, borrow calls, managed calls)."""
    # the fast import function is made per type, with the core's functions bound: rebuild it
    _producers._fast_imports.clear()
    try:
        with mock.patch.object(_producers, "view_with", wraps=_producers.view_with) as borrowed, \
                mock.patch.object(_producers, "import_with", wraps=_producers.import_with) as managed:
            array = xp.from_dlpack(tensor)
    finally:
        _producers._fast_imports.clear()
    return array, borrowed.call_count, managed.call_count


def test_the_fast_path_borrows_an_ordinary_tensor() -> None:
    """The rules keep the fast path for the common tensor: the exchange API's borrowing call
    (dltensor_from_py_object_no_sync) describes it, and the tensor itself is the owner."""
    tensor = torch.arange(6.0)
    x, borrowed, managed = _spied_import(tensor)
    assert (borrowed, managed) == (1, 0)
    assert x.data_ptr == tensor.data_ptr() and x._owner is tensor
    assert not x.readonly


def test_a_tensor_the_borrowing_call_does_not_take_goes_through_the_managed_import() -> None:
    """An empty tensor (NULL data) is not ordinary: the managed import's general checks take it."""
    tensor = torch.empty(0)
    x, borrowed, managed = _spied_import(tensor)
    assert (borrowed, managed) == (1, 1)
    assert x.shape == (0,) and x._owner is not tensor


# --------------------------------------------------------------------------- the negative bit
NEGATIVE_BIT = {
    "torch._neg_view": lambda: torch._neg_view(torch.arange(3.0)),
    "conj().imag": lambda: _complex().conj().imag,
    "subclass without override": lambda: torch._neg_view(torch.arange(3.0)).as_subclass(NoOverride),
}


@pytest.mark.parametrize("make", NEGATIVE_BIT.values(), ids=NEGATIVE_BIT.keys())
def test_a_tensor_with_the_negative_bit_is_refused_on_both_paths(make: Callable[[], Any]) -> None:
    """torch's __dlpack__ would hand out the un-negated memory: the values would be wrong."""
    tensor = make()
    assert tensor.is_neg()
    with pytest.raises(BufferError, match="negative bit"):
        xp.from_dlpack(tensor)
    with _without_fast_path(), pytest.raises(BufferError, match="negative bit"):
        xp.from_dlpack(tensor)
    with pytest.raises(BufferError, match="negative bit"):
        xp.asarray(tensor)
    resolved = xp.from_dlpack(tensor.resolve_neg().as_subclass(torch.Tensor))
    assert np.array_equal(np.asarray(resolved), tensor.resolve_neg().numpy())


# --------------------------------------------------------------------------- overrides
def test_a_subclass_with_its_own_dunder_is_asked_exactly_once() -> None:
    tensor = torch.arange(4.0).as_subclass(OwnDunder)
    before = OwnDunder.calls
    x = xp.from_dlpack(tensor)
    assert OwnDunder.calls == before + 1
    assert x.data_ptr == tensor.data_ptr()
    assert _same_outcome(_outcome(lambda: x), _outcome(lambda: xp.from_dlpack(ThroughDunder(tensor))))


def test_a_torch_function_mode_sees_the_same_calls_as_on_the_ordinary_path() -> None:
    from torch.overrides import TorchFunctionMode

    class Recording(TorchFunctionMode):
        def __init__(self) -> None:
            super().__init__()
            self.seen: list[str] = []

        def __torch_function__(self, func: Any, types: Any, args: Any = (), kwargs: Any = None) -> Any:
            self.seen.append(getattr(func, "__name__", repr(func)))
            return func(*args, **(kwargs or {}))

    tensor = torch.arange(3.0)
    with Recording() as fast_mode:
        xp.from_dlpack(tensor)
    with Recording() as ordinary_mode:
        xp.from_dlpack(ThroughDunder(tensor))
    assert fast_mode.seen == ordinary_mode.seen == ["__dlpack__"]

    class Refusing(TorchFunctionMode):
        def __torch_function__(self, func: Any, types: Any, args: Any = (), kwargs: Any = None) -> Any:
            raise BufferError(f"refused {getattr(func, '__name__', func)}")

    with Refusing(), pytest.raises(BufferError, match="refused __dlpack__"):
        xp.from_dlpack(tensor)


# --------------------------------------------------------------------------- other producers
class UnknownExchangeProducer(producer.ExchangeProducer):
    """A type defining the exchange API itself whose __dlpack__ rules dlarray was not told."""

    __dlpack_c_exchange_api__ = producer.ExchangeProducer.__dict__["__dlpack_c_exchange_api__"]


class InheritingExchangeProducer(producer.ExchangeProducer):
    """A subclass of a registered producer: it may have rules of its own; it is not registered."""


def test_a_subclass_of_a_publisher_goes_through_its_dunder() -> None:
    source = InheritingExchangeProducer(shape=(3,))
    x = xp.from_dlpack(source)
    assert not source.exchanged and len(source.made) == 1
    assert x.data_ptr == source.made[0].data_address
    del x
    assert source.made[0].deleted == 1


def test_a_producer_whose_rules_are_unknown_gets_what_its_dunder_gives() -> None:
    """Its __dlpack__ gives other memory than its exchange function (new memory each call): the
    one question to __dlpack__ shows it, and every object of it is imported as __dlpack__ gives
    it (tests/test_exchange_api.py has producers that agree, and refusals)."""
    for _ in range(2):
        source = UnknownExchangeProducer(shape=(3,))
        x = xp.from_dlpack(source)
        assert x.data_ptr == source.made[-1].data_address
        gc.collect()
        assert [made.deleted for made in source.exchanged] == [1]
        del x
        gc.collect()
        assert all([made.deleted == 1 for made in source.made])


def test_a_registered_producer_takes_the_fast_path() -> None:
    source = producer.ExchangeProducer(shape=(3,))
    x = xp.from_dlpack(source)
    assert len(source.exchanged) == 1 and not source.made
    del x
    assert source.exchanged[0].deleted == 1


# --------------------------------------------------------------------------- property
DTYPES = [torch.float32, torch.float64, torch.float16, torch.bfloat16, torch.int8, torch.int16, torch.int32,
          torch.int64, torch.uint8, torch.bool, torch.complex64, torch.complex128]
VIEWS = ["none", "step", "transpose", "reverse-free slice", "expand", "as_strided"]


@st.composite
def tensors(draw: Any) -> Any:
    dtype = draw(st.sampled_from(DTYPES))
    shape = tuple(draw(st.lists(st.integers(0, 4), min_size=0, max_size=3)))
    size = int(np.prod(shape)) if shape else 1
    read_only_source = draw(st.booleans())
    base = np.arange(size, dtype=np.float64).reshape(shape)
    if read_only_source:
        base.flags.writeable = False
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        tensor = torch.from_numpy(base).to(dtype) if dtype != torch.float64 else torch.from_numpy(base)
    view = draw(st.sampled_from(VIEWS))
    if view == "step" and tensor.ndim:
        tensor = tensor[::2]
    elif view == "transpose" and tensor.ndim >= 2:
        tensor = tensor.transpose(0, 1)
    elif view == "reverse-free slice" and tensor.ndim and tensor.shape[0] > 1:
        tensor = tensor[1:]
    elif view == "expand" and tensor.ndim:
        tensor = tensor.unsqueeze(0).expand(2, *tensor.shape)
    elif view == "as_strided" and tensor.numel() >= 2:
        tensor = tensor.as_strided((2,), (1,))
    if draw(st.booleans()) and (tensor.is_floating_point() or tensor.is_complex()):
        tensor = tensor.detach().requires_grad_(True)
    if draw(st.booleans()) and tensor.is_complex():
        tensor = tensor.conj()
    if draw(st.booleans()) and tensor.dtype != torch.bool:
        tensor = torch._neg_view(tensor)
    return tensor


@given(tensors())
def test_the_fast_path_and_the_general_path_agree_field_by_field(tensor: Any) -> None:
    fast = _outcome(lambda: xp.from_dlpack(tensor))
    with _without_fast_path():
        general = _outcome(lambda: xp.from_dlpack(tensor))
    assert _same_outcome(fast, general), (fast, general)
    if not tensor.is_neg():  # dlarray's own refusal: torch's __dlpack__ hands the bytes out
        ordinary = _outcome(lambda: xp.from_dlpack(ThroughDunder(tensor)))
        assert _same_outcome(fast, ordinary), (fast, ordinary)
    expected_refusal = tensor.requires_grad or tensor.is_conj() or tensor.is_neg()
    assert (fast[0] == "raised") == expected_refusal, fast
