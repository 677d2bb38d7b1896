"""cupynum.random's Generator, RandomState and distributions (issue #18).

Streams differ from NumPy's, so distributions are compared statistically: 10**6 draws of each
benchmarked distribution (2.5 * 10**5 of the others) against as many of NumPy's own, a two-sample Kolmogorov-Smirnov test (continuous) or a chi-squared
homogeneity test on the counts (discrete), at fixed seeds with a p-value threshold of 1e-5 (the
suite is deterministic; a 2% error of scale fails it: test_a_wrong_parameter_fails).  Moments
against closed forms where they exist.  The same seeds give the same bits on any rank count and
on the simulated device (test_hashes_equal_one_process_run).  Under mpirun only every third
statistical case runs (they are rank-count independent; the hashes test covers partitioning)."""

import hashlib
import json
import math
import os
import subprocess
import sys
import warnings

import numpy
import pytest

import cupynum

pytestmark = [pytest.mark.mpi_device]

RANKS = cupynum.runtime_info()["ranks"]
N = 10**6
P_MIN = 1e-5


# ---- the tests themselves, in NumPy ------------------------------------------------------------

def _kolmogorov_sf(lam):
    if lam < 0.2:
        return 1.0
    k = numpy.arange(1, 101)
    return float(min(1.0, max(0.0, 2.0 * numpy.sum((-1.0) ** (k - 1) * numpy.exp(-2.0 * k * k * lam * lam)))))


def ks_2samp(x, y):
    """Two-sample KS statistic and asymptotic p-value (Stephens' small-sample correction)."""
    x, y = numpy.sort(numpy.ravel(x)), numpy.sort(numpy.ravel(y))
    allv = numpy.concatenate([x, y])
    d = numpy.max(numpy.abs(numpy.searchsorted(x, allv, side="right") / x.size -
                            numpy.searchsorted(y, allv, side="right") / y.size))
    ne = x.size * y.size / (x.size + y.size)
    return d, _kolmogorov_sf((math.sqrt(ne) + 0.12 + 0.11 / math.sqrt(ne)) * d)


def _chi2_sf(x, k):
    """Survival function of chi-squared with k degrees of freedom (Wilson-Hilferty)."""
    if k <= 0:
        return 1.0
    z = ((x / k) ** (1.0 / 3.0) - (1.0 - 2.0 / (9.0 * k))) / math.sqrt(2.0 / (9.0 * k))
    return 0.5 * math.erfc(z / math.sqrt(2.0))


def chi2_2samp(x, y):
    """Chi-squared homogeneity test of two samples of integers, values pooled into bins with at
    least 20 expected counts."""
    x, y = numpy.ravel(x).astype(numpy.int64), numpy.ravel(y).astype(numpy.int64)
    cap = min(int(numpy.quantile(numpy.concatenate([x, y]), 0.995)), 10**5)   # the tail: one bin
    x, y = numpy.minimum(x, cap), numpy.minimum(y, cap)
    lo = min(x.min(), y.min())
    cx = numpy.bincount(x - lo)
    cy = numpy.bincount(y - lo, minlength=cx.size)
    cx = numpy.pad(cx, (0, cy.size - cx.size))
    bins_x, bins_y, ax, ay = [], [], 0, 0
    for a, b in zip(cx, cy):
        ax += a
        ay += b
        if ax + ay >= 40:
            bins_x.append(ax)
            bins_y.append(ay)
            ax = ay = 0
    if bins_x:
        bins_x[-1] += ax
        bins_y[-1] += ay
    ox, oy = numpy.array(bins_x, float), numpy.array(bins_y, float)
    if ox.size < 2:
        return 0.0, 1.0
    tot = ox + oy
    ex, ey = tot * ox.sum() / tot.sum(), tot * oy.sum() / tot.sum()
    stat = float(numpy.sum((ox - ex) ** 2 / ex + (oy - ey) ** 2 / ey))
    return stat, _chi2_sf(stat, ox.size - 1)


def same_distribution(name, args, discrete, seed=12345, n=N, ours=None):
    g = cupynum.random.default_rng(seed)
    got = numpy.asarray(getattr(g, name)(*args, size=n)) if ours is None else ours
    ref = getattr(numpy.random.default_rng(seed), name)(*args, size=n)
    assert got.shape == ref.shape and got.dtype == ref.dtype
    return (chi2_2samp if discrete else ks_2samp)(got, ref)[1], got


# (name, args, discrete, mean, variance); None: no closed form checked
CASES = [
    ("random", (), False, 0.5, 1 / 12),
    ("uniform", (-2.0, 3.0), False, 0.5, 25 / 12),
    ("normal", (1.5, 2.0), False, 1.5, 4.0),
    ("standard_normal", (), False, 0.0, 1.0),
    ("exponential", (2.5,), False, 2.5, 6.25),
    ("standard_exponential", (), False, 1.0, 1.0),
    ("gamma", (2.0, 1.5), False, 3.0, 4.5),
    ("gamma", (0.3,), False, 0.3, 0.3),
    ("gamma", (1.0,), False, 1.0, 1.0),
    ("gamma", (50.0, 0.1), False, 5.0, 0.5),
    ("standard_gamma", (0.05,), False, 0.05, 0.05),
    ("poisson", (5.0,), True, 5.0, 5.0),
    ("poisson", (0.01,), True, 0.01, 0.01),
    ("poisson", (9.99,), True, 9.99, 9.99),
    ("poisson", (10.0,), True, 10.0, 10.0),
    ("poisson", (1234.5,), True, 1234.5, 1234.5),
    ("binomial", (10, 0.3), True, 3.0, 2.1),
    ("binomial", (1, 0.5), True, 0.5, 0.25),
    ("binomial", (1000, 0.02), True, 20.0, 19.6),
    ("binomial", (500, 0.9), True, 450.0, 45.0),
    ("binomial", (10**6, 0.5), True, 5e5, 2.5e5),
    ("beta", (2.0, 5.0), False, 2 / 7, 10 / (49 * 8)),
    ("beta", (0.3, 0.7), False, 0.3, 0.21 / 2),
    ("chisquare", (3.0,), False, 3.0, 6.0),
    ("noncentral_chisquare", (3.0, 2.0), False, 5.0, 14.0),
    ("noncentral_chisquare", (0.5, 1.0), False, 1.5, 5.0),
    ("f", (5.0, 10.0), False, 1.25, None),
    ("noncentral_f", (5.0, 10.0, 2.0), False, None, None),
    ("standard_t", (4.0,), False, 0.0, 2.0),
    ("standard_t", (0.5,), False, None, None),
    ("standard_cauchy", (), False, None, None),
    ("lognormal", (0.5, 0.4), False, math.exp(0.5 + 0.08), None),
    ("logistic", (1.0, 2.0), False, 1.0, 4 * math.pi ** 2 / 3),
    ("gumbel", (1.0, 2.0), False, 1.0 + 2.0 * 0.5772156649, math.pi ** 2 / 6 * 4),
    ("laplace", (1.0, 2.0), False, 1.0, 8.0),
    ("pareto", (3.5,), False, 1 / 2.5, None),
    ("power", (2.5,), False, 2.5 / 3.5, None),
    ("rayleigh", (2.0,), False, 2.0 * math.sqrt(math.pi / 2), (4 - math.pi) / 2 * 4),
    ("triangular", (-1.0, 0.5, 3.0), False, 2.5 / 3, None),
    ("triangular", (0.0, 0.0, 1.0), False, 1 / 3, None),
    ("vonmises", (0.5, 2.0), False, None, None),
    ("vonmises", (-1.0, 1e-6), False, None, None),
    ("wald", (1.5, 2.0), False, 1.5, 1.5 ** 3 / 2.0),
    ("weibull", (1.7,), False, math.gamma(1 + 1 / 1.7), None),
    ("negative_binomial", (5, 0.4), True, 7.5, 18.75),
    ("negative_binomial", (0.5, 0.9), True, 0.5 / 9, None),
    ("geometric", (0.3,), True, 1 / 0.3, 0.7 / 0.09),
    ("geometric", (0.9,), True, 1 / 0.9, 0.1 / 0.81),
    ("hypergeometric", (20, 30, 15), True, 6.0, None),
    ("hypergeometric", (500, 10**6, 3000), True, 3000 * 500 / (10**6 + 500), None),
    ("logseries", (0.6,), True, None, None),
    ("logseries", (0.999,), True, None, None),
    ("zipf", (2.5,), True, None, None),
    ("zipf", (1.3,), True, None, None),
    ("integers", (-5, 17), True, 5.5, (22 ** 2 - 1) / 12),
]
# 10**6 draws for these (the benchmarked ones), 2.5 * 10**5 for the others (CI time)
CORE = {"random", "uniform", "normal", "standard_normal", "exponential", "gamma", "poisson",
        "binomial", "integers"}
