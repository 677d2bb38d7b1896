"""Reductions, scans and argmax/argmin on the device (cuda/reduce.cu with CUB; the simulated
device runs the same coverage, csrc/runtime/devreduce.h, with the CPU kernels).

- Residency: a device-resident array reduced over axes, scanned or arg-reduced stays on the
  device (runtime_stats' bytes_to_host does not grow until the result is read).
- Parity with NumPy over dtypes, axes, non-contiguous views, keepdims, initial, dtype= and out=,
  NaN propagation and argmax's first-NaN / first-extreme rules.  Float sums and scans on a GPU
  combine in CUB's order (not NumPy's pairwise/sequential order): compared with a tolerance.
- What the device declines (float16, complex, empty reductions) still computes correctly.
On the CPU backend every test here skips ("no CUDA device").
"""
import numpy
import pytest

import cupynum

pytestmark = [pytest.mark.device, pytest.mark.mpi_device, pytest.mark.gpu]

INFO = cupynum.runtime_info()
BACKEND = INFO["backend"]
on_device = pytest.mark.skipif(BACKEND not in ("cuda", "sim"),
                               reason="no CUDA device (CUPYNUM_DEVICE=sim runs these on the simulated device)")
single = pytest.mark.skipif(INFO["ranks"] > 1, reason="residency of a single process's arrays")

INTS = ["int8", "int16", "int32", "int64", "uint8", "uint16", "uint32", "uint64"]
DTYPES = ["bool"] + INTS + ["float32", "float64"]


def _data(dtype, shape, seed, lo=1, hi=50, near_one=False):
    """near_one: floats of magnitude in [0.5, 1.5) with random signs (products stay finite)."""
    rng = numpy.random.default_rng(seed)
    if dtype == "bool":
        return rng.random(shape) < 0.5
    if numpy.dtype(dtype).kind in "iu":
        return rng.integers(lo, hi, size=shape).astype(dtype)
    if near_one:
        return ((rng.random(shape) + 0.5) * rng.choice([-1.0, 1.0], size=shape)).astype(dtype)
    return (rng.random(shape) * 10 - 5).astype(dtype)


def _check(got, ref, float_sum=False):
    got = numpy.asarray(got)
    ref = numpy.asarray(ref)
    assert got.shape == ref.shape
    assert got.dtype == ref.dtype, (got.dtype, ref.dtype)
    if ref.dtype.kind == "f" and float_sum:
        # a GPU combines in CUB's order: rounding differs by a few ulps of the partial sums
        rtol, atol = (1e-4, 1e-3) if ref.dtype == numpy.float32 else (1e-11, 1e-10)
        numpy.testing.assert_allclose(got, ref, rtol=rtol, atol=atol)
    else:
        numpy.testing.assert_array_equal(got, ref)


def _to_host():
    return cupynum.runtime_stats()["bytes_to_host"]


# ---- residency ----------------------------------------------------------------------------------

RESIDENT = [
    ("sum axis 0", lambda m: m.sum(axis=0)),
    ("sum axis (0, 2)", lambda m: m.sum(axis=(0, 2))),
    ("float sum, all axes", lambda m: m.sum(keepdims=True)),
    ("prod axis 1", lambda m: m.prod(axis=1)),
    ("max axis -1", lambda m: m.max(axis=-1)),
    ("min keepdims", lambda m: m.min(axis=1, keepdims=True)),
    ("mean axis 1", lambda m: m.mean(axis=1)),
    ("any axis 0", lambda m: (m > 0).any(axis=0)),
    ("all axis 2", lambda m: (m > -4).all(axis=2)),
    ("argmax axis 1", lambda m: m.argmax(axis=1)),
    ("argmin, all axes", lambda m: m.argmin(keepdims=True)),
    ("cumsum axis 0", lambda m: m.cumsum(axis=0)),
    ("cumprod axis 2", lambda m: m.cumprod(axis=2)),
    ("sum of a transposed view", lambda m: m.transpose(2, 0, 1)[:, ::-1].sum(axis=1)),
]


@on_device
@single
@pytest.mark.parametrize("name,fn", RESIDENT, ids=[r[0] for r in RESIDENT])
def test_stays_on_device(name, fn):
    a = _data("float64", (6, 7, 8), 11)
    x = cupynum.asarray(a) * 1.0        # computed on the device
    cupynum.sync()
    before = _to_host()
    r = fn(x) * 1                       # and a device op consuming the result
    cupynum.sync()
    assert _to_host() == before, f"{name} brought data to the host"
    _check(r, fn(a) * 1, float_sum=True)


