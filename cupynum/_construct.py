"""NumPy's construction functions over cupynum's native operations (issue #20): tri, tril,
triu, diag, diagflat, fill_diagonal, indices, meshgrid, fromfunction, vander, geomspace,
logspace, the tril/triu/diag/mask_indices(_from) family, ravel_multi_index, unravel_index and
the window functions.

Masks are comparisons of broadcast aranges and the selections `where` (element-wise, owner
computes on partitioned arrays); diag(1-d) is a where of a padded vector against the diagonal
mask; index sets are `nonzero` of a mask (NumPy's boolean selection of broadcast indices gives
the same C-ordered pairs); the windows are NumPy's formulas over arange with the same operand
types.  NumPy is used for dtype arithmetic and for error texts only."""

import operator

import numpy as _np

from . import _core, _creation, _fallback
from ._core import ndarray
from ._helpers import U, _asarray, _where, i0


def _cp():
    import cupynum
    return cupynum


# ---- triangles and diagonals --------------------------------------------------------------------

def _tri_mask(N, M=None, k=0, like=None):
    """i >= j - k over (N, M): NumPy's greater_equal.outer of two aranges (laid out like the
    2-d array `like`, so that a where against it moves none of its elements)."""
    N = operator.index(N)
    M = N if M is None else operator.index(M)
    k = operator.index(k)
    if -2 ** 62 < k < 2 ** 62:   # (arange's general path without its argument handling)
        i64 = _np.dtype(_np.int64)
        rows = _core.reshape(_core.arange(max(N, 0), i64, 0, 1), (max(N, 0), 1))
        cols = _core.arange(max(M, 0), i64, -k, 1 - k)
    else:
        cp = _cp()
        rows = cp.arange(N, dtype=_np.int64).reshape(max(N, 0), 1)
        cols = cp.arange(-k, M - k, dtype=_np.int64)
    if like is not None and like.shape == (max(N, 0), max(M, 0)):
        return U.greater_equal(rows, cols, out=_core.empty(like.shape, _np.bool_, like))
    return U.greater_equal(rows, cols)


def tri(N, M=None, k=0, dtype=float, *, like=None):
    if like is not None and not isinstance(like, ndarray):
        return _fallback.compute(_np.tri, (N,), dict(M=M, k=k, dtype=dtype, like=like))
    m = _tri_mask(N, M, k)
    dtype = _np.dtype(dtype)
    return m if dtype == _np.bool_ else m.astype(dtype)


def _trilu(m, k, lower):
    m = _asarray(m)
    if m.ndim < 1:
        _np.tril(_np.zeros(())) if lower else _np.triu(_np.zeros(()))    # NumPy's error
    mask = _tri_mask(*m.shape[-2:], k=k if lower else k - 1, like=m if m.ndim == 2 else None)
    if m.ndim == 2 and m.dtype.kind in "biufc":
        # where's common case (one shape, one dtype) at once: the zero broadcast to m's shape.
        zero = _core.broadcast_to(_core.from_any(_np.zeros((), m.dtype)), m.shape)
        x, y = (m, zero) if lower else (zero, m)
        return _core.select(mask, x, y, _core.empty(m.shape, m.dtype, mask))
    zero = _core.from_any(_np.zeros(1, m.dtype))
    return _where(mask, m, zero) if lower else _where(mask, zero, m)


def tril(m, k=0):
    return _trilu(m, k, True)


def triu(m, k=0):
    return _trilu(m, k, False)


def _diag_from_vector(v, k):
    """The (n, n) array, n = len(v) + |k|, with v on diagonal k and zeros elsewhere: a where of
    the diagonal mask and v padded to n (a column for k >= 0, whose element (i, i+k) is v[i]; a
    row for k < 0, whose element (i-k, i) is v[i])."""
    cp = _cp()
    s = v.shape[0]
    k = operator.index(k)
    n = s + abs(k)
    res = _core.empty((n, n), v.dtype)   # zeros' array, without its argument handling
    if not _core._tiling(res)["tiled"]:
        # NumPy's way: v written to a strided slice of the flat view over the untouched zeros
        # (10^6 elements: 370 -> 65 us)
        if s:
            _creation._diagonal_flat(res, k, s)[...] = v
        return res
    pad = cp.zeros(n, v.dtype)
    pad[:s] = v
    rows = cp.arange(n, dtype=_np.int64).reshape(n, 1)
    cols = cp.arange(n, dtype=_np.int64)
    mask = U.equal(U.subtract(cols, rows), k)
    zero = _core.from_any(_np.zeros(1, v.dtype))
    return _where(mask, pad.reshape(n, 1) if k >= 0 else pad, zero)


