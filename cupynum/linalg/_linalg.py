"""numpy.linalg's factorizations and what is built on them, on LAPACK (csrc/kernels/lapack.c).

Each factorization is one LAPACK op (`_core.lapack`: the runtime's CPN_OPK_LAPACK, batched along
the leading dimensions, run by the executor like any op) on operands cast to NumPy's computing
type (float64 or complex128, as numpy.linalg computes every dtype: float32 in and out, computed
in double), then cast to NumPy's result type.  The op returns its results packed per matrix and
LAPACK's info per matrix; a non-zero info raises LinAlgError with NumPy's message and returns
nothing (the results are new arrays no one else sees, so nothing is written on failure).  The
rest (pinv, matrix_rank, cond, norm, tensorsolve, ...) follows numpy/linalg/_linalg.py line by
line on cupynum's native ops.

Empty matrices (a zero dimension) are NumPy's business: NumPy computes on zero-filled stand-ins
of the shapes (no data moves) and its results come back as cupynum arrays.

Under MPI, cholesky, solve, inv, det/slogdet, eigh/eigvalsh, qr, svd, lstsq and
eig/eigvals of one
partitioned matrix run on ScaLAPACK (csrc/runtime/scalapack.c:
tiles redistributed to block-cyclic and back); a stack partitioned along its batch dimensions is
factored by each rank on its own matrices (no byte sent, the results tiled alike, LAPACK's infos
agreed by `_core.lapack_info`); every other LAPACK op runs on gathered copies (the executor's
gathered path).

On a device backend (the CUDA backend, or CUPYNUM_DEVICE=sim), an op the distributed executor does
not take runs on the device where csrc/runtime/devlapack.h says so (cuSOLVER, cuda/solver.c:
solve, inv, det/slogdet, cholesky, qr, eigh/eigvalsh, svd/svdvals): only aux comes back, when
`_core.lapack_info` reads LAPACK's info."""

import operator

import numpy as _np
from numpy.linalg import LinAlgError

from .. import _core
from .._ndarray import _reshape, _transpose, ndarray

_LA = dict(SOLVE=0, INV=1, SLOGDET=2, CHOLESKY=3, QR=4, EIGH=5, SVD=6, EIG=7, LSTSQ=8)
_QR = dict(reduced=0, complete=1, r=2, raw=3)

try:  # NumPy's result types (named tuples)
    from numpy.linalg._linalg import EigResult, EighResult, QRResult, SlogdetResult, SVDResult
except ImportError:  # pragma: no cover
    from collections import namedtuple
    EigResult = namedtuple("EigResult", "eigenvalues eigenvectors")
    EighResult = namedtuple("EighResult", "eigenvalues eigenvectors")
    QRResult = namedtuple("QRResult", "Q R")
    SlogdetResult = namedtuple("SlogdetResult", "sign logabsdet")
    SVDResult = namedtuple("SVDResult", "U S Vh")


def _cp():
    import cupynum
    return cupynum


def _asarray(a):
    return a if isinstance(a, ndarray) else _core.from_any(a)


# ---- NumPy's checks and types (numpy/linalg/_linalg.py) ---------------------------------------

def _common_type(*arrays):
    """(computing type, result type): float64/complex128, and float32/complex64 when every
    operand is single precision; ints and bool compute as float64."""
    single, cplx = True, False
    for a in arrays:
        dt = _np.dtype(a.dtype)
        if dt.kind in "fc":
            cplx |= dt.kind == "c"
            if dt in (_np.float64, _np.complex128):
                single = False
            elif dt not in (_np.float32, _np.complex64):
                raise TypeError(f"array type {dt.name} is unsupported in linalg")
        elif dt.kind in "biu":
            single = False
        else:
            raise TypeError(f"array type {dt.name} is unsupported in linalg")
    t = _np.dtype(_np.complex128 if cplx else _np.float64)
    r = _np.dtype((_np.complex64 if cplx else _np.float32) if single else t)
    return t, r