@on_device
@single
def test_int_reductions_stay_on_device():
    a = _data("int16", (9, 10), 5)
    x = cupynum.asarray(a) + 0
    cupynum.sync()
    before = _to_host()
    rs = [x.sum(axis=1), x.max(axis=0), x.argmax(axis=0), x.cumsum(axis=1), x.prod(axis=0, dtype=numpy.int16)]
    cupynum.sync()
    assert _to_host() == before
    refs = [a.sum(axis=1), a.max(axis=0), a.argmax(axis=0), a.cumsum(axis=1), a.prod(axis=0, dtype=numpy.int16)]
    for r, ref in zip(rs, refs):
        _check(r, ref)


# ---- parity ---------------------------------------------------------------------------------------

AXES = [None, 0, 1, 2, (0, 2), (1, 2), -1]


@on_device
@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("axis", AXES, ids=str)
def test_reduce_parity(dtype, axis):
    a = _data(dtype, (5, 6, 7), 1, 1, 4, near_one=True)
    x = cupynum.asarray(a)
    for name in ("sum", "prod", "max", "min"):
        _check(getattr(cupynum, name)(x, axis=axis), getattr(numpy, name)(a, axis=axis), float_sum=True)
    _check(cupynum.any(x, axis=axis), numpy.any(a, axis=axis))
    _check(cupynum.all(x, axis=axis), numpy.all(a, axis=axis))


@on_device
@pytest.mark.parametrize("dtype", DTYPES)
def test_argreduce_parity(dtype):
    a = _data(dtype, (5, 6, 7), 2, 0, 3)          # many ties: the first extreme wins
    x = cupynum.asarray(a)
    for axis in (None, 0, 1, 2, -1):
        _check(cupynum.argmax(x, axis=axis), numpy.argmax(a, axis=axis))
        _check(cupynum.argmin(x, axis=axis), numpy.argmin(a, axis=axis))


@on_device
@pytest.mark.parametrize("dtype", DTYPES)
def test_scan_parity(dtype):
    a = _data(dtype, (5, 6, 7), 3, 1, 3, near_one=True)
    x = cupynum.asarray(a)
    for axis in (None, 0, 1, 2, -1):
        _check(cupynum.cumsum(x, axis=axis), numpy.cumsum(a, axis=axis), float_sum=True)
        _check(cupynum.cumprod(x, axis=axis), numpy.cumprod(a, axis=axis), float_sum=True)
    for axis in (0, 2):
        _check(cupynum.maximum.accumulate(x, axis=axis), numpy.maximum.accumulate(a, axis=axis))
        _check(cupynum.minimum.accumulate(x, axis=axis), numpy.minimum.accumulate(a, axis=axis))


VIEWS = [
    ("transposed", lambda m: m.T),
    ("stepped", lambda m: m[::2, 1::3]),
    ("reversed", lambda m: m[::-1, :, ::-2]),
    ("permuted slice", lambda m: m.transpose(1, 2, 0)[1:, :5]),
]


@on_device
@pytest.mark.parametrize("dtype", ["int8", "uint16", "int64", "float32", "float64", "bool"])
@pytest.mark.parametrize("vname,view", VIEWS, ids=[v[0] for v in VIEWS])
def test_noncontiguous_views(dtype, vname, view):
    a = _data(dtype, (6, 8, 10), 4, 0, 5)
    x = cupynum.asarray(a)
    va, vx = view(a), view(x)
    for axis in (None, 0, 1, (0, 2), -1):
        _check(vx.sum(axis=axis), va.sum(axis=axis), float_sum=True)
        _check(vx.max(axis=axis), va.max(axis=axis))
        _check(vx.argmin(axis=None if isinstance(axis, tuple) else axis),
               va.argmin(axis=None if isinstance(axis, tuple) else axis))
    for axis in (0, -1):
        _check(cupynum.cumsum(vx, axis=axis), numpy.cumsum(va, axis=axis), float_sum=True)


@on_device
def test_broadcast_input():
    a = _data("float64", (4, 1, 6), 5)
    b = numpy.broadcast_to(a, (4, 5, 6))
    x = cupynum.broadcast_to(cupynum.asarray(a), (4, 5, 6))
    for axis in (0, 1, (1, 2)):
        _check(x.sum(axis=axis), b.sum(axis=axis), float_sum=True)
        _check(x.argmax(axis=axis if not isinstance(axis, tuple) else None),
               b.argmax(axis=axis if not isinstance(axis, tuple) else None))
    _check(cupynum.cumsum(x, axis=1), numpy.cumsum(b, axis=1), float_sum=True)


