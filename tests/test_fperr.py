"""Floating-point error state: cupynum's deferred ops warn, raise, call, print or log as NumPy's
ufuncs do under numpy.errstate / seterr, with NumPy's exact texts, on the same inputs.

Each case runs the same call with NumPy and with cupynum under the same errstate and compares
what happened: the list of (warning category, message), the exception (type, message), the
callback's arguments, the log lines.  Runs on any number of ranks: every rank must see the same
reports (the ranks agree on what their tiles found)."""

import io
import warnings

import numpy
import pytest

import cupynum
import cupynum._ufunc
from cupynum import _core

pytestmark = [pytest.mark.device]

F = [numpy.float64, numpy.float32]

# (ufunc name, inputs as lists): each raises at least one category in NumPy.
CASES = [
    ("divide", [1.0, 0.0, -1.0, 2.0], [0.0, 0.0, 0.0, 1.0]),
    ("exp", [1000.0, -1000.0, 1.0, numpy.inf]),
    ("exp", [0.5, 1.0, 2.0, 3.0, 800.0, 4.0, 5.0]),
    ("log", [0.0, -1.0, 1.0, 2.0, 3.0]),
    ("log", [1.0, 2.0, numpy.nan, -numpy.inf]),
    ("sqrt", [-1.0, 4.0, -0.0, numpy.nan]),
    ("sin", [numpy.inf, 1.0, 2.0]),
    ("cos", [1.0, -numpy.inf]),
    ("tanh", [1.0, 2.0, numpy.nan]),
    ("power", [0.0, 2.0, -8.0, 1e300, 1e-300], [-1.0, 2.0, 1.0 / 3.0, 2.0, 2.0]),
    ("multiply", [1e300, 1e-300, numpy.inf, 2.0], [1e300, 1e-300, 0.0, 3.0]),
    ("add", [numpy.inf, 1e308, 1.0], [-numpy.inf, 1e308, 2.0]),
    ("subtract", [numpy.inf, 1.0], [numpy.inf, 2.0]),
    ("floor_divide", [1.0, 0.0, 5.0], [0.0, 0.0, 2.0]),
    ("remainder", [1.0, 0.0, 5.0], [0.0, 0.0, 2.0]),
    ("reciprocal", [0.0, 2.0, -0.0]),
    ("square", [1e200, 3.0]),
]
INT_CASES = [
    ("floor_divide", [1, 2, 3, 4], [0, 1, 0, 2]),
    ("remainder", [1, 2, 3, 4], [1, 0, 2, 2]),
    ("floor_divide", [-(2 ** 31), 5, 7], [-1, 2, 3]),
]
# Comparisons, maximum and minimum of NaN report nothing in NumPy.
SILENT = [("less", [numpy.nan, 1.0], [1.0, numpy.nan]), ("maximum", [numpy.nan, 1.0], [1.0, 2.0]),
          ("minimum", [numpy.nan, 1.0], [1.0, 2.0]), ("equal", [numpy.nan], [numpy.nan])]


def ids(cases):
    return [f"{c[0]}-{i}" for i, c in enumerate(cases)]


def run(lib, name, args, dtype, **state):
    """Call lib.<name> on arrays of `args` under errstate(**state); returns (warnings, exception,
    result as NumPy) with the value read inside the block."""
    with numpy.errstate(all="ignore"):   # 1e300 as float32 is inf, quietly
        arrays = [lib.array(numpy.array(a, dtype=dtype)) for a in args]
    with warnings.catch_warnings(record=True) as w:
        warnings.simplefilter("always")
        exc = res = None
        try:
            with lib.errstate(**state):
                r = getattr(lib, name)(*arrays)
                res = numpy.array(numpy.asarray(r))
        except FloatingPointError as e:
            exc = (type(e), str(e))
    return [(x.category, str(x.message)) for x in w], exc, res


def compare(name, args, dtype, **state):
    nw, ne, nr = run(numpy, name, args, dtype, **state)
    cw, ce, cr = run(cupynum, name, args, dtype, **state)
    assert cw == nw
    assert ce == ne
    if nr is not None:   # values: test_vmath.py checks ULPs; here a few ULP of float32/64
        rtol = 1e-6 if nr.dtype == numpy.float32 else 1e-14
        numpy.testing.assert_allclose(cr, nr, rtol=rtol) if nr.dtype.kind == "f" else \
            numpy.testing.assert_array_equal(cr, nr)
    return nw, ne


