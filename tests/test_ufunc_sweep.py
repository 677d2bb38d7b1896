"""Every element-wise ufunc of NumPy 2 against NumPy: each type signature of numpy.<ufunc>.types x
shapes (0-d, empty, 1-d, 2-d broadcast against 1-d, non-contiguous and negative-step views) x
special values (NaN, +-inf, -0.0, subnormals, the largest finite values, integer extremes).

Signatures with these type letters are left out, and why:
  g G   long double and complex long double: cupynum has no such dtypes;
  O     object arrays: not a cupynum dtype;
  m M   timedelta64 and datetime64: not cupynum dtypes;
  q Q   long long: on the LP64 platforms cupynum builds for, the same dtypes as l / L (int64,
        uint64), so these loops repeat the l / L ones.
Not element-wise, so not here: matmul, vecdot, matvec, vecmat (gufuncs; tests/test_linalg*) and
isnat (datetime only).

Integer and bool results (and every exactly-rounded float op) must equal NumPy's bit for bit;
float results of transcendental functions are within ULP bounds stated per function in ULP_BOUND
(the CPU loops use glibc's libm, NumPy its own SIMD loops: both are faithful, so a few ulp apart
at most; float16 results are the float32 result rounded once, so at most 1 ulp from NumPy's).
Complex results are compared component by component.

On more than one rank the sweep reduces itself (every 4th signature, the 1-d and broadcast
shapes) so that the multi-rank CI runs stay short; one rank runs it whole, and so does any rank
count with CUPYNUM_SWEEP_FULL=1."""

import os
import warnings

import numpy
import pytest

import cupynum

EXCLUDED_LETTERS = set("gGOmMqQ")
NOT_ELEMENTWISE = {"matmul", "vecdot", "matvec", "vecmat", "isnat"}
RANKS = cupynum.runtime_info()["ranks"]

UFUNCS = sorted({getattr(numpy, n).__name__ for n in dir(numpy)
                 if isinstance(getattr(numpy, n), numpy.ufunc)} - NOT_ELEMENTWISE)


def _signatures():
    out = []
    for name in UFUNCS:
        seen = set()
        for t in getattr(numpy, name).types:
            if EXCLUDED_LETTERS & set(t) or t in seen:
                continue
            seen.add(t)
            out.append((name, t))
    return out


SIGNATURES = _signatures()
SHAPES = ["0d", "empty", "1d", "2d_bcast", "strided", "negstep"]
FULL = os.environ.get("CUPYNUM_SWEEP_FULL") == "1"   # the whole sweep on any rank count
if RANKS > 1 and not FULL:
    SIGNATURES = SIGNATURES[::4]
    SHAPES = ["1d", "2d_bcast"]

# Largest distance in units in the last place from NumPy's float results, per function (absent:
# 0, exact).  float16 gets at most 1 for any function computed through float32.
ULP_BOUND = {
    "arccos": 2, "arccosh": 2, "arcsin": 2, "arcsinh": 2, "arctan": 2, "arctan2": 2,
    "arctanh": 2, "cbrt": 2, "cos": 2, "cosh": 2, "exp": 2, "exp2": 2, "expm1": 2, "log": 2,
    "log10": 2, "log1p": 2, "log2": 2, "logaddexp": 2, "logaddexp2": 2, "power": 2,
    "float_power": 2, "sin": 2, "sinh": 2, "tan": 2, "tanh": 2, "hypot": 1,
    # |complex|: NumPy's own contiguous (SIMD) and strided (npy_hypot) loops differ by 1 ulp.
    "absolute": 1,
}
# Complex transcendental results (NumPy calls the same C99 functions; measured: 0 ulp).
ULP_BOUND_COMPLEX = 2


# ---- values ---------------------------------------------------------------------------------------

