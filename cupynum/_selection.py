"""Selection by truth: nonzero, argwhere, flatnonzero, extract, compress (and where(cond) with one
argument), on the runtime's compaction kernels (csrc/kernels/compact.c: ops COMPACT, NONZERO);
take, on its gather (op GATHER, as integer-array indexing).

Each counts the true elements first (a native count_nonzero: a flush, and under MPI a reduction
every rank shares), then queues one op whose result has that length.  NumPy's rules: truth is
non-zero (NaN is true), indices are intp in C order, results are copies.  What these do not
cover natively -- 0-d inputs (NumPy's own errors and shapes), dtypes the runtime lacks, `out=`,
mismatched lengths -- NumPy computes, so its results and messages hold."""

import numpy as _np

from . import _core, _fallback
from ._ndarray import _count_true, _getitem_int, ndarray

_NATIVE = frozenset(_np.dtype(c) for c in "?bhilqBHILQefdFD")


def _numpy(name, *args, **kwargs):
    return _fallback.call("numpy." + name, getattr(_np, name), args, kwargs)


def _truth(a):
    """a as a bool cupynum array (non-zero is true), or None where NumPy should compute."""
    if not isinstance(a, ndarray):
        if not isinstance(a, (_np.ndarray, list, tuple)) or isinstance(a, _np.ndarray) and \
                type(a) is not _np.ndarray:
            return None
        n = _np.asarray(a)
        if n.dtype not in _NATIVE:
            return None
        a = _core.from_any(n)
    if a.dtype not in _NATIVE:
        return None
    return a if a.dtype == _np.bool_ else _core.cast(a, _np.bool_)


def _indices(m):
    """The (ndim, count) int64 indices of the true elements of the bool array m (ndim >= 1)."""
    return _core.nonzero(m, _count_true(m))


def nonzero(a):
    if type(a) is ndarray:
        r = _core.nonzero_rows(a)   # a bool array in this process's memory (fastpath.c)
        if r is not None:
            return r
    m = _truth(a)
    if m is None or m.ndim == 0:
        return _numpy("nonzero", a)
    idx = _indices(m)
    return tuple(idx[d] for d in range(m.ndim))


def argwhere(a):
    m = _truth(a)
    if m is None or m.ndim == 0:
        return _numpy("argwhere", a)
    idx = _indices(m)
    return _core.cast(_core.transpose(idx, (1, 0)), idx.dtype)   # C-ordered (count, ndim)


def _grid(a):
    """Whether a's store is cut on a grid whose tiles are not C-order ranges (2x2 on 4 ranks):
    there ravel is an untiled alias that a compaction would gather.  Local."""
    t = _core._tiling(a)
    return a.ndim > 1 and t["tiled"] and any(g > 1 for g in t["grid"][1:])


def flatnonzero(a):
    m = _truth(a)
    if m is None:
        return _numpy("flatnonzero", a)
    if _grid(m):
        # the n-d indices (each rank its own box), combined row-major: no ravel of the mask
        idx = _indices(m)
        cp = _cp()
        lin = idx[0]
        for d in range(1, m.ndim):
            lin = cp.add(cp.multiply(lin, m.shape[d]), idx[d])
        return _core.cast(lin, idx.dtype)
    from ._functions import ravel
    m = ravel(m)
    return _indices(m)[0]


def _cp():
    import cupynum
    return cupynum


def _gather_flat(x, c):
    """ravel(x)[c] for x C-ordered over all of a partitioned store and c a 1-D bool array no
    longer than x (partitioned its own way, so a compaction beside ravel(x) would gather): the
    indices of c's true elements, each element served by its owner (the rows of a tiled flat
    alias, or dist.c's element case on a grid); None where that does not apply.  Local."""
    if c.ndim != 1 or c.shape[0] > x.size or not _core._tiling(x)["tiled"] or \
            x.ndim == 1 and c.shape[0] == x.shape[0]:      # 1-D alike: an aligned compaction
        return None
    flat = _core.reshape(x, (x.size,))
    if flat is None:
        return None
    return _core.gather(flat, _indices(c)[0])


