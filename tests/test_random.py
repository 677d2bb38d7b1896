"""cupynum.random: reproducibility, shapes and dtypes like numpy.random's legacy functions, and
statistical sanity (moments computed with NumPy on the drawn data). The streams are cupynum's
own (Philox, counter-based), so values are not compared with numpy.random's."""

import math

import numpy
import pytest

import cupynum
import cupynum.random as cr

pytestmark = [pytest.mark.device]

N = 200_000  # large enough for tight-ish moment bounds, small enough to be fast


CALLS = [
    ("random", lambda size: cr.random(size), lambda size: numpy.random.random(size)),
    ("random_sample", lambda size: cr.random_sample(size),
     lambda size: numpy.random.random_sample(size)),
    ("uniform", lambda size: cr.uniform(-2.0, 3.0, size), lambda size: numpy.random.uniform(-2.0, 3.0, size)),
    ("standard_normal", lambda size: cr.standard_normal(size), lambda size: numpy.random.standard_normal(size)),
    ("normal", lambda size: cr.normal(1.5, 0.5, size), lambda size: numpy.random.normal(1.5, 0.5, size)),
]
CALL_IDS = [c[0] for c in CALLS]


@pytest.mark.parametrize("name,cfn,nfn", CALLS, ids=CALL_IDS)
def test_seed_reproducibility(name, cfn, nfn):
    cr.seed(1234)
    a1 = numpy.asarray(cfn((50, 7)))
    b1 = numpy.asarray(cfn(100))
    cr.seed(1234)
    a2 = numpy.asarray(cfn((50, 7)))
    b2 = numpy.asarray(cfn(100))
    numpy.testing.assert_array_equal(a1, a2, strict=True)
    numpy.testing.assert_array_equal(b1, b2, strict=True)
    # successive draws differ
    assert not numpy.array_equal(a1.ravel()[:100], b1)
    cr.seed(4321)
    a3 = numpy.asarray(cfn((50, 7)))
    assert not numpy.array_equal(a1, a3)
    assert numpy.mean(a1 == a3) < 0.01


def test_seed_reproducibility_scalar_draws():
    cr.seed(7)
    xs = [cr.random(), cr.uniform(), cr.normal(), cr.standard_normal()]
    cr.seed(7)
    ys = [cr.random(), cr.uniform(), cr.normal(), cr.standard_normal()]
    assert xs == ys
    assert len(set(xs)) == 4


def test_seed_none_and_unseeded_differ():
    cr.seed(None)
    a = numpy.asarray(cr.random(64))
    cr.seed(None)
    b = numpy.asarray(cr.random(64))
    assert not numpy.array_equal(a, b)


@pytest.mark.parametrize("bad", [-1, 2**64])
def test_seed_out_of_range_raises(bad):
    """NumPy's legacy seed takes 0..2**32-1 and raises ValueError outside; cupynum's takes
    0..2**64-1 and raises the same error type outside."""
    with pytest.raises(ValueError):
        numpy.random.seed(bad)
    with pytest.raises(ValueError):
        cr.seed(bad)


@pytest.mark.parametrize("size", [None, 0, 1, 5, (3,), (2, 3), (2, 0, 4), (1, 1, 1, 1), [4, 2]],
                         ids=repr)
@pytest.mark.parametrize("name,cfn,nfn", CALLS, ids=CALL_IDS)
def test_shapes_and_dtypes_like_numpy(name, cfn, nfn, size):
    c, n = cfn(size), nfn(size)
    if size is None:
        assert type(n) is float
        assert type(c) is float
    else:
        assert isinstance(c, cupynum.ndarray)
        assert c.shape == n.shape
        assert c.dtype == n.dtype


@pytest.mark.parametrize("shape", [(), (4,), (2, 3), (2, 3, 4)], ids=repr)
def test_rand_randn_shapes(shape):
    for cf, nf in ((cr.rand, numpy.random.rand), (cr.randn, numpy.random.randn)):
        c, n = cf(*shape), nf(*shape)
        if shape == ():
            assert type(c) is type(n) is float
        else:
            assert isinstance(c, cupynum.ndarray)
            assert c.shape == n.shape and c.dtype == n.dtype


