"""The reduction sweep: every reduction and statistic x dtypes x every axis combination of 0-d,
1-d, 2-d and 3-d shapes (empty ones and non-contiguous / negative-step views included) x
keepdims, against NumPy.  Where NumPy raises, cupynum raises the same exception type.

Tolerances: exact for integers and bools and for the order-free reductions (min, max, all, any,
count_nonzero, arg-extremes, ptp, integer sums and products); float sums, means and variances
may add in another order: rtol 1e-2 (float16), 1e-5 (float32, complex64), 1e-12 (float64,
complex128), with an absolute floor of rtol times the summed magnitudes' scale.

When cupynum runs on several ranks (mpirun), the sweep reduces itself to a subset of dtypes and
cases (the full sweep runs on one rank)."""

import itertools
import warnings

import numpy
import pytest
from numpy.exceptions import AxisError

import cupynum
from conftest import ALL_DTYPES, check, dtype_id, same_error, sample

DISTRIBUTED = cupynum.runtime_info()["ranks"] > 1

EXACT = {"max", "min", "amax", "amin", "all", "any", "count_nonzero", "argmax", "argmin", "ptp",
         "nanmax", "nanmin", "nanargmax", "nanargmin"}
# name -> (takes axis tuples, takes keepdims, extra keyword variants)
FUNCS = {
    "sum": (True, True, [{}, {"dtype": "float64"}]),
    "prod": (True, True, [{}]),
    "max": (True, True, [{}]),
    "min": (True, True, [{}]),
    "amax": (True, True, [{}]),
    "amin": (True, True, [{}]),
    "all": (True, True, [{}]),
    "any": (True, True, [{}]),
    "count_nonzero": (True, True, [{}]),
    "ptp": (True, True, [{}]),
    "mean": (True, True, [{}]),
    "var": (True, True, [{}, {"ddof": 1}]),
    "std": (True, True, [{}, {"ddof": 1}]),
    "average": (True, True, [{}]),
    "cumsum": (False, False, [{}]),
    "cumprod": (False, False, [{}]),
    "argmax": (False, True, [{}]),
    "argmin": (False, True, [{}]),
    "nansum": (True, True, [{}]),
    "nanprod": (True, True, [{}]),
    "nanmax": (True, True, [{}]),
    "nanmin": (True, True, [{}]),
    "nanmean": (True, True, [{}]),
    "nanvar": (True, True, [{}, {"ddof": 1}]),
    "nanstd": (True, True, [{}]),
    "nanargmax": (False, True, [{}]),
    "nanargmin": (False, True, [{}]),
    "nancumsum": (False, False, [{}]),
    "nancumprod": (False, False, [{}]),
}


def _all_axes(ndim):
    """None, every single axis (also negative), every tuple of distinct axes."""
    out = [None]
    for k in range(1, ndim + 1):
        out += list(itertools.combinations(range(ndim), k))
    out += [d for d in range(ndim)] + [d - ndim for d in range(ndim)]
    if ndim == 0:
        out.append(())
    return out


def _views(n):
    """(label, NumPy view) pairs of base array n: itself and a non-contiguous / reversed view."""
    yield "base", n
    if n.ndim == 1 and n.shape[0] > 1:
        yield "rev", n[::-1]
    elif n.ndim == 2:
        yield "strided", n[:, ::-2]
    elif n.ndim == 3:
        yield "transposed", n.transpose(2, 0, 1)[:, ::-1]


SHAPES = [(), (0,), (5,), (3, 4), (2, 3, 4), (3, 0, 2)]
if DISTRIBUTED:
    SHAPES = [(5,), (3, 4), (2, 3, 4), (3, 0)]


def _data(name, shape, dtype):
    if name in ("prod", "nanprod", "cumprod", "nancumprod"):
        n = sample(shape, dtype, seed=1, low=-1, high=1)
        if dtype.kind in "fc":
            n = (n * 1.25).astype(dtype)
    else:
        n = sample(shape, dtype, seed=2)
    if dtype.kind in "fc" and n.size > 2 and (name.startswith("nan") or name in ("max", "min")):
        flat = n.reshape(-1)
        flat[1] = numpy.nan   # a NaN somewhere: propagated by max/min, ignored by nan-functions
    return n


def _tol(name, dtype, kw):
    d = numpy.dtype(kw.get("dtype", dtype))
    if name in EXACT or (d.kind in "biu" and name in ("sum", "prod", "cumsum", "cumprod",
                                                     "nansum", "nanprod", "nancumsum",
                                                     "nancumprod")):
        return 0.0, 0.0
    if numpy.dtype(dtype).kind in "biu" or d == numpy.float64 or d == numpy.complex128:
        return 1e-12, 1e-12
    if d in (numpy.float32, numpy.complex64):
        return 1e-5, 1e-5
    return 1e-2, 1e-2


def _run(fn):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        try:
            return fn(), None
        except Exception as e:  # noqa: BLE001  (NumPy's outcome is the oracle)
            return None, e


DTYPES = ALL_DTYPES
if DISTRIBUTED:
    DTYPES = [numpy.dtype(t) for t in ("bool", "int32", "float32", "complex128")]


