"""Element-wise helpers, construction, small calculus and polynomials (issue 20,
cupynum/_helpers.py), compared with NumPy on the same data.

Runs on one rank and under `mpirun -np 2, 3, 4` with CUPYNUM_MIN_TILE=1 (every array
partitioned); every rank checks the whole result against NumPy.  The element-wise helpers are
compositions of native ufuncs and where: the tests read runtime_stats() to see that they fuse with
the chain around them and move no bytes between ranks."""

import warnings

import numpy
import pytest

import cupynum
from conftest import ALL_DTYPES, check, dtype_id

pytestmark = [pytest.mark.device, pytest.mark.mpi_device]

RANKS = cupynum.runtime_info()["ranks"]

# values that meet every branch: ties of round, signed zeros, NaN, infinities, large values
_SPECIAL = numpy.array([-2.5, -0.5, -0.0, 0.0, 0.4, 1.5, 2.5, 3.25, 7.7, 9.1, numpy.nan,
                        numpy.inf, -numpy.inf, 123.456, 800.0, -1e300, 1e-300])


def _math_rtol(dtype):
    """Two units in the last place of the float type a transcendental of `dtype` returns.
    NumPy's own SIMD math differs with the processor (on AVX-512 its float32 arctan2 and float64
    exp are kernels of their own, not the AVX2 ones), so cupynum's SLEEF results equal NumPy's
    bit for bit on some machines and within an ulp on others."""
    return 2 * float(numpy.finfo(numpy.result_type(dtype, numpy.float16)).eps)


def _data(dtype, n=17):
    dtype = numpy.dtype(dtype)
    if dtype.kind in "fc":
        with numpy.errstate(all="ignore"):
            x = _SPECIAL[:n].astype(dtype)
            if dtype.kind == "c":
                x = x + (1j * _SPECIAL[:n][::-1]).astype(dtype)
        return x
    if dtype.kind == "b":
        return numpy.arange(n) % 3 == 0
    return (numpy.arange(n) * 7 % 23).astype(dtype)


def _same(fn, *args, rtol=0.0, **kwargs):
    """fn(numpy, ...) and fn(cupynum, ...): the same result (value, dtype, type, warnings) or
    the same exception type and message."""
    try:
        with warnings.catch_warnings(record=True) as wn:
            warnings.simplefilter("always")
            expected = fn(numpy, *args, **kwargs)
    except Exception as e:  # noqa: BLE001  (NumPy is the oracle)
        with pytest.raises(type(e)) as got:
            fn(cupynum, *args, **kwargs)
            cupynum.sync()
        assert str(got.value) == str(e)
        return None
    with warnings.catch_warnings(record=True) as wc:
        warnings.simplefilter("always")
        result = fn(cupynum, *args, **kwargs)
        cupynum.sync()
    assert {str(w.message) for w in wc} == {str(w.message) for w in wn}
    if rtol:
        check(result, expected, rtol=rtol)
    else:
        check(result, expected)
        if isinstance(expected, numpy.ndarray) and expected.dtype.kind in "fc":
            z = expected == 0      # signed zeros as NumPy's
            r = numpy.asarray(result)
            assert (numpy.signbit(r.real)[z] == numpy.signbit(expected.real)[z]).all()
    return result


def _a(m, x):
    return m.array(x)


# ---- element-wise helpers ----------------------------------------------------------------------

@pytest.mark.parametrize("dtype", ALL_DTYPES, ids=dtype_id)
@pytest.mark.parametrize("bounds", [(0, 1), (-1.5, 2.5), (None, 3), (2, None), (None, None),
                                    (-1000, 1000), (numpy.nan, 1)])
def test_clip(dtype, bounds):
    x = _data(dtype)
    _same(lambda m: m.clip(_a(m, x), *bounds))
    _same(lambda m: _a(m, x).clip(*bounds))
    _same(lambda m: m.clip(_a(m, x), min=bounds[0], max=bounds[1]))


def test_clip_arrays_out_and_errors():
    x = _data(numpy.float64)
    _same(lambda m: m.clip(_a(m, x), _a(m, x)[::-1], 3))
    _same(lambda m: m.clip(_a(m, x).reshape(1, -1), _a(m, numpy.arange(3.0)).reshape(3, 1), 5))
    _same(lambda m: m.clip(_a(m, x), 0, 1, out=m.zeros(x.shape)))
    _same(lambda m: m.clip(_a(m, x), 0, 1, out=m.zeros(x.shape, int)))      # casting error
    _same(lambda m: m.clip(_a(m, x), 1))
    _same(lambda m: m.clip(_a(m, x), 1, 2, min=3))
    _same(lambda m: m.clip(m.zeros((0, 3)), 0, 1))
    _same(lambda m: m.clip(1.5, 0, 1))
    _same(lambda m: m.clip(m.array(1.5), 0, 1))
    _same(lambda m: m.clip(m.arange(5, dtype=m.int8), -1000, 3))
    c = cupynum.zeros(4)
    assert cupynum.clip(cupynum.arange(4.0), 1, 2, out=c) is c


@pytest.mark.parametrize("dtype", ALL_DTYPES, ids=dtype_id)
@pytest.mark.parametrize("decimals", [0, 1, 2, -1, -2])
def test_round(dtype, decimals):
    x = _data(dtype)
    if dtype.kind == "u" and decimals < 0:
        x = x[:5]
    _same(lambda m: m.round(_a(m, x), decimals))
    _same(lambda m: m.around(_a(m, x), decimals))
    _same(lambda m: _a(m, x).round(decimals))


def test_round_out_scalars_and_errors():
    x = _data(numpy.float64)
    _same(lambda m: m.round(_a(m, x), 2, out=m.zeros(x.shape)))
    _same(lambda m: m.round(_a(m, x), 2, out=m.zeros(x.shape, int)))
    _same(lambda m: m.round(_a(m, x), 1.5))
    for s in (1.5, 2, -0.5, numpy.float32(2.5), True):
        _same(lambda m: m.round(s))
        _same(lambda m: m.round(s, 1))
    _same(lambda m: m.round([1.25, 2.5], 1))
    _same(lambda m: m.round(m.array(2.5)))
    _same(lambda m: m.array(2.5).round())


@pytest.mark.parametrize("dtype", ALL_DTYPES, ids=dtype_id)
@pytest.mark.parametrize("name", ["fix", "isposinf", "isneginf", "iscomplex", "isreal",
                                  "iscomplexobj", "isrealobj", "angle", "sinc", "nan_to_num",
                                  "real_if_close", "asarray_chkfinite"])
def test_unary(dtype, name):
    x = _data(dtype)
    rtol = _math_rtol(dtype) if name in ("angle", "sinc") else 0.0
    _same(lambda m: getattr(m, name)(_a(m, x)), rtol=rtol)
    _same(lambda m: getattr(m, name)(_a(m, x[:0])))
    _same(lambda m: getattr(m, name)(_a(m, x[3])))


@pytest.mark.parametrize("value", [1.5, 2, -0.5, numpy.float32(2.5), True, numpy.nan, -numpy.inf,
                                   [1.5, 2.0], 1 + 1e-20j])
