"""numpy.linalg on a device backend (cuda/solver.c: cuSOLVER; CUPYNUM_DEVICE=sim: the simulated
device, which takes exactly the factorizations cuSOLVER takes, csrc/runtime/devlapack.h, and
computes them with the host's LAPACK kernel in its own memory): results against NumPy over dtypes
x shapes (square, tall, wide, batched, 1x1), NumPy's LinAlgError messages, and the factorization
ran on the device: of a device-resident operand only the op's small float64 `aux` rows (LAPACK's
info, and eigh's eigenvalues / svd's singular values / slogdet's logdet) come back to the host, to
raise NumPy's error at the call.

Eigenvectors and singular vectors are compared as NumPy's own tests compare them (reconstruction,
orthonormality) and, up to one sign or complex phase per vector, with NumPy's: LAPACK's and
cuSOLVER's algorithms (syevd, gesdd against gesvd) may choose different phases.  qr's Q and R are
compared with NumPy's up to one sign/phase per column of Q (row of R) for the same reason; the
raw mode's Householder reflectors are compared as they are (cuSOLVER's geqrf is LAPACK's
algorithm and convention)."""

import numpy
import pytest

import cupynum

pytestmark = [pytest.mark.device, pytest.mark.gpu]

INFO = cupynum.runtime_info()
on_device = pytest.mark.skipif(INFO["backend"] not in ("cuda", "sim") or INFO["blas"] == "none",
                               reason="no CUDA device (CUPYNUM_DEVICE=sim runs these) or no LAPACK")

DTYPES = ["float64", "complex128", "float32", "complex64"]
SQUARE = [(1, 1), (4, 4), (9, 9), (3, 5, 5), (2, 3, 4, 4), (2, 1, 1)]
RECT = SQUARE + [(7, 4), (4, 7), (3, 6, 2), (2, 3, 5), (1, 6), (6, 1)]


def _single(dt):
    return numpy.dtype(dt) in (numpy.float32, numpy.complex64)


def _tol(dt):
    return 2e-5 if _single(dt) else 1e-10


def _rand(shape, dt, seed=0):
    rng = numpy.random.default_rng(seed)
    a = rng.standard_normal(shape)
    if numpy.dtype(dt).kind == "c":
        a = a + 1j * rng.standard_normal(shape)
    return a.astype(dt)


def _spd(shape, dt, seed=0):
    """Hermitian positive definite matrices (well conditioned)."""
    a = _rand(shape, dt, seed).astype(numpy.complex128 if numpy.dtype(dt).kind == "c" else numpy.float64)
    n = shape[-1]
    h = a @ numpy.conj(numpy.swapaxes(a, -1, -2)) + n * numpy.eye(n)
    return h.astype(dt)


def _hermitian(shape, dt, seed=0):
    a = _rand(shape, dt, seed)
    return ((a + numpy.conj(numpy.swapaxes(a, -1, -2))) / 2).astype(dt)


def _well(shape, dt, seed=0):
    """Square matrices far from singular."""
    a = _rand(shape, dt, seed)
    return (a + shape[-1] * numpy.eye(shape[-1])).astype(dt)


def _dev(n):
    """n as a device-resident cupynum array (computed there: the host copy is stale)."""
    x = cupynum.array(n) * 1
    cupynum.sync()
    return x


def _close(got, want, dt):
    g = numpy.asarray(got)
    w = numpy.asarray(want)
    assert g.dtype == w.dtype and g.shape == w.shape, (g.dtype, w.dtype, g.shape, w.shape)
    scale = max(1.0, float(numpy.max(numpy.abs(w)))) if w.size else 1.0
    assert numpy.all(numpy.abs(g - w) <= _tol(dt) * scale), numpy.max(numpy.abs(g - w))


def _aux_bound(batch, naux):
    return 8 * int(numpy.prod(batch, dtype=numpy.int64)) * naux


class _OnDevice:
    """Counts the bytes brought to the host between entry and exit; asserts they are at most
    `bound` (the op's aux rows).  On one process only: under MPI a partitioned operand's
    factorization is ScaLAPACK's, the batched owner-computes path's or the gathered path's, all on
    the host (docs/architecture.md), so there only the results are compared."""

    def __init__(self, bound):
        self.bound = bound if INFO["ranks"] == 1 else None

    def __enter__(self):
        cupynum.reset_stats()
        return self

    def __exit__(self, *exc):
        if exc[0] is None and self.bound is not None:
            cupynum.sync()
            got = cupynum.runtime_stats()["bytes_to_host"]
            assert got <= self.bound, f"{got} bytes came back to the host (bound {self.bound})"


