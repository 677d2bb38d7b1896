"""Joins, repeats and layout (cupynum/_joins.py) against NumPy: values, dtypes, shapes, errors
(type and text, arrays unchanged), and under mpirun the bytes each rank sends (only the pieces
whose owner changes, never the whole array)."""

import warnings

import numpy
import pytest

import cupynum
from conftest import ALL_DTYPES, both, check, dtype_id, same_error, same_outcome, sample

RANKS = cupynum.runtime_info()["ranks"]
DTYPES = [numpy.dtype(t) for t in ("?", "i1", "u2", "i4", "i8", "u8", "f2", "f4", "f8", "c8",
                                   "c16")]


def _pair(shape, dtype, seed=0):
    return both(sample(shape, dtype, seed))


def _sent():
    cupynum.sync()
    return cupynum.runtime_stats()["bytes_sent"]


def _moved(fn):
    """fn()'s result and the bytes this rank sent while computing it."""
    cupynum.sync()
    cupynum.reset_stats()
    r = fn()
    cupynum.sync()
    return r, cupynum.runtime_stats()["bytes_sent"]


def _bound(nbytes, factor=1.25):
    """Bytes a rank may send to fill an output of nbytes: its share of the moved pieces."""
    return 0 if RANKS == 1 else int(factor * nbytes / RANKS) + 4096


# ---- concatenate ------------------------------------------------------------------------------

@pytest.mark.parametrize("dtype", DTYPES, ids=dtype_id)
@pytest.mark.parametrize("shapes,axis", [
    ([(5,), (3,), (0,)], 0), ([(2, 3), (4, 3)], 0), ([(2, 3), (2, 1), (2, 4)], 1),
    ([(2, 3), (2, 3)], -1), ([(2, 3, 4), (2, 1, 4)], 1), ([(2, 3, 4), (2, 3, 2)], 2),
    ([(3, 4), (2,)], None), ([(0, 3), (0, 3)], 0), ([(7,)], 0)])
def test_concatenate(dtype, shapes, axis):
    pairs = [_pair(s, dtype, i) for i, s in enumerate(shapes)]
    check(cupynum.concatenate([c for _, c in pairs], axis=axis),
          numpy.concatenate([n for n, _ in pairs], axis=axis))
    check(cupynum.concat(tuple(c for _, c in pairs), axis=axis),
          numpy.concat(tuple(n for n, _ in pairs), axis=axis))


@pytest.mark.parametrize("d1,d2", [("i1", "u1"), ("i8", "f4"), ("?", "i2"), ("f2", "c8"),
                                   ("u8", "i8"), ("f4", "f8")])
def test_concatenate_promotes(d1, d2):
    (n1, c1), (n2, c2) = _pair((3, 2), d1), _pair((2, 2), d2, 1)
    check(cupynum.concatenate([c1, c2]), numpy.concatenate([n1, n2]))
    check(numpy.concatenate([c1, c2]), numpy.concatenate([n1, n2]))   # __array_function__


def test_concatenate_lists_and_scalars():
    n, c = _pair((3,), "i1")
    check(cupynum.concatenate([c, [1, 2]]), numpy.concatenate([n, [1, 2]]))
    check(cupynum.concatenate([[1.5], c, (3,)]), numpy.concatenate([[1.5], n, (3,)]))
    check(cupynum.concatenate([[True], [False]]), numpy.concatenate([[True], [False]]))
    n2, c2 = _pair((3, 4), "f8")
    check(cupynum.concatenate(c2), numpy.concatenate(n2))   # an array: its rows
    check(cupynum.concatenate(c2, axis=None), numpy.concatenate(n2, axis=None))


@pytest.mark.parametrize("dtype,casting", [("f4", "same_kind"), ("i4", "unsafe"),
                                           ("f8", "safe"), ("c16", "no"), ("i2", "same_kind"),
                                           ("u1", "same_kind"), ("f8", "bogus")])
def test_concatenate_dtype_casting(dtype, casting):
    (n1, c1), (n2, c2) = _pair((3,), "i4"), _pair((2,), "f8", 1)
    for args_n, args_c in (([n1, n1], [c1, c1]), ([n1, n2], [c1, c2])):
        try:
            expected = numpy.concatenate(args_n, dtype=dtype, casting=casting)
        except Exception as e:  # noqa: BLE001  (NumPy is the oracle)
            with pytest.raises(type(e)) as got:
                cupynum.concatenate(args_c, dtype=dtype, casting=casting)
            assert str(got.value) == str(e)
            continue
        check(cupynum.concatenate(args_c, dtype=dtype, casting=casting), expected)


@pytest.mark.parametrize("out_dtype", ["f8", "i8", "f4", "c16"])
def test_concatenate_out(out_dtype):
    (n1, c1), (n2, c2) = _pair((2, 3), "i4"), _pair((1, 3), "f4", 1)
    on = numpy.zeros((3, 3), out_dtype)
    oc = cupynum.zeros((3, 3), out_dtype)
    try:
        rn = numpy.concatenate([n1, n2], out=on)
    except Exception as e:  # noqa: BLE001
        with pytest.raises(type(e)) as got:
            cupynum.concatenate([c1, c2], out=oc)
        assert str(got.value) == str(e)
        # raised before anything is written (NumPy may have copied the arrays before the one
        # it cannot cast)
        check(oc, numpy.zeros((3, 3), out_dtype))
        return
    rc = cupynum.concatenate([c1, c2], out=oc)
    assert rc is oc and rn is on
    check(oc, on)


def test_concatenate_out_overlapping_inputs():
    n, c = _pair((6, 2), "f8")
    numpy.concatenate([n[3:], n[:3]], out=n.copy())   # NumPy itself: into a fresh array
    expected = numpy.concatenate([n[3:], n[:3]])
    r = cupynum.concatenate([c[3:], c[:3]], out=c)
    assert r is c
    check(c, expected)


@pytest.mark.parametrize("case", range(11))
def test_concatenate_errors(case):
    n, c = _pair((2, 3), "f8")
    calls = [
        lambda m, a: m.concatenate([]),
        lambda m, a: m.concatenate([a[0, 0], a[0, 1]]),
        lambda m, a: m.concatenate([a, a[0]]),
        lambda m, a: m.concatenate([a, a[:, :2]]),
        lambda m, a: m.concatenate([a, a], axis=2),
        lambda m, a: m.concatenate([a, a], axis=-3),
        lambda m, a: m.concatenate([a], out=m.zeros(3)),
        lambda m, a: m.concatenate([a, a], out=m.zeros((4, 2))),
        lambda m, a: m.concatenate([a], dtype=int),
        lambda m, a: m.concatenate([a], out=m.zeros((2, 3)), dtype=float),
        lambda m, a: m.concatenate([a], casting="foo"),
    ]
    same_error(lambda: calls[case](numpy, n), lambda: calls[case](cupynum, c))
    check(c, n)