@pytest.mark.parametrize("dtype", F, ids=["f64", "f32"])
@pytest.mark.parametrize("case", CASES, ids=ids(CASES))
@pytest.mark.parametrize("mode", ["warn", "ignore", "raise"])
def test_all_categories(case, dtype, mode):
    name, *args = case
    compare(name, args, dtype, all=mode)


@pytest.mark.parametrize("case", CASES, ids=ids(CASES))
@pytest.mark.parametrize("cat", ["divide", "over", "under", "invalid"])
def test_one_category_raises(case, cat):
    """One category raising, the others warning: NumPy's order (warnings of earlier categories,
    then the exception)."""
    name, *args = case
    state = {c: "warn" for c in ("divide", "over", "under", "invalid")}
    state[cat] = "raise"
    compare(name, args, numpy.float64, **state)


def test_some_case_warns_each_category():
    """The table is strong enough: NumPy warns every category somewhere in it."""
    seen = set()
    for name, *args in CASES:
        w, _, _ = run(numpy, name, args, numpy.float64, all="warn")
        seen |= {m.split(" encountered")[0] for _, m in w}
    assert seen == {"divide by zero", "overflow", "underflow", "invalid value"}


@pytest.mark.parametrize("dtype", [numpy.int64, numpy.int32, numpy.uint8, numpy.int8],
                         ids=["i64", "i32", "u8", "i8"])
@pytest.mark.parametrize("case", INT_CASES, ids=ids(INT_CASES))
@pytest.mark.parametrize("mode", ["warn", "raise", "ignore"])
def test_integer_division_by_zero(case, dtype, mode):
    name, a, b = case
    info = numpy.iinfo(dtype)
    a = [min(max(x, info.min), info.max) for x in a]
    b = [min(max(x, info.min), info.max) for x in b]
    compare(name, [a, b], dtype, all=mode)


@pytest.mark.parametrize("case", SILENT, ids=ids(SILENT))
def test_silent_ops(case):
    name, *args = case
    w, e = compare(name, args, numpy.float64, all="raise")
    assert not w and e is None


@pytest.mark.parametrize("dtype", F, ids=["f64", "f32"])
@pytest.mark.parametrize("name,args", [("exp", [[1000.0] * 37 + [-1000.0]]),
                                        ("log", [[1.0] * 40 + [0.0, -1.0]]),
                                        ("sqrt", [[4.0] * 19 + [-1.0]]),
                                        ("power", [[2.0] * 21 + [0.0], [1.0] * 21 + [-1.0]])])
def test_strided_and_contiguous_agree(name, args, dtype):
    """Contiguous operands take the vector kernels (result scan), strided ones the scalar loops
    (status flags): both report as NumPy does."""
    nw, ne, _ = run(numpy, name, args, dtype, all="warn")
    cw, _, _ = run(cupynum, name, args, dtype, all="warn")
    assert cw == nw
    big = [numpy.repeat(numpy.array(a, dtype=dtype), 2) for a in args]
    with warnings.catch_warnings(record=True) as w:
        warnings.simplefilter("always")
        with cupynum.errstate(all="warn"):
            r = getattr(cupynum, name)(*[cupynum.array(b)[::2] for b in big])
            cupynum.sync()
    assert [(x.category, str(x.message)) for x in w] == nw
    with numpy.errstate(all="ignore"):
        numpy.testing.assert_array_equal(numpy.asarray(r), getattr(numpy, name)(*[b[::2] for b in big]))


def test_call_mode():
    for lib in (numpy, cupynum):
        calls = []
        old = lib.seterrcall(lambda kind, flag: calls.append((kind, flag)))
        try:
            with lib.errstate(all="call"):
                lib.asarray(lib.divide(lib.array([1.0, 0.0]), lib.array([0.0, 0.0])))
                lib.asarray(lib.exp(lib.array([1000.0])))
        finally:
            lib.seterrcall(old)
        if lib is numpy:
            expected = calls
        else:
            assert calls == expected and calls


def test_log_mode():
    out = {}
    for lib in (numpy, cupynum):
        log = io.StringIO()
        old = lib.seterrcall(log)
        try:
            with lib.errstate(all="log"):
                lib.asarray(lib.divide(lib.array([1.0, 0.0]), lib.array([0.0, 0.0])))
                lib.asarray(lib.sqrt(lib.array([-1.0])))
        finally:
            lib.seterrcall(old)
        out[lib.__name__] = log.getvalue()
    assert out["cupynum"] == out["numpy"] and out["numpy"]