@pytest.mark.parametrize("name", ["fix", "isposinf", "isneginf", "iscomplex", "isreal", "angle",
                                  "sinc", "nan_to_num", "real_if_close", "i0"])
def test_unary_python_values(value, name):
    if name in ("isposinf", "isneginf", "i0", "fix") and isinstance(value, complex):
        value = 2.5
    _same(lambda m: getattr(m, name)(value), rtol=1e-6 if name == "i0" else 0.0)


@pytest.mark.parametrize("dtype", [d for d in ALL_DTYPES if d.kind != "c"], ids=dtype_id)
def test_i0(dtype):
    x = _data(dtype)
    # the same Chebyshev series in the same order; float64 to two ulps (NumPy's SIMD exp is
    # the processor's: AVX-512 rounds differently from AVX2), float32/float16 to their precision
    _same(lambda m: m.i0(_a(m, x)), rtol=_math_rtol(numpy.float64)
          if dtype in (numpy.float64, numpy.int64, numpy.bool_) else 1e-6)


def test_i0_complex_and_isposinf_complex_raise():
    _same(lambda m: m.i0(m.ones(3, complex)))
    _same(lambda m: m.isposinf(m.ones(3, complex)))
    _same(lambda m: m.isneginf(m.ones(3, complex)))


def test_angle_deg_and_nan_to_num_options():
    for dtype in (numpy.int32, numpy.float32, numpy.float64, numpy.complex64, numpy.complex128):
        x = _data(dtype)
        _same(lambda m: m.angle(_a(m, x), deg=True), rtol=_math_rtol(dtype))
        _same(lambda m: m.nan_to_num(_a(m, x), nan=5, posinf=7.0, neginf=-1))
    x = _data(numpy.float64)
    c = cupynum.array(x)
    r = cupynum.nan_to_num(c, copy=False)
    assert r is c
    check(c, numpy.nan_to_num(x))
    c = cupynum.array(x)
    cupynum.nan_to_num(c)
    check(c, x)                      # copy=True leaves the argument alone
    r = cupynum.real_if_close(cupynum.array(x + 1e-20j))
    check(r, x)


@pytest.mark.parametrize("dtype", ALL_DTYPES, ids=dtype_id)
def test_isclose_allclose_equal(dtype):
    x = _data(dtype)
    _same(lambda m: m.isclose(_a(m, x), _a(m, x)[::-1]))
    _same(lambda m: m.isclose(_a(m, x), 1, equal_nan=True))
    _same(lambda m: m.isclose(_a(m, x), _a(m, x), equal_nan=True))
    _same(lambda m: m.isclose(_a(m, x), _a(m, x)[::-1], rtol=0.5, atol=2))
    _same(lambda m: m.allclose(_a(m, x), _a(m, x)))
    _same(lambda m: m.allclose(_a(m, x), _a(m, x), equal_nan=True))
    _same(lambda m: m.array_equal(_a(m, x), _a(m, x).copy()))
    _same(lambda m: m.array_equal(_a(m, x), _a(m, x).copy(), equal_nan=True))
    _same(lambda m: m.array_equal(_a(m, x), _a(m, x)[::-1], equal_nan=True))
    _same(lambda m: m.array_equal(_a(m, x), _a(m, x)[1:]))
    _same(lambda m: m.array_equiv(_a(m, x), _a(m, x)[:1]))
    _same(lambda m: m.array_equiv(_a(m, x[:1]), _a(m, x)))
    _same(lambda m: m.array_equiv(_a(m, x), _a(m, x)[:2]))


def test_isclose_broadcast_scalars_and_bad_tolerance():
    _same(lambda m: m.isclose(m.arange(4.0), m.arange(4.0).reshape(4, 1) + 0.5, atol=0.5))
    _same(lambda m: m.isclose(1.0, 1.0 + 1e-9))
    _same(lambda m: m.isclose([1.0, numpy.nan], [1.0, numpy.nan], equal_nan=True))
    _same(lambda m: m.isclose(m.arange(4.0), 1, atol=numpy.nan))
    _same(lambda m: m.isclose(m.arange(4, dtype=m.int64), numpy.iinfo(numpy.int64).min))
    _same(lambda m: m.allclose(m.arange(4.0), m.arange(4.0) + 1e-9))
    _same(lambda m: m.allclose(m.arange(4.0), m.arange(3.0)))


def test_conj_methods():
    for dtype in ALL_DTYPES:
        x = _data(dtype)
        _same(lambda m: _a(m, x).conj())
        _same(lambda m: _a(m, x).conjugate())
    c = cupynum.arange(3.0)
    assert c.conj() is c                     # NumPy returns a real array itself


def _fusion(fn):
    cupynum.sync()
    cupynum.reset_stats()
    fn()
    cupynum.sync()
    return cupynum.runtime_stats()


@pytest.mark.parametrize("name", ["clip", "isclose", "nan_to_num", "round", "fix", "sinc"])
def test_helpers_fuse_with_the_chain(name):
    """The helper's ops and the element-wise ops before and after it run as one fused pass."""
    n = numpy.linspace(-3, 3, 1000)
    a = cupynum.array(n)
    fns = {
        "clip": lambda m, a: m.clip(a * 2, -1, 1) + 1,
        "isclose": lambda m, a: m.isclose(a * 2, a + a) * 1.0 + 1,
        "nan_to_num": lambda m, a: m.nan_to_num(m.sqrt(a)) * 2,
        "round": lambda m, a: m.round(a * 3, 2) - 1,
        "fix": lambda m, a: m.fix(a * 3) - 1,
        "sinc": lambda m, a: m.sinc(a + 1) * 2,
    }
    r = {}
    with numpy.errstate(invalid="ignore"):
        stats = _fusion(lambda: r.setdefault("c", fns[name](cupynum, a)))
        # (sin of float64: cupynum's libm may differ from NumPy's SIMD sin in the last bit)
        check(r["c"], fns[name](numpy, n), rtol=1e-15 if name == "sinc" else 0.0)
    assert stats["flushes"] == 1
    assert stats["fused_runs"] >= 1
    assert stats["fused_ops"] == stats["ops_executed"]     # every op in a fused run
    assert stats["bytes_sent"] == 0                        # owner computes


def test_elementwise_helper_on_partitioned_array_sends_nothing():
    n = numpy.linspace(-5, 5, 64 * max(RANKS, 1)).reshape(8 * max(RANKS, 1), 8)
    a = cupynum.array(n)
    cupynum.sync()
    cupynum.reset_stats()
    r = cupynum.nan_to_num(cupynum.clip(cupynum.round(a, 1), -2, 2)) + cupynum.isclose(a, 0.0)
    cupynum.sync()
    assert cupynum.runtime_stats()["bytes_sent"] == 0
    check(r, numpy.nan_to_num(numpy.clip(numpy.round(n, 1), -2, 2)) + numpy.isclose(n, 0.0))


# ---- construction -------------------------------------------------------------------------------

