"""Joins, repeats and layout: concatenate and the stacks, block, append, insert, delete, tile,
repeat, roll, pad, resize, trim_zeros, copyto, require -- in Python over the runtime's own ops.

Every function allocates its result with `empty` (partitioned under mpirun like any array) and
fills it with slice assignments `out[box] = piece`: each assignment is one copy (or cast) op on
basic views, which the distributed box path runs owner-computes -- the owner of each output tile
copies into it from just the input pieces the box needs, so the bytes that move are the pieces
whose owner changes, never the whole array (dist.c).  In one process the same ops are threaded
copies.  Where one op can do the work of many (a repeat or tile as one broadcast into a view
that splits a dimension) the single op is used when the output is not tiled; a split view is a
flat alias under distribution (dist.c's gathered path), so a tiled output is filled by one
strided or block assignment per repeat instead, up to _MAX_PIECES of them.

NumPy is used for shape, dtype and index arithmetic only (result_type, can_cast, normalized
axes, the index lists of insert/delete/repeat), never on array data.  Errors are NumPy's types
and texts, raised at the call before anything is written; arguments cupynum cannot hold (object
or string dtypes, NumPy subclasses) go to NumPy's own function (_fallback.compute)."""

import builtins
import operator
import warnings

import numpy as _np
from numpy.exceptions import AxisError  # noqa: F401
from numpy.lib.array_utils import normalize_axis_index, normalize_axis_tuple

from . import _core, _fallback
from ._core import ndarray

_NATIVE = frozenset(_np.dtype(c) for c in "?bhilqBHILQefdFD")
_CASTINGS = ("no", "equiv", "safe", "same_kind", "unsafe")

# Most ops one call issues for a repeat/tile of a tiled output (one per repeat or block); more
# take one op through a split view (correct, gathered under distribution).
_MAX_PIECES = 256


class _NotNative(Exception):
    """An argument cupynum cannot hold: NumPy's function computes instead."""


def _asarray(a):
    if isinstance(a, ndarray):
        if a.dtype not in _NATIVE:
            raise _NotNative
        return a
    if isinstance(a, _np.ndarray) and (type(a) is not _np.ndarray or a.dtype not in _NATIVE):
        raise _NotNative
    n = _np.asarray(a)
    if n.dtype not in _NATIVE or type(n) is not _np.ndarray:
        raise _NotNative
    return _core.from_any(n)


def _numpy(name, args, kwargs):
    return _fallback.compute(getattr(_np, name), args, kwargs)


def _native(name):
    """Decorator: a call with an argument cupynum cannot hold is NumPy's (gathered)."""
    def deco(f):
        def wrapper(*args, **kwargs):
            try:
                return f(*args, **kwargs)
            except _NotNative:
                return _numpy(name, args, kwargs)
        wrapper.__name__ = wrapper.__qualname__ = name
        wrapper.__doc__ = getattr(getattr(_np, name, None), "__doc__", None)   # gone from later NumPys
        wrapper.__wrapped__ = f
        return wrapper
    return deco


def _tiled(a):
    return _core._tiling(a)["tiled"]


def _empty(shape, dtype):
    """A result every join writes whole: not zero-filled first (NumPy's `empty`)."""
    return _core.empty(tuple(shape), _np.dtype(dtype), None, True)


def _empty_as(shape, dtype, a):
    """A new array laid out as NumPy's `empty(shape, order='F' if a.flags.fnc else 'C')`
    (delete, insert, pad): Fortran order is the transposed view of a C-ordered store."""
    if a.ndim > 1 and a.flags.fnc and len(shape) == a.ndim:
        rev = tuple(range(len(shape)))[::-1]
        return _core.transpose(_empty(tuple(shape)[::-1], dtype), rev)
    return _empty(shape, dtype)


def _along(ndim, axis, sl):
    return (slice(None),) * axis + (sl,) + (slice(None),) * (ndim - axis - 1)


def _check_casting(casting):
    if casting not in _CASTINGS:
        raise ValueError("casting must be one of 'no', 'equiv', 'safe', 'same_kind', 'unsafe' "
                         f"(got {casting!r})")


def _cast_check(arrays, dt, casting):
    for a in arrays:
        if not _np.can_cast(a.dtype, dt, casting):
            raise TypeError(f"Cannot cast array data from {a.dtype!r} to {dt!r} according to "
                            f"the rule '{casting}'")


def _shares(out, arrays):
    return any(_core._shares_store(out, a) for a in arrays)


def _result(arrays, axis, shape, dt):
    """The join's new array: tiled like its first input on the other dimensions where that
    input's tiling leaves the joined axis whole (stacks, hstack of row blocks: then no input
    moves), else the default tiling of its shape."""
    a = max(arrays, key=lambda x: x.size)
    t = _core._tiling(a)
    if t["tiled"] and len(t["grid"]) == a.ndim and t["grid"][axis] == 1 and a.shape[axis]:
        like = _core.broadcast_to(a[_along(a.ndim, axis, slice(0, 1))], shape, False)
        return _core.empty(shape, dt, like)
    return _empty(shape, dt)


# ---- concatenate and the stacks ---------------------------------------------------------------

def _sequence(arrays):
    if isinstance(arrays, ndarray):
        if arrays.ndim == 0:
            raise ValueError("zero-dimensional arrays cannot be concatenated")
        return [arrays[i] for i in range(arrays.shape[0])]
    try:
        return list(arrays)
    except TypeError:
        raise TypeError("dispatcher for __array_function__ did not return an iterable") from None


def _join(arrays, axis, out, dtype, casting):
    """concatenate of converted arrays (a list of cupynum arrays)."""
    if out is not None and dtype is not None:
        raise TypeError("concatenate() only takes `out` or `dtype` as an argument, but both "
                        "were provided.")
    _check_casting(casting)
    if not arrays:
        raise ValueError("need at least one array to concatenate")
    if axis is None:
        from ._functions import ravel
        arrays = [ravel(a) for a in arrays]
        axis = 0
    elif isinstance(axis, (bool, _np.bool_)):
        raise TypeError("an integer is required for the axis")   # NumPy's (operator.index takes it)
    first = arrays[0]
    if first.ndim == 0:
        raise ValueError("zero-dimensional arrays cannot be concatenated")
    nd = first.ndim
    axis = normalize_axis_index(operator.index(axis), nd)
    total = 0
    for i, a in enumerate(arrays):
        if a.ndim != nd:
            raise ValueError("all the input arrays must have same number of dimensions, but the "
                             f"array at index 0 has {nd} dimension(s) and the array at index {i} "
                             f"has {a.ndim} dimension(s)")
        for d in range(nd):
            if d != axis and a.shape[d] != first.shape[d]:
                raise ValueError("all the input array dimensions except for the concatenation "
                                 f"axis must match exactly, but along dimension {d}, the array "
                                 f"at index 0 has size {first.shape[d]} and the array at index "
                                 f"{i} has size {a.shape[d]}")
        total += a.shape[axis]
    shape = first.shape[:axis] + (total,) + first.shape[axis + 1:]
    if out is not None:
        if not isinstance(out, ndarray):
            raise _NotNative
        if out.ndim != nd:
            raise ValueError("Output array has wrong dimensionality")
        if out.shape != shape:
            raise ValueError("Output array is the wrong shape")
        dt = out.dtype
    elif dtype is not None:
        dt = _np.dtype(dtype)
        if dt not in _NATIVE:
            raise _NotNative
    else:
        dt = _np.result_type(*[a.dtype for a in arrays])
    _cast_check(arrays, dt, casting)
    target = out if out is not None and not _shares(out, arrays) else _result(arrays, axis, shape, dt)
    start = 0
    for a in arrays:
        n = a.shape[axis]
        if n:
            target[_along(nd, axis, slice(start, start + n))] = a
        start += n
    if out is not None and target is not out:
        out[...] = target
        return out
    return target


