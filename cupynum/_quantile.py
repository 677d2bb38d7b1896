"""median, percentile, quantile and their nan- variants over the native selection kernel
(csrc/kernels/select.c through _core.quantile).

NumPy's rules are applied here, the arithmetic there: the result dtype (integers and bools give
float64, float16/float32 are kept; a Python-scalar q promotes weakly, an array q by its dtype;
discrete methods return elements of the input's dtype), q's range errors, axis tuples, keepdims
and out, the "All-NaN slice encountered" warning (once per all-NaN lane, as NumPy's).

Delegated to NumPy on gathered data (rare cases; results and errors are NumPy's): empty input or
q, weights= (only inverted_cdf takes them; it needs an argsort and cumulative weights per lane),
the deprecated interpolation=, q that is not float32/float64 after NumPy's conversion (integer or
float16 arrays, Python ints to quantile), 0-d input to median, complex input to median (NumPy
sorts complex numbers), bool input with an interpolating method (NumPy raises), q with more than
2 dimensions, signed integers whose scalar differences NumPy would see wrap (it warns), 2-d q in the nan- variants over several (not all) axes (NumPy lays that result
out its own way), and out= of a shape or dtype NumPy would reject or compute differently."""

import warnings

import numpy as _np
from numpy.lib.array_utils import normalize_axis_tuple

from . import _core, _fallback
from ._ndarray import ndarray

METHODS = ("inverted_cdf averaged_inverted_cdf closest_observation interpolated_inverted_cdf "
           "hazen weibull linear median_unbiased normal_unbiased lower higher midpoint "
           "nearest").split()
_METHOD = {m: i for i, m in enumerate(METHODS)}
_MEDIAN = _core.QM_MEDIAN   # csrc/base/op.h's enum cpn_quantile_method: METHODS, then MEDIAN
assert len(METHODS) == _MEDIAN, "METHODS is numpy.quantile's list in op.h's order"
_DISCRETE = {"inverted_cdf", "closest_observation", "lower", "higher", "nearest"}
# flags of csrc/base/op.h (enum cpn_quantile_flag)
_SKIP_NAN, _TAKE, _WEAK, _MA_MEAN = _core.QF_SKIP_NAN, _core.QF_TAKE, _core.QF_WEAK, _core.QF_MA_MEAN


def _asarray(a):
    return a if isinstance(a, ndarray) else _core.from_any(a)


def _delegate(func, args, kwargs):
    """NumPy computes (or raises); a cupynum out= is written back."""
    out = kwargs.get("out")
    if isinstance(out, ndarray):
        _fallback.compute(func, args, kwargs, write=(out,))
        return out
    return _fallback.compute(func, args, kwargs)


def _axes(axis, ndim):
    if axis is None:
        return tuple(range(ndim))
    return tuple(sorted(normalize_axis_tuple(axis, ndim)))


def _shapes(a, axes, qshape, keepdims):
    kept = tuple(n for d, n in enumerate(a.shape) if d not in axes)
    if keepdims:
        kept = tuple(1 if d in axes else n for d, n in enumerate(a.shape))
    return tuple(qshape) + kept


def _warn_all_nan(a, axes):
    """NumPy's one "All-NaN slice encountered" per lane holding nothing but NaN; returns whether
    the first lane (C order) is all NaN."""
    from ._reductions import _reduce
    nan = _core.ufunc("not_equal", (a, a))
    alln = _reduce("minimum", nan, axes, None, None, False, True)
    if isinstance(alln, ndarray):
        count = int(_reduce("add", _core.cast(alln, _np.intp), None, _np.intp))
        first = count > 0 and bool(alln[(0,) * alln.ndim])
    else:
        count = first = int(alln)
    for _ in range(count):
        warnings.warn("All-NaN slice encountered", RuntimeWarning, stacklevel=4)
    return bool(first)


