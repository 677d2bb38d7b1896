"""Array creation, attributes, conversions, repr/str: every result compared with NumPy's."""

import operator
import warnings

import numpy
import pytest

import cupynum
from conftest import ALL_DTYPES, SHAPES, both, check, dtype_id, same_outcome, sample, shape_id

DTYPES = pytest.mark.parametrize("dtype", ALL_DTYPES, ids=dtype_id)
SHAPE_P = pytest.mark.parametrize("shape", SHAPES, ids=shape_id)


# ---- dtypes and scalar types are NumPy's ------------------------------------------------------

@pytest.mark.parametrize("name", ["bool_", "int8", "int16", "int32", "int64", "uint8", "uint16",
                                  "uint32", "uint64", "float16", "float32", "float64",
                                  "complex64", "complex128", "intp", "dtype", "pi", "e", "inf",
                                  "newaxis", "bool"])
def test_numpy_objects_are_reexported(name):
    assert getattr(cupynum, name) is getattr(numpy, name)


def test_float64_is_numpy_float64():
    assert cupynum.float64 is numpy.float64
    assert cupynum.dtype("float32") == numpy.dtype("float32")


# ---- array / asarray / asanyarray / ascontiguousarray / copy ---------------------------------

CONVERTERS = ["array", "asarray", "asanyarray", "ascontiguousarray", "copy"]


@pytest.mark.parametrize("func", CONVERTERS)
@DTYPES
@SHAPE_P
def test_array_from_numpy(func, dtype, shape):
    n = sample(shape, dtype)
    check(getattr(cupynum, func)(n), getattr(numpy, func)(n))


@pytest.mark.parametrize("func", CONVERTERS)
@DTYPES
@SHAPE_P
def test_array_from_cupynum(func, dtype, shape):
    n, c = both(sample(shape, dtype))
    check(getattr(cupynum, func)(c), getattr(numpy, func)(n))


@pytest.mark.parametrize("func", ["array", "asarray"])
@DTYPES
@SHAPE_P
def test_array_from_nested_lists(func, dtype, shape):
    lst = sample(shape, dtype).tolist()
    check(getattr(cupynum, func)(lst), getattr(numpy, func)(lst))
    check(getattr(cupynum, func)(lst, dtype=dtype), getattr(numpy, func)(lst, dtype=dtype))


@pytest.mark.parametrize("obj", [
    0, 1, -3, 2**40, 2**63, True, False, 1.5, -0.0, 1 + 2j, [], [1, 2, 3], [1, 2.5], [1, 2j],
    [True, 2], [[1, 2], [3, 4]], (1, 2, 3), [[True, False]], [[]], [2**63, 1],
    numpy.float32(3.5), numpy.int8(-4), numpy.uint16(7),
], ids=repr)
@pytest.mark.parametrize("func", ["array", "asarray"])
def test_array_python_objects(func, obj):
    check(getattr(cupynum, func)(obj), getattr(numpy, func)(obj))


@DTYPES
@pytest.mark.parametrize("target", ALL_DTYPES, ids=dtype_id)
def test_array_dtype_conversion(dtype, target):
    n = sample((2, 3), dtype, low=0, high=5)
    with numpy.errstate(all="ignore"), _nowarn_ctx():
        expected = numpy.array(n, dtype=target)
        got = cupynum.array(cupynum.array(n), dtype=target)
    check(got, expected)


class _nowarn_ctx:
    """Swallow ComplexWarning on both sides (cast complex -> real)."""

    def __enter__(self):
        import warnings
        self._c = warnings.catch_warnings()
        self._c.__enter__()
        warnings.simplefilter("ignore", numpy.exceptions.ComplexWarning)

    def __exit__(self, *exc):
        return self._c.__exit__(*exc)


@pytest.mark.parametrize("ndmin", [0, 1, 2, 4])
def test_array_ndmin(ndmin):
    check(cupynum.array([1, 2, 3], ndmin=ndmin), numpy.array([1, 2, 3], ndmin=ndmin))
    check(cupynum.array(5.0, ndmin=ndmin), numpy.array(5.0, ndmin=ndmin))


def test_array_copies_and_asarray_does_not():
    n, c = both(numpy.arange(6.0))
    cc = cupynum.array(c)
    ca = cupynum.asarray(c)
    c[0] = 100.0
    nc = numpy.array(n)
    na = numpy.asarray(n)
    n[0] = 100.0
    check(cc, nc)
    check(ca, na)
    assert ca is c


def test_ascontiguousarray_scalar_is_1d():
    check(cupynum.ascontiguousarray(5), numpy.ascontiguousarray(5))
    check(cupynum.ascontiguousarray(cupynum.array(5.0)), numpy.ascontiguousarray(numpy.array(5.0)))


