"""numpy.linalg's factorizations (cupynum/linalg/_linalg.py on csrc/kernels/lapack.c: one LAPACK
op per batch of matrices) against NumPy: solve, inv, det, slogdet, cholesky, qr (every mode),
eigh/eigvalsh (UPLO), eig/eigvals, svd (full_matrices, compute_uv, hermitian), svdvals, lstsq,
pinv, matrix_rank, cond, norm/matrix_norm/vector_norm, tensorsolve, tensorinv, cross, trace, over
dtypes x batch dims x shapes (empty included), strided views, and NumPy's errors.  Runs as it is
under mpirun (every array partitioned with CUPYNUM_MIN_TILE=1: the op runs on gathered copies).

Both compute in double (NumPy's linalg casts float32 to float64 and back), on OpenBLAS's LAPACK,
so results agree to a few ulps of the result type; vectors defined up to a sign or phase
(eigenvectors, singular vectors) are compared after fixing each column's phase."""

import warnings

import numpy
import pytest

import cupynum
from cupynum import _fallback

DTYPES = [numpy.float32, numpy.float64, numpy.complex64, numpy.complex128, numpy.int64]
BATCHES = [(), (2,), (2, 3)]


def _id(x):
    return numpy.dtype(x).name if isinstance(x, type) else "x".join(map(str, x)) or "0d"


def _tol(dt):
    return 2e-4 if numpy.dtype(dt) in (numpy.float32, numpy.complex64) else 1e-9


def mat(shape, dt, seed=0, spd=False, square_boost=True):
    rng = numpy.random.default_rng(seed)
    x = rng.standard_normal(shape)
    if numpy.dtype(dt).kind == "c":
        x = x + 1j * rng.standard_normal(shape)
    if numpy.dtype(dt).kind in "iu":
        x = rng.integers(-4, 5, shape)
    if spd:
        x = x @ numpy.conj(numpy.swapaxes(x, -1, -2)) + shape[-1] * numpy.eye(shape[-1])
    elif square_boost and len(shape) >= 2 and shape[-1] == shape[-2] and shape[-1] > 0:
        x = x + (4 * shape[-1] + 1 if numpy.dtype(dt).kind in "iu" else 3) * numpy.eye(shape[-1])
    return numpy.asarray(x).astype(dt)


def close(c, n, dt=numpy.float64, exact_type=True):
    """cupynum's result c is NumPy's n: same type, dtype, shape; values to the dtype's tolerance."""
    if isinstance(n, tuple):
        assert isinstance(c, tuple) and len(c) == len(n)
        if hasattr(n, "_fields"):
            assert type(c).__name__ == type(n).__name__
        for a, b in zip(c, n):
            close(a, b, dt)
        return
    if isinstance(n, numpy.ndarray):
        assert isinstance(c, cupynum.ndarray), type(c)
        c = cupynum.asnumpy(c) if hasattr(cupynum, "asnumpy") else numpy.asarray(c)
    else:
        assert not isinstance(c, cupynum.ndarray), (type(c), type(n))
        if exact_type:
            assert type(c) is type(n), (type(c), type(n))
    c, n = numpy.asarray(c), numpy.asarray(n)
    assert c.dtype == n.dtype and c.shape == n.shape, (c.dtype, n.dtype, c.shape, n.shape)
    t = _tol(n.dtype if n.dtype.kind in "fc" else dt)
    scale = max(1.0, float(numpy.max(numpy.abs(n)))) if n.size and n.dtype.kind in "fc" else 1.0
    numpy.testing.assert_allclose(c, n, rtol=t, atol=t * scale)


def phase_fixed(v):
    """Each column (axis -1 indexes columns) divided by the phase of its largest entry."""
    v = numpy.asarray(v)
    if v.size == 0:
        return v
    idx = numpy.argmax(numpy.abs(v), axis=-2)[..., None, :]
    p = numpy.take_along_axis(v, idx, axis=-2)
    p = numpy.where(p == 0, 1, p)
    return v * (numpy.abs(p) / p)


def both(shape, dt, seed=0, **kw):
    n = mat(shape, dt, seed, **kw)
    return n, cupynum.array(n)


@pytest.fixture(autouse=True)
def _no_fallback(monkeypatch):
    """Native: none of these may fall back to NumPy on gathered data."""
    monkeypatch.setenv("CUPYNUM_FALLBACK", "error")


# ---- solve, inv, det, slogdet -----------------------------------------------------------------------

@pytest.mark.parametrize("dt", DTYPES, ids=_id)
@pytest.mark.parametrize("batch", BATCHES, ids=_id)
@pytest.mark.parametrize("n", [1, 4, 9])
def test_solve_inv_det(dt, batch, n):
    na, a = both(batch + (n, n), dt, 1)
    nb, b = both(batch + (n, 3), dt, 2)
    close(cupynum.linalg.solve(a, b), numpy.linalg.solve(na, nb), dt)
    close(cupynum.linalg.inv(a), numpy.linalg.inv(na), dt)
    close(cupynum.linalg.det(a), numpy.linalg.det(na), dt)
    close(cupynum.linalg.slogdet(a), numpy.linalg.slogdet(na), dt)
    nv, v = both((n,), dt, 3)
    close(cupynum.linalg.solve(a, v), numpy.linalg.solve(na, nv), dt)


@pytest.mark.parametrize("ash,bsh", [((2, 1, 4, 4), (3, 4, 2)), ((4, 4), (2, 4, 1)), ((2, 4, 4), (4, 5)),
                                     ((0, 3, 3), (0, 3, 1)), ((0, 0), (0, 2)), ((3, 3), (3, 0))],
                         ids=lambda s: "x".join(map(str, s)))
def test_solve_broadcast_and_empty(ash, bsh):
    na, a = both(ash, numpy.float64, 1)
    nb, b = both(bsh, numpy.float64, 2)
    close(cupynum.linalg.solve(a, b), numpy.linalg.solve(na, nb))


def test_solve_mixed_dtypes_and_views():
    na, a = both((6, 6), numpy.float32, 1)
    nb, b = both((6, 2), numpy.complex128, 2)
    close(cupynum.linalg.solve(a, b), numpy.linalg.solve(na, nb), numpy.complex128)
    close(cupynum.linalg.solve(a.T, b[::-1]), numpy.linalg.solve(na.T, nb[::-1]), numpy.complex128)
    close(cupynum.linalg.inv(a[::2, ::2]), numpy.linalg.inv(na[::2, ::2]), numpy.float32)
    ni = numpy.array([[2, 1], [1, 3]], dtype=numpy.int32)
    close(cupynum.linalg.inv(cupynum.array(ni)), numpy.linalg.inv(ni))
    close(cupynum.linalg.det(cupynum.array(ni)), numpy.linalg.det(ni))


