"""cupynum.ufunc objects (csrc/module/ufuncobject.c): the call forms the C call does not take
directly, reduced to it, the NumPy fallback of calls, and the methods reduce, accumulate,
reduceat, outer, at.

The call itself -- out=, where=, dtype=, signature=, casting=, order=, subok=, NumPy's validation
and type resolution, broadcasting, NumPy's error texts -- is one C path (csrc/module/ufunc.c).
Native ufuncs (those of the op table) compute with the runtime's kernels; methods let NumPy
resolve dtypes (`ufunc.resolve_dtypes`).  Ufuncs the op table lacks fall back to NumPy (warning
once).  Every function receives the cupynum.ufunc first."""

import functools
import operator

import numpy as _np
from numpy.lib.array_utils import normalize_axis_index

from . import _core, _fallback
from ._ndarray import ndarray

_NoValue = _np._NoValue

_CALL_KEYWORDS = {"out", "where", "dtype", "signature", "casting", "order", "subok"}


def _asarray(a):
    return a if isinstance(a, ndarray) else _core.from_any(a)


def _operand(a):
    """A cupynum array of `a`, or None when its dtype is one cupynum lacks (longdouble, object):
    NumPy then computes the method."""
    try:
        return _asarray(a)
    except TypeError:
        if isinstance(a, ndarray):
            raise
        return None


try:   # NumPy's errstate context variable: its default (warn on divide, over, invalid) at once
    from numpy._core._ufunc_config import _extobj_contextvar as _EXTOBJ
    _EXTOBJ_DEFAULT = _EXTOBJ.get()
except (ImportError, AttributeError, LookupError):   # (another NumPy: geterr() alone)
    _EXTOBJ = _EXTOBJ_DEFAULT = None


def _report_now(r):
    """A method's floating-point reports at the call, as NumPy's (ufunc methods are not fused, so
    the flush costs only the call's own work): when a float result may report under the current
    errstate, the queue runs now.  The mode is the same on every rank: a deterministic flush.
    (The errstate the import saw -- NumPy's default, which reports -- is recognised without
    geterr()'s dict, 0.5 us of a cumsum of 100; were it another mode, that only flushes.)"""
    if r.size and r.dtype.kind in "fc" and (
            _EXTOBJ is not None and _EXTOBJ.get() is _EXTOBJ_DEFAULT or
            any(m != "ignore" for m in _np.geterr().values())):
        _core.sync()


@functools.lru_cache(maxsize=None)
def _table_identity(name):
    """The op table's reduction identity of `name` (None, 0 or 1): ops that have one reduce
    empty arrays in the kernel, without an initial value."""
    return _core.op_info(name)["identity"]


@functools.lru_cache(maxsize=None)
def _reorderable(name):
    """May a reduction of `name` run over several axes at once (NumPy's "reorderable" ufuncs:
    ops.def's reduce column)?  Ufuncs the table lacks are not."""
    try:
        return _core.op_info(name)["reorderable"]
    except KeyError:
        return False


def _qual(uf, method=None):
    return f"numpy.{uf.__name__}" + ("" if method is None else "." + method)


def _fallback_call(uf, method, args, kwargs, depth=2):
    """NumPy computes a ufunc (method) cupynum has no kernel for (warns once)."""
    q = _qual(uf, None if method == "__call__" else method)
    _fallback.note(q, depth)
    return _fallback.call(q, getattr(uf._numpy, method), args, kwargs)


def _numpy_general(npu, method, inputs, kwargs):
    """NumPy computes on gathered data, writing back into cupynum outputs (no warning: it helps
    with operands cupynum cannot take, such as NumPy output arrays or foreign objects, and raises
    NumPy's own errors).  The C call (csrc/module/ufunc.c) hands such calls here."""
    out = kwargs.get("out")
    if out is None:
        return _fallback.compute(getattr(npu, method), inputs, kwargs)
    outs = out if isinstance(out, tuple) else (out,)
    r = _fallback.compute(getattr(npu, method), inputs, kwargs,
                          write=tuple(o for o in outs if isinstance(o, ndarray)))
    rs = tuple(x if o is None else o for x, o in zip(r if isinstance(r, tuple) else (r,), outs))
    return rs if len(rs) > 1 else rs[0]


