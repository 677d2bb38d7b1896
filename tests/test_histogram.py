"""histogram (integer and array bins, range, float64 weights, density), histogram_bin_edges and
digitize against NumPy, bit for bit: dtypes, NaN/inf outside the range, edge values, empty and
length-1 inputs, NumPy's errors; under mpirun every array partitioned (CUPYNUM_MIN_TILE=1)."""

import warnings

import numpy
import pytest

import cupynum
from conftest import ALL_DTYPES, check, dtype_id, same_error
from test_sorting import special

pytestmark = [pytest.mark.device, pytest.mark.mpi_device]

REAL = [d for d in ALL_DTYPES if d.kind != "c"]


def _float16_sort_works():
    probe = numpy.array([-2.25, -2.5, -1.25, -1.5, 0.5, -3.0] * 1000, dtype=numpy.float16)
    s = numpy.sort(probe)
    return bool(numpy.all(s[1:] >= s[:-1]))


# NumPy 2.3-2.4's float16 sort returns unsorted arrays on some AVX-512 processors (seen on an AMD
# EPYC with avx512_vp2intersect); histogram with array bins sorts.  There the reference takes the
# float64 values (the same comparisons with the float64 edges, and no float16 sort).
F16_SORT_OK = _float16_sort_works()


def both_hist(x, **kw):
    a = cupynum.array(x)
    if "weights" in kw:
        kw_c = dict(kw, weights=cupynum.array(kw["weights"]))
    else:
        kw_c = kw
    with warnings.catch_warnings(record=True) as wc:
        warnings.simplefilter("always")
        got = cupynum.histogram(a, **kw_c)
        cupynum.sync()      # floating-point warnings are issued at the flush (deferred ops)
    with warnings.catch_warnings(record=True) as wn:
        warnings.simplefilter("always")
        ref = x
        if x.dtype == numpy.float16 and not F16_SORT_OK and numpy.ndim(kw.get("bins", 10)) == 1:
            ref = x.astype(numpy.float64)
        want = numpy.histogram(ref, **kw)
    assert [str(w.message) for w in wc] == [str(w.message) for w in wn]
    check(got[0], want[0])
    check(got[1], want[1])


@pytest.mark.parametrize("dtype", REAL, ids=dtype_id)
@pytest.mark.parametrize("n", [0, 1, 33, 200_001])
def test_histogram_bins_range_weights_density(dtype, n):
    x = sample_finite(dtype, n)
    rng = numpy.random.default_rng(n)
    w = rng.standard_normal(n)
    if n or dtype.kind != "f":
        for bins in (1, 10, 100):
            both_hist(x, bins=bins)
    both_hist(x, bins=7, range=(-2, 2.5))
    both_hist(x, bins=7, range=(-2, 2.5), weights=w)
    both_hist(x, bins=5, range=(-1, 3), density=True)
    both_hist(x, bins=[-3, -1, 0, 0, 0.5, 2, 3])
    both_hist(x, bins=numpy.array([-2, 0, 1, 2], dtype=numpy.int64))


def sample_finite(dtype, n):
    x = special(dtype, n, seed=n)
    if dtype.kind == "f":
        x = numpy.where(numpy.isfinite(x), x, 1).astype(dtype)
    return x


def test_histogram_nan_inf_outside_range_and_edges():
    x = numpy.array([numpy.nan, numpy.inf, -numpy.inf, 0.0, -0.0, 1.0, 2.0, 2.0, -2.0, 1.9999999])
    both_hist(x, bins=4, range=(-2, 2))
    both_hist(x, bins=[-2, 0, 2])
    both_hist(x, bins=3, range=(0, 0))
    ints = numpy.array([5, 5, 5])
    both_hist(ints, bins=3)
    big = numpy.array([numpy.iinfo(numpy.int64).min, numpy.iinfo(numpy.int64).max])
    both_hist(big, bins=4)


