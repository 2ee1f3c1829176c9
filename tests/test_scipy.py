"""SciPy on dlarray arrays: the functions SciPy computes through the array API give dlarray results,
the others go through numpy, and both agree with their numpy results (read-only and float32
inputs too); mixing dlarray with numpy is refused, as SciPy documents."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import array_api_consumers
import numpy as np
import pytest
import scipy.fft
import scipy.signal
import scipy.special
import scipy.stats
from array_api_consumers import (
    GRID,
    KERNEL,
    ONE,
    OTHER,
    POSITIVE,
    SIGNAL,
    UNIT,
    Array,
    assert_agrees,
    assert_dlarray_outputs,
    read_only,
)

import dlarray

# the fixtures these tests use (pytest finds a fixture by its name in the test module)
array_api_dispatch = array_api_consumers.array_api_dispatch
fresh_outcomes = array_api_consumers.fresh_outcomes


def _as_tuple(test: Callable[..., Any]) -> Callable[..., tuple[Any, Any]]:
    """A hypothesis test's (statistic, pvalue) as a plain tuple."""
    return lambda *args: tuple(test(*args))[:2]


#: (label, call, inputs): SciPy functions computed through the array API (the result is a dlarray).
SCIPY_DISPATCHED: list[tuple[str, Callable[..., Any], tuple[np.ndarray, ...]]] = [
    *[
        (f"special.{name}", getattr(scipy.special, name), (SIGNAL,))
        for name in ("erf", "erfc", "erfcx", "expit", "ndtr", "log_ndtr", "i0", "i0e", "i1")
    ],
    *[
        (f"special.{name}", getattr(scipy.special, name), (UNIT,))
        for name in ("erfinv", "logit", "ndtri", "entr")
    ],
    *[
        (f"special.{name}", getattr(scipy.special, name), (POSITIVE,))
        for name in ("gammaln", "gamma", "digamma", "spence")
    ],
    *[
        (f"special.{name}", getattr(scipy.special, name), (POSITIVE, POSITIVE[::-1]))
        for name in ("xlogy", "xlog1py", "gammainc", "gammaincc", "poch", "chdtr")
    ],
    ("special.rel_entr", scipy.special.rel_entr, (UNIT, UNIT[::-1])),
    ("special.betainc", scipy.special.betainc, (POSITIVE, POSITIVE[::-1], UNIT)),
    ("special.stdtr", scipy.special.stdtr, (POSITIVE, SIGNAL)),
    ("special.binom", scipy.special.binom, (POSITIVE + 3, POSITIVE)),
    ("special.zeta", scipy.special.zeta, (POSITIVE + 1.5,)),
    ("special.boxcox", lambda a: scipy.special.boxcox(a, 0.5), (POSITIVE,)),
    ("special.softmax", lambda a: scipy.special.softmax(a, axis=1), (GRID,)),
    ("special.log_softmax", lambda a: scipy.special.log_softmax(a, axis=1), (GRID,)),
    ("special.logsumexp", lambda a: scipy.special.logsumexp(a, axis=1), (GRID,)),
    ("special.logsumexp b", lambda a, b: scipy.special.logsumexp(a, b=b), (SIGNAL, POSITIVE)),
    *[
        (f"fft.{name}", getattr(scipy.fft, name), (SIGNAL,))
        for name in (
            "fft",
            "ifft",
            "rfft",
            "irfft",
            "hfft",
            "fftshift",
            "ifftshift",
            "dct",
            "idct",
            "dst",
            "idst",
        )
    ],
    *[
        (f"fft.{name}", getattr(scipy.fft, name), (GRID,))
        for name in ("fft2", "fftn", "rfftn", "ifftn", "dctn")
    ],
    ("fft.fft n, norm", lambda a: scipy.fft.fft(a, n=80, norm="ortho"), (SIGNAL,)),
    *[
        (f"stats.{name}", getattr(scipy.stats, name), (SIGNAL,))
        for name in (
            "zscore",
            "skew",
            "kurtosis",
            "sem",
            "rankdata",
            "tmean",
            "tvar",
            "tstd",
            "tmin",
            "tmax",
            "circmean",
            "circstd",
            "circvar",
            "differential_entropy",
        )
    ],
    *[(f"stats.{name}", getattr(scipy.stats, name), (POSITIVE,)) for name in ("variation", "gmean", "hmean")],
    ("stats.zscore axis", lambda a: scipy.stats.zscore(a, axis=1, ddof=1), (GRID,)),
    ("stats.describe", lambda a: tuple(scipy.stats.describe(a))[2:], (SIGNAL,)),
    ("stats.moment", lambda a: scipy.stats.moment(a, order=3), (SIGNAL,)),
    ("stats.pmean", lambda a: scipy.stats.pmean(a, 2.0), (POSITIVE,)),
    ("stats.entropy", scipy.stats.entropy, (UNIT,)),
    ("stats.entropy qk", scipy.stats.entropy, (UNIT, UNIT[::-1])),
    ("stats.trim_mean", lambda a: scipy.stats.trim_mean(a, 0.1), (SIGNAL,)),
    ("stats.quantile", lambda a: scipy.stats.quantile(a, 0.3), (SIGNAL,)),
    ("stats.boxcox_llf", lambda a: scipy.stats.boxcox_llf(0.5, a), (POSITIVE,)),
    ("stats.directional_stats", lambda a: scipy.stats.directional_stats(a).mean_direction, (GRID,)),
    *[
        (f"stats.{name}", _as_tuple(getattr(scipy.stats, name)), (SIGNAL,))
        for name in ("skewtest", "kurtosistest", "normaltest", "jarque_bera")
    ],
    ("stats.ttest_1samp", lambda a: tuple(scipy.stats.ttest_1samp(a, 0.1))[:2], (SIGNAL,)),
    *[
        (f"stats.{name}", _as_tuple(getattr(scipy.stats, name)), (SIGNAL, OTHER))
        for name in (
            "ttest_ind",
            "ttest_rel",
            "pearsonr",
            "f_oneway",
            "bartlett",
            "chatterjeexi",
            "mannwhitneyu",
        )
    ],
    *[
        (f"signal.{name}", getattr(scipy.signal, name), (SIGNAL, KERNEL))
        for name in ("convolve", "correlate", "fftconvolve", "oaconvolve")
    ],
    ("signal.convolve2d", scipy.signal.convolve2d, (GRID, GRID[:3, :3])),
    ("signal.lfilter", lambda a, b, c: scipy.signal.lfilter(b, c, a), (SIGNAL, KERNEL, ONE)),
    ("signal.filtfilt", lambda a, b, c: scipy.signal.filtfilt(b, c, a), (SIGNAL, KERNEL, ONE)),
    (
        "signal.sosfilt",
        lambda a, s: scipy.signal.sosfilt(s, a),
        (SIGNAL, np.asarray(scipy.signal.butter(2, 0.3, output="sos"))),
    ),
    ("signal.detrend", scipy.signal.detrend, (SIGNAL,)),
    ("signal.hilbert", scipy.signal.hilbert, (SIGNAL,)),
    ("signal.resample", lambda a: scipy.signal.resample(a, 32), (SIGNAL,)),
    ("signal.resample_poly", lambda a: scipy.signal.resample_poly(a, 2, 3), (SIGNAL,)),
    ("signal.medfilt", scipy.signal.medfilt, (SIGNAL,)),
    ("signal.wiener", scipy.signal.wiener, (SIGNAL,)),
    ("signal.savgol_filter", lambda a: scipy.signal.savgol_filter(a, 7, 2), (SIGNAL,)),
    ("signal.upfirdn", lambda a, h: scipy.signal.upfirdn(h, a, 2), (SIGNAL, KERNEL)),
    ("signal.freqz", lambda b: scipy.signal.freqz(b, worN=16), (KERNEL,)),
    ("signal.tf2zpk", lambda b, a: scipy.signal.tf2zpk(b, a)[0], (KERNEL, ONE)),
]

