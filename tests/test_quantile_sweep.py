"""median / percentile / quantile and their nan- variants against NumPy: dtypes x shapes (0-d to
3-d, empty, non-contiguous, with NaNs and all-NaN lanes) x axes (int, negative, tuples, None) x
the 13 methods x q (Python scalar, list, 0-d, 2-d float32 array) x keepdims / out.

Results must equal NumPy's bit for bit (assert_array_equal, strict dtypes): the kernel reproduces
NumPy's index arithmetic and _lerp operation by operation.  The cases NumPy computes natively
here must not be delegated to NumPy (the `native` fixture fails the test if they are); the
delegated ones (empty input, weights=, integer q...) are checked for NumPy's results too.
Warnings ("All-NaN slice encountered", "Mean of empty slice") are compared by message and count.

Under mpirun the sweep runs a subset (every dtype, fewer method/shape combinations)."""

import warnings

import numpy
import pytest

import cupynum
from cupynum import _quantile
from conftest import check, dtype_id

DISTRIBUTED = cupynum.runtime_info()["ranks"] > 1
REAL = [numpy.dtype(t) for t in (numpy.bool_, numpy.int8, numpy.int16, numpy.int32, numpy.int64,
                                 numpy.uint8, numpy.uint16, numpy.uint32, numpy.uint64,
                                 numpy.float16, numpy.float32, numpy.float64)]
METHODS = _quantile.METHODS
SHAPE_AXES = [
    ((), [None]),
    ((1,), [None, 0]),
    ((7,), [None, 0, -1]),
    ((3, 4), [None, 0, 1, -2, (0, 1)]),
    ((2, 3, 5), [None, 0, 2, (0, 2), (-1, 1), (0, 1, 2)]),
    ((4, 1, 6), [1, (0, 2)]),
]
QS = {
    "scalar": 0.4,
    "list": [0.0, 0.1, 0.25, 0.5, 0.99, 1.0],
    "0d": numpy.array(0.75),
    "2d-f32": numpy.array([[0.2, 0.6], [0.35, 1.0]], dtype=numpy.float32),
}


def data(shape, dtype, seed=0, nans=False, extremes=True):
    """Values with ties, wide ranges (signed differences that wrap, as NumPy's do) and, for
    floats, NaN scattered (nans=True) and in whole lanes."""
    dtype = numpy.dtype(dtype)
    rng = numpy.random.default_rng(seed)
    n = int(numpy.prod(shape))
    if dtype.kind == "b":
        return rng.integers(0, 2, n).astype(bool).reshape(shape)
    if dtype.kind in "iu":
        info = numpy.iinfo(dtype)
        v = rng.integers(max(info.min, -40), min(info.max, 40), n, endpoint=True)
        v = v.astype(dtype)
        if n > 3 and extremes:   # extremes: b - a overflows for signed types
            v[0], v[-1] = info.min, info.max
        return v.reshape(shape)
    v = (rng.standard_normal(n) * 10).astype(dtype)
    if n > 4:
        v[1] = v[2]   # a tie
    if nans and n:
        v[rng.random(n) < 0.2] = numpy.nan
    return v.reshape(shape)


@pytest.fixture
def native(monkeypatch):
    """Fail when a case is delegated to NumPy."""
    def refuse(func, args, kwargs):
        raise AssertionError(f"{func.__name__} delegated to NumPy: {kwargs}")
    monkeypatch.setattr(_quantile, "_delegate", refuse)


def run(fn_np, fn_cp):
    """NumPy's and cupynum's results and warning messages, or the exception NumPy raised (and
    cupynum must raise the same type)."""
    with warnings.catch_warnings(record=True) as wn:
        warnings.simplefilter("always")
        try:
            e = fn_np()
        except Exception as exc:   # noqa: BLE001
            with pytest.raises(type(exc)):
                fn_cp()
            return None
    with warnings.catch_warnings(record=True) as wc:
        warnings.simplefilter("always")
        r = fn_cp()
    assert sorted(str(w.message) for w in wc) == sorted(str(w.message) for w in wn)
    check(r, e)
    return r