def test_call_without_function_is_nameerror():
    for lib in (numpy, cupynum):
        old = lib.seterrcall(None)
        try:
            with pytest.raises(NameError) as e, lib.errstate(divide="call"):
                lib.asarray(lib.divide(lib.array([1.0]), lib.array([0.0])))
        finally:
            lib.seterrcall(old)
        if lib is numpy:
            msg = str(e.value)
        else:
            assert str(e.value) == msg


def test_mode_captured_at_submit():
    """Deferred ops report under the errstate of the moment they were queued, not of the flush."""
    a = cupynum.array([1.0, 0.0])
    with warnings.catch_warnings(record=True) as w:
        warnings.simplefilter("always")
        with numpy.errstate(all="ignore"):    # numpy's: does not flush
            q = a / 0.0                        # queued under 'ignore'
        cupynum.sync()                         # flushed under the default 'warn'
        assert not w
        r = a / 0.0                            # queued under 'warn'
        with numpy.errstate(all="ignore"):
            cupynum.sync()                     # flushed under 'ignore': still warns
        assert [str(x.message) for x in w] == ["divide by zero encountered in divide",
                                               "invalid value encountered in divide"]
    numpy.testing.assert_array_equal(numpy.asarray(q), numpy.asarray(r))


def test_errstate_flushes_so_warnings_land_inside():
    a = cupynum.array([1.0, 0.0])
    b = a / 0.0     # queued under the default: warns
    with warnings.catch_warnings(record=True) as w:
        warnings.simplefilter("always")
        with cupynum.errstate(all="ignore"):   # entry flushes the queued division here
            pass
    assert len(w) == 2
    with warnings.catch_warnings(record=True) as w:
        warnings.simplefilter("always")
        with cupynum.errstate(divide="warn", invalid="ignore"):
            c = a / 0.0
        assert [str(x.message) for x in w] == ["divide by zero encountered in divide"]  # exit flushed
    numpy.testing.assert_array_equal(numpy.asarray(b), numpy.asarray(c))


def test_errstate_as_decorator():
    @cupynum.errstate(all="raise")
    def f(x):
        return x / 0.0
    with pytest.raises(FloatingPointError, match="divide by zero encountered in divide"):
        f(cupynum.array([1.0]))

    @numpy.errstate(all="raise")
    def g(x):
        return x / 0.0
    with pytest.raises(FloatingPointError, match="divide by zero encountered in divide"):
        g(numpy.array([1.0]))


def test_seterr_geterr():
    old = cupynum.seterr(all="raise")
    try:
        assert cupynum.geterr() == numpy.geterr()
        assert numpy.geterr()["divide"] == "raise"
        with pytest.raises(FloatingPointError):
            cupynum.log(cupynum.array([0.0]))
    finally:
        cupynum.seterr(**old)
    assert cupynum.geterr() == old


def test_raise_poisons_fresh_result_keeps_inplace_values():
    a = cupynum.array([1.0, 0.0, 3.0])
    na = numpy.array([1.0, 0.0, 3.0])
    with cupynum.errstate(divide="raise", invalid="ignore"):
        with pytest.raises(FloatingPointError):
            a /= 0.0
    with numpy.errstate(divide="raise", invalid="ignore"):
        with pytest.raises(FloatingPointError):
            na /= 0.0
    with numpy.errstate(all="ignore"):
        numpy.testing.assert_array_equal(numpy.asarray(a), na)   # written, as NumPy's


def test_warning_as_error_filter():
    a = cupynum.array([0.0])
    with warnings.catch_warnings():
        warnings.simplefilter("error", RuntimeWarning)
        with pytest.raises(RuntimeWarning, match="divide by zero encountered in log"):
            with cupynum.errstate(divide="warn"):
                cupynum.log(a)
        with pytest.raises(RuntimeWarning, match="divide by zero encountered in log"):
            with numpy.errstate(divide="warn"):
                numpy.log(numpy.array([0.0]))


def test_ranks_agree_on_a_single_bad_element():
    """Under MPI every rank raises (and warns) although one tile holds the bad element."""
    n = 1000
    x = numpy.ones(n)
    x[-1] = 0.0     # in the last rank's tile
    w, e = compare("log", [x], numpy.float64, all="warn")
    assert w == [(RuntimeWarning, "divide by zero encountered in log")]
    w, e = compare("log", [x], numpy.float64, divide="raise")
    assert e == (FloatingPointError, "divide by zero encountered in log")
    x[-1] = 1.0
    x[0] = -1.0     # in the first rank's tile
    w, e = compare("sqrt", [x], numpy.float64, invalid="raise")
    assert e == (FloatingPointError, "invalid value encountered in sqrt")


