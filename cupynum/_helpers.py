"""NumPy's element-wise helpers, construction functions, small calculus and polynomials, as
Python over cupynum's native operations (issue #20): ufuncs, where, slicing, broadcasting,
arange and reductions.  Nothing here reads array data on the host: the element-wise helpers
(clip, round, isclose, nan_to_num, ...) queue element-wise ops that fuse with the chain around
them and run owner-computes on partitioned arrays; NumPy is asked only for shape and dtype
arithmetic (result_type, finfo, broadcast_shapes) and, on empty stand-ins, for its error
messages.

Where NumPy's algorithm is a fixed formula (round's scale-rint-unscale, isclose's test, sinc,
i0's Chebyshev series, the windows, ...) the same formula is applied with the same operand types
and order, so that results are bit-identical (Python scalars stay weak as in NumPy: NEP 50)."""

import builtins
import operator

import numpy as _np
from numpy.lib.array_utils import normalize_axis_index

from . import _core, _fallback, _functions
from ._core import ndarray

_NoValue = _np._NoValue
U = type("ufuncs", (), dict(_functions.ufuncs))   # U.add, U.maximum, ...


def _cp():
    import cupynum
    return cupynum


def _asarray(a, dtype=None):
    if isinstance(a, ndarray):
        return a if dtype is None or a.dtype == dtype else a.astype(dtype)
    return _core.from_any(_np.asarray(a, dtype=dtype))


def _where(c, x, y):
    from ._where import where
    return where(c, x, y)


def _scalar(r):
    """NumPy's `result[()]`: a 0-d array becomes its scalar."""
    return r[()] if isinstance(r, ndarray) and r.ndim == 0 else r


# ---- element-wise helpers -----------------------------------------------------------------------

def _clip_both(a, lo, hi):
    """NumPy's clip ufunc (numpy/_core/src/umath/clip.cpp), ties of -0.0 and 0.0 included: with
    both bounds scalars, max(x, lo) keeps x on a tie (and NaN x), min(., hi) likewise; with an
    array bound, max(x, lo) is x only where x > lo (or NaN x), min(., hi) is it only where
    . < hi.  A NaN bound gives NaN.  cupynum's maximum(p, q) is p where p > q or p is NaN, else
    q (minimum likewise), so the real cases are two ops: the bound first for scalar bounds, x
    first for array bounds (tests/test_helpers.py checks the signed zeros)."""
    dt = _np.result_type(*(v.dtype if isinstance(v, ndarray) else v for v in (a, lo, hi)))
    if dt.kind in "iub":
        return U.minimum(U.maximum(a, lo), hi)
    scalar_bounds = _np.size(lo) == 1 and _np.size(hi) == 1
    if dt.kind == "f":
        if scalar_bounds:
            return U.minimum(hi, U.maximum(lo, a))
        return U.minimum(U.maximum(a, lo), hi)
    if scalar_bounds:
        r = _where(U.greater_equal(a, lo) | U.isnan(a), a, lo)
        return _where(U.less_equal(r, hi) | U.isnan(r), r, hi)
    r = _where(U.greater(a, lo) | U.isnan(a), a, lo)
    return _where(U.less(r, hi) | U.isnan(r), r, hi)


def _plain_bound(v):
    """A Python float, or an int float64 holds exactly."""
    return type(v) is float or (type(v) is int and -2**53 <= v <= 2**53)


