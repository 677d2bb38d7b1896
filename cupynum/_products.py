"""Products: matmul, dot, vdot, inner, outer, tensordot, kron, matrix_power.

Every product is planned into the one matmul op (csrc/kernels/matmul.c: BLAS gemm/gemv for
float32/64 and complex, exact loops for bool and integers), element-wise multiplies and views, with
NumPy's shapes, dtypes and errors.  Errors are NumPy's own: the call is repeated on empty stand-ins
of the operands' shapes and dtypes (no data moves), so NumPy raises its message."""

import operator

import numpy as _np

from . import _core
from ._array_api import _ravel, _reshape, _transpose, ndarray


def _asarray(a):
    return a if isinstance(a, ndarray) else _core.from_any(a)


def _standin(x):
    """A NumPy array of x's shape and dtype that holds no data (stride 0)."""
    if not isinstance(x, ndarray):
        return x
    return _np.broadcast_to(_np.zeros((), x.dtype), x.shape)


def _numpy_raises(f, *args, **kwargs):
    """Let NumPy raise its error for these operand shapes and dtypes; an internal error if it
    does not."""
    f(*[_standin(a) for a in args], **{k: _standin(v) for k, v in kwargs.items()})
    raise AssertionError(f"{f.__name__}: NumPy accepted what cupynum rejected")


def _deliver(r, out):
    if out is not None:
        _core.assign(out, r)
        return out
    if not isinstance(r, ndarray):
        return r
    return _core.to_scalar(r) if r.ndim == 0 else r


def _check_out(f, args, r_shape, r_dtype, out, exact_dtype=False):
    """NumPy's rules for out=: a cupynum array of the result's shape, castable (same_kind; dot:
    the exact dtype and C order)."""
    if out is None:
        return
    if not isinstance(out, ndarray):
        raise TypeError(f"{f.__name__}: out must be a cupynum array")
    ok = tuple(out.shape) == tuple(r_shape)
    ok = ok and (out.dtype == r_dtype if exact_dtype else _np.can_cast(r_dtype, out.dtype, "same_kind"))
    if not ok:
        _numpy_raises(f, *args, out=_np.empty(out.shape, out.dtype))


# ---- matmul ----------------------------------------------------------------------------------------

def _matmul(a, b):
    """a @ b for cupynum arrays (NumPy's gufunc rules: 1-d operands promoted and their dimension
    removed, batch dimensions broadcast); returns an array (0-d for two vectors)."""
    if a.ndim == 0 or b.ndim == 0:
        _numpy_raises(_np.matmul, a, b)
    A = a if a.ndim >= 2 else _core.reshape(a, (1, a.shape[0]))
    B = b if b.ndim >= 2 else _core.reshape(b, (b.shape[0], 1))
    try:
        if A.shape[-1] != B.shape[-2]:
            raise ValueError
        batch = _np.broadcast_shapes(tuple(A.shape[:-2]), tuple(B.shape[:-2]))
        dt = _np.result_type(a.dtype, b.dtype)
    except (ValueError, TypeError):
        _numpy_raises(_np.matmul, a, b)
    if dt.kind not in "biufc":
        _numpy_raises(_np.matmul, a, b)
    if A.dtype != dt:
        A = _core.cast(A, dt)
    if B.dtype != dt:
        B = _core.cast(B, dt)
    shape_a, shape_b = batch + tuple(A.shape[-2:]), batch + tuple(B.shape[-2:])
    if tuple(A.shape) != shape_a:
        A = _core.broadcast_to(A, shape_a)
    if tuple(B.shape) != shape_b:
        B = _core.broadcast_to(B, shape_b)
    C = _core.matmul(A, B, dt)
    shape = tuple(C.shape)
    if a.ndim == 1:
        shape = shape[:-2] + shape[-1:]
    if b.ndim == 1:
        shape = shape[:-1]
    return C if shape == tuple(C.shape) else _core.reshape(C, shape)


