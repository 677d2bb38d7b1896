"""Array creation: NumPy's signatures, cupynum stores underneath.

Buffers are zero-filled when first touched, so `zeros` and `empty` cost nothing until used.
`empty` is zero-filled too: NumPy promises nothing about its values, but a large NumPy `empty`
comes from fresh (zero) pages, and programs that read what they never wrote then still agree
with NumPy; cupynum's own results that are written whole (the joins) skip the fill instead.
`ones`/`full` queue a fill; data from Python objects is copied in once."""

import math
import operator

import numpy as _np

from . import _core
from ._ndarray import _reshape, ndarray


def _shape_tuple(shape):
    if isinstance(shape, (int, _np.integer)) or (hasattr(shape, "__index__") and not isinstance(shape, (tuple, list))):
        return (operator.index(shape),)
    return tuple(operator.index(s) for s in shape)


def _check_order(order):
    if order not in ("C", "K", "A", None):
        if order == "F":
            return  # layout is the runtime's business; values are the same
        raise ValueError(f"order must be one of 'C', 'F', 'A', or 'K' (got {order!r})")


def empty(shape, dtype=float, order="C", *, device=None, like=None):
    _check_order(order)
    return _core.empty(_shape_tuple(shape), _np.dtype(dtype))


def zeros(shape, dtype=float, order="C", *, device=None, like=None):
    _check_order(order)
    return _core.empty(_shape_tuple(shape), _np.dtype(dtype))


def full(shape, fill_value, dtype=None, order="C", *, device=None, like=None):
    if dtype is None:
        dtype = _np.array(fill_value).dtype if not isinstance(fill_value, ndarray) else fill_value.dtype
    a = empty(shape, dtype, order)
    if not isinstance(fill_value, ndarray):
        # NumPy's copyto(..., casting="unsafe") of the value, done by NumPy on the value alone:
        # a NumPy integer wraps, a complex loses its imaginary part (ComplexWarning), an
        # out-of-range Python int raises OverflowError, as np.full does.
        v = _np.empty(_np.shape(fill_value), a.dtype)
        _np.copyto(v, fill_value, casting="unsafe")
        fill_value = v
    _core.assign(a, fill_value)
    return a


def ones(shape, dtype=None, order="C", *, device=None, like=None):
    return full(shape, 1, _np.float64 if dtype is None else dtype, order)


def _like_args(a, dtype, shape):
    if not hasattr(a, "dtype") or not hasattr(a, "shape"):
        a = _np.asarray(a)
    return (a.shape if shape is None else shape), (a.dtype if dtype is None else dtype)


def empty_like(prototype, dtype=None, order="K", subok=True, shape=None, *, device=None):
    s, d = _like_args(prototype, dtype, shape)
    return empty(s, d)


def zeros_like(a, dtype=None, order="K", subok=True, shape=None, *, device=None):
    s, d = _like_args(a, dtype, shape)
    return zeros(s, d)


def ones_like(a, dtype=None, order="K", subok=True, shape=None, *, device=None):
    s, d = _like_args(a, dtype, shape)
    return full(s, 1, d)


def full_like(a, fill_value, dtype=None, order="K", subok=True, shape=None, *, device=None):
    s, d = _like_args(a, dtype, shape)
    return full(s, fill_value, d)


def _needs_order_copy(a, order):
    """Whether `order` asks for a layout that view `a` lacks (NumPy copies then)."""
    if order == "C":
        return not a.flags.c_contiguous
    if order == "F":
        return not a.flags.f_contiguous
    return False


def _copy_in_order(a, dtype, order):
    """A new array of `a`'s values in `dtype`, laid out as NumPy's copy in `order` would be:
    F (or A/K of an F-ordered view that is not C-ordered) builds the transposed C copy."""
    fortran = order == "F" or (order in ("A", "K") and a.ndim > 1 and a.flags.f_contiguous
                               and not a.flags.c_contiguous)
    if fortran:
        rev = tuple(range(a.ndim))[::-1]
        return _core.transpose(_core.cast(_core.transpose(a, rev), dtype), rev)
    return _core.cast(a, dtype)