def lane_nans(x, axis):
    """x with its first lane (along axis, or everything when axis is None) all NaN."""
    x = x.copy()
    if x.dtype.kind != "f" or x.size == 0:
        return x
    if axis is None or x.ndim == 0:
        x[...] = numpy.nan
    else:
        ax = axis if isinstance(axis, tuple) else (axis,)
        idx = tuple(slice(None) if (d in ax or d - x.ndim in ax) else 0 for d in range(x.ndim))
        x[idx] = numpy.nan
    return x


# ---- median ------------------------------------------------------------------------------------

@pytest.mark.parametrize("name", ["median", "nanmedian"])
@pytest.mark.parametrize("dtype", REAL, ids=dtype_id)
@pytest.mark.parametrize("shape,axes", SHAPE_AXES, ids=lambda s: "x".join(map(str, s)) or "0d")
def test_median(name, dtype, shape, axes):
    fn_np, fn_cp = getattr(numpy, name), getattr(cupynum, name)
    for nans in (False, True):
        a = data(shape, dtype, nans=nans)
        for axis in axes:
            for x in (a, lane_nans(a, axis)) if nans else (a,):
                c = cupynum.array(x)
                for keepdims in (False, True):
                    run(lambda: fn_np(x, axis=axis, keepdims=keepdims),
                        lambda: fn_cp(c, axis=axis, keepdims=keepdims))


@pytest.mark.parametrize("name", ["median", "nanmedian"])
@pytest.mark.parametrize("dtype", [numpy.int8, numpy.float16, numpy.float32, numpy.float64],
                         ids=dtype_id)
def test_median_native(native, name, dtype):
    """Even and odd lanes, long lanes (nanmedian's two code paths), all native."""
    for shape, axis in [((9,), None), ((8,), 0), ((4, 6), 1), ((3, 700), 1), ((700, 2), 0),
                        ((3, 4, 5), (0, 2))]:
        a = data(shape, dtype, seed=3, nans=name == "nanmedian")
        check(getattr(cupynum, name)(cupynum.array(a), axis=axis),
              getattr(numpy, name)(a, axis=axis))


def test_median_noncontiguous():
    a = data((6, 5, 4), numpy.float64, seed=5)
    c = cupynum.array(a)
    check(cupynum.median(c[::-2, :, 1:], axis=0), numpy.median(a[::-2, :, 1:], axis=0))
    check(cupynum.median(cupynum.transpose(c), axis=(0, 2)),
          numpy.median(numpy.transpose(a), axis=(0, 2)))
    check(cupynum.quantile(c[:, ::-1], [0.3, 0.7], axis=1), numpy.quantile(a[:, ::-1], [0.3, 0.7], axis=1))


def test_median_dtypes_of_results():
    for dt in (numpy.int8, numpy.uint64, numpy.bool_, numpy.float16, numpy.float32):
        a = numpy.arange(5).astype(dt)
        check(cupynum.median(cupynum.array(a)), numpy.median(a))
        check(cupynum.median(cupynum.array(a[:4])), numpy.median(a[:4]))


# ---- quantile / percentile ---------------------------------------------------------------------

Q_FUNCS = ["quantile", "percentile", "nanquantile", "nanpercentile"]
if DISTRIBUTED:
    SWEEP_METHODS = ["inverted_cdf", "closest_observation", "hazen", "linear", "lower",
                     "midpoint", "nearest"]
else:
    SWEEP_METHODS = METHODS


def _q(name, q):
    if "percentile" not in name:
        return q
    if isinstance(q, float):
        return q * 100
    if isinstance(q, list):
        return [v * 100 for v in q]
    return q * numpy.asarray(100, q.dtype)