def diag(v, k=0):
    if type(v) is ndarray and v.ndim == 2 and type(k) is int:
        return _core.diagonal(v, k, 0, 1)   # diagonal()'s view without its axis checks
    v = _asarray(v)
    if v.ndim == 1:
        return _diag_from_vector(v, k)
    if v.ndim == 2:
        from ._views import diagonal
        return diagonal(v, k)
    raise ValueError("Input must be 1- or 2-d.")


def diagflat(v, k=0):
    v = _asarray(v)
    return _diag_from_vector(v.reshape(-1) if v.ndim != 1 else v, k)


def _grid_tiled(a):
    """Is a's store tiled across more than its first dimension (a grid, not row slabs)?  Its
    flat alias is then not tiled, and a write through it is gathered."""
    t = _core._tiling(a)
    return t["tiled"] and any(g > 1 for g in t["grid"][1:])


def _fill_diagonal_mask(a, val, wrap):
    """fill_diagonal of a 2-D array with a scalar, as an element-wise where over a mask of two
    aranges, so each rank writes its own tile: the flat positions k (M + 1) NumPy writes are
    (r, r) for r < M, and with wrap the diagonal restarts every M + 1 rows (row M skipped)."""
    cp = _cp()
    fill = _np.zeros(1, a.dtype)
    fill.flat[0:1] = val       # NumPy's conversion of val (and its errors), as its flat write
    n, m = a.shape
    rows = cp.arange(n, dtype=_np.int64).reshape(n, 1)
    cols = cp.arange(m, dtype=_np.int64)
    mask = U.equal(U.remainder(rows, m + 1) if wrap else rows, cols,
                   out=_core.empty(a.shape, _np.bool_, a))      # laid out like a: nothing moves
    a[...] = _where(mask, _core.from_any(fill), a)


def fill_diagonal(a, val, wrap=False):
    if not isinstance(a, ndarray):
        return _np.fill_diagonal(a, val, wrap)
    if a.ndim < 2:
        raise ValueError("array must be at least 2-d")
    end = None
    if a.ndim == 2:
        step = a.shape[1] + 1
        if not wrap:
            end = a.shape[1] * a.shape[1]
    else:
        if len(set(a.shape)) != 1:
            raise ValueError("All dimensions of input must be of equal length")
        step = 1 + int(_np.cumprod(a.shape[:-1]).sum())
    if a.ndim == 2 and a.size and _np.ndim(val) == 0 and not isinstance(val, ndarray) and \
            _grid_tiled(a):
        _fill_diagonal_mask(a, val, wrap)
        return None
    flat = _core.reshape(a, (a.size,))
    if flat is None:          # a view no 1-D view expresses: NumPy's flat assignment
        return _fallback.compute(_np.fill_diagonal, (a, val, wrap), write=(a,))
    target = flat[:end:step]
    if _np.ndim(val) == 0 and not isinstance(val, ndarray):
        target[...] = val
        return None
    v = _asarray(val).reshape(-1)
    L = target.shape[0]
    if v.size == 0 or L == 0:
        return None
    if v.size >= L:
        target[...] = v[:L]
    else:                     # NumPy's flat assignment repeats a short value
        from ._selection import take
        target[...] = take(v, U.remainder(_cp().arange(L), v.size))
    return None


# ---- index sets ---------------------------------------------------------------------------------

def _nonzero(m):
    from ._selection import nonzero
    return nonzero(m)


def tril_indices(n, k=0, m=None):
    return _nonzero(_tri_mask(n, m, k))


def triu_indices(n, k=0, m=None):
    return _nonzero(U.logical_not(_tri_mask(n, m, k - 1)))