@on_device
def test_keepdims_initial_dtype_out():
    a = _data("int32", (6, 5, 4), 6, -20, 20)
    x = cupynum.asarray(a)
    _check(x.sum(axis=(0, 2), keepdims=True), a.sum(axis=(0, 2), keepdims=True))
    _check(x.sum(axis=1, initial=7), a.sum(axis=1, initial=7))
    _check(x.max(axis=0, initial=15), a.max(axis=0, initial=15))
    _check(x.min(axis=2, initial=-3), a.min(axis=2, initial=-3))
    _check(x.prod(axis=1, initial=-2), a.prod(axis=1, initial=-2))
    _check(x.sum(axis=0, dtype=numpy.int8), a.sum(axis=0, dtype=numpy.int8))        # wraps
    _check(x.sum(axis=0, dtype=numpy.uint8), a.sum(axis=0, dtype=numpy.uint8))
    _check(x.sum(axis=1, dtype=numpy.float32), a.sum(axis=1, dtype=numpy.float32), float_sum=True)
    _check(x.mean(axis=2), a.mean(axis=2), float_sum=True)
    f = _data("float32", (6, 5, 4), 7)
    y = cupynum.asarray(f)
    _check(y.sum(axis=1, dtype=numpy.float64), f.sum(axis=1, dtype=numpy.float64), float_sum=True)
    _check(y.max(axis=1, initial=4.0), f.max(axis=1, initial=4.0))
    # out= a non-contiguous view of a device array
    o = cupynum.zeros((12, 8), dtype=numpy.int64) + 1
    on = numpy.ones((12, 8), dtype=numpy.int64)
    cupynum.sum(x, axis=1, out=o[::-2, 1:5])
    numpy.sum(a, axis=1, out=on[::-2, 1:5])
    _check(o, on)
    co = cupynum.zeros((6, 5, 4), dtype=numpy.int64)
    cupynum.cumsum(x, axis=1, out=co)
    _check(co, numpy.cumsum(a, axis=1).astype(numpy.int64))


@on_device
def test_wrapping_integer_sums_and_products():
    a = _data("int8", (40, 30), 8, -128, 127)
    x = cupynum.asarray(a)
    _check(x.sum(axis=0, dtype=numpy.int8), a.sum(axis=0, dtype=numpy.int8))
    _check(x.prod(axis=1, dtype=numpy.int8), a.prod(axis=1, dtype=numpy.int8))
    _check(x.prod(axis=0), a.prod(axis=0))                                  # int64, wraps
    u = _data("uint64", (7, 50), 9, 0, 2**63)
    y = cupynum.asarray(u)
    _check(y.sum(axis=1), u.sum(axis=1))
    _check(y.prod(axis=0), u.prod(axis=0))
    _check(y.max(axis=1), u.max(axis=1))
    _check(cupynum.cumsum(y, axis=1), numpy.cumsum(u, axis=1))
    s = _data("int64", (7, 50), 10, -2**62, 2**62)
    z = cupynum.asarray(s)
    _check(z.min(axis=1), s.min(axis=1))
    _check(z.argmax(axis=0), s.argmax(axis=0))


@on_device
@pytest.mark.parametrize("dtype", ["float32", "float64"])
def test_nan_rules(dtype):
    a = _data(dtype, (6, 9), 12)
    a[1, 3] = numpy.nan
    a[1, 7] = numpy.nan
    a[4, 0] = numpy.nan
    a[2, :] = a[2, 5]                       # a row of ties
    a[3, 2] = numpy.inf
    a[5, 4] = -numpy.inf
    x = cupynum.asarray(a)
    for axis in (None, 0, 1):
        _check(x.max(axis=axis), a.max(axis=axis))
        _check(x.min(axis=axis), a.min(axis=axis))
        _check(x.argmax(axis=axis), a.argmax(axis=axis))
        _check(x.argmin(axis=axis), a.argmin(axis=axis))
        _check(x.sum(axis=axis), a.sum(axis=axis), float_sum=True)
    for axis in (0, 1):
        _check(cupynum.maximum.accumulate(x, axis=axis), numpy.maximum.accumulate(a, axis=axis))
        _check(cupynum.minimum.accumulate(x, axis=axis), numpy.minimum.accumulate(a, axis=axis))
    allneg = numpy.full((3, 4), -numpy.inf, dtype=dtype)
    _check(cupynum.asarray(allneg).argmax(axis=1), allneg.argmax(axis=1))
    _check(cupynum.asarray(-allneg).argmin(axis=0), (-allneg).argmin(axis=0))