@_native("concatenate")
def _concatenate(arrays, /, axis=0, out=None, *, dtype=None, casting="same_kind"):
    return _join([_asarray(a) for a in _sequence(arrays)], axis, out, dtype, casting)


def concatenate(arrays, /, axis=0, out=None, *, dtype=None, casting="same_kind"):
    if out is None and dtype is None and type(axis) is int and axis == 0 and casting == "same_kind":
        r = _core.concat_rows(arrays)   # untiled arrays of one dtype (fastpath.c), else None
        if r is not None:
            return r
    return _concatenate(arrays, axis, out, dtype=dtype, casting=casting)


concatenate.__doc__, concatenate.__wrapped__ = _concatenate.__doc__, _concatenate.__wrapped__


@_native("concat")
def concat(arrays, /, axis=0, out=None, *, dtype=None, casting="same_kind"):
    return _join([_asarray(a) for a in _sequence(arrays)], axis, out, dtype, casting)


def _stack_sequence(arrays):
    if not hasattr(arrays, "__getitem__"):
        raise TypeError('arrays to stack must be passed as a "sequence" type such as list or '
                        'tuple.')
    return [_asarray(a) for a in arrays]


def stack(arrays, axis=0, out=None, *, dtype=None, casting="same_kind"):
    if out is None and dtype is None and type(axis) is int and axis == 0 and casting == "same_kind":
        r = _core.concat_rows(arrays, 0, True)   # untiled arrays of one shape and dtype, else None
        if r is not None:
            return r
    return _stack(arrays, axis, out, dtype=dtype, casting=casting)


@_native("stack")
def _stack(arrays, axis=0, out=None, *, dtype=None, casting="same_kind"):
    arrays = _stack_sequence(arrays)
    if not arrays:
        raise ValueError("need at least one array to stack")
    shape = arrays[0].shape
    if any(a.shape != shape for a in arrays):
        raise ValueError("all input arrays must have the same shape")
    axis = normalize_axis_index(operator.index(axis), len(shape) + 1)
    # a[..., None, ...] along axis: the size-1 dimension is a view, the join fills it per array
    expanded = [_core.reshape(a, shape[:axis] + (1,) + shape[axis:]) for a in arrays]
    return _join(expanded, axis, out, dtype, casting)


def _atleast(arrs, nd):
    from ._views import _atleast as atleast
    r = atleast([_asarray(a) for a in arrs], nd)
    return list(r) if isinstance(r, tuple) else [r]


def vstack(tup, *, dtype=None, casting="same_kind"):
    if dtype is None and casting == "same_kind" and isinstance(tup, (list, tuple)) and tup:
        # untiled arrays of one dtype (fastpath.c): 1-d ones of one length stack as rows, n-d
        # ones join along axis 0; else None and the general way
        nd = getattr(tup[0], "ndim", 0)
        r = _core.concat_rows(tup, 0, nd == 1) if nd else None
        if r is not None:
            return r
    return _vstack(tup, dtype=dtype, casting=casting)


@_native("vstack")
def _vstack(tup, *, dtype=None, casting="same_kind"):
    return _join(_atleast(_stack_sequence(tup), 2), 0, None, dtype, casting)


@_native("row_stack")
def row_stack(tup, *, dtype=None, casting="same_kind"):
    warnings.warn("`row_stack` alias is deprecated. Use `np.vstack` directly.",
                  DeprecationWarning, stacklevel=3)
    return _join(_atleast(_stack_sequence(tup), 2), 0, None, dtype, casting)


def hstack(tup, *, dtype=None, casting="same_kind"):
    if dtype is None and casting == "same_kind" and isinstance(tup, (list, tuple)) and tup:
        nd = getattr(tup[0], "ndim", 0)     # untiled arrays of one dtype and ndim (fastpath.c)
        r = _core.concat_rows(tup, 0 if nd == 1 else 1) if nd else None
        if r is not None:
            return r
    return _hstack(tup, dtype=dtype, casting=casting)


@_native("hstack")
def _hstack(tup, *, dtype=None, casting="same_kind"):
    arrs = _atleast(_stack_sequence(tup), 1)
    axis = 0 if arrs and arrs[0].ndim == 1 else 1
    return _join(arrs, axis, None, dtype, casting)


for _f, _g in ((stack, _stack), (vstack, _vstack), (hstack, _hstack)):
    _f.__doc__, _f.__wrapped__ = _g.__doc__, _g.__wrapped__


@_native("dstack")
def dstack(tup):
    return _join(_atleast(_stack_sequence(tup), 3), 2, None, None, "same_kind")


@_native("column_stack")
def column_stack(tup):
    arrays = []
    for v in _stack_sequence(tup):
        if v.ndim < 2:
            v = _core.transpose(_core.reshape(v, (1,) * (2 - v.ndim) + v.shape), (1, 0))
        arrays.append(v)
    return _join(arrays, 1, None, None, "same_kind")


# ---- block --------------------------------------------------------------------------------------

def _block_index(index):
    return "arrays" + "".join(f"[{i}]" for i in index if i is not None)


def _block_depths(arrays, parent=()):
    """NumPy's depth check: (index of a bottom element, the largest leaf ndim)."""
    if isinstance(arrays, tuple):
        raise TypeError(f"{_block_index(parent)} is a tuple. Only lists can be used to arrange "
                        "blocks, and np.block does not allow implicit conversion from tuple to "
                        "ndarray.")
    if isinstance(arrays, list) and arrays:
        first, max_nd = None, 0
        for i, arr in enumerate(arrays):
            index, nd = _block_depths(arr, parent + (i,))
            max_nd = builtins.max(max_nd, nd)
            if first is None:
                first = index
                continue
            if len(index) != len(first):
                raise ValueError("List depths are mismatched. First element was at depth "
                                 f"{len(first)}, but there is an element at depth {len(index)} "
                                 f"({_block_index(index)})")
            if index[-1] is None:
                first = index
        return first, max_nd
    if isinstance(arrays, list):
        return parent + (None,), 0
    return parent, _np.ndim(arrays) if not isinstance(arrays, ndarray) else arrays.ndim


