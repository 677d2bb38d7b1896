"""Sorting and what is built on it, over the runtime's sort, search, run and histogram ops
(csrc/kernels/sort.c, histogram.c; under distribution csrc/runtime/samplesort.c):
sort, argsort, ndarray.sort/argsort, lexsort, sort_complex, partition/argpartition (a sorted lane
is one of NumPy's partitions), searchsorted, unique (any axis) and the Array API unique_*
functions, isin and the set functions (complex too), histogram, histogram2d, histogramdd, histogram_bin_edges,
digitize, cov and corrcoef.

NumPy's rules are applied here: `kind` (any kind is accepted as NumPy accepts it -- by its first
letter -- and every kind is computed stably: ties keep index order, which is NumPy's stable
result and one of the orders its quicksort may give), `stable=`, `axis` (None sorts the
flattened array), NumPy's errors raised before anything is queued or written (a read-only array's
`sort` changes nothing).  Every dtype cupynum holds is native for sorting; structured arrays
(`order=`), other dtypes (object, strings, datetimes, long double) and NumPy subclasses go to
NumPy, as do the argument combinations each function's comment names."""

import numpy as _np
from numpy.lib.array_utils import normalize_axis_index

from . import _core, _fallback

_builtin_range = range
from ._ndarray import ndarray

_NATIVE_KINDS = "biufc"


def _check_kind(kind, stable, what="sort"):
    if kind is not None and stable is not None:
        raise ValueError("`kind` and keyword parameters can't be provided at the same time. "
                         "Use only one of them.")
    if kind is None:
        return
    if not isinstance(kind, str):
        raise TypeError(f"{what} kind must be str, not {type(kind).__name__}")
    if not kind or kind[0] not in "qQhHmMsS":
        raise ValueError(f"{what} kind must be one of 'quick', 'heap', or 'stable' (got '{kind}')")


def _axis(axis, ndim):
    if isinstance(axis, float):
        raise TypeError("integer argument expected, got float")
    return normalize_axis_index(axis, ndim)


def _native(a):
    """a as a cupynum array when cupynum sorts it natively, else None."""
    if isinstance(a, ndarray):
        return a if a.dtype.kind in _NATIVE_KINDS else None
    if isinstance(a, _np.ndarray) and type(a) is not _np.ndarray:
        return None   # masked arrays, matrices: NumPy's own
    try:
        x = _np.asarray(a)
    except Exception:
        return None
    if x.dtype.kind not in _NATIVE_KINDS or x.dtype in (_np.longdouble, _np.clongdouble):
        return None
    return _core.from_any(x)


def _flat(a):
    from ._functions import ravel
    return ravel(a)


def _sort_op(a, axis, arg, back=True):
    """The sort op along `axis` (normalized).  Under distribution an n-d array whose tiling cuts
    the axis is first copied into slabs along another dimension (_core.lane_slabs: each element
    moves at most once), its lanes sorted on each rank, and the result copied back to the default
    tiling (once more; not with back=False, for a caller assigning it to an array of its own):
    two copies of each rank's part at most, where the op would gather."""
    if a.ndim >= 2 and a.shape.count(1) == a.ndim - 1 and a.shape[axis] > 1:
        # one lane: the 1-D sort (the sample sort under distribution) of its flat view
        return _core.reshape(_sort_op(_core.reshape(a, (a.size,)), 0, arg), a.shape)
    if a.ndim >= 2:
        s = _core.lane_slabs((a,), axis)[0]
        if s is not a:
            r = _core.sort(s, axis, arg)
            if not back:
                return r
            out = _core.empty(a.shape, r.dtype)
            _core.assign(out, r)
            return out
    return _core.sort(a, axis, arg)


def _sorted(a, axis, arg):
    if axis is None:
        a, axis = _flat(a), 0
    else:
        axis = _axis(axis, a.ndim)
    return _sort_op(a, axis, arg)


def sort(a, axis=-1, kind=None, order=None, *, stable=None):
    if type(a) is ndarray and a.ndim == 1 and type(axis) is int and -1 <= axis <= 0 and \
            kind is None and order is None and stable is None and a.dtype.kind in _NATIVE_KINDS:
        return _core.sort(a, 0, False)   # a vector: _sorted's op without its checks
    _check_kind(kind, stable)
    x = _native(a) if order is None else None
    if x is None:
        return _fallback.compute(_np.sort, (a,), {"axis": axis, "kind": kind, "order": order,
                                                  "stable": stable})
    return _sorted(x, axis, False)


def argsort(a, axis=-1, kind=None, order=None, *, stable=None):
    _check_kind(kind, stable)
    if axis is not None:
        import operator
        operator.index(axis)         # NumPy's argsort words a float axis so
    x = _native(a) if order is None else None
    if x is None or x.ndim == 0:
        return _fallback.compute(_np.argsort, (a,), {"axis": axis, "kind": kind, "order": order,
                                                     "stable": stable})
    return _sorted(x, axis, True)


def _method_sort(self, axis=-1, kind=None, order=None, *, stable=None):
    """ndarray.sort: in place (NumPy's checks first: a read-only array is left unchanged)."""
    _check_kind(kind, stable)
    if order is not None or self.dtype.kind not in _NATIVE_KINDS:
        return _fallback.compute(_np.ndarray.sort, (self,), {"axis": axis, "kind": kind,
                                                             "order": order, "stable": stable},
                                 write=(self,))
    axis = _axis(axis, self.ndim)
    if not self.flags.writeable:
        raise ValueError("sort array is read-only")
    _core.assign(self, _sort_op(self, axis, False, False))