def _phase_match(got, want, axis):
    """got's vectors (columns: axis=-2 summed over; rows: axis=-1) rotated by one unit phase each
    onto want's."""
    g = numpy.asarray(got)
    w = numpy.asarray(want)
    d = numpy.sum(numpy.conj(g) * w, axis=axis, keepdims=True)
    ph = d / numpy.where(numpy.abs(d) == 0, 1, numpy.abs(d))
    return g * ph


def _ct(x):
    return numpy.conj(numpy.swapaxes(x, -1, -2))


# ---- solve, inv, det, slogdet ---------------------------------------------------------------------

@on_device
@pytest.mark.parametrize("dt", DTYPES)
@pytest.mark.parametrize("shape", SQUARE, ids=str)
def test_solve(shape, dt):
    n = _well(shape, dt)
    rhs = _rand(shape[:-1] + (3,), dt, 1)
    vec = _rand(shape[-1:], dt, 2)
    a = _dev(n)
    b, v = _dev(rhs), _dev(vec)
    batch = shape[:-2]
    with _OnDevice(_aux_bound(batch, 1)):
        x = cupynum.linalg.solve(a, b)
    _close(x, numpy.linalg.solve(n, rhs), dt)
    with _OnDevice(_aux_bound(batch, 1)):
        y = cupynum.linalg.solve(a, v)
    _close(y, numpy.linalg.solve(n, vec), dt)


@on_device
@pytest.mark.parametrize("dt", DTYPES)
@pytest.mark.parametrize("shape", SQUARE, ids=str)
def test_inv(shape, dt):
    n = _well(shape, dt)
    a = _dev(n)
    with _OnDevice(_aux_bound(shape[:-2], 1)):
        r = cupynum.linalg.inv(a)
    _close(r, numpy.linalg.inv(n), dt)


@on_device
@pytest.mark.parametrize("dt", DTYPES)
@pytest.mark.parametrize("shape", SQUARE, ids=str)
def test_slogdet_det(shape, dt):
    n = _rand(shape, dt)
    a = _dev(n)
    # one matrix: NumPy returns scalars, which leave the runtime (the sign and logdet, 32 bytes at
    # most, as the aux row)
    bound = _aux_bound(shape[:-2], 2) + (32 if len(shape) == 2 else 0)
    with _OnDevice(bound):
        sign, logdet = cupynum.linalg.slogdet(a)
    ws, wl = numpy.linalg.slogdet(n)
    _close(sign, ws, dt)
    _close(logdet, wl, dt)
    with _OnDevice(bound):
        d = cupynum.linalg.det(a)
    _close(d, numpy.linalg.det(n), dt)


@on_device
def test_slogdet_singular():
    n = numpy.array([[[1.0, 2.0], [2.0, 4.0]], [[2.0, 0.0], [0.0, 3.0]]])
    sign, logdet = cupynum.linalg.slogdet(_dev(n))
    ws, wl = numpy.linalg.slogdet(n)
    numpy.testing.assert_array_equal(numpy.asarray(sign), ws)
    assert numpy.asarray(logdet)[0] == wl[0] == -numpy.inf
    _close(logdet[1:], wl[1:], "float64")


# ---- cholesky -----------------------------------------------------------------------------------

@on_device
@pytest.mark.parametrize("upper", [False, True])
@pytest.mark.parametrize("dt", DTYPES)
@pytest.mark.parametrize("shape", SQUARE, ids=str)
def test_cholesky(shape, dt, upper):
    n = _spd(shape, dt)
    a = _dev(n)
    with _OnDevice(_aux_bound(shape[:-2], 1)):
        r = cupynum.linalg.cholesky(a, upper=upper)
    _close(r, numpy.linalg.cholesky(n, upper=upper), dt)   # unique: equal, the other triangle zero


# ---- qr ---------------------------------------------------------------------------------------------