def test_det_singular_and_empty():
    z = numpy.zeros((2, 3, 3))
    close(cupynum.linalg.det(cupynum.array(z)), numpy.linalg.det(z))
    close(cupynum.linalg.slogdet(cupynum.array(z)), numpy.linalg.slogdet(z))
    for shape in [(0, 0), (2, 0, 0), (0, 2, 2)]:
        e = numpy.zeros(shape)
        close(cupynum.linalg.det(cupynum.array(e)), numpy.linalg.det(e))
        close(cupynum.linalg.inv(cupynum.array(e)), numpy.linalg.inv(e))


def test_errors_match_numpy():
    L = numpy.linalg.LinAlgError
    cases = [
        (lambda xp: xp.linalg.inv(xp.zeros((3, 3))), L, "Singular matrix"),
        (lambda xp: xp.linalg.solve(xp.asarray(numpy.ones((2, 2, 2))), xp.ones((2, 2, 1))), L, "Singular matrix"),
        (lambda xp: xp.linalg.cholesky(xp.asarray(-numpy.eye(3))), L, "Matrix is not positive definite"),
        (lambda xp: xp.linalg.inv(xp.zeros((3, 2))), L, "Last 2 dimensions of the array must be square"),
        (lambda xp: xp.linalg.det(xp.zeros(3)), L, "1-dimensional array given"),
        (lambda xp: xp.linalg.qr(xp.zeros(3)), L, "1-dimensional array given"),
        (lambda xp: xp.linalg.eig(xp.asarray(numpy.array([[1.0, numpy.nan], [0, 1]]))), L,
         "Array must not contain infs or NaNs"),
        (lambda xp: xp.linalg.lstsq(xp.zeros((3, 2)), xp.zeros(4)), L, "Incompatible dimensions"),
        (lambda xp: xp.linalg.eigh(xp.eye(2), UPLO="X"), ValueError, "UPLO argument must be"),
        (lambda xp: xp.linalg.qr(xp.eye(2), mode="bad"), ValueError, "Unrecognized mode"),
        (lambda xp: xp.linalg.solve(xp.eye(3), xp.ones((2, 1))), ValueError, ""),
        (lambda xp: xp.linalg.inv(xp.eye(2, dtype=numpy.float16)), TypeError, "unsupported in linalg"),
        (lambda xp: xp.linalg.cond(xp.zeros((0, 0))), L, "cond is not defined on empty arrays"),
    ]
    for f, exc, msg in cases:
        with pytest.raises(exc) as en:
            f(numpy)
        with pytest.raises(exc) as ec:
            f(cupynum)
        assert msg in str(en.value)
        assert str(ec.value) == str(en.value)


def test_nothing_written_on_failure():
    """A failed factorization raises before anything reaches the caller: a stack where one matrix is
    singular raises (as NumPy does) and an out-of-place result is never half-made."""
    na = mat((3, 4, 4), numpy.float64, 1)
    na[1] = 0
    a = cupynum.array(na)
    with pytest.raises(numpy.linalg.LinAlgError, match="Singular matrix"):
        cupynum.linalg.inv(a)
    numpy.testing.assert_array_equal(cupynum.asnumpy(a) if hasattr(cupynum, "asnumpy") else numpy.asarray(a), na)


# ---- cholesky, qr ---------------------------------------------------------------------------------

@pytest.mark.parametrize("dt", DTYPES, ids=_id)
@pytest.mark.parametrize("batch", BATCHES, ids=_id)
@pytest.mark.parametrize("upper", [False, True])
def test_cholesky(dt, batch, upper):
    na, a = both(batch + (5, 5), dt, 4, spd=True)
    close(cupynum.linalg.cholesky(a, upper=upper), numpy.linalg.cholesky(na, upper=upper), dt)


@pytest.mark.parametrize("dt", DTYPES, ids=_id)
@pytest.mark.parametrize("batch", BATCHES[:2], ids=_id)
@pytest.mark.parametrize("mn", [(5, 3), (3, 5), (4, 4), (1, 3)], ids=_id)
@pytest.mark.parametrize("mode", ["reduced", "complete", "r", "raw"])
def test_qr(dt, batch, mn, mode):
    na, a = both(batch + mn, dt, 5)
    close(cupynum.linalg.qr(a, mode=mode), numpy.linalg.qr(na, mode=mode), dt)


def test_qr_economic_and_empty():
    na, a = both((5, 3), numpy.float64, 6)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", DeprecationWarning)
        close(cupynum.linalg.qr(a, mode="economic"), numpy.linalg.qr(na, mode="economic"))
        close(cupynum.linalg.qr(a, mode="full"), numpy.linalg.qr(na, mode="full"))
    for shape in [(0, 3), (3, 0), (2, 0, 0)]:
        e = numpy.zeros(shape)
        for mode in ["reduced", "complete", "r"]:
            close(cupynum.linalg.qr(cupynum.array(e), mode=mode), numpy.linalg.qr(e, mode=mode))


# ---- eigenvalues ------------------------------------------------------------------------------------

@pytest.mark.parametrize("dt", DTYPES, ids=_id)
@pytest.mark.parametrize("batch", BATCHES, ids=_id)
@pytest.mark.parametrize("UPLO", ["L", "U", "u"])
def test_eigh(dt, batch, UPLO):
    n = mat(batch + (5, 5), dt, 7)   # not Hermitian: UPLO decides which triangle is read
    a = cupynum.array(n)
    w, v = cupynum.linalg.eigh(a, UPLO=UPLO)
    wn, vn = numpy.linalg.eigh(n, UPLO=UPLO)
    close(w, wn, dt)
    assert v.dtype == vn.dtype and tuple(v.shape) == vn.shape
    numpy.testing.assert_allclose(phase_fixed(numpy.asarray(v)), phase_fixed(vn), atol=_tol(dt) * 10)
    close(cupynum.linalg.eigvalsh(a, UPLO=UPLO), numpy.linalg.eigvalsh(n, UPLO=UPLO), dt)
    assert type(cupynum.linalg.eigh(a)).__name__ == "EighResult"