def _result_shape_matmul(a, b):
    A = a.shape if a.ndim >= 2 else (1,) + tuple(a.shape)
    B = b.shape if b.ndim >= 2 else tuple(b.shape) + (1,)
    shape = _np.broadcast_shapes(tuple(A[:-2]), tuple(B[:-2])) + (A[-2], B[-1])
    if a.ndim == 1:
        shape = shape[:-2] + shape[-1:]
    if b.ndim == 1:
        shape = shape[:-1]
    return shape


def matmul(a, b, out=None, **kwargs):
    from ._functions import _ufunc_general
    a, b = _asarray(a), _asarray(b)
    if kwargs or (out is not None and not isinstance(out, ndarray)):
        if out is not None:
            kwargs["out"] = out
        return _ufunc_general(_np.matmul, "__call__", (a, b), kwargs)
    if out is not None:
        try:
            shape = _result_shape_matmul(a, b)
        except (ValueError, IndexError):
            shape = None
        if shape is not None:
            _check_out(_np.matmul, (a, b), shape, _np.result_type(a.dtype, b.dtype), out)
    return _deliver(_matmul(a, b), out)


# ---- dot, vdot, inner, tensordot, outer, kron -------------------------------------------------------

def _tensordot(a, b, axes_a, axes_b):
    """Contract axes_a of a with axes_b of b: a's free axes, then b's (numpy.tensordot)."""
    free_a = [d for d in range(a.ndim) if d not in axes_a]
    free_b = [d for d in range(b.ndim) if d not in axes_b]
    m = int(_np.prod([a.shape[d] for d in free_a], dtype=_np.int64))
    n = int(_np.prod([b.shape[d] for d in free_b], dtype=_np.int64))
    k = int(_np.prod([a.shape[d] for d in axes_a], dtype=_np.int64))
    at = _transpose(a, tuple(free_a + list(axes_a))) if a.ndim else a
    bt = _transpose(b, tuple(list(axes_b) + free_b)) if b.ndim else b
    A = _reshape(at, (m, k))
    B = _reshape(bt, (k, n))
    C = _matmul(A, B)
    return _reshape(C, tuple(a.shape[d] for d in free_a) + tuple(b.shape[d] for d in free_b))


def tensordot(a, b, axes=2):
    a, b = _asarray(a), _asarray(b)
    try:
        iter(axes)
    except TypeError:
        n = operator.index(axes)
        axes_a = list(range(a.ndim - n, a.ndim)) if n > 0 else []
        axes_b = list(range(n)) if n > 0 else []
        if n < 0 or n > a.ndim or n > b.ndim:
            _numpy_raises(_np.tensordot, a, b, axes=axes)
    else:
        axes_a, axes_b = axes
        axes_a = [axes_a] if isinstance(axes_a, (int, _np.integer)) else list(axes_a)
        axes_b = [axes_b] if isinstance(axes_b, (int, _np.integer)) else list(axes_b)
    ok = len(axes_a) == len(axes_b)
    try:
        axes_a = [operator.index(x) + (a.ndim if x < 0 else 0) for x in axes_a]
        axes_b = [operator.index(x) + (b.ndim if x < 0 else 0) for x in axes_b]
        ok = ok and all(0 <= x < a.ndim for x in axes_a) and all(0 <= x < b.ndim for x in axes_b)
        ok = ok and all(a.shape[x] == b.shape[y] for x, y in zip(axes_a, axes_b))
        ok = ok and len(set(axes_a)) == len(axes_a) and len(set(axes_b)) == len(axes_b)
    except TypeError:
        ok = False
    if not ok:
        _numpy_raises(_np.tensordot, a, b, axes=axes)
    return _tensordot(a, b, axes_a, axes_b)