SAMPLED = [c for i, c in enumerate(CASES) if RANKS == 1 or i % 3 == 0]


@pytest.mark.parametrize("case", SAMPLED, ids=[f"{c[0]}{c[1]}" for c in SAMPLED])
def test_distribution_matches_numpys(case):
    name, args, discrete, mean, var = case
    n = N if name in CORE else N // 4
    p, got = same_distribution(name, args, discrete, n=n)
    assert p > P_MIN, f"{name}{args}: p = {p:.3g}"
    se = math.sqrt(var / n) if var is not None else None
    if mean is not None and var is not None:
        assert abs(got.mean() - mean) < 6 * se
        # the sample variance's standard error, from the fourth moment estimated from the draws
        m4 = numpy.mean((got - got.mean()) ** 4)
        assert abs(got.var() - var) < 6 * math.sqrt(max(m4 - var * var, 1e-300) / n) + 1e-12
    elif mean is not None:
        assert abs(got.mean() / mean - 1) < 0.01


@pytest.mark.parametrize("name,right,wrong,discrete", [
    ("gamma", (2.0, 1.0), (2.0, 1.02), False),
    ("normal", (0.0, 1.0), (0.0, 1.02), False),
    ("exponential", (1.0,), (1.02,), False),
    ("poisson", (5.0,), (5.1,), True),
    ("binomial", (10, 0.3), (10, 0.31), True),
])
def test_a_wrong_parameter_fails(name, right, wrong, discrete):
    """The threshold catches a 2% error in a scale or shape at 10**6 draws."""
    ours = numpy.asarray(getattr(cupynum.random.default_rng(5), name)(*wrong, size=N))
    p, _ = same_distribution(name, right, discrete, seed=5, ours=ours)
    assert p < P_MIN


def _normal_bins_p(z, edges):
    """Chi-squared p-value of the counts of |z| in bins against the normal's own probabilities."""
    counts = numpy.histogram(numpy.abs(z), edges)[0].astype(float)
    sf = [math.erfc(e / math.sqrt(2.0)) for e in edges]   # P(|z| > e)
    expect = -numpy.diff(sf) * z.size
    return _chi2_sf(float(numpy.sum((counts - expect) ** 2 / expect)), len(counts) - 1)


def test_normal_ziggurat_tail_and_wedges():
    """The ziggurat's rare paths: the tail beyond r = 3.654 (layer 0: Marsaglia's exponential
    pairs on further counter blocks) and the wedges (the f(x) test), binned finely near and
    beyond r, against the normal's exact probabilities (4 * 10**6 draws, NumPy's too); a
    ziggurat that lost its tail (beyond r folded onto r) fails the same test."""
    n, r = 4 * 10**6, 3.6541528853610088
    edges = [0.0, 0.25, 0.5, 0.75, 1.0, 1.5, 2.0, 2.5, 3.0, 3.3, 3.5, r, 3.8, 4.0, 4.3, 4.7, numpy.inf]
    z = numpy.asarray(cupynum.random.default_rng(11).standard_normal(n))
    assert _normal_bins_p(z, edges) > P_MIN
    assert _normal_bins_p(numpy.random.default_rng(11).standard_normal(n), edges) > P_MIN
    assert numpy.sum(numpy.abs(z) > 4.7) > 0
    folded = numpy.where(numpy.abs(z) > r, numpy.sign(z) * (r - 1e-9), z)
    assert _normal_bins_p(folded, edges) < P_MIN
    assert abs(z.mean()) < 6 / math.sqrt(n) and abs(z.var() - 1) < 6 * math.sqrt(2 / n)
    m4 = numpy.mean(z ** 4)
    assert abs(m4 - 3) < 6 * math.sqrt(96 / n)   # var(z**4) = 105 - 9


@pytest.mark.parametrize("dtype", ["int8", "uint8", "int16", "uint16", "int32", "uint32", "int64",
                                   "uint64", "bool"])
@pytest.mark.parametrize("endpoint", [False, True])
def test_integers_every_dtype_bounds(dtype, endpoint):
    dt = numpy.dtype(dtype)
    info = numpy.iinfo(dt) if dt.kind != "b" else None
    lo, hi = (0, 1) if info is None else (int(info.min), int(info.max))
    top = hi if endpoint else hi + 0
    g = cupynum.random.default_rng(3)
    x = numpy.asarray(g.integers(lo, top, size=20000, dtype=dt, endpoint=endpoint))
    assert x.dtype == dt
    assert x.min() >= lo and x.max() <= (top if endpoint else top - 1)
    if dt.itemsize <= 2:
        span = top - lo + (1 if endpoint else 0)
        assert len(numpy.unique(x)) > min(span, 20000) * 0.5
    ref = numpy.random.default_rng(3).integers(lo, top, size=5, dtype=dt, endpoint=endpoint)
    assert type(g.integers(lo, top, dtype=dt, endpoint=endpoint)) is type(ref[0])


@pytest.mark.parametrize("r", [1, 7, 1000, 2**32 - 10**6, 3 * 10**9, 2**32, 2**32 + 1, 2**40 + 5,
                               2**53])
@pytest.mark.parametrize("off", [0, -7, 2**63 + 3])
def test_int64_draws_are_the_float64_draws(r, off):
    """The draw written as int64 (off + [0, r), modulo 2**64) holds the float64 draw's values,
    element for element, at odd sizes and offsets (whole vectors, tails, rejections)."""
    g = cupynum.random.default_rng(11)
    for n in (1, 9, 4099, 40001):
        a = numpy.asarray(g._ints((n,), r, off, stream=5))
        f = numpy.asarray(g._raw(3, (n,), float(r), stream=5))   # _INTEGER as float64
        assert a.dtype == numpy.int64 and f.dtype == numpy.float64
        want = (f.astype(numpy.uint64) + numpy.uint64(off % 2**64)).view(numpy.int64)
        numpy.testing.assert_array_equal(a, want)
    b = numpy.asarray(g._ints((3, 5, 7), r, off, stream=6))   # n-d, partitioned on any axis
    f = numpy.asarray(g._raw(3, (3, 5, 7), float(r), stream=6))
    numpy.testing.assert_array_equal(b, (f.astype(numpy.uint64) + numpy.uint64(off % 2**64)).view(numpy.int64))


