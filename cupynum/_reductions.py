"""Reductions and statistics: NumPy's functions (and ndarray methods) as compositions of native
reductions (cupynum/_ufunc.py reduce over csrc/kernels/reduce.c), scans, argmax/argmin and
element-wise ops.  Formulas follow NumPy's own (numpy/_core/_methods.py,
numpy/lib/_nanfunctions_impl.py): two-pass variance, complex -> real, ddof, and the same
warnings ("Mean of empty slice", "Degrees of freedom <= 0 for slice", "All-NaN slice
encountered")."""

import builtins
import operator
import warnings

import numpy as _np
from numpy.lib.array_utils import normalize_axis_index

from . import _core, _ufunc
from ._ndarray import _numpy_call, ndarray
from ._where import _NATIVE

_NoValue = _np._NoValue
U = _ufunc.ufuncs


def _asarray(a):
    return a if isinstance(a, ndarray) else _core.from_any(a)


def _reduce(name, a, axis, dtype=None, out=None, keepdims=False, initial=_NoValue, where=True):
    return _ufunc.reduce(U[name], a, axis=axis, dtype=dtype, out=out, keepdims=keepdims,
                         initial=initial, where=where)


def _axes(axis, ndim):
    return _ufunc._axes(axis, ndim)


def _count(a, axis, keepdims, where):
    """Elements per output (NumPy's _count_reduce_items): an int, or an array with where=."""
    axes = _axes(axis, a.ndim)
    if where is True:
        n = 1
        for d in axes:
            n *= a.shape[d]
        return n
    w = _asarray(where)
    w = _core.broadcast_to(w, _np.broadcast_shapes(w.shape, a.shape))
    return _reduce("add", w, axes, dtype=_np.intp, keepdims=keepdims)


def _any_true(x):
    if isinstance(x, (int, _np.integer, _np.bool_, bool, float, _np.floating)):
        return bool(x)
    x = _asarray(x)
    r = _core.full_reduce(x if x.dtype == _np.bool_ else _core.cast(x, _np.bool_), "maximum")
    return bool(r) if r is not None else False     # (None: empty)


def _store(r, out):
    if out is None:
        return r
    if not isinstance(out, ndarray):
        raise TypeError("out must be a cupynum.ndarray")
    if _np.shape(r) != out.shape:
        raise ValueError(f"output parameter for reduction operation has the wrong shape "
                         f"{out.shape}, expected {_np.shape(r)}")
    _core.assign(out, r)
    return out


def _scalar_or(r):
    return _core.to_scalar(r) if isinstance(r, ndarray) and r.ndim == 0 else r


# ---- sums, products, extremes -------------------------------------------------------------

def _axis_sum(a, axis):
    """The sum of a float or complex cupynum array (not float16) over one int axis, as the
    reduce op directly (a row or column sum in a Python loop, issue #21); None otherwise."""
    if type(a) is not ndarray or type(axis) is not int:
        return None
    nd = a.ndim
    if not -nd <= axis < nd or a.dtype.kind not in "fc" or a.dtype.itemsize == 2 or nd == 1:
        return None
    return _core.reduce("add", a, (axis % nd,), a.dtype, None)


def _axes_reduce(name, a, axis, keepdims):
    """A reduction of a non-empty cupynum array over an int axis or a tuple of them, in the
    accumulator dtype _ufunc.reduce would choose, as the reduce op directly (x.max(axis=1,
    keepdims=True) in a softmax: 2.7 us through the general way against NumPy's 1.0); None
    where anything else applies (the general way then decides, errors included)."""
    if type(a) is not ndarray or (keepdims is not False and keepdims is not True):
        return None
    shape = a.shape
    nd = len(shape)
    if type(axis) is int:
        if not -nd <= axis < nd:
            return None
        axes = (axis % nd,)
    elif type(axis) is tuple and axis and builtins.all(type(x) is int and -nd <= x < nd for x in axis):
        axes = tuple(x % nd for x in axis)
        if len(set(axes)) != len(axes):
            return None
    else:
        return None
    if 0 in shape:
        return None
    acc = _core.reduce_dtype(name, a.dtype)
    r = _core.reduce(name, a, axes, a.dtype if acc is None else acc, None)
    if keepdims:
        return _core.reshape(r, tuple(1 if d in axes else n for d, n in enumerate(shape)))
    return _core.to_scalar(r) if r.ndim == 0 else r