@pytest.mark.parametrize("name", Q_FUNCS)
@pytest.mark.parametrize("method", SWEEP_METHODS)
@pytest.mark.parametrize("dtype", REAL, ids=dtype_id)
def test_quantile_sweep(name, method, dtype):
    fn_np, fn_cp = getattr(numpy, name), getattr(cupynum, name)
    shape_axes = SHAPE_AXES if not DISTRIBUTED else SHAPE_AXES[2:5]
    for (shape, axes) in shape_axes:
        a = data(shape, dtype, seed=len(shape), nans="nan" in name)
        for axis in axes:
            x = lane_nans(a, axis) if "nan" in name and len(shape) > 1 else a
            c = cupynum.array(x)
            for qk, q in QS.items():
                q = _q(name, q)
                if DISTRIBUTED and qk == "0d":
                    continue
                run(lambda: fn_np(x, q, axis=axis, method=method),
                    lambda: fn_cp(c, q, axis=axis, method=method))
            run(lambda: fn_np(x, _q(name, 0.5), axis=axis, method=method, keepdims=True),
                lambda: fn_cp(c, _q(name, 0.5), axis=axis, method=method, keepdims=True))


@pytest.mark.parametrize("name", Q_FUNCS)
@pytest.mark.parametrize("method", METHODS)
def test_quantile_native(native, name, method):
    """The sweep's cases are computed by the kernel, not delegated."""
    for dt in (numpy.int16, numpy.uint8, numpy.float16, numpy.float32, numpy.float64):
        a = data((5, 8), dt, seed=2, nans="nan" in name, extremes=False)
        c = cupynum.array(a)
        for q in (0.3, [0.0, 0.5, 1.0], numpy.array([0.2, 0.9], numpy.float32)):
            q = _q(name, q)
            with warnings.catch_warnings():
                warnings.simplefilter("ignore", RuntimeWarning)
                check(getattr(cupynum, name)(c, q, axis=1, method=method),
                      getattr(numpy, name)(a, q, axis=1, method=method))


def test_quantile_interpolation_edges():
    """Ties, infinities next to finite values, wide signed ranges, long lanes."""
    cases = [numpy.array([-numpy.inf, 1.0, 2.0, numpy.inf]),
             numpy.array([-100, 100, 0, 50], dtype=numpy.int8),
             numpy.array([numpy.iinfo(numpy.int64).min, 7, numpy.iinfo(numpy.int64).max]),
             numpy.array([0, 2**64 - 1, 5], dtype=numpy.uint64),
             numpy.array([65504, -65504, 1, 3], dtype=numpy.float16),
             numpy.random.default_rng(1).standard_normal(10001)]
    qs = [0.0, 0.1, 1 / 3, 0.5, 0.5000001, 2 / 3, 0.999, 1.0]
    for a in cases:
        c = cupynum.array(a)
        for method in METHODS:
            with warnings.catch_warnings():
                warnings.simplefilter("ignore", RuntimeWarning)
                e = numpy.quantile(a, qs, method=method)
                r = cupynum.quantile(c, qs, method=method)
                check(r, e)
                for q in qs:
                    check(cupynum.quantile(c, q, method=method), numpy.quantile(a, q, method=method))


@pytest.mark.parametrize("name", Q_FUNCS + ["median", "nanmedian"])
def test_out(name):
    a = data((4, 6), numpy.float32, seed=4, nans="nan" in name)
    c = cupynum.array(a)
    args = () if "median" in name else (_q(name, [0.25, 0.5]),)
    for axis, keepdims in ((1, False), (0, True), (None, False)):
        e = getattr(numpy, name)(a, *args, axis=axis, keepdims=keepdims)
        for odt in (e.dtype, numpy.float64):
            no = numpy.zeros(numpy.shape(e), odt)
            co = cupynum.zeros(numpy.shape(e), odt)
            en = getattr(numpy, name)(a, *args, axis=axis, keepdims=keepdims, out=no)
            r = getattr(cupynum, name)(c, *args, axis=axis, keepdims=keepdims, out=co)
            assert r is co and en is no
            check(co, no)


