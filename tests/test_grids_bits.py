"""mgrid/ogrid, trace, packbits/unpackbits and byteswap (cupynum/_construct.py, _helpers.py):
NumPy is the oracle, over dtypes, shapes and arguments."""

import numpy
import pytest

import cupynum
from conftest import ALL_DTYPES, INT_DTYPES, check, dtype_id, raises_same, same_error, sample, shape_id

GRID_KEYS = [
    (slice(0, 5),), (slice(0, 3), slice(0, 4)), (slice(-1, 1, 5j),), (slice(0, 1, 4j), slice(2, 5)),
    (slice(0, 10, 3), slice(1, 2, 0.25)), (slice(5, 0, -1),), (slice(None, 4),),
    (slice(0, 1, 1j), slice(0, 2, 2j)), (slice(0.5, 3.5), slice(0, 2), slice(-2, 2, 3j)),
    (slice(3, 3),), (slice(0, 2, numpy.complex128(3j)),), (slice(numpy.int8(1), numpy.int8(4)),),
]
SINGLE = [slice(0, 5), slice(-1, 1, 5j), slice(2, 10, 3), slice(0.5, 2.5, 0.5), slice(None, 3),
          slice(0, 1, 1j), slice(4, 1)]


@pytest.mark.parametrize("key", GRID_KEYS, ids=str)
def test_mgrid_ogrid(key):
    check(cupynum.mgrid[key], numpy.mgrid[key])
    check(cupynum.ogrid[key], numpy.ogrid[key])


@pytest.mark.parametrize("key", SINGLE, ids=str)
def test_grid_one_slice(key):
    check(cupynum.mgrid[key], numpy.mgrid[key])
    check(cupynum.ogrid[key], numpy.ogrid[key])


def test_grid_errors():
    raises_same(lambda: numpy.mgrid[0:1:0], lambda: cupynum.mgrid[0:1:0])


TRACE_SHAPES = [(3, 3), (3, 5), (5, 2), (2, 3, 4), (4, 3, 2, 2), (0, 3), (1, 1)]


@pytest.mark.parametrize("shape", TRACE_SHAPES, ids=shape_id)
@pytest.mark.parametrize("dtype", ALL_DTYPES, ids=dtype_id)
def test_trace(dtype, shape):
    n = sample(shape, dtype, seed=1)
    c = cupynum.array(n)
    for offset in (0, 1, -1, 2):
        for axes in ((0, 1), (1, 0), (-1, -2)) if len(shape) > 2 else ((0, 1), (1, 0)):
            check(cupynum.trace(c, offset, *axes), numpy.trace(n, offset, *axes))
            check(c.trace(offset, *axes), n.trace(offset, *axes))
    wide = numpy.complex128 if dtype.kind == "c" else numpy.float64
    check(c.trace(dtype=wide), n.trace(dtype=wide))


def test_trace_out_and_errors():
    n = sample((3, 4, 5), numpy.float64)
    c = cupynum.array(n)
    o_n, o_c = numpy.zeros(5), cupynum.zeros(5)
    r_c = c.trace(out=o_c)
    n.trace(out=o_n)
    assert r_c is o_c
    check(o_c, o_n)
    same_error(lambda: n.trace(axis1=0, axis2=0), lambda: c.trace(axis1=0, axis2=0))
    raises_same(lambda: numpy.trace(n[0, 0]), lambda: cupynum.trace(c[0, 0]))
    raises_same(lambda: n.trace(axis1=5), lambda: c.trace(axis1=5))


@pytest.mark.parametrize("dtype", ["?", "i1", "u4", "i8", "f2", "f4", "f8", "c8", "c16"])
def test_trace_matrix_fast_path(dtype):
    """A matrix's trace with default dtype and out takes one C call (_helpers.trace): every
    offset (past the edges: an empty diagonal, 0 of NumPy's type), axes given as (0, 1), (-2,
    -1) and mixed, views (strided, transposed, reversed, empty); what it declines (a NumPy
    integer offset, bool axes, an axis out of range) answers as NumPy does."""
    n = sample((7, 5), numpy.dtype(dtype), seed=3)
    c = cupynum.array(n)
    views = [lambda a: a, lambda a: a.T, lambda a: a[::-2, 1:], lambda a: a[:0], lambda a: a[:, ::-1]]
    for v in views:
        nv, cv = v(n), v(c)
        for offset in (0, 1, -1, 4, -6, 7, -7, 50, -50):
            for axes in ((0, 1), (-2, -1), (0, -1), (-2, 1)):
                check(cupynum.trace(cv, offset, *axes), numpy.trace(nv, offset, *axes))
            check(cv.trace(offset), nv.trace(offset))
        check(cupynum.trace(cv, numpy.int64(1)), numpy.trace(nv, numpy.int64(1)))
        check(cupynum.trace(cv, 0, 1, 0), numpy.trace(nv, 0, 1, 0))
        check(cupynum.trace(cv, False, False, True), numpy.trace(nv, False, False, True))
    for bad in ((0, 0, 2), (0, 2, 1), (0, -3, 1), (0, 0, 0), (0, -1, 1), (1.0, 0, 1), (0, 0.0, 1),
                (0, 0, numpy.float64(1)), ("1", 0, 1)):
        same_error(lambda: numpy.trace(n, *bad), lambda: cupynum.trace(c, *bad))
    check(c, n)