def extract(condition, arr):
    c, x = _truth(condition), arr
    if c is None or not isinstance(x, ndarray) and not isinstance(x, (_np.ndarray, list, tuple)):
        return _numpy("extract", condition, arr)
    if not isinstance(x, ndarray):
        n = _np.asarray(x)
        if n.dtype not in _NATIVE or type(n) is not _np.ndarray:
            return _numpy("extract", condition, arr)
        x = _core.from_any(n)
    if x.dtype not in _NATIVE or c.size != x.size:
        return _numpy("extract", condition, arr)
    if tuple(c.shape) == tuple(x.shape) and x.ndim > 1:
        return _core.compact(x, c, _count_true(c))      # C order: ravel's order, no ravel
    r = _gather_flat(x, c)
    if r is not None:
        return r
    from ._functions import ravel
    c, x = ravel(c), ravel(x)
    return _core.compact(x, c, _count_true(c))


def compress(condition, a, axis=None, out=None):
    if out is not None or not isinstance(a, ndarray) or a.dtype not in _NATIVE:
        return _numpy("compress", condition, a, axis=axis, out=out)
    c = _truth(condition)
    if c is None or c.ndim != 1:
        return _numpy("compress", condition, a, axis=axis, out=out)
    if axis is None:
        r = _gather_flat(a, c)
        if r is not None:
            return r
        from ._functions import ravel
        a, axis = ravel(a), 0
    from numpy.lib.array_utils import normalize_axis_index
    axis = normalize_axis_index(axis, a.ndim)
    n = a.shape[axis]
    if c.shape[0] > n:
        return _numpy("compress", condition, a, axis=axis, out=out)   # NumPy's IndexError
    lead = (slice(None),) * axis
    if c.shape[0] < n:
        a = a[lead + (slice(0, c.shape[0]),)]
    return a[lead + (c,)]


def _method_nonzero(self):
    return nonzero(self)


def _method_compress(self, condition, axis=None, out=None):
    return compress(condition, self, axis=axis, out=out)


def take(a, indices, axis=None, out=None, mode="raise"):
    """numpy.take natively for an integer index array: mode='raise' checks the bounds, 'clip'
    and 'wrap' first map the indices into range (element-wise, where they lie); out= of the
    result's shape takes it by an unsafe cast, as NumPy's.  Scalars, other outs and errors are
    NumPy's."""
    if out is not None:
        if not isinstance(out, ndarray) or _core.readonly(out) or \
                out.dtype not in _NATIVE or not isinstance(a, ndarray):
            return _numpy("take", a, indices, axis=axis, out=out, mode=mode)
        r = take(a, indices, axis=axis, mode=mode)
        if not isinstance(r, ndarray) or tuple(r.shape) != tuple(out.shape):
            return _numpy("take", a, indices, axis=axis, out=out, mode=mode)
        _core.assign(out, r if r.dtype == out.dtype else _core.cast(r, out.dtype))
        return out
    if mode in ("clip", "wrap") and (isinstance(indices, list) or type(indices) is _np.ndarray):
        n_i = _np.asarray(indices)
        if n_i.dtype.kind in "iu":
            indices = _core.from_any(n_i)
    if mode in ("clip", "wrap") and isinstance(a, ndarray) and isinstance(indices, ndarray) and \
            indices.ndim > 0 and indices.dtype.kind in "iu" and indices.dtype != _np.uint64:
        if axis is None:
            n = a.size
        else:
            from numpy.lib.array_utils import normalize_axis_index
            n = a.shape[normalize_axis_index(axis, a.ndim)] if a.ndim else 0
        if n > 0:
            cp = _cp()
            i = _core.cast(indices, _np.int64)
            i = cp.clip(i, 0, n - 1) if mode == "clip" else cp.remainder(i, n)
            return take(a, _core.cast(i, _np.int64), axis=axis)
    if out is None and mode == "raise" and isinstance(a, ndarray) and \
            (indices.ndim > 0 if isinstance(indices, ndarray) else     # (no dispatch of np.ndim)
             (isinstance(indices, list) or type(indices) is _np.ndarray) and _np.ndim(indices) > 0):
        if axis is None:
            if a.ndim == 1:
                x, ax = a, 0
            else:
                from ._functions import ravel
                x, ax = ravel(a), 0
        else:
            from numpy.lib.array_utils import normalize_axis_index
            x, ax = a, normalize_axis_index(axis, a.ndim)
        if ax == 0 and isinstance(indices, ndarray) and indices.dtype == _np.int64:
            return x[indices]                       # index.c's fast path where it applies
        r = _getitem_int(x, (slice(None),) * ax + (indices,))
        if r is not None:
            return r
    return _numpy("take", a, indices, axis=axis, out=out, mode=mode)


def _method_take(self, indices, axis=None, out=None, mode="raise"):
    return take(self, indices, axis=axis, out=out, mode=mode)
