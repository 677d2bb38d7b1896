"""NumPy's small calculus and polynomials over cupynum's native operations (issue #20): diff,
ediff1d, gradient, cross, trapezoid, unwrap, cumulative_sum, cumulative_prod, interp (native
searchsorted), convolve and correlate (a sum of shifted slices), polyval, polyadd, polysub,
polymul, polyder, polyint.

Each is NumPy's formula with its operand types and order of operations: differences of slices,
where for the special cases, the native scans (ufunc.accumulate) and reductions.  Joins that
NumPy writes with concatenate (diff's prepend/append, include_initial, interp's period) are
filled slices of one new array.  poly1d arguments go to NumPy (its class is NumPy's, proxied)."""

import operator
import warnings

import numpy as _np
from numpy.lib.array_utils import normalize_axis_index, normalize_axis_tuple

from . import _core, _fallback
from ._core import ndarray
from ._helpers import U, _asarray, _where


def _cp():
    import cupynum
    return cupynum


def _concat(arrays, axis=0):
    """numpy.concatenate of cupynum arrays (same ndim): one new array, each piece assigned."""
    arrays = [_asarray(a) for a in arrays]
    dt = _np.result_type(*[a.dtype for a in arrays])
    shape = list(arrays[0].shape)
    shape[axis] = sum(a.shape[axis] for a in arrays)
    out = _cp().empty(tuple(shape), dt)
    pos = 0
    for a in arrays:
        n = a.shape[axis]
        if n:
            out[(slice(None),) * axis + (slice(pos, pos + n),)] = a
        pos += n
    return out


def _sl(nd, axis, s):
    key = [slice(None)] * nd
    key[axis] = s
    return tuple(key)


# ---- differences --------------------------------------------------------------------------------

def diff(a, n=1, axis=-1, prepend=_np._NoValue, append=_np._NoValue):
    if n == 0:
        return a
    if n < 0:
        raise ValueError("order must be non-negative but got " + repr(n))
    a = _asarray(a)
    nd = a.ndim
    if nd == 0:
        raise ValueError("diff requires input that is at least one dimensional")
    axis = normalize_axis_index(axis, nd)
    combined = []
    for extra, first in ((prepend, True), (append, False)):
        if extra is _np._NoValue:
            continue
        extra = _asarray(extra)
        if extra.ndim == 0:
            shape = list(a.shape)
            shape[axis] = 1
            extra = _cp().broadcast_to(extra, tuple(shape))
        elif extra.ndim != nd or any(s != t for i, (s, t) in enumerate(zip(extra.shape, a.shape))
                                     if i != axis):
            _np.concatenate([_np.empty(extra.shape, extra.dtype), _np.empty(a.shape, a.dtype)],
                            axis)                                    # NumPy's error
        combined.append((first, extra))
    if combined:
        a = _concat([e for f, e in combined if f] + [a] + [e for f, e in combined if not f], axis)
    s1, s2 = _sl(nd, axis, slice(1, None)), _sl(nd, axis, slice(None, -1))
    op = U.not_equal if a.dtype == _np.bool_ else U.subtract
    for _ in range(n):
        a = op(a[s1], a[s2])
    return a


def ediff1d(ary, to_end=None, to_begin=None):
    ary = _asarray(ary).reshape(-1)
    dtype_req = ary.dtype
    if to_begin is None and to_end is None:
        return U.subtract(ary[1:], ary[:-1])
    pieces = []
    for name, v in (("to_begin", to_begin), ("to_end", to_end)):
        if v is None:
            pieces.append(None)
            continue
        va = v if isinstance(v, ndarray) else _np.asanyarray(v)
        if not _np.can_cast(va.dtype if isinstance(va, ndarray) else va, dtype_req,
                            casting="same_kind"):
            raise TypeError(f"dtype of `{name}` must be compatible with input `ary` under the "
                            f"`same_kind` rule.")
        pieces.append(_asarray(va).reshape(-1))
    begin, end = pieces
    l_begin = 0 if begin is None else begin.shape[0]
    l_end = 0 if end is None else end.shape[0]
    l_diff = max(ary.shape[0] - 1, 0)
    result = _cp().empty(l_diff + l_begin + l_end, dtype_req)
    if l_begin > 0:
        result[:l_begin] = begin
    if l_end > 0:
        result[l_begin + l_diff:] = end
    if l_diff:
        result[l_begin:l_begin + l_diff] = U.subtract(ary[1:], ary[:-1])
    return result