# ---- scans, segment reductions, reductions and casts report like element-wise ops -----------

def _big(n, at, value, fill=1.0):
    x = numpy.full(n, fill)
    x[at] = value
    return x


# (id, callable(lib, *arrays), inputs): each reports at least one category in NumPy.
METHOD_CASES = [
    ("cumsum-overflow", lambda m, a: m.cumsum(a), [[1e308, 1e308, 1.0]]),
    ("cumsum-axis0", lambda m, a: m.cumsum(m.reshape(a, (2, 3)), axis=0),
     [[1e308, 1.0, 2.0, 1e308, 3.0, 4.0]]),
    ("cumprod-overflow", lambda m, a: m.cumprod(a), [[1e200, 1e200, 2.0]]),
    ("add.accumulate", lambda m, a: m.add.accumulate(a), [[1e308, 1e308, -numpy.inf]]),
    ("multiply.accumulate", lambda m, a: m.multiply.accumulate(a), [[1e200, 1e200, 0.0]]),
    ("accumulate-long", lambda m, a: m.add.accumulate(a), [_big(1000, 997, 1e308, 1e305)]),
    ("add.reduceat", lambda m, a: m.add.reduceat(a, [0, 2]), [[1e308, 1e308, 1.0, 2.0]]),
    ("multiply.reduceat", lambda m, a: m.multiply.reduceat(a, [0, 1, 3]),
     [[2.0, numpy.inf, 0.0, 1e-300, 1e-300]]),
    ("add.reduce", lambda m, a: m.add.reduce(a), [_big(1000, 999, 1e308, 1e306)]),
    ("sum-invalid", lambda m, a: m.sum(a), [[numpy.inf, -numpy.inf, 1.0]]),
    ("astype-f32", lambda m, a: a.astype(numpy.float32), [_big(1000, 999, 1e300)]),
    ("astype-f16", lambda m, a: a.astype(numpy.float16), [[1e300, 1.0, 70000.0]]),
    ("nan-to-int", lambda m, a: a.astype(numpy.int32), [_big(1000, 0, numpy.nan)]),
    ("inf-to-int64", lambda m, a: a.astype(numpy.int64), [[1.0, numpy.inf, -numpy.inf]]),
    ("nan-to-uint8", lambda m, a: a.astype(numpy.uint8), [[numpy.nan, 3.0]]),
]
# Reports nothing in NumPy (silent ops, exact casts).
METHOD_SILENT = [
    ("maximum.accumulate", lambda m, a: m.maximum.accumulate(a), [[numpy.nan, 1.0, 2.0]]),
    ("max", lambda m, a: m.max(a), [[numpy.nan, 1.0]]),
    ("astype-f64-f32-ok", lambda m, a: a.astype(numpy.float32), [[1.5, numpy.inf, numpy.nan]]),
    ("nan-to-bool", lambda m, a: a.astype(bool), [[numpy.nan, 0.0]]),
    ("cumsum-ok", lambda m, a: m.cumsum(a), [[1.0, 2.0, 3.0]]),
]


def run_call(lib, fn, args, **state):
    arrays = [lib.array(numpy.array(a, dtype=numpy.float64)) for a in args]
    with warnings.catch_warnings(record=True) as w:
        warnings.simplefilter("always")
        exc = res = None
        try:
            with lib.errstate(**state):
                res = numpy.array(numpy.asarray(fn(lib, *arrays)))
        except FloatingPointError as e:
            exc = (type(e), str(e))
    return ([(x.category, str(x.message)) for x in w if issubclass(x.category, RuntimeWarning)],
            exc, res)


def compare_call(fn, args, **state):
    nw, ne, nr = run_call(numpy, fn, args, **state)
    cw, ce, cr = run_call(cupynum, fn, args, **state)
    assert cw == nw
    assert ce == ne
    if nr is not None:
        numpy.testing.assert_array_equal(cr, nr)
    return nw, ne


@pytest.mark.parametrize("mode", ["warn", "raise", "ignore"])
@pytest.mark.parametrize("case", METHOD_CASES, ids=[c[0] for c in METHOD_CASES])
def test_methods_and_casts_report(case, mode):
    _, fn, args = case
    w, e = compare_call(fn, args, all=mode)
    assert (w or e) if mode != "ignore" else not (w or e)