def _clip(a, a_min, a_max, out=None, **kwargs):
    if kwargs:
        return _fallback.compute(_np.clip, (a, a_min, a_max), dict(out=out, **kwargs),
                                 write=(out,) if isinstance(out, ndarray) else ())
    a = _asarray(a)
    if a.dtype.kind in "iu":
        if type(a_min) is int and a_min <= _np.iinfo(a.dtype).min:
            a_min = None
        if type(a_max) is int and a_max >= _np.iinfo(a.dtype).max:
            a_max = None
    lo = _asarray(a_min) if isinstance(a_min, (list, tuple, _np.ndarray)) else a_min
    hi = _asarray(a_max) if isinstance(a_max, (list, tuple, _np.ndarray)) else a_max
    if out is None and a.dtype == _np.float64 and _plain_bound(lo) and _plain_bound(hi):
        # the common call, clip(x, 0.0, 1.0) of float64: nothing to promote or check
        return _scalar(U.minimum(hi, U.maximum(lo, a)))
    if lo is None and hi is None:
        return U.positive(a, out=out)
    if lo is None:
        return U.minimum(a, hi, out=out)
    if hi is None:
        return U.maximum(a, lo, out=out)
    # the 3-operand ufunc's promotion and errors (an out-of-range Python integer bound...)
    try:
        _np.broadcast_shapes(*(_np.shape(x) for x in (a, lo, hi)))
    except ValueError:   # NumPy's three-shape message, from zero-strided stand-ins
        _np.clip(*(_np.broadcast_to(_np.zeros((), x.dtype), x.shape) if isinstance(x, ndarray)
                   else x for x in (a, lo, hi)))
        raise
    stand = [_np.zeros(0, x.dtype) if isinstance(x, ndarray) else x for x in (a, lo, hi)]
    if out is not None and not isinstance(out, ndarray):
        raise TypeError("return arrays must be of ArrayType")
    _np.clip(*stand, out=None if out is None else _np.zeros(0, out.dtype))
    r = _clip_both(a, lo, hi)
    if out is not None:
        out[...] = r
        return out
    return _scalar(r)


def _clip_arrays(a, lo, hi):
    """clip of three cupynum arrays of one integer or float dtype without out=: _clip_both's two
    ops at once (no promotion, no NumPy stand-in call: one dtype has nothing to promote or
    refuse); None, having queued nothing that is kept, where the shapes do not broadcast (the
    general path raises NumPy's three-operand message)."""
    if a.dtype.kind == "f" and lo.size == 1 and hi.size == 1:
        order = (lo, a)   # _clip_both's order for scalar bounds (ties and NaN as NumPy's)
    else:
        order = (a, lo)
    try:
        r = U.minimum(U.maximum(*order), hi) if order[0] is a else U.minimum(hi, U.maximum(*order))
    except ValueError:
        return None
    return _scalar(r)


def clip(a, a_min=_NoValue, a_max=_NoValue, out=None, *, min=_NoValue, max=_NoValue, **kwargs):
    if type(a) is ndarray and type(a_min) is ndarray and type(a_max) is ndarray and out is None \
            and not kwargs and min is _NoValue and max is _NoValue and \
            a.dtype == a_min.dtype == a_max.dtype and a.dtype.kind in "iuf":
        r = _clip_arrays(a, a_min, a_max)
        if r is not None:
            return r
    if a_min is _NoValue and a_max is _NoValue:
        a_min = None if min is _NoValue else min
        a_max = None if max is _NoValue else max
    elif a_min is _NoValue:
        raise TypeError("clip() missing 1 required positional argument: 'a_min'")
    elif a_max is _NoValue:
        raise TypeError("clip() missing 1 required positional argument: 'a_max'")
    elif min is not _NoValue or max is not _NoValue:
        raise ValueError("Passing `min` or `max` keyword argument when `a_min` and `a_max` are "
                         "provided is forbidden.")
    return _clip(a, a_min, a_max, out=out, **kwargs)


def _method_clip(self, min=None, max=None, out=None, **kwargs):
    return _clip(self, min, max, out=out, **kwargs)


def _round(a, decimals, out):
    """PyArray_Round: complex rounds its parts; integers with decimals >= 0 are copied; else
    x * 10**d, rint, / 10**d (decimals < 0: / then *), integers computed in float64 and cast
    back."""
    decimals = operator.index(decimals)
    if a.dtype.kind == "c":
        r = out if out is not None else a.copy()
        if out is not None:
            r[...] = a
        _round(r.real, decimals, r.real)
        _round(r.imag, decimals, r.imag)
        return r
    if a.dtype.kind not in "iufb":
        raise TypeError(f"ufunc 'rint' not supported for the input types")
    if a.dtype.kind == "b" and decimals != 0:
        _np.round(_np.zeros(0, bool), decimals)            # NumPy's casting error
    if decimals >= 0:
        if a.dtype.kind in "iu":
            if out is not None:
                out[...] = a
                return out
            return a.copy()
        if decimals == 0:
            return U.rint(a, out=out)
        op1, op2 = U.multiply, U.true_divide
    else:
        op1, op2 = U.true_divide, U.multiply
        decimals = -decimals
    f = float(10.0 ** decimals)
    if out is None:
        r = op2(U.rint(op1(a, f)), f) if a.dtype.kind == "f" else \
            op2(U.rint(op1(a.astype(_np.float64), f)), f).astype(a.dtype)
        return r
    if out.dtype.kind not in "fc" and a.dtype.kind == "f":
        _np.round(_np.zeros(0, a.dtype), decimals, out=_np.zeros(0, out.dtype))
    t = op1(a, f, out=out)
    U.rint(t, out=t)
    return op2(t, f, out=t)