def values(char, second=False, name=""):
    """The test values of dtype `char` (a 1-D NumPy array)."""
    dt = numpy.dtype(char)
    if dt.kind == "b":
        return numpy.array([False, True, True, False, True, False], dtype=dt)
    if dt.kind in "iu":
        info = numpy.iinfo(dt)
        vals = [0, 1, 2, 3, 7, 13, 100, info.max, info.max - 1, info.min, info.min + 1, 5, 64]
        if dt.kind == "i":
            vals += [-1, -2, -3, -7, -13, -100, -64]
        v = numpy.array([x for x in vals if info.min <= x <= info.max], dtype=dt)
        if second and name == "power":   # negative integer powers raise (tested in test_errors)
            v = numpy.abs(v) % 6
        if second and name == "ldexp":
            v = numpy.array([0, 1, -1, 3, -30, 40, 200, -200, info.max, info.min, 2, -5, 7], dtype=dt)
        return v
    if dt.kind == "f":
        fi = numpy.finfo(dt)
        vals = [0.0, -0.0, 1.0, -1.0, 0.5, -0.5, 2.5, -3.75, 0.25, 10.0, -100.0, 0.999, 1.5,
                numpy.nan, numpy.inf, -numpy.inf, fi.max, -fi.max, fi.tiny, fi.smallest_subnormal,
                -fi.smallest_subnormal, 7.0, -7.0, 0.7, 3.0]
        return numpy.array(vals, dtype=dt)
    re = [0.0, -0.0, 1.0, -2.5, 0.5, numpy.inf, -numpy.inf, numpy.nan]
    im = [0.0, -0.0, 1.0, -3.0, numpy.inf, numpy.nan]
    return numpy.array([complex(r, i) for r in re for i in im], dtype=dt)


def operands(name, sig, shape):
    """NumPy operands of `sig`'s input letters laid out as `shape`, and a function turning each
    into the cupynum operand with the same layout (views made on the cupynum side)."""
    ins = sig.split("->")[0]
    base = [values(c, second=i == 1, name=name) for i, c in enumerate(ins)]
    if len(base) == 2 and shape in ("1d", "strided", "negstep"):   # pair lengths
        n = min(len(base[0]), len(base[1]))
        base = [base[0][:n], numpy.roll(base[1][:n], 3)]
    result = []
    for i, v in enumerate(base):
        if shape == "0d":
            result.append((v[3 % len(v)].reshape(()), lambda c: c))
        elif shape == "empty":
            result.append((v[:0], lambda c: c))
        elif shape == "1d":
            result.append((v, lambda c: c))
        elif shape == "2d_bcast":
            if len(base) == 1:   # unary: a 2-D transposed view
                full = numpy.stack([v, v[::-1]])
                result.append((full, lambda c: c.T))
            elif i == 0:
                result.append((v.reshape(-1, 1), lambda c: c))
            else:
                result.append((v, lambda c: c))
        elif shape == "strided":
            result.append((numpy.repeat(v, 2), lambda c: c[::2]))
        else:
            result.append((v[::-1].copy(), lambda c: c[::-1]))
    return result


# ---- comparison -----------------------------------------------------------------------------------

def _ordered(a):
    """Float bits mapped to integers that are ordered like the floats (-0.0 and 0.0 alike)."""
    ity = {2: numpy.int16, 4: numpy.int32, 8: numpy.int64}[a.dtype.itemsize]
    i = a.view(ity).astype(numpy.int64).tolist()
    lo = -(1 << (8 * a.dtype.itemsize - 1))
    return [lo - x if x < 0 else x for x in i]


def ulp_distance(got, want):
    """The largest distance in ulp between two float arrays of one dtype; NaN equals NaN, a NaN
    against a number is infinitely far."""
    got, want = numpy.ravel(got), numpy.ravel(want)
    if got.size == 0:
        return 0
    gn, wn = numpy.isnan(got), numpy.isnan(want)
    if (gn != wn).any():
        return float("inf")
    keep = ~gn
    g, w = _ordered(got[keep]), _ordered(want[keep])
    return max((abs(x - y) for x, y in zip(g, w)), default=0)


def assert_matches(name, got, want, where):
    got = numpy.asarray(got)
    want = numpy.asarray(want)
    assert got.dtype == want.dtype, f"{where}: dtype {got.dtype}, NumPy {want.dtype}"
    assert got.shape == want.shape, f"{where}: shape {got.shape}, NumPy {want.shape}"
    if want.dtype.kind in "fc":
        bound = ULP_BOUND.get(name, 0)
        if want.dtype.kind == "c" and bound:
            bound = ULP_BOUND_COMPLEX
        if want.dtype.itemsize == 2:
            bound = min(bound, 1)
        parts = [(got.real, want.real), (got.imag, want.imag)] if want.dtype.kind == "c" else [(got, want)]
        for g, w in parts:
            d = ulp_distance(g, w)
            assert d <= bound, (f"{where}: {d} ulp from NumPy (bound {bound})\n"
                                f"got  {g.ravel()[:40]}\nwant {w.ravel()[:40]}")
    else:
        assert numpy.array_equal(got, want), f"{where}:\ngot  {got}\nwant {want}"


