"""Advanced indexing with several index arrays and the functions built on it (issue 15):
put, take_along_axis, put_along_axis, putmask, place, choose, select, ix_, ndarray.flat
assignments and ufunc.at, compared with NumPy on the same data.

Native cases run under `no_fallback` (any NumPy fallback fails the test); NumPy's errors are
compared word for word with the array unchanged after a failed assignment.  Runs on one rank
and under mpirun (every rank checks the whole result)."""

import os
import subprocess
import sys
import warnings

import numpy
import pytest

import cupynum
from cupynum import _fallback
from conftest import ALL_DTYPES, check, dtype_id, sample

pytestmark = [pytest.mark.device, pytest.mark.mpi_device]

DTYPES = [numpy.dtype(t) for t in ("?", "i1", "i4", "i8", "u2", "u8", "f4", "f8", "c16")]


@pytest.fixture
def no_fallback(monkeypatch):
    def refuse(*args, **kwargs):
        raise AssertionError("fell back to NumPy")
    monkeypatch.setattr(_fallback, "compute", refuse)
    monkeypatch.setattr(_fallback, "call", refuse)


def _pair(shape, dtype, seed=0):
    n = sample(shape, dtype, seed=seed)
    return n, cupynum.array(n)


def _idx(n, shape, seed):
    """Integer indices into a dimension of length n, negatives and repeats included."""
    r = numpy.random.default_rng(seed)
    return r.integers(-n, n, size=shape)


def _conv(k):
    """The key with its NumPy arrays as cupynum arrays."""
    if isinstance(k, tuple):
        return tuple(_conv(x) for x in k)
    return cupynum.array(k) if isinstance(k, numpy.ndarray) else k


def _keys(shape):
    """Keys with several advanced items, adjacent and separated, with slices/None/Ellipsis/ints."""
    a, b, c = shape
    i0, i1, i2 = _idx(a, (4,), 1), _idx(b, (4,), 2), _idx(c, (4, 1), 3)
    return [
        (i0, i1),
        (i0, i1, i2[:, 0]),
        (i0[:, None], i1[None, :3]),
        (slice(None), i1, i2),                         # adjacent after a slice
        (i0, slice(1, None), i2),                      # separated: the broadcast dims first
        (i0, None, i1),                                # separated by None
        (Ellipsis, i1[:2], i2[:2, 0]),
        (1, slice(None), i2),                          # an int and an array, separated
        (slice(None), 1, i2),                          # an int and an array, adjacent
        (i0.tolist(), i1.tolist()),                    # lists
        (numpy.array([], numpy.intp), numpy.array([], numpy.intp)),
        (i0.astype(numpy.int32), i1.astype(numpy.uint8) % b),
        (slice(None, None, -1), i1, slice(None, None, 2)),
    ]


@pytest.mark.parametrize("dtype", DTYPES, ids=dtype_id)
def test_several_arrays_get(no_fallback, dtype):
    shape = (5, 6, 7)
    n, c = _pair(shape, dtype)
    for k in _keys(shape):
        check(c[_conv(k)], n[k])
        check(c[k], n[k])                              # NumPy arrays as indices
    t = n.transpose(2, 0, 1)                           # a view the merge cannot keep
    ct = c.transpose(2, 0, 1)
    for k in _keys(t.shape):
        check(ct[_conv(k)], t[k])


@pytest.mark.parametrize("dtype", DTYPES, ids=dtype_id)
def test_several_arrays_set(no_fallback, dtype):
    shape = (5, 6, 7)
    for j, k in enumerate(_keys(shape)):
        n, c = _pair(shape, dtype)
        r = n[k]
        v = sample(r.shape, dtype, seed=10 + j)
        n[k] = v
        c[_conv(k)] = cupynum.array(v)
        check(c, n)
        n[k] = v[..., :1] if v.ndim else v             # a broadcast value
        c[_conv(k)] = v[..., :1] if v.ndim else v
        check(c, n)
        n[k] = 1
        c[_conv(k)] = 1
        check(c, n)
    # through a transposed view (written back into the base)
    n, c = _pair(shape, dtype)
    nt, ct = n.transpose(2, 0, 1), c.transpose(2, 0, 1)
    k = (_idx(7, (3,), 4), slice(None), _idx(6, (3,), 5))
    nt[k] = 0
    ct[_conv(k)] = 0
    check(c, n)


def test_several_arrays_augmented_and_mask(no_fallback):
    n, c = _pair((6, 5), numpy.float64)
    i, j = numpy.array([0, 0, 2, -1]), numpy.array([1, 1, 3, 0])
    n[i, j] += 1                                        # repeats add once (NumPy)
    c[_conv((i, j))] += 1
    check(c, n)
    m = sample((5,), numpy.bool_, seed=3)
    check(c[i[:1], m], n[i[:1], m])                     # a mask beside an array
    m2 = sample((6, 5), numpy.bool_, seed=4)
    k = (m2, )
    check(c[cupynum.array(m2)], n[k])


@pytest.mark.parametrize("key", [
    ((numpy.array([0, 7]), numpy.array([1, 1]))),
    ((numpy.array([0, 1]), numpy.array([1, -9]))),
    ((numpy.array([0, 1]), numpy.array([1, 2, 1]))),
    ((numpy.array([0]), numpy.array([0]), numpy.array([0]))),
    ((numpy.array([[True, False]]), numpy.array([0]))),
])
def test_several_arrays_errors(key):
    n, c = _pair((6, 5), numpy.int64)
    with pytest.raises(IndexError) as e:
        n[key]
    with pytest.raises(IndexError) as g:
        c[_conv(key)]
    assert str(g.value) == str(e.value)
    before = n.copy()
    with pytest.raises(IndexError) as e:
        n[key] = 3
    with pytest.raises(IndexError) as g:
        c[_conv(key)] = 3
    assert str(g.value) == str(e.value)
    check(c, before)


def test_set_wrong_value_shape():
    n, c = _pair((6, 5), numpy.int64)
    k = (numpy.array([0, 1]), numpy.array([1, 2]))
    with pytest.raises(ValueError) as e:
        n[k] = numpy.arange(3)
    with pytest.raises(ValueError) as g:
        c[_conv(k)] = cupynum.arange(3)
    assert str(g.value) == str(e.value)
    check(c, _pair((6, 5), numpy.int64)[0])


# ---- take_along_axis / put_along_axis ----------------------------------------------------------

@pytest.mark.parametrize("dtype", DTYPES, ids=dtype_id)
@pytest.mark.parametrize("axis", [0, 1, -1, None])
def test_along_axis(no_fallback, dtype, axis):
    n, c = _pair((4, 6), dtype)
    if axis is None:
        ind = _idx(24, (9,), 1)
    else:
        shape = [4, 6]
        shape[axis] = 5
        ind = _idx(n.shape[axis], tuple(shape), 1)
    check(cupynum.take_along_axis(c, cupynum.array(ind), axis=axis),
          numpy.take_along_axis(n, ind, axis=axis))
    v = sample(ind.shape, dtype, seed=7)
    numpy.put_along_axis(n, ind, v, axis)
    cupynum.put_along_axis(c, cupynum.array(ind), cupynum.array(v), axis)
    check(c, n)
    numpy.put_along_axis(n, ind, 1, axis)
    cupynum.put_along_axis(c, ind, 1, axis)
    check(c, n)


def test_along_axis_sorted(no_fallback):
    n, c = _pair((5, 7), numpy.float64)
    o = numpy.argsort(n, axis=1)
    check(cupynum.take_along_axis(c, cupynum.array(o), axis=1), numpy.take_along_axis(n, o, axis=1))


def test_along_axis_errors():
    n, c = _pair((4, 6), numpy.float64)
    for ind, axis in [(numpy.array([[9]]), 1), (numpy.array([1]), 1), (numpy.array([[1.0]]), 0)]:
        with pytest.raises(Exception) as e:
            numpy.take_along_axis(n, ind, axis=axis)
        with pytest.raises(type(e.value)) as g:
            cupynum.take_along_axis(c, cupynum.array(ind), axis=axis)
        assert str(g.value) == str(e.value)


# ---- put / putmask / place ---------------------------------------------------------------------

@pytest.mark.parametrize("dtype", DTYPES, ids=dtype_id)
@pytest.mark.parametrize("mode", ["raise", "wrap", "clip"])
def test_put(no_fallback, dtype, mode):
    n, c = _pair((4, 5), dtype)
    hi = 20 if mode == "raise" else 50
    ind = _idx(hi, (7,), 2)
    v = sample((3,), dtype, seed=5)                     # short values repeat
    numpy.put(n, ind, v, mode=mode)
    cupynum.put(c, cupynum.array(ind), cupynum.array(v), mode=mode)
    check(c, n)
    n.put(ind[:2].tolist(), v[0], mode=mode)
    c.put(ind[:2].tolist(), v[0], mode=mode)
    check(c, n)
    nt, ct = n.T, c.T                                   # no flat view: written back
    numpy.put(nt, ind, v, mode=mode)
    cupynum.put(ct, ind, v, mode=mode)
    check(c, n)


def test_put_errors():
    """NumPy's exception and text; cupynum writes nothing (NumPy's put has written the elements
    before the bad index: the issue's rule, nothing written on failure, is kept here)."""
    n, c = _pair((4, 5), numpy.int64)
    before = n.copy()
    with pytest.raises(IndexError) as e:
        numpy.put(n, [1, 20], [5, 6])
    with pytest.raises(IndexError) as g:
        cupynum.put(c, cupynum.array([1, 20]), [5, 6])
    assert str(g.value) == str(e.value)
    check(c, before)


@pytest.mark.parametrize("dtype", DTYPES, ids=dtype_id)
def test_putmask_place(no_fallback, dtype):
    n, c = _pair((4, 5), dtype)
    m = sample((4, 5), numpy.bool_, seed=3)
    v = sample((3,), dtype, seed=5)
    numpy.putmask(n, m, v)
    cupynum.putmask(c, cupynum.array(m), cupynum.array(v))
    check(c, n)
    numpy.putmask(n, ~m, v[0])
    cupynum.putmask(c, ~m, v[0])
    check(c, n)
    numpy.place(n, m, v)
    cupynum.place(c, cupynum.array(m), cupynum.array(v))
    check(c, n)
    numpy.place(n.T, m.T, v[::-1])
    cupynum.place(c.T, m.T, v[::-1])
    check(c, n)


