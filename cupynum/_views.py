"""Functions whose NumPy results are views, as views: the same store, nothing copied, a write
through the result is seen by its operand and a write to the operand is seen through the result
(on one process and partitioned alike: a view is metadata, creating one moves no data).

Everything here is view arithmetic on the C view primitives (csrc/runtime/view.h) that _core
exposes: slicing with steps (flips, splits), transpose (axis moves), reshape with only size-1
dimensions added or removed (squeeze, expand_dims, atleast_*: always a view), broadcast_to
(broadcast_arrays, writable as NumPy's) and diagonal (one dimension walking two, read-only as
NumPy's).  Errors are NumPy's (AxisError and ValueError texts)."""

import operator
import weakref

import numpy as _np
from numpy.exceptions import AxisError
from numpy.lib.array_utils import normalize_axis_index, normalize_axis_tuple

from . import _core, _fallback
from ._core import ndarray


def _asarray(a):
    return a if isinstance(a, ndarray) else _core.from_any(a)


def _reshaped(a, shape):
    """`a` with size-1 dimensions added or removed: always a view."""
    r = _core.reshape(a, tuple(shape))
    assert r is not None, "a reshape that only adds or drops size-1 dimensions is a view"
    return r


def _flipped(a, axes):
    key = [slice(None)] * a.ndim
    for ax in axes:
        key[ax] = slice(None, None, -1)
    return a[tuple(key)]


def _along(a, axis, start, stop):
    return a[(slice(None),) * axis + (slice(start, stop),)]


# ---- dimensions added or removed ----------------------------------------------------------------

def squeeze(a, axis=None):
    a = _asarray(a)
    if axis is None:
        return _reshaped(a, [n for n in a.shape if n != 1])
    axes = tuple(normalize_axis_index(ax, a.ndim) for ax in (
        axis if isinstance(axis, (tuple, list)) else (axis,)))
    if len(set(axes)) != len(axes):
        raise ValueError("duplicate value in 'axis'")   # NumPy's C text (not 'repeated axis')
    if any(a.shape[ax] != 1 for ax in axes):
        raise ValueError("cannot select an axis to squeeze out which has size not equal to one")
    return _reshaped(a, [n for i, n in enumerate(a.shape) if i not in axes])


def expand_dims(a, axis):
    a = _asarray(a)
    if not isinstance(axis, (tuple, list)):
        axis = (axis,)
    nd = a.ndim + len(axis)
    axes = normalize_axis_tuple(axis, nd)
    it = iter(a.shape)
    return _reshaped(a, [1 if i in axes else next(it) for i in range(nd)])


def _atleast(arys, nd):
    res = []
    for ary in arys:
        a = _asarray(ary)
        if a.ndim < nd:
            if nd == 3 and a.ndim == 2:
                shape = a.shape + (1,)
            elif nd == 3 and a.ndim == 1:
                shape = (1,) + a.shape + (1,)
            else:
                shape = (1,) * (nd - a.ndim) + a.shape
            a = _reshaped(a, shape)
        res.append(a)
    return res[0] if len(res) == 1 else tuple(res)


def atleast_1d(*arys):
    return _atleast(arys, 1)


def atleast_2d(*arys):
    return _atleast(arys, 2)


def atleast_3d(*arys):
    return _atleast(arys, 3)


def broadcast_arrays(*args, subok=False):
    arrays = [_asarray(a) for a in args]
    shape = _np.broadcast_shapes(*(a.shape for a in arrays))
    # NumPy's views are writable (elements that repeat are written more than once).
    return tuple(a if a.shape == shape else _core.broadcast_to(a, shape, False) for a in arrays)


# ---- axes permuted ------------------------------------------------------------------------------

def swapaxes(a, axis1, axis2):
    a = _asarray(a)
    a1 = normalize_axis_index(axis1, a.ndim, "axis1")
    a2 = normalize_axis_index(axis2, a.ndim, "axis2")
    perm = list(range(a.ndim))
    perm[a1], perm[a2] = perm[a2], perm[a1]
    return _core.transpose(a, tuple(perm))


def moveaxis(a, source, destination):
    a = _asarray(a)
    source = normalize_axis_tuple(source, a.ndim, "source")
    destination = normalize_axis_tuple(destination, a.ndim, "destination")
    if len(source) != len(destination):
        raise ValueError("`source` and `destination` arguments must have the same number of "
                         "elements")
    order = [n for n in range(a.ndim) if n not in source]
    for dest, src in sorted(zip(destination, source)):
        order.insert(dest, src)
    return _core.transpose(a, tuple(order))