def test_histogram_errors_and_fallbacks():
    x = numpy.arange(10.0)
    a = cupynum.array(x)
    for kw in (dict(bins=0), dict(bins=[3, 1, 2]), dict(bins=[[1, 2]]), dict(bins=2.5),
               dict(bins=3, range=(2, 1)), dict(bins=3, range=(0, numpy.inf)),
               dict(bins=3, weights=numpy.ones(3))):
        with pytest.raises(Exception) as e_np:
            numpy.histogram(x, **kw)
        with pytest.raises(type(e_np.value)) as e_cp:
            cupynum.histogram(a, **kw)
        assert str(e_cp.value) == str(e_np.value)
    with pytest.raises(ValueError, match="not finite"):
        cupynum.histogram(cupynum.array([1.0, numpy.nan]))
    for kw in (dict(bins="auto"), dict(bins="fd", range=(1, 5)),
               dict(bins=[0, 2, 9], weights=numpy.arange(10.0)),
               dict(bins=4, weights=numpy.arange(10, dtype=numpy.int64))):
        both_hist(x, **kw)
    both_hist(x.astype(numpy.float32), bins=4)


@pytest.mark.parametrize("bins", [10, 3, "auto"])
def test_histogram_bin_edges(bins):
    x = numpy.random.default_rng(3).standard_normal(1000)
    check(cupynum.histogram_bin_edges(cupynum.array(x), bins=bins), numpy.histogram_bin_edges(x, bins=bins))
    check(cupynum.histogram_bin_edges(cupynum.array(x), bins=bins, range=(-1, 1)),
          numpy.histogram_bin_edges(x, bins=bins, range=(-1, 1)))


@pytest.mark.parametrize("dtype", REAL, ids=dtype_id)
def test_digitize(dtype):
    x = special(dtype, 100, seed=8)
    a = cupynum.array(x)
    for bins in ([-2, -1, 0, 0.5, 2], [3, 1, 0, -1.5], [0, 0, 1]):
        for right in (False, True):
            check(cupynum.digitize(a, bins, right=right), numpy.digitize(x, bins, right=right))
    check(cupynum.digitize(a[0], [-1, 0, 1]), numpy.digitize(x[0], [-1, 0, 1]))
    with pytest.raises(ValueError, match="monotonically increasing or decreasing"):
        cupynum.digitize(a, [1, 3, 2])
    with pytest.raises(TypeError, match="x may not be complex"):
        cupynum.digitize(cupynum.array([1j]), [0, 1])


def test_digitize_of_a_partitioned_array_moves_nothing():
    """digitize: the bins are read on every rank and each rank searches its own values."""
    ranks = cupynum.runtime_info()["ranks"]
    x = special(numpy.dtype(numpy.float64), 5000 * ranks, seed=9)
    a = cupynum.array(x)
    cupynum.sync()
    cases = (([-2, -1, 0, 0.5, 2], False), ([3, 1, 0, -1.5], True))
    cupynum.reset_stats()
    got = [cupynum.digitize(a, bins, right=right) for bins, right in cases]
    cupynum.sync()
    sent = cupynum.runtime_stats()["bytes_sent"]     # before the checks read the results
    for r, (bins, right) in zip(got, cases):
        check(r, numpy.digitize(x, bins, right=right))
    assert sent <= 1024, sent


def test_histogram_of_a_partitioned_array_moves_only_counts():
    ranks = cupynum.runtime_info()["ranks"]
    x = numpy.random.default_rng(5).standard_normal(30000 * ranks)
    a = cupynum.array(x)
    cupynum.sync()
    cupynum.reset_stats()
    for kw in (dict(bins=100, range=(-3, 3)), dict(bins=[-2, -1, 0, 0.5, 1, 4])):
        h, e = cupynum.histogram(a, **kw)
        check(h, numpy.histogram(x, **kw)[0])
    sent = cupynum.runtime_stats()["bytes_sent"]
    assert sent < 8 * 106 * 2 * ranks + 4096, sent      # the counts (and edges' scalars), not data


ESTIMATORS = ("auto", "fd", "doane", "scott", "stone", "rice", "sturges", "sqrt")


@pytest.mark.parametrize("dtype", [numpy.dtype(numpy.float64), numpy.dtype(numpy.int64),
                                   numpy.dtype(numpy.bool_)], ids=dtype_id)