def test_out_of_range_q_and_bad_input():
    a = numpy.arange(10.0)
    c = cupynum.array(a)
    for fn, q, msg in (("quantile", 1.5, "Quantiles must be in the range \\[0, 1\\]"),
                       ("quantile", [0.5, -0.1], "Quantiles must be in the range"),
                       ("nanquantile", numpy.nan, "Quantiles must be in the range"),
                       ("percentile", 101, "Percentiles must be in the range \\[0, 100\\]"),
                       ("nanpercentile", [-1, 50], "Percentiles must be in the range")):
        with pytest.raises(ValueError, match=msg):
            getattr(numpy, fn)(a, q)
        with pytest.raises(ValueError, match=msg):
            getattr(cupynum, fn)(c, q)
    run(lambda: numpy.quantile(a, 0.5, method="bogus"),
        lambda: cupynum.quantile(c, 0.5, method="bogus"))
    run(lambda: numpy.quantile(numpy.ones((2, 2, 2, 2)), numpy.full((2, 2, 2), 0.5)),
        lambda: cupynum.quantile(cupynum.ones((2, 2, 2, 2)), numpy.full((2, 2, 2), 0.5)))
    run(lambda: numpy.quantile(a.astype(complex), 0.5),
        lambda: cupynum.quantile(c.astype(complex), 0.5))
    run(lambda: numpy.quantile(a > 3, 0.5), lambda: cupynum.quantile(c > 3, 0.5))
    run(lambda: numpy.quantile(a > 3, 0.5, method="lower"),
        lambda: cupynum.quantile(c > 3, 0.5, method="lower"))
    run(lambda: numpy.median(a, axis=1), lambda: cupynum.median(c, axis=1))
    run(lambda: numpy.median(a.reshape(2, 5), axis=(0, 0)),
        lambda: cupynum.median(c.reshape(2, 5), axis=(0, 0)))


@pytest.mark.parametrize("name", Q_FUNCS + ["median", "nanmedian"])
def test_empty(name):
    args = () if "median" in name else (_q(name, 0.5),)
    for shape, axis in (((0,), None), ((0, 3), 0), ((0, 3), 1), ((3, 0), None)):
        a = numpy.zeros(shape)
        run(lambda: getattr(numpy, name)(a, *args, axis=axis),
            lambda: getattr(cupynum, name)(cupynum.array(a), *args, axis=axis))


def test_delegated_cases_match_numpy():
    a = data((4, 5), numpy.float64, seed=7)
    c = cupynum.array(a)
    w = numpy.arange(1.0, 6.0)
    check(cupynum.quantile(c, [0.3, 0.6], axis=1, method="inverted_cdf", weights=w),
          numpy.quantile(a, [0.3, 0.6], axis=1, method="inverted_cdf", weights=w))
    check(cupynum.quantile(c, 1, axis=0), numpy.quantile(a, 1, axis=0))
    check(cupynum.quantile(c, [0, 1]), numpy.quantile(a, [0, 1]))
    check(cupynum.quantile(c, numpy.float16(0.3)), numpy.quantile(a, numpy.float16(0.3)))
    check(cupynum.median(cupynum.array(numpy.float32(2.5))), numpy.median(numpy.float32(2.5)))


def test_all_nan_warnings_counted():
    a = numpy.array([[numpy.nan, numpy.nan], [1.0, numpy.nan], [numpy.nan, numpy.nan]])
    c = cupynum.array(a)
    for name, args in (("nanmedian", ()), ("nanquantile", (0.5,)), ("nanpercentile", ([10, 90],))):
        for axis in (None, 0, 1):
            run(lambda: getattr(numpy, name)(a, *args, axis=axis),
                lambda: getattr(cupynum, name)(c, *args, axis=axis))


def test_overwrite_input_and_cupynum_q():
    a = data((5, 7), numpy.float64, seed=8)
    c = cupynum.array(a)
    check(cupynum.median(c, axis=1, overwrite_input=True), numpy.median(a.copy(), axis=1))
    check(cupynum.percentile(c, cupynum.array([10.0, 90.0]), axis=0, overwrite_input=True),
          numpy.percentile(a.copy(), [10.0, 90.0], axis=0))