def _block_layout(arrays, depth, list_nd, result_nd):
    """(shape, [(box, leaf)]): where each leaf lands in the block's result."""
    if depth == list_nd:
        leaf = _asarray(arrays)
        if leaf.ndim < result_nd:
            leaf = _core.reshape(leaf, (1,) * (result_nd - leaf.ndim) + leaf.shape)
        return leaf.shape, [((0,) * result_nd, leaf)]
    axis = result_nd - (list_nd - depth)
    parts = [_block_layout(a, depth + 1, list_nd, result_nd) for a in arrays]
    first = parts[0][0]
    offset, placed = 0, []
    for i, (shape, leaves) in enumerate(parts):
        # NumPy joins each level with concatenate: its checks and texts
        for d in range(result_nd):
            if d != axis and shape[d] != first[d]:
                raise ValueError("all the input array dimensions except for the concatenation "
                                 f"axis must match exactly, but along dimension {d}, the array "
                                 f"at index 0 has size {first[d]} and the array at index {i} "
                                 f"has size {shape[d]}")
        for origin, leaf in leaves:
            placed.append((origin[:axis] + (origin[axis] + offset,) + origin[axis + 1:], leaf))
        offset += shape[axis]
    return first[:axis] + (offset,) + first[axis + 1:], placed


@_native("block")
def block(arrays):
    bottom, arr_nd = _block_depths(arrays)
    list_nd = len(bottom)
    if bottom and bottom[-1] is None:
        raise ValueError(f"List at {_block_index(bottom)} cannot be empty")
    result_nd = builtins.max(arr_nd, list_nd)
    shape, leaves = _block_layout(arrays, 0, list_nd, result_nd)
    dt = _np.result_type(*[leaf.dtype for _, leaf in leaves])
    out = _empty(shape, dt)
    for origin, leaf in leaves:
        if leaf.size:
            out[tuple(slice(o, o + n) for o, n in zip(origin, leaf.shape))] = leaf
    return out


# ---- append -------------------------------------------------------------------------------------

@_native("append")
def append(arr, values, axis=None):
    from ._functions import ravel
    arr = _asarray(arr)
    values = _asarray(values)
    if axis is None:
        if arr.ndim != 1:
            arr = ravel(arr)
        values = ravel(values)
        axis = arr.ndim - 1
    return _join([arr, values], axis, None, None, "same_kind")


# ---- repeat, tile, roll -------------------------------------------------------------------------

def _split_view(v, shape):
    """v reshaped to `shape` (dimensions split) as a view, or None."""
    try:
        return _core.reshape(v, tuple(shape))
    except (ValueError, TypeError):
        return None


def _fill_repeat(out, a, r, axis):
    """out (a's shape with n*r along axis) = each element of a repeated r times along axis."""
    n = a.shape[axis]
    if r == 0 or n == 0 or out.size == 0:
        return
    nd = a.ndim
    split = None
    if not _tiled(out) or (r > _MAX_PIECES and n > _MAX_PIECES):
        # one broadcast op into the (n, r) view (a flat alias under distribution: gathered)
        split = _split_view(out, a.shape[:axis] + (n, r) + a.shape[axis + 1:])
    if split is not None:
        _core.assign(split, _core.reshape(a, a.shape[:axis] + (n, 1) + a.shape[axis + 1:]))
    elif r <= n or r <= _MAX_PIECES:
        for j in range(r):            # every r-th element: one strided box per repeat
            out[_along(nd, axis, slice(j, None, r))] = a
    else:
        for i in range(n):            # one block of r copies per element
            out[_along(nd, axis, slice(i * r, (i + 1) * r))] = a[_along(nd, axis, slice(i, i + 1))]


def _runs(counts):
    """[(start, stop, count)] of the consecutive equal counts."""
    edges = _np.flatnonzero(_np.diff(counts)) + 1
    starts = _np.concatenate(([0], edges))
    stops = _np.concatenate((edges, [len(counts)]))
    return [(int(i), int(j), int(counts[i])) for i, j in zip(starts, stops)]


@_native("repeat")
def repeat(a, repeats, axis=None):
    if type(a) is ndarray and type(repeats) is int and repeats >= 0 and (
            type(axis) is int and -a.ndim <= axis < a.ndim or axis is None and a.ndim == 1):
        # a Python int count along an int axis (or of a vector): the general path's empty result
        # and fill without its conversions of the count and axis
        axis = 0 if axis is None else axis % a.ndim
        out = _core.empty(a.shape[:axis] + (a.shape[axis] * repeats,) + a.shape[axis + 1:],
                          a.dtype, None, True)
        _fill_repeat(out, a, repeats, axis)
        return out
    from ._functions import ravel
    a = _asarray(a)
    if axis is None:
        a, axis = (a if a.ndim == 1 else ravel(a)), 0   # a 1-D a is only read: no ravel view
    else:
        if a.ndim == 0:   # NumPy's PyArray_CheckAxis: a 0-d array repeats as a 1-d one
            a = _core.reshape(a, (1,))
        axis = normalize_axis_index(operator.index(axis), a.ndim)
    n = a.shape[axis]
    if isinstance(repeats, ndarray):
        repeats = _core.to_numpy(repeats)    # the counts: index data, like take's indices
    if _np.ndim(repeats) == 0:
        # NumPy's conversion and checks of the count (a float truncates, negative raises)
        if isinstance(repeats, (int, _np.integer)):
            r = operator.index(repeats)
            if r < 0 and n:   # (NumPy checks the count of each element: none when n is 0)
                raise ValueError("negative dimensions are not allowed")
        else:
            r = len(_np.repeat(_np.zeros(1 if n else 0, _np.int8), repeats))
        out = _empty(a.shape[:axis] + (n * r,) + a.shape[axis + 1:], a.dtype)
        _fill_repeat(out, a, r, axis)
        return out
    idx = _np.repeat(_np.arange(n), repeats)   # NumPy's checks and texts; the gather's indices
    counts = _np.broadcast_to(_np.asarray(repeats).astype(_np.intp), (n,))
    out = _empty(a.shape[:axis] + (len(idx),) + a.shape[axis + 1:], a.dtype)
    runs = _runs(counts) if n else []
    if len(runs) > _MAX_PIECES:
        from ._selection import take
        out[...] = take(a, idx, axis=axis)
        return out
    start = 0
    for i, j, r in runs:
        k = (j - i) * r
        _fill_repeat(out[_along(a.ndim, axis, slice(start, start + k))],
                     a[_along(a.ndim, axis, slice(i, j))], r, axis)
        start += k
    return out


def _method_repeat(self, repeats, axis=None):
    return repeat(self, repeats, axis=axis)