def _method_argsort(self, axis=-1, kind=None, order=None, *, stable=None):
    return argsort(self, axis, kind, order, stable=stable)


def sort_complex(a):
    x = _native(a)
    if x is None or x.ndim == 0:
        return _fallback.compute(_np.sort_complex, (a,), {})
    b = _sorted(x, -1, False)
    if b.dtype.kind != "c":
        b = _core.cast(b, _np.complex64 if b.dtype.char in "bhBH" else _np.complex128)
    return b


def _lex_perm(cols):
    """The stable order of 1-D keys, cols[-1] the primary key: one stable argsort per key, least
    significant first, each of the key gathered through the order so far (NumPy's lexsort; under
    distribution sample sorts and routed gathers)."""
    perm = _sort_op(cols[0], 0, True)
    for k in cols[1:]:
        perm = perm[_sort_op(k[perm], 0, True)]
    return perm


def _lex_lanes(cols, axis):
    """The same for keys of one shape (ndim >= 2) along `axis`, lane by lane: each step is one sort
    op reading its key through the order so far (sort.c's lexsort step).  Under distribution the
    keys are first laid out so that no tile cuts a lane (as they are, or copied into slabs along
    another dimension), so every step is each rank's own lanes: no message."""
    cols = _core.lane_slabs(tuple(cols), axis)
    perm = _core.sort(cols[0], axis, True)
    for k in cols[1:]:
        perm = _core.sort(k, axis, True, perm)
    return perm


def lexsort(keys, axis=-1):
    """numpy.lexsort: the last key primary, each key compared in its own dtype (NaN last)."""
    if isinstance(keys, (tuple, list)):
        ks = [_native(k) for k in keys]
    else:
        x = _native(keys)
        ks = None if x is None or x.ndim < 2 else [x[i] for i in range(x.shape[0])]
    if ks is None and not isinstance(keys, (tuple, list)) and _np.ndim(keys) == 0:
        ks = []
    if ks is not None and not ks:
        raise TypeError("need sequence of keys with len > 0 in lexsort")
    if ks is None or any(k is None for k in ks) or ks[0].ndim == 0:
        return _fallback.compute(_np.lexsort, (keys,), {"axis": axis})
    shape = ks[0].shape
    if any(k.shape != shape for k in ks):
        raise ValueError("all keys need to be the same shape")
    if axis is None:
        raise TypeError("'NoneType' object cannot be interpreted as an integer")
    axis = _axis(axis, len(shape))
    if len(shape) == 1:
        return _lex_perm(ks)
    return _lex_lanes(ks, axis)


# ---- partition: a sorted lane is one of the partitions NumPy may return ---------------------------

def _check_partition(kth, kind, n, size=1):
    """NumPy's checks of kind and kth; an empty array (size 0) takes any integer kth, as
    NumPy's partition returns before its range check."""
    if not isinstance(kind, str):
        raise TypeError(f"select kind must be str, not {type(kind).__name__}")
    if kind != "introselect":
        raise ValueError(f"select kind must be 'introselect' (got '{kind}')")
    ks = _np.asarray(kth)
    if ks.dtype.kind not in "iu":
        raise TypeError("Partition index must be integer")
    for k in ks.ravel().tolist() if size else ():
        k = k + n if k < 0 else k
        if not 0 <= k < n:
            raise ValueError(f"kth(={k}) out of bounds ({n})")


def _partitioned(a, kth, axis, kind, order, arg):
    fn = _np.argpartition if arg else _np.partition
    x = _native(a) if order is None else None
    if x is None or x.ndim == 0 or isinstance(kth, ndarray):
        return _fallback.compute(fn, (a, kth), {"axis": axis, "kind": kind, "order": order})
    if axis is None:
        x, axis = _flat(x), 0
    axis = _axis(axis, x.ndim)
    _check_partition(kth, kind, x.shape[axis], x.size)
    return _sort_op(x, axis, arg)


def partition(a, kth, axis=-1, kind="introselect", order=None):
    return _partitioned(a, kth, axis, kind, order, False)


def argpartition(a, kth, axis=-1, kind="introselect", order=None):
    return _partitioned(a, kth, axis, kind, order, True)


def _method_partition(self, kth, axis=-1, kind="introselect", order=None):
    if order is not None or self.dtype.kind not in _NATIVE_KINDS or self.ndim == 0 or \
            isinstance(kth, ndarray):
        return _fallback.compute(_np.ndarray.partition, (self, kth), {"axis": axis, "kind": kind,
                                                                      "order": order}, write=(self,))
    axis = _axis(axis, self.ndim)
    _check_partition(kth, kind, self.shape[axis], self.size)
    if not self.flags.writeable:
        raise ValueError("partition array is read-only")
    _core.assign(self, _sort_op(self, axis, False, False))


def _method_argpartition(self, kth, axis=-1, kind="introselect", order=None):
    return argpartition(self, kth, axis, kind, order)


# ---- searching ------------------------------------------------------------------------------------

def _common(*xs, kinds="biuf"):
    """The arrays cast to NumPy's common dtype (result_type), or None when it is not native (not
    of `kinds`)."""
    dt = _np.result_type(*[x.dtype for x in xs])   # dtypes: the arrays themselves would be gathered
    if dt.kind not in kinds or dt in (_np.longdouble, _np.clongdouble):
        return None
    return [x if x.dtype == dt else _core.cast(x, dt) for x in xs]


def _flat1(x):
    return x if x.ndim == 1 else _flat(x)