def test_numpy_dispatch(native):
    a = data((6, 5), numpy.float64, seed=9)
    c = cupynum.array(a)
    for name, args in (("median", ()), ("quantile", ([0.2, 0.8],)), ("percentile", (30,)),
                       ("nanmedian", ()), ("nanquantile", (0.5,)), ("nanpercentile", (70,))):
        r = getattr(numpy, name)(c, *args, axis=0)
        check(r, getattr(numpy, name)(a, *args, axis=0))


@pytest.mark.parametrize("dtype", [numpy.dtype(t) for t in (numpy.float64, numpy.float32,
                                                            numpy.float16, numpy.int64,
                                                            numpy.uint8, numpy.int16)],
                         ids=dtype_id)
def test_order_statistics_of_a_partitioned_array_select_without_gathering(native, dtype):
    """median/percentile/quantile (and nan-) of a whole partitioned array: each rank sorts its
    own values and the positions the results read are found by a bisection over the order keys
    with counts added across ranks (csrc/runtime/distselect.c), so the bytes sent per rank do not
    grow with the array (a gather sends (P - 1) copies of the part).  Values: +-inf, +-0.0 runs,
    duplicates, NaNs (or none), lengths 1 to 10^4 per rank.  (The sign of a zero result: the
    first rank's zero, one of those NumPy's partition may leave.)"""
    ranks = max(cupynum.runtime_info()["ranks"], 1)
    rng = numpy.random.default_rng(41)
    for n in (1, 2, 5, 10000 * ranks + 1):
        x = data((n,), dtype, seed=n, extremes=False)   # (wrapping differences: NumPy's own)
        if dtype.kind == "f" and n > 4:
            x[rng.random(n) < 0.1] = 0.0
            x[rng.random(n) < 0.1] = -0.0
        if dtype.kind == "f" and n > 100:   # read by no interpolation (NumPy's inf - inf warns)
            x[:2] = numpy.inf, -numpy.inf
        xn = x.copy()
        if dtype.kind == "f" and n > 1:
            xn[rng.random(n) < 0.2] = numpy.nan
        for arr in ((x, xn) if dtype.kind == "f" else (x,)):
            c = cupynum.array(arr)
            cupynum.sync()
            cupynum.reset_stats()
            for name, q in (("median", None), ("nanmedian", None), ("percentile", [5, 50, 99.5]),
                            ("nanpercentile", 30.0), ("quantile", 0.3),
                            ("nanquantile", [0.02, 0.25, 0.9])):
                if "nan" in name and dtype.kind != "f":
                    continue      # NumPy's own: the plain function's result on integers
                for method in ("linear", "lower", "midpoint", "inverted_cdf", "hazen"):
                    if q is None and method != "linear":
                        continue
                    kw = {} if q is None else {"method": method}
                    args = () if q is None else (q,)
                    run(lambda: getattr(numpy, name)(arr, *args, **kw),
                        lambda: getattr(cupynum, name)(c, *args, **kw))
            cupynum.sync()
            sent = cupynum.runtime_stats()["bytes_sent"]
            # 27 calls at most; per call 8 positions x 65 rounds of 8 bytes to each other rank
            assert sent <= 27 * (8 * 65 * 8 + 256) * (ranks - 1), (n, sent)


@pytest.mark.parametrize("dtype", [numpy.dtype(t) for t in (numpy.float64, numpy.float32,
                                                            numpy.float16, numpy.int64,
                                                            numpy.uint8)],
                         ids=dtype_id)
@pytest.mark.parametrize("shape,axes", [((61, 9), (0, 1, -1)), ((7, 6, 11), (0, 2, (0, 1), (0, 2),
                                                                             (1, 2))),
                                        ((25, 1), (0, 1)), ((2, 40), (0, 1))],
                         ids=lambda v: "x".join(map(str, v)) if isinstance(v[0], int) and
                         len(v) <= 3 and all(isinstance(e, int) and e > 0 for e in v) else None)
