"""The device paths of numpy.errstate, numpy.where, integer power and integer matmul.

Every case runs with NumPy and with cupynum and compares results, warnings and exceptions.  On
the GPU the kernels classify each element (csrc/kernels/fpclass.h) into device report words; on
the simulated device (CUPYNUM_DEVICE=sim) the CPU loops' flags travel through the same words
(csrc/runtime/devfpe.h), so the executor's path (tokens, reading after the flush or at once under
'raise') is tested without a GPU.  On the CPU backend the tests skip.
"""
import warnings

import numpy
import pytest

import cupynum

INFO = cupynum.runtime_info()
on_device = pytest.mark.skipif(INFO["backend"] not in ("cuda", "sim"),
                               reason="no CUDA device (CUPYNUM_DEVICE=sim runs these on the simulated device)")
pytestmark = [on_device, pytest.mark.device, pytest.mark.mpi_device, pytest.mark.gpu]


def _record(fn, lib, **state):
    """fn(lib) under errstate(**state): (result as NumPy or None, [(category, message)], exception)."""
    with warnings.catch_warnings(record=True) as w:
        warnings.simplefilter("always")
        exc = None
        res = None
        with lib.errstate(**state):
            try:
                r = fn(lib)
                res = numpy.asarray(r.tolist() if hasattr(r, "tolist") else r)
            except (FloatingPointError, ValueError) as e:
                exc = (type(e), str(e).split(": ")[-1])
    return res, [(x.category, str(x.message)) for x in w], exc


def _same(fn, **state):
    got = _record(fn, cupynum, **state)
    want = _record(fn, numpy, **state)
    assert got[1] == want[1]
    assert got[2] == want[2]
    if want[0] is not None:   # transcendentals: within a few ulp of NumPy's (vmath.c, CUDA libm)
        if want[0].dtype.kind == "f":
            numpy.testing.assert_allclose(got[0], want[0], rtol=1e-6, atol=0)
        else:
            numpy.testing.assert_array_equal(got[0], want[0])


def _arr(lib, values, dtype):
    with numpy.errstate(all="ignore"):
        return lib.array(numpy.array(values, dtype=dtype))


SPECIAL = [0.0, -0.0, 1.0, -1.0, 2.0, 1e300, -1e300, numpy.inf, -numpy.inf, numpy.nan, 1e-300, 0.5]

# (name, a, b or None): each reports something in NumPy (or, last, nothing).
CASES = [
    ("divide", SPECIAL, SPECIAL[::-1]),
    ("floor_divide", SPECIAL, SPECIAL[::-1]),
    ("remainder", SPECIAL, SPECIAL[::-1]),
    ("multiply", SPECIAL, SPECIAL[::-1]),
    ("add", SPECIAL, SPECIAL[::-1]),
    ("subtract", SPECIAL, SPECIAL),
    ("power", SPECIAL, SPECIAL[::-1]),
    ("log", SPECIAL, None),
    ("log1p", SPECIAL, None),
    ("arctanh", SPECIAL, None),
    ("sqrt", SPECIAL, None),
    ("exp", SPECIAL, None),
    ("reciprocal", SPECIAL, None),
    # not logaddexp: the host's vector loop (vmath.c) misses NumPy's 'invalid' at a NaN input,
    # which the simulated device inherits (the GPU's fpclass.h reports it, as NumPy does)
    ("maximum", SPECIAL, SPECIAL[::-1]),
]


def _modes(mode):
    """Every category but underflow, which the GPU does not report (fpclass.h)."""
    return dict(divide=mode, over=mode, invalid=mode, under="ignore")


def _call(name, a, b, dtype):
    def fn(lib):
        x = _arr(lib, a, dtype)
        if b is None:
            return getattr(lib, name)(x)
        return getattr(lib, name)(x, _arr(lib, b, dtype))
    return fn


@pytest.mark.parametrize("dtype", ["float64", "float32"])
@pytest.mark.parametrize("case", CASES, ids=[c[0] for c in CASES])
@pytest.mark.parametrize("mode", ["warn", "raise", "ignore"])
def test_errstate_single_ops(case, dtype, mode):
    name, a, b = case
    _same(_call(name, a, b, dtype), **_modes(mode))


