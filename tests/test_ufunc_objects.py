"""cupynum.ufunc objects: one per NumPy ufunc (aliases are one object), NumPy's attributes, call
keywords (out= incl. tuples and positional outputs, where=, dtype=, signature=, casting=), the
methods reduce / accumulate / reduceat / outer / at, and numpy.<ufunc>.<method>(cupynum array)
running in cupynum.  NumPy is the oracle throughout."""

import warnings

import numpy
import pytest
from numpy.exceptions import AxisError

import cupynum
from conftest import ALL_DTYPES, check, dtype_id, sample

DISTRIBUTED = cupynum.runtime_info()["ranks"] > 1
# On several ranks the dtype sweeps shrink to a representative subset.
SWEEP_DTYPES = ALL_DTYPES if not DISTRIBUTED else [
    numpy.dtype(t) for t in ("bool", "int32", "uint8", "float64", "complex128")]
UFUNC_NAMES = sorted(n for n in dir(numpy) if isinstance(getattr(numpy, n), numpy.ufunc))
NATIVE_BINARY = [n for n in ("add", "subtract", "multiply", "divide", "maximum", "minimum",
                             "bitwise_and", "bitwise_or", "bitwise_xor", "floor_divide",
                             "remainder", "power")]


def _tol(dtype):
    d = numpy.dtype(dtype)
    if d.kind in "biu":
        return 0.0, 0.0
    return (1e-2, 1e-2) if d.itemsize <= 2 or d == numpy.complex64 and False else \
        (1e-5, 1e-5) if d in (numpy.float32, numpy.complex64) else (1e-12, 1e-12)


# ---- the objects ----------------------------------------------------------------------------

@pytest.mark.parametrize("name", UFUNC_NAMES)
def test_every_numpy_ufunc_is_a_cupynum_ufunc(name):
    f, npf = getattr(cupynum, name), getattr(numpy, name)
    assert isinstance(f, cupynum.ufunc) or name == "matmul"   # matmul: a native function
    if name == "matmul":
        return
    assert f.__name__ == npf.__name__
    assert repr(f) == repr(npf)
    for attr in ("nin", "nout", "nargs", "identity", "types", "ntypes", "signature", "__doc__"):
        assert getattr(f, attr) == getattr(npf, attr), attr
    assert f._native == cupynum._core.has_op(npf.__name__)


def test_aliases_are_one_object_iff_numpys_are():
    for a in UFUNC_NAMES:
        for b in UFUNC_NAMES:
            if a < b and "matmul" not in (a, b):
                assert (getattr(cupynum, a) is getattr(cupynum, b)) == \
                    (getattr(numpy, a) is getattr(numpy, b)), (a, b)
    assert cupynum.abs is cupynum.absolute and cupynum.true_divide is cupynum.divide


def test_ufunc_type_is_not_instantiable():
    with pytest.raises(TypeError):
        cupynum.ufunc()


# ---- calls ------------------------------------------------------------------------------------

@pytest.mark.parametrize("dtype", ["int32", "float64", "complex64"])
def test_out_forms(dtype):
    a, b = sample((3, 4), dtype, seed=1), sample((4,), dtype, seed=2)
    ca, cb = cupynum.array(a), cupynum.array(b)
    for how in ("kw", "tuple", "positional"):
        no, co = numpy.zeros((3, 4), dtype), cupynum.zeros((3, 4), dtype)
        if how == "kw":
            r1, r2 = numpy.add(a, b, out=no), cupynum.add(ca, cb, out=co)
        elif how == "tuple":
            r1, r2 = numpy.add(a, b, out=(no,)), cupynum.add(ca, cb, out=(co,))
        else:
            r1, r2 = numpy.add(a, b, no), cupynum.add(ca, cb, co)
        assert r1 is no and r2 is co
        check(co, no)