def _eig_close(c, r, n, dt=numpy.float64):
    """eig's (w, v) c against NumPy's r for the matrix n.  One matrix on 2+ ranks is ScaLAPACK's
    (its Hessenberg QR orders the eigenvalues its own way): the same dtypes and shapes, the
    eigenvalues matched one to one, A v = v w and unit columns; elsewhere LAPACK's geev, equal
    in order (vectors up to phase)."""
    w, v = numpy.asarray(c[0]), numpy.asarray(c[1])
    assert type(c).__name__ == type(r).__name__
    assert w.dtype == r[0].dtype and v.dtype == r[1].dtype and v.shape == r[1].shape
    if n.ndim == 2 and cupynum._core.runtime_info()["ranks"] > 1:
        t = _tol(dt)
        assert _matched(w, r[0]) <= t * max(1.0, float(numpy.max(numpy.abs(r[0]))))
        x = n.astype(v.dtype)
        assert numpy.max(numpy.abs(x @ v - v * w)) <= 10 * t * max(1.0, float(numpy.max(numpy.abs(n))))
        assert numpy.max(numpy.abs(numpy.linalg.norm(v, axis=0) - 1)) <= 10 * t
        return
    close(c[0], r[0], dt)
    numpy.testing.assert_allclose(phase_fixed(v), phase_fixed(r[1]), atol=_tol(dt) * 10)


@pytest.mark.parametrize("dt", DTYPES, ids=_id)
@pytest.mark.parametrize("batch", BATCHES[:2], ids=_id)
def test_eig(dt, batch):
    n = mat(batch + (5, 5), dt, 8, square_boost=False)
    a = cupynum.array(n)
    c = cupynum.linalg.eig(a)
    _eig_close(c, numpy.linalg.eig(n), n, dt)
    # eigvals is eig's eigenvalues, in the same order
    close(cupynum.linalg.eigvals(a), numpy.asarray(c[0]), dt)


def test_eig_real_eigenvalues_are_real():
    n = numpy.array([[2.0, 1.0], [1.0, 3.0]])
    _eig_close(cupynum.linalg.eig(cupynum.array(n)), numpy.linalg.eig(n), n)
    w = cupynum.linalg.eigvals(cupynum.array(n.astype(numpy.float32)))
    e = numpy.linalg.eigvals(n.astype(numpy.float32))
    assert numpy.asarray(w).dtype == e.dtype and _matched(w, e) <= 1e-5
    r = numpy.array([[0.0, -1.0], [1.0, 0.0]])   # a rotation: +-i
    _eig_close(cupynum.linalg.eig(cupynum.array(r)), numpy.linalg.eig(r), r)


# ---- svd and what is built on it --------------------------------------------------------------------

@pytest.mark.parametrize("dt", DTYPES, ids=_id)
@pytest.mark.parametrize("batch", BATCHES[:2], ids=_id)
@pytest.mark.parametrize("mn", [(5, 3), (3, 5), (4, 4)], ids=_id)
@pytest.mark.parametrize("full", [True, False])
def test_svd(dt, batch, mn, full):
    n = mat(batch + mn, dt, 9)
    a = cupynum.array(n)
    u, s, vh = cupynum.linalg.svd(a, full_matrices=full)
    un, sn, vhn = numpy.linalg.svd(n, full_matrices=full)
    close(s, sn, dt)
    assert type(cupynum.linalg.svd(a)).__name__ == "SVDResult"
    k = min(mn)
    for c, r in ((u, un), (numpy.conj(numpy.swapaxes(numpy.asarray(vh), -1, -2)), numpy.conj(numpy.swapaxes(vhn, -1, -2)))):
        c = numpy.asarray(c)
        assert c.dtype == r.dtype and c.shape == r.shape
        numpy.testing.assert_allclose(phase_fixed(c[..., :k]), phase_fixed(r[..., :k]), atol=_tol(dt) * 10)
    close(cupynum.linalg.svd(a, compute_uv=False), numpy.linalg.svd(n, compute_uv=False), dt)
    close(cupynum.linalg.svdvals(a), numpy.linalg.svdvals(n), dt)


@pytest.mark.parametrize("dt", [numpy.float64, numpy.complex128], ids=_id)
def test_svd_hermitian(dt):
    n = mat((2, 4, 4), dt, 10, spd=True)
    a = cupynum.array(n)
    close(cupynum.linalg.svd(a, hermitian=True, compute_uv=False), numpy.linalg.svd(n, hermitian=True, compute_uv=False), dt)
    u, s, vh = cupynum.linalg.svd(a, hermitian=True)
    un, sn, vhn = numpy.linalg.svd(n, hermitian=True)
    close(s, sn, dt)
    numpy.testing.assert_allclose(numpy.asarray(u) * numpy.asarray(s)[..., None, :] @ numpy.asarray(vh), n, atol=1e-9)


@pytest.mark.parametrize("dt", DTYPES, ids=_id)
@pytest.mark.parametrize("mn", [(6, 3), (3, 6), (4, 4)], ids=_id)
@pytest.mark.parametrize("rhs", [None, 1, 3])
def test_lstsq(dt, mn, rhs):
    na, a = both(mn, dt, 11, square_boost=False)
    nb, b = both((mn[0],) if rhs is None else (mn[0], rhs), dt, 12)
    c = cupynum.linalg.lstsq(a, b, rcond=None)
    r = numpy.linalg.lstsq(na, nb, rcond=None)
    close(c[0], r[0], dt)
    close(c[1], r[1], dt)
    assert c[2] == r[2] and type(c[2]) is type(r[2])
    close(c[3], r[3], dt)


def test_lstsq_rank_deficient_and_rcond():
    n = numpy.array([[1.0, 2.0], [2.0, 4.0], [3.0, 6.0]])
    y = numpy.array([1.0, 2.0, 2.0])
    for rcond in [None, 1e-3, -1]:
        c = cupynum.linalg.lstsq(cupynum.array(n), cupynum.array(y), rcond=rcond)
        r = numpy.linalg.lstsq(n, y, rcond=rcond)
        close(c[0], r[0])
        close(c[1], r[1])
        assert c[2] == r[2]