@on_device
@pytest.mark.parametrize("mode", ["reduced", "complete", "r", "raw"])
@pytest.mark.parametrize("dt", DTYPES)
@pytest.mark.parametrize("shape", RECT, ids=str)
def test_qr(shape, dt, mode):
    n = _rand(shape, dt)
    a = _dev(n)
    with _OnDevice(_aux_bound(shape[:-2], 1)):
        got = cupynum.linalg.qr(a, mode=mode)
    want = numpy.linalg.qr(n, mode=mode)
    if mode == "raw":
        _close(got[0], want[0], dt)
        _close(got[1], want[1], dt)
        return
    if mode == "r":
        r = numpy.asarray(got)
        _close(numpy.abs(r), numpy.abs(want), dt)   # rows up to one phase each
        return
    q, r = (numpy.asarray(x) for x in got)
    wq, wr = want
    assert q.dtype == wq.dtype and q.shape == wq.shape and r.shape == wr.shape
    k = min(shape[-2:])
    _close(q[..., :k] @ r[..., :k, :], n, dt)              # Q R = A (columns of Q past k: the basis)
    _close(_ct(q) @ q, numpy.broadcast_to(numpy.eye(q.shape[-1], dtype=dt), q.shape[:-2] + (q.shape[-1],) * 2), dt)
    _close(numpy.triu(r), r, dt)
    _close(_phase_match(q[..., :k], wq[..., :k], -2), wq[..., :k], dt)
    _close(numpy.abs(r), numpy.abs(wr), dt)


# ---- eigh / eigvalsh ----------------------------------------------------------------------------

@on_device
@pytest.mark.parametrize("uplo", ["L", "U"])
@pytest.mark.parametrize("dt", DTYPES)
@pytest.mark.parametrize("shape", SQUARE, ids=str)
def test_eigh(shape, dt, uplo):
    n = _hermitian(shape, dt)
    a = _dev(n)
    nn = shape[-1]
    with _OnDevice(_aux_bound(shape[:-2], 1 + nn)):
        w, v = cupynum.linalg.eigh(a, UPLO=uplo)
    ww, wv = numpy.linalg.eigh(n, UPLO=uplo)
    _close(w, ww, dt)
    v = numpy.asarray(v)
    assert v.dtype == wv.dtype and v.shape == wv.shape
    _close((v * numpy.asarray(w)[..., None, :]) @ _ct(v), n, dt)   # V diag(w) V^H = A
    _close(_phase_match(v, wv, -2), wv, dt)
    with _OnDevice(_aux_bound(shape[:-2], 1 + nn)):
        vals = cupynum.linalg.eigvalsh(a, UPLO=uplo)
    _close(vals, numpy.linalg.eigvalsh(n, UPLO=uplo), dt)


@on_device
def test_eigh_reads_one_triangle():
    n = _hermitian((5, 5), "complex128")
    junk = n + numpy.triu(_rand((5, 5), "complex128", 9), 1)   # the upper triangle is garbage
    w, v = cupynum.linalg.eigh(_dev(junk))
    ww, wv = numpy.linalg.eigh(junk)
    _close(w, ww, "complex128")
    _close(_phase_match(v, wv, -2), wv, "complex128")


# ---- svd / svdvals ---------------------------------------------------------------------------------

@on_device
@pytest.mark.parametrize("full", [True, False])
@pytest.mark.parametrize("dt", DTYPES)
@pytest.mark.parametrize("shape", RECT, ids=str)
def test_svd(shape, dt, full):
    n = _rand(shape, dt)
    a = _dev(n)
    k = min(shape[-2:])
    with _OnDevice(_aux_bound(shape[:-2], 1 + k)):
        u, s, vh = cupynum.linalg.svd(a, full_matrices=full)
    wu, ws, wvh = numpy.linalg.svd(n, full_matrices=full)
    _close(s, ws, dt)
    u, vh = numpy.asarray(u), numpy.asarray(vh)
    assert u.dtype == wu.dtype and u.shape == wu.shape and vh.shape == wvh.shape
    s = numpy.asarray(s)
    _close((u[..., :, :k] * s[..., None, :]) @ vh[..., :k, :], n, dt)   # U S Vh = A
    eye_u = numpy.broadcast_to(numpy.eye(u.shape[-1], dtype=dt), u.shape[:-2] + (u.shape[-1],) * 2)
    eye_v = numpy.broadcast_to(numpy.eye(vh.shape[-2], dtype=dt), vh.shape[:-2] + (vh.shape[-2],) * 2)
    _close(_ct(u) @ u, eye_u, dt)
    _close(vh @ _ct(vh), eye_v, dt)
    # the singular vectors of distinct singular values: NumPy's up to one phase each (u and v
    # rotated alike)
    _close(_phase_match(u[..., :, :k], wu[..., :, :k], -2), wu[..., :, :k], dt)
    _close(_phase_match(vh[..., :k, :], wvh[..., :k, :], -1), wvh[..., :k, :], dt)