def test_copy_function_and_method_are_independent():
    n, c = both(sample((3, 4), numpy.int32))
    cc, cm = cupynum.copy(c), c.copy()
    nc, nm = numpy.copy(n), n.copy()
    c[1, :] = -7
    n[1, :] = -7
    check(cc, nc)
    check(cm, nm)
    check(c, n)


def test_copy_of_noncontiguous_view():
    n, c = both(sample((6, 5), numpy.float64))
    check(c[::2, ::-1].copy(), n[::2, ::-1].copy())
    check(cupynum.copy(c.T), numpy.copy(n.T))


BITS = {1: numpy.uint8, 2: numpy.uint16, 4: numpy.uint32, 8: numpy.uint64}


def _bits(x):
    """x's bytes per element as unsigned integers (a NaN's payload and -0.0 included)."""
    x = numpy.ascontiguousarray(x)
    if x.dtype.itemsize == 16:
        return x.view(numpy.uint64)
    return x.view(BITS[x.dtype.itemsize])


@pytest.mark.parametrize("dtype", ["bool", "int8", "int16", "float16", "float32", "int32", "float64",
                                   "int64", "complex64", "complex128"])
@pytest.mark.parametrize("shape", [(4, 4), (5, 3), (8, 8), (9, 17), (31, 33), (64, 40), (316, 316),
                                   (3, 2, 70)], ids=repr)
def test_transposed_copies_keep_the_bits(dtype, shape):
    """Copies whose source is transposed relative to the destination (cast.c's tiled transpose:
    register blocks of 4 x 4 or 8 x 8 and single elements at the edges): A.T.copy(),
    ascontiguousarray(A.T), asfortranarray(A), copy(A, order='F'), of whole arrays and of strided,
    reversed and offset views; the bytes of every element (NaN payloads, -0.0) are NumPy's, and
    the result's layout flags too."""
    rng = numpy.random.default_rng(sum(shape))
    n = rng.integers(0, 256, size=numpy.prod(shape) * numpy.dtype(dtype).itemsize,
                     dtype=numpy.uint8).view(dtype).reshape(shape)
    if dtype == "bool":
        n = n.view(numpy.uint8) % 2 == 1
    c = cupynum.array(n)
    views = [(n, c), (n[1:, ::-1], c[1:, ::-1]), (n[..., ::2, 1:], c[..., ::2, 1:])]
    for nv, cv in views:
        for f in (lambda x, xp: x.T.copy(), lambda x, xp: xp.ascontiguousarray(x.T),
                  lambda x, xp: xp.asfortranarray(x), lambda x, xp: xp.array(x.T, order="C"),
                  lambda x, xp: xp.copy(x, order="F")):
            want, got = f(nv, numpy), f(cv, cupynum)
            assert got.shape == want.shape and got.dtype == want.dtype
            assert got.flags.c_contiguous == want.flags.c_contiguous
            assert got.flags.f_contiguous == want.flags.f_contiguous
            assert numpy.array_equal(_bits(numpy.asarray(got)), _bits(want))


@pytest.mark.parametrize("dtype", ["bool", "int8", "float16", "int32", "float32", "float64",
                                   "complex128"])
@pytest.mark.parametrize("shape", [(16, 16), (17, 40), (40, 17), (5, 300), (316, 316), (3, 1100)],
                         ids=repr)
def test_elementwise_with_transposed_operands(dtype, shape):
    """Element-wise ops whose operand is transposed relative to the output (the element driver
    stages blocks of its rows through cast.c's transpose first): A.T + B, multiply(A.T, B, out=C),
    a reversed transposed operand, a mixed-dtype pair, into C- and F-ordered outputs; NumPy's
    values, and its division warnings from inside the staged loop."""
    rng = numpy.random.default_rng(shape[0] * 1000 + shape[1])
    a = rng.integers(-50, 50, size=shape[::-1]).astype(dtype)
    b = rng.integers(-50, 50, size=shape).astype(dtype)
    ca, cb = cupynum.array(a), cupynum.array(b)
    check(ca.T + cb, a.T + b)
    if dtype != "bool":
        check(cb - ca.T, b - a.T)
    check(ca.T[::-1, ::-1] * cb, a.T[::-1, ::-1] * b)
    if dtype != "complex128":
        check(ca.T + cb.astype("int16"), a.T + b.astype("int16"))
    for order in "CF":
        out, cout = numpy.empty(shape, dtype, order=order), cupynum.empty(shape, dtype, order=order)
        numpy.multiply(a.T, b, out=out)
        cupynum.multiply(ca.T, cb, out=cout)
        check(cout, out)
    if dtype in ("float32", "float64"):
        with warnings.catch_warnings(record=True) as wn:
            warnings.simplefilter("always")
            want = a.T / (b * 0)
        with warnings.catch_warnings(record=True) as wc:
            warnings.simplefilter("always")
            got = ca.T / (cb * 0)
            cupynum.sync()
        check(got, want)
        assert sorted(str(w.message) for w in wc) == sorted(str(w.message) for w in wn)