def _real(dt):
    return _np.dtype(_np.float32 if dt in (_np.float32, _np.complex64) else _np.float64)


def _complex(dt):
    return _np.dtype(_np.complex64 if dt in (_np.float32, _np.complex64) else _np.complex128)


def _assert_stacked_2d(*arrays):
    for a in arrays:
        if a.ndim < 2:
            raise LinAlgError('%d-dimensional array given. Array must be '
                              'at least two-dimensional' % a.ndim)


def _assert_2d(*arrays):
    for a in arrays:
        if a.ndim != 2:
            raise LinAlgError('%d-dimensional array given. Array must be '
                              'two-dimensional' % a.ndim)


def _assert_stacked_square(*arrays):
    for a in arrays:
        if a.ndim < 2:
            raise LinAlgError('%d-dimensional array given. Array must be '
                              'at least two-dimensional' % a.ndim)
        m, n = a.shape[-2:]
        if m != n:
            raise LinAlgError('Last 2 dimensions of the array must be square')


def _assert_finite(*arrays):
    cp = _cp()
    for a in arrays:
        if not bool(cp.isfinite(a).all()):
            raise LinAlgError("Array must not contain infs or NaNs")


def _empty(a):
    return a.size == 0 or 0 in tuple(a.shape)


def _numpy_on_standins(f, *args, **kwargs):
    """NumPy's answer when an operand has a zero dimension: computed on zero-filled stand-ins of
    the empty operands (no data) and copies of the others (solve of an n x n matrix with no
    right-hand sides still checks the matrix), the results turned into cupynum arrays."""
    def standin(x):
        if not isinstance(x, ndarray):
            return x
        return _np.zeros(x.shape, x.dtype) if _empty(x) else _core.to_numpy(x)
    r = f(*[standin(a) for a in args], **{k: standin(v) for k, v in kwargs.items()})
    return _wrap_numpy(r)


def _wrap_numpy(r):
    if isinstance(r, tuple):
        vals = [_wrap_numpy(x) for x in r]
        return type(r)(*vals) if hasattr(r, "_fields") else type(r)(vals)
    if isinstance(r, _np.ndarray):
        return _core.from_any(r)
    return r


def _cast(a, dt):
    return a if a.dtype == dt else _core.cast(a, dt)


def _deliver(r):
    return _core.to_scalar(r) if isinstance(r, ndarray) and r.ndim == 0 else r


# ---- the LAPACK op ------------------------------------------------------------------------------

def _lapack(code, a, b, out_dtype, L, naux, p0=0, p1=0, rcond=0.0, error=None):
    """One LAPACK routine per matrix of a (..., m, n) [and b (..., m, k)], batch dims broadcast.
    Returns (out (..., L), aux (..., naux)); raises LinAlgError(error) when a matrix's info is
    non-zero."""
    if b is not None:
        batch = _np.broadcast_shapes(tuple(a.shape[:-2]), tuple(b.shape[:-2]))
        if tuple(a.shape[:-2]) != batch:
            a = _core.broadcast_to(a, batch + tuple(a.shape[-2:]))
        if tuple(b.shape[:-2]) != batch:
            b = _core.broadcast_to(b, batch + tuple(b.shape[-2:]))
    out, aux = _core.lapack(_LA[code], a, b, _np.dtype(out_dtype), int(L), int(naux), int(p0),
                            int(p1), float(rcond))
    if error is False:
        return out, aux
    info = _core.lapack_info(aux)   # each rank reads its own tile: no gather
    if info:
        raise LinAlgError(error or f"LAPACK routine {code.lower()} failed (info {info})")
    return out, aux


def _part(out, lo, hi, shape):
    """The packed results out[..., lo:hi] as (..., *shape)."""
    v = out[..., lo:hi]
    return _reshape(v, tuple(out.shape[:-1]) + tuple(shape))


# ---- solve, inv, det, slogdet, cholesky ------------------------------------------------------------

