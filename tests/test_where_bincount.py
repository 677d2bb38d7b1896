"""cupynum.where (the runtime's select op) and cupynum.bincount (a native kernel), swept against
NumPy: dtypes, broadcasting, NEP 50 Python scalars, NumPy's errors; both stay native (no
FallbackWarning) and where fuses with the ops around it."""

import contextlib
import os
import warnings

import numpy
import pytest

import cupynum
from cupynum import _core

from conftest import ALL_DTYPES, check, dtype_id, sample


def one_rank():
    return cupynum.runtime_info()["ranks"] == 1


@contextlib.contextmanager
def native():
    """A context in which a fallback to NumPy is an error."""
    with warnings.catch_warnings():
        warnings.simplefilter("error", cupynum.FallbackWarning)
        os.environ["CUPYNUM_FALLBACK"] = "error"
        try:
            yield
        finally:
            del os.environ["CUPYNUM_FALLBACK"]


# ---- where -------------------------------------------------------------------------------------

@pytest.mark.parametrize("dt", ALL_DTYPES, ids=dtype_id)
def test_where_dtypes(dt):
    c = sample((23,), numpy.bool_, seed=1)
    x = sample((23,), dt, seed=2)
    y = sample((23,), dt, seed=3)
    with native():
        got = cupynum.where(cupynum.array(c), cupynum.array(x), cupynum.array(y))
    check(got, numpy.where(c, x, y))


@pytest.mark.parametrize("dx,dy", [("int8", "uint8"), ("int16", "float32"), ("bool", "int64"),
                                   ("float32", "complex64"), ("uint64", "int64"),
                                   ("float16", "int32"), ("int32", "float64")])
def test_where_promotes_arrays(dx, dy):
    c = sample((4, 5), numpy.bool_, seed=4)
    x, y = sample((4, 5), dx, seed=5), sample((4, 5), dy, seed=6)
    got = cupynum.where(cupynum.array(c), cupynum.array(x), cupynum.array(y))
    check(got, numpy.where(c, x, y))


@pytest.mark.parametrize("dt", ["int8", "uint8", "int64", "float16", "float32", "float64",
                                "complex64", "bool"])
@pytest.mark.parametrize("scalar", [3, -1, 300, 2.5, 1e300, 1j, True, numpy.float32(1.5),
                                    numpy.int16(7)], ids=repr)
def test_where_python_and_numpy_scalars(dt, scalar):
    """NEP 50: Python scalars are weak, NumPy scalars are not; values are cast unsafely."""
    c = sample((9,), numpy.bool_, seed=7)
    x = sample((9,), dt, seed=8)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", RuntimeWarning)
        for args in ((c, x, scalar), (c, scalar, x)):
            try:
                ref = numpy.where(*args)
            except Exception as e:  # noqa: BLE001
                with pytest.raises(type(e)):
                    cupynum.where(*(cupynum.array(a) if isinstance(a, numpy.ndarray) else a
                                    for a in args))
                continue
            got = cupynum.where(*(cupynum.array(a) if isinstance(a, numpy.ndarray) else a
                                  for a in args))
            check(got, ref)


def test_where_float_overflow_warns_as_numpy():
    x = numpy.ones(3, numpy.float32)
    c = numpy.array([True, False, True])
    with pytest.warns(RuntimeWarning, match="overflow encountered in cast"):
        ref = numpy.where(c, x, 1e300)
    with pytest.warns(RuntimeWarning, match="overflow encountered in cast"):
        got = cupynum.where(cupynum.array(c), cupynum.array(x), 1e300)
    check(got, ref)


@pytest.mark.parametrize("shapes", [((3, 1), (1, 4), (3, 4)), ((5,), (2, 5), ()), ((), (), ()),
                                    ((2, 1, 3), (4, 1), (1,)), ((0,), (0,), (1,)),
                                    ((3, 4), (3, 4), (3, 4))])
def test_where_broadcasts(shapes):
    cs, xs, ys = shapes
    c = sample(cs, numpy.bool_, seed=9)
    x, y = sample(xs, numpy.float64, seed=10), sample(ys, numpy.int32, seed=11)
    with native():
        got = cupynum.where(cupynum.array(c), cupynum.array(x), cupynum.array(y))
    check(got, numpy.where(c, x, y))