def sum(a, axis=None, dtype=None, out=None, keepdims=False, initial=_NoValue, where=True):
    if dtype is None and out is None and initial is _NoValue and where is True:
        # one C call where it applies
        if axis is None:
            r = _core.full_reduce(a, "add", True) if keepdims is False else None
        else:
            r = _axis_sum(a, axis) if keepdims is False else None
            if r is None:
                r = _axes_reduce("add", a, axis, keepdims)
        if r is not None:
            return r
    return _reduce("add", _asarray(a), axis, dtype, out, keepdims, initial, where)


def prod(a, axis=None, dtype=None, out=None, keepdims=False, initial=_NoValue, where=True):
    if dtype is None and out is None and initial is _NoValue and where is True:
        if axis is None:
            r = _core.full_reduce(a, "multiply", True) if keepdims is False else None   # one C call
        else:
            r = _axes_reduce("multiply", a, axis, keepdims)
        if r is not None:
            return r
    return _reduce("multiply", _asarray(a), axis, dtype, out, keepdims, initial, where)


def max(a, axis=None, out=None, keepdims=False, initial=_NoValue, where=True):
    if out is None and initial is _NoValue and where is True:
        if axis is None:
            r = _core.full_reduce(a, "maximum", True) if keepdims is False else None
        else:
            r = _axes_reduce("maximum", a, axis, keepdims)
        if r is not None:
            return r
    return _reduce("maximum", _asarray(a), axis, None, out, keepdims, initial, where)


def min(a, axis=None, out=None, keepdims=False, initial=_NoValue, where=True):
    if out is None and initial is _NoValue and where is True:
        if axis is None:
            r = _core.full_reduce(a, "minimum", True) if keepdims is False else None
        else:
            r = _axes_reduce("minimum", a, axis, keepdims)
        if r is not None:
            return r
    return _reduce("minimum", _asarray(a), axis, None, out, keepdims, initial, where)


amax = max
amin = min


def _truth(a):
    return a if a.dtype == _np.bool_ else _core.ufunc("not_equal", (a, 0))


def _whole(a, axis, out, keepdims, where):
    """A reduction of all of cupynum array a with no out, keepdims or where: one C call."""
    return axis is None and out is None and keepdims is False and where is True and isinstance(a, ndarray)


def all(a, axis=None, out=None, keepdims=False, *, where=True):
    if _whole(a, axis, out, keepdims, where) and a.dtype == _np.bool_:
        r = _core.full_reduce(a, "minimum")          # None when empty (True, below)
        if r is not None:
            return r
    a = _asarray(a)
    r = _reduce("minimum", _truth(a), axis, None, None, keepdims, True, where)
    return _store(r, out)


def any(a, axis=None, out=None, keepdims=False, *, where=True):
    if _whole(a, axis, out, keepdims, where) and a.dtype == _np.bool_:
        r = _core.full_reduce(a, "maximum")          # None when empty (False, below)
        if r is not None:
            return r
    a = _asarray(a)
    r = _reduce("maximum", _truth(a), axis, None, None, keepdims, False, where)
    return _store(r, out)


def count_nonzero(a, axis=None, *, keepdims=False):
    if _whole(a, axis, None, keepdims, True) and a.dtype in _NATIVE:
        r = _core.full_reduce(_truth(a), "add")     # intp; None when empty
        if r is not None:
            return r
    a = _asarray(a)
    return _reduce("add", _truth(a), axis, _np.intp, None, keepdims)


def ptp(a, axis=None, out=None, keepdims=False):
    a = _asarray(a)
    mx = _reduce("maximum", a, axis, keepdims=keepdims)
    mn = _reduce("minimum", a, axis, keepdims=keepdims)
    return U["subtract"](mx, mn, out=out)


# ---- scans, arg-extremes ------------------------------------------------------------------------

def _scan(name, a, axis, dtype, out):
    a = _asarray(a)
    if a.ndim == 0 and axis is not None:
        normalize_axis_index(operator.index(axis), 1)   # 0 or -1: NumPy scans the one element
        axis = None
    if axis is None:
        if a.ndim != 1:
            from ._functions import ravel
            a = ravel(a)
        axis = 0
    return _ufunc.accumulate(U[name], a, axis=axis, dtype=dtype, out=out)