# ---- zeros / ones / empty / full / *_like ------------------------------------------------------

@DTYPES
@pytest.mark.parametrize("shape", [(), (0,), 5, (5,), (2, 3), (2, 0, 3), (1, 1, 1, 2)], ids=repr)
def test_zeros_ones_full(dtype, shape):
    check(cupynum.zeros(shape, dtype=dtype), numpy.zeros(shape, dtype=dtype))
    check(cupynum.ones(shape, dtype=dtype), numpy.ones(shape, dtype=dtype))
    check(cupynum.full(shape, 3, dtype=dtype), numpy.full(shape, 3, dtype=dtype))


@DTYPES
@pytest.mark.parametrize("shape", [(), 4, (2, 3), (0, 2)], ids=repr)
def test_empty_shape_and_dtype(dtype, shape):
    c, n = cupynum.empty(shape, dtype=dtype), numpy.empty(shape, dtype=dtype)
    assert isinstance(c, cupynum.ndarray)
    assert c.dtype == n.dtype and c.shape == n.shape and c.ndim == n.ndim and c.size == n.size


def _dirty_the_allocator(n, dtype):
    """Allocate, fill and free arrays of the same size so that freed buffers hold non-zero data."""
    junk = [cupynum.arange(n).astype(dtype) * 7 + 3 for _ in range(4)]
    for j in junk:
        numpy.asarray(j)
    del junk


ZEROS_FIRST_USE = [
    ("a += 1", lambda a: a.__iadd__(1)),
    ("a[:] = a + 1", lambda a: a.__setitem__(slice(None), a + 1)),
    ("a[1:] += 1", lambda a: a[1:].__iadd__(1)),
    ("a[::2] = 5", lambda a: a.__setitem__(slice(None, None, 2), 5)),
    ("a *= 2", lambda a: a.__imul__(2)),
    ("read", lambda a: None),
]


@pytest.mark.parametrize("desc,first_use", ZEROS_FIRST_USE, ids=[d for d, _ in ZEROS_FIRST_USE])
@pytest.mark.parametrize("dtype", [numpy.float64, numpy.int32, numpy.uint8], ids=dtype_id)
@pytest.mark.parametrize("n", [10, 100_000])
def test_zeros_are_zero_after_freed_arrays(desc, first_use, dtype, n):
    """zeros() must read as zeros whatever its buffer held before, also when the first op on it
    is an in-place update or a partial write."""
    _dirty_the_allocator(n, dtype)
    c = cupynum.zeros(n, dtype=dtype)
    z = numpy.zeros(n, dtype=dtype)
    first_use(c)
    first_use(z)
    check(c, z)
    _dirty_the_allocator(n, dtype)
    c2 = cupynum.zeros_like(cupynum.empty(n, dtype=dtype))
    first_use(c2)
    check(c2, z)


def test_default_dtypes():
    check(cupynum.zeros(3), numpy.zeros(3))
    check(cupynum.ones((2, 2)), numpy.ones((2, 2)))
    assert cupynum.empty(3).dtype == numpy.empty(3).dtype


@pytest.mark.parametrize("fill", [0, 7, -2, 2.5, True, 1 + 1j, numpy.float32(1.25),
                                  numpy.int16(9), numpy.nan, numpy.inf])
def test_full_infers_dtype(fill):
    check(cupynum.full((2, 3), fill), numpy.full((2, 3), fill))


def test_full_array_fill_value_broadcasts():
    n = numpy.full((3, 4), numpy.arange(4))
    check(cupynum.full((3, 4), cupynum.arange(4)), n)
    check(cupynum.full((3, 4), numpy.arange(4)), n)