def _call(f, args, **kw):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        with numpy.errstate(all="ignore"):
            return f(*args, **kw)


@pytest.mark.parametrize("shape", SHAPES)
@pytest.mark.parametrize("name,sig", SIGNATURES, ids=[f"{n}-{s}" for n, s in SIGNATURES])
def test_sweep(name, sig, shape):
    ops = operands(name, sig, shape)
    nargs = [make(v) for v, make in ops]
    cargs = [make(cupynum.asarray(v)) for v, make in ops]
    assert cupynum._core.has_op(name), f"{name} is not native"
    want = _call(getattr(numpy, name), nargs)
    outs_sig = sig.split("->")[1]
    wants = want if isinstance(want, tuple) else (want,)
    assert "".join(numpy.asarray(w).dtype.char for w in wants) == outs_sig.replace("q", "l"), \
        "the operands did not select the signature"
    got = _call(getattr(cupynum, name), cargs)
    gots = got if isinstance(got, tuple) else (got,)
    assert len(gots) == len(wants)
    for k, (g, w) in enumerate(zip(gots, wants)):
        assert_matches(name, g, w, f"{name} {sig} {shape} output {k}")


# ---- names, out=, errors --------------------------------------------------------------------------

def test_every_elementwise_ufunc_is_native():
    names = [n for n in dir(numpy) if isinstance(getattr(numpy, n), numpy.ufunc)
             and getattr(numpy, n).__name__ not in NOT_ELEMENTWISE]
    missing = [n for n in names if not cupynum._core.has_op(n)]
    assert not missing


@pytest.mark.parametrize("alias,name", [("true_divide", "divide"), ("mod", "remainder"),
                                        ("abs", "absolute"), ("bitwise_not", "invert"),
                                        ("conj", "conjugate"), ("degrees", "rad2deg"),
                                        ("radians", "deg2rad"), ("acos", "arccos"),
                                        ("atan2", "arctan2"), ("pow", "power")])
def test_aliases(alias, name):
    u = getattr(numpy, alias)
    sig = [t for t in u.types if not EXCLUDED_LETTERS & set(t)][-1]
    ops = operands(alias, sig, "1d")
    want = _call(u, [v for v, _ in ops])
    got = _call(getattr(cupynum, alias), [cupynum.asarray(v) for v, _ in ops])
    assert_matches(name, got, want, alias)


@pytest.mark.parametrize("name", ["divmod", "modf", "frexp"])
def test_two_outputs_into_out(name):
    u = getattr(numpy, name)
    sig = [t for t in u.types if not EXCLUDED_LETTERS & set(t)][-1]
    ops = operands(name, sig, "1d")
    nargs = [v for v, _ in ops]
    want = _call(u, nargs)
    o0 = cupynum.zeros(want[0].shape, want[0].dtype)
    o1 = cupynum.zeros(want[1].shape, want[1].dtype)
    cargs = [cupynum.asarray(v) for v in nargs]
    r = _call(getattr(cupynum, name), cargs, out=(o0, o1))
    assert r[0] is o0 and r[1] is o1
    assert_matches(name, o0, want[0], "out[0]")
    assert_matches(name, o1, want[1], "out[1]")
    p1 = cupynum.zeros(want[1].shape, want[1].dtype)
    r = _call(getattr(cupynum, name), cargs, out=(None, p1))
    assert r[1] is p1
    assert_matches(name, r[0], want[0], "out=(None, a)[0]")
    assert_matches(name, p1, want[1], "out=(None, a)[1]")
    r = _call(cupynum._core.ufunc, (name, tuple(cargs), None))
    assert isinstance(r, tuple) and len(r) == 2


def _first_sig(name):
    return [t for t in getattr(numpy, name).types if not EXCLUDED_LETTERS & set(t)][0]


def _raises_like_numpy(f_np, f_cp):
    """Both calls raise, the same exception type; returns cupynum's exception."""
    with pytest.raises(Exception) as np_err:
        _call(f_np, [])
    with pytest.raises(Exception) as cp_err:
        _call(f_cp, [])
    assert type(cp_err.value) is type(np_err.value), (cp_err.value, np_err.value)
    return cp_err.value


ERROR_UFUNCS = UFUNCS if RANKS == 1 or FULL else UFUNCS[::4]