def solve(a, b):
    a, b = _asarray(a), _asarray(b)
    _assert_stacked_square(a)
    t, rt = _common_type(a, b)
    n = a.shape[-1]
    one = b.ndim == 1
    try:
        if one:
            if b.shape[0] != n:
                raise ValueError
            batch = tuple(a.shape[:-2])
        else:
            if b.shape[-2] != n:
                raise ValueError
            batch = _np.broadcast_shapes(tuple(a.shape[:-2]), tuple(b.shape[:-2]))
    except ValueError:
        _np.linalg.solve(_np.broadcast_to(_np.zeros((), a.dtype), a.shape),
                         _np.broadcast_to(_np.zeros((), b.dtype), b.shape))
        raise
    B = _reshape(b, (n, 1)) if one else b
    if _empty(a) or _empty(B) or 0 in batch:
        return _numpy_on_standins(_np.linalg.solve, a, b)
    if one and batch:
        B = _core.broadcast_to(B, batch + (n, 1))
    k = B.shape[-1]
    out, _ = _lapack("SOLVE", _cast(a, t), _cast(B, t), t, n * k, 1, error="Singular matrix")
    x = _part(out, 0, n * k, (n, k))
    if one:
        x = _reshape(x, tuple(x.shape[:-1]))
    return _cast(x, rt)


def inv(a):
    a = _asarray(a)
    _assert_stacked_square(a)
    t, rt = _common_type(a)
    if _empty(a):
        return _numpy_on_standins(_np.linalg.inv, a)
    n = a.shape[-1]
    out, _ = _lapack("INV", _cast(a, t), None, t, n * n, 1, error="Singular matrix")
    return _cast(_part(out, 0, n * n, (n, n)), rt)


def _slogdet(a):
    t, rt = _common_type(a)
    out, aux = _lapack("SLOGDET", _cast(a, t), None, t, 1, 2)
    return out[..., 0], aux[..., 1], t, rt


def slogdet(a):
    a = _asarray(a)
    _assert_stacked_square(a)
    _common_type(a)
    if _empty(a):
        return _numpy_on_standins(_np.linalg.slogdet, a)
    sign, logdet, t, rt = _slogdet(a)
    return SlogdetResult(_deliver(_cast(sign, rt)), _deliver(_cast(logdet, _real(rt))))


def det(a):
    a = _asarray(a)
    _assert_stacked_square(a)
    _common_type(a)
    if _empty(a):
        return _numpy_on_standins(_np.linalg.det, a)
    cp = _cp()
    sign, logdet, t, rt = _slogdet(a)
    r = _asarray(cp.multiply(sign, cp.exp(logdet)))
    return _deliver(_cast(r, rt))


def cholesky(a, /, *, upper=False):
    a = _asarray(a)
    _assert_stacked_square(a)
    t, rt = _common_type(a)
    if _empty(a):
        return _numpy_on_standins(_np.linalg.cholesky, a, upper=upper)
    n = a.shape[-1]
    out, _ = _lapack("CHOLESKY", _cast(a, t), None, t, n * n, 1, p0=bool(upper),
                     error="Matrix is not positive definite")
    return _cast(_part(out, 0, n * n, (n, n)), rt)


# ---- qr -------------------------------------------------------------------------------------------