@pytest.mark.parametrize("dt", DTYPES, ids=_id)
@pytest.mark.parametrize("batch", BATCHES[:2], ids=_id)
def test_pinv_rank_cond(dt, batch):
    n = mat(batch + (5, 4), dt, 13)
    a = cupynum.array(n)
    close(cupynum.linalg.pinv(a), numpy.linalg.pinv(n), dt)
    close(cupynum.linalg.matrix_rank(a), numpy.linalg.matrix_rank(n))
    sq = mat(batch + (4, 4), dt, 14)
    s = cupynum.array(sq)
    for p in [None, 1, -1, 2, -2, numpy.inf, -numpy.inf, "fro", "nuc"]:
        close(cupynum.linalg.cond(s, p), numpy.linalg.cond(sq, p), dt)
    close(cupynum.linalg.pinv(s, hermitian=False, rtol=1e-3), numpy.linalg.pinv(sq, rtol=1e-3), dt)


def test_rank_deficient_and_singular_cond():
    n = numpy.array([[1.0, 2.0], [2.0, 4.0]])
    a = cupynum.array(n)
    close(cupynum.linalg.matrix_rank(a), numpy.linalg.matrix_rank(n))
    close(cupynum.linalg.matrix_rank(a, tol=0.5), numpy.linalg.matrix_rank(n, tol=0.5))
    close(cupynum.linalg.matrix_rank(cupynum.array([1.0, 0.0])), numpy.linalg.matrix_rank(numpy.array([1.0, 0.0])))
    with numpy.errstate(all="ignore"):
        for p in [1, numpy.inf, "fro"]:
            close(cupynum.linalg.cond(a, p), numpy.linalg.cond(n, p))


NORMS_VEC = [None, 2, 1, 0, numpy.inf, -numpy.inf, 3, -1.5]
NORMS_MAT = [None, "fro", "nuc", 1, -1, 2, -2, numpy.inf, -numpy.inf]


@pytest.mark.filterwarnings("ignore:divide by zero")
@pytest.mark.parametrize("dt", DTYPES, ids=_id)
def test_norms(dt):
    n = mat((3, 4, 5), dt, 15)
    a = cupynum.array(n)
    close(cupynum.linalg.norm(a), numpy.linalg.norm(n), dt)
    close(cupynum.linalg.norm(a, keepdims=True), numpy.linalg.norm(n, keepdims=True), dt)
    for o in NORMS_VEC:
        close(cupynum.linalg.norm(a, o, axis=1), numpy.linalg.norm(n, o, axis=1), dt)
        close(cupynum.linalg.norm(a[0, 0], o), numpy.linalg.norm(n[0, 0], o), dt)
        close(cupynum.linalg.vector_norm(a, ord=o, axis=(0, 2)), numpy.linalg.vector_norm(n, ord=o, axis=(0, 2)), dt)
    close(cupynum.linalg.vector_norm(a, keepdims=True), numpy.linalg.vector_norm(n, keepdims=True), dt)
    for o in NORMS_MAT:
        close(cupynum.linalg.norm(a, o, axis=(2, 0)), numpy.linalg.norm(n, o, axis=(2, 0)), dt)
        close(cupynum.linalg.norm(a[1], o), numpy.linalg.norm(n[1], o), dt)
        close(cupynum.linalg.matrix_norm(a, ord=o, keepdims=True), numpy.linalg.matrix_norm(n, ord=o, keepdims=True), dt)


def test_tensorsolve_tensorinv_cross_trace():
    n = mat((6, 4, 2, 3, 4), numpy.float64, 16, square_boost=False)
    n = n.reshape(24, 24) + 6 * numpy.eye(24)
    n = n.reshape(6, 4, 2, 3, 4)
    b = mat((6, 4), numpy.float64, 17)
    close(cupynum.linalg.tensorsolve(cupynum.array(n), cupynum.array(b)), numpy.linalg.tensorsolve(n, b))
    t = n.reshape(6, 4, 24)
    close(cupynum.linalg.tensorinv(cupynum.array(t), ind=2), numpy.linalg.tensorinv(t, ind=2))
    na, nb = mat((4, 3), numpy.float64, 18), mat((4, 3), numpy.float64, 19)
    close(cupynum.linalg.cross(cupynum.array(na), cupynum.array(nb)), numpy.linalg.cross(na, nb))
    with pytest.raises(ValueError) as e:
        cupynum.linalg.cross(cupynum.array(na[:, :2]), cupynum.array(nb[:, :2]))
    assert "3-dimensional vectors" in str(e.value)
    m = mat((2, 3, 4), numpy.float64, 20)
    close(cupynum.linalg.trace(cupynum.array(m)), numpy.linalg.trace(m))
    close(cupynum.linalg.trace(cupynum.array(m), offset=1), numpy.linalg.trace(m, offset=1))


def test_every_linalg_name_native():
    """Every name of numpy.linalg cupynum provides is native (the fallback machinery is left for
    names a later NumPy adds)."""
    lacking = [n for n in dir(numpy.linalg) if not n.startswith("_") and n != "test" and callable(getattr(numpy.linalg, n))
               and not isinstance(getattr(numpy.linalg, n), type)
               and _fallback.is_fallback(getattr(cupynum.linalg, n))]
    assert lacking == [], lacking


# ---- partitioned matrices: ScaLAPACK under MPI (csrc/runtime/scalapack.c) -----------------------

@pytest.mark.parametrize("n", [1, 7, 33, 100])
@pytest.mark.parametrize("dt", [numpy.float64, numpy.complex128, numpy.float32], ids=_id)
def test_partitioned_cholesky_solve(n, dt):
    """On 2+ ranks a partitioned matrix is factored by ScaLAPACK (redistributed to block-cyclic
    and back); results equal NumPy's to 1e-10 relative (float32: its own tolerance)."""
    tol = 1e-10 if numpy.dtype(dt) in (numpy.float64, numpy.complex128) else 1e-5
    ns = mat((n, n), dt, 21, spd=True)
    s = cupynum.array(ns)
    for upper in (False, True):
        r, e = numpy.asarray(cupynum.linalg.cholesky(s, upper=upper)), numpy.linalg.cholesky(ns, upper=upper)
        assert r.dtype == e.dtype
        assert numpy.max(numpy.abs(r - e)) <= tol * numpy.max(numpy.abs(e))
    na = mat((n, n), dt, 22)
    a = cupynum.array(na)
    for bshape in [(n,), (n, 1), (n, 5)]:
        nb = mat(bshape, dt, 23)
        r, e = numpy.asarray(cupynum.linalg.solve(a, cupynum.array(nb))), numpy.linalg.solve(na, nb)
        assert r.dtype == e.dtype and r.shape == e.shape
        assert numpy.max(numpy.abs(r - e)) <= tol * numpy.max(numpy.abs(e))