def _finish(r, shape, out, keepdims):
    """NumPy's result: a scalar for a 0-d result, but a 0-d array under keepdims (NumPy indexes
    its scalar with Ellipsis to add the kept axes)."""
    r = _core.reshape(r, shape)
    if out is not None:
        _core.assign(out, r)
        return out
    return _core.to_scalar(r) if r.ndim == 0 and not keepdims else r


def _lanes(a, axes):
    """(array, axes) as the quantile op reads them: under distribution, an array whose tiling
    cuts a reduced dimension (of several, some kept) is first copied into slabs along a kept
    dimension (each element moves once at most), so that each rank computes the lanes of its own
    slab (csrc/runtime/distselect.c); one lane (every kept dimension of length 1) is its flat
    view, whose order statistics are the distributed selection; otherwise a itself."""
    if not 0 < len(axes) < a.ndim:
        return a, axes
    if all(a.shape[d] == 1 for d in range(a.ndim) if d not in axes):
        return _core.reshape(a, (a.size,)), (0,)
    return _core.lane_slabs((a,), axes)[0], axes


def _out_ok(out, shape):
    return out is None or (isinstance(out, ndarray) and out.shape == shape)


# ---- median ------------------------------------------------------------------------------------

def _median(func, a, axis, out, overwrite_input, keepdims, skip_nan):
    args = (a,)
    kwargs = {"axis": axis, "out": out, "overwrite_input": overwrite_input,
              "keepdims": keepdims}
    a = _asarray(a)
    if a.size == 0 or a.ndim == 0 or a.dtype.kind not in "biuf":
        return _delegate(func, (a,) + args[1:], kwargs)
    axes = _axes(axis, a.ndim)
    shape = _shapes(a, axes, (), keepdims)
    odt = _np.dtype(_np.float64) if a.dtype.kind in "biu" else a.dtype
    if not _out_ok(out, shape) or (out is not None and out.dtype != odt):
        return _delegate(func, (a,), kwargs)
    flags = 0
    if skip_nan and a.dtype.kind == "f":
        flags |= _SKIP_NAN
        nred = 1
        for d in axes:
            nred *= a.shape[d]
        # NumPy's nanmedian takes np.ma.median (sums the middle pair in the input dtype) when
        # lanes are short and the reshaped input keeps a dimension
        if axis is not None and len(axes) < a.ndim and nred < 600:
            flags |= _MA_MEAN
        _warn_all_nan(a, axes)
    r = _core.quantile(*_lanes(a, axes), None, _MEDIAN, flags, odt, odt, odt)
    return _finish(r, shape, out, keepdims)


def median(a, axis=None, out=None, overwrite_input=False, keepdims=False):
    return _median(_np.median, a, axis, out, overwrite_input, keepdims, False)


def nanmedian(a, axis=None, out=None, overwrite_input=False, keepdims=_np._NoValue):
    return _median(_np.nanmedian, a, axis, out, overwrite_input,
                   False if keepdims is _np._NoValue else keepdims, True)


# ---- quantile, percentile ----------------------------------------------------------------------