def gradient(f, *varargs, axis=None, edge_order=1):
    cp = _cp()
    f = _asarray(f)
    N = f.ndim
    axes = tuple(range(N)) if axis is None else normalize_axis_tuple(axis, N)
    len_axes = len(axes)
    n = len(varargs)
    if n == 0:
        dx = [1.0] * len_axes
    elif n == 1 and _np.ndim(varargs[0]) == 0:
        dx = list(varargs) * len_axes
    elif n == len_axes:
        dx = list(varargs)
        for i, distances in enumerate(dx):
            if _np.ndim(distances) == 0:
                continue
            distances = _asarray(distances)
            if distances.ndim != 1:
                raise ValueError("distances must be either scalars or 1d")
            if len(distances) != f.shape[axes[i]]:
                raise ValueError("when 1d, distances must match the length of the corresponding "
                                 "dimension")
            if distances.dtype.kind in "iu":
                distances = distances.astype(_np.float64)
            diffx = diff(distances)
            if bool(U.equal(diffx, diffx[0]).all()):
                diffx = diffx[0]
            dx[i] = diffx
    else:
        raise TypeError("invalid number of arguments")
    if edge_order > 2:
        raise ValueError("'edge_order' greater than 2 not supported")
    otype = f.dtype
    if otype.kind not in "fc":
        if otype.kind in "iu":
            f = f.astype(_np.float64)
        otype = _np.dtype(_np.float64)
    outvals = []
    for ax, ax_dx in zip(axes, dx):
        if f.shape[ax] < edge_order + 1:
            raise ValueError("Shape of array too small to calculate a numerical gradient, at "
                             "least (edge_order + 1) elements are required.")
        out = cp.empty(f.shape, dtype=otype)
        uniform = _np.ndim(ax_dx) == 0

        def S(s, ax=ax):
            return _sl(N, ax, s)
        if uniform:
            out[S(slice(1, -1))] = (f[S(slice(2, None))] - f[S(slice(None, -2))]) / (2.0 * ax_dx)
        else:
            dx1 = ax_dx[0:-1]
            dx2 = ax_dx[1:]
            a = -dx2 / (dx1 * (dx1 + dx2))
            b = (dx2 - dx1) / (dx1 * dx2)
            c = dx1 / (dx2 * (dx1 + dx2))
            shape = [1] * N
            shape[ax] = -1
            a, b, c = a.reshape(shape), b.reshape(shape), c.reshape(shape)
            out[S(slice(1, -1))] = a * f[S(slice(None, -2))] + b * f[S(slice(1, -1))] + \
                c * f[S(slice(2, None))]
        if edge_order == 1:
            dx_0 = ax_dx if uniform else ax_dx[0]
            out[S(0)] = (f[S(1)] - f[S(0)]) / dx_0
            dx_n = ax_dx if uniform else ax_dx[-1]
            out[S(-1)] = (f[S(-1)] - f[S(-2)]) / dx_n
        else:
            if uniform:
                a, b, c = -1.5 / ax_dx, 2.0 / ax_dx, -0.5 / ax_dx
            else:
                dx1, dx2 = ax_dx[0], ax_dx[1]
                a = -(2.0 * dx1 + dx2) / (dx1 * (dx1 + dx2))
                b = (dx1 + dx2) / (dx1 * dx2)
                c = -dx1 / (dx2 * (dx1 + dx2))
            out[S(0)] = a * f[S(0)] + b * f[S(1)] + c * f[S(2)]
            if uniform:
                a, b, c = 0.5 / ax_dx, -2.0 / ax_dx, 1.5 / ax_dx
            else:
                dx1, dx2 = ax_dx[-2], ax_dx[-1]
                a = dx2 / (dx1 * (dx1 + dx2))
                b = -(dx2 + dx1) / (dx1 * dx2)
                c = (2.0 * dx2 + dx1) / (dx2 * (dx1 + dx2))
            out[S(-1)] = a * f[S(-3)] + b * f[S(-2)] + c * f[S(-1)]
        outvals.append(out)
    if len_axes == 1:
        return outvals[0]
    return tuple(outvals)