# ---- stacks -------------------------------------------------------------------------------------

@pytest.mark.parametrize("dtype", DTYPES, ids=dtype_id)
@pytest.mark.parametrize("shape", [(), (4,), (2, 3), (2, 0, 3), (3, 1, 2)])
def test_stack_family(dtype, shape):
    pairs = [_pair(shape, dtype, i) for i in range(3)]
    ns, cs = [p[0] for p in pairs], [p[1] for p in pairs]
    for axis in range(-len(shape) - 1, len(shape) + 1):
        check(cupynum.stack(cs, axis=axis), numpy.stack(ns, axis=axis))
    for f in ("vstack", "hstack", "dstack", "column_stack"):
        if f == "column_stack" and len(shape) > 2:
            continue
        check(getattr(cupynum, f)(cs), getattr(numpy, f)(ns))
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", DeprecationWarning)
        check(cupynum.row_stack(cs), numpy.row_stack(ns))


def test_stack_mixed():
    n, c = _pair((3,), "i2")
    check(cupynum.stack([1, 2.5, 3]), numpy.stack([1, 2.5, 3]))
    check(cupynum.stack([c, [1, 2, 3]], axis=1), numpy.stack([n, [1, 2, 3]], axis=1))
    check(cupynum.hstack([c, 5, [1.5]]), numpy.hstack([n, 5, [1.5]]))
    check(cupynum.vstack([c, [5, 6, 7]]), numpy.vstack([n, [5, 6, 7]]))
    check(cupynum.column_stack([c, c * 2]), numpy.column_stack([n, n * 2]))
    check(cupynum.hstack([c, c], dtype="f4"), numpy.hstack([n, n], dtype="f4"))
    check(cupynum.vstack([c, c], dtype="i1", casting="unsafe"),
          numpy.vstack([n, n], dtype="i1", casting="unsafe"))
    on, oc = numpy.zeros((2, 3)), cupynum.zeros((2, 3))
    assert cupynum.stack([c, c], out=oc) is oc
    numpy.stack([n, n], out=on)
    check(oc, on)
    with pytest.warns(DeprecationWarning, match="row_stack"):
        cupynum.row_stack([c, c])


@pytest.mark.parametrize("case", range(8))
def test_stack_errors(case):
    n, c = _pair((2, 3), "f8")
    calls = [
        lambda m, a: m.stack([]),
        lambda m, a: m.stack([a, a[0]]),
        lambda m, a: m.stack((x for x in [a])),
        lambda m, a: m.stack([a, a], axis=3),
        lambda m, a: m.vstack([]),
        lambda m, a: m.hstack([a, a[:1, :2]]),
        lambda m, a: m.stack([a, a], dtype="i4"),
        lambda m, a: m.dstack([a, a[0]]),
    ]
    same_error(lambda: calls[case](numpy, n), lambda: calls[case](cupynum, c))


# ---- block --------------------------------------------------------------------------------------

@pytest.mark.parametrize("dtype", ["f8", "i4", "c8", "?"])
def test_block(dtype):
    (a, ca), (b, cb) = _pair((2, 2), dtype), _pair((2, 3), dtype, 1)
    (v, cv), (w, cw) = _pair((5,), dtype, 2), _pair((3,), dtype, 3)
    check(cupynum.block([[ca, cb], [cb[:, :2], ca[:, :1], cb[:, :2]]]),
          numpy.block([[a, b], [b[:, :2], a[:, :1], b[:, :2]]]))
    check(cupynum.block([cv, cw]), numpy.block([v, w]))
    check(cupynum.block([[cv], [cv]]), numpy.block([[v], [v]]))
    check(cupynum.block(ca), numpy.block(a))
    check(cupynum.block([[1, 2], [3, 4]]), numpy.block([[1, 2], [3, 4]]))
    check(cupynum.block([[ca[:1, :1], 1.5]]), numpy.block([[a[:1, :1], 1.5]]))
    check(cupynum.block([[[ca]], [[ca]]]), numpy.block([[[a]], [[a]]]))


@pytest.mark.parametrize("case", range(5))
def test_block_errors(case):
    n, c = _pair((2, 2), "f8")
    calls = [
        lambda m, a: m.block([[a], a]),
        lambda m, a: m.block([]),
        lambda m, a: m.block([[a], []]),
        lambda m, a: m.block((a, a)),
        lambda m, a: m.block([[a, a], [a[:1]]]),
    ]
    same_error(lambda: calls[case](numpy, n), lambda: calls[case](cupynum, c))


# ---- append -------------------------------------------------------------------------------------

@pytest.mark.parametrize("dtype", DTYPES, ids=dtype_id)
def test_append(dtype):
    (n, c), (m, d) = _pair((2, 3), dtype), _pair((1, 3), dtype, 1)
    check(cupynum.append(c, d), numpy.append(n, m))
    check(cupynum.append(c, d, axis=0), numpy.append(n, m, axis=0))
    check(cupynum.append(c[0], 7), numpy.append(n[0], 7))
    check(cupynum.append(c, [[1.5, 2, 3]], axis=0), numpy.append(n, [[1.5, 2, 3]], axis=0))
    check(cupynum.append(5, c[:, 1]), numpy.append(5, n[:, 1]))
    same_error(lambda: numpy.append(n, m[:, :2], axis=0),
                lambda: cupynum.append(c, d[:, :2], axis=0))


def test_foreign_arguments_fall_back():
    s = numpy.array(["a", "b"])
    assert list(cupynum.concatenate([s, s])) == list(numpy.concatenate([s, s]))


# ---- r_ and c_ ---------------------------------------------------------------------------------

_RC_CASES = [
    lambda m, x, y: m.r_[x, 0, 0, y],
    lambda m, x, y: m.r_[-1:1:6j, [0] * 3, 5, 6],
    lambda m, x, y: m.r_[1:10:2, x],
    lambda m, x, y: m.r_[0:1:5j],
    lambda m, x, y: m.r_[3:0:-1],
    lambda m, x, y: m.r_["-1", x.reshape(2, 3), y.reshape(2, 3)],
    lambda m, x, y: m.r_["0,2", x, y],
    lambda m, x, y: m.r_["0,2,0", x, y],
    lambda m, x, y: m.r_["1,2,0", x, y],
    lambda m, x, y: m.r_["0,3,-1", x[:2], y[:2]],
    lambda m, x, y: m.r_["0,3,1", x[:2], y[:2]],
    lambda m, x, y: m.r_["1", x.reshape(3, 2), y.reshape(3, 2)],
    lambda m, x, y: m.c_[x, y],
    lambda m, x, y: m.c_[x.reshape(1, 6), 0, 0, y.reshape(1, 6)],
    lambda m, x, y: m.c_[1:7, 2.5:8.5, x],
    lambda m, x, y: m.c_[[1, 2], [[3], [4]]],
    lambda m, x, y: m.r_[1, 2.5, True],
    lambda m, x, y: m.r_[x[:2], 1.5],
    lambda m, x, y: m.r_[x[0], y],
    lambda m, x, y: m.r_[x],
    lambda m, x, y: m.r_[()],
    lambda m, x, y: m.r_[x, "0"],
    lambda m, x, y: m.r_["a", x],
    lambda m, x, y: m.r_["0,x", x],
    lambda m, x, y: m.r_[x.reshape(2, 3), y],
]