def cumsum(a, axis=None, dtype=None, out=None):
    return _scan("add", a, axis, dtype, out)


def cumprod(a, axis=None, dtype=None, out=None):
    return _scan("multiply", a, axis, dtype, out)


def _arg(name, fname, a, axis, out, keepdims):
    if isinstance(axis, (bool, _np.bool_)):
        raise TypeError("an integer is required for the axis")   # NumPy's (operator.index takes it)
    a = _asarray(a)
    if a.ndim == 0 and axis is not None:
        normalize_axis_index(operator.index(axis), 1)   # 0 or -1 on a 0-d array, as NumPy
        axis = None
    if axis is None:
        axes = tuple(range(a.ndim))
        kshape = (1,) * a.ndim
    else:
        ax = normalize_axis_index(operator.index(axis), a.ndim)
        axes = (ax,)
        kshape = tuple(1 if d == ax else n for d, n in enumerate(a.shape))
    size = 1
    for d in axes:
        size *= a.shape[d]
    if size == 0:
        raise ValueError(f"attempt to get {fname} of an empty sequence")
    if a.ndim > 0 and size > 1 and _core._tiling(a)["tiled"]:
        r = _dist_arg(name, a, None if axis is None else axes[0])
    else:
        r = _core.argreduce(name, a, axes)
    if keepdims:
        r = _core.reshape(r, kshape)
    if out is not None:
        if out.shape != r.shape:
            raise ValueError("output array does not match result of np.argmax.")
        _core.assign(out, r)
        return out
    return _scalar_or(r)


def _dist_arg(name, a, axis):
    """argmax/argmin of an array partitioned over ranks, owner-computes (the C kernel would
    gather it): the extreme, a distributed reduction kept broadcastable; then the least index
    holding it, the minimum over `where(a == m, index, n)` -- a NaN, which NumPy's argmax and
    argmin return first of, matches a NaN extreme.  The index is built from one arange per
    dimension, broadcast; each rank moves its reductions' partials and the short index vectors
    of the dimensions its tile spans, not its tile."""
    from . import _creation, _where
    m = _reduce(name, a, axis, keepdims=True)
    hit = _core.ufunc("equal", (a, m))
    if a.dtype.kind in "fc":
        hit = _core.ufunc("logical_or", (hit, _core.ufunc(
            "logical_and", (_core.ufunc("isnan", (a,)), _core.ufunc("isnan", (m,))))))
    dims = range(a.ndim) if axis is None else (axis,)
    index, step = None, 1
    for d in reversed(dims):
        shape = [1] * a.ndim
        shape[d] = a.shape[d]
        part = _core.reshape(_creation.arange(a.shape[d], dtype=_np.intp), tuple(shape))
        if step != 1:
            part = _core.ufunc("multiply", (part, step))
        index = part if index is None else _core.ufunc("add", (index, part))
        step *= a.shape[d]
    big = step   # past every index: where nothing matched (never, as m is an element)
    r = _reduce("minimum", _where.where(hit, index, big), axis)
    return r if isinstance(r, ndarray) else _asarray(_np.intp(r))


def _arg_axis(name, a, axis):
    """The argreduce op along one int axis of a non-empty untiled array of ndim >= 2 queued
    directly (what _arg queues, without its Python: 2.4 -> 1.6 us for 32 x 31), else None."""
    nd = a.ndim
    if nd >= 2 and -nd <= axis < nd and a.size and not _core._tiling(a)["tiled"]:
        return _core.argreduce(name, a, (axis % nd,))
    return None


def argmax(a, axis=None, out=None, *, keepdims=False):
    if out is None and keepdims is False and type(a) is ndarray:
        if axis is None:
            r = _core.full_argreduce(a, "maximum")   # untiled, non-empty, ndim >= 1 (fastpath.c)
        else:
            r = _arg_axis("maximum", a, axis) if type(axis) is int else None
        if r is not None:
            return r
    return _arg("maximum", "argmax", a, axis, out, keepdims)


def argmin(a, axis=None, out=None, *, keepdims=False):
    if out is None and keepdims is False and type(a) is ndarray:
        if axis is None:
            r = _core.full_argreduce(a, "minimum")
        else:
            r = _arg_axis("minimum", a, axis) if type(axis) is int else None
        if r is not None:
            return r
    return _arg("minimum", "argmin", a, axis, out, keepdims)


