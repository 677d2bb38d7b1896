"""Products: matmul, dot, vdot, inner, outer, tensordot, kron, and numpy.linalg's matrix_power,
multi_dot, vecdot, outer, tensordot, matmul.

Every product is planned into the one matmul op (csrc/kernels/matmul.c: BLAS gemm/gemv for
float32/64 and complex, exact loops for bool and integers), element-wise multiplies and views, with
NumPy's shapes, dtypes and errors.  Errors are NumPy's own: the call is repeated on empty stand-ins
of the operands' shapes and dtypes (no data moves), so NumPy raises its message."""

import math as _math
import operator

import numpy as _np

from . import _core, _fallback
from ._ndarray import _ravel, _reshape, _transpose, ndarray


def _asarray(a):
    return a if isinstance(a, ndarray) else _core.from_any(a)


def _standin(x):
    """A NumPy array of x's shape and dtype that holds no data (stride 0)."""
    if isinstance(x, (list, tuple)):
        return type(x)(_standin(y) for y in x)
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
    na, nb = a.ndim, b.ndim
    dt = a.dtype
    if 0 < na <= 2 and 0 < nb <= 2 and dt == b.dtype and dt.kind in "biufc":
        # The common case, without NumPy's shape and type helpers (a dot product in a Python
        # loop costs a few microseconds here, issue #21): no batch dimensions, no cast.
        sa, sb = a.shape, b.shape
        if sa[-1] == sb[0]:
            A = a if na == 2 else _core.reshape(a, (1, sa[0]))
            B = b if nb == 2 else _core.reshape(b, (sb[0], 1))
            C = _core.matmul(A, B, dt)
            if na == 2 and nb == 2:
                return C
            return _core.reshape(C, (sa[0],) if nb == 1 and na == 2 else
                                 (sb[1],) if na == 1 and nb == 2 else ())
    if na > 2 and na == nb and dt == b.dtype and dt.kind in "biufc":
        # a stack of matrices by a stack of the same batch shape: nothing to broadcast or cast
        sa, sb = a.shape, b.shape
        if sa[-1] == sb[-2] and sa[:-2] == sb[:-2]:
            return _core.matmul(a, b, dt)
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

def _view_as(a, shape):
    """a's elements in C order as `shape`: a view where the layout allows, else a C-ordered copy
    (what reshape does, without its argument handling)."""
    v = _core.reshape(a, shape)
    return v if v is not None else _core.reshape(_core.cast(a, a.dtype), shape)


def _tensordot_plan(sa, sb, axes_a, axes_b):
    """How to contract axes_a of an array of shape sa with axes_b of one of shape sb (checked
    axes): the transposes that put a's free axes first and b's last (None: none), the matrix
    shapes, and the result's shape (numpy.tensordot's)."""
    na, nb = len(sa), len(sb)
    free_a = [d for d in range(na) if d not in axes_a]
    free_b = [d for d in range(nb) if d not in axes_b]
    m = n = k = 1   # (numpy.prod costs ~6 us a call here)
    for d in free_a:
        m *= sa[d]
    for d in free_b:
        n *= sb[d]
    for d in axes_a:
        k *= sa[d]
    perm_a, perm_b = (*free_a, *axes_a), (*axes_b, *free_b)
    return (perm_a if na > 1 and perm_a != tuple(range(na)) else None, (m, k),
            perm_b if nb > 1 and perm_b != tuple(range(nb)) else None, (k, n),
            tuple(sa[d] for d in free_a) + tuple(sb[d] for d in free_b))


def _view_as(a, shape):
    """a's elements in C order as `shape`: a view where the layout allows, else a C-ordered copy
    (what reshape does, without its argument handling)."""
    v = _core.reshape(a, shape)
    return v if v is not None else _core.reshape(_core.cast(a, a.dtype), shape)


def _run_tensordot(a, b, plan):
    perm_a, mk, perm_b, kn, shape = plan
    if perm_a is not None:
        a = _core.transpose(a, perm_a)
    if perm_b is not None:
        b = _core.transpose(b, perm_b)
    A, B = _core.reshape(a, mk), _core.reshape(b, kn)
    if A is None:
        A = _core.reshape(_core.cast(a, a.dtype), mk)
    if B is None:
        B = _core.reshape(_core.cast(b, b.dtype), kn)
    dt = A.dtype
    # two matrices of one dtype: _matmul's first case, without its tests
    C = _core.matmul(A, B, dt) if dt == B.dtype and dt.kind in "biufc" else _matmul(A, B)
    r = _core.reshape(C, shape)
    return r if r is not None else _view_as(C, shape)