PACK_SHAPES = [(), (0,), (1,), (8,), (13,), (3, 9), (2, 3, 17), (4, 8, 2)]


@pytest.mark.parametrize("shape", PACK_SHAPES, ids=shape_id)
@pytest.mark.parametrize("dtype", [numpy.dtype(bool)] + INT_DTYPES, ids=dtype_id)
def test_packbits(dtype, shape):
    n = sample(shape, dtype, seed=4, low=-1, high=1) if dtype.kind != "b" else sample(shape, dtype)
    c = cupynum.array(n)
    for order in ("big", "little"):
        check(cupynum.packbits(c, bitorder=order), numpy.packbits(n, bitorder=order))
        for axis in range(-len(shape), len(shape)):
            check(cupynum.packbits(c, axis=axis, bitorder=order),
                  numpy.packbits(n, axis=axis, bitorder=order))


@pytest.mark.parametrize("shape", [(), (0,), (1,), (5,), (3, 4), (2, 3, 2)], ids=shape_id)
def test_unpackbits(shape):
    n = sample(shape, numpy.uint8, low=0, high=255)
    c = cupynum.array(n)
    for order in ("big", "little"):
        axes = [None] + list(range(-len(shape), len(shape)))
        for axis in axes:
            length = (n.size if axis is None else shape[axis]) * 8
            for count in (None, 0, 3, length, length + 5, -1, -length):
                if length == 0 and count:
                    continue   # NumPy 2.4 returns uninitialised bytes for these (cupynum: zeros)
                kw = dict(axis=axis, count=count, bitorder=order)
                if axis is None and n.ndim == 0:
                    kw.pop("axis")
                check(cupynum.unpackbits(c, **kw), numpy.unpackbits(n, **kw))
            bad = dict(axis=axis, count=-length - 1, bitorder=order)
            e_np, e_cp = raises_same(lambda: numpy.unpackbits(n, **bad),
                                     lambda: cupynum.unpackbits(c, **bad))
            assert str(e_cp) == str(e_np)


def test_bits_errors():
    f, i = sample((4,), numpy.float64), sample((4,), numpy.int32)
    for np_f, cp_f, arg, kw in (
            (numpy.packbits, cupynum.packbits, f, {}),
            (numpy.packbits, cupynum.packbits, i, {"axis": 1}),
            (numpy.packbits, cupynum.packbits, i, {"bitorder": "middle"}),
            (numpy.unpackbits, cupynum.unpackbits, i, {}),
            (numpy.unpackbits, cupynum.unpackbits, i.astype(numpy.uint8), {"count": 1.5}),
            (numpy.unpackbits, cupynum.unpackbits, i.astype(numpy.uint8), {"axis": 2})):
        same_error(lambda: np_f(arg, **kw), lambda: cp_f(cupynum.array(arg), **kw))


def test_packbits_round_trip_partitioned():
    n = sample((64, 24), bool, seed=9)
    c = cupynum.array(n)
    check(cupynum.unpackbits(cupynum.packbits(c, axis=0), axis=0),
          numpy.unpackbits(numpy.packbits(n, axis=0), axis=0))