def round(a, decimals=0, out=None):  # noqa: A001
    if isinstance(a, ndarray) or out is not None:
        r = _round(_asarray(a), decimals, out)
        return r if out is not None else _scalar(r)
    x = _np.asarray(a)
    r = _round(_asarray(x), decimals, None)
    return _scalar(r)


around = round


def _method_round(self, decimals=0, out=None):
    r = _round(self, decimals, out)
    return r if out is not None else _scalar(r)


def fix(x, out=None):
    xa = x if isinstance(x, ndarray) else _np.asarray(x)
    return U.trunc(xa, out=out) if out is not None else U.trunc(xa)


def _weak_or_array(v):
    return v if isinstance(v, (int, float, complex)) else _asarray(v)


def isclose(a, b, rtol=1e-05, atol=1e-08, equal_nan=False):
    x, y, atol, rtol = (_weak_or_array(v) for v in (a, b, atol, rtol))
    if isinstance(y, ndarray):
        dt = _np.result_type(y.dtype, 1.0)
        if y.dtype != dt:
            y = y.astype(dt)
    elif isinstance(y, int):
        y = float(y)
    if not (_finite_all(atol) and _finite_all(rtol)):
        err_s = _np.geterr()["invalid"]
        err_msg = f"One of rtol or atol is not valid, atol: {atol}, rtol: {rtol}"
        if err_s == "warn":
            import warnings
            warnings.warn(err_msg, RuntimeWarning, stacklevel=2)
        elif err_s == "raise":
            raise FloatingPointError(err_msg)
        elif err_s == "print":
            print(err_msg)
    # NumPy's own errstate (not cupynum's, which flushes): the ops capture it when submitted.
    with _np.errstate(invalid="ignore"):
        # Python operators, as NumPy's: on Python scalars they stay Python scalars (weak, NEP 50)
        result = U.less_equal(abs(x - y), atol + rtol * abs(y)) & U.isfinite(y) | U.equal(x, y)
        if equal_nan:
            result = result | (U.isnan(x) & U.isnan(y))
    return _scalar(result)


def _finite_all(v):
    if isinstance(v, ndarray):
        return bool(U.isfinite(v).all())
    return bool(_np.all(_np.isfinite(v)))


def allclose(a, b, rtol=1e-05, atol=1e-08, equal_nan=False):
    r = isclose(a, b, rtol=rtol, atol=atol, equal_nan=equal_nan)
    return builtins.bool(r.all() if isinstance(r, ndarray) else r)


def _all_true(r):
    return builtins.bool(r.all() if isinstance(r, ndarray) else r)


def array_equal(a1, a2, equal_nan=False):
    try:
        a1, a2 = _asarray(a1), _asarray(a2)
    except Exception:
        return False
    if a1.shape != a2.shape:
        return False
    if not equal_nan:
        return _all_true(U.equal(a1, a2))
    if a1 is a2:
        return True
    if a1.dtype.kind not in "fc" and a2.dtype.kind not in "fc":
        return _all_true(U.equal(a1, a2))
    n1, n2 = U.isnan(a1), U.isnan(a2)
    return _all_true(U.equal(n1, n2) & (U.equal(a1, a2) | n1))


def array_equiv(a1, a2):
    try:
        a1, a2 = _asarray(a1), _asarray(a2)
    except Exception:
        return False
    try:
        _np.broadcast_shapes(a1.shape, a2.shape)
    except Exception:
        return False
    return _all_true(U.equal(a1, a2))


def isposinf(x, out=None):
    return _isxinf(x, out, True)