def tril_indices_from(arr, k=0):
    if arr.ndim != 2:
        raise ValueError("input array must be 2-d")
    return tril_indices(arr.shape[-2], k=k, m=arr.shape[-1])


def triu_indices_from(arr, k=0):
    if arr.ndim != 2:
        raise ValueError("input array must be 2-d")
    return triu_indices(arr.shape[-2], k=k, m=arr.shape[-1])


def mask_indices(n, mask_func, k=0):
    # ones laid out as the broadcast of a column and a row (row slabs), not as a new (n, n)
    # array (a grid on 4 ranks), so that the compaction of the mask is distributed
    m = _tri_mask(n, n, n).astype(int)
    a = mask_func(m, k)
    return _nonzero(U.not_equal(a, 0))


def diag_indices(n, ndim=2):
    idx = _cp().arange(n)
    return (idx,) * ndim


def diag_indices_from(arr):
    if not arr.ndim >= 2:
        raise ValueError("input array must be at least 2-d")
    if len(set(arr.shape)) != 1:
        raise ValueError("All dimensions of input must be of equal length")
    return diag_indices(arr.shape[0], arr.ndim)


def indices(dimensions, dtype=int, sparse=False):
    cp = _cp()
    dimensions = tuple(dimensions)
    N = len(dimensions)
    shape = (1,) * N
    res = () if sparse else cp.empty((N,) + dimensions, dtype=dtype)
    for i, dim in enumerate(dimensions):
        idx = cp.arange(dim, dtype=dtype).reshape(shape[:i] + (dim,) + shape[i + 1:])
        if sparse:
            res = res + (idx,)
        else:
            res[i] = idx
    return res


def fromfunction(function, shape, *, dtype=float, like=None, **kwargs):
    if like is not None and not isinstance(like, ndarray):
        return _fallback.compute(_np.fromfunction, (function, shape),
                                 dict(dtype=dtype, like=like, **kwargs))
    return function(*indices(shape, dtype=dtype), **kwargs)


def meshgrid(*xi, copy=True, sparse=False, indexing="xy"):
    ndim = len(xi)
    if indexing not in ["xy", "ij"]:
        raise ValueError("Valid values for `indexing` are 'xy' and 'ij'.")
    s0 = (1,) * ndim
    output = [_asarray(x).reshape(s0[:i] + (-1,) + s0[i + 1:]) for i, x in enumerate(xi)]
    if indexing == "xy" and ndim > 1:
        output[0] = output[0].reshape((1, -1) + s0[2:])
        output[1] = output[1].reshape((-1, 1) + s0[2:])
    if not sparse:
        from ._views import broadcast_arrays
        output = broadcast_arrays(*output)
    if copy:
        output = tuple(x.copy() for x in output)
    return output


def vander(x, N=None, increasing=False):
    cp = _cp()
    x = _asarray(x)
    if x.ndim != 1:
        raise ValueError("x must be a one-dimensional array or sequence.")
    if N is None:
        N = len(x)
    dt = _np.promote_types(x.dtype, int)
    v = cp.empty((len(x), N), dtype=dt)
    tmp = v[:, ::-1] if not increasing else v
    if N > 0:
        tmp[:, 0] = 1
    if N > 1:
        tmp[:, 1:] = x[:, None]
        tmp[:, 1:] = cp.cumprod(tmp[:, 1:], axis=1, dtype=dt)    # multiply.accumulate
    return v


# ---- log-spaced sequences -----------------------------------------------------------------------

def _scalar_or(a):
    """A 0-d cupynum array as its NumPy scalar (a parameter of linspace), else a."""
    return a[()] if isinstance(a, ndarray) and a.ndim == 0 else a


def logspace(start, stop, num=50, endpoint=True, base=10.0, dtype=None, axis=0):
    cp = _cp()
    if not isinstance(base, (float, int)) and _np.ndim(base):
        ndmax = len(_np.broadcast_shapes(_np.shape(start), _np.shape(stop), _np.shape(base)))
        start, stop, base = (cp.array(a, copy=None, ndmin=ndmax) for a in (start, stop, base))
        base = cp.expand_dims(base, axis=axis)
    y = cp.linspace(_scalar_or(start), _scalar_or(stop), num=num, endpoint=endpoint, axis=axis)
    r = U.power(base, y)
    if dtype is None:
        return r
    return r.astype(dtype, copy=False)


