"""NumPy's functions over cupynum arrays: ufuncs of the op table, reductions, shape functions,
matmul, and the __array_function__ / __array_ufunc__ protocols that route NumPy calls here."""

import builtins
import operator

import numpy as _np

from . import _core, _fallback, _ufunc
from ._ndarray import _numpy_call, _reshape, _transpose, ndarray


def _asarray(a):
    return a if isinstance(a, ndarray) else _core.from_any(a)


# ---- ufunc objects: cupynum/_ufunc.py (one cupynum.ufunc per NumPy ufunc) ------------------------

ufuncs = {n: u for n, u in _ufunc.ufuncs.items() if n != "matmul"}   # matmul: the function below


# A ufunc call with arguments the native path does not take: NumPy computes it.
_ufunc_general = _ufunc._numpy_general


# ---- reductions and statistics: cupynum/_reductions.py ----------------------------------------------

from ._reductions import (all, amax, amin, any, argmax, argmin, average, count_nonzero,  # noqa: E402,F401
                          cumprod, cumsum, max, mean, min, nanargmax, nanargmin, nancumprod,
                          nancumsum, nanmax, nanmean, nanmin, nanprod, nanstd, nansum, nanvar,
                          prod, ptp, std, sum, var)
from . import _quantile, _reductions  # noqa: E402


def _method(f):
    def m(self, *args, **kwargs):
        return f(self, *args, **kwargs)
    m.__name__ = f.__name__
    m.__doc__ = f.__doc__
    return m


# ---- shape functions ------------------------------------------------------------------------------

def reshape(a, shape=None, order="C", *, newshape=None, copy=None):
    if newshape is not None:
        shape = newshape
    return _reshape(_asarray(a), shape, order=order, copy=copy)


def ravel(a, order="C"):
    from ._ndarray import _ravel
    return _ravel(_asarray(a), order=order)


def transpose(a, axes=None):
    return _transpose(_asarray(a), axes)


def broadcast_to(array, shape, subok=False):
    a = _asarray(array)
    if isinstance(shape, (int, _np.integer)):
        shape = (shape,)
    shape = tuple(operator.index(s) for s in shape)
    try:
        return _core.broadcast_to(a, shape)
    except ValueError:
        raise ValueError(f"operands could not be broadcast together with remapped shapes "
                         f"[original->remapped]: {a.shape} and requested shape {shape}") from None


def shape(a):
    return _asarray(a).shape if not hasattr(a, "shape") else tuple(a.shape)


def ndim(a):
    return a.ndim if hasattr(a, "ndim") else _np.ndim(a)


def size(a, axis=None):
    a = _asarray(a)
    return a.size if axis is None else a.shape[axis]


# ---- products ---------------------------------------------------------------------------------------

# cupynum/_products.py: every product on the one matmul op (BLAS).
from ._products import dot, inner, kron, matmul, outer, tensordot, vdot  # noqa: E402,F401
# cupynum/_einsum.py: einsum planned into matmul (BLAS), reductions and views; polyfit, roots.
from ._einsum import einsum, einsum_path, polyfit, roots  # noqa: E402,F401


# ---- NumPy protocols --------------------------------------------------------------------------------

def _array_ufunc(self, ufunc, method, *inputs, **kwargs):
    return _ufunc_dispatch(ufunc, method, inputs, kwargs)


def _ufunc_dispatch(ufunc, method, inputs, kwargs):
    """`numpy.<ufunc>.<method>(...)` with a cupynum operand: the cupynum.ufunc of the same name
    runs it (native where the op table has the op; otherwise NumPy computes, warning once)."""
    if ufunc is _np.matmul and method == "__call__":
        return matmul(*inputs, **kwargs)
    u = _ufunc.for_numpy(ufunc)
    if not u._native and not (method == "__call__" and ufunc.__name__ in _ufunc.GUFUNCS):
        q = f"numpy.{ufunc.__name__}" + ("" if method == "__call__" else "." + method)
        _fallback.note(q, 2)
    if method == "__call__":
        return u(*inputs, **kwargs)
    return getattr(u, method)(*inputs, **kwargs)


_IMPLEMENTED = {}


class _Memory:
    """A NumPy array interface at a fake address: a view's bytes within its root store, for
    NumPy's own overlap solver (which computes with addresses and never reads them)."""

    def __init__(self, a):
        self.__array_interface__ = {
            "shape": a.shape, "typestr": a.dtype.str, "version": 3,
            "strides": tuple(_core.layout(a)),
            "data": ((1 << 44) + _core._byte_offset(a), False)}


def _overlap(fn, a, b, max_work):
    mine = isinstance(a, ndarray), isinstance(b, ndarray)
    if not builtins.any(mine):
        return fn(a, b) if max_work is None else fn(a, b, max_work=max_work)
    if not builtins.all(mine) or not _core._shares_store(a, b):
        return False          # distinct stores (or NumPy memory) never overlap
    if a.size == 0 or b.size == 0:
        return False
    na, nb = _np.asarray(_Memory(a)), _np.asarray(_Memory(b))
    return fn(na, nb) if max_work is None else fn(na, nb, max_work=max_work)


def shares_memory(a, b, max_work=None):
    """NumPy's shares_memory: exact, for views of one store."""
    return _overlap(_np.shares_memory, a, b, max_work)


def may_share_memory(a, b, max_work=None):
    """NumPy's may_share_memory: the views' memory bounds overlap."""
    return _overlap(_np.may_share_memory, a, b, max_work)


def _register_array_functions(namespace):
    """Map NumPy's functions to cupynum's where cupynum implements them natively."""
    names = ("reshape ravel transpose broadcast_to shape ndim size "
             "matmul dot copy zeros_like ones_like empty_like full_like array asarray "
             "ascontiguousarray where bincount shares_memory may_share_memory vdot inner outer tensordot "
             "kron einsum einsum_path polyfit roots").split() + list(_reductions.NAMES) + list(_quantile.NAMES)
    for n in names:
        npf = getattr(_np, n, None)
        if npf is not None and n in namespace:
            _IMPLEMENTED[npf] = namespace[n]
    from . import _products
    _IMPLEMENTED[_np.linalg.matmul] = _products.linalg_matmul
    _IMPLEMENTED[_np.linalg.matrix_power] = _products.matrix_power
    _IMPLEMENTED[_np.linalg.outer] = _products.linalg_outer
    _IMPLEMENTED[_np.linalg.tensordot] = _products.linalg_tensordot
    _IMPLEMENTED[_np.linalg.multi_dot] = _products.multi_dot
    _IMPLEMENTED[_np.linalg.vecdot] = _products.linalg_vecdot
    from .linalg import _linalg
    for n in _linalg.NAMES:
        _IMPLEMENTED[getattr(_np.linalg, n)] = getattr(_linalg, n)


def _array_function(self, func, types, args, kwargs):
    impl = _IMPLEMENTED.get(func)
    if impl is not None:
        return impl(*args, **kwargs)
    # Not native: NumPy computes on the gathered data, results come back (warns once).
    return _fallback.array_function(func, args, kwargs)


_ = builtins  # builtins.sum/min/max stay reachable as builtins.*