@_native("tile")
def tile(A, reps):
    try:
        tup = tuple(reps)
    except TypeError:
        tup = (reps,)
    tup = tuple(operator.index(t) for t in tup)
    d = len(tup)
    c = _asarray(A)
    if c.ndim < d:
        c = _core.reshape(c, (1,) * (d - c.ndim) + c.shape)
    if all(t == 1 for t in tup):
        return _core.cast(c, c.dtype)          # a copy, as NumPy's
    tup = (1,) * (c.ndim - d) + tup
    if any(t < 0 for t in tup):
        raise ValueError("negative dimensions are not allowed")
    shape = tuple(s * t for s, t in zip(c.shape, tup))
    out = _empty(shape, c.dtype)
    if out.size == 0:
        return out
    _fill_tile(out, c, tup)
    return out


def _fill_tile(out, c, tup):
    """out (c.shape times tup) = c repeated tup[d] times along each dimension d."""
    blocks = 1
    for t in tup:
        blocks *= t
    if not _tiled(out) or blocks > _MAX_PIECES:
        # one broadcast op into the (t0, s0, t1, s1, ...) view of the result
        inter = [x for s, t in zip(c.shape, tup) for x in (t, s)]
        split = _split_view(out, inter)
        if split is not None:
            split[...] = _core.reshape(c, tuple(x for s in c.shape for x in (1, s)))
            return
    import itertools
    for pos in itertools.product(*[range(t) for t in tup]):
        out[tuple(slice(p * s, (p + 1) * s) for p, s in zip(pos, c.shape))] = c


@_native("roll")
def roll(a, shift, axis=None):
    a = _asarray(a)
    if axis is None:
        from ._functions import ravel
        return _core.reshape(roll(ravel(a), shift, 0), a.shape) if a.ndim != 1 else \
            roll(a, shift, 0)
    axes = normalize_axis_tuple(axis, a.ndim, allow_duplicate=True)
    pairs = _np.broadcast(shift, axes)
    if pairs.ndim > 1:
        raise ValueError("'shift' and 'axis' should be scalars or 1D sequences")
    shifts = [0] * a.ndim
    for sh, ax in pairs:
        shifts[ax] += int(sh)
    import itertools
    pieces = []
    for ax in range(a.ndim):
        k = shifts[ax] % (a.shape[ax] or 1)
        whole = slice(None)
        pieces.append([(whole, whole)] if k == 0 else
                      [(slice(None, -k), slice(k, None)), (slice(-k, None), slice(None, k))])
    out = _core.empty(a.shape, a.dtype, a, True) if a.ndim else _empty(a.shape, a.dtype)
    if a.size == 0:
        return out
    for combo in itertools.product(*pieces):
        src = tuple(p[0] for p in combo)
        dst = tuple(p[1] for p in combo)
        out[dst] = a[src]
    return out


# ---- copyto, require, trim_zeros, resize --------------------------------------------------------

def _broadcast_error(what, src, dst):
    raise ValueError(f"could not broadcast {what} from shape {_shape_text(src)} into shape "
                     f"{_shape_text(dst)}")


def _shape_text(shape):
    return "(" + ",".join(str(n) for n in shape) + ("," if len(shape) == 1 else "") + ")"


def _broadcastable(src, dst):
    try:
        return _np.broadcast_shapes(src, dst) == tuple(dst)
    except ValueError:
        return False


def _mask(where, shape):
    """copyto's where= as a cupynum bool array (or a Python bool), NumPy's checks."""
    if isinstance(where, (ndarray, _np.ndarray)):
        if where.dtype not in _NATIVE:
            raise _NotNative
        if not _np.can_cast(where.dtype, _np.bool_, "safe"):
            raise TypeError(f"Cannot cast array data from {where.dtype!r} to dtype('bool') "
                            "according to the rule 'safe'")
        m = where if isinstance(where, ndarray) else _core.from_any(where)
    else:
        n = _np.asarray(where, dtype=_np.bool_)
        if n.ndim == 0:
            return bool(n)
        m = _core.from_any(n)
    if not _broadcastable(m.shape, shape):
        _broadcast_error("where mask", m.shape, shape)
    if m.ndim == 0:
        return bool(m)
    return m


@_native("copyto")
def copyto(dst, src, casting="same_kind", where=True):
    if not isinstance(dst, ndarray):
        if isinstance(dst, _np.ndarray):
            raise _NotNative                  # NumPy writes into its own array
        raise TypeError(f"copyto() argument 1 must be a numpy.ndarray, not "
                        f"{type(dst).__name__}")
    if dst.dtype not in _NATIVE:
        raise _NotNative
    _check_casting(casting)
    if isinstance(src, ndarray) or _np.ndim(src) != 0:
        if isinstance(src, ndarray):
            if src.dtype not in _NATIVE:
                raise _NotNative
            value = src
        else:
            value = _asarray(src)
        if not _np.can_cast(value.dtype, dst.dtype, casting):
            kind = "scalar" if value.ndim == 0 else "array data"
            raise TypeError(f"Cannot cast {kind} from {value.dtype!r} to {dst.dtype!r} "
                            f"according to the rule '{casting}'")
        if not _broadcastable(value.shape, dst.shape):
            _broadcast_error("input array", value.shape, dst.shape)
    else:
        # a scalar: NumPy converts it (weak Python scalars, its errors: OverflowError...)
        v = _np.empty((), dst.dtype)
        _np.copyto(v, src, casting=casting)
        value = v
    mask = _mask(where, dst.shape)
    if mask is True:
        dst[...] = value
    elif mask is not False:
        from ._where import where as select
        if isinstance(value, ndarray) and value.dtype != dst.dtype:
            value = _core.cast(value, dst.dtype)
        dst[...] = select(mask, value, dst)


_FLAGS = {"C": "C", "C_CONTIGUOUS": "C", "CONTIGUOUS": "C", "F": "F", "F_CONTIGUOUS": "F",
          "FORTRAN": "F", "A": "A", "ALIGNED": "A", "W": "W", "WRITEABLE": "W", "O": "O",
          "OWNDATA": "O", "E": "E", "ENSUREARRAY": "E"}


@_native("require")
def require(a, dtype=None, requirements=None, *, like=None):
    from ._creation import array
    if not requirements:
        return array(_asarray(a), dtype, copy=None)
    reqs = {_FLAGS[x.upper()] for x in requirements}
    reqs.discard("E")
    order = "A"
    if reqs >= {"C", "F"}:
        raise ValueError('Cannot specify both "C" and "F" order')
    if "F" in reqs:
        order = "F"
        reqs.remove("F")
    elif "C" in reqs:
        order = "C"
        reqs.remove("C")
    arr = array(_asarray(a), dtype, copy=None, order=order)
    for prop in reqs:
        if not arr.flags[prop]:
            return arr.copy(order)
    return arr


def _first_last(m):
    """(first, last) index of the true elements of the 1-D bool array m, or None: two native
    reductions (distributed)."""
    from ._creation import arange
    from ._where import where as select
    n = m.shape[0]
    if n == 0:
        return None
    i = arange(n)
    first = int(select(m, i, n).min())
    if first == n:
        return None
    return first, int(select(m, i, -1).max())


