"""from_dlpack with producers that misbehave: raising, returning what is not a capsule or a used
one, ignoring max_version or copy, a non-callable __dlpack__, an exchange function that hands over
nothing. Each gets a clear error or the right result, and every capsule is freed exactly once."""

from __future__ import annotations

import gc
from typing import Any

import producer
import pytest
from producer import Producer, make_capsule, release

import dlarray
from dlarray._dlpack import (
    FLAG_IS_COPIED,
)


def test_exchange_api_handing_over_no_tensor_is_a_buffer_error() -> None:
    """A producer whose exchange function reports success but writes no pointer: refused, no crash."""
    source = producer.ExchangeProducer(hand_over_nothing=True, shape=(3,))
    with pytest.raises(BufferError, match="gave no tensor"):
        dlarray.from_dlpack(source)
    assert not source.exchanged and not source.made


class _Scripted:
    """A producer whose __dlpack__ runs a given function."""

    def __init__(self, behaviour: Any) -> None:
        self.behaviour = behaviour
        self.calls: list[dict[str, Any]] = []

    def __dlpack__(self, **options: Any) -> Any:
        self.calls.append(options)
        return self.behaviour(options)

    def __dlpack_device__(self) -> tuple[int, int]:
        return (1, 0)


def test_producer_raising_its_own_type_error_is_asked_once() -> None:
    def broken(options: dict) -> Any:
        raise TypeError("producer cannot do it")

    producer_object = _Scripted(broken)
    with pytest.raises(TypeError, match="producer cannot do it"):
        dlarray.from_dlpack(producer_object)
    # it takes every keyword (**options): the TypeError is its own, raised after the one call
    assert producer_object.calls == [{"max_version": (1, 3)}]


def test_producer_buffer_error_is_not_swallowed() -> None:
    def refuse(options: dict) -> Any:
        raise BufferError("cannot export without a copy")

    producer_object = _Scripted(refuse)
    with pytest.raises(BufferError, match="without a copy"):
        dlarray.from_dlpack(producer_object, copy=False)
    assert len(producer_object.calls) == 1  # not mistaken for an old signature


@pytest.mark.parametrize("returned", [None, 3, b"dltensor", object()],
                         ids=["None", "int", "bytes", "object"])
def test_producer_returning_a_non_capsule(returned: Any) -> None:
    with pytest.raises(TypeError, match="capsule"):
        dlarray.from_dlpack(_Scripted(lambda options: returned))


def test_producer_returning_a_consumed_or_foreign_capsule() -> None:
    made = make_capsule((2,))
    kept = dlarray.from_dlpack(made.capsule)
    with pytest.raises(BufferError, match="consumed already"):
        dlarray.from_dlpack(_Scripted(lambda options: made.capsule))
    foreign = make_capsule((2,), name=b"arrow_array")
    with pytest.raises(BufferError, match="not a DLPack capsule"):
        dlarray.from_dlpack(_Scripted(lambda options: foreign.capsule))
    del kept
    release(made)
    assert made.deleted == 1
    release(foreign)
    assert foreign.deleted == 0  # refused and left alone: not the consumer's to free
    foreign.free_unowned()  # its producer frees it (the synthetic producer frees only dltensor names)
    assert foreign.deleted == 1


def test_producer_ignoring_max_version_with_a_newer_major() -> None:
    made = make_capsule((2,), version=(3, 0))
    with pytest.raises(BufferError, match="major version 3"):
        dlarray.from_dlpack(_Scripted(lambda options: made.capsule))
    assert made.deleted == 1
    release(made)
    assert made.deleted == 1


def test_producer_copying_against_copy_false() -> None:
    made = make_capsule((2,), flags=FLAG_IS_COPIED)
    with pytest.raises(BufferError, match="copy=False"):
        dlarray.from_dlpack(_Scripted(lambda options: made.capsule), copy=False)
    gc.collect()
    assert made.deleted == 1  # the import was dropped: its deleter ran, once


def test_producer_ignoring_copy_true() -> None:
    producer_object = Producer(shape=(3,))  # accepts copy=True, shares anyway (no IS_COPIED)
    x = dlarray.from_dlpack(producer_object, copy=True)
    assert producer_object.calls[-1]["copy"] is True
    assert x.data_ptr != producer_object.made[-1].data_address  # dlarray made the copy
    gc.collect()
    assert producer_object.made[-1].deleted == 1  # and let the shared buffer go at once


def test_producer_with_a_non_callable_dlpack() -> None:
    class Odd:
        __dlpack__ = 5

    with pytest.raises(TypeError):
        dlarray.from_dlpack(Odd())


def test_legacy_producer_with_copy_false_falls_back_zero_copy() -> None:
    producer_object = Producer(legacy_only=True, shape=(3,))
    x = dlarray.from_dlpack(producer_object, copy=False)
    assert x.data_ptr == producer_object.made[-1].data_address
    assert producer_object.calls == [{}]
