"""Operators and NumPy's type promotion (NEP 50): every operator over every dtype pair, with
Python scalars, in place, and mixed with NumPy arrays, compared with NumPy 2 (result dtype and
values; where NumPy raises, cupynum raises the same exception type)."""

import operator
import warnings

import numpy
import pytest

import cupynum
from conftest import ALL_DTYPES, both, check, dtype_id, sample

pytestmark = [pytest.mark.device]

# Values chosen so that no divisor is zero and no power is negative; float results are compared
# exactly too, because NumPy computes each element with one correctly-rounded IEEE operation.
LEFT = {"b": [True, False, True, True, False, False, True, False],
        "i": [0, 1, 2, 3, 5, 7, -1, -4],
        "u": [0, 1, 2, 3, 5, 7, 100, 250],
        "f": [0, 1, 2.5, 3, -5.25, 7, -1, 0.5],
        "c": [0, 1 + 1j, 2.5, 3 - 2j, -5.25, 7j, -1, 0.5]}
RIGHT = {"b": [True, True, True, True, True, True, True, True],
         "i": [1, 2, 3, -2, 4, 1, -3, 2],
         "u": [1, 2, 3, 2, 4, 1, 3, 2],
         "f": [1, 2, 0.5, -2, 4, 1.5, -3, 2],
         "c": [1, 2j, 0.5, -2 + 1j, 4, 1.5, -3j, 2]}
# Exponents and shift counts: small and non-negative.
# (0 ** 0 is left to test_zero_to_the_zero.)
SMALL = {"b": [True, False, True, True, False, True, False, True],
         "i": [1, 0, 2, 3, 2, 1, 3, 2],
         "u": [1, 0, 2, 3, 2, 1, 3, 2],
         "f": [1, 0, 2, 3, 0.5, 1, 3, 2],
         "c": [1, 0, 2, 3, 0.5, 1, 3, 2]}


def left_values(dtype):
    dtype = numpy.dtype(dtype)
    vals = LEFT[dtype.kind]
    if dtype.kind == "u" and dtype.itemsize == 1:
        vals = [v % 256 for v in vals]
    if dtype.kind == "i" and dtype.itemsize == 1:
        vals = [max(min(v, 127), -128) for v in vals]
    return numpy.array(vals, dtype=dtype)


def right_values(dtype, small=False):
    dtype = numpy.dtype(dtype)
    return numpy.array((SMALL if small else RIGHT)[dtype.kind], dtype=dtype)


BINARY = {
    "+": operator.add, "-": operator.sub, "*": operator.mul, "/": operator.truediv,
    "//": operator.floordiv, "%": operator.mod, "**": operator.pow,
    "&": operator.and_, "|": operator.or_, "^": operator.xor, "<<": operator.lshift,
    ">>": operator.rshift, "==": operator.eq, "!=": operator.ne, "<": operator.lt,
    "<=": operator.le, ">": operator.gt, ">=": operator.ge,
}
INPLACE = {
    "+=": operator.iadd, "-=": operator.isub, "*=": operator.imul, "/=": operator.itruediv,
    "//=": operator.ifloordiv, "%=": operator.imod, "**=": operator.ipow,
    "&=": operator.iand, "|=": operator.ior, "^=": operator.ixor, "<<=": operator.ilshift,
    ">>=": operator.irshift,
}
SMALL_RIGHT = {"**", "<<", ">>", "**=", "<<=", ">>="}


def _quiet():
    """Silence NumPy's floating-point warnings and ComplexWarning the same way on both sides."""
    class Q:
        def __enter__(self):
            self.e = numpy.errstate(all="ignore")
            self.w = warnings.catch_warnings()
            self.e.__enter__()
            self.w.__enter__()
            warnings.simplefilter("ignore", numpy.exceptions.ComplexWarning)
            warnings.simplefilter("ignore", RuntimeWarning)

        def __exit__(self, *a):
            self.w.__exit__(*a)
            return self.e.__exit__(*a)
    return Q()


def compare_op(fn, np_args, cp_args, rtol=0.0):
    """fn(*np_args) vs fn(*cp_args): same exception type, or the same result (type, dtype,
    values)."""
    with _quiet():
        try:
            expected = fn(*np_args)
        except Exception as e:  # noqa: BLE001  NumPy's behaviour is the oracle
            with pytest.raises(type(e)):
                fn(*cp_args)
            return
        got = fn(*cp_args)
    check(got, expected, rtol=rtol)


def _tol(op, *dtypes_or_scalars):
    """Tolerance of a table entry: exact, except complex division and every inexact power.
    NumPy's complex division (Smith's algorithm) and complex abs (hypot) are checked bitwise once,
    in test_complex_division_bitwise / test_complex_abs_bitwise, so that a last-bit difference is
    reported there instead of in hundreds of table entries; powers go through libm pow()."""
    kinds = "".join(numpy.result_type(x).kind if not isinstance(x, (bool, int, float, complex))
                    else {bool: "b", int: "i", float: "f", complex: "c"}[type(x)]
                    for x in dtypes_or_scalars)
    op = op.rstrip("=") if op not in ("==", "<=", ">=", "!=") else op
    if op == "**" and ("f" in kinds or "c" in kinds):
        return 1e-3 if numpy.float16 in [numpy.dtype(d) for d in dtypes_or_scalars
                                         if not isinstance(d, (bool, int, float, complex))] else 1e-6
    if op == "/" and "c" in kinds:
        single = all(numpy.dtype(d).itemsize <= 8 for d in dtypes_or_scalars
                     if not isinstance(d, (bool, int, float, complex)))
        return 4 * numpy.finfo(numpy.float32 if single else numpy.float64).eps
    return 0.0