def rollaxis(a, axis, start=0):
    a = _asarray(a)
    n = a.ndim
    axis = normalize_axis_index(axis, n)
    if start < 0:
        start += n
    if not (0 <= start < n + 1):
        raise AxisError(f"'start' arg requires {-n} <= start < {n + 1}, but {start} was passed in")
    if axis < start:
        start -= 1
    axes = list(range(n))
    axes.remove(axis)
    axes.insert(start, axis)
    return _core.transpose(a, tuple(axes))


def permute_dims(a, axes=None):
    a = _asarray(a)
    if axes is None:
        return a.transpose()
    axes = tuple(axes)
    if len(axes) == a.ndim:
        norm = [normalize_axis_index(operator.index(ax), a.ndim) for ax in axes]
        if len(set(norm)) != len(norm):
            raise ValueError("repeated axis in transpose")
    return a.transpose(axes)


def matrix_transpose(x, /):
    x = _asarray(x)
    if x.ndim < 2:
        raise ValueError(f"Input array must be at least 2-dimensional, but it is {x.ndim}")
    return swapaxes(x, -1, -2)


# ---- reversed, rotated, diagonal ----------------------------------------------------------------

def flip(m, axis=None):
    m = _asarray(m)
    axes = range(m.ndim) if axis is None else normalize_axis_tuple(axis, m.ndim)
    return _flipped(m, axes)


def fliplr(m):
    m = _asarray(m)
    if m.ndim < 2:
        raise ValueError("Input must be >= 2-d.")
    return _flipped(m, (1,))


def flipud(m):
    m = _asarray(m)
    if m.ndim < 1:
        raise ValueError("Input must be >= 1-d.")
    return _flipped(m, (0,))


def rot90(m, k=1, axes=(0, 1)):
    axes = tuple(axes)
    if len(axes) != 2:
        raise ValueError("len(axes) must be 2.")
    m = _asarray(m)
    if axes[0] == axes[1] or abs(axes[0] - axes[1]) == m.ndim:
        raise ValueError("Axes must be different.")
    if axes[0] >= m.ndim or axes[0] < -m.ndim or axes[1] >= m.ndim or axes[1] < -m.ndim:
        raise ValueError(f"Axes={axes} out of range for array of ndim={m.ndim}.")
    a0, a1 = axes[0] % m.ndim, axes[1] % m.ndim
    k %= 4
    if k == 0:
        return m[...]
    if k == 2:
        return _flipped(m, (a0, a1))
    perm = list(range(m.ndim))
    perm[a0], perm[a1] = perm[a1], perm[a0]
    if k == 1:
        return _core.transpose(_flipped(m, (a1,)), tuple(perm))
    return _flipped(_core.transpose(m, tuple(perm)), (a1,))


def diagonal(a, offset=0, axis1=0, axis2=1):
    a = _asarray(a)
    if a.ndim < 2:
        raise ValueError("diag requires an array of at least two dimensions")
    a1 = normalize_axis_index(axis1, a.ndim, "axis1")
    a2 = normalize_axis_index(axis2, a.ndim, "axis2")
    if a1 == a2:
        raise ValueError("axis1 and axis2 cannot be the same")
    return _core.diagonal(a, operator.index(offset), a1, a2)


def _linalg_diagonal(x, /, *, offset=0):
    return diagonal(x, offset, -2, -1)


# ---- components ---------------------------------------------------------------------------------

def _component(val, name):
    if isinstance(val, (int, float, complex, _np.generic)):
        return getattr(val, name)         # NumPy: val.real of a scalar is its own
    return getattr(_asarray(val), name)   # the attribute: a view of complex arrays


def real(val):
    return _component(val, "real")


def imag(val):
    return _component(val, "imag")


# ---- lists of views -----------------------------------------------------------------------------