def isneginf(x, out=None):
    return _isxinf(x, out, False)


def _isxinf(x, out, positive):
    xa = _weak_or_array(x) if not isinstance(x, (list, tuple)) else _asarray(x)
    is_inf = U.isinf(xa)
    try:
        sb = U.signbit(xa)
    except TypeError as e:
        dtype = _np.asarray(x).dtype if not isinstance(xa, ndarray) else xa.dtype
        raise TypeError(f"This operation is not supported for {dtype} values because it would "
                        f"be ambiguous.") from e
    if positive:
        sb = ~sb
    return U.logical_and(is_inf, sb, out) if out is not None else U.logical_and(is_inf, sb)


def iscomplexobj(x):
    try:
        dtype = x.dtype
        type_ = dtype.type
    except AttributeError:
        type_ = _np.asarray(x).dtype.type
    return issubclass(type_, _np.complexfloating)


def isrealobj(x):
    return not iscomplexobj(x)


def iscomplex(x):
    ax = _asarray(x)
    if ax.dtype.kind == "c":
        return _scalar(U.not_equal(ax.imag, 0))
    return _scalar(_cp().zeros(ax.shape, bool))


def isreal(x):
    if not isinstance(x, ndarray) and hasattr(x, "imag"):
        return x.imag == 0           # NumPy's imag(x): the scalar's own attribute
    ax = _asarray(x)
    im = ax.imag if ax.dtype.kind == "c" else _cp().zeros_like(ax)
    return _scalar(U.equal(im, 0))


def asarray_chkfinite(a, dtype=None, order=None):
    a = _cp().asarray(a, dtype=dtype, order=order)
    if a.dtype.kind in "fc" and not builtins.bool(U.isfinite(a).all()):
        raise ValueError("array must not contain infs or NaNs")
    return a


def nan_to_num(x, copy=True, nan=0.0, posinf=None, neginf=None):
    if isinstance(x, ndarray):
        xa = x.copy() if copy else x
    else:
        xa = _cp().array(x, copy=True if copy else None)
    isscalar = xa.ndim == 0
    if xa.dtype.kind not in "fc":
        return xa[()] if isscalar else xa
    fi = _np.finfo(xa.real.dtype)
    maxf = fi.max if posinf is None else posinf
    minf = fi.min if neginf is None else neginf
    for d in ((xa.real, xa.imag) if xa.dtype.kind == "c" else (xa,)):
        if posinf is None and neginf is None:
            # the infinities clamp to the finite extremes (finite values are unchanged): one
            # where, for the NaNs
            r = U.minimum(U.maximum(d, _cast_fill(minf, d.dtype)), _cast_fill(maxf, d.dtype))
            d[...] = _where(U.isnan(d), _cast_fill(nan, d.dtype), r)
            continue
        r = _where(U.isnan(d), _cast_fill(nan, d.dtype), d)
        r = _where(U.isinf(d) & ~U.signbit(d), _cast_fill(maxf, d.dtype), r)
        r = _where(U.isinf(d) & U.signbit(d), _cast_fill(minf, d.dtype), r)
        d[...] = r
    return xa[()] if isscalar else xa


def _cast_fill(v, dt):
    """copyto's same_kind cast of a fill value into dtype dt (a weak Python scalar converts as
    NumPy converts it, overflow to inf included)."""
    if isinstance(v, ndarray):
        return v.astype(dt)
    n = _np.empty(0, dt)
    _np.copyto(n, v, casting="same_kind")       # NumPy's casting error, if any
    return _np.asarray(v).astype(dt)[()] if not isinstance(v, (int, float, complex)) or \
        isinstance(v, bool) else dt.type(v)


def real_if_close(a, tol=100):
    a = _asarray(a)
    if a.dtype.kind != "c":
        return a
    if tol > 1:
        tol = _np.finfo(a.dtype).eps * tol
    if builtins.bool(U.less(U.absolute(a.imag), tol).all()):
        a = a.real
    return a


def angle(z, deg=False):
    z = _asarray(z)
    if z.dtype.kind == "c":
        zimag, zreal = z.imag, z.real
    else:
        zimag, zreal = 0, z
    a = U.arctan2(zimag, zreal)
    if deg:
        a = U.multiply(a, 180 / _np.pi)
    return a