def test_integers_wide_and_unbiased():
    g = cupynum.random.default_rng(8)
    x = numpy.asarray(g.integers(0, 2**64, size=100000, dtype=numpy.uint64))
    assert x.dtype == numpy.uint64 and (x >> numpy.uint64(63)).mean() == pytest.approx(0.5, abs=0.01)
    y = numpy.asarray(g.integers(-2**63, 2**63 - 1, size=100000, endpoint=True))
    assert (y < 0).mean() == pytest.approx(0.5, abs=0.01)
    # a range just above 2**53: wide path; values below it
    r = 2**53 + 12345
    z = numpy.asarray(g.integers(0, r, size=100000, dtype=numpy.uint64))
    assert z.max() < r and (z > r // 2).mean() == pytest.approx(0.5, abs=0.01)
    # range 3 * 2**51: floor(u * r) would be biased; Lemire is not -- residues mod 3 are equal
    w = numpy.asarray(g.integers(0, 3 * 2**51, size=300000))
    counts = numpy.bincount(w % 3)
    assert counts.min() > 0.98 * counts.max()


def test_array_parameters_broadcast_like_numpy():
    g = cupynum.random.default_rng(1)
    lam = numpy.array([[1.0], [30.0]])
    x = numpy.asarray(g.poisson(lam, size=(2, 50000)))
    assert x.shape == (2, 50000)
    assert x[0].mean() == pytest.approx(1.0, rel=0.03) and x[1].mean() == pytest.approx(30, rel=0.01)
    sc = cupynum.asarray([1.0, 2.0, 4.0])
    y = numpy.asarray(g.normal(0.0, sc, size=(100000, 3)))
    numpy.testing.assert_allclose(y.std(axis=0), [1, 2, 4], rtol=0.02)
    sh = numpy.array([0.5, 2.0, 9.0])
    z = numpy.asarray(g.gamma(sh, 2.0, size=(100000, 3)))
    numpy.testing.assert_allclose(z.mean(axis=0), sh * 2, rtol=0.02)
    # many distinct shape values: still the right distribution
    many = numpy.linspace(1, 3, 100)
    m = numpy.asarray(g.gamma(many, size=(2000, 100)))
    numpy.testing.assert_allclose(m.mean(axis=0).mean(), many.mean(), rtol=0.02)
    b = numpy.asarray(g.binomial(numpy.array([5, 50]), numpy.array([[0.5], [0.1]])))
    assert b.shape == (2, 2)
    i = numpy.asarray(g.integers(numpy.array([0, 10]), numpy.array([[15], [20]]), size=(2, 2)))
    assert (i[:, 0] >= 0).all() and (i[:, 1] >= 10).all() and (i[0] < 15).all() and (i[1] < 20).all()
    u = numpy.asarray(g.uniform(numpy.zeros(3), [1.0, 2.0, 3.0]))
    assert u.shape == (3,) and (u < [1, 2, 3]).all()


# Array parameters: 40 distinct values per parameter, one per row of a (40, 6250) draw, given as
# full-shape partitioned arrays (even cases) or as (40, 1) columns broadcast (odd ones).
def _col(lo, hi, integer=False):
    c = numpy.linspace(lo, hi, 40)[:, None]
    return numpy.round(c).astype(numpy.int64) if integer else c


ARRAY_CASES = [
    ("gamma", lambda: (_col(0.3, 6.0), 2.0), False),
    ("standard_gamma", lambda: (_col(0.05, 3.0),), False),
    ("chisquare", lambda: (_col(1.0, 20.0),), False),
    ("poisson", lambda: (_col(0.5, 40.0),), True),
    ("binomial", lambda: (_col(1, 60, True), _col(0.05, 0.95)), True),
    ("negative_binomial", lambda: (_col(0.5, 20.0), _col(0.2, 0.9)), True),
    ("geometric", lambda: (_col(0.05, 0.95),), True),
    ("hypergeometric", lambda: (_col(5, 200, True), 30, 20), True),
    ("beta", lambda: (_col(0.3, 5.0), _col(5.0, 0.3)), False),
    ("standard_t", lambda: (_col(0.5, 30.0),), False),
    ("vonmises", lambda: (0.5, _col(0.0, 10.0)), False),
    ("wald", lambda: (_col(0.5, 3.0), 2.0), False),
    ("weibull", lambda: (_col(0.5, 5.0),), False),
    ("zipf", lambda: (_col(1.3, 4.0),), True),
    ("logseries", lambda: (_col(0.1, 0.99),), True),
    ("noncentral_chisquare", lambda: (_col(1.0, 10.0), _col(0.0, 5.0)), False),
]
ARRAY_SAMPLED = [c for i, c in enumerate(ARRAY_CASES) if RANKS == 1 or i % 3 == 0]
ARRAY_SHAPE = (40, 6250)


def _array_draws(name, params, full, seed=77):
    """Ours and NumPy's draws of ARRAY_SHAPE with these parameters (ours from cupynum arrays:
    broadcast to the whole shape when `full`, the (40, 1) columns otherwise)."""
    ours = [p if numpy.ndim(p) == 0 else
            cupynum.asarray(numpy.ascontiguousarray(numpy.broadcast_to(p, ARRAY_SHAPE)) if full
                            else p) for p in params]
    got = numpy.asarray(getattr(cupynum.random.default_rng(seed), name)(*ours, size=ARRAY_SHAPE))
    ref = getattr(numpy.random.default_rng(seed), name)(*params, size=ARRAY_SHAPE)
    return got, ref


@pytest.mark.parametrize("case", ARRAY_SAMPLED, ids=[c[0] for c in ARRAY_SAMPLED])
def test_array_parameters_match_numpys(case):
    """Per-element parameters drawn natively: the whole sample and each half of the rows (the
    20 smaller and the 20 larger parameter values) pass the KS / chi-squared test against NumPy's
    draws with the same parameters, so every element was drawn with its own parameters."""
    name, make, discrete = case
    got, ref = _array_draws(name, make(), full=ARRAY_CASES.index(case) % 2 == 0)
    assert got.shape == ref.shape and got.dtype == ref.dtype
    test = chi2_2samp if discrete else ks_2samp
    for rows in (slice(None), slice(0, 20), slice(20, 40)):
        p = test(got[rows], ref[rows])[1]
        assert p > P_MIN, f"{name} rows {rows}: p = {p:.3g}"


def test_array_parameters_misplaced_fail():
    """The half test catches parameters given to the wrong elements (rows reversed)."""
    col = _col(0.3, 6.0)
    got, _ = _array_draws("gamma", (col[::-1].copy(), 2.0), full=True)
    _, ref = _array_draws("gamma", (col, 2.0), full=True)
    assert ks_2samp(got[:20], ref[:20])[1] < P_MIN


def _sent(fn):
    cupynum.sync()
    before = cupynum.runtime_stats()["bytes_sent"]
    r = fn()
    cupynum.sync()
    return r, cupynum.runtime_stats()["bytes_sent"] - before


def test_array_parameters_draw_where_they_live():
    """A partitioned parameter of the draw's shape: each rank draws the elements whose parameters
    it holds, and the draw sends 0 bytes; NumPy's checks of the parameters read a few witness
    elements (reductions: under 4 KiB a rank).  A broadcast (40, 1) column: each rank receives
    the column's values for its rows (under 4 KiB with it)."""
    from cupynum import _core
    from cupynum.random._generator import _POISSON
    lam = cupynum.asarray(numpy.linspace(0.5, 40.0, 200000))
    g = cupynum.random.default_rng(3)
    lam.sum()
    x, sent = _sent(lambda: _core.random_p(_POISSON, 7, 1, lam, 0.0))
    assert sent == 0
    assert numpy.asarray(x).mean() == pytest.approx(20.25, rel=0.01)
    y, sent = _sent(lambda: g.poisson(lam))
    assert sent < 4096
    assert numpy.asarray(y).mean() == pytest.approx(20.25, rel=0.01)
    col = cupynum.asarray(_col(1.0, 40.0))
    z, sent = _sent(lambda: g.gamma(col, 1.0, size=(40, 5000)))
    assert sent < 4096
    numpy.testing.assert_allclose(numpy.asarray(z).mean(axis=1), _col(1.0, 40.0)[:, 0], rtol=0.03)


def _int_bounds():
    low = _col(-100, 100, True)
    return low, low + _col(2, 60, True)


@pytest.mark.parametrize("full", [True, False])
@pytest.mark.parametrize("endpoint", [False, True])
def test_integers_array_bounds_match_numpys(full, endpoint):
    """integers with array low/high, per element: x - low is uniform on each element's own range
    (chi-squared against NumPy's draws, the whole sample and each half of the rows) and within
    the bounds; partitioned full-shape bounds or broadcast (40, 1) columns."""
    low, high = _int_bounds()
    ours = [cupynum.asarray(numpy.ascontiguousarray(numpy.broadcast_to(b, ARRAY_SHAPE))) if full
            else cupynum.asarray(b) for b in (low, high)]
    got = numpy.asarray(cupynum.random.default_rng(8).integers(*ours, size=ARRAY_SHAPE,
                                                               endpoint=endpoint))
    ref = numpy.random.default_rng(8).integers(low, high, size=ARRAY_SHAPE, endpoint=endpoint)
    assert got.dtype == ref.dtype and got.shape == ref.shape
    assert (got >= low).all() and ((got <= high) if endpoint else (got < high)).all()
    for rows in (slice(None), slice(0, 20), slice(20, 40)):
        p = chi2_2samp((got - low)[rows], (ref - low)[rows])[1]
        assert p > P_MIN, f"rows {rows}: p = {p:.3g}"
    # the ranges misplaced (rows reversed) fail the same test
    bad = numpy.asarray(cupynum.random.default_rng(8).integers(
        cupynum.asarray(low), cupynum.asarray(low + (high - low)[::-1]), size=ARRAY_SHAPE))
    assert chi2_2samp((bad - low)[:20], (ref - low)[:20])[1] < P_MIN


@pytest.mark.parametrize("dtype", [numpy.int8, numpy.uint16, numpy.int64, numpy.uint64, bool])
def test_integers_array_bounds_dtypes_and_errors(dtype):
    """Every dtype, bounds of mixed integer dtypes, uint64 bounds above 2**63; NumPy's errors
    (out of bounds, low >= high) from the witnesses, raised before the stream advances."""
    g = cupynum.random.default_rng(12)
    info = numpy.iinfo(dtype) if dtype is not bool else None
    lo = numpy.array([0, 1, 0, 0, 1]) if info is None else \
        numpy.array([info.min, info.min + 3, 0, info.max - 9, 5], dtype=dtype)
    hi = lo.astype(object) + numpy.array([1, 0, 1, 1, 0]) if info is None else \
        lo.astype(object) + numpy.array([1, 2, 7, 9, 1])
    hi = numpy.array(hi, dtype=numpy.uint64 if dtype == numpy.uint64 else numpy.int64)
    x = numpy.asarray(g.integers(cupynum.asarray(lo), cupynum.asarray(hi), size=(300, 5),
                                 dtype=dtype, endpoint=True))
    ref = numpy.random.default_rng(0).integers(lo, hi, size=(300, 5), dtype=dtype, endpoint=True)
    assert x.dtype == ref.dtype
    assert (x.astype(object) >= lo.astype(object)).all() and (x.astype(object) <= hi.astype(object)).all()
    checked = 0
    for case in [(lo, lo), (numpy.full(5, -1), hi), (lo, numpy.full(5, 2**63 - 1)),
                 (numpy.zeros(5, numpy.int8), numpy.full(5, 2**64 - 1, numpy.uint64))]:
        try:
            numpy.random.default_rng(0).integers(*case, dtype=dtype)
            continue
        except Exception as e:
            want = (type(e), str(e))
        checked += 1
        state = g.bit_generator.state
        got = _err(lambda: g.integers(*[cupynum.asarray(c) for c in case], dtype=dtype))
        assert got == want and g.bit_generator.state == state
    assert checked >= 2


def test_integers_array_bounds_draw_where_they_live():
    """Partitioned bounds of the draw's shape: each rank draws the elements whose bounds it holds
    (the range and the offset are element-wise ops on the bounds); NumPy's checks read witness
    elements and the range's maximum (reductions): under 4 KiB a rank in all."""
    n = 200000
    lo = cupynum.asarray(numpy.arange(n) % 1000 - 500)
    hi = lo + 37
    lo.sum(), hi.sum()
    g = cupynum.random.default_rng(3)
    x, sent = _sent(lambda: g.integers(lo, hi))
    assert sent < 4096
    d = numpy.asarray(x) - numpy.asarray(lo)
    assert d.min() == 0 and d.max() == 36 and abs(d.mean() - 18) < 0.1


@pytest.mark.parametrize("endpoint", [False, True])
def test_integers_float_array_bounds(endpoint):
    """Float bounds are truncated as NumPy's forced cast truncates them: per element x - trunc(low)
    is uniform on the truncated range (chi-squared against NumPy's draws), drawn where the bounds
    live (under 4 KiB a rank), and a deliberately shifted range fails the same test."""
    rng = numpy.random.default_rng(5)
    low = numpy.tile(numpy.round(rng.uniform(-50, 50, 400), 1), 60)
    high = low + numpy.tile(rng.uniform(2.5, 40, 400), 60)
    lo_c, hi_c = cupynum.asarray(low), cupynum.asarray(high)
    lo_c.sum(), hi_c.sum()
    g = cupynum.random.default_rng(4)
    x, sent = _sent(lambda: g.integers(lo_c, hi_c, endpoint=endpoint))
    assert sent < 4096
    x = numpy.asarray(x)
    ref = numpy.random.default_rng(4).integers(low, high, endpoint=endpoint)
    assert x.dtype == ref.dtype and x.shape == ref.shape
    tl, th = numpy.trunc(low), numpy.trunc(high)
    assert (x >= tl).all() and ((x <= th) if endpoint else (x < th)).all()
    p = chi2_2samp((x - tl).ravel(), (ref - tl).ravel())[1]
    assert p > P_MIN, p
    shifted = numpy.asarray(cupynum.random.default_rng(4).integers(
        cupynum.asarray(low + 1.0), cupynum.asarray(high + 1.0), endpoint=endpoint))
    assert chi2_2samp((shifted - tl).ravel(), (ref - tl).ravel())[1] < P_MIN
    # float and integer bounds mixed, a float scalar bound, small dtypes
    for lo, hi, dt in [(numpy.array([0.5, 1.7, -2.9, 4.2]), 5.0, numpy.int64),
                       (numpy.array([0, 3, 7]), numpy.array([2.5, 9.9, 8.5]), numpy.int16),
                       (numpy.array([0.5, 1.5]), 200.9, numpy.uint8),
                       (numpy.array([0.0, 1.0]), numpy.array([2.0**62, 3.0]), numpy.int64),
                       (numpy.array([0.0]), numpy.array([2.0**63 + 2.0**62]), numpy.uint64)]:
        got = numpy.asarray(g.integers(cupynum.asarray(lo), hi, size=(4000, lo.shape[0]), dtype=dt,
                                       endpoint=endpoint))
        want = numpy.random.default_rng(0).integers(lo, hi, size=(4000, lo.shape[0]), dtype=dt,
                                                    endpoint=endpoint)
        assert got.dtype == want.dtype
        L = numpy.broadcast_to(numpy.trunc(lo).astype(object), got.shape)
        H = numpy.broadcast_to(numpy.trunc(numpy.asarray(hi, dtype=float)).astype(object), got.shape)
        g_o = got.astype(object)
        assert (g_o >= L).all() and ((g_o <= H) if endpoint else (g_o < H)).all()
        for j in range(lo.shape[0]):   # each column's own range, against NumPy's
            if float(H[0, j] - L[0, j]) < 1000:
                assert chi2_2samp(got[:, j].astype(numpy.int64), want[:, j].astype(numpy.int64))[1] > P_MIN
            else:
                span = float(H[0, j] - L[0, j])
                u = (got[:, j].astype(float) - float(L[0, j])) / span
                assert abs(u.mean() - 0.5) < 0.03 and ks_2samp(u, (want[:, j].astype(float) - float(L[0, j])) / span)[1] > P_MIN


def test_integers_float_bounds_errors_match_numpys():
    """NaN bounds, truncated ranges that are empty (NumPy raises, or by dtype wraps), bounds out
    of the dtype: NumPy's exception and message, the stream unmoved where NumPy raises."""
    g = cupynum.random.default_rng(2)
    cases = [((numpy.array([0.7]), numpy.array([0.9])), {}),
             ((numpy.array([numpy.nan, 1.0]), 5), {}),
             ((numpy.array([-0.5, 1.0]), 3.0), {"dtype": numpy.uint8}),
             ((numpy.array([0.0, 1.0]), numpy.array([numpy.inf, 3.0])), {}),
             ((numpy.array([1.0, 5.0]), numpy.array([2.0, 4.5])), {}),
             ((numpy.array([0.0, 1.0]), numpy.array([2.0**63 + 4096, 3.0])), {}),
             ((numpy.array([0.0, 1.0]), 128.5), {"dtype": numpy.int8, "endpoint": True})]
    for args, kw in cases:
        try:
            numpy.random.default_rng(0).integers(*args, **kw)
            raise AssertionError(f"NumPy accepted {args} {kw}")
        except (ValueError, OverflowError) as e:
            want = (type(e), str(e))
        state = g.bit_generator.state
        got = _err(lambda: g.integers(*[cupynum.asarray(a) if isinstance(a, numpy.ndarray) else a
                                        for a in args], **kw))
        assert got == want, (args, kw, got, want)
        assert g.bit_generator.state == state


@pytest.mark.parametrize("dtype", [numpy.int64, numpy.uint64])
def test_integers_wide_array_bounds(dtype):
    """Array bounds whose ranges pass 2**52 (up to 2**64), mixed with small ones: drawn natively
    where the bounds live; each element in its own range, the small columns chi-squared and the
    wide ones KS-tested (scaled to [0, 1)) against NumPy's draws."""
    big = 2**64 - 1 if dtype == numpy.uint64 else 2**63 - 1
    lo = numpy.array([0, 5, 2**40, 3] if dtype == numpy.uint64 else [-2**63, 5, -2**40, 3], dtype=dtype)
    hi = numpy.array([big, 17, 2**62 + 2**40, 2**53 + 3], dtype=dtype)
    n = 20000
    lo_c, hi_c = (cupynum.asarray(numpy.ascontiguousarray(numpy.broadcast_to(b, (n, 4))))
                  for b in (lo, hi))
    lo_c.sum(), hi_c.sum()
    g = cupynum.random.default_rng(9)
    x, sent = _sent(lambda: g.integers(lo_c, hi_c, dtype=dtype, endpoint=True))
    assert sent < 8192
    x = numpy.asarray(x)
    ref = numpy.random.default_rng(9).integers(lo, hi, size=(n, 4), dtype=dtype, endpoint=True)
    assert x.dtype == ref.dtype
    xo, lo_o, hi_o = x.astype(object), lo.astype(object), hi.astype(object)
    assert (xo >= lo_o).all() and (xo <= hi_o).all()
    assert chi2_2samp(x[:, 1].astype(numpy.int64), ref[:, 1].astype(numpy.int64))[1] > P_MIN
    for j in (0, 2, 3):
        span = float(hi_o[j] - lo_o[j] + 1)
        u = numpy.array([float(v - lo_o[j]) / span for v in xo[:, j]])
        w = numpy.array([float(int(v) - lo_o[j]) / span for v in ref[:, j]])
        assert ks_2samp(u, w)[1] > P_MIN, j
    # the low half of a wide range only (a deliberately wrong range) fails the same test
    bad = numpy.asarray(cupynum.random.default_rng(9).integers(
        cupynum.asarray(lo), cupynum.asarray(lo + (hi - lo) // 2), size=(n, 4), dtype=dtype)).astype(object)
    u = numpy.array([float(v - lo_o[2]) / float(hi_o[2] - lo_o[2] + 1) for v in bad[:, 2]])
    w = numpy.array([float(int(v) - lo_o[2]) / float(hi_o[2] - lo_o[2] + 1) for v in ref[:, 2]])
    assert ks_2samp(u, w)[1] < P_MIN


def test_scalar_results_have_numpys_types():
    g, n = cupynum.random.default_rng(0), numpy.random.default_rng(0)
    for name, args in [("random", ()), ("normal", ()), ("integers", (5,)), ("poisson", (2.0,)),
                       ("binomial", (5, 0.5)), ("gamma", (2.0,)), ("hypergeometric", (5, 5, 3)),
                       ("triangular", (0, 1, 2)), ("f", (2, 3))]:
        assert type(getattr(g, name)(*args)) is type(getattr(n, name)(*args)), name


def test_float32_and_out():
    g = cupynum.random.default_rng(4)
    r = g.random(1000, dtype=numpy.float32)
    assert r.dtype == numpy.float32 and 0 <= float(r.min()) and float(r.max()) < 1
    out = cupynum.zeros((3, 4))
    assert g.random(out=out) is out and float(out.min()) > 0
    s = g.standard_normal((1000,), dtype=numpy.float32)
    assert s.dtype == numpy.float32
    o32 = cupynum.zeros(10, dtype=numpy.float32)
    g.standard_exponential(out=o32, dtype=numpy.float32)
    assert float(o32.min()) > 0
    with pytest.raises(TypeError):
        g.random(out=cupynum.zeros(3, dtype=numpy.float32))
    with pytest.raises(ValueError):
        g.random(size=4, out=cupynum.zeros(3))
    with pytest.raises(TypeError):
        g.random(dtype=numpy.int32)


def _err(f):
    try:
        f()
    except Exception as e:
        return type(e), str(e)
    return None


@pytest.mark.parametrize("call", [
    lambda r: r.normal(0, -1.0), lambda r: r.exponential(-2.0), lambda r: r.gamma(-1.0),
    lambda r: r.gamma(1.0, -1.0), lambda r: r.poisson(-1), lambda r: r.poisson(1e20),
    lambda r: r.binomial(-1, 0.5), lambda r: r.binomial(5, 1.5), lambda r: r.integers(5, 5),
    lambda r: r.integers(5, 2), lambda r: r.integers(-1, 5, dtype=numpy.uint8),
    lambda r: r.integers(0, 300, dtype=numpy.uint8), lambda r: r.uniform(0, numpy.inf),
    lambda r: r.choice(3, 2, p=[0.5, 0.6, 0.1]), lambda r: r.choice(3, 2, p=[0.5, 0.5]),
    lambda r: r.choice(3, 5, replace=False), lambda r: r.normal(size=2.5),
    lambda r: r.normal(size=-1), lambda r: r.beta(0, 1), lambda r: r.hypergeometric(2, 2, 5),
    lambda r: r.hypergeometric(10**9, 5, 3), lambda r: r.zipf(1.0), lambda r: r.logseries(1.5),
    lambda r: r.geometric(0.0), lambda r: r.vonmises(0, -1), lambda r: r.wald(0, 1),
    lambda r: r.triangular(2, 1, 3), lambda r: r.normal([0, 1], [1, -1]),
    lambda r: r.normal([0, 1, 2], 1.0, size=(2,)), lambda r: r.dirichlet([1, -1]),
    lambda r: r.multinomial(-1, [0.5, 0.5]), lambda r: r.multinomial(5, [-0.1, 1.1]),
])
def test_bad_input_numpys_errors_before_state_advances(call):
    g = cupynum.random.default_rng(9)
    before = g.bit_generator.state
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        mine = _err(lambda: call(g))
        theirs = _err(lambda: call(numpy.random.default_rng(9)))
    assert theirs is not None
    assert mine is not None and mine[0] is theirs[0], (mine, theirs)
    assert mine[1].split(".")[0] == theirs[1].split(".")[0], (mine, theirs)
    assert g.bit_generator.state == before


LEGACY_BAD = [
    lambda m: m.random.RandomState(-0.5), lambda m: m.random.RandomState(-1),
    lambda m: m.random.RandomState([-0.5]), lambda m: m.random.RandomState(m.array([], dtype="int64")),
    lambda m: m.random.RandomState([[1, 2, 3]]), lambda m: m.random.RandomState(1).set_state(()),
    lambda m: m.random.RandomState(1).multinomial(10, [[0, 1]]),
    lambda m: m.random.RandomState(1).multinomial(10, [[0], [1]]),
    lambda m: m.random.RandomState(1).choice(3.0, 3), lambda m: m.random.RandomState(1).choice(-1, 3),
    lambda m: m.random.RandomState(1).choice([[1, 2], [3, 4]], 3),
]


@pytest.mark.parametrize("call", LEGACY_BAD)
def test_legacy_bad_input_numpys_errors(call):
    """RandomState's seeding, set_state, multinomial and choice checks: NumPy's exception type
    (and message where NumPy's legacy code words it)."""
    with pytest.raises(Exception) as np_exc:
        call(numpy)
    with pytest.raises(type(np_exc.value)):
        call(cupynum)


def test_legacy_randint_python_types_and_poisson_lam_max():
    r = cupynum.random.RandomState(3)
    for dt in (bool, int):
        x = r.randint(0, 2, dtype=dt)
        assert type(x) is dt and not hasattr(x, "dtype")
    assert r.randint(0, 5, dtype=numpy.int8).dtype == numpy.int8
    assert r._poisson_lam_max == numpy.random.RandomState(3)._poisson_lam_max
    assert cupynum.random.RandomState(2**40).get_state()["state"]["key"] == 2**40   # wide keys


def test_seeding_spawn_state_and_bit_generators():
    a, b = cupynum.random.default_rng(77), cupynum.random.default_rng(77)
    numpy.testing.assert_array_equal(numpy.asarray(a.random(10)), numpy.asarray(b.random(10)))
    ss = numpy.random.SeedSequence(77)
    c = cupynum.random.default_rng(ss)
    d = cupynum.random.Generator(cupynum.random.Philox(numpy.random.SeedSequence(77)))
    e = cupynum.random.Generator(numpy.random.PCG64(77))
    f = cupynum.random.Generator(cupynum.random.PCG64(77))
    first = [numpy.asarray(x.random(5)) for x in (c, d, e, f)]
    for x in first[1:]:
        numpy.testing.assert_array_equal(x, first[0])
    assert not numpy.array_equal(numpy.asarray(cupynum.random.default_rng(78).random(5)), first[0])
    kids = a.spawn(2)
    k0, k1 = (numpy.asarray(k.random(100)) for k in kids)
    assert not numpy.array_equal(k0, k1)
    again = cupynum.random.default_rng(77)
    again.random(10)
    numpy.testing.assert_array_equal(numpy.asarray(again.spawn(2)[1].random(100)), k1)
    st = a.bit_generator.state
    x = numpy.asarray(a.normal(size=7))
    a.bit_generator.state = st
    numpy.testing.assert_array_equal(numpy.asarray(a.normal(size=7)), x)
    import pickle
    p = pickle.loads(pickle.dumps(a))
    numpy.testing.assert_array_equal(numpy.asarray(p.random(3)), numpy.asarray(a.random(3)))
    assert isinstance(a.bit_generator, cupynum.random.BitGenerator)
    assert a.bit_generator.random_raw(4).dtype == numpy.uint64


def test_random_state_and_legacy_functions():
    rs = cupynum.random.RandomState(12)
    st = rs.get_state()
    x = numpy.asarray(rs.randint(0, 1000, 20))
    rs.set_state(st)
    numpy.testing.assert_array_equal(numpy.asarray(rs.randint(0, 1000, 20)), x)
    assert x.dtype == numpy.int64 and x.min() >= 0 and x.max() < 1000
    assert type(rs.randint(5)) is int and type(rs.tomaxint()) is int
    assert rs.rand(2, 3).shape == (2, 3) and rs.randn(4).shape == (4,)
    with pytest.warns(DeprecationWarning):
        ri = numpy.asarray(rs.random_integers(1, 6, 1000))
    assert ri.min() >= 1 and ri.max() <= 6 and len(numpy.unique(ri)) == 6
    cupynum.random.seed(3)
    st = cupynum.random.get_state()
    y = [numpy.asarray(cupynum.random.random_sample(4)), numpy.asarray(cupynum.random.poisson(3, 4)),
         numpy.asarray(cupynum.random.choice(10, 3)), numpy.asarray(cupynum.random.permutation(6))]
    cupynum.random.set_state(st)
    z = [numpy.asarray(cupynum.random.random_sample(4)), numpy.asarray(cupynum.random.poisson(3, 4)),
         numpy.asarray(cupynum.random.choice(10, 3)), numpy.asarray(cupynum.random.permutation(6))]
    for a, b in zip(y, z):
        numpy.testing.assert_array_equal(a, b)
    assert sorted(y[3].tolist()) == list(range(6))


def test_permutations_and_choice():
    g = cupynum.random.default_rng(21)
    p = numpy.asarray(g.permutation(1000))
    assert sorted(p.tolist()) == list(range(1000)) and not (p == numpy.arange(1000)).all()
    a = cupynum.arange(24.0).reshape(6, 4)
    g.shuffle(a)
    an = numpy.asarray(a)
    assert sorted(an[:, 0].tolist()) == list(range(0, 24, 4))
    numpy.testing.assert_array_equal(an - an[:, :1], numpy.tile(numpy.arange(4.0), (6, 1)))
    pm = numpy.asarray(g.permuted(cupynum.arange(24).reshape(4, 6), axis=1))
    for row in range(4):
        assert sorted(pm[row].tolist()) == list(range(6 * row, 6 * row + 6))
    c = numpy.asarray(g.choice(50, 50, replace=False))
    assert sorted(c.tolist()) == list(range(50))
    w = numpy.array([0.1, 0.2, 0.3, 0.4])
    cw = numpy.asarray(g.choice(4, 200000, p=w))
    numpy.testing.assert_allclose(numpy.bincount(cw) / 200000, w, atol=0.005)
    cn = numpy.asarray(g.choice(4, 3, replace=False, p=w))
    assert len(set(cn.tolist())) == 3
    rows = numpy.asarray(g.choice(cupynum.arange(12.0).reshape(3, 4), 2, axis=1))
    assert rows.shape == (3, 2)
    assert len(g.bytes(13)) == 13


@pytest.mark.parametrize("shape", [(7,), (401, 300), (37, 5, 11), (3, 1, 2, 5)])
def test_permuted_flat_is_the_flat_permutation(shape):
    """permuted(axis=None) of an n-d array shuffles it as if flattened (NumPy's meaning): the
    permutation of its ravel under the same stream, reshaped; out= written; the result is laid
    out as the input, so a reduction of it moves only the partial sums."""
    x = cupynum.asarray(numpy.arange(math.prod(shape), dtype=numpy.int64).reshape(shape) * 3)
    got = cupynum.random.default_rng(31).permuted(x)
    want = cupynum.random.default_rng(31).permutation(x.ravel())
    numpy.testing.assert_array_equal(numpy.asarray(got), numpy.asarray(want).reshape(shape))
    assert got.shape == shape
    if math.prod(shape) >= 8:
        assert (numpy.asarray(got) != numpy.asarray(x)).any()
    _, sent = _sent(lambda: int(got.sum()))
    assert sent <= 64 * (RANKS > 1)
    out = cupynum.zeros(shape, dtype=numpy.int64)
    r = cupynum.random.default_rng(31).permuted(x, out=out)
    assert r is out
    numpy.testing.assert_array_equal(numpy.asarray(out), numpy.asarray(got))


def test_permutations_uniform():
    """Small permutations (a tabulated Fisher-Yates shuffle of Philox integers): all 120 orders of
    5 elements equally likely (chi-squared over 6000 draws).  Large ones (a Feistel bijection
    with cycle walking, above 65536 elements): where the elements of 20 blocks of the input land
    among 20 blocks of the output is uniform over 12 draws, and successive elements rise half
    the time."""
    import collections
    g = cupynum.random.default_rng(8)
    counts = collections.Counter(tuple(numpy.asarray(g.permutation(5)).tolist()) for _ in range(6000))
    obs = numpy.array([counts.get(p, 0) for p in __import__("itertools").permutations(range(5))])
    stat = float(((obs - 50.0) ** 2 / 50.0).sum())
    assert _chi2_sf(stat, 119) > P_MIN and len(counts) == 120
    n, k = 100003, 20
    joint = numpy.zeros((k, k))
    rises = 0
    for _ in range(12):
        p = numpy.asarray(g.permutation(n))
        assert (numpy.sort(p) == numpy.arange(n)).all()
        joint += numpy.histogram2d(numpy.arange(n), p, bins=k, range=[[0, n], [0, n]])[0]
        rises += int((numpy.diff(p) > 0).sum())
    e = joint.sum() / k / k
    assert _chi2_sf(float(((joint - e) ** 2 / e).sum()), (k - 1) ** 2) > P_MIN
    m = 12 * (n - 1)
    assert abs(rises - m / 2) < 6 * math.sqrt(m / 12)   # rises' variance: (n + 1) / 12 per draw


def test_permutations_send_one_copy():
    """A partitioned array's permutation moves each row once, from its owner to its destination's
    owner (one all-to-all; the receivers know the order from the inverse bijection): a rank sends
    at most 1.2 times its share ((P - 1) / P of it in expectation); 0 on one rank.  permuted
    with axis=None is the permutation of a flat copy, which moves nothing more when the array is
    tiled by rows (y) and at most the share once more otherwise (z)."""
    g = cupynum.random.default_rng(9)
    x = cupynum.asarray(numpy.arange(2.0 * 10**5))
    y = cupynum.asarray(numpy.arange(3.0 * 10**5).reshape(10**5, 3))
    z = cupynum.asarray(numpy.arange(101 * 99 * 30.0).reshape(101, 99, 30))[:, :, :-1].copy()
    for f, nbytes in [(lambda: g.permutation(x), 1.6e6), (lambda: g.permutation(2 * 10**5), 1.6e6),
                      (lambda: g.shuffle(x), 1.6e6), (lambda: g.permutation(y), 2.4e6),
                      (lambda: g.shuffle(y), 2.4e6), (lambda: g.permuted(y), 2.4e6),
                      # z tiled on more than its rows (a grid of ranks): laying its flat copy
                      # out by ranges of elements moves up to its share once more
                      (lambda: g.permuted(z), 2.4e6 * 2.2 / 1.2),
                      (lambda: g.choice(2 * 10**5, 100, replace=False), 1.6e6)]:
        _, sent = _sent(f)
        assert sent <= 1.2 * nbytes / RANKS * (RANKS > 1)
    assert sorted(numpy.asarray(x).tolist()) == list(range(2 * 10**5))
    yn = numpy.asarray(y)
    numpy.testing.assert_array_equal(yn - yn[:, :1], numpy.tile([0.0, 1.0, 2.0], (10**5, 1)))


def test_multivariate():
    g = cupynum.random.default_rng(2)
    cov = numpy.array([[2.0, 0.6], [0.6, 1.0]])
    x = numpy.asarray(g.multivariate_normal([1.0, -1.0], cov, size=200000))
    numpy.testing.assert_allclose(numpy.cov(x.T), cov, atol=0.02)
    numpy.testing.assert_allclose(x.mean(axis=0), [1, -1], atol=0.01)
    d = numpy.asarray(g.dirichlet([1.0, 2.0, 3.0], size=100000))
    numpy.testing.assert_allclose(d.sum(axis=1), 1.0)
    numpy.testing.assert_allclose(d.mean(axis=0), [1 / 6, 2 / 6, 3 / 6], atol=0.005)
    m = numpy.asarray(g.multinomial(20, [0.2, 0.3, 0.5], size=100000))
    assert (m.sum(axis=1) == 20).all()
    numpy.testing.assert_allclose(m.mean(axis=0), [4, 6, 10], atol=0.03)
    numpy.testing.assert_allclose(m.var(axis=0), [3.2, 4.2, 5.0], rtol=0.03)
    h = numpy.asarray(g.multivariate_hypergeometric([5, 10, 15], 6, size=1000))
    assert (h.sum(axis=1) == 6).all()


def test_multinomial_array_n_and_pvals():
    """multinomial with an array n (partitioned: drawn where it lives) and with 2-d pvals: each
    row sums to its n, and every column matches NumPy's draws (chi-squared); a wrong pvals row
    fails the same test; NumPy's errors for a size that cannot hold the parameters."""
    m = 30000
    n_np = numpy.arange(m) % 17 + 3
    n_c = cupynum.asarray(n_np)
    n_c.sum()
    pv = [0.1, 0.25, 0.0, 0.65]
    g = cupynum.random.default_rng(21)
    x, sent = _sent(lambda: g.multinomial(n_c, pv))
    assert sent < 16384
    x = numpy.asarray(x)
    ref = numpy.random.default_rng(21).multinomial(n_np, pv)
    assert x.dtype == ref.dtype and x.shape == ref.shape == (m, 4)
    assert (x.sum(axis=1) == n_np).all() and (x[:, 2] == 0).all()
    for j in (0, 1, 3):
        assert chi2_2samp(x[:, j], ref[:, j])[1] > P_MIN, j
    pv2 = numpy.array([[0.2, 0.3, 0.5], [0.6, 0.1, 0.3]])
    y = numpy.asarray(g.multinomial(numpy.array([[12], [40]]), pv2, size=(2, 2)))
    assert y.shape == (2, 2, 3) and (y.sum(axis=-1) == [[12, 12], [40, 40]]).all()
    z = numpy.asarray(g.multinomial(25, pv2, size=(20000, 2)))
    zr = numpy.random.default_rng(3).multinomial(25, pv2, size=(20000, 2))
    assert (z.sum(axis=-1) == 25).all()
    for r in range(2):
        for j in range(3):
            assert chi2_2samp(z[:, r, j], zr[:, r, j])[1] > P_MIN, (r, j)
    swapped = numpy.asarray(g.multinomial(25, pv2[::-1], size=(20000, 2)))
    assert chi2_2samp(swapped[:, 0, 0], zr[:, 0, 0])[1] < P_MIN
    for args in [(numpy.array([3, 4]), pv, 3), (numpy.array([3, -1]), pv, None),
                 (5, [[0.5, -0.1, 0.6]], None)]:
        try:
            numpy.random.default_rng(0).multinomial(*args)
            raise AssertionError(args)
        except ValueError as e:
            want = (type(e), str(e))
        state = g.bit_generator.state
        assert _err(lambda: g.multinomial(*args)) == want and g.bit_generator.state == state


@pytest.mark.parametrize("method", ["marginals", "count"])
def test_multivariate_hypergeometric_native(method):
    """multivariate_hypergeometric drawn natively (hypergeometric marginals, element-wise): rows
    sum to nsample, each color's count matches NumPy's draws (chi-squared); a size of None gives
    one row; a wrong color count fails the test."""
    colors = [5, 10, 0, 15, 7]
    g = cupynum.random.default_rng(33)
    x = numpy.asarray(g.multivariate_hypergeometric(colors, 12, size=100000, method=method))
    ref = numpy.random.default_rng(33).multivariate_hypergeometric(colors, 12, size=100000,
                                                                   method=method)
    assert x.dtype == ref.dtype and x.shape == ref.shape
    assert (x.sum(axis=1) == 12).all() and (x[:, 2] == 0).all() and (x <= colors).all()
    for j in (0, 1, 3, 4):
        assert chi2_2samp(x[:, j], ref[:, j])[1] > P_MIN, j
    one = numpy.asarray(g.multivariate_hypergeometric(colors, 37, method=method))
    assert one.shape == (5,) and (one == colors).all()
    bad = numpy.asarray(g.multivariate_hypergeometric([5, 11, 0, 15, 7], 12, size=100000))
    assert chi2_2samp(bad[:, 1], ref[:, 1])[1] < P_MIN


# ---- one process, any rank count, the simulated device: the same bits ----------------------------

HASH_CODE = r"""
import hashlib, json, numpy, cupynum as np
g = np.random.default_rng(2024)
out = {}
for name, args in [("random", ()), ("standard_normal", ()), ("integers", (-7, 1000)),
                   ("exponential", (2.0,)), ("gamma", (2.0,)), ("gamma", (0.4,)), ("poisson", (5.0,)),
                   ("poisson", (40.0,)), ("binomial", (10, 0.3)), ("binomial", (400, 0.5)),
                   ("beta", (2.0, 3.0)), ("standard_t", (3.0,)), ("vonmises", (0.0, 2.0)),
                   ("negative_binomial", (3, 0.5)), ("hypergeometric", (20, 30, 15)),
                   ("zipf", (2.0,)), ("logseries", (0.7,)), ("noncentral_chisquare", (3.0, 1.0))]:
    x = numpy.ascontiguousarray(numpy.asarray(getattr(g, name)(*args, size=(37, 29))))
    out[name + str(args)] = hashlib.sha256(x.tobytes()).hexdigest()
x = numpy.asarray(g.normal(numpy.arange(3.0), 2.0, size=(50, 3)))
out["normal_array"] = hashlib.sha256(x.tobytes()).hexdigest()
# per-element parameters: partitioned (also through an offset view), broadcast, NumPy arrays
lam = np.asarray(numpy.linspace(0.5, 40.0, 38 * 29).reshape(38, 29))
idx = np.asarray(numpy.arange(37 * 29).reshape(37, 29))
for name, args in [("poisson", (lam,)), ("gamma", (lam, 0.5)), ("weibull", (lam[1:] / 10,)),
                   ("binomial", (idx % 50, numpy.linspace(0.05, 0.95, 29))),
                   ("hypergeometric", (numpy.arange(1, 30), 40, idx % 20)),
                   ("standard_t", (lam[:, 3:4] + 0.5,)), ("zipf", (1.5 + lam[1:] / 40,)),
                   ("beta", (lam[1:], lam[:-1])), ("vonmises", (0.0, lam[1:])),
                   ("integers", (idx - 500, idx % 50 + idx + 1)), ("integers", (numpy.arange(29), 100))]:
    x = numpy.ascontiguousarray(numpy.asarray(getattr(g, name)(*args)))
    out[name + "_array"] = hashlib.sha256(x.tobytes()).hexdigest()
out["perm"] = hashlib.sha256(numpy.asarray(g.permutation(517)).tobytes()).hexdigest()
# the ziggurat's slow paths, integers' rejections (3e9: 30% rejected) and 64-bit range, odd sizes
for name, args, size in [("standard_normal", (), 40001), ("integers", (0, 3 * 10**9), 4099),
                         ("integers", (5, 2**40 + 5), 4099), ("uniform", (-1.0, 2.0), 4097)]:
    x = numpy.asarray(getattr(g, name)(*args, size=size))
    out[name + str(args) + str(size)] = hashlib.sha256(x.tobytes()).hexdigest()
# permutations of partitioned arrays (a distributed argsort of counter-based keys)
a = np.arange(3001.0)
out["permutation_array"] = hashlib.sha256(numpy.asarray(g.permutation(a)).tobytes()).hexdigest()
g.shuffle(a)
out["shuffle"] = hashlib.sha256(numpy.asarray(a).tobytes()).hexdigest()
# above 65536 elements the Feistel bijection; rows of a 2-d array
out["permutation_large"] = hashlib.sha256(numpy.asarray(g.permutation(70001)).tobytes()).hexdigest()
c = np.asarray(numpy.arange(3 * 4001.0).reshape(4001, 3))
out["permutation_rows"] = hashlib.sha256(numpy.asarray(g.permutation(c)).tobytes()).hexdigest()
b = np.arange(60.0).reshape(6, 10)
out["permuted"] = hashlib.sha256(numpy.asarray(g.permuted(b, axis=1)).tobytes()).hexdigest()
b3 = np.asarray(numpy.arange(3 * 41 * 7.0).reshape(41, 3, 7))
out["permuted_flat"] = hashlib.sha256(numpy.asarray(g.permuted(b3)).tobytes()).hexdigest()
print(json.dumps(out))
"""


@pytest.mark.device
def test_hashes_equal_one_process_run():
    """This run (any rank count, any device) and a one-process host child: identical draws."""
    env = {k: v for k, v in os.environ.items()
           if not k.startswith(("OMPI_", "PMIX_", "PMI_")) and k != "CUPYNUM_DEVICE"}
    child = subprocess.run([sys.executable, "-c", HASH_CODE], env=env, capture_output=True,
                           text=True, timeout=300, check=True)
    want = json.loads(child.stdout.strip().splitlines()[-1])
    import contextlib
    import io
    buf = io.StringIO()
    with contextlib.redirect_stdout(buf):
        exec(compile(HASH_CODE, "<hash>", "exec"), {})
    got = json.loads(buf.getvalue().strip().splitlines()[-1])
    assert got == want
