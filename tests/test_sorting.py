"""sort, argsort, ndarray.sort/argsort, sort_complex against NumPy: every dtype, shapes, axes,
NaN/inf/signed zeros/duplicates, empty and length-1 arrays, NumPy's errors; under mpirun (every
array partitioned with CUPYNUM_MIN_TILE=1) the sample sort and its traffic."""

import os

import numpy
import pytest

import cupynum
from conftest import ALL_DTYPES, SHAPES, check, dtype_id, sample, shape_id, same_error

pytestmark = [pytest.mark.device, pytest.mark.mpi_device]

RANKS = cupynum.runtime_info()["ranks"]


def special(dtype, n, seed=0):
    """n values of dtype with many duplicates and, for floats, NaN, +-inf and +-0.0."""
    x = sample((n,), dtype, seed=seed, low=-3, high=3)
    if dtype.kind in "fc":
        rng = numpy.random.default_rng(seed + 1)
        vals = numpy.array([numpy.nan, numpy.inf, -numpy.inf, 0.0, -0.0, 1.5, -1.5])
        pick = rng.integers(0, len(vals), size=n)
        mask = rng.random(n) < 0.4
        x = x.copy()
        if dtype.kind == "f":
            x[mask] = vals[pick[mask]].astype(dtype)
        else:
            re = numpy.where(mask, vals[pick], x.real)
            pick2 = rng.integers(0, len(vals), size=n)
            im = numpy.where(rng.random(n) < 0.4, vals[pick2], x.imag)
            x = numpy.empty(n, dtype)
            x.real, x.imag = re, im
    return x


def axes_of(shape):
    return [None] + list(range(-len(shape), len(shape)))


@pytest.mark.parametrize("dtype", ALL_DTYPES, ids=dtype_id)
@pytest.mark.parametrize("shape", [s for s in SHAPES if s] + [(40,), (6, 33)], ids=shape_id)
def test_sort_and_argsort_match_numpy(dtype, shape):
    n = int(numpy.prod(shape))
    x = special(dtype, n).reshape(shape)
    a = cupynum.array(x)
    for axis in axes_of(shape):
        check(cupynum.sort(a, axis=axis), numpy.sort(x, axis=axis))
        check(cupynum.argsort(a, axis=axis, kind="stable"), numpy.argsort(x, axis=axis, kind="stable"))
        check(a.argsort(axis=axis, stable=True), x.argsort(axis=axis, stable=True))


@pytest.mark.parametrize("dtype", ALL_DTYPES, ids=dtype_id)
def test_every_kind_sorts_and_argsort_is_stable(dtype):
    x = special(dtype, 500, seed=3)
    a = cupynum.array(x)
    for kind in (None, "quicksort", "mergesort", "heapsort", "stable", "q", "S"):
        check(cupynum.sort(a, kind=kind), numpy.sort(x, kind=kind))
        # a stable order is one of the orders every NumPy kind may give: compare with stable
        check(cupynum.argsort(a, kind=kind), numpy.argsort(x, kind="stable"))
    check(cupynum.sort(a, stable=True), numpy.sort(x, stable=True))
    check(cupynum.sort(a, stable=False), numpy.sort(x, stable=False))


def test_float_order_is_numpys():
    x = numpy.array([numpy.nan, 1.0, -0.0, numpy.inf, 0.0, -numpy.inf, -numpy.nan, 0.0, -0.0, 2.0])
    for dt in (numpy.float16, numpy.float32, numpy.float64):
        y = x.astype(dt)
        check(cupynum.sort(cupynum.array(y)), numpy.sort(y))
        check(cupynum.argsort(cupynum.array(y), kind="stable"), numpy.argsort(y, kind="stable"))
    # NaN payloads survive a value sort
    bits = numpy.array([0x7FF8000000000001, 0x3FF0000000000000, 0xFFF8000000000002], numpy.uint64)
    y = bits.view(numpy.float64)
    got = numpy.asarray(cupynum.sort(cupynum.array(y))).view(numpy.uint64)
    assert got[0] == 0x3FF0000000000000 and sorted(got[1:]) == sorted(bits[[0, 2]])


