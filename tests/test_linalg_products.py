"""Products (cupynum/_products.py on csrc/kernels/matmul.c: BLAS for floats and complex, exact loops
for bool and integers) against NumPy: matmul, dot, vdot, inner, outer, tensordot, kron,
linalg.matrix_power, over dtypes x shapes (empty, 1-d, batched, broadcast), strided and transposed
views, out=, and NumPy's errors.  Runs as it is under mpirun (every array partitioned with
CUPYNUM_MIN_TILE=1).  The data are quarter-integers, so float results are exact in any summation
order and compared exactly; float16 rounds once per element, as NumPy's loop does."""

import numpy
import pytest

import cupynum
from conftest import ALL_DTYPES, check, dtype_id, sample, same_error

PAIRS = [   # (shape of a, shape of b) for matmul
    ((3, 4), (4, 5)), ((4,), (4,)), ((4,), (4, 5)), ((3, 4), (4,)), ((1, 1), (1, 1)),
    ((2, 3, 4), (4, 5)), ((3, 4), (2, 4, 5)), ((2, 1, 3, 4), (5, 4, 2)), ((2, 3, 4), (4,)),
    ((4,), (2, 4, 3)), ((0, 4), (4, 5)), ((3, 0), (0, 5)), ((3, 4), (4, 0)), ((2, 0, 3), (3, 4)),
    ((0,), (0,)), ((17, 33), (33, 9)),
]


def _pair_id(p):
    return "@".join("x".join(map(str, s)) or "0d" for s in p)


def both_(shape, dt, seed):
    n = sample(shape, dt, seed=seed)
    return n, cupynum.array(n)


@pytest.mark.parametrize("dt", ALL_DTYPES, ids=dtype_id)
@pytest.mark.parametrize("pair", PAIRS, ids=_pair_id)
def test_matmul_dtypes_shapes(dt, pair):
    na, a = both_(pair[0], dt, 1)
    nb, b = both_(pair[1], dt, 2)
    check(a @ b, na @ nb)
    check(cupynum.matmul(a, b), numpy.matmul(na, nb))


@pytest.mark.parametrize("dts", [("int32", "float32"), ("bool", "int8"), ("float32", "complex64"),
                                 ("uint8", "int8"), ("float16", "float32"), ("int64", "complex128")],
                         ids=lambda d: "-".join(d))
def test_matmul_mixed_dtypes(dts):
    na, a = both_((3, 4), dts[0], 1)
    nb, b = both_((4, 2), dts[1], 2)
    check(a @ b, na @ nb)
    check(b.T @ a.T, nb.T @ na.T)


VIEWS = {
    "T": lambda x: x.T,
    "step": lambda x: x[::2],
    "rev": lambda x: x[:, ::-1],
    "colstep": lambda x: x[:, ::2],
    "sub": lambda x: x[1:, 1:],
    "bcast": lambda x: numpy.broadcast_to(x[:1], x.shape) if isinstance(x, numpy.ndarray)
    else cupynum.broadcast_to(x[:1], x.shape),
}


@pytest.mark.parametrize("dt", ["float64", "float32", "complex128", "int64", "float16"])
@pytest.mark.parametrize("va", sorted(VIEWS))
@pytest.mark.parametrize("vb", sorted(VIEWS))
def test_matmul_strided_views(dt, va, vb):
    na, a = both_((8, 8), dt, 3)
    k = VIEWS[va](na).shape[1]
    nb, b = both_((2 * k + 2, 2 * k + 2), dt, 4)
    check(VIEWS[va](a) @ VIEWS[vb](b)[:k], VIEWS[va](na) @ VIEWS[vb](nb)[:k])


@pytest.mark.parametrize("dt", ["float64", "complex64", "int32"])
def test_matmul_vectors_strided(dt):
    na, a = both_((6, 9), dt, 5)
    nv, v = both_((18,), dt, 6)
    check(a @ v[::2], na @ nv[::2])
    check(v[1::2][:6] @ a, nv[1::2][:6] @ na)
    check(v[::3] @ v[1::3], nv[::3] @ nv[1::3])
    check(a.T @ v[:6], na.T @ nv[:6])


