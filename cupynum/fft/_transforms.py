"""numpy.fft's transforms over the runtime's fft op (csrc/kernels/fft.c, on FFTW3).

Every transform is NumPy's: its dtypes (float16/float32/complex64 in single precision, the rest
in double; float16 results of irfft/hfft cast back), its `n`/`s` (input cropped or zero-padded,
as views and one copy), `axes`, `norm` and `out=`.  A 1-D transform is one fft op batched over the
other axes; fftn/ifftn and the complex axes of rfftn/irfftn are one multi-dimensional op (the same
DFT NumPy computes axis by axis).  Errors are NumPy's own: a call cupynum cannot take is repeated
on empty stand-ins of the operands (no data moves), so NumPy raises its exact message, and
nothing is written.  fftfreq/rfftfreq/fftshift/ifftshift are arange and slice copies."""

import math
import operator
import warnings

import numpy as _np

from .. import _core
from .._ndarray import ndarray
from .._products import _numpy_raises

_npfft = _np.fft

# enum cpn_fft_kind (csrc/base/op.h)
_C2C_FORWARD, _C2C_BACKWARD, _R2C, _C2R = 0, 1, 2, 3

_NORMS = (None, "backward", "ortho", "forward")
_SINGLE = (_np.dtype(_np.float16), _np.dtype(_np.float32), _np.dtype(_np.complex64))


def _asarray(a):
    return a if isinstance(a, ndarray) else _core.from_any(a)


def _cdt(dt):
    """The complex dtype NumPy's pocketfft computes an operand of dtype dt in."""
    return _np.dtype(_np.complex64) if dt in _SINGLE else _np.dtype(_np.complex128)


def _real_out(dt):
    """NumPy's dtype of an irfft of an operand of dtype dt: result_type(dt.real, 1.0)."""
    if dt == _np.float16:
        return _np.dtype(_np.float16)
    return _np.dtype(_np.float32) if dt in _SINGLE else _np.dtype(_np.float64)


def _scale(norm, ns, forward, dt, later=None):
    """NumPy's factor for transforms of lengths ns: each axis's factor rounded to the real dtype
    NumPy computes it in (result_type(dt.real, 1.0): float16 for float16), dt the dtype of the
    first axis NumPy transforms and `later` that of the others (its first result's)."""
    if not forward:
        norm = {"backward": "forward", None: "forward", "ortho": "ortho", "forward": "backward"}[norm]
    if norm is None or norm == "backward":
        return 1.0
    f = 1.0
    for i, n in enumerate([ns] if isinstance(ns, int) else ns):
        rdt = _real_out(dt if i == 0 or later is None else later).type
        f *= float(_np.reciprocal(_np.sqrt(n, dtype=rdt)) if norm == "ortho" else _np.reciprocal(n, dtype=rdt))
    return f


def _fit(a, axis, m):
    """a cropped (a view) or zero-padded (a copy) to length m along axis."""
    have = a.shape[axis]
    if have == m:
        return a
    idx = [slice(None)] * a.ndim
    if have > m:
        idx[axis] = slice(0, m)
        return a[tuple(idx)]
    shape = list(a.shape)
    shape[axis] = m
    r = _zeros(shape, a.dtype)
    idx[axis] = slice(0, have)
    r[tuple(idx)] = a
    return r


def _zeros(shape, dtype):
    from .. import zeros
    return zeros(tuple(shape), dtype)


def _deliver(f, r, out, args, kwargs):
    """Write r into out (NumPy's out= rules: the result's shape, same_kind casting); r itself
    without out."""
    if out is None:
        return r
    ok = tuple(getattr(out, "shape", ())) == tuple(r.shape) and \
        _np.can_cast(r.dtype, getattr(out, "dtype", None) or _np.dtype(object), "same_kind")
    if isinstance(out, _np.ndarray) and ok:
        out[...] = _core.to_numpy(r)
        return out
    if not isinstance(out, ndarray) or not ok:
        kw = dict(kwargs)
        kw["out"] = _np.empty(out.shape, out.dtype) if hasattr(out, "shape") else out
        _numpy_raises(f, *args, **kw)
    _core.assign(out, r)
    return out