def _tensordot(a, b, axes_a, axes_b):
    """Contract axes_a of a with axes_b of b: a's free axes, then b's (numpy.tensordot).  The axes
    are checked (distinct, in range, equal extents)."""
    return _run_tensordot(a, b, _tensordot_plan(a.shape, b.shape, axes_a, axes_b))


def _axes_list(x, nd):
    """One side of tensordot's axes as a list of non-negative ints (None: not integers)."""
    try:
        x = [operator.index(x)] if isinstance(x, (int, _np.integer)) else [operator.index(y) for y in x]
    except TypeError:
        return None
    return [y + nd if y < 0 else y for y in x]


# Plans of the tensordots seen, by operand shapes and axes given as Python ints (a contraction
# in a loop, a convolution's nine, checks and plans once: its host cost was 6.5 us a call).
_TD_PLANS = {}


def _td_key(axes):
    """tensordot's axes as a dictionary key, where they are Python ints only (else None: a float
    or bool equal to an int must still meet NumPy's error)."""
    if type(axes) is int:
        return axes
    if type(axes) is tuple or type(axes) is list:
        if len(axes) != 2:
            return None
        x, y = axes
        kx = x if type(x) is int else tuple(x) if type(x) is list or type(x) is tuple else None
        ky = y if type(y) is int else tuple(y) if type(y) is list or type(y) is tuple else None
        if kx is None or ky is None:
            return None
        for v in (kx if type(kx) is tuple else (kx,)) + (ky if type(ky) is tuple else (ky,)):
            if type(v) is not int:
                return None
        return (kx, ky)
    return None


def tensordot(a, b, axes=2):
    if type(a) is not ndarray:
        a = _asarray(a)
    if type(b) is not ndarray:
        b = _asarray(b)
    sa, sb = a.shape, b.shape
    key = _td_key(axes)
    if key is not None:
        plan = _TD_PLANS.get((sa, sb, key))
        if plan is not None:
            return _run_tensordot(a, b, plan)
    na, nb = len(sa), len(sb)
    try:
        if type(axes) is int:
            raise TypeError
        iter(axes)
    except TypeError:
        n = operator.index(axes)
        if n < 0 or n > na or n > nb:
            _numpy_raises(_np.tensordot, a, b, axes=axes)
        axes_a = list(range(na - n, na)) if n > 0 else []
        axes_b = list(range(n)) if n > 0 else []
    else:
        axes_a, axes_b = axes
        axes_a, axes_b = _axes_list(axes_a, na), _axes_list(axes_b, nb)
    if (axes_a is None or axes_b is None or len(axes_a) != len(axes_b)
            or not all(0 <= x < na for x in axes_a) or not all(0 <= x < nb for x in axes_b)
            or not all(sa[x] == sb[y] for x, y in zip(axes_a, axes_b))
            or len(set(axes_a)) != len(axes_a) or len(set(axes_b)) != len(axes_b)):
        _numpy_raises(_np.tensordot, a, b, axes=axes)
    plan = _tensordot_plan(sa, sb, axes_a, axes_b)
    if key is not None:
        if len(_TD_PLANS) >= 256:
            _TD_PLANS.clear()
        _TD_PLANS[(sa, sb, key)] = plan
    return _run_tensordot(a, b, plan)


def dot(a, b, out=None):
    if out is None and type(a) is ndarray and type(b) is ndarray:
        r = _core.dot1(a, b)   # vectors and matrices of one dtype: one call (a dot in a Python loop)
        if r is not None:
            return r
    if out is None and type(a) is ndarray and type(b) is ndarray and 0 < a.ndim <= 2 and 0 < b.ndim <= 2:
        # Two vectors or matrices: straight to the product (a dot in a Python loop, issue #21).
        if a.shape[-1] != b.shape[0]:
            _numpy_raises(_np.dot, a, b)
        r = _matmul(a, b)
        return _core.to_scalar(r) if r.ndim == 0 else r
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


def _column(a, shape):
    """a's elements in C order as a view of `shape` ((n, 1) or (1, n)): a 1-d operand (any
    stride) as it is, without ravel's copy of a strided vector (the product reads it once)."""
    v = _core.reshape(a, shape) if a.ndim == 1 else None
    return _reshape(_ravel(a), shape) if v is None else v


def outer(a, b, out=None):
    a, b = _asarray(a), _asarray(b)
    A = _column(a, (a.size, 1))
    B = _column(b, (1, b.size))
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