# ---- array (op) array over all dtype pairs ----------------------------------------------------

@pytest.mark.parametrize("op", list(BINARY), ids=list(BINARY))
@pytest.mark.parametrize("dt2", ALL_DTYPES, ids=dtype_id)
@pytest.mark.parametrize("dt1", ALL_DTYPES, ids=dtype_id)
def test_binary_array_array(dt1, dt2, op):
    a = left_values(dt1)
    b = right_values(dt2, small=op in SMALL_RIGHT)
    compare_op(BINARY[op], (a, b), (cupynum.array(a), cupynum.array(b)), rtol=_tol(op, dt1, dt2))


# ---- array (op) Python scalar and Python scalar (op) array ----------------------------------------

PY_SCALARS = [3, -2, 1000, 2**40, 2.5, -0.5, 1e300, 1 + 2j, True, False]


def _scalar_id(v):
    return f"{type(v).__name__}({v!r})"


@pytest.mark.parametrize("op", list(BINARY), ids=list(BINARY))
@pytest.mark.parametrize("scalar", PY_SCALARS, ids=_scalar_id)
@pytest.mark.parametrize("dtype", ALL_DTYPES, ids=dtype_id)
def test_binary_array_python_scalar(dtype, scalar, op):
    if op in SMALL_RIGHT:
        if isinstance(scalar, bool):
            s = scalar
        elif isinstance(scalar, int):
            s = 2 if scalar > 0 else 0
        else:
            s = type(scalar)(2) if not isinstance(scalar, complex) else 2 + 0j
    else:
        s = scalar
    a = left_values(dtype)
    fn = BINARY[op]
    compare_op(lambda x: fn(x, s), (a,), (cupynum.array(a),), rtol=_tol(op, dtype, s))


@pytest.mark.parametrize("op", list(BINARY), ids=list(BINARY))
@pytest.mark.parametrize("scalar", PY_SCALARS, ids=_scalar_id)
@pytest.mark.parametrize("dtype", ALL_DTYPES, ids=dtype_id)
def test_binary_python_scalar_array(dtype, scalar, op):
    b = right_values(dtype, small=op in SMALL_RIGHT)
    fn = BINARY[op]
    s = scalar if op != "**" or not isinstance(scalar, (int, float)) or abs(scalar) < 100 else 3
    compare_op(lambda y: fn(s, y), (b,), (cupynum.array(b),), rtol=_tol(op, dtype, s))


@pytest.mark.parametrize("op", ["+", "-", "*", "//", "&", "==", "<"], ids=str)
@pytest.mark.parametrize("scalar", [numpy.int8(3), numpy.uint8(200), numpy.float32(1.5),
                                    numpy.float64(2.0), numpy.int64(-5), numpy.complex64(1j),
                                    numpy.bool_(True), numpy.float16(0.5)], ids=repr)
@pytest.mark.parametrize("dtype", [numpy.int8, numpy.uint16, numpy.int32, numpy.float32,
                                   numpy.float64, numpy.bool_], ids=dtype_id)
def test_binary_array_numpy_scalar(dtype, scalar, op):
    """NumPy scalars are strongly typed under NEP 50 (unlike Python scalars)."""
    a = left_values(dtype)
    fn = BINARY[op]
    compare_op(lambda x: fn(x, scalar), (a,), (cupynum.array(a),))
    compare_op(lambda x: fn(scalar, x), (a,), (cupynum.array(a),))


# ---- in-place --------------------------------------------------------------------------------------

@pytest.mark.parametrize("op", list(INPLACE), ids=list(INPLACE))
@pytest.mark.parametrize("dt2", ALL_DTYPES, ids=dtype_id)
@pytest.mark.parametrize("dt1", ALL_DTYPES, ids=dtype_id)
def test_inplace_array_array(dt1, dt2, op):
    """a op= b: same result dtype (a's), same values; where NumPy cannot cast the result back
    (UFuncTypeError) cupynum raises the same and leaves `a` unchanged."""
    a = left_values(dt1)
    b = right_values(dt2, small=op in SMALL_RIGHT)
    fn = INPLACE[op]
    na, ca = a.copy(), cupynum.array(a)
    with _quiet():
        try:
            rn = fn(na, b)
        except Exception as e:  # noqa: BLE001
            with pytest.raises(type(e)):
                fn(ca, cupynum.array(b))
            check(ca, a)  # unchanged
            return
        rc = fn(ca, cupynum.array(b))
    assert rc is ca
    assert rn is na
    check(ca, na, rtol=_tol(op, dt1, dt2))


@pytest.mark.parametrize("op", list(INPLACE), ids=list(INPLACE))
@pytest.mark.parametrize("scalar", [3, 1000, -1, 2.5, 1j, True], ids=_scalar_id)
@pytest.mark.parametrize("dtype", ALL_DTYPES, ids=dtype_id)
def test_inplace_array_python_scalar(dtype, scalar, op):
    s = scalar
    if op in SMALL_RIGHT and not isinstance(s, bool):
        s = type(s)(2) if not isinstance(s, complex) else 2 + 0j
    a = left_values(dtype)
    fn = INPLACE[op]
    na, ca = a.copy(), cupynum.array(a)
    with _quiet():
        try:
            fn(na, s)
        except Exception as e:  # noqa: BLE001
            with pytest.raises(type(e)):
                fn(ca, s)
            check(ca, a)
            return
        rc = fn(ca, s)
    assert rc is ca
    check(ca, na, rtol=_tol(op, dtype, s))