@pytest.mark.parametrize("dtype", DTYPES, ids=dtype_id)
@pytest.mark.parametrize("name", sorted(FUNCS))
def test_sweep(name, dtype):
    tuples, has_keepdims, variants = FUNCS[name]
    npf, cpf = getattr(numpy, name), getattr(cupynum, name)
    done = cases = 0
    for shape in SHAPES:
        base = _data(name, shape, dtype)
        for label, n in _views(base):
            c = cupynum.array(base)
            c = c[::-1] if label == "rev" else c[:, ::-2] if label == "strided" else \
                c.transpose(2, 0, 1)[:, ::-1] if label == "transposed" else c
            axes = _all_axes(n.ndim)
            if DISTRIBUTED:
                axes = axes[:4]
            for axis in axes:
                if isinstance(axis, tuple) and not tuples:
                    continue
                for keepdims in ((False, True) if has_keepdims else (None,)):
                    for kw in variants:
                        kw = dict(kw)
                        if keepdims is not None:
                            kw["keepdims"] = keepdims
                        where = f"{name}{shape}{label} axis={axis} {kw}"
                        cases += 1
                        expected, err = _run(lambda: npf(n, axis=axis, **kw))
                        got, cerr = _run(lambda: cpf(c, axis=axis, **kw))
                        if err is not None:
                            assert cerr is not None and isinstance(cerr, type(err)), \
                                f"{where}: NumPy raised {err!r}, cupynum {cerr!r} / {got!r}"
                            continue
                        assert cerr is None, f"{where}: cupynum raised {cerr!r}"
                        rtol, atol = _tol(name, dtype, kw)
                        try:
                            check(got, expected, rtol=rtol, atol=atol)
                        except AssertionError as e:
                            raise AssertionError(f"{where}: {e}") from None
                        done += 1
    assert cases > 0 and (done > 0 or (name == "ptp" and dtype.kind == "b"))  # NumPy: no bool ptp


# ---- keywords: where, initial, out --------------------------------------------------------

KW_DTYPES = [numpy.dtype(t) for t in ("bool", "int16", "uint32", "float32", "float64",
                                      "complex64")]


@pytest.mark.parametrize("dtype", KW_DTYPES, ids=dtype_id)
@pytest.mark.parametrize("name", ["sum", "prod", "max", "min", "mean", "var", "std", "all",
                                  "any", "nansum", "nanmax", "nanmean"])
@pytest.mark.parametrize("axis", [None, 0, 1, (0, 1)])
def test_where(name, dtype, axis):
    n = _data(name, (3, 4), dtype)
    c = cupynum.array(n)
    mask = numpy.array([True, False, True, True])
    kw = {"where": mask}
    if name in ("max", "min", "nanmax"):
        kw["initial"] = 3 if dtype.kind != "c" else None
        if dtype.kind == "c":
            pytest.skip("NumPy's max/min with initial take no complex initial in this test")
    expected, err = _run(lambda: getattr(numpy, name)(n, axis=axis, **kw))
    got, cerr = _run(lambda: getattr(cupynum, name)(c, axis=axis, where=cupynum.array(mask),
                                                    **{k: v for k, v in kw.items()
                                                       if k != "where"}))
    if err is not None:
        assert isinstance(cerr, type(err)), (err, cerr)
        return
    assert cerr is None, cerr
    rtol, atol = _tol(name, dtype, {})
    check(got, expected, rtol=rtol, atol=atol)


@pytest.mark.parametrize("dtype", KW_DTYPES, ids=dtype_id)
@pytest.mark.parametrize("name", ["sum", "prod", "max", "min"])
@pytest.mark.parametrize("axis", [None, 0, (1, 2)])
def test_initial(name, dtype, axis):
    if dtype.kind == "c" and name in ("max", "min"):
        pytest.skip("complex max/min take a complex initial; covered by the real dtypes")
    for shape in [(2, 3, 4), (2, 0, 3)]:
        n = _data(name, shape, dtype)
        c = cupynum.array(n)
        init = True if dtype.kind == "b" else 5
        expected, err = _run(lambda: getattr(numpy, name)(n, axis=axis, initial=init))
        got, cerr = _run(lambda: getattr(cupynum, name)(c, axis=axis, initial=init))
        if err is not None:
            assert isinstance(cerr, type(err)), (err, cerr)
            continue
        assert cerr is None, cerr
        check(got, expected, *_tol(name, dtype, {}))


@pytest.mark.parametrize("name", ["sum", "prod", "max", "min", "mean", "var", "std", "all",
                                  "any", "cumsum", "cumprod", "argmax", "argmin"])
def test_out(name):
    n = sample((3, 4), "float64", seed=3)
    c = cupynum.array(n)
    shape = (3, 4) if name.startswith("cum") else (4,)
    dt = "int64" if name.startswith("arg") else "bool" if name in ("all", "any") else "float64"
    no, co = numpy.zeros(shape, dt), cupynum.zeros(shape, dt)
    r1 = getattr(numpy, name)(n, axis=0, out=no)
    r2 = getattr(cupynum, name)(c, axis=0, out=co)
    assert r1 is no and r2 is co
    check(co, no, rtol=1e-12, atol=1e-12)
    # methods take out= too
    co2 = cupynum.zeros(shape, dt)
    assert getattr(c, name)(axis=0, out=co2) is co2
    check(co2, no, rtol=1e-12, atol=1e-12)


def test_out_dtype_casts_and_keepdims():
    n = sample((2, 3), "int32", seed=4)
    c = cupynum.array(n)
    no, co = numpy.zeros((1, 3), "float32"), cupynum.zeros((1, 3), "float32")
    numpy.sum(n, axis=0, keepdims=True, out=no)
    cupynum.sum(c, axis=0, keepdims=True, out=co)
    check(co, no)


# ---- methods --------------------------------------------------------------------------------

@pytest.mark.parametrize("name", ["sum", "prod", "max", "min", "all", "any", "cumsum",
                                  "cumprod", "argmax", "argmin", "mean", "var", "std"])