def trapezoid(y, x=None, dx=1.0, axis=-1):
    y = _asarray(y)
    if x is None:
        d = dx
    else:
        x = _asarray(x)
        if x.ndim == 1:
            d = diff(x)
            shape = [1] * y.ndim
            shape[axis] = d.shape[0]
            d = d.reshape(shape)
        else:
            d = diff(x, axis=axis)
    nd = y.ndim
    s1, s2 = _sl(nd, axis, slice(1, None)), _sl(nd, axis, slice(None, -1))
    r = U.true_divide(U.multiply(d, U.add(y[s1], y[s2])), 2.0)
    return r.sum(axis) if isinstance(r, ndarray) else _np.add.reduce(r, axis)


def unwrap(p, discont=None, axis=-1, *, period=2 * _np.pi):
    p = _asarray(p)
    nd = p.ndim
    dd = diff(p, axis=axis)
    if discont is None:
        discont = period / 2
    s1 = _sl(nd, axis, slice(1, None))
    dtype = _np.result_type(dd.dtype, period)
    if dtype.kind in "iu":
        interval_high, rem = divmod(period, 2)
        boundary_ambiguous = rem == 0
    else:
        interval_high = period / 2
        boundary_ambiguous = True
    interval_low = -interval_high
    ddmod = U.add(U.remainder(U.subtract(dd, interval_low), period), interval_low)
    if boundary_ambiguous:
        fill = _np.asarray(interval_high).astype(ddmod.dtype)[()]   # copyto's same_kind cast
        ddmod = _where(U.equal(ddmod, interval_low) & U.greater(dd, 0), fill, ddmod)
    ph_correct = U.subtract(ddmod, dd)
    ph_correct = _where(U.less(U.absolute(dd), discont), ph_correct.dtype.type(0), ph_correct)
    up = _cp().array(p, copy=True, dtype=dtype)
    up[s1] = U.add(p[s1], ph_correct.cumsum(axis))
    return up


def _cumulative(x, func, axis, dtype, out, include_initial):
    cp = _cp()
    x = cp.atleast_1d(_asarray(x))
    x_ndim = x.ndim
    if axis is None:
        if x_ndim >= 2:
            raise ValueError("For arrays which have more than one dimension ``axis`` argument "
                             "is required.")
        axis = 0
    axis = normalize_axis_index(axis, x_ndim)
    to = _np.dtype(dtype) if dtype is not None else out.dtype if out is not None else None
    if x.dtype.kind == "c" and to is not None and to.kind != "c":
        warnings.warn("Casting complex values to real discards the imaginary part",
                      _np.exceptions.ComplexWarning, stacklevel=3)
    if out is not None and include_initial:
        func.accumulate(x, axis=axis, dtype=dtype, out=out[_sl(x_ndim, axis, slice(1, None))])
        out[_sl(x_ndim, axis, 0)] = func.identity
        return out
    res = func.accumulate(x, axis=axis, dtype=dtype, out=out) if out is not None else \
        func.accumulate(x, axis=axis, dtype=dtype)
    if include_initial:
        shape = list(x.shape)
        shape[axis] = 1
        res = _concat([cp.full(tuple(shape), func.identity, dtype=res.dtype), res], axis)
    return res


def cumulative_sum(x, /, *, axis=None, dtype=None, out=None, include_initial=False):
    return _cumulative(x, U.add, axis, dtype, out, include_initial)


def cumulative_prod(x, /, *, axis=None, dtype=None, out=None, include_initial=False):
    return _cumulative(x, U.multiply, axis, dtype, out, include_initial)