#: SciPy functions that accept a dlarray but compute with NumPy (np.asarray of the input) and return
#: NumPy: they are not (or not yet) converted to the array API in the installed SciPy.
SCIPY_THROUGH_NUMPY: list[tuple[str, Callable[..., Any], tuple[np.ndarray, ...]]] = [
    ("stats.spearmanr", lambda a, b: tuple(scipy.stats.spearmanr(a, b))[:2], (SIGNAL, OTHER)),
    ("stats.linregress", lambda a, b: tuple(scipy.stats.linregress(a, b))[:2], (SIGNAL, OTHER)),
    ("stats.norm.cdf", scipy.stats.norm.cdf, (SIGNAL,)),
    ("stats.Normal.cdf", lambda a: scipy.stats.Normal(mu=0.0, sigma=1.0).cdf(a), (SIGNAL,)),
    ("stats.expectile", lambda a: scipy.stats.expectile(a, 0.3), (SIGNAL,)),
    ("signal.welch", lambda a: scipy.signal.welch(a, nperseg=16), (SIGNAL,)),
    ("signal.periodogram", scipy.signal.periodogram, (SIGNAL,)),
    ("signal.stft", lambda a: scipy.signal.stft(a, nperseg=16)[2], (SIGNAL,)),
    ("signal.spectrogram", lambda a: scipy.signal.spectrogram(a, nperseg=16)[2], (SIGNAL,)),
    ("signal.csd", lambda a, b: scipy.signal.csd(a, b, nperseg=16), (SIGNAL, OTHER)),
    ("signal.coherence", lambda a, b: scipy.signal.coherence(a, b, nperseg=16), (SIGNAL, OTHER)),
    ("signal.decimate", lambda a: scipy.signal.decimate(a, 2), (SIGNAL,)),
    ("signal.find_peaks", lambda a: scipy.signal.find_peaks(a)[0], (SIGNAL,)),
]