# ---- calls -------------------------------------------------------------------------------------

# NumPy's gufuncs that are native without an op of the table: compositions over the matmul op
# (cupynum/_products.py's gufunc_call)
GUFUNCS = frozenset(("matvec", "vecmat", "vecdot"))


def _gufunc_call(uf, args, kwargs):
    from ._products import gufunc_call
    return gufunc_call(uf, args, kwargs)


def _call(uf, *args, **kwargs):
    """The argument forms the C call (vectorcall -> csrc/module/ufunc.c) does not take directly,
    reduced to it: outputs passed positionally become out=, NumPy's older `sig=` is signature=.
    Wrong forms (too few or too many operands, unknown keywords, out given twice) are NumPy's to
    reject: its call raises its own TypeError.  Ufuncs the op table lacks fall back to NumPy."""
    if not uf._native:
        if uf.__name__ in GUFUNCS:   # matvec, vecmat, vecdot: cupynum/_products.py
            return _gufunc_call(uf, args, kwargs)
        return _fallback_call(uf, "__call__", args, kwargs)
    npu = uf._numpy
    nin, nout = npu.nin, npu.nout
    if "sig" in kwargs and "signature" not in kwargs:
        kwargs["signature"] = kwargs.pop("sig")
    if len(args) < nin or len(args) > nin + nout or set(kwargs) - _CALL_KEYWORDS or \
            (len(args) > nin and "out" in kwargs):
        return _fallback.compute(npu, args, kwargs)   # NumPy's TypeError
    if len(args) > nin:
        kwargs["out"] = tuple(args[nin:]) + (None,) * (nin + nout - len(args))
        args = args[:nin]
    return _core.ufunc_call(uf, args, kwargs)


# ---- reductions -------------------------------------------------------------------------------

def _keepdims(k):
    """NumPy's conversion of keepdims=: a bool, or an integer's truth (TypeError otherwise)."""
    return k if isinstance(k, (bool, _np.bool_)) else bool(operator.index(k))


def _zero_d_axis(axis):
    """An integer axis= of a reduction over a 0-d array: 0 and -1 are accepted, as NumPy's."""
    if operator.index(axis) not in (0, -1):
        raise _np.exceptions.AxisError(operator.index(axis), 0)


def _axes(axis, ndim, zero_d=False):
    """The normalized axes of `axis` over `ndim` dimensions.  zero_d: ufunc reductions accept
    axis 0 and -1 (alone or in a tuple) on a 0-d operand, as NumPy's, reducing nothing."""
    if axis is None:
        return tuple(range(ndim))
    if isinstance(axis, (bool, _np.bool_)) or isinstance(axis, (tuple, list)) and \
            any(isinstance(a, (bool, _np.bool_)) for a in axis):
        raise TypeError("an integer is required")   # NumPy's reductions refuse a bool axis
    if zero_d and ndim == 0 and not isinstance(axis, (tuple, list)):
        _zero_d_axis(axis)
        return ()
    if isinstance(axis, (tuple, list)):
        axes = tuple(normalize_axis_index(operator.index(a), ndim) for a in axis)
        if len(set(axes)) != len(axes):
            raise ValueError("duplicate value in 'axis'")
        return axes
    return (normalize_axis_index(operator.index(axis), ndim),)


def _default_acc(npu, dt):
    """NumPy's reduce/accumulate dtype: the op table's accumulator rule where it decides (ops.def's
    acc column: add and multiply widen small integers and bools to the platform integer); other
    ops use their own loop."""
    acc = _core.reduce_dtype(npu.__name__, dt)
    if acc is not None:
        return acc
    loop = npu.resolve_dtypes((dt, dt, None), reduction=True)
    return loop[2]