@pytest.mark.parametrize("cdt", ["float64", "int32", "complex128", "uint8"])
def test_where_condition_truth(cdt):
    c = sample((17,), cdt, seed=12, low=-1, high=1)
    if cdt == "float64":
        c[3] = numpy.nan
    x, y = sample((17,), numpy.int64, seed=13), sample((17,), numpy.int64, seed=14)
    check(cupynum.where(cupynum.array(c), cupynum.array(x), cupynum.array(y)), numpy.where(c, x, y))


def test_where_mixed_operand_kinds():
    c = [True, False, True]
    x = cupynum.arange(3.0)
    check(cupynum.where(c, x, [7, 8, 9]), numpy.where(c, numpy.arange(3.0), [7, 8, 9]))
    check(cupynum.where(True, 1, 2.0), numpy.where(True, 1, 2.0))
    check(cupynum.where(numpy.bool_(False), x, 5), numpy.where(numpy.bool_(False), numpy.arange(3.0), 5))
    check(cupynum.where(x > 0.5, x, numpy.arange(3)), numpy.where(numpy.arange(3.0) > 0.5,
                                                                  numpy.arange(3.0), numpy.arange(3)))


def test_where_numpy_dispatch():
    x = cupynum.arange(6.0).reshape(2, 3)
    got = numpy.where(x > 2, x, -x)
    assert isinstance(got, cupynum.ndarray)
    n = numpy.arange(6.0).reshape(2, 3)
    check(got, numpy.where(n > 2, n, -n))


def test_where_errors():
    c = cupynum.ones(2, dtype=bool)
    with pytest.raises(ValueError, match="operands could not be broadcast together with shapes"):
        cupynum.where(c, cupynum.ones(3), cupynum.ones(4))
    with pytest.raises(ValueError, match="either both or neither"):
        numpy.where(numpy.ones(2, bool), 1)
    with pytest.raises(ValueError, match="either both or neither"):
        cupynum.where(c, 1)


def test_where_one_argument_is_nonzero():
    a = numpy.array([[0, 1, 0], [2, 0, 3]])
    got = cupynum.where(cupynum.array(a))
    ref = numpy.where(a)
    assert len(got) == len(ref)
    for g, r in zip(got, ref):
        numpy.testing.assert_array_equal(numpy.asarray(g), r)


def test_where_unsupported_dtypes_fall_back_to_numpy():
    c = numpy.array([True, False])
    got = cupynum.where(cupynum.array(c), "a", "b")
    numpy.testing.assert_array_equal(numpy.asarray(got), numpy.where(c, "a", "b"))


def test_where_fuses_into_one_run():
    """Black-Scholes' cnd: the select is part of the fused chain, no temporary written."""
    def cnd(np, n=50_000):
        d = np.arange(n, dtype=np.float64) * (8.0 / n) - 4.0
        w = 1.0 - 0.39 * np.exp(-0.5 * d * d)
        return np.where(d < 0, 1.0 - w, w)

    was = _core._set_fusion(False)
    try:
        off = numpy.asarray(cnd(cupynum))
    finally:
        _core._set_fusion(was)
    cupynum.sync()
    cupynum.reset_stats()
    on = cnd(cupynum)
    cupynum.sync()
    st = cupynum.runtime_stats()
    assert numpy.asarray(on).tobytes() == off.tobytes()
    numpy.testing.assert_allclose(numpy.asarray(on), cnd(numpy), rtol=1e-12, atol=0)
    if one_rank():
        assert st["fused_runs"] == 1
        assert st["fused_ops"] >= 9


def test_where_bad_input_leaves_operands_unchanged():
    x = cupynum.arange(4.0)
    with pytest.raises(ValueError):
        cupynum.where(cupynum.ones(3, dtype=bool), x, x)
    check(x, numpy.arange(4.0))


# ---- bincount -----------------------------------------------------------------------------------

@pytest.mark.parametrize("dt", ["int8", "int16", "int32", "int64", "uint8", "uint16", "uint32",
                                "uint64", "bool"])