def array_split(ary, indices_or_sections, axis=0):
    ary = _asarray(ary)
    total = ary.shape[axis]
    axis = normalize_axis_index(axis, ary.ndim)
    try:
        n = len(indices_or_sections) + 1
        points = [0] + [operator.index(i) for i in indices_or_sections] + [total]
    except TypeError:
        n = int(indices_or_sections)
        if n <= 0:
            raise ValueError("number sections must be larger than 0.") from None
        each, extras = divmod(total, n)
        sizes = [0] + extras * [each + 1] + (n - extras) * [each]
        points = [sum(sizes[:i + 1]) for i in range(len(sizes))]
    return [_along(ary, axis, points[i], points[i + 1]) for i in range(n)]


def split(ary, indices_or_sections, axis=0):
    try:
        len(indices_or_sections)
    except TypeError:
        sections = indices_or_sections
        n = _asarray(ary).shape[axis]
        if n % sections:
            raise ValueError("array split does not result in an equal division") from None
    return array_split(ary, indices_or_sections, axis)


def hsplit(ary, indices_or_sections):
    ary = _asarray(ary)
    if ary.ndim == 0:
        raise ValueError("hsplit only works on arrays of 1 or more dimensions")
    return split(ary, indices_or_sections, 1 if ary.ndim > 1 else 0)


def vsplit(ary, indices_or_sections):
    ary = _asarray(ary)
    if ary.ndim < 2:
        raise ValueError("vsplit only works on arrays of 2 or more dimensions")
    return split(ary, indices_or_sections, 0)


def dsplit(ary, indices_or_sections):
    ary = _asarray(ary)
    if ary.ndim < 3:
        raise ValueError("dsplit only works on arrays of 3 or more dimensions")
    return split(ary, indices_or_sections, 2)


def unstack(x, /, *, axis=0):
    x = _asarray(x)
    if x.ndim == 0:
        raise ValueError("Input array must be at least 1-d.")
    m = moveaxis(x, axis, 0)
    return tuple(m[i] for i in range(m.shape[0]))


NAMES = ("squeeze expand_dims atleast_1d atleast_2d atleast_3d broadcast_arrays swapaxes "
         "moveaxis rollaxis permute_dims matrix_transpose flip fliplr flipud rot90 diagonal "
         "array_split split hsplit vsplit dsplit unstack real imag").split()


# ---- ndarray: flags, squeeze, diagonal, view ----------------------------------------------------

# The arrays whose WRITEABLE flag the user cleared (flagsobj.writeable), by id (arrays are not
# hashable), each entry dropped with its array.
_locked = {}


def _lock(a):
    key = id(a)
    _locked[key] = weakref.ref(a, lambda _, key=key: _locked.pop(key, None))


