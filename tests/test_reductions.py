"""Reductions sum/prod/min/max/mean as functions and methods, over axes, keepdims and dtype=,
compared with NumPy (exact for integers, bools, min/max; tight tolerance for float sums whose
order may differ)."""

import warnings

import numpy
import pytest
from numpy.exceptions import AxisError

import cupynum
from conftest import ALL_DTYPES, both, check, dtype_id, sample

REDUCTIONS = ["sum", "prod", "min", "max", "mean"]

SHAPES_AXES = [
    ((7,), [None, 0, -1, (0,)]),
    ((3, 4), [None, 0, 1, -1, -2, (0, 1), (1, 0), (1,)]),
    ((2, 3, 5), [None, 0, 1, 2, -1, (0, 2), (2, 0), (0, 1), (-1, -2), (0, 1, 2)]),
    ((4, 1, 3), [None, 1, (0, 1), 2]),
    ((), [None, ()]),
    ((1,), [None, 0]),
    ((3, 0), [0]),  # an empty axis reduces to the identity (sum/prod only; min/max raise)
]

CASES = [(shape, axis) for shape, axes in SHAPES_AXES for axis in axes]


def _case_id(c):
    shape, axis = c
    return f"{'x'.join(map(str, shape)) or 'scalar'}-ax{axis}".replace(" ", "")