@pytest.mark.parametrize("n", [0, 1, 7, 1000, 100_003])
def test_bincount_dtypes(dt, n):
    a = sample((n,), dt, seed=15, low=0, high=40) if dt != "bool" else sample((n,), dt, seed=15)
    with native():
        got = cupynum.bincount(cupynum.array(a))
    check(got, numpy.bincount(a))


@pytest.mark.parametrize("wdt", ["float64", "float32", "int64", "int8", "uint16", "bool"])
@pytest.mark.parametrize("n", [1, 9, 5000, 200_001])
def test_bincount_weights(wdt, n):
    a = sample((n,), numpy.int64, seed=16, low=0, high=12)
    w = sample((n,), wdt, seed=17)
    with native():
        got = cupynum.bincount(cupynum.array(a), weights=cupynum.array(w))
    check(got, numpy.bincount(a, weights=w), rtol=1e-12, atol=1e-9)
    got = cupynum.bincount(cupynum.array(a), weights=w)   # NumPy weights
    check(got, numpy.bincount(a, weights=w), rtol=1e-12, atol=1e-9)


@pytest.mark.parametrize("minlength", [0, 1, 5, 50])
def test_bincount_minlength(minlength):
    a = sample((300,), numpy.int32, seed=18, low=0, high=9)
    check(cupynum.bincount(cupynum.array(a), minlength=minlength),
          numpy.bincount(a, minlength=minlength))
    check(cupynum.bincount(cupynum.array(a[:0]), minlength=minlength),
          numpy.bincount(a[:0], minlength=minlength))
    w = sample((300,), numpy.float64, seed=19)
    check(cupynum.bincount(cupynum.array(a), cupynum.array(w), minlength),
          numpy.bincount(a, w, minlength), rtol=1e-12, atol=1e-12)


def test_bincount_many_bins_and_views():
    a = (numpy.arange(70_000) * 7919) % 50_000
    check(cupynum.bincount(cupynum.array(a)), numpy.bincount(a))
    c = cupynum.array(a)
    check(cupynum.bincount(c[::-3]), numpy.bincount(a[::-3]))
    m = numpy.arange(60).reshape(6, 10) % 7
    cm = cupynum.array(m)
    check(cupynum.bincount(cm[:, 3], weights=cupynum.array(m.astype(float))[:, 4]),
          numpy.bincount(m[:, 3], weights=m.astype(float)[:, 4]))


def test_bincount_of_deferred_labels():
    """k-means: labels from argmin, weights a column view; the count stays deferred."""
    pts = numpy.stack([numpy.sin(numpy.arange(4000.0)), numpy.cos(numpy.arange(4000.0) * 0.7)], 1)
    cen = pts[:5].copy()
    d = ((pts[:, None, :] - cen[None, :, :]) ** 2).sum(axis=2)
    lab = d.argmin(axis=1)
    cp_pts = cupynum.array(pts)
    cd = ((cp_pts[:, None, :] - cupynum.array(cen)[None, :, :]) ** 2).sum(axis=2)
    clab = cd.argmin(axis=1)
    with native():
        got = cupynum.bincount(clab, weights=cp_pts[:, 1], minlength=5)
        cnt = cupynum.bincount(clab, minlength=5)
    check(cnt, numpy.bincount(lab, minlength=5))
    check(got, numpy.bincount(lab, weights=pts[:, 1], minlength=5), rtol=1e-12, atol=1e-12)


@pytest.mark.parametrize("case", [
    lambda np: np.bincount(np.asarray([1, -1, 2])),
    lambda np: np.bincount(np.asarray([1, 2]), minlength=-1),
    lambda np: np.bincount(np.asarray([1, 2]), minlength=None),
    lambda np: np.bincount(np.asarray([1, 2]), minlength=2.0),
    lambda np: np.bincount(np.asarray([1, 2]), weights=np.asarray([1.0])),
    lambda np: np.bincount(np.asarray([1.0, 2.0])),
    lambda np: np.bincount(np.asarray([[1, 2]])),
    lambda np: np.bincount(np.asarray(3)),
    lambda np: np.bincount(np.asarray([1, 2]), weights=np.asarray([[1.0, 2.0]])),
], ids=["negative", "minlength<0", "minlength-None", "minlength-float", "weights-length",
        "float-input", "2-d", "0-d", "weights-2-d"])