def searchsorted(a, v, side="left", sorter=None):
    if type(a) is ndarray and type(v) is ndarray and a.ndim == 1 and v.ndim == 1 and \
            sorter is None and a.dtype == v.dtype and a.dtype.kind in "biufc" and \
            (side == "left" or side == "right"):
        # two cupynum vectors of one dtype: nothing to convert or cast (the general path's op)
        return _core.searchsorted(a, v, None, side == "right", False)
    an = _native(a)
    vn = _native(v)
    ok = an is not None and vn is not None and an.ndim == 1 and side in ("left", "right")
    if ok and sorter is not None:
        sn = _native(sorter)
        ok = sn is not None and sn.ndim == 1 and sn.dtype.kind in "iu" and sn.shape == an.shape
    cast = _common(an, vn, kinds="biufc") if ok else None
    if cast is None:
        return _fallback.compute(_np.searchsorted, (a, v), {"side": side, "sorter": sorter})
    an, vc = cast
    sp = None
    if sorter is not None:
        sp = sn if sn.dtype == _np.int64 else _core.cast(sn, _np.int64)
        if an.shape[0]:
            from ._reductions import max as _max, min as _min
            if int(_min(sp)) < 0 or int(_max(sp)) >= an.shape[0]:
                raise ValueError("Sorter index out of range.")
    r = _core.searchsorted(an, _flat1(vc) if vc.ndim else _core.reshape(vc, (1,)), sp,
                           side == "right", False)
    if vn.ndim == 0:
        return _core.to_scalar(r)
    return r if vn.ndim == 1 else _core.reshape(r, vn.shape)


def _method_searchsorted(self, v, side="left", sorter=None):
    return searchsorted(self, v, side, sorter)


# ---- unique and sets ---------------------------------------------------------------------------

def _runs(s, perm, mode, nan_distinct, k=0):
    return _core.unique(s, perm, mode, nan_distinct, k)


def _unique_flat(flat, return_index, return_inverse, return_counts, equal_nan):
    """NumPy's _unique1d on a native 1-D array: (values, index, inverse, counts), None where not
    asked."""
    perm = None
    nd = not equal_nan
    if (return_index or return_inverse) and _core._tiling(flat)["tiled"]:
        return _unique_partitioned(flat, return_index, return_inverse, return_counts, nd)
    if return_index or return_inverse:
        perm = _core.sort(flat, 0, True)
        s = flat
    else:
        s = _core.sort(flat, 0, False)
    k = int(_core.to_scalar(_runs(s, perm, _core.UNIQUE_COUNT, nd)))
    values = _runs(s, perm, _core.UNIQUE_VALUES, nd, k)
    index = _runs(s, perm, _core.UNIQUE_INDEX, nd, k) if return_index else None
    inverse = _runs(s, perm, _core.UNIQUE_INVERSE, nd) if return_inverse else None
    counts = _runs(s, perm, _core.UNIQUE_COUNTS, nd, k) if return_counts else None
    return values, index, inverse, counts


def _unique_partitioned(flat, return_index, return_inverse, return_counts, nd):
    """_unique_flat's results with positions of a partitioned 1-D array, nothing gathered: the
    sorted values and the stable argsort (two sample sorts, tiled alike) give each run's first
    position where the run starts and each element's run where it sits, sent to the owner of its
    position.  A float run's value is the element at its first position, as NumPy's stable sort
    leaves it first: the value sort keeps NaNs bit for bit in index order (sort.c, and the sample
    sort's ties by position), so a NaN run's first element is that one already; the zeros' one
    run (-0.0 sorts below +0.0 there) has its value read at its first position: one element
    compacted, gathered and scattered back, whatever the number of NaN runs."""
    perm = _core.sort(flat, 0, True)
    s = _core.sort(flat, 0, False)
    k = int(_core.to_scalar(_core.unique(s, None, _core.UNIQUE_COUNT, nd, 0)))
    index = None
    if return_index or flat.dtype.kind == "f":
        index = _core.unique(s, perm, _core.UNIQUE_INDEX, nd, k, True)
    values = _core.unique(s, None, _core.UNIQUE_VALUES, nd, k)
    if flat.dtype.kind == "f" and k:
        fix = _core.ufunc("equal", (values, 0))
        at = index[fix]
        if at.shape[0]:
            values[fix] = flat[at]
    inverse = _core.unique(s, perm, _core.UNIQUE_INVERSE, nd, 0, True) if return_inverse else None
    counts = _core.unique(s, None, _core.UNIQUE_COUNTS, nd, k) if return_counts else None
    return values, index if return_index else None, inverse, counts


def _unique_sorted(aux, perm, mask, n, want):
    """unique's results from the sorted rows aux (k-D, rows along axis 0), the permutation that
    sorted them (or None) and the mask of the first row of each run: (values, index, inverse,
    counts), None where `want` (index, inverse, counts) does not ask."""
    values = aux[mask]
    index = perm[mask] if want[0] else None
    inverse = counts = None
    if want[1]:
        from ._reductions import cumsum
        inverse = _core.empty((n,), _np.int64)
        inverse[perm] = _core.ufunc("subtract", (cumsum(mask, dtype=_np.int64), 1))
    if want[2]:
        from ._selection import nonzero
        from ._calculus import diff
        counts = diff(_concat(nonzero(mask)[0], _core.from_any(_np.array([n], _np.int64))))
    return values, index, inverse, counts