def linalg_vecdot(x1, x2, /, *, axis=-1):
    """numpy.linalg.vecdot: sum over `axis` of conj(x1) * x2, other dimensions broadcast; one
    batched matmul of (..., 1, n) by (..., n, 1) (BLAS dot per pair)."""
    x1, x2 = _asarray(x1), _asarray(x2)
    try:
        a1 = operator.index(axis) + (x1.ndim if axis < 0 else 0)
        a2 = operator.index(axis) + (x2.ndim if axis < 0 else 0)
        ok = 0 <= a1 < x1.ndim and 0 <= a2 < x2.ndim and x1.shape[a1] == x2.shape[a2]
        if ok:
            _np.broadcast_shapes(tuple(s for d, s in enumerate(x1.shape) if d != a1),
                                 tuple(s for d, s in enumerate(x2.shape) if d != a2))
    except (TypeError, ValueError):
        ok = False
    if not ok or _np.result_type(x1.dtype, x2.dtype).kind not in "biufc":
        _numpy_raises(_np.linalg.vecdot, x1, x2, axis=axis)
    X1 = _transpose(x1, tuple(d for d in range(x1.ndim) if d != a1) + (a1,))
    X2 = _transpose(x2, tuple(d for d in range(x2.ndim) if d != a2) + (a2,))
    if X1.dtype.kind == "c":
        X1 = _core.ufunc("conjugate", (X1,))
    n = x1.shape[a1]
    r = _matmul(_reshape(X1, tuple(X1.shape[:-1]) + (1, n)), _reshape(X2, tuple(X2.shape[:-1]) + (n, 1)))
    r = _reshape(r, tuple(r.shape[:-2]))
    return _deliver(r, None)


# ---- matvec, vecmat, vecdot: NumPy's gufuncs on the matmul op ------------------------------------

# core dimensions of (input 1, input 2, output): (m,n),(n)->(m); (n),(n,m)->(m); (n),(n)->()
_GUFUNC_CORES = {"matvec": (2, 1, 1), "vecmat": (1, 2, 1), "vecdot": (1, 1, 0)}
_GUFUNC_KEYWORDS = {"out", "axes", "axis", "keepdims", "dtype", "casting", "order", "subok"}


class _Decline(Exception):
    """A gufunc call the native path does not take: NumPy's own call decides (raises its error,
    or computes on gathered data)."""


def _core_axes(entry, nd, count):
    """One operand's axes= entry: `count` distinct axes of an operand of nd dimensions."""
    t = (entry,) if isinstance(entry, (int, _np.integer)) and count == 1 else tuple(entry)
    if len(t) != count:
        raise _Decline
    t = tuple(operator.index(x) for x in t)
    if any(not -nd <= x < nd for x in t):
        raise _Decline
    t = tuple(x % nd for x in t)
    if len(set(t)) != len(t):
        raise _Decline
    return t


def _gufunc_plan(name, x1, x2, axes, axis, keepdims):
    """(core axes of x1, of x2, the output's core axis or None, output core count) for NumPy's
    axes=/axis=/keepdims= rules."""
    c1, c2, co = _GUFUNC_CORES[name]
    if keepdims:
        if co:
            raise _Decline
        co = 1
    if axis is not None:
        if axes is not None or name != "vecdot" or not isinstance(axis, (int, _np.integer)):
            raise _Decline
        axes = [axis, axis] + ([axis] if keepdims else [])
    if axes is None:
        a1 = tuple(range(x1.ndim - c1, x1.ndim))
        a2 = tuple(range(x2.ndim - c2, x2.ndim))
        if x1.ndim < c1 or x2.ndim < c2:
            raise _Decline
        return a1, a2, (-1 if co else None), co
    axes = list(axes)
    if len(axes) not in ((2, 3) if _GUFUNC_CORES[name][2] == 0 else (3,)):
        raise _Decline
    a1 = _core_axes(axes[0], x1.ndim, c1)
    a2 = _core_axes(axes[1], x2.ndim, c2)
    oa = -1 if co else None
    if len(axes) == 3:
        e = axes[2]
        if co == 0:
            if isinstance(e, (int, _np.integer)) or tuple(e) != ():
                raise _Decline
        else:
            t = (e,) if isinstance(e, (int, _np.integer)) else tuple(e)
            if len(t) != 1:
                raise _Decline
            oa = operator.index(t[0])
    return a1, a2, oa, co


def _move_last(x, core):
    """x with its `core` axes moved last, in that order."""
    perm = tuple(d for d in range(x.ndim) if d not in core) + tuple(core)
    return x if perm == tuple(range(x.ndim)) else _core.transpose(x, perm)