def test_putmask_place_errors():
    n, c = _pair((4, 5), numpy.float64)
    with pytest.raises(ValueError) as e:
        numpy.putmask(n, numpy.ones(3, bool), 1)
    with pytest.raises(ValueError) as g:
        cupynum.putmask(c, cupynum.ones(3, bool), 1)
    assert str(g.value) == str(e.value)
    with pytest.raises(ValueError) as e:
        numpy.place(n, numpy.ones((4, 5), bool), [])
    with pytest.raises(ValueError) as g:
        cupynum.place(c, cupynum.ones((4, 5), bool), [])
    assert str(g.value) == str(e.value)
    check(c, n)


# ---- choose / select / ix_ ---------------------------------------------------------------------

@pytest.mark.parametrize("dtype", DTYPES, ids=dtype_id)
@pytest.mark.parametrize("mode", ["raise", "wrap", "clip"])
def test_choose(no_fallback, dtype, mode):
    chs = [sample((3, 4), dtype, seed=s) for s in range(3)]
    hi = 3 if mode == "raise" else 7
    a = numpy.random.default_rng(1).integers(0 if mode == "raise" else -4, hi, size=(3, 4))
    check(cupynum.choose(cupynum.array(a), [cupynum.array(x) for x in chs], mode=mode),
          numpy.choose(a, chs, mode=mode))
    check(cupynum.array(a).choose(cupynum.array(numpy.stack(chs)), mode=mode),
          a.choose(numpy.stack(chs), mode=mode))
    check(cupynum.choose(cupynum.array(a[0]), [cupynum.array(x) for x in chs], mode=mode),
          numpy.choose(a[0], chs, mode=mode))          # broadcast


def test_choose_error():
    with pytest.raises(ValueError) as e:
        numpy.choose(numpy.array([0, 3]), [numpy.arange(2), numpy.arange(2)])
    with pytest.raises(ValueError) as g:
        cupynum.choose(cupynum.array([0, 3]), [cupynum.arange(2), cupynum.arange(2)])
    assert str(g.value) == str(e.value)


@pytest.mark.parametrize("dtype", DTYPES, ids=dtype_id)
def test_select(no_fallback, dtype):
    x = sample((4, 5), numpy.float64, seed=1)
    conds = [x < -0.5, x > 0.5, x > 2]
    chs = [sample((4, 5), dtype, seed=s) for s in range(3)]
    for default in (0, 1.5, numpy.array(3, dtype)):
        exp = numpy.select(conds, chs, default)
        got = cupynum.select([cupynum.array(c) for c in conds], [cupynum.array(c) for c in chs],
                             default)
        check(got, exp)
    check(cupynum.select([cupynum.array(conds[0])], [7]), numpy.select([conds[0]], [7]))
    check(cupynum.select([cupynum.array(conds[0])], [chs[0][0]]), numpy.select([conds[0]], [chs[0][0]]))


def test_select_errors():
    for args in [([], []), ([numpy.array([1, 0])], [numpy.array([1, 2])]),
                 ([numpy.array([True])], [1, 2])]:
        with pytest.raises(Exception) as e:
            numpy.select(*args)
        with pytest.raises(type(e.value)) as g:
            cupynum.select([cupynum.array(a) for a in args[0]], args[1])
        assert str(g.value) == str(e.value)


def test_ix(no_fallback):
    n, c = _pair((5, 6, 4), numpy.int32)
    args = ([0, 2, -1], numpy.array([True, False, True, True, False, True]), numpy.array([3, 0]))
    nk, ck = numpy.ix_(*args), cupynum.ix_(*[cupynum.array(a) for a in args])
    assert len(ck) == len(nk)
    for x, y in zip(ck, nk):
        check(x, y)
    check(c[ck], n[nk])
    n[nk] = -1
    c[ck] = -1
    check(c, n)
    check(cupynum.ix_([])[0], numpy.ix_([])[0])


# ---- flat --------------------------------------------------------------------------------------

@pytest.mark.parametrize("dtype", DTYPES, ids=dtype_id)
def test_flat_set(no_fallback, dtype):
    n, c = _pair((4, 5), dtype)
    v = sample((3,), dtype, seed=4)
    for key in (slice(None), slice(2, 17, 3), Ellipsis, numpy.array([0, 5, 5, -1]), [1, 2, 3, 4, 19]):
        n.flat[key] = v
        c.flat[_conv(key)] = cupynum.array(v)
        check(c, n)
    n.flat = v[:2]
    c.flat = cupynum.array(v[:2])
    check(c, n)
    nt, ct = n.T, c.T
    nt.flat[[0, 1, 7]] = v
    ct.flat[[0, 1, 7]] = v
    check(c, n)
    check(c.flat[[0, 3, -2]], n.flat[[0, 3, -2]])


# ---- ufunc.at ----------------------------------------------------------------------------------

@pytest.mark.parametrize("dtype", [d for d in ALL_DTYPES if d.kind != "b"], ids=dtype_id)
def test_add_at_accumulates(no_fallback, dtype):
    n, c = _pair((10,), dtype)
    ind = _idx(10, (30,), 3)                            # many repeats
    v = sample((30,), dtype, seed=5)
    numpy.add.at(n, ind, v)
    cupynum.add.at(c, cupynum.array(ind), cupynum.array(v))
    check(c, n)
    numpy.add.at(n, ind, 1)
    cupynum.add.at(c, ind, 1)
    check(c, n)


@pytest.mark.parametrize("name", ["subtract", "multiply", "maximum", "minimum", "negative",
                                  "bitwise_or", "absolute"])
@pytest.mark.parametrize("dtype", [numpy.dtype(t) for t in ("i4", "i8", "u1", "f8", "f4")],
                         ids=dtype_id)
def test_ufunc_at(no_fallback, name, dtype):
    uf_n, uf_c = getattr(numpy, name), getattr(cupynum, name)
    if dtype.kind == "f" and name == "bitwise_or":
        pytest.skip("no float loop in NumPy")
    n, c = _pair((6, 4), dtype)
    keys = [_idx(6, (9,), 1), (_idx(6, (9,), 1), _idx(4, (9,), 2)), (slice(None), [0, 0, 3])]
    for k in keys:
        if uf_n.nin == 1:
            uf_n.at(n, k)
            uf_c.at(c, _conv(k))
        else:
            r = n[k]
            v = sample(r.shape, dtype, seed=8)
            uf_n.at(n, k, v)
            uf_c.at(c, _conv(k), cupynum.array(v))
        check(c, n)


@pytest.mark.parametrize("name", ["add", "subtract", "multiply", "maximum", "minimum", "fmax",
                                  "negative", "bitwise_xor", "floor_divide", "remainder"])
@pytest.mark.parametrize("dtype", [numpy.dtype(t) for t in ("i1", "i8", "u2", "f2", "f4", "f8",
                                                            "c16", "?")], ids=dtype_id)