@pytest.mark.parametrize("dtype", ["i1", "u2", "i8", "f4", "f8", "c8", "?"])
@pytest.mark.parametrize("case", range(len(_RC_CASES)))
def test_r_c(case, dtype):
    (nx, cx), (ny, cy) = _pair((6,), dtype), _pair((6,), dtype, 1)
    f = _RC_CASES[case]
    try:
        e = f(numpy, nx, ny)
    except Exception:  # noqa: BLE001  (NumPy is the oracle)
        same_error(lambda: f(numpy, nx, ny), lambda: f(cupynum, cx, cy))
        return
    with warnings.catch_warnings():
        warnings.simplefilter("error", cupynum.FallbackWarning)
        r = f(cupynum, cx, cy)
    assert isinstance(r, cupynum.ndarray)
    check(r, e)


def test_r_c_matrix_forms_are_numpy_s():
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", cupynum.FallbackWarning)
        for key in (("r", [1, 2], [3, 4]), ("c", [1, 2], [3, 4])):
            e, r = numpy.r_[key], cupynum.r_[key]
            assert type(r) is type(e) and numpy.array_equal(numpy.asarray(r), e)
        assert repr(cupynum.r_) == "<cupynum r_>" and len(cupynum.c_) == 0


def test_r_c_move_only_pieces():
    (n1, c1), (n2, c2) = _pair((60, 40), "f8"), _pair((36, 40), "f8", 1)
    r, sent = _moved(lambda: cupynum.r_[c1, c2])
    check(r, numpy.r_[n1, n2])
    assert sent <= _bound(r.nbytes), sent
    r, sent = _moved(lambda: cupynum.c_[c1[:36], c2])
    check(r, numpy.c_[n1[:36], n2])
    assert sent <= _bound(r.nbytes), sent


# ---- empty results are written whole; zeros stay zero ------------------------------------------

def test_results_in_reused_buffers():
    """Joins fill results that are not zero-filled first; the allocator hands back freed buffers
    still holding old values, so every element must come from the join, and `zeros` and `empty`
    of a reused buffer must still read zero where nothing was written."""
    n = numpy.arange(1, 30001, dtype=numpy.float64)
    for _ in range(3):
        c = cupynum.array(n) * 7.0      # leaves a dirty freed buffer of this size behind
        cupynum.sync()
        del c
        z = cupynum.zeros(30000)
        check(z, numpy.zeros(30000))
        z[::3] = 1.0                     # a first partial write of a zeros array
        e = numpy.zeros(30000)
        e[::3] = 1.0
        check(z, e)
        del z
        half = cupynum.array(n[:15000])
        check(cupynum.concatenate([half, half]), numpy.concatenate([n[:15000], n[:15000]]))
        check(cupynum.pad(half.reshape(100, 150), 3), numpy.pad(n[:15000].reshape(100, 150), 3))
        check(cupynum.roll(cupynum.array(n), 123), numpy.roll(n, 123))
        w = cupynum.empty(30000)
        w[...] = 2.0
        check(w, numpy.full(30000, 2.0))
        del w
        w = cupynum.empty(30000)          # still zero-filled, as a large NumPy empty reads
        w[::3] = 1.0
        check(w, e)


# ---- distributed: only the pieces whose owner changes move --------------------------------------

def test_joins_move_only_pieces():
    (n1, c1), (n2, c2) = _pair((60, 40), "f8"), _pair((36, 40), "f8", 1)
    r, sent = _moved(lambda: cupynum.concatenate([c1, c2]))
    check(r, numpy.concatenate([n1, n2]))
    assert sent <= _bound(r.nbytes), sent
    r, sent = _moved(lambda: cupynum.stack([c1[:36], c2], axis=1))
    check(r, numpy.stack([n1[:36], n2], axis=1))
    assert sent <= _bound(r.nbytes), sent
    r, sent = _moved(lambda: cupynum.hstack([c1[:36], c2]))
    check(r, numpy.hstack([n1[:36], n2]))
    assert sent <= _bound(r.nbytes), sent
    r, sent = _moved(lambda: cupynum.block([[c1[:36], c2], [c2, c1[:36]]]))
    check(r, numpy.block([[n1[:36], n2], [n2, n1[:36]]]))
    assert sent <= _bound(r.nbytes), sent


# ---- repeat, tile, roll -------------------------------------------------------------------------

@pytest.mark.parametrize("dtype", DTYPES, ids=dtype_id)
@pytest.mark.parametrize("shape", [(), (0,), (5,), (3, 4), (2, 3, 2)])
def test_repeat(dtype, shape):
    n, c = _pair(shape, dtype)
    for axis in [None] + list(range(-len(shape), len(shape))):
        for reps in (0, 1, 3, True, 2.7):
            check(cupynum.repeat(c, reps, axis=axis), numpy.repeat(n, reps, axis=axis))
        length = n.size if axis is None else n.shape[axis]
        counts = [(i * 7) % 4 for i in range(length)]
        check(cupynum.repeat(c, counts, axis=axis), numpy.repeat(n, counts, axis=axis))
        check(c.repeat(counts, axis=axis), n.repeat(counts, axis=axis))
        check(c.repeat(2, axis), n.repeat(2, axis))
        check(cupynum.repeat(c, cupynum.array([2]), axis=axis), numpy.repeat(n, [2], axis=axis))


def test_repeat_many():
    n, c = _pair((300, 4), "f8")
    counts = numpy.arange(300) % 3               # 300 runs: the gather
    check(cupynum.repeat(c, counts, axis=0), numpy.repeat(n, counts, axis=0))
    check(cupynum.repeat(c, cupynum.array(counts), axis=0), numpy.repeat(n, counts, axis=0))
    check(cupynum.repeat(c[:, :2], 300, axis=1), numpy.repeat(n[:, :2], 300, axis=1))
    check(cupynum.repeat(c[:2, :1], 700, axis=0), numpy.repeat(n[:2, :1], 700, axis=0))
    check(cupynum.repeat(5, 4), numpy.repeat(5, 4))
    check(cupynum.repeat([1, 2.5], [2, 3]), numpy.repeat([1, 2.5], [2, 3]))
    for view in (lambda x: x[:, 1], lambda x: x[::-3, 2], lambda x: x.T[1, 5:40]):   # 1-d views
        check(cupynum.repeat(view(c), 3), numpy.repeat(view(n), 3))
        check(cupynum.repeat(view(c), numpy.arange(view(n).size) % 3),
              numpy.repeat(view(n), numpy.arange(view(n).size) % 3))
    r, v = cupynum.repeat(c[:, 0], 2), c[:, 0]
    r[...] = -1.0
    check(v, n[:, 0])   # the result is new memory