@pytest.mark.parametrize("name", ERROR_UFUNCS)
def test_bad_out_shape(name):
    sig = _first_sig(name)
    nargs = [v for v, _ in operands(name, sig, "1d")]
    n = numpy.broadcast_shapes(*[a.shape for a in nargs])[0]
    u = getattr(numpy, name)
    outs_n = tuple(numpy.zeros(n + 1, c) for c in sig.split("->")[1])
    outs_c = tuple(cupynum.zeros(n + 1, c) for c in sig.split("->")[1])
    before = [numpy.asarray(o).copy() for o in outs_c]
    e = _raises_like_numpy(lambda: u(*nargs, out=outs_n),
                           lambda: getattr(cupynum, name)(*[cupynum.asarray(a) for a in nargs], out=outs_c))
    assert isinstance(e, ValueError)
    for o, b in zip(outs_c, before):   # bad input leaves arrays unchanged
        numpy.testing.assert_array_equal(numpy.asarray(o), b)


@pytest.mark.parametrize("name", ERROR_UFUNCS)
def test_bad_out_casting(name):
    """An output dtype the result cannot be cast to under same_kind: NumPy's UFuncTypeError
    (_UFuncOutputCastingError)."""
    u = getattr(numpy, name)
    sig = [t for t in u.types if not EXCLUDED_LETTERS & set(t)][-1]
    outc = sig.split("->")[1]
    kind = numpy.dtype(outc[0]).kind
    bad = {"f": "i", "c": "d", "i": "?", "u": "?"}.get(kind)
    if bad is None:
        pytest.skip("a bool result casts to every dtype")
    nargs = [v for v, _ in operands(name, sig, "1d")]
    shape = numpy.broadcast_shapes(*[a.shape for a in nargs])
    outs_n = tuple(numpy.zeros(shape, bad if k == 0 else c) for k, c in enumerate(outc))
    outs_c = tuple(cupynum.zeros(shape, bad if k == 0 else c) for k, c in enumerate(outc))
    before = numpy.asarray(outs_c[0]).copy()
    e = _raises_like_numpy(lambda: u(*nargs, out=outs_n),
                           lambda: getattr(cupynum, name)(*[cupynum.asarray(a) for a in nargs], out=outs_c))
    assert isinstance(e, numpy._core._exceptions._UFuncOutputCastingError)
    numpy.testing.assert_array_equal(numpy.asarray(outs_c[0]), before)


@pytest.mark.parametrize("name", ERROR_UFUNCS)
def test_wrong_arity(name):
    u = getattr(numpy, name)
    a = numpy.ones(3)
    ca = cupynum.ones(3)
    _raises_like_numpy(lambda: u(*[a] * (u.nin - 1)),
                       lambda: getattr(cupynum, name)(*[ca] * (u.nin - 1)))
    _raises_like_numpy(lambda: u(*[a] * (u.nargs + 1)),
                       lambda: getattr(cupynum, name)(*[ca] * (u.nargs + 1)))
    with pytest.raises(TypeError):
        cupynum._core.ufunc(name, (ca,) * (u.nin + 1), None)


def test_no_loop_is_numpys_error():
    """An input dtype the ufunc has no loop for: NumPy's UFuncTypeError, raised at the call."""
    _raises_like_numpy(lambda: numpy.left_shift(numpy.ones(3), 1),
                       lambda: cupynum.left_shift(cupynum.ones(3), 1))
    _raises_like_numpy(lambda: numpy.gcd(numpy.ones(3), 2),
                       lambda: cupynum.gcd(cupynum.ones(3), 2))


@pytest.mark.parametrize("dt", ["b", "B", "h", "H", "i", "I", "l", "L"])
@pytest.mark.parametrize("name", ["floor_divide", "remainder", "fmod", "divmod"])
def test_integer_division_by_zero(name, dt):
    """NumPy's values (0) for integer division by zero."""
    a = numpy.array([5, 0, 7, 100], dtype=dt)
    b = numpy.array([0, 0, 3, 0], dtype=dt)
    want = _call(getattr(numpy, name), [a, b])
    got = _call(getattr(cupynum, name), [cupynum.asarray(a), cupynum.asarray(b)])
    for g, w in zip(got if isinstance(got, tuple) else (got,), want if isinstance(want, tuple) else (want,)):
        assert_matches(name, g, w, f"{name} {dt}")