@pytest.mark.parametrize("mode", ["warn", "raise"])
def test_errstate_casts_and_integer_division(mode):
    _same(lambda lib: _arr(lib, [1e300, 1.0, -1e300], "float64").astype("float32"), **_modes(mode))
    _same(lambda lib: _arr(lib, [numpy.nan, 1.0, numpy.inf], "float64").astype("int64") * 0, **_modes(mode))
    _same(lambda lib: _arr(lib, [1, 2, 3], "int32") // _arr(lib, [0, 1, 0], "int32"), **_modes(mode))
    _same(lambda lib: _arr(lib, [-(2 ** 31), 3], "int32") // _arr(lib, [-1, 1], "int32"), **_modes(mode))


@pytest.mark.parametrize("src", ["float64", "float32"])
@pytest.mark.parametrize("dst", ["int8", "uint8", "int16", "uint16", "int32", "uint32", "int64", "uint64", "bool"])
def test_float_to_integer_cast_values(src, dst):
    """Casts of NaN, infinities and out-of-range values warn as NumPy's do; values in the target's
    range convert as NumPy's do (the device's own conversions saturate; the generated casts follow
    the CPU's).  The values NumPy gives outside the range depend on its loop (a SIMD body and a
    scalar tail differ), so they are not compared."""
    vals = [numpy.nan, numpy.inf, -numpy.inf, 1e20, -1e20, 2e19, 9.3e18, -9.3e18, 4294967296.0 * 2,
            300.0, -300.0, -1.0, -5.5, 0.0, 7.9, 65535.5, 2147483648.0, -2147483649.0, 100.5, -100.5]
    _same(lambda lib: _arr(lib, vals, src).astype(dst) * 0, **_modes("warn"))   # the warnings
    with numpy.errstate(all="ignore"):
        x = numpy.array(vals, dtype=src)
        if dst == "bool":
            ok = numpy.ones(len(vals), bool)
        else:
            info = numpy.iinfo(dst)
            ok = numpy.isfinite(x) & (numpy.trunc(x) >= info.min) & (numpy.trunc(x) <= info.max)
        got = cupynum.array(x).astype(dst).tolist()
        want = x.astype(dst)
    numpy.testing.assert_array_equal(numpy.asarray(got)[ok], want[ok])


@pytest.mark.parametrize("mode", ["warn", "raise"])
def test_errstate_fused_chain(mode):
    """Several watched ops in one flush (a fused run): each op's report, in op order."""
    def fn(lib):
        x = _arr(lib, [1.0, 0.0, 1e300, -1.0], "float64")
        y = x * x          # overflow
        z = y / x          # divide by zero, invalid (0/0, inf/inf)
        w = lib.sqrt(x)    # invalid
        return z + w
    _same(fn, **_modes(mode))
    _same(fn, divide="warn", over="ignore", invalid="raise")
    _same(fn, divide="raise", over="warn", invalid="warn")


def test_errstate_many_watched_ops_in_one_flush():
    """More watched device ops than one flush's report words: the findings are collected early
    and still reported per op."""
    def fn(lib):
        x = _arr(lib, [1.0, 2.0], "float64")
        for i in range(5000):
            x = x * 1.0 if i % 1000 != 999 else x / 0.0
        return x
    _same(fn, **_modes("warn"))


# ---- numpy.where ----------------------------------------------------------------------------------

WHERE_DTYPES = ["bool", "int8", "uint16", "int32", "int64", "uint64", "float32", "float64"]


@pytest.mark.parametrize("dtype", WHERE_DTYPES)
def test_where_parity(dtype):
    rng = numpy.random.default_rng(7)
    c = rng.random((5, 7)) > 0.4
    x = (rng.random((5, 7)) * 100).astype(dtype)
    y = (rng.random((1, 7)) * 100).astype(dtype)
    got = cupynum.where(cupynum.array(c), cupynum.array(x), cupynum.array(y))
    numpy.testing.assert_array_equal(got, numpy.where(c, x, y))
    got = cupynum.where(cupynum.array(c), cupynum.array(x), 3)
    numpy.testing.assert_array_equal(got, numpy.where(c, x, 3))
    got = cupynum.where(cupynum.array(c)[:, ::2], 1, cupynum.array(x)[:, ::2])
    numpy.testing.assert_array_equal(got, numpy.where(c[:, ::2], 1, x[:, ::2]))
    got = cupynum.where(True, cupynum.array(x), cupynum.array(y))
    numpy.testing.assert_array_equal(got, numpy.where(True, x, y))


def test_where_in_fused_expressions():
    rng = numpy.random.default_rng(3)
    a = rng.standard_normal(1000)
    b = rng.standard_normal(1000)

    def fn(lib):
        x, y = lib.array(a), lib.array(b)
        return lib.where(x > y, x * 2.0 + 1.0, y - x) * 3.0

    numpy.testing.assert_array_equal(fn(cupynum), fn(numpy))


# ---- integer power --------------------------------------------------------------------------------

@pytest.mark.parametrize("dtype", ["int8", "int16", "int32", "int64", "uint8", "uint32", "uint64"])
def test_integer_power_parity(dtype):
    rng = numpy.random.default_rng(5)
    a = rng.integers(0, 20, 100).astype(dtype)
    b = rng.integers(0, 9, 100).astype(dtype)
    numpy.testing.assert_array_equal(cupynum.array(a) ** cupynum.array(b), a ** b)   # wraps
    numpy.testing.assert_array_equal(cupynum.array(a) ** 3, a ** numpy.array(3, dtype=dtype))


@pytest.mark.parametrize("dtype", ["int8", "int32", "int64"])
def test_integer_power_negative_exponent(dtype):
    def arrays(lib):
        return _arr(lib, [2, 3, 4], dtype) ** _arr(lib, [1, -1, 2], dtype)

    def scalar(lib):
        return _arr(lib, [2, 3, 4], dtype) ** -1
    _same(arrays)
    _same(scalar)

    def in_place(lib):   # fails before writing anything, as NumPy's loop at its first element
        x = _arr(lib, [2, 3, 4], dtype)
        try:
            x **= -1
            return x.tolist(), None
        except ValueError as e:
            return x.tolist(), str(e).split(": ")[-1]
    (gx, gm), (wx, wm) = in_place(cupynum), in_place(numpy)
    assert gm == wm
    numpy.testing.assert_array_equal(gx, wx)

    # the failure poisons only the failed result: later ops work
    x = cupynum.array(numpy.array([2, 3], dtype=dtype))
    with pytest.raises(ValueError):
        (x ** -2).tolist()
    numpy.testing.assert_array_equal(x + 1, numpy.array([3, 4], dtype=dtype))


# ---- integer matmul -------------------------------------------------------------------------------

@pytest.mark.parametrize("dtype", ["int8", "uint8", "int32", "int64", "uint64", "bool"])
def test_integer_matmul_parity(dtype):
    rng = numpy.random.default_rng(11)
    for m, k, n in [(1, 1, 1), (3, 5, 2), (17, 33, 9), (64, 70, 65)]:
        a = rng.integers(0, 100, (m, k)).astype(dtype)
        b = rng.integers(0, 100, (k, n)).astype(dtype)
        numpy.testing.assert_array_equal(cupynum.array(a) @ cupynum.array(b), a @ b)   # wraps
        numpy.testing.assert_array_equal(cupynum.array(a.T.copy()).T @ cupynum.array(b), a @ b)


# ---- reductions and scans (CUB on the GPU: cuda/reduce.cu classifies rows and scan steps) -------

def _big(dtype):
    return 1e308 if dtype == "float64" else 3e38


def _fp_matrices(dtype):
    """Matrices whose reductions and scans report the same in any order of combination (the
    GPU's CUB order is not NumPy's; reduce.cu's rules are exact for such data)."""
    big, inf, nan = _big(dtype), numpy.inf, numpy.nan
    return {
        # overflow: same-signed big values overflow in any order; no cancellation between bigs
        # along axis 1 or in the columns
        "over": [[big, big, big, 1.0], [1.0, 2.0, 3.0, 4.0], [-big, -big, 1.0, 2.0]],
        # invalid: inf + -inf, 0 * inf, with no NaN anywhere
        "invalid": [[inf, -inf, 1.0, 2.0], [0.0, inf, 1.0, 1.0], [1.0, 2.0, 3.0, 4.0]],
        # NaN (and infinities of one sign): nothing
        "nan": [[nan, 1.0, inf, 2.0], [3.0, nan, 4.0, inf], [1.0, 2.0, 3.0, 4.0]],
    }


RED_FUNCS = [
    ("sum1", lambda lib, x: lib.sum(x, axis=1)),
    ("prod1", lambda lib, x: lib.prod(x, axis=1)),
    ("sum0", lambda lib, x: lib.sum(x, axis=0)),
    ("prod0", lambda lib, x: lib.prod(x, axis=0)),
    ("sum0_keepdims", lambda lib, x: x.sum(axis=0, keepdims=True)),
    ("sum_t", lambda lib, x: lib.sum(x.T, axis=1)),
    ("cumsum1", lambda lib, x: lib.cumsum(x, axis=1)),
    ("cumprod1", lambda lib, x: lib.cumprod(x, axis=1)),
    ("cumsum0", lambda lib, x: lib.cumsum(x, axis=0)),
    ("accumulate0", lambda lib, x: lib.multiply.accumulate(x, axis=0)),
    ("max1", lambda lib, x: lib.max(x, axis=1)),   # NumPy's maximum reports nothing
]


@pytest.mark.parametrize("dtype", ["float64", "float32"])
@pytest.mark.parametrize("data", ["over", "invalid", "nan"])
@pytest.mark.parametrize("func", RED_FUNCS, ids=[f[0] for f in RED_FUNCS])
@pytest.mark.parametrize("mode", ["warn", "raise", "ignore"])
def test_errstate_reductions_and_scans(func, data, dtype, mode):
    """Reductions along axes ("... encountered in reduce") and scans ("... in accumulate") report
    as NumPy's under every mode."""
    m = _fp_matrices(dtype)[data]
    _same(lambda lib: func[1](lib, _arr(lib, m, dtype)), **_modes(mode))


@pytest.mark.parametrize("dtype", ["float64", "float32"])
def test_errstate_whole_reductions_and_mixed_modes(dtype):
    big, inf = _big(dtype), numpy.inf
    over = [[big, big, 1.0, 2.0], [1.0, 2.0, 3.0, 4.0]]
    invalid = [[inf, -inf, 1.0, 2.0], [0.0, inf, 1.0, 1.0]]
    for m in (over, invalid):
        _same(lambda lib: _arr(lib, m, dtype).sum(), **_modes("warn"))
        _same(lambda lib: _arr(lib, m, dtype).prod(), **_modes("warn"))
        _same(lambda lib: lib.cumsum(_arr(lib, m, dtype)), **_modes("warn"))
        _same(lambda lib: lib.sum(_arr(lib, m, dtype), axis=1), over="raise", invalid="warn", divide="warn",
              under="ignore")
        _same(lambda lib: lib.cumprod(_arr(lib, m, dtype), axis=1), over="warn", invalid="raise", divide="warn",
              under="ignore")
    # a 3-d reduction over two axes
    cube = numpy.ones((3, 4, 5))
    cube[1, 2, :] = big
    _same(lambda lib: lib.sum(_arr(lib, cube, dtype), axis=(0, 2)), **_modes("warn"))
    _same(lambda lib: lib.prod(_arr(lib, cube, dtype), axis=(1, 2)), **_modes("raise"))


@pytest.mark.parametrize("mode", ["warn", "raise"])
def test_errstate_reduction_starts_and_accumulator_casts(mode):
    """initial= joins a row's values; a float64 -> float32 accumulator overflows in the cast."""
    big = _big("float64")
    _same(lambda lib: lib.sum(_arr(lib, [[big, 1.0], [1.0, 2.0]], "float64"), axis=1, initial=big), **_modes(mode))
    _same(lambda lib: lib.sum(_arr(lib, [[-numpy.inf, 1.0], [1.0, 2.0]], "float64"), axis=1, initial=numpy.inf),
          **_modes(mode))
    _same(lambda lib: lib.prod(_arr(lib, [[numpy.inf, 1.0], [1.0, 2.0]], "float64"), axis=1, initial=0.0),
          **_modes(mode))
    _same(lambda lib: lib.sum(_arr(lib, [[1e300, 1.0], [1.0, 2.0]], "float64"), axis=1, dtype="float32"),
          **_modes(mode))
    _same(lambda lib: lib.sum(_arr(lib, [[1.0, 2.0], [3.0, 4.0]], "float64"), axis=1, dtype="float32"),
          **_modes(mode))


def test_errstate_reductions_in_one_flush():
    """Several reductions and scans queued in one flush: each one's report, in op order."""
    def fn(lib):
        x = _arr(lib, [[_big("float64"), _big("float64")], [numpy.inf, -numpy.inf]], "float64")
        a = lib.sum(x, axis=1)        # overflow, invalid
        b = lib.cumprod(x, axis=0)    # overflow
        c = a * 0.0                   # invalid (inf * 0)
        return a + b[1] + c
    _same(fn, **_modes("warn"))


# ---- the distributed box path on device buffers (cuda/nccl.c's region computations) -----------

@pytest.mark.parametrize("mode", ["warn", "raise"])
@pytest.mark.parametrize("where", [(0, 5), (1, 30), (19, 20), (20, 40), (39, 58), (41, 21), (59, 1)])
def test_errstate_box_path_regions(where, mode):
    """Ops on shifted slices of distributed arrays (halos): under several ranks each rank computes
    its tile as an interior and border regions on the device, and every region's findings reach
    the op's one report (and every rank).  A zero divisor at one position and an overflowing
    value at another put the two categories in different regions or tiles."""
    was = cupynum._core._set_fusion(False)
    try:
        def fn(lib):
            n = numpy.linspace(1.0, 2.0, 61)
            n[where[0]] = 0.0
            n[where[1]] = 1e300
            a = _arr(lib, n, "float64")
            q = a[1:] / a[:-1]                      # divide by zero (x / 0), maybe 0 / x
            p = a[1:] * a[:-1]                      # overflow
            r = (a[2:] - a[:-2]).astype("float32")  # the cast overflows
            return q[1:] + p[1:] + r.astype("float64")
        _same(fn, **_modes(mode))
        m = numpy.linspace(1.0, 2.0, 24 * 5).reshape(24, 5)
        m[where[0] % 24, where[1] % 5] = 0.0

        def fn2(lib):
            b = _arr(lib, m, "float64")
            return b[1:, 1:] / b[:-1, :-1] + lib.log(b[:-1, 1:])   # divide by zero, log(0)
        _same(fn2, **_modes(mode))
    finally:
        cupynum._core._set_fusion(was)