# ---- mean, variance -----------------------------------------------------------------------------

def _mean_dtype(a, dtype):
    """(accumulator dtype, dtype to return) as NumPy's _mean: ints and bools average in float64,
    float16 in float32 (returned as float16)."""
    if dtype is not None:
        return _np.dtype(dtype), None
    if a.dtype.kind in "biu":
        return _np.dtype(_np.float64), None
    if a.dtype == _np.float16:
        return _np.dtype(_np.float32), a.dtype
    return a.dtype, None


_MEAN_SELF = tuple(_np.dtype(t) for t in "fdFD")   # the dtypes a mean accumulates in


def _by_count(s, n):
    """s / n for a float or complex array s and an int count n as NumPy's mean divides: by an
    intp, so complex64 divides in complex128 and rounds (float32's double rounding of a
    quotient is exact)."""
    if s.dtype == _np.complex64 and isinstance(n, int):
        return _core.cast(_core.ufunc("divide", (_core.cast(s, _np.complex128), n)), _np.complex64)
    return _core.ufunc("divide", (s, n))


def _divide(s, n, out_dtype=None):
    with _np.errstate(divide="ignore", invalid="ignore"):
        if isinstance(s, ndarray):
            r = _by_count(s, n) if s.dtype.kind in "fc" else \
                _core.cast(_core.ufunc("divide", (s, n)), s.dtype)
            if r.dtype != s.dtype:
                r = _core.cast(r, s.dtype)
            return r if out_dtype is None else _core.cast(r, out_dtype)
        # NumPy divides by its count as an intp (_count_reduce_items): a complex64 sum is
        # divided in complex128, then rounded
        r = s.dtype.type(s / (_np.intp(n) if isinstance(n, int) else n))
        return r if out_dtype is None else out_dtype.type(r)


def mean(a, axis=None, dtype=None, out=None, keepdims=False, *, where=True):
    if dtype is None and _whole(a, axis, out, keepdims, where) and a.size and a.dtype in _MEAN_SELF:
        s = _core.full_reduce(a, "add")             # summed in a's own dtype, as NumPy's
        if s is not None:
            return _divide(s, a.size)
    if dtype is None and out is None and keepdims is False and where is True and axis is not None:
        s = _axis_sum(a, axis)
        if s is not None:
            n = a.shape[axis]
            if n > 0:   # a float sum over a positive count raises nothing: no errstate
                return _by_count(s, n)
    a = _asarray(a)
    _axes(axis, a.ndim)                          # NumPy checks axis=, then keepdims=
    keepdims = _ufunc._keepdims(keepdims)
    n = _count(a, axis, keepdims, where)
    if n == 0 if isinstance(n, int) else _any_true(_core.ufunc("equal", (n, 0))):
        warnings.warn("Mean of empty slice", RuntimeWarning, stacklevel=2)
    acc, back = _mean_dtype(a, dtype)
    if out is not None:
        # NumPy's _mean: the sum goes into out (the reduction's out rule picks the accumulator:
        # float32 into a float64 out sums in float64), then out is divided in place.
        if dtype is None and a.dtype.kind not in "biu" and a.dtype != _np.float16:
            acc = None
        s = _reduce("add", a, axis, acc, out, keepdims, _NoValue, where)
        return _divide_into(s, n)
    s = _reduce("add", a, axis, acc, None, keepdims, _NoValue, where)
    r = _divide(s, n, back)
    return _store(r, out)


def _divide_into(s, n):
    """NumPy's true_divide(s, n, out=s, casting='unsafe') of a reduction's out."""
    with _np.errstate(divide="ignore", invalid="ignore"):
        return U["divide"](s, n, out=s, casting="unsafe")


_SQUARE = []


def _square(x):
    """x * x as NumPy's _var squares its deviations: `square` from NumPy 2.3 on, `multiply`
    before (the same bits; the name is the one an overflow warning gives).  Read once from
    NumPy's own source; `square` where that cannot be read."""
    if not _SQUARE:
        try:
            import inspect
            from numpy._core import _methods
            _SQUARE.append("multiply" if "um.square(" not in inspect.getsource(_methods._var)
                           else "square")
        except Exception:   # no source (a frozen NumPy): the current NumPy's way
            _SQUARE.append("square")
    return _core.ufunc("square", (x,)) if _SQUARE[0] == "square" else x * x