def _gufunc_native(name, args, kwargs):
    if len(args) > 2:
        if "out" in kwargs or len(args) > 3:
            raise _Decline
        kwargs = dict(kwargs, out=args[2])
    if len(args) < 2 or set(kwargs) - _GUFUNC_KEYWORDS:
        raise _Decline
    out = kwargs.get("out")
    if isinstance(out, tuple):
        if len(out) != 1:
            raise _Decline
        out = out[0]
    if out is not None and not isinstance(out, ndarray):
        raise _Decline
    if kwargs.get("order", "K") not in ("K", None) or kwargs.get("subok", True) is not True:
        raise _Decline
    casting = kwargs.get("casting", "same_kind")
    keepdims = kwargs.get("keepdims", False)
    if not isinstance(keepdims, (bool, _np.bool_)):
        raise _Decline
    try:
        x1, x2 = _asarray(args[0]), _asarray(args[1])
    except TypeError:   # a dtype cupynum lacks (object, long double)
        raise _Decline from None
    try:
        a1, a2, oa, co = _gufunc_plan(name, x1, x2, kwargs.get("axes"), kwargs.get("axis"), keepdims)
        X1, X2 = _move_last(x1, a1), _move_last(x2, a2)
        n1, n2 = X1.ndim - len(a1), X2.ndim - len(a2)
        loop = _np.broadcast_shapes(tuple(X1.shape[:n1]), tuple(X2.shape[:n2]))
        dt = kwargs.get("dtype")
        dt = _np.result_type(x1.dtype, x2.dtype) if dt is None else _np.dtype(dt)
    except (TypeError, ValueError):
        raise _Decline from None
    if dt.kind not in "biufc" or casting not in ("no", "equiv", "safe", "same_kind", "unsafe") or \
            not all(_np.can_cast(x.dtype, dt, casting) for x in (x1, x2)):
        raise _Decline
    if name == "matvec":
        ok = X1.shape[-1] == X2.shape[-1]
    elif name == "vecmat":
        ok = X1.shape[-1] == X2.shape[-2]
    else:
        ok = X1.shape[-1] == X2.shape[-1]
    if not ok:
        raise _Decline
    cshape = {"matvec": X1.shape[-2:-1], "vecmat": X2.shape[-1:], "vecdot": (1,) if co else ()}[name]
    if out is not None:
        nl = out.ndim - len(cshape)
        if nl < 0:
            raise _Decline
        oax = oa % out.ndim if co else None
        O = _move_last(out, (oax,)) if co else out
        try:
            if tuple(O.shape[nl:]) != tuple(cshape) or \
                    _np.broadcast_shapes(loop, tuple(O.shape[:nl])) != tuple(O.shape[:nl]):
                raise _Decline
        except ValueError:
            raise _Decline from None
        if not _np.can_cast(dt, out.dtype, casting):
            raise _Decline
    elif co:
        nd = len(loop) + 1
        if not -nd <= oa < nd:
            raise _Decline
        oax = oa % nd
    if X1.dtype != dt:
        X1 = _core.cast(X1, dt)
    if X2.dtype != dt:
        X2 = _core.cast(X2, dt)
    if name != "matvec" and dt.kind == "c":
        X1 = _core.ufunc("conjugate", (X1,))
    if name == "matvec":
        if X2.ndim == 1:
            r = _matmul(X1, X2)
        else:
            r = _matmul(X1, _reshape(X2, tuple(X2.shape) + (1,)))
            r = _reshape(r, tuple(r.shape[:-1]))
    elif name == "vecmat":
        if X1.ndim == 1:
            r = _matmul(X1, X2)
        else:
            r = _matmul(_reshape(X1, tuple(X1.shape[:-1]) + (1, X1.shape[-1])), X2)
            r = _reshape(r, tuple(r.shape[:-2]) + tuple(r.shape[-1:]))
    else:
        n = X1.shape[-1]
        if X1.ndim == 1 and X2.ndim == 1:
            r = _matmul(X1, X2)
        else:
            r = _matmul(_reshape(X1, tuple(X1.shape[:-1]) + (1, n)),
                        _reshape(X2, tuple(X2.shape[:-1]) + (n, 1)))
            r = _reshape(r, tuple(r.shape[:-2]))
        if co:
            r = _reshape(r, tuple(r.shape) + (1,))
    if out is not None:
        _core.assign(O, r)
        return out
    if co and oax != r.ndim - 1:
        perm = list(range(r.ndim - 1))
        perm.insert(oax, r.ndim - 1)
        r = _core.transpose(r, tuple(perm))
    return _deliver(r, None)