def geomspace(start, stop, num=50, endpoint=True, dtype=None, axis=0):
    cp = _cp()
    start = _asarray(start)
    stop = _asarray(stop)
    if bool(U.equal(start, 0).any()) or bool(U.equal(stop, 0).any()):
        raise ValueError("Geometric sequence cannot include zero")
    dt = _np.result_type(start.dtype, stop.dtype, float(num), _np.zeros((), dtype))
    dtype = dt if dtype is None else _np.dtype(dtype)
    start = start.astype(dt, copy=True)
    stop = stop.astype(dt, copy=True)
    out_sign = U.sign(start)
    start = _asarray(U.true_divide(start, out_sign))
    stop = _asarray(U.true_divide(stop, out_sign))
    log_start = U.log10(start)
    log_stop = U.log10(stop)
    result = logspace(log_start, log_stop, num=num, endpoint=endpoint, base=10.0, dtype=dt)
    if num > 0:
        result[0] = start
        if num > 1 and endpoint:
            result[-1] = stop
    result = U.multiply(result, out_sign)
    if axis != 0:
        result = cp.moveaxis(result, 0, axis)
    return result.astype(dtype, copy=False)


# ---- flat indices -------------------------------------------------------------------------------

_CLIPMODES = ("clip", "raise", "wrap")


def _clipmode(mode):
    for m in _CLIPMODES:
        if isinstance(mode, str) and mode and m.startswith(mode[0].lower()) and \
                (len(mode) == 1 or mode.lower() == m):
            return m
    raise ValueError(f"clipmode must be one of 'clip', 'raise', or 'wrap' (got {mode!r})")


def _int_indices(x):
    if isinstance(x, ndarray):
        if x.dtype.kind not in "iub":
            raise TypeError("only int indices permitted")
        return x
    n = _np.asarray(x)
    if n.dtype.kind not in "iub":
        if n.size == 0 and n.dtype.kind == "f":
            _np.unravel_index(x, (1,))                # NumPy's text for an empty list
        raise TypeError("only int indices permitted")
    return n


def ravel_multi_index(multi_index, dims, mode="raise", order="C"):
    cp = _cp()
    dims = (operator.index(dims),) if not isinstance(dims, (tuple, list)) else \
        tuple(operator.index(d) for d in dims)
    if order not in ("C", "F"):
        raise ValueError("only 'C' or 'F' order is permitted")
    if len(multi_index) != len(dims):
        raise ValueError(f"parameter multi_index must be a sequence of length {len(dims)}")
    modes = [_clipmode(m) for m in mode] if isinstance(mode, (tuple, list)) else \
        [_clipmode(mode)] * len(dims)
    if len(modes) != len(dims):
        _np.ravel_multi_index(tuple(_np.zeros(1, int) for _ in dims), dims, mode=mode)
    idx = [_int_indices(x) for x in multi_index]
    for d in dims:
        if d <= 0 and d != 0:
            raise ValueError("dimensions must be non-negative")
    shape = _np.broadcast_shapes(*(_np.shape(i) for i in idx))
    strides = [1] * len(dims)
    for j in (range(len(dims) - 2, -1, -1) if order == "C" else range(1, len(dims))):
        strides[j] = strides[j + 1] * dims[j + 1] if order == "C" else strides[j - 1] * dims[j - 1]
    total = None
    bad = None
    for i, d, s, m in zip(idx, dims, strides, modes):
        i = _asarray(i).astype(_np.intp) if not isinstance(i, ndarray) or i.dtype != _np.intp \
            else i
        if m == "wrap":
            i = U.remainder(i, d) if d else i
        elif m == "clip":
            i = U.minimum(U.maximum(i, 0), d - 1)
        else:
            b = U.less(i, 0) | U.greater_equal(i, d)
            bad = b if bad is None else bad | b
        t = U.multiply(i, s)
        total = t if total is None else U.add(total, t)
    if bad is not None and bool(bad.any()):
        raise ValueError("invalid entry in coordinates array")
    if total is None:
        return _np.intp(0)
    r = cp.broadcast_to(total, shape) if total.shape != shape else total
    return r[()] if r.ndim == 0 else r.copy() if r is not total else r