def _abs2(x):
    """|x|^2 of a complex array as its real dtype (NumPy sums re^2 + im^2)."""
    re, im = _core.component(x, 1), _core.component(x, 2)
    return _square(re) + _square(im)


_VAR_SELF = (_np.dtype(_np.float32), _np.dtype(_np.float64))


def _var_whole(a, axis, dtype, out, ddof, keepdims, where, mean, correction):
    """var(a, ...) of all of a float32/float64 cupynum array, no other argument given, as NumPy's
    _var computes it: the sum (in a's dtype) divided by the count as an intp, the squares of
    a - mean summed, divided by n - ddof; each step the op the general path queues, without its
    Python (a 100-element std: 16.6 -> 3.5 us, NumPy 6.3).  None where that does not apply
    (another argument, or ddof not a positive int's worth of degrees of freedom: the general
    path warns)."""
    if axis is not None or dtype is not None or out is not None or keepdims is not False or \
            where is not True or mean is not _NoValue or correction is not _NoValue or \
            type(a) is not ndarray:
        return None
    n = a.size
    if type(ddof) is not int or n - ddof <= 0 or a.dtype not in _VAR_SELF:
        return None
    s = _core.full_reduce(a, "add")
    if s is None:
        return None
    m = s.dtype.type(s / _np.intp(n))   # a count > 0: nothing to warn about
    x = a - m
    ss = _core.full_reduce(_square(x), "add")
    if ss is None:
        return None
    return ss.dtype.type(ss / _np.intp(n - ddof))


def var(a, axis=None, dtype=None, out=None, ddof=0, keepdims=False, *, where=True,
        mean=_NoValue, correction=_NoValue):
    r = _var_whole(a, axis, dtype, out, ddof, keepdims, where, mean, correction)
    if r is not None:
        return r
    a = _asarray(a)
    _axes(axis, a.ndim)                          # NumPy checks axis=, then keepdims=
    keepdims = _ufunc._keepdims(keepdims)
    if correction is not _NoValue:
        if ddof != 0:
            raise ValueError("ddof and correction can't be provided simultaneously.")
        ddof = correction
    n = _count(a, axis, keepdims, where)
    nk = _count(a, axis, True, where)
    few = (n - ddof <= 0) if isinstance(n, int) else _any_true(
        _core.ufunc("less_equal", (n, ddof)))
    if few:
        warnings.warn("Degrees of freedom <= 0 for slice", RuntimeWarning, stacklevel=2)
    # NumPy's _var takes the mean in a's own dtype (float16 too: not _mean's float32), ints and
    # bools in float64, so float16 deviations are squared in float16 and overflow as NumPy's do
    acc = _np.dtype(dtype) if dtype is not None else \
        _np.dtype(_np.float64) if a.dtype.kind in "biu" else None
    if mean is not _NoValue:
        m = _asarray(mean)
    else:
        m = _divide(_reduce("add", a, axis, acc, None, True, _NoValue, where), nk)
    x = _asarray(a - m)   # NumPy's promotion; 0-d results come back as NumPy scalars
    sq = _abs2(x) if x.dtype.kind == "c" else _square(x)
    s = _reduce("add", sq, axis, dtype, out, keepdims, _NoValue, where)
    dof = n - ddof if isinstance(n, int) else U["maximum"](n - ddof, 0)
    if isinstance(dof, int):
        dof = dof if dof > 0 else 0
    if out is not None:
        return _divide_into(s, dof)
    return _divide(s, dof)


def std(a, axis=None, dtype=None, out=None, ddof=0, keepdims=False, *, where=True,
        mean=_NoValue, correction=_NoValue):
    r = _var_whole(a, axis, dtype, out, ddof, keepdims, where, mean, correction)
    if r is not None:
        return r.dtype.type(_np.sqrt(r))    # NumPy's _std of a scalar
    r = var(a, axis, dtype, out, ddof, keepdims, where=where, mean=mean, correction=correction)
    # NumPy's _std: the square root in place of an array (an integer dtype= raises NumPy's
    # UFuncTypeError), in the scalar's own type for a scalar (int64(sqrt(8)) is 2).
    with _np.errstate(invalid="ignore"):
        if isinstance(r, ndarray):
            return U["sqrt"](r, out=r)
        return r.dtype.type(U["sqrt"](r)) if hasattr(r, "dtype") else U["sqrt"](r)