def qr(a, mode="reduced"):
    import warnings
    if mode not in ("reduced", "complete", "r", "raw"):
        if mode in ("f", "full"):
            warnings.warn("The 'full' option is deprecated in favor of 'reduced'.\n"
                          "For backward compatibility let mode default.", DeprecationWarning, stacklevel=2)
            mode = "reduced"
        elif mode in ("e", "economic"):
            warnings.warn("The 'economic' option is deprecated.", DeprecationWarning, stacklevel=2)
            mode = "economic"
        else:
            raise ValueError(f"Unrecognized mode '{mode}'")
    a = _asarray(a)
    _assert_stacked_2d(a)
    m, n = a.shape[-2:]
    t, rt = _common_type(a)
    if _empty(a):
        import warnings as _w
        with _w.catch_warnings():
            _w.simplefilter("ignore", DeprecationWarning)
            return _numpy_on_standins(_np.linalg.qr, a, mode=("e" if mode == "economic" else mode))
    k = min(m, n)
    A = _cast(a, t)
    if mode in ("raw", "economic"):
        out, _ = _lapack("QR", A, None, t, m * n + k, 1, p0=_QR["raw"])
        h = _part(out, 0, m * n, (n, m))
        if mode == "economic":
            return _cast(_cp().matrix_transpose(h), rt)
        return _cast(h, rt), _cast(out[..., m * n:m * n + k], rt)
    if mode == "r":
        out, _ = _lapack("QR", A, None, t, k * n, 1, p0=_QR["r"])
        return _cast(_part(out, 0, k * n, (k, n)), rt)
    qc = m if mode == "complete" else k
    out, _ = _lapack("QR", A, None, t, m * qc + qc * n, 1, p0=_QR[mode])
    q = _part(out, 0, m * qc, (m, qc))
    r = _part(out, m * qc, m * qc + qc * n, (qc, n))
    return QRResult(_cast(q, rt), _cast(r, rt))


# ---- eigenvalues ------------------------------------------------------------------------------------

def _uplo(UPLO):
    UPLO = UPLO.upper()
    if UPLO not in ("L", "U"):
        raise ValueError("UPLO argument must be 'L' or 'U'")
    return UPLO == "U"


def eigh(a, UPLO="L"):
    upper = _uplo(UPLO)
    a = _asarray(a)
    _assert_stacked_square(a)
    t, rt = _common_type(a)
    if _empty(a):
        return _numpy_on_standins(_np.linalg.eigh, a, UPLO=UPLO)
    n = a.shape[-1]
    out, aux = _lapack("EIGH", _cast(a, t), None, t, n * n, 1 + n, p0=upper, p1=1,
                       error="Eigenvalues did not converge")
    w = _cast(aux[..., 1:1 + n], _real(rt))
    return EighResult(w, _cast(_part(out, 0, n * n, (n, n)), rt))


def eigvalsh(a, UPLO="L"):
    upper = _uplo(UPLO)
    a = _asarray(a)
    _assert_stacked_square(a)
    t, rt = _common_type(a)
    if _empty(a):
        return _numpy_on_standins(_np.linalg.eigvalsh, a, UPLO=UPLO)
    n = a.shape[-1]
    _, aux = _lapack("EIGH", _cast(a, t), None, t, 1, 1 + n, p0=upper, p1=0,
                     error="Eigenvalues did not converge")
    return _cast(aux[..., 1:1 + n], _real(rt))


def _eig(a, vectors):
    a = _asarray(a)
    _assert_stacked_square(a)
    _assert_finite(a)
    t, rt = _common_type(a)
    if _empty(a):
        return None, a, t, rt
    n = a.shape[-1]
    ct = _complex(t)
    out, _ = _lapack("EIG", _cast(a, t), None, ct, n + (n * n if vectors else 0), 1, p1=vectors,
                     error="Eigenvalues did not converge")
    w = out[..., :n]
    v = _part(out, n, n + n * n, (n, n)) if vectors else None
    return w, v, t, rt


def eig(a):
    w, v, t, rt = _eig(a, True)
    if w is None:
        return _numpy_on_standins(_np.linalg.eig, v)
    if t.kind != "c" and not bool(_cp().any(w.imag != 0)):
        return EigResult(_cast(w.real, _real(rt)), _cast(v.real, _real(rt)))
    return EigResult(_cast(w, _complex(rt)), _cast(v, _complex(rt)))


def eigvals(a):
    w, v, t, rt = _eig(a, False)
    if w is None:
        return _numpy_on_standins(_np.linalg.eigvals, v)
    if t.kind != "c" and not bool(_cp().any(w.imag != 0)):
        return _cast(w.real, _real(rt))
    return _cast(w, _complex(rt))