def test_order_statistics_along_axes_of_a_partitioned_array(native, dtype, shape, axes):
    """median/percentile/quantile (and nan-) over some axes of a partitioned array: when a tile
    cuts a reduced axis the array is first copied into slabs along a kept one (each element
    moves once at most: the part, (P - 1) / P of it leaving the rank), then each rank computes
    its own lanes and the results are allgathered (csrc/runtime/distselect.c); when no tile cuts
    a reduced axis only results move.  Every method family, keepdims, NaN lanes, +-inf, +-0.0,
    ties; bytes per rank bounded by the part plus the results, where a gather sends (P - 1)
    copies of the part.  (+-inf only under the discrete methods: NumPy's lerp of inf - inf
    warns "invalid value encountered in subtract", which the kernel does not report.)"""
    ranks = max(cupynum.runtime_info()["ranks"], 1)
    x = data(shape, dtype, seed=sum(shape), extremes=False)
    if dtype.kind == "f":
        flat = x.reshape(-1)
        flat[3::7] = 0.0
        flat[5::11] = -0.0
    xn = lane_nans(x, 0) if dtype.kind == "f" else x
    xi = x.copy()
    if dtype.kind == "f":
        xn.reshape(-1)[::13] = numpy.nan
        xi.reshape(-1)[::5] = numpy.inf
        xi.reshape(-1)[2::9] = -numpy.inf
    for arr in ((x, xn, xi) if dtype.kind == "f" else (x,)):
        c = cupynum.array(arr)
        cupynum.sync()
        t = cupynum._core._tiling(c)
        part = arr.itemsize * (int(numpy.prod([h - l for l, h in zip(t["lo"], t["hi"])]))
                               if t["tiled"] else arr.size)
        for axis in axes:
            cut = ranks > 1 and t["tiled"] and any(
                t["grid"][d] > 1 for d in numpy.atleast_1d(axis) % arr.ndim)
            for name, q in (("median", None), ("nanmedian", None), ("percentile", [5, 50, 99.5]),
                            ("nanpercentile", 30.0), ("quantile", 0.3),
                            ("nanquantile", [0.02, 0.25, 0.9])):
                if "nan" in name and dtype.kind != "f":
                    continue
                for method in ("linear", "lower", "midpoint", "inverted_cdf", "hazen", "nearest"):
                    if q is None and method != "linear":
                        continue
                    if arr is xi and (q is None or method not in ("lower", "inverted_cdf",
                                                                  "nearest")):
                        continue
                    for keepdims in (False, True):
                        kw = {"axis": axis, "keepdims": keepdims}
                        if q is not None:
                            kw["method"] = method
                        args = () if q is None else (q,)
                        cupynum.sync()
                        cupynum.reset_stats()
                        r = run(lambda: getattr(numpy, name)(arr, *args, **kw),
                                lambda: getattr(cupynum, name)(c, *args, **kw))
                        cupynum.sync()
                        sent = cupynum.runtime_stats()["bytes_sent"]
                        res = 0 if r is None else numpy.asarray(r).nbytes
                        # the slab copy (when cut), the results allgathered, NaN-lane counts
                        # and q broadcast: a few small collectives
                        assert sent <= (part if cut else 0) + 4 * res + 1024 * ranks, \
                            (name, axis, sent, part)


@pytest.mark.parametrize("shape,axis", [((61, 9), 0), ((7, 6, 11), (0, 2)), ((7, 6, 11), 1)],
                         ids=["61x9-0", "7x6x11-02", "7x6x11-1"])
def test_every_method_along_axes_of_a_partitioned_array(native, shape, axis):
    """The 13 methods of quantile and nanquantile (NaN lanes, ties, +-0.0) over some axes of a
    partitioned array: each rank's own lanes (after a copy into slabs when a tile cuts one)."""
    x = data(shape, numpy.float64, seed=3, nans=True)
    x.reshape(-1)[4::9] = -0.0
    c = cupynum.array(x)
    q = [0.0, 0.13, 0.5, 0.77, 1.0]
    for method in METHODS:
        for name in ("quantile", "nanquantile"):
            run(lambda: getattr(numpy, name)(x, q, axis=axis, method=method),
                lambda: getattr(cupynum, name)(c, q, axis=axis, method=method))
