"""Python halves of the ndarray: helpers the C core calls, and methods installed on the type.

The C type (csrc/module/ndarray.c) owns the data model, indexing and operators; the argument
conventions of NumPy's methods (axis handling, keyword spellings) are written here, once, and the
methods are attached to the heap type at import."""

import operator

import numpy as _np
from numpy.exceptions import AxisError  # noqa: F401  (raised by the C core)

from . import _core, _fallback


def scalar_for_setitem(dtype, value):
    """A Python or NumPy scalar as a 0-d NumPy array of `dtype`, as NumPy's advanced assignment
    converts it: a Python int out of range is an OverflowError; a NumPy scalar is cast unsafely
    (uint8 200 into int8 is -56), warning as NumPy's cast of the value array does."""
    if isinstance(value, _np.generic):
        return _np.asarray(value).astype(dtype, casting="unsafe")   # its warnings are NumPy's
    tmp = _np.empty((), dtype)
    tmp[()] = value                       # NumPy's conversion and its errors
    return tmp


def value_array(value, dtype):
    """An assigned value that is not a cupynum array as the NumPy array NumPy's assignment
    makes of it: a NumPy array as it is, anything else (a list, a tuple) converted to the
    target's dtype element by element (PyArray_FromAny with the destination's dtype: a list
    holding -1.0 into uint16 is NumPy's OverflowError); None where that raises, so that the
    general path raises NumPy's error after the key's."""
    if isinstance(value, _np.ndarray):
        return value
    try:
        return _np.asarray(value, dtype=dtype)
    except Exception:  # noqa: BLE001  (NumPy raises it in its own order)
        return None


ndarray = _core.ndarray


# ---- NumPy computes (cupynum/_fallback.py: gather, compute, write back) -------------------------

def _numpy_call(func, args, kwargs):
    """Run a NumPy function on gathered operands and bring array results back."""
    return _fallback.compute(func, args, kwargs)


def _any_negative(a):
    """Does the integer array hold a negative value?  (Flushes; collective under MPI.)"""
    if a.size == 0:
        return False
    r = _core.full_reduce(a, "minimum")
    if r is None:
        r = _core.to_scalar(_core.reduce("minimum", a, tuple(range(a.ndim)), a.dtype, None))
    return bool(r < 0)


# ---- indexing beyond views ----------------------------------------------------------------------

def _getitem_advanced(self, key):
    r = _getitem_mask(self, key)
    if r is None:
        r = _getitem_int(self, key)
    if r is None:
        from . import _advindex
        r = _advindex.getitem(self, key)
    if r is not None:
        return r
    return _fallback.compute(operator.getitem, (self, key))


def _whole_mask_value_ndim(self, key, value):
    """NumPy's assignment through one boolean index of the array's shape (a[mask] = v, also
    a[(mask,)]) takes a 0-d or 1-d value only: its TypeError for a deeper one."""
    items = key if isinstance(key, tuple) else (key,)
    if len(items) != 1 or self.ndim == 0:
        return
    m = items[0]
    if isinstance(m, list):
        try:
            m = _np.asarray(m)
        except (ValueError, TypeError):
            return
    if type(m) not in (ndarray, _np.ndarray) or m.dtype != _np.bool_ or \
            tuple(m.shape) != tuple(self.shape):
        return
    if isinstance(value, ndarray):
        nd = value.ndim
    else:
        v = value_array(value, self.dtype)
        if v is None:
            return                              # NumPy's conversion error, from the general path
        nd = v.ndim
    if nd > 1:
        raise TypeError("NumPy boolean array indexing assignment requires a 0 or 1-dimensional "
                        f"input, input has {nd} dimensions")


def _setitem_advanced(self, key, value):
    _whole_mask_value_ndim(self, key, value)
    if _setitem_mask(self, key, value) or _setitem_int(self, key, value):
        return
    from . import _advindex
    if _advindex.setitem(self, key, value):
        return
    _fallback.compute(operator.setitem, (self, key, value), write=(self,))


# ---- aligned boolean-mask assignment: the select op, owner computes --------------------------
#
# `a[mask] = v` where the mask indexes k whole axes of a basic view V of `a` (the mask's axes are
# V's axes p..p+k) and v does not vary along the selection (a scalar, a 0-d or size-1 array, or an
# array over the axes beside the mask) is `V[...] = where(mask, v, V)`: one element-wise select
# op on views (ops.def WHERE), which fuses with the work around it and, the mask being aligned with
# V, moves no data between ranks.  Every other form (and every error, so that NumPy's exception is
# raised before anything is written) takes the general path.

_SCALARS = (int, float, complex, bool, _np.generic)


def _is_int_item(o):
    if isinstance(o, (bool, _np.bool_)):
        return False
    if isinstance(o, (int, _np.integer)):
        return True
    return isinstance(o, ndarray) and o.ndim == 0 and o.dtype.kind in "iu"