def cross(a, b, axisa=-1, axisb=-1, axisc=-1, axis=None):
    cp = _cp()
    if axis is not None:
        axisa, axisb, axisc = (axis,) * 3
    a = _asarray(a)
    b = _asarray(b)
    if a.ndim < 1 or b.ndim < 1:
        raise ValueError("At least one array has zero dimension")
    axisa = normalize_axis_index(axisa, a.ndim, msg_prefix="axisa")
    axisb = normalize_axis_index(axisb, b.ndim, msg_prefix="axisb")
    a = cp.moveaxis(a, axisa, -1)
    b = cp.moveaxis(b, axisb, -1)
    msg = "incompatible dimensions for cross product\n(dimension must be 2 or 3)"
    if a.shape[-1] not in (2, 3) or b.shape[-1] not in (2, 3):
        raise ValueError(msg)
    if a.shape[-1] == 2 or b.shape[-1] == 2:
        warnings.warn("Arrays of 2-dimensional vectors are deprecated. Use arrays of "
                      "3-dimensional vectors instead. (deprecated in NumPy 2.0)",
                      DeprecationWarning, stacklevel=3)
    shape = _np.broadcast_shapes(a.shape[:-1], b.shape[:-1])
    if a.shape[-1] == 3 or b.shape[-1] == 3:
        shape += (3,)
        axisc = normalize_axis_index(axisc, len(shape), msg_prefix="axisc")
    dtype = _np.promote_types(a.dtype, b.dtype)
    a = a.astype(dtype)
    b = b.astype(dtype)
    a0, a1 = a[..., 0], a[..., 1]
    b0, b1 = b[..., 0], b[..., 1]
    a2 = a[..., 2] if a.shape[-1] == 3 else None
    b2 = b[..., 2] if b.shape[-1] == 3 else None
    if a.shape[-1] == 2 and b.shape[-1] == 2:
        out = cp.empty(shape, dtype)         # a 0-d array for two vectors, as NumPy's
        out[...] = U.subtract(U.multiply(a0, b1), U.multiply(a1, b0))
        return out
    if a.shape[-1] == 2:
        c0 = U.multiply(a1, b2)
        c1 = U.negative(U.multiply(a0, b2))
        c2 = U.subtract(U.multiply(a0, b1), U.multiply(a1, b0))
    elif b.shape[-1] == 3:
        c0 = U.subtract(U.multiply(a1, b2), U.multiply(a2, b1))
        c1 = U.subtract(U.multiply(a2, b0), U.multiply(a0, b2))
        c2 = U.subtract(U.multiply(a0, b1), U.multiply(a1, b0))
    else:
        c0 = U.negative(U.multiply(a2, b1))
        c1 = U.multiply(a2, b0)
        c2 = U.subtract(U.multiply(a0, b1), U.multiply(a1, b0))
    out = cp.empty(shape, dtype)
    out[..., 0] = c0
    out[..., 1] = c1
    out[..., 2] = c2
    return cp.moveaxis(out, -1, axisc)


# ---- interpolation ------------------------------------------------------------------------------

def _interp_part(x, j, xp, fp, lval, rval, lenxp, inverse=False):
    """compiled_base.c's arr_interp over one real part: j = searchsorted(xp, x, 'right') - 1;
    below the first point lval, above the last rval, on a point its value, else the slope from
    the left point (from the right one where that gives NaN; the point's value where both do and
    the values agree)."""
    from ._selection import take
    if lenxp == 1:
        r = _where(U.greater(x, xp[0:1]), rval, fp[0:1])
        return _where(U.less(x, xp[0:1]), lval, r)
    jc = U.minimum(U.maximum(j, 0), lenxp - 2)
    if _core._tiling(xp)["tiled"] or _core._tiling(fp)["tiled"]:
        # each segment's ends as one complex128 element, (xp[i], xp[i+1]) and (fp[i], fp[i+1])
        # laid out like xp (a boundary element moves to build them): a point reads two routed
        # elements (8 bytes out, 16 back each), not four (64 bytes), and its ends are the
        # gathered elements' real and imaginary views
        ends = []
        for t in (xp, fp):
            e = _core.empty((lenxp - 1,), _np.complex128, t[:-1], True)
            e.real[...] = t[:-1]
            e.imag[...] = t[1:]
            ends.append(take(e, jc))
        x0, x1, y0, y1 = ends[0].real, ends[0].imag, ends[1].real, ends[1].imag
    else:
        x0, x1 = take(xp, jc), take(xp, U.add(jc, 1))
        y0, y1 = take(fp, jc), take(fp, U.add(jc, 1))
    with _np.errstate(all="ignore"):          # NumPy's C loop checks no floating-point flags
        if inverse:   # arr_interp_complex: each part's difference times 1 / dx
            slope = U.multiply(U.subtract(y1, y0), U.true_divide(1.0, U.subtract(x1, x0)))
        else:
            slope = U.true_divide(U.subtract(y1, y0), U.subtract(x1, x0))
        d = U.add(U.multiply(slope, U.subtract(x, x0)), y0)
        d2 = U.add(U.multiply(slope, U.subtract(x, x1)), y1)
        d = _where(U.isnan(d), _where(U.isnan(d2) & U.equal(y0, y1), y0, d2), d)
        d = _where(U.equal(x0, x), y0, d)
        d = _where(U.equal(j, lenxp - 1), fp[lenxp - 1:], d)
        d = _where(U.greater(x, xp[lenxp - 1:]), rval, d)
        d = _where(U.less(x, xp[0:1]), lval, d)     # as the C loop: x < xp[0] (false for NaN)
        return _where(U.isnan(x), x, d)