class flagsobj:
    """NumPy's ndarray.flags of a cupynum array: contiguity from the view's strides in its store
    (NumPy's rule, size-1 dimensions ignored), WRITEABLE false for read-only views (broadcast_to,
    diagonal).  OWNDATA is True (cupynum arrays have no base); setting WRITEABLE to False makes
    the array read-only (other views of its store stay writable, as in NumPy); setting it back
    to True is refused while another array viewing all of the store is one the user made
    read-only (NumPy's base that is not writeable)."""

    _KEYS = {"C": "c_contiguous", "C_CONTIGUOUS": "c_contiguous", "CONTIGUOUS": "c_contiguous",
             "F": "f_contiguous", "F_CONTIGUOUS": "f_contiguous", "FORTRAN": "f_contiguous",
             "O": "owndata", "OWNDATA": "owndata", "W": "writeable", "WRITEABLE": "writeable",
             "A": "aligned", "ALIGNED": "aligned", "X": "writebackifcopy",
             "WRITEBACKIFCOPY": "writebackifcopy", "B": "behaved", "BEHAVED": "behaved",
             "CA": "carray", "CARRAY": "carray", "FA": "farray", "FARRAY": "farray",
             "FNC": "fnc", "FORC": "forc"}
    __slots__ = ("_a",)

    def __init__(self, a):
        object.__setattr__(self, "_a", a)

    def _contig(self, order):
        # NumPy's rule on the view's strides in its store (size-1 dimensions ignored), in C
        return _core.contiguous(self._a, order == "F")

    c_contiguous = property(lambda self: self._contig("C"))
    f_contiguous = property(lambda self: self._contig("F"))
    contiguous = c_contiguous
    fortran = f_contiguous
    owndata = property(lambda self: True)
    aligned = property(lambda self: True)
    writebackifcopy = property(lambda self: False)
    behaved = property(lambda self: self.writeable)
    carray = property(lambda self: self.writeable and self.c_contiguous)
    farray = property(lambda self: self.writeable and self.f_contiguous and not self.c_contiguous)
    fnc = property(lambda self: self.f_contiguous and not self.c_contiguous)
    forc = property(lambda self: self.f_contiguous or self.c_contiguous)
    num = property(lambda self: (self.c_contiguous | self.f_contiguous << 1 | self.owndata << 2
                                 | self.aligned << 8 | self.writeable << 10))

    @property
    def writeable(self):
        return not _core.readonly(self._a)

    @writeable.setter
    def writeable(self, value):
        a = self._a
        if bool(value) == self.writeable:
            return
        from ._ndarray import _Adopt
        if not value:
            a.shape = _Adopt(_core.broadcast_to(a, a.shape))   # the same map, read-only
            _lock(a)
            return
        # NumPy allows it when the array's base (the array owning the data) is writeable.
        # cupynum arrays have no base: the data's owner is read-only when an array the user made
        # read-only, other than this one, views all of the same store.
        _locked.pop(id(a), None)
        others = [r() for r in list(_locked.values())]
        if any(b is not None and _core._shares_store(a, b) and _core.covers_store(b) for b in others):
            raise ValueError("cannot set WRITEABLE flag to True of this array")
        a.shape = _Adopt(_core.writeable_view(a))

    def __setattr__(self, name, value):
        if name == "writeable":
            flagsobj.writeable.fset(self, value)
        elif name == "aligned" and value or name == "writebackifcopy" and not value:
            pass
        elif name in ("aligned", "writebackifcopy"):
            raise ValueError(f"cannot set {name.upper()} flag to {bool(value)} of this array")
        else:
            raise AttributeError(f"attribute '{name}' of 'numpy.flagsobj' objects is not "
                                 f"writable")

    def __getitem__(self, key):
        try:
            return getattr(self, self._KEYS[key])
        except KeyError:
            raise KeyError("Unknown flag") from None

    def __setitem__(self, key, value):
        name = self._KEYS.get(key)
        if name is None:
            raise KeyError("Unknown flag")
        setattr(self, name, value)

    def __eq__(self, other):
        names = ("c_contiguous", "f_contiguous", "owndata", "writeable", "aligned",
                 "writebackifcopy")
        if isinstance(other, (flagsobj, _np._core.multiarray.flagsobj)):
            return all(getattr(self, n) == getattr(other, n) for n in names)
        return NotImplemented

    __hash__ = None

    def __repr__(self):
        return "".join(f"  {k} : {getattr(self, v)}\n" for k, v in (
            ("C_CONTIGUOUS", "c_contiguous"), ("F_CONTIGUOUS", "f_contiguous"),
            ("OWNDATA", "owndata"), ("WRITEABLE", "writeable"), ("ALIGNED", "aligned"),
            ("WRITEBACKIFCOPY", "writebackifcopy")))[:-1]