def _tol(name, dtype):
    """Exact where NumPy is exact; float sums/means/products may add in another order."""
    dtype = numpy.dtype(dtype)
    if name in ("min", "max") or dtype.kind in "biu" and name != "mean":
        return 0.0
    if name == "mean" and dtype.kind in "biu":
        return 1e-15
    return {2: 4e-3, 4: 2e-6, 8: 1e-14, 16: 1e-14}[dtype.itemsize if dtype.kind == "f"
                                                  else dtype.itemsize // 2]


def _data(shape, dtype, name):
    if name == "prod":
        # small magnitudes keep products exact where NumPy's are (no overflow in float16)
        if numpy.dtype(dtype).kind == "u":
            return sample(shape, dtype, low=1, high=3)
        if numpy.dtype(dtype).kind == "b":
            return sample(shape, dtype)
        return sample(shape, dtype, low=-2, high=2)
    return sample(shape, dtype)


def compare(fn, n, c, rtol):
    with numpy.errstate(all="ignore"), warnings.catch_warnings():
        warnings.simplefilter("ignore", RuntimeWarning)
        try:
            expected = fn(numpy, n)
        except Exception as e:  # noqa: BLE001  NumPy's behaviour is the oracle
            with pytest.raises(type(e)):
                fn(cupynum, c)
            return
        got = fn(cupynum, c)
    check(got, expected, rtol=rtol)


@pytest.mark.parametrize("case", CASES, ids=_case_id)
@pytest.mark.parametrize("dtype", ALL_DTYPES, ids=dtype_id)
@pytest.mark.parametrize("name", REDUCTIONS)
def test_reduction_function(name, dtype, case):
    shape, axis = case
    n, c = both(_data(shape, dtype, name))
    compare(lambda m, a: getattr(m, name)(a, axis=axis), n, c, _tol(name, dtype))


@pytest.mark.parametrize("case", CASES, ids=_case_id)
@pytest.mark.parametrize("dtype", [numpy.bool_, numpy.int8, numpy.uint32, numpy.int64,
                                   numpy.float16, numpy.float32, numpy.complex128], ids=dtype_id)
@pytest.mark.parametrize("name", REDUCTIONS)
def test_reduction_method_keepdims(name, dtype, case):
    shape, axis = case
    n, c = both(_data(shape, dtype, name))
    compare(lambda m, a: getattr(a, name)(axis=axis, keepdims=True), n, c, _tol(name, dtype))
    compare(lambda m, a: getattr(a, name)(axis), n, c, _tol(name, dtype))


@pytest.mark.parametrize("dtype", ALL_DTYPES, ids=dtype_id)
@pytest.mark.parametrize("name", REDUCTIONS)
def test_full_reduction_returns_numpy_scalar(name, dtype):
    n, c = both(_data((4, 5), dtype, name))
    compare(lambda m, a: getattr(m, name)(a), n, c, _tol(name, dtype))
    compare(lambda m, a: getattr(a, name)(), n, c, _tol(name, dtype))


@pytest.mark.parametrize("acc", [numpy.int8, numpy.int32, numpy.int64, numpy.uint8, numpy.uint64,
                                 numpy.float16, numpy.float32, numpy.float64, numpy.complex128],
                         ids=dtype_id)
@pytest.mark.parametrize("dtype", [numpy.bool_, numpy.int8, numpy.int32, numpy.uint16,
                                   numpy.float32, numpy.float64], ids=dtype_id)
@pytest.mark.parametrize("name", ["sum", "prod", "mean"])
@pytest.mark.parametrize("axis", [None, 0, 1])
def test_reduction_dtype_argument(name, dtype, acc, axis):
    n, c = both(_data((6, 5), dtype, name))
    tol = max(_tol(name, dtype), _tol(name, acc) if numpy.dtype(acc).kind in "fc" else 0.0)
    compare(lambda m, a: getattr(m, name)(a, axis=axis, dtype=acc), n, c, tol)


@pytest.mark.parametrize("dtype", [numpy.int8, numpy.uint8, numpy.int16, numpy.int32],
                         ids=dtype_id)
def test_small_integer_sum_widens_no_overflow(dtype):
    n, c = both(numpy.full((300,), numpy.iinfo(dtype).max, dtype=dtype))
    compare(lambda m, a: m.sum(a), n, c, 0.0)
    compare(lambda m, a: a.prod(), n, c, 0.0)
    compare(lambda m, a: m.sum(a, dtype=dtype), n, c, 0.0)  # wraps in the narrow type


def test_int64_sum_wraps():
    n, c = both(numpy.array([2**62, 2**62, 2**62], dtype=numpy.int64))
    compare(lambda m, a: m.sum(a), n, c, 0.0)


@pytest.mark.parametrize("name", REDUCTIONS)
def test_reductions_of_views(name):
    n, c = both(sample((6, 8), numpy.float64, seed=9))
    for view in (lambda a: a[::2, 1::3], lambda a: a.T, lambda a: a[::-1, ::-2],
                 lambda a: a[2], lambda a: a[:, None, 3:5]):
        for axis in (None, 0, -1):
            compare(lambda m, a: getattr(m, name)(view(a), axis=axis), n, c, 1e-14)


@pytest.mark.parametrize("name", ["min", "max"])
@pytest.mark.parametrize("dtype", [numpy.float16, numpy.float32, numpy.float64, numpy.complex128],
                         ids=dtype_id)
def test_min_max_nan_propagates(name, dtype):
    a = numpy.array([[1.0, numpy.nan, 3.0], [4.0, 5.0, -6.0]], dtype=dtype)
    n, c = both(a)
    for axis in (None, 0, 1):
        compare(lambda m, x: getattr(m, name)(x, axis=axis), n, c, 0.0)


@pytest.mark.parametrize("name", ["min", "max"])
@pytest.mark.parametrize("dtype", [numpy.float32, numpy.float64], ids=dtype_id)
@pytest.mark.parametrize("n", [63, 64, 65, 127, 1000, 4099])
def test_min_max_long_rows_with_nan_inf_and_zeros(name, dtype, n):
    """Rows long enough for the vector folds (16 / 32 lanes from 64 elements): NumPy's extreme
    along each axis and over all, with a NaN in the first round, in the middle, among the last
    elements after the vector rounds or nowhere, infinities and both zeros."""
    rng = numpy.random.default_rng(n)
    a = rng.standard_normal((9, n)).astype(dtype)
    a[1, 0] = a[2, n // 2] = a[3, n - 1] = a[4, n - 3] = numpy.nan
    a[5, rng.integers(0, n, 5)] = numpy.inf
    a[6, rng.integers(0, n, 5)] = -numpy.inf
    a[7] = numpy.where(rng.random(n) < 0.5, dtype(0.0), dtype(-0.0))
    a[8, :] = a[8, 0]
    x, y = both(a)
    for axis in (None, 0, 1):
        compare(lambda m, v: getattr(m, name)(v, axis=axis), x, y, 0.0)
    for r in range(a.shape[0]):
        compare(lambda m, v: getattr(m, name)(v[r]), x, y, 0.0)
        compare(lambda m, v: getattr(m, name)(v[r, 1:]), x, y, 0.0)   # unaligned
    compare(lambda m, v: getattr(m, name)(v[:, ::2], axis=1), x, y, 0.0)


@pytest.mark.parametrize("name", ["min", "max"])
def test_min_max_signed_zero_and_inf(name):
    n, c = both(numpy.array([0.0, -0.0, numpy.inf, -numpy.inf, 2.0]))
    compare(lambda m, x: getattr(m, name)(x), n, c, 0.0)
    compare(lambda m, x: getattr(m, name)(x[:2]), n, c, 0.0)


@pytest.mark.parametrize("dtype", [d for d in ALL_DTYPES if d.kind in "iu"], ids=dtype_id)
def test_min_max_integer_extremes(dtype):
    info = numpy.iinfo(dtype)
    n, c = both(numpy.array([0, info.max, info.min, 1, info.max - 1], dtype=dtype))
    for name in ("min", "max"):
        compare(lambda m, x: getattr(m, name)(x), n, c, 0.0)


def test_amin_amax_aliases():
    n, c = both(sample((3, 4), numpy.int32))
    check(cupynum.amax(c, axis=0), numpy.amax(n, axis=0))
    check(cupynum.amin(c), numpy.amin(n))


# ---- errors and empty arrays -----------------------------------------------------------------------

@pytest.mark.parametrize("axis", [2, -3, 5, (0, 2), (-3,)], ids=repr)
@pytest.mark.parametrize("name", REDUCTIONS)
def test_bad_axis_raises_axiserror(name, axis):
    n, c = both(sample((3, 4), numpy.float64))
    with pytest.raises(AxisError):
        getattr(numpy, name)(n, axis=axis)
    with pytest.raises(AxisError):
        getattr(cupynum, name)(c, axis=axis)
    with pytest.raises(AxisError):
        getattr(c, name)(axis=axis)
    check(c, n)


@pytest.mark.parametrize("name", REDUCTIONS)
def test_duplicate_axis_raises_valueerror(name):
    n, c = both(sample((3, 4), numpy.float64))
    with pytest.raises(ValueError):
        getattr(numpy, name)(n, axis=(0, 0))
    with pytest.raises(ValueError):
        getattr(cupynum, name)(c, axis=(0, 0))
    with pytest.raises(ValueError):
        getattr(cupynum, name)(c, axis=(1, -1))


@pytest.mark.parametrize("name", ["min", "max"])
@pytest.mark.parametrize("shape,axis", [((0,), None), ((0,), 0), ((3, 0), 1), ((0, 4), None),
                                        ((0, 4), 0)], ids=repr)
def test_empty_min_max_raise_valueerror(name, shape, axis):
    n, c = both(numpy.zeros(shape))
    with pytest.raises(ValueError) as en:
        getattr(numpy, name)(n, axis=axis)
    with pytest.raises(ValueError) as ec:
        getattr(cupynum, name)(c, axis=axis)
    assert "zero-size array" in str(en.value) and "zero-size array" in str(ec.value)


@pytest.mark.parametrize("dtype", ALL_DTYPES, ids=dtype_id)
@pytest.mark.parametrize("name", ["sum", "prod"])
def test_sum_prod_of_empty_is_identity(name, dtype):
    n, c = both(numpy.zeros((0,), dtype=dtype))
    compare(lambda m, a: getattr(m, name)(a), n, c, 0.0)
    n, c = both(numpy.zeros((0, 3), dtype=dtype))
    compare(lambda m, a: getattr(m, name)(a, axis=0), n, c, 0.0)
    compare(lambda m, a: getattr(m, name)(a, axis=1), n, c, 0.0)


def test_mean_of_empty_is_nan_with_warning():
    n, c = both(numpy.zeros((0,)))
    with pytest.warns(RuntimeWarning):
        en = numpy.mean(n)
    with pytest.warns(RuntimeWarning):
        ec = cupynum.mean(c)
    check(ec, en)


def test_reduction_out_argument():
    n, c = both(sample((3, 4), numpy.float64))
    on, oc = numpy.zeros(4), cupynum.zeros(4)
    rn = numpy.sum(n, axis=0, out=on)
    rc = cupynum.sum(c, axis=0, out=oc)
    assert rn is on and rc is oc
    check(oc, on)
    with pytest.raises(ValueError):
        numpy.sum(n, axis=1, out=numpy.zeros(4))
    with pytest.raises(ValueError):
        cupynum.sum(c, axis=1, out=cupynum.zeros(4))


def test_numpy_reductions_dispatch_to_cupynum():
    n, c = both(sample((3, 4), numpy.int16))
    for name in REDUCTIONS:
        check(getattr(numpy, name)(c), getattr(numpy, name)(n))
        check(getattr(numpy, name)(c, axis=1), getattr(numpy, name)(n, axis=1))
    check(numpy.add.reduce(c, axis=0), numpy.add.reduce(n, axis=0))
    check(numpy.maximum.reduce(c), numpy.maximum.reduce(n))


def test_reductions_of_lists():
    lst = [[1, 2, 3], [4, 5, 6]]
    for name in REDUCTIONS:
        check(getattr(cupynum, name)(lst), getattr(numpy, name)(lst))
        check(getattr(cupynum, name)(lst, axis=0), getattr(numpy, name)(lst, axis=0))


def test_large_float_sum_accuracy():
    """NumPy sums floats pairwise; a naive left-to-right sum of 1e6 float32 values drifts far
    beyond the tolerance used here."""
    n = (numpy.arange(1_000_000) % 10 * 0.1).astype(numpy.float32)
    c = cupynum.array(n)
    check(cupynum.sum(c), numpy.sum(n), rtol=1e-5)
    check(c.mean(), n.mean(), rtol=1e-5)
    n64 = numpy.linspace(0, 1, 1_000_001)
    check(cupynum.array(n64).sum(), n64.sum(), rtol=1e-13)


def test_deferred_results_reduce_correctly():
    n, c = both(sample((50, 40), numpy.float64))
    rn = ((n * 2 + 1) ** 2).sum(axis=1)
    rc = ((c * 2 + 1) ** 2).sum(axis=1)
    check(rc, rn, rtol=1e-14)
    check((c > 0).sum(), (n > 0).sum())


# An extreme over a few elements per output (a 2x2 max pooling) folds whole rows of outputs in
# C order over the reduced dimensions (reduce.c): NumPy's values, NaNs included, also through
# strided and transposed views, with keepdims (which of +0.0 and -0.0 is kept may differ, as
# between NumPy's own loops: floats compare as values, the rest bit for bit).
@pytest.mark.parametrize("dtype", ["float64", "int64", "uint8", "bool", "int16"])
@pytest.mark.parametrize("name", ["max", "min"])
def test_extremes_over_small_windows(dtype, name):
    rng = numpy.random.default_rng(7)
    x = rng.integers(-3, 4, size=(4, 3, 12, 10)).astype(dtype)
    if dtype == "float64":
        x = numpy.where(rng.random(x.shape) < 0.5, -0.0 * x, x)   # zeros of both signs
        x[1, 2, 5, 3] = numpy.nan
    c = cupynum.asarray(x)
    for view, ref in ((c, x), (c[:, :, 1:11, ::-1], x[:, :, 1:11, ::-1]),
                      (cupynum.moveaxis(c, 1, 3), numpy.moveaxis(x, 1, 3))):
        h, w = ref.shape[2] // 2, ref.shape[3] // 2
        for keepdims in (False, True):
            got = getattr(view[:, :, :2 * h, :2 * w].reshape(4, -1, h, 2, w, 2), name)(
                axis=(3, 5), keepdims=keepdims)
            exp = getattr(ref[:, :, :2 * h, :2 * w].reshape(4, -1, h, 2, w, 2), name)(
                axis=(3, 5), keepdims=keepdims)
            _same_extremes(got, exp)
        _same_extremes(getattr(view, name)(axis=(0, 2)), getattr(ref, name)(axis=(0, 2)))


def _same_extremes(got, exp):
    g = numpy.asarray(got)
    assert g.dtype == exp.dtype and g.shape == exp.shape
    if exp.dtype.kind == "f":
        numpy.testing.assert_array_equal(g, exp)
    else:
        assert g.tobytes() == exp.tobytes()


@pytest.mark.parametrize("dtype", ["float16", "float32", "float64", "complex64", "complex128"])
def test_sums_and_means_are_numpys_tree_bit_for_bit(dtype):
    """NumPy's pairwise tree per dtype: float16 summed in float32 (HALF_pairwise_sum), complex
    over the real parts (four elements a round, real and imaginary sums apart), the fused sum of
    a temporary walking the same tree; a mean divides by an intp count (complex64 in
    complex128).  Sizes around the tree's block edges, below the threaded split."""
    rng = numpy.random.default_rng(5)
    for n in (1, 3, 4, 7, 8, 9, 16, 33, 63, 64, 65, 100, 127, 128, 129, 200, 257, 1000, 4097):
        a = rng.standard_normal(n) * 5
        if dtype.startswith("complex"):
            a = a + 1j * rng.standard_normal(n)
        a = a.astype(dtype)
        c = cupynum.array(a)
        # a tiled array sums each rank's tile and combines the partials in rank order: NumPy's
        # to rounding of the dtype's precision (relative to the sum of magnitudes) instead
        tiled = cupynum._core._tiling(c)["tiled"]
        tol = {"float16": 4e-3, "float32": 1e-6, "complex64": 1e-6}.get(dtype, 1e-15) * 8 * \
            float(numpy.abs(a.astype(numpy.complex128)).sum())
        for f in (lambda x: x.sum(), lambda x: (x * 2).sum(), lambda x: x.reshape(1, -1).sum(axis=1),
                  lambda x: x.mean(), lambda x: x.reshape(1, -1).mean(axis=1),
                  lambda x: x.reshape(-1, 1).mean(axis=0), lambda x: x.mean(keepdims=True)):
            e, g = f(a), f(c)
            assert type(g) is type(e) or isinstance(g, cupynum.ndarray), (n, type(g))
            if tiled:
                assert numpy.abs(numpy.asarray(g).astype(numpy.complex128) - e).max() <= tol, n
            else:
                numpy.testing.assert_array_equal(numpy.asarray(g), e, err_msg=f"n={n}")