def test_out_errors():
    a = numpy.arange(3.0)
    ca = cupynum.array(a)
    for bad in (lambda xp, x: xp.add(x, 1, out=xp.zeros(4)),
                lambda xp, x: xp.add(x, 1, out=(xp.zeros(3), xp.zeros(3))),
                lambda xp, x: xp.add(x, 1, xp.zeros(3), out=xp.zeros(3)),
                lambda xp, x: xp.add(x, 1, xp.zeros(3), xp.zeros(3))):
        with pytest.raises(Exception) as e1:
            bad(numpy, a)
        co = cupynum.zeros(4)
        with pytest.raises(type(e1.value)):
            bad(cupynum, ca)
        check(co, numpy.zeros(4))


@pytest.mark.parametrize("name", ["add", "multiply", "maximum", "subtract", "sqrt", "negative"])
@pytest.mark.parametrize("dtype", ["int16", "float32", "float64"])
def test_where_with_out(name, dtype):
    if name == "sqrt" and dtype == "int16":
        dtype = "float64"
    a = sample((3, 4), dtype, seed=3, low=0)
    ca = cupynum.array(a)
    mask = sample((3, 4), "bool", seed=4)
    for m in (mask, mask[0]):        # full and broadcast masks
        no = numpy.full((3, 4), 7, dtype=numpy.result_type(a, a) if name != "sqrt" else "f8")
        co = cupynum.array(no)
        args = (a,) if getattr(numpy, name).nin == 1 else (a, a)
        cargs = (ca,) if len(args) == 1 else (ca, ca)
        getattr(numpy, name)(*args, out=no, where=m)
        r = getattr(cupynum, name)(*cargs, out=co, where=cupynum.array(m))
        assert r is co
        check(co, no, *_tol(dtype))


def test_where_without_out_compares_selected_entries():
    a = sample((3, 4), "float64", seed=5)
    mask = sample((3, 4), "bool", seed=6)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", UserWarning)
        n = numpy.add(a, 1, where=mask)
        c = cupynum.add(cupynum.array(a), 1, where=cupynum.array(mask))
    numpy.testing.assert_array_equal(numpy.asarray(c)[mask], n[mask])
    with pytest.warns(UserWarning):
        cupynum.add(cupynum.array(a), 1, where=cupynum.array(mask))


@pytest.mark.parametrize("kw", [
    {"dtype": "float32"}, {"dtype": "int64"}, {"dtype": "complex128"},
    {"signature": (None, None, "float32")}, {"signature": "dd->d"},
    {"casting": "no"}, {"casting": "unsafe", "dtype": "int8"}, {"casting": "equiv"},
    {"casting": "safe", "dtype": "float16"}, {"casting": "bogus"},
    {"order": "F"}, {"subok": True}, {"dtype": "S3"},
])
@pytest.mark.parametrize("operands", ["ff", "fi", "ii_scalar", "bb"])
def test_call_keywords(kw, operands):
    x = sample((3, 4), "float64", seed=7)
    i = sample((3, 4), "int32", seed=8)
    b = sample((3, 4), "bool", seed=9)
    ops = {"ff": (x, x), "fi": (x, i), "ii_scalar": (i, 3), "bb": (b, b)}[operands]
    cops = tuple(cupynum.array(o) if isinstance(o, numpy.ndarray) else o for o in ops)
    try:
        expected = numpy.add(*ops, **kw)
    except Exception as e:  # noqa: BLE001
        with pytest.raises(type(e)):
            cupynum.add(*cops, **kw)
        return
    got = cupynum.add(*cops, **kw)
    check(got, expected, *_tol(expected.dtype))


def test_out_casting_errors_leave_out_unchanged():
    x = cupynum.array(sample((3,), "float64", seed=10))
    co = cupynum.zeros(3, "int64")
    with pytest.raises(numpy._core._exceptions._UFuncOutputCastingError):
        numpy.add(numpy.ones(3), 1.5, out=numpy.zeros(3, "int64"))
    with pytest.raises(numpy._core._exceptions._UFuncOutputCastingError):
        cupynum.add(x, 1.5, out=co)
    check(co, numpy.zeros(3, "int64"))
    cupynum.add(x, 1.5, out=co, casting="unsafe")
    check(co, (numpy.asarray(x) + 1.5).astype("int64"))