def _advanced_split(self, items, at, k):
    """One advanced index (spanning k dimensions) at items[at] among basic items: the basic key
    with slices in its place, and p, the first of its dimensions in the basic view; None when
    the items consume more dimensions than self has or hold two Ellipses."""
    consumed = k + sum(1 for i, o in enumerate(items)
                       if i != at and (isinstance(o, slice) or _is_int_item(o)))
    if consumed > self.ndim or sum(1 for o in items if o is Ellipsis) > 1:
        return None
    p = 0
    for o in items[:at]:
        if isinstance(o, slice) or o is None:
            p += 1
        elif o is Ellipsis:
            p += self.ndim - consumed
    # a 0-d index array beside the advanced index is an integer there (NumPy broadcasts it
    # with the index); alone among basic items it would make the basic key advanced
    items = tuple(int(o) if i != at and isinstance(o, ndarray) and _is_int_item(o) else o
                  for i, o in enumerate(items))
    return items[:at] + (slice(None),) * k + items[at + 1:], p


def _basic_view(self, basic):
    """self[basic] for the basic part of an advanced key; None where it raises (an integer out
    of bounds): NumPy checks the advanced items first (a mask's shape), so the general path
    raises NumPy's exception."""
    try:
        return self[basic]
    except IndexError:
        return None


def _mask_key(self, key):
    """(basic key with the mask as k full slices, mask, p, has_ints) for a key of basic items and
    one boolean array of ndim >= 1; None for any other key.  p is the position of the mask's first
    axis in self[basic key].  Local."""
    items = key if isinstance(key, tuple) else (key,)
    mask, at = None, -1
    for i, o in enumerate(items):
        if isinstance(o, (ndarray, _np.ndarray)) and o.dtype == _np.bool_ and o.ndim >= 1 \
                and type(o) in (ndarray, _np.ndarray):
            if mask is not None:
                return None
            mask, at = o, i
        elif not (o is None or o is Ellipsis or isinstance(o, slice) or _is_int_item(o)):
            return None
    if mask is None:
        return None
    split = _advanced_split(self, items, at, mask.ndim)
    if split is None:
        return None
    basic, p = split
    has_ints = any(_is_int_item(o) for o in items)
    return basic, mask, p, has_ints


def _separated(key, mask):
    """NumPy's rule: are the advanced items of the key (the mask and the integers beside it)
    separated by a slice, None or Ellipsis?  Then the selection's axis comes first."""
    items = key if isinstance(key, tuple) else (key,)
    adv = [i for i, o in enumerate(items) if o is mask or _is_int_item(o)]
    return any(not (o is mask or _is_int_item(o)) for o in items[adv[0]:adv[-1] + 1])


def _count_true(m):
    """The number of true elements of the bool array m, as a Python int.  (Flushes; collective
    under MPI: every rank gets the same count.)"""
    r = _core.full_reduce(m, "add") if m.dtype == _np.bool_ else None   # one C call
    if r is None:
        from ._reductions import count_nonzero
        r = count_nonzero(m)
    return int(r)


