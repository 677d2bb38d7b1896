"""The scalar fast paths (csrc/module/fastpath.c): `a[i]` of a 1-d array and `a.sum()`,
`a.prod()`, `a.max()`, `a.min()` (and the module functions) without arguments read the store in
place.  They must give NumPy's values and scalar types, the same bits as the general path, see the
values of queued ops, and leave errors to the general path (NumPy's exceptions)."""

import tracemalloc
import warnings

import numpy
import pytest

import cupynum
from cupynum import _core

from conftest import ALL_DTYPES, dtype_id, sample


def close_scalar(got, ref, name):
    """NumPy's value: exact for integers, bools and extremes; float sums and products to rounding
    (ranks combine partial results in their own order)."""
    if name in ("sum", "prod") and numpy.dtype(type(ref)).kind in "fc":
        assert type(got) is type(ref)
        rtol = {2: 1e-2, 4: 1e-5}.get(numpy.dtype(type(ref)).itemsize, 1e-5 if
                                       numpy.dtype(type(ref)).kind == "c" and
                                       numpy.dtype(type(ref)).itemsize == 8 else 1e-12)
        numpy.testing.assert_allclose(got, ref, rtol=rtol)
    else:
        same_scalar(got, ref)


def same_scalar(got, ref):
    assert type(got) is type(ref), (type(got), type(ref))
    if isinstance(ref, (numpy.floating, numpy.complexfloating)) and numpy.isnan(ref):
        assert numpy.isnan(got)
    else:
        assert got == ref
    assert numpy.asarray(got).tobytes() == numpy.asarray(ref).tobytes()


VIEWS = ["x", "x[::-1]", "x[1::3]", "x[5:6]"]