def _finish(uf, r, shape, axes, keepdims, out):
    if keepdims:
        r = _core.reshape(r, tuple(1 if d in axes else n for d, n in enumerate(shape)))
    if out is not None:
        if out.ndim != r.ndim:
            extra = " (must match the operand's when keepdims=True)" if keepdims else ""
            raise ValueError(f"output parameter for reduction operation {uf.__name__} has the "
                             f"wrong number of dimensions: Found {out.ndim} but expected "
                             f"{r.ndim}{extra}")
        if out.shape != r.shape:
            raise ValueError(f"output parameter for reduction operation {uf.__name__} has a "
                             f"non-reduction dimension not equal to the output one: "
                             f"{out.shape} against {r.shape}")
        _core.assign(out, r)
        return out
    if r.ndim == 0:
        return _core.to_scalar(r)
    return r


def _single_out(out):
    """A method's out=: the array of a 1-tuple; other tuples stay (NumPy rejects them)."""
    return out[0] if isinstance(out, tuple) and len(out) == 1 else out


def _initial_value(initial, acc, given=False):
    if given and type(initial) is float and _np.dtype(acc).kind in "iu" and initial == initial \
            and abs(initial) != float("inf"):
        initial = int(initial)   # NumPy's integer loops take a float initial as int(): 2.5 is 2
    if given and type(initial) is int:
        # NEP 50: a Python int must fit the loop dtype (initial=-1 on uint8 raises OverflowError)
        return _np.array(initial, dtype=acc)[()]
    return _np.asarray(initial).astype(acc)[()]


# (numpy ufunc, operand dtype, type of initial=, initial=) -> (accumulator dtype, initial value
# or None, reorderable) of reductions that reduce() resolved without dtype=, out= or where=, initial= absent
# or a Python bool, int or float: the same call on the same dtype skips the resolution
# (resolve_dtypes, the op table, the initial value's conversion), a third of a small
# reduction's host time.  (The type is in the key: initial=-1 and -1.0 are equal keys otherwise,
# and NumPy converts them differently.)
_PLAIN_REDUCE = {}
_PLAIN_INITIAL = (bool, int, float)