def _unique_complex(flat, return_index, return_inverse, return_counts, equal_nan):
    """NumPy's _unique1d of a complex 1-D array (its NaNs all one value when equal_nan)."""
    n = flat.shape[0]
    perm = _sort_op(flat, 0, True) if return_index or return_inverse else None
    aux = flat[perm] if perm is not None else _sort_op(flat, 0, False)
    mask = _core.empty((n,), _np.bool_)
    if n:
        mask[:1] = True
        mask[1:] = _core.ufunc("not_equal", (aux[1:], aux[:-1]))
        if equal_nan:
            isnan = _core.ufunc("isnan", (aux,))
            first = int(_core.to_scalar(_core.searchsorted(
                isnan, _core.from_any(_np.array([True])), None, False, False)))
            if first < n:
                mask[first] = True
                mask[first + 1:] = False
    return _unique_sorted(aux, perm, mask, n, (return_index, return_inverse, return_counts))


def _unique_axis(x, axis, return_index, return_inverse, return_counts):
    """NumPy's unique along `axis`: the slices along it as rows, sorted lexicographically (the
    first element primary, each compared as its dtype sorts: NaN last, -0.0 == 0.0), a row kept
    where it differs from the one before in some element (a NaN differs from every value), or
    None where NumPy's own handles it (empty; a float16 array holding NaN)."""
    from ._views import moveaxis
    try:
        axis = normalize_axis_index(axis, x.ndim)
    except _np.exceptions.AxisError:
        raise _np.exceptions.AxisError(axis, x.ndim) from None
    xm = moveaxis(x, axis, 0)
    shape = xm.shape
    n = shape[0]
    m = 1
    for d in shape[1:]:
        m *= d
    if n == 0 or m == 0:
        return None
    if x.dtype == _np.float16:
        # NumPy compares rows as structured scalars, each field by its dtype's compare function:
        # float32/64 and complex put NaN last (the lexsort's order, and a NaN row differs from
        # every row, as not_equal says), float16's is unordered (neither less nor greater):
        # NumPy's own computes it
        from ._reductions import any as _any
        if bool(_any(_core.ufunc("isnan", (x,)))):
            return None
    from ._functions import reshape
    rows = reshape(xm, (n, m))
    cols = [rows[:, j] for j in range(m - 1, -1, -1)]
    perm = _lex_perm(cols)
    aux = rows[perm]
    mask = _core.empty((n,), _np.bool_)
    mask[:1] = True
    if n > 1:
        from ._reductions import any as _any
        mask[1:] = _any(_core.ufunc("not_equal", (aux[1:], aux[:-1])), axis=1)
    values, index, inverse, counts = _unique_sorted(
        aux, perm, mask, n, (return_index, return_inverse, return_counts))
    values = moveaxis(_core.reshape(values, (values.shape[0],) + shape[1:]), 0, axis)
    return values, index, inverse, counts


def unique(ar, return_index=False, return_inverse=False, return_counts=False, axis=None, *,
           equal_nan=True, sorted=True):
    x = _native(ar)
    res = None
    if x is not None and axis is not None and x.ndim > 0:
        res = _unique_axis(x, axis, return_index, return_inverse, return_counts)
    elif x is not None and axis is None:
        flat = _flat1(x) if x.ndim else _core.reshape(x, (1,))
        fn = _unique_complex if x.dtype.kind == "c" else _unique_flat
        res = fn(flat, return_index, return_inverse, return_counts, equal_nan)
        if res[2] is not None and x.ndim != 1:
            res = res[:2] + (_core.reshape(res[2], x.shape),) + res[3:]
    if res is None:
        return _fallback.compute(_np.unique, (ar,), {
            "return_index": return_index, "return_inverse": return_inverse,
            "return_counts": return_counts, "axis": axis, "equal_nan": equal_nan,
            "sorted": sorted})
    values, index, inverse, counts = res
    out = [values] + [r for r, want in ((index, return_index), (inverse, return_inverse),
                                         (counts, return_counts)) if want]
    return out[0] if len(out) == 1 else tuple(out)


# The Array API functions never merge NaNs (NumPy's call unique with equal_nan=False).
def unique_values(x):
    return unique(x, equal_nan=False)


def unique_counts(x):
    v, c = unique(x, return_counts=True, equal_nan=False)
    return _np.lib._arraysetops_impl.UniqueCountsResult(v, c)


def unique_inverse(x):
    v, i = unique(x, return_inverse=True, equal_nan=False)
    return _np.lib._arraysetops_impl.UniqueInverseResult(v, i)


def unique_all(x):
    v, i, inv, c = unique(x, return_index=True, return_inverse=True, return_counts=True,
                          equal_nan=False)
    return _np.lib._arraysetops_impl.UniqueAllResult(v, i, inv, c)


def isin(element, test_elements, assume_unique=False, invert=False, *, kind=None):
    e, t = _native(element), _native(test_elements)
    # kind="table": NumPy's own (its range checks and errors; the same answer)
    ok = kind in (None, "sort") and e is not None and t is not None
    cast = _common(e, t, kinds="biufc") if ok else None
    if cast is None:
        return _fallback.compute(_np.isin, (element, test_elements), {
            "assume_unique": assume_unique, "invert": invert, "kind": kind})
    e, t = cast
    if e.dtype.kind == "c":
        return _isin_complex(e, t, invert)
    ts = _core.sort(_flat1(t) if t.ndim else _core.reshape(t, (1,)), 0, False)
    r = _core.searchsorted(ts, _flat1(e) if e.ndim else _core.reshape(e, (1,)), None, False, True)
    if invert:
        r = _core.ufunc("logical_not", (r,))
    return r if e.ndim == 1 else _core.reshape(r, e.shape)