def test_bad_call_arguments():
    x = cupynum.ones(3)
    for bad in (lambda f: f(x), lambda f: f(x, x, x, x), lambda f: f(x, x, foo=1)):
        with pytest.raises(TypeError):
            bad(numpy.add)
        with pytest.raises(TypeError):
            bad(cupynum.add)


# ---- reduce ------------------------------------------------------------------------------------

def _sequential_reduce(npf, n, axis, keepdims):
    """NumPy's reduce of a non-reorderable ufunc along one axis, as NumPy defines it: the binary
    ufunc applied element by element in order.  NumPy 2.4's own float power.reduce skips
    elements on AVX-512 processors ([2., 3., 1.] gives 2.0), so the oracle is its binary ufunc."""
    x = numpy.moveaxis(n, axis, 0)
    acc = x[0].copy()
    for i in range(1, x.shape[0]):
        acc = npf(acc, x[i]).astype(acc.dtype)
    return numpy.expand_dims(acc, axis) if keepdims else acc


def _reorderable(npf, n):
    try:
        npf.reduce(n, axis=(0, 1))
    except ValueError as e:
        return "not reorderable" not in str(e)
    except Exception:  # noqa: BLE001
        return True
    return True


@pytest.mark.parametrize("dtype", SWEEP_DTYPES, ids=dtype_id)
@pytest.mark.parametrize("name", NATIVE_BINARY)
def test_reduce(name, dtype):
    n = sample((2, 3, 4), dtype, seed=11, low=1, high=3)
    c = cupynum.array(n)
    npf, cpf = getattr(numpy, name), getattr(cupynum, name)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        sequential = (n.dtype.kind in "fc" and not _reorderable(npf, n)
                      and npf(n, n).dtype == n.dtype)
    for axis in (0, 1, -1, None, (0, 2), ()):
        for keepdims in (False, True):
            with warnings.catch_warnings():
                warnings.simplefilter("ignore")
                try:
                    e = npf.reduce(n, axis=axis, keepdims=keepdims)
                    if sequential and isinstance(axis, int) and n.shape[axis] > 0:
                        e = _sequential_reduce(npf, n, axis, keepdims)
                except Exception as ex:  # noqa: BLE001
                    with pytest.raises(type(ex)):
                        cpf.reduce(c, axis=axis, keepdims=keepdims)
                    continue
                g = cpf.reduce(c, axis=axis, keepdims=keepdims)
            check(g, e, *_tol(e.dtype))


@pytest.mark.parametrize("name", ["add", "multiply", "maximum", "minimum", "bitwise_or",
                                  "bitwise_and", "bitwise_xor"])
def test_reduce_keywords(name):
    n = sample((3, 4), "int32", seed=12, low=0, high=9)
    c = cupynum.array(n)
    npf, cpf = getattr(numpy, name), getattr(cupynum, name)
    mask = numpy.array([True, False, True, True])
    for kw in ({"initial": 2}, {"where": mask, "initial": 1}, {"dtype": "int64"},
               {"dtype": "float64"} if name in ("add", "multiply", "maximum") else {},
               {"where": mask} if npf.identity is not None else {"initial": 0}):
        for axis in (0, 1, None):
            ckw = dict(kw)
            if "where" in ckw:
                ckw["where"] = cupynum.array(ckw["where"])
            try:
                e = npf.reduce(n, axis=axis, **kw)
            except Exception as ex:  # noqa: BLE001
                with pytest.raises(type(ex)):
                    cpf.reduce(c, axis=axis, **ckw)
                continue
            check(cpf.reduce(c, axis=axis, **ckw), e)
    no, co = numpy.zeros(4, "int64"), cupynum.zeros(4, "int64")
    assert cpf.reduce(c, axis=0, out=co) is co
    npf.reduce(n, axis=0, out=no)
    check(co, no)