@pytest.mark.parametrize("m", [7, 40000])
def test_ufunc_at_whole_list_1d(name, dtype, m):
    """A 1-d array at one 1-d index array: the op's loop over the whole list (threads split
    the array above 32768 indices), with repeats, negative indices, a scalar and an array
    operand, and NumPy's warnings (integer division by zero); NumPy computes what has no loop."""
    uf_n, uf_c = getattr(numpy, name), getattr(cupynum, name)
    n, c = _pair((1000,), dtype)
    ind = numpy.random.default_rng(m).integers(-1000, 1000, m)
    try:
        loop = uf_n.resolve_dtypes((dtype,) * uf_n.nin + (None,))
    except TypeError:
        pytest.skip("no loop in NumPy")
    if loop != (dtype,) * (uf_n.nin + 1):
        pytest.skip("NumPy's loop is of another dtype")
    ops = [()] if uf_n.nin == 1 else [(sample((m,), dtype, seed=9),), (sample((), dtype, seed=4)[()],)]
    for extra in ops:
        with warnings.catch_warnings(record=True) as wn:
            warnings.simplefilter("always")
            uf_n.at(n, ind, *extra)
        with warnings.catch_warnings(record=True) as wc:
            warnings.simplefilter("always")
            uf_c.at(c, cupynum.array(ind), *(cupynum.array(e) if isinstance(e, numpy.ndarray)
                                             else e for e in extra))
        check(c, n)
        # the findings, not the name: NumPy says "in at" for integer division, cupynum the op's
        def said(ws):
            return sorted({str(w.message).rsplit(" in ", 1)[0] for w in ws})
        assert said(wc) == said(wn)
    bad = ind.copy()
    bad[m // 2] = 1000
    before = n.copy()
    with pytest.raises(IndexError) as e:
        uf_n.at(n, bad, *ops[-1])
    with pytest.raises(IndexError) as g:
        uf_c.at(c, cupynum.array(bad), *ops[-1])
    assert str(g.value) == str(e.value)
    check(c, before)


def test_ufunc_at_casting_and_errors():
    n, c = _pair((5,), numpy.int64)
    numpy.add.at(n, [0, 0, 1], 1.5)                     # a float loop: NumPy computes it
    cupynum.add.at(c, [0, 0, 1], 1.5)
    check(c, n)
    with pytest.raises(IndexError) as e:
        numpy.add.at(n, [0, 9], 1)
    with pytest.raises(IndexError) as g:
        cupynum.add.at(c, cupynum.array([0, 9]), 1)
    assert str(g.value) == str(e.value)
    check(c, n)


@pytest.mark.parametrize("bad", [None, 7, -8, 100, -100])
@pytest.mark.parametrize("layout", ["contiguous", "strided", "int32"])
def test_index_bounds_edges(bad, layout):
    """The bounds check of one index array (one pass over a contiguous int64 index for both
    extremes, two reductions otherwise) at its edges: -n and n - 1 pass, n and -n - 1 fail with
    NumPy's IndexError and nothing written, for a read, a set and ufunc.at."""
    ind = numpy.array([0, -7, 6, 3, -1, 6, 2, 5, 1, 0])
    if bad is not None:
        ind[4] = bad
    ci = cupynum.array(ind)
    if layout == "strided":
        ind2 = numpy.repeat(ind, 2)
        ind, ci = ind2[::2], cupynum.array(ind2)[::2]
    elif layout == "int32":
        ind, ci = ind.astype(numpy.int32), cupynum.array(ind.astype(numpy.int32))
    n, c = _pair((7,), numpy.float64)
    v = sample((ind.size,), numpy.float64, seed=3)
    def xp(a):
        return numpy if isinstance(a, numpy.ndarray) else cupynum

    for name, fn in [("read", lambda a, i: a[i]),
                     ("set", lambda a, i: a.__setitem__(i, xp(a).array(v))),
                     ("add.at", lambda a, i: xp(a).add.at(a, i, 1.5))]:
        before = n.copy()
        try:
            e = fn(n, ind)
        except IndexError as exc:
            with pytest.raises(IndexError) as g:
                fn(c, ci)
            assert str(g.value) == str(exc), name
            check(c, before)
            continue
        g = fn(c, ci)
        if name == "read":
            check(g, e)
        check(c, n)


@pytest.mark.parametrize("dtype", [numpy.dtype(t) for t in ("i8", "f4", "f8", "c16")], ids=dtype_id)
def test_ufunc_at_numpy_scalar_operand(no_fallback, dtype):
    """A NumPy scalar of the array's dtype (numpy.float64 is also a Python float) as ufunc.at's
    operand is native, as a Python scalar is."""
    n, c = _pair((500,), dtype)
    ind = _idx(500, (2000,), 3)
    s = sample((), dtype, seed=6)[()]
    numpy.add.at(n, ind, s)
    cupynum.add.at(c, cupynum.array(ind), s)
    check(c, n)


# The child of test_scatter_split_by_halves: every case against NumPy, bit for bit.
_SPLIT_CHILD = r"""
import numpy, cupynum
rng = numpy.random.default_rng(5)
n = 3001
cases = 0
for dt in ("?", "i1", "u2", "f2", "i4", "f4", "f8", "i8", "c8", "c16"):
    dt = numpy.dtype(dt)
    a = (rng.standard_normal(n) * 50).astype(dt)
    idx = rng.integers(-n, n, size=40000)
    idx[::5] = idx[7]                                   # repeats, also across both halves' parts
    idx[1::9] = -1                                      # the last element, counted from the end
    v = (rng.standard_normal(idx.size) * 7).astype(dt)
    names = ["maximum"] + ([] if dt.kind == "b" else ["add", "multiply"]) + \
        (["subtract"] if dt.kind in "fc" else []) + (["bitwise_xor"] if dt.kind in "iu" else [])
    for name in names:
        for operand in (v, v[3]):                        # a list of values, one broadcast value
            x = a.copy()
            with numpy.errstate(all="ignore"):
                getattr(numpy, name).at(x, idx, operand)
                c = cupynum.array(a)
                getattr(cupynum, name).at(c, cupynum.array(idx),
                                          cupynum.array(operand) if operand.ndim else operand)
                got = numpy.asarray(c)
            assert got.tobytes() == x.tobytes(), (dt, name, operand.ndim)
            cases += 1
    if dt.kind in "ifc":                                 # a unary op: no operand
        x, c = a.copy(), cupynum.array(a)
        with numpy.errstate(all="ignore"):
            numpy.negative.at(x, idx)
            cupynum.negative.at(c, cupynum.array(idx))
            assert numpy.asarray(c).tobytes() == x.tobytes(), (dt, "negative")
        cases += 1
    for operand in (v, v[3]):                            # assignment: the last value wins
        x = a.copy()
        x[idx] = operand
        c = cupynum.array(a)
        c[cupynum.array(idx)] = cupynum.array(operand) if operand.ndim else operand
        assert numpy.asarray(c).tobytes() == x.tobytes(), (dt, "set", operand.ndim)
        cases += 1
    x, c = a.copy(), cupynum.array(a)                    # a reversed, strided destination
    xv, cv = x[::-3], c[::-3]
    ji = rng.integers(0, xv.size, size=40000)
    numpy.maximum.at(xv, ji, v)
    cupynum.maximum.at(cv, cupynum.array(ji), cupynum.array(v))
    xv[ji[::-1]] = v
    cv[cupynum.array(ji[::-1])] = cupynum.array(v)
    assert numpy.asarray(c).tobytes() == x.tobytes(), (dt, "strided")
    cases += 1
for m in (2, 7, 9, 15, 17, 23, 1001, 4099):             # lists of any length: the filter's
    a = rng.standard_normal(n)                           # eight-a-round body and its tail
    idx = rng.integers(-n, n, size=m)
    idx[m // 2] = idx[0]
    v = rng.standard_normal(m)
    for how in ("at", "at1", "set"):
        x, c = a.copy(), cupynum.array(a)
        if how == "set":
            x[idx] = v
            c[cupynum.array(idx)] = cupynum.array(v)
        else:
            numpy.add.at(x, idx, v if how == "at" else 0.5)
            cupynum.add.at(c, cupynum.array(idx), cupynum.array(v) if how == "at" else 0.5)
        assert numpy.asarray(c).tobytes() == x.tobytes(), (m, how)
        cases += 1
import warnings                                          # the findings of both threads
for dt, name, zero in (("i8", "floor_divide", 0), ("f8", "multiply", 1e308), ("f8", "add", numpy.inf)):
    a = numpy.arange(n).astype(dt)
    v = numpy.ones(idx.size, dt)
    v[((idx % n) >= n // 2) & (numpy.arange(idx.size) % 997 == 0)] = zero   # the worker's half
    found = []
    for xp, x in ((numpy, a.copy()), (cupynum, cupynum.array(a))):
        with warnings.catch_warnings(record=True) as w:
            warnings.simplefilter("always")
            getattr(xp, name).at(x, cupynum.array(idx) if xp is cupynum else idx,
                                 cupynum.array(v) if xp is cupynum else v)
            if xp is cupynum:
                x = numpy.asarray(x)
        found.append((x.tobytes(), sorted({str(m.message).rsplit(" in ", 1)[0] for m in w})))
    assert found[0] == found[1], (dt, name, found[0][1], found[1][1])
    cases += 1
a = numpy.arange(n, dtype=numpy.float64)                 # out of bounds: nothing written
c = cupynum.array(a)
bad = rng.integers(0, n, size=40000)
bad[30000] = n
for f in (lambda: cupynum.add.at(c, cupynum.array(bad), 1.0),
          lambda: c.__setitem__(cupynum.array(bad), 2.0)):
    try:
        f()
    except IndexError:
        pass
    else:
        raise AssertionError("no IndexError")
    assert numpy.asarray(c).tobytes() == a.tobytes()
print(cases, cupynum.runtime_stats()["scatters_split"], cupynum.runtime_info()["backend"])
"""


def test_scatter_split_by_halves():
    """1-d ufunc.at and scatter on two threads, each owning half of the destination (forced:
    CUPYNUM_PARALLEL_MIN=1 takes the team for any work, in a one-process child): NumPy's
    results bit for bit, with repeats across the halves, negatives, every dtype class, a list of
    values, one broadcast value and none (a unary op), a strided reversed destination, NumPy's
    warnings from what either thread found, and nothing written when an index is out of bounds;
    runtime_stats() shows that the split ran."""
    env = {k: v for k, v in os.environ.items() if not k.startswith(("OMPI_", "PMIX_", "PMI_"))}
    # two threads even where an mpirun rank's one-core mask is inherited
    env.update(CUPYNUM_PARALLEL_MIN="1", CUPYNUM_THREADS="2")
    out = subprocess.run([sys.executable, "-c", _SPLIT_CHILD], env=env, capture_output=True,
                         text=True, timeout=300)
    assert out.returncode == 0, out.stderr[-3000:]
    cases, split, backend = out.stdout.split()
    cases, split = int(cases), int(split)
    assert cases == 139
    # every scatter ran split (the strided case has two); on the CPU backend so did the two
    # out-of-bounds calls, whose index the split's first pass finds before any write (elsewhere
    # the module checks the bounds first and the kernel is not called)
    assert split == cases + 10 + (2 if backend == "cpu" else 0)


def test_add_at_2d_rows(no_fallback):
    n, c = _pair((5, 3), numpy.float64)
    ind = numpy.array([0, 4, 0, 2, 0])
    v = sample((5, 3), numpy.float64, seed=2)
    numpy.add.at(n, ind, v)
    cupynum.add.at(c, cupynum.array(ind), cupynum.array(v))
    check(c, n)
    numpy.add.at(n, (ind, ind % 3), 2.0)
    cupynum.add.at(c, (cupynum.array(ind), cupynum.array(ind % 3)), 2.0)
    check(c, n)


# ---- distributed: bytes in proportion to the selection -----------------------------------------

RANKS = cupynum.runtime_info()["ranks"]


def _sent():
    cupynum.sync()
    return cupynum.runtime_stats()["bytes_sent"]


@pytest.mark.parametrize("shape", [(64, 48), (1000,), (30, 4, 5), (7,)])
@pytest.mark.parametrize("dtype", [numpy.float64, numpy.int32, numpy.complex128], ids=dtype_id)
def test_mask_read_and_nonzero_bytes(shape, dtype):
    """a[mask] and nonzero of an array partitioned along its rows: each rank compacts its tile,
    the counts are shared and each rank sends its packed part to the result's owners: no more
    than the selected bytes (plus 1 KiB of counts) leave a rank.  A grid that splits a later
    dimension too (2-D arrays on 4 ranks) does the same per run of a tile (its rows), with the
    per-run counts in the 1 KiB (test_mask_read_on_a_grid_bytes)."""
    n, c = _pair(shape, dtype)
    mn = sample(shape, numpy.bool_, seed=2)
    m = cupynum.array(mn)
    before = _sent()
    r = c[m]
    moved = _sent() - before
    check(r, n[mn])
    assert moved <= n[mn].nbytes + 1024, moved
    before = _sent()
    nz = cupynum.nonzero(m)
    moved = _sent() - before
    for x, y in zip(nz, numpy.nonzero(mn)):
        check(x, y)
    assert moved <= 8 * len(shape) * int(mn.sum()) + 1024, moved
    check(cupynum.argwhere(m), numpy.argwhere(mn))
    check(cupynum.flatnonzero(m), numpy.flatnonzero(mn))
    check(cupynum.extract(m, c), numpy.extract(mn, n))


def test_select_choose_putmask_move_nothing():
    """select, choose and putmask on arrays partitioned alike are element-wise selects: owner
    computes, no element moves (a few bytes of the bounds count of choose)."""
    n = sample((60, 40), numpy.float64, seed=1)
    c = cupynum.array(n)
    ca, cb = c * 2, c + 1
    cupynum.sync()
    before = _sent()
    r = cupynum.select([c < -0.5, c > 0.5], [ca, cb], 0.0)
    k = cupynum.choose((c > 0).astype(numpy.int64), [ca, cb])
    cupynum.putmask(ca, c > 1, cb)
    moved = _sent() - before
    check(r, numpy.select([n < -0.5, n > 0.5], [n * 2, n + 1], 0.0))
    check(k, numpy.choose((n > 0).astype(numpy.int64), [n * 2, n + 1]))
    na = n * 2
    numpy.putmask(na, n > 1, n + 1)
    check(ca, na)
    assert moved <= 1024 * max(RANKS - 1, 0), moved


@pytest.mark.parametrize("shape", [(1000,), (90, 7), (5,), (1,)])
@pytest.mark.parametrize("dtype", [numpy.float64, numpy.int16, numpy.complex128], ids=dtype_id)
@pytest.mark.parametrize("m", [40, 4000])
def test_int_gather_bytes(shape, dtype, m):
    """a[idx] (and take) of an array split along its rows: a short index is read by every rank
    and the owners send the selected rows to the result's owners: bytes in proportion to
    len(idx), not to the array.  A long index partitioned like the result is routed instead:
    each rank asks the owners for its own result rows only (8 bytes a row) and gets the rows
    back, so a rank's bytes follow its part of the index, not the whole index times the ranks."""
    n, c = _pair(shape, dtype)
    idx = _idx(shape[0], (m,), 6)                        # negatives and repeats included
    ci = cupynum.array(idx)
    cupynum.sync()
    before = _sent()
    r = c[ci]
    moved = _sent() - before
    check(r, n[idx])
    row = n[0].nbytes if n.ndim > 1 else n.itemsize
    from cupynum import _core
    t = _core._tiling(ci)
    if all(g == 1 for g in _core._tiling(c)["grid"][1:]):
        assert moved <= idx.size * (8 + row) + 1024, moved
        if RANKS > 1 and t["tiled"] and m > 1000:
            part = t["hi"][0] - t["lo"][0]
            assert moved <= 1.5 * part * (8 + row) + 64 * RANKS * RANKS, (moved, part)
    check(cupynum.take(c, ci, axis=0), numpy.take(n, idx, axis=0))


@pytest.mark.parametrize("shape,key", [
    ((60, 50), "ij"), ((12, 5, 10), "i:j"), ((9, 7, 4), "ij"), ((8, 6, 5, 3), "i:j"),
    ((40, 30), "-ij")], ids=str)
@pytest.mark.parametrize("dtype", [numpy.float64, numpy.int32], ids=dtype_id)
def test_several_arrays_bytes(shape, key, dtype):
    """a[i, j], a[i, :, j] (get, set, add.at) of an array split along its rows: the index arrays
    merge into one linear index over the flat alias of the array's rows, and the owners of the
    rows serve it (one exchange of indices, one of values): bytes in proportion to len(i),
    not to the array.  On a grid that cuts the rows too (2x2 on 4 ranks), a key naming single
    elements (a[i, j] of a 2-D array) is served by each element's owner the same way."""
    n, c = _pair(shape, dtype)
    m = 45
    i = _idx(shape[0], (m,), 11)
    j = _idx(shape[2] if key == "i:j" else shape[1], (m,), 12)
    if key.startswith("-"):                                  # reversed rows: a view, not a copy
        n, c = n[::-1], c[::-1]
    nk = (i, slice(None), j) if key == "i:j" else (i, j)
    ck = tuple(cupynum.array(k) if isinstance(k, numpy.ndarray) else k for k in nk)
    row = (n[nk].nbytes // m) if n.ndim else n.itemsize
    from cupynum import _core
    rows = True
    bound = m * (8 + row) + 1024                         # row slabs: an index a row
    if any(g > 1 for g in _core._tiling(c)["grid"][1:]):
        bound = n[nk].size * (8 + n.itemsize) + 1024     # a grid: an index an element (flat route)
    before = _sent()
    r = c[ck]
    moved = _sent() - before
    check(r, n[nk])
    if rows and not key.startswith("-"):
        assert moved <= bound, (moved, bound)
    v = sample(n[nk].shape, dtype, seed=13)
    before = _sent()
    c[ck] = cupynum.array(v)
    moved = _sent() - before
    n[nk] = v
    check(c, n)
    if rows and not key.startswith("-"):
        assert moved <= bound, (moved, bound)
    before = _sent()
    cupynum.add.at(c, ck, cupynum.array(v))
    moved = _sent() - before
    numpy.add.at(n, nk, v)
    check(c, n)
    if rows and not key.startswith("-"):
        assert moved <= bound, (moved, bound)


@pytest.mark.parametrize("shape", [(1000,), (90, 7), (5,)])
@pytest.mark.parametrize("dtype", [numpy.float64, numpy.int16], ids=dtype_id)
def test_int_scatter_and_at_bytes(shape, dtype):
    """a[idx] = v, a[idx] += 1 and add.at of an array split along its rows: the value rows go
    to the owners of their destination rows, applied there in index order (last wins; add.at
    accumulates): bytes in proportion to len(idx)."""
    n, c = _pair(shape, dtype)
    idx = _idx(shape[0], (40,), 7)                       # repeats included
    ci = cupynum.array(idx)
    v = sample((40,) + shape[1:], dtype, seed=8)
    cv = cupynum.array(v)
    row = n[0].nbytes if n.ndim > 1 else n.itemsize
    from cupynum import _core
    rows = all(g == 1 for g in _core._tiling(c)["grid"][1:])
    cupynum.sync()
    before = _sent()
    c[ci] = cv
    moved = _sent() - before
    n[idx] = v
    check(c, n)
    if rows:
        assert moved <= idx.size * (8 + row) + 1024, moved
    n[idx] += 1
    c[ci] += 1
    check(c, n)
    before = _sent()
    cupynum.add.at(c, ci, cv)
    moved = _sent() - before
    numpy.add.at(n, idx, v)
    check(c, n)
    if rows:
        assert moved <= idx.size * (8 + row) + 1024, moved
    numpy.put(n, idx[:9], v[:3].ravel()[:3])
    cupynum.put(c, ci[:9], cv[:3].ravel()[:3])
    check(c, n)


@pytest.mark.parametrize("shape", [(1000,), (90, 7)])
def test_int_scatter_reads_values_in_place(no_fallback, shape):
    """a[idx] = v hands v and idx to the scatter without a copy when they are whole arrays of
    the right dtype and shape apart from a: later writes to v or idx, v dying, and values or
    indices taken from a itself still give NumPy's result."""
    n, c = _pair(shape, numpy.float64)
    idx = _idx(shape[0], (300,), 3)
    ci = cupynum.array(idx)
    v = sample((300,) + shape[1:], numpy.float64, seed=4)
    cv = cupynum.array(v)
    n[idx] = v
    c[ci] = cv
    v += 1
    cv += 1
    idx[:5] = 0
    ci[:5] = 0
    n[idx] = v * 2
    c[ci] = cv * 2
    check(c, n)
    some = _idx(shape[0], (shape[0],), 5)                 # repeats: some rows are not written
    n[some] = n
    c[cupynum.array(some)] = c
    check(c, n)
    n[n[:, 0].astype(numpy.int64) % shape[0] if n.ndim > 1 else n.astype(numpy.int64) % shape[0]] = 5
    k = c[:, 0].astype(numpy.int64) % shape[0] if c.ndim > 1 else c.astype(numpy.int64) % shape[0]
    c[k] = 5
    check(c, n)


@pytest.mark.parametrize("shape", [(64, 64), (32, 16, 4), (200, 100)])
@pytest.mark.parametrize("dtype", [numpy.float64, numpy.int16], ids=dtype_id)
def test_int_rows_on_a_grid_bytes(shape, dtype):
    """a[idx], a[idx] = v and add.at of a few long rows: where a grid cuts the rows across ranks
    (2x2 on 4 ranks) each selected row is served element by element by the elements' owners
    (an element index and the values move, 8 + itemsize bytes an element); on row slabs (2, 3
    ranks) the rows are served whole, the result and the values in row slabs too (not cut along
    their long rows, which would gather the array)."""
    n, c = _pair(shape, dtype)
    idx = _idx(shape[0], (6,), 21)                       # negatives and repeats included
    ci = cupynum.array(idx)
    from cupynum import _core
    tiled = _core._tiling(c)["tiled"]
    bound = idx.size * (n[0].size * (8 + n.itemsize)) + 1024
    before = _sent()
    r = c[ci]
    moved = _sent() - before
    check(r, n[idx])
    if tiled:
        assert moved <= bound, (moved, bound)
    v = sample((6,) + shape[1:], dtype, seed=22)
    before = _sent()
    c[ci] = cupynum.array(v)
    moved = _sent() - before
    n[idx] = v
    check(c, n)
    if tiled:
        assert moved <= bound, (moved, bound)
    before = _sent()
    cupynum.add.at(c, ci, cupynum.array(v))
    moved = _sent() - before
    numpy.add.at(n, idx, v)
    check(c, n)
    if tiled:
        assert moved <= bound, (moved, bound)
    c[ci] = 3
    n[idx] = 3
    check(c, n)
    check(cupynum.take(c, ci, axis=0), numpy.take(n, idx, axis=0))


def _grid_cut(c):
    from cupynum import _core
    t = _core._tiling(c)
    return t["tiled"] and any(g > 1 for g in t["grid"][1:])


@pytest.mark.parametrize("shape", [(200, 200), (37, 53), (40, 30, 20), (6, 5)], ids=str)
@pytest.mark.parametrize("dtype", [numpy.float64, numpy.int16, numpy.complex128, numpy.bool_],
                         ids=dtype_id)
@pytest.mark.parametrize("p", [0.5, 0.02])
def test_mask_read_on_a_grid_bytes(shape, dtype, p):
    """a[mask], nonzero, argwhere, flatnonzero, extract and compress(axis=None) where the grid
    cuts a later dimension too (2x2 on 4 ranks): each rank compacts its own box in runs (C-order
    ranges of the view), one allgather of per-run counts places every run, and the values go to
    the result's owners.  Bytes: the selected elements plus the counts (1 KiB), as on row
    slabs; views (reversed, strided, transposed) of the same arrays too."""
    n, c = _pair(shape, dtype, seed=3)
    mn = numpy.random.default_rng(4).random(shape) < p
    m = cupynum.array(mn)
    k = int(mn.sum())
    cupynum.sync()
    before = _sent()
    r = c[m]
    moved = _sent() - before
    check(r, n[mn])
    assert moved <= k * n.itemsize + 1024, (moved, k * n.itemsize)
    before = _sent()
    nz = cupynum.nonzero(m)
    moved = _sent() - before
    check(nz, numpy.nonzero(mn))
    assert moved <= 8 * len(shape) * k + 1024, moved
    for f in (cupynum.argwhere, cupynum.flatnonzero):
        before = _sent()
        r = f(m)
        moved = _sent() - before
        check(r, getattr(numpy, f.__name__)(mn))
        assert moved <= 8 * len(shape) * k + 1024, (f.__name__, moved)
    before = _sent()
    r = cupynum.extract(m, c)
    moved = _sent() - before
    check(r, numpy.extract(mn, n))
    assert moved <= k * n.itemsize + 1024, moved
    fl = mn.ravel()[: n.size - 3]                        # shorter than the array, as NumPy allows
    before = _sent()
    r = cupynum.compress(cupynum.array(fl), c)
    moved = _sent() - before
    check(r, numpy.compress(fl, n))
    assert moved <= int(fl.sum()) * (8 + n.itemsize) + 1024, moved
    # views: reversed, strided, transposed (the parts stay boxes)
    for key in ((slice(None, None, -1),), (slice(1, None, 2),), "T"):
        nv, cv = (n.T, c.T) if key == "T" else (n[key], c[key])
        mv, cmv = (mn.T, m.T) if key == "T" else (mn[key], m[key])
        check(cv[cmv], nv[mv])
        check(cupynum.nonzero(cmv), numpy.nonzero(mv))


@pytest.mark.parametrize("shape", [(200, 200), (37, 53)], ids=str)
@pytest.mark.parametrize("dtype", [numpy.float64, numpy.int16, numpy.complex128], ids=dtype_id)
def test_index_forms_on_a_grid_bytes(shape, dtype):
    """Integer and mask index forms that select along a later axis of a partitioned array (row
    slabs on 2 and 3 ranks, a 2x2 grid on 4): a[:, cols] (get, set, +=, add.at), take(axis=1), compress(axis=0
    and 1), take_along_axis/put_along_axis(axis=1), a[rows][:, cols], a[mask] = v and add.at with
    a 2-D target.  Each selected element's C-order index is computed where the result lives and
    the element is served by its owner: bytes in proportion to the elements selected (an 8-byte
    index and the value each), never the array."""
    n, c = _pair(shape, dtype, seed=5)
    rng = numpy.random.default_rng(6)
    item = n.itemsize
    per = 8 + item
    cols = rng.integers(-shape[1], shape[1], 5)
    rows = rng.integers(-shape[0], shape[0], 4)
    ccols, crows = cupynum.array(cols), cupynum.array(rows)
    from cupynum import _core
    grid = RANKS > 1 and _core._tiling(c)["tiled"]         # row slabs too: columns are cut

    def moved_by(f):
        before = _sent()
        r = f()
        return r, _sent() - before

    def bound(elems):
        return elems * per + 1024

    r, moved = moved_by(lambda: c[:, ccols])
    check(r, n[:, cols])
    assert not grid or moved <= bound(shape[0] * 5), moved
    r, moved = moved_by(lambda: cupynum.take(c, ccols, axis=1))
    check(r, numpy.take(n, cols, axis=1))
    assert not grid or moved <= bound(shape[0] * 5), moved
    r, moved = moved_by(lambda: c[crows][:, ccols])
    check(r, n[rows][:, cols])
    assert not grid or moved <= bound(4 * shape[1] + 4 * 5), moved
    v = sample((shape[0], 5), dtype, seed=7)

    def set_cols():
        c[:, ccols] = cupynum.array(v)
    _, moved = moved_by(set_cols)
    n[:, cols] = v
    check(c, n)
    assert not grid or moved <= bound(shape[0] * 5) + shape[0] * 5 * item, moved

    def aug_cols():
        c[:, ccols] += 1
    _, moved = moved_by(aug_cols)
    n[:, cols] += 1
    check(c, n)
    assert not grid or moved <= 2 * bound(shape[0] * 5), moved

    def at_cols():
        cupynum.add.at(c, (slice(None), ccols), cupynum.array(v))
    _, moved = moved_by(at_cols)
    numpy.add.at(n, (slice(None), cols), v)
    check(c, n)
    assert not grid or moved <= bound(shape[0] * 5) + shape[0] * 5 * item, moved
    i, j = rng.integers(0, shape[0], 30), rng.integers(0, shape[1], 30)

    def at_ij():
        cupynum.add.at(c, (cupynum.array(i), cupynum.array(j)), 1)
    _, moved = moved_by(at_ij)
    numpy.add.at(n, (i, j), 1)
    check(c, n)
    assert not grid or moved <= bound(30), moved
    for axis in (0, 1):
        cn = rng.random(shape[axis]) < 0.3
        r, moved = moved_by(lambda: cupynum.compress(cupynum.array(cn), c, axis=axis))
        check(r, numpy.compress(cn, n, axis=axis))
        sel = int(cn.sum()) * shape[1 - axis]
        assert not grid or moved <= bound(sel) + 8 * int(cn.sum()), (axis, moved)
    ia = rng.integers(0, shape[1], (shape[0], 3))
    cia = cupynum.array(ia)
    r, moved = moved_by(lambda: cupynum.take_along_axis(c, cia, axis=1))
    check(r, numpy.take_along_axis(n, ia, axis=1))
    assert not grid or moved <= bound(ia.size), moved
    pv = sample(ia.shape, dtype, seed=8)
    _, moved = moved_by(lambda: cupynum.put_along_axis(c, cia, cupynum.array(pv), axis=1))
    numpy.put_along_axis(n, ia, pv, axis=1)
    check(c, n)
    assert not grid or moved <= bound(ia.size) + ia.size * item, moved
    mn = rng.random(shape) < 0.3
    m = cupynum.array(mn)
    k = int(mn.sum())
    mv = sample((k,), dtype, seed=9)

    def set_mask():
        c[m] = cupynum.array(mv)
    _, moved = moved_by(set_mask)
    n[mn] = mv
    check(c, n)
    # the mask's indices (nonzero: 16 bytes an element), then an index and a value each
    assert not grid or moved <= bound(k) + 16 * k + k * item, moved


@pytest.mark.parametrize("shape", [(40, 30, 20), (9, 13, 7)], ids=str)
@pytest.mark.parametrize("dtype", [numpy.float64, numpy.int32], ids=dtype_id)
def test_two_arrays_around_a_slice_on_a_grid_bytes(shape, dtype):
    """a[i, :, j] (get, set, add.at) where the grid cuts more than the first axis: every
    selected element's index into the array, each served by its owner (bytes in proportion to
    len(i) x the sliced axis), not the array gathered."""
    n, c = _pair(shape, dtype, seed=10)
    rng = numpy.random.default_rng(11)
    i, j = rng.integers(-shape[0], shape[0], 17), rng.integers(-shape[2], shape[2], 17)
    nk = (i, slice(None), j)
    ck = (cupynum.array(i), slice(None), cupynum.array(j))
    grid = RANKS > 1 and _grid_cut(c)
    sel = 17 * shape[1]
    bound = sel * (8 + n.itemsize) + 1024
    before = _sent()
    r = c[ck]
    moved = _sent() - before
    check(r, n[nk])
    assert not grid or moved <= bound, (moved, bound)
    v = sample(n[nk].shape, dtype, seed=12)
    before = _sent()
    c[ck] = cupynum.array(v)
    moved = _sent() - before
    n[nk] = v
    check(c, n)
    assert not grid or moved <= bound + sel * n.itemsize, (moved, bound)
    before = _sent()
    cupynum.add.at(c, ck, cupynum.array(v))
    moved = _sent() - before
    numpy.add.at(n, nk, v)
    check(c, n)
    assert not grid or moved <= bound + sel * n.itemsize, (moved, bound)
    # separated by a slice with a third index array broadcast against them, and a 2-D i
    i2 = rng.integers(0, shape[0], (3, 1))
    check(c[cupynum.array(i2), 1:, cupynum.array(j[:4])], n[i2, 1:, j[:4]])


_VIEWS = {"rev": lambda x: x[::-1], "T": lambda x: x.T, "cols-2": lambda x: x[:, ::-2],
          "both": lambda x: x[::-2, ::-1], "T3": lambda x: x.transpose(2, 0, 1)[:, ::-1]}


@pytest.mark.parametrize("shape,view", [(s, v) for s in ((200, 200), (37, 53)) for v in _VIEWS
                                        if v != "T3"] + [((30, 20, 10), "T3")], ids=str)
@pytest.mark.parametrize("dtype", [numpy.float64, numpy.int16, numpy.complex128], ids=dtype_id)
def test_views_not_in_c_order_bytes(shape, view, dtype):
    """Advanced indexing of views whose elements do not lie in C order (reversed, transposed,
    strided) of a partitioned array: rows, columns and single elements by integer arrays (get,
    set, +=, add.at) take the flat route on the root store where the view's rows are not rank
    ranges (each element from its owner: an 8-byte index and the value); a mask laid out
    otherwise than the view is copied onto the view's layout (at most its own bytes move) or,
    when sparse, taken by its indices.  Nothing is gathered: bytes in proportion to the
    selection (plus the mask), compared with NumPy."""
    n, c = _pair(shape, dtype, seed=31)
    nv, cv = _VIEWS[view](n), _VIEWS[view](c)
    item = n.itemsize
    rng = numpy.random.default_rng(32)
    r0, r1 = nv.shape[0], nv.shape[1]
    row = nv[0].size
    per = 8 + item

    def moved_by(f):
        before = _sent()
        r = f()
        return r, _sent() - before

    rows, cols = _idx(r0, (6,), 33), _idx(r1, (5,), 34)
    crows, ccols = cupynum.array(rows), cupynum.array(cols)
    r, moved = moved_by(lambda: cv[crows])
    check(r, nv[rows])
    assert moved <= 6 * row * per + 1024, moved
    r, moved = moved_by(lambda: cv[:, ccols])
    check(r, nv[:, cols])
    assert moved <= r0 * 5 * (row // r1) * per + 1024, moved
    r, moved = moved_by(lambda: cv[crows[:5], ccols])
    check(r, nv[rows[:5], cols])
    assert moved <= 5 * (row // r1) * per + 1024, moved
    v = sample((6,) + nv.shape[1:], dtype, seed=35)

    def set_rows():
        cv[crows] = cupynum.array(v)
    _, moved = moved_by(set_rows)
    nv[rows] = v
    check(c, n)
    assert moved <= 6 * row * (per + item) + 1024, moved

    def add_cols():
        cv[:, ccols] += 1
    _, moved = moved_by(add_cols)
    nv[:, cols] += 1
    check(c, n)
    assert moved <= 2 * r0 * 5 * (row // r1) * per + 2048, moved
    _, moved = moved_by(lambda: cupynum.add.at(cv, crows, cupynum.array(v)))
    numpy.add.at(nv, rows, v)
    check(c, n)
    assert moved <= 6 * row * (per + item) + 1024, moved
    for p in (0.3, 0.002):
        mn = rng.random(nv.shape) < p                   # laid out as its own shape, not as the view
        m = cupynum.array(mn)
        k = int(mn.sum())
        r, moved = moved_by(lambda: cv[m])
        check(r, nv[mn])
        assert moved <= k * (8 * (mn.ndim + 1) + item) + mn.size + 1024, (p, moved)
        mv = sample((k,), dtype, seed=36)

        def set_mask():
            cv[m] = cupynum.array(mv)
        _, moved = moved_by(set_mask)
        nv[mn] = mv
        check(c, n)
        assert moved <= k * (8 * (mn.ndim + 1) + 2 * item) + 1024, (p, moved)

        def set_scalar():
            cv[m] = 3
        _, moved = moved_by(set_scalar)
        nv[mn] = 3
        check(c, n)
        assert moved <= mn.size + 1024, (p, moved)
    # A mask made from the view itself: where it lies like the view, nothing moves; an
    # element-wise result of a reversed view is not laid out mirrored (partition.c's
    # like_tiling takes forward steps only), so there the mask's own bytes move, no more.
    t = nv.real.flat[7] if dtype != numpy.complex128 else 0
    m = cv.real > t
    cupynum.sync()
    from cupynum import _core

    def set_own():
        cv[m] = 0
    _, moved = moved_by(set_own)
    nv[nv.real > t] = 0
    check(c, n)
    assert moved <= (0 if _core._parts_match(cv, m) else m.size + 1024), moved


@pytest.mark.parametrize("dtype", [numpy.int8, numpy.int16], ids=dtype_id)
def test_flat_route_index_routed_bytes(dtype):
    """The flat route (a[:, cols], a.T[rows], a[i, j] on a grid; get, set, add.at) sends no rank
    the whole index: each rank sends the indices of its own part of the result (or of its own
    values) to their owners only.  Bytes a rank: 8 for each of its ~1/P share of the selection
    (twice where the index is first copied into 1-D ranges), the selected values, O(P^2)
    counts -- not the 8 (P - 1) / P bytes per selected element that reading the whole index
    sends.  A one-byte dtype keeps the index's bytes the larger part, so the bound tells."""
    n = sample((200, 200), dtype, seed=41)
    c = cupynum.array(n)
    rng = numpy.random.default_rng(42)
    cols, rows = rng.integers(-200, 200, 50), rng.integers(-200, 200, 50)
    i, j = rng.integers(-200, 200, 10000), rng.integers(0, 200, 10000)
    cc, cr, ci, cj = (cupynum.array(x) for x in (cols, rows, i, j))
    sel = 10000
    bound = 16 * (sel // RANKS + 1) + sel * n.itemsize + 8 * RANKS * (RANKS + 1) + 1024

    def moved_by(f):
        before = _sent()
        r = f()
        return r, _sent() - before
    r, moved = moved_by(lambda: c[:, cc])
    check(r, n[:, cols])
    assert moved <= bound, moved
    r, moved = moved_by(lambda: c.T[cr])
    check(r, n.T[rows])
    assert moved <= bound, moved
    r, moved = moved_by(lambda: c[ci, cj])
    check(r, n[i, j])
    assert moved <= bound, moved

    def set_cols():
        c[:, cc] = 3
    _, moved = moved_by(set_cols)
    n[:, cols] = 3
    check(c, n)
    assert moved <= bound, moved
    v = sample((sel,), dtype, seed=43)

    def set_ij():
        c[ci, cj] = cupynum.array(v)
    _, moved = moved_by(set_ij)
    n[i, j] = v
    check(c, n)
    assert moved <= bound + sel * n.itemsize, moved
    _, moved = moved_by(lambda: cupynum.add.at(c, (ci, cj), cupynum.array(v)))
    numpy.add.at(n, (i, j), v)
    check(c, n)
    assert moved <= bound + sel * n.itemsize, moved


# A NumPy scalar assigned through an index array is cast as NumPy casts the value array
# (unsafely: uint8 200 into int8 is -56, with NumPy's cast warnings); a Python int out of range
# is NumPy's OverflowError.  (Found by the fuzzer: v[[]] = np.uint8(200).)
@pytest.mark.parametrize("key", [[1, 3], [], numpy.array([2, 2])])
@pytest.mark.parametrize("dt,val", [("int8", numpy.uint8(200)), ("uint8", numpy.int16(-3)),
                                    ("int8", numpy.float64(3.7)), ("float32", numpy.float64(2.5))])
def test_numpy_scalar_values_cast_as_numpy(key, dt, val):
    n = numpy.arange(10).astype(dt)
    c = cupynum.asarray(n.copy())
    n[key] = val
    c[key] = val
    check(c, n)
    with pytest.raises(OverflowError, match="out of bounds for int8"):
        cupynum.asarray(numpy.arange(10, dtype=numpy.int8))[key] = 200


# ---- the device selection and indexing (cuda/select.cu; the simulated device takes the same ops) ----

def _device_only(x):
    """x as a cupynum array whose only current copy is on the device (a device copy of it)."""
    a = cupynum.array(x).copy()
    cupynum.sync()
    return a


def _to_host():
    cupynum.sync()
    return cupynum.runtime_stats()["bytes_to_host"]


def _set(t, idx, v):
    t[idx] = v


def _add(t, idx, v):
    t[idx] += v


@pytest.mark.gpu   # benchmarks/gpu_check.sh runs it on a real GPU: select.cu's first check there
@pytest.mark.skipif(cupynum.runtime_info()["backend"] not in ("cuda", "sim") or RANKS > 1,
                    reason="a device backend, one process (CUPYNUM_DEVICE=sim runs it here)")
@pytest.mark.parametrize("dtype", DTYPES + [numpy.dtype("f2")], ids=dtype_id)
@pytest.mark.parametrize("shape", [(257,), (7, 33), (3, 4, 25)], ids=str)
def test_selection_runs_on_the_device(no_fallback, dtype, shape):
    """a[mask], nonzero, argwhere, compress, extract (COMPACT, NONZERO), a[idx], take,
    take_along_axis (GATHER), a[idx] = v, a[idx] += v, put, put_along_axis and place (NONZERO then
    the plain SCATTER) on arrays that live on the device,
    contiguous, transposed and strided: each runs as a device op (no operand comes back to the
    host: at most a few 8-byte counts and bounds do) and equals NumPy, repeated indices keeping
    the last value.  ufunc.at of the integer dtypes (add, subtract, multiply, maximum, minimum)
    runs on the device too; the float ones stay on the host; all equal NumPy."""
    x = sample(shape, dtype, seed=5)
    mk = sample(shape, numpy.bool_, seed=6)
    assert x.nbytes > 64 and mk.nbytes > 64
    for layout in range(3):
        view = (lambda t: t, lambda t: t.T, lambda t: t[..., ::-2])[layout]
        xv, mv = view(x), view(mk)
        a, m = view(_device_only(x)), view(_device_only(mk))
        cond = sample((xv.shape[0],), numpy.bool_, seed=8)
        gi = _idx(xv.shape[0], 40, 1)
        ai = numpy.random.default_rng(9).integers(0, xv.shape[0], size=(5,) + xv.shape[1:])
        ti = _idx(xv.shape[-1], (3, 5), 2)
        cases = [("a[mask]", lambda: a[m], lambda: xv[mv]),
                 ("nonzero", lambda: cupynum.nonzero(m), lambda: numpy.nonzero(mv)),
                 ("argwhere", lambda: cupynum.argwhere(m), lambda: numpy.argwhere(mv)),
                 ("extract", lambda: cupynum.extract(m, a), lambda: numpy.extract(mv, xv)),
                 ("compress", lambda: cupynum.compress(cupynum.array(cond), a, axis=0),
                  lambda: numpy.compress(cond, xv, axis=0)),
                 ("a[idx]", lambda: a[cupynum.array(gi)], lambda: xv[gi]),
                 ("take", lambda: cupynum.take(a, cupynum.array(ti), axis=-1),
                  lambda: numpy.take(xv, ti, axis=-1)),
                 ("take_along_axis", lambda: cupynum.take_along_axis(a, cupynum.array(ai), axis=0),
                  lambda: numpy.take_along_axis(xv, ai, axis=0))]
        for name, cp_op, np_op in cases:
            before = _to_host()
            r = cp_op()
            moved = _to_host() - before
            assert moved <= 32, (name, layout, moved)
            check(r, np_op())
        check(cupynum.flatnonzero(m), numpy.flatnonzero(mv))
        # the plain scatter: repeated indices keep the last value, as NumPy's assignment
        idx = _idx(xv.shape[0], 60, 3)
        vals = sample((60,) + xv.shape[1:], dtype, seed=7)
        for name, cp_set, np_set in [
                ("a[idx] = v", lambda t: _set(t, cupynum.array(idx), cupynum.array(vals)),
                 lambda t: _set(t, idx, vals)),
                ("a[idx] += v", lambda t: _add(t, cupynum.array(idx), cupynum.array(vals[0])),
                 lambda t: _add(t, idx, vals[0])),
                ("put", lambda t: cupynum.put(t, cupynum.array(idx), cupynum.array(vals.ravel())),
                 lambda t: numpy.put(t, idx, vals.ravel())),
                ("put_along_axis", lambda t: cupynum.put_along_axis(t, cupynum.array(ai), cupynum.array(vals[:5]), 0),
                 lambda t: numpy.put_along_axis(t, ai, vals[:5], 0)),
                ("place", lambda t: cupynum.place(t, m, cupynum.array(vals.ravel()[:7])),
                 lambda t: numpy.place(t, mv, vals.ravel()[:7]))]:
            a2, x2 = view(_device_only(x)), xv.copy()
            before = _to_host()
            cp_set(a2)
            moved = _to_host() - before
            np_set(x2)
            assert moved <= 32, (name, layout, moved)
            check(a2, x2)
    # ufunc.at: the integer dtypes' add/subtract/multiply/maximum/minimum on the device (each row's
    # run applied in index order), the others (float reports, bool, complex) on the host
    if dtype.kind in "bc" or dtype == numpy.float16:
        return
    idx = _idx(x.shape[0], 50, 4)
    v = sample((50,) + x.shape[1:], dtype, seed=9)
    for name in ("add", "subtract", "multiply", "maximum", "minimum"):
        a, y = _device_only(x), x.copy()
        before = _to_host()
        getattr(cupynum, name).at(a, cupynum.array(idx), cupynum.array(v))
        moved = _to_host() - before
        with numpy.errstate(all="ignore"):
            getattr(numpy, name).at(y, idx, v)
            check(a, y)
        if dtype.kind in "iu":
            assert moved <= 32, (name, moved)
    a, y = _device_only(x), x.copy()   # a scalar operand (a broadcast value view)
    before = _to_host()
    cupynum.add.at(a, cupynum.array(idx), 3)
    moved = _to_host() - before
    numpy.add.at(y, idx, 3)
    check(a, y)
    if dtype.kind in "iu":
        assert moved <= 32, moved


@pytest.mark.parametrize("key", [([0, 1], Ellipsis, 0), ([0, 2], Ellipsis, -1), ([1], 2, Ellipsis, 3),
                                 (Ellipsis, [1, 2], slice(None)), (Ellipsis, [1, 2], [1, 2]),
                                 (0, Ellipsis, [1, 5])])
def test_integer_beside_arrays_on_a_strided_view(key):
    """An integer in a key with index arrays is applied as a basic index first: what the arrays
    then select is a strided view (not C-ordered), whose flat route would index the wrong
    elements (NumPy's conformance test_broadcast_error_reports_correct_shape on 3 ranks).  Get,
    set, and the broadcast error NumPy raises, whose message ends with the result's shape."""
    for make in (lambda xp: xp.zeros((3, 4, 5, 6, 7)),
                 lambda xp: xp.arange(3 * 4 * 5 * 6 * 7.0).reshape(3, 4, 5, 6, 7)):
        n, c = make(numpy), make(cupynum)
        check(c[key], n[key])
        v = numpy.arange(numpy.prod(n[key].shape), dtype=float).reshape(n[key].shape) + 1.0
        n[key] = v
        c[key] = cupynum.asarray(v)
        check(c, n)
        with pytest.raises(ValueError) as e:
            c[key] = numpy.zeros((100, 100))
        assert str(e.value).endswith(str(n[key].shape).replace(" ", ""))


@pytest.mark.parametrize("dtype", ["float64", "float32", "int8", "uint8", "int64", "bool", "complex128"])
@pytest.mark.parametrize("value", [0, 1.5, True, -3, 300, 2**70, float("nan")])
def test_mask_of_the_arrays_shape_set_to_a_python_scalar(dtype, value):
    """a[m] = scalar with a cupynum bool mask of a's shape takes index.c's fast path: NumPy's
    values (casts of the scalar, NaN into integers), NumPy's errors (OverflowError for an
    out-of-range int, before anything is written), on 1-d and 3-d arrays and empty masks."""
    for shape in [(17,), (3, 4, 5), (0, 4)]:
        rng = numpy.random.default_rng(len(shape))
        n = (rng.standard_normal(shape) * 50).astype(dtype)
        mn = rng.standard_normal(shape) > 0.3
        c, m = cupynum.array(n), cupynum.array(mn)
        try:
            with numpy.errstate(all="ignore"):
                n[mn] = value
        except Exception as e:
            with pytest.raises(type(e)):
                c[m] = value
                cupynum.sync()
            check(c, n)   # unchanged, as NumPy's
            continue
        with cupynum.errstate(all="ignore"):
            c[m] = value
        check(c, n)
    r = cupynum.arange(4.0)
    r.flags.writeable = False
    with pytest.raises(ValueError, match="read-only"):
        r[r > 1] = 0.0


@pytest.mark.parametrize("shape", [(13,), (4, 6), (2, 3, 5)])
@pytest.mark.parametrize("dtype", ["float64", "int32", "bool", "complex64"])
def test_cupynum_index_and_mask_arrays_get_and_set(shape, dtype):
    """a[idx] (int64 rows, negative ones too), a[mask] (a's shape) and a[mask] = v (one value per
    selected element: `a[m] += 1`, `a[m] = b[m]`) with cupynum index arrays take index.c's fast
    paths over any view of a: NumPy's values, NumPy's errors (out of bounds, a wrong count of
    values), nothing written on an error."""
    rng = numpy.random.default_rng(len(shape))
    n = (rng.standard_normal(shape) * 10).astype(dtype)
    c = cupynum.array(n)
    views = [(lambda x: x), (lambda x: x[::-1]), (lambda x: x.T), (lambda x: x[1:])]
    for view in views:
        nv, cv = view(n), view(c)
        if nv.size == 0:
            continue
        rows = nv.shape[0]
        idx = rng.integers(-rows, rows, size=7)
        check(cv[cupynum.array(idx)], nv[idx])
        mn = rng.standard_normal(nv.shape) > 0.2
        m = cupynum.array(mn)
        check(cv[m], nv[mn])
        check(cv[cupynum.zeros(nv.shape, bool)], nv[numpy.zeros(nv.shape, bool)])
        with pytest.raises(IndexError) as e:
            nv[numpy.array([0, rows])]
        with pytest.raises(IndexError, match=str(e.value).split(" with ")[0]):
            cv[cupynum.array([0, rows])]
    # assignments, on the array itself (contiguous) and through a reversed view
    for view in views[:2]:
        nv, cv = view(n), view(c)
        mn = rng.standard_normal(nv.shape) > 0.0
        m = cupynum.array(mn)
        nv[mn] += nv[mn]
        cv[m] += cv[m]
        check(c, n)
        other = (rng.standard_normal(shape) * 3).astype(dtype)
        nv[mn] = view(other)[mn]
        cv[m] = view(cupynum.array(other))[m]
        check(c, n)
        vals = numpy.arange(int(mn.sum()) + 1).astype(dtype)
        with pytest.raises(ValueError):
            nv[mn] = vals
        with pytest.raises(ValueError):
            cv[m] = cupynum.array(vals)
            cupynum.sync()
        check(c, n)
        # values that share the destination's store (a view of a itself)
        k = int(mn.sum())
        src = nv.reshape(-1)[::-1][:k].copy()
        nv[mn] = src
        cv[m] = cv.reshape(-1)[::-1][:k] if cv.flags.c_contiguous else cupynum.array(src)
        check(c, n)


@pytest.mark.parametrize("shape", [(13,), (5, 3), (4, 2, 3)])
@pytest.mark.parametrize("dtype", ["float64", "int16", "complex128", "bool"])
def test_cupynum_index_array_set_rows(shape, dtype):
    """a[idx] = v with a cupynum int64 index and a cupynum v of one row per index takes index.c's
    scatter fast path: NumPy's values (last wins for a repeated index; a[idx] += 1 adds once),
    NumPy's IndexError before anything is written, and v or idx sharing a's store through the
    general path."""
    rng = numpy.random.default_rng(sum(shape))
    n = (rng.standard_normal(shape) * 10).astype(dtype)
    c = cupynum.array(n)
    rows = shape[0]
    idx = numpy.array([0, -1, 2, 0, rows - 2, 2])
    v = (rng.standard_normal((len(idx),) + shape[1:]) * 10).astype(dtype)
    n[idx] = v
    c[cupynum.array(idx)] = cupynum.array(v)
    check(c, n)
    if dtype != "bool":
        n[idx] += 1
        ci = cupynum.array(idx)
        c[ci] += 1
        check(c, n)
    with pytest.raises(IndexError):
        n[numpy.array([0, rows])] = v[:2]
    with pytest.raises(IndexError):
        c[cupynum.array([0, rows])] = cupynum.array(v[:2])
        cupynum.sync()
    check(c, n)
    # values that are rows of a itself (read before any is written, as NumPy's copy)
    k = min(rows, len(idx))
    src = n[::-1][:k].copy()
    n[idx[:k]] = src
    c[cupynum.array(idx[:k])] = c[::-1][:k]
    check(c, n)


@pytest.mark.parametrize("shape", [(40, 7), (9, 4, 3)], ids=str)
def test_row_gather_with_trailing_full_slices(shape):
    """A[idx, :] (and A[idx, :, :]) is A[idx]: the row-gather fast path where it applies, NumPy's
    values, copies, errors otherwise (bounds, too many indices, a bool key, views)."""
    x = numpy.arange(numpy.prod(shape), dtype=numpy.float64).reshape(shape)
    a = cupynum.array(x)
    for idx in ([3, 0, -1, 2, 2], numpy.array([1, -2], dtype=numpy.int32), [0]):
        ci, ni = cupynum.array(numpy.asarray(idx)), numpy.asarray(idx)
        for key in ((ci, slice(None)), (ci, slice(None), slice(None))[:len(shape)],
                    (ci, slice(None), Ellipsis)):
            nkey = tuple(ni if k is ci else k for k in key)
            check(a[key], x[nkey])
            check(a[::-1][key], x[::-1][nkey])
            check(a[:, ::2][key], x[:, ::2][nkey])
    r = a[cupynum.array([1, 2]), :]
    r[...] = -1.0
    check(a, x)   # a copy
    for bad in ((cupynum.array([shape[0]]), slice(None)), (cupynum.array([0]),) + (slice(None),) * len(shape),
                (cupynum.array([0]), slice(1, None))):
        nbad = tuple(numpy.asarray(k) if isinstance(k, cupynum.ndarray) else k for k in bad)
        try:
            want = x[nbad]
        except IndexError as e:
            with pytest.raises(IndexError) as got:
                a[bad]
            assert str(got.value) == str(e)
        else:
            check(a[bad], want)
    m = x.reshape(shape[0], -1)[:, 0] > 10
    check(a[cupynum.array(m), :], x[m, :])


def _replicated(n):
    """n as a cupynum array held whole on every rank (as a small result is)."""
    r = cupynum._core.empty_replicated(n.shape, n.dtype)
    r[...] = cupynum.array(n)
    return r


@pytest.mark.parametrize("shape", [(400, 3), (90, 7), (12, 5, 2), (50, 1)])
@pytest.mark.parametrize("kind", ["replicated", "partitioned"])
@pytest.mark.parametrize("dtype", [numpy.float64, numpy.int32], ids=dtype_id)
def test_row_mask_read_moves_the_selection_and_lies_in_rows(shape, kind, dtype):
    """X[m] with a 1-D mask over the rows of X split along its rows (X[labels == k]): each rank
    compacts its own rows -- the mask replicated (every rank reads its rows' part) or partitioned
    like the rows -- and sends the packed rows to the result's owners: no more than the selected
    bytes (plus 1 KiB).  The result's tiles hold whole rows, so a reduction along its rows moves
    only the partials, and X[m] += 1 (read, add, write back through the same mask) only rows."""
    n, c = _pair(shape, dtype)
    labels = numpy.random.default_rng(3).integers(0, 4, shape[0])
    cl = _replicated(labels) if kind == "replicated" else cupynum.array(labels)
    m = cl == 2
    cupynum.sync()
    before = _sent()
    r = c[m]
    cupynum.sync()
    moved = _sent() - before
    check(r, n[labels == 2])
    assert moved <= n[labels == 2].nbytes + 1024, moved
    before = _sent()
    s = r.sum(axis=0)
    cupynum.sync()
    moved = _sent() - before
    check(s, n[labels == 2].sum(axis=0))
    assert moved <= (s.nbytes + 64) * RANKS + 1024, moved
    c[cl == 1] += 1
    n[labels == 1] += 1
    check(c, n)


def test_reshaped_1d_arrays_are_owner_computes():
    """arange(n).reshape(r, c): every dimension walks the 1-D store; where the rank tiles cut it
    between rows the view's parts are row ranges, so a reduction along the rows and an
    element-wise op with an array split alike move no array data."""
    rows, cols = 12 * max(RANKS, 1), 10
    n = numpy.arange(rows * cols, dtype=numpy.float64)
    c = cupynum.array(n)
    cr, nr = c.reshape(rows, cols), n.reshape(rows, cols)
    cupynum.sync()
    before = _sent()
    s = cr.sum(axis=0)
    t = (cr * 2 + 1).sum()
    cupynum.sync()
    moved = _sent() - before
    check(s, nr.sum(axis=0))
    check(t, (nr * 2 + 1).sum())
    if cupynum._core._row_parts(cr):
        assert moved <= (s.nbytes + 64) * RANKS + 1024, moved
    check(cr[:, 3:5] * 2, nr[:, 3:5] * 2)
    check(cr[1::2, ::3].sum(axis=1), nr[1::2, ::3].sum(axis=1))
    check(c[5:-7].reshape(-1, 6, 2).sum(axis=(0, 2)), n[5:-7].reshape(-1, 6, 2).sum(axis=(0, 2)))


def test_several_arrays_broadcast_set_and_put_along_axis_bytes():
    """A[rows[:, None], cols] = v and put_along_axis along the columns of a matrix split along
    its rows: the merged linear index and the values (replicated or split alike) go to the rows'
    owners: bytes in proportion to the selection, not the array."""
    n, c = _pair((120, 50), numpy.float64)
    cols = numpy.random.default_rng(4).integers(0, 50, (120, 3))
    rows = numpy.arange(120)[:, None]
    bound = cols.size * 16 + 1024
    before = _sent()
    c[cupynum.array(rows), cupynum.array(cols)] = -1.0
    moved = _sent() - before
    n[rows, cols] = -1.0
    check(c, n)
    assert moved <= bound, moved
    v = sample(cols.shape, numpy.float64, seed=5)
    before = _sent()
    cupynum.put_along_axis(c, cupynum.array(cols), cupynum.array(v), axis=1)
    moved = _sent() - before
    numpy.put_along_axis(n, cols, v, axis=1)
    check(c, n)
    assert moved <= bound, moved
    check(cupynum.take_along_axis(c, cupynum.array(cols), axis=1), numpy.take_along_axis(n, cols, axis=1))


@pytest.mark.parametrize("mode", ["clip", "wrap"])
@pytest.mark.parametrize("axis", [None, 0, 1, -1])
def test_take_modes_and_out_native(no_fallback, mode, axis):
    """take with mode='clip'/'wrap' maps the indices into range element-wise, then gathers as
    mode='raise' does (bytes in proportion to the indices); out= takes the result by NumPy's
    unsafe cast."""
    n, c = _pair((40, 30), numpy.float64)
    ind = numpy.random.default_rng(6).integers(-2000, 2000, (7, 3))
    for k in (ind, ind.astype(numpy.int32), ind.ravel().tolist()):
        ck = cupynum.array(k) if isinstance(k, numpy.ndarray) else k
        before = _sent()
        r = cupynum.take(c, ck, axis=axis, mode=mode)
        moved = _sent() - before
        check(r, numpy.take(n, k, axis=axis, mode=mode))
        row = 8 if axis is None else 8 * (30 if axis == 0 else 40)
        assert moved <= ind.size * (8 + row) + 1024, moved
    out = numpy.zeros(numpy.take(n, ind, axis=axis, mode=mode).shape, numpy.int32)
    cout = cupynum.array(out)
    assert cupynum.take(c * 10, cupynum.array(ind), axis=axis, mode=mode, out=cout) is cout
    numpy.take(n * 10, ind, axis=axis, mode=mode, out=out)
    check(cout, out)


def test_take_errors_leave_out_unchanged():
    n, c = _pair((6, 5), numpy.float64)
    out = cupynum.zeros(3)
    for kw, exc in [(dict(out=cupynum.zeros(4)), ValueError), (dict(), IndexError)]:
        ind = [0, 1, 2] if kw else [0, 1, 99]
        with pytest.raises(exc) as e:
            cupynum.take(c, ind, **({"out": out} if not kw else kw))
        with pytest.raises(exc) as en:
            numpy.take(n, ind, **({"out": numpy.zeros(3)} if not kw else {"out": numpy.zeros(4)}))
        assert str(e.value) == str(en.value)
    check(out, numpy.zeros(3))
    with pytest.raises(IndexError, match="cannot do a non-empty take from an empty axes"):
        cupynum.take(cupynum.zeros((0, 3)), [0], axis=0, mode="wrap")


@pytest.mark.parametrize("shape", [(80, 60), (4800,)])
def test_selection_functions_move_the_selection(shape):
    """Each of take, put, take_along_axis, put_along_axis, place, compress, extract,
    flatnonzero, ix_ and ndarray.flat on a partitioned array moves bytes in proportion to what
    it selects (an 8-byte index and the element's row or value each, replicated results sent
    to every rank), never the array (4800 float64: 38 KB)."""
    n, c = _pair(shape, numpy.float64)
    rng = numpy.random.default_rng(9)
    size = n.size
    k = 25
    flat_idx = rng.integers(-size, size, k)
    m = rng.random(shape) > 0.995
    row = n[0].nbytes if n.ndim > 1 else 8
    per = 8 + 8                                   # an index and a value
    cases = [
        ("take", lambda xp, a: xp.take(a, _conv(flat_idx) if xp is cupynum else flat_idx),
         k * per),
        ("take clip", lambda xp, a: xp.take(a, _conv(flat_idx * 3) if xp is cupynum else flat_idx * 3,
                                            mode="clip"), k * per),
        ("flat[idx]", lambda xp, a: a.flat[_conv(flat_idx) if xp is cupynum else flat_idx], k * per),
        ("flat[slice]", lambda xp, a: a.flat[size // 3:size // 3 + k], k * per),
        ("extract", lambda xp, a: xp.extract(_conv(m) if xp is cupynum else m, a),
         int(m.sum()) * per),
        ("flatnonzero", lambda xp, a: xp.flatnonzero(_conv(m) if xp is cupynum else m),
         int(m.sum()) * per),
        ("compress", lambda xp, a: xp.compress(_conv(m.ravel()) if xp is cupynum else m.ravel(), a),
         int(m.sum()) * per),
    ]
    if n.ndim > 1:
        rows = rng.integers(0, shape[0], 6)
        cond = rng.random(shape[0]) > 0.9
        ind = rng.integers(0, shape[1], (shape[0], 2))
        cases += [
            ("take axis=0", lambda xp, a: xp.take(a, _conv(rows) if xp is cupynum else rows, axis=0),
             rows.size * (8 + row)),
            ("compress axis=0", lambda xp, a: xp.compress(_conv(cond) if xp is cupynum else cond, a,
                                                          axis=0), int(cond.sum()) * row),
            ("take_along_axis", lambda xp, a: xp.take_along_axis(a, _conv(ind) if xp is cupynum else ind,
                                                                 axis=1), ind.size * per),
            ("ix_", lambda xp, a: a[xp.ix_(*(_conv(rows) if xp is cupynum else rows,
                                             _conv(ind[:4, 0]) if xp is cupynum else ind[:4, 0]))],
             rows.size * 4 * per),
        ]
    for name, f, sel in cases:
        before = _sent()
        r = f(cupynum, c)
        cupynum.sync()
        moved = _sent() - before
        check(r, f(numpy, n))
        assert moved <= sel * max(RANKS - 1, 1) + 1024, (name, moved, sel)
    # the writes: put, place, put_along_axis, flat[...] = v
    vals = sample((k,), numpy.float64, seed=10)
    writes = [
        ("put", lambda xp, a: xp.put(a, _conv(flat_idx) if xp is cupynum else flat_idx,
                                     _conv(vals) if xp is cupynum else vals), k * per),
        ("put wrap", lambda xp, a: xp.put(a, _conv(flat_idx * 5) if xp is cupynum else flat_idx * 5,
                                          -2.5, mode="wrap"), k * per),
        ("place", lambda xp, a: xp.place(a, _conv(m) if xp is cupynum else m, [1.5, 2.5]),
         int(m.sum()) * per),
        ("flat[idx] =", lambda xp, a: a.flat.__setitem__(_conv(flat_idx) if xp is cupynum else flat_idx,
                                                         7.0), k * per),
    ]
    if n.ndim > 1:
        writes.append(("put_along_axis", lambda xp, a: xp.put_along_axis(
            a, _conv(ind) if xp is cupynum else ind, -1.0, axis=1), ind.size * per))
    for name, f, sel in writes:
        before = _sent()
        f(cupynum, c)
        cupynum.sync()
        moved = _sent() - before
        f(numpy, n)
        check(c, n)
        assert moved <= sel * max(RANKS - 1, 1) + 1024, (name, moved, sel)