UFuncTypeError = numpy._core._exceptions.UFuncTypeError


def test_inplace_float_into_int_raises_ufunctypeerror():
    n, c = both(numpy.arange(4, dtype=numpy.int32))
    with pytest.raises(UFuncTypeError):
        n += numpy.array([0.5] * 4)
    with pytest.raises(UFuncTypeError):
        c += cupynum.array([0.5] * 4)
    with pytest.raises(TypeError):
        c += 0.5
    with pytest.raises(TypeError):
        c /= 2
    check(c, n)


def test_int8_plus_1000_overflowerror():
    n, c = both(numpy.array([1, 2, 3], dtype=numpy.int8))
    with pytest.raises(OverflowError):
        n + 1000
    with pytest.raises(OverflowError):
        c + 1000
    with pytest.raises(OverflowError):
        cupynum.array([1], dtype=numpy.uint8) + (-1)


def test_bool_subtract_and_negative_raise_typeerror():
    n, c = both(numpy.array([True, False]))
    for f in (lambda x: x - x, lambda x: -x, lambda x: x - True):
        with pytest.raises(TypeError):
            f(n)
        with pytest.raises(TypeError):
            f(c)


# ---- unary ------------------------------------------------------------------------------------------

UNARY = {"-": operator.neg, "+": operator.pos, "abs": abs, "~": operator.invert}


@pytest.mark.parametrize("op", list(UNARY), ids=list(UNARY))
@pytest.mark.parametrize("dtype", ALL_DTYPES, ids=dtype_id)
def test_unary(dtype, op):
    a = left_values(dtype)
    rtol = 4e-16 if op == "abs" and dtype.kind == "c" else 0.0  # bitwise: test_complex_abs_bitwise
    compare_op(UNARY[op], (a,), (cupynum.array(a),), rtol=rtol)


@pytest.mark.parametrize("dtype", [d for d in ALL_DTYPES if d.kind in "iu"], ids=dtype_id)
def test_unary_extremes_wrap(dtype):
    info = numpy.iinfo(dtype)
    a = numpy.array([info.min, info.max, 0, 1], dtype=dtype)
    for f in UNARY.values():
        compare_op(f, (a,), (cupynum.array(a),))


def test_unary_on_views_and_0d():
    n, c = both(numpy.arange(-6.0, 6.0).reshape(3, 4))
    check(-c[::-1, 1::2], -n[::-1, 1::2])
    check(abs(c.T), abs(n.T))
    n0, c0 = both(numpy.array(-3, dtype=numpy.int16))
    check(-c0, -n0)
    check(~c0, ~n0)
    check(abs(c0), abs(n0))


@pytest.mark.parametrize("dtype", [numpy.complex64, numpy.complex128], ids=dtype_id)
def test_complex_division_bitwise(dtype):
    """NumPy divides complex numbers with Smith's algorithm; the result is deterministic."""
    a = numpy.array([1, 2j, 3 - 2j, 7j, 2.5, -1 + 1j, 1e3 + 3j, 0.1 + 0.2j], dtype=dtype)
    b = numpy.array([3, 3, 2 + 1j, 1.5, 1 + 2j, 3 - 3j, 7 - 1j, 0.3 - 0.1j], dtype=dtype)
    compare_op(operator.truediv, (a, b), (cupynum.array(a), cupynum.array(b)))
    compare_op(lambda x: x / 3, (a,), (cupynum.array(a),))


@pytest.mark.parametrize("dtype", [numpy.complex64, numpy.complex128], ids=dtype_id)
def test_complex_abs_bitwise(dtype):
    """NumPy's complex abs is hypot(re, im)."""
    big = 1e200 if dtype == numpy.complex128 else 1e30
    a = numpy.array([3 + 4j, 3 - 2j, 1 + 1j, 0.1 + 0.2j, -7j, big + big * 1j, 5, 2.5 - 1.5j],
                    dtype=dtype)
    with _quiet():
        compare_op(abs, (a,), (cupynum.array(a),))


@pytest.mark.parametrize("dtype", ALL_DTYPES, ids=dtype_id)
def test_zero_to_the_zero(dtype):
    a = numpy.zeros(3, dtype=dtype)
    compare_op(operator.pow, (a, a), (cupynum.array(a), cupynum.array(a)))
    compare_op(lambda x: x ** 0, (a,), (cupynum.array(a),))
    compare_op(lambda x: 0 ** x, (a,), (cupynum.array(a),))


@pytest.mark.parametrize("dtype", [numpy.complex64, numpy.complex128], ids=dtype_id)
def test_complex_power_zero_exponent_is_one(dtype):
    a = numpy.array([0, 1 + 1j, 0j, 2], dtype=dtype)
    b = numpy.array([0, 0, 1, 0], dtype=dtype)
    compare_op(operator.pow, (a, b), (cupynum.array(a), cupynum.array(b)))
    compare_op(lambda x: x ** 0, (a,), (cupynum.array(a),))