@pytest.mark.parametrize("dtype", ["int8", "float64", "complex128"])
def test_methods(name, dtype):
    n = sample((2, 3, 4), dtype, seed=5)
    c = cupynum.array(n)
    for axis in (None, 1, -1):
        expected, err = _run(lambda: getattr(n, name)(axis=axis))
        got, cerr = _run(lambda: getattr(c, name)(axis=axis))
        if err is not None:
            assert isinstance(cerr, type(err))
            continue
        check(got, expected, *_tol(name, numpy.dtype(dtype), {}))


def test_ptp_is_not_a_method():
    assert not hasattr(numpy.ndarray, "ptp")
    assert hasattr(cupynum.ndarray, "argmax") and hasattr(cupynum.ndarray, "var")


@pytest.mark.parametrize("name", ["sum", "mean", "var", "std", "argmax", "cumsum", "all",
                                  "count_nonzero", "nanmean", "average", "ptp"])
def test_numpy_functions_dispatch_here(name, monkeypatch):
    monkeypatch.setenv("CUPYNUM_FALLBACK", "error")
    n = sample((3, 4), "float64", seed=6)
    c = cupynum.array(n)
    got = getattr(numpy, name)(c, axis=1)
    assert isinstance(got, cupynum.ndarray)
    check(got, getattr(numpy, name)(n, axis=1), rtol=1e-12, atol=1e-12)


# ---- statistics details ---------------------------------------------------------------------

@pytest.mark.parametrize("dtype", ["float16", "float32", "float64", "complex64", "int32",
                                   "bool"])
@pytest.mark.parametrize("ddof", [0, 1, 2])
def test_var_std_ddof_and_dtype(dtype, ddof):
    n = sample((4, 5), dtype, seed=7)
    c = cupynum.array(n)
    for f in ("var", "std"):
        for axis in (None, 0, (0, 1)):
            for kw in ({}, {"dtype": "float64"}, {"correction": ddof}):
                args = {} if "correction" in kw else {"ddof": ddof}
                e = getattr(numpy, f)(n, axis=axis, **args, **kw)
                g = getattr(cupynum, f)(c, axis=axis, **args, **kw)
                check(g, e, *_tol(f, numpy.dtype(dtype), kw))


def test_var_with_given_mean():
    n = sample((3, 4), "float64", seed=8)
    c = cupynum.array(n)
    m = numpy.mean(n, axis=1, keepdims=True)
    check(cupynum.var(c, axis=1, mean=cupynum.array(m)), numpy.var(n, axis=1, mean=m),
          rtol=1e-12, atol=1e-12)


@pytest.mark.parametrize("axis", [None, 0, 1])
@pytest.mark.parametrize("returned", [False, True])
def test_average_weights(axis, returned):
    n = sample((3, 4), "float64", seed=9)
    w2 = sample((3, 4), "float64", seed=10, low=1, high=4)
    c = cupynum.array(n)
    for w in (w2, w2[:, 0] if axis == 0 else w2[0] if axis == 1 else w2):
        e = numpy.average(n, axis=axis, weights=w, returned=returned)
        g = cupynum.average(c, axis=axis, weights=cupynum.array(w), returned=returned)
        check(g, e, rtol=1e-12, atol=1e-12)
    iw = sample((3, 4), "int32", seed=11, low=1, high=3)
    check(cupynum.average(cupynum.array(iw), axis=axis, weights=cupynum.array(iw)),
          numpy.average(iw, axis=axis, weights=iw), rtol=1e-12, atol=1e-12)


def test_average_errors():
    n = sample((3, 4), "float64", seed=12)
    c = cupynum.array(n)
    with pytest.raises(TypeError):
        cupynum.average(c, weights=cupynum.ones(4))
    with pytest.raises(ValueError):
        cupynum.average(c, axis=0, weights=cupynum.ones(4))
    with pytest.raises(ZeroDivisionError):
        cupynum.average(c, axis=1, weights=cupynum.zeros(4))
    with pytest.raises(ZeroDivisionError):
        numpy.average(n, axis=1, weights=numpy.zeros(4))


def _warning_texts(fn):
    with warnings.catch_warnings(record=True) as w:
        warnings.simplefilter("always")
        r = fn()
    return r, {str(x.message) for x in w if issubclass(x.category, RuntimeWarning)
               and "encountered in" not in str(x.message)}


@pytest.mark.parametrize("case", [
    ("mean", lambda xp, a: xp.mean(a[:, :0], axis=1)),
    ("var", lambda xp, a: xp.var(a, axis=0, ddof=3)),
    ("std", lambda xp, a: xp.std(a[:1], axis=0, ddof=1)),
    ("nanmax", lambda xp, a: xp.nanmax(a, axis=1)),
    ("nanmin", lambda xp, a: xp.nanmin(a, axis=1)),
    ("nanmean", lambda xp, a: xp.nanmean(a, axis=1)),
    ("nanvar", lambda xp, a: xp.nanvar(a, axis=1, ddof=1)),
    ("nanstd", lambda xp, a: xp.nanstd(a, axis=1)),
], ids=lambda c: c[0] if isinstance(c, tuple) else None)
def test_statistics_warnings(case):
    _, fn = case
    n = numpy.array([[numpy.nan, numpy.nan, numpy.nan], [1.0, numpy.nan, 2.0],
                     [3.0, 4.0, 5.0]])
    c = cupynum.array(n)
    e, ew = _warning_texts(lambda: fn(numpy, n))
    g, gw = _warning_texts(lambda: fn(cupynum, c))
    assert ew and gw == ew, (gw, ew)
    check(g, e, rtol=1e-12, atol=1e-12)