def unravel_index(indices, shape, order="C"):
    cp = _cp()
    shape = (operator.index(shape),) if not isinstance(shape, (tuple, list)) else \
        tuple(operator.index(d) for d in shape)
    if order not in ("C", "F"):
        raise ValueError("only 'C' or 'F' order is permitted")
    idx = _int_indices(indices)
    scalar = _np.ndim(idx) == 0
    idx = _asarray(idx).astype(_np.intp)
    size = 1
    for d in shape:
        size *= d
    bad = U.less(idx, 0) | U.greater_equal(idx, size)
    if bool(bad.any()):
        from ._selection import extract
        first = int(extract(bad, idx)[0])
        raise ValueError(f"index {first} is out of bounds for array with size {size}")
    out = [None] * len(shape)
    rest = idx
    for j in (range(len(shape) - 1, -1, -1) if order == "C" else range(len(shape))):
        d = shape[j]
        out[j] = U.remainder(rest, d)
        rest = U.floor_divide(rest, d)
    return tuple(o[()] if scalar else o for o in out)


# ---- windows ------------------------------------------------------------------------------------

def _window_points(M):
    """NumPy's windows' common start: M as NumPy's float array of (0, M) holds it, the empty and
    one-point windows (as the result), else the points n = 1-M, 3-M, ..., M-1."""
    cp = _cp()
    values = _np.array([0.0, M])
    M, dt = values[1], values.dtype
    if M < 1:
        return M, cp.array([], dtype=dt)
    if M == 1:
        return M, cp.ones(1, dtype=dt)
    return M, cp.arange(1 - M, M, 2)


def _cosine_window(M, terms):
    M, n = _window_points(M)
    if M <= 1:
        return n
    r = None
    for c, f in terms:
        t = c if f is None else U.multiply(c, U.cos(U.true_divide(U.multiply(f, n), M - 1)))
        r = t if r is None else U.add(r, t)
    return r


def blackman(M):
    return _cosine_window(M, ((0.42, None), (0.5, _np.pi), (0.08, 2.0 * _np.pi)))


def hanning(M):
    return _cosine_window(M, ((0.5, None), (0.5, _np.pi)))


def hamming(M):
    return _cosine_window(M, ((0.54, None), (0.46, _np.pi)))


def bartlett(M):
    M, n = _window_points(M)
    if M <= 1:
        return n
    q = U.true_divide(n, M - 1)
    return _where(U.less_equal(n, 0), U.add(1, q), U.subtract(1, q))


def kaiser(M, beta):
    cp = _cp()
    values = _np.array([0.0, M, beta])
    M = values[1]
    beta = values[2]
    if M == 1:
        return cp.ones(1, dtype=values.dtype)
    n = cp.arange(0, M)
    alpha = (M - 1) / 2.0
    # ** 2.0 is NumPy's fast path: square
    w = U.sqrt(U.subtract(1, U.square(U.true_divide(U.subtract(n, alpha), alpha))))
    return U.true_divide(i0(U.multiply(beta, w)), i0(beta))


# ---- mgrid / ogrid ---------------------------------------------------------------------------------