def _interp_table(xpa, fpa, nx):
    """xp and fp held whole on every rank (one allgather of each: a rank sends its part of the
    table to the others) when that moves less than searching each query point in the table's
    tiles and reading its four neighbours from them (about ten words per point): every rank then
    searches and reads for its own points where they lie, moving nothing more."""
    ranks = _core.runtime_info()["ranks"]
    # a routed point costs about 8 words (a complex fp's two parts: 14); a table entry sent to
    # every other rank 2 (complex: 3), and the measured break-even is lower for complex tables
    factor = 1 if fpa.dtype.kind == "c" else 3
    if ranks == 1 or xpa.shape[0] * (ranks - 1) > factor * nx or not (
            _core._tiling(xpa)["tiled"] or _core._tiling(fpa)["tiled"]):
        return xpa, fpa
    out = []
    for t in (xpa, fpa):
        r = _core.empty_replicated(t.shape, t.dtype)
        r[...] = t
        out.append(r)
    return out


def interp(x, xp, fp, left=None, right=None, period=None):
    if period is None:
        # NumPy's loop in C on float64 arrays held whole here (fastpath.c), else None
        r = _core.interp_fast(x, xp, fp, left, right)
        if r is not None:
            return r
    from ._sorting import argsort
    from ._selection import take
    fpa = fp if isinstance(fp, ndarray) else _np.asarray(fp)
    complex_fp = fpa.dtype.kind == "c"
    input_dtype = _np.complex128 if complex_fp else _np.float64
    scalar = _np.ndim(x) == 0
    xa = _asarray(x).astype(_np.float64) if not (isinstance(x, ndarray) and
                                                x.dtype == _np.float64) else x
    xpa = _asarray(xp, dtype=None).astype(_np.float64)
    fpa = _asarray(fpa).astype(input_dtype)
    if period is not None:
        if period == 0:
            raise ValueError("period must be a non-zero value")
        period = abs(period)
        left = None
        right = None
        if xpa.ndim != 1 or fpa.ndim != 1:
            raise ValueError("Data points must be 1-D sequences")
        if xpa.shape[0] != fpa.shape[0]:
            raise ValueError("fp and xp are not of the same length")
        xa = _asarray(U.remainder(xa, period))     # a 0-d result comes back as a scalar
        xpa = U.remainder(xpa, period)
        order = argsort(xpa)
        xpa = take(xpa, order)
        fpa = take(fpa, order)
        xpa = _concat((U.subtract(xpa[-1:], period), xpa, U.add(xpa[0:1], period)))
        fpa = _concat((fpa[-1:], fpa, fpa[0:1]))
    if xpa.ndim != 1 or fpa.ndim != 1 or xpa.shape[0] == 0 or xpa.shape[0] != fpa.shape[0]:
        stand = _np.broadcast_to(_np.zeros((), _np.float64), xpa.shape)
        _np.interp(_np.zeros(0), stand, _np.broadcast_to(_np.zeros((), input_dtype), fpa.shape))
        raise ValueError("fp and xp are not of the same length.")
    lenxp = xpa.shape[0]
    xpa, fpa = _interp_table(xpa, fpa, xa.size)
    j = None
    if lenxp > 1:
        # the runtime's search op on the float64 operands (as _sorting.searchsorted calls it;
        # its dtype resolution would take result_type of the arrays themselves)
        xf = xa.reshape(-1) if xa.ndim != 1 else xa
        j = _core.searchsorted(xpa, xf, None, True, False)
        j = U.subtract(j if xa.ndim == 1 else j.reshape(xa.shape), 1)

    def bound(v, default):
        if v is None:
            return default
        if not complex_fp and isinstance(v, (str, bytes, bytearray)):   # PyFloat_AsDouble's
            raise TypeError(f"must be real number, not {type(v).__name__}")
        return complex(v) if complex_fp else float(v)
    if complex_fp:
        parts = []
        for part in ("real", "imag"):
            fpp = getattr(fpa, part)
            lv = bound(left, fpp[0:1])
            rv = bound(right, fpp[lenxp - 1:])
            if isinstance(lv, complex):
                lv = getattr(lv, part)
            if isinstance(rv, complex):
                rv = getattr(rv, part)
            parts.append(_interp_part(xa, j, xpa, fpp, lv, rv, lenxp, True))
        r = _cp().empty(_np.shape(parts[0]) if isinstance(parts[0], ndarray) else (),
                        _np.complex128)
        r.real[...] = parts[0]
        r.imag[...] = parts[1]
    else:
        r = _interp_part(xa, j, xpa, fpa, bound(left, fpa[0:1]), bound(right, fpa[lenxp - 1:]),
                         lenxp)
    if isinstance(r, ndarray) and r.shape != xa.shape:
        r = r.reshape(xa.shape)
    return r[()] if scalar and isinstance(r, ndarray) else r