def test_estimated_bins_native_and_distributed(dtype):
    """histogram / histogram_bin_edges with an estimator name: NumPy's estimators run on the
    native array (min/max, percentiles, std, histograms: each distributed), so NumPy's edges and
    counts without gathering it (stone's trial histograms move their counts)."""
    ranks = cupynum.runtime_info()["ranks"]
    rng = numpy.random.default_rng(36)
    n = 10000 * ranks
    x = (rng.standard_normal(n) * 3).astype(dtype) if dtype.kind != "b" else rng.random(n) < 0.3
    a = cupynum.array(x)
    for b in ESTIMATORS:
        for rg in (None, (-1, 2)):
            cupynum.sync()
            cupynum.reset_stats()
            with warnings.catch_warnings():
                warnings.simplefilter("ignore", RuntimeWarning)   # bool's conversion warning
                got_e = cupynum.histogram_bin_edges(a, b, range=rg)
                got_h = cupynum.histogram(a, b, range=rg)
                cupynum.sync()
                sent = cupynum.runtime_stats()["bytes_sent"]
                want_e = numpy.histogram_bin_edges(x, b, range=rg)
                want_h = numpy.histogram(x, b, range=rg)
            check(got_e, want_e)
            check(got_h, want_h)
            if dtype.kind != "b" and b != "stone":
                assert sent < 0.25 * 8 * n / ranks + 2048 * ranks, (b, rg, sent)
    same_error(lambda: numpy.histogram(x, "nope"), lambda: cupynum.histogram(a, "nope"))
    same_error(lambda: numpy.histogram(x, "fd", weights=numpy.ones(n)),
               lambda: cupynum.histogram(a, "fd", weights=cupynum.ones(n)))


# ---- cov, corrcoef ------------------------------------------------------------------------------

@pytest.mark.parametrize("dtype", [numpy.float64, numpy.float32, numpy.int32, numpy.bool_], ids=dtype_id)
@pytest.mark.parametrize("shape", [(5,), (3, 20), (20, 3), (1, 4)])
def test_cov_corrcoef(dtype, shape):
    x = special(numpy.dtype(dtype), int(numpy.prod(shape)), seed=31)
    if x.dtype.kind == "f":
        x = numpy.where(numpy.isfinite(x), x, 0.5).astype(dtype)
    x = x.reshape(shape)
    a = cupynum.array(x)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", RuntimeWarning)
        for kw in ({}, {"rowvar": False}, {"bias": True}, {"ddof": 2}, {"dtype": numpy.float32}):
            got, want = cupynum.cov(a, **kw), numpy.cov(x, **kw)
            check(got, want, rtol=1e-5 if want.dtype == numpy.float32 else 1e-12, atol=1e-6)
        got, want = cupynum.corrcoef(a), numpy.corrcoef(x)
        check(got, want, rtol=1e-5, atol=1e-6) if isinstance(want, numpy.ndarray) else \
            numpy.testing.assert_allclose(got, want)
    y = x + 1
    check(cupynum.cov(a, y), numpy.cov(x, y), rtol=1e-12, atol=1e-12)   # y=: NumPy's help
    with pytest.raises(ValueError, match="ddof must be integer"):
        cupynum.cov(a, ddof=1.5)


def test_cov_corrcoef_complex_and_y_native(monkeypatch):
    """Complex input and y= are cupynum's (NumPy's arithmetic: the conjugated product, y's rows
    joined below m's), and NumPy's errors for mismatched or over-dimensioned operands."""
    monkeypatch.setattr(cupynum._fallback, "compute", None)     # a fallback would fail
    rng = numpy.random.default_rng(32)
    for shape in [(5,), (3, 20), (20, 3), (1, 4)]:
        x, y = rng.standard_normal(shape), rng.standard_normal(shape)
        xc = x + 1j * rng.standard_normal(shape)
        for kw in ({}, {"rowvar": False}, {"bias": True}, {"ddof": 0}):
            for args in ((xc,), (x, y), (xc, y), (x, y[:1])):
                got = lambda: cupynum.cov(*(cupynum.array(a) for a in args), **kw)
                try:
                    want = numpy.cov(*args, **kw)
                except Exception:
                    same_error(lambda: numpy.cov(*args, **kw), got)
                    continue
                with warnings.catch_warnings():
                    warnings.simplefilter("ignore", RuntimeWarning)
                    check(got(), want, rtol=1e-12, atol=1e-12)
            rv = {k: v for k, v in kw.items() if k == "rowvar"}
            got = lambda: cupynum.corrcoef(cupynum.array(x), cupynum.array(y), **rv)
            with warnings.catch_warnings():
                warnings.simplefilter("ignore", RuntimeWarning)
                try:
                    want = numpy.corrcoef(x, y, **rv)
                except Exception:
                    same_error(lambda: numpy.corrcoef(x, y, **rv), got)
                    continue
                check(got(), want, rtol=1e-12, atol=1e-12)
    z = numpy.zeros((2, 2, 2))
    same_error(lambda: numpy.cov(z), lambda: cupynum.cov(cupynum.array(z)))
    same_error(lambda: numpy.cov(z[0], z), lambda: cupynum.cov(cupynum.array(z[0]), cupynum.array(z)))