def test_partitioned_failures_raise():
    with pytest.raises(numpy.linalg.LinAlgError, match="Matrix is not positive definite"):
        cupynum.linalg.cholesky(cupynum.array(-numpy.eye(12)))
    with pytest.raises(numpy.linalg.LinAlgError, match="Singular matrix"):
        cupynum.linalg.solve(cupynum.zeros((12, 12)), cupynum.ones((12, 2)))


def test_partitioned_scalapack_moves_less_than_gathering(monkeypatch):
    """Under MPI with ScaLAPACK, cholesky of a partitioned matrix sends fewer bytes than the
    gathered path (CUPYNUM_SCALAPACK=0) and gives the same answer."""
    info = cupynum._core.runtime_info()
    if info["ranks"] < 2:
        pytest.skip("one rank: nothing is partitioned")
    ns = mat((60, 60), numpy.float64, 24, spd=True)
    s = cupynum.array(ns)

    def sent(env):
        monkeypatch.setenv("CUPYNUM_SCALAPACK", env)
        before = cupynum._core.runtime_stats()["bytes_sent"]
        r = cupynum.linalg.cholesky(s)
        float(r[0, 0])
        return cupynum._core.runtime_stats()["bytes_sent"] - before, numpy.asarray(r)

    b1, r1 = sent("1")
    b0, r0 = sent("0")
    numpy.testing.assert_allclose(r1, r0, rtol=1e-12, atol=1e-12)
    if b1 == b0:
        pytest.skip("built without ScaLAPACK (both paths gather)")
    assert b1 < b0, (b1, b0)


# ---- a stack partitioned along its batch: each rank its own matrices (owner computes) -----------

def _sent(f):
    cupynum.sync()
    cupynum.reset_stats()
    r = f()
    cupynum.sync()
    return r, cupynum.runtime_stats()["bytes_sent"]


def _batch_only(x):
    t = cupynum._core._tiling(x)
    return t["tiled"] and all(g == 1 for g in t["grid"][-2:])


STACK_CASES = [((64, 20, 20), numpy.float64), ((9, 8, 8), numpy.complex128),
               ((7, 12, 12), numpy.float32), ((5, 2, 6, 6), numpy.float64), ((10, 5, 5), numpy.complex64),
               ((2, 30, 30), numpy.float64), ((3, 16, 16), numpy.complex128)]


def _tile_bytes(x):
    """The bytes of this rank's tile of x (all of x when it is not tiled)."""
    t = cupynum._core._tiling(x)
    if not t["tiled"]:
        return x.nbytes
    return int(numpy.prod([max(h - l, 0) for l, h in zip(t["lo"], t["hi"])])) * x.itemsize


@pytest.mark.parametrize("shape,dt", STACK_CASES, ids=[f"{_id(s)}-{_id(d)}" for s, d in STACK_CASES])
def test_partitioned_stack_moves_nothing(shape, dt):
    """A stack of matrices tiled along its batch dimensions alone (CUPYNUM_MIN_TILE=1: 2 and 3
    ranks cut the leading dimension) is solved, inverted, factored and decomposed by each rank on
    its own matrices: zero bytes sent, results NumPy's, the results tiled as the operand.  eig and
    eigvals move only the one-byte partials of NumPy's two checks (finite input, any complex
    eigenvalue).  A stack whose tiles cut its matrices (4 ranks' 2 x 2 grid; (2, 30, 30) on 3
    ranks) is first copied into slabs of whole matrices: each rank sends at most its tile of the
    operands, not the whole stack, and the results are tiled along the batch.  One rank: the same
    results."""
    na = mat(shape, dt, 31)
    nspd = mat(shape, dt, 32, spd=True)
    nsym = (na + numpy.conj(numpy.swapaxes(na, -1, -2))).astype(dt)
    nb = mat(shape[:-1] + (3,), dt, 33)
    a, spd, sym, b = (cupynum.array(x) for x in (na, nspd, nsym, nb))
    local = _batch_only(a) and _batch_only(b)
    if shape == (64, 20, 20) and cupynum.runtime_info()["ranks"] in (2, 3):
        assert local, cupynum._core._tiling(a)   # the default grid cuts the batch alone here
    cases = [
        ("solve", lambda: cupynum.linalg.solve(a, b), lambda: numpy.linalg.solve(na, nb)),
        ("inv", lambda: cupynum.linalg.inv(a), lambda: numpy.linalg.inv(na)),
        ("det", lambda: cupynum.linalg.det(a), lambda: numpy.linalg.det(na)),
        ("slogdet", lambda: cupynum.linalg.slogdet(a), lambda: numpy.linalg.slogdet(na)),
        ("cholesky", lambda: cupynum.linalg.cholesky(spd), lambda: numpy.linalg.cholesky(nspd)),
        ("eigvalsh", lambda: cupynum.linalg.eigvalsh(sym), lambda: numpy.linalg.eigvalsh(nsym)),
        ("eigh", lambda: cupynum.linalg.eigh(spd)[1], lambda: numpy.linalg.eigh(nspd)[1], phase_fixed),
        ("qr_r", lambda: cupynum.linalg.qr(a, mode="r"), lambda: numpy.linalg.qr(na, mode="r"), numpy.abs),
        ("svdvals", lambda: cupynum.linalg.svd(a, compute_uv=False),
         lambda: numpy.linalg.svd(na, compute_uv=False)),
        ("eigvals", lambda: cupynum.linalg.eigvals(spd), lambda: numpy.linalg.eigvals(nspd),
         lambda x: numpy.sort_complex(numpy.asarray(x).astype(complex))),
    ]
    p = cupynum.runtime_info()["ranks"]
    over = []
    for name, f, g, *post in cases:
        r, sent = _sent(f)
        want = g()
        if post:
            tiled = cupynum._core._tiling(r)["tiled"]
            r, want = cupynum.array(post[0](numpy.asarray(r))), post[0](want)
        if isinstance(want, tuple):
            for x, y in zip(r, want):
                close(x, y)
        elif isinstance(r, cupynum.ndarray):
            close(r, want)
        else:
            close(cupynum.array(r), want)
        limit = 2 * (p - 1) if name == "eigvals" else 0
        if p > 1 and not local:   # the copy into slabs: this rank's tile of the operand(s),
            # in the double precision the routines compute in
            wide = 2 if numpy.dtype(dt) in (numpy.float32, numpy.complex64) else 1
            operand = {"cholesky": spd, "eigvalsh": sym, "eigh": spd, "eigvals": spd}.get(name, a)
            limit += wide * (_tile_bytes(operand) + (_tile_bytes(b) if name == "solve" else 0))
            if wide == 2 and isinstance(r, cupynum.ndarray):   # the cast back to single precision
                limit += 2 * _tile_bytes(r)                    # lays the result out as the operand
            limit += 1024                                      # lapack_info's agreement
        if p > 1:
            # collected, not asserted here: a rank that left the loop early would take the
            # others' next collective for its own (the ranks fall out of step and hang)
            if sent > limit:
                over.append((name, sent, limit))
            if name in ("solve", "inv", "cholesky", "eigh"):   # left where they were computed
                if not (tiled if post else cupynum._core._tiling(r)["tiled"]):
                    over.append((name, "not tiled"))
    assert not over, (over, cupynum._core._tiling(a))