# ---- convolution --------------------------------------------------------------------------------

def _mode(mode):
    """PyArray_CorrelatemodeConverter: 'valid', 'same', 'full' or 0, 1, 2."""
    if isinstance(mode, str):
        m = _MODES.get(mode)
        if m is None:
            if mode[:1].lower() not in ("v", "s", "f"):   # NumPy 2.4's two messages
                raise ValueError(f"mode must be one of 'valid', 'same', or 'full' (got {mode!r})")
            raise ValueError("Use one of 'valid', 'same', or 'full' for convolve/correlate mode")
        return m
    try:
        m = operator.index(mode)
    except TypeError:
        raise TypeError("convolve/correlate mode not understood") from None
    if m not in (0, 1, 2):
        raise ValueError("integer convolve/correlate mode must be 0, 1, or 2")
    return m


def _correlate(a, v, mode):
    """multiarray.correlate2's _pyarray_correlate: the longer operand first (inverted: the
    result reversed); each output a sum over the overlap in ascending order from 0 (NumPy's
    dot of the overlap), here one shifted slice per kernel element."""
    cp = _cp()
    m = _mode(mode)
    dt = _np.result_type(a.dtype, v.dtype)
    a = a.astype(dt) if a.dtype != dt else a
    v = v.astype(dt) if v.dtype != dt else v
    if dt.char in "fdFD":
        r = _core.correlate_fast(a, v, m)   # NumPy's dots in C on untiled vectors, else None
        if r is not None:
            return r
    inverted = a.shape[0] < v.shape[0]
    if inverted:
        a, v = v, a
    n1, n2 = a.shape[0], v.shape[0]
    acc_dt = _np.dtype(_np.float32) if dt == _np.float16 else dt     # HALF_dot sums in float
    full = cp.zeros(n1 + n2 - 1, acc_dt)
    aa = a.astype(acc_dt) if acc_dt != dt else a
    va = v.astype(acc_dt) if acc_dt != dt else v
    for j in range(n2):
        seg = full[n2 - 1 - j:n1 + n2 - 1 - j]
        if dt == _np.bool_:
            seg[...] = U.logical_or(seg, U.logical_and(aa, va[j]))
        else:
            seg[...] = U.add(seg, U.multiply(aa, va[j:j + 1]))
    if m == 0:
        r = full[n2 - 1:n1]
    elif m == 1:
        lo = n2 - 1 - n2 // 2
        r = full[lo:lo + n1]
    else:
        r = full
    if inverted:
        r = r[::-1]
    r = r.astype(dt) if acc_dt != dt else r.copy() if r is not full else r
    return r