@pytest.mark.usefixtures("array_api_dispatch")
@pytest.mark.parametrize(
    ("label", "function", "inputs"), SCIPY_DISPATCHED, ids=[c[0] for c in SCIPY_DISPATCHED]
)
def test_scipy_dispatches_to_dlarray(label: str, function: Callable, inputs: tuple) -> None:
    result = function(*(dlarray.asarray(a) for a in inputs))
    assert_dlarray_outputs(result if isinstance(result, tuple) else (result,))
    assert any(type(r) is Array for r in (result if isinstance(result, tuple) else (result,)))
    assert_agrees(result, function(*inputs), rtol=1e-9, atol=1e-12)


@pytest.mark.usefixtures("array_api_dispatch")
@pytest.mark.parametrize(
    ("label", "function", "inputs"), SCIPY_THROUGH_NUMPY, ids=[c[0] for c in SCIPY_THROUGH_NUMPY]
)
def test_scipy_through_numpy(label: str, function: Callable, inputs: tuple) -> None:
    result = function(*(dlarray.asarray(a) for a in inputs))
    # Converted with np.asarray (zero-copy through dlarray's __array__); a later SciPy may
    # dispatch these too, so a dlarray result is accepted as well.
    for r in result if isinstance(result, tuple) else (result,):
        assert isinstance(r, (np.ndarray, np.generic, float, Array)), type(r)
    assert_agrees(result, function(*inputs), rtol=1e-9, atol=1e-12)


@pytest.mark.usefixtures("array_api_dispatch")
def test_scipy_creation_with_xp_argument() -> None:
    window = scipy.signal.get_window("hann", 16, xp=dlarray)
    assert type(window) is Array
    assert_agrees(window, scipy.signal.get_window("hann", 16))
    assert_agrees(scipy.signal.windows.kaiser(15, 3.0, xp=dlarray), scipy.signal.windows.kaiser(15, 3.0))
    assert_agrees(scipy.fft.fftfreq(16, d=0.5, xp=dlarray), scipy.fft.fftfreq(16, d=0.5))


@pytest.mark.usefixtures("array_api_dispatch")
def test_scipy_read_only_and_float32_inputs() -> None:
    ro = read_only(GRID)
    assert_agrees(scipy.special.logsumexp(ro, axis=0), scipy.special.logsumexp(GRID, axis=0))
    assert_agrees(scipy.stats.zscore(ro), scipy.stats.zscore(GRID))
    assert_agrees(scipy.fft.rfft(ro), scipy.fft.rfft(GRID))
    assert np.array_equal(np.asarray(ro), GRID)
    single = scipy.special.expit(dlarray.asarray(SIGNAL.astype(np.float32)))
    assert single.dtype == dlarray.float32
    assert_agrees(single, scipy.special.expit(SIGNAL.astype(np.float32)), rtol=1e-6)


@pytest.mark.usefixtures("array_api_dispatch")
def test_scipy_mixing_with_numpy_is_refused() -> None:
    # SciPy documents that non-scalar array-likes cannot be mixed with another library's arrays:
    # ks_1samp(x, norm.cdf) evaluates the numpy-only norm.cdf on x and fails the same way for
    # array-api-strict.
    with pytest.raises(TypeError, match="Multiple namespaces"):
        scipy.special.xlogy(dlarray.asarray(POSITIVE), POSITIVE)
    with pytest.raises(TypeError, match="Multiple namespaces"):
        scipy.stats.ks_1samp(dlarray.asarray(SIGNAL), scipy.stats.norm.cdf)
