"""NumPy's functions over cupynum arrays: ufuncs of the op table, reductions, shape functions,
matmul, and the __array_function__ / __array_ufunc__ protocols that route NumPy calls here."""

import builtins
import operator

import numpy as _np
from numpy.lib.array_utils import normalize_axis_index

from . import _core, _fallback, _ufunc
from ._array_api import _numpy_call, _reshape, _to_numpy_tree, _transpose, _wrap_tree, ndarray


def _asarray(a):
    return a if isinstance(a, ndarray) else _core.from_any(a)


# ---- ufunc objects: cupynum/_ufunc.py (one cupynum.ufunc per NumPy ufunc) ------------------------

ufuncs = {n: u for n, u in _ufunc.ufuncs.items() if n != "matmul"}   # matmul: the function below


def _ufunc_general(ufunc, method, inputs, kwargs):
    """A ufunc call with arguments the native path does not take: NumPy computes it."""
    out = kwargs.get("out")
    if out is not None:
        outs = out if isinstance(out, tuple) else (out,)
        nkw = dict(kwargs)
        nouts = tuple(_core.to_numpy(o) if isinstance(o, ndarray) else o for o in outs)
        nkw["out"] = nouts if isinstance(out, tuple) else nouts[0]
        r = getattr(ufunc, method)(*_to_numpy_tree(inputs), **_to_numpy_tree(nkw))
        for o, no in zip(outs, nouts):
            if isinstance(o, ndarray):
                _core.assign(o, no)
        return out if isinstance(out, tuple) and len(out) > 1 else outs[0]
    return _wrap_tree(getattr(ufunc, method)(*_to_numpy_tree(inputs), **_to_numpy_tree(kwargs)))


# ---- reductions ---------------------------------------------------------------------------------

def _axes(axis, ndim):
    if axis is None:
        return tuple(range(ndim))
    if isinstance(axis, (tuple, list)):
        axes = tuple(normalize_axis_index(operator.index(a), ndim) for a in axis)
        if len(set(axes)) != len(axes):
            raise ValueError("duplicate value in 'axis'")
        return axes
    return (normalize_axis_index(operator.index(axis), ndim),)


def _sum_dtype(dt):
    """add/multiply.reduce's default accumulator: small integers widen to the platform integer."""
    if dt.kind == "b" or (dt.kind == "i" and dt.itemsize < 8):
        return _np.dtype(_np.int64)
    if dt.kind == "u" and dt.itemsize < 8:
        return _np.dtype(_np.uint64)
    return dt


def _finish(r, a, axes, keepdims, out):
    if keepdims:
        r = _core.reshape(r, tuple(1 if d in axes else n for d, n in enumerate(a.shape)))
    if out is not None:
        if not isinstance(out, ndarray):
            raise TypeError("out must be a cupynum.ndarray")
        if out.shape != r.shape:
            raise ValueError(f"output parameter for reduction operation has the wrong shape "
                             f"{out.shape}, expected {r.shape}")
        _core.assign(out, r)
        return out
    if r.ndim == 0:
        return _core.to_scalar(r)
    return r


def _reduction(name, default_dtype):
    def reduce(a, axis=None, dtype=None, out=None, keepdims=False, **kwargs):
        if kwargs:
            np_name = {"add": "sum", "multiply": "prod", "maximum": "max", "minimum": "min"}[name]
            kwargs.update(axis=axis, keepdims=keepdims)
            if dtype is not None:   # numpy.max/min take no dtype
                kwargs["dtype"] = dtype
            if out is not None:
                kwargs["out"] = out
            return _numpy_call(getattr(_np, np_name), (a,), kwargs)
        a = _asarray(a)
        axes = _axes(axis, a.ndim)
        acc = _np.dtype(dtype) if dtype is not None else default_dtype(a.dtype)
        return _finish(_core.reduce(name, a, axes, acc), a, axes, keepdims, out)
    return reduce


sum = _reduction("add", _sum_dtype)
prod = _reduction("multiply", _sum_dtype)
_max = _reduction("maximum", lambda dt: dt)
_min = _reduction("minimum", lambda dt: dt)


def max(a, axis=None, out=None, keepdims=False, **kwargs):
    return _max(a, axis=axis, out=out, keepdims=keepdims, **kwargs)


def min(a, axis=None, out=None, keepdims=False, **kwargs):
    return _min(a, axis=axis, out=out, keepdims=keepdims, **kwargs)


amax = max
amin = min