@pytest.mark.parametrize("case", range(6))
def test_repeat_errors(case):
    n, c = _pair((2, 3), "i4")
    calls = [
        lambda m, a: m.repeat(a, [1, 2]),
        lambda m, a: m.repeat(a, -1),
        lambda m, a: m.repeat(a, [1, -2, 1], axis=1),
        lambda m, a: m.repeat(a, 2, axis=2),
        lambda m, a: m.repeat(a, [[1, 2, 3]], axis=1),
        lambda m, a: m.repeat(a, m.asarray([1.5, 2, 1]), axis=1),
    ]
    same_error(lambda: calls[case](numpy, n), lambda: calls[case](cupynum, c))


@pytest.mark.parametrize("dtype", DTYPES, ids=dtype_id)
@pytest.mark.parametrize("shape", [(), (0,), (5,), (3, 4), (2, 1, 3)])
@pytest.mark.parametrize("reps", [1, 3, 0, (2, 1), (1, 2, 2), (3, 1, 2), (), (2, 0)])
def test_tile(dtype, shape, reps):
    n, c = _pair(shape, dtype)
    r = cupynum.tile(c, reps)
    check(r, numpy.tile(n, reps))
    if r.size and c.size:
        r[(0,) * r.ndim] = 0                    # a copy: writing it leaves the operand as it was
        check(c, n)


def test_tile_mixed_and_errors():
    check(cupynum.tile(5, (2, 3)), numpy.tile(5, (2, 3)))
    check(cupynum.tile([1.5, 2], 2), numpy.tile([1.5, 2], 2))
    n, c = _pair((4, 3), "f8")
    check(cupynum.tile(c, (70, 5)), numpy.tile(n, (70, 5)))     # more blocks than pieces
    same_error(lambda: numpy.tile(n, -1), lambda: cupynum.tile(c, -1))
    same_error(lambda: numpy.tile(n, 1.5), lambda: cupynum.tile(c, 1.5))


@pytest.mark.parametrize("dtype", DTYPES, ids=dtype_id)
@pytest.mark.parametrize("shape", [(), (0,), (7,), (3, 4), (2, 3, 4)])
def test_roll(dtype, shape):
    n, c = _pair(shape, dtype)
    for shift in (0, 1, -2, 9, 2.5):
        check(cupynum.roll(c, shift), numpy.roll(n, shift))
        for axis in range(-len(shape), len(shape)):
            check(cupynum.roll(c, shift, axis=axis), numpy.roll(n, shift, axis=axis))
    if len(shape) >= 2:
        for shift, axis in (((1, 2), (0, 1)), ((1, -3), (1, 1)), (2, (0, -1)), ((1, 2), 0)):
            check(cupynum.roll(c, shift, axis=axis), numpy.roll(n, shift, axis=axis))
    check(cupynum.roll([1, 2, 3], 1), numpy.roll([1, 2, 3], 1))


@pytest.mark.parametrize("case", range(3))
def test_roll_errors(case):
    n, c = _pair((2, 3), "f8")
    calls = [
        lambda m, a: m.roll(a, 1, axis=2),
        lambda m, a: m.roll(a, [[1, 2]], axis=0),
        lambda m, a: m.roll(a, [1, 2, 3], axis=(0, 1)),
    ]
    same_error(lambda: calls[case](numpy, n), lambda: calls[case](cupynum, c))


def test_repeats_move_only_pieces():
    n, c = _pair((96, 40), "f8")
    r, sent = _moved(lambda: cupynum.roll(c, 5, axis=0))
    check(r, numpy.roll(n, 5, axis=0))
    assert sent <= _bound(r.nbytes), sent
    r, sent = _moved(lambda: cupynum.roll(c, (3, -4), axis=(0, 1)))
    check(r, numpy.roll(n, (3, -4), axis=(0, 1)))
    assert sent <= _bound(r.nbytes), sent
    r, sent = _moved(lambda: cupynum.repeat(c, 3, axis=0))
    check(r, numpy.repeat(n, 3, axis=0))
    assert sent <= _bound(r.nbytes), sent
    r, sent = _moved(lambda: cupynum.repeat(c, 2, axis=1))
    check(r, numpy.repeat(n, 2, axis=1))
    assert sent <= _bound(r.nbytes), sent
    r, sent = _moved(lambda: cupynum.tile(c, (3, 2)))
    check(r, numpy.tile(n, (3, 2)))
    assert sent <= _bound(r.nbytes), sent
    r, sent = _moved(lambda: cupynum.append(c, c[:10], axis=0))
    check(r, numpy.append(n, n[:10], axis=0))
    assert sent <= _bound(r.nbytes), sent


# ---- copyto, require, trim_zeros, resize ---------------------------------------------------------

def _outcome(fn_np, fn_cp, n, c):
    """fn(n) and fn(c), each writing its first argument: the same error (type, text, array
    unchanged) or the same array afterwards."""
    before = n.copy()
    try:
        fn_np(n)
    except Exception as e:  # noqa: BLE001  (NumPy is the oracle)
        with pytest.raises(type(e)) as got:
            fn_cp(c)
        assert str(got.value) == str(e)
        check(c, before)
        return
    assert fn_cp(c) is None
    check(c, n)


@pytest.mark.filterwarnings("ignore::numpy.exceptions.ComplexWarning")
@pytest.mark.parametrize("dst", ["i1", "i8", "u2", "f4", "f8", "c8", "?"])
@pytest.mark.parametrize("src", ["i4", "f8", "?", "c16", "u8"])
@pytest.mark.parametrize("casting", ["same_kind", "unsafe", "safe", "no"])
def test_copyto_arrays(dst, src, casting):
    n, c = _pair((3, 4), dst)
    sn, sc = _pair((4,), src, 1)
    _outcome(lambda a: numpy.copyto(a, sn, casting=casting),
             lambda a: cupynum.copyto(a, sc, casting=casting), n, c)
    mn, mc = _pair((3, 1), "?", 2)
    _outcome(lambda a: numpy.copyto(a, sn, casting=casting, where=mn),
             lambda a: cupynum.copyto(a, sc, casting=casting, where=mc), n, c)


@pytest.mark.parametrize("value", [7, -3, 300, 1.5, 2.5j, True, numpy.float64(2.5),
                                   numpy.int8(-1), [1, 2, 3, 4], [[1.5], [2], [3]],
                                   numpy.array(1.5), [1, 2]])