@DTYPES
@pytest.mark.parametrize("shape", [(), (3,), (2, 3)], ids=shape_id)
def test_like_functions(dtype, shape):
    n, c = both(sample(shape, dtype))
    check(cupynum.zeros_like(c), numpy.zeros_like(n))
    check(cupynum.ones_like(c), numpy.ones_like(n))
    check(cupynum.full_like(c, 1), numpy.full_like(n, 1))
    e = cupynum.empty_like(c)
    assert isinstance(e, cupynum.ndarray) and e.shape == n.shape and e.dtype == n.dtype
    # dtype= and shape= overrides
    check(cupynum.zeros_like(c, dtype=numpy.int16), numpy.zeros_like(n, dtype=numpy.int16))
    check(cupynum.ones_like(c, shape=(4, 1)), numpy.ones_like(n, shape=(4, 1)))
    check(cupynum.full_like(c, 2, dtype=numpy.float32), numpy.full_like(n, 2, dtype=numpy.float32))


def test_like_functions_of_lists_and_numpy():
    lst = [[1, 2, 3], [4, 5, 6]]
    check(cupynum.zeros_like(lst), numpy.zeros_like(lst))
    check(cupynum.ones_like(numpy.array(lst, dtype=numpy.uint8)),
          numpy.ones_like(numpy.array(lst, dtype=numpy.uint8)))


@pytest.mark.parametrize("dtype", [numpy.int8, numpy.int32, numpy.uint8, numpy.float32], ids=dtype_id)
def test_full_like_truncates_to_dtype(dtype):
    n, c = both(numpy.zeros(4, dtype=dtype))
    check(cupynum.full_like(c, 3.75), numpy.full_like(n, 3.75))


# ---- arange -----------------------------------------------------------------------------------

@pytest.mark.parametrize("args", [
    (10,), (0,), (-3,), (3, 10), (10, 3), (3, 10, 2), (10, 3, -2), (10, -10, -3), (-5, 5),
    (0, 1, 0.1), (0.0, 1.0, 0.1), (1, 2, 0.3), (-1.5, 2.25, 0.25), (5, 0, -0.7), (0.5,),
    (10.5,), (1e-3, 1e-2, 1e-3), (0, 10, 3), (2**40, 2**40 + 5), (0, 5, 1.0), (3.0,),
    (True, 5), (0, 1, 1 / 3), (-10, 10, 0.1),
], ids=repr)
def test_arange(args):
    """Bitwise identical to NumPy (values computed as start + i*step like NumPy)."""
    check(cupynum.arange(*args), numpy.arange(*args))


@pytest.mark.parametrize("dtype", [d for d in ALL_DTYPES if d.kind in "iuf"], ids=dtype_id)
def test_arange_dtype(dtype):
    check(cupynum.arange(0, 20, 3, dtype=dtype), numpy.arange(0, 20, 3, dtype=dtype))
    check(cupynum.arange(5, dtype=dtype), numpy.arange(5, dtype=dtype))


def test_arange_keywords_and_step_zero():
    check(cupynum.arange(start=2, stop=9, step=2), numpy.arange(start=2, stop=9, step=2))
    with pytest.raises(ZeroDivisionError):
        numpy.arange(0, 10, 0)
    with pytest.raises(ZeroDivisionError):
        cupynum.arange(0, 10, 0)


def test_arange_numpy_float32_scalars():
    args = (numpy.float32(0), numpy.float32(1), numpy.float32(0.25))
    check(cupynum.arange(*args), numpy.arange(*args))


# ---- linspace -----------------------------------------------------------------------------------

@pytest.mark.parametrize("start,stop,num", [
    (0, 1, 11), (0, 1, 50), (-3.5, 7.25, 17), (10, 0, 9), (0, 1, 1), (0, 1, 0), (0, 1, 2),
    (1, 1, 5), (0, 1e-300, 4), (-1, 1, 1000), (0, 100, 7),
], ids=repr)
@pytest.mark.parametrize("endpoint", [True, False])
def test_linspace(start, stop, num, endpoint):
    with numpy.errstate(all="ignore"):
        check(cupynum.linspace(start, stop, num, endpoint=endpoint),
              numpy.linspace(start, stop, num, endpoint=endpoint))


@pytest.mark.parametrize("num", [1, 2, 5, 10])
@pytest.mark.parametrize("endpoint", [True, False])
def test_linspace_retstep(num, endpoint):
    c, cs = cupynum.linspace(2.0, 3.0, num, endpoint=endpoint, retstep=True)
    n, ns = numpy.linspace(2.0, 3.0, num, endpoint=endpoint, retstep=True)
    check(c, n)
    check(cs, ns)


@pytest.mark.parametrize("dtype", [numpy.int64, numpy.int32, numpy.int8, numpy.uint8,
                                   numpy.float32, numpy.float16, numpy.complex128], ids=dtype_id)