def _quantile(func, a, q, axis, out, overwrite_input, method, keepdims, weights, interpolation,
              percent, skip_nan):
    kwargs = {"axis": axis, "out": out, "overwrite_input": overwrite_input, "method": method,
              "keepdims": keepdims}
    if weights is not None:
        kwargs["weights"] = weights
    if interpolation is not None:
        kwargs["interpolation"] = interpolation
    a = _asarray(a)
    if a.dtype.kind == "c":
        raise TypeError("a must be an array of real numbers")
    weak = type(q) in (int, float)
    qn = _np.asanyarray(q if not isinstance(q, ndarray) else _core.to_numpy(q))
    if percent:
        qn = _np.true_divide(qn, 100, out=...)
    native = (weights is None and interpolation is None and a.size > 0 and qn.size > 0
              and qn.ndim <= 2 and qn.dtype in (_np.float32, _np.float64)
              and isinstance(method, str) and method in _METHOD
              and a.dtype.kind in "biuf")
    if native:
        if not _valid(qn):
            raise ValueError("Percentiles must be in the range [0, 100]" if percent else
                             "Quantiles must be in the range [0, 1]")
    take = method in _DISCRETE
    if not native or (a.dtype.kind == "b" and not take):
        return _delegate(func, (a, q), kwargs)
    axes = _axes(axis, a.ndim)
    if skip_nan and qn.ndim == 2 and 1 < len(axes) < a.ndim:
        # NumPy's nan- variants lay this case out with moveaxis(result, [-1, 0], [0, 1]) (its
        # apply_along_axis path with axis=-1): its own layout, so NumPy computes it
        return _delegate(func, (a, q), kwargs)
    shape = _shapes(a, axes, qn.shape, keepdims)
    if (a.dtype.kind == "i" and not take and qn.ndim == 0
            and (skip_nan or len(axes) == a.ndim) and _may_wrap(a)):
        # NumPy subtracts NumPy scalars here (one lane, or per lane in the nan- variants) and
        # warns "overflow encountered in scalar subtract" when b - a wraps: NumPy computes
        return _delegate(func, (a, q), kwargs)
    cdt = _np.result_type(a.dtype, 0.0) if weak else _np.result_type(a.dtype, qn.dtype)
    odt = a.dtype if take else cdt
    if out is not None:
        if not _out_ok(out, shape):
            return _delegate(func, (a, q), kwargs)
        if take and out.dtype != a.dtype:
            return _delegate(func, (a, q), kwargs)
        if not take:
            if out.dtype.kind != "f" or not _np.can_cast(cdt, out.dtype, "same_kind"):
                return _delegate(func, (a, q), kwargs)
            odt = out.dtype
    flags = (_TAKE if take else 0) | (_WEAK if weak else 0)
    back = None
    if skip_nan and a.dtype.kind == "f":
        flags |= _SKIP_NAN
        if _warn_all_nan(a, axes) and out is None:
            # NumPy's per-lane results go into an array of the first lane's result dtype, and an
            # all-NaN lane's result has the input dtype
            back = a.dtype
    qa = _core.from_any(_np.ascontiguousarray(qn.ravel(), dtype=_np.float64))
    r = _core.quantile(*_lanes(a, axes), qa, _METHOD[method], flags, qn.dtype, cdt, odt)
    if back is not None and back != r.dtype:
        r = _core.cast(r, back)
    return _finish(r, shape, out, keepdims)


def _may_wrap(a):
    """Can a difference of two elements of signed-integer `a` leave its dtype?"""
    from ._reductions import max as _max, min as _min
    return int(_max(a)) - int(_min(a)) > _np.iinfo(a.dtype).max


def _valid(q):
    """NumPy's _quantile_is_valid (NaN fails)."""
    return bool(_np.all((q >= 0) & (q <= 1)))


def quantile(a, q, axis=None, out=None, overwrite_input=False, method="linear",
             keepdims=False, *, weights=None, interpolation=None):
    return _quantile(_np.quantile, a, q, axis, out, overwrite_input, method, keepdims, weights,
                     interpolation, False, False)


def percentile(a, q, axis=None, out=None, overwrite_input=False, method="linear",
               keepdims=False, *, weights=None, interpolation=None):
    return _quantile(_np.percentile, a, q, axis, out, overwrite_input, method, keepdims, weights,
                     interpolation, True, False)


def nanquantile(a, q, axis=None, out=None, overwrite_input=False, method="linear",
                keepdims=_np._NoValue, *, weights=None, interpolation=None):
    return _quantile(_np.nanquantile, a, q, axis, out, overwrite_input, method,
                     False if keepdims is _np._NoValue else keepdims, weights, interpolation,
                     False, True)


def nanpercentile(a, q, axis=None, out=None, overwrite_input=False, method="linear",
                  keepdims=_np._NoValue, *, weights=None, interpolation=None):
    return _quantile(_np.nanpercentile, a, q, axis, out, overwrite_input, method,
                     False if keepdims is _np._NoValue else keepdims, weights, interpolation,
                     True, True)


NAMES = "median nanmedian quantile percentile nanquantile nanpercentile".split()