@pytest.mark.parametrize("N,M,k", [(3, None, 0), (4, 5, 1), (4, 2, -1), (0, 3, 0), (3, 0, 2),
                                   (5, 5, -7)])
@pytest.mark.parametrize("dtype", [float, bool, numpy.int8, complex])
def test_tri(N, M, k, dtype):
    _same(lambda m: m.tri(N, M, k, dtype=dtype))


@pytest.mark.parametrize("shape", [(4,), (3, 4), (2, 3, 4), (0, 3), (4, 0), ()])
@pytest.mark.parametrize("k", [0, 1, -1, 5, -5])
def test_tril_triu(shape, k):
    x = numpy.arange(numpy.prod(shape)).reshape(shape) + 1
    _same(lambda m: m.tril(m.array(x), k))
    _same(lambda m: m.triu(m.array(x), k))


@pytest.mark.parametrize("shape", [(4,), (3, 4), (4, 3), (0,), (2,), (0, 3), (2, 2, 2), ()])
@pytest.mark.parametrize("dtype", [numpy.float64, numpy.bool_, numpy.complex128, numpy.int16])
@pytest.mark.parametrize("k", [0, 1, -1, 3, -3])
def test_diag_diagflat(shape, dtype, k):
    x = (numpy.arange(numpy.prod(shape)).reshape(shape) + 1).astype(dtype)
    _same(lambda m: m.diag(m.array(x), k))
    _same(lambda m: m.diagflat(m.array(x), k))


def test_diag_of_a_matrix_is_a_read_only_view():
    n = numpy.arange(12.0).reshape(3, 4)
    c = cupynum.array(n)
    d = cupynum.diag(c, 1)
    check(d, numpy.diag(n, 1))
    assert not d.flags.writeable and not numpy.diag(n, 1).flags.writeable
    c[0, 1] = 99
    assert float(d[0]) == 99.0                 # a view: the write is seen through it
    _same(lambda m: m.diag([1, 2, 3]))


def _filled(m, shape, val, wrap=False):
    a = m.zeros(shape)
    assert m.fill_diagonal(a, val, wrap) is None
    return a


@pytest.mark.parametrize("shape", [(3, 3), (5, 3), (3, 5), (7, 3), (3, 3, 3), (0, 0), (3,),
                                   (3, 3, 4)])
@pytest.mark.parametrize("val", [5, [1, 2], numpy.arange(10.0), 2.5])
@pytest.mark.parametrize("wrap", [False, True])
def test_fill_diagonal(shape, val, wrap):
    _same(lambda m: _filled(m, shape, m.array(val) if isinstance(val, numpy.ndarray) else val,
                            wrap))


@pytest.mark.parametrize("n,k,m_", [(4, 0, None), (4, 1, 5), (3, -1, 2), (0, 0, None),
                                    (5, 10, None)])
def test_tril_triu_indices(n, k, m_):
    _same(lambda m: m.tril_indices(n, k, m_))
    _same(lambda m: m.triu_indices(n, k, m_))


def test_index_sets_from_arrays():
    _same(lambda m: m.tril_indices_from(m.ones((3, 4)), 1))
    _same(lambda m: m.triu_indices_from(m.ones((3, 4)), -1))
    _same(lambda m: m.triu_indices_from(m.ones((3,))))
    _same(lambda m: m.tril_indices_from(m.ones((3, 4, 2))))
    _same(lambda m: m.diag_indices(4, 3))
    _same(lambda m: m.diag_indices_from(m.ones((3, 3))))
    _same(lambda m: m.diag_indices_from(m.ones((3, 4))))
    _same(lambda m: m.diag_indices_from(m.ones((3,))))
    _same(lambda m: m.mask_indices(3, m.triu, 1))
    _same(lambda m: m.mask_indices(4, numpy.tril))
    n = numpy.arange(16.0).reshape(4, 4)
    c = cupynum.array(n)
    check(c[cupynum.triu_indices(4, 1)], n[numpy.triu_indices(4, 1)])


@pytest.mark.parametrize("dims", [(2, 3), (4,), (), (0, 3), (2, 1, 3)])
@pytest.mark.parametrize("dtype", [int, float, numpy.int8])
def test_indices_fromfunction(dims, dtype):
    _same(lambda m: m.indices(dims, dtype=dtype))
    _same(lambda m: m.indices(dims, dtype=dtype, sparse=True))
    if len(dims) == 2:
        _same(lambda m: m.fromfunction(lambda i, j: i * 10 + j, dims, dtype=dtype))


@pytest.mark.parametrize("indexing", ["xy", "ij"])
@pytest.mark.parametrize("sparse", [False, True])
@pytest.mark.parametrize("copy", [False, True])
def test_meshgrid(indexing, sparse, copy):
    x1, x2, x3 = numpy.arange(3.0), numpy.arange(4) + 10, numpy.array([1.5, 2.5])
    _same(lambda m: m.meshgrid(m.array(x1), m.array(x2), m.array(x3), indexing=indexing,
                               sparse=sparse, copy=copy))
    _same(lambda m: m.meshgrid(m.array(x1), m.array(x2), indexing=indexing, sparse=sparse,
                               copy=copy))
    _same(lambda m: m.meshgrid(x1, indexing=indexing, sparse=sparse, copy=copy))
    _same(lambda m: m.meshgrid(indexing=indexing, sparse=sparse, copy=copy))
    _same(lambda m: m.meshgrid(x1, indexing="foo"))


@pytest.mark.parametrize("dtype", [int, float, numpy.float32, complex, bool, numpy.uint64,
                                   numpy.int8])
@pytest.mark.parametrize("N", [None, 0, 1, 3, 6])
@pytest.mark.parametrize("increasing", [False, True])
def test_vander(dtype, N, increasing):
    x = ((numpy.arange(5) - 2) if dtype not in (bool, numpy.uint64) else numpy.arange(5) % 2)
    _same(lambda m: m.vander(m.array(x.astype(dtype)), N, increasing))
    _same(lambda m: m.vander(m.ones((2, 2))))


# power(10, y): cupynum's float64 pow and exp may differ from NumPy's in the last bit
@pytest.mark.parametrize("args", [(1, 1000), (-1, -1000), (1, 256, 9), (2, 3, 5, False),
                                  (1j, 1000j), (1, 1e5, 7, True, numpy.float32), (0, 3),
                                  (3, 1, 0), (3, 1, 1), (1.0, 2.0, 4, True, int)])
def test_geomspace(args):
    _same(lambda m: m.geomspace(*args), rtol=1e-15 if len(args) < 5 else 0.0)


@pytest.mark.parametrize("args", [(0, 3), (0, 2, 5, True, 2.0), (1, 3, 4, False),
                                  (0, 1, 3, True, 10.0, numpy.float32), (0, 2, 3, True, [2.0, 3.0])])
def test_logspace(args):
    _same(lambda m: m.logspace(*args), rtol=1e-15)