def _isin_complex(e, t, invert):
    """isin of complex arrays (one dtype).  Both partitioned: the test elements and then the
    elements end to end, stably argsorted in NumPy's complex order (equal values: the test
    elements first), runs of equal neighbours (a NaN equals nothing: its own run); an element is
    found when its run starts with a test element.  One argsort (the sample sort), a scan and
    gathers/scatters through the order: no unique of either operand, as NumPy's _in1d takes, and
    no rank reads either whole (searchsorted's routing compares one-word keys).  Otherwise the
    test elements sorted and searched, as for real dtypes."""
    shape = e.shape
    ef = _flat1(e) if e.ndim else _core.reshape(e, (1,))
    tf = _flat1(t) if t.ndim else _core.reshape(t, (1,))
    nt = tf.shape[0]
    ar = _concat(tf, ef)
    n = ar.shape[0]
    if ef.shape[0] == 0 or nt == 0:
        r = _core.empty((ef.shape[0],), _np.bool_)
        if ef.shape[0]:
            r[...] = bool(invert)
        return r if len(shape) == 1 else _core.reshape(r, shape)
    if not (_core._tiling(ef)["tiled"] and _core._tiling(tf)["tiled"]):
        # one operand whole on every rank (or one rank): the test elements sorted, each element
        # searched (searchsorted's found form; under distribution each rank searches its own
        # elements, or its tile of the sorted test elements)
        r = _core.searchsorted(_sort_op(tf, 0, False), ef, None, False, True)
        if invert:
            r = _core.ufunc("logical_not", (r,))
        return r if len(shape) == 1 else _core.reshape(r, shape)
    from ._reductions import cumsum
    order = _sort_op(ar, 0, True)
    sar = ar[order]
    start, _ = _neighbours(sar, "not_equal", True)
    is_t = _core.ufunc("less", (order, nt))
    run = _core.ufunc("subtract", (cumsum(start, dtype=_np.int64), 1))
    found = is_t[start][run]
    if invert:
        found = _core.ufunc("logical_not", (found,))
    ret = _core.empty((n,), _np.bool_)
    ret[order] = found
    r = ret[nt:]
    return r if len(shape) == 1 else _core.reshape(r, shape)


def _concat(a, b):
    """a and b (1-D, one dtype) end to end: a new array, two slice assignments."""
    r = _core.empty((a.shape[0] + b.shape[0],), a.dtype)
    if a.shape[0]:
        r[:a.shape[0]] = a
    if b.shape[0]:
        r[a.shape[0]:] = b
    return r


def _neighbours(aux, op, fill):
    """(prev, next): bool arrays of aux's length, prev[i] = op(aux[i], aux[i - 1]) and
    next[i] = op(aux[i], aux[i + 1]), `fill` past the ends.  New arrays of aux's length, tiled as
    aux is (its sort's default): a selection through them is each rank's own compaction, where a
    mask one element shorter or longer than aux is tiled otherwise and gathers."""
    n = aux.shape[0]
    prev = _core.empty((n,), _np.bool_)
    nxt = _core.empty((n,), _np.bool_)
    if n:
        prev[:1] = fill
        nxt[n - 1:] = fill
    if n > 1:
        d = _core.ufunc(op, (aux[1:], aux[:-1]))
        prev[1:] = d
        nxt[:-1] = d
    return prev, nxt


def _set_operands(ar1, ar2, fn, kwargs):
    a, b = _native(ar1), _native(ar2)
    cast = _common(a, b, kinds="biufc") if a is not None and b is not None else None
    if cast is None:
        return None, _fallback.compute(fn, (ar1, ar2), kwargs)
    a, b = cast
    flat = [x if x.ndim == 1 else (_flat(x) if x.ndim else _core.reshape(x, (1,))) for x in (a, b)]
    return flat, None


def union1d(ar1, ar2):
    ops, r = _set_operands(ar1, ar2, _np.union1d, {})
    return r if ops is None else unique(_concat(*ops))


def intersect1d(ar1, ar2, assume_unique=False, return_indices=False):
    ops, r = _set_operands(ar1, ar2, _np.intersect1d, {"assume_unique": assume_unique,
                                                       "return_indices": return_indices})
    if ops is None:
        return r
    if not return_indices:
        a, b = ops if assume_unique else (unique(ops[0]), unique(ops[1]))
        aux = _sort_op(_concat(a, b), 0, False)
        if aux.shape[0] < 2:
            return aux[:0]
        return aux[_neighbours(aux, "equal", False)[1]]
    # NumPy's: the indices of the first occurrences (unique's), the stable argsort of both
    if assume_unique:
        a, b = ops
    else:
        (a, ind1), (b, ind2) = unique(ops[0], return_index=True), unique(ops[1], return_index=True)
    aux = _concat(a, b)
    perm = _sort_op(aux, 0, True)
    # the values in that order: a second sort where equal values are one bit pattern (a gather
    # through perm costs more under distribution); a float zero's sign is the stable order's
    aux = aux[perm] if aux.dtype.kind in "fc" else _core.sort(aux, 0, False)
    if aux.shape[0] < 2:
        e = _core.empty((0,), _np.int64)
        return aux[:0], e, e
    prev, nxt = _neighbours(aux, "equal", False)
    int1d = aux[nxt]
    i1 = perm[nxt]
    i2 = _core.ufunc("subtract", (perm[prev], a.shape[0]))
    if not assume_unique:
        i1, i2 = ind1[i1], ind2[i2]
    return int1d, i1, i2


def setdiff1d(ar1, ar2, assume_unique=False):
    ops, r = _set_operands(ar1, ar2, _np.setdiff1d, {"assume_unique": assume_unique})
    if ops is None:
        return r
    a, b = _native(ar1), _native(ar2)     # the result keeps ar1's dtype (no concatenation)
    a, b = [x if x.ndim == 1 else (_flat(x) if x.ndim else _core.reshape(x, (1,))) for x in (a, b)]
    if not assume_unique:
        a, b = unique(a), unique(b)
    return a[isin(a, b, invert=True)]


