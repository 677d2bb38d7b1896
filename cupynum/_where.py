"""numpy.where(condition, x, y) as the runtime's select op (ops.def WHERE), so that it queues one
element-wise op and fuses with the ops around it (Black-Scholes' `where(d < 0, 1.0 - w, w)` is
part of one fused pass).

NumPy's rules, as multiarraymodule.c's PyArray_Where applies them: x and y are converted to
arrays first (a Python scalar to its default array: int64, float64, complex128, bool), the result
dtype is their promotion with Python scalars weak (NEP 50), and each is then cast *unsafely* to
it (so `where(c, int8_array, 300)` wraps 300 to 44 as NumPy does, and a float overflow warns
"overflow encountered in cast").  The condition is tested for truth (non-zero; NaN is true).
The one-argument form is `nonzero` (cupynum/_selection.py); dtypes the runtime lacks are computed
by NumPy."""

import numpy as _np

from . import _core, _fallback
from ._ndarray import ndarray

_NoValue = _np._NoValue

# The runtime's 14 dtypes, native byte order.
_NATIVE = frozenset(_np.dtype(c) for c in "?bhilqBHILQefdFD")
_EXACT_FLOAT = frozenset(_np.dtype(c) for c in "dD")   # a Python float converts exactly


def _dtype_of(v):
    """v's dtype as PyArray_Where sees it after conversion, and whether it is a weak scalar."""
    if isinstance(v, ndarray):
        return v.dtype, False
    if type(v) in (int, float, complex, bool):
        return _np.asarray(v).dtype, type(v) is not bool
    return _np.asarray(v).dtype, False


def _numpy_where(args):
    return _fallback.call("numpy.where", _np.where, args, {})


def _operand(v, dt):
    """v as a select operand of dtype dt: a cupynum array, or a NumPy scalar of dt."""
    if isinstance(v, ndarray):
        return v if v.dtype == dt else _core.cast(v, dt)
    a = _np.asarray(v)
    if a.ndim == 0:
        return a.astype(dt)[()]          # unsafe, warns as NumPy's cast does
    return _core.from_any(a.astype(dt))


def _condition(c):
    if isinstance(c, ndarray):
        return c if c.dtype == _np.bool_ else _core.cast(c, _np.bool_)
    a = _np.asarray(c)
    if a.ndim == 0:
        return bool(a)
    return _core.from_any(a.astype(_np.bool_))


def where(condition, x=_NoValue, y=_NoValue, /):
    if x is _NoValue and y is _NoValue:
        from ._selection import nonzero
        return nonzero(condition)
    if x is _NoValue or y is _NoValue:
        raise ValueError("either both or neither of x and y should be given")
    if isinstance(condition, ndarray) and isinstance(x, ndarray) and isinstance(y, ndarray):
        # The common case at the cost of a few attribute reads: a boolean condition and two
        # arrays of one dtype and one shape (nothing to promote, cast or broadcast).
        dt, shape = x.dtype, x.shape
        if condition.dtype == _np.bool_ and y.dtype == dt and dt in _NATIVE and \
                condition.shape == shape and y.shape == shape:
            return _core.select(condition, x, y, _core.empty(shape, dt, condition))
    if isinstance(condition, ndarray) and condition.dtype == _np.bool_:
        # An array and a Python float beside it (`where(m, x, 0.0)`): a float64 or complex128
        # array keeps its dtype (NEP 50) and holds the float exactly.
        a, v = (x, y) if isinstance(x, ndarray) else (y, x)
        if isinstance(a, ndarray) and type(v) is float and a.dtype in _EXACT_FLOAT and \
                a.shape == condition.shape:
            out = _core.empty(a.shape, a.dtype, condition)
            return _core.select(condition, x, y, out)
    (dx, wx), (dy, wy) = _dtype_of(x), _dtype_of(y)
    dc = condition.dtype if isinstance(condition, ndarray) else _np.asarray(condition).dtype
    # NEP 50: a Python scalar takes part in the promotion as a weak scalar, by value type.
    dt = _np.result_type(x if wx else dx, y if wy else dy)
    if dt not in _NATIVE or dc not in _NATIVE or dx not in _NATIVE or dy not in _NATIVE:
        return _numpy_where((condition, x, y))
    shapes = [_np.shape(v) if not isinstance(v, ndarray) else v.shape for v in (condition, x, y)]
    try:
        shape = _np.broadcast_shapes(*shapes)
    except ValueError:
        # NumPy's own message ("operands could not be broadcast together with shapes ...").
        stand_ins = [_np.broadcast_to(_np.zeros((), bool), s) for s in shapes]
        _np.where(*stand_ins)
        raise
    c, xs, ys = _condition(condition), _operand(x, dt), _operand(y, dt)
    c, xs, ys = (_core.broadcast_to(v, shape) if isinstance(v, ndarray) and v.shape != shape else v
                 for v in (c, xs, ys))
    # The result is laid out like an operand (as a ufunc's is), so that owner-computes keeps it
    # where its inputs are: a default tiling of another shape would move half of them.
    like = next((v for v in (c, xs, ys) if isinstance(v, ndarray)), None)
    out = _core.empty(shape, dt, like) if like is not None else _core.empty(shape, dt)
    return _core.select(c, xs, ys, out)