def test_reduce_errors():
    n = numpy.ones((2, 3))
    c = cupynum.ones((2, 3))
    cases = [
        lambda xp, a: xp.add.reduce(a, axis=2),
        lambda xp, a: xp.add.reduce(a, axis=(0, 0)),
        lambda xp, a: xp.subtract.reduce(a, axis=(0, 1)),
        lambda xp, a: xp.maximum.reduce(a[:, :0], axis=1),
        lambda xp, a: xp.maximum.reduce(a, where=xp.ones((2, 3), bool)),
        lambda xp, a: xp.sqrt.reduce(a),
        lambda xp, a: xp.add.reduce(a, axis=0, out=xp.zeros(2)),
        lambda xp, a: xp.add.reduce(a, axis=0, out=xp.zeros((1, 3))),
        lambda xp, a: xp.add.accumulate(a[0, 0]),
        lambda xp, a: xp.add.accumulate(a, out=xp.zeros(4)),
        lambda xp, a: xp.add.reduceat(a, [0, 5], axis=1),
        lambda xp, a: xp.sqrt.outer(a, a),
    ]
    for f in cases:
        with pytest.raises(Exception) as e1:
            f(numpy, n)
        with pytest.raises(type(e1.value)) as e2:
            f(cupynum, c)
        if not isinstance(e1.value, AxisError) and "remapped" not in str(e1.value):
            assert str(e2.value) == str(e1.value) or "wrong" in str(e2.value), \
                (str(e2.value), str(e1.value))


def test_reduce_empty_uses_identity():
    for name in ("add", "multiply", "bitwise_or", "bitwise_and", "bitwise_xor"):
        n, c = numpy.zeros((0, 3), "int32"), cupynum.zeros((0, 3), "int32")
        check(getattr(cupynum, name).reduce(c, axis=0), getattr(numpy, name).reduce(n, axis=0))


def test_op_table_identities_are_numpys():
    """Every reduction identity of the op table is the NumPy ufunc's identity."""
    names = [n for n in UFUNC_NAMES if cupynum._core.has_op(n)]
    assert "logical_and" in names
    for name in names:
        ident = cupynum._core.op_info(name)["identity"]
        if ident is not None:
            assert getattr(numpy, name).identity == ident, name
    for name in ("add", "multiply", "logical_and", "logical_or", "logical_xor"):
        assert cupynum._core.op_info(name)["identity"] is not None, name
        assert getattr(cupynum, name).identity == getattr(numpy, name).identity


def test_op_table_reduce_columns_are_numpys():
    """ops.def's reduce and acc columns as NumPy has them: a reduction over two axes at once is
    refused exactly for the ops the table calls not reorderable, and the accumulator dtype the
    table gives (add, multiply widen) is NumPy's reduce dtype; the combining ops have the partial
    identity their class says (a combining reduction of an empty array on each part)."""
    names = sorted({cupynum._core.op_info(n)["name"] for n in UFUNC_NAMES if cupynum._core.has_op(n)})
    x = numpy.ones((2, 3), "int64")
    seen = set()
    for name in names:
        info, npu = cupynum._core.op_info(name), getattr(numpy, name)
        if info["nin"] != 2 or info["nout"] != 1:
            continue
        assert not info["combines"] or info["reorderable"], name
        reorderable = None
        for dt in ("int64", "float64", "bool"):   # a dtype the op reduces in
            try:
                npu.reduce(x.astype(dt), axis=(0, 1))
                reorderable = True
            except ValueError:
                reorderable = False
            except TypeError:
                continue
            break
        if reorderable is None:   # NumPy reduces it in no dtype (comparisons): nothing to compare
            continue
        assert info["reorderable"] == reorderable, name
        seen.add(reorderable)
        for dt in ("bool", "int8", "uint16", "int32", "uint32", "int64", "float32", "complex64"):
            acc = cupynum._core.reduce_dtype(name, numpy.dtype(dt))
            if acc is None:
                continue
            assert acc == npu.reduce(numpy.zeros(2, dt)).dtype, (name, dt)
    assert seen == {True, False}
    for name in ("add", "multiply", "maximum", "minimum"):
        assert cupynum._core.op_info(name)["combines"], name
    assert cupynum._core.reduce_dtype("maximum", numpy.dtype("int8")) is None