@on_device
def test_logical_reduce():
    a = _data("bool", (7, 8), 13)
    x = cupynum.asarray(a)
    for axis in (0, 1, None):
        _check(cupynum.logical_or.reduce(x, axis=axis), numpy.logical_or.reduce(a, axis=axis))
        _check(cupynum.logical_and.reduce(x, axis=axis), numpy.logical_and.reduce(a, axis=axis))
    f = _data("float64", (7, 8), 14)
    f[f > 3] = 0
    y = cupynum.asarray(f)
    _check(y.any(axis=1), f.any(axis=1))
    _check(y.all(axis=0), f.all(axis=0))
    _check(cupynum.count_nonzero(y, axis=0), numpy.count_nonzero(f, axis=0))


@on_device
def test_large_and_shapes():
    # one long row (one CUB reduction), many short rows, one element per row, single elements
    n = 1 << 20
    a = _data("float64", (n,), 15)
    a[n // 3] = a.max() + 1.0
    x = cupynum.asarray(a)
    _check(x.sum(), a.sum(), float_sum=True)
    _check(x.argmax(), a.argmax())
    _check(x.min(), a.min())
    # NumPy's sequential running sum of 2**20 values drifts by up to ~n * eps * 5 from the exact one
    numpy.testing.assert_allclose(numpy.asarray(cupynum.cumsum(x)), numpy.cumsum(a), rtol=1e-9, atol=1e-8)
    b = _data("float32", (n // 4, 4), 16)
    y = cupynum.asarray(b)
    _check(y.sum(axis=1), b.sum(axis=1), float_sum=True)
    _check(y.argmin(axis=1), b.argmin(axis=1))
    _check(cupynum.cumsum(y, axis=1), numpy.cumsum(b, axis=1), float_sum=True)
    c = _data("int32", (3, 1, 5), 17)
    z = cupynum.asarray(c)
    _check(z.sum(axis=1), c.sum(axis=1))
    _check(cupynum.cumsum(z, axis=1), numpy.cumsum(c, axis=1))
    _check(z.argmax(axis=1), c.argmax(axis=1))
    one = cupynum.asarray(numpy.array([3.5]))
    _check(one.sum(axis=0), numpy.array([3.5]).sum(axis=0))
    _check(cupynum.cumprod(one), numpy.cumprod(numpy.array([3.5])))


@on_device
def test_declined_still_correct():
    h = _data("float16", (5, 6), 18)
    _check(cupynum.asarray(h).sum(axis=0), h.sum(axis=0), float_sum=True)
    c = _data("float64", (5, 6), 19) + 1j * _data("float64", (5, 6), 20)
    numpy.testing.assert_allclose(numpy.asarray(cupynum.asarray(c).sum(axis=1)), c.sum(axis=1), rtol=1e-12)
    numpy.testing.assert_allclose(numpy.asarray(cupynum.cumsum(cupynum.asarray(c), axis=0)),
                                  numpy.cumsum(c, axis=0), rtol=1e-12)
    e = numpy.zeros((0, 4))
    _check(cupynum.asarray(e).sum(axis=0), e.sum(axis=0))
    _check(cupynum.asarray(e).max(axis=1), e.max(axis=1))
    _check(cupynum.cumsum(cupynum.asarray(e), axis=0), numpy.cumsum(e, axis=0))
    with pytest.raises(ValueError):
        cupynum.asarray(e).argmax(axis=0)
    b = _data("int32", (5, 6), 21)
    _check(cupynum.bitwise_or.reduce(cupynum.asarray(b), axis=0), numpy.bitwise_or.reduce(b, axis=0))


@on_device
def test_in_place_scan_and_reduce_into_source():
    a = _data("float64", (5, 6), 22)
    x = cupynum.asarray(a) * 1.0
    cupynum.cumsum(x, axis=1, out=x)
    ref = numpy.cumsum(a, axis=1)
    _check(x, ref, float_sum=True)
    cupynum.sum(x, axis=1, out=x[:, 0])
    ref2 = ref.copy()
    numpy.sum(ref2, axis=1, out=ref2[:, 0])
    _check(x, ref2, float_sum=True)
