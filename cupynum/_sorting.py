"""sort, argsort, ndarray.sort/argsort and sort_complex over the runtime's sort op
(csrc/kernels/sort.c; under distribution csrc/runtime/samplesort.c).

NumPy's rules are applied here: `kind` (any kind is accepted as NumPy accepts it -- by its first
letter -- and every kind is computed stably: ties keep index order, which is NumPy's stable
result and one of the orders its quicksort may give), `stable=`, `axis` (None sorts the
flattened array), NumPy's errors raised before anything is queued or written (a read-only array's
`sort` changes nothing).  Every dtype cupynum holds is native; structured arrays (`order=`),
other dtypes (object, strings, datetimes, long double) and NumPy subclasses go to NumPy."""

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


NAMES = ("sort", "argsort", "sort_complex")


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