def test_linspace_dtype(dtype):
    check(cupynum.linspace(0, 10, 7, dtype=dtype), numpy.linspace(0, 10, 7, dtype=dtype))
    check(cupynum.linspace(-5, 5, 6, dtype=dtype) if numpy.dtype(dtype).kind != "u" else
          cupynum.linspace(5, 50, 6, dtype=dtype),
          numpy.linspace(-5, 5, 6, dtype=dtype) if numpy.dtype(dtype).kind != "u" else
          numpy.linspace(5, 50, 6, dtype=dtype))


def test_linspace_negative_num_raises():
    with pytest.raises(ValueError):
        numpy.linspace(0, 1, -1)
    with pytest.raises(ValueError):
        cupynum.linspace(0, 1, -1)


@pytest.mark.parametrize("dtype", [numpy.float64, numpy.float32, numpy.int64, numpy.int16],
                         ids=dtype_id)
@pytest.mark.parametrize("start, stop, step", [(0, 70001, 1), (3.5, -7e4, -0.7), (0.1, 2e5, 3.3),
                                               (2**53 - 5000, 2**53 + 5000, 1),
                                               (-2, 2**24 + 9, 1.0)], ids=str)
def test_arange_bits_alone_fused_and_from_an_offset(dtype, start, stop, step):
    """arange's fill (element 0 and 1 given, the rest start + i * delta, four at a time from a
    double counter below 2^53) gives NumPy's bits: materialised, regenerated block by block inside
    a fused op, and read from an offset (a block starting past 0 and not at a multiple of 4)."""
    if numpy.dtype(dtype).kind == "i" and (abs(start) > 2**31 or step != int(step)):
        start, stop, step = int(start) % 1000, int(start) % 1000 + 50001, 3
    want = numpy.arange(start, stop, step, dtype=dtype)
    got = cupynum.arange(start, stop, step, dtype=dtype)
    assert numpy.asarray(got).tobytes() == want.tobytes()
    check(cupynum.arange(start, stop, step, dtype=dtype) * 1, want * 1)
    check(cupynum.arange(start, stop, step, dtype=dtype)[4099:] + 0, want[4099:] + 0)
    check(cupynum.arange(start, stop, step, dtype=dtype)[1::3] * 2, want[1::3] * 2)


# ---- eye / identity -----------------------------------------------------------------------------

@pytest.mark.parametrize("N,M,k", [
    (1, None, 0), (3, None, 0), (4, None, 1), (4, None, -1), (4, None, 3), (4, None, -3),
    (4, None, 4), (4, None, -4), (4, None, 10), (3, 5, 0), (5, 3, 0), (3, 5, 2), (5, 3, -2),
    (3, 5, -1), (5, 3, 1), (0, None, 0), (2, 0, 0), (6, 2, -5), (2, 6, 5),
], ids=repr)
def test_eye(N, M, k):
    check(cupynum.eye(N, M, k), numpy.eye(N, M, k))


def test_eye_and_diag_argument_forms():
    """eye with Python ints takes its short path (the array made directly), other arguments
    zeros' (NumPy integers, dtype names and types, order F, a NumPy integer k); errors
    (negative sizes, float sizes, bad order) and diag of vectors of each dtype as NumPy's."""
    for args, kw in [((4,), {}), ((numpy.int64(4),), {}), ((3, numpy.int32(5)), {}),
                     ((4, 3, numpy.int64(-1)), {}), ((4,), {"dtype": "i4"}), ((4,), {"dtype": bool}),
                     ((4,), {"dtype": numpy.complex64}), ((3, 2), {"order": "F"}), ((3, 4, 1), {"dtype": None}),
                     ((0, 3), {}), ((3, 0, -1), {})]:
        check(cupynum.eye(*args, **kw), numpy.eye(*args, **kw))
    for args, kw in [((-1,), {}), ((3, -2), {}), ((2.0,), {}), ((3,), {"order": "X"}), ((3,), {"k": 1.5})]:
        same_outcome(lambda m: m.eye(*args, **kw), numpy, cupynum)
    for dt in ("i1", "f4", "c16", "?"):
        for k in (0, 2, -3):
            v = sample((5,), numpy.dtype(dt), seed=2)
            check(cupynum.diag(cupynum.array(v), k), numpy.diag(v, k))
    check(cupynum.diag(cupynum.zeros(0), 1), numpy.diag(numpy.zeros(0), 1))


@DTYPES
def test_eye_identity_dtype(dtype):
    check(cupynum.eye(4, 3, -1, dtype=dtype), numpy.eye(4, 3, -1, dtype=dtype))
    check(cupynum.identity(3, dtype=dtype), numpy.identity(3, dtype=dtype))