_MODES = {"valid": 0, "same": 1, "full": 2}


def _fast_pair(a, v, mode):
    """The mode number where correlate_fast may answer for cupynum vectors a and v of one float
    or complex dtype (NumPy's checks pass for them), else None."""
    if (type(a) is ndarray and type(v) is ndarray and a.ndim == 1 and v.ndim == 1 and
            a.dtype == v.dtype and a.dtype.char in "fdFD" and a.shape[0] and v.shape[0]):
        if type(mode) is str:
            return _MODES.get(mode)
        return mode if type(mode) is int and 0 <= mode <= 2 else None
    return None


def correlate(a, v, mode="valid"):
    m = _fast_pair(a, v, mode)
    if m is not None:
        r = _core.correlate_fast(a, v, m, True)   # NumPy's dots in C on untiled vectors (v
        if r is not None:                         # conjugated there), else None
            return r
    a, v = _asarray(a), _asarray(v)
    if a.ndim != 1 or v.ndim != 1 or a.shape[0] == 0 or v.shape[0] == 0:
        _np.correlate(_np.broadcast_to(_np.zeros((), a.dtype), a.shape),
                      _np.broadcast_to(_np.zeros((), v.dtype), v.shape), mode)   # NumPy's error
    if v.dtype.kind == "c":
        v = U.conjugate(v)
    return _correlate(a, v, mode)


def convolve(a, v, mode="full"):
    m = _fast_pair(a, v, mode)
    if m is not None:
        if v.shape[0] > a.shape[0]:
            a, v = v, a
        r = _core.correlate_fast(a, v[::-1], m)
        if r is not None:
            return r
    a, v = _cp().array(a, copy=None, ndmin=1), _cp().array(v, copy=None, ndmin=1)
    if len(a) == 0:
        raise ValueError("a cannot be empty")
    if len(v) == 0:
        raise ValueError("v cannot be empty")
    if a.ndim != 1 or v.ndim != 1:
        _np.convolve(_np.broadcast_to(_np.zeros((), a.dtype), a.shape),
                     _np.broadcast_to(_np.zeros((), v.dtype), v.shape), mode)    # NumPy's error
    if len(v) > len(a):
        a, v = v, a
    return _correlate(a, v[::-1], mode)


# ---- polynomials --------------------------------------------------------------------------------

def _is_poly(*xs):
    cp = _cp()
    return any(isinstance(x, (_np.poly1d, cp.poly1d)) for x in xs)


def polyval(p, x):
    if _is_poly(p, x):
        return _fallback.compute(_np.polyval, (p, x))
    p = _asarray(p)
    x = _asarray(x)
    y = _cp().zeros_like(x)
    for i in range(p.shape[0] if p.ndim else 0):
        y = U.add(U.multiply(y, x), p[i, ...])
    if p.ndim == 0:
        raise TypeError("iteration over a 0-d array")
    return y


def _padded_op(op, a1, a2, npf):
    if _is_poly(a1, a2):
        return _fallback.compute(npf, (a1, a2))
    cp = _cp()
    a1 = cp.atleast_1d(_asarray(a1))
    a2 = cp.atleast_1d(_asarray(a2))
    d = len(a2) - len(a1)
    if d > 0:
        a1 = _concat((cp.zeros(d, a1.dtype), a1))
    elif d < 0:
        a2 = _concat((cp.zeros(-d, a2.dtype), a2))
    return op(a1, a2)


def polyadd(a1, a2):
    return _padded_op(U.add, a1, a2, _np.polyadd)


def polysub(a1, a2):
    return _padded_op(U.subtract, a1, a2, _np.polysub)


def _poly_coeffs(c):
    """poly1d(c).coeffs: 1-d, leading zeros trimmed ([0] of c's dtype when all are zero)."""
    c = _cp().atleast_1d(_asarray(c))
    if c.ndim > 1:
        raise ValueError("Polynomial must be 1d only.")
    n = c.shape[0]
    # the first nonzero as a min-reduction (each rank its tile; argmax is gathered under MPI)
    first = int(_where(U.not_equal(c, 0), _cp().arange(n), n).min()) if n else 0
    if first == n:
        return _cp().zeros(1, c.dtype)
    return c[first:] if first else c