def _compact(view, mask, p):
    """view[mask] for a bool mask over view's axes p..p+mask.ndim (shapes checked): local
    compaction in C order, as a new array of shape pre + (count,) + post."""
    k = mask.ndim
    pre, post = view.shape[:p], view.shape[p + k:]
    count = _count_true(mask)
    if pre or post:
        m = mask[(None,) * p + (Ellipsis,) + (None,) * len(post)]
        m = _core.broadcast_to(m, view.shape)
        n = count
        for e in pre + post:
            n *= e
        # tiles of the flat result split between its rows, so the reshape lies in row parts
        flat = _core.compact(view, m, n, n // (pre + (count,))[0] if n else 1)
        return _core.reshape(flat, pre + (count,) + post)
    return _core.compact(view, mask, count)


def _aligned_mask(view, mask):
    """For view[mask] with a mask of view's shape: the mask itself where each rank holds the same
    part of both (or nothing is partitioned), so the compaction runs on each rank's own tiles.
    Where the parts differ (a[::-1][m], a[:, ::-2][m2] with m2 laid out otherwise), a copy of
    the mask on a new store tiled like view's root and seen through view's geometry (the mask's
    misplaced bytes move, at most its size), or None when the selection is so sparse that its
    indices (nonzero, then each element from its owner: the flat route) cost less than that
    copy.  Collective where it counts (a flush: every rank gets the same count)."""
    tv, tm = _core._tiling(view), _core._tiling(mask)
    if not (tv["tiled"] or tm["tiled"]) or _core._parts_match(view, mask):
        return mask
    root = _core._root(view)
    if root is None or not tv["tiled"]:
        return mask
    if any(st == 0 and n > 1 for st, n in zip(_core.layout(view), view.shape)):
        return mask       # a broadcast view: the mask seen through it would alias its rows
    count = _count_true(mask)
    ranks = _core.runtime_info()["ranks"]
    # per rank: the flat route reads the whole index (8 bytes an element) and a rank's share of
    # the indices and values; the copy, at most the rank's share of the mask
    if 8 * count * ranks + (8 * (mask.ndim + 1) + view.dtype.itemsize) * count < mask.size:
        return None
    e = _core.empty(tuple(root.shape), _np.bool_, root)
    ev = _core._view_as(view, e)
    if ev is None:
        return mask
    _core.assign(ev, mask)
    return ev


def _getitem_mask(self, key):
    """self[key] natively when the key is basic items and one boolean array (any other key: None,
    the general path).  A copy, as NumPy's."""
    parts = _mask_key(self, key)
    if parts is None:
        return None
    basic, mask, p, has_ints = parts
    k = mask.ndim
    view = _basic_view(self, basic)
    if not isinstance(view, ndarray) or view.shape[p:p + k] != mask.shape:
        return None                           # NumPy's IndexError, from the general path
    if view.ndim != k:
        from . import _advindex
        if _advindex._cut_besides(view, p):  # a mask beside axes the grid cuts: the indices
            return None                      # it selects, each element from its owner
    if isinstance(mask, _np.ndarray):
        mask = _core.from_any(mask)
    if view.ndim == k:
        mask = _aligned_mask(view, mask)
        if mask is None:
            return None                      # few selected: the indices, each from its owner
    r = _compact(view, mask, p)
    if has_ints and p and _separated(key, parts[1]):
        r = _core.transpose(r, (p,) + tuple(i for i in range(r.ndim) if i != p))
        r = _core.cast(r, r.dtype)           # C-ordered, as NumPy's result
    return r


def _int_key(self, key):
    """(basic key with the array as a full slice, index array, p, has_ints) for a key of basic
    items and one integer array of ndim >= 1 (a cupynum or NumPy array, or a list of ints); None
    for any other key.  p is the indexed axis's position in self[basic key].  Local."""
    items = key if isinstance(key, tuple) else (key,)
    arr, at = None, -1
    for i, o in enumerate(items):
        if o is None or o is Ellipsis or isinstance(o, slice) or _is_int_item(o):
            continue
        if arr is not None:
            return None
        if isinstance(o, ndarray) or isinstance(o, _np.ndarray) and type(o) is _np.ndarray:
            a = o
        elif isinstance(o, list) and o and all(type(x) is int for x in o):
            a = _np.asarray(o)
        else:
            return None
        if a.dtype.kind not in "iu" or a.dtype == _np.uint64 or a.ndim == 0:
            return None
        arr, at = a, i
    if arr is None:
        return None
    split = _advanced_split(self, items, at, 1)
    if split is None:
        return None
    basic, p = split
    return basic, arr, p, any(_is_int_item(o) for o in items), key if isinstance(key, tuple) else (key,), at


def _extreme(a, op):
    r = _core.full_reduce(a, op)
    if r is None:
        r = _core.to_scalar(_core.reduce(op, a, tuple(range(a.ndim)), a.dtype, None))
    return int(r)


def _in_bounds(idx, n):
    """Whether every value of the non-empty integer cupynum array idx lies in [-n, n): a
    contiguous int64 index is read once for both extremes (_core.index_range), any other reduced
    once per extreme.  Local (flushes what idx waits on)."""
    if n == 0:
        return False
    r = _core.index_range(idx)
    if r is not None:
        return -n <= r[0] and r[1] < n
    return _extreme(idx, "maximum") < n and _extreme(idx, "minimum") >= -n


_LOCAL_HOST = None


def _local_host():
    """Whether this is one process on the CPU backend, where the scatter kernels check every
    index before their first write (so a scatter need not be checked here first)."""
    global _LOCAL_HOST
    if _LOCAL_HOST is None:
        info = _core.runtime_info()
        _LOCAL_HOST = info["ranks"] == 1 and info["backend"] == "cpu"
    return _LOCAL_HOST


def _scatter_ran():
    """Run the scatter just queued (unchecked: _local_host); False when its kernel found an
    index out of bounds, having written nothing."""
    try:
        _core.sync()
    except IndexError:
        return False
    return True


def _gather(view, idx, p):
    """view[(slice(None),) * p + (idx,)] for an integer cupynum array idx whose values lie in
    [-n, n) (checked by the caller), idx's dimensions at p: a new array."""
    from . import _advindex
    if _advindex._flat_route(view, p):      # rows of axis p cut across ranks: element by element
        r = _advindex.getitem(view, (slice(None),) * p + (idx,))
        if r is not None:
            return r
    others = tuple(i for i in range(view.ndim) if i != p)
    w = _core.transpose(view, (p,) + others) if p else view
    flat = _core.reshape(idx, (idx.size,))
    if flat is None:
        flat = _core.reshape(_core.cast(idx, idx.dtype), (idx.size,))
    if flat.dtype != _np.int64:
        flat = _core.cast(flat, _np.int64)
    g = _core.gather(w, flat)
    rest = tuple(view.shape[i] for i in others)
    g = _core.reshape(g, tuple(idx.shape) + rest)
    if p:
        k = idx.ndim
        perm = tuple(range(k, k + p)) + tuple(range(k)) + tuple(range(k + p, g.ndim))
        g = _core.cast(_core.transpose(g, perm), g.dtype)    # C-ordered, as NumPy's result
    return g


def _getitem_int(self, key):
    """self[key] natively when the key is basic items and one integer array (bounds checked
    first: out of bounds, NumPy raises from the general path); None for any other key."""
    parts = _int_key(self, key)
    if parts is None:
        return None
    basic, arr, p, has_ints, items, at = parts
    view = _basic_view(self, basic)
    if not isinstance(view, ndarray):
        return None
    n = view.shape[p]
    idx = arr if isinstance(arr, ndarray) else _core.from_any(arr)
    if idx.size:
        if not _in_bounds(idx, n):
            return None
    if has_ints:
        adv = [i for i, o in enumerate(items) if i == at or _is_int_item(o)]
        if any(not (i == at or _is_int_item(o)) for i, o in enumerate(items)
               if adv[0] <= i <= adv[-1]):
            p = 0                                 # separated: the index's axes come first
            view = _core.transpose(view, (parts[2],) + tuple(i for i in range(view.ndim)
                                                              if i != parts[2]))
    return _gather(view, idx, p)


def _setitem_int(self, key, value):
    """self[key] = value natively when the key is basic items and one integer array: a scatter in
    index order (a repeated index keeps the last value, as NumPy's; `a[idx] += 1` is a read and
    this set, so repeats add once).  False (nothing done) for other keys, values the scatter does
    not take, and every error (NumPy's path raises before writing).  Local (flushes to check the
    indices)."""
    parts = _int_key(self, key)
    if parts is None:
        return False
    basic, arr, p, has_ints, items, at = parts
    view = _basic_view(self, basic)
    if not isinstance(view, ndarray) or _core.readonly(view):
        return False
    if not has_ints:
        from . import _advindex
        if _advindex._flat_route(view, p):  # rows of axis p cut across ranks: element by element
            return _advindex.setitem(view, (slice(None),) * p + (arr,), value)
    n = view.shape[p]
    idx = arr if isinstance(arr, ndarray) else _core.from_any(arr)
    # one process on the host: the kernel checks every index before its first write and the
    # scatter runs at once (below); else checked here first
    local = _local_host()
    if idx.size and (not local or view.size == 0) and not _in_bounds(idx, n):
        return False            # (an op of no elements is not run: its indices checked here)
    others = tuple(i for i in range(view.ndim) if i != p)
    rest = tuple(view.shape[i] for i in others)
    separated = has_ints and p and _separated_int(items, at)
    # the indexing result's shape, where NumPy places the index's dimensions
    lead = 0 if separated else p
    rshape = rest[:lead] + tuple(idx.shape) + rest[lead:]
    if isinstance(value, _SCALARS):
        if isinstance(value, _np.generic) and value.dtype.kind not in "biufc":
            return False
        val = _core.from_any(scalar_for_setitem(self.dtype, value))
    else:
        if not isinstance(value, ndarray):
            value = value_array(value, self.dtype)
            if value is None or value.dtype.kind not in "biufc" or type(value) is not _np.ndarray:
                return False
            value = _core.from_any(value)
        if value.dtype.kind == "c" and self.dtype.kind != "c":
            return False
        val = value
    vshape = tuple(val.shape)
    while len(vshape) > len(rshape) and vshape[0] == 1:
        vshape = vshape[1:]
    if len(vshape) > len(rshape) or any(a != b and a != 1 for a, b in
                                        zip(vshape, rshape[len(rshape) - len(vshape):])):
        return False                          # NumPy's ValueError
    val = _core.reshape(val, vshape) if vshape != tuple(val.shape) else val
    given = val
    # of dtype self.dtype, broadcast to the result, index dimensions first
    val = _core.broadcast_to(val, rshape) if tuple(val.shape) != rshape else val
    k = idx.ndim
    if lead:
        perm = tuple(range(lead, lead + k)) + tuple(range(lead)) + \
            tuple(range(lead + k, len(rshape)))
        val = _core.transpose(val, perm)
    w = _core.transpose(view, (p,) + others) if p else view
    # The scatter reads the value and the index as they are when they are whole arrays of the
    # dtype and shape it takes that do not share the destination's store (an op overlapping its
    # output is evaluated into a temporary, which lacks the rows not written); otherwise each
    # goes through a fresh copy.
    vshape = (idx.size,) + rest
    if (val is not given or val.dtype != self.dtype or tuple(val.shape) != vshape or
            not _core.covers_store(val) or _core._shares_store(val, view)):
        val = _core.reshape(_core.cast(val, self.dtype), vshape)
    flat = None
    if idx.dtype == _np.int64 and _core.covers_store(idx) and not _core._shares_store(idx, view):
        flat = idx if idx.ndim == 1 else _core.reshape(idx, (idx.size,))
    if flat is None:
        flat = _core.reshape(_core.cast(idx, _np.int64), (idx.size,))
    _core.scatter(w, flat, val)
    return not (local and idx.size) or _scatter_ran()   # else NumPy's message, general path


def _separated_int(items, at):
    adv = [i for i, o in enumerate(items) if i == at or _is_int_item(o)]
    return any(not (i == at or _is_int_item(o)) for i, o in enumerate(items)
               if adv[0] <= i <= adv[-1])


def _setitem_mask(self, key, value):
    """Do `self[key] = value` as the select op when the key is an aligned boolean mask (see
    above); False (nothing done) otherwise.  Local (queues one op)."""
    parts = _mask_key(self, key)
    if parts is None:
        return False
    basic, mask, p, has_ints = parts
    k = mask.ndim
    view = _basic_view(self, basic)
    if not isinstance(view, ndarray) or view.shape[p:p + k] != mask.shape:
        return False                          # NumPy's IndexError, from the general path
    if isinstance(value, _SCALARS):
        if isinstance(value, _np.generic) and value.dtype.kind not in "biufc":
            return False
        val = value
    else:
        if not isinstance(value, ndarray):
            value = value_array(value, self.dtype)
            if value is None or value.dtype.kind not in "biufc" or type(value) is not _np.ndarray:
                return False
        if value.dtype.kind == "c" and self.dtype.kind != "c":
            return False                      # NumPy's ComplexWarning, from the general path
        # The value broadcasts against the indexing result (V's shape with the mask's k axes
        # replaced by one of the selection's length): leading 1s dropped, and the axis facing the
        # selection absent or of length 1, else the general path (and NumPy's size rules).
        vshape = tuple(value.shape)
        post = view.ndim - p - k
        shape = ()
        if value.size != 1:
            if has_ints:
                return False                  # NumPy may move the selection's axis first
            while len(vshape) > post + 1 + p and vshape[0] == 1:
                vshape = vshape[1:]
            if len(vshape) <= post:
                shape, want = vshape, view.shape[view.ndim - len(vshape):]
            else:
                front, facing, tail = vshape[:-post - 1], vshape[-post - 1], vshape[len(vshape) - post:]
                if facing != 1 or len(front) > p:
                    return False
                shape = front + (1,) * k + tail
                vshape = front + tail
                want = view.shape[p - len(front):p] + view.shape[p + k:]
            if any(a != b and a != 1 for a, b in zip(vshape, want)):
                return False
        if isinstance(value, _np.ndarray):
            value = _core.from_any(value)
        val = _core.cast(value, self.dtype) if value.dtype != self.dtype else value
        val = _core.reshape(val, shape)
        if val is None:
            return False
        val = _core.broadcast_to(val, view.shape)
    if isinstance(mask, _np.ndarray):
        mask = _core.from_any(mask)
    m = mask[(None,) * p + (Ellipsis,) + (None,) * (view.ndim - p - k)]
    if m.shape != view.shape:
        m = _core.broadcast_to(m, view.shape)
    if _core.readonly(view):
        raise ValueError("assignment destination is read-only")
    _core.select(m, val, view, view)
    return True


# ---- attributes ---------------------------------------------------------------------------------

class _Adopt:
    """`_set_shape`'s private argument: an array whose view `self` takes over (ndarray.resize)."""
    __slots__ = ("array",)

    def __init__(self, array):
        self.array = array


def _set_shape(self, shape):
    if isinstance(shape, _Adopt):
        return shape.array
    shape = _normalize_shape(shape, self.size)
    v = _core.reshape(self, shape)
    if v is None:
        raise AttributeError("Incompatible shape for in-place modification. Use `.reshape()` to "
                             "make a copy with the desired shape.")
    return v


def _get_real(self):
    """A view of the real parts (the array itself when it is not complex), as NumPy."""
    return _core.component(self, 1) if self.dtype.kind == "c" else self


def _get_imag(self):
    if self.dtype.kind == "c":
        return _core.component(self, 2)
    # NumPy: zeros, read-only (a write into the imaginary part of a real array is refused)
    return _core.broadcast_to(_core.empty((), self.dtype), self.shape)


def _set_real(self, value):
    _core.assign(_get_real(self), value)


def _set_imag(self, value):
    if self.dtype.kind != "c":
        raise TypeError("array does not have imaginary part to set")
    _core.assign(_core.component(self, 2), value)


def _get_strides(self):
    """NumPy's strides: the view's byte steps within its store (0 where broadcast)."""
    return tuple(_core.layout(self))


def _get_mT(self):
    """A view with the last two axes swapped."""
    if self.ndim < 2:
        raise ValueError("matrix transpose with ndim < 2 is undefined")
    perm = list(range(self.ndim))
    perm[-1], perm[-2] = perm[-2], perm[-1]
    return _core.transpose(self, tuple(perm))


class flatiter:
    """`a.flat`: the array as 1-D in C order.  Reads copy, as NumPy's flatiter; writes go to the
    array (through a 1-D view when its layout allows one, otherwise computed by NumPy on the
    gathered data and written back, so NumPy's rules such as repeating short values hold)."""

    __slots__ = ("base",)

    def __init__(self, base):
        self.base = base

    def __len__(self):
        return self.base.size

    def __iter__(self):
        return iter(_core.to_numpy(self.base).flat)

    def _line(self):
        a = self.base
        v = _core.reshape(a, (a.size,))
        return v if v is not None else _core.reshape(_core.cast(a, a.dtype), (a.size,))

    def __getitem__(self, key):
        a = self.base
        if isinstance(key, (int, _np.integer)) and not isinstance(key, (bool, _np.bool_)):
            if not -a.size <= key < a.size:      # NumPy's flat iterator's text
                raise IndexError(f"index {key} is out of bounds for size {a.size}")
            return self._line()[key]
        if isinstance(key, slice) or key is Ellipsis:
            r = self._line()[slice(None) if key is Ellipsis else key]
            return _core.cast(r, r.dtype)
        # an integer array (or list of ints) in bounds, or a boolean array of the array's size:
        # indexing the line; anything else (and every error, with the flat iterator's own
        # words) is NumPy's
        idx = key
        if isinstance(key, list) and key and all(type(x) is int for x in key):
            idx = _np.asarray(key)
        if type(idx) in (ndarray, _np.ndarray) and idx.ndim >= 1:
            if idx.dtype == _np.bool_:
                if idx.ndim == 1 and idx.shape[0] == a.size:
                    return self._line()[idx]
            elif idx.dtype.kind in "iu" and idx.dtype != _np.uint64:
                ci = idx if isinstance(idx, ndarray) else _core.from_any(idx)
                if ci.size == 0 or _in_bounds(ci, a.size):
                    return self._line()[ci]
        return _fallback.compute(lambda n, k: n.flat[k], (a, key))

    def __setitem__(self, key, value):
        a = self.base
        if _core.readonly(a):                    # NumPy's flat iterator checks it first
            raise ValueError("underlying array is read-only")
        v = _core.reshape(a, (a.size,))
        if v is not None and _np.ndim(value) == 0 and (
                isinstance(key, slice) or key is Ellipsis or
                isinstance(key, (int, _np.integer)) and not isinstance(key, (bool, _np.bool_))):
            if not isinstance(key, (int, _np.integer)):
                v[key] = value
                return
            if not -v.size <= key < v.size:      # NumPy's flat iterator's text
                raise IndexError(f"index {key} is out of bounds for size {v.size}")
            try:
                v[key] = value
            except (TypeError, ValueError, OverflowError):
                # NumPy's flat iterator reports any failure to store one element so
                raise ValueError("Error setting single item of array.") from None
            return
        from . import _advindex
        if _advindex.flat_setitem(a, key, value):
            return
        _fallback.compute(lambda n, k, x: n.flat.__setitem__(k, x), (a, key, value), write=(a,))

    def __array__(self, dtype=None, copy=None):
        r = _core.to_numpy(self.base).ravel()
        return r if dtype is None else r.astype(dtype)

    def copy(self):
        return _flatten(self.base)

    def __repr__(self):
        return f"<cupynum flatiter over an array of shape {self.base.shape}>"


def _set_flat(self, value):
    from . import _advindex
    if _advindex.flat_setitem(self, slice(None), value):
        return
    _fallback.compute(lambda n, x: setattr(n, "flat", x), (self, value), write=(self,))


# ---- shapes ---------------------------------------------------------------------------------------

def _fits(shape, size):
    """shape is a tuple of non-negative Python ints of `size` elements: the common case."""
    if type(shape) is not tuple:
        return False
    n = 1
    for s in shape:
        if type(s) is not int or s < 0:
            return False
        n *= s
    return n == size


def _normalize_shape(shape, size):
    """A shape tuple with at most one -1 resolved, checked against `size`."""
    if _fits(shape, size):   # the common case first
        return shape
    if isinstance(shape, (int, _np.integer)) or hasattr(shape, "__index__") and not isinstance(shape, (tuple, list)):
        shape = (shape,)
    elif not hasattr(shape, "__len__"):
        raise TypeError(f"expected a sequence of integers or a single integer, got '{shape!r}'")
    import operator
    shape = tuple(operator.index(s) for s in shape)
    if any(not -2 ** 63 <= s < 2 ** 63 for s in shape):
        raise ValueError("Maximum allowed dimension exceeded")   # NumPy's word: beyond intp
    unknown = [i for i, s in enumerate(shape) if s < 0]   # NumPy: any negative is unknown
    if len(unknown) > 1:
        raise ValueError("can only specify one unknown dimension")
    if unknown:
        known = 1
        for s in shape:
            if s >= 0:
                known *= s
        if known == 0 or size % known:
            raise ValueError(f"cannot reshape array of size {size} into shape "
                             f"{_shape_repr(shape)}")
        shape = tuple(size // known if s < 0 else s for s in shape)
    n = 1
    for s in shape:
        n *= s
    if n != size:
        raise ValueError(f"cannot reshape array of size {size} into shape {_shape_repr(shape)}")
    return shape


def _shape_repr(shape):
    """NumPy's spelling in reshape errors: (5,newaxis), (7,4), (25,); leading unknowns are left
    out, and the comma is a 1-tuple's only (-1, 5) is "(5)", as NumPy's convert_shape_to_string."""
    first = 0
    while first < len(shape) and shape[first] < 0:
        first += 1
    if first == len(shape):
        return "()"
    items = ["newaxis" if s < 0 else str(s) for s in shape[first:]]
    return "(" + ",".join(items) + ("," if len(shape) == 1 else "") + ")"


def _is_f_contiguous_order(a):
    """Are the view's strides Fortran-ordered (first dimension fastest)?"""
    st = [abs(s) for s, n in zip(_core.layout(a), a.shape) if n > 1]
    return len(st) > 1 and st == sorted(st) and st != sorted(st, reverse=True)


def _reshape(a, shape, order="C", copy=None):
    order = order.upper() if isinstance(order, str) else order
    if order == "A":
        order = "F" if _is_f_contiguous_order(a) else "C"
    if order == "F":
        # Fortran order: C order of the transposes, so views stay views where NumPy's do.
        shape = _normalize_shape(shape, a.size)
        t = _core.transpose(a, tuple(range(a.ndim))[::-1])
        r = _reshape(t, shape[::-1], "C", copy)
        return _core.transpose(r, tuple(range(r.ndim))[::-1])
    if order not in ("C", None):
        raise ValueError(f"order must be one of 'C', 'F', 'A', or 'K' (got {order!r})")
    shape = _normalize_shape(shape, a.size)
    if copy:
        a = _core.cast(a, a.dtype)
    v = _core.reshape(a, shape)
    if v is None:
        if copy is False:
            raise ValueError("Unable to avoid creating a copy while reshaping.")
        v = _core.reshape(_core.cast(a, a.dtype), shape)
    return v


def _method_reshape(self, *shape, order="C", copy=None, **other):
    """ndarray.reshape's forms that its C method (methods_views.c) does not take at once."""
    if other:
        raise TypeError(f"'{next(iter(other))}' is an invalid keyword argument for this function")
    if not shape:
        raise TypeError("reshape() takes exactly 1 argument (0 given)")
    if shape == (None,):
        return _core.reshape(self, self.shape)   # NumPy's a.reshape(None): a view of the shape
    if len(shape) == 1 and not isinstance(shape[0], (int, _np.integer)):
        shape = shape[0]
    if order == "C" and copy is None and _fits(shape, self.size):
        # a.reshape(8, 8, 6, 2) of Python ints that fit: the view at once where there is one
        v = _core.reshape(self, shape)
        if v is not None:
            return v
    return _reshape(self, shape, order=order, copy=copy)


def _memory_perm(a):
    """a's axes by decreasing stride: NumPy's order='K' walk."""
    st = _core.layout(a)
    return sorted(range(a.ndim), key=lambda i: -abs(st[i]))


def _memory_order(a):
    """The view with its axes sorted by decreasing stride: NumPy's order='K' walk."""
    return _core.transpose(a, tuple(_memory_perm(a)))


def _is_contiguous(a, order="C"):
    """NumPy's C_CONTIGUOUS (or F_CONTIGUOUS) flag of the view: unit dimensions ignored, an
    empty view contiguous."""
    return _core.contiguous(a, order == "F")


def _ravel(self, order="C"):
    """NumPy's ravel: a view of an array contiguous in that order, a copy otherwise (the ravel
    of a reversed view is a copy: writes into it do not reach the array)."""
    order = order.upper() if isinstance(order, str) else order
    if order == "A":
        order = "F" if _is_contiguous(self, "F") and not _is_contiguous(self, "C") else "C"
    if order == "K":
        if _is_contiguous(self, "C") or _is_contiguous(self, "F"):
            return _reshape(_memory_order(self), (-1,))
        return _flatten(self, "K")
    if order in ("C", "F") and not _is_contiguous(self, order):
        return _flatten(self, order)
    return _reshape(self, (-1,), order=order)


def _flatten(self, order="C"):
    order = order.upper() if isinstance(order, str) else order
    if order == "K":
        return _core.reshape(_core.cast(_memory_order(self), self.dtype), (self.size,))
    if order == "A":
        order = "F" if _is_f_contiguous_order(self) else "C"
    if order == "F":
        t = _core.transpose(self, tuple(range(self.ndim))[::-1])
        return _core.reshape(_core.cast(t, self.dtype), (self.size,))
    return _core.reshape(_core.cast(self, self.dtype), (self.size,))


def _element_value(dtype, value):
    """What NumPy stores when an array or a sequence is assigned to one element of an array of
    `dtype` (a bool of a size-1 array, the value of a nested single-element list for floats...),
    or NumPy's own error for it: index.c hands such assignments here."""
    if isinstance(value, ndarray):
        value = _core.to_numpy(value)
    one = _np.zeros(1, dtype)
    one[0] = value
    return one[0]


def _transpose(self, *axes):
    if len(axes) == 1 and (axes[0] is None or isinstance(axes[0], (tuple, list))):
        axes = axes[0]
    if not axes:
        return _core.transpose(self, tuple(range(self.ndim))[::-1])
    from numpy.lib.array_utils import normalize_axis_index
    if len(axes) != self.ndim:                  # NumPy's checks, in NumPy's order
        raise ValueError("axes don't match array")
    axes = tuple(normalize_axis_index(operator.index(ax), self.ndim) for ax in axes)
    if len(set(axes)) != len(axes):
        raise ValueError("repeated axis in transpose")
    return _core.transpose(self, axes)


def _swapaxes(self, axis1, axis2):
    from numpy.lib.array_utils import normalize_axis_index
    a1 = normalize_axis_index(axis1, self.ndim)
    a2 = normalize_axis_index(axis2, self.ndim)
    perm = list(range(self.ndim))
    perm[a1], perm[a2] = perm[a2], perm[a1]
    return _core.transpose(self, tuple(perm))


def _astype(self, dtype, order="K", casting="unsafe", subok=True, copy=True):
    dtype = _np.dtype(dtype)
    if casting != "unsafe" and not _np.can_cast(self.dtype, dtype, casting=casting):
        what = "scalar" if self.ndim == 0 else "array data"     # NumPy's words for 0-d
        raise TypeError(f"Cannot cast {what} from {self.dtype!r} to {dtype!r} according to "
                        f"the rule '{casting}'")
    if dtype == self.dtype and not copy:
        return self
    if self.dtype.kind == "c" and dtype.kind not in "cb":
        import warnings
        warnings.warn("Casting complex values to real discards the imaginary part",
                      _np.exceptions.ComplexWarning, stacklevel=2)
    return _core.cast(self, dtype)


def _copy(self, order="C"):
    return _core.cast(self, self.dtype)


_products = None   # cupynum._products, bound at the first product (it imports this module)


def _matmul_operator(a, b):
    global _products
    if type(a) is ndarray and type(b) is ndarray:   # a @ b of two cupynum arrays: no wrappers
        if _products is None:
            from . import _products
        r = _products._matmul(a, b)
        return _core.to_scalar(r) if r.ndim == 0 else r
    from ._functions import matmul
    for o in (a, b):
        if not isinstance(o, (ndarray, _np.ndarray, list, tuple, _np.generic, int, float, complex)):
            return NotImplemented
    return matmul(a, b)


def _imatmul_operator(a, b):
    from ._functions import matmul
    r = matmul(a, b)
    if r.shape != a.shape:
        raise ValueError(f"matmul: Output operand 0 has a mismatch in its core dimension; "
                         f"result shape {r.shape} does not fit {a.shape}")
    _core.assign(a, r)
    return a


def _reduce_ex(self, protocol):
    return (_core.from_any, (_core.to_numpy(self),))


def _install_methods():
    from . import _functions as F

    methods = {
        "ravel": _ravel,
        "flatten": _flatten,
        "transpose": _transpose,
        "swapaxes": _swapaxes,
        "astype": _astype,
        "copy": _copy,
        "__copy__": _copy,
        "__deepcopy__": lambda self, memo=None: _copy(self),
        "__reduce_ex__": _reduce_ex,
        "__complex__": lambda self: complex(_core.to_numpy(self)),
        "__contains__": lambda self, v: v in _core.to_numpy(self),
        "__array_function__": F._array_function,
        "__array_ufunc__": F._array_ufunc,
        "dot": lambda self, b, out=None: F.dot(self, b, out=out),
    }
    from . import _fallback
    import types
    methods.update({
        "strides": property(_get_strides, doc=_get_strides.__doc__),
        "mT": property(_get_mT, doc=_get_mT.__doc__),
        "flat": property(flatiter, _set_flat, doc=flatiter.__doc__),
        "__class_getitem__": classmethod(types.GenericAlias),
    })
    from . import _selection
    methods["nonzero"] = _selection._method_nonzero
    methods["compress"] = _selection._method_compress
    methods["take"] = _selection._method_take
    from . import _advindex as A
    methods["put"] = lambda self, indices, values, mode="raise": A.put(self, indices, values, mode)
    methods["choose"] = lambda self, choices, out=None, mode="raise": \
        A.choose(self, choices, out=out, mode=mode)
    from . import _reductions as R
    for name in R.METHODS:
        if name in ("sum", "prod", "max", "min"):
            continue    # C methods (csrc/module/fastpath.c): a fast path, else R's function
        methods[name] = F._method(getattr(R, name))
    for name, f in methods.items():
        setattr(ndarray, name, f)
    from . import _interop
    _interop.install(ndarray)
    # Every other public name of numpy.ndarray falls back to NumPy.
    _fallback.install_ndarray_fallbacks(ndarray)
    ndarray.__array_priority__ = 100.0
    ndarray.__hash__ = None