@pytest.mark.parametrize("case", METHOD_CASES, ids=[c[0] for c in METHOD_CASES])
def test_methods_and_casts_one_category_raises(case):
    _, fn, args = case
    for cat in ("divide", "over", "under", "invalid"):
        compare_call(fn, args, all="warn", **{cat: "raise"})


@pytest.mark.parametrize("case", METHOD_SILENT, ids=[c[0] for c in METHOD_SILENT])
def test_methods_and_casts_silent(case):
    _, fn, args = case
    w, e = compare_call(fn, args, all="raise")
    assert not w and not e


INT_DTYPES = ["uint8", "int8", "uint16", "int16", "int32", "uint32", "int64", "uint64", "bool"]


@pytest.mark.parametrize("mode", ["warn", "raise", "ignore"])
@pytest.mark.parametrize("dt", INT_DTYPES)
def test_integer_to_float16_overflows_as_numpy(dt, mode):
    """An integer above 65504 becomes float16's infinity and NumPy reports overflow in cast (the
    integer types whose range reaches it: uint16 up); the narrow ones report nothing.  A cast
    alone, and the same cast inside a fused run."""
    top = numpy.iinfo(dt).max if dt != "bool" else True
    x = numpy.array([top, 1, 0], dtype=dt)
    for fn in (lambda m, a: a.astype(numpy.float16), lambda m, a: a.astype(numpy.float16) * 2):
        got, want = [], []
        for lib, out in ((numpy, want), (cupynum, got)):
            a = lib.array(x)
            with warnings.catch_warnings(record=True) as w:
                warnings.simplefilter("always")
                try:
                    with lib.errstate(all=mode):
                        r = numpy.array(numpy.asarray(fn(lib, a)))
                    out.extend([r.tolist(), None])
                except FloatingPointError as e:
                    out.extend([None, str(e)])
            out.append([str(m.message) for m in w if issubclass(m.category, RuntimeWarning)])
        assert got == want, (dt, mode, got, want)


def test_cast_raise_leaves_source_unchanged():
    x = numpy.array([1.0, numpy.nan, 3.0])
    c = cupynum.array(x)
    with cupynum.errstate(invalid="raise"):
        with pytest.raises(FloatingPointError, match="invalid value encountered in cast"):
            c.astype(numpy.int32)
    numpy.testing.assert_array_equal(numpy.asarray(c), x)


# ---- the op table's flags (ops.def) agree with NumPy's reports --------------------------------

TABLE_OPS = sorted({cupynum._core.op_info(n)["name"] for n in cupynum._core.op_names()
                    if n != "where"})


@pytest.mark.parametrize("name", TABLE_OPS)
def test_table_flags_match_numpy(name):
    """SILENT ops report nothing in NumPy on NaN/inf/zero operands (and cupynum agrees); INTDIV
    ops report division by zero of integers; QUOTIENT ops also report MIN // -1."""
    info = cupynum._core.op_info(name)
    u = getattr(numpy, name)
    special = [numpy.nan, numpy.inf, -numpy.inf, 0.0, -0.0, 1.0, -1.0, 1e308]
    if info["silent"]:
        a = numpy.array(special * len(special))
        b = numpy.repeat(numpy.array(special), len(special))
        args = [a, b][:u.nin]
        if any(t.startswith("d" * u.nin) for t in u.types):
            with numpy.errstate(all="raise"):
                u(*args)                      # NumPy: silent
            compare_call(lambda m, *xs: getattr(m, name)(*xs), [x.tolist() for x in args],
                         all="raise")
    if info["intdiv"]:
        a, b = numpy.array([7, -2 ** 31], numpy.int32), numpy.array([0, -1], numpy.int32)
        with numpy.errstate(all="raise"), pytest.raises(FloatingPointError, match="divide by zero"):
            u(a[:1], b[:1])
        with numpy.errstate(divide="ignore", over="raise"), warnings.catch_warnings():
            warnings.simplefilter("ignore")
            try:
                u(a[1:], b[1:])
                overflow = False
            except FloatingPointError:
                overflow = True
        assert overflow == info["quotient"], name
    else:
        assert not info["quotient"]