@_native("trim_zeros")
def trim_zeros(filt, trim="fb", axis=None):
    if not isinstance(filt, ndarray):
        raise _NotNative                          # host data (a list keeps its type): NumPy's
    trim = trim.lower()
    if trim not in {"fb", "bf", "f", "b"}:
        raise ValueError(f"unexpected character(s) in `trim`: {trim!r}")
    nd = filt.ndim
    axes = tuple(range(nd)) if axis is None else normalize_axis_tuple(axis, nd, argname="axis")
    if not axes:
        return filt
    nonzero = filt != 0
    bounds = []
    for ax in range(nd):
        m = nonzero if nd == 1 else nonzero.any(axis=tuple(d for d in range(nd) if d != ax))
        fl = _first_last(m)
        if fl is None:                            # all zero: every trimmed axis empty
            bounds = None
            break
        bounds.append(fl)
    sl = []
    for ax in range(nd):
        if ax not in axes:
            sl.append(slice(None))
        elif bounds is None:
            sl.append(slice(0, 0))
        else:
            first, last = bounds[ax]
            sl.append(slice(first if "f" in trim else None, last + 1 if "b" in trim else None))
    return filt[tuple(sl)]


def _flat(a):
    from ._functions import ravel
    return ravel(a)


def _fill_flat(flat, src):
    """flat (1-D, new) = src (1-D, size > 0) repeated, cut at flat's length."""
    n, total = src.shape[0], flat.shape[0]
    full, rem = divmod(total, n)
    if full:
        _fill_tile(flat[:full * n], src, (full,))
    if rem:
        flat[full * n:] = src[:rem]


@_native("resize")
def resize(a, new_shape):
    if isinstance(new_shape, (int, _np.integer)):
        new_shape = (new_shape,)
    a = _flat(_asarray(a))
    new_size = 1
    for dim in new_shape:
        new_size *= dim
        if dim < 0:
            raise ValueError("all elements of `new_shape` must be non-negative")
    out = _empty(tuple(operator.index(d) for d in new_shape), a.dtype)
    if a.size == 0 or new_size == 0:
        out[...] = 0
        return out
    _fill_flat(out if out.ndim == 1 else _core.reshape(out, (new_size,)), a)
    return out


_RESIZE_REFERENCED = ("cannot resize an array that references or is referenced\nby another object "
                      "in this way.\nUse the np.resize function to get a new resized copy or\n"
                      " set refcheck=False to disable this check")


def _owns_data(a):
    """Does a view the whole of its store in the store's own C order (what NumPy's OWNDATA
    would say of it; a reshape of a whole array counts, as cupynum keeps no bases)?"""
    if not _core.covers_store(a) or _core._byte_offset(a) != 0:
        return False
    st = a.dtype.itemsize
    for n, s in zip(reversed(a.shape), reversed(_core.layout(a))):
        if n > 1 and s != st:
            return False
        st *= n
    return True


def _store_viewed_elsewhere(a):
    """Do other arrays view a's store?  After a flush (which drops the queue's references) a's
    own view holds the only reference of a store nobody else views."""
    _core.sync()
    return _core._store_refs(a) > 1


def _resize_impl(self, refs, *new_shape, refcheck=True):
    """ndarray.resize in place: the array takes a new zero-filled store of the new shape with
    its first elements (C order) copied in (through the new store's flat alias: owner computes,
    each element sent to its new owner).  As NumPy, a change of size is refused for an array
    that does not view the whole of its store, and with refcheck for one referenced from more
    than the caller's name or whose data other arrays view (NumPy's views reference their
    base); with refcheck=False those views keep the old data."""
    if len(new_shape) == 0 or (len(new_shape) == 1 and new_shape[0] is None):
        return None
    if len(new_shape) == 1 and not isinstance(new_shape[0], (int, _np.integer)):
        new_shape = tuple(new_shape[0])
    shape = tuple(operator.index(d) for d in new_shape)
    if any(d < 0 for d in shape):
        raise ValueError("negative dimensions not allowed")
    size = 1
    for d in shape:
        size *= d
    if size != self.size:
        if not _owns_data(self):
            raise ValueError("cannot resize this array: it does not own its data")
        # refs: the references to self as ndarray.resize (a C method, ndarray.c) saw them
        if refcheck and (refs > 2 or _store_viewed_elsewhere(self)):
            raise ValueError(_RESIZE_REFERENCED)
    if shape == self.shape:
        return None
    new = _empty(shape, self.dtype)
    flat = new if new.ndim == 1 else _core.reshape(new, (size,))
    k = builtins.min(size, self.size)
    if k < size:
        flat[k:] = 0
    if k:
        flat[:k] = _flat(self)[:k]
    from ._ndarray import _Adopt
    self.shape = _Adopt(new)
    return None


# ---- pad ----------------------------------------------------------------------------------------
#
# NumPy's algorithm (numpy/lib/_arraypad_impl.py), axis by axis on the padded array itself: the
# original values are copied into the middle, then for each axis the two pad slabs are filled
# from the region already defined (the earlier axes padded, the later ones still the original
# extent), so corners come out as NumPy's.  Every fill is a slice assignment on the result (its
# reads of the result are copied before the write by the runtime), a broadcast of an edge or a
# statistic, or an element-wise ramp.

_PAD_KWARGS = {
    "empty": [], "edge": [], "wrap": [], "constant": ["constant_values"],
    "linear_ramp": ["end_values"], "maximum": ["stat_length"], "mean": ["stat_length"],
    "median": ["stat_length"], "minimum": ["stat_length"], "reflect": ["reflect_type"],
    "symmetric": ["reflect_type"],
}


def _pairs(x, ndim, as_index=False):
    """NumPy's (before, after) per axis of a pad argument (host values)."""
    if x is None:
        return ((None, None),) * ndim
    x = _np.array(_fallback.gather(x))
    if as_index:
        x = _np.round(x).astype(_np.intp, copy=False)
    if x.ndim < 3:
        if x.size == 1:
            x = x.ravel()
            if as_index and x < 0:
                raise ValueError("index can't contain negative values")
            return ((x[0].item(), x[0].item()),) * ndim
        if x.size == 2 and x.shape != (2, 1):
            x = x.ravel()
            if as_index and (x[0] < 0 or x[1] < 0):
                raise ValueError("index can't contain negative values")
            return ((x[0].item(), x[1].item()),) * ndim
    if as_index and x.min() < 0:
        raise ValueError("index can't contain negative values")
    return _np.broadcast_to(x, (ndim, 2)).tolist()


def _at(axis, sl):
    return (slice(None),) * axis + (sl, Ellipsis)


def _edges(p, axis, left, right):
    n = p.shape[axis]
    return p[_at(axis, slice(left, left + 1))], p[_at(axis, slice(n - right - 1, n - right))]


def _set_pad(p, axis, left, right, lv, rv):
    n = p.shape[axis]
    if left:
        p[_at(axis, slice(None, left))] = lv
    if right:
        p[_at(axis, slice(n - right, None))] = rv