def test_partitioned_stack_failures_raise_on_every_rank():
    """One singular (or indefinite) matrix anywhere in a partitioned stack: every rank raises
    NumPy's LinAlgError (the infos agree by an allreduce), the rest of the stack untouched."""
    for k in (0, 5, 11):
        na = mat((12, 6, 6), numpy.float64, 34)
        na[k] = 0.0
        a = cupynum.array(na)
        with pytest.raises(numpy.linalg.LinAlgError, match="Singular matrix"):
            cupynum.linalg.inv(a)
        with pytest.raises(numpy.linalg.LinAlgError, match="Singular matrix"):
            cupynum.linalg.solve(a, cupynum.ones((12, 6, 2)))
        ns = mat((12, 6, 6), numpy.float64, 35, spd=True)
        ns[k] = -numpy.eye(6)
        with pytest.raises(numpy.linalg.LinAlgError, match="Matrix is not positive definite"):
            cupynum.linalg.cholesky(cupynum.array(ns))
        close(cupynum.linalg.det(a), numpy.linalg.det(na))


def _rel(r, e):
    r, e = numpy.asarray(r), numpy.asarray(e)
    assert r.dtype == e.dtype and r.shape == e.shape, (r.dtype, e.dtype, r.shape, e.shape)
    return float(numpy.max(numpy.abs(r - e))) / max(float(numpy.max(numpy.abs(e))), 1e-300)


@pytest.mark.parametrize("n", [1, 7, 33, 100])
@pytest.mark.parametrize("dt", [numpy.float64, numpy.complex128, numpy.float32], ids=_id)
def test_partitioned_inv_det_eigh(n, dt):
    """inv (p?getrf + p?getri), det/slogdet (p?getrf: the diagonal's logs summed over the ranks,
    the sign from its signs and the pivots' swaps), eigh/eigvalsh (p?syevd/p?heevd, both
    triangles) of one partitioned matrix through ScaLAPACK on 2+ ranks: NumPy's results to 1e-10
    relative (float32: its own precision), eigenvectors up to each column's phase."""
    tol = 1e-10 if numpy.dtype(dt) in (numpy.float64, numpy.complex128) else 1e-5
    na = mat((n, n), dt, 41)
    nh = (na + numpy.conj(na.T)).astype(dt)
    a, h = cupynum.array(na), cupynum.array(nh)
    assert _rel(cupynum.linalg.inv(a), numpy.linalg.inv(na)) <= tol
    with warnings.catch_warnings():   # float32 of 100 x 100 overflows, warning as NumPy does
        warnings.simplefilter("ignore", RuntimeWarning)
        d, ed = numpy.asarray(cupynum.linalg.det(a)), numpy.asarray(numpy.linalg.det(na))
    if numpy.isfinite(ed):
        assert _rel(d, ed) <= tol
    else:   # float32 of 100 x 100 overflows: both inf, of one sign
        assert d == ed and d.dtype == ed.dtype
    sign, logdet = cupynum.linalg.slogdet(a)
    esign, elogdet = numpy.linalg.slogdet(na)
    assert abs(complex(sign) - complex(esign)) <= tol and abs(float(logdet) - float(elogdet)) <= tol * max(1, abs(elogdet))
    assert numpy.asarray(sign).dtype == numpy.asarray(esign).dtype
    for uplo in ("L", "U"):
        w, v = cupynum.linalg.eigh(h, UPLO=uplo)
        ew, ev = numpy.linalg.eigh(nh, UPLO=uplo)
        assert _rel(w, ew) <= tol and _rel(cupynum.linalg.eigvalsh(h, UPLO=uplo), ew) <= tol
        assert _rel(phase_fixed(v), phase_fixed(ev)) <= 100 * tol   # vectors: conditioning
        # the vectors are eigenvectors: A v = v diag(w)
        assert _rel(nh @ numpy.asarray(v), numpy.asarray(v) * numpy.asarray(w)[None, :].astype(dt)) <= 100 * tol


def test_partitioned_inv_det_singular():
    z = numpy.zeros((12, 12))
    z[:6, :6] = numpy.eye(6)
    with pytest.raises(numpy.linalg.LinAlgError, match="Singular matrix"):
        cupynum.linalg.inv(cupynum.array(z))
    assert float(cupynum.linalg.det(cupynum.array(z))) == 0.0
    sign, logdet = cupynum.linalg.slogdet(cupynum.array(z))
    assert float(sign) == 0.0 and float(logdet) == -numpy.inf
    p = numpy.eye(12)[::-1]   # a permutation: det is the sign of the reversal, +1 for 12
    check_det = numpy.linalg.det(p)
    assert float(cupynum.linalg.det(cupynum.array(p))) == check_det


def _scalapack_sent(monkeypatch, env, f, x):
    """(bytes this rank sent, the result as NumPy) of f(x) with CUPYNUM_SCALAPACK=env."""
    monkeypatch.setenv("CUPYNUM_SCALAPACK", env)
    r, b = _sent(lambda: f(x))
    return b, numpy.asarray(r)


QR_SVD_SHAPES = [(1, 1), (7, 7), (40, 13), (13, 40), (100, 100), (129, 64)]