def gufunc_call(uf, args, kwargs):
    """cupynum.matvec / vecmat / vecdot called (NumPy's gufuncs, with their out=, axes=, axis=,
    keepdims=, dtype=, casting=): one batched matmul op (BLAS gemv/dot for floats and complex,
    exact loops for integers and bool), the operands' core axes moved last as views, batch
    dimensions broadcast; vecmat and vecdot conjugate their first operand.  A call the native
    path does not take (signature=, order=, a NumPy output, an operand of a dtype cupynum lacks,
    anything NumPy rejects) is NumPy's own: it raises its error or computes on gathered data."""
    try:
        return _gufunc_native(uf.__name__, args, kwargs)
    except _Decline:
        from ._ufunc import _numpy_general
        if len(args) > uf._numpy.nin and "out" not in kwargs:
            kwargs = dict(kwargs, out=tuple(args[uf._numpy.nin:]))
            args = args[:uf._numpy.nin]
        return _numpy_general(uf._numpy, "__call__", args, kwargs)


def _chain_order(shapes):
    """The parenthesisation of a matrix chain with the fewest multiplications (the classic
    dynamic programme; ties keep the first split, so the order is numpy.linalg.multi_dot's)."""
    n = len(shapes)
    p = [s[0] for s in shapes] + [shapes[-1][1]]
    cost = [[0] * n for _ in range(n)]
    split = [[0] * n for _ in range(n)]
    for length in range(1, n):
        for i in range(n - length):
            j = i + length
            cost[i][j] = float("inf")
            for k in range(i, j):
                q = cost[i][k] + cost[k + 1][j] + p[i] * p[k + 1] * p[j + 1]
                if q < cost[i][j]:
                    cost[i][j], split[i][j] = q, k
    return split


def multi_dot(arrays, *, out=None):
    """numpy.linalg.multi_dot: the chain multiplied in the cheapest order (NumPy's choice)."""
    arrays = [_asarray(a) for a in arrays]
    n = len(arrays)
    if n < 2:
        raise ValueError("Expecting at least two arrays.")
    if n == 2:
        return dot(arrays[0], arrays[1], out=out)
    first, last = arrays[0].ndim, arrays[-1].ndim
    if first == 1:
        arrays[0] = _core.reshape(arrays[0], (1, arrays[0].shape[0]))
    if last == 1:
        arrays[-1] = _core.reshape(arrays[-1], (arrays[-1].shape[0], 1))
    if any(a.ndim != 2 for a in arrays) or any(x.shape[1] != y.shape[0] for x, y in zip(arrays, arrays[1:])):
        _numpy_raises(_np.linalg.multi_dot, arrays)
    if n == 3:
        (a0, a1b0), (b1c0, c1) = arrays[0].shape, arrays[2].shape
        if a0 * b1c0 * (a1b0 + c1) < a1b0 * c1 * (a0 + b1c0):
            r = _matmul(_matmul(arrays[0], arrays[1]), arrays[2])
        else:
            r = _matmul(arrays[0], _matmul(arrays[1], arrays[2]))
    else:
        split = _chain_order([tuple(a.shape) for a in arrays])

        def chain(i, j):
            if i == j:
                return arrays[i]
            return _matmul(chain(i, split[i][j]), chain(split[i][j] + 1, j))
        r = chain(0, n - 1)
    if first == 1 and last == 1:
        r = _core.reshape(r, ())
    elif first == 1 or last == 1:
        r = _reshape(r, (r.size,))
    if out is not None:
        _check_out(_np.linalg.multi_dot, (arrays,), r.shape, r.dtype, out, exact_dtype=True)
    return _deliver(r, out)


# A NumPy subclass or a dtype cupynum lacks (long double, object) as an operand: NumPy's own
# function computes, as the fallback did before these were native.
for _name, _npf in (("matmul", _np.matmul), ("tensordot", _np.tensordot), ("dot", _np.dot),
                    ("vdot", _np.vdot), ("inner", _np.inner), ("outer", _np.outer),
                    ("kron", _np.kron), ("matrix_power", _np.linalg.matrix_power),
                    ("linalg_outer", _np.linalg.outer), ("linalg_tensordot", _np.linalg.tensordot),
                    ("linalg_matmul", _np.linalg.matmul), ("linalg_vecdot", _np.linalg.vecdot),
                    ("multi_dot", _np.linalg.multi_dot)):
    globals()[_name] = _fallback.numpy_for_foreign(_npf)(globals()[_name])
del _name, _npf