@pytest.mark.parametrize("name", ["bartlett", "blackman", "hamming", "hanning"])
@pytest.mark.parametrize("M", [0, 1, 2, 5, 12, -3, 7.0])
def test_windows(name, M):
    _same(lambda m: getattr(m, name)(M))


@pytest.mark.parametrize("M", [0, 1, 2, 5, 12])
@pytest.mark.parametrize("beta", [0, 1.5, 8.6, 14])
def test_kaiser(M, beta):
    _same(lambda m: m.kaiser(M, beta), rtol=1e-15)


@pytest.mark.parametrize("mi,dims,kw", [
    ((1, 2), (3, 4), {}), (([1, 2], [2, 2]), (3, 4), {}), (([1, 5], [2, 2]), (3, 4), {}),
    (([1],), (3, 4), {}), (([1.0], [2]), (3, 4), {}), (([1, 5], [2, -2]), (3, 4), {"mode": "wrap"}),
    (([1, 5], [2, -2]), (3, 4), {"mode": ("clip", "wrap")}),
    (([1, 5], [2, 2]), (3, 4), {"mode": "foo"}), (([1, 2], [2, 3]), (3, 4), {"order": "F"}),
    ((numpy.arange(6).reshape(2, 3) % 3, [[1], [2]]), (3, 4), {})])
def test_ravel_multi_index(mi, dims, kw):
    _same(lambda m: m.ravel_multi_index(
        tuple(m.array(x) if isinstance(x, (list, numpy.ndarray)) else x for x in mi), dims, **kw))


@pytest.mark.parametrize("ind,shape,kw", [
    (12, (3, 4), {}), ([1, -1], (3, 4), {}), (5, (3, 4), {}), ([1.0], (3, 4), {}),
    ([1, 2], (3, 4), {"order": "F"}), ([], (3, 4), {}), (numpy.array([], int), (3, 4), {}),
    (numpy.arange(6).reshape(2, 3), (2, 3), {}), (7, 10, {}), (0, (), {})])
def test_unravel_index(ind, shape, kw):
    _same(lambda m: m.unravel_index(m.array(ind) if isinstance(ind, numpy.ndarray) else ind,
                                    shape, **kw))


def test_tril_on_partitioned_array_moves_only_the_index_vectors():
    """tril/triu are a where of the partitioned array against a mask of two broadcast aranges:
    the array's elements stay with their owners; at most the small index vectors move."""
    side = 16 * max(RANKS, 1)
    n = numpy.arange(float(side * side)).reshape(side, side)
    a = cupynum.array(n)
    cupynum.sync()
    cupynum.reset_stats()
    r = cupynum.tril(a, 1) + cupynum.triu(a, 2)
    cupynum.sync()
    assert cupynum.runtime_stats()["bytes_sent"] <= 8 * 2 * side * max(RANKS, 1)
    check(r, numpy.tril(n, 1) + numpy.triu(n, 2))


# ---- small calculus -----------------------------------------------------------------------------

_CALC_DTYPES = [numpy.int8, numpy.int64, numpy.uint8, numpy.float16, numpy.float32, numpy.float64,
                numpy.complex128, numpy.bool_]


def _grid(dtype):
    return (numpy.arange(24) * 7 % 11 - 3).astype(dtype).reshape(4, 6)


@pytest.mark.parametrize("dtype", _CALC_DTYPES, ids=dtype_id)
def test_diff_ediff1d(dtype):
    x = _grid(dtype)
    for n in (0, 1, 2, 5):
        for ax in (-1, 0):
            _same(lambda m: m.diff(_a(m, x), n, ax))
    _same(lambda m: m.diff(_a(m, x), prepend=0, append=_a(m, x[:, :2])))
    _same(lambda m: m.diff(_a(m, x), axis=0, prepend=_a(m, x[:1])))
    _same(lambda m: m.diff(_a(m, x), axis=0, prepend=_a(m, x[:, :1])))     # NumPy's error
    _same(lambda m: m.diff(_a(m, x[0, 0])))
    _same(lambda m: m.diff(_a(m, x), -1))
    _same(lambda m: m.ediff1d(_a(m, x)))
    _same(lambda m: m.ediff1d(_a(m, x), to_end=[1, 2], to_begin=5))
    _same(lambda m: m.ediff1d(_a(m, x), to_end=1.5))
    _same(lambda m: m.ediff1d(_a(m, x[:1, :1])))


@pytest.mark.parametrize("dtype", _CALC_DTYPES, ids=dtype_id)
@pytest.mark.parametrize("axis", [None, 0, 1])
@pytest.mark.parametrize("edge_order", [1, 2])
def test_gradient(dtype, axis, edge_order):
    x = _grid(dtype)
    _same(lambda m: m.gradient(_a(m, x), axis=axis, edge_order=edge_order))
    _same(lambda m: m.gradient(_a(m, x), 2.0, axis=axis, edge_order=edge_order))
    _same(lambda m: m.gradient(_a(m, x), _a(m, numpy.array([0.0, 1, 3, 4])),
                               _a(m, numpy.array([1.0, 2, 4, 7, 8, 10])), edge_order=edge_order))
    _same(lambda m: m.gradient(_a(m, x), [0, 2, 4, 6], 1.5, edge_order=edge_order))
    _same(lambda m: m.gradient(_a(m, x[:2]), axis=0, edge_order=2))          # too small
    _same(lambda m: m.gradient(_a(m, x), 1, 2, 3))


@pytest.mark.parametrize("dtype", _CALC_DTYPES, ids=dtype_id)
def test_trapezoid_unwrap(dtype):
    x = _grid(dtype)
    _same(lambda m: m.trapezoid(_a(m, x)))
    _same(lambda m: m.trapezoid(_a(m, x), _a(m, numpy.array([0.0, 1, 3, 4, 4.5, 7]))))
    _same(lambda m: m.trapezoid(_a(m, x), dx=0.5, axis=0))
    _same(lambda m: m.trapezoid(_a(m, x), _a(m, x).astype(float) * 0.5, axis=0))
    _same(lambda m: m.trapezoid(_a(m, x[0])))
    _same(lambda m: m.unwrap(_a(m, x)))
    _same(lambda m: m.unwrap(_a(m, x), axis=0, period=4))
    _same(lambda m: m.unwrap(_a(m, x), discont=1.0, period=6.0))
    _same(lambda m: m.unwrap(_a(m, numpy.array([0.0, 3, 6.5, 9.7, -3, 0]))))


@pytest.mark.parametrize("dtype", _CALC_DTYPES, ids=dtype_id)
@pytest.mark.parametrize("axis", [None, 0, 1])
@pytest.mark.parametrize("include_initial", [False, True])
def test_cumulative(dtype, axis, include_initial):
    x = _grid(dtype)
    for name in ("cumulative_sum", "cumulative_prod"):
        _same(lambda m: getattr(m, name)(_a(m, x), axis=axis, include_initial=include_initial))
        _same(lambda m: getattr(m, name)(_a(m, x[0]), axis=axis,
                                         include_initial=include_initial, dtype=float))
        _same(lambda m: getattr(m, name)(_a(m, x[0, 0]), include_initial=include_initial))
    _same(lambda m: m.cumulative_sum(_a(m, x), axis=1, include_initial=True,
                                     out=m.zeros((4, 7))))
    _same(lambda m: m.cumulative_sum(_a(m, x), axis=1, out=m.zeros((4, 6))))


