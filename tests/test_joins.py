"""Joins, repeats and layout (cupynum/_joins.py) against NumPy: values, dtypes, shapes, errors
(type and text, arrays unchanged), and under mpirun the bytes each rank sends (only the pieces
whose owner changes, never the whole array)."""

import warnings

import numpy
import pytest

import cupynum
from conftest import ALL_DTYPES, both, check, dtype_id, sample

RANKS = cupynum.runtime_info()["ranks"]
DTYPES = [numpy.dtype(t) for t in ("?", "i1", "u2", "i4", "i8", "u8", "f2", "f4", "f8", "c8",
                                   "c16")]


def _pair(shape, dtype, seed=0):
    return both(sample(shape, dtype, seed))


def _same_error(fn_np, fn_cp):
    with pytest.raises(Exception) as e_np:
        fn_np()
    with pytest.raises(type(e_np.value)) as e_cp:
        fn_cp()
    assert str(e_cp.value) == str(e_np.value)


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
    _same_error(lambda: calls[case](numpy, n), lambda: calls[case](cupynum, c))
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
    _same_error(lambda: calls[case](numpy, n), lambda: calls[case](cupynum, c))


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
    _same_error(lambda: calls[case](numpy, n), lambda: calls[case](cupynum, c))


# ---- append -------------------------------------------------------------------------------------

@pytest.mark.parametrize("dtype", DTYPES, ids=dtype_id)
def test_append(dtype):
    (n, c), (m, d) = _pair((2, 3), dtype), _pair((1, 3), dtype, 1)
    check(cupynum.append(c, d), numpy.append(n, m))
    check(cupynum.append(c, d, axis=0), numpy.append(n, m, axis=0))
    check(cupynum.append(c[0], 7), numpy.append(n[0], 7))
    check(cupynum.append(c, [[1.5, 2, 3]], axis=0), numpy.append(n, [[1.5, 2, 3]], axis=0))
    check(cupynum.append(5, c[:, 1]), numpy.append(5, n[:, 1]))
    _same_error(lambda: numpy.append(n, m[:, :2], axis=0),
                lambda: cupynum.append(c, d[:, :2], axis=0))


def test_foreign_arguments_fall_back():
    s = numpy.array(["a", "b"])
    assert list(cupynum.concatenate([s, s])) == list(numpy.concatenate([s, s]))


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
    _same_error(lambda: calls[case](numpy, n), lambda: calls[case](cupynum, c))


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
    _same_error(lambda: numpy.tile(n, -1), lambda: cupynum.tile(c, -1))
    _same_error(lambda: numpy.tile(n, 1.5), lambda: cupynum.tile(c, 1.5))


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
    _same_error(lambda: calls[case](numpy, n), lambda: calls[case](cupynum, c))


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