@pytest.mark.parametrize("k", [-300, -7, -1, 0, 1, 100, 256, 257])
def test_eye_and_diag_large(k):
    """Arrays large enough to be tiled on several ranks (the element-wise mask) and untiled on
    one (the strided slice of the flat view, as NumPy writes them): NumPy's values, and results
    that later writes change alone."""
    check(cupynum.eye(300, 257, k), numpy.eye(300, 257, k))
    check(cupynum.eye(257, 300, k, dtype=numpy.int32), numpy.eye(257, 300, k, dtype=numpy.int32))
    v = numpy.arange(1.0, 401.0)
    check(cupynum.diag(cupynum.array(v), k), numpy.diag(v, k))
    e, en = cupynum.eye(300, k=k), numpy.eye(300, k=k)
    d, dn = cupynum.diag(cupynum.array(v[:300])), numpy.diag(v[:300])
    e[5] += d[5]
    en[5] += dn[5]
    check(e, en)
    check(d, dn)


def test_identity_default():
    check(cupynum.identity(5), numpy.identity(5))
    check(cupynum.identity(0), numpy.identity(0))


# ---- attributes -------------------------------------------------------------------------------------

@DTYPES
@SHAPE_P
def test_attributes(dtype, shape):
    n, c = both(sample(shape, dtype))
    assert c.shape == n.shape and type(c.shape) is tuple
    assert c.dtype == n.dtype and isinstance(c.dtype, numpy.dtype)
    assert c.ndim == n.ndim
    assert c.size == n.size
    assert c.itemsize == n.itemsize
    assert c.nbytes == n.nbytes
    check(c.T, n.T)
    with _nowarn_ctx():
        check(c.real, n.real)
        check(c.imag, n.imag)
    if n.ndim:
        assert len(c) == len(n)
    else:
        with pytest.raises(TypeError):
            len(n)
        with pytest.raises(TypeError):
            len(c)


@DTYPES
def test_iteration(dtype):
    n, c = both(sample((3, 4), dtype))
    rows_c, rows_n = list(iter(c)), list(iter(n))
    assert len(rows_c) == len(rows_n)
    for rc, rn in zip(rows_c, rows_n):
        check(rc, rn)
    n1, c1 = both(sample((5,), dtype))
    for ec, en in zip(c1, n1):
        check(ec, en)
    with pytest.raises(TypeError):
        iter(numpy.array(1.0))
    with pytest.raises(TypeError):
        iter(cupynum.array(1.0))


@DTYPES
@SHAPE_P
def test_dunder_array(dtype, shape):
    n, c = both(sample(shape, dtype))
    a = c.__array__()
    assert type(a) is numpy.ndarray
    numpy.testing.assert_array_equal(a, n, strict=True)
    a2 = numpy.asarray(c)
    assert type(a2) is numpy.ndarray
    numpy.testing.assert_array_equal(a2, n, strict=True)
    a3 = numpy.asarray(c, dtype=numpy.complex128)
    numpy.testing.assert_array_equal(a3, numpy.asarray(n, dtype=numpy.complex128), strict=True)


@DTYPES
@SHAPE_P
def test_tolist(dtype, shape):
    n, c = both(sample(shape, dtype))
    lc, ln = c.tolist(), n.tolist()
    assert lc == ln
    flat_c = numpy.array(lc, dtype=object).ravel().tolist() if n.ndim else [lc]
    flat_n = numpy.array(ln, dtype=object).ravel().tolist() if n.ndim else [ln]
    assert [type(x) for x in flat_c] == [type(x) for x in flat_n]


@DTYPES
def test_item(dtype):
    n, c = both(sample((2, 3), dtype))
    for args in [(0,), (5,), (-1,), (1, 2), ((0, 1),)]:
        ic, inn = c.item(*args), n.item(*args)
        assert type(ic) is type(inn) and ic == inn
    n1, c1 = both(sample((1, 1), dtype))
    assert c1.item() == n1.item() and type(c1.item()) is type(n1.item())
    with pytest.raises(ValueError, match="can only convert an array of size 1"):
        n.item()
    with pytest.raises(ValueError, match="can only convert an array of size 1"):
        c.item()
    with pytest.raises(IndexError):
        n.item(6)
    with pytest.raises(IndexError):
        c.item(6)


def _py_same(got, expected):
    assert type(got) is type(expected) and got == expected, (got, expected)


@DTYPES
@pytest.mark.parametrize("shape", [(), (1,), (1, 1)], ids=shape_id)
@pytest.mark.parametrize("conv", [float, int, bool, complex, operator.index],
                         ids=lambda f: f.__name__)
def test_python_scalar_conversions_of_size1(dtype, shape, conv):
    """float/int/bool/complex/index of size-1 arrays: NumPy's value, or NumPy's exception."""
    n, c = both(sample(shape, dtype, seed=3))
    with _nowarn_ctx():
        same_outcome(conv, n, c, compare=_py_same)