def reduce(uf, array, axis=0, dtype=None, out=None, keepdims=False, initial=_NoValue,
           where=True):
    ax = axis[0] if type(axis) is tuple and len(axis) == 1 and type(axis[0]) is int else axis
    if type(array) is ndarray and (type(ax) is int or ax is None) and dtype is None and \
            out is None and keepdims is False and where is True:
        # reduce(a, axis) of a cupynum array: the general path's steps with its resolution cached
        plain = _PLAIN_REDUCE.get((uf._numpy, array.dtype, type(initial), initial))
        nd = array.ndim
        if plain is not None and nd:
            if ax is None:
                axes = tuple(range(nd)) if nd == 1 or plain[2] else None
                n = array.size
            else:
                axes = (ax % nd,) if -nd <= ax < nd else None
                n = array.shape[ax] if axes else 0
            if axes and (n or plain[1] is not None):
                r = _core.reduce(uf._numpy.__name__, array, axes, plain[0], plain[1])
                return _core.to_scalar(r) if r.ndim == 0 else r
    npu = uf._numpy
    keepdims = _keepdims(keepdims)
    kw = {"axis": axis, "dtype": dtype, "out": out, "keepdims": keepdims}
    if initial is not _NoValue:
        kw["initial"] = initial
    if where is not True:
        kw["where"] = where
    if not uf._native:
        return _fallback_call(uf, "reduce", (array,), kw)
    if npu.nin != 2 or npu.nout != 1:
        raise ValueError("reduce only supported for binary functions")
    out = _single_out(out)
    if out is not None and not isinstance(out, ndarray):
        return _numpy_general(npu, "reduce", (array,), kw)
    a = _operand(array)
    if a is None:
        return _numpy_general(npu, "reduce", (array,), kw)
    name = npu.__name__
    axes = _axes(axis, a.ndim, zero_d=True)
    try:
        if dtype is not None:
            acc = _np.dtype(dtype)
        elif out is not None:
            # NumPy promotes (out, input, out): the loop accumulates in that dtype (a float
            # product into an int64 out is a float product) and the result is cast into out.
            acc = npu.resolve_dtypes((out.dtype, a.dtype, None), reduction=True,
                                     casting="unsafe")[0]
        else:
            acc = _default_acc(npu, a.dtype)
        npu.resolve_dtypes((acc, acc, None), reduction=True)   # NumPy's TypeError first
    except Exception:
        return _numpy_general(npu, "reduce", (array,), kw)
    if len(axes) > 1 and not _reorderable(name):
        raise ValueError(f"reduction operation '{name}' is not reorderable, so at most one axis "
                         f"may be specified")
    ident = npu.identity
    if where is not True and ident is None and (initial is _NoValue or initial is None):
        raise ValueError(f"reduction operation '{name}' does not have an identity, so to use a "
                         f"where mask one has to specify 'initial'")
    nred = 1
    for d in axes:
        nred *= a.shape[d]
    if initial is not _NoValue and initial is not None:
        init = initial
    elif ident is not None and (where is not True or _table_identity(name) is None):
        init = ident
    else:
        init = None
    if nred == 0 and init is None and ident is None:
        raise ValueError(f"zero-size array to reduction operation {name} which has no identity")
    if init is None and nred == 0 and initial is None:
        raise ValueError(f"zero-size array to reduction operation {name} which has no identity")
    try:
        initv = None if init is None else _initial_value(init, acc, init is initial)
        src = a
        if where is not True:
            w = _asarray(where)
            if w.dtype != _np.bool_:
                w = _core.cast(w, _np.bool_)
            if w.shape != a.shape:
                try:
                    w = _core.broadcast_to(w, a.shape)
                except ValueError:   # NumPy's error (its iterator's remapped shapes)
                    return _numpy_general(npu, "reduce", (array,), kw)
            x = a if a.dtype == acc else _core.cast(a, acc)
            src = _core.empty(a.shape, acc)
            # masked-out elements become the identity (or, for maximum/minimum, the initial
            # value, which they may repeat harmlessly)
            fill = initv if ident is None else _initial_value(ident, acc)
            _core.select(w, x, fill, src)
        r = _core.reduce(name, src, axes, acc, initv)
    except (TypeError, KeyError):
        return _numpy_general(npu, "reduce", (array,), kw)
    if dtype is None and out is None and where is True and (
            initial is _NoValue or type(initial) in _PLAIN_INITIAL):
        _PLAIN_REDUCE[npu, a.dtype, type(initial), initial] = (acc, initv, _reorderable(name))
    return _finish(uf, r, a.shape, axes, keepdims, out)


def accumulate(uf, array, axis=0, dtype=None, out=None):
    npu = uf._numpy
    kw = {"axis": axis, "dtype": dtype, "out": out}
    if not uf._native:
        return _fallback_call(uf, "accumulate", (array,), kw)
    if npu.nin != 2 or npu.nout != 1:
        raise ValueError("accumulate only supported for binary functions")
    out = _single_out(out)
    if out is not None and not isinstance(out, ndarray):
        return _numpy_general(npu, "accumulate", (array,), kw)
    a = _operand(array)
    if a is None:
        return _numpy_general(npu, "accumulate", (array,), kw)
    if a.ndim == 0:
        raise TypeError("cannot accumulate on a scalar")
    ax = normalize_axis_index(operator.index(0 if axis is None else axis), a.ndim)
    if out is not None and out.shape != a.shape:
        raise ValueError("provided out is the wrong size for the accumulation.")
    try:
        acc = _np.dtype(dtype) if dtype is not None else (
            out.dtype if out is not None else _default_acc(npu, a.dtype))
        x = a if a.dtype == acc else _core.cast(a, acc)
        r = _core.scan(npu.__name__, x, ax)
    except (TypeError, KeyError):
        return _numpy_general(npu, "accumulate", (array,), kw)
    _report_now(r)
    if out is not None:
        _core.assign(out, r)
        return out
    return r