def setxor1d(ar1, ar2, assume_unique=False):
    ops, r = _set_operands(ar1, ar2, _np.setxor1d, {"assume_unique": assume_unique})
    if ops is None:
        return r
    a, b = ops if assume_unique else (unique(ops[0]), unique(ops[1]))
    aux = _sort_op(_concat(a, b), 0, False)
    n = aux.shape[0]
    if n == 0:
        return aux
    prev, nxt = _neighbours(aux, "not_equal", True)
    return aux[_core.ufunc("logical_and", (prev, nxt))]


# ---- histograms ----------------------------------------------------------------------------------

def _hist_input(a, weights):
    """(flat a, flat float64 weights or None) when the counting is native, else None; NumPy's
    bool conversion warning and weights check."""
    import warnings
    x = _native(a)
    if x is None or x.dtype.kind == "c":
        return None
    w = None
    if weights is not None:
        w = _native(weights)
        if w is None or w.dtype != _np.float64:
            return None
        if w.shape != x.shape:
            raise ValueError("weights should have the same shape as a.")
    if x.dtype == _np.bool_:
        warnings.warn(f"Converting input from {x.dtype} to {_np.uint8} for compatibility.",
                      RuntimeWarning, stacklevel=3)
        x = _core.cast(x, _np.uint8)
    flat = lambda y: y if y.ndim == 1 else (_flat(y) if y.ndim else _core.reshape(y, (1,)))
    return flat(x), (flat(w) if w is not None else None)


def _uniform_edges(x, bins, range):
    """NumPy's outer edges, edges and denominator of `bins` equal bins over x (or range), or None
    when NumPy would compute them in a dtype other than float64."""
    import operator
    from numpy.lib import _histograms_impl as H
    try:
        n = operator.index(bins)
    except TypeError as e:
        raise TypeError("`bins` must be an integer, a string, or an array") from e
    if n < 1:
        raise ValueError("`bins` must be positive, when an integer")
    first, last = H._get_outer_edges(x, range)
    bin_type = _np.result_type(first, last, x.dtype)
    if _np.issubdtype(bin_type, _np.integer):
        bin_type = _np.result_type(bin_type, float)
    if bin_type != _np.float64:
        return None
    edges = _np.linspace(first, last, n + 1, endpoint=True, dtype=bin_type)
    return edges, float(first), float(last), float(H._unsigned_subtract(last, first))


def _array_edges(bins):
    e = _np.asarray(_core.to_numpy(bins) if isinstance(bins, ndarray) else bins)
    if e.ndim != 1:
        raise ValueError("`bins` must be 1d, when an array")
    if _np.any(e[:-1] > e[1:]):
        raise ValueError("`bins` must increase monotonically, when an array")
    return e


def _estimated_bins(x, bins, range):
    """The number of equal bins NumPy's estimator `bins` (a string) gives for the native flat x:
    NumPy's _get_bin_edges, with NumPy's own estimators, whose min/max, percentiles, std and
    counts dispatch to cupynum's (distributed: nothing gathered); its error for a bad name."""
    from numpy.lib import _histograms_impl as H
    if bins not in H._hist_bin_selectors:
        raise ValueError(f"{bins!r} is not a valid estimator for `bins`")
    first, last = H._get_outer_edges(x, range)
    if range is not None:
        keep = _core.ufunc("logical_and", (_core.ufunc("greater_equal", (x, first)),
                                          _core.ufunc("less_equal", (x, last))))
        from ._reductions import all as _all
        if not bool(_all(keep)):
            x = x[keep]
    if x.size == 0:
        return 1
    width = H._hist_bin_selectors[bins](x, (first, last))
    if not width:
        return 1        # e.g. FD of data whose IQR is zero
    if _np.issubdtype(x.dtype, _np.integer) and width < 1:
        width = 1
    return int(_np.ceil(H._unsigned_subtract(last, first) / width))


def histogram(a, bins=10, range=None, density=None, weights=None):
    # (an estimator with weights: NumPy's errors)
    args = _hist_input(a, weights) if not isinstance(bins, str) or weights is None else None
    if args is not None and isinstance(bins, str):
        bins = _estimated_bins(args[0], bins, range)
    u = None
    if args is not None and _np.ndim(bins) == 0:
        u = _uniform_edges(args[0], bins, range)
        if u is None:
            args = None
    elif args is not None:
        edges = _array_edges(bins)
        dt = _np.result_type(args[0].dtype, edges.dtype)
        if weights is not None or dt.kind not in "biuf" or dt == _np.longdouble:
            args = None
    if args is None:
        return _fallback.compute(_np.histogram, (a,), {"bins": bins, "range": range,
                                                       "density": density, "weights": weights})
    x, w = args
    if u is not None:
        edges, first, last, denom = u
        xf = x if x.dtype == _np.float64 else _core.cast(x, _np.float64)
        n = _core.histogram(xf, w, _core.from_any(edges), True, first, last, denom)
    else:
        xc = x if x.dtype == dt else _core.cast(x, dt)
        n = _core.histogram(xc, None, _core.from_any(edges.astype(dt)), False, 0.0, 0.0, 0.0)
    if density:
        db = _core.from_any(_np.array(_np.diff(edges), float))
        from ._reductions import sum as _sum
        n = n / db / _sum(n)
    return n, _core.from_any(edges)


