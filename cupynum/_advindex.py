"""Advanced indexing with several index arrays at once, and what is built on it (issue #15).

A key of basic items (slices, None, Ellipsis) and advanced ones (integer arrays, lists, Python
integers beside them, boolean arrays as their nonzero() indices) is planned once (`_plan`): the
basic items give a view V of the array; the advanced items index some of V's axes, broadcast
together to a shape B.  V with those axes first, merged into one (a view when the layout allows,
else a C-ordered copy), is indexed by ONE int64 index, the row-major linear combination of the
broadcast indices (negatives counted from the end, computed as one fused element-wise op), so
reading is the runtime's GATHER and writing its SCATTER (last wins, as NumPy's; with an op: the
ufunc.at accumulation, in index order).  NumPy's rule places B where the advanced items stand when
they are adjacent in the key, first when a slice, None or Ellipsis separates them.

Everything NumPy would refuse (out-of-bounds indices, shapes that do not broadcast, wrong mask
shapes, values that do not broadcast to the result) is detected before anything is written and the
call returns None/False, so that the general path (NumPy on the gathered data) raises NumPy's own
exception and message; nothing is written on failure.

Also here, on the same plan: take_along_axis, put_along_axis, put, putmask, place, choose, select,
ix_, the `at` method of the ufuncs, and ndarray.flat's assignments."""

import numpy as _np

from . import _core
from ._ndarray import _in_bounds, _local_host, _scatter_ran, ndarray, scalar_for_setitem

_SCALARS = (int, float, complex, bool, _np.generic)


def _cp():
    import cupynum
    return cupynum


def _as_index(o):
    """('int', value) for a Python/NumPy integer or 0-d integer cupynum array, ('arr', cupynum
    int array), ('mask', cupynum bool array of ndim >= 1), ('basic', o) for slice/None/Ellipsis,
    or None for anything else (the general path)."""
    if o is None or o is Ellipsis or isinstance(o, slice):
        return "basic", o
    if isinstance(o, (bool, _np.bool_)):
        return None
    if isinstance(o, (int, _np.integer)):
        return "int", int(o)
    if isinstance(o, ndarray):
        a = o
    elif type(o) is _np.ndarray:
        a = o
    elif isinstance(o, list):
        try:
            a = _np.asarray(o)
        except (ValueError, TypeError):
            return None
        if a.size == 0 and a.dtype.kind == "f":
            a = a.astype(_np.intp)
    else:
        return None
    if a.dtype == _np.bool_:
        if a.ndim == 0:
            return None
        return "mask", a if isinstance(a, ndarray) else _core.from_any(a)
    if a.dtype.kind not in "iu" or a.dtype == _np.uint64:
        return None
    if a.ndim == 0:
        return "int", int(a)
    return "arr", a if isinstance(a, ndarray) else _core.from_any(a)


class _Plan:
    __slots__ = ("view", "w", "lin", "bshape", "rest", "rshape", "lead", "nmerged", "k",
                 "flat", "frest", "foff", "fsrc")