@pytest.mark.parametrize("low,high", [(0.0, 1.0), (-3.0, -1.0), (10, 20), (-1e-3, 1e-3), (5.0, 5.5)])
def test_uniform_in_range_and_moments(low, high):
    cr.seed(11)
    x = numpy.asarray(cr.uniform(low, high, N))
    assert x.dtype == numpy.float64 and x.shape == (N,)
    assert x.min() >= low and x.max() < high
    width = high - low
    assert abs(x.mean() - (low + high) / 2) < 0.01 * width
    assert abs(x.std() - width / math.sqrt(12)) < 0.01 * width
    # roughly flat histogram
    counts, _ = numpy.histogram(x, bins=10, range=(low, high))
    assert counts.min() > 0.9 * N / 10 and counts.max() < 1.1 * N / 10


@pytest.mark.parametrize("fn", [lambda: cr.random(N), lambda: cr.random_sample((N,)),
                                lambda: cr.rand(N), lambda: cr.sample(N), lambda: cr.ranf(N)],
                         ids=["random", "random_sample", "rand", "sample", "ranf"])
def test_unit_uniform_range(fn):
    x = numpy.asarray(fn())
    assert x.min() >= 0.0 and x.max() < 1.0
    assert abs(x.mean() - 0.5) < 0.01
    assert abs(x.var() - 1 / 12) < 0.005


@pytest.mark.parametrize("loc,scale", [(0.0, 1.0), (3.0, 2.0), (-10.0, 0.1), (0.0, 0.0)])
def test_normal_moments(loc, scale):
    cr.seed(5)
    x = numpy.asarray(cr.normal(loc, scale, N))
    assert x.dtype == numpy.float64
    assert abs(x.mean() - loc) < 0.02 * max(scale, 1e-12)
    assert abs(x.std() - scale) < 0.02 * max(scale, 1e-12)
    if scale:
        z = (x - loc) / scale
        assert abs(numpy.mean(z ** 3)) < 0.05           # skewness ~ 0
        assert abs(numpy.mean(z ** 4) - 3.0) < 0.1      # kurtosis ~ 3
        assert 0.67 < numpy.mean(abs(z) < 1) < 0.70     # 68.3% within one sigma


@pytest.mark.parametrize("fn", [lambda: cr.standard_normal(N), lambda: cr.randn(N)],
                         ids=["standard_normal", "randn"])
def test_standard_normal_moments(fn):
    x = numpy.asarray(fn())
    assert numpy.isfinite(x).all()
    assert abs(x.mean()) < 0.02
    assert abs(x.std() - 1.0) < 0.02


def test_normal_negative_scale_raises():
    with pytest.raises(ValueError):
        numpy.random.normal(0.0, -1.0, 3)
    with pytest.raises(ValueError):
        cr.normal(0.0, -1.0, 3)


def test_uniform_array_bounds_broadcast():
    low = numpy.array([0.0, 10.0, -5.0])
    high = numpy.array([1.0, 20.0, -4.0])
    c = cr.uniform(cupynum.array(low), high, size=(1000, 3))
    n = numpy.random.uniform(low, high, size=(1000, 3))
    assert isinstance(c, cupynum.ndarray) and c.shape == n.shape and c.dtype == n.dtype
    x = numpy.asarray(c)
    assert (x >= low).all() and (x < high).all()
    c2 = cr.uniform(low, high)
    assert numpy.asarray(c2).shape == numpy.random.uniform(low, high).shape


def test_draws_independent_between_elements():
    cr.seed(99)
    x = numpy.asarray(cr.random(N))
    corr = numpy.corrcoef(x[:-1], x[1:])[0, 1]
    assert abs(corr) < 0.01


def test_draws_are_usable_in_arithmetic():
    cr.seed(3)
    a = cr.random((100, 100))
    b = a * 2.0 - 1.0
    na = numpy.asarray(a)
    numpy.testing.assert_array_equal(numpy.asarray(b), na * 2.0 - 1.0)
    assert isinstance(cupynum.sum(b), numpy.float64)
    numpy.testing.assert_allclose(cupynum.sum(b), numpy.sum(na * 2.0 - 1.0), rtol=1e-12)