def test_complex_order_is_numpys():
    nan = numpy.nan
    v = [complex(1, 2), complex(1, nan), complex(nan, 1), complex(nan, nan), complex(0, 5),
         complex(1, -1), complex(nan, 0), complex(-1, nan), complex(-numpy.inf, 0), complex(1, 2)]
    for dt in (numpy.complex64, numpy.complex128):
        x = numpy.array(v * 3, dtype=dt)
        check(cupynum.sort(cupynum.array(x)), numpy.sort(x))
        check(cupynum.argsort(cupynum.array(x), stable=True), numpy.argsort(x, stable=True))


@pytest.mark.parametrize("dtype", ALL_DTYPES, ids=dtype_id)
def test_ndarray_sort_in_place_through_views(dtype):
    x = special(dtype, 6 * 8, seed=5).reshape(6, 8)
    n, a = x.copy(), cupynum.array(x)
    a[:, ::2].sort(axis=0)
    n[:, ::2].sort(axis=0)
    check(a, n)
    a.T.sort()
    n.T.sort()
    check(a, n)
    a.sort()
    n.sort()
    check(a, n)


def test_sort_complex_types():
    for dt in ALL_DTYPES:
        x = sample((9,), dt, seed=2)
        check(cupynum.sort_complex(cupynum.array(x)), numpy.sort_complex(x))
    check(cupynum.sort_complex([3, 1, 2]), numpy.sort_complex([3, 1, 2]))


def test_array_likes_and_numpy_dispatch():
    x = [3.0, 1.0, 2.0]
    check(cupynum.sort(x), numpy.sort(x))
    a = cupynum.array(x)
    check(numpy.sort(a), numpy.sort(x))                 # __array_function__
    check(numpy.argsort(a), numpy.argsort(x))


def test_errors_are_numpys_and_nothing_is_written():
    x = numpy.arange(6.0)[::-1].copy()
    a = cupynum.array(x)
    for f in (lambda m, v: m.sort(v, kind="radix"), lambda m, v: m.argsort(v, kind=""),
              lambda m, v: m.sort(v, kind=3), lambda m, v: m.sort(v, axis=1),
              lambda m, v: m.argsort(v, axis=-2), lambda m, v: m.sort(v, kind="stable", stable=True),
              lambda m, v: m.sort(m.array(3.0)), lambda m, v: m.sort(v, axis=1.0)):
        same_error(lambda: f(numpy, x), lambda: f(cupynum, a))
    for f in (lambda v: v.sort(kind="x"), lambda v: v.sort(axis=2)):
        same_error(lambda: f(x), lambda: f(a))
    ro_n, ro_c = x.copy(), cupynum.array(x)
    ro_n.flags.writeable = False
    bc_c = cupynum.broadcast_to(ro_c, (6,))
    same_error(lambda: ro_n.sort(), lambda: bc_c.sort())
    check(ro_c, x)
    check(a, x)


@pytest.mark.parametrize("dtype", [numpy.float64, numpy.int32, numpy.float32], ids=str)
@pytest.mark.parametrize("n", [2, 3, 17, 63, 64, 65, 130])
def test_short_lanes_along_either_axis(dtype, n):
    """Many short lanes (sorted by insertion up to 64, by vqsort above): values and stable
    argsort as NumPy's along each axis, with ties, both zeros and (float) NaNs and infinities."""
    rng = numpy.random.default_rng(n)
    x = rng.integers(-5, 5, size=(37, n)).astype(dtype)
    if numpy.dtype(dtype).kind == "f":
        x[rng.random(x.shape) < 0.1] = numpy.nan
        x[rng.random(x.shape) < 0.05] = -0.0
        x[rng.random(x.shape) < 0.05] = numpy.inf
    a = cupynum.array(x)
    for axis in (0, 1, -1):
        check(cupynum.sort(a, axis=axis), numpy.sort(x, axis=axis))
        check(cupynum.argsort(a, axis=axis, kind="stable"), numpy.argsort(x, axis=axis, kind="stable"))
    check(cupynum.sort(a[::2, ::-1], axis=1), numpy.sort(x[::2, ::-1], axis=1))