def polymul(a1, a2):
    if _is_poly(a1, a2):
        return _fallback.compute(_np.polymul, (a1, a2))
    return convolve(_poly_coeffs(a1), _poly_coeffs(a2))


def polyder(p, m=1):
    if _is_poly(p):
        return _fallback.compute(_np.polyder, (p, m))
    m = int(m)
    if m < 0:
        raise ValueError("Order of derivative must be positive (see polyint)")
    p = _asarray(p)
    n = len(p) - 1
    y = U.multiply(p[:-1], _cp().arange(n, 0, -1))
    return p if m == 0 else polyder(y, m - 1)


def polyint(p, m=1, k=None):
    if _is_poly(p):
        return _fallback.compute(_np.polyint, (p, m, k))
    cp = _cp()
    m = int(m)
    if m < 0:
        raise ValueError("Order of integral must be positive (see polyder)")
    if k is None:
        k = cp.zeros(m, float)
    k = cp.atleast_1d(_asarray(k))
    if len(k) == 1 and m > 1:
        k = U.multiply(k[0, ...], cp.ones(m, float))
    if len(k) < m:
        raise ValueError("k must be a scalar or a rank-1 array of length 1 or >m.")
    p = _asarray(p)
    if m == 0:
        return p
    y = _concat((U.true_divide(p, cp.arange(len(p), 0, -1)), k[0:1]))
    return polyint(y, m - 1, k=k[1:])


def poly(seq_of_zeros):
    """NumPy's poly: a square matrix's eigenvalues or the given zeros, multiplied out one factor
    (1, -zero) at a time by convolve; the zero is read as a 0-d view, never on the host.  A
    complex result whose zeros come in conjugate pairs is returned real, as NumPy's."""
    if _is_poly(seq_of_zeros):
        return _fallback.compute(_np.poly, (seq_of_zeros,))
    cp = _cp()
    z = cp.atleast_1d(_asarray(seq_of_zeros))
    sh = z.shape
    if len(sh) == 2 and sh[0] == sh[1] and sh[0] != 0:
        z = cp.linalg.eigvals(z)
    elif len(sh) == 1:
        dt = _np.dtype(_np.mintypecode(z.dtype.char))
        z = z.astype(dt) if z.dtype != dt else z
    else:
        raise ValueError("input must be 1d or non-empty square 2d array.")
    if len(z) == 0:
        return 1.0
    dt = z.dtype
    a = cp.ones((1,), dtype=dt)
    for k in range(len(z)):
        factor = cp.empty(2, dt)
        factor[0] = 1
        factor[1:] = U.negative(z[k:k + 1])
        a = convolve(a, factor)
    if dt.kind == "c":
        roots = z.astype(_np.complex128) if dt != _np.complex128 else z
        if bool(U.equal(cp.sort(roots), cp.sort(U.conjugate(roots))).all()):
            a = a.real.copy()
    return a


def polydiv(u, v):
    """NumPy's polydiv: long division row by row on cupynum arrays (each quotient coefficient a
    0-d result, nothing read on the host), then the remainder's leading near-zeros dropped."""
    if _is_poly(u, v):
        return _fallback.compute(_np.polydiv, (u, v))
    cp = _cp()
    u = U.add(cp.atleast_1d(_asarray(u)), 0.0)
    v = U.add(cp.atleast_1d(_asarray(v)), 0.0)
    w = _np.result_type(u.dtype, v.dtype)
    m, n = len(u) - 1, len(v) - 1
    scale = U.true_divide(1.0, v[0, ...])
    q = cp.zeros((max(m - n + 1, 1),), w)
    r = u.astype(w)
    for k in range(m - n + 1):
        d = U.multiply(scale, r[k, ...])
        q[k] = d
        r[k:k + n + 1] -= U.multiply(d, v)
    while cp.allclose(r[0], 0, rtol=1e-14) and r.shape[-1] > 1:
        r = r[1:]
    return q, r


NAMES = ("diff ediff1d gradient trapezoid unwrap cumulative_sum cumulative_prod cross interp "
         "correlate convolve polyval polyadd polysub polymul polyder polyint "
         "poly polydiv").split()