# ---- svd and what is built on it ------------------------------------------------------------------

def svd(a, full_matrices=True, compute_uv=True, hermitian=False):
    cp = _cp()
    a = _asarray(a)
    if hermitian:
        if compute_uv:
            s, u = eigh(a)
            sgn = cp.copysign(1.0, s)
            s = cp.abs(s)
            sidx = cp.argsort(s)[..., ::-1]
            sgn = cp.take_along_axis(sgn, sidx, axis=-1)
            s = cp.take_along_axis(s, sidx, axis=-1)
            u = cp.take_along_axis(u, sidx[..., None, :], axis=-1)
            vt = cp.conjugate(cp.matrix_transpose(u * sgn[..., None, :]))
            return SVDResult(u, s, vt)
        s = cp.abs(eigvalsh(a))
        return cp.sort(s)[..., ::-1]
    _assert_stacked_2d(a)
    t, rt = _common_type(a)
    if _empty(a):
        return _numpy_on_standins(_np.linalg.svd, a, full_matrices=full_matrices, compute_uv=compute_uv)
    m, n = a.shape[-2:]
    k = min(m, n)
    if not compute_uv:
        _, aux = _lapack("SVD", _cast(a, t), None, t, 1, 1 + k, p0=0, p1=0, error="SVD did not converge")
        return _cast(aux[..., 1:1 + k], _real(rt))
    uc, vr = (m, n) if full_matrices else (k, k)
    out, aux = _lapack("SVD", _cast(a, t), None, t, m * uc + vr * n, 1 + k, p0=bool(full_matrices), p1=1,
                       error="SVD did not converge")
    u = _part(out, 0, m * uc, (m, uc))
    vh = _part(out, m * uc, m * uc + vr * n, (vr, n))
    return SVDResult(_cast(u, rt), _cast(aux[..., 1:1 + k], _real(rt)), _cast(vh, rt))


def svdvals(x, /):
    return svd(x, compute_uv=False, hermitian=False)


def lstsq(a, b, rcond=None):
    a, b = _asarray(a), _asarray(b)
    is_1d = b.ndim == 1
    if is_1d:
        b = _reshape(b, (b.shape[0], 1))
    _assert_2d(a, b)
    m, n = a.shape[-2:]
    m2, n_rhs = b.shape[-2:]
    if m != m2:
        raise LinAlgError("Incompatible dimensions")
    t, rt = _common_type(a, b)
    rrt = _real(rt)
    if rcond is None:
        rcond = _np.finfo(t).eps * max(n, m)
    if m == 0 or n == 0 or n_rhs == 0:
        B = _reshape(b, (m,)) if is_1d else b
        return _numpy_on_standins(_np.linalg.lstsq, a, B, rcond=rcond)
    k = min(m, n)
    out, aux = _lapack("LSTSQ", _cast(a, t), _cast(b, t), t, n * n_rhs, 2 + k + n_rhs, rcond=rcond,
                       error="SVD did not converge in Linear Least Squares")
    x = _part(out, 0, n * n_rhs, (n, n_rhs))
    auxn = _core.to_numpy(aux)
    rank = _np.int32(auxn[1])
    if is_1d:
        x = _reshape(x, (n,))
    if rank != n or m <= n:
        resids = _core.from_any(_np.array([], rrt))
    else:
        resids = _cast(aux[2 + k:2 + k + n_rhs], rrt)
    s = _cast(aux[2:2 + k], rrt)
    return _cast(x, rt), resids, rank, s


_NoValue = _np._NoValue