def _whole_c_order(a):
    """Is a partitioned operand a whole C-order store, as distfft.c transforms it in place of
    gathering?  (Replicated ones are transformed locally in any layout.)  Local."""
    return not _core._tiling(a)["tiled"] or (a.flags.c_contiguous and _core._byte_offset(a) == 0)


def _op(a, kind, axes, n, scale):
    # A partitioned view in another layout (Fortran order, reversed, sliced) is copied into a C-order
    # store first, so it takes the same distributed plan, transforming its dimensions in the
    # same order and rounding alike, as a C-order operand with its values (the gathered path
    # runs a single multi-dimensional plan instead: ~1e-14 apart at near-zero outputs)
    if not _whole_c_order(a):
        a = a.copy()
    return _core.fft(a, kind, tuple(axes), n, scale)


# ---- 1-D ----------------------------------------------------------------------------------------

def _prepare_1d(f, a, n, axis, norm, out, inverse_norm_first=False):
    """NumPy's checks of a 1-D transform: (array, n, axis) or NumPy raises."""
    a = _asarray(a)
    try:
        ax = operator.index(axis)
        if not -a.ndim <= ax < a.ndim:
            raise IndexError
        ax %= a.ndim
        nn = a.shape[ax] if n is None else operator.index(n)
        if nn < 1 or norm not in _NORMS:
            raise ValueError
    except (TypeError, IndexError, ValueError):
        _numpy_raises(f, a, n, axis, norm)
    return a, nn, ax


def _c2c(f, a, n, axis, norm, out, forward):
    args = (a, n, axis, norm)
    a, n, ax = _prepare_1d(f, a, n, axis, norm, out)
    cdt = _cdt(a.dtype)
    x = _fit(a, ax, n).astype(cdt, copy=False)
    r = _op(x, _C2C_FORWARD if forward else _C2C_BACKWARD, (ax,), 0, _scale(norm, n, forward, a.dtype))
    return _deliver(f, r, out, args, {})


def fft(a, n=None, axis=-1, norm=None, out=None):
    """numpy.fft.fft."""
    return _c2c(_npfft.fft, a, n, axis, norm, out, True)


def ifft(a, n=None, axis=-1, norm=None, out=None):
    """numpy.fft.ifft."""
    return _c2c(_npfft.ifft, a, n, axis, norm, out, False)


def _rfft(f, a, n, axis, norm, forward):
    a, n, ax = _prepare_1d(f, a, n, axis, norm, None)
    if a.dtype.kind == "c":
        _numpy_raises(f, a, n, axis, norm)
    rdt = _cdt(a.dtype).type(0).real.dtype
    x = _fit(a, ax, n).astype(rdt, copy=False)
    return _op(x, _R2C, (ax,), 0, _scale(norm, n, forward, a.dtype))


def rfft(a, n=None, axis=-1, norm=None, out=None):
    """numpy.fft.rfft."""
    args = (a, n, axis, norm)
    return _deliver(_npfft.rfft, _rfft(_npfft.rfft, a, n, axis, norm, True), out, args, {})