def _reflect_both(p, axis, left, right, odd, period, include_edge):
    old = p.shape[axis] - right - left
    if include_edge:
        old = old // period * period
        offset = 1
    else:
        old = (old - 1) // (period - 1) * (period - 1) + 1
        offset = 0
        old -= 1
    if left > 0:
        k = builtins.min(old, left)
        stop = left - offset
        chunk = p[_at(axis, slice(stop + k, stop, -1))]
        if odd:
            chunk = 2 * p[_at(axis, slice(left, left + 1))] - chunk
        p[_at(axis, slice(left - k, left))] = chunk
        left -= k
    if right > 0:
        k = builtins.min(old, right)
        n = p.shape[axis]
        start = -right + offset - 2                    # counted from the end, as NumPy's
        chunk = p[_at(axis, slice(start, start - k, -1))]
        if odd:
            chunk = 2 * p[_at(axis, slice(-right - 1, -right))] - chunk
        p[_at(axis, slice(n - right, n - right + k))] = chunk
        right -= k
    return left, right


def _wrap_both(p, axis, left, right, period0):
    n = p.shape[axis]
    period = (n - right - left) // period0 * period0
    new_left = new_right = 0
    if left > 0:
        end = left + period
        chunk = p[_at(axis, slice(end - builtins.min(period, left), end))]
        if left > period:
            p[_at(axis, slice(left - period, left))] = chunk
            new_left = left - period
        else:
            p[_at(axis, slice(None, left))] = chunk
    if right > 0:
        start = n - right - period
        chunk = p[_at(axis, slice(start, start + builtins.min(period, right)))]
        if right > period:
            p[_at(axis, slice(n - right, n - right + period))] = chunk
            new_right = right - period
        else:
            p[_at(axis, slice(n - right, None))] = chunk
    return new_left, new_right


def _ramp(edge, end, width, axis, dtype):
    """NumPy's linspace(end, edge.squeeze(axis), width, endpoint=False, dtype, axis), with the
    edge kept as a size-1 dimension (the ramp broadcasts along it)."""
    from . import _functions
    from ._creation import arange
    u = _functions.ufuncs
    start = _np.asarray(end) * 1.0
    stop = edge * 1.0
    dt = _np.result_type(start, stop.dtype, float(width))
    delta = u["subtract"](stop, start, dtype=dt)
    y = _core.reshape(arange(0, width, dtype=dt), (1,) * axis + (width,) +
                      (1,) * (edge.ndim - axis - 1))
    step = delta / width
    if bool((step == 0).any()):
        y = (y / width) * delta
    else:
        y = y * step
    y = y + start
    if _np.issubdtype(dtype, _np.integer):
        y = u["floor"](y)
    return _core.cast(y, _np.dtype(dtype)) if y.dtype != dtype else y


def _stats(p, axis, left, right, lengths, mode):
    from . import _functions
    from ._quantile import median
    from ._reductions import amax, amin, mean
    func = {"maximum": amax, "minimum": amin, "mean": mean, "median": median}[mode]
    li, ri = left, p.shape[axis] - right
    most = ri - li
    ll, rl = lengths
    if ll is None or most < ll:
        ll = most
    if rl is None or most < rl:
        rl = most
    if (ll == 0 or rl == 0) and mode in ("maximum", "minimum"):
        raise ValueError("stat_length of 0 yields no value for padding")

    def stat(sl):
        r = func(p[_at(axis, sl)], axis=axis, keepdims=True)
        if _np.issubdtype(p.dtype, _np.integer) and r.dtype.kind not in "biu":
            r = _functions.ufuncs["rint"](r)
        return r
    ls = stat(slice(li, li + ll))
    if ll == rl == most:
        return ls, ls
    return ls, stat(slice(ri - rl, ri))


def _scalar_as(v, dtype):
    """v as NumPy's setitem converts it into dtype (its OverflowError for a Python int out of
    range), before anything is written."""
    x = _np.empty((), dtype)
    x[...] = v
    return x


@_native("pad")
def _pad_callable(a, widths, function, kwargs):
    """NumPy's pad with a function: the array placed in a zero-filled result, then for each axis
    `function(vector, pad_width[axis], axis, kwargs)` on every 1-D vector along it, a writable
    view of the result (NumPy's order: C order of the other indices), which the function fills
    in place.  The vectors are cupynum views, so under MPI their writes go to the owners."""
    shape = tuple(l + n + r for n, (l, r) in zip(a.shape, widths))
    p = _empty_as(shape, a.dtype, a)
    _core.assign(p, 0)
    if a.size:
        p[tuple(slice(l, l + n) for n, (l, r) in zip(a.shape, widths))] = a
    pw = _np.array(widths, dtype=_np.intp).reshape(a.ndim, 2)
    for axis in range(p.ndim):
        view = _core.transpose(p, tuple(d for d in range(p.ndim) if d != axis) + (axis,))
        for ind in _np.ndindex(view.shape[:-1]):
            function(view[ind + (Ellipsis,)], pw[axis], axis, kwargs)
    return p


def pad(array, pad_width, mode="constant", **kwargs):
    a = _asarray(array)
    if isinstance(pad_width, dict):
        seq = [(0, 0)] * a.ndim
        for ax, w in pad_width.items():
            seq[ax] = (w, w) if isinstance(w, int) else tuple(w)
        pad_width = seq
    pw = _np.asarray(_fallback.gather(pad_width))
    if pw.dtype.kind != "i":
        raise TypeError("`pad_width` must be of integral type.")
    widths = [tuple(int(x) for x in w) for w in _pairs(pw, a.ndim, as_index=True)]
    if callable(mode):
        return _pad_callable(a, widths, mode, kwargs)
    try:
        unsupported = set(kwargs) - set(_PAD_KWARGS[mode])
    except (KeyError, TypeError):
        raise ValueError(f"mode '{mode}' is not supported") from None
    if unsupported:
        raise ValueError(f"unsupported keyword arguments for mode '{mode}': {unsupported}")
    shape = tuple(l + n + r for n, (l, r) in zip(a.shape, widths))
    p = _empty_as(shape, a.dtype, a)
    orig = tuple(slice(l, l + n) for n, (l, r) in zip(a.shape, widths))
    if a.size:
        p[orig] = a
    nd = a.ndim

    def roi(axis):
        return p[(slice(None),) * (axis + 1) + orig[axis + 1:]]

    if mode == "constant":
        values = [tuple(_scalar_as(v, p.dtype) for v in pair)
                  for pair in _pairs(kwargs.get("constant_values", 0), nd)]
        for axis, (l, r), (lv, rv) in zip(range(nd), widths, values):
            _set_pad(roi(axis), axis, l, r, lv, rv)
    elif mode == "empty":
        pass
    elif a.size == 0:
        for axis, (l, r) in enumerate(widths):
            if a.shape[axis] == 0 and (l or r):
                raise ValueError(f"can't extend empty axis {axis} using modes other than "
                                 "'constant' or 'empty'")
    elif mode == "edge":
        for axis, (l, r) in enumerate(widths):
            v = roi(axis)
            _set_pad(v, axis, l, r, *_edges(v, axis, l, r))
    elif mode == "linear_ramp":
        ends = _pairs(kwargs.get("end_values", 0), nd)
        for axis, (l, r), (le, re) in zip(range(nd), widths, ends):
            v = roi(axis)
            el, er = _edges(v, axis, l, r)
            lr = _ramp(el, le, l, axis, p.dtype) if l else None
            rr = _ramp(er, re, r, axis, p.dtype)[_at(axis, slice(None, None, -1))] if r else None
            _set_pad(v, axis, l, r, lr, rr)
    elif mode in ("maximum", "minimum", "mean", "median"):
        lengths = _pairs(kwargs.get("stat_length"), nd, as_index=True)
        for axis, (l, r), lp in zip(range(nd), widths, lengths):
            v = roi(axis)
            if l or r:
                _set_pad(v, axis, l, r, *_stats(v, axis, l, r, lp, mode))
    elif mode in ("reflect", "symmetric"):
        odd = kwargs.get("reflect_type", "even") == "odd"
        for axis, (l, r) in enumerate(widths):
            if a.shape[axis] == 1 and (l > 0 or r > 0):
                _set_pad(p, axis, l, r, *_edges(p, axis, l, r))
                continue
            v = roi(axis)
            while l > 0 or r > 0:
                l, r = _reflect_both(v, axis, l, r, odd, a.shape[axis], mode == "symmetric")
    elif mode == "wrap":
        for axis, (l, r) in enumerate(widths):
            v = roi(axis)
            period = v.shape[axis] - r - l
            while l > 0 or r > 0:
                l, r = _wrap_both(v, axis, l, r, period)
    return p


