"""Sorting and what is built on it, over the runtime's sort, search, run and histogram ops
(csrc/kernels/sort.c, histogram.c; under distribution csrc/runtime/samplesort.c):
sort, argsort, ndarray.sort/argsort, sort_complex, partition/argpartition (a sorted lane is one
of NumPy's partitions), searchsorted, unique and the Array API unique_* functions, isin and the
set functions, histogram, histogram_bin_edges, digitize, cov and corrcoef.

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


def _sorted(a, axis, arg):
    if axis is None:
        a, axis = _flat(a), 0
    else:
        axis = _axis(axis, a.ndim)
    return _core.sort(a, axis, arg)


def sort(a, axis=-1, kind=None, order=None, *, stable=None):
    _check_kind(kind, stable)
    x = _native(a) if order is None else None
    if x is None:
        return _fallback.compute(_np.sort, (a,), {"axis": axis, "kind": kind, "order": order,
                                                  "stable": stable})
    return _sorted(x, axis, False)


def argsort(a, axis=-1, kind=None, order=None, *, stable=None):
    _check_kind(kind, stable)
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
    _core.assign(self, _core.sort(self, axis, False))


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


# ---- partition: a sorted lane is one of the partitions NumPy may return ---------------------------

def _check_partition(kth, kind, n):
    if not isinstance(kind, str):
        raise TypeError(f"select kind must be str, not {type(kind).__name__}")
    if kind != "introselect":
        raise ValueError(f"select kind must be 'introselect' (got '{kind}')")
    ks = _np.asarray(kth)
    if ks.dtype.kind not in "iu":
        raise TypeError("Partition index must be integer")
    for k in ks.ravel().tolist():
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
    _check_partition(kth, kind, x.shape[axis])
    return _core.sort(x, axis, arg)


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
    _check_partition(kth, kind, self.shape[axis])
    if not self.flags.writeable:
        raise ValueError("partition array is read-only")
    _core.assign(self, _core.sort(self, axis, False))


def _method_argpartition(self, kth, axis=-1, kind="introselect", order=None):
    return argpartition(self, kth, axis, kind, order)


# ---- searching ------------------------------------------------------------------------------------

def _common(*xs):
    """The arrays cast to NumPy's common dtype (result_type), or None when it is not native."""
    dt = _np.result_type(*[x.dtype for x in xs])   # dtypes: the arrays themselves would be gathered
    if dt.kind not in "biuf" or dt == _np.longdouble:
        return None
    return [x if x.dtype == dt else _core.cast(x, dt) for x in xs]


def _flat1(x):
    return x if x.ndim == 1 else _flat(x)


def searchsorted(a, v, side="left", sorter=None):
    an = _native(a)
    vn = _native(v)
    ok = an is not None and vn is not None and an.ndim == 1 and side in ("left", "right")
    if ok and sorter is not None:
        sn = _native(sorter)
        ok = sn is not None and sn.ndim == 1 and sn.dtype.kind in "iu" and sn.shape == an.shape
    cast = _common(an, vn) if ok and an.dtype.kind != "c" and vn.dtype.kind != "c" else None
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
    if return_index or return_inverse:
        perm = _core.sort(flat, 0, True)
        s = flat
    else:
        s = _core.sort(flat, 0, False)
    nd = not equal_nan
    k = int(_core.to_scalar(_runs(s, perm, _core.UNIQUE_COUNT, nd)))
    values = _runs(s, perm, _core.UNIQUE_VALUES, nd, k)
    index = _runs(s, perm, _core.UNIQUE_INDEX, nd, k) if return_index else None
    inverse = _runs(s, perm, _core.UNIQUE_INVERSE, nd) if return_inverse else None
    counts = _runs(s, perm, _core.UNIQUE_COUNTS, nd, k) if return_counts else None
    return values, index, inverse, counts


def unique(ar, return_index=False, return_inverse=False, return_counts=False, axis=None, *,
           equal_nan=True, sorted=True):
    x = _native(ar)
    if x is None or axis is not None or x.dtype.kind == "c":
        return _fallback.compute(_np.unique, (ar,), {
            "return_index": return_index, "return_inverse": return_inverse,
            "return_counts": return_counts, "axis": axis, "equal_nan": equal_nan,
            "sorted": sorted})
    flat = _flat1(x) if x.ndim else _core.reshape(x, (1,))
    values, index, inverse, counts = _unique_flat(flat, return_index, return_inverse,
                                                  return_counts, equal_nan)
    if inverse is not None and x.ndim != 1:
        inverse = _core.reshape(inverse, x.shape)
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
    cast = _common(e, t) if ok and "c" not in (e.dtype.kind, t.dtype.kind) else None
    if cast is None:
        return _fallback.compute(_np.isin, (element, test_elements), {
            "assume_unique": assume_unique, "invert": invert, "kind": kind})
    e, t = cast
    ts = _core.sort(_flat1(t) if t.ndim else _core.reshape(t, (1,)), 0, False)
    r = _core.searchsorted(ts, _flat1(e) if e.ndim else _core.reshape(e, (1,)), None, False, True)
    if invert:
        r = _core.ufunc("logical_not", (r,))
    return r if e.ndim == 1 else _core.reshape(r, e.shape)