@pytest.mark.parametrize("dtype", [d for d in ALL_DTYPES if d.kind in "iub"], ids=dtype_id)
def test_array_as_list_index(dtype):
    n, c = both(numpy.array(3, dtype=dtype) if dtype.kind != "b" else numpy.array(True))
    lst = [10, 20, 30, 40, 50]
    same_outcome(lambda a: lst[a], n, c, compare=_py_same)


def test_index_of_non_integer_raises_typeerror():
    for src in (numpy.array(1.0), numpy.array([1])):
        n, c = both(src)
        with pytest.raises(TypeError):
            n.__index__()
        with pytest.raises(TypeError):
            c.__index__()


@pytest.mark.parametrize("conv", [float, int, bool], ids=lambda f: f.__name__)
def test_truth_of_larger_array_raises(conv):
    n, c = both(numpy.arange(3.0))
    with pytest.raises(Exception) as en:
        conv(n)
    with pytest.raises(type(en.value)) as ec:
        conv(c)
    assert str(ec.value) == str(en.value)


def test_bool_of_size1_and_empty():
    assert bool(cupynum.array([0])) is False and bool(cupynum.array([[3]])) is True
    with pytest.raises(ValueError) as en:
        bool(numpy.array([]))
    with pytest.raises(ValueError) as ec:
        bool(cupynum.array([]))
    assert str(ec.value) == str(en.value)


@DTYPES
@pytest.mark.parametrize("target", ALL_DTYPES, ids=dtype_id)
def test_astype(dtype, target):
    n, c = both(sample((2, 5), dtype, low=-3, high=100) if dtype.kind != "u"
                else sample((2, 5), dtype, high=100))
    with numpy.errstate(all="ignore"), _nowarn_ctx():
        expected = n.astype(target)
        got = c.astype(target)
    check(got, expected)


@pytest.mark.parametrize("dtype", [numpy.int64, numpy.uint64], ids=dtype_id)
def test_wide_integers_to_float64_round_as_numpy(dtype):
    # 64-bit integers beyond 2**53 round to float64 (the AVX-512 DQ loop where the CPU has it,
    # 8 at a time, the scalar tail): ties, extremes, odd lengths and offsets, strided views; and
    # the mean of an int64 array, which casts its blocks so
    info = numpy.iinfo(dtype)
    edge = [info.max, info.min, 2**53 + 1, 2**53 + 3, 2**62 + 2**9, 2**62 + 2**9 + 1, 2**63 - 2**10,
            0, 1, 7]
    if dtype == numpy.int64:
        edge += [-(2**53 + 1), -(2**62 + 2**9), -(2**63 - 2**10)]
    rng = numpy.random.default_rng(3)
    src = numpy.concatenate([numpy.array(edge, dtype=dtype),
                             rng.integers(info.min, info.max, size=1001, dtype=dtype, endpoint=True)])
    n, c = both(src)
    for sl in (slice(None), slice(1, None), slice(3, -2), slice(None, None, 3)):
        check(c[sl].astype(numpy.float64), n[sl].astype(numpy.float64))
    small = numpy.arange(-500, 1503, dtype=numpy.int64) * 7
    ns, cs = both(small if dtype == numpy.int64 else small.astype(dtype) + 4000)
    assert float(cs.mean()) == ns.mean()


def test_astype_negative_float_to_unsigned_and_special_values():
    src = numpy.array([0.0, 1.9, -1.9, 127.5, 255.0, 3.99])
    n, c = both(src)
    for t in (numpy.int8, numpy.int32, numpy.int64, numpy.uint8, numpy.bool_, numpy.float16):
        with numpy.errstate(all="ignore"):
            check(c.astype(t), n.astype(t))


def test_astype_copy_semantics():
    n, c = both(numpy.arange(4, dtype=numpy.int32))
    same_c = c.astype(numpy.int32, copy=False)
    same_n = n.astype(numpy.int32, copy=False)
    copy_c = c.astype(numpy.int32)
    copy_n = n.astype(numpy.int32)
    c[0] = 9
    n[0] = 9
    check(same_c, same_n)
    check(copy_c, copy_n)


def test_astype_casting_rule():
    n, c = both(numpy.arange(3.0))
    with pytest.raises(TypeError):
        n.astype(numpy.int32, casting="safe")
    with pytest.raises(TypeError):
        c.astype(numpy.int32, casting="safe")
    check(c.astype(numpy.complex128, casting="safe"), n.astype(numpy.complex128, casting="safe"))


