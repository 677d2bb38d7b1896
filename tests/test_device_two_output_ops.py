"""The two-output ops (divmod, modf, frexp) and ldexp (an int64 exponent) on the device.

cuda/codegen.c generates their kernels from scalar.h's own functions (output 1 through the
function's pointer argument; ldexp's exponent read as int64), with fpclass.h's reports (divmod's
quotient as floor_divide, a float output 1 by the ARITH rule; integer divmod's division by zero
and MIN // -1 as floor_divide's).  The simulated device (CUPYNUM_DEVICE=sim) runs the same
coverage with the CPU loops, so these tests exercise the executor's device path without a GPU.

- Parity with NumPy: values (bit for bit: the same scalar functions), dtypes, array and scalar
  operands, non-contiguous views, under errstate 'ignore', 'warn' and 'raise' (warnings and
  exceptions compared with NumPy's; on a GPU without underflow, which its kernels never report).
- Residency: device-resident operands give device-resident results (runtime_stats'
  bytes_to_host does not grow until a result is read).
On the CPU backend every test here skips ("no CUDA device").
"""
import warnings

import numpy
import pytest

import cupynum

INFO = cupynum.runtime_info()
on_device = pytest.mark.skipif(INFO["backend"] not in ("cuda", "sim"),
                               reason="no CUDA device (CUPYNUM_DEVICE=sim runs these on the simulated device)")
single = pytest.mark.skipif(INFO["ranks"] > 1, reason="residency of a single process's arrays")
pytestmark = [on_device, pytest.mark.device, pytest.mark.mpi_device, pytest.mark.gpu]

FLOATS = ["float16", "float32", "float64"]
INTS = ["int8", "int16", "int32", "int64", "uint8", "uint16", "uint32", "uint64"]
MODES = ["ignore", "warn", "raise"]


def _floats(dtype, n, seed, special=True):
    rng = numpy.random.default_rng(seed)
    a = (rng.random(n) * 40 - 20).astype(dtype)
    if special:
        info = numpy.finfo(dtype)
        sp = numpy.array([0.0, -0.0, 1.0, -1.0, 0.5, -2.5, numpy.inf, -numpy.inf, numpy.nan,
                          info.max, -info.max, info.tiny, info.smallest_subnormal, 7.0], dtype=dtype)
        a[: len(sp)] = sp
    return a


def _ints(dtype, n, seed):
    rng = numpy.random.default_rng(seed)
    info = numpy.iinfo(dtype)
    lo = max(info.min, -100)
    a = rng.integers(lo, min(info.max, 100), size=n, endpoint=True).astype(dtype)
    sp = [0, 1, 7, info.max, info.min] + ([-1, -7] if info.min < 0 else [])
    a[: len(sp)] = numpy.array(sp, dtype=dtype)
    return a


def _record(fn, lib, mode, under=None):
    """fn(lib) under errstate(all=mode) (under=: underflow's own mode): (results as NumPy arrays
    or None, warnings, exception)."""
    with warnings.catch_warnings(record=True) as w:
        warnings.simplefilter("always")
        exc = res = None
        with lib.errstate(all=mode, under=under or mode):
            try:
                r = fn(lib)
                r = r if isinstance(r, tuple) else (r,)
                res = [numpy.asarray(x) for x in r]   # read inside the block: the flush reports here
            except FloatingPointError as e:
                exc = (type(e), str(e))
    return res, [(x.category, str(x.message)) for x in w], exc


def _same(fn, mode):
    got = _record(fn, cupynum, mode)
    # A GPU kernel never reports underflow (fpclass.h: a value does not tell whether a tiny
    # result was rounded): the reference ignores it there.
    want = _record(fn, numpy, mode, under="ignore" if INFO["backend"] == "cuda" else None)
    assert got[1] == want[1], (got[1], want[1])
    assert got[2] == want[2], (got[2], want[2])
    if want[0] is None:
        return
    assert len(got[0]) == len(want[0])
    for g, r in zip(got[0], want[0]):
        assert g.dtype == r.dtype, (g.dtype, r.dtype)
        assert g.shape == r.shape
        numpy.testing.assert_array_equal(g, r)
        if r.dtype.kind == "f":   # signed zeros too; not a NaN's sign (x86 makes -nan, a GPU +nan)
            num = ~numpy.isnan(r)
            numpy.testing.assert_array_equal(numpy.signbit(g)[num], numpy.signbit(r)[num])


# ---- parity -----------------------------------------------------------------------------------------


@pytest.mark.parametrize("mode", MODES)
@pytest.mark.parametrize("dtype", FLOATS)
def test_divmod_float(dtype, mode):
    a = _floats(dtype, 40, 1)
    b = numpy.roll(_floats(dtype, 40, 2), 3)
    b[20:23] = 0.0
    _same(lambda lib: lib.divmod(lib.asarray(a), lib.asarray(b)), mode)


@pytest.mark.parametrize("dtype", FLOATS)
def test_divmod_float_finite_quiet(dtype):
    """finite operands away from zero: nothing to report, values as NumPy's"""
    a = _floats(dtype, 64, 3, special=False)
    b = _floats(dtype, 64, 4, special=False)
    b[b == 0] = 3
    _same(lambda lib: lib.divmod(lib.asarray(a), lib.asarray(b)), "raise")


@pytest.mark.parametrize("mode", MODES)
@pytest.mark.parametrize("dtype", INTS)
def test_divmod_int(dtype, mode):
    a = _ints(dtype, 30, 5)
    b = numpy.roll(_ints(dtype, 30, 6), 2)
    if numpy.dtype(dtype).kind == "i":
        b[4] = -1   # MIN // -1 (a[4] is MIN): overflow
    _same(lambda lib: lib.divmod(lib.asarray(a), lib.asarray(b)), mode)