@pytest.mark.parametrize("shape", [(240, 160), (40, 900), (30, 20, 17)], ids=shape_id)
def test_packbits_flat_of_partitioned_nd(shape):
    """packbits(axis=None) of an n-d array packs its C-order ravel: through the tiled flat alias
    of row slabs (nothing moves but groups straddling a tile boundary), else from a flat copy
    whose ranges each rank receives once: at most about its tile's bytes, not the array."""
    n = sample(shape, bool, seed=4)
    c = cupynum.array(n)
    for order in ("big", "little"):
        cupynum.sync()
        before = cupynum.runtime_stats()["bytes_sent"]
        r = cupynum.packbits(c, bitorder=order)
        cupynum.sync()
        sent = cupynum.runtime_stats()["bytes_sent"] - before
        check(r, numpy.packbits(n, bitorder=order))
        assert sent <= -(-n.nbytes // RANKS) + 256


@pytest.mark.parametrize("shape", [(), (0,), (7,), (3, 4)], ids=shape_id)
@pytest.mark.parametrize("dtype", ALL_DTYPES, ids=dtype_id)
def test_byteswap(dtype, shape):
    n = sample(shape, dtype, seed=2)
    c = cupynum.array(n)
    check(c.byteswap(), n.byteswap())
    assert c.byteswap() is not c
    check(c, n)   # untouched
    v_c = c[::2] if c.ndim else c
    v_n = n[::2] if n.ndim else n
    assert v_c.byteswap(inplace=True) is v_c
    v_n.byteswap(inplace=True)
    check(c, n)   # written through the view


# ---- byteswap: element-wise through a bit view, owner computes -------------------------------

RANKS = cupynum.runtime_info()["ranks"]
SWAP_DTYPES = [numpy.dtype(t) for t in ("f2", "f4", "f8", "c8", "c16", "i2", "u8", "?")]


def _bits_equal(c, n):
    """Bitwise equality (a swapped float is often a NaN of some payload or a subnormal)."""
    c = numpy.asarray(c)
    assert c.dtype == n.dtype and c.shape == n.shape
    assert numpy.ascontiguousarray(c).tobytes() == numpy.ascontiguousarray(n).tobytes()


def _no_fallback(*args, **kwargs):
    raise AssertionError("fell back to NumPy")


def _swap_sample(shape, dtype, seed):
    """Every bit pattern is possible: random bytes, not only representable values."""
    rng = numpy.random.default_rng(seed)
    raw = rng.integers(0, 256, size=int(numpy.prod(shape)) * dtype.itemsize, dtype=numpy.uint8)
    n = raw.view(dtype).reshape(shape) if dtype.kind != "b" else (raw % 2).astype(bool).reshape(shape)
    return n


@pytest.mark.parametrize("dtype", SWAP_DTYPES, ids=dtype_id)
@pytest.mark.parametrize("view", ["whole", "step", "reversed", "transposed", "fortran"])
def test_byteswap_bits_through_views(dtype, view, monkeypatch):
    n = _swap_sample((6, 10), dtype, seed=3)
    c = cupynum.array(n)
    pick = {"whole": lambda a: a, "step": lambda a: a[1::2, ::3], "reversed": lambda a: a[::-1, ::-2],
            "transposed": lambda a: a.T, "fortran": lambda a: a.T[::1]}[view]
    if view == "fortran":
        n = numpy.asfortranarray(n)
        c = cupynum.asfortranarray(c)
    v_n, v_c = pick(n), pick(c)
    with monkeypatch.context() as m:
        m.setattr(cupynum._fallback, "compute", _no_fallback)
        r_c = v_c.byteswap()
        assert r_c.flags.f_contiguous == v_n.byteswap().flags.f_contiguous
        _bits_equal(r_c, v_n.byteswap())
        _bits_equal(c, n)                       # the source is untouched
        assert v_c.byteswap(inplace=True) is v_c
        v_n.byteswap(inplace=True)
        _bits_equal(c, n)                       # written through the view into the base
        _bits_equal(v_c, v_n)
        c[...] = cupynum.array(n.byteswap())    # and the base's writes are seen by the view
        n[...] = n.byteswap()
        _bits_equal(v_c.byteswap(), v_n.byteswap())


@pytest.mark.parametrize("dtype", ["f8", "c16", "f2"])
def test_byteswap_moves_nothing(dtype):
    """Under mpirun each rank reverses the bytes of its own tile: no byte is sent."""
    dtype = numpy.dtype(dtype)
    n = _swap_sample((64, 48), dtype, seed=5)
    c = cupynum.array(n)
    cupynum.sync()
    cupynum.reset_stats()
    r = c.byteswap()
    c.byteswap(inplace=True)
    cupynum.sync()
    assert cupynum.runtime_stats()["bytes_sent"] == 0
    _bits_equal(r, n.byteswap())
    _bits_equal(c, n.byteswap())


# ---- owner computes under mpirun: bytes sent bounded (0 on one rank) -----------------------------

def _moved(fn):
    cupynum.sync()
    cupynum.reset_stats()
    r = fn()
    cupynum.sync()
    return r, cupynum.runtime_stats()["bytes_sent"]


@pytest.mark.parametrize("dtype", ["f8", "i4", "c16"])
@pytest.mark.parametrize("offset,axes", [(0, (0, 1)), (5, (0, 1)), (-7, (0, 1)), (3, (1, 0))])
def test_trace_sends_partials_only(dtype, offset, axes):
    """The diagonal's elements are summed by their owners; only the partial sums move (a gather
    of the matrix would send half of it per rank on 2 ranks)."""
    n = sample((96, 80), dtype, seed=7)
    c = cupynum.array(n)
    r, sent = _moved(lambda: c.trace(offset, *axes))
    check(r, n.trace(offset, *axes))
    assert sent <= 64 * RANKS, sent
    r, sent = _moved(lambda: cupynum.trace(c.T[::-1], -offset))   # a reversed, transposed view
    check(r, numpy.trace(n.T[::-1], -offset))
    assert sent <= 64 * RANKS, sent
    if dtype == "c16":
        r, sent = _moved(lambda: c.imag.trace(offset, *axes))       # a component's diagonal
        check(r, n.imag.trace(offset, *axes))
        assert sent <= 64 * RANKS, sent


@pytest.mark.parametrize("shape,offset,axes", [((4, 30, 40), 0, (0, 1)), ((4, 30, 40), 2, (1, 2)),
                                                ((30, 4, 40), -1, (2, 0)), ((6, 7, 8, 9), 1, (3, 1))])
def test_trace_nd_moves_the_diagonal_only(shape, offset, axes):
    """A partitioned n-d array's diagonal is copied out slice by slice: the bytes that move are
    at most its elements (a gather would send the whole array to every rank)."""
    n = sample(shape, "f8", seed=3)
    c = cupynum.array(n) * 1.0
    r, sent = _moved(lambda: c.trace(offset, *axes))
    check(r, n.trace(offset, *axes))
    diag = numpy.diagonal(n, offset, *axes)
    assert sent <= 2 * diag.nbytes + 1024 * RANKS, (sent, diag.nbytes, n.nbytes)
    r, sent = _moved(lambda: cupynum.trace(c, offset, *axes, dtype=numpy.float32))
    check(r, numpy.trace(n, offset, *axes, dtype=numpy.float32))


def _straddle_bound(row_bytes):
    """Per rank: the 8-element groups cut by a tile boundary (at most 2 boundaries per rank)."""
    return 0 if RANKS == 1 else 2 * 8 * row_bytes + 512


@pytest.mark.parametrize("axis", [0, 1, -1])
@pytest.mark.parametrize("order", ["big", "little"])
def test_packbits_owner_computes(axis, order):
    n = sample((203, 96), bool, seed=11)
    c = cupynum.array(n)
    r, sent = _moved(lambda: cupynum.packbits(c, axis=axis, bitorder=order))
    check(r, numpy.packbits(n, axis=axis, bitorder=order))
    assert sent <= _straddle_bound(max(n.shape)), sent
    u = numpy.packbits(n, axis=axis)
    cu = cupynum.array(u)
    for count in (None, n.shape[axis], n.shape[axis] - 3, n.shape[axis] + 9):
        r, sent = _moved(lambda: cupynum.unpackbits(cu, axis=axis, count=count, bitorder=order))
        check(r, numpy.unpackbits(u, axis=axis, count=count, bitorder=order))
        assert sent <= _straddle_bound(8 * max(u.shape)), sent


def test_mgrid_owner_computes():
    """Each rank fills its tile of the grid: only the 1-D coordinate ranges' pieces move."""
    for key in ((slice(0, 200), slice(0, 150)), (slice(-1, 1, 200j), slice(0, 3, 150j)),
                (slice(0, 30), slice(0, 1, 40j), slice(5, 0, -0.1))):
        r, sent = _moved(lambda: cupynum.mgrid[key])
        check(r, numpy.mgrid[key])
        assert sent <= 0 if RANKS == 1 else sent <= 8 * len(key) * sum(r.shape[1:]) + 1024, sent
        r, sent = _moved(lambda: cupynum.ogrid[key])
        check(r, numpy.ogrid[key])
        assert sent <= 8 * sum(x.size for x in r) + 1024
