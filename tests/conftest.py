"""Shared helpers of the pytest suite: NumPy is the oracle for every test.

Tests import the helpers directly (`from conftest import ALL_DTYPES, check, sample`); pytest puts
this directory on sys.path (rootdir-relative, "prepend" import mode)."""

import math

import numpy
import pytest

import cupynum

ALL_DTYPES = [
    numpy.dtype(t)
    for t in (numpy.bool_, numpy.int8, numpy.int16, numpy.int32, numpy.int64, numpy.uint8,
              numpy.uint16, numpy.uint32, numpy.uint64, numpy.float16, numpy.float32,
              numpy.float64, numpy.complex64, numpy.complex128)
]
INT_DTYPES = [d for d in ALL_DTYPES if d.kind in "iu"]
FLOAT_DTYPES = [d for d in ALL_DTYPES if d.kind == "f"]
COMPLEX_DTYPES = [d for d in ALL_DTYPES if d.kind == "c"]
NUMERIC_DTYPES = [d for d in ALL_DTYPES if d.kind != "b"]

SHAPES = [(), (0,), (1,), (7,), (3, 4), (2, 3, 5), (4, 1, 3)]


def dtype_id(d):
    return numpy.dtype(d).name


def shape_id(s):
    return "x".join(str(n) for n in s) if s else "scalar"


def sample(shape, dtype, seed=0, low=None, high=None):
    """Deterministic NumPy test data of `shape` and `dtype` (values representable exactly)."""
    dtype = numpy.dtype(dtype)
    rng = numpy.random.default_rng(seed)
    n = math.prod(shape)
    if dtype.kind == "b":
        return (rng.integers(0, 2, size=n) == 1).reshape(shape)
    if dtype.kind in "iu":
        info = numpy.iinfo(dtype)
        lo = max(info.min, -50) if low is None else low
        hi = min(info.max, 50) if high is None else high
        return rng.integers(lo, hi, size=n, endpoint=True).astype(dtype).reshape(shape)
    lo = -8 if low is None else low
    hi = 8 if high is None else high
    vals = rng.integers(lo * 4, hi * 4, size=n, endpoint=True) / 4.0  # exact in float16
    if dtype.kind == "c":
        ims = rng.integers(lo * 4, hi * 4, size=n, endpoint=True) / 4.0
        vals = vals + 1j * ims
    return vals.astype(dtype).reshape(shape)


def _assert_same_values(c, n, rtol, atol):
    if rtol == 0 and atol == 0:
        numpy.testing.assert_array_equal(c, n, strict=True)
    else:
        numpy.testing.assert_allclose(c, n, rtol=rtol, atol=atol, equal_nan=True, strict=True)


def check(cp_result, np_result, rtol=0.0, atol=0.0):
    """Assert that cupynum's result is NumPy's: same kind of object (cupynum.ndarray for
    numpy.ndarray; the same NumPy scalar type or Python scalar type for scalars), same dtype,
    same shape, same values (NaN-aware; exact unless a tolerance is given). Tuples and lists are
    compared element by element."""
    if isinstance(np_result, (tuple, list)):
        assert type(cp_result) is type(np_result), (type(cp_result), type(np_result))
        assert len(cp_result) == len(np_result)
        for c, n in zip(cp_result, np_result):
            check(c, n, rtol=rtol, atol=atol)
        return
    if isinstance(np_result, numpy.ndarray):
        assert isinstance(cp_result, cupynum.ndarray), \
            f"expected a cupynum.ndarray, got {type(cp_result).__name__}: {cp_result!r}"
        assert cp_result.dtype == np_result.dtype, (cp_result.dtype, np_result.dtype)
        assert cp_result.shape == np_result.shape, (cp_result.shape, np_result.shape)
        c = numpy.asarray(cp_result)
        assert isinstance(c, numpy.ndarray) and c.dtype == np_result.dtype
        _assert_same_values(c, np_result, rtol, atol)
        return
    if isinstance(np_result, numpy.generic):
        assert type(cp_result) is type(np_result), \
            f"expected {type(np_result).__name__}, got {type(cp_result).__name__}: {cp_result!r}"
        _assert_same_values(numpy.asarray(cp_result), numpy.asarray(np_result), rtol, atol)
        return
    # Python scalars (or None): same type, same value.
    assert type(cp_result) is type(np_result), (type(cp_result), type(np_result))
    if isinstance(np_result, float) and math.isnan(np_result):
        assert math.isnan(cp_result)
    elif rtol or atol:
        assert cp_result == pytest.approx(np_result, rel=rtol, abs=atol)
    else:
        assert cp_result == np_result


def both(np_array):
    """The same data as a NumPy array (a private copy) and a cupynum array."""
    n = numpy.array(np_array, copy=True)
    return n, cupynum.array(n)


def raises_same(fn_np, fn_cp, *args):
    """Run fn on NumPy and cupynum; NumPy must raise; cupynum must raise the same type.
    Returns the two exceptions."""
    with pytest.raises(Exception) as np_exc:
        fn_np(*args)
    with pytest.raises(type(np_exc.value)) as cp_exc:
        fn_cp(*args)
    return np_exc.value, cp_exc.value


def same_error(fn_np, fn_cp):
    """raises_same, and the messages are NumPy's word for word."""
    e_np, e_cp = raises_same(fn_np, fn_cp)
    assert str(e_cp) == str(e_np)


@pytest.fixture
def checker():
    return check


@pytest.fixture(params=ALL_DTYPES, ids=dtype_id)
def any_dtype(request):
    return request.param


@pytest.fixture(params=SHAPES, ids=shape_id)
def any_shape(request):
    return request.param


def same_outcome(fn, n, c, compare=None):
    """fn(n) with NumPy and fn(c) with cupynum: if NumPy raises, cupynum raises the same
    exception type; otherwise the results compare equal (with `compare`, default `check`)."""
    try:
        expected = fn(n)
    except Exception as e:  # noqa: BLE001  (whatever NumPy raises is the oracle)
        with pytest.raises(type(e)):
            fn(c)
        return None
    got = fn(c)
    (compare or check)(got, expected)
    return got


def stencil(np, grid, iterations):
    """The seed's 5-point stencil on aliasing views, written as a NumPy user writes it."""
    center = grid[1:-1, 1:-1]
    north = grid[0:-2, 1:-1]
    east = grid[1:-1, 2:]
    west = grid[1:-1, 0:-2]
    south = grid[2:, 1:-1]
    for _ in range(iterations):
        center[:] = 0.2 * (center + north + east + west + south)
    return grid
