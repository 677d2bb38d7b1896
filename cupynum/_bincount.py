"""numpy.bincount over the runtime's bincount op (csrc/kernels/histogram.c).

The native path takes a 1-D cupynum array of an integer or bool dtype and weights that are None or
a 1-D array (cupynum or NumPy) of a bool/integer/float dtype of the same length.  The smallest and
largest index are read first (one flush: NumPy's "no negative elements" error, and the length of
the result must be known when the op is queued); the count itself is deferred.  Under MPI each
rank counts its own range of a partitioned input (dist.c's exec_bincount: bytes O(bins), the
weighted sums bitwise those of one process), each rank keeping the replicated result.
Every other input (lists, other dtypes, other ranks, NumPy's conversion warnings and errors) is
computed by NumPy on gathered data, so results and messages are NumPy's."""

import operator

import numpy as _np

from . import _core, _fallback
from ._ndarray import ndarray


def _numpy_bincount(x, weights, minlength):
    return _fallback.call("numpy.bincount", _np.bincount, (x,),
                          {"weights": weights, "minlength": minlength})


def _native_weights(w, n):
    if w is None:
        return True
    if not isinstance(w, (ndarray, _np.ndarray)):
        return False
    return w.ndim == 1 and w.shape[0] == n and w.dtype.kind in "biuf" and w.dtype.isnative \
        and w.dtype != _np.longdouble


def bincount(x, /, weights=None, minlength=0):
    if minlength is None:
        raise TypeError("use 0 instead of None for minlength")
    minlength = operator.index(minlength)
    if minlength < 0:
        raise ValueError("'minlength' must not be negative")
    if not (isinstance(x, ndarray) and x.ndim == 1 and x.dtype.kind in "biu"
            and _native_weights(weights, x.shape[0] if isinstance(x, ndarray) else -1)):
        return _numpy_bincount(x, weights, minlength)
    n = x.shape[0]
    a = x if x.dtype == _np.int64 else _core.cast(x, _np.int64)
    if n == 0:   # NumPy's int64 zeros, with weights too
        return _core.empty((minlength,), _np.dtype(_np.int64))
    else:
        # (full_reduce: read in place where this process holds a, else one queued reduction)
        if int(_core.full_reduce(a, "minimum")) < 0:
            raise ValueError("'list' argument must have no negative elements")
        nbins = max(int(_core.full_reduce(a, "maximum")) + 1, minlength)
    w = None
    if weights is not None:
        w = weights if isinstance(weights, ndarray) else _core.from_any(weights)
        if w.dtype != _np.float64:
            w = _core.cast(w, _np.float64)
    return _core.bincount(a, w, nbins)