def histogram_bin_edges(a, bins=10, range=None, weights=None):
    args = None
    if isinstance(bins, str) and weights is None:   # (with weights: NumPy's errors)
        args = _hist_input(a, None)
        if args is not None:
            bins = _estimated_bins(args[0], bins, range)
    elif _np.ndim(bins) == 0:
        args = _hist_input(a, weights)
    u = _uniform_edges(args[0], bins, range) if args is not None else None
    if u is None:
        return _fallback.compute(_np.histogram_bin_edges, (a,), {"bins": bins, "range": range,
                                                                 "weights": weights})
    return _core.from_any(u[0])


def _dd_columns(sample):
    """The D columns of histogramdd's sample (an (N, D) array or a sequence of D 1-D arrays, as
    NumPy's atleast_2d(sample).T) as native 1-D arrays of one dtype, or None."""
    if isinstance(sample, (tuple, list)):
        cols = [_native(c) for c in sample]
        if not cols or any(c is None or c.ndim != 1 for c in cols) or \
                len({c.shape for c in cols}) != 1:
            return None
    else:
        x = _native(sample)
        if x is None or x.ndim not in (1, 2):
            return None
        # each column its own 1-D array (tiled as the sample's rows, so nothing moves): a strided
        # column view is read whole on every rank by the search
        cols = [x] if x.ndim == 1 else [_core.cast(x[:, i], x.dtype) for i in range(x.shape[1])]
    dt = _np.result_type(*[c.dtype for c in cols])
    if dt.kind not in "biuf" or dt == _np.longdouble or cols[0].shape[0] == 0:
        return None
    return [c if c.dtype == dt else _core.cast(c, dt) for c in cols]


def histogramdd(sample, bins=10, range=None, density=None, weights=None):
    """NumPy's histogramdd (its edges, checks and errors, computed on the small edge arrays): each
    column's bin by searchsorted(side="right") on its edges, the last edge closed, the bins'
    linear index counted by the histogram op (distributed counts), the outliers' rows cut off."""
    import operator
    from numpy.lib import _histograms_impl as H
    cols = _dd_columns(sample)
    w = None
    if cols is not None and weights is not None:
        w = _native(weights)
        if w is None or w.ndim != 1 or w.shape[0] != cols[0].shape[0] or \
                w.dtype.kind not in "biuf" or w.dtype == _np.longdouble:
            cols = None
    if cols is None:
        return _fallback.compute(_np.histogramdd, (sample,), {
            "bins": bins, "range": range, "density": density, "weights": weights})
    D = len(cols)
    try:
        if len(bins) != D:
            raise ValueError("The dimension of bins must be equal to the dimension of the sample x.")
    except TypeError:
        bins = D * [bins]
    if range is None:
        range = (None,) * D
    elif len(range) != D:
        raise ValueError("range argument must have one entry per dimension")
    edges, nbin = [], []
    for i in _builtin_range(D):
        b = bins[i]
        if isinstance(b, ndarray):
            b = _core.to_numpy(b)
        if _np.ndim(b) == 0:
            if b < 1:
                raise ValueError(f"`bins[{i}]` must be positive, when an integer")
            smin, smax = H._get_outer_edges(cols[i], range[i])
            try:
                n = operator.index(b)
            except TypeError as e:
                raise TypeError(f"`bins[{i}]` must be an integer, when a scalar") from e
            e = _np.linspace(smin, smax, n + 1)
        elif _np.ndim(b) == 1:
            e = _np.asarray(b)
            if _np.any(e[:-1] > e[1:]):
                raise ValueError(f"`bins[{i}]` must be monotonically increasing, when an array")
        else:
            raise ValueError(f"`bins[{i}]` must be a scalar or 1d array")
        edges.append(e)
        nbin.append(len(e) + 1)
    total = 1
    for k in nbin:
        total *= k
    if any(e.dtype.kind not in "biuf" or e.dtype == _np.longdouble for e in edges) or \
            total >= 1 << 52:
        return _fallback.compute(_np.histogramdd, (sample,), {
            "bins": bins, "range": range, "density": density, "weights": weights})
    xy = None
    for i in _builtin_range(D):
        ce = _common(_core.from_any(edges[i]), cols[i])
        if ce is None:
            return _fallback.compute(_np.histogramdd, (sample,), {
                "bins": bins, "range": range, "density": density, "weights": weights})
        ec, c = ce
        idx = _core.searchsorted(ec, c, None, True, False)
        if edges[i].shape[0]:
            last = ec[edges[i].shape[0] - 1:]
            idx = _core.ufunc("subtract", (idx, _core.cast(_core.ufunc("equal", (c, last)),
                                                            _np.int64)))
        stride = total // _np.prod(nbin[:i + 1], dtype=_np.int64)
        term = idx if stride == 1 else _core.ufunc("multiply", (idx, int(stride)))
        xy = term if xy is None else _core.ufunc("add", (xy, term))
    xf = _core.cast(xy, _np.float64)
    wf = None if w is None else (w if w.dtype == _np.float64 else _core.cast(w, _np.float64))
    ee = _core.from_any(_np.arange(total + 1, dtype=_np.float64))
    hist = _core.histogram(xf, wf, ee, True, 0.0, float(total), float(total))
    if hist.dtype != _np.float64:
        hist = _core.cast(hist, _np.float64)
    hist = _core.reshape(hist, tuple(nbin))[(slice(1, -1),) * D]
    if density:
        from ._reductions import sum as _sum
        s = _sum(hist)
        for i in _builtin_range(D):
            shape = [1] * D
            shape[i] = nbin[i] - 2
            hist = hist / _core.from_any(_np.diff(edges[i]).reshape(shape))
        hist = hist / s
    return hist, [_core.from_any(e) for e in edges]