def reduceat(uf, array, indices, axis=0, dtype=None, out=None):
    npu = uf._numpy
    kw = {"axis": axis, "dtype": dtype, "out": out}
    if not uf._native:
        return _fallback_call(uf, "reduceat", (array, indices), kw)
    if npu.nin != 2 or npu.nout != 1:
        raise ValueError("reduceat only supported for binary functions")
    out = _single_out(out)
    if out is not None and not isinstance(out, ndarray):
        return _numpy_general(npu, "reduceat", (array, indices), kw)
    a = _operand(array)
    if a is None:
        return _numpy_general(npu, "reduceat", (array, indices), kw)
    if a.ndim == 0:
        raise TypeError("cannot reduceat on a scalar")
    ax = normalize_axis_index(operator.index(axis), a.ndim)
    idx = _np.asarray(_fallback.gather(indices))
    if idx.ndim != 1 or (idx.size and idx.dtype.kind not in "iu"):
        return _numpy_general(npu, "reduceat", (array, indices), kw)
    idx = idx.astype(_np.intp)
    n = a.shape[ax]
    for i in idx:
        if i < 0 or i >= n:
            raise IndexError(f"index {i} out-of-bounds in {npu.__name__}.reduceat [0, {n})")
    try:
        acc = _np.dtype(dtype) if dtype is not None else (
            out.dtype if out is not None else _default_acc(npu, a.dtype))
        x = a if a.dtype == acc else _core.cast(a, acc)
        shape = a.shape[:ax] + (len(idx),) + a.shape[ax + 1:]
        r = _core.empty(shape, acc)
        pre = (slice(None),) * ax
        for k, i in enumerate(idx):
            j = idx[k + 1] if k + 1 < len(idx) else n
            seg = x[pre + (slice(i, j if i < j else i + 1),)]
            # one reduceat: its segments report floating-point errors once, at the last
            bits = 1 | (2 if k == 0 else 0) | (4 if k + 1 == len(idx) else 0)
            r[pre + (k,)] = _core.reduce(npu.__name__, seg, (ax,), acc, None, bits)
    except (TypeError, KeyError):
        return _numpy_general(npu, "reduceat", (array, indices), kw)
    _report_now(r)
    if out is not None:
        if out.shape != r.shape:
            raise ValueError(f"output operand has shape {out.shape}, expected {r.shape}")
        _core.assign(out, r)
        return out
    return r


def outer(uf, A, B, /, **kwargs):
    npu = uf._numpy
    if not uf._native:
        return _fallback_call(uf, "outer", (A, B), kwargs)
    if npu.nin != 2:
        raise ValueError("outer product only supported for binary functions")
    a, b = _asarray(A), _asarray(B)
    shape = a.shape + (1,) * b.ndim
    av = _core.reshape(a, shape)
    if av is None:
        av = _core.reshape(a.copy(), shape)
    return uf(av, b, **kwargs)


def _basic_index(key):
    items = key if isinstance(key, tuple) else (key,)
    return all(isinstance(k, (int, _np.integer, slice)) or k is Ellipsis or k is None
               for k in items)


# (numpy ufunc, dtype, the operand's loop dtype) -> whether NumPy's loop of uf.at(a, i, b) with a
# of that dtype and b a Python int or float (_advindex.at_number_dtype) is a's dtype in and out
# (what _advindex.ufunc_at asks before it scatters): resolved once per combination.
_AT_PLAIN = {}
_advindex = None   # cupynum._advindex, bound at the first ufunc.at (it imports this module)


def _at_plain(uf, dt, bt):
    npu = uf._numpy
    try:
        ok = bool(uf._native) and npu.nin == 2 and npu.nout == 1 and \
            npu.resolve_dtypes((dt, bt, None)) == (dt, dt, dt)
    except Exception:   # noqa: BLE001 -- no such loop: the general path says so
        ok = False
    _AT_PLAIN[npu, dt, bt] = ok
    return ok