def _irfft(f, a, n, axis, norm, forward, conj=False):
    a = _asarray(a)
    try:
        ax = operator.index(axis)
        if not -a.ndim <= ax < a.ndim:
            raise IndexError
        ax %= a.ndim
        nn = (a.shape[ax] - 1) * 2 if n is None else operator.index(n)
        if nn < 1 or norm not in _NORMS:
            raise ValueError
    except (TypeError, IndexError, ValueError):
        _numpy_raises(f, a, n, axis, norm)
    odt = _real_out(a.dtype)
    x = _fit(a, ax, nn // 2 + 1).astype(_cdt(a.dtype), copy=False)
    if conj:
        from .. import conjugate
        x = conjugate(x)
    r = _op(x, _C2R, (ax,), nn, _scale(norm, nn, forward, a.dtype))
    return r if r.dtype == odt else r.astype(odt)


def irfft(a, n=None, axis=-1, norm=None, out=None):
    """numpy.fft.irfft."""
    args = (a, n, axis, norm)
    return _deliver(_npfft.irfft, _irfft(_npfft.irfft, a, n, axis, norm, False), out, args, {})


def hfft(a, n=None, axis=-1, norm=None, out=None):
    """numpy.fft.hfft: irfft of the conjugate, the normalisation's direction swapped."""
    # NumPy 2's hfft ignores out= (it passes out=None on): so does this, returning a new array
    return _irfft(_npfft.hfft, a, n, axis, norm, True, conj=True)


def ihfft(a, n=None, axis=-1, norm=None, out=None):
    """numpy.fft.ihfft: the conjugate of rfft, the normalisation's direction swapped."""
    from .. import conjugate
    args = (a, n, axis, norm)
    r = conjugate(_rfft(_npfft.ihfft, a, n, axis, norm, False))
    return _deliver(_npfft.ihfft, r, out, args, {})


# ---- n-D ----------------------------------------------------------------------------------------

def _cook(f, a, s, axes, norm, invreal=False):
    """NumPy's _cook_nd_args and checks: (s, axes) as lists, axes normalised; NumPy raises on
    what it rejects (s/axes lengths, axes out of range, s < 1, norm)."""
    try:
        if s is None:
            shapeless = True
            if axes is None:
                s = list(a.shape)
            else:
                s = [a.shape[operator.index(ax)] for ax in axes]
        else:
            shapeless = False
        s = list(s)
        if axes is None:
            if not shapeless:
                warnings.warn(
                    "`axes` should not be `None` if `s` is not `None` (Deprecated in NumPy 2.0). In "
                    "a future version of NumPy, this will raise an error and `s[i]` will correspond "
                    "to the size along the transformed axis specified by `axes[i]`. To retain "
                    "current behaviour, pass a sequence [0, ..., k-1] to `axes` for an array of "
                    "dimension k.", DeprecationWarning, stacklevel=4)
            axes = list(range(-len(s), 0))
        axes = [operator.index(ax) for ax in axes]
        if len(s) != len(axes):
            raise ValueError
        if invreal and shapeless:
            s[-1] = (a.shape[axes[-1]] - 1) * 2
        if None in s:
            warnings.warn(
                "Passing an array containing `None` values to `s` is deprecated in NumPy 2.0 and "
                "will raise an error in a future version of NumPy. To use the default behaviour of "
                "the corresponding 1-D transform, pass the value matching the default for its `n` "
                "parameter. To use the default behaviour for every axis, the `s` argument can be "
                "omitted.", DeprecationWarning, stacklevel=4)
            # None: the 1-D transform's default n (irfft's (m - 1) * 2 on the last axis)
            s = [((a.shape[ax] - 1) * 2 if invreal and i == len(s) - 1 else a.shape[ax])
                 if sz is None else sz for i, (sz, ax) in enumerate(zip(s, axes))]
        s = [a.shape[ax] if operator.index(sz) == -1 else operator.index(sz) for sz, ax in zip(s, axes)]
        for ax in axes:
            if not -a.ndim <= ax < a.ndim:
                raise IndexError
        axes = [ax % a.ndim for ax in axes]
        if any(sz < 1 for sz in s) or norm not in _NORMS:
            raise ValueError
    except (TypeError, IndexError, ValueError):
        return None
    return s, axes


def _nd_numpy(f, a, s, axes, norm, out):
    """NumPy's own call on stand-ins: raises its error (or warns and raises)."""
    _numpy_raises(f, a, s, axes, norm)


def _c2cn(f, a, s, axes, norm, out, forward):
    args = (a, s, axes, norm)
    a = _asarray(a)
    cooked = _cook(f, a, s, axes, norm)
    if cooked is None:
        _nd_numpy(f, a, s, axes, norm, out)
    s, axes = cooked
    if not axes:
        return _deliver(f, a, out, args, {})
    cdt = _cdt(a.dtype)
    if len(set(axes)) != len(axes):   # a repeated axis is transformed again: NumPy's order
        x = a
        for ii in range(len(axes) - 1, -1, -1):
            x = _c2c(f, x, s[ii], axes[ii], norm, None, forward)
        return _deliver(f, x, out, args, {})
    x = a
    for sz, ax in zip(s, axes):
        x = _fit(x, ax, sz)
    x = x.astype(cdt, copy=False)
    r = _op(x, _C2C_FORWARD if forward else _C2C_BACKWARD, sorted(axes), 0,
            _scale(norm, s[::-1], forward, a.dtype, cdt))
    return _deliver(f, r, out, args, {})


def fftn(a, s=None, axes=None, norm=None, out=None):
    """numpy.fft.fftn."""
    return _c2cn(_npfft.fftn, a, s, axes, norm, out, True)


def ifftn(a, s=None, axes=None, norm=None, out=None):
    """numpy.fft.ifftn."""
    return _c2cn(_npfft.ifftn, a, s, axes, norm, out, False)


def fft2(a, s=None, axes=(-2, -1), norm=None, out=None):
    """numpy.fft.fft2."""
    return _c2cn(_npfft.fft2, a, s, axes, norm, out, True)


def ifft2(a, s=None, axes=(-2, -1), norm=None, out=None):
    """numpy.fft.ifft2 (which, in NumPy 2, ignores out=: so does this)."""
    return _c2cn(_npfft.ifft2, a, s, axes, norm, None, False)


def _rfftn(f, a, s, axes, norm, out):
    args = (a, s, axes, norm)
    a = _asarray(a)
    cooked = _cook(f, a, s, axes, norm)
    if cooked is None or a.dtype.kind == "c":
        _nd_numpy(f, a, s, axes, norm, out)
    s, axes = cooked
    if not axes:       # NumPy's rfft of no axis: an IndexError of its own
        _nd_numpy(f, a, s, axes, norm, out)
    x = _rfft(_npfft.rfft, a, s[-1], axes[-1], norm, True)
    rest, rs = axes[:-1], s[:-1]
    if rest:
        if len(set(axes)) != len(axes):
            for ii in range(len(rest) - 1, -1, -1):
                x = _c2c(f, x, rs[ii], rest[ii], norm, None, True)
        else:
            for sz, ax in zip(rs, rest):
                x = _fit(x, ax, sz)
            x = _op(x, _C2C_FORWARD, sorted(rest), 0, _scale(norm, rs, True, x.dtype))
    return _deliver(f, x, out, args, {})


def rfftn(a, s=None, axes=None, norm=None, out=None):
    """numpy.fft.rfftn."""
    return _rfftn(_npfft.rfftn, a, s, axes, norm, out)


def rfft2(a, s=None, axes=(-2, -1), norm=None, out=None):
    """numpy.fft.rfft2."""
    return _rfftn(_npfft.rfft2, a, s, axes, norm, out)


def _irfftn(f, a, s, axes, norm, out):
    args = (a, s, axes, norm)
    a = _asarray(a)
    cooked = _cook(f, a, s, axes, norm, invreal=True)
    if cooked is None:
        _nd_numpy(f, a, s, axes, norm, out)
    s, axes = cooked
    if not axes:
        _nd_numpy(f, a, s, axes, norm, out)
    x = a
    rest, rs = axes[:-1], s[:-1]
    if rest:
        if len(set(axes)) != len(axes):
            for ii in range(len(rest)):
                x = _c2c(f, x, rs[ii], rest[ii], norm, None, False)
        else:
            for sz, ax in zip(rs, rest):
                x = _fit(x, ax, sz)
            x = x.astype(_cdt(a.dtype), copy=False)
            x = _op(x, _C2C_BACKWARD, sorted(rest), 0, _scale(norm, rs, False, a.dtype, _cdt(a.dtype)))
    r = _irfft(_npfft.irfft, x, s[-1], axes[-1], norm, False)
    return _deliver(f, r, out, args, {})


def irfftn(a, s=None, axes=None, norm=None, out=None):
    """numpy.fft.irfftn."""
    return _irfftn(_npfft.irfftn, a, s, axes, norm, out)


def irfft2(a, s=None, axes=(-2, -1), norm=None, out=None):
    """numpy.fft.irfft2 (which, in NumPy 2, ignores out=: so does this)."""
    return _irfftn(_npfft.irfft2, a, s, axes, norm, None)


# ---- helpers ------------------------------------------------------------------------------------

def _check_device(f, device):
    if device is not None and device != "cpu":
        f(1, device=device)   # NumPy raises its own error
        raise AssertionError(f"{f.__name__}: NumPy accepted device={device!r}")


def fftfreq(n, d=1.0, device=None):
    """numpy.fft.fftfreq: [0, 1, ..., -(n//2), ..., -1] / (d*n)."""
    from .. import arange, empty
    if not isinstance(n, (int, _np.integer)):
        raise ValueError("n should be an integer")
    _check_device(_npfft.fftfreq, device)
    val = 1.0 / (n * d)
    results = empty(n, int)
    N = (n - 1) // 2 + 1
    results[:N] = arange(0, N, dtype=int)
    results[N:] = arange(-(n // 2), 0, dtype=int)
    return results * val


def rfftfreq(n, d=1.0, device=None):
    """numpy.fft.rfftfreq: [0, 1, ..., n//2] / (d*n)."""
    from .. import arange
    if not isinstance(n, (int, _np.integer)):
        raise ValueError("n should be an integer")
    _check_device(_npfft.rfftfreq, device)
    val = 1.0 / (n * d)
    return arange(0, n // 2 + 1, dtype=int) * val


def _roll(f, x, shifts, axes):
    """np.roll(x, shifts, axes) as slice copies, one axis at a time."""
    from .. import empty
    r = x
    for sh, ax in zip(shifts, axes):
        n = r.shape[ax]
        k = sh % n if n else 0
        if k == 0:
            continue
        o = empty(r.shape, r.dtype)
        lo = [slice(None)] * r.ndim
        hi = [slice(None)] * r.ndim
        lo[ax], hi[ax] = slice(k, None), slice(None, n - k)
        o[tuple(lo)] = r[tuple(hi)]
        lo[ax], hi[ax] = slice(None, k), slice(n - k, None)
        o[tuple(lo)] = r[tuple(hi)]
        r = o
    if r is x:
        from .. import copy
        r = copy(x)
    return r


def _shift(f, x, axes, sign):
    x = _asarray(x)
    try:
        if axes is None:
            ax = list(range(x.ndim))
        elif isinstance(axes, (int, _np.integer)):
            ax = [operator.index(axes)]
        else:
            ax = [operator.index(a) for a in axes]
        for a in ax:
            if not -x.ndim <= a < x.ndim:
                raise IndexError
        ax = [a % x.ndim for a in ax]
    except (TypeError, IndexError, ValueError):
        _numpy_raises(f, x, axes)
    shifts = [sign * (x.shape[a] // 2) for a in ax]
    return _roll(f, x, shifts, ax)


def fftshift(x, axes=None):
    """numpy.fft.fftshift."""
    return _shift(_npfft.fftshift, x, axes, 1)


def ifftshift(x, axes=None):
    """numpy.fft.ifftshift."""
    return _shift(_npfft.ifftshift, x, axes, -1)


NAMES = ("fft ifft rfft irfft hfft ihfft fft2 ifft2 fftn ifftn rfft2 irfft2 rfftn irfftn "
         "fftfreq rfftfreq fftshift ifftshift").split()