def test_empty_and_length_one():
    for shape in [(0,), (1,), (0, 3), (3, 0), (1, 1)]:
        x = numpy.ones(shape)
        for axis in axes_of(shape):
            check(cupynum.sort(cupynum.array(x), axis=axis), numpy.sort(x, axis=axis))
            check(cupynum.argsort(cupynum.array(x), axis=axis), numpy.argsort(x, axis=axis))


def test_long_lane_threads_and_many_lanes():
    """Lanes long enough to be split across threads (and merged), and many short lanes."""
    rng = numpy.random.default_rng(7)
    for x in (rng.standard_normal(200_003), rng.integers(-5, 5, 150_001),
              rng.integers(0, 1000, (300, 700)).astype(numpy.int32)):
        a = cupynum.array(x)
        check(cupynum.sort(a), numpy.sort(x))
        check(cupynum.argsort(a, kind="stable"), numpy.argsort(x, kind="stable"))
        check(cupynum.sort(a, axis=0), numpy.sort(x, axis=0))


def _split_lanes():
    """Long contiguous int64 and float64 lanes (the two-thread split of sort.c): extremes, runs,
    presorted and reversed input, NaN-heavy halves (the NaNs of either thread's half)."""
    rng = numpy.random.default_rng(23)
    n = 100_001
    i64 = numpy.iinfo(numpy.int64)
    yield rng.integers(i64.min, i64.max, n, dtype=numpy.int64, endpoint=True)
    yield rng.integers(-3, 3, n).astype(numpy.int64)
    yield numpy.full(n, 7, numpy.int64)
    yield numpy.concatenate([numpy.full(n // 2, i64.min), numpy.full(n - n // 2, i64.max)])
    yield numpy.arange(n, dtype=numpy.int64)[::-1].copy()
    yield numpy.sort(rng.integers(-50, 50, n).astype(numpy.int64))
    f = special(numpy.dtype(numpy.float64), n, seed=5)
    yield f
    for part in (slice(None, n // 2), slice(n // 2, None)):
        g = f.copy()
        g[part] = numpy.nan
        yield g
    g = rng.standard_normal(n)
    g[rng.random(n) < 0.999] = numpy.nan
    yield g
    yield numpy.sort(rng.standard_normal(n))[::-1].copy()


SPLIT_LANES = list(_split_lanes())


@pytest.mark.parametrize("k", range(len(SPLIT_LANES)))
def test_long_lane_split_across_two_threads(k):
    x = SPLIT_LANES[k]
    a = cupynum.array(x)
    s = cupynum.sort(a)
    check(s, numpy.sort(x))
    # -0.0 and +0.0 may come in either order (as NumPy's own kinds differ): compare the signs'
    # counts, and the value sort keeps NaN bits (NumPy's AVX-512 sort need not)
    r = numpy.asarray(s)
    if x.dtype.kind == "f":
        z = x == 0
        assert (numpy.signbit(r) & (r == 0)).sum() == (numpy.signbit(x) & z).sum()
    check(cupynum.argsort(a, kind="stable"), numpy.argsort(x, kind="stable"))


# ---- distributed ---------------------------------------------------------------------------------

@pytest.mark.parametrize("dtype", [numpy.float64, numpy.int64, numpy.int32, numpy.float16,
                                   numpy.uint8, numpy.bool_], ids=dtype_id)
@pytest.mark.parametrize("n", [0, 1, 2, 5, 97, 4000])
def test_sample_sort_any_length(dtype, n):
    x = special(numpy.dtype(dtype), n, seed=n)
    a = cupynum.array(x)
    check(cupynum.sort(a), numpy.sort(x))
    check(cupynum.argsort(a, kind="stable"), numpy.argsort(x, kind="stable"))
    b = cupynum.array(x)
    b.sort()
    check(b, numpy.sort(x))


def test_sample_sort_all_equal_and_presorted():
    for x in (numpy.zeros(3001), numpy.arange(3001.0), numpy.arange(3001.0)[::-1].copy(),
              numpy.repeat([2, 1, 3], 1000).astype(numpy.int64)):
        a = cupynum.array(x)
        check(cupynum.sort(a), numpy.sort(x))
        check(cupynum.argsort(a, kind="stable"), numpy.argsort(x, kind="stable"))


def test_sort_bytes_sent_under_two_and_a_half_copies_of_the_part():
    n = 20000 * max(RANKS, 1)
    x = numpy.random.default_rng(11).standard_normal(n)
    a = cupynum.array(x)
    cupynum.sync()
    t = cupynum._core._tiling(a)
    cupynum.reset_stats()
    r = cupynum.sort(a)
    cupynum.sync()
    stats = cupynum.runtime_stats()
    sent = stats["bytes_sent"]
    check(r, numpy.sort(x))
    if RANKS == 1 or not t["tiled"]:
        assert sent == 0
        return
    assert stats["sorts_dist"] == 1    # the sample sort, not a gather
    part = (t["hi"][0] - t["lo"][0]) * x.itemsize
    assert 0 < sent < 2.5 * part, (sent, part)


def test_lexsort_of_partitioned_keys_stays_distributed():
    """lexsort of 1-D partitioned keys: a stable sample-sort argsort per key and routed gathers
    through the order, so each rank sends a bounded number of copies of its part (the sorts'
    (P - 1) / P leaving the rank: 3.6, 5.4, 6.3 words per element on 2, 3, 4 ranks), where
    reading every gather's whole index grows with the rank count."""
    n = 4000 * max(RANKS, 1)
    rng = numpy.random.default_rng(13)
    k1 = special(numpy.dtype(numpy.float64), n, seed=13)
    k2 = rng.integers(0, 3, n)
    a, b = cupynum.array(k1), cupynum.array(k2)
    cupynum.sync()
    t = cupynum._core._tiling(a)
    cupynum.reset_stats()
    r = cupynum.lexsort((a, b))
    cupynum.sync()
    sent = cupynum.runtime_stats()["bytes_sent"]
    check(r, numpy.lexsort((k1, k2)))
    if RANKS > 1 and t["tiled"]:
        part = t["hi"][0] - t["lo"][0]
        assert sent < (1 + 10 * (RANKS - 1) / RANKS) * 8 * part + 64 * RANKS * (RANKS + 16), (sent, part)


@pytest.mark.parametrize("shape", [(60, 70), (8, 9, 50), (300, 4), (4, 300), (7, 1, 3)], ids=shape_id)
def test_lexsort_of_nd_keys_stays_on_each_rank(shape):
    """lexsort of n-d keys along each axis: lane by lane on each rank's own tile.  Along an axis no
    tile of the keys cuts, nothing moves; along a cut axis the keys are first copied into slabs
    along another dimension, so each rank sends at most its part of each key, once."""
    rng = numpy.random.default_rng(len(shape))
    n = int(numpy.prod(shape))
    keys = (special(numpy.dtype(numpy.float32), n, seed=5).reshape(shape),
            rng.integers(0, 3, shape).astype(numpy.int8),
            special(numpy.dtype(numpy.complex128), n, seed=6).reshape(shape),
            rng.integers(0, 2, shape).astype(numpy.int64))
    ck = tuple(cupynum.array(k) for k in keys)
    cupynum.sync()
    t = cupynum._core._tiling(ck[0])
    for axis in range(len(shape)):
        cupynum.reset_stats()
        r = cupynum.lexsort(ck, axis=axis)
        cupynum.sync()
        sent = cupynum.runtime_stats()["bytes_sent"]
        check(r, numpy.lexsort(keys, axis=axis))
        if RANKS == 1 or not t["tiled"] or t["grid"][axis] == 1:
            assert sent == 0, (axis, sent)
        else:
            part = int(numpy.prod([h - l for l, h in zip(t["lo"], t["hi"])]))
            assert 0 < sent <= part * sum(k.itemsize for k in keys), (axis, sent, part)


def test_sort_along_an_axis_no_tile_splits_sends_nothing():
    x = numpy.random.default_rng(12).standard_normal((8 * max(RANKS, 1), 48))
    a = cupynum.array(x)
    cupynum.sync()
    t = cupynum._core._tiling(a)
    whole = [d for d in range(2) if not t["tiled"] or t["grid"][d] == 1]
    for axis in whole:
        cupynum.reset_stats()
        r = cupynum.sort(a, axis=axis)
        s = cupynum.argsort(a, axis=axis)
        cupynum.sync()
        assert cupynum.runtime_stats()["bytes_sent"] == 0
        assert cupynum.runtime_stats()["sorts_dist"] == (2 if RANKS > 1 and t["tiled"] else 0)
        check(r, numpy.sort(x, axis=axis))
        check(s, numpy.argsort(x, axis=axis, kind="stable"))
    for axis in (0, 1):
        check(cupynum.sort(a, axis=axis), numpy.sort(x, axis=axis))


@pytest.mark.parametrize("dtype", [numpy.dtype(t) for t in (numpy.float64, numpy.int32,
                                                            numpy.complex128, numpy.bool_)],
                         ids=dtype_id)
@pytest.mark.parametrize("shape", [(41, 7), (6, 5, 9), (13, 1), (3, 2)], ids=shape_id)
def test_sort_along_a_split_axis_of_an_nd_array_stays_distributed(dtype, shape):
    """sort/argsort/partition/argpartition (and the in-place methods) along an axis a tile cuts
    of an n-d array: copied into slabs along another dimension, each rank sorting its own lanes,
    the result copied back to the default tiling: at most two copies of each rank's part leave
    it, never the (P - 1) copies of a gather.  NaN, +-inf, +-0.0, duplicates, length-1 lanes."""
    n = int(numpy.prod(shape))
    x = special(dtype, n, seed=n).reshape(shape)
    a = cupynum.array(x)
    cupynum.sync()
    t = cupynum._core._tiling(a)
    part = int(numpy.prod([h - l for l, h in zip(t["lo"], t["hi"])])) if t["tiled"] else n
    for axis in range(len(shape)):
        cupynum.reset_stats()
        r = cupynum.sort(a, axis=axis)
        s = cupynum.argsort(a, axis=axis, kind="stable")
        cupynum.sync()
        sent = cupynum.runtime_stats()["bytes_sent"]
        check(r, numpy.sort(x, axis=axis))
        check(s, numpy.argsort(x, axis=axis, kind="stable"))
        if RANKS == 1 or not t["tiled"] or t["grid"][axis] == 1:
            assert sent == 0, (axis, sent)
        else:
            # the values' and the indices' two copies (to slabs, back), each rank sending at
            # most its part or its slab (a short kept dimension gives fewer, larger slabs)
            kept = max(shape[d] for d in range(len(shape)) if d != axis)
            share = max(part, -(-n // min(RANKS, kept)) if kept > 1 else part)
            assert 0 < sent <= 2 * share * (x.itemsize + 8) + 512 * RANKS, (axis, sent, part)
        if dtype.kind != "c":
            k = min(1, shape[axis] - 1)
            _is_partition_of(cupynum.partition(a, k, axis=axis), x, k, axis)
            p = numpy.asarray(cupynum.argpartition(a, -1, axis=axis))
            _is_partition_of(numpy.take_along_axis(x, p, axis=axis), x, -1, axis)
        b = cupynum.array(x)
        b.sort(axis=axis)
        check(b, numpy.sort(x, axis=axis))


# ---- partition (a sorted lane is one of the partitions NumPy may return) --------------------------

def _is_partition_of(r, x, kth, axis):
    """r partitions x at kth along axis as numpy.partition does: r[k] is numpy's r[k], nothing
    before it is greater, nothing after it smaller, and r holds x's values."""
    want = numpy.partition(x, kth, axis=axis)
    rr = numpy.moveaxis(numpy.asarray(r), axis, -1)
    ww = numpy.moveaxis(want, axis, -1)
    for k in numpy.atleast_1d(kth):
        k = int(k) % rr.shape[-1]
        numpy.testing.assert_array_equal(rr[..., k], ww[..., k])
        pivot = rr[..., k:k + 1]
        assert not numpy.any(rr[..., :k] > pivot) and not numpy.any(rr[..., k + 1:] < pivot)
    numpy.testing.assert_array_equal(numpy.sort(rr, axis=-1), numpy.sort(ww, axis=-1))


@pytest.mark.parametrize("dtype", [d for d in ALL_DTYPES if d.kind != "c"], ids=dtype_id)
def test_partition_and_argpartition(dtype):
    x = special(dtype, 6 * 40, seed=21).reshape(6, 40)
    a = cupynum.array(x)
    for axis, kth in ((-1, 3), (0, [0, 5]), (1, -1), (None, [7, 100])):
        r = cupynum.partition(a, kth, axis=axis)
        assert isinstance(r, cupynum.ndarray) and r.dtype == x.dtype
        _is_partition_of(r, x if axis is not None else x.ravel(), kth, axis if axis is not None else 0)
        i = numpy.asarray(cupynum.argpartition(a, kth, axis=axis))
        xx = x if axis is not None else x.ravel()
        _is_partition_of(numpy.take_along_axis(xx, i, axis if axis is not None else 0), xx, kth,
                         axis if axis is not None else 0)
    n, c = x.copy(), cupynum.array(x)
    c.partition(4)
    _is_partition_of(c, n, 4, -1)
    for f in (lambda m, v: m.partition(v, 40), lambda m, v: m.partition(v, -41),
              lambda m, v: m.partition(v, 1, kind="x"), lambda m, v: m.partition(v, 1.5),
              lambda m, v: m.argpartition(v, [1, 99]), lambda m, v: m.partition(v, 1, axis=2),
              lambda m, v: m.partition(v, 1, kind=3)):
        with pytest.raises(Exception) as e_np:
            f(numpy, x)
        with pytest.raises(type(e_np.value)) as e_cp:
            f(cupynum, a)
        assert str(e_cp.value) == str(e_np.value)


@pytest.mark.parametrize("shape, axis", [((0,), 0), ((2, 0), 1), ((0, 3), 1), ((0, 3), 0)])
def test_partition_of_an_empty_array_takes_any_kth(shape, axis):
    """NumPy returns an empty array's partition before checking kth's range (not its type)."""
    x = numpy.zeros(shape)
    a = cupynum.array(x)
    for kth in (0, 5, -7, [0, 9]):
        check(cupynum.partition(a, kth, axis=axis), numpy.partition(x, kth, axis=axis))
        check(cupynum.argpartition(a, kth, axis=axis), numpy.argpartition(x, kth, axis=axis))
        c = cupynum.array(x)
        c.partition(kth, axis=axis)
        check(c, x)
    same_error(lambda: numpy.partition(x, 0.5, axis=axis), lambda: cupynum.partition(a, 0.5, axis=axis))
    same_error(lambda: numpy.partition(x, 0, axis=axis, kind="x"),
               lambda: cupynum.partition(a, 0, axis=axis, kind="x"))


# ---- lexsort -------------------------------------------------------------------------------------

def _keys(dtype, shape, seed):
    """Three keys of `shape`: dtype's special values, few distinct small integers (ties for the
    keys after them to break), and dtype's again."""
    n = int(numpy.prod(shape))
    k1 = special(dtype, n, seed=seed).reshape(shape)
    k2 = sample(shape, numpy.int16, seed=seed + 1, low=0, high=3)
    k3 = special(dtype, n, seed=seed + 2).reshape(shape)
    return k1, k2, k3


@pytest.mark.parametrize("dtype", ALL_DTYPES, ids=dtype_id)
@pytest.mark.parametrize("shape", [(0,), (1,), (40,), (6, 7), (3, 4, 5), (2, 0)], ids=shape_id)
def test_lexsort_matches_numpy(dtype, shape, monkeypatch):
    monkeypatch.setenv("CUPYNUM_FALLBACK", "error")      # native: a fallback would raise
    keys = _keys(dtype, shape, seed=len(shape))
    ck = tuple(cupynum.array(k) for k in keys)
    for axis in range(-len(shape), len(shape)):
        check(cupynum.lexsort(ck, axis=axis), numpy.lexsort(keys, axis=axis))
        check(cupynum.lexsort(list(ck[:2]), axis=axis), numpy.lexsort(list(keys[:2]), axis=axis))
        check(cupynum.lexsort(ck[1:2], axis=axis), numpy.lexsort(keys[1:2], axis=axis))
    stacked = numpy.stack([keys[0], keys[2]])             # one array: its first axis the keys
    check(cupynum.lexsort(cupynum.array(stacked)), numpy.lexsort(stacked))
    check(numpy.lexsort(ck), numpy.lexsort(keys))           # NumPy's function dispatches here


def test_lexsort_mixed_key_dtypes_and_errors():
    x = numpy.array([3.0, numpy.nan, 1.0, 1.0, -0.0, 0.0])
    b = numpy.array([True, False, True, False, True, False])
    u = numpy.array([5, 5, 2, 2, 9, 9], numpy.uint64)
    for keys in [(x, b), (b, x), (u, x, b), (x, u.astype(numpy.int8))]:
        check(cupynum.lexsort(tuple(cupynum.array(k) for k in keys)), numpy.lexsort(keys))
    check(cupynum.lexsort((x, b)), numpy.lexsort((x, b)))  # NumPy arrays as keys
    c = lambda *a: tuple(cupynum.array(k) for k in a)
    same_error(lambda: numpy.lexsort(()), lambda: cupynum.lexsort(()))
    same_error(lambda: numpy.lexsort((x, x[:3])), lambda: cupynum.lexsort(c(x, x[:3])))
    same_error(lambda: numpy.lexsort((x, b), axis=1), lambda: cupynum.lexsort(c(x, b), axis=1))
    same_error(lambda: numpy.lexsort((x, b), axis=None), lambda: cupynum.lexsort(c(x, b), axis=None))
    check(cupynum.lexsort(cupynum.array(x)), numpy.lexsort(x))     # 0-d keys: NumPy's 0


def test_float_axis_errors_word_for_word():
    x = numpy.array([3.0, 1.0, 2.0])
    a = cupynum.array(x)
    for ax in (1.0, numpy.float64(0)):
        same_error(lambda: numpy.argsort(x, axis=ax), lambda: cupynum.argsort(a, axis=ax))
        same_error(lambda: x.argsort(axis=ax), lambda: a.argsort(axis=ax))
        same_error(lambda: numpy.sort(x, axis=ax), lambda: cupynum.sort(a, axis=ax))
        same_error(lambda: x.sort(axis=ax), lambda: a.sort(axis=ax))
    check(a, x)


# ---- the device sort (cuda/sort.cu: CUB's radix sort; the simulated device takes the same ops) ----

@pytest.mark.skipif(cupynum.runtime_info()["backend"] not in ("cuda", "sim") or RANKS > 1,
                    reason="a device backend, one process (CUPYNUM_DEVICE=sim runs it here)")
@pytest.mark.parametrize("dtype", [numpy.dtype(d) for d in (numpy.bool_, numpy.int8, numpy.uint16,
                                                            numpy.int32, numpy.int64, numpy.uint64,
                                                            numpy.float32, numpy.float64)],
                         ids=dtype_id)
@pytest.mark.parametrize("shape", [(0,), (1,), (257,), (6, 0), (7, 33), (3, 4, 5)], ids=str)
def test_sort_runs_on_the_device(dtype, shape):
    """sort and argsort (every axis, strided and transposed inputs) of what devsort.h takes run
    as a device op (the input moves to the device, the host sort never runs) and equal NumPy's
    stable results; float16 stays on the host."""
    n = int(numpy.prod(shape))
    x = special(dtype, n, seed=n + 3).reshape(shape)
    for layout in range(3):
        xv = (x, x.T, x[..., ::-2])[layout]
        for axis in range(-xv.ndim, xv.ndim):
            a = cupynum.array(x)     # fresh: on the host until the sort moves it
            a = (a, a.T, a[..., ::-2])[layout]
            cupynum.sync()
            cupynum.reset_stats()
            s = cupynum.sort(a, axis=axis)
            g = cupynum.argsort(a, axis=axis, kind="stable")
            cupynum.sync()
            if n:
                assert cupynum.runtime_stats()["bytes_to_device"] > 0
            check(s, numpy.sort(xv, axis=axis, kind="stable"))
            check(g, numpy.argsort(xv, axis=axis, kind="stable"))