@pytest.mark.parametrize("shape", QR_SVD_SHAPES, ids=_id)
@pytest.mark.parametrize("dt", [numpy.float64, numpy.complex128, numpy.float32], ids=_id)
def test_partitioned_qr_svd(shape, dt):
    """qr (p?geqrf + p?orgqr/p?ungqr: Q and R equal NumPy's, the same Householder convention)
    and svd (p?gesvd: values equal NumPy's; vectors up to each pair's phase, which a different
    algorithm may choose differently) of a partitioned tall, wide or square matrix.  Modes
    ScaLAPACK has no routine for (raw, complete Q of a tall matrix, full U/VT of a non-square
    matrix) take the gathered path; float32 too.  On one rank: LAPACK, the same comparisons."""
    tol = _tol(dt) if numpy.dtype(dt) in (numpy.float32, numpy.complex64) else 1e-10
    na = mat(shape, dt, 51)
    a = cupynum.array(na)
    m, n = shape
    for mode in ("reduced", "complete", "r", "raw"):
        r, e = cupynum.linalg.qr(a, mode=mode), numpy.linalg.qr(na, mode=mode)
        for x, y in (zip(r, e) if mode != "r" else [(r, e)]):
            assert _rel(x, y) <= tol, mode
    assert _rel(cupynum.linalg.svd(a, compute_uv=False), numpy.linalg.svd(na, compute_uv=False)) <= tol
    for full in (False, True):
        u, s, vh = cupynum.linalg.svd(a, full_matrices=full)
        eu, es, evh = numpy.linalg.svd(na, full_matrices=full)
        assert _rel(s, es) <= tol
        k = min(m, n)
        u, vh = numpy.asarray(u), numpy.asarray(vh)
        # the vectors belonging to distinct singular values, each pair under one phase
        assert _rel(phase_fixed(u[:, :k]), phase_fixed(eu[:, :k])) <= 1000 * tol
        assert _rel(phase_fixed(vh[:k].conj().T), phase_fixed(evh[:k].conj().T)) <= 1000 * tol
        assert _rel((u[:, :k] * numpy.asarray(s).astype(dt)) @ vh[:k], na) <= 10 * tol
        assert u.shape == eu.shape and vh.shape == evh.shape


@pytest.mark.parametrize("name", ["qr", "r", "svd", "svdvals"])
def test_partitioned_qr_svd_bytes(monkeypatch, name):
    """The bytes per rank of qr and svd of a partitioned 200 x 120 matrix through ScaLAPACK
    against the gathered path (CUPYNUM_SCALAPACK=0): the matrix in and its results out, no more
    (svdvals: the matrix in only), and the same results."""
    info = cupynum._core.runtime_info()
    if info["ranks"] < 2:
        pytest.skip("one rank: nothing is partitioned")
    m, n = 200, 120
    na = mat((m, n), numpy.float64, 52)
    a = cupynum.array(na)
    f = {"qr": lambda x: cupynum.linalg.qr(x)[0], "r": lambda x: cupynum.linalg.qr(x, mode="r"),
         "svd": lambda x: cupynum.linalg.svd(x, full_matrices=False)[0],
         "svdvals": lambda x: cupynum.linalg.svd(x, compute_uv=False)}[name]

    b1, r1 = _scalapack_sent(monkeypatch, "1", f, a)
    b0, r0 = _scalapack_sent(monkeypatch, "0", f, a)
    fix = phase_fixed if name == "svd" else (lambda x: x)
    assert _rel(fix(r1), fix(r0)) <= 1e-10
    if b1 == b0:
        pytest.skip("built without ScaLAPACK (both paths gather)")
    tile = 8 * m * n / info["ranks"]
    out = {"qr": tile + 8 * n * n, "r": 8 * n * n, "svd": tile + 8 * n * n, "svdvals": 0}[name]
    print(f"{name}: {b1} bytes per rank through ScaLAPACK, {b0} gathered (tile {tile:.0f})")
    assert b1 < b0 and b1 <= tile + out + 1024, (b1, b0, tile)


@pytest.mark.parametrize("name", ["inv", "det", "eigh", "cholesky"])
def test_partitioned_scalapack_bytes(monkeypatch, name):
    """The bytes per rank of one 120 x 120 matrix factored through ScaLAPACK (our exchange to
    block-cyclic and back; ScaLAPACK's own messages are the library's) against the gathered path
    (CUPYNUM_SCALAPACK=0): fewer, at most the matrix in and its result out."""
    info = cupynum._core.runtime_info()
    if info["ranks"] < 2:
        pytest.skip("one rank: nothing is partitioned")
    n = 120
    ns = mat((n, n), numpy.float64, 42, spd=True)
    s = cupynum.array(ns)
    f = {"inv": cupynum.linalg.inv, "det": cupynum.linalg.det, "cholesky": cupynum.linalg.cholesky,
         "eigh": lambda x: cupynum.linalg.eigh(x)[1]}[name]

    b1, r1 = _scalapack_sent(monkeypatch, "1", f, s)
    b0, r0 = _scalapack_sent(monkeypatch, "0", f, s)
    assert _rel(phase_fixed(r1) if name == "eigh" else r1, phase_fixed(r0) if name == "eigh" else r0) <= 1e-10
    if b1 == b0:
        pytest.skip("built without ScaLAPACK (both paths gather)")
    tile = 8 * n * n / info["ranks"]
    print(f"{name}: {b1} bytes per rank through ScaLAPACK, {b0} gathered (tile {tile:.0f})")
    assert b1 < b0 and b1 <= 2 * tile + 1024, (b1, b0, tile)


LSTSQ_SHAPES = [(1, 1), (7, 7), (40, 13), (13, 40), (100, 100), (129, 64)]


@pytest.mark.parametrize("shape", LSTSQ_SHAPES, ids=_id)
@pytest.mark.parametrize("dt", [numpy.float64, numpy.complex128, numpy.float32], ids=_id)
def test_partitioned_lstsq(shape, dt):
    """lstsq of a partitioned matrix: on 2+ ranks p?gesvd's U, s, VT and two p?gemm (x = VT^H
    diag(1/s) U^H b, gelsd's cutoff rcond * s[0]), residuals |b - A x|^2 when rank == n < m;
    x, residuals, rank and s equal NumPy's gelsd to 1e-10 relative, for a vector b and 1 or 3
    right-hand sides, a rank-deficient matrix and an rcond that drops values."""
    tol = _tol(dt) if numpy.dtype(dt) in (numpy.float32, numpy.complex64) else 1e-10
    m, n = shape
    na = mat(shape, dt, 61)
    a = cupynum.array(na)
    for bshape in [(m,), (m, 1), (m, 3)]:
        nb = mat(bshape, dt, 62)
        r, e = cupynum.linalg.lstsq(a, cupynum.array(nb)), numpy.linalg.lstsq(na, nb)
        assert int(r[2]) == int(e[2]) and type(r[2]) is type(e[2])
        for x, y in (r[0], e[0]), (r[1], e[1]), (r[3], e[3]):
            assert numpy.asarray(x).shape == y.shape
            if y.size:
                assert _rel(x, y) <= tol
    if min(m, n) < 4:
        return
    rng = numpy.random.default_rng(63)
    low = (rng.standard_normal((m, 3)) @ rng.standard_normal((3, n))).astype(dt)
    nb = mat((m, 2), dt, 64)
    for rcond in (None, 0.5):
        for x in (low, na):
            r, e = cupynum.linalg.lstsq(cupynum.array(x), cupynum.array(nb), rcond=rcond), \
                numpy.linalg.lstsq(x, nb, rcond=rcond)
            assert int(r[2]) == int(e[2])
            assert numpy.asarray(r[1]).shape == e[1].shape
            assert _rel(r[0], e[0]) <= tol and _rel(r[3], e[3]) <= tol