def array(object, dtype=None, *, copy=True, order="K", subok=False, ndmin=0, like=None):
    if isinstance(object, ndarray):
        a = object
        if order not in ("C", "F", "A", "K", None):
            raise ValueError(f"order must be one of 'C', 'F', 'A', or 'K' (got {order!r})")
        want = a.dtype if dtype is None else _np.dtype(dtype)
        if want != a.dtype or copy or _needs_order_copy(a, order):
            if copy is False:
                raise ValueError("Unable to avoid copy while creating an array as requested.")
            a = _copy_in_order(a, want, order)
    else:
        if copy is False:
            raise ValueError("Unable to avoid copy while creating a cupynum array as requested.")
        a = _core.from_any(_np.asarray(object, dtype=dtype))
    if ndmin > a.ndim:
        a = _core.reshape(a, (1,) * (ndmin - a.ndim) + a.shape)
    return a


def asarray(a, dtype=None, order=None, *, device=None, copy=None, like=None):
    return array(a, dtype, copy=copy, order=order)


def asanyarray(a, dtype=None, order=None, *, device=None, copy=None, like=None):
    return array(a, dtype, copy=copy, order=order)


def ascontiguousarray(a, dtype=None, *, like=None):
    if type(a) is ndarray and dtype is None and a.ndim:
        # array()'s result without its argument handling: a itself, or a C-order copy
        return a if _core.contiguous(a) else _core.cast(a, a.dtype)
    return array(a, dtype, copy=None, order="C", ndmin=1)


def asfortranarray(a, dtype=None, *, like=None):
    return array(a, dtype, copy=None, order="F", ndmin=1)


def copy(a, order="K", subok=False):
    return array(a, copy=True, order=order)


_I64, _F64 = _np.dtype(_np.int64), _np.dtype(_np.float64)
_I64_MIN, _I64_MAX = -2 ** 63, 2 ** 63


def arange(start, stop=None, step=None, dtype=None, *, device=None, like=None):
    if stop is None:
        start, stop = 0, start
    if step is None:
        step = 1
    if type(start) is int and type(stop) is int and type(step) is int and step and (
            dtype is None or dtype is float or dtype is _np.float64 or dtype is _np.int64):
        # The common case without NumPy's promotion and finiteness tests (an arange of Python
        # ints in int64's range is int64, NumPy's default integer here; nothing to overflow in
        # float64 or int64): arange(n) in a loop cost 2.7 us against NumPy's 0.2.
        if (_I64_MIN <= start < _I64_MAX and _I64_MIN <= stop < _I64_MAX and
                _I64_MIN <= step < _I64_MAX and _I64_MIN <= start + step < _I64_MAX):
            n = max(math.ceil((stop - start) / step), 0)
            return _core.arange(n, _F64 if dtype is float or dtype is _np.float64 else _I64,
                                start, start + step)
    args = [start, stop, step]
    if any(isinstance(x, ndarray) for x in args):
        args = [x.item() if isinstance(x, ndarray) else x for x in args]
        start, stop, step = args
    if dtype is None:
        # NumPy's rule: the arguments' dtypes promoted with the default integer.
        dtype = _np.dtype(_np.intp)
        for x in args:
            dtype = _np.promote_types(dtype, _np.asarray(x).dtype)
    dtype = _np.dtype(dtype)
    try:
        finite = all(math.isfinite(float(_np.real(x))) for x in args)
    except (TypeError, OverflowError):
        finite = False
    if dtype.kind not in "iuf" or not finite or step == 0:
        return _core.from_any(_np.arange(start, stop, step, dtype=dtype))
    n = math.ceil((stop - start) / step)
    n = max(int(n), 0)
    if dtype.kind in "iu":
        # NumPy fills from start and start + step in the dtype: a Python int that does not fit
        # raises its OverflowError (NEP 50), e.g. arange(-5, 5, 3, dtype=uint64).
        for v in (start, start + step)[:min(n, 2)]:
            if type(v) is float and v.is_integer():
                v = int(v)
            if type(v) is int:
                _np.array(v, dtype=dtype)
    return _core.arange(n, dtype, start, start + step)


def _plain_float(x):
    """A finite Python float, or a Python int float64 holds exactly: NumPy's linspace computes
    with it in float64 as Python's float arithmetic does."""
    t = type(x)
    return t is float and math.isfinite(x) or t is int and -2 ** 53 <= x <= 2 ** 53