class _Grid:
    """numpy.mgrid (dense) and numpy.ogrid (sparse): NumPy's nd_grid step for step (a complex
    step is a number of points, the end included), over cupynum's indices and arange."""

    def __init__(self, sparse):
        self.sparse = sparse

    def __getitem__(self, key):
        import math
        from ._creation import arange
        try:
            size = []
            num_list = [0]   # at least as large as int_, as arange
            for k in range(len(key)):
                step, start, stop = key[k].step, key[k].start, key[k].stop
                start = 0 if start is None else start
                step = 1 if step is None else step
                if isinstance(step, (_np.complexfloating, complex)):
                    step = abs(step)
                    size.append(int(step))
                else:
                    size.append(math.ceil((stop - start) / step))
                num_list += [start, stop, step]
            typ = _np.result_type(*num_list)
            if self.sparse:
                nn = [arange(x, dtype=typ) for x in size]
            else:
                nn = indices(size, typ)
            for k, kk in enumerate(key):
                step, start = kk.step, kk.start
                start = 0 if start is None else start
                step = 1 if step is None else step
                if isinstance(step, (_np.complexfloating, complex)):
                    step = int(abs(step))
                    if step != 1:
                        step = (kk.stop - start) / float(step - 1)
                nn[k] = nn[k] * step + start
            if self.sparse:
                slobj = [None] * len(size)
                for k in range(len(size)):
                    slobj[k] = slice(None, None)
                    nn[k] = nn[k][tuple(slobj)]
                    slobj[k] = None
                return tuple(nn)
            return nn
        except (IndexError, TypeError):
            step, stop, start = key.step, key.stop, key.start
            start = 0 if start is None else start
            if isinstance(step, (_np.complexfloating, complex)):
                step_float = abs(step)
                step = length = int(step_float)
                if step != 1:
                    step = (key.stop - start) / float(step - 1)
                typ = _np.result_type(start, stop, step_float)
                return arange(0, length, 1, dtype=typ) * step + start
            return arange(start, stop, step)

    def __repr__(self):
        return f"<cupynum {'ogrid' if self.sparse else 'mgrid'}>"


mgrid = _Grid(False)
ogrid = _Grid(True)


# ---- host data into a partitioned array -------------------------------------------------------

def _host(n):
    """A NumPy array NumPy built from host data, as a cupynum array: each rank keeps its own tile
    of it (_core.from_any), or NumPy's own array for a dtype cupynum lacks."""
    return _fallback.wrap(n)


def _like_ok(like):
    return like is None or isinstance(like, ndarray)


def frombuffer(buffer, dtype=float, count=-1, offset=0, *, like=None):
    """NumPy's frombuffer (its errors), copied: writes to the result do not reach the buffer."""
    if not _like_ok(like):
        return _host(_np.frombuffer(buffer, dtype, count, offset, like=like))
    return _host(_np.frombuffer(buffer, dtype, count, offset))


def fromiter(iter, dtype, count=-1, *, like=None):  # noqa: A002
    if not _like_ok(like):
        return _host(_np.fromiter(iter, dtype, count, like=like))
    return _host(_np.fromiter(iter, dtype, count))


def fromstring(string, dtype=float, count=-1, *, sep="", like=None):
    if not _like_ok(like):
        return _host(_np.fromstring(string, dtype, count, sep=sep, like=like))
    return _host(_np.fromstring(string, dtype, count, sep=sep))


def _ndarray_args(shape, dtype=float, buffer=None, offset=0, strides=None, order=None):
    return shape, dtype, buffer, offset, strides, order


def _ndarray_new(*args, **kwargs):
    """ndarray(shape, dtype=float, buffer=None, offset=0, strides=None, order=None) constructed
    directly: a new array (zero-filled, where NumPy's is uninitialised) of that shape, dtype and
    order.  With a buffer (or strides), NumPy's view of it, copied.  Anything NumPy refuses is
    refused by NumPy itself (its errors); a dtype cupynum lacks gives NumPy's ndarray."""
    def numpy_new():
        return _host(_np.ndarray(*args, **kwargs))
    try:
        shape, dtype, buffer, offset, strides, order = _ndarray_args(*args, **kwargs)
        if buffer is not None or strides is not None or order not in (None, "C", "F"):
            return numpy_new()
        dt = _np.dtype(dtype)
        shp = _creation._shape_tuple(shape)
    except Exception:   # noqa: BLE001 -- NumPy raises its own error for these arguments
        return numpy_new()
    if any(s < 0 for s in shp) or not (dt.kind in "biufc" and dt.char not in "gG" and dt.names is None
                                          and dt.subdtype is None) or \
            not isinstance(offset, int) or offset != 0:
        return numpy_new()
    if order == "F" and len(shp) > 1:
        return _core.empty(shp[::-1], dt).T
    return _core.empty(shp, dt)


NAMES = ("tri tril triu diag diagflat fill_diagonal indices meshgrid fromfunction vander "
         "geomspace logspace tril_indices tril_indices_from triu_indices triu_indices_from "
         "diag_indices diag_indices_from mask_indices ravel_multi_index unravel_index "
         "bartlett blackman hamming hanning kaiser frombuffer fromiter fromstring").split()