def pinv(a, rcond=None, hermitian=False, *, rtol=_NoValue):
    cp = _cp()
    a = _asarray(a)
    if rcond is None:
        if rtol is _NoValue:
            rcond = 1e-15
        elif rtol is None:
            rcond = max(a.shape[-2:]) * _np.finfo(a.dtype).eps
        else:
            rcond = rtol
    elif rtol is not _NoValue:
        raise ValueError("`rtol` and `rcond` can't be both set.")
    rcond = _asarray(rcond)
    if a.ndim >= 2 and _empty(a):
        m, n = a.shape[-2:]
        return cp.empty(tuple(a.shape[:-2]) + (n, m), dtype=a.dtype)
    a = cp.conjugate(a)
    u, s, vt = svd(a, full_matrices=False, hermitian=hermitian)
    cutoff = rcond[..., None] * cp.amax(s, axis=-1, keepdims=True)
    large = s > cutoff
    s = cp.where(large, cp.divide(1, cp.where(large, s, 1)), 0).astype(s.dtype)
    return cp.matmul(cp.matrix_transpose(vt), cp.multiply(s[..., None], cp.matrix_transpose(u)))


def matrix_rank(A, tol=None, hermitian=False, *, rtol=None):
    cp = _cp()
    if rtol is not None and tol is not None:
        raise ValueError("`tol` and `rtol` can't be both set.")
    A = _asarray(A)
    if A.ndim < 2:
        return int(not bool(cp.all(A == 0)))
    S = svd(A, compute_uv=False, hermitian=hermitian)
    if tol is None:
        if rtol is None:
            rtol = max(A.shape[-2:]) * _np.finfo(S.dtype).eps
        else:
            rtol = _asarray(rtol)[..., None]
        tol = cp.multiply(S.max(axis=-1, keepdims=True, initial=0), rtol)
    else:
        tol = _asarray(tol)[..., None]
    return _deliver(cp.count_nonzero(S > tol, axis=-1))


def cond(x, p=None):
    cp = _cp()
    x = _asarray(x)
    if x.ndim >= 2 and _empty(x):
        raise LinAlgError("cond is not defined on empty arrays")
    if p is None or p in {2, -2}:
        s = svd(x, compute_uv=False)
        with cp.errstate(all="ignore"):
            r = s[..., -1] / s[..., 0] if p == -2 else s[..., 0] / s[..., -1]
    else:
        _assert_stacked_square(x)
        t, rt = _common_type(x)
        with cp.errstate(all="ignore"):
            invx = _inv_nan(x, t)
            r = norm(x, p, axis=(-2, -1)) * norm(invx, p, axis=(-2, -1))
        r = _cast(_asarray(r), _real(rt))
    r = _asarray(r)
    nan_mask = cp.isnan(r)
    if bool(nan_mask.any()):
        nan_mask = nan_mask & ~cp.isnan(x).any(axis=(-2, -1))
        r = cp.where(nan_mask, _np.inf, r).astype(r.dtype)
    return _deliver(r)


def _inv_nan(x, t):
    """inv per matrix, NaN where a matrix is singular (what NumPy's inv gufunc leaves under
    errstate(all='ignore'), which cond uses)."""
    cp = _cp()
    n = x.shape[-1]
    out, aux = _lapack("INV", _cast(x, t), None, t, n * n, 1, error=False)
    r = _part(out, 0, n * n, (n, n))
    bad = (aux[..., 0] != 0)[..., None, None]
    return cp.where(bad, _np.nan, r).astype(t)


def _multi_svd_norm(x, row_axis, col_axis, op, initial=None):
    cp = _cp()
    y = cp.moveaxis(x, (row_axis, col_axis), (-2, -1))
    if initial is None:
        return op(svd(y, compute_uv=False), axis=-1)
    return op(svd(y, compute_uv=False), axis=-1, initial=initial)