def average(a, axis=None, weights=None, returned=False, *, keepdims=False):
    a = _asarray(a)
    if weights is None:
        avg = mean(a, axis, keepdims=keepdims)
        size = _np.size(avg) if not isinstance(avg, ndarray) else avg.size
        scl = _np.asarray(avg).dtype.type(a.size / size)   # ZeroDivisionError as NumPy
        if returned:
            if isinstance(avg, ndarray):
                return avg, _core.broadcast_to(_core.from_any(scl), avg.shape) + 0
            return avg, scl
        return avg
    w = _asarray(weights)
    if a.dtype.kind in "biu":
        rdt = _np.result_type(a.dtype, w.dtype, "f8")
    else:
        rdt = _np.result_type(a.dtype, w.dtype)
    if a.shape != w.shape:
        if axis is None:
            raise TypeError("Axis must be specified when shapes of a and weights differ.")
        axes = _axes(axis, a.ndim)
        if w.shape != tuple(a.shape[d] for d in axes):
            raise ValueError("Shape of weights must be consistent with shape of a along "
                             "specified axis.")
        if len(axes) != 1:
            return _numpy_call(_np.average, (a,), {"axis": axis, "weights": weights,
                                                   "returned": returned, "keepdims": keepdims})
        w = _core.reshape(w, tuple(a.shape[d] if d == axes[0] else 1 for d in range(a.ndim)))
        w = _core.broadcast_to(w, a.shape)
    scl = sum(w, axis, dtype=rdt, keepdims=keepdims)
    zero = _core.ufunc("equal", (scl, 0)) if isinstance(scl, ndarray) else scl == 0
    if _any_true(zero):
        raise ZeroDivisionError("Weights sum to zero, can't be normalized")
    prodw = U["multiply"](a, w, dtype=rdt)
    avg = U["divide"](sum(prodw, axis, keepdims=keepdims), scl)
    if returned:
        if _np.shape(scl) != _np.shape(avg):
            scl = _core.broadcast_to(_asarray(scl), _np.shape(avg)) + 0
        return avg, scl
    return avg



# ---- NaN-ignoring variants ------------------------------------------------------------------------

def _nanmask(a):
    """(a with NaNs replaced by `fill`, mask) for inexact a; (a, None) otherwise."""
    return _core.ufunc("not_equal", (a, a))


def _replace_nan(a, fill):
    a = _asarray(a)
    if a.dtype.kind not in "fc":
        return a, None
    mask = _asarray(_nanmask(a))
    r = _core.empty(a.shape, a.dtype)
    _core.select(mask, fill, a, r)
    return r, mask


def nansum(a, axis=None, dtype=None, out=None, keepdims=False, initial=_NoValue, where=True):
    x, _ = _replace_nan(a, 0)
    return sum(x, axis, dtype, out, keepdims, initial, where)


def nanprod(a, axis=None, dtype=None, out=None, keepdims=False, initial=_NoValue, where=True):
    x, _ = _replace_nan(a, 1)
    return prod(x, axis, dtype, out, keepdims, initial, where)


def nancumsum(a, axis=None, dtype=None, out=None):
    x, _ = _replace_nan(a, 0)
    return cumsum(x, axis, dtype, out)


def nancumprod(a, axis=None, dtype=None, out=None):
    x, _ = _replace_nan(a, 1)
    return cumprod(x, axis, dtype, out)