def test_cov_corrcoef_of_partitioned_variables_move_only_partial_products():
    """cov/corrcoef of variables partitioned along their observations: means and the product
    X X^H as each rank's partial sums over its own observations, gathered and added (6 x 6
    partials and 6 means per rank), nothing of X; the same with y= (its rows joined below)."""
    ranks = cupynum.runtime_info()["ranks"]
    rng = numpy.random.default_rng(33)
    x, y = rng.standard_normal((6, 2000 * ranks)), rng.standard_normal((2, 2000 * ranks))
    xc = x + 1j * rng.standard_normal(x.shape)
    for f, args in ((cupynum.cov, (x,)), (cupynum.corrcoef, (x,)), (cupynum.cov, (xc,)),
                    (cupynum.cov, (x[0],)), (cupynum.cov, (x, y)), (cupynum.corrcoef, (x, y))):
        ca = tuple(cupynum.array(a) for a in args)
        cupynum.sync()
        cupynum.reset_stats()
        got = f(*ca)
        cupynum.sync()
        sent = cupynum.runtime_stats()["bytes_sent"]
        check(got, getattr(numpy, f.__name__)(*args), rtol=1e-12, atol=1e-12)
        assert sent <= 16 * 8 * 8 * 4 * ranks + 64 * ranks * ranks, (f.__name__, len(args), sent)


# ---- histogram2d, histogramdd ---------------------------------------------------------------------

def _dd_sample(dtype, n, d, seed=0):
    cols = [sample_finite(dtype, n) if i == 0 else
            numpy.random.default_rng(seed + i).permutation(sample_finite(dtype, n))
            for i in range(d)]
    return numpy.stack(cols, axis=1) if n else numpy.zeros((0, d), dtype)


DD_BINS = [10, (3, 4, 2), [numpy.array([-2.0, 0.0, 0.5, 3.0]), 5, numpy.array([1.0, 2.0])]]


@pytest.mark.parametrize("dtype", [d for d in REAL if d != numpy.float16], ids=dtype_id)
@pytest.mark.parametrize("n", [1, 33, 70_001])
def test_histogramdd_matches_numpy(dtype, n, monkeypatch):
    monkeypatch.setenv("CUPYNUM_FALLBACK", "error")
    s = _dd_sample(dtype, n, 3, seed=n)
    a = cupynum.array(s)
    w = numpy.random.default_rng(n).random(n)
    for bins in DD_BINS:
        check(cupynum.histogramdd(a, bins=bins), numpy.histogramdd(s, bins=bins))
        check(cupynum.histogramdd(a, bins=bins, density=True),
              numpy.histogramdd(s, bins=bins, density=True), rtol=1e-12)
        check(cupynum.histogramdd(a, bins=bins, weights=cupynum.array(w)),
              numpy.histogramdd(s, bins=bins, weights=w), rtol=1e-12)
    rng = [(0, 2), (-1, 1), (1, 1)]      # an empty range widened by NumPy's +-0.5
    check(cupynum.histogramdd(a, bins=4, range=rng), numpy.histogramdd(s, bins=4, range=rng))
    cols = [cupynum.array(s[:, i]) for i in range(3)]   # a sequence of 1-D arrays
    check(cupynum.histogramdd(cols, bins=3), numpy.histogramdd([s[:, i] for i in range(3)], bins=3))
    check(cupynum.histogramdd(cols[0], bins=5), numpy.histogramdd(s[:, 0], bins=5))