@pytest.mark.parametrize("dst", ["i1", "u1", "i8", "f2", "f8", "c8", "?"])
def test_copyto_values(value, dst):
    n, c = _pair((3, 4), dst)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        _outcome(lambda a: numpy.copyto(a, value), lambda a: cupynum.copyto(a, value), n, c)
        _outcome(lambda a: numpy.copyto(a, value, casting="unsafe", where=[True, False, False, True]),
                 lambda a: cupynum.copyto(a, value, casting="unsafe",
                                          where=[True, False, False, True]), n, c)


def test_copyto_errors_and_forms():
    n, c = _pair((3,), "f8")
    _outcome(lambda a: numpy.copyto(a, [1, 2, 3], where=[True, False]),
             lambda a: cupynum.copyto(a, [1, 2, 3], where=[True, False]), n, c)
    _outcome(lambda a: numpy.copyto(a, 1, casting="bad"),
             lambda a: cupynum.copyto(a, 1, casting="bad"), n, c)
    _outcome(lambda a: numpy.copyto(a, a[::-1]), lambda a: cupynum.copyto(a, a[::-1]), n, c)
    _outcome(lambda a: numpy.copyto(a, [4, 5, 6], where=numpy.array([1, 0, 1])),
             lambda a: cupynum.copyto(a, [4, 5, 6], where=cupynum.array([1, 0, 1])), n, c)
    _outcome(lambda a: numpy.copyto(a, [4, 5, 6], where=False),
             lambda a: cupynum.copyto(a, [4, 5, 6], where=False), n, c)
    same_error(lambda: numpy.copyto([1, 2], [3, 4]), lambda: cupynum.copyto([1, 2], [3, 4]))
    host = numpy.zeros(3)
    numpy.copyto(host, c)                      # a NumPy destination: NumPy writes it
    check(cupynum.asarray(host), n)


@pytest.mark.parametrize("reqs", [None, "C", "F", "A", "W", "O", "E", ["C", "W"],
                                  ["F_CONTIGUOUS", "aligned"], "CF", "Q"])
@pytest.mark.parametrize("dtype", [None, "f4"])
def test_require(reqs, dtype):
    n, c = _pair((3, 4), "i8")
    for a_n, a_c in ((n, c), (n.T, c.T), (n[:, ::2], c[:, ::2])):
        try:
            r_n = numpy.require(a_n, dtype, reqs)
        except Exception as e:  # noqa: BLE001
            with pytest.raises(type(e)) as got:
                cupynum.require(a_c, dtype, reqs)
            assert str(got.value) == str(e)
            continue
        r_c = cupynum.require(a_c, dtype, reqs)
        check(r_c, r_n)
        if reqs and "O" in reqs:
            # OWNDATA: cupynum's views own their data (docs/api-coverage.md), so NumPy's copy
            # of a view is not made
            continue
        assert r_c.flags.c_contiguous == r_n.flags.c_contiguous
        assert r_c.flags.f_contiguous == r_n.flags.f_contiguous
        assert (r_c is a_c) == (r_n is a_n)     # the operand itself where NumPy returns it


@pytest.mark.parametrize("dtype", DTYPES, ids=dtype_id)
@pytest.mark.parametrize("data", [[0, 0, 1, 2, 0, 3, 0], [1, 0, 2], [0, 0, 0], [], [5],
                                  [[0, 0, 0], [0, 1, 0], [0, 2, 3], [0, 0, 0]]])
@pytest.mark.parametrize("trim", ["fb", "f", "b", "BF"])
def test_trim_zeros(dtype, data, trim):
    n, c = both(numpy.array(data, dtype=dtype))
    if n.ndim == 2:
        for axis in (None, 0, 1, -1, (0, 1)):
            check(cupynum.trim_zeros(c, trim, axis=axis), numpy.trim_zeros(n, trim, axis=axis))
    r = cupynum.trim_zeros(c, trim)
    check(r, numpy.trim_zeros(n, trim))
    if r.size:                      # a view, as NumPy's: writes are seen by the operand
        r[(0,) * r.ndim] = 1
        rn = numpy.trim_zeros(n, trim)
        rn[(0,) * rn.ndim] = 1
        check(c, n)


def test_trim_zeros_forms():
    assert cupynum.trim_zeros([0, 1, 2, 0]) == numpy.trim_zeros([0, 1, 2, 0])   # a list stays
    n, c = both(numpy.array([0.0, numpy.nan, 0.0]))
    check(cupynum.trim_zeros(c), numpy.trim_zeros(n))
    same_error(lambda: numpy.trim_zeros(n, "x"), lambda: cupynum.trim_zeros(c, "x"))
    same_error(lambda: numpy.trim_zeros(n, axis=1), lambda: cupynum.trim_zeros(c, axis=1))


@pytest.mark.parametrize("dtype", DTYPES, ids=dtype_id)
@pytest.mark.parametrize("shape", [(), (0,), (5,), (2, 3)])
@pytest.mark.parametrize("new", [7, 0, (2, 4), (3, 0), (4, 5, 2), (1,), ()])
def test_resize(dtype, shape, new):
    n, c = _pair(shape, dtype)
    check(cupynum.resize(c, new), numpy.resize(n, new))
    m, d = n.copy(), c.copy()
    m.resize(new, refcheck=False)
    assert d.resize(new) is None
    check(d, m)
    if isinstance(new, tuple) and len(new) > 1:
        m, d = n.copy(), c.copy()
        m.resize(*new, refcheck=False)
        d.resize(*new)
        check(d, m)


def test_resize_errors():
    n, c = _pair((4,), "f8")
    same_error(lambda: numpy.resize(n, (2, -1)), lambda: cupynum.resize(c, (2, -1)))
    same_error(lambda: n.copy().resize(-1, refcheck=False), lambda: c.copy().resize(-1))
    check(cupynum.resize([1, 2, 3], (2, 2)), numpy.resize([1, 2, 3], (2, 2)))


def _resize_outcome(xp, make, op):
    """(error type and message) or the resized array's values, as NumPy or cupynum give them."""
    holder = make(xp)
    try:
        op(holder)
    except ValueError as e:
        return ("ValueError", str(e))
    return holder["a"]


RESIZE_REFS = [
    # referenced from a second name, then from a view (NumPy's view references its base)
    ("second_name", lambda h: h.__setitem__("b", h["a"]) or h["a"].resize((7, 3))),
    ("view_alive", lambda h: h.__setitem__("b", h["a"][1:]) or h["a"].resize(30)),
    ("view_alive_refcheck_false",
     lambda h: h.__setitem__("b", h["a"][1:]) or h["a"].resize((3, 3), refcheck=False)),
    ("view_dropped", lambda h: h.__setitem__("b", h["a"][1:]) or h.pop("b") is None or
     h["a"].resize(9)),
    # a view does not own its data; the same size only reshapes, whatever references it
    ("of_a_view", lambda h: h["a"][1:].resize(3, refcheck=False)),
    ("of_a_transpose", lambda h: h["a"].T.resize(4, refcheck=False)),
    ("same_size_referenced", lambda h: h.__setitem__("b", h["a"]) or h["a"].resize((4, 6))),
    ("alone", lambda h: h["a"].resize((5, 7))),
]