@pytest.mark.parametrize("dt", ["float64", "float32", "complex128", "int16"])
def test_matmul_out(dt):
    na, a = both_((2, 3, 4), dt, 1)
    nb, b = both_((4, 5), dt, 2)
    out = cupynum.zeros((2, 3, 5), dt)
    r = cupynum.matmul(a, b, out=out)
    assert r is out
    check(out, numpy.matmul(na, nb))
    # a transposed (non-contiguous) output view
    base = cupynum.zeros((5, 3), dt)
    cupynum.matmul(a[0], b, out=base.T)
    check(base, numpy.matmul(na[0], nb).T.copy())
    # same_kind casting into a wider/narrower float
    if numpy.dtype(dt).kind == "f":
        o32 = cupynum.zeros((3, 5), "float16")
        cupynum.matmul(a[0], b, out=o32)
        check(o32, numpy.matmul(na[0], nb, out=numpy.zeros((3, 5), "float16")))


def test_matmul_out_aliases_input():
    na, a = both_((4, 4), "float64", 1)
    nb, b = both_((4, 4), "float64", 2)
    cupynum.matmul(a, b, out=a)
    numpy.matmul(na, nb, out=na)
    check(a, na)
    a @= b
    na @= nb
    check(a, na)


@pytest.mark.parametrize("sa,sb", [((3, 4), (5, 6)), ((2, 3, 4), (3, 4, 5)), ((4,), (5,)), ((), (3,)),
                                   ((3,), ()), ((2, 3), (2,))])
def test_matmul_errors(sa, sb):
    na, a = both_(sa, "float64", 1)
    nb, b = both_(sb, "float64", 2)
    same_error(lambda: numpy.matmul(na, nb), lambda: cupynum.matmul(a, b))


def test_matmul_out_errors():
    na, a = both_((3, 4), "float64", 1)
    nb, b = both_((4, 5), "float64", 2)
    same_error(lambda: numpy.matmul(na, nb, out=numpy.zeros((3, 4))),
                lambda: cupynum.matmul(a, b, out=cupynum.zeros((3, 4))))
    same_error(lambda: numpy.matmul(na, nb, out=numpy.zeros((3, 5), "int64")),
                lambda: cupynum.matmul(a, b, out=cupynum.zeros((3, 5), "int64")))


def test_matmul_large_float_tolerance():
    """Random (not exact) data: BLAS against NumPy's BLAS, summation orders may differ."""
    rng = numpy.random.default_rng(7)
    for dt, tol in (("float64", 1e-12), ("float32", 1e-4), ("complex128", 1e-12)):
        na = rng.standard_normal((70, 90)).astype(dt)
        nb = rng.standard_normal((90, 50)).astype(dt)
        check(cupynum.array(na) @ cupynum.array(nb), na @ nb, rtol=tol, atol=tol)


def test_float16_rounds_once_like_numpy():
    rng = numpy.random.default_rng(3)
    na = rng.standard_normal((9, 40)).astype("float16")
    nb = rng.standard_normal((40, 7)).astype("float16")
    check(cupynum.array(na) @ cupynum.array(nb), na @ nb)


# ---- dot, vdot, inner, outer, tensordot, kron --------------------------------------------------------

DOT_PAIRS = [((3, 4), (4, 5)), ((4,), (4,)), ((4,), (4, 5)), ((3, 4), (4,)), ((), (3, 4)), ((3,), ()),
             ((2, 3, 4), (4,)), ((2, 3, 4), (4, 5)), ((4,), (2, 4, 3)), ((2, 3, 4), (5, 4, 2)),
             ((0, 4), (4, 3)), ((3, 0), (0,))]


@pytest.mark.parametrize("dt", ["float64", "float32", "complex64", "complex128", "int64", "uint8",
                                "bool", "float16"])
@pytest.mark.parametrize("pair", DOT_PAIRS, ids=_pair_id)
def test_dot(dt, pair):
    na, a = both_(pair[0], dt, 1)
    nb, b = both_(pair[1], dt, 2)
    check(cupynum.dot(a, b), numpy.dot(na, nb))
    if na.ndim:
        check(a.dot(b), na.dot(nb))


def test_dot_out_and_errors():
    na, a = both_((3, 4), "float64", 1)
    nb, b = both_((4, 5), "float64", 2)
    out = cupynum.zeros((3, 5))
    assert cupynum.dot(a, b, out=out) is out
    check(out, numpy.dot(na, nb))
    same_error(lambda: numpy.dot(na, nb, out=numpy.zeros((3, 5), "float32")),
                lambda: cupynum.dot(a, b, out=cupynum.zeros((3, 5), "float32")))
    same_error(lambda: numpy.dot(na, na), lambda: cupynum.dot(a, a))
    n3, c3 = both_((2, 3, 4), "float64", 3)
    same_error(lambda: numpy.dot(n3, n3), lambda: cupynum.dot(c3, c3))