def sinc(x):
    x = _asarray(x)
    x = U.multiply(_np.pi, x)
    xd = x.dtype if isinstance(x, ndarray) else _np.asarray(x).dtype
    eps = _np.finfo(xd).eps if xd.kind == "f" else 1e-20
    y = _where(x, x, eps)
    return U.true_divide(U.sin(y), y)


def _chbevl(x, vals):
    b0 = vals[0]
    b1 = 0.0
    for i in range(1, len(vals)):
        b2 = b1
        b1 = b0
        b0 = x * b1 - b2 + vals[i]
    return 0.5 * (b0 - b2)


def i0(x):
    x = _asarray(x)
    if x.dtype.kind == "c":
        raise TypeError("i0 not supported for complex values")
    if x.dtype.kind != "f":
        x = x.astype(float)
    x = U.absolute(x)
    if not isinstance(x, ndarray) or x.ndim == 0:
        # piecewise computes on x[cond], a 1-d array (its warnings say 'divide', not 'scalar
        # divide'), and returns a 0-d array
        return i0(_asarray(x).reshape(1)).reshape(())
    from numpy.lib import _function_base_impl as fb    # the Cephes coefficients (constants)
    small = U.less_equal(x, 8.0)
    # piecewise: each branch sees its own elements (a harmless stand-in elsewhere, so that the
    # branch not taken raises no floating-point warning)
    x1 = _where(small, x, 0.0)
    x2 = _where(small, 9.0, x)
    r1 = U.exp(x1) * _chbevl(x1 / 2.0 - 2, fb._i0A)
    r2 = U.exp(x2) * _chbevl(32.0 / x2 - 2.0, fb._i0B) / U.sqrt(x2)
    r = _where(small, r1, r2)
    return r.astype(x.dtype) if r.dtype != x.dtype else r


def _conjugate(self, out=None):
    if self.dtype.kind == "c":
        return U.conjugate(self, out=out) if out is not None else U.conjugate(self)
    if out is not None:
        out[...] = self
        return out
    return self


# ---- trace, bits, bytes -------------------------------------------------------------------------

_TRACE_SLICES = 256   # most diagonal elements a partitioned n-d trace copies slice by slice


def _diagonal_copy(a, diag, offset, axis1, axis2):
    """The diagonal `diag` of a partitioned n-d array as a new array laid out in diag's memory
    order (so that its reduction walks the elements in the order NumPy's walks the view), filled
    by one slice assignment per diagonal element: each moves only that slice's elements to their
    new owners, where reading the view itself (through the flat alias) gathers the array."""
    from ._ndarray import _memory_perm
    nd = diag.ndim
    perm = _memory_perm(diag)
    inv = [0] * nd
    for i, p in enumerate(perm):
        inv[p] = i
    d = _core.transpose(_core.empty(tuple(diag.shape[p] for p in perm), diag.dtype, None, True),
                        tuple(inv))
    a1 = axis1 % a.ndim
    a2 = axis2 % a.ndim
    i1, i2 = max(0, -offset), max(0, offset)
    for k in range(diag.shape[-1]):
        key = [slice(None)] * a.ndim
        key[a1], key[a2] = i1 + k, i2 + k
        d[..., k] = a[tuple(key)]
    return d


def trace(a, offset=0, axis1=0, axis2=1, dtype=None, out=None):
    """NumPy's PyArray_Trace: add.reduce of the diagonal along its last axis.  The diagonal of a
    partitioned n-d array is copied out slice by slice first (_diagonal_copy); a 2-d one's full
    reduction reduces each rank's elements where they lie (dist.c)."""
    if (type(a) is ndarray and a.ndim == 2 and type(offset) is int and type(axis1) is int
            and type(axis2) is int and axis1 in (0, -2) and axis2 in (1, -1) and dtype is None
            and out is None):
        # a matrix's: its diagonal view's full reduction in one C call (3.2 -> 1.3 us for 32 x
        # 31; NumPy 1.3), None where that declines (empty) and the general way answers
        r = _core.full_reduce(_core.diagonal(a, offset, 0, 1), "add")
        if r is not None:
            return r
    from ._views import diagonal
    a = _asarray(a)
    if any(isinstance(x, float) for x in (offset, axis1, axis2)):
        raise TypeError("integer argument expected, got float")   # NumPy's argument parsing
    diag = diagonal(a, offset, axis1, axis2)
    if a.ndim > 2 and 0 < diag.shape[-1] <= _TRACE_SLICES and _core._tiling(a)["tiled"]:
        diag = _diagonal_copy(a, diag, operator.index(offset), axis1, axis2)
    return diag.sum(-1, dtype=dtype, out=out)