@pytest.mark.parametrize("case", RESIZE_REFS, ids=[c[0] for c in RESIZE_REFS])
def test_resize_refcheck_as_numpy(case):
    """ndarray.resize refuses what NumPy refuses, with its message, and leaves the array as it was."""
    _, op = case
    n0 = numpy.arange(24.0).reshape(6, 4)

    def make(xp):
        return {"a": xp.array(n0) if xp is cupynum else n0.copy()}
    expected = _resize_outcome(numpy, make, op)
    got = _resize_outcome(cupynum, make, op)
    if isinstance(expected, tuple):
        assert got == expected
    else:
        check(got, expected)


def test_layout_moves_only_pieces():
    n, c = _pair((96, 40), "f8")
    m, d = _pair((96, 40), "f8", 1)
    _, sent = _moved(lambda: cupynum.copyto(d, c))
    numpy.copyto(m, n)
    check(d, m)
    assert sent <= _bound(d.nbytes), sent
    r, sent = _moved(lambda: cupynum.trim_zeros(c))
    check(r, numpy.trim_zeros(n))
    assert sent <= _bound(c.nbytes), sent
    r, sent = _moved(lambda: cupynum.resize(c[:, 0], 200))
    check(r, numpy.resize(n[:, 0], 200))
    assert sent <= _bound(r.nbytes + c[:, 0].nbytes), sent


# ---- pad ----------------------------------------------------------------------------------------

PAD_MODES = ["constant", "edge", "wrap", "reflect", "symmetric", "linear_ramp", "maximum",
             "minimum", "mean", "median", "empty"]


def _pad_kwargs(mode):
    kws = [{}]
    if mode in ("reflect", "symmetric"):
        kws.append({"reflect_type": "odd"})
    if mode == "constant":
        kws += [{"constant_values": (3, 5)}, {"constant_values": ((1.5, 2), (7, -1))}]
    if mode == "linear_ramp":
        kws.append({"end_values": (3, 5)})
    if mode in ("maximum", "mean", "median", "minimum"):
        kws += [{"stat_length": 2}, {"stat_length": ((1, 3), (2, 1))}]
    return kws


@pytest.mark.parametrize("mode", PAD_MODES)
@pytest.mark.parametrize("dtype", ["f8", "i4", "u1", "f4", "c16", "?"], ids=dtype_id)
@pytest.mark.parametrize("shape", [(3, 4), (1, 5), (5,), (2, 1, 3), (0, 3)])
def test_pad(mode, dtype, shape):
    n, c = _pair(shape, dtype)
    widths = [0, 1, (2, 3), ((1, 5),) * len(shape), 9]
    if len(shape) == 2:
        widths.append(((0, 2), (3, 1)))
        widths.append({1: (2, 1)})
    for w in widths:
        for kw in _pad_kwargs(mode):
            if dtype == "?" and (mode in ("linear_ramp", "mean", "median") or
                                 kw.get("reflect_type") or mode == "constant" and kw):
                continue                # NumPy's own arithmetic on bools is not pad's
            try:
                with warnings.catch_warnings():
                    warnings.simplefilter("ignore", RuntimeWarning)
                    expected = numpy.pad(n, w, mode, **kw)
            except Exception as e:  # noqa: BLE001  (NumPy is the oracle)
                with pytest.raises(type(e)) as got:
                    cupynum.pad(c, w, mode, **kw)
                assert str(got.value) == str(e)
                continue
            with warnings.catch_warnings():
                warnings.simplefilter("ignore", RuntimeWarning)
                r = cupynum.pad(c, w, mode, **kw)
            if mode == "empty":
                assert r.shape == expected.shape and r.dtype == expected.dtype
            elif mode == "mean" and n.dtype.kind in "fc":
                check(r, expected, rtol=8 * numpy.finfo(n.dtype).eps)   # sums in another order
            else:
                check(r, expected)


@pytest.mark.parametrize("case", range(6))
def test_pad_errors(case):
    n, c = _pair((3, 4), "f8")
    calls = [
        lambda m, a: m.pad(a, 1.5),
        lambda m, a: m.pad(a, -1),
        lambda m, a: m.pad(a, 1, mode="bogus"),
        lambda m, a: m.pad(a, 1, mode="edge", constant_values=3),
        lambda m, a: m.pad(a, ((1, 2), (3, 4), (5, 6))),
        lambda m, a: m.pad(a, 2, mode="maximum", stat_length=0),
    ]
    same_error(lambda: calls[case](numpy, n), lambda: calls[case](cupynum, c))


def test_pad_forms():
    check(cupynum.pad([1, 2, 3], 2, "reflect"), numpy.pad([1, 2, 3], 2, "reflect"))
    check(cupynum.pad(cupynum.array(5.0), 3), numpy.pad(numpy.array(5.0), 3))
    n, c = _pair((4,), "i8")

    def double(vector, width, axis, kwargs):
        vector[:width[0]] = 7
    check(cupynum.pad(c, 2, double), numpy.pad(n, 2, double))


def _pad_with(vector, pad_width, iaxis, kwargs):
    """NumPy's documented example, plus the axis and a read of the vector (a mean of its middle),
    so the order of the calls and the in-place writes of earlier axes matter."""
    lo, hi = int(pad_width[0]), int(pad_width[1])
    vector[:lo] = kwargs.get("padder", 10) + iaxis
    if hi:
        vector[vector.size - hi:] = vector[lo:vector.size - hi].sum() if vector.size > lo + hi else -1


@pytest.mark.parametrize("dtype", ["f8", "i4", "c16"])
@pytest.mark.parametrize("shape,width", [((5,), (2, 3)), ((3, 4), 2), ((2, 3, 4), ((1, 0), (0, 2), (1, 1))),
                                         ((0, 3), 1), ((40, 30), ((3, 4), (2, 0)))])
def test_pad_callable(dtype, shape, width, monkeypatch):
    """A callable mode as NumPy's: called on every 1-D vector along each axis of the zero-padded
    result, in NumPy's order, writing through the cupynum view it is given (nothing gathered,
    no NumPy fallback)."""
    n, c = _pair(shape, dtype)
    calls = []

    def spy(vector, pad_width, iaxis, kwargs):
        calls.append((type(vector), vector.shape, tuple(int(x) for x in pad_width), iaxis))
        _pad_with(vector, pad_width, iaxis, kwargs)
    with monkeypatch.context() as m:
        m.setattr(cupynum._fallback, "compute", _no_fallback)
        r = cupynum.pad(c, width, spy, padder=3)
    got, calls = calls, []
    check(r, numpy.pad(n, width, spy, padder=3))
    assert [(cupynum.ndarray,) + x[1:] for x in calls] == got
    check(c, n)                                        # the input is untouched
    fo_n = numpy.asfortranarray(n)
    check(cupynum.pad(cupynum.asfortranarray(c), width, _pad_with),
          numpy.pad(fo_n, width, _pad_with))
    assert cupynum.pad(cupynum.asfortranarray(c), width, _pad_with).flags.f_contiguous == \
        numpy.pad(fo_n, width, _pad_with).flags.f_contiguous