@pytest.mark.parametrize("dt", ["float64", "float32"])
@pytest.mark.parametrize("n", [1000, 2**15 - 1, 2**15, 100003, 10**6], ids=str)
def test_long_vector_dots(dt, n):
    """Two long real vectors (csrc/kernels/matmul.c's split dot: eight BLAS dots over consecutive
    pieces, on the team where it pays): dot, @, inner and vdot, contiguous and strided, close to
    NumPy's to a tight rtol (BLAS adds in another order), exact on quarter-integer data (every
    order of the sums is exact there), and the same bits on every call (the team never changes
    them)."""
    rng = numpy.random.default_rng(n)
    na, nb = rng.standard_normal(n).astype(dt), rng.standard_normal(n).astype(dt)
    a, b = cupynum.array(na), cupynum.array(nb)
    rtol = 1e-12 if dt == "float64" else 2e-5
    scale = float(numpy.abs(na.astype("float64") * nb).sum())
    for got, want in [(cupynum.dot(a, b), numpy.dot(na, nb)), (a @ b, na @ nb),
                      (cupynum.inner(a, b), numpy.inner(na, nb)), (cupynum.vdot(a, b), numpy.vdot(na, nb)),
                      (cupynum.dot(a[1::3][:n // 4], b[2::3][:n // 4]), numpy.dot(na[1::3][:n // 4], nb[2::3][:n // 4]))]:
        assert type(got) is type(want), (type(got), type(want))
        assert abs(float(got) - float(want)) <= rtol * scale, (got, want)
    first = cupynum.dot(a, b)
    assert all(cupynum.dot(a, b) == first for _ in range(20))
    qa, qb = numpy.round(na * 4) / 4, numpy.round(nb * 4) / 4
    if dt == "float32":   # exact partial sums in float32 need few bits: small values
        qa, qb = numpy.round(na * 2) / 4, numpy.sign(nb).astype(dt)
    check(cupynum.dot(cupynum.array(qa), cupynum.array(qb)), numpy.dot(qa, qb))


_DOT_CHILD = r'''
import numpy, cupynum
for dt in ("float64", "float32"):
    rng = numpy.random.default_rng(7)
    na, nb = rng.standard_normal(100003).astype(dt), rng.standard_normal(100003).astype(dt)
    print(numpy.asarray(cupynum.dot(cupynum.array(na), cupynum.array(nb))).tobytes().hex())
'''


def test_long_dot_bits_do_not_depend_on_threads():
    """The split dot's pieces depend on the length alone: a process of one thread and one of two
    give the same bits (an MPI rank has its own thread count)."""
    import os
    import subprocess
    import sys
    outs = []
    for threads in ("1", "2"):
        env = {k: v for k, v in os.environ.items() if not k.startswith(("OMPI_", "PMIX_", "PMI_"))}
        env["CUPYNUM_THREADS"] = threads
        r = subprocess.run([sys.executable, "-c", _DOT_CHILD], env=env, capture_output=True,
                           text=True, timeout=300)
        assert r.returncode == 0, r.stderr[-2000:]
        outs.append(r.stdout.split())
    assert len(outs[0]) == 2 and outs[0] == outs[1]


@pytest.mark.parametrize("dt", ["float64", "complex128", "complex64", "int32", "bool"])
@pytest.mark.parametrize("shape", [(5,), (2, 3), (0,), (3, 1, 2)], ids=str)
def test_vdot(dt, shape):
    na, a = both_(shape, dt, 1)
    nb, b = both_(shape, dt, 2)
    check(cupynum.vdot(a, b), numpy.vdot(na, nb))
    check(cupynum.vdot(a.T, b), numpy.vdot(na.T, nb))


def test_vdot_error():
    na, a = both_((3,), "float64", 1)
    nb, b = both_((4,), "float64", 2)
    same_error(lambda: numpy.vdot(na, nb), lambda: cupynum.vdot(a, b))


@pytest.mark.parametrize("dt", ["float64", "complex64", "int16", "bool"])
@pytest.mark.parametrize("pair", [((4,), (4,)), ((3, 4), (4,)), ((3, 4), (5, 4)), ((2, 3, 4), (5, 4)),
                                  ((), (3,)), ((0, 4), (2, 4))], ids=_pair_id)
def test_inner(dt, pair):
    na, a = both_(pair[0], dt, 1)
    nb, b = both_(pair[1], dt, 2)
    check(cupynum.inner(a, b), numpy.inner(na, nb))


@pytest.mark.parametrize("dt", ["float64", "complex128", "int8", "bool"])
@pytest.mark.parametrize("pair", [((4,), (3,)), ((2, 2), (3,)), ((0,), (3,)), ((), (2,))], ids=_pair_id)
def test_outer(dt, pair):
    na, a = both_(pair[0], dt, 1)
    nb, b = both_(pair[1], dt, 2)
    check(cupynum.outer(a, b), numpy.outer(na, nb))
    if na.ndim == 1 and nb.ndim == 1:
        check(cupynum.linalg.outer(a, b), numpy.linalg.outer(na, nb))
    out = cupynum.zeros((na.size, nb.size), numpy.result_type(na, nb))
    assert cupynum.outer(a, b, out=out) is out
    check(out, numpy.outer(na, nb))


@pytest.mark.parametrize("dt", ["float64", "float32", "complex64", "int64"])
@pytest.mark.parametrize("shapes,axes", [
    (((3, 4, 5), (4, 5, 2)), 2), (((3, 4), (4, 5)), 1), (((3,), (4,)), 0),
    (((3, 4, 5), (5, 3, 2)), ([0, 2], [1, 0])), (((2, 3), (3, 2)), ([1, 0], [0, 1])),
    (((3, 4), (4, 3)), (1, 0)), (((0, 4), (4, 2)), 1), (((2, 3, 4), (2, 3, 4)), 3),
    (((3, 4), (3, 4)), ([-1], [-1])),
], ids=lambda x: str(x))
def test_tensordot(dt, shapes, axes):
    na, a = both_(shapes[0], dt, 1)
    nb, b = both_(shapes[1], dt, 2)
    check(cupynum.tensordot(a, b, axes=axes), numpy.tensordot(na, nb, axes=axes))
    if not isinstance(axes, tuple):
        check(cupynum.linalg.tensordot(a, b, axes=axes), numpy.linalg.tensordot(na, nb, axes=axes))


def test_tensordot_errors():
    na, a = both_((3, 4), "float64", 1)
    nb, b = both_((5, 4), "float64", 2)
    same_error(lambda: numpy.tensordot(na, nb, 1), lambda: cupynum.tensordot(a, b, 1))
    same_error(lambda: numpy.tensordot(na, nb, ([0], [0])), lambda: cupynum.tensordot(a, b, ([0], [0])))
    same_error(lambda: numpy.inner(na, nb.T), lambda: cupynum.inner(a, b.T))


def test_tensordot_plans_are_reused_only_for_equal_int_axes():
    """A contraction repeated with the same shapes and axes of Python ints runs a cached plan;
    the same axes spelled otherwise (floats, bools, NumPy ints, tuples) still meet NumPy's rules
    and errors, and other shapes or dtypes plan anew."""
    na, a = both_((3, 4, 5), "float64", 1)
    nb, b = both_((4, 5, 2), "float64", 2)
    for _ in range(2):
        check(cupynum.tensordot(a, b, ([1, 2], [0, 1])), numpy.tensordot(na, nb, ([1, 2], [0, 1])))
        check(cupynum.tensordot(a, b, 2), numpy.tensordot(na, nb, 2))
        check(cupynum.tensordot(a, b, ([-1], [1])), numpy.tensordot(na, nb, ([-1], [1])))
    check(cupynum.tensordot(a, b, ((numpy.int64(1), 2), (0, 1))), numpy.tensordot(na, nb, ([1, 2], [0, 1])))
    check(cupynum.tensordot(a.astype("int32"), b.astype("int32"), 2),
          numpy.tensordot(na.astype("int32"), nb.astype("int32"), 2))
    same_error(lambda: numpy.tensordot(na, nb, ([1.0, 2], [0, 1])),
               lambda: cupynum.tensordot(a, b, ([1.0, 2], [0, 1])))
    same_error(lambda: numpy.tensordot(na, nb, 2.0), lambda: cupynum.tensordot(a, b, 2.0))
    nc, c = both_((4, 6, 2), "float64", 3)    # other extents: no plan of the first applies
    same_error(lambda: numpy.tensordot(na, nc, ([1, 2], [0, 1])),
               lambda: cupynum.tensordot(a, c, ([1, 2], [0, 1])))
    same_error(lambda: numpy.tensordot(na, nc, 2), lambda: cupynum.tensordot(a, c, 2))


@pytest.mark.parametrize("dt", ["float64", "complex64", "int32", "bool"])
@pytest.mark.parametrize("pair", [((2, 3), (4, 2)), ((3,), (2,)), ((2, 2), (3,)), ((3,), (2, 2)),
                                  ((2, 1, 2), (3, 2)), ((), (3,)), ((0, 2), (2, 2))], ids=_pair_id)
def test_kron(dt, pair):
    na, a = both_(pair[0], dt, 1)
    nb, b = both_(pair[1], dt, 2)
    check(cupynum.kron(a, b), numpy.kron(na, nb))


# ---- matrix_power ------------------------------------------------------------------------------------------

@pytest.mark.parametrize("dt", ["float64", "complex128", "int64", "float32"])
@pytest.mark.parametrize("n", [0, 1, 2, 3, 4, 5, 7, 10])
@pytest.mark.parametrize("shape", [(3, 3), (2, 4, 4), (0, 0), (1, 1)], ids=str)
def test_matrix_power(dt, n, shape):
    na = sample(shape, dt, seed=1, low=-1, high=1)
    a = cupynum.array(na)
    got, want = cupynum.linalg.matrix_power(a, n), numpy.linalg.matrix_power(na, n)
    tol = 1e-5 if dt == "float32" else 1e-12
    if numpy.dtype(dt).kind in "iu":
        check(got, want)
    else:
        check(got, want, rtol=tol, atol=tol)


def test_matrix_power_negative_and_errors():
    na = numpy.array([[2.0, 1.0], [1.0, 3.0]])
    a = cupynum.array(na)
    check(cupynum.linalg.matrix_power(a, -3), numpy.linalg.matrix_power(na, -3), rtol=1e-12)
    nb = numpy.ones((2, 3))
    same_error(lambda: numpy.linalg.matrix_power(nb, 2),
                lambda: cupynum.linalg.matrix_power(cupynum.array(nb), 2))
    same_error(lambda: numpy.linalg.matrix_power(na, 1.5),
                lambda: cupynum.linalg.matrix_power(a, 1.5))


def test_numpy_calls_route_to_the_native_products():
    na, a = both_((3, 4), "float64", 1)
    nb, b = both_((4, 3), "float64", 2)
    for f in (numpy.dot, numpy.inner, numpy.outer, numpy.kron, numpy.tensordot, numpy.vdot,
              numpy.matmul):
        if f is numpy.inner:
            check(f(a, b.T), f(na, nb.T))
        elif f is numpy.tensordot:
            check(f(a, b, 1), f(na, nb, 1))
        else:
            check(f(a, b), f(na, nb))
    check(numpy.linalg.matrix_power(a @ b, 3), numpy.linalg.matrix_power(na @ nb, 3))


def test_blas_reported():
    assert isinstance(cupynum.runtime_info()["blas"], str)


# ---- across ranks: SUMMA (csrc/runtime/summa.c) -------------------------------------------------------

@pytest.mark.parametrize("dt", ["float64", "float32", "complex128", "int64", "float16", "bool"])
@pytest.mark.parametrize("mkn", [(48, 48, 48), (37, 50, 23), (1, 9, 30), (30, 9, 1), (10, 0, 10)], ids=str)
@pytest.mark.parametrize("form", ["ab", "aTb", "abT", "aTbT"])
def test_partitioned_products(dt, mkn, form):
    m, k, n = mkn
    na = sample((k, m) if "aT" in form else (m, k), dt, seed=1)
    nb = sample((n, k) if "bT" in form else (k, n), dt, seed=2)
    a, b = cupynum.array(na), cupynum.array(nb)
    if "aT" in form:
        a, na = a.T, na.T
    if "bT" in form:
        b, nb = b.T, nb.T
    check(a @ b, na @ nb)


@pytest.mark.parametrize("n", [64, 90])
def test_partitioned_matmul_moves_summa_bytes(n):
    """Per rank, the bytes a partitioned n x n product sends stay within SUMMA's 2 n^2 / sqrt(p)
    elements, and below what gathering both operands would send (2 n^2 (p - 1) / p)."""
    p = cupynum.runtime_info()["ranks"]
    na, nb = sample((n, n), "float64", seed=1), sample((n, n), "float64", seed=2)
    a, b = cupynum.array(na), cupynum.array(nb)
    cupynum.sync()
    cupynum.reset_stats()
    c = a @ b
    cupynum.sync()
    sent = cupynum.runtime_stats()["bytes_sent"]
    tiled = cupynum._core._tiling(c)["tiled"]
    check(c, na @ nb)
    if p == 1 or not tiled:
        assert sent == 0
        return
    assert sent <= 2 * n * n / p ** 0.5 * 8
    assert sent < 2 * n * n * (p - 1) / p * 8


# ---- numpy.linalg.multi_dot, numpy.linalg.vecdot -----------------------------------------------------------

@pytest.mark.parametrize("dt", ["float64", "complex128", "int64"])
@pytest.mark.parametrize("shapes", [[(3, 4), (4, 5)], [(3, 4), (4, 5), (5, 2)], [(10, 2), (2, 9), (9, 3)],
                                    [(4,), (4, 5), (5, 6), (6, 2), (2,)], [(10, 3), (3, 12), (12, 4), (4, 7)],
                                    [(2, 3), (3,)], [(5,), (5, 2), (2, 3)]], ids=str)
def test_multi_dot(dt, shapes):
    ns = [sample(s, dt, seed=i) for i, s in enumerate(shapes)]
    check(cupynum.linalg.multi_dot([cupynum.array(x) for x in ns]), numpy.linalg.multi_dot(ns))


def test_multi_dot_errors_and_out():
    ns = [sample(s, "float64", seed=i) for i, s in enumerate([(2, 3), (3, 4), (4, 2)])]
    cs = [cupynum.array(x) for x in ns]
    out = cupynum.zeros((2, 2))
    assert cupynum.linalg.multi_dot(cs, out=out) is out
    check(out, numpy.linalg.multi_dot(ns))
    bad = [ns[0], ns[0], ns[2]]
    same_error(lambda: numpy.linalg.multi_dot(bad), lambda: cupynum.linalg.multi_dot([cupynum.array(x) for x in bad]))
    bad = [numpy.ones((2, 2, 2)), ns[0], ns[1]]
    same_error(lambda: numpy.linalg.multi_dot(bad), lambda: cupynum.linalg.multi_dot([cupynum.array(x) for x in bad]))
    same_error(lambda: numpy.linalg.multi_dot([ns[0]]), lambda: cupynum.linalg.multi_dot([cs[0]]))


@pytest.mark.parametrize("dt", ["float64", "float32", "complex128", "complex64", "int32", "bool"])
@pytest.mark.parametrize("sa,sb,axis", [((5,), (5,), -1), ((3, 4), (4,), -1), ((3, 4), (2, 1, 4), -1),
                                        ((4, 3), (4, 3), 0), ((2, 0), (2, 0), -1), ((0, 3), (1, 3), -1),
                                        ((3, 4, 2), (3, 1, 2), -3)], ids=str)
def test_linalg_vecdot(dt, sa, sb, axis):
    na, a = both_(sa, dt, 1)
    nb, b = both_(sb, dt, 2)
    check(cupynum.linalg.vecdot(a, b, axis=axis), numpy.linalg.vecdot(na, nb, axis=axis))


def test_linalg_vecdot_error():
    na, a = both_((3, 4), "float64", 1)
    nb, b = both_((3, 5), "float64", 2)
    same_error(lambda: numpy.linalg.vecdot(na, nb), lambda: cupynum.linalg.vecdot(a, b))


@pytest.mark.parametrize("dt", ["float64", "complex64", "int32"])
@pytest.mark.parametrize("mk", [(64, 64), (37, 50), (1, 5), (5, 1), (120, 90)], ids=str)
def test_partitioned_matrix_vector(dt, mk):
    """1-d operands (whole 1-D stores seen as a column or a row) take summa.c too."""
    m, k = mk
    na, a = both_((m, k), dt, 1)
    nx, x = both_((k,), dt, 2)
    ny, y = both_((m,), dt, 3)
    check(a @ x, na @ nx)
    check(y @ a, ny @ na)
    check(a.T @ y, na.T @ ny)
    check(x @ a.T, nx @ na.T)
    check(cupynum.dot(a, x), numpy.dot(na, nx))


def test_partitioned_matrix_vector_moves_less_than_gathering():
    n = 96
    p = cupynum.runtime_info()["ranks"]
    na, nx = sample((n, n), "float64", seed=1), sample((n,), "float64", seed=2)
    a, x = cupynum.array(na), cupynum.array(nx)
    cupynum.sync()
    cupynum.reset_stats()
    y = a @ x
    cupynum.sync()
    sent = cupynum.runtime_stats()["bytes_sent"]
    check(y, na @ nx)
    if p > 1 and cupynum._core._tiling(a)["tiled"]:
        assert sent < n * n * (p - 1) / p * 8   # gathering A alone would send this


# ---- numpy.matvec, numpy.vecmat, numpy.vecdot (NumPy 2.2+ gufuncs) ------------------------------

GUFUNC_CASES = {   # (shape of x1, shape of x2) per gufunc: plain, batched, broadcast, empty
    "matvec": [((3, 4), (4,)), ((2, 3, 4), (4,)), ((3, 4), (5, 4)), ((2, 1, 3, 4), (5, 4)),
               ((0, 4), (4,)), ((3, 0), (0,)), ((2, 3, 4), (2, 4)), ((17, 33), (33,))],
    "vecmat": [((4,), (4, 3)), ((4,), (2, 4, 3)), ((5, 4), (4, 3)), ((5, 1, 4), (2, 4, 3)),
               ((0,), (0, 3)), ((4,), (4, 0)), ((2, 4), (2, 4, 3)), ((33,), (33, 17))],
    "vecdot": [((4,), (4,)), ((3, 4), (4,)), ((3, 4), (2, 1, 4)), ((0,), (0,)), ((2, 0), (2, 0)),
               ((0, 3), (1, 3)), ((33,), (5, 33))],
}
GU_DTYPES = ["bool", "int8", "uint16", "int32", "int64", "float16", "float32", "float64",
             "complex64", "complex128"]


@pytest.mark.parametrize("dt", GU_DTYPES)
@pytest.mark.parametrize("name,sa,sb", [(n, a, b) for n, cs in GUFUNC_CASES.items() for a, b in cs],
                         ids=lambda x: x if isinstance(x, str) else "x".join(map(str, x)) or "0d")
def test_gufuncs(name, dt, sa, sb):
    """Every dtype (complex: vecmat and vecdot conjugate x1), batched and broadcast loop
    dimensions, empty core or loop dimensions; the cupynum ufunc and NumPy's ufunc on cupynum
    arrays, both native (no fallback)."""
    na, a = both_(sa, dt, 1)
    nb, b = both_(sb, dt, 2)
    if numpy.dtype(dt).kind == "c":
        na, nb = na + 1j * na[::-1].real, nb - 0.5j * nb.real   # exact, truly complex
        a, b = cupynum.array(na), cupynum.array(nb)
    want = getattr(numpy, name)(na, nb)
    tol = dict(rtol=1e-3) if dt == "float16" else {}
    import warnings
    with warnings.catch_warnings():
        warnings.simplefilter("error", cupynum.FallbackWarning)
        check(getattr(cupynum, name)(a, b), want, **tol)
        check(getattr(numpy, name)(a, b), want, **tol)


@pytest.mark.parametrize("dts", [("int8", "uint8"), ("int32", "float32"), ("float32", "complex128"),
                                 ("bool", "int16")], ids=str)
@pytest.mark.parametrize("name", ["matvec", "vecmat", "vecdot"])
def test_gufuncs_mixed_dtypes_and_dtype(name, dts):
    sa, sb = GUFUNC_CASES[name][1]
    na, a = both_(sa, dts[0], 3)
    nb, b = both_(sb, dts[1], 4)
    f, g = getattr(numpy, name), getattr(cupynum, name)
    check(g(a, b), f(na, nb))
    check(g(a, b, dtype="complex128"), f(na, nb, dtype="complex128"))
    check(g(a, b, dtype="complex64", casting="unsafe"), f(na, nb, dtype="complex64", casting="unsafe"))


@pytest.mark.parametrize("name,sa,sb,kw", [
    ("matvec", (4, 3, 5), (5, 3), dict(axes=[(0, 2), 0, 0])),
    ("matvec", (3, 4, 5), (4, 3), dict(axes=[(-1, -2), (0,), (-1,)])),
    ("vecmat", (4, 2), (3, 4, 2), dict(axes=[0, (1, 0), 1])),
    ("vecdot", (3, 2), (3, 2), dict(axis=0)),
    ("vecdot", (3, 2), (3, 1), dict(axis=0, keepdims=True)),
    ("vecdot", (3, 2), (2, 3), dict(axes=[0, 1])),
    ("vecdot", (3, 2), (2, 3), dict(axes=[0, 1, ()])),
    ("vecdot", (3, 2), (2, 3), dict(axes=[0, 1], keepdims=True)),
    ("vecdot", (5, 3, 2), (2, 3), dict(axes=[-2, 1, 1], keepdims=True)),
    ("vecdot", (4, 3), (3,), dict(keepdims=True)),
], ids=str)
def test_gufuncs_axes_axis_keepdims(name, sa, sb, kw):
    for dt in ("float64", "complex128", "int64"):
        na, a = both_(sa, dt, 5)
        nb, b = both_(sb, dt, 6)
        check(getattr(cupynum, name)(a, b, **kw), getattr(numpy, name)(na, nb, **kw))


@pytest.mark.parametrize("name", ["matvec", "vecmat", "vecdot"])
def test_gufuncs_out(name):
    sa, sb = GUFUNC_CASES[name][2]
    na, a = both_(sa, "float64", 7)
    nb, b = both_(sb, "float64", 8)
    f, g = getattr(numpy, name), getattr(cupynum, name)
    want = f(na, nb)
    for odt in ("float64", "float32", "complex128"):
        out = cupynum.zeros(want.shape, odt)
        assert g(a, b, out=out) is out
        check(out, want.astype(odt))
        out = cupynum.zeros(want.shape, odt)
        assert g(a, b, out) is out                       # positional
        assert g(a, b, out=(out,)) is out                # a 1-tuple
        check(out, want.astype(odt))
    # out's loop dimensions broadcast the operands' (NumPy's ufunc rule)
    nout = numpy.zeros((2,) + want.shape)
    out = cupynum.zeros((2,) + want.shape)
    f(na, nb, out=nout)
    g(a, b, out=out)
    check(out, nout)
    # the output's core axis placed by axes=
    if name != "vecdot":
        nout = numpy.zeros(want.shape[::-1])
        out = cupynum.zeros(want.shape[::-1])
        ax = [(-2, -1), -1, 0] if name == "matvec" else [-1, (-2, -1), 0]
        f(na, nb, out=nout, axes=ax)
        assert g(a, b, out=out, axes=ax) is out
        check(out, nout)
    # a NumPy output: NumPy's call on gathered data, written into it
    nout = numpy.zeros(want.shape)
    assert g(a, b, out=nout) is nout
    check(cupynum.array(nout), want)


@pytest.mark.parametrize("name,sa,sb,kw", [
    ("matvec", (3, 4), (5,), {}), ("vecmat", (3,), (4, 5), {}), ("vecdot", (3,), (4,), {}),
    ("matvec", (4,), (4,), {}), ("vecmat", (2, 3), (3,), {}), ("vecdot", (), (3,), {}),
    ("matvec", (2, 3, 4), (3, 4), {}), ("vecdot", (3, 2), (3, 2), dict(axis=2)),
    ("matvec", (3, 4), (4,), dict(axis=0)), ("matvec", (3, 4), (4,), dict(keepdims=True)),
    ("matvec", (3, 4), (4,), dict(axes=[(0, 1), 0])), ("vecdot", (3, 2), (3, 2), dict(axes=[0])),
    ("vecdot", (3, 2), (3, 2), dict(axes=[0, 0, 0])), ("vecdot", (3, 2), (3, 2), dict(axes=[0, 0], axis=0)),
    ("vecdot", (3, 2), (3, 2), dict(axis=[0])), ("vecdot", (3, 2), (3, 2), dict(axis=1.0)),
    ("vecdot", (3,), (3,), dict(dtype="int8")), ("vecdot", (3,), (3,), dict(casting="no", dtype="float32")),
    ("vecdot", (3,), (3,), dict(where=True)), ("matvec", (3, 3), (3,), dict(bogus=1)),
], ids=str)
def test_gufuncs_errors(name, sa, sb, kw):
    na, a = both_(sa, "float64", 9)
    nb, b = both_(sb, "float64", 10)
    same_error(lambda: getattr(numpy, name)(na, nb, **kw), lambda: getattr(cupynum, name)(a, b, **kw))


def test_gufuncs_out_errors_write_nothing():
    na, a = both_((3, 4), "complex128", 11)
    nb, b = both_((4,), "complex128", 12)
    for shape, dt in (((4,), "complex128"), ((3,), "float64"), ((3, 1), "complex128")):
        nout, out = numpy.full(shape, 7, dt), cupynum.full(shape, 7, dt)
        same_error(lambda: numpy.matvec(na, nb, out=nout), lambda: cupynum.matvec(a, b, out=out))
        check(out, nout)