# ---- insert, delete -----------------------------------------------------------------------------

def _position_runs(dst, src):
    """[(dst_start, src_start, length)]: runs where both index lists advance by one."""
    runs = []
    for d, s in zip(dst.tolist(), src.tolist()):
        if runs and runs[-1][0] + runs[-1][2] == d and runs[-1][1] + runs[-1][2] == s:
            runs[-1][2] += 1
        else:
            runs.append([d, s, 1])
    return runs


def _place(new, axis, dst, src_array, src):
    """new[..., dst[k], ...] = src_array[..., src[k], ...] for index lists dst, src (host,
    sorted by dst): one slice assignment per run, or one scatter when there are many."""
    nd = new.ndim
    runs = _position_runs(dst, src)
    if len(runs) <= _MAX_PIECES:
        for d, s_, k in runs:
            new[_along(nd, axis, slice(d, d + k))] = src_array[_along(nd, axis, slice(s_, s_ + k))]
        return
    from ._selection import take
    piece = take(src_array, src, axis=axis) if not _np.array_equal(
        src, _np.arange(src_array.shape[axis])) else src_array
    new[(slice(None),) * axis + (dst,)] = piece


def _axis_of(arr, axis):
    if axis is None:
        from ._functions import ravel
        if arr.ndim != 1:
            arr = ravel(arr)
        return arr, arr.ndim - 1
    return arr, normalize_axis_index(operator.index(axis), arr.ndim)


@_native("delete")
def delete(arr, obj, axis=None):
    arr, axis = _axis_of(_asarray(arr), axis)
    return _delete(arr, obj, axis)


def _delete(arr, obj, axis):
    n = arr.shape[axis]
    newshape = list(arr.shape)
    if isinstance(obj, slice):
        keep = _np.ones(n, dtype=bool)
        keep[obj] = False
    elif isinstance(obj, (int, _np.integer)) and not isinstance(obj, (bool, _np.bool_)):
        if obj < -n or obj >= n:
            raise IndexError(f"index {obj} is out of bounds for axis {axis} with size {n}")
        keep = _np.ones(n, dtype=bool)
        keep[obj] = False
    else:
        o = _core.to_numpy(obj) if isinstance(obj, ndarray) else obj
        idx = _np.asarray(o)
        if idx.size == 0 and not isinstance(o, _np.ndarray):
            idx = idx.astype(_np.intp)
        elif idx.size == 1 and idx.dtype.kind in "ui":
            return _delete(arr, idx.item(), axis)
        if idx.dtype == bool:
            if idx.shape != (n,):
                raise ValueError("boolean array argument obj to delete must be one "
                                 f"dimensional and match the axis length of {n}")
            keep = ~idx
        else:
            keep = _np.ones(n, dtype=bool)
            keep[idx,] = False          # NumPy's IndexError for a bad index
    kept = _np.flatnonzero(keep)
    newshape[axis] = len(kept)
    new = _empty_as(newshape, arr.dtype, arr)
    if new.size:
        _place(new, axis, _np.arange(len(kept)), arr, kept)
    return new


def _values_as(values, dtype, ndmin):
    """insert's `array(values, copy=None, ndmin=ndmin, dtype=dtype)`."""
    if isinstance(values, ndarray):
        v = values if values.dtype == dtype else _core.cast(values, dtype)
    else:
        v = _core.from_any(_np.array(_fallback.gather(values), dtype=dtype, ndmin=ndmin))
    if v.ndim < ndmin:
        v = _core.reshape(v, (1,) * (ndmin - v.ndim) + v.shape)
    return v