@pytest.mark.parametrize("name", ["nanargmax", "nanargmin"])
def test_nanarg_all_nan_raises(name):
    n = numpy.array([[numpy.nan, numpy.nan], [1.0, 2.0]])
    c = cupynum.array(n)
    for axis in (None, 1):
        if axis is None:
            n2 = numpy.full((2, 2), numpy.nan)
            with pytest.raises(ValueError, match="All-NaN slice encountered"):
                getattr(numpy, name)(n2)
            with pytest.raises(ValueError, match="All-NaN slice encountered"):
                getattr(cupynum, name)(cupynum.array(n2))
        else:
            with pytest.raises(ValueError, match="All-NaN slice encountered"):
                getattr(numpy, name)(n, axis=axis)
            with pytest.raises(ValueError, match="All-NaN slice encountered"):
                getattr(cupynum, name)(c, axis=axis)


@pytest.mark.parametrize("dtype", ["float16", "float32", "float64", "complex64", "complex128"])
def test_argmax_nan_and_ties(dtype):
    n = numpy.array([1, 3, 3, numpy.nan, 3, numpy.nan], dtype=dtype)
    c = cupynum.array(n)
    for f in ("argmax", "argmin", "max", "min"):
        check(getattr(cupynum, f)(c), getattr(numpy, f)(n))
    n = numpy.array([2, 5, 5, 1, 1, 5], dtype=dtype)
    c = cupynum.array(n)
    check(cupynum.argmax(c), numpy.argmax(n))
    check(cupynum.argmin(c), numpy.argmin(n))


@pytest.fixture(params=[0, 1], ids=["sse2", "avx2"])
def argreduce_simd(request):
    """Both vector levels of argmax's blocked scan (AVX2 only where the CPU has it)."""
    old = cupynum._core._set_argreduce_simd(request.param)
    yield request.param
    cupynum._core._set_argreduce_simd(old)