def _plan(self, key, inbounds=(), flat=False):
    """The plan of self[key] for a key with advanced items (see the module's text); None for keys
    it does not take and every key NumPy refuses.  `inbounds`: index arrays of the key known to
    hold non-negative values in bounds (the aranges of take_along_axis), not checked.  With
    `flat` (self C-ordered over all of its store: _grid_cut), lin is instead each selected
    element's C-order index in self of B's part (the advanced items' offsets; V's offset and
    its other axes' steps in foff and frest), for _flat_index."""
    items = key if isinstance(key, tuple) else (key,)
    parsed = []
    for o in items:
        p = _as_index(o)
        if p is None:
            return None
        parsed.append(p)
    if not any(kind != "basic" for kind, _ in parsed):
        return None
    if sum(1 for kind, o in parsed if kind == "basic" and o is Ellipsis) > 1:
        return None
    consumed = 0
    for kind, o in parsed:
        if kind == "basic":
            consumed += isinstance(o, slice)
        else:
            consumed += o.ndim if kind == "mask" else 1
    if consumed > self.ndim:
        return None
    # the basic key (advanced items as full slices) and each advanced item's first axis in V
    basic, adv, pos = [], [], 0
    for kind, o in parsed:
        if kind == "basic":
            basic.append(o)
            if o is Ellipsis:
                pos += self.ndim - consumed
            else:
                pos += 1
        else:
            k = o.ndim if kind == "mask" else 1
            basic.append((slice(None),) * k)
            adv.append((kind, o, pos))
            pos += k
    bkey = tuple(x for b in basic for x in (b if isinstance(b, tuple) else (b,)))
    from ._ndarray import _basic_view
    view = _basic_view(self, bkey)
    if not isinstance(view, ndarray):
        return None
    # NumPy's placement: the advanced items adjacent in the key, or separated
    at = [i for i, (kind, _) in enumerate(parsed) if kind != "basic"]
    separated = any(parsed[i][0] == "basic" for i in range(at[0], at[-1] + 1))
    # the index arrays, one per indexed axis of V, and their sizes
    idx, dims = [], []
    from ._ndarray import _count_true
    for kind, o, p in adv:
        if kind == "mask":
            if tuple(view.shape[p:p + o.ndim]) != tuple(o.shape):
                return None
            nz = _core.nonzero(o, _count_true(o))
            for d in range(o.ndim):
                idx.append(nz[d])
                dims.append(p + d)
        else:
            idx.append(o)
            dims.append(p)
    try:
        bshape = _np.broadcast_shapes(*(() if isinstance(i, int) else tuple(i.shape) for i in idx))
    except ValueError:
        return None
    sizes = [view.shape[d] for d in dims]
    cp = _cp()
    bad, lin = None, None
    mult = 1
    root = None
    if flat is None:
        flat = _cut_besides(self, dims[0]) if view.ndim == self.ndim else _cut_besides(self, -1)
        if not flat and not _c_ordered(self):
            root = _strided_root(view, dims)
            flat = root is not None
    if flat:
        item = self.dtype.itemsize
        fst = [st // item for st in _core.layout(view)]
    for i, n, dim in reversed(list(zip(idx, sizes, dims))):
        step = fst[dim] if flat else mult
        if isinstance(i, int):
            if not -n <= i < n:
                return None
            t = (i + n if i < 0 else i) * step
        elif any(i is j for j in inbounds):
            t = i if i.dtype == _np.int64 else _core.cast(i, _np.int64)
            if step != 1:
                t = cp.multiply(t, step)
        else:
            if i.dtype != _np.int64:
                i = _core.cast(i, _np.int64)
            # an index in memory is read once for its extremes; any other joins one fused count
            r = _core.index_range(i)
            if r is not None:
                if not (-n <= r[0] and r[1] < n):
                    return None
            else:
                b = cp.logical_or(cp.less(i, -n), cp.greater_equal(i, n))
                bad = b if bad is None else cp.logical_or(bad, b)
            t = cp.where(cp.less(i, 0), cp.add(i, n), i) if r is None or r[0] < 0 else i
            if step != 1:
                t = cp.multiply(t, step)
        lin = t if lin is None else cp.add(lin, t)
        mult *= n
    if bad is not None and bad.size and _count_true(bad):
        return None                             # NumPy's IndexError, from the general path
    plan = _Plan()
    plan.view = view
    others = tuple(d for d in range(view.ndim) if d not in dims)
    plan.w = _core.transpose(view, tuple(dims) + others) if tuple(dims) + others != \
        tuple(range(view.ndim)) else view
    plan.rest = tuple(view.shape[d] for d in others)
    plan.nmerged = mult
    plan.bshape = tuple(bshape)
    plan.k = len(plan.bshape)
    m = 1
    for e in bshape:
        m *= e
    if isinstance(lin, (int, _np.integer)):           # integers only (0-d index arrays)
        lin = _core.from_any(_np.full((), lin, _np.int64))
    if tuple(lin.shape) != plan.bshape:
        lin = _core.broadcast_to(lin, plan.bshape)
    lin = _core.cast(lin, _np.int64)               # a fresh C-ordered copy
    plan.lin = _core.reshape(lin, (m,))
    plan.lead = 0 if separated else dims[0]
    plan.rshape = plan.rest[:plan.lead] + plan.bshape + plan.rest[plan.lead:]
    plan.flat = flat
    if flat:
        plan.frest = tuple(fst[d] for d in others)
        if root is not None:                    # the whole root store's elements in C order
            plan.foff = _core._byte_offset(view) // item
            plan.fsrc = root
        else:
            plan.foff = (_core._byte_offset(view) - _core._byte_offset(self)) // item
            plan.fsrc = _core.reshape(self, (self.size,))       # self's elements in C order
    return plan


def _merged(plan, copy):
    """V with the indexed axes first and merged: (array, is_view).  A copy (C-ordered) when the
    layout does not allow a view and `copy`; None otherwise."""
    shape = (plan.nmerged,) + plan.rest
    v = _core.reshape(plan.w, shape)
    if v is not None:
        return v, True
    if not copy:
        return None
    return _core.reshape(_core.cast(plan.w, plan.w.dtype), shape), False


def _to_result_order(plan, g):
    """g, of shape bshape + rest, as the indexing result (rshape, C-ordered)."""
    g = _core.reshape(g, plan.bshape + plan.rest)
    if plan.lead:
        k, p = plan.k, plan.lead
        perm = tuple(range(k, k + p)) + tuple(range(k)) + tuple(range(k + p, g.ndim))
        g = _core.cast(_core.transpose(g, perm), g.dtype)
    return g


def _c_ordered(v):
    """Whether v's elements lie in C order at unit element steps (axes of length 1 aside): then
    an element's C-order index in v is its offset from v's origin.  Local."""
    expect = v.dtype.itemsize
    for n, st in zip(reversed(tuple(v.shape)), reversed(tuple(_core.layout(v)))):
        if n != 1 and st != expect:
            return False
        expect *= n
    return True


def _cut_besides(v, axis):
    """Whether v, of ndim >= 2, is C-ordered (its elements a 1-D view) over a partitioned store
    whose grid cuts an axis other than `axis` (-1: any axis but the first), so that serving whole
    rows of that axis would gather the array: then the flat route serves each element from
    its owner.  Local."""
    if v.ndim < 2:
        return False
    t = _core._tiling(v)
    if not t["tiled"]:
        return False
    axis = 0 if axis < 0 else axis
    return any(g > 1 for d, g in enumerate(t["grid"]) if d != axis) and _c_ordered(v) and \
        _core.reshape(v, (v.size,)) is not None


def _strided_root(v, dims):
    """For a view v whose elements do not lie in C order (reversed, transposed, strided) of a
    store partitioned over ranks, indexed along its axes `dims` (the first where the index
    places it): the root store's elements as a 1-D array (its C order, which the rank tiles cut
    as the flat route serves), when the row path would gather -- the ranks' parts of v with
    those axes first and merged are not ranges of its rows (a.T[idx] on row slabs; a[::-1][idx]
    on a 2x2 grid) or the merge needs a copy; None where rows are served natively (a[::-1][idx]
    on row slabs) or v's elements are not the root's.  Local."""
    t = _core._tiling(v)
    if not t["tiled"] or not any(g > 1 for g in t["grid"]) or v.size == 0:
        return None
    dims = tuple(dims)
    others = tuple(d for d in range(v.ndim) if d not in dims)
    w = _core.transpose(v, dims + others) if dims + others != tuple(range(v.ndim)) else v
    m = 1
    for d in dims:
        m *= v.shape[d]
    merged = _core.reshape(w, (m,) + tuple(v.shape[d] for d in others))
    if merged is not None and _core._row_parts(merged):
        return None
    r = _core._root(v)
    if r is None:
        return None
    return _core.reshape(r, (r.size,))


def _flat_route(v, axis):
    """Whether v[(slice(None),) * axis + (idx,)] (get or set) should take the flat route, each
    element served by its owner: v C-ordered on a grid that cuts another axis (_cut_besides),
    or v's elements not in C order where its rows would not be served natively
    (_strided_root).  Local."""
    if _cut_besides(v, axis):
        return True
    return v.ndim >= 1 and not _c_ordered(v) and _strided_root(v, (axis,)) is not None


def _grid_cut(v):
    """Whether v, of ndim >= 2, is C-ordered over all of a store whose rank tiles cut its rows
    (a grid with more than one rank along a later axis: 2x2 on 4 ranks).  Local."""
    return _cut_besides(v, 0)


def _elements(src, lin):
    """For src (n,) + rest C-ordered on a grid that cuts its rows (_grid_cut): (src as 1-D, the
    element index of rows lin: lin[j] * blk + e for e < blk, row by row), so that each element
    is served by its owner (dist.c's element case) instead of src being gathered; None
    elsewhere (then rows are served as they are).  Local."""
    if not _grid_cut(src):
        return None
    blk = src.size // src.shape[0] if src.shape[0] else 0
    m = lin.shape[0]
    if blk == 0 or m == 0:
        return None
    cp = _cp()
    e = cp.add(cp.multiply(_core.reshape(lin, (m, 1)), blk),
               _core.reshape(cp.arange(blk, dtype=_np.int64), (1, blk)))
    return _core.reshape(src, (src.size,)), _core.reshape(_core.cast(e, _np.int64), (m * blk,))


def _flat_index(plan):
    """For a flat plan: the C-order index in self of every element of the indexing result, in
    the result's order (rshape), as a 1-D int64 array.  Local: B's offsets broadcast into an
    array tiled by the result shape's own default (not like the few indices, which cut over
    every rank would leave one rank most of it), then an arange per other axis of V added in
    place: element-wise ops whose operands are small."""
    cp = _cp()
    k, lead, rs = plan.k, plan.lead, plan.rshape
    out = _core.empty(rs, _np.int64)
    e = _core.reshape(plan.lin, (1,) * lead + plan.bshape + (1,) * (len(plan.rest) - lead))
    _core.assign(out, cp.add(e, plan.foff) if plan.foff else e)
    for j, (n, st) in enumerate(zip(plan.rest, plan.frest)):
        at = j if j < lead else j + k
        ar = _core.reshape(cp.arange(0, n * st, st, dtype=_np.int64) if st else
                           cp.zeros(n, dtype=_np.int64), (1,) * at + (n,) + (1,) * (len(rs) - at - 1))
        cp.add(out, ar, out=out)
    m = 1
    for x in rs:
        m *= x
    flat = _core.reshape(out, (m,))
    if _core._tiling(out)["tiled"] and not _core._row_parts(flat):
        # the flat alias of a grid-cut result is untiled: a 1-D copy in ranges, which the
        # gather's result then lies like, so each rank reads only its own part of the index
        flat = _core.cast(flat, _np.int64)
    return flat


def _to_result_shape(plan, val):
    """val broadcast to the indexing result's shape (rshape), leading 1s dropped; None when it
    does not broadcast (NumPy's ValueError from the general path)."""
    vshape = tuple(val.shape)
    while len(vshape) > len(plan.rshape) and vshape[0] == 1:
        vshape = vshape[1:]
    try:
        if len(vshape) > len(plan.rshape) or \
                _np.broadcast_shapes(vshape, plan.rshape) != plan.rshape:
            return None
    except ValueError:
        return None
    if vshape != tuple(val.shape):
        val = _core.reshape(val, vshape)
    if tuple(val.shape) != plan.rshape:
        val = _core.broadcast_to(val, plan.rshape)
    return val


def _flat_values(plan, val, dtype):
    """val broadcast to the result (rshape), as a fresh 1-D array of `dtype` cut in 1-D ranges
    (as the scatter sends them); None when it does not broadcast."""
    val = _to_result_shape(plan, val)
    if val is None:
        return None
    val = _core.cast(val, dtype)                  # fresh: never shares the destination's store
    m = val.size
    flat = _core.reshape(val, (m,))
    if _grid_cut(val):                            # an untiled alias: copied into 1-D ranges
        flat = _core.cast(flat, dtype)
    return flat


def getitem(self, key, inbounds=()):
    """self[key] natively, or None (the general path)."""
    plan = _plan(self, key, inbounds, flat=None)
    if plan is None:
        return None
    if plan.flat:
        # rows cut across ranks (a 2x2 grid; columns of row slabs): each element from its owner
        return _core.reshape(_core.gather(plan.fsrc, _flat_index(plan)), plan.rshape)
    src, is_view = _merged(plan, True)
    el = _elements(src, plan.lin) if is_view else None
    if el is not None:
        g = _core.reshape(_core.gather(el[0], el[1]), (plan.lin.shape[0],) + tuple(src.shape[1:]))
    else:
        g = _core.gather(src, plan.lin)
    return _to_result_order(plan, g)


def _value(dtype, value):
    """value as a cupynum array (a scalar as 0-d of `dtype`, by NumPy's conversion), or None when
    the general path should take it (non-numeric values, complex into real: NumPy warns)."""
    if isinstance(value, _SCALARS):
        if isinstance(value, _np.generic) and value.dtype.kind not in "biufc":
            return None
        if isinstance(value, (complex, _np.complexfloating)) and dtype.kind != "c":
            return None
        return _core.from_any(scalar_for_setitem(dtype, value))   # NumPy's conversion, its errors
    if not isinstance(value, ndarray):
        if isinstance(value, _np.ndarray) and type(value) is not _np.ndarray:
            return None
        from ._ndarray import value_array
        value = value_array(value, dtype)
        if value is None or value.dtype.kind not in "biufc":
            return None
        value = _core.from_any(value)
    if value.dtype.kind == "c" and dtype.kind != "c":
        return None
    if value.dtype.kind not in "biufc":
        return None
    return value


def _values_for(plan, val, dtype):
    """val broadcast to the indexing result, in (len(lin),) + rest order, as a fresh array of
    `dtype`; None when it does not broadcast (NumPy's ValueError from the general path)."""
    val = _to_result_shape(plan, val)
    if val is None:
        return None
    if plan.lead:
        k, p = plan.k, plan.lead
        perm = tuple(range(p, p + k)) + tuple(range(p)) + tuple(range(p + k, len(plan.rshape)))
        val = _core.transpose(val, perm)
    val = _core.cast(val, dtype)              # fresh: never shares the destination's store
    return _core.reshape(val, (plan.lin.size,) + plan.rest)


def _scatter(plan, val, op=None):
    if plan.flat:
        # each value to its element's owner; val is 1-D in the result's order (_flat_values)
        if op is None:
            _core.scatter(plan.fsrc, _flat_index(plan), val)
        else:
            _core.scatter(plan.fsrc, _flat_index(plan), val, op)
        return
    dst, is_view = _merged(plan, True)
    lin = plan.lin
    el = _elements(dst, lin) if is_view else None
    if el is not None:
        # the values as a 1-D array of their own (cut in 1-D ranges, as the scatter sends them)
        flat = _core.reshape(val, (val.size,))
        if flat is None or _grid_cut(val):
            flat = _core.cast(flat if flat is not None else
                              _core.reshape(_core.cast(val, val.dtype), (val.size,)), val.dtype)
        val = flat
        dst, lin = el
    if op is None:
        _core.scatter(dst, lin, val)
    else:
        _core.scatter(dst, lin, val, op)
    if not is_view:
        _core.assign(plan.w, _core.reshape(dst, tuple(plan.w.shape)))


def setitem(self, key, value, inbounds=()):
    """self[key] = value natively; False (nothing written) for what the general path takes."""
    if _core.readonly(self):
        return False
    plan = _plan(self, key, inbounds, flat=None)
    if plan is None:
        return False
    val = _value(self.dtype, value)
    if val is None:
        return False
    val = (_flat_values if plan.flat else _values_for)(plan, val, self.dtype)
    if val is None:
        return False
    _scatter(plan, val)
    return True


# ---- functions on the plan ------------------------------------------------------------------------

def _numpy(name, *args, **kwargs):
    from . import _fallback
    return _fallback.call("numpy." + name, getattr(_np, name), args, kwargs)


def _native_array(a):
    """a as a cupynum array when cupynum can hold it (ndarray, NumPy's own ndarray, list of
    numbers), else None."""
    if isinstance(a, ndarray):
        return a
    if type(a) is _np.ndarray or isinstance(a, (list, tuple)):
        try:
            n = _np.asarray(a)
        except (ValueError, TypeError):
            return None
        if n.dtype.kind not in "biufc":
            return None
        return _core.from_any(n)
    return None


def _along_axis_key(shape, indices, axis):
    """NumPy's fancy index of take/put_along_axis: aranges on the other axes (broadcast), the
    indices on `axis`."""
    cp = _cp()
    key = []
    nd = len(shape)
    for d in range(nd):
        if d == axis:
            key.append(indices)
        else:
            key.append(_core.reshape(cp.arange(shape[d]), (1,) * d + (shape[d],) + (1,) * (nd - d - 1)))
    return tuple(key)


def _along_axis_args(arr, indices, axis):
    """(arr, indices, axis) normalised as NumPy's, or None (NumPy's errors and odd inputs)."""
    if not isinstance(arr, ndarray):
        return None
    ind = _native_array(indices)
    if ind is None or ind.dtype.kind not in "iu" or ind.dtype == _np.uint64:
        return None
    if axis is None:
        if ind.ndim != 1:
            return None
        from ._functions import ravel
        return ravel(arr), ind, 0
    if not isinstance(axis, (int, _np.integer)) or ind.ndim != arr.ndim or arr.ndim == 0:
        return None
    if not -arr.ndim <= axis < arr.ndim:
        return None
    axis = int(axis) % arr.ndim
    try:
        _np.broadcast_shapes(tuple(s if d != axis else 1 for d, s in enumerate(arr.shape)),
                             tuple(s if d != axis else 1 for d, s in enumerate(ind.shape)))
    except ValueError:
        return None
    return arr, ind, axis


def take_along_axis(arr, indices, axis=-1):
    args = _along_axis_args(arr, indices, axis)
    if args is not None:
        a, ind, ax = args
        key = _along_axis_key(a.shape, ind, ax)
        r = getitem(a, key, key[:ax] + key[ax + 1:])
        if r is not None:
            return r
    return _numpy("take_along_axis", arr, indices, axis=axis)


def put_along_axis(arr, indices, values, axis):
    args = _along_axis_args(arr, indices, axis)
    if args is not None and not _core.readonly(arr):
        a, ind, ax = args
        key = _along_axis_key(a.shape, ind, ax)
        if axis is None and _core.reshape(arr, (arr.size,)) is None:
            args = None
        elif setitem(a, key, values, key[:ax] + key[ax + 1:]):
            return None
    return _numpy("put_along_axis", arr, indices, values, axis)


def _cyclic(v, n, dtype):
    """v (flattened) repeated to n elements, as a fresh 1-D array of `dtype` (NumPy's rule of
    put/putmask/place/flat: short values repeat)."""
    from ._joins import resize
    return _core.cast(resize(v, (n,)), dtype)


def _flat_target(a):
    """a as 1-D in C order: (view, None) when a view can, else (copy, write_back)."""
    v = _core.reshape(a, (a.size,))
    if v is not None:
        return v, None
    c = _core.reshape(_core.cast(a, a.dtype), (a.size,))
    return c, lambda: _core.assign(a, _core.reshape(c, tuple(a.shape)))


def put(a, ind, v, mode="raise"):
    if not isinstance(a, ndarray) or _core.readonly(a) or mode not in ("raise", "wrap", "clip"):
        return _numpy("put", a, ind, v, mode=mode)
    i = _native_array(ind) if not isinstance(ind, (int, _np.integer)) else \
        _core.from_any(_np.asarray(ind, _np.intp))
    val = _value(a.dtype, v) if not isinstance(v, (list, tuple)) or len(v) else None
    if i is None or i.dtype.kind not in "iu" or i.dtype == _np.uint64 or val is None \
            or val.size == 0 or a.size == 0:
        return _numpy("put", a, ind, v, mode=mode)
    cp = _cp()
    from ._functions import ravel
    i = _core.cast(ravel(i), _np.int64)
    n = a.size
    if mode == "raise":
        from ._ndarray import _count_true
        if i.size and _count_true(cp.logical_or(cp.less(i, -n), cp.greater_equal(i, n))):
            return _numpy("put", a, ind, v, mode=mode)
    elif mode == "wrap":
        i = cp.remainder(i, n)
    else:
        i = cp.clip(i, 0, n - 1)
    i = _core.cast(i, _np.int64)
    vals = _cyclic(val, i.size, a.dtype)
    dst, back = _flat_target(a)
    _core.scatter(dst, i, vals)
    if back:
        back()
    return None


def putmask(a, mask, values):
    if not isinstance(a, ndarray) or _core.readonly(a):
        return _numpy("putmask", a, mask, values)
    m = _native_array(mask)
    val = _value(a.dtype, values)
    if m is None or val is None or m.size != a.size or val.size == 0:
        return _numpy("putmask", a, mask, values)
    if m.dtype != _np.bool_:
        m = _core.cast(m, _np.bool_)
    if tuple(m.shape) != tuple(a.shape):
        from ._functions import ravel
        m = _core.reshape(ravel(m), tuple(a.shape))
    if tuple(val.shape) == tuple(a.shape):
        vals = _core.cast(val, a.dtype)             # aligned with a: owner computes
    elif val.size == 1:
        vals = _core.broadcast_to(_core.cast(_core.reshape(val, ()), a.dtype), tuple(a.shape))
    else:
        vals = _core.reshape(_cyclic(val, a.size, a.dtype), tuple(a.shape))
    _core.select(m, vals, a, a)
    return None


def place(arr, mask, vals):
    if not isinstance(arr, ndarray) or _core.readonly(arr):
        return _numpy("place", arr, mask, vals)
    m = _native_array(mask)
    val = _value(arr.dtype, vals)
    if m is None or val is None or m.size != arr.size:
        return _numpy("place", arr, mask, vals)
    from ._ndarray import _count_true
    from ._selection import flatnonzero
    if m.dtype != _np.bool_:
        m = _core.cast(m, _np.bool_)
    count = _count_true(m)
    if count == 0:
        return None
    if val.size == 0:
        return _numpy("place", arr, mask, vals)      # NumPy's ValueError
    pos = _core.cast(flatnonzero(m), _np.int64)     # no ravel of a mask cut on a grid
    v = _cyclic(val, count, arr.dtype)
    dst, back = _flat_target(arr)
    _core.scatter(dst, pos, v)
    if back:
        back()
    return None


def choose(a, choices, out=None, mode="raise"):
    """numpy.choose as a chain of element-wise selects (one fused op): choices[a] at each
    element; NumPy computes out=, odd choices and every error."""
    if out is not None or mode not in ("raise", "wrap", "clip"):
        return _numpy("choose", a, choices, out=out, mode=mode)
    ai = _native_array(a) if not isinstance(a, (int, _np.integer)) else None
    if isinstance(choices, ndarray):
        if choices.ndim == 0:
            return _numpy("choose", a, choices, out=out, mode=mode)
        chs = [choices[j] for j in range(choices.shape[0])]
    elif isinstance(choices, (list, tuple)):
        chs = [_native_array(c) if not isinstance(c, ndarray) else c for c in choices]
    else:
        chs = [None]
    if ai is None or ai.dtype.kind not in "iu" or ai.dtype == _np.uint64 or not chs or \
            any(c is None for c in chs) or len(chs) > 32:
        return _numpy("choose", a, choices, out=out, mode=mode)
    try:
        shape = _np.broadcast_shapes(tuple(ai.shape), *(tuple(c.shape) for c in chs))
        dtype = _np.result_type(*(c.dtype for c in chs))
    except (ValueError, TypeError):
        return _numpy("choose", a, choices, out=out, mode=mode)
    cp = _cp()
    n = len(chs)
    ai = _core.cast(ai, _np.int64)
    if mode == "raise":
        from ._ndarray import _count_true
        if ai.size and _count_true(cp.logical_or(cp.less(ai, 0), cp.greater_equal(ai, n))):
            return _numpy("choose", a, choices, out=out, mode=mode)
    elif mode == "wrap":
        ai = cp.remainder(ai, n)
    else:
        ai = cp.clip(ai, 0, n - 1)
    r = _core.cast(chs[-1], dtype)
    for j in range(n - 2, -1, -1):
        r = cp.where(cp.equal(ai, j), _core.cast(chs[j], dtype), r)
    r = cp.broadcast_to(r, shape)
    return _core.cast(r, dtype)


def select(condlist, choicelist, default=0):
    """numpy.select as a chain of element-wise selects (one fused op), NumPy's dtype rule
    (Python scalars weak); NumPy computes everything else and raises its errors."""
    if not isinstance(condlist, (list, tuple)) or not isinstance(choicelist, (list, tuple)) or \
            len(condlist) != len(choicelist) or not condlist:
        return _numpy("select", condlist, choicelist, default=default)
    conds = [_native_array(c) for c in condlist]
    weak = (int, float, complex)
    chs = [c if type(c) in weak else _native_array(c) for c in choicelist]
    dflt = default if type(default) in weak else _native_array(default)
    if any(c is None or c.dtype != _np.bool_ for c in conds) or any(c is None for c in chs) or \
            dflt is None:
        return _numpy("select", condlist, choicelist, default=default)
    stand = [c if type(c) in weak else _np.empty((), c.dtype) for c in chs + [dflt]]
    try:
        dtype = _np.result_type(*stand)
        shape = _np.broadcast_shapes(*(tuple(c.shape) for c in conds),
                                     *(() if type(c) in weak else tuple(c.shape)
                                       for c in chs + [dflt]))
    except (ValueError, TypeError):
        return _numpy("select", condlist, choicelist, default=default)
    if dtype.kind not in "biufc":
        return _numpy("select", condlist, choicelist, default=default)
    cp = _cp()

    def arr(c):
        if type(c) in weak:
            return _core.from_any(_np.asarray(c, dtype))
        return _core.cast(c, dtype) if c.dtype != dtype else c
    r = arr(dflt)
    for c, ch in zip(reversed(conds), reversed(chs)):
        r = cp.where(c, arr(ch), r)
    r = cp.broadcast_to(r, shape)
    return _core.cast(r, dtype)


def ix_(*args):
    out = []
    nd = len(args)
    for k, new in enumerate(args):
        if isinstance(new, ndarray):
            a = new
        else:
            n = _np.asarray(new)
            if n.size == 0 and not isinstance(new, _np.ndarray):   # NumPy's: lists only
                n = n.astype(_np.intp)
            if n.dtype.kind not in "biu" or type(n) is not _np.ndarray:
                return _numpy("ix_", *args)
            a = _core.from_any(n)
        if a.ndim != 1:
            raise ValueError("Cross index must be 1 dimensional")
        if a.dtype == _np.bool_:
            from ._ndarray import _count_true
            a = _core.nonzero(a, _count_true(a))[0]
            a = _core.cast(a, _np.intp)
        out.append(_core.reshape(a, (1,) * k + (a.size,) + (1,) * (nd - k - 1)))
    return tuple(out)


# ---- ufunc.at --------------------------------------------------------------------------------------

def ufunc_at(uf, a, indices, b=None):
    """uf.at(a, indices[, b]) natively: the op applied at the indexed elements in index order
    (repeats accumulate), when NumPy's loop for a's dtype is a's dtype in and out; False (nothing
    done) otherwise, for NumPy to compute."""
    npu = uf._numpy
    if _core.readonly(a) or npu.nout != 1 or npu.nin not in (1, 2) or (b is None) != (npu.nin == 1):
        return False
    dt = a.dtype
    if b is not None:
        if isinstance(b, (bool, _np.generic)):      # first: numpy.float64 is also a float
            bt = _np.asarray(b).dtype
        elif isinstance(b, (int, float, complex)):
            bt = at_number_dtype(npu.__name__, dt, b)
        else:
            bb = _native_array(b)
            if bb is None:
                return False
            bt = bb.dtype
            b = bb
        try:
            loop = npu.resolve_dtypes((dt, bt, None))
        except Exception:
            return False
        if loop != (dt, dt, dt):
            return False
    else:
        try:
            if npu.resolve_dtypes((dt, None)) != (dt, dt):
                return False
        except Exception:
            return False
    if _ufunc_at_1d(a, indices, b, dt, npu.__name__):
        return True
    if _at_declines(npu.__name__, dt, b):
        return False
    key = indices if isinstance(indices, tuple) else (indices,)
    plan = _plan(a, key, flat=None)
    if plan is None:
        return False
    if b is not None and not at_operand_fits(b, plan.rshape):
        raise ValueError("array is not broadcastable to correct shape")
    flat = plan.flat
    if b is None:
        val = _core.broadcast_to(_core.from_any(_np.zeros((), dt)),
                                 (_np.prod(plan.rshape, dtype=_np.int64),) if flat else
                                 (plan.lin.size,) + plan.rest)
    else:
        v = _at_value(dt, b)
        if v is None:
            return False
        val = (_flat_values if flat else _values_for)(plan, v, dt)
        if val is None:
            return False
    try:
        _scatter(plan, val, npu.__name__)
    except TypeError:
        return False
    return True


def at_operand_fits(b, rshape):
    """Whether ufunc.at's operand b fits the indexed elements (of shape rshape) as NumPy's
    loop takes it: broadcast to rshape without adding dimensions (leading 1s too are refused,
    NumPy's "array is not broadcastable to correct shape")."""
    bshape = tuple(b.shape) if isinstance(b, (ndarray, _np.ndarray)) else _np.shape(b)
    if len(bshape) > len(rshape):
        return False
    return all(x == y or x == 1 for x, y in zip(bshape, rshape[len(rshape) - len(bshape):]))


# ops whose float32/float16 result through the float64 loop, rounded once more, is the
# narrow loop's (double rounding is innocuous at 53 >= 2 * 24 + 2 bits for these)
_EXACT_OPS = frozenset(("add", "subtract", "multiply", "true_divide", "divide", "maximum",
                        "minimum", "fmax", "fmin"))
_INT_RANGE = {}


def at_number_dtype(name, dt, b):
    """The loop dtype of uf.at(a, i, b) for a Python number b and a of dtype dt as far as
    ufunc_at is concerned: NumPy's at converts b to an array of its own (int64, float64,
    complex128; not a weak scalar: add.at of float32 with 0.1 runs the float64 loop), so dt where
    that gives dt's own loop's values -- an integer that fits an integer dt; an int or float
    that dt holds exactly, for the ops of _EXACT_OPS (add and subtract of complex: per part) --
    else that array's dtype (the general path then computes)."""
    own = _np.asarray(b).dtype
    if own == dt:
        return dt
    if dt.kind in "iu" and type(b) is int:
        r = _INT_RANGE.get(dt)
        if r is None:
            r = _INT_RANGE[dt] = (int(_np.iinfo(dt).min), int(_np.iinfo(dt).max))
        return dt if r[0] <= b <= r[1] else own
    if (dt.kind == "f" and name in _EXACT_OPS or dt.kind == "c" and name in ("add", "subtract")) \
            and type(b) in (int, float):
        with _np.errstate(all="ignore"):
            return dt if dt.type(b) == b else own
    return own


def _at_value(dtype, value):
    """ufunc.at's operand as _value, but a Python number as NumPy's at converts it: an array of
    its own (int64, float64; object beyond int64, which does not convert) cast to the loop's
    dtype (ufunc_at takes only loops of that array's dtype or wider: exact)."""
    if type(value) is int or type(value) is float:
        return _core.from_any(_np.asarray(value).astype(dtype, casting="unsafe"))
    return _value(dtype, value)


def _at_declines(name, dt, b):
    """Whether NumPy's at raises for values the scatter would only report at the flush: an
    integer power by anything but a non-negative Python int (NumPy's "Integers to negative
    integer powers" ValueError, from the general path)."""
    return name == "power" and dt.kind in "iu" and not (type(b) is int and b >= 0)


def _ufunc_at_1d(a, indices, b, dt, name):
    """ufunc.at of a 1-d array at one 1-d integer index array: the indices go to the scatter as
    they are (its loop counts negatives from the end; the bounds are checked here, by the
    extremes, without temporaries) and a scalar operand as one value broadcast (stride 0); False
    (nothing done) for everything else, which takes the plan."""
    if a.ndim != 1 or not isinstance(indices, ndarray) or indices.ndim != 1 or \
            indices.dtype.kind not in "iu" or indices.dtype == _np.uint64 or _at_declines(name, dt, b):
        return False
    n, m = a.shape[0], indices.shape[0]
    # one process on the host: the kernel checks every index before its first write (the check
    # rides on the split's first pass), and the op runs at once below; else checked here first
    local = _local_host()
    if m and (not local or n == 0) and not _in_bounds(indices, n):
        return False                              # NumPy's IndexError, from the general path
    if m == 0 and (type(b) is int or type(b) is float):
        return True   # NumPy converts the number per element: none (2**70 into int64 is no error)
    if b is None:
        val = _core.broadcast_to(_core.from_any(_np.zeros((), dt)), (m,))
    else:
        try:
            v = _at_value(dt, b)
        except (OverflowError, ValueError, TypeError):
            if local and m and not _in_bounds(indices, n):
                return False   # NumPy checks the indices first: its IndexError, from the general path
            raise
        if v is None:
            return False
        if v.ndim == 0 and v.dtype == dt and not isinstance(b, ndarray):
            val = _core.broadcast_to(v, (m,))     # fresh: _value converted the scalar
        elif tuple(v.shape) in ((), (1,), (m,)):
            val = _core.cast(_core.broadcast_to(v, (m,)) if tuple(v.shape) != (m,) else v, dt)
        else:
            return False
    idx = indices if indices.dtype == _np.int64 else _core.cast(indices, _np.int64)
    try:
        _core.scatter(a, idx, val, name)
    except TypeError:
        return False
    return not (local and m) or _scatter_ran()   # else NumPy's message from the general path



# ---- ndarray.flat assignments ------------------------------------------------------------------

def flat_setitem(a, key, value):
    """a.flat[key] = value natively for a slice, an Ellipsis or an integer array/list key: the
    values repeat to fill the selection (NumPy's flat iterator); False otherwise."""
    if _core.readonly(a) or a.size == 0:
        return False
    val = _value(a.dtype, value)
    if val is None or val.size == 0:
        return False
    if key is Ellipsis:
        key = slice(None)
    if isinstance(key, slice):
        start, stop, step = key.indices(a.size)
        m = len(range(start, stop, step))
        if m == 0:
            return True
        dst, back = _flat_target(a)
        _core.assign(dst[key], _cyclic(val, m, a.dtype))
        if back:
            back()
        return True
    k = _as_index(key)
    if k is None or k[0] != "arr":
        return False
    dst, back = _flat_target(a)
    plan = _plan(dst, (k[1],))
    if plan is None:
        return False
    v = _cyclic(val, plan.lin.size, a.dtype)
    _core.scatter(dst, plan.lin, v)
    if back:
        back()
    return True