@DTYPES
def test_fill(dtype):
    n, c = both(sample((3, 4), dtype))
    for v in (0, 1, True, 5):
        n.fill(v)
        c.fill(v)
        check(c, n)
    if dtype.kind in "fc":
        n.fill(2.5)
        c.fill(2.5)
        check(c, n)


def test_fill_view_writes_base():
    n, c = both(numpy.zeros((4, 5)))
    n[1::2, ::3].fill(7.0)
    c[1::2, ::3].fill(7.0)
    check(c, n)


def test_fill_float_into_int_truncates():
    n, c = both(numpy.zeros(3, dtype=numpy.int16))
    n.fill(3.9)
    c.fill(3.9)
    check(c, n)


# ---- repr and str -----------------------------------------------------------------------------------

REPR_CASES = [
    numpy.array(5), numpy.array(-2.5), numpy.array(True), numpy.array(1 + 2j),
    numpy.array([], dtype=numpy.float64), numpy.array([], dtype=numpy.int32),
    numpy.zeros((0, 3)), numpy.zeros((2, 0), dtype=numpy.int8),
    numpy.arange(10), numpy.arange(12).reshape(3, 4), numpy.arange(24).reshape(2, 3, 4),
    numpy.arange(10, dtype=numpy.uint8), numpy.arange(5, dtype=numpy.int16) - 2,
    numpy.linspace(0, 1, 7), numpy.linspace(-1e6, 1e6, 5), numpy.array([1e-10, 1.0, 1e10]),
    numpy.array([0.1, 0.25, 1.0 / 3]), numpy.array([numpy.nan, numpy.inf, -numpy.inf, 0.0]),
    numpy.array([1.5, 2.5], dtype=numpy.float32), numpy.array([1.5, 2.5], dtype=numpy.float16),
    numpy.array([1 + 2j, -3.5j]), numpy.array([1 + 2j], dtype=numpy.complex64),
    numpy.array([True, False, True]), numpy.array([[True], [False]]),
    numpy.arange(2000), numpy.arange(2000.0).reshape(40, 50), numpy.arange(1001) * 0.5,
    numpy.arange(3000, dtype=numpy.int8), numpy.arange(1200).reshape(2, 600),
    numpy.array([2**62, -(2**62)]), numpy.array([2**64 - 1], dtype=numpy.uint64),
    numpy.ones((1, 1, 1)), numpy.array([[1.0, -0.0], [123456.789, 1e-5]]),
]


@pytest.mark.parametrize("n", REPR_CASES, ids=lambda a: f"{a.dtype}{a.shape}")
def test_repr_and_str(n):
    c = cupynum.array(n)
    assert repr(c) == repr(n)
    assert str(c) == str(n)


@DTYPES
@pytest.mark.parametrize("shape", [(), (0,), (5,), (2, 3), (1001,), (3, 400), (2, 2, 300)],
                         ids=shape_id)
def test_repr_every_dtype(dtype, shape):
    n = sample(shape, dtype, seed=7)
    if dtype.kind in "fc":
        n = numpy.asarray(n / 3)  # many digits
    n = n.astype(dtype)
    c = cupynum.array(n)
    assert repr(c) == repr(n)
    assert str(c) == str(n)


@pytest.mark.parametrize("n", [numpy.arange(12.0).reshape(3, 4), numpy.arange(5)],
                         ids=lambda a: f"{a.dtype}{a.shape}")
def test_repr_of_views(n):
    c = cupynum.array(n)
    for key in [(slice(None, None, -1),), (slice(1, None, 2),)]:
        assert repr(c[key]) == repr(n[key])
    assert repr(c.T) == repr(n.T)
    assert str(c.T) == str(n.T)


def test_repr_of_computed_array():
    n, c = both(numpy.arange(6.0).reshape(2, 3))
    assert repr(c * 0.1 + 1) == repr(n * 0.1 + 1)
    assert str(c / 3) == str(n / 3)


@pytest.mark.parametrize("opts", [dict(precision=3), dict(threshold=5), dict(suppress=True),
                                  dict(linewidth=30), dict(edgeitems=1, threshold=3)], ids=repr)
def test_repr_follows_numpy_printoptions(opts):
    for n in (numpy.linspace(0, 1, 9), numpy.arange(40).reshape(4, 10), numpy.array([1e-8, 1.0])):
        c = cupynum.array(n)
        with numpy.printoptions(**opts):
            assert repr(c) == repr(n)
            assert str(c) == str(n)


def test_format_of_scalar_array():
    n, c = both(numpy.array(3.14159))
    assert f"{c:.2f}" == f"{n:.2f}"
    assert format(c) == format(n)