def mean(a, axis=None, dtype=None, out=None, keepdims=False, **kwargs):
    if kwargs:
        kwargs.update(axis=axis, dtype=dtype, keepdims=keepdims)
        if out is not None:
            kwargs["out"] = out
        return _numpy_call(_np.mean, (a,), kwargs)
    a = _asarray(a)
    axes = _axes(axis, a.ndim)
    count = 1
    for d in axes:
        count *= a.shape[d]
    if count == 0:
        import warnings
        warnings.warn("Mean of empty slice.", RuntimeWarning, stacklevel=2)
    f16 = False
    if dtype is None:
        if a.dtype.kind in "biu":
            dtype = _np.float64
        elif a.dtype == _np.float16:
            dtype, f16 = _np.float32, True
    s = _core.reduce("add", a, axes, _np.dtype(dtype) if dtype is not None else a.dtype)
    if keepdims:
        s = _core.reshape(s, tuple(1 if d in axes else n for d, n in enumerate(a.shape)))
    if s.ndim == 0 and out is None:
        r = _core.to_scalar(s)
        with _np.errstate(divide="ignore", invalid="ignore"):
            r = r.dtype.type(r / count)
        return a.dtype.type(r) if f16 else r
    with _np.errstate(divide="ignore", invalid="ignore"):
        if s.dtype.kind in "fc":
            s = _core.ufunc("divide", (s, count), s)
        else:   # NumPy divides in place with casting='unsafe'
            _core.assign(s, _core.ufunc("divide", (s, count)))
    if f16:
        s = _core.cast(s, _np.float16)
    if out is not None:
        _core.assign(out, s)
        return out
    return s


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
    from ._array_api import _ravel
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

def matmul(a, b, out=None, **kwargs):
    a, b = _asarray(a), _asarray(b)
    if kwargs or a.ndim > 2 or b.ndim > 2 or (out is not None and not isinstance(out, ndarray)):
        if out is not None:
            kwargs["out"] = out
        return _ufunc_general(_np.matmul, "__call__", (a, b), kwargs)
    for i, x in enumerate((a, b)):
        if x.ndim == 0:
            raise ValueError(f"matmul: Input operand {i} does not have enough dimensions (has 0, "
                             f"gufunc core with signature (n?,k),(k,m?)->(n?,m?) requires 1)")
    A = a if a.ndim == 2 else _core.reshape(a, (1, a.shape[0]))
    B = b if b.ndim == 2 else _core.reshape(b, (b.shape[0], 1))
    if A.shape[1] != B.shape[0]:
        raise ValueError(f"matmul: Input operand 1 has a mismatch in its core dimension 0, with "
                         f"gufunc signature (n?,k),(k,m?)->(n?,m?) (size {B.shape[0]} is different "
                         f"from {A.shape[1]})")
    dt = _np.result_type(a.dtype, b.dtype)
    if A.dtype != dt:
        A = _core.cast(A, dt)
    if B.dtype != dt:
        B = _core.cast(B, dt)
    C = _core.matmul(A, B, dt)
    if a.ndim == 1 and b.ndim == 1:
        C = _core.reshape(C, ())
    elif a.ndim == 1:
        C = _core.reshape(C, (C.shape[1],))
    elif b.ndim == 1:
        C = _core.reshape(C, (C.shape[0],))
    if out is not None:
        _core.assign(out, C)
        return out
    return _core.to_scalar(C) if C.ndim == 0 else C


def dot(a, b, out=None):
    a, b = _asarray(a), _asarray(b)
    if a.ndim <= 2 and b.ndim <= 2 and a.ndim > 0 and b.ndim > 0:
        return matmul(a, b, out=out)
    if a.ndim == 0 or b.ndim == 0:
        r = _core.ufunc("multiply", (a, b))
        if out is not None:
            _core.assign(out, r)
            return out
        return r
    return _numpy_call(_np.dot, (a, b), {} if out is None else {"out": out})


# ---- NumPy protocols --------------------------------------------------------------------------------

def _array_ufunc(self, ufunc, method, *inputs, **kwargs):
    return _ufunc_dispatch(ufunc, method, inputs, kwargs)


def _ufunc_dispatch(ufunc, method, inputs, kwargs):
    """`numpy.<ufunc>.<method>(...)` with a cupynum operand: the cupynum.ufunc of the same name
    runs it (native where the op table has the op; otherwise NumPy computes, warning once)."""
    if ufunc is _np.matmul and method == "__call__":
        return matmul(*inputs, **kwargs)
    u = _ufunc.for_numpy(ufunc)
    if not u._native:
        q = f"numpy.{ufunc.__name__}" + ("" if method == "__call__" else "." + method)
        _fallback.note(q, 2)
    if method == "__call__":
        return u(*inputs, **kwargs)
    return getattr(u, method)(*inputs, **kwargs)


_IMPLEMENTED = {}


def _register_array_functions(namespace):
    """Map NumPy's functions to cupynum's where cupynum implements them natively."""
    names = ("sum prod min max amin amax mean reshape ravel transpose broadcast_to shape ndim size "
             "matmul dot copy zeros_like ones_like empty_like full_like array asarray "
             "ascontiguousarray").split()
    for n in names:
        npf = getattr(_np, n, None)
        if npf is not None and n in namespace:
            _IMPLEMENTED[npf] = namespace[n]
    _IMPLEMENTED[_np.linalg.matmul] = matmul


def _array_function(self, func, types, args, kwargs):
    impl = _IMPLEMENTED.get(func)
    if impl is not None:
        return impl(*args, **kwargs)
    # Not native: NumPy computes on the gathered data, results come back (warns once).
    return _fallback.array_function(func, args, kwargs)


_ = builtins  # builtins.sum/min/max stay reachable as builtins.*