def at(uf, a, indices, b=None, /):
    global _advindex
    if type(a) is ndarray and type(indices) is ndarray and a.ndim == 1 and indices.ndim == 1 \
            and (type(b) is float or type(b) is int) and indices.dtype.kind in "iu" and \
            indices.dtype != _np.uint64:
        # uf.at(vector, index vector, Python number): ufunc_at's 1-d scatter, its loop check cached
        if _advindex is None:
            from . import _advindex
        bt = _advindex.at_number_dtype(uf._numpy.__name__, a.dtype, b)
        ok = _AT_PLAIN.get((uf._numpy, a.dtype, bt))
        if ok is None:
            ok = _at_plain(uf, a.dtype, bt)
        if ok and not _core.readonly(a):
            if _advindex._ufunc_at_1d(a, indices, b, a.dtype, uf._numpy.__name__):
                _core.sync()   # NumPy warns at the call (overflow, division by zero)
                return None
            # declined (an index out of bounds: nothing written; an integer power by a negative
            # number): ufunc_at would decline alike, so NumPy computes at once
            _fallback.compute(uf._numpy.at, (a, indices, b), write=(a,))
            return None
    npu = uf._numpy
    args = (a, indices) if b is None else (a, indices, b)
    if not uf._native:
        return _fallback_call(uf, "at", args, {})
    if isinstance(a, _np.ndarray):   # NumPy's array, updated in place by NumPy
        npu.at(a, *_fallback.gather(args[1:]))
        return None
    if not isinstance(a, ndarray):
        raise TypeError("first operand must be array")
    if _core.readonly(a):                   # NumPy's iterator says it first
        raise ValueError("operand array with iterator write flag set is read-only")
    if _basic_index(indices):
        key = (indices if isinstance(indices, tuple) else (indices,)) + (Ellipsis,)
        if sum(1 for k in key if k is Ellipsis) > 1:
            key = key[:-1]
        v = a[key]
        if _advindex is None:
            from . import _advindex
        if b is not None and not _advindex.at_operand_fits(b, tuple(_np.shape(v))):
            raise ValueError("array is not broadcastable to correct shape")   # NumPy's text
        if npu.nin == 1:
            uf(v, out=v)
        else:
            uf(v, b, out=v, casting="unsafe")
        return None
    # Integer or boolean index arrays (repeated indices accumulate): the op applied in index
    # order by the runtime's scatter (cupynum/_advindex.py), else NumPy's unbuffered loop on the
    # gathered array, written back.
    if _advindex is None:
        from . import _advindex
    if _advindex.ufunc_at(uf, a, indices, b):
        _core.sync()   # NumPy warns at the call (overflow, division by zero): the op runs now
        return None
    _fallback.compute(npu.at, args, write=(a,))
    return None


def resolve_dtypes(uf, *args, **kwargs):
    return uf._numpy.resolve_dtypes(*args, **kwargs)


# ---- the objects ---------------------------------------------------------------------------------

def _build():
    """One cupynum.ufunc per NumPy ufunc object: aliases (acos/arccos) stay one object."""
    by_numpy, names = {}, {}
    # numpy's namespace as it stands (vars, not dir + getattr: getattr of a lazily loaded name
    # would import numpy.f2py, numpy.testing, numpy.ma... at cupynum's import; ufuncs are eager)
    for n, f in list(vars(_np).items()):
        if isinstance(f, _np.ufunc):
            if f not in by_numpy:
                by_numpy[f] = _core.make_ufunc(f)
            names[n] = by_numpy[f]
    return by_numpy, names


BY_NUMPY, ufuncs = _build()


def for_numpy(npu):
    """The cupynum.ufunc of NumPy ufunc `npu` (made on first use for ufuncs outside numpy's
    namespace)."""
    u = BY_NUMPY.get(npu)
    if u is None:   # not cached: ufuncs made at run time (frompyfunc) must be free to die
        u = _core.make_ufunc(npu)
    return u