@_native("insert")
def insert(arr, obj, values, axis=None):
    arr, axis = _axis_of(_asarray(arr), axis)
    nd = arr.ndim
    n = arr.shape[axis]
    newshape = list(arr.shape)
    if isinstance(obj, slice):
        indices = _np.arange(*obj.indices(n), dtype=_np.intp)
    else:
        o = _core.to_numpy(obj) if isinstance(obj, ndarray) else obj
        indices = _np.array(o)
        if indices.dtype == bool:
            if not hasattr(o, "ndim"):        # NumPy reads obj.ndim of the argument itself
                raise AttributeError(f"'{type(o).__name__}' object has no attribute 'ndim'")
            if indices.ndim != 1:
                raise ValueError("boolean array argument obj to insert must be one dimensional")
            indices = _np.flatnonzero(indices)
        elif indices.ndim > 1:
            raise ValueError("index array argument obj to insert must be one dimensional or "
                             "scalar")
    if indices.size == 1:
        index = indices.item()
        if index < -n or index > n:
            raise IndexError(f"index {obj} is out of bounds for axis {axis} with size {n}")
        if index < 0:
            index += n
        if not isinstance(index, int):
            raise TypeError("slice indices must be integers or None or have an __index__ method")
        v = _values_as(values, arr.dtype, nd)
        if indices.ndim == 0:
            from ._views import moveaxis
            v = moveaxis(v, 0, axis)
        k = v.shape[axis]
        newshape[axis] += k
        target = tuple(newshape[:axis]) + (k,) + tuple(newshape[axis + 1:])
        if not _broadcastable(v.shape, target):
            raise ValueError(f"could not broadcast input array from shape {_shape_text(v.shape)} "
                             f"into shape {_shape_text(target)}")
        new = _empty_as(newshape, arr.dtype, arr)
        if new.size:
            if index:
                new[_along(nd, axis, slice(None, index))] = arr[_along(nd, axis, slice(None, index))]
            if k:
                new[_along(nd, axis, slice(index, index + k))] = v
            if index < n:
                new[_along(nd, axis, slice(index + k, None))] = arr[_along(nd, axis, slice(index, None))]
        return new
    if indices.size == 0 and not isinstance(obj, (_np.ndarray, ndarray)):
        indices = indices.astype(_np.intp)
    indices[indices < 0] += n
    numnew = len(indices)
    order = indices.argsort(kind="mergesort")
    indices[order] += _np.arange(numnew)
    newshape[axis] += numnew
    old_mask = _np.ones(newshape[axis], dtype=bool)
    old_mask[indices] = False
    v = _values_as(values, arr.dtype, 0)
    target = tuple(newshape[:axis]) + (numnew,) + tuple(newshape[axis + 1:])
    if not _broadcastable(v.shape, target):
        raise ValueError(f"shape mismatch: value array of shape {_shape_text(v.shape)} could not "
                         "be broadcast to indexing result of shape "
                         f"{_shape_text(target)}")
    new = _empty_as(newshape, arr.dtype, arr)
    if new.size == 0:
        return new
    if numnew:
        vb = v if v.shape == target else _core.broadcast_to(v, target)
        _place(new, axis, indices[order], vb, order)
    _place(new, axis, _np.flatnonzero(old_mask), arr, _np.arange(n))
    return new


# ---- r_ and c_ ---------------------------------------------------------------------------------
#
# NumPy's AxisConcatenator (numpy/lib/_index_tricks_impl.py) item for item: a slice is an arange
# (a complex step: that many points by linspace, the end included), a string first entry sets the
# axis / ndmin / trans1d, a Python or NumPy scalar joins as a weak scalar in the result type, and
# anything else becomes an array of at least ndmin dimensions whose own axes are moved to trans1d.
# The pieces are cast to the one result type and joined by `concatenate` above (owner-computes
# under mpirun).  Only the matrix forms ('r'/'c' directives, a string key) build NumPy's matrix
# class and stay NumPy's.

class _AxisConcatenator:
    __slots__ = ("_axis", "_ndmin", "_trans1d", "_name")

    def __init__(self, name, axis, ndmin=1, trans1d=-1):
        self._name, self._axis, self._ndmin, self._trans1d = name, axis, ndmin, trans1d

    def _numpy(self, key):
        _fallback.note(f"numpy.{self._name}", 2)
        return _fallback.call(f"numpy.{self._name}", getattr(_np, self._name).__getitem__, (key,), {})

    def _directive(self, text, k, axis, ndmin, trans1d):
        """(axis, ndmin, trans1d) from a string entry, or None for the matrix directives."""
        if k != 0:
            raise ValueError("special directives must be the first entry.")
        if text in ("r", "c"):
            return None
        if "," in text:
            parts = text.split(",")
            try:
                axis, ndmin = (int(x) for x in parts[:2])
                if len(parts) == 3:
                    trans1d = int(parts[2])
                return axis, ndmin, trans1d
            except Exception as e:
                raise ValueError(f"unknown special directive {text!r}") from e
        try:
            return int(text), ndmin, trans1d
        except (ValueError, TypeError) as e:
            raise ValueError("unknown special directive") from e

    def _range(self, sl, ndmin, trans1d):
        from ._creation import arange, linspace
        start = 0 if sl.start is None else sl.start
        step = 1 if sl.step is None else sl.step
        if isinstance(step, (complex, _np.complexfloating)):
            piece = linspace(start, sl.stop, num=int(abs(step)))
        else:
            piece = arange(start, sl.stop, step)
        if ndmin > 1:
            piece = _core.reshape(piece, (1,) * (ndmin - 1) + piece.shape)
            if trans1d != -1:
                piece = piece.swapaxes(-1, trans1d)
        return piece

    def _array(self, item, ndmin, trans1d):
        from ._creation import asarray
        a = _asarray(item) if not isinstance(item, ndarray) else item
        nd = a.ndim
        if nd < ndmin:
            a = _core.reshape(a, (1,) * (ndmin - nd) + a.shape)
            if trans1d != -1:
                k2 = ndmin - nd
                k1 = trans1d + k2 + 1 if trans1d < 0 else trans1d
                order = list(range(ndmin))
                a = a.transpose(order[:k1] + order[k2:] + order[k1:k2])
        return asarray(a)

    def __getitem__(self, key):
        if isinstance(key, str):
            return self._numpy(key)             # the matrix builder: NumPy's matrix class
        if not isinstance(key, tuple):
            key = (key,)
        axis, ndmin, trans1d = self._axis, self._ndmin, self._trans1d
        pieces, kinds = [], []
        try:
            for k, item in enumerate(key):
                if isinstance(item, slice):
                    piece = self._range(item, ndmin, trans1d)
                    kinds.append(piece.dtype)
                elif isinstance(item, str):
                    d = self._directive(item, k, axis, ndmin, trans1d)
                    if d is None:
                        return self._numpy(key)
                    axis, ndmin, trans1d = d
                    continue
                elif type(item) in _np.ScalarType:
                    piece = item
                    kinds.append(item)
                else:
                    piece = self._array(item, ndmin, trans1d)
                    kinds.append(piece.dtype)
                pieces.append(piece)
        except _NotNative:
            return self._numpy(key)
        if kinds:
            dt = _np.result_type(*kinds)
            if dt not in _NATIVE:
                return self._numpy(key)
            from ._creation import array
            pieces = [array(p, dtype=dt, copy=None, ndmin=ndmin) for p in pieces]
        return concatenate(tuple(pieces), axis=axis)

    def __len__(self):
        return 0

    def __repr__(self):
        return f"<cupynum {self._name}>"


r_ = _AxisConcatenator("r_", 0)
c_ = _AxisConcatenator("c_", -1, ndmin=2, trans1d=0)


NAMES = ("concatenate concat stack vstack row_stack hstack dstack column_stack block "
         "append repeat tile roll copyto require trim_zeros resize pad insert delete").split()


def install(cls, namespace, implemented):
    """The functions into cupynum's namespace and __array_function__'s table (replacing the
    fallbacks)."""
    g = globals()
    for n in NAMES:
        npf = getattr(_np, n, None)
        if npf is None:
            continue
        namespace[n] = g[n]
        implemented[npf] = g[n]
    namespace["r_"], namespace["c_"] = r_, c_
    cls.repeat = _method_repeat
    _method_repeat.__name__ = "repeat"
    _method_repeat.__qualname__ = "ndarray.repeat"
    _method_repeat.__doc__ = _np.ndarray.repeat.__doc__