def _linspace_steps(y, delta, div):
    """NumPy's linspace steps on y = arange(num) of the result's dtype, delta = stop - start
    (a NumPy scalar of that dtype): (y scaled, step)."""
    if div > 0:
        step = delta / div
        if step == 0:
            y /= div
            y *= delta
        else:
            y *= step
    else:
        step = _np.nan
        y = y * delta
    return y, step


def linspace(start, stop, num=50, endpoint=True, retstep=False, dtype=None, axis=0, *, device=None):
    if type(num) is int and num >= 0 and dtype is None and axis == 0 and type(axis) is int and \
            _plain_float(start) and _plain_float(stop):
        # Python numbers: NumPy's float64 steps below without its dtype discovery (a NumPy
        # linspace of 2 points) and conversions -- the same ops, so the same values
        div = (num - 1) if endpoint else num
        start, stop = float(start), float(stop)
        y, step = _linspace_steps(_core.arange(num, _F64, 0.0, 1.0), _F64.type(stop - start), div)
        y += start
        if endpoint and num > 1:
            y[-1] = stop
        return (y, step) if retstep else y
    num = operator.index(num)
    if num < 0:
        raise ValueError(f"Number of samples, {num}, must be non-negative.")
    if _np.ndim(start) or _np.ndim(stop) or isinstance(start, ndarray) or isinstance(stop, ndarray):
        from ._ndarray import _numpy_call
        return _numpy_call(_np.linspace, (start, stop, num), dict(endpoint=endpoint, retstep=retstep,
                                                                  dtype=dtype, axis=axis))
    if axis != 0:   # a 1-d result: axis 0 or -1 (NumPy's moveaxis of it), else NumPy's AxisError
        _np.lib.array_utils.normalize_axis_index(operator.index(axis), 1, "destination")
    div = (num - 1) if endpoint else num
    dt = _np.linspace(start, stop, 2).dtype
    integer_dtype = dtype is not None and _np.issubdtype(dtype, _np.integer)
    dtype = dt if dtype is None else _np.dtype(dtype)
    delta = _np.subtract(stop, start, dtype=dt.type)
    y, step = _linspace_steps(arange(0, num, dtype=dt), delta, div)
    y += _np.asarray(start, dtype=dt)[()]
    if endpoint and num > 1:
        y[-1] = stop
    if integer_dtype:
        y = _core.ufunc("floor", (y,))
    if y.dtype != dtype:
        y = _core.cast(y, dtype)
    return (y, step) if retstep else y


def eye(N, M=None, k=0, dtype=float, order="C", *, device=None, like=None):
    M = N if M is None else M
    if type(N) is int and type(M) is int and order == "C":   # (zeros' checks, without its calls)
        m = _core.empty((N, M), _np.dtype(dtype))
    else:
        m = zeros((N, M), dtype=dtype, order=order)   # (its order check: NumPy's error)
    if k >= M or N == 0 or M == 0:
        return m
    if builtin_min(M - k, N) <= 0:
        return m
    N, M, k = operator.index(N), operator.index(M), operator.index(k)
    if not _core._tiling(m)["tiled"]:
        # NumPy's way: the diagonal as a strided slice of the flat view (min(N, M - k) rows from
        # (0, k), or min(N + k, M) from (-k, 0)), written over the untouched zeros -- not every
        # element through an element-wise op (1000 x 1000: 420 -> 65 us)
        _diagonal_flat(m, k, builtin_min(N, M - k) if k >= 0 else builtin_min(N + k, M))[...] = 1
        return m
    # the diagonal as a mask of two broadcast aranges: element-wise, so each rank writes its own
    # tile (the flat alias NumPy's eye writes through is gathered when the tiles are not row slabs)
    # (r == c - k is c - r == k: one op fewer; the primitives at once, eye(n) in a loop)
    N, M, k = operator.index(N), operator.index(M), operator.index(k)
    r = _core.reshape(_core.arange(N, _I64, 0, 1), (N, 1))
    c = _core.arange(M, _I64, -k, 1 - k)
    _core.ufunc("equal", (r, c), m)
    return m


def _diagonal_flat(m, k, count):
    """The `count` elements of diagonal k of the C-contiguous 2-D m as a view of its flat alias."""
    M = m.shape[1]
    start = k if k >= 0 else -k * M
    return _core.reshape(m, (m.size,))[start:start + (count - 1) * (M + 1) + 1:M + 1]


def identity(n, dtype=None, *, like=None):
    return eye(n, dtype=float if dtype is None else dtype)


builtin_min = min