@pytest.mark.parametrize("dtype", ALL_DTYPES, ids=dtype_id)
@pytest.mark.parametrize("view", VIEWS)
def test_scalar_index_of_1d_arrays(dtype, view):
    ref_x = sample((100,), dtype, seed=3)
    x = cupynum.array(ref_x)
    ref, got = eval(view, {"x": ref_x}), eval(view, {"x": x})
    for i in sorted({0, len(ref) // 2, len(ref) - 1, -1, -len(ref)}):
        same_scalar(got[i], ref[i])


@pytest.mark.parametrize("key", [100, -101, 2**70, -2**70])
def test_scalar_index_out_of_range_raises_numpys_error(key):
    ref, x = numpy.arange(100.0), cupynum.arange(100.0)
    with pytest.raises(IndexError) as want:
        ref[key]
    with pytest.raises(IndexError) as got:
        x[key]
    if abs(key) < 2**63:   # (beyond an index-sized integer the general path's message differs)
        assert str(got.value) == str(want.value)


def test_scalar_index_sees_queued_writes_and_complex_parts():
    ref = numpy.arange(10, dtype=numpy.complex128) * (1 + 2j)
    x = cupynum.array(ref)
    x[3] = 7 - 1j
    ref[3] = 7 - 1j
    y = x * 2.0
    same_scalar(y[3], (ref * 2.0)[3])
    same_scalar(x.imag[3], ref.imag[3])
    same_scalar(x.real[-1], ref.real[-1])
    m = cupynum.array(numpy.arange(12.0).reshape(3, 4))
    same_scalar(m[1, 2], numpy.arange(12.0).reshape(3, 4)[1, 2])
    assert isinstance(m[1], cupynum.ndarray)


REDUCTIONS = [("sum", "add"), ("prod", "multiply"), ("max", "maximum"), ("min", "minimum")]


@pytest.mark.parametrize("dtype", ALL_DTYPES, ids=dtype_id)
@pytest.mark.parametrize("shape", [(), (1,), (100,), (7, 9), (3, 1, 4)], ids=str)
@pytest.mark.parametrize("name, op", REDUCTIONS)
def test_full_reductions_without_arguments(dtype, shape, name, op):
    ref_x = sample(shape, dtype, seed=5, low=0, high=3)
    x = cupynum.array(ref_x)
    with numpy.errstate(over="ignore"):    # float16 products of 100 values overflow
        want = getattr(ref_x, name)()
        want_f = getattr(numpy, name)(ref_x)
    close_scalar(getattr(x, name)(), want, name)
    close_scalar(getattr(cupynum, name)(x), want_f, name)
    # the same bits as the general path (a reduction op through the queue)
    acc = numpy.dtype(type(want))
    general = _core.to_scalar(_core.reduce(op, x, tuple(range(x.ndim)), acc))
    same_scalar(getattr(x, name)(), general)


@pytest.mark.parametrize("dtype", [numpy.float32, numpy.float64], ids=dtype_id)
def test_full_reduction_of_strided_views_and_queued_values(dtype):
    # values near 1: products stay finite, whatever the order of the partial products
    ref = (numpy.arange(300, dtype=dtype).reshape(10, 30) % 7) * dtype(0.01) + dtype(0.99)
    x = (cupynum.arange(300, dtype=dtype).reshape(10, 30) % 7) * dtype(0.01) + dtype(0.99)
    for f in (lambda a: a[::-1, 1::2], lambda a: a.T, lambda a: a[3], lambda a: a * 2 + 1):
        for name in ("sum", "prod", "max", "min"):
            with numpy.errstate(over="ignore"):    # the product of (2a + 1) overflows float32
                want = getattr(f(ref), name)()
            with cupynum.errstate(over="ignore"):
                got = getattr(f(x), name)()
            close_scalar(got, want, name)


def test_full_reductions_with_arguments_and_errors_take_the_general_path():
    ref = numpy.arange(12.0).reshape(3, 4)
    x = cupynum.array(ref)
    numpy.testing.assert_array_equal(numpy.asarray(x.sum(0)), ref.sum(0))
    numpy.testing.assert_array_equal(numpy.asarray(x.max(axis=1, keepdims=True)),
                                     ref.max(axis=1, keepdims=True))
    same_scalar(x.sum(dtype=numpy.float32), ref.sum(dtype=numpy.float32))
    same_scalar(x.min(initial=-1.0), ref.min(initial=-1.0))
    same_scalar(cupynum.sum([1, 2, 3]), numpy.sum([1, 2, 3]))
    for name in ("max", "min"):
        with pytest.raises(ValueError) as want:
            getattr(numpy.zeros(0), name)()
        with pytest.raises(ValueError) as got:
            getattr(cupynum.zeros(0), name)()
        assert str(got.value) == str(want.value)
    same_scalar(cupynum.zeros(0).sum(), numpy.zeros(0).sum())
    same_scalar(cupynum.zeros(0, dtype=numpy.int8).prod(), numpy.zeros(0, dtype=numpy.int8).prod())
    with pytest.raises(TypeError):
        x.sum(1, 2, 3, 4, 5, 6, 7, 8)


def test_failed_deferred_values_raise_on_the_fast_paths():
    rows = cupynum.array(numpy.array([[2, 3, 4], [1, -1, 2]]))
    b = cupynum.power.reduce(rows, axis=0)    # integer to a negative power fails, deferred
    with pytest.raises(ValueError, match="negative integer powers"):
        b.sum()
    with pytest.raises(ValueError, match="negative integer powers"):
        b[0]


# Data whose reports do not depend on the order of the reduction (ranks reduce in another order):
# overflow for sum and prod; invalid for sum; invalid for prod.
_REPORTING = {"over": [1e308] * 8, "inf-inf": [numpy.inf, -numpy.inf] * 4,
              "inf*0": [numpy.inf, 0.0] * 4}


@pytest.mark.parametrize("case", sorted(_REPORTING))
@pytest.mark.parametrize("mode", ["warn", "raise", "ignore"])
@pytest.mark.parametrize("name", ["sum", "prod", "max", "min"])
def test_fast_full_reduction_reports_as_numpy(name, mode, case):
    """The fast path's floating-point findings are reported under the error mode as NumPy's."""
    data = numpy.array(_REPORTING[case])
    outcomes = []
    for mod in (numpy, cupynum):
        a = mod.array(data)
        with warnings.catch_warnings(record=True) as w, mod.errstate(all=mode):
            warnings.simplefilter("always")
            try:
                r = getattr(a, name)()
                outcomes.append((repr(float(r)), [str(x.message) for x in w
                                                  if x.category is RuntimeWarning]))
            except FloatingPointError as e:
                outcomes.append(("raised", str(e)))
    assert outcomes[1] == outcomes[0]


# ---- nonzero and take (fastpath.c: nonzero_rows; _selection.take) ---------------------------------

def _untiled(a):
    return not _core._tiling(a)["tiled"]


@pytest.mark.parametrize("shape", [(1,), (100,), (7, 9), (2, 3, 4)])
def test_nonzero_rows_forms(shape):
    """nonzero of a contiguous bool array counted in place: NumPy's tuple (int64 rows), also for a
    mask a queued op is still writing, all-false and all-true masks; the forms it declines
    (strided, other dtypes, 0-d, empty, NumPy input) are NumPy's too."""
    from conftest import check
    n = sample(shape, numpy.bool_, seed=2)
    c = cupynum.array(n)
    assert (_core.nonzero_rows(c) is None) == (not _untiled(c))
    check(cupynum.nonzero(c), numpy.nonzero(n))
    check(c.nonzero(), n.nonzero())
    x = sample(shape, numpy.float64, seed=3)
    cx = cupynum.array(x)
    pending = cx > 0                          # queued, not yet computed
    check(cupynum.nonzero(pending), numpy.nonzero(x > 0))
    for m in (numpy.zeros(shape, bool), numpy.ones(shape, bool)):
        check(cupynum.nonzero(cupynum.array(m)), numpy.nonzero(m))
    r = cupynum.nonzero(c)
    r[0][...] = -1                            # the result is new: the mask is unchanged
    check(c, n)
    strided = c[..., ::2]
    if shape[-1] > 2:
        assert _core.nonzero_rows(strided) is None
    check(cupynum.nonzero(strided), numpy.nonzero(n[..., ::2]))
    assert _core.nonzero_rows(cx) is None
    check(cupynum.nonzero(cx), numpy.nonzero(x))
    assert _core.nonzero_rows(cupynum.zeros(0, bool)) is None
    check(cupynum.nonzero(cupynum.zeros(0, bool)), numpy.nonzero(numpy.zeros(0, bool)))
    assert _core.nonzero_rows(n) is None
    with pytest.raises(ValueError):
        cupynum.nonzero(cupynum.array(True))


def test_take_forms():
    """take of a cupynum index array, a list, a NumPy array, a 0-d index (NumPy's scalar), along
    axes and flattened, with NumPy's results and IndexError."""
    from conftest import check
    n = sample((5, 6), numpy.float64, seed=4)
    c = cupynum.array(n)
    i = numpy.array([4, -1, 0, 2, 2])
    for ix in (cupynum.array(i), list(i), i):
        for axis in (None, 0, 1, -1):
            check(cupynum.take(c, ix, axis=axis), numpy.take(n, i, axis=axis))
        check(cupynum.take(c[0], ix), numpy.take(n[0], i))
    check(cupynum.take(c, cupynum.array(3)), numpy.take(n, numpy.array(3)))
    check(cupynum.take(c, cupynum.array([[1, 2], [3, 29]])), numpy.take(n, [[1, 2], [3, 29]]))
    with pytest.raises(IndexError) as en:
        numpy.take(n[0], [6])
    with pytest.raises(IndexError) as ec:
        cupynum.take(c[0], cupynum.array([6]))
    assert str(ec.value) == str(en.value)


def _outcome(f):
    """(result or exception type, warning types) of f()."""
    with warnings.catch_warnings(record=True) as w:
        warnings.simplefilter("always")
        try:
            r = f()
            cupynum.sync()
        except Exception as e:  # noqa: BLE001  (NumPy is the oracle)
            r = type(e)
    return r, [type(x.message) for x in w]


@pytest.mark.parametrize("mode", [None, "ignore", "warn", "raise", "call"])
def test_cumsum_reports_at_the_call_under_each_errstate(mode):
    """accumulate's flush at the call (_ufunc._report_now recognises NumPy's default errstate
    without geterr()): an overflowing cumsum warns or raises at the call as NumPy's, or not at
    all under 'ignore'."""
    from conftest import check
    x = numpy.array([1e308, 1e308, 1.0])
    c = cupynum.array(x)
    seen = []
    kw = {} if mode is None else {"all": mode} if mode != "call" else {"all": "call", "call": lambda *a: seen.append(a)}
    with numpy.errstate(**kw):
        rn, wn = _outcome(lambda: numpy.cumsum(x))
        rc, wc = _outcome(lambda: cupynum.cumsum(c))
    assert wc == wn
    if isinstance(rn, type):
        assert rc is rn
    else:
        check(rc, rn)
    if mode == "call":
        assert len(seen) == 2


@pytest.mark.parametrize("dtype", ["float64", "float32", "int16", "bool", "complex64"])
def test_sort_and_norm_of_vectors(dtype):
    """sort of a vector (the op at once) and linalg.norm of a vector (dot1 and NumPy's sqrt of
    the scalar) against NumPy: views, NaN, keepdims, the axis and kind forms that take the
    general path and its errors."""
    from conftest import check
    x = sample((37,), dtype, seed=6)
    if dtype.startswith("float"):
        x[[3, 20]] = numpy.nan
    c = cupynum.array(x)
    for xn, xc in ((x, c), (x[::-3], c[::-3])):
        for kw in ({}, {"axis": 0}, {"axis": -1}, {"kind": "stable"}, {"stable": True},
                   {"axis": None}):
            check(cupynum.sort(xc, **kw), numpy.sort(xn, **kw))
        check(cupynum.linalg.norm(xc), numpy.linalg.norm(xn), rtol=1e-6 if dtype in ("float32", "complex64") else 1e-14)
        check(cupynum.linalg.norm(xc, keepdims=True), numpy.linalg.norm(xn, keepdims=True),
              rtol=1e-6 if dtype in ("float32", "complex64") else 1e-14)
    r = cupynum.sort(c)
    r[...] = 0
    check(c, x)
    for bad in ({"axis": 1}, {"axis": True}, {"kind": "bogus"}):
        with pytest.raises(Exception) as en:
            numpy.sort(x, **bad)
        with pytest.raises(type(en.value)):
            cupynum.sort(c, **bad)

ITEM_ARGS = [(), (0,), (-1,), (1,), (5,), (-7,), (100,), (-100,), ((),), (0, 0), (1, -1),
             (2, 3, 1), ((1, 2),), (numpy.int64(3),), (numpy.uint8(2),), (True,), (1.0,), ("a",),
             ([0],), (2**70,), (None,)]


@pytest.mark.parametrize("dtype", ALL_DTYPES, ids=dtype_id)
@pytest.mark.parametrize("shape", [(), (1,), (1, 1), (12,), (3, 4), (3, 5, 2)], ids=str)
@pytest.mark.parametrize("view", ["x", "x.T", "x[::-1, ...] if x.ndim else x"])
def test_item_reads_one_element_as_numpy(dtype, shape, view):
    """a.item(*args): NumPy's Python scalar (value and type) for a flat index, a multi-index or
    none (size 1), also through views; NumPy's exception type and message for everything else."""
    ref_x = sample(shape, dtype, seed=11)
    x = cupynum.array(ref_x)
    ref, got = eval(view, {"x": ref_x}), eval(view, {"x": x})
    for args in ITEM_ARGS:
        try:
            want, want_err = ref.item(*args), None
        except Exception as e:   # noqa: BLE001 -- NumPy's error, whichever it is
            want, want_err = None, (type(e), str(e))
        try:
            have, have_err = got.item(*args), None
        except Exception as e:   # noqa: BLE001
            have, have_err = None, (type(e), str(e))
        assert have_err == want_err, args
        assert type(have) is type(want), args
        if want is not None:
            assert numpy.asarray(have).tobytes() == numpy.asarray(want).tobytes(), args


def test_item_sees_queued_writes_and_moves_one_element():
    """item(i) reads the element after the queued ops that write it, without gathering the array:
    on any number of ranks and from a device at most a few elements' bytes travel (the whole array
    is 80 kB), and no NumPy copy of it is made."""
    ref = numpy.arange(10_000.0)
    x = cupynum.array(ref)
    x[7] = -1.5
    ref[7] = -1.5
    y = x * 3.0
    for i in (7, -1, 5_000):
        same_scalar(y.item(i), (ref * 3.0).item(i))
    y.item(0)
    before = cupynum.runtime_stats()
    tracemalloc.start()
    vals = [y.item(i) for i in (1, 9_999, 4_321)]
    peak = tracemalloc.get_traced_memory()[1]   # NumPy's buffers are traced too
    tracemalloc.stop()
    after = cupynum.runtime_stats()
    assert peak < 8_000, peak
    assert vals == [(ref * 3.0).item(i) for i in (1, 9_999, 4_321)]
    assert after["bytes_sent"] - before["bytes_sent"] <= 3 * 64
    assert after["bytes_to_host"] - before["bytes_to_host"] <= 3 * 64   # (a device: 8 each)


def test_item_in_place_of_virtual_strided_and_negative_indices():
    """item() reads the element in place (fastpath.c, cpn_fast_item) with negative indices per
    dimension, through strided and reversed views of 3-d arrays; a store not yet written (an
    arange) reads its computed element; each as NumPy's Python scalar, type and bits."""
    r = cupynum.arange(50, dtype=numpy.float32)
    same_scalar(r.item(-3), numpy.arange(50, dtype=numpy.float32).item(-3))
    for dtype in ("?", "i1", "u8", "f2", "f4", "c8", "c16"):
        n = sample((4, 5, 6), numpy.dtype(dtype), seed=3)
        c = cupynum.array(n)
        for view in (lambda a: a, lambda a: a[::-1, 1::2, ::3], lambda a: a.transpose(2, 0, 1)):
            nv, cv = view(n), view(c)
            for at in ((0, 0, 0), (-1, -1, -1), (1, -2, 0), (-nv.shape[0], 0, -1)):
                want, have = nv.item(*at), cv.item(*at)
                assert type(have) is type(want) and numpy.asarray(have).tobytes() == numpy.asarray(want).tobytes()
            assert cv.item(nv.size - 1) == nv.item(nv.size - 1)