def _method_trace(self, offset=0, axis1=0, axis2=1, dtype=None, out=None):
    return trace(self, offset, axis1, axis2, dtype, out)


def _stand_in(a):
    """A zero-size NumPy array of a's dtype and ndim: NumPy's argument checks, nothing else."""
    return _np.empty((0,) * a.ndim if a.ndim else (), dtype=a.dtype)


def _along(ndim, axis, sl):
    return (slice(None),) * axis + (sl,) + (slice(None),) * (ndim - axis - 1)


def packbits(a, /, axis=None, bitorder="big"):
    """numpy.packbits: bit b of each output byte (b = 0 the highest for bitorder 'big') is the
    truth of a[b::8] along the axis, so the result is 8 element-wise ops on strided views,
    ORed into it (the shorter slices into its leading part: the last byte's missing bits stay 0).
    Under MPI the slices lie where the result does: only the 8-element groups that straddle a
    tile boundary move."""
    a = _asarray(a)
    _np.packbits(_stand_in(a), axis=axis, bitorder=bitorder)   # NumPy's errors
    if axis is None:
        if a.ndim > 1:   # one copy of the flattened array (a gather under MPI), not 8 reads
            a = a.reshape(-1).copy()
        a, axis = a.reshape(-1), 0
    axis = normalize_axis_index(axis, a.ndim)
    n = a.shape[axis]
    k = -(-n // 8)
    shape = a.shape[:axis] + (k,) + a.shape[axis + 1:]
    big = bitorder[0] in "bB"
    r = None
    for b in range(min(n, 8)):
        m = (n - b + 7) // 8
        bit = U.not_equal(a[_along(a.ndim, axis, slice(b, None, 8))], False if a.dtype.kind == "b" else 0)
        bit = U.left_shift(bit.astype(_np.uint8), _np.uint8(7 - b if big else b))
        if r is None:
            r = bit    # a new array, tiled like a[0::8]
        else:
            part = r[_along(a.ndim, axis, slice(0, m))]
            _core.assign(part, U.bitwise_or(part, bit))
    if r is None:
        r = _cp().zeros(shape, _np.uint8)
    return r


def unpackbits(a, /, axis=None, count=None, bitorder="big"):
    """numpy.unpackbits: out[b::8] along the axis is bit b of each byte (b = 0 the highest for
    bitorder 'big'), 8 element-wise ops into strided views of the result (count: fewer, or
    zeros after); owner computes, only the groups that straddle a tile boundary move."""
    a = _asarray(a)
    _np.unpackbits(_np.zeros(a.shape if a.size < 64 else (1,) * a.ndim, dtype=a.dtype),
                   axis=axis, count=count, bitorder=bitorder)   # NumPy's errors
    if axis is None:
        a, axis = a.reshape(-1), 0
    axis = normalize_axis_index(axis, a.ndim)
    n = a.shape[axis] * 8
    m = n
    if count is not None:
        count = operator.index(count)
        m = count if count >= 0 else n + count
        if m < 0:
            raise ValueError("-count larger than number of elements")
    shape = a.shape[:axis] + (m,) + a.shape[axis + 1:]
    big = bitorder[0] in "bB"
    # laid out like a where a's tiles leave the axis whole (a tile's bits are its own bytes')
    t = _core._tiling(a)
    like = a if t["tiled"] and len(t["grid"]) == a.ndim and t["grid"][axis] == 1 else None
    r = _core.empty(shape, _np.dtype(_np.uint8), like)
    for b in range(min(m, 8)):
        cnt = min((m - b + 7) // 8, a.shape[axis])
        src = a[_along(a.ndim, axis, slice(0, cnt))]
        bit = U.bitwise_and(U.right_shift(src, _np.uint8(7 - b if big else b)), _np.uint8(1))
        _core.assign(r[_along(a.ndim, axis, slice(b, 8 * cnt, 8))], bit)
    if m > n:
        _core.assign(r[_along(a.ndim, axis, slice(n, None))], 0)
    return r


_MASKS = {2: (0x00FF,), 4: (0x00FF00FF, 0x0000FFFF),
          8: (0x00FF00FF00FF00FF, 0x0000FFFF0000FFFF, 0x00000000FFFFFFFF)}


def _swapped_uint(u, size):
    """The bytes of the unsigned integers u (itemsize `size`) in reverse order: log2(size) steps,
    each exchanging neighbouring groups of 8, 16, 32 bits by shifts and masks (element-wise ops
    of one fused chain)."""
    t = u.dtype.type
    for k, m in enumerate(_MASKS[size]):
        sh, m = t(8 << k), t(m)
        u = U.bitwise_or(U.left_shift(U.bitwise_and(u, m), sh),
                         U.bitwise_and(U.right_shift(u, sh), m))
    return u


def _byteswap(self, inplace=False):
    """ndarray.byteswap, element-wise for every dtype: each element's bits seen as the unsigned
    integer of its size (the bit view _core.bits, of each component of a complex array, as NumPy
    swaps the real and imaginary parts each), their bytes reversed into the same kind of view of
    the result (self when in place), which is laid out as NumPy's copy (order 'A').  Owner
    computes: a rank reverses the bytes of its own tile."""
    if inplace:
        out = self
    else:
        from ._joins import _empty_as
        out = _empty_as(self.shape, self.dtype, self)
    if self.dtype.kind == "c":
        pairs = [(_core.component(self, p), _core.component(out, p)) for p in (1, 2)]
    else:
        pairs = [(self, out)]
    for src, dst in pairs:
        size = src.itemsize
        if size == 1:
            if dst is not src:
                _core.assign(dst, src)
            continue
        _core.assign(_core.bits(dst), _swapped_uint(_core.bits(src), size))
    return out


def astype(x, dtype, /, *, copy=True, device=None):
    """numpy.astype: the method (a cast op; copy=False keeps x when the dtype is x's)."""
    if not isinstance(x, ndarray):
        return _np.astype(x, dtype, copy=copy, device=device)   # NumPy's TypeError
    _np.astype(_np.empty(0, x.dtype), dtype, copy=copy, device=device)   # NumPy's errors
    return x.astype(dtype, copy=copy)


def isfortran(a):
    """numpy.isfortran: Fortran-contiguous and not C-contiguous (flags.fnc)."""
    if not isinstance(a, ndarray):
        return _np.isfortran(a)
    return a.flags.fnc


NAMES = ("clip round around fix isclose allclose array_equal array_equiv isposinf isneginf "
         "iscomplexobj isrealobj iscomplex isreal asarray_chkfinite nan_to_num real_if_close "
         "angle sinc i0 trace packbits unpackbits astype isfortran").split()


def install(cls, namespace, implemented):
    """The functions of this module, cupynum/_construct.py and cupynum/_calculus.py into
    cupynum's namespace and __array_function__'s table (a foreign NumPy array argument -- a
    subclass, a dtype cupynum lacks -- goes to NumPy); ndarray's methods."""
    import importlib
    for modname in ("_helpers", "_construct", "_calculus", "_files"):
        try:
            mod = importlib.import_module("cupynum." + modname)
        except ModuleNotFoundError:
            continue
        g = vars(mod)
        for n in mod.NAMES:
            npf = getattr(_np, n, None)
            if npf is None:         # a name a later NumPy dropped: ours stays
                namespace[n] = g[n]
                continue
            f = _fallback.numpy_for_foreign(npf)(g[n])
            namespace[n] = f
            implemented[npf] = f
    from . import _construct
    cls.clip = _method_clip
    cls.trace = _method_trace
    cls.byteswap = _byteswap
    namespace["mgrid"] = _construct.mgrid
    namespace["ogrid"] = _construct.ogrid
    from . import _files, _construct
    _files.install_methods(cls)
    _core._set_ndarray_new(_construct._ndarray_new)
    cls.round = _method_round
    cls.conj = _conjugate
    cls.conjugate = _conjugate