@pytest.mark.parametrize("dtype", [numpy.dtype(numpy.int32), numpy.dtype(numpy.float64)],
                         ids=dtype_id)
def test_histogram2d_matches_numpy(dtype, monkeypatch):
    monkeypatch.setenv("CUPYNUM_FALLBACK", "error")
    s = _dd_sample(dtype, 5001, 2, seed=3)
    x, y = s[:, 0], s[:, 1]
    cx, cy = cupynum.array(x), cupynum.array(y)
    w = numpy.random.default_rng(1).random(len(x))
    for bins in [10, (4, 7), numpy.array([-1.0, 0.0, 2.5]), [numpy.array([0.0, 1.0, 3.0]), 3]]:
        check(cupynum.histogram2d(cx, cy, bins=bins), numpy.histogram2d(x, y, bins=bins))
        check(cupynum.histogram2d(cx, cy, bins=bins, density=True, weights=cupynum.array(w)),
              numpy.histogram2d(x, y, bins=bins, density=True, weights=w), rtol=1e-12)
    f = numpy.array([numpy.nan, 1.0, numpy.inf, 2.0, 2.0, -numpy.inf])
    check(cupynum.histogram2d(cupynum.array(f), cupynum.array(f[::-1]), bins=3, range=[(0, 3), (0, 3)]),
          numpy.histogram2d(f, f[::-1], bins=3, range=[(0, 3), (0, 3)]))
    check(numpy.histogram2d(cx, cy), numpy.histogram2d(x, y))      # dispatched here


def test_histogramdd_of_a_partitioned_sample_moves_only_counts():
    """An (N, D) sample split along its rows: each column copied to its own array (tiled as the
    rows: nothing moves), searched in the small edges on each rank, counted per rank, the counts
    added; a strided column view would be read whole on every rank by the search."""
    ranks = cupynum.runtime_info()["ranks"]
    s = numpy.random.default_rng(34).standard_normal((5000 * ranks, 3))
    a = cupynum.array(s)
    cupynum.sync()
    cupynum.reset_stats()
    got = cupynum.histogramdd(a, bins=5)
    cupynum.sync()
    sent = cupynum.runtime_stats()["bytes_sent"]
    check(got, numpy.histogramdd(s, bins=5))
    total = 7 ** 3                       # the bins with the outliers' rows and columns
    assert sent <= 8 * (total + 1) * 2 * ranks + 8192, sent   # counts and min/max scalars


def test_histogramdd_errors():
    s = _dd_sample(numpy.dtype(numpy.float64), 20, 2)
    a = cupynum.array(s)
    for kw in [dict(bins=(3, 4, 5)), dict(bins=[3, -1]), dict(bins=[3, 2.5]),
               dict(bins=[numpy.array([1.0, 0.0]), 3]), dict(bins=[numpy.ones((2, 2)), 3]),
               dict(range=[(0, 1)]), dict(bins=[0, 3])]:
        same_error(lambda: numpy.histogramdd(s, **kw), lambda: cupynum.histogramdd(a, **kw))
    f = s.copy()
    f[0, 0] = numpy.nan
    same_error(lambda: numpy.histogramdd(f), lambda: cupynum.histogramdd(cupynum.array(f)))
    same_error(lambda: numpy.histogram2d(s[:, 0], s[:3, 1]),
               lambda: cupynum.histogram2d(a[:, 0], a[:3, 1]))


def test_histogram2d_of_partitioned_columns_moves_only_counts_and_edges():
    ranks = cupynum.runtime_info()["ranks"]
    n = 4000 * max(ranks, 1)
    s = _dd_sample(numpy.dtype(numpy.float64), n, 2, seed=5)
    x, y = cupynum.array(s[:, 0]), cupynum.array(s[:, 1])
    cupynum.sync()
    cupynum.reset_stats()
    got = cupynum.histogram2d(x, y, bins=(6, 4), range=[(-3, 3), (-3, 3)])
    cupynum.sync()
    sent = cupynum.runtime_stats()["bytes_sent"]
    check(got, numpy.histogram2d(s[:, 0], s[:, 1], bins=(6, 4), range=[(-3, 3), (-3, 3)]))
    if ranks > 1:
        assert sent < n * 8 / 4, sent     # not a gathered column