def norm(x, ord=None, axis=None, keepdims=False):
    if type(x) is ndarray and ord is None and type(axis) is int and keepdims is False and \
            x.dtype.kind == "f" and -x.ndim <= axis < x.ndim:
        # the 2-norm along one axis of a real float array: NumPy's sqrt(add.reduce((x.conj() *
        # x).real)) below, whose conj and real are x itself
        cp = _cp()
        return cp.sqrt(cp.add.reduce(x * x, axis=axis))
    cp = _cp()
    x = _asarray(x)
    if x.dtype.kind not in "fc":
        x = x.astype(float)
    inf = _np.inf
    if axis is None:
        ndim = x.ndim
        if (ord is None) or (ord in ("f", "fro") and ndim == 2) or (ord == 2 and ndim == 1):
            if ndim != 1:
                x = x.ravel(order="K")
            if x.dtype.kind == "c":
                sqnorm = cp.dot(x.real, x.real) + cp.dot(x.imag, x.imag)
            else:
                sqnorm = _core.dot1(x, x) if type(x) is ndarray else None   # (dot's own fast call)
                if sqnorm is None:
                    sqnorm = cp.dot(x, x)
            # a NumPy scalar (a vector's dot): NumPy's sqrt of it, as NumPy's norm, without a
            # cupynum ufunc call around it
            ret = _np.sqrt(sqnorm) if isinstance(sqnorm, _np.generic) else cp.sqrt(sqnorm)
            if keepdims:
                ret = cp.reshape(ret, ndim * [1])
            return ret
    nd = x.ndim
    if axis is None:
        axis = tuple(range(nd))
    elif not isinstance(axis, tuple):
        try:
            axis = int(axis)
        except Exception as e:
            raise TypeError("'axis' must be None, an integer or a tuple of integers") from e
        axis = (axis,)
    if len(axis) == 1:
        if ord == inf:
            return cp.abs(x).max(axis=axis, keepdims=keepdims, initial=0)
        elif ord == -inf:
            return cp.abs(x).min(axis=axis, keepdims=keepdims)
        elif ord == 0:
            return (x != 0).astype(x.real.dtype).sum(axis=axis, keepdims=keepdims)
        elif ord == 1:
            return cp.add.reduce(cp.abs(x), axis=axis, keepdims=keepdims)
        elif ord is None or ord == 2:
            s = (x.conj() * x).real
            return cp.sqrt(cp.add.reduce(s, axis=axis, keepdims=keepdims))
        elif isinstance(ord, str):
            raise ValueError(f"Invalid norm order '{ord}' for vectors")
        else:
            absx = cp.abs(x)
            absx **= ord
            ret = cp.add.reduce(absx, axis=axis, keepdims=keepdims)
            ret **= cp.reciprocal(ord, dtype=ret.dtype)
            return ret
    elif len(axis) == 2:
        from numpy.lib.array_utils import normalize_axis_index
        row_axis, col_axis = axis
        row_axis = normalize_axis_index(row_axis, nd)
        col_axis = normalize_axis_index(col_axis, nd)
        if row_axis == col_axis:
            raise ValueError("Duplicate axes given.")
        if ord == 2:
            ret = _multi_svd_norm(x, row_axis, col_axis, cp.amax, 0)
        elif ord == -2:
            ret = _multi_svd_norm(x, row_axis, col_axis, cp.amin)
        elif ord == 1:
            if col_axis > row_axis:
                col_axis -= 1
            ret = cp.add.reduce(cp.abs(x), axis=row_axis).max(axis=col_axis, initial=0)
        elif ord == inf:
            if row_axis > col_axis:
                row_axis -= 1
            ret = cp.add.reduce(cp.abs(x), axis=col_axis).max(axis=row_axis, initial=0)
        elif ord == -1:
            if col_axis > row_axis:
                col_axis -= 1
            ret = cp.add.reduce(cp.abs(x), axis=row_axis).min(axis=col_axis)
        elif ord == -inf:
            if row_axis > col_axis:
                row_axis -= 1
            ret = cp.add.reduce(cp.abs(x), axis=col_axis).min(axis=row_axis)
        elif ord in [None, "fro", "f"]:
            ret = cp.sqrt(cp.add.reduce((x.conj() * x).real, axis=axis))
        elif ord == "nuc":
            ret = _multi_svd_norm(x, row_axis, col_axis, cp.sum, 0)
        else:
            raise ValueError("Invalid norm order for matrices.")
        if keepdims:
            ret_shape = list(x.shape)
            ret_shape[axis[0]] = 1
            ret_shape[axis[1]] = 1
            ret = cp.reshape(ret, ret_shape)
        return ret
    else:
        raise ValueError("Improper number of dimensions to norm.")