def _nan_extreme(name, a, axis, out, keepdims, initial, where):
    a = _asarray(a)
    if a.dtype.kind == "c":
        # NumPy's nanmax/nanmin of complex: fmax/fmin.reduce (lexicographic order, an element
        # with a NaN part ignored), which the reduce kernel runs through the op's loop.
        r = _reduce("fmax" if name == "maximum" else "fmin", a, axis, None, out, keepdims,
                    initial, where)
        if _any_true(_core.ufunc("isnan", (_asarray(r),), None)):
            warnings.warn("All-NaN slice encountered", RuntimeWarning, stacklevel=3)
        return r
    if a.dtype.kind != "f":
        return _reduce(name, a, axis, None, out, keepdims, initial, where)
    fill = -_np.inf if name == "maximum" else _np.inf
    if initial is _NoValue and where is True:
        for d in _axes(axis, a.ndim):
            if a.shape[d] == 0:
                raise ValueError(f"zero-size array to reduction operation "
                                 f"{'fmax' if name == 'maximum' else 'fmin'} which has no identity")
    if not _core._tiling(a)["tiled"]:
        # NumPy's own way: fmax/fmin.reduce (NaN only where a slice is all NaN), one pass of the
        # kernel's float fold; a tiled array keeps the combinable maximum/minimum below (the
        # runtime does not combine fmax partials: it would gather the array).
        r = _reduce("fmax" if name == "maximum" else "fmin", a, axis, None, None, keepdims,
                    initial, where)
        allnan = _core.ufunc("isnan", (_asarray(r),), None) if isinstance(r, ndarray) \
            else _np.isnan(r)
        if _any_true(allnan):
            warnings.warn("All-NaN slice encountered", RuntimeWarning, stacklevel=3)
        allnan = False
    else:
        if initial is _NoValue and where is not True:   # NumPy's error names fmax/fmin
            raise ValueError(f"reduction operation '{'fmax' if name == 'maximum' else 'fmin'}' "
                             f"does not have an identity, so to use a where mask one has to "
                             f"specify 'initial'")
        x, mask = _replace_nan(a, fill)
        r = _reduce(name, x, axis, None, None, keepdims, initial, where)
        # NumPy's fmax/fmin reduction: NaN only where every element was NaN and no initial was given
        allnan = False if initial is not _NoValue else \
            _reduce("minimum", mask, axis, None, None, keepdims, True, where)
    if isinstance(r, ndarray):
        if _any_true(allnan):
            warnings.warn("All-NaN slice encountered", RuntimeWarning, stacklevel=3)
            _core.select(allnan, _np.nan, r, r)
    elif allnan:
        warnings.warn("All-NaN slice encountered", RuntimeWarning, stacklevel=3)
        r = a.dtype.type(_np.nan)
    if out is not None and isinstance(out, ndarray) and out.shape != _np.shape(r):
        raise ValueError(f"output parameter for reduction operation "
                         f"{'fmax' if name == 'maximum' else 'fmin'} has the wrong shape "
                         f"{out.shape}, expected {_np.shape(r)}")
    return _store(r, out)


def nanmax(a, axis=None, out=None, keepdims=False, initial=_NoValue, where=True):
    return _nan_extreme("maximum", a, axis, out, keepdims, initial, where)


def nanmin(a, axis=None, out=None, keepdims=False, initial=_NoValue, where=True):
    return _nan_extreme("minimum", a, axis, out, keepdims, initial, where)


def _nanarg(name, fname, a, axis, out, keepdims):
    a = _asarray(a)
    if a.dtype.kind not in "fc":
        return _arg(name, fname, a, axis, out, keepdims)
    # NumPy's way, complex too: NaN (either part) becomes -inf (+0j) or +inf, then argmax/argmin
    # (lexicographic for complex); an all-NaN slice is an error.
    x, mask = _replace_nan(a, -_np.inf if name == "maximum" else _np.inf)
    if a.size:
        allnan = _reduce("minimum", mask, axis, None, None, False, True)
        if _any_true(allnan) if isinstance(allnan, ndarray) else allnan:
            raise ValueError("All-NaN slice encountered")
    return _arg(name, fname, x, axis, out, keepdims)


def nanargmax(a, axis=None, out=None, *, keepdims=False):
    return _nanarg("maximum", "argmax", a, axis, out, keepdims)


def nanargmin(a, axis=None, out=None, *, keepdims=False):
    return _nanarg("minimum", "argmin", a, axis, out, keepdims)


def _inexact_only(a, dtype, out):
    if dtype is not None and not issubclass(_np.dtype(dtype).type, _np.inexact):
        raise TypeError("If a is inexact, then dtype must be inexact")
    if out is not None and not issubclass(out.dtype.type, _np.inexact):
        raise TypeError("If a is inexact, then out must be inexact")