@pytest.mark.parametrize("sa,sb", [((3,), (3,)), ((2,), (3,)), ((3,), (2,)), ((2,), (2,)),
                                   ((4, 3), (3,)), ((4, 3), (4, 2)), ((2, 1, 3), (5, 3)),
                                   ((4,), (3,)), ((), (3,))])
@pytest.mark.parametrize("dtype", [numpy.int64, numpy.float64, numpy.complex128, numpy.float32],
                         ids=dtype_id)
def test_cross(sa, sb, dtype):
    A = (numpy.arange(int(numpy.prod(sa))) % 5 - 2.0).reshape(sa).astype(dtype)
    B = (numpy.arange(int(numpy.prod(sb))) % 3 + 1.0).reshape(sb).astype(dtype)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", DeprecationWarning)
        _same(lambda m: m.cross(_a(m, A), _a(m, B)))


def test_cross_axes_and_bool():
    A = numpy.arange(24.0).reshape(3, 2, 4) % 5
    B = numpy.arange(12.0).reshape(3, 4) % 7
    _same(lambda m: m.cross(_a(m, A[:, :, :3]), _a(m, B[:, :3]), axisa=-1, axisb=1, axisc=0))
    _same(lambda m: m.cross(_a(m, A[:3]), _a(m, A[:3]), axis=0))
    _same(lambda m: m.cross(m.ones(3, bool), m.ones(3, bool)))
    _same(lambda m: m.cross(_a(m, A[:, :, :3]), _a(m, B[:, :3]), axisc=5))


_XP = numpy.array([0.0, 1.0, 1.0, 2.5, 4.0, 7.0])
_FP = numpy.array([1.0, 3.0, 4.0, -2.0, numpy.inf, 5.0])
_XS = numpy.array([-1.0, 0.0, 0.5, 1.0, 1.2, 2.5, 3.0, 4.0, 5.0, 7.0, 8.0, numpy.nan, -numpy.inf,
                   numpy.inf])


def test_interp():
    _same(lambda m: m.interp(_a(m, _XS), _a(m, _XP), _a(m, _FP)))
    _same(lambda m: m.interp(_a(m, _XS), _a(m, _XP), _a(m, _FP), left=-9, right=9))
    _same(lambda m: m.interp(_a(m, _XS), _a(m, _XP), _a(m, _FP + 1j * _FP[::-1])))
    _same(lambda m: m.interp(_a(m, _XS), _a(m, _XP), _a(m, _FP + 1j * _FP[::-1]), left=1 + 2j))
    _same(lambda m: m.interp(2.0, _a(m, _XP), _a(m, _FP)))
    _same(lambda m: m.interp([1.5, 2], [1, 2, 3], [4, 5, 6]))
    _same(lambda m: m.interp(_a(m, _XS), [1.0], [5.0]))
    _same(lambda m: m.interp(3, [1.0], [5.0]))
    k = [0, 1, 3, 4, 5]
    _same(lambda m: m.interp(_a(m, _XS[:-3]), _a(m, _XP[k]), _a(m, _FP[k]), period=3))
    _same(lambda m: m.interp(_a(m, _XS[:12].reshape(3, 4)), _a(m, _XP), _a(m, _FP)))
    n = numpy.linspace(-1, 8, 1000)
    _same(lambda m: m.interp(_a(m, n), _a(m, _XP), _a(m, numpy.sin(_XP))))


def _bits(r, e):
    """r is e bit for bit (values, NaN payloads and signed zeros alike), dtype and shape."""
    r = numpy.asarray(r)
    assert r.dtype == e.dtype and r.shape == e.shape, (r.dtype, e.dtype, r.shape, e.shape)
    assert r.tobytes() == e.tobytes(), numpy.flatnonzero(r != e)