@pytest.mark.parametrize("dtype", ["float32", "float64"])
@pytest.mark.parametrize("n", [1, 63, 64, 65, 255, 256, 257, 316, 511, 512, 513, 1000, 1024, 3000])
def test_argmax_blocked_runs(dtype, n, argreduce_simd):
    """The blocked scan of contiguous float runs (reduce.c, argrun): ties, -0.0 against 0.0,
    infinities, a NaN first / in a later block / last, the extreme at block edges; whole arrays
    (the C fast path), 2-d along each axis, strided and reversed views (the scalar loop)."""
    rng = numpy.random.default_rng(n)
    base = rng.integers(-4, 5, n).astype(dtype)
    variants = [base, numpy.zeros(n, dtype), -numpy.zeros(n, dtype)]
    z = numpy.zeros(n, dtype)
    z[::3] = -0.0
    variants.append(z)
    for k in {0, n // 2, n - 1, min(n - 1, 255), min(n - 1, 256)}:
        v = base.copy()
        v[k] = numpy.inf
        variants.append(v)
        v = base.copy()
        v[k] = -numpy.inf
        variants.append(v)
        v = base.copy()
        v[k] = numpy.nan
        v[-1] = numpy.nan
        variants.append(v)
    for v in variants:
        c = cupynum.array(v)
        for f in ("argmax", "argmin"):
            check(getattr(cupynum, f)(c), getattr(numpy, f)(v))
            check(getattr(c, f)(), getattr(v, f)())
            check(getattr(cupynum, f)(c[::-1]), getattr(numpy, f)(v[::-1]))
            check(getattr(cupynum, f)(c[::2]), getattr(numpy, f)(v[::2]))
            check(getattr(cupynum, f)(c, axis=0), getattr(numpy, f)(v, axis=0))
            check(getattr(cupynum, f)(c, keepdims=True), getattr(numpy, f)(v, keepdims=True))
        if n % 3 == 0:
            m2, c2 = v.reshape(3, -1), c.reshape(3, -1)
            for f in ("argmax", "argmin"):
                check(getattr(cupynum, f)(c2), getattr(numpy, f)(m2))
                check(getattr(cupynum, f)(c2, axis=1), getattr(numpy, f)(m2, axis=1))
                check(getattr(cupynum, f)(c2.T), getattr(numpy, f)(m2.T))


@pytest.mark.parametrize("dtype", ["float32", "float64"])
@pytest.mark.parametrize("n", [64, 77, 300, 316, 512, 530])
def test_argmax_blocked_search_every_position(dtype, n, argreduce_simd):
    """The search for a block's extreme (reduce.c, argrun: W lanes compared at a time, then the
    block's last elements one by one): the extreme -- unique, twice, or equal as -0.0 and 0.0 --
    at every position of a row, so at every lane and in each block's tail; rows of a 2-d array
    along axis 1 (one output per row) and whole arrays; a row of up to 512 elements is one block
    whose last group of lanes overlaps the one before.  Two NaNs anywhere: the first wins."""
    rng = numpy.random.default_rng(n)
    base = rng.uniform(-1, 1, n).astype(dtype)
    rows = []
    for k in range(n):
        for v in (2.0, -2.0):
            r = base.copy()
            r[k] = v
            rows.append(r)
        r = base.copy()
        r[k] = r[(k * 7 + 3) % n] = 2.0
        rows.append(r)
        r = numpy.abs(base) + 1
        r[k] = -0.0
        r[(k * 5 + 1) % n] = 0.0
        rows.append(r)
        r = base.copy()   # NaN rules: the first NaN wins, wherever the extreme is
        r[k] = numpy.nan
        r[(k * 11 + 5) % n] = numpy.nan
        r[(k * 3 + 2) % n] = -2.0
        rows.append(r)
    m = numpy.stack(rows)
    c = cupynum.array(m)
    for f in ("argmax", "argmin"):
        check(getattr(cupynum, f)(c, axis=1), getattr(numpy, f)(m, axis=1))
        for i in range(0, len(rows), 7):
            check(getattr(cupynum, f)(c[i]), getattr(numpy, f)(m[i]))


def test_argmax_axis_short_path_forms():
    """argmax/argmin with an int axis of an untiled n-d array queue the op directly
    (_reductions._arg_axis): every axis, negative ones, 3-d and views; the forms it leaves to
    _arg (1-d, 0-d, empty, NumPy integer or bool axes, out=, keepdims, an axis out of range)
    answer as NumPy does, errors included."""
    n = sample((4, 5, 3), numpy.dtype("f8"), seed=5)
    n[1, 2, 0] = numpy.nan
    c = cupynum.array(n)
    for f in ("argmax", "argmin"):
        for x, y in ((n, c), (n[::-1, 1:], c[::-1, 1:]), (n.transpose(2, 0, 1), c.transpose(2, 0, 1)),
                     (n[:, :, 0], c[:, :, 0])):
            for axis in range(-x.ndim, x.ndim):
                check(getattr(cupynum, f)(y, axis), getattr(numpy, f)(x, axis))
                check(getattr(y, f)(axis=axis), getattr(x, f)(axis=axis))
        check(getattr(cupynum, f)(c[0, 0], 0), getattr(numpy, f)(n[0, 0], 0))
        check(getattr(cupynum, f)(c[:0], 1), getattr(numpy, f)(n[:0], 1))
        check(getattr(cupynum, f)(c, numpy.int64(1)), getattr(numpy, f)(n, numpy.int64(1)))
        check(getattr(cupynum, f)(c, 2, keepdims=True), getattr(numpy, f)(n, 2, keepdims=True))
        for bad in (3, -4, True, 1.0):
            same_error(lambda: getattr(numpy, f)(n, bad), lambda: getattr(cupynum, f)(c, bad))
        same_error(lambda: getattr(numpy, f)(n[:0], 0), lambda: getattr(cupynum, f)(c[:0], 0))


def test_argmax_fast_path_forms():
    """full_argreduce answers whole untiled non-empty arrays only; 0-d, empty, out=, axis= and
    non-cupynum inputs take _arg (NumPy's results and errors)."""
    n = sample((4, 5), "int32", seed=3)
    c = cupynum.array(n)
    tiled = cupynum._core._tiling(c)["tiled"]
    assert (cupynum._core.full_argreduce(c, "maximum") is None) == tiled
    assert cupynum._core.full_argreduce(c, "add") is None
    assert cupynum._core.full_argreduce(cupynum.array(3.0), "maximum") is None
    assert cupynum._core.full_argreduce(cupynum.zeros(0), "maximum") is None
    for f in ("argmax", "argmin"):
        check(getattr(cupynum, f)(c), getattr(numpy, f)(n))
        check(getattr(cupynum, f)(cupynum.array(3.0)), getattr(numpy, f)(numpy.array(3.0)))
        check(getattr(cupynum, f)([3, 1, 4]), getattr(numpy, f)([3, 1, 4]))
        with pytest.raises(ValueError) as en:
            getattr(numpy, f)(numpy.zeros(0))
        with pytest.raises(ValueError) as ec:
            getattr(cupynum, f)(cupynum.zeros(0))
        assert str(ec.value) == str(en.value)
        out = cupynum.zeros((), "int64")
        r = getattr(cupynum, f)(c, out=out)
        assert r is out
        check(out, numpy.array(getattr(numpy, f)(n)))


@pytest.mark.parametrize("dtype", ["float32", "float64"])
@pytest.mark.parametrize("n", [1, 2, 7, 100, 1000, 10_000])
def test_var_std_whole_arrays_bit_for_bit(dtype, n):
    """var/std of a whole float array (_reductions._var_whole: NumPy's _var step by step) are
    NumPy's scalars bit for bit on one rank (to rounding when the array is partitioned: the sums
    fold in the ranks' order), for ddof 0 and 1, views and 2-d arrays."""
    rng = numpy.random.default_rng(n)
    x = (rng.standard_normal(n) * 1e3 + 7).astype(dtype)
    c = cupynum.array(x)
    rtol = 0.0 if not DISTRIBUTED else 1e-5 if dtype == "float32" else 1e-12
    for xn, xc in ((x, c), (x[::-1], c[::-1]), (x[::2], c[::2])):
        for ddof in (0, 1):
            if xn.size - ddof <= 0:
                continue
            for f in ("var", "std"):
                check(getattr(cupynum, f)(xc, ddof=ddof), getattr(numpy, f)(xn, ddof=ddof), rtol=rtol)
                check(getattr(xc, f)(ddof=ddof), getattr(xn, f)(ddof=ddof), rtol=rtol)
    if n % 10 == 0:
        check(cupynum.std(c.reshape(10, -1)), numpy.std(x.reshape(10, -1)), rtol=rtol)
    # owner-computes: a rank sends reduction partials, never its part of the array
    cupynum.sync()
    cupynum.reset_stats()
    cupynum.std(c)
    cupynum.sync()
    assert cupynum.runtime_stats()["bytes_sent"] <= 4096


def test_var_std_forms_that_take_the_general_path():
    """ddof leaving no degrees of freedom (NumPy's warning and NaN), non-int ddof, other dtypes,
    axis/keepdims/dtype/out/where/mean/correction, lists, infinities (NumPy's invalid-value
    warning from a - mean): each as NumPy."""
    x = sample((12,), "float64", seed=5)
    c = cupynum.array(x)
    for f in ("var", "std"):
        for kw in ({"ddof": 12}, {"ddof": 13}, {"ddof": 1.5}, {"ddof": numpy.int64(1)}, {"axis": 0},
                   {"keepdims": True}, {"dtype": "float32"}, {"correction": 1},
                   {"where": numpy.arange(12) % 2 == 0}, {"mean": numpy.full(1, 0.5)}):
            ckw = {k: cupynum.array(v) if isinstance(v, numpy.ndarray) else v for k, v in kw.items()}
            with warnings.catch_warnings(record=True) as wn:
                warnings.simplefilter("always")
                en = getattr(numpy, f)(x, **kw)
            with warnings.catch_warnings(record=True) as wc:
                warnings.simplefilter("always")
                ec = getattr(cupynum, f)(c, **ckw)
            check(ec, en, rtol=1e-5 if kw.get("dtype") == "float32" else 1e-12)
            # (no degrees of freedom: NumPy warns twice, the general path once -- its division
            # by the count runs under errstate(ignore), older than the fast path)
            if "ddof" not in kw or kw["ddof"] < 12:
                assert [type(w.message) for w in wc] == [type(w.message) for w in wn], kw
            else:
                assert {type(w.message) for w in wc} == {type(w.message) for w in wn}, kw
        out = cupynum.zeros(())
        r = getattr(cupynum, f)(c, out=out)
        assert r is out
        check(out, numpy.array(getattr(numpy, f)(x)), rtol=1e-12)
        for dt in ("int32", "float16", "complex128", "bool"):
            xd = x.astype(dt)
            check(getattr(cupynum, f)(cupynum.array(xd)), getattr(numpy, f)(xd), rtol=1e-3 if dt == "float16" else 1e-12)
        check(getattr(cupynum, f)(list(x)), getattr(numpy, f)(list(x)), rtol=1e-12)
        xi = x.copy()
        xi[3] = numpy.inf
        with warnings.catch_warnings(record=True) as wn:
            warnings.simplefilter("always")
            en = getattr(numpy, f)(xi)
        with warnings.catch_warnings(record=True) as wc:
            warnings.simplefilter("always")
            ec = getattr(cupynum, f)(cupynum.array(xi))
            cupynum.sync()
        check(ec, en)
        assert [type(w.message) for w in wc] == [type(w.message) for w in wn]


# ---- errors ------------------------------------------------------------------------------------

@pytest.mark.parametrize("name", ["sum", "prod", "max", "mean", "var", "all", "count_nonzero",
                                  "nanmean"])
def test_axis_errors(name):
    n = sample((2, 3), "float64", seed=13)
    c = cupynum.array(n)
    for axis in (2, -3, (0, 2)):
        with pytest.raises(AxisError):
            getattr(numpy, name)(n, axis=axis)
        with pytest.raises(AxisError):
            getattr(cupynum, name)(c, axis=axis)
    for axis in ((0, 0), (1, -1)):
        with pytest.raises(ValueError, match="duplicate value in 'axis'"):
            getattr(numpy, name)(n, axis=axis)
        with pytest.raises(ValueError, match="duplicate value in 'axis'"):
            getattr(cupynum, name)(c, axis=axis)


@pytest.mark.parametrize("name", ["argmax", "argmin", "cumsum", "cumprod"])
def test_single_axis_errors(name):
    n = sample((2, 3), "float64", seed=14)
    c = cupynum.array(n)
    with pytest.raises(AxisError):
        getattr(numpy, name)(n, axis=2)
    with pytest.raises(AxisError):
        getattr(cupynum, name)(c, axis=2)


@pytest.mark.parametrize("name", ["sum", "max", "mean", "std", "cumsum", "argmax", "all"])
def test_bad_out_shape(name):
    n = sample((2, 3), "float64", seed=15)
    c = cupynum.array(n)
    dt = "int64" if name == "argmax" else "bool" if name == "all" else "float64"
    for shape in ((2,), (1, 3), (4,)):
        with pytest.raises(ValueError):
            getattr(numpy, name)(n, axis=0, out=numpy.zeros(shape, dt))
        co = cupynum.zeros(shape, dt)
        with pytest.raises(ValueError):
            getattr(cupynum, name)(c, axis=0, out=co)
        check(co, numpy.zeros(shape, dt))   # bad input leaves the array unchanged


@pytest.mark.parametrize("name", ["max", "min", "amax", "argmax", "argmin", "ptp", "nanmax",
                                  "nanargmin"])
def test_empty_without_identity(name):
    for shape, axis in (((0,), None), ((3, 0), 1), ((0, 2), None)):
        n, c = numpy.zeros(shape), cupynum.zeros(shape)
        with pytest.raises(ValueError) as e1:
            getattr(numpy, name)(n, axis=axis)
        with pytest.raises(ValueError) as e2:
            getattr(cupynum, name)(c, axis=axis)
        assert str(e2.value) == str(e1.value)


@pytest.mark.parametrize("name", ["sum", "prod", "all", "any", "count_nonzero", "nansum"])
def test_empty_with_identity(name):
    for shape, axis in (((0,), None), ((3, 0), 1), ((0, 2), 0)):
        n, c = numpy.zeros(shape), cupynum.zeros(shape)
        check(getattr(cupynum, name)(c, axis=axis), getattr(numpy, name)(n, axis=axis))


# ---- float32 accuracy ---------------------------------------------------------------------------

@pytest.mark.parametrize("kind", ["ones", "uniform", "scaled", "matrix", "strided"])
def test_float32_sum_accuracy_no_worse_than_numpy(kind):
    rng = numpy.random.default_rng(16)
    if kind == "ones":
        n = numpy.ones(10**6, numpy.float32)
    elif kind == "uniform":
        n = rng.random(10**6).astype(numpy.float32)
    elif kind == "scaled":
        n = (rng.random(10**6) * 1e3).astype(numpy.float32)
    elif kind == "matrix":
        n = rng.random((1000, 1000)).astype(numpy.float32)
    else:
        n = rng.random((100, 100, 200)).astype(numpy.float32)
    c = cupynum.array(n)
    if kind == "strided":
        n, c = n[:, ::2, ::-1], c[:, ::2, ::-1]
    exact = n.astype(numpy.float64).sum()
    # On several ranks the tiles' partial sums add in rank order: allow that one extra level.
    slack = 4 * numpy.finfo(numpy.float32).eps * abs(exact) if DISTRIBUTED else 0.0
    # Contiguous data sums in NumPy's order (bit for bit); a strided view is gathered into
    # 8192-element pairwise blocks where NumPy's iterator groups differently: both errors are
    # O(log n) eps, so one random draw of each may differ by a small factor.
    factor = 8.0 if kind == "strided" else 1.0000001
    err_np = abs(float(numpy.sum(n)) - exact)
    err_cp = abs(float(cupynum.sum(c)) - exact)
    assert err_cp <= err_np * factor + slack, (err_cp, err_np)
    err_np = abs(float(numpy.mean(n)) - exact / n.size)
    err_cp = abs(float(cupynum.mean(c)) - exact / n.size)
    assert err_cp <= err_np * factor + slack / n.size, (err_cp, err_np)


# ---- complex nan-extremes: lexicographic order, NaN in either part ignored --------------------

def _complex_nan_data(shape, dtype, seed):
    rng = numpy.random.default_rng(seed)
    n = (rng.integers(-2, 3, shape) + 1j * rng.integers(-2, 3, shape)).astype(dtype)
    n[rng.random(shape) < 0.25] = complex(numpy.nan, 1.0)
    n[rng.random(shape) < 0.2] = complex(1.0, numpy.nan)
    n.flat[-1] = complex(-numpy.inf, -3.0)    # below the fill of a NaN-free nanargmax
    return n


@pytest.mark.parametrize("dtype", ["complex64", "complex128"])
@pytest.mark.parametrize("name", ["nanmax", "nanmin", "nanargmax", "nanargmin"])
def test_complex_nan_extremes_native(name, dtype, monkeypatch):
    n = _complex_nan_data((4, 5, 3), numpy.dtype(dtype), seed=5)
    n[1, :, 0] = complex(numpy.nan, numpy.nan)          # an all-NaN slice along axis 1
    c = cupynum.array(n)
    npf, cpf = getattr(numpy, name), getattr(cupynum, name)
    cases = [(axis, kd) for axis in (None, 0, 1, -1) for kd in (False, True)]
    expected = []
    for axis, kd in cases:
        with warnings.catch_warnings(record=True) as w:
            warnings.simplefilter("always")
            try:
                r, e = npf(n, axis=axis, keepdims=kd), None
            except ValueError as ex:
                r, e = None, ex
            expected.append((r, e, [str(x.message) for x in w if x.category is RuntimeWarning]))
    # native: NumPy's nan-function is not called
    monkeypatch.setattr(numpy, name, lambda *a, **k: pytest.fail(f"numpy.{name} was called"))
    for (axis, kd), (r, e, msgs) in zip(cases, expected):
        with warnings.catch_warnings(record=True) as w:
            warnings.simplefilter("always")
            try:
                g, ge = cpf(c, axis=axis, keepdims=kd), None
            except ValueError as ex:
                g, ge = None, ex
        assert [str(x.message) for x in w if x.category is RuntimeWarning] == msgs, (axis, kd)
        if e is not None:
            assert type(ge) is type(e) and str(ge) == str(e), (axis, kd)
            continue
        assert ge is None
        check(g, r, rtol=0, atol=0)


@pytest.mark.parametrize("name", ["nanmax", "nanmin"])
def test_complex_nan_extremes_initial_and_where(name):
    n = _complex_nan_data((3, 6), numpy.dtype("complex128"), seed=6)
    n[0, :] = complex(numpy.nan, 0.0)
    c = cupynum.array(n)
    mask = numpy.array([True, False, True, True, False, True])
    for kw in ({"initial": 0.5 + 0.5j}, {"initial": -9 - 9j, "where": mask}, {"where": mask}):
        e, ee = _run(lambda: getattr(numpy, name)(n, axis=1, **kw))
        g, ge = _run(lambda: getattr(cupynum, name)(c, axis=1, **kw))
        if ee is not None:
            assert type(ge) is type(ee) and str(ge) == str(ee)
            continue
        check(g, e, rtol=0, atol=0)


# ---- the layouts of the reductions benchmark: a reshaped contiguous matrix --------------------
# sum(axis=0) of a C-ordered matrix adds rows in order, per column (NumPy's order: bitwise);
# sum(axis=1) sums each contiguous row pairwise (NumPy's pairwise scheme: bitwise on one rank);
# extremes are exact.  Widths around the column-block sizes of the row-wise kernel (1024 to 4096
# elements per block) and the 8192-element pairwise buffer.

PHI1 = 0.6180339887498949


@pytest.mark.parametrize("dtype", [numpy.float64, numpy.float32], ids=dtype_id)
@pytest.mark.parametrize("rows, cols", [(40, 4000), (7, 5001), (3, 10007), (300, 129), (2, 9000)],
                         ids=str)
def test_axis_reductions_of_a_reshaped_contiguous_matrix(dtype, rows, cols):
    n = rows * cols
    ref = ((numpy.arange(n, dtype=dtype) * dtype(PHI1)) % dtype(1.0)).reshape(rows, cols)
    a = ((cupynum.arange(n, dtype=dtype) * dtype(PHI1)) % dtype(1.0)).reshape(rows, cols)
    ref[rows // 2, cols // 3] = numpy.nan        # a NaN wins max and min of its row and column
    a[rows // 2, cols // 3] = numpy.nan
    ref[0, 1] = -0.0
    a[0, 1] = -0.0
    exact = not DISTRIBUTED
    for name, axis in [("sum", 0), ("sum", 1), ("mean", 0), ("max", 1), ("min", 0), ("max", 0),
                       ("min", 1)]:
        got = numpy.asarray(getattr(a, name)(axis=axis))
        want = getattr(ref, name)(axis=axis)
        if name in ("max", "min") or (exact and name == "sum"):
            numpy.testing.assert_array_equal(got, want)
            assert got.dtype == want.dtype
        else:
            numpy.testing.assert_allclose(got, want, rtol=1e-12 if dtype == numpy.float64 else 1e-5)
    if exact:
        assert numpy.asarray(a.sum(axis=0)).tobytes() == ref.sum(axis=0).tobytes()
        assert numpy.asarray(a.sum(axis=1)).tobytes() == ref.sum(axis=1).tobytes()


@pytest.mark.parametrize("dtype", [numpy.int64, numpy.int16, numpy.uint8, numpy.float16],
                         ids=dtype_id)
def test_extremes_along_rows_of_other_dtypes(dtype):
    ref = sample((13, 1000), dtype, seed=9)
    a = cupynum.array(ref)
    for name in ("max", "min"):
        for axis in (0, 1, None):
            got, want = getattr(a, name)(axis=axis), getattr(ref, name)(axis=axis)
            numpy.testing.assert_array_equal(numpy.asarray(got), want)


@pytest.mark.parametrize("name", ["nanmax", "nanmin"])
@pytest.mark.parametrize("dtype", [numpy.float32, numpy.float64], ids=dtype_id)
@pytest.mark.parametrize("cols", [5, 64, 65, 1001])
def test_real_nan_extremes_long_rows(name, dtype, cols):
    """nanmax/nanmin of float arrays (fmax/fmin.reduce as NumPy, the kernel's vector fold from 64
    elements; tiled arrays the combinable maximum/minimum): rows without NaN, with NaN first,
    last or scattered, all NaN, NaN and an infinity of the fold's own sign, only that infinity;
    every axis, keepdims, initial=, where=, out=, strided; values, warnings and errors as NumPy's."""
    rng = numpy.random.default_rng(cols)
    n = rng.standard_normal((8, cols)).astype(dtype)
    inf = dtype(-numpy.inf if name == "nanmax" else numpy.inf)
    n[1, 0] = n[2, -1] = numpy.nan
    n[3, rng.integers(0, cols, 3)] = numpy.nan
    n[4, :] = numpy.nan
    n[5, :] = numpy.nan
    n[5, cols // 2] = inf
    n[6, :] = inf
    c = cupynum.array(n)
    mask = rng.random(cols) < 0.7
    for axis in (None, 0, 1, -1):
        for kw in ({}, {"keepdims": True}, {"initial": dtype(0.5)}, {"initial": dtype(-9), "where": mask},
                   {"where": mask}):
            e, ee = _run(lambda: _warning_texts(lambda: getattr(numpy, name)(n, axis=axis, **kw)))
            g, ge = _run(lambda: _warning_texts(lambda: getattr(cupynum, name)(c, axis=axis, **kw)))
            if ee is not None:
                assert type(ge) is type(ee) and str(ge) == str(ee), (axis, kw)
                continue
            assert ge is None, (axis, kw, ge)
            check(g[0], e[0], rtol=0, atol=0)
            assert g[1] == e[1], (axis, kw)
    check(getattr(cupynum, name)(c[::2, 1::3], axis=1), getattr(numpy, name)(n[::2, 1::3], axis=1))
    out_n, out_c = numpy.zeros(8, dtype), cupynum.zeros(8, dtype)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", RuntimeWarning)
        r = getattr(cupynum, name)(c, axis=1, out=out_c)
        getattr(numpy, name)(n, axis=1, out=out_n)
    assert r is out_c
    check(out_c, out_n)


@pytest.mark.parametrize("axis", [None, 0, 1])
@pytest.mark.parametrize("ddof", [0, 1])
def test_var_std_float16_take_the_mean_in_float16(axis, ddof):
    """NumPy's _var takes a float16 array's mean in float16 (not _mean's float32) and squares
    the deviations in float16, so large spreads overflow to inf as NumPy's do: values, dtypes
    and the warnings against NumPy's (the fuzzer found 75.06 where NumPy gives inf)."""
    rng = numpy.random.default_rng(16)
    for x in (numpy.arange(5200, dtype=numpy.float16).reshape(40, 130) / numpy.float16(0.5),
              (rng.standard_normal((7, 33)) * 3).astype(numpy.float16),
              (rng.standard_normal((5, 300)) * 100).astype(numpy.float16)):
        for name in ("var", "std"):
            found = []
            for xp, a in ((numpy, x), (cupynum, cupynum.array(x))):
                with warnings.catch_warnings(record=True) as w:
                    warnings.simplefilter("always")
                    r = numpy.asarray(getattr(xp, name)(a, axis=axis, ddof=ddof))
                found.append((r, sorted({str(m.message) for m in w})))
            (want, wn), (got, wc) = found
            assert got.dtype == want.dtype
            if cupynum.runtime_info()["ranks"] == 1:
                assert numpy.array_equal(got, want, equal_nan=True), (name, axis, ddof)
                assert wc == wn
            else:
                # tiled: float16 sums in another order, NumPy's to rounding, infs alike; a rank's
                # partial sum may overflow float16 where NumPy's float32 total is already inf
                # (one more 'overflow in reduce' warning: a known difference)
                assert numpy.array_equal(numpy.isinf(got), numpy.isinf(want)), (name, axis, ddof)
                numpy.testing.assert_allclose(got, want, rtol=4e-3)
                assert set(wn) <= set(wc)