@pytest.mark.parametrize("dtype", ["bool", "int32", "float64", "complex128"])
@pytest.mark.parametrize("name", ["logical_and", "logical_or", "logical_xor"])
def test_logical_reduce_identity(name, dtype):
    """Empty logical reductions give NumPy's identity, natively (the kernel starts from it)."""
    npf, cpf = getattr(numpy, name), getattr(cupynum, name)
    for shape, axis in (((0,), None), ((0, 3), 0), ((3, 0), 1), ((2, 0, 3), (0, 1)), ((4, 3), 0)):
        n = sample(shape, dtype, seed=3)
        c = cupynum.array(n)
        for keepdims in (False, True):
            check(cpf.reduce(c, axis=axis, keepdims=keepdims),
                  npf.reduce(n, axis=axis, keepdims=keepdims))
    check(cpf.reduce([]), npf.reduce([]))
    e = cupynum.array(numpy.zeros((0, 2), bool))
    check(cupynum._core.reduce(name, e, (0,), numpy.dtype(bool)), npf.reduce(numpy.zeros((0, 2), bool), axis=0))


# ---- accumulate, reduceat, outer, at ----------------------------------------------------------

@pytest.mark.parametrize("dtype", ["bool", "int8", "uint16", "int64", "float32", "float64",
                                   "complex128"])
@pytest.mark.parametrize("name", NATIVE_BINARY)
def test_accumulate(name, dtype):
    n = sample((3, 4, 5), dtype, seed=13, low=1, high=3)
    c = cupynum.array(n)
    npf, cpf = getattr(numpy, name), getattr(cupynum, name)
    for view in (lambda a: a, lambda a: a[:, ::-1, ::2]):
        for axis in (0, 1, 2, -1):
            with warnings.catch_warnings():
                warnings.simplefilter("ignore")
                try:
                    e = npf.accumulate(view(n), axis=axis)
                except Exception as ex:  # noqa: BLE001
                    with pytest.raises(type(ex)):
                        cpf.accumulate(view(c), axis=axis)
                    continue
                g = cpf.accumulate(view(c), axis=axis)
            check(g, e, *_tol(e.dtype))


def test_accumulate_dtype_and_out():
    n = sample((4, 3), "int8", seed=14)
    c = cupynum.array(n)
    check(cupynum.add.accumulate(c), numpy.add.accumulate(n))
    check(cupynum.add.accumulate(c, dtype="float32"), numpy.add.accumulate(n, dtype="float32"))
    check(cupynum.maximum.accumulate(c, axis=1), numpy.maximum.accumulate(n, axis=1))
    no, co = numpy.zeros((4, 3)), cupynum.zeros((4, 3))
    numpy.multiply.accumulate(n, out=no)
    assert cupynum.multiply.accumulate(c, out=co) is co
    check(co, no)


@pytest.mark.parametrize("name", ["add", "multiply", "maximum", "minimum", "subtract"])
def test_reduceat(name):
    n = sample((6, 8), "int32", seed=15, low=1, high=4)
    c = cupynum.array(n)
    npf, cpf = getattr(numpy, name), getattr(cupynum, name)
    for idx in ([0, 4, 1, 5], [0, 2, 2, 7], [3], [5, 0]):
        for axis in (0, 1):
            if max(idx) >= n.shape[axis]:
                continue
            check(cpf.reduceat(c, idx, axis=axis), npf.reduceat(n, idx, axis=axis))
    check(cpf.reduceat(c, cupynum.array([0, 3]), axis=1, dtype="float64"),
          npf.reduceat(n, numpy.array([0, 3]), axis=1, dtype="float64"))


@pytest.mark.parametrize("name", ["add", "subtract", "multiply", "maximum", "power", "equal",
                                  "less"])
def test_outer(name):
    a, b = sample((3,), "int64", seed=16, low=0, high=4), sample((2, 2), "int64", seed=17,
                                                                   low=0, high=3)
    check(getattr(cupynum, name).outer(cupynum.array(a), cupynum.array(b)),
          getattr(numpy, name).outer(a, b))
    check(getattr(cupynum, name).outer(cupynum.array(a[::-1]), 2),
          getattr(numpy, name).outer(a[::-1], 2))


@pytest.mark.parametrize("index", [[0, 0, 1, 4, 4, 4], numpy.array([2, 2, 3]), slice(1, 4),
                                   3, (slice(None, None, 2),), numpy.array([True, False] * 3)])