def histogram2d(x, y, bins=10, range=None, density=None, weights=None):
    if len(x) != len(y):
        raise ValueError('x and y must have the same length.')
    try:
        N = len(bins)
    except TypeError:
        N = 1
    if N != 1 and N != 2:
        xedges = yedges = _np.asarray(_core.to_numpy(bins) if isinstance(bins, ndarray) else bins)
        bins = [xedges, yedges]
    hist, edges = histogramdd([x, y], bins, range, density, weights)
    return hist, edges[0], edges[1]


def digitize(x, bins, right=False):
    xn = _native(x)
    if xn is None or xn.dtype.kind == "c":
        return _fallback.compute(_np.digitize, (x, bins), {"right": right})
    b = _np.asarray(_core.to_numpy(bins) if isinstance(bins, ndarray) else bins)
    from numpy._core.multiarray import _monotonicity
    mono = _monotonicity(b)
    if mono == 0:
        raise ValueError("bins must be monotonically increasing or decreasing")
    side = "left" if right else "right"
    if mono == -1:
        return len(b) - searchsorted(b[::-1].copy(), xn, side=side)
    return searchsorted(b, xn, side=side)


# ---- cov, corrcoef: NumPy's own arithmetic over native means and products ------------------------

def cov(m, y=None, rowvar=True, bias=False, ddof=None, fweights=None, aweights=None, *,
        dtype=None):
    import warnings
    x = _native(m)
    yn = _native(y) if y is not None else None
    if fweights is not None or aweights is not None or x is None or x.ndim == 0 or \
            (y is not None and (yn is None or yn.ndim == 0)) or \
            (dtype is not None and _np.dtype(dtype).kind not in "fc"):
        return _fallback.compute(_np.cov, (m, y), {
            "rowvar": rowvar, "bias": bias, "ddof": ddof, "fweights": fweights,
            "aweights": aweights, "dtype": dtype})
    if ddof is not None and ddof != int(ddof):
        raise ValueError("ddof must be integer")
    if x.ndim > 2:
        raise ValueError("m has more than 2 dimensions")
    if yn is not None and yn.ndim > 2:
        raise ValueError("y has more than 2 dimensions")
    if dtype is not None:
        dt = _np.dtype(dtype)
    else:
        dt = _np.result_type(x.dtype, *([yn.dtype] if yn is not None else []), _np.float64)
    if dt in (_np.longdouble, _np.clongdouble):
        return _fallback.compute(_np.cov, (m, y), {"rowvar": rowvar, "bias": bias, "ddof": ddof,
                                                   "dtype": dtype})
    X = _core.cast(x, dt)          # a copy, as NumPy's array(m, ndmin=2, dtype=dtype)
    if X.ndim == 1:
        X = _core.reshape(X, (1, X.shape[0]))
    elif not rowvar:
        X = _core.cast(X.T, dt)
    if X.shape[0] == 0:
        return _core.from_any(_np.array([]).reshape(0, 0))
    if yn is not None:
        Y = _core.cast(yn, dt)
        if Y.ndim == 1:
            Y = _core.reshape(Y, (1, Y.shape[0]))
        elif not rowvar and Y.shape[0] != 1:
            Y = Y.T
        from ._joins import concatenate
        X = concatenate((X, Y), axis=0)
    if ddof is None:
        ddof = 0 if bias else 1
    from ._reductions import mean
    from ._products import dot
    avg = mean(X, axis=1)
    fact = X.shape[1] - ddof
    if fact <= 0:
        warnings.warn("Degrees of freedom <= 0 for slice", RuntimeWarning, stacklevel=2)
        fact = 0.0
    X -= avg[:, None]
    c = dot(X, X.T if dt.kind != "c" else _core.ufunc("conjugate", (X.T,)))
    c *= _np.true_divide(1, fact)
    from ._views import squeeze
    return squeeze(c)


def corrcoef(x, y=None, rowvar=True, *, dtype=None):
    xn = _native(x)
    yn = _native(y) if y is not None else None
    if xn is None or xn.ndim > 2 or xn.dtype.kind == "c" or \
            (y is not None and (yn is None or yn.ndim > 2 or yn.dtype.kind == "c")) or \
            (dtype is not None and _np.dtype(dtype).kind != "f"):
        return _fallback.compute(_np.corrcoef, (x, y, rowvar), {"dtype": dtype})
    c = cov(xn, yn, rowvar, dtype=dtype)
    if c.ndim != 2:
        return c / c
    from ._views import diagonal
    from ._functions import ufuncs
    d = diagonal(c)
    stddev = ufuncs["sqrt"](d)
    c = c / stddev[:, None]
    c = c / stddev[None, :]
    return ufuncs["minimum"](ufuncs["maximum"](c, -1), 1)


NAMES = ("sort", "argsort", "lexsort", "sort_complex", "searchsorted", "unique", "unique_values",
         "unique_counts", "unique_inverse", "unique_all", "isin", "union1d", "intersect1d",
         "setdiff1d", "setxor1d", "histogram", "histogram_bin_edges", "digitize", "partition",
         "argpartition", "cov", "corrcoef", "histogram2d", "histogramdd")


def install(cls, namespace, implemented):
    """The functions into cupynum's namespace and __array_function__'s table; ndarray's methods
    (replacing the fallbacks installed before)."""
    g = globals()
    for n in NAMES:
        g[n] = _fallback.numpy_for_foreign(getattr(_np, n))(g[n])
        namespace[n] = g[n]
        implemented[getattr(_np, n)] = g[n]
    cls.sort = _method_sort
    cls.argsort = _method_argsort
    cls.searchsorted = _method_searchsorted
    cls.partition = _method_partition
    cls.argpartition = _method_argpartition