@pytest.mark.parametrize("n", [1, 5, 1000, 5000, 70000])
@pytest.mark.parametrize("lenxp", [1, 2, 4, 5, 9, 40, 3000])
def test_interp_fast_path_bits(n, lenxp):
    """interp of contiguous float64 arrays computed in C (fastpath.c, kernels/interp.c): NumPy's
    bits for sorted tables with repeated points, NaN/inf values and queries (on points, between,
    outside, NaN, infinities), left/right given as floats and ints, an unsorted table (NumPy's
    search with its guesses), n-d queries, past INTERP_FAST_MAX (the general path); the inputs
    are left alone and the result is a new array."""
    rng = numpy.random.default_rng(n * 7 + lenxp)
    xp = numpy.sort(rng.integers(0, 2 * lenxp, lenxp).astype(float) / 3)   # repeats
    fp = rng.standard_normal(lenxp) * 1e3
    if lenxp > 4:
        fp[rng.integers(0, lenxp, 2)] = [numpy.inf, numpy.nan]
    x = rng.uniform(xp[0] - 1, xp[-1] + 1, n)
    x[rng.integers(0, n, max(n // 10, 1))] = xp[rng.integers(0, lenxp, max(n // 10, 1))]
    if n > 4:
        x[:4] = [numpy.nan, numpy.inf, -numpy.inf, -0.0]
    c = [cupynum.array(v) for v in (x, xp, fp)]
    for kw in ({}, {"left": -7.5, "right": 3}, {"left": 2}, {"right": numpy.nan}):
        _bits(cupynum.interp(*c, **kw), numpy.interp(x, xp, fp, **kw))
    if n % 5 == 0:
        _bits(cupynum.interp(c[0].reshape(5, -1), c[1], c[2]), numpy.interp(x.reshape(5, -1), xp, fp))
    # NumPy's answer for an unsorted table is its search's: the fast path's (untiled arrays)
    un = rng.permutation(lenxp)
    r = cupynum._core.interp_fast(c[0], cupynum.array(xp[un]), c[2], None, None)
    if n <= 65536 and RANKS == 1:
        _bits(r, numpy.interp(x, xp[un], fp))
    r = cupynum.interp(*c)
    r[...] = 0
    for a, e in zip(c, (x, xp, fp)):
        _bits(a, e)


def test_interp_fast_path_declines():
    """What interp_fast declines (None) -- other dtypes, strided views, 0-d queries, a complex
    table, lengths that differ, left/right of other types, non-cupynum arguments -- goes the
    general way, whose answers and errors are NumPy's."""
    x, xp, fp = numpy.linspace(-1, 8, 50), _XP, numpy.sin(_XP)
    c = [cupynum.array(v) for v in (x, xp, fp)]
    f32 = cupynum.array(x.astype(numpy.float32))
    for args in ((f32, c[1], c[2], None, None), (c[0][::2], c[1], c[2], None, None),
                 (c[0][3], c[1], c[2], None, None), (c[0], c[1], c[2][:3], None, None),
                 (c[0], c[1], c[2], numpy.float64(1), None), (c[0], c[1], c[2], None, 1j),
                 (x, c[1], c[2], None, None), (c[0], c[1], cupynum.array(fp + 1j), None, None),
                 (c[0], cupynum.zeros(0), cupynum.zeros(0), None, None)):
        assert cupynum._core.interp_fast(*args) is None
    check(cupynum.interp(f32, c[1], c[2]), numpy.interp(x.astype(numpy.float32), xp, fp))
    check(cupynum.interp(c[0][::2], c[1], c[2]), numpy.interp(x[::2], xp, fp))
    check(cupynum.interp(c[0][3], c[1], c[2]), numpy.interp(x[3], xp, fp))
    check(cupynum.interp(c[0], c[1], c[2], numpy.float64(1), 2.0), numpy.interp(x, xp, fp, numpy.float64(1), 2.0))
    _same(lambda m: m.interp(_a(m, x), _a(m, xp), _a(m, fp), left="a"))


def test_interp_errors():
    _same(lambda m: m.interp(_a(m, _XS), _a(m, _XP), _a(m, _FP[:3])))
    _same(lambda m: m.interp(_a(m, _XS), m.zeros(0), m.zeros(0)))
    _same(lambda m: m.interp(_a(m, _XS), m.zeros((2, 2)), m.zeros(4)))
    _same(lambda m: m.interp(_a(m, _XS), _a(m, _XP), _a(m, _FP), period=0))


@pytest.mark.parametrize("dtype", [numpy.int8, numpy.int64, numpy.float16, numpy.float32,
                                   numpy.float64, numpy.complex128, numpy.bool_], ids=dtype_id)
@pytest.mark.parametrize("na,nv", [(10, 3), (10, 1), (3, 10), (7, 7), (5, 2), (12, 11), (40, 35)])
@pytest.mark.parametrize("mode", ["full", "same", "valid"])
def test_convolve_correlate(dtype, na, nv, mode):
    A = ((numpy.arange(na) * 5 % 7) - 2.5).astype(dtype)
    V = ((numpy.arange(nv) * 3 % 5) - 1.25).astype(dtype)
    if dtype == numpy.complex128:
        A, V = A + 1j * A[::-1], V - 0.5j * V
    _same(lambda m: m.convolve(_a(m, A), _a(m, V), mode))
    _same(lambda m: m.correlate(_a(m, A), _a(m, V), mode))


@pytest.mark.parametrize("dtype", ["f4", "f8", "c8", "c16"])
@pytest.mark.parametrize("na", [1, 5, 11, 12, 40, 300])
def test_convolve_correlate_fast_path_bits(dtype, na):
    """convolve/correlate of float and complex vectors computed in C (fastpath.c ->
    matmul.c's cpn_kernel_correlate): NumPy's bits -- its BLAS dots over the partial overlaps,
    small_correlate's order for kernels of up to 11 elements, BLAS for longer ones (vectorised
    from 16) -- for kernels shorter and longer than the signal (the swap and the reversed
    result), every mode (names and numbers), reversed and strided views; inputs left alone.
    Under mpirun (tiled vectors) and on the device the general path answers, to rounding."""
    rng = numpy.random.default_rng(na)
    def vec(n):
        x = rng.standard_normal(n) * 10 ** rng.uniform(-3, 3, n)
        if dtype[0] == "c":
            x = x + 1j * rng.standard_normal(n)
        return x.astype(dtype)
    for nv in (1, 2, 5, 11, 12, 15, 16, 17, 33, 100, 301):
        a, v = vec(na), vec(nv)
        ca, cv = cupynum.array(a), cupynum.array(v)
        # where the fast path declines (tiled under mpirun, device-resident) the general path
        # adds the shifted products in its own order: equal to rounding
        fast = cupynum._core.correlate_fast(ca, cv, 0, True) is not None
        same = _bits if fast else (lambda r, e: check(r, e, rtol=1e-4 if dtype in ("f4", "c8") else 1e-12,
                                                       atol=1e-3 if dtype in ("f4", "c8") else 1e-9))
        for mode in ("full", "same", "valid", 0, 1, 2):
            for f in ("convolve", "correlate"):
                same(getattr(cupynum, f)(ca, cv, mode), getattr(numpy, f)(a, v, mode))
        same(cupynum.convolve(ca[::-1], cv[::2]), numpy.convolve(a[::-1], v[::2]))
        same(cupynum.correlate(ca[::2], cv[::-1], "full"), numpy.correlate(a[::2], v[::-1], "full"))
        _bits(ca, a)
        _bits(cv, v)


def test_convolve_correlate_fast_path_declines():
    """correlate_fast declines (None) integer, bool and float16 dtypes, mixed dtypes, n-d and
    empty operands, NumPy arrays and modes it does not know; those go the general way, whose
    results and errors are NumPy's."""
    a, v = numpy.arange(6.0), numpy.array([1.0, -2.0, 0.5])
    ca, cv = cupynum.array(a), cupynum.array(v)
    for args in ((cupynum.array(a.astype("i8")), cupynum.array(v.astype("i8")), 0),
                 (cupynum.array(a.astype("f2")), cupynum.array(v.astype("f2")), 0),
                 (ca, cupynum.array(v.astype("f4")), 0), (ca.reshape(2, 3), cv, 0),
                 (ca[:0], cv, 0), (a, cv, 0), (ca, cv, 3), (ca, cv, "full"), (ca, cv, True)):
        assert cupynum._core.correlate_fast(*args) is None
    for f in (lambda m: m.convolve(_a(m, a), _a(m, v.astype("f4"))),
              lambda m: m.correlate(_a(m, a.astype("i4")), _a(m, v), "same"),
              lambda m: m.convolve(_a(m, a), _a(m, v), mode="nope"),
              lambda m: m.correlate(_a(m, a), _a(m, v), mode="FULL"),
              lambda m: m.correlate(_a(m, a), _a(m, v), mode=""),
              lambda m: m.correlate(_a(m, a), _a(m, v), mode=1.5),
              lambda m: m.convolve(_a(m, a), _a(m, v), mode=3),
              lambda m: m.correlate(_a(m, a), _a(m, v[:0])),
              lambda m: m.convolve(_a(m, a[:0]), _a(m, v)),
              lambda m: m.convolve(_a(m, a.reshape(2, 3)), _a(m, v))):
        _same(f)


def test_convolve_errors():
    _same(lambda m: m.convolve(m.zeros(0), m.ones(3)))
    _same(lambda m: m.convolve(m.ones(3), m.zeros(0)))
    _same(lambda m: m.correlate(m.zeros(0), m.ones(3)))
    for mode in ("foo", "v", 3, None, 0, 1, 2):
        _same(lambda m: m.convolve(m.ones(3), m.ones(2), mode))
    _same(lambda m: m.convolve(2.0, m.ones(3)))
    _same(lambda m: m.correlate(m.ones((2, 2)), m.ones(3)))


# ---- polynomials --------------------------------------------------------------------------------

_POLYS = [[1, 2, 3], [2.5, -1, 0, 4], [0, 0, 1, 2], [3], [1j, 2], [0, 0],
          numpy.array([1, 2, 3], numpy.float32)]


@pytest.mark.parametrize("p", _POLYS, ids=str)
def test_polynomials(p):
    for x in (2.0, 3, numpy.arange(5.0) - 2, numpy.arange(4), [1, 2]):
        _same(lambda m: m.polyval(_a(m, p), _a(m, x) if isinstance(x, numpy.ndarray) else x))
    for q in ([1, 2], [0.5, 1, 2, 3, 4], [0, 0, 1]):
        _same(lambda m: m.polyadd(_a(m, p), q))
        _same(lambda m: m.polysub(p, _a(m, q)))
        _same(lambda m: m.polymul(_a(m, p), _a(m, q)))
    for n in (0, 1, 2, 5):
        _same(lambda m: m.polyder(_a(m, p), n))
        _same(lambda m: m.polyint(_a(m, p), n))
        _same(lambda m: m.polyint(_a(m, p), n, k=[3, 4, 5, 6, 7]))
        _same(lambda m: m.polyint(_a(m, p), n, k=2))


_ZEROS = [[1, 2, 3], [0.5, -1, 2], [1j, -1j], [1 + 2j, 3], numpy.array([1, 2], numpy.float32),
          numpy.array([1, 2], numpy.int8), [], [2], [[1, 2], [3, 4]], [[0, 1], [-1, 0.0]],
          [[2.0]], [[1, 2, 0], [0, 3, 1], [1, 0, 2]]]


@pytest.mark.parametrize("z", _ZEROS, ids=str)
def test_poly(z):
    # eigenvalues by LAPACK may differ from NumPy's in the last bits of a matrix's polynomial
    _same(lambda m: m.poly(_a(m, z) if len(z) else z),
          rtol=1e-12 if numpy.ndim(z) == 2 else 0.0)


_DIVISIONS = [([1, 2, 3, 4], [1, 1]), ([3.0, 2, 1], [2.0]), ([1, 0, -1], [1, -1]),
              ([1j, 2], [1, 1]), ([1, 2], [1, 2, 3]), (numpy.array([1, 2, 3], numpy.float32),
                                                      numpy.array([1, 1], numpy.float32)),
              ([5, 0, 0, 0, 1], [1, 0, 2]), ([1, 2, 3], [0, 1]), ([2.5], [0.5]),
              ([1, 3, 3, 1], [1, 1])]


@pytest.mark.parametrize("u,v", _DIVISIONS, ids=str)
def test_polydiv(u, v):
    with numpy.errstate(all="ignore"):
        _same(lambda m: m.polydiv(_a(m, u), _a(m, v)))
        _same(lambda m: m.polydiv(u, _a(m, v)))


def test_poly_errors():
    _same(lambda m: m.poly(m.ones((2, 3))))
    _same(lambda m: m.poly(m.ones((2, 2, 2))))
    _same(lambda m: m.poly(m.ones((0, 0))))
    p = numpy.poly1d([1, 2])             # poly1d is NumPy's class: its division is NumPy's
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", cupynum.FallbackWarning)
        got = cupynum.polydiv(p, [2.0])
    for g, e in zip(got, numpy.polydiv(p, [2.0])):
        assert numpy.array_equal(numpy.asarray(g.coeffs), e.coeffs)


def test_polynomial_errors():
    _same(lambda m: m.polyder([1, 2], -1))
    _same(lambda m: m.polyint([1, 2], -1))
    _same(lambda m: m.polyint([1, 2], 3, k=[1, 2]))
    _same(lambda m: m.polyval(m.array(2.0), 3.0))
    _same(lambda m: m.polymul(m.ones((2, 2)), [1, 2]))


_ELEMENTWISE = {
    "clip": lambda m, a, z: m.clip(a, -1, 1),
    "ndarray.clip": lambda m, a, z: a.clip(0, 1),
    "round": lambda m, a, z: m.round(a, 1),
    "round complex": lambda m, a, z: m.round(z, 1),
    "ndarray.round": lambda m, a, z: a.round(2),
    "around": lambda m, a, z: m.around(a),
    "fix": lambda m, a, z: m.fix(a),
    "isclose": lambda m, a, z: m.isclose(a, a * 1.0),
    "nan_to_num": lambda m, a, z: m.nan_to_num(a / 0.5),
    "nan_to_num complex": lambda m, a, z: m.nan_to_num(z),
    "angle": lambda m, a, z: m.angle(z, deg=True),
    "sinc": lambda m, a, z: m.sinc(a),
    "i0": lambda m, a, z: m.i0(a),
    "isposinf": lambda m, a, z: m.isposinf(a),
    "isneginf": lambda m, a, z: m.isneginf(a),
    "iscomplex": lambda m, a, z: m.iscomplex(z),
    "isreal": lambda m, a, z: m.isreal(z),
    "conj": lambda m, a, z: z.conj(),
}


@pytest.mark.parametrize("name", sorted(_ELEMENTWISE))
def test_each_elementwise_helper_sends_nothing(name):
    """Owner computes: on a partitioned array every element-wise helper moves no bytes."""
    n = numpy.linspace(-5, 5, 64 * max(RANKS, 1)).reshape(8 * max(RANKS, 1), 8)
    nz = n + 1j * n[::-1]
    a, z = cupynum.array(n), cupynum.array(nz)
    cupynum.sync()
    cupynum.reset_stats()
    r = _ELEMENTWISE[name](cupynum, a, z)
    cupynum.sync()
    assert cupynum.runtime_stats()["bytes_sent"] == 0
    # (i0, sinc, angle: cupynum's exp/sin/arctan2 may differ from NumPy's in the last bit)
    check(r, _ELEMENTWISE[name](numpy, n, nz), rtol=1e-15 if name in ("i0", "sinc", "angle") else 0.0)


# Every native name once, with the host copy of cupynum arrays forbidden during the call: the
# functions compute with cupynum's ops, never on gathered data.
_X = numpy.array([[1.5, -2.0, 0.0, 3.25], [numpy.nan, 4.0, -numpy.inf, 0.5], [2.0, 1.0, 7.0, -1.0]])
_NATIVE_CALLS = {
    "trace": lambda m, a: m.trace(a, 1), "packbits": lambda m, a: m.packbits(a > 0, axis=1),
    "unpackbits": lambda m, a: m.unpackbits((a > 0).astype(m.uint8), axis=0, count=-2),
    "frombuffer": lambda m, a: m.frombuffer(b"\x01\x02\x03\x04", m.uint8),
    "fromiter": lambda m, a: m.fromiter(range(5), m.float64),
    "astype": lambda m, a: m.astype(a, m.int16), "isfortran": lambda m, a: m.isfortran(a.T),
    "fromstring": lambda m, a: m.fromstring("1 2 3", sep=" "),
    "clip": lambda m, a: m.clip(a, -1, 1), "round": lambda m, a: m.round(a, 1),
    "around": lambda m, a: m.around(a, -1), "fix": lambda m, a: m.fix(a),
    "isclose": lambda m, a: m.isclose(a, a * 1.0), "allclose": lambda m, a: m.allclose(a, a),
    "array_equal": lambda m, a: m.array_equal(a, a, equal_nan=True),
    "array_equiv": lambda m, a: m.array_equiv(a, a[:1]),
    "isposinf": lambda m, a: m.isposinf(a), "isneginf": lambda m, a: m.isneginf(a),
    "iscomplexobj": lambda m, a: m.iscomplexobj(a), "isrealobj": lambda m, a: m.isrealobj(a),
    "iscomplex": lambda m, a: m.iscomplex(a), "isreal": lambda m, a: m.isreal(a),
    "asarray_chkfinite": lambda m, a: m.asarray_chkfinite(a[0]),
    "nan_to_num": lambda m, a: m.nan_to_num(a), "real_if_close": lambda m, a: m.real_if_close(a),
    "angle": lambda m, a: m.angle(a), "sinc": lambda m, a: m.sinc(a[0]),
    "i0": lambda m, a: m.i0(a[0]),
    "tri": lambda m, a: m.tri(3, 4), "tril": lambda m, a: m.tril(a), "triu": lambda m, a: m.triu(a, 1),
    "diag": lambda m, a: m.diag(a[0], 1), "diagflat": lambda m, a: m.diagflat(a[0]),
    "fill_diagonal": lambda m, a: m.fill_diagonal(a.copy(), 5.0),
    "indices": lambda m, a: m.indices((2, 3)), "meshgrid": lambda m, a: m.meshgrid(a[0], a[2]),
    "fromfunction": lambda m, a: m.fromfunction(lambda i, j: i + j, (2, 3)),
    "vander": lambda m, a: m.vander(a[2]), "geomspace": lambda m, a: m.geomspace(1, 100, 5),
    "logspace": lambda m, a: m.logspace(0, 2, 5),
    "tril_indices": lambda m, a: m.tril_indices(3), "triu_indices": lambda m, a: m.triu_indices(3),
    "tril_indices_from": lambda m, a: m.tril_indices_from(a),
    "triu_indices_from": lambda m, a: m.triu_indices_from(a),
    "diag_indices": lambda m, a: m.diag_indices(3),
    "diag_indices_from": lambda m, a: m.diag_indices_from(a[:, :3]),
    "mask_indices": lambda m, a: m.mask_indices(3, m.triu),
    "ravel_multi_index": lambda m, a: m.ravel_multi_index((m.arange(3), m.arange(3)), (3, 4)),
    "unravel_index": lambda m, a: m.unravel_index(m.arange(5), (3, 4)),
    "bartlett": lambda m, a: m.bartlett(5), "blackman": lambda m, a: m.blackman(5),
    "hamming": lambda m, a: m.hamming(5), "hanning": lambda m, a: m.hanning(5),
    "kaiser": lambda m, a: m.kaiser(5, 2.0),
    "diff": lambda m, a: m.diff(a, prepend=0), "ediff1d": lambda m, a: m.ediff1d(a, to_end=1),
    "gradient": lambda m, a: m.gradient(a[2], a[2] * 2 + m.arange(4)),
    "trapezoid": lambda m, a: m.trapezoid(a[2], a[0]), "unwrap": lambda m, a: m.unwrap(a[2]),
    "cumulative_sum": lambda m, a: m.cumulative_sum(a, axis=1, include_initial=True),
    "cumulative_prod": lambda m, a: m.cumulative_prod(a[2]),
    "cross": lambda m, a: m.cross(a[:, :3], a[::-1, :3]),
    "interp": lambda m, a: m.interp(a[0], m.arange(4.0), a[2], period=3),
    "convolve": lambda m, a: m.convolve(a[2], a[0], "same"),
    "correlate": lambda m, a: m.correlate(a[2], a[0][:2]),
    "polyval": lambda m, a: m.polyval(a[2], a[0]), "polyadd": lambda m, a: m.polyadd(a[2], a[0][:2]),
    "polysub": lambda m, a: m.polysub(a[2], a[0][:2]),
    "polymul": lambda m, a: m.polymul(a[2], a[0][:2]), "polyder": lambda m, a: m.polyder(a[2], 2),
    "polyint": lambda m, a: m.polyint(a[2], 2, k=[1, 2]),
    "poly": lambda m, a: m.poly(a[2]), "polydiv": lambda m, a: m.polydiv(a[2], a[0][:2]),
}


def test_native_calls_cover_every_name():
    from cupynum import _calculus, _construct, _helpers
    assert set(_NATIVE_CALLS) == set(_helpers.NAMES + _construct.NAMES + _calculus.NAMES)


@pytest.mark.parametrize("name", sorted(_NATIVE_CALLS))
def test_native_without_gathering(name, monkeypatch):
    from cupynum import _fallback
    a = cupynum.array(_X)
    cupynum.sync()

    def refuse(*args, **kwargs):
        raise AssertionError("an array was copied to NumPy")
    with monkeypatch.context() as mp:
        mp.setattr(cupynum.ndarray, "__array__", refuse)
        mp.setattr(_fallback, "_to_numpy", refuse)
        with numpy.errstate(all="ignore"):
            r = _NATIVE_CALLS[name](cupynum, a)
            cupynum.sync()
    assert not _fallback.is_fallback(getattr(cupynum, name))
    with numpy.errstate(all="ignore"):
        expected = _NATIVE_CALLS[name](numpy, _X.copy())
    if name == "fill_diagonal":
        return
    check(r, expected, rtol=1e-15 if name in ("sinc", "i0", "kaiser", "geomspace",
                                              "logspace") else 0.0)


# ---- numpy.astype, numpy.isfortran (native, were NumPy's) ---------------------------------------

@pytest.mark.parametrize("dtype", ["i4", "f8", "c8", "?", "u2"])
@pytest.mark.parametrize("copy", [True, False])
def test_astype_function(dtype, copy):
    n = numpy.arange(12.0).reshape(3, 4) - 5
    c = cupynum.array(n)
    r = numpy.astype(c, dtype, copy=copy)
    assert isinstance(r, cupynum.ndarray)
    check(r, numpy.astype(n, dtype, copy=copy))
    assert (r is c) == (numpy.astype(n, dtype, copy=copy) is n)
    for bad in (lambda x: numpy.astype(x, "f8", device="gpu"), lambda x: numpy.astype(x, "bogus")):
        with pytest.raises(Exception) as e_np:
            bad(n)
        with pytest.raises(type(e_np.value)) as e_cp:
            bad(c)
        assert str(e_cp.value) == str(e_np.value)


def test_isfortran_function():
    n = numpy.arange(12.0).reshape(3, 4)
    c = cupynum.array(n)
    for f in (lambda x: x, lambda x: x.T, lambda x: x[:, ::2], lambda x: x[0], lambda x: x[:, :1]):
        assert numpy.isfortran(f(c)) == numpy.isfortran(f(n))
    assert cupynum.isfortran(cupynum.asfortranarray(c)) == numpy.isfortran(numpy.asfortranarray(n))