def test_bincount_errors_are_numpys(case):
    with pytest.raises(Exception) as e_np:
        case(numpy)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", cupynum.FallbackWarning)
        with pytest.raises(type(e_np.value)) as e_cp:
            case(cupynum)
    assert str(e_cp.value) == str(e_np.value)


def test_bincount_lists_and_numpy_dispatch():
    check(cupynum.bincount([0, 3, 3, 1]), numpy.bincount([0, 3, 3, 1]))
    check(cupynum.bincount([]), numpy.bincount([]))
    a = cupynum.array([2, 2, 0])
    got = numpy.bincount(a, minlength=4)
    assert isinstance(got, cupynum.ndarray)
    check(got, numpy.bincount(numpy.array([2, 2, 0]), minlength=4))


# where's dense loops blend the candidates' bits under a mask from the condition: every element
# size, array or scalar candidates, NaNs and signed zeros kept bit for bit, and a condition
# whose True bytes are not 1 (a NumPy bool view of other bytes) still counts as True.
@pytest.mark.parametrize("dt", ["int8", "int16", "float32", "float64", "complex128", "bool"])
@pytest.mark.parametrize("form", ["arrays", "scalar_x", "scalar_y", "scalars"])
def test_where_blends_every_element_size(dt, form):
    n = 1037
    raw = numpy.frombuffer(bytes((i * 7) % 3 for i in range(n)), dtype=numpy.uint8)
    cond = raw.view(numpy.bool_)        # bytes 0, 1 and 2
    x = (numpy.arange(n) % 11 - 5).astype(dt)
    y = (numpy.arange(n) % 7).astype(dt)
    if numpy.dtype(dt).kind == "f":
        x[::5] = numpy.nan
        y[::3] = -0.0
    args = {"arrays": (x, y), "scalar_x": (x[3], y), "scalar_y": (x, y[4]),
            "scalars": (x[3], y[4])}[form]
    ref = numpy.where(cond, *args)
    got = cupynum.where(cupynum.asarray(cond), *[cupynum.asarray(a) if isinstance(a, numpy.ndarray)
                                                else a for a in args])
    got = numpy.asarray(got)
    assert got.dtype == ref.dtype and got.shape == ref.shape
    assert got.tobytes() == ref.tobytes()


def _chunk_order(a, w, nbins):
    """histogram.c's summation order: chunks of the input (their length a function of (n,
    nbins) only), each summed in index order, the chunk sums added in chunk order."""
    n = a.shape[0]
    nch = min(n // 32768, 64)
    per = n if nch < 2 or nbins * nch > n // 4 else (n + nch - 1) // nch
    r = numpy.zeros(nbins)
    for c in range(0, n, max(per, 1)):
        r += numpy.bincount(a[c:c + per], weights=w[c:c + per], minlength=nbins)
    return r


@pytest.mark.parametrize("n,nbins", [(200_001, 8), (99_999, 3), (70_000, 30_000), (5_000, 7), (3, 2)])
def test_bincount_of_a_partitioned_array_moves_the_bins(n, nbins):
    """bincount of labels split in ranges (weights split alike): each rank counts its range;
    a weighted count continues a chunk cut by a rank boundary from the previous rank's running
    sums, so the sums are bitwise those of one process (histogram.c's order) on any rank count,
    and a rank sends O(bins) bytes (its counts, a cut chunk's sums), not the labels."""
    rng = numpy.random.default_rng(n)
    a = rng.integers(0, nbins, n)
    w = rng.random(n) - 0.3
    ca, cw = cupynum.array(a), cupynum.array(w)
    cupynum.sync()
    ranks = cupynum.runtime_info()["ranks"]
    for weights in (None, cw):
        before = cupynum.runtime_stats()["bytes_sent"]
        with native():
            got = cupynum.bincount(ca, weights=weights)
        cupynum.sync()
        moved = cupynum.runtime_stats()["bytes_sent"] - before
        if weights is None:
            check(got, numpy.bincount(a))
        else:
            check(got, _chunk_order(a, w, nbins))
            check(got, numpy.bincount(a, weights=w), rtol=1e-12, atol=1e-12)
        assert moved <= (8 * nbins + 64) * 2 * ranks + 1024, moved