def test_partitioned_lstsq_bytes(monkeypatch):
    """lstsq of a partitioned 200 x 120 matrix and 200 x 4 right-hand sides through ScaLAPACK
    against the gathered path (CUPYNUM_SCALAPACK=0): the matrix and b in and x out, no more,
    and the same x."""
    info = cupynum._core.runtime_info()
    if info["ranks"] < 2:
        pytest.skip("one rank: nothing is partitioned")
    m, n, k = 200, 120, 4
    na, nb = mat((m, n), numpy.float64, 65), mat((m, k), numpy.float64, 66)
    a, b = cupynum.array(na), cupynum.array(nb)
    b1, r1 = _scalapack_sent(monkeypatch, "1", lambda x: cupynum.linalg.lstsq(x, b)[0], a)
    b0, r0 = _scalapack_sent(monkeypatch, "0", lambda x: cupynum.linalg.lstsq(x, b)[0], a)
    assert _rel(r1, r0) <= 1e-10 and _rel(r1, numpy.linalg.lstsq(na, nb)[0]) <= 1e-10
    if b1 == b0:
        pytest.skip("built without ScaLAPACK (both paths gather)")
    tile = 8 * (m * n + m * k + n * k) / info["ranks"]
    print(f"lstsq: {b1} bytes per rank through ScaLAPACK, {b0} gathered (tiles {tile:.0f})")
    assert b1 < b0 and b1 <= tile + 1024, (b1, b0, tile)


def _matched(w, e):
    """The largest distance from each of NumPy's eigenvalues e to the nearest of w, each of w
    used once (a conjugate pair's order may differ where its real parts differ in the last bit)."""
    w, e = list(numpy.asarray(w).astype(complex)), numpy.asarray(e).astype(complex)
    worst = 0.0
    for x in e:
        d = numpy.abs(numpy.array(w) - x)
        k = int(numpy.argmin(d))
        worst = max(worst, float(d[k]))
        w.pop(k)
    return worst


@pytest.mark.parametrize("n", [1, 7, 33, 100])
@pytest.mark.parametrize("dt", [numpy.float64, numpy.complex128, numpy.float32], ids=_id)
@pytest.mark.parametrize("kind", ["general", "symmetric", "triangular"])
def test_partitioned_eig_eigvals(n, dt, kind):
    """eig/eigvals of a partitioned matrix: on 2+ ranks p?gehrd and p?lahqr (a real matrix's
    eigenvalues by pdlahqr: exact zero imaginary parts where they are real, so the result is real
    exactly when NumPy's is) and, for vectors, the complex Schur form, p?trevc and zgeev's
    normalization.  NumPy's dtypes; eigenvalues equal NumPy's to 1e-10 relative (matched one to
    one); A v = v w to 1e-10 relative and unit columns."""
    tol = 1e-10 if numpy.dtype(dt) in (numpy.float64, numpy.complex128) else 1e-4
    na = mat((n, n), dt, 71, square_boost=False)
    if kind == "symmetric":
        na = (na + na.T).astype(dt)
    elif kind == "triangular":
        na = numpy.triu(na)
    a = cupynum.array(na)
    scale = max(float(numpy.max(numpy.abs(na))), 1e-300)
    e = numpy.linalg.eigvals(na)
    w = cupynum.linalg.eigvals(a)
    assert numpy.asarray(w).dtype == e.dtype and numpy.asarray(w).shape == e.shape
    assert _matched(w, e) <= tol * max(float(numpy.max(numpy.abs(e))), 1e-300)
    w, v = cupynum.linalg.eig(a)
    ew, ev = numpy.linalg.eig(na)
    w, v = numpy.asarray(w), numpy.asarray(v)
    assert w.dtype == ew.dtype and v.dtype == ev.dtype and v.shape == ev.shape
    assert _matched(w, ew) <= tol * max(float(numpy.max(numpy.abs(ew))), 1e-300)
    x = na.astype(v.dtype)
    assert numpy.max(numpy.abs(x @ v - v * w)) <= tol * scale * n
    assert numpy.max(numpy.abs(numpy.linalg.norm(v, axis=0) - 1)) <= tol


@pytest.mark.parametrize("name", ["eigvals", "eig"])
def test_partitioned_eig_bytes(monkeypatch, name):
    """eig/eigvals of a partitioned 120 x 120 matrix through ScaLAPACK against the gathered path
    (CUPYNUM_SCALAPACK=0): the matrix in (and, for eig, the vectors out, complex), no more; the
    same eigenvalues."""
    info = cupynum._core.runtime_info()
    if info["ranks"] < 2:
        pytest.skip("one rank: nothing is partitioned")
    n = 120
    na = mat((n, n), numpy.float64, 72, square_boost=False)
    a = cupynum.array(na)
    f = {"eigvals": cupynum.linalg.eigvals, "eig": lambda x: cupynum.linalg.eig(x)[0]}[name]
    b1, r1 = _scalapack_sent(monkeypatch, "1", f, a)
    b0, r0 = _scalapack_sent(monkeypatch, "0", f, a)
    assert _matched(r1, r0) <= 1e-10 * float(numpy.max(numpy.abs(r0)))
    if b1 == b0:
        pytest.skip("built without ScaLAPACK (both paths gather)")
    tile = 8 * n * n / info["ranks"]
    out = {"eigvals": 0, "eig": 16 * n * n / info["ranks"]}[name]
    print(f"{name}: {b1} bytes per rank through ScaLAPACK, {b0} gathered (tile {tile:.0f})")
    assert b1 < b0 and b1 <= tile + out + 16 * n * info["ranks"] + 1024, (b1, b0, tile)