def dot(a, b, out=None):
    a, b = _asarray(a), _asarray(b)
    if a.ndim == 0 or b.ndim == 0:
        r = _core.ufunc("multiply", (a, b))
    elif b.ndim <= 2 and a.ndim <= 2 or b.ndim == 1:
        if a.shape[-1] != b.shape[-2 if b.ndim >= 2 else 0]:
            _numpy_raises(_np.dot, a, b)
        r = _matmul(a, b)
    else:
        if a.shape[-1] != b.shape[-2]:
            _numpy_raises(_np.dot, a, b)
        r = _tensordot(a, b, [a.ndim - 1], [b.ndim - 2])
    if out is not None:
        _check_out(_np.dot, (a, b), r.shape, r.dtype, out, exact_dtype=True)
        if not out.flags.c_contiguous:
            _numpy_raises(_np.dot, a, b, out=_np.empty(out.shape, out.dtype, order="F"))
    return _deliver(r, out)


def vdot(a, b):
    a, b = _asarray(a), _asarray(b)
    if a.size != b.size:
        _numpy_raises(_np.vdot, a, b)
    A, B = _ravel(a), _ravel(b)
    if A.dtype.kind == "c":
        A = _core.ufunc("conjugate", (A,))
    return _deliver(_matmul(A, B), None)


def inner(a, b):
    a, b = _asarray(a), _asarray(b)
    if a.ndim == 0 or b.ndim == 0:
        return _deliver(_core.ufunc("multiply", (a, b)), None)
    if a.shape[-1] != b.shape[-1]:
        _numpy_raises(_np.inner, a, b)
    return _deliver(_tensordot(a, b, [a.ndim - 1], [b.ndim - 1]), None)


def outer(a, b, out=None):
    a, b = _asarray(a), _asarray(b)
    A = _reshape(_ravel(a), (a.size, 1))
    B = _reshape(_ravel(b), (1, b.size))
    if out is not None:
        from ._ufunc import ufuncs
        _check_out(_np.outer, (a, b), (a.size, b.size), _np.result_type(a.dtype, b.dtype), out)
        return ufuncs["multiply"](A, B, out=out)
    return _core.ufunc("multiply", (A, B))


def kron(a, b):
    a, b = _asarray(a), _asarray(b)
    nd = max(a.ndim, b.ndim)
    sa = (1,) * (nd - a.ndim) + tuple(a.shape)
    sb = (1,) * (nd - b.ndim) + tuple(b.shape)
    if nd == 0:
        return _deliver(_core.ufunc("multiply", (a, b)), None)
    A = _reshape(a, tuple(x for s in sa for x in (s, 1)))
    B = _reshape(b, tuple(x for s in sb for x in (1, s)))
    r = _core.ufunc("multiply", (A, B))
    return _reshape(r, tuple(x * y for x, y in zip(sa, sb)))


def matrix_power(a, n):
    """numpy.linalg.matrix_power: repeated squaring in NumPy's order (so results match bit for
    bit); a negative power inverts first (numpy.linalg.inv, through cupynum.linalg)."""
    a = _asarray(a)
    if a.ndim < 2 or a.shape[-1] != a.shape[-2]:
        _numpy_raises(_np.linalg.matrix_power, a, n)
    try:
        n = operator.index(n)
    except TypeError as e:
        raise TypeError("exponent must be an integer") from e
    if n == 0:
        from ._creation import eye
        e = eye(a.shape[-1], dtype=a.dtype)
        return _core.cast(_core.broadcast_to(e, tuple(a.shape)), a.dtype)
    if n < 0:
        from . import linalg
        a = _asarray(linalg.inv(a))
        n = -n
    if n == 1:
        return a
    if n == 2:
        return _matmul(a, a)
    if n == 3:
        return _matmul(_matmul(a, a), a)
    z = result = None
    while n > 0:
        z = a if z is None else _matmul(z, z)
        n, bit = divmod(n, 2)
        if bit:
            result = z if result is None else _matmul(result, z)
    return result


def linalg_outer(x1, x2, /):
    x1, x2 = _asarray(x1), _asarray(x2)
    if x1.ndim != 1 or x2.ndim != 1:
        _numpy_raises(_np.linalg.outer, x1, x2)
    return outer(x1, x2)


def linalg_tensordot(x1, x2, /, *, axes=2):
    return tensordot(x1, x2, axes=axes)


def linalg_matmul(x1, x2, /):
    return matmul(x1, x2)