def _no_fallback(*args, **kwargs):
    raise AssertionError("fell back to NumPy")


def test_pad_moves_only_pieces():
    n, c = _pair((96, 40), "f8")
    for mode in ("constant", "edge", "wrap", "reflect"):
        r, sent = _moved(lambda: cupynum.pad(c, 3, mode))
        check(r, numpy.pad(n, 3, mode))
        assert sent <= _bound(r.nbytes), (mode, sent)


# ---- insert, delete -----------------------------------------------------------------------------

OBJS = [0, 1, -1, 3, 7, -9, slice(1, 3), slice(None, None, 2), slice(None, None, -3),
        slice(5, 1, -1), [0, 2], [2, 0, 2], [], numpy.array([], dtype=int), [True, False, True],
        numpy.array([1]), [[1]], [1.5], "mask"]


def _same_outcome(fn):
    try:
        expected = fn(numpy)
    except Exception as e:  # noqa: BLE001  (NumPy is the oracle)
        with pytest.raises(type(e)) as got:
            fn(cupynum)
        assert str(got.value) == str(e)
        return
    check(fn(cupynum), expected)


@pytest.mark.parametrize("dtype", ["f8", "i4", "?", "c8", "u2"], ids=dtype_id)
@pytest.mark.parametrize("shape", [(6,), (3, 4), (2, 3, 2), (0,), (4, 0)])
@pytest.mark.parametrize("axis", [None, 0, -1, 1, 5])
def test_delete_insert(dtype, shape, axis):
    n, c = _pair(shape, dtype)
    for obj in OBJS:
        if isinstance(obj, str):
            obj = numpy.arange(shape[0]) % 2 == 0
        _same_outcome(lambda m: m.delete(c if m is cupynum else n, obj, axis=axis))
        for values in (9, [7, 8], [[1], [2]], 2.5):
            with warnings.catch_warnings():
                warnings.simplefilter("ignore")
                _same_outcome(lambda m: m.insert(c if m is cupynum else n, obj, values, axis=axis))


def test_delete_insert_many():
    n, c = _pair((700, 3), "f8")
    obj = numpy.arange(0, 700, 3)                     # 234 deletions, 234 runs
    check(cupynum.delete(c, obj, axis=0), numpy.delete(n, obj, axis=0))
    obj = numpy.arange(0, 700, 2)                     # 350 runs: the gather
    check(cupynum.delete(c, obj, axis=0), numpy.delete(n, obj, axis=0))
    check(cupynum.delete(c, cupynum.array(obj), axis=0), numpy.delete(n, obj, axis=0))
    check(cupynum.delete(c, slice(None, None, 2), axis=0), numpy.delete(n, slice(None, None, 2), axis=0))
    pos = (numpy.arange(400) * 37) % 701
    vals = numpy.arange(400.0)[:, None] * numpy.ones(3)
    check(cupynum.insert(c, pos, vals, axis=0), numpy.insert(n, pos, vals, axis=0))
    check(cupynum.insert(c, pos, 5.0, axis=0), numpy.insert(n, pos, 5.0, axis=0))
    check(cupynum.insert(c, [1, 1, 2], cupynum.array([[1.0, 2, 3]]), axis=0),
          numpy.insert(n, [1, 1, 2], [[1.0, 2, 3]], axis=0))


def test_delete_insert_move_only_pieces():
    n, c = _pair((96, 40), "f8")
    r, sent = _moved(lambda: cupynum.delete(c, [3, 50, 51, 90], axis=0))
    check(r, numpy.delete(n, [3, 50, 51, 90], axis=0))
    assert sent <= _bound(r.nbytes), sent
    r, sent = _moved(lambda: cupynum.insert(c, [3, 50, 90], 7.0, axis=0))
    check(r, numpy.insert(n, [3, 50, 90], 7.0, axis=0))
    assert sent <= _bound(r.nbytes), sent
    r, sent = _moved(lambda: cupynum.delete(c, slice(10, 20), axis=1))
    check(r, numpy.delete(n, slice(10, 20), axis=1))
    assert sent <= _bound(r.nbytes), sent


def test_fortran_order_kept():
    """delete, insert and pad make their result in Fortran order when the operand is (NumPy's
    `order='F' if arr.flags.fnc`)."""
    kn = numpy.arange(12.0).reshape(3, 4, order="F")
    k = cupynum.arange(12.0).reshape(3, 4, order="F")
    for f in (lambda m, a: m.delete(a, 1, axis=0), lambda m, a: m.insert(a, 1, 5.0, axis=1),
              lambda m, a: m.insert(a, [1, 2], 5.0, axis=1), lambda m, a: m.pad(a, 1, "edge")):
        r, e = f(cupynum, k), f(numpy, kn)
        check(r, e)
        assert (r.flags.c_contiguous, r.flags.f_contiguous) == \
            (e.flags.c_contiguous, e.flags.f_contiguous)


# ---- concatenate's fast path (fastpath.c: concat_rows) --------------------------------------------

def _untiled(*arrays):
    return all(not cupynum._core._tiling(a)["tiled"] for a in arrays)


@pytest.mark.parametrize("dtype", DTYPES, ids=dtype_id)
def test_concatenate_fast_path_forms(dtype):
    """Lists and tuples of cupynum arrays of one dtype along axis 0: views (strided, reversed,
    transposed), the same array twice, empty pieces, one piece, more pieces than the fast path
    takes; each is NumPy's, and the result is a new array (writing it leaves the inputs)."""
    n, c = _pair((6, 4), dtype)
    n1, c1 = _pair((3, 4), dtype, 1)
    forms = [
        lambda m, a, b: m.concatenate([a, b]),
        lambda m, a, b: m.concatenate((a[::2], b[::-1], a[:0])),
        lambda m, a, b: m.concatenate([a.T[:, :3], b.T], axis=0),
        lambda m, a, b: m.concatenate([a, a]),
        lambda m, a, b: m.concatenate([b]),
        lambda m, a, b: m.concatenate([a[:, 1], b[:, 2], a[0]]),
        lambda m, a, b: m.concatenate([b[1:2]] * 70),
        lambda m, a, b: m.concatenate([a[:0], b[:0]]),
    ]
    for f in forms:
        r = f(cupynum, c, c1)
        check(r, f(numpy, n, n1))
        r[...] = 1
        check(c, n)
        check(c1, n1)