@on_device
@pytest.mark.parametrize("dt", DTYPES)
@pytest.mark.parametrize("shape", RECT, ids=str)
def test_svdvals(shape, dt):
    n = _rand(shape, dt)
    a = _dev(n)
    k = min(shape[-2:])
    with _OnDevice(_aux_bound(shape[:-2], 1 + k)):
        s = cupynum.linalg.svd(a, compute_uv=False)
    _close(s, numpy.linalg.svd(n, compute_uv=False), dt)
    with _OnDevice(_aux_bound(shape[:-2], 1 + k)):
        s2 = cupynum.linalg.svdvals(a)
    _close(s2, numpy.linalg.svdvals(n), dt)


# ---- operands of other layouts and dtypes ---------------------------------------------------------

@on_device
def test_strided_and_transposed_operands():
    n = _rand((8, 10), "float64", 5)
    a = _dev(n)
    for view, nv in ((a[:, ::2][:5], n[:, ::2][:5]), (a[::-1, 1:9][:8].T, n[::-1, 1:9][:8].T)):
        nv = nv + 6 * numpy.eye(nv.shape[0])
        view = view + 6 * cupynum.eye(view.shape[0])
        _close(cupynum.linalg.inv(view), numpy.linalg.inv(nv), "float64")
        _close(cupynum.linalg.solve(view, view[:, :2]), numpy.linalg.solve(nv, nv[:, :2]), "float64")
    _close(cupynum.linalg.svd(a.T, compute_uv=False), numpy.linalg.svd(n.T, compute_uv=False), "float64")


@on_device
def test_integer_input():
    n = numpy.array([[4, 1, 2], [1, 5, 3], [2, 3, 6]])
    a = _dev(n)
    with _OnDevice(_aux_bound((), 1)):
        r = cupynum.linalg.cholesky(a)
    _close(r, numpy.linalg.cholesky(n), "float64")
    _close(cupynum.linalg.inv(a), numpy.linalg.inv(n), "float64")


# ---- errors: NumPy's LinAlgError and message, nothing returned ---------------------------------------

def _numpy_error(f, *args, **kw):
    with pytest.raises(numpy.linalg.LinAlgError) as e:
        f(*args, **kw)
    return str(e.value)


@on_device
@pytest.mark.parametrize("dt", ["float64", "complex128"])
def test_singular(dt):
    n = numpy.ones((2, 3, 3), dt)
    n[0] = numpy.eye(3)
    a = _dev(n)
    rhs = _dev(numpy.ones((2, 3, 1), dt))
    for name, args, nargs in (("solve", (a, rhs), (n, numpy.ones((2, 3, 1), dt))), ("inv", (a,), (n,))):
        msg = _numpy_error(getattr(numpy.linalg, name), *nargs)
        with pytest.raises(numpy.linalg.LinAlgError, match=msg):
            getattr(cupynum.linalg, name)(*args)


@on_device
@pytest.mark.parametrize("dt", ["float64", "complex128"])
def test_not_positive_definite(dt):
    n = numpy.stack([numpy.eye(4), -numpy.eye(4)]).astype(dt)
    msg = _numpy_error(numpy.linalg.cholesky, n)
    with pytest.raises(numpy.linalg.LinAlgError, match=msg):
        cupynum.linalg.cholesky(_dev(n))
    with pytest.raises(numpy.linalg.LinAlgError, match=msg):
        cupynum.linalg.cholesky(_dev(n), upper=True)


@on_device
def test_host_routines_still_work():
    """eig and lstsq stay on the host LAPACK (devlapack.h): a device operand comes back, the
    results are NumPy's."""
    n = _rand((6, 6), "float64", 3)
    a = _dev(n)
    w = numpy.sort_complex(numpy.asarray(cupynum.linalg.eigvals(a)))
    _close(w, numpy.sort_complex(numpy.linalg.eigvals(n)), "float64")
    b = _rand((6, 2), "float64", 4)
    x = cupynum.linalg.lstsq(a, _dev(b), rcond=None)[0]
    _close(x, numpy.linalg.lstsq(n, b, rcond=None)[0], "float64")