def _concat(a, b):
    """a and b (1-D, one dtype) end to end: a new array, two slice assignments."""
    r = _core.empty((a.shape[0] + b.shape[0],), a.dtype)
    if a.shape[0]:
        r[:a.shape[0]] = a
    if b.shape[0]:
        r[a.shape[0]:] = b
    return r


def _set_operands(ar1, ar2, fn, kwargs):
    a, b = _native(ar1), _native(ar2)
    cast = _common(a, b) if a is not None and b is not None and \
        "c" not in (a.dtype.kind, b.dtype.kind) else None
    if cast is None:
        return None, _fallback.compute(fn, (ar1, ar2), kwargs)
    a, b = cast
    flat = [x if x.ndim == 1 else (_flat(x) if x.ndim else _core.reshape(x, (1,))) for x in (a, b)]
    return flat, None


def union1d(ar1, ar2):
    ops, r = _set_operands(ar1, ar2, _np.union1d, {})
    return r if ops is None else unique(_concat(*ops))


def intersect1d(ar1, ar2, assume_unique=False, return_indices=False):
    if return_indices:
        return _fallback.compute(_np.intersect1d, (ar1, ar2), {
            "assume_unique": assume_unique, "return_indices": return_indices})
    ops, r = _set_operands(ar1, ar2, _np.intersect1d, {"assume_unique": assume_unique})
    if ops is None:
        return r
    a, b = ops if assume_unique else (unique(ops[0]), unique(ops[1]))
    aux = _core.sort(_concat(a, b), 0, False)
    if aux.shape[0] < 2:
        return aux[:0]
    mask = _core.ufunc("equal", (aux[1:], aux[:-1]))
    return aux[:-1][mask]


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
    aux = _core.sort(_concat(a, b), 0, False)
    n = aux.shape[0]
    if n == 0:
        return aux
    flag = _core.empty((n + 1,), _np.bool_)
    flag[0] = True
    flag[n] = True
    if n > 1:
        flag[1:n] = _core.ufunc("not_equal", (aux[1:], aux[:-1]))
    return aux[_core.ufunc("logical_and", (flag[1:], flag[:-1]))]


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


def histogram(a, bins=10, range=None, density=None, weights=None):
    args = _hist_input(a, weights) if not isinstance(bins, str) else None
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
    args = _hist_input(a, weights) if not isinstance(bins, str) and _np.ndim(bins) == 0 else None
    u = _uniform_edges(args[0], bins, range) if args is not None else None
    if u is None:
        return _fallback.compute(_np.histogram_bin_edges, (a,), {"bins": bins, "range": range,
                                                                 "weights": weights})
    return _core.from_any(u[0])


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
    if y is not None or fweights is not None or aweights is not None or x is None or \
            x.ndim > 2 or x.dtype.kind == "c" or (dtype is not None and _np.dtype(dtype).kind != "f"):
        return _fallback.compute(_np.cov, (m, y), {
            "rowvar": rowvar, "bias": bias, "ddof": ddof, "fweights": fweights,
            "aweights": aweights, "dtype": dtype})
    if ddof is not None and ddof != int(ddof):
        raise ValueError("ddof must be integer")
    dt = _np.result_type(x.dtype, _np.float64) if dtype is None else _np.dtype(dtype)
    if dt == _np.longdouble:
        return _fallback.compute(_np.cov, (m,), {"rowvar": rowvar, "bias": bias, "ddof": ddof,
                                                 "dtype": dtype})
    X = _core.cast(x, dt)          # a copy, as NumPy's array(m, ndmin=2, dtype=dtype)
    if X.ndim == 1:
        X = _core.reshape(X, (1, X.shape[0]))
    elif not rowvar:
        X = _core.cast(X.T, dt)
    if X.shape[0] == 0:
        return _core.from_any(_np.array([]).reshape(0, 0))
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
    c = dot(X, X.T)
    c *= _np.true_divide(1, fact)
    from ._views import squeeze
    return squeeze(c)


def corrcoef(x, y=None, rowvar=True, *, dtype=None):
    xn = _native(x)
    if y is not None or xn is None or xn.ndim > 2 or xn.dtype.kind == "c" or \
            (dtype is not None and _np.dtype(dtype).kind != "f"):
        return _fallback.compute(_np.corrcoef, (x, y, rowvar), {"dtype": dtype})
    c = cov(xn, None, rowvar, dtype=dtype)
    if c.ndim != 2:
        return c / c
    from ._views import diagonal
    from ._functions import ufuncs
    d = diagonal(c)
    stddev = ufuncs["sqrt"](d)
    c = c / stddev[:, None]
    c = c / stddev[None, :]
    return ufuncs["minimum"](ufuncs["maximum"](c, -1), 1)


NAMES = ("sort", "argsort", "sort_complex", "searchsorted", "unique", "unique_values",
         "unique_counts", "unique_inverse", "unique_all", "isin", "union1d", "intersect1d",
         "setdiff1d", "setxor1d", "histogram", "histogram_bin_edges", "digitize", "partition",
         "argpartition", "cov", "corrcoef")


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