def install(cls, namespace, implemented):
    """Put the view functions into cupynum's namespace (and numpy.linalg's names into
    cupynum.linalg), route NumPy's functions to them (__array_function__), and give ndarray its
    view methods and flags (replacing the fallbacks installed before)."""
    g = globals()
    for n in NAMES:
        # a NumPy subclass (masked array, matrix) or a dtype cupynum lacks: NumPy's own function,
        # which keeps the subclass, as the fallback did
        g[n] = _fallback.numpy_for_foreign(getattr(_np, n))(g[n])
        namespace[n] = g[n]
        implemented[getattr(_np, n)] = g[n]
    from . import linalg
    linalg.matrix_transpose = matrix_transpose
    linalg.diagonal = _linalg_diagonal
    implemented[_np.linalg.matrix_transpose] = matrix_transpose
    implemented[_np.linalg.diagonal] = _linalg_diagonal
    fallback_view = cls.view
    _VIEW_CHARS = frozenset("?bhilqBHILQefdFD")

    def view(self, dtype=None, type=None):
        """A view with the same dtype is a new array on the same store, one of another dtype
        the same bytes reinterpreted (a view too: of another size through the store's flat
        alias in that dtype, with NumPy's rules for the last axis); a type, or an offset or
        stride that is not whole elements of the new dtype, falls back to NumPy (a copy)."""
        try:
            same = type is None and (dtype is None or _np.dtype(dtype) == self.dtype)
            other = None if same or type is not None else _np.dtype(dtype)
        except TypeError:    # a.view(ndarray_subclass)
            same, other = False, None
        if same:
            return _core.reshape(self, self.shape)
        if other is not None and other.isnative and other.char in _VIEW_CHARS and \
                other.fields is None and self.dtype.char in _VIEW_CHARS:
            if other.itemsize == self.dtype.itemsize:
                return _core.reinterpret(self, other)
            # NumPy's rules for another size, then its bytes as the new dtype (a view too)
            if self.ndim == 0:
                raise ValueError("Changing the dtype of a 0d array is only supported if the "
                                 "itemsize is unchanged")
            if self.shape[-1] != 1 and _core.layout(self)[-1] != self.dtype.itemsize:
                raise ValueError("To change to a dtype of a different size, the last axis must "
                                 "be contiguous")
            if self.shape[-1] * self.dtype.itemsize % other.itemsize:
                raise ValueError("When changing to a larger dtype, its size must be a divisor of "
                                 "the total size in bytes of the last axis of the array.")
            r = _core.retype(self, other)
            if r is not None:
                return r
        args = (dtype,) if type is None else (dtype, type)
        _fallback.note("numpy.ndarray.view", 1)    # (the fallback's own note sees cupynum)
        return fallback_view(self, *args)

    def swapaxes_method(self, axis1, axis2):
        return swapaxes(self, axis1, axis2)

    fallback_getfield, fallback_setfield = cls.getfield, cls.setfield

    def _field(self, dtype, offset):
        """The view getfield(dtype, offset) is where cupynum can express it (the whole element
        reinterpreted, or a complex element's real or imaginary half), else None.  NumPy's
        checks and messages first."""
        dt = _np.dtype(dtype)
        offset = operator.index(offset)
        if offset < 0:
            raise ValueError("offset is negative")
        if offset + dt.itemsize > self.dtype.itemsize:
            raise ValueError("new type is larger than original type" if offset == 0 else
                             "new type plus offset is larger than original type")
        if not dt.isnative or dt.char not in _VIEW_CHARS:
            return None
        if dt.itemsize == self.dtype.itemsize:
            return view(self, dt)
        half = self.dtype.itemsize // 2
        if self.dtype.kind == "c" and dt.itemsize == half and offset in (0, half):
            return view(self.real if offset == 0 else self.imag, dt)
        return None

    def getfield(self, dtype, offset=0):
        f = _field(self, dtype, offset)
        if f is None:
            _fallback.note("numpy.ndarray.getfield", 1)
            return fallback_getfield(self, dtype, offset)
        return f

    def setfield(self, val, dtype, offset=0):
        f = _field(self, dtype, offset)
        if f is None:
            _fallback.note("numpy.ndarray.setfield", 1)
            return fallback_setfield(self, val, dtype, offset)
        f[...] = val
        return None

    def setflags(self, write=None, align=None, uic=None):
        f = flagsobj(self)
        if write is not None:
            f.writeable = write
        if align is not None:
            f.aligned = align
        if uic is not None and uic:
            raise ValueError("cannot set WRITEBACKIFCOPY flag to True")

    def to_device(self, device, /, *, stream=None):
        """Arrays live on the host as far as the array API is concerned (NumPy's answer)."""
        if stream is not None:
            raise ValueError("The stream argument in to_device() is not supported")
        if not isinstance(device, str):
            got = "None" if device is None else type(device).__name__
            raise TypeError(f"to_device() argument 1 must be str, not {got}")
        if device != "cpu":
            raise ValueError(f"Unsupported device: {device}. Only 'cpu' is accepted.")
        return self

    methods = {
        "squeeze": lambda self, axis=None: squeeze(self, axis),
        "diagonal": lambda self, offset=0, axis1=0, axis2=1: diagonal(self, offset, axis1, axis2),
        "swapaxes": swapaxes_method,
        "view": view,
        "flags": property(flagsobj, doc=flagsobj.__doc__),
        "getfield": getfield,
        "setfield": setfield,
        "setflags": setflags,
        "to_device": to_device,
        "device": property(lambda self: "cpu", doc=_np.ndarray.device.__doc__),
    }
    for name, f in methods.items():
        if callable(f) and not isinstance(f, property):
            f.__name__ = name
            f.__qualname__ = "ndarray." + name
            f.__doc__ = f.__doc__ or getattr(_np.ndarray, name).__doc__
        setattr(cls, name, f)