def nanmean(a, axis=None, dtype=None, out=None, keepdims=False, *, where=True):
    a = _asarray(a)
    if a.dtype.kind not in "fc":
        return mean(a, axis, dtype, out, keepdims, where=where)
    _inexact_only(a, dtype, out)
    x, mask = _replace_nan(a, 0)
    valid = _asarray(_core.ufunc("equal", (mask, False)))
    cnt = _reduce("add", valid, axis, _np.intp, None, keepdims, _NoValue, where)
    tot = _reduce("add", x, axis, dtype, None, keepdims, _NoValue, where)
    empty = _core.ufunc("equal", (cnt, 0)) if isinstance(cnt, ndarray) else cnt == 0
    if _any_true(empty):
        warnings.warn("Mean of empty slice", RuntimeWarning, stacklevel=2)
    with _np.errstate(divide="ignore", invalid="ignore"):
        r = U["divide"](tot, cnt)
        if isinstance(r, ndarray) and r.dtype != tot.dtype:
            r = _core.cast(r, tot.dtype)
        elif not isinstance(r, ndarray):
            r = _np.asarray(tot).dtype.type(r)
    return _store(r, out)


def nanvar(a, axis=None, dtype=None, out=None, ddof=0, keepdims=False, *, where=True,
           mean=_NoValue, correction=_NoValue):
    a = _asarray(a)
    if a.dtype.kind not in "fc":
        return var(a, axis, dtype, out, ddof, keepdims, where=where, mean=mean,
                   correction=correction)
    _inexact_only(a, dtype, out)
    if mean is not _NoValue:
        return _numpy_call(_np.nanvar, (a,), {"axis": axis, "dtype": dtype, "ddof": ddof,
                                              "keepdims": keepdims, "mean": mean})
    if correction is not _NoValue:
        if ddof != 0:
            raise ValueError("ddof and correction can't be provided simultaneously.")
        ddof = correction
    x, mask = _replace_nan(a, 0)
    valid = _asarray(_core.ufunc("equal", (mask, False)))
    cnt = _reduce("add", valid, axis, _np.intp, None, True, _NoValue, where)
    acc = _np.dtype(dtype) if dtype is not None else a.dtype
    with _np.errstate(divide="ignore", invalid="ignore"):
        avg = _asarray(U["divide"](_reduce("add", x, axis, acc, None, True, _NoValue, where), cnt))
        if avg.dtype != acc:
            avg = _core.cast(avg, acc)
        d = _asarray(x - avg)
        sq = _asarray(_abs2(d) if d.dtype.kind == "c" else d * d)
        zero = _core.empty(sq.shape, sq.dtype)
        _core.select(mask, 0, sq, zero)
        s = _reduce("add", zero, axis, None, None, keepdims, _NoValue, where)
        cntk = cnt if keepdims else _reduce("add", valid, axis, _np.intp, None, False,
                                            _NoValue, where)
        dof = U["subtract"](cntk, ddof)
        bad = _core.ufunc("less_equal", (dof, 0)) if isinstance(dof, ndarray) else dof <= 0
        if _any_true(bad):
            warnings.warn("Degrees of freedom <= 0 for slice.", RuntimeWarning, stacklevel=2)
        r = U["divide"](s, dof)
        if isinstance(r, ndarray):
            if r.dtype != _np.asarray(s).dtype:
                r = _core.cast(r, _np.asarray(s).dtype)
            _core.select(_asarray(bad) if isinstance(bad, ndarray) else bool(bad), _np.nan, r, r)
        else:
            r = _np.asarray(s).dtype.type(_np.nan if bad else r)
    return _store(r, out)


def nanstd(a, axis=None, dtype=None, out=None, ddof=0, keepdims=False, *, where=True,
           mean=_NoValue, correction=_NoValue):
    r = nanvar(a, axis, dtype, None, ddof, keepdims, where=where, mean=mean,
               correction=correction)
    with _np.errstate(invalid="ignore"):
        r = U["sqrt"](r)
    return _store(r, out)


NAMES = ("sum prod max min amax amin all any count_nonzero ptp cumsum cumprod argmax argmin "
         "mean var std average nansum nanprod nancumsum nancumprod nanmax nanmin nanargmax "
         "nanargmin nanmean nanvar nanstd").split()
# ndarray methods where NumPy has them
METHODS = "sum prod max min all any cumsum cumprod argmax argmin mean var std".split()