@pytest.mark.parametrize("name", ["add", "multiply", "maximum", "subtract", "negative"])
def test_at(name, index):
    n = sample((6,), "float64", seed=18)
    c = cupynum.array(n)
    npf, cpf = getattr(numpy, name), getattr(cupynum, name)
    if npf.nin == 1:
        npf.at(n, index)
        assert cpf.at(c, index) is None
    else:
        npf.at(n, index, 2.5)
        assert cpf.at(c, index, 2.5) is None
    check(c, n)


def test_at_2d_and_array_values():
    n = sample((3, 4), "int32", seed=19)
    c = cupynum.array(n)
    numpy.add.at(n, ([0, 0, 2], [1, 1, 3]), numpy.array([1, 2, 3], "int32"))
    cupynum.add.at(c, ([0, 0, 2], [1, 1, 3]), cupynum.array([1, 2, 3], "int32"))
    check(c, n)
    numpy.add.at(n, (1, slice(None)), 5)
    cupynum.add.at(c, (1, slice(None)), 5)
    check(c, n)


# ---- NumPy's ufuncs on cupynum arrays -------------------------------------------------------

@pytest.mark.parametrize("method", ["__call__", "reduce", "accumulate", "reduceat", "outer",
                                    "at"])
def test_numpy_ufunc_methods_route_to_cupynum(method, monkeypatch):
    monkeypatch.setenv("CUPYNUM_FALLBACK", "error")   # a fallback would raise
    n = sample((4, 3), "float64", seed=20)
    c = cupynum.array(n)
    args = {"__call__": lambda a: (a, a), "reduce": lambda a: (a,), "accumulate": lambda a: (a,),
            "reduceat": lambda a: (a, [0, 2]), "outer": lambda a: (a[0], a[1]),
            "at": lambda a: (a, [0, 0], 1.0)}[method]
    f = getattr(numpy.add, method) if method != "__call__" else numpy.add
    e, g = f(*args(n)), f(*args(c))
    if method == "at":
        assert e is None and g is None
        check(c, n)
    else:
        assert isinstance(g, cupynum.ndarray)
        check(g, e, rtol=1e-12, atol=1e-12)


def test_numpy_ufunc_keywords_route_to_cupynum(monkeypatch):
    monkeypatch.setenv("CUPYNUM_FALLBACK", "error")
    n = sample((4, 3), "float64", seed=21)
    c = cupynum.array(n)
    check(numpy.add.reduce(c, axis=(0, 1), keepdims=True, initial=1.0),
          numpy.add.reduce(n, axis=(0, 1), keepdims=True, initial=1.0), rtol=1e-12)
    check(numpy.maximum.reduce(c, axis=None, where=c > 0, initial=-10.0),
          numpy.maximum.reduce(n, axis=None, where=n > 0, initial=-10.0))
    co, no = cupynum.zeros((4, 3)), numpy.zeros((4, 3))
    numpy.multiply(c, 2, out=co, where=c > 0)
    numpy.multiply(n, 2, out=no, where=n > 0)
    check(co, no)


def test_non_native_ufunc_falls_back_with_warning(monkeypatch):
    names = [n for n in UFUNC_NAMES if n != "matmul" and not getattr(cupynum, n)._native
             and getattr(numpy, n).signature is None and getattr(numpy, n).nin == 2
             and getattr(numpy, n).nout == 1 and "dd->d" in getattr(numpy, n).types]
    if not names:
        pytest.skip("every binary float ufunc is native")
    name = names[0]
    monkeypatch.setenv("CUPYNUM_FALLBACK", "warn")
    cupynum._fallback.reset_warnings()
    n = sample((3,), "float64", seed=22, low=1)
    c = cupynum.array(n)
    with pytest.warns(cupynum.FallbackWarning):
        r = getattr(cupynum, name)(c, c)
    check(r, getattr(numpy, name)(n, n))
    with pytest.warns(cupynum.FallbackWarning):
        r = getattr(cupynum, name).reduce(c)
    check(r, getattr(numpy, name).reduce(n))