def matrix_norm(x, /, *, keepdims=False, ord="fro"):
    return norm(_asarray(x), axis=(-2, -1), keepdims=keepdims, ord=ord)


def vector_norm(x, /, *, axis=None, keepdims=False, ord=2):
    from numpy.lib.array_utils import normalize_axis_tuple
    cp = _cp()
    x = _asarray(x)
    shape = list(x.shape)
    if axis is None:
        x = x.ravel()
        _axis = 0
    elif isinstance(axis, tuple):
        normalized_axis = normalize_axis_tuple(axis, x.ndim)
        rest = tuple(i for i in range(x.ndim) if i not in normalized_axis)
        newshape = axis + rest
        x = cp.reshape(cp.transpose(x, newshape),
                       (int(_np.prod([x.shape[i] for i in axis], dtype=int)), *[x.shape[i] for i in rest]))
        _axis = 0
    else:
        _axis = axis
    res = norm(x, axis=_axis, ord=ord)
    if keepdims:
        _axis = normalize_axis_tuple(range(len(shape)) if axis is None else axis, len(shape))
        for i in _axis:
            shape[i] = 1
        res = cp.reshape(res, tuple(shape))
    return res


# ---- tensors, cross, trace ------------------------------------------------------------------------

def tensorsolve(a, b, axes=None):
    cp = _cp()
    a, b = _asarray(a), _asarray(b)
    an = a.ndim
    if axes is not None:
        allaxes = list(range(an))
        for k in axes:
            allaxes.remove(k)
            allaxes.insert(an, k)
        a = cp.transpose(a, allaxes)
    oldshape = a.shape[-(an - b.ndim):]
    prod = 1
    for k in oldshape:
        prod *= k
    if a.size != prod ** 2:
        raise LinAlgError(
            "Input arrays must satisfy the requirement \
            prod(a.shape[b.ndim:]) == prod(a.shape[:b.ndim])"
        )
    a = cp.reshape(a, (prod, prod))
    b = cp.ravel(b)
    return cp.reshape(solve(a, b), oldshape)


def tensorinv(a, ind=2):
    cp = _cp()
    a = _asarray(a)
    oldshape = a.shape
    prod = 1
    if ind > 0:
        invshape = oldshape[ind:] + oldshape[:ind]
        for k in oldshape[ind:]:
            prod *= k
    else:
        raise ValueError("Invalid ind argument.")
    a = cp.reshape(a, (prod, -1))
    return cp.reshape(inv(a), invshape)


def cross(x1, x2, /, *, axis=-1):
    x1, x2 = _asarray(x1), _asarray(x2)
    if x1.shape[axis] != 3 or x2.shape[axis] != 3:
        raise ValueError(
            "Both input arrays must be (arrays of) 3-dimensional vectors, "
            f"but they are {x1.shape[axis]} and {x2.shape[axis]} "
            "dimensional instead."
        )
    return _cp().cross(x1, x2, axis=axis)


def trace(x, /, *, offset=0, dtype=None):
    return _cp().trace(_asarray(x), offset, axis1=-2, axis2=-1, dtype=dtype)


NAMES = ("solve inv det slogdet cholesky qr eigh eigvalsh eig eigvals svd svdvals lstsq pinv "
         "matrix_rank cond norm matrix_norm vector_norm tensorsolve tensorinv cross trace").split()


def _wrap_foreign():
    """NumPy subclasses and dtypes cupynum lacks go to NumPy (as the products do)."""
    from .. import _fallback
    g = globals()
    for name in NAMES:
        g[name] = _fallback.numpy_for_foreign(getattr(_np.linalg, name))(g[name])


_wrap_foreign()