def test_concatenate_fast_path_taken_and_not_taken():
    """concat_rows answers only lists and tuples of untiled cupynum arrays of one dtype and ndim
    whose other dimensions agree; the forms it declines (and their errors) are the general
    path's, NumPy's."""
    (n, c), (n1, c1) = _pair((4, 3), "f8"), _pair((2, 3), "f8", 1)
    r = cupynum._core.concat_rows([c, c1])
    if _untiled(c, c1):
        check(r, numpy.concatenate([n, n1]))
    else:
        assert r is None
    n32, c32 = _pair((2, 3), "f4", 2)
    for arg in ([c, c32], [c, n1], (c, c1[:, :2]), [c, c1[0]], [c[0, 0]], [], iter([c, c1]), c):
        assert cupynum._core.concat_rows(arg) is None
    assert cupynum._core.concat_rows([c] * 65) is None
    check(cupynum.concatenate([c, c32]), numpy.concatenate([n, n32]))
    check(cupynum.concatenate([c, n1]), numpy.concatenate([n, n1]))
    same_outcome(lambda m: m.concatenate([m.asarray(n), m.asarray(n1)], axis=False), numpy, cupynum)
    check(cupynum.concatenate([c, c1], axis=numpy.int64(0)), numpy.concatenate([n, n1], axis=numpy.int64(0)))
    check(cupynum.concatenate([c, c1], casting="no"), numpy.concatenate([n, n1], casting="no"))
    check(cupynum.concatenate([c, c1], dtype="f4", casting="same_kind"),
          numpy.concatenate([n, n1], dtype="f4", casting="same_kind"))
    for f in (lambda m, a, b: m.concatenate([a, b[:, :2]]), lambda m, a, b: m.concatenate([a, b[0]]),
              lambda m, a, b: m.concatenate([a[0, 0], b[0, 0]]), lambda m, a, b: m.concatenate([a, b], axis=1)):
        same_error(lambda: f(numpy, n, n1), lambda: f(cupynum, c, c1))
    check(c, n)


@pytest.mark.parametrize("dtype", DTYPES, ids=dtype_id)
def test_stack_vstack_hstack_fast_path_forms(dtype):
    """stack (axis 0), vstack and hstack of lists and tuples of cupynum arrays of one dtype go
    through concat_rows (a stack: one broadcast slice per input; hstack of n-d arrays: axis 1):
    views, the same array twice, empty pieces, one piece, more pieces than the fast path takes;
    each is NumPy's (values, dtype, shape), and the result is a new array."""
    n, c = _pair((6, 4), dtype)
    n1, c1 = _pair((6, 4), dtype, 1)
    forms = [
        lambda m, a, b: m.stack([a, b]),
        lambda m, a, b: m.stack((a[:, 0], b[::-1, 1], a[:, 3])),
        lambda m, a, b: m.stack([a.T, b.T[::-1]]),
        lambda m, a, b: m.stack([b[0]] * 70),
        lambda m, a, b: m.stack([a[:0], b[:0]]),
        lambda m, a, b: m.vstack([a, b]),
        lambda m, a, b: m.vstack((a[0], b[1], a[2])),
        lambda m, a, b: m.vstack([a.T, b.T[:1]]),
        lambda m, a, b: m.vstack([a]),
        lambda m, a, b: m.vstack([a[:0], b]),
        lambda m, a, b: m.hstack([a, b]),
        lambda m, a, b: m.hstack((a[0], b[1], a[:0, 0])),
        lambda m, a, b: m.hstack([a.T, b.T[:, ::2]]),
        lambda m, a, b: m.hstack([a, a[:, :0], a]),
        lambda m, a, b: m.hstack([b[:, :1]] * 70),
        lambda m, a, b: m.hstack([a[None], b[None]]),
    ]
    for f in forms:
        r, e = f(cupynum, c, c1), f(numpy, n, n1)
        check(r, e)
        r[...] = 1
        check(c, n)
        check(c1, n1)


def test_stack_vstack_hstack_fast_path_declined():
    """concat_rows(seq, axis, stack) declines (None) what it does not take -- mixed dtypes or
    shapes, NumPy arrays, a stack along another axis, an axis past the arrays' -- and the stacks
    then answer as NumPy does: mixed dtypes promoted, other axes, dtype= and casting=, errors."""
    (n, c), (n1, c1) = _pair((4, 3), "f8"), _pair((4, 3), "f8", 1)
    n32, c32 = _pair((4, 3), "f4", 2)
    r = cupynum._core.concat_rows([c, c1], 1)
    if _untiled(c, c1):
        check(r, numpy.concatenate([n, n1], axis=1))
        check(cupynum._core.concat_rows((c, c1), 0, True), numpy.stack([n, n1]))
    else:
        assert r is None
    for args in (([c, c32], 0, True), ([c, n1], 0, True), ([c, c1[:2]], 0, True), ([c, c1], 1, True),
                 ([c, c1], 2), ([c, c1], -1), ([c, c1], 1.0), ([c, c1[:, :2]], 0), ([c[0], c1], 1)):
        assert cupynum._core.concat_rows(*args) is None
    for f in (lambda m, a, b, h: m.stack([a, h]), lambda m, a, b, h: m.stack([a, b], axis=1),
              lambda m, a, b, h: m.stack([a, b], axis=-1), lambda m, a, b, h: m.vstack([a, h]),
              lambda m, a, b, h: m.hstack([a, h]), lambda m, a, b, h: m.vstack([a[0], b[1, :2]][:1]),
              lambda m, a, b, h: m.stack([a, b], dtype="f4"), lambda m, a, b, h: m.vstack([a, b], dtype="i4", casting="unsafe"),
              lambda m, a, b, h: m.hstack((a[0, 0], b[0])), lambda m, a, b, h: m.vstack([a[0, 0], b[1, 1]])):
        check(f(cupynum, c, c1, c32), f(numpy, n, n1, n32))
    for f in (lambda m, a, b: m.stack([a, b[:2]]), lambda m, a, b: m.vstack([a, b[:, :2]]),
              lambda m, a, b: m.hstack([a, b[:2]]), lambda m, a, b: m.vstack([a[0], b[0, :2]]),
              lambda m, a, b: m.hstack([a, b[0]]), lambda m, a, b: m.stack([]),
              lambda m, a, b: m.vstack([]), lambda m, a, b: m.hstack(()),
              lambda m, a, b: m.stack([a, b], axis=3), lambda m, a, b: m.vstack([a, b], casting="no", dtype="f4"),
              lambda m, a, b: m.stack(x for x in [a, b])):
        same_error(lambda: f(numpy, n, n1), lambda: f(cupynum, c, c1))
    check(c, n)
    check(c1, n1)