@pytest.mark.parametrize("dtype", INTS)
def test_divmod_int_no_zero(dtype):
    """non-zero divisors (no MIN // -1): nothing to report"""
    a = _ints(dtype, 30, 7)
    b = numpy.abs(_ints(dtype, 30, 8).astype(numpy.int64)).astype(dtype) // 2 + 1
    _same(lambda lib: lib.divmod(lib.asarray(a), lib.asarray(b)), "raise")


@pytest.mark.parametrize("dtype", ["int32", "uint8", "float32", "float64"])
def test_divmod_scalar_operands(dtype):
    a = _ints(dtype, 25, 9) if numpy.dtype(dtype).kind in "iu" else _floats(dtype, 25, 9)
    s = numpy.dtype(dtype).type(3)
    _same(lambda lib: lib.divmod(lib.asarray(a), s), "warn")
    _same(lambda lib: lib.divmod(s, lib.asarray(a)), "warn")
    z = numpy.dtype(dtype).type(0)
    _same(lambda lib: lib.divmod(lib.asarray(a), z), "warn")


@pytest.mark.parametrize("mode", MODES)
@pytest.mark.parametrize("dtype", FLOATS)
def test_modf(dtype, mode):
    a = _floats(dtype, 40, 10)
    _same(lambda lib: lib.modf(lib.asarray(a)), mode)


@pytest.mark.parametrize("mode", MODES)
@pytest.mark.parametrize("dtype", FLOATS)
def test_frexp(dtype, mode):
    a = _floats(dtype, 40, 11)
    _same(lambda lib: lib.frexp(lib.asarray(a)), mode)


@pytest.mark.parametrize("mode", MODES)
@pytest.mark.parametrize("edtype", ["int32", "int64"])
@pytest.mark.parametrize("dtype", FLOATS)
def test_ldexp(dtype, edtype, mode):
    a = _floats(dtype, 40, 12)
    rng = numpy.random.default_rng(13)
    e = rng.integers(-30, 30, size=40).astype(edtype)
    e[:12] = [0, 1, -1, 5, 2000, -2000, 127, -149, 1100, -1100, 16, -25][:12]
    if edtype == "int64":
        e[12:16] = [2**40, -2**40, 2**31, -2**31 - 1]
    _same(lambda lib: lib.ldexp(lib.asarray(a), lib.asarray(e)), mode)


@pytest.mark.parametrize("dtype", FLOATS)
def test_ldexp_scalar_exponent(dtype):
    a = _floats(dtype, 30, 14)
    _same(lambda lib: lib.ldexp(lib.asarray(a), 3), "warn")
    _same(lambda lib: lib.ldexp(lib.asarray(a), numpy.int64(5000)), "warn")


def test_views_and_out():
    a = _floats("float64", 60, 15).reshape(6, 10)
    b = numpy.roll(_floats("float64", 60, 16), 7).reshape(6, 10)
    b[b == 0] = 2.0
    _same(lambda lib: lib.divmod(lib.asarray(a)[::2, 1::3], lib.asarray(b).T[1::3, ::2].T), "raise")
    _same(lambda lib: lib.modf(lib.asarray(a)[:, ::-1]), "raise")
    _same(lambda lib: lib.frexp(lib.asarray(a).T), "raise")
    e = (numpy.arange(60) % 9 - 4).reshape(6, 10)
    _same(lambda lib: lib.ldexp(lib.asarray(a)[1:, ::2], lib.asarray(e)[1:, 1::2]), "raise")

    def with_out(lib):
        x = lib.asarray(a)
        q = lib.zeros((6, 10))
        r = lib.zeros((6, 10))
        lib.divmod(x, 3.0, out=(q, r))
        return q, r
    _same(with_out, "raise")


# ---- residency ----------------------------------------------------------------------------------


def _to_host():
    return cupynum.runtime_stats()["bytes_to_host"]


@single
@pytest.mark.parametrize("name", ["divmod", "modf", "frexp", "ldexp", "ldexp alone", "divmod int"])
def test_stays_on_device(name):
    a = _floats("float64", 200, 17, special=False)
    e = (numpy.arange(200) % 11 - 5).astype(numpy.int64)
    ai = (numpy.arange(200) * 37 % 101 - 50).astype(numpy.int32)

    def run(lib, x, ex, xi):
        if name == "divmod":
            q, r = lib.divmod(x, 3.5)
            return q * 2.0 + r
        if name == "modf":
            f, i = lib.modf(x)
            return f + i * 0.5
        if name == "frexp":
            m, ee = lib.frexp(x)
            return m * 3.0 + ee
        if name == "ldexp":                 # fused with the multiply
            return lib.ldexp(x, ex) * 1.0
        if name == "ldexp alone":           # a single op
            return lib.ldexp(x, ex)
        q, r = lib.divmod(xi, 7)
        return q * 3 + r

    x = cupynum.asarray(a) * 1.0            # computed on the device
    ex = cupynum.asarray(e) + 0
    xi = cupynum.asarray(ai) + 0
    cupynum.sync()
    before = _to_host()
    r = run(cupynum, x, ex, xi)
    cupynum.sync()
    assert _to_host() == before, f"{name} brought data to the host"
    ref = run(numpy, a, e, ai)
    got = numpy.asarray(r)
    assert got.dtype == ref.dtype
    numpy.testing.assert_array_equal(got, ref)