def test_abs_complex_and_special_floats():
    n, c = both(numpy.array([3 + 4j, -1j, 0, numpy.nan + 1j]))
    check(abs(c), abs(n))
    n, c = both(numpy.array([-0.0, numpy.inf, -numpy.inf, numpy.nan], dtype=numpy.float32))
    check(abs(c), abs(n))
    check(-c, -n)


# ---- integer overflow wraps, special float values ------------------------------------------------

@pytest.mark.parametrize("dtype", [d for d in ALL_DTYPES if d.kind in "iu"], ids=dtype_id)
def test_integer_overflow_wraps(dtype):
    info = numpy.iinfo(dtype)
    a = numpy.array([info.max, info.min, info.max // 2 + 3, 7], dtype=dtype)
    b = numpy.array([1, 1, 3, info.max], dtype=dtype)
    for f in (operator.add, operator.sub, operator.mul, operator.lshift):
        compare_op(f, (a, b if f is not operator.lshift else numpy.array([1, 3, 2, 0], dtype=dtype)),
                   (cupynum.array(a), cupynum.array(b if f is not operator.lshift else
                                                    numpy.array([1, 3, 2, 0], dtype=dtype))))
    compare_op(lambda x: x * 3, (a,), (cupynum.array(a),))
    compare_op(lambda x: x ** 5, (a,), (cupynum.array(a),))
    compare_op(lambda x: x + x, (a,), (cupynum.array(a),))


@pytest.mark.parametrize("dtype", [numpy.int8, numpy.int16, numpy.int32, numpy.int64], ids=dtype_id)
def test_signed_floor_divide_and_remainder_signs(dtype):
    a = numpy.array([7, -7, 7, -7, 0, 1, -1, numpy.iinfo(dtype).min], dtype=dtype)
    b = numpy.array([2, 2, -2, -2, 3, -5, 5, 3], dtype=dtype)
    for f in (operator.floordiv, operator.mod):
        compare_op(f, (a, b), (cupynum.array(a), cupynum.array(b)))


INT_DTYPES = [numpy.int8, numpy.uint8, numpy.int16, numpy.uint16, numpy.int32, numpy.uint32,
              numpy.int64, numpy.uint64]


def _edges(dtype, rng, n):
    """Every boundary of dtype (MIN, MAX, 0, +-1, +-2^k +- 1) and n random values."""
    info = numpy.iinfo(dtype)
    v = {0, 1, 2, 3, 5, 7, int(info.max), int(info.max) - 1, int(info.min), int(info.min) + 1,
         int(info.max) // 3}
    for k in range(info.bits + 1):
        v |= {2**k - 1, 2**k, 2**k + 1}
    v |= {-x for x in v}
    v = numpy.array(sorted(x for x in v if info.min <= x <= info.max), dtype=dtype)
    return numpy.concatenate([v, rng.integers(info.min, info.max, size=n, dtype=dtype,
                                               endpoint=True)])


@pytest.mark.parametrize("dtype", INT_DTYPES, ids=dtype_id)
def test_integer_division_by_a_scalar(dtype):
    """floor_divide, remainder and fmod of an integer array by one divisor (the loops' multiply by
    a precomputed reciprocal; int64 by at most 2^52 in AVX-512 double lanes where dividends are
    within 2^52): NumPy's values and reports for every divisor (all of them for 8 bits against
    every dividend; boundaries, random and small ones otherwise), contiguous and strided, inside
    a fused chain, by a NumPy scalar and by a Python int."""
    rng = numpy.random.default_rng(int(numpy.iinfo(dtype).bits))
    if numpy.iinfo(dtype).bits == 8:
        a = numpy.arange(int(numpy.iinfo(dtype).min), int(numpy.iinfo(dtype).max) + 1).astype(dtype)
        divisors = a
    else:
        info = numpy.iinfo(dtype)
        small = rng.integers(max(int(info.min), -10**6), min(int(info.max), 10**6), size=2001)
        a = numpy.concatenate([_edges(dtype, rng, 3000), small.astype(dtype)])
        divisors = numpy.concatenate([_edges(dtype, rng, 12),
                                      numpy.array([2**52, 2**52 + 1, 10**9 + 7]).astype(dtype)])
    ca = cupynum.array(a)
    for b in divisors:
        for name in ("floor_divide", "remainder", "fmod"):
            with numpy.errstate(all="raise"):
                try:
                    want, err = getattr(numpy, name)(a, b), None
                except FloatingPointError as e:
                    want, err = None, str(e)
            with cupynum.errstate(all="raise"):
                try:
                    got, gerr = numpy.asarray(getattr(cupynum, name)(ca, b)), None
                except FloatingPointError as e:
                    got, gerr = None, str(e)
            assert gerr == err, (name, b)
            if want is not None:
                assert got.dtype == want.dtype and numpy.array_equal(got, want), (name, b)
        with numpy.errstate(all="ignore"):
            wq, wr = numpy.divmod(a, b)
        with cupynum.errstate(all="ignore"):
            gq, gr = cupynum.divmod(ca, b)
        check(gq, wq)
        check(gr, wr)
    b = dtype(divisors[len(divisors) // 2] or 3)
    check(ca[::-3] // b, a[::-3] // b)
    check((ca % b) + ca // b, (a % b) + a // b)
    check(ca // 7, a // 7)
    check(cupynum.fmod(ca[1::2], 7), numpy.fmod(a[1::2], 7))


@pytest.mark.parametrize("dtype", INT_DTYPES, ids=dtype_id)
def test_integer_division_by_a_scalar_warns_like_numpy(dtype):
    """By a scalar 0 (and MIN by -1): NumPy's values and its RuntimeWarnings under the default
    error state, for //, %, divmod, fmod and the in-place forms, contiguous and strided."""
    info = numpy.iinfo(dtype)
    a = numpy.array([5, 0, 7, int(info.max), int(info.min), 3, 1, 2] * 5, dtype=dtype)
    divisors = [0, 1, 2, 7] + ([-1, -2, int(info.min)] if info.min < 0 else [int(info.max)])
    calls = [lambda x, d: x // d, lambda x, d: x % d, lambda x, d: numpy.fmod(x, d),
             lambda x, d: divmod(x, d)]
    for d in divisors:
        d = dtype(d)
        for k, f in enumerate(calls):
            for view in (slice(None), slice(None, None, 3)):
                with warnings.catch_warnings(record=True) as wn:
                    warnings.simplefilter("always")
                    want = f(a[view], d)
                with warnings.catch_warnings(record=True) as wc:
                    warnings.simplefilter("always")
                    got = f(cupynum.array(a)[view], d)
                    cupynum.sync()
                assert [(w.category, str(w.message)) for w in wc] == \
                    [(w.category, str(w.message)) for w in wn], (k, d)
                if k == 3:
                    check(got[0], want[0])
                    check(got[1], want[1])
                else:
                    check(got, want)
        x, cx = a.copy(), cupynum.array(a)
        with numpy.errstate(all="ignore"):
            x //= d
        with cupynum.errstate(all="ignore"):
            cx //= d
        check(cx, x)


def test_integer_division_by_zero_is_zero_like_numpy():
    a = numpy.array([5, -5, 0, 7], dtype=numpy.int32)
    b = numpy.array([0, 0, 0, 2], dtype=numpy.int32)
    for f in (operator.floordiv, operator.mod):
        compare_op(f, (a, b), (cupynum.array(a), cupynum.array(b)))


@pytest.mark.parametrize("dtype", [numpy.float16, numpy.float32, numpy.float64], ids=dtype_id)
def test_float_special_values(dtype):
    a = numpy.array([1.0, -1.0, 0.0, -0.0, numpy.inf, -numpy.inf, numpy.nan, 5.5], dtype=dtype)
    b = numpy.array([0.0, 0.0, 0.0, 2.0, numpy.inf, 3.0, 1.0, -0.0], dtype=dtype)
    for f in (operator.add, operator.sub, operator.mul, operator.truediv, operator.floordiv,
              operator.mod, operator.eq, operator.ne, operator.lt, operator.ge):
        compare_op(f, (a, b), (cupynum.array(a), cupynum.array(b)))


# ---- broadcasting ------------------------------------------------------------------------------------

@pytest.mark.parametrize("s1,s2", [
    ((3, 4), (4,)), ((3, 1), (1, 4)), ((2, 1, 4), (3, 1)), ((), (2, 3)), ((5,), ()),
    ((0,), (1,)), ((1, 0), (3, 1)), ((2, 3, 4), (2, 3, 4)), ((1,), (6,)),
], ids=repr)
@pytest.mark.parametrize("op", ["+", "*", "<", "&"], ids=str)
def test_broadcasting(s1, s2, op):
    a = sample(s1, numpy.int32, seed=1)
    b = sample(s2, numpy.int32, seed=2)
    compare_op(BINARY[op], (a, b), (cupynum.array(a), cupynum.array(b)))


@pytest.mark.parametrize("s1,s2", [((3,), (4,)), ((2, 3), (3, 2)), ((2, 3, 4), (3, 3)),
                                   ((0,), (2,))], ids=repr)
@pytest.mark.parametrize("op", ["+", "==", "**", "/"], ids=str)
def test_broadcast_shape_errors_raise_valueerror(s1, s2, op):
    a, b = numpy.ones(s1), numpy.ones(s2)
    with pytest.raises(ValueError):
        BINARY[op](a, b)
    ca, cb = cupynum.array(a), cupynum.array(b)
    with pytest.raises(ValueError):
        BINARY[op](ca, cb)
    check(ca, a)
    check(cb, b)


def test_inplace_broadcast_errors():
    n, c = both(numpy.ones((3, 4)))
    with pytest.raises(ValueError):
        n += numpy.ones((2, 4))
    with pytest.raises(ValueError):
        c += cupynum.ones((2, 4))
    with pytest.raises(ValueError):
        n += numpy.ones((3, 3, 4))  # result would have a larger shape
    with pytest.raises(ValueError):
        c += cupynum.ones((3, 3, 4))
    check(c, n)


def test_zero_dim_results_are_numpy_scalars():
    for x, y in [(numpy.array(2), numpy.array(3)), (numpy.array(2.5), 2), (numpy.array(True), 1)]:
        cx = cupynum.array(x)
        cy = cupynum.array(y) if isinstance(y, numpy.ndarray) else y
        for f in (operator.add, operator.mul, operator.lt, operator.truediv):
            check(f(cx, cy), f(x, y))
        if x.dtype != numpy.bool_:
            check(-cx, -x)
    n, c = both(numpy.arange(6).reshape(2, 3))
    check(c[1, 2] + c[0, 1], n[1, 2] + n[0, 1])


# ---- matmul ---------------------------------------------------------------------------------------

@pytest.mark.parametrize("s1,s2", [((3,), (3,)), ((2, 3), (3,)), ((3,), (3, 4)), ((2, 3), (3, 4)),
                                   ((1, 1), (1, 1)), ((5, 7), (7, 1)), ((0, 3), (3, 2)),
                                   ((2, 0), (0, 3)), ((0,), (0,))], ids=repr)
@pytest.mark.parametrize("dt1,dt2", [(numpy.float64, numpy.float64), (numpy.int32, numpy.int32),
                                     (numpy.int64, numpy.float32), (numpy.bool_, numpy.bool_),
                                     (numpy.uint8, numpy.int8), (numpy.complex128, numpy.float64),
                                     (numpy.float32, numpy.float32), (numpy.int8, numpy.int8)],
                         ids=lambda d: numpy.dtype(d).name)
def test_matmul(s1, s2, dt1, dt2):
    a = sample(s1, dt1, seed=4, low=0 if numpy.dtype(dt1).kind == "u" else -3, high=3)
    b = sample(s2, dt2, seed=5, low=0 if numpy.dtype(dt2).kind == "u" else -3, high=3)
    kinds = numpy.dtype(dt1).kind + numpy.dtype(dt2).kind
    rtol = 1e-6 if ("f" in kinds or "c" in kinds) else 0.0
    compare_op(operator.matmul, (a, b), (cupynum.array(a), cupynum.array(b)), rtol=rtol)
    compare_op(numpy.matmul, (a, b), (cupynum.array(a), cupynum.array(b)), rtol=rtol)
    compare_op(lambda x, y: x.dot(y), (a, b), (cupynum.array(a), cupynum.array(b)), rtol=rtol)


def test_matmul_integer_overflow_wraps():
    a = numpy.full((2, 4), 100, dtype=numpy.int8)
    b = numpy.full((4, 3), 3, dtype=numpy.int8)
    compare_op(operator.matmul, (a, b), (cupynum.array(a), cupynum.array(b)))


def test_matmul_views_and_mixed():
    n, c = both(numpy.arange(30.0).reshape(5, 6))
    check(c[::2, 1:4] @ c.T[1:4, ::-1], n[::2, 1:4] @ n.T[1:4, ::-1])
    check(c @ numpy.ones(6), n @ numpy.ones(6))
    check(numpy.ones(5) @ c, numpy.ones(5) @ n)


@pytest.mark.parametrize("s1,s2", [((3,), (4,)), ((2, 3), (2, 3)), ((3,), (2, 3)), ((), (3,)),
                                   ((3, 2), ())], ids=repr)
def test_matmul_shape_errors(s1, s2):
    a, b = numpy.ones(s1), numpy.ones(s2)
    with pytest.raises(ValueError):
        a @ b
    with pytest.raises(ValueError):
        cupynum.array(a) @ cupynum.array(b)


def test_imatmul():
    n, c = both(numpy.arange(9.0).reshape(3, 3))
    m = numpy.arange(9.0).reshape(3, 3)[::-1]
    n @= m
    c @= cupynum.array(m)
    check(c, n)
    with pytest.raises(ValueError):
        n @= numpy.ones((3, 2))
    with pytest.raises(ValueError):
        c @= cupynum.ones((3, 2))
    check(c, n)


# ---- NumPy and cupynum operands together -------------------------------------------------------

@pytest.mark.parametrize("op", ["+", "-", "*", "/", "//", "**", "&", "<", "=="], ids=str)
@pytest.mark.parametrize("dt1,dt2", [(numpy.float64, numpy.float64), (numpy.int32, numpy.float32),
                                     (numpy.uint8, numpy.int8), (numpy.int64, numpy.int64),
                                     (numpy.bool_, numpy.int16)], ids=lambda d: numpy.dtype(d).name)
def test_mixed_numpy_cupynum_operands(op, dt1, dt2):
    a = left_values(dt1)
    b = right_values(dt2, small=op in SMALL_RIGHT)
    fn = BINARY[op]
    # cupynum (op) numpy and numpy (op) cupynum: a cupynum array with NumPy's values.
    compare_op(fn, (a, b), (cupynum.array(a), b))
    compare_op(fn, (a, b), (a, cupynum.array(b)))


def test_numpy_functions_on_cupynum_arrays_return_cupynum():
    n, c = both(numpy.arange(1.0, 7.0).reshape(2, 3))
    check(numpy.add(c, c), numpy.add(n, n))
    check(numpy.add(c, n), numpy.add(n, n))
    check(numpy.sqrt(c), numpy.sqrt(n))
    check(numpy.multiply(c, 2), numpy.multiply(n, 2))
    check(numpy.sum(c), numpy.sum(n))
    check(numpy.sum(c, axis=0), numpy.sum(n, axis=0))
    check(numpy.negative(c), numpy.negative(n))
    check(numpy.maximum(c, 3.5), numpy.maximum(n, 3.5))
    check(numpy.less(c, 3), numpy.less(n, 3))
    check(numpy.exp(c), numpy.exp(n), rtol=1e-14)


def test_numpy_ufunc_with_out_cupynum():
    n, c = both(numpy.arange(6.0))
    on, oc = numpy.zeros(6), cupynum.zeros(6)
    rn = numpy.add(n, 1, out=on)
    rc = numpy.add(c, 1, out=oc)
    assert rc is oc and rn is on
    check(oc, on)
    rc2 = cupynum.multiply(c, c, out=oc)
    numpy.multiply(n, n, out=on)
    assert rc2 is oc
    check(oc, on)


@pytest.mark.parametrize("name", ["add", "subtract", "multiply", "divide", "floor_divide",
                                  "remainder", "power", "maximum", "minimum", "bitwise_and",
                                  "bitwise_or", "bitwise_xor", "left_shift", "right_shift",
                                  "equal", "not_equal", "less", "less_equal", "greater",
                                  "greater_equal"])
@pytest.mark.parametrize("dtype", [numpy.int16, numpy.uint32, numpy.float32, numpy.float64,
                                   numpy.bool_, numpy.complex64], ids=dtype_id)
def test_cupynum_binary_ufunc_functions(name, dtype):
    a = left_values(dtype)
    b = right_values(dtype, small=name in ("power", "left_shift", "right_shift"))
    fc, fn = getattr(cupynum, name), getattr(numpy, name)
    rtol = _tol({"power": "**", "divide": "/"}.get(name, name), dtype)
    with _quiet():
        try:
            expected = fn(a, b)
        except Exception as e:  # noqa: BLE001
            with pytest.raises(type(e)):
                fc(cupynum.array(a), cupynum.array(b))
            return
        got = fc(cupynum.array(a), cupynum.array(b))
        check(got, expected, rtol=rtol)
        check(fc(cupynum.array(a), b[0].item()), fn(a, b[0].item()), rtol=rtol)


@pytest.mark.parametrize("name", ["negative", "positive", "absolute", "invert", "square", "sqrt",
                                  "exp", "log", "sin", "cos", "tanh", "floor", "ceil"])
@pytest.mark.parametrize("dtype", [numpy.int8, numpy.uint16, numpy.int64, numpy.float16,
                                   numpy.float32, numpy.float64, numpy.bool_, numpy.complex128],
                         ids=dtype_id)
def test_cupynum_unary_ufunc_functions(name, dtype):
    a = numpy.abs(left_values(dtype)) if dtype != numpy.bool_ else left_values(dtype)
    if numpy.dtype(dtype).kind in "iu":
        a = a.astype(dtype)
    fc, fn = getattr(cupynum, name), getattr(numpy, name)
    transcendental = name in ("exp", "log", "sin", "cos", "tanh", "sqrt")
    rtol = {"e": 1e-3, "f": 1e-6, "d": 1e-14, "D": 1e-14}.get(
        numpy.result_type(dtype, numpy.float16).char, 1e-14) if transcendental else 0.0
    with _quiet():
        try:
            expected = fn(a)
        except Exception as e:  # noqa: BLE001
            with pytest.raises(type(e)):
                fc(cupynum.array(a))
            return
        got = fc(cupynum.array(a))
    check(got, expected, rtol=rtol)


# ---- strided, reversed and broadcast operands of mixed dtypes ------------------------------------

MIXED_PAIRS = [(numpy.int8, numpy.uint8), (numpy.int16, numpy.float32), (numpy.uint32, numpy.int64),
               (numpy.float16, numpy.float64), (numpy.bool_, numpy.int32),
               (numpy.uint64, numpy.int64), (numpy.complex64, numpy.float64),
               (numpy.float32, numpy.complex128), (numpy.int64, numpy.uint8)]


@pytest.mark.parametrize("op", ["+", "-", "*", "/", "//", "%", "**", "&", "<<", ">=", "=="], ids=str)
@pytest.mark.parametrize("dt1,dt2", MIXED_PAIRS, ids=lambda d: numpy.dtype(d).name)
def test_binary_on_strided_views_mixed_dtypes(op, dt1, dt2):
    base1 = numpy.resize(left_values(dt1), (6, 8))
    base2 = numpy.resize(right_values(dt2, small=op in SMALL_RIGHT), (8, 6)).T.copy()
    fn = BINARY[op]
    views = [
        (lambda a: a[::2, 1::3], lambda b: b[1::2, ::3]),
        (lambda a: a[::-1, ::-2], lambda b: b[:, 1::2]),
        (lambda a: a.T[1:5], lambda b: b.T[:4]),
        (lambda a: a[:, None, 2], lambda b: b[None, 0, :]),
        (lambda a: a[3], lambda b: b[:, ::-1]),
    ]
    c1, c2 = cupynum.array(base1), cupynum.array(base2)
    for v1, v2 in views:
        compare_op(fn, (v1(base1), v2(base2)), (v1(c1), v2(c2)), rtol=_tol(op, dt1, dt2))


@pytest.mark.parametrize("op", ["+=", "-=", "*=", "//=", "&=", "<<="], ids=str)
@pytest.mark.parametrize("dt1,dt2", [(numpy.int32, numpy.int8), (numpy.float32, numpy.float64),
                                     (numpy.int64, numpy.uint32), (numpy.uint8, numpy.uint16),
                                     (numpy.complex64, numpy.float16)],
                         ids=lambda d: numpy.dtype(d).name)
def test_inplace_on_strided_views_mixed_dtypes(op, dt1, dt2):
    """Same-kind in-place ops into a view: NumPy casts the result back into the view's dtype."""
    base = numpy.resize(left_values(dt1), (6, 8))
    other = numpy.resize(right_values(dt2, small=op in SMALL_RIGHT), (3, 4))
    fn = INPLACE[op]
    n, c = base.copy(), cupynum.array(base)
    with _quiet():
        try:
            fn(n[::2, 1::2], other)
        except Exception as e:  # noqa: BLE001
            with pytest.raises(type(e)):
                fn(c[::2, 1::2], cupynum.array(other))
            check(c, base)
            return
        fn(c[::2, 1::2], cupynum.array(other))
        fn(n[::-2, :4], other[0])
        fn(c[::-2, :4], cupynum.array(other[0]))
    check(c, n)


@pytest.mark.parametrize("other", [None, "x", object()], ids=["None", "str", "object"])
@pytest.mark.parametrize("op", ["==", "!="], ids=str)
def test_equality_with_non_numeric_objects_is_elementwise(op, other):
    """NumPy compares element by element (all False for ==, all True for !=)."""
    a = left_values(numpy.int32)
    compare_op(lambda x: BINARY[op](x, other), (a,), (cupynum.array(a),))
    compare_op(lambda x: BINARY[op](other, x), (a,), (cupynum.array(a),))


@pytest.mark.parametrize("other", [None, "x"], ids=["None", "str"])
@pytest.mark.parametrize("op", ["<", "+", "*"], ids=str)
def test_ordering_and_arithmetic_with_non_numeric_objects_raise(op, other):
    """NumPy raises a TypeError subclass (no ufunc loop); cupynum raises TypeError."""
    a = left_values(numpy.float64)
    with pytest.raises(TypeError):
        BINARY[op](a, other)
    with pytest.raises(TypeError):
        BINARY[op](cupynum.array(a), other)


@pytest.mark.parametrize("name,nargs", [("absolute", 1), ("negative", 1), ("sqrt", 1),
                                        ("add", 2), ("subtract", 2)])
def test_positional_out(name, nargs):
    """NumPy takes a ufunc's outputs positionally after its inputs."""
    n, c = both(numpy.linspace(0.5, 3.0, 6))
    on, oc = both(numpy.zeros(6))
    rn = getattr(numpy, name)(*([n] * nargs), on)
    rc = getattr(cupynum, name)(*([c] * nargs), oc)
    assert rn is on and rc is oc
    check(oc, on)
    with pytest.raises(TypeError):
        getattr(cupynum, name)(*([c] * nargs), oc, out=oc)
    if nargs == 2:
        with pytest.raises(TypeError):
            getattr(cupynum, name)(c)


# A new result's layout is NumPy's order='K' (its iterator's axis order): the operands' memory
# order where they agree, else C order.  Values, strides and contiguity flags against NumPy's, for
# permuted, reversed, sliced and broadcast operands, and the views and copies made from them.
# (Results with an extent-1 dimension, and operands laid out in different orders where NumPy's
# sort stops between them, keep C order: a known difference in strides, not values.)
K_ORDER_CASES = [
    ("moveaxis", lambda m, a, b: m.maximum(m.moveaxis(a, 3, 1), 0.0)),
    ("transpose", lambda m, a, b: a.T * 2),
    ("transpose+transpose", lambda m, a, b: a.T + b.T),
    ("mixed orders", lambda m, a, b: a.transpose(0, 2, 1, 3) + b.reshape(2, 4, 3, 5)),
    ("C and transposed", lambda m, a, b: m.ones((5, 4, 3, 2)) + a.T),
    ("reversed", lambda m, a, b: m.square(a[:, ::-1].transpose(2, 0, 3, 1))),
    ("slice", lambda m, a, b: m.negative(a[:, 1:, :, ::2].transpose(0, 2, 3, 1))),
    ("broadcast row", lambda m, a, b: a.transpose(0, 2, 3, 1) - a[:1].transpose(0, 2, 3, 1)),
    ("one-element operand", lambda m, a, b: a.T / a[0, 0, 0, 1:2]),
    ("two outputs", lambda m, a, b: m.divmod(a.T, 3.0)[1]),
    ("comparison", lambda m, a, b: a.transpose(1, 0, 3, 2) > 0.5),
    ("2-d", lambda m, a, b: m.add(a[0, 0].T, a[1, 1].T)),
]


@pytest.mark.parametrize("name,f", K_ORDER_CASES, ids=[c[0] for c in K_ORDER_CASES])
def test_new_results_laid_out_as_numpy_k_order(name, f):
    na, a = both(numpy.linspace(-2, 3, 2 * 3 * 4 * 5).reshape(2, 3, 4, 5))
    nb, b = both(numpy.linspace(1, 2, 2 * 3 * 4 * 5).reshape(2, 3, 4, 5))
    want, got = f(numpy, na, nb), f(cupynum, a, b)
    assert got.shape == want.shape and got.dtype == want.dtype
    assert got.strides == want.strides, name
    assert got.flags.c_contiguous == want.flags.c_contiguous
    assert got.flags.f_contiguous == want.flags.f_contiguous
    check(got, want)
    # What is made from the result follows: reshape (a copy where NumPy copies) and writes.
    r, nr = got.reshape(-1), want.reshape(-1)
    check(r, nr)
    got[(0,) * got.ndim] = 7
    want[(0,) * want.ndim] = 7
    check(got, want)
    check(r, nr)


def test_k_order_not_applied_with_out_or_where():
    na, a = both(numpy.linspace(-2, 3, 24).reshape(2, 3, 4))
    nout, out = numpy.zeros((4, 3, 2)), cupynum.zeros((4, 3, 2))
    numpy.add(na.T, 1, out=nout)
    cupynum.add(a.T, 1, out=out)
    assert out.strides == nout.strides
    check(out, nout)