@pytest.mark.parametrize("dtype", ["float16", "float32", "float64"])
def test_remainder_of_nan_is_quiet(dtype):
    """npy_divmod compares quietly: a NaN operand gives NaN without an invalid report."""
    x = numpy.array([numpy.nan, 1.5, -2.5, numpy.nan], dtype=dtype)
    for b in (1.0, numpy.array([2.0, numpy.nan, 0.5, -3.0], dtype=dtype)):
        with numpy.errstate(all="raise"):
            want = numpy.remainder(x, b)
        with cupynum.errstate(all="raise"):
            got = cupynum.remainder(cupynum.array(x), b if isinstance(b, float) else cupynum.array(b))
        numpy.testing.assert_array_equal(numpy.asarray(got), want)


# ---- reductions and scans of the integer divisions: native, NumPy's reports -----------------

INTDIV_NAMES = [n for n in ("floor_divide", "remainder", "fmod", "divmod", "gcd", "lcm")
                if n in _core.op_names() and _core.op_info(n)["intdiv"] and
                getattr(numpy, n).nin == 2 and getattr(numpy, n).nout == 1]
INTDIV_DATA = {"zero": ([12, 0, 5, 7, 3, 1], "int64"), "plain": ([100, 7, 3, -2, 5], "int32"),
               "minus-one": ([-2 ** 31, -1, 3], "int32"), "uint-zero": ([9, 3, 0, 2], "uint8"),
               "2d": ([[8, 0, 3], [9, 2, 0], [7, 7, 1]], "int16")}


@pytest.mark.parametrize("mode", ["warn", "raise", "ignore"])
@pytest.mark.parametrize("data", sorted(INTDIV_DATA))
@pytest.mark.parametrize("method", ["reduce", "accumulate", "reduceat"])
@pytest.mark.parametrize("name", INTDIV_NAMES)
def test_integer_division_methods_native_and_reporting(name, method, data, mode, monkeypatch):
    values, dtype = INTDIV_DATA[data]
    n = numpy.array(values, dtype=dtype)

    def call(lib, x):
        u = getattr(lib, name)
        if method == "reduceat":
            return u.reduceat(x, [0, 2] if x.ndim == 1 else [0, 1], axis=0)
        return getattr(u, method)(x, axis=0)

    outcomes = []
    for lib in (numpy, cupynum):
        x = lib.array(n)
        if lib is cupynum:     # native: cupynum does not hand the call to NumPy
            for helper in ("_numpy_general", "_fallback_call"):
                monkeypatch.setattr(cupynum._ufunc, helper,
                                    lambda *a, **k: pytest.fail("NumPy computed it"))
        with warnings.catch_warnings(record=True) as w:
            warnings.simplefilter("always")
            try:
                with lib.errstate(all=mode):
                    r = numpy.array(numpy.asarray(call(lib, x)))
                outcomes.append((r.dtype, r.tolist(),
                                 [str(m.message) for m in w if m.category is RuntimeWarning]))
            except FloatingPointError as e:
                outcomes.append(("raised", str(e)))
    assert outcomes[1] == outcomes[0]


# ---- warnings at the user's line ----------------------------------------------------------------

def _warning_sites(xp, program):
    """(filename, line, message) of each warning `program(xp)` issues, the deferred ones
    flushed by reads several lines later."""
    with warnings.catch_warnings(record=True) as w:
        warnings.simplefilter("always")
        program(xp)
    return [(x.filename, x.lineno, str(x.message)) for x in w if x.category is RuntimeWarning]


def _deferred_program(xp):
    a = xp.arange(4.0)
    b = a / 0                                    # the op's own line: NumPy warns here
    c = xp.log(a - 5)                            # and here
    d = b + c
    float(d.sum())                               # cupynum flushes here
    for _ in range(3):                           # a repeated fused program whose input is a
        e = xp.log(a - 7)                        # virtual (regenerated) store: each iteration
        e.tolist()                               # reports, as NumPy's


def test_deferred_warnings_are_issued_at_the_submitting_line():
    assert _warning_sites(cupynum, _deferred_program) == _warning_sites(numpy, _deferred_program)


def test_deferred_warnings_honour_once_per_location_filters():
    """The default filter shows a warning once per (module, line): the registry used is the
    submitting module's, as for NumPy's own warnings."""
    def loop(xp):
        a = xp.arange(3.0)
        for _ in range(4):
            (a / 0).tolist()
    counts = []
    for xp in (numpy, cupynum):
        with warnings.catch_warnings(record=True) as w:
            warnings.simplefilter("default")
            loop(xp)
        counts.append(len(w))
    assert counts[0] == counts[1]
