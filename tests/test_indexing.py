"""Advanced indexing and selection (issue 15), compared with NumPy on the same data.

Runs on one rank and under `mpirun -np 2, 3, 4` with CUPYNUM_MIN_TILE=1 (every array
partitioned); every rank checks the whole result against NumPy.  The aligned boolean-mask
assignments (`a[mask] = v`, `U[1:3, U[0] <= tol] = 0`) are the select op on views: the tests
also read runtime_stats() to see that they move no bytes between ranks."""

import warnings

import numpy
import pytest

import cupynum
from conftest import ALL_DTYPES, check, dtype_id, sample

pytestmark = [pytest.mark.device, pytest.mark.mpi_device]

RANKS = cupynum.runtime_info()["ranks"]


def _pair(shape, dtype, seed=0):
    n = sample(shape, dtype, seed=seed)
    return n, cupynum.array(n)


def _sent():
    cupynum.sync()
    return cupynum.runtime_stats()["bytes_sent"]


def _same_set(n, c, key_n, key_c, value_n, value_c=None):
    """n[key_n] = value_n and c[key_c] = value_c: the same outcome (values, or exception type
    and message with both arrays unchanged)."""
    value_c = value_n if value_c is None else value_c
    before = n.copy()
    try:
        n[key_n] = value_n
    except Exception as e:  # noqa: BLE001  (NumPy is the oracle)
        with pytest.raises(type(e)) as got:
            c[key_c] = value_c
        assert str(got.value) == str(e)
        check(c, before)
        return
    c[key_c] = value_c
    check(c, n)


# ---- aligned boolean-mask assignment -------------------------------------------------------

@pytest.mark.parametrize("dtype", ALL_DTYPES, ids=dtype_id)
@pytest.mark.parametrize("shape", [(7,), (6, 5), (3, 4, 5), (0, 3)])
def test_mask_set_scalar_every_dtype(dtype, shape):
    n, c = _pair(shape, dtype)
    mn = sample(shape, numpy.bool_, seed=1)
    value = numpy.ones((), dtype)[()] if dtype.kind != "b" else True
    _same_set(n, c, mn, cupynum.array(mn), value)
    _same_set(n, c, mn, mn, 3)               # a NumPy mask, a Python int
    _same_set(n, c, ~mn, cupynum.array(~mn), numpy.array(2, dtype))   # a 0-d NumPy array
    _same_set(n, c, mn, cupynum.array(mn), cupynum.array(numpy.array(5, dtype)))  # 0-d cupynum


@pytest.mark.parametrize("dtype", [numpy.float64, numpy.int32, numpy.float32, numpy.complex128],
                         ids=dtype_id)
def test_mask_from_the_array_itself(dtype):
    n, c = _pair((9, 11), dtype)
    n[n.real < 0] = 0
    c[c.real < 0] = 0
    check(c, n)
    n[(n.real > 2) & (n.real < 5)] = -1
    c[(c.real > 2) & (c.real < 5)] = -1
    check(c, n)


def test_mask_set_values_the_scalar_converts_as_numpy():
    n, c = _pair((5, 4), numpy.int8)
    m = n > 0
    _same_set(n, c, m, cupynum.array(m), 300)        # OverflowError, array unchanged
    _same_set(n, c, m, cupynum.array(m), 2.75)        # truncates
    f, g = _pair((5, 4), numpy.float64)
    _same_set(f, g, m, cupynum.array(m), True)
    _same_set(f, g, m, cupynum.array(m), numpy.float32(1.5))


@pytest.mark.parametrize("shape,mshape", [((6, 5), (6,)), ((3, 4, 5), (3,)), ((3, 4, 5), (3, 4))])
def test_mask_on_leading_axes(shape, mshape):
    n, c = _pair(shape, numpy.float64)
    mn = sample(mshape, numpy.bool_, seed=3)
    mc = cupynum.array(mn)
    _same_set(n, c, mn, mc, 7.0)
    tail = shape[len(mshape):]
    row = sample(tail, numpy.float64, seed=4)
    _same_set(n, c, mn, mc, row, cupynum.array(row))          # broadcast over the selection
    _same_set(n, c, mn, mc, row[None], cupynum.array(row[None]))
    if len(tail) > 1:
        last = sample(tail[-1:], numpy.int64, seed=5)        # cast, broadcast further
        _same_set(n, c, mn, mc, last, cupynum.array(last))
        _same_set(n, c, mn, mc, last, last)


def test_mask_with_slices_ints_newaxis_ellipsis():
    """The combined forms: U[1:3, U[0] <= tol] = 0 and its relatives."""
    n, c = _pair((3, 6, 7), numpy.float64)
    n[1:3, n[0] <= 0.5] = 0
    c[1:3, c[0] <= 0.5] = 0
    check(c, n)
    m2 = sample((6, 7), numpy.bool_, seed=7)
    m1 = sample((7,), numpy.bool_, seed=8)
    cases = [
        ((0, m2), (0, cupynum.array(m2))),
        ((Ellipsis, m1), (Ellipsis, cupynum.array(m1))),
        ((slice(None), slice(1, 5), m1), (slice(None), slice(1, 5), cupynum.array(m1))),
        ((slice(None, None, -1), m2), (slice(None, None, -1), cupynum.array(m2))),
        ((None, 2, m2), (None, 2, cupynum.array(m2))),
        ((1, Ellipsis, m1), (1, Ellipsis, cupynum.array(m1))),
        ((m1[:3], Ellipsis), (cupynum.array(m1[:3]), Ellipsis)),
    ]
    for i, (kn, kc) in enumerate(cases):
        _same_set(n, c, kn, kc, -2.5 - i)
    # a value over the axes beside the mask
    col = sample((3, 1), numpy.float64, seed=9)
    _same_set(n, c, (slice(None), m2), (slice(None), cupynum.array(m2)), col, cupynum.array(col))


def test_mask_set_through_a_view_reaches_the_base():
    n, c = _pair((8, 8), numpy.float64)
    vn, vc = n[1:-1, ::2], c[1:-1, ::2]
    vn[vn > 0] = 100.0
    vc[vc > 0] = 100.0
    check(c, n)


def test_mask_augmented_assignment():
    n, c = _pair((6, 7), numpy.float64)
    m = n > 0
    n[m] += 1.5
    c[cupynum.array(m)] += 1.5
    check(c, n)
    n[n < 0] *= 2
    c[c < 0] *= 2
    check(c, n)


def test_mask_errors_leave_the_array_unchanged():
    n, c = _pair((4, 5), numpy.float64)
    bad = numpy.ones(3, bool)
    _same_set(n, c, bad, cupynum.array(bad), 1.0)                # IndexError, shape
    _same_set(n, c, (slice(None), bad), (slice(None), cupynum.array(bad)), 1.0)
    m = sample((4, 5), numpy.bool_, seed=2)
    _same_set(n, c, m, cupynum.array(m), numpy.arange(3.0), cupynum.arange(3.0))  # ValueError
    _same_set(n, c, m[:, 0], cupynum.array(m[:, 0]), numpy.ones(4), cupynum.ones(4))
    r = cupynum.broadcast_to(cupynum.zeros(5), (4, 5))
    with pytest.raises(ValueError, match="read-only"):
        r[cupynum.array(m)] = 1.0


def test_mask_set_is_one_fused_op():
    """The select fuses with the element-wise work around it: one flush, one fused run."""
    n, c = _pair((50, 40), numpy.float64)
    cupynum.sync()
    cupynum.reset_stats()
    t = c * 2.0 + 1.0
    t[t < 0] = 0.0
    t[t > 10] = 10.0
    u = t * t
    s = float(u.sum())
    st = cupynum.runtime_stats()
    tn = n * 2.0 + 1.0
    tn[tn < 0] = 0.0
    tn[tn > 10] = 10.0
    assert s == pytest.approx(float((tn * tn).sum()), rel=1e-13)
    assert st["flushes"] == 1
    assert st["fused_runs"] >= 1 and st["fused_ops"] >= 6


@pytest.mark.parametrize("dtype", ALL_DTYPES, ids=dtype_id)
@pytest.mark.parametrize("size", [0, 5, 8, 13, 1500, 5000])
def test_mask_set_in_place_every_dtype(dtype, size):
    """The select into its own else-operand stores only the selected elements (eight conditions
    at a time, then a tail): every element size and remainder, fused with the comparison and
    from a held mask, with a scalar, a 0-d array and an array over the trailing axis."""
    n, c = _pair((size,), dtype)
    m = sample((size,), numpy.bool_, seed=3)
    v = sample((), dtype, seed=4)
    n[m] = v
    c[cupynum.array(m)] = cupynum.array(v)
    check(c, n)
    n[n == n[:1]] = v if size else n[:0]
    c[c == c[:1]] = cupynum.array(v) if size else c[:0]
    check(c, n)
    n2, c2 = _pair((3, size), dtype, seed=5)
    row = sample((size,), dtype, seed=6)
    m2 = sample((3,), numpy.bool_, seed=7)
    n2[m2] = row
    c2[cupynum.array(m2)] = cupynum.array(row)
    check(c2, n2)


@pytest.mark.parametrize("shape", [(64, 48), (30, 70), (3, 40, 30)])
def test_aligned_mask_set_sends_no_bytes(shape):
    """Owner computes: the mask is aligned with the array, so nothing crosses between ranks."""
    n, c = _pair(shape, numpy.float64)
    before = _sent()
    c[c < 0] = 0.0
    c[c > 5] = c.dtype.type(5)
    c[cupynum.abs(c) < 1] = cupynum.array(0.5)
    c[c > 4] = cupynum.array([4.5])                 # a value that broadcasts: no positions either
    if c.ndim == 3:
        c[1:3, c[0] <= 0.5] = 0
    moved = _sent() - before
    n[n < 0] = 0.0
    n[n > 5] = 5
    n[numpy.abs(n) < 1] = 0.5
    n[n > 4] = numpy.array([4.5])
    if n.ndim == 3:
        n[1:3, n[0] <= 0.5] = 0
    check(c, n)
    if c.ndim == 3:
        # U[0] lives where U[1:3] does only when the tiling leaves axis 0 whole
        t = cupynum._core._tiling(c)
        if t["tiled"] and t["grid"][0] > 1:
            return
    assert moved == 0, moved


# ---- a[mask] read and the selection functions -------------------------------------------------

def _same_get(n, c, key_n, key_c):
    try:
        expected = n[key_n]
    except Exception as e:  # noqa: BLE001
        with pytest.raises(type(e)) as got:
            c[key_c]
        assert str(got.value) == str(e)
        return
    check(c[key_c], expected)


def _both_keys(key):
    items = key if isinstance(key, tuple) else (key,)
    kc = tuple(cupynum.array(k) if isinstance(k, numpy.ndarray) else k for k in items)
    return key, (kc if isinstance(key, tuple) else kc[0])


@pytest.mark.parametrize("dtype", ALL_DTYPES, ids=dtype_id)
@pytest.mark.parametrize("shape", [(7,), (6, 5), (3, 4, 5), (0, 3), (1,)])
def test_mask_get_every_dtype(dtype, shape):
    n, c = _pair(shape, dtype)
    m = sample(shape, numpy.bool_, seed=1)
    kn, kc = _both_keys(m)
    _same_get(n, c, kn, kc)
    _same_get(n, c, m, m)                          # a NumPy mask
    _same_get(n, c, numpy.zeros(shape, bool), cupynum.zeros(shape, bool))
    _same_get(n, c, numpy.ones(shape, bool), cupynum.ones(shape, bool))


def test_mask_get_combined_forms():
    n, c = _pair((3, 6, 7), numpy.float64)
    m2 = sample((6, 7), numpy.bool_, seed=7)
    m1 = sample((7,), numpy.bool_, seed=8)
    m0 = sample((3,), numpy.bool_, seed=9)
    keys = [m0, (m0,), (slice(None), m2), (1, m2), (Ellipsis, m1), (slice(1, 3), slice(None), m1),
            (slice(None), 2, m1), (slice(None), 2, Ellipsis, m1), (0, slice(None), m1),
            (None, m0), (m0, None), (slice(None, None, -1), m2), (m0, slice(2, 5)), (m0, 1),
            (1, Ellipsis, m1), (None, 1, None, m2)]
    for key in keys:
        kn, kc = _both_keys(key)
        _same_get(n, c, kn, kc)
    # through a view, and the result is a copy
    v = c[::2, 1:]
    r = v[v > 0]
    rn = n[::2, 1:][n[::2, 1:] > 0]
    check(r, rn)
    r[...] = 0
    check(c, n)


def test_mask_get_errors():
    n, c = _pair((4, 5), numpy.float64)
    for key in [numpy.ones(3, bool), (slice(None), numpy.ones(6, bool)), numpy.ones((4, 6), bool),
                numpy.ones((4, 5, 1), bool)]:
        kn, kc = _both_keys(key)
        _same_get(n, c, kn, kc)


def test_mask_get_then_ops_and_augmented_assignment():
    n, c = _pair((9, 8), numpy.float64)
    s = c[c > 0]
    sn = n[n > 0]
    check(s * 2 + 1, sn * 2 + 1)
    check(s.sum(), sn.sum())
    n[n > 0] += 1.5
    c[c > 0] += 1.5
    check(c, n)


@pytest.mark.parametrize("dtype", [numpy.bool_, numpy.int16, numpy.uint64, numpy.float32,
                                   numpy.float64, numpy.complex64], ids=dtype_id)
@pytest.mark.parametrize("shape", [(11,), (5, 6), (2, 3, 4), (0,), (3, 0)])
def test_nonzero_family(dtype, shape):
    n, c = _pair(shape, dtype, seed=4)
    check(cupynum.nonzero(c), numpy.nonzero(n))
    check(c.nonzero(), n.nonzero())
    check(cupynum.argwhere(c), numpy.argwhere(n))
    check(cupynum.flatnonzero(c), numpy.flatnonzero(n))
    check(cupynum.where(c), numpy.where(n))
    check(cupynum.count_nonzero(c), numpy.count_nonzero(n))
    cond = sample(shape, numpy.bool_, seed=5)
    check(cupynum.extract(cupynum.array(cond), c), numpy.extract(cond, n))
    check(cupynum.extract(c, c), numpy.extract(n, n))


@pytest.mark.parametrize("n", [7, 8, 9, 63, 64, 65, 129, 65536 * 2 + 13, 300001])
@pytest.mark.parametrize("density", [0.0, 0.01, 0.5, 0.97, 1.0])
def test_nonzero_1d_chunks(n, density):
    """1-d nonzero across the kernel's chunks (65536 elements or more each, written by threads
    into their own slots), 64 elements a round (AVX-512) or 8 at a time while enough slots are
    left, from contiguous masks (also at an odd offset: unaligned loads) and strided ones, of
    every density."""
    r = numpy.random.default_rng(n)
    m = r.random(2 * n + 1) < density
    c = cupynum.array(m)
    for mn, mc in ((m[:n], c[:n]), (m[1:n + 1], c[1:n + 1]), (m[::2], c[::2])):
        check(cupynum.nonzero(mc), numpy.nonzero(mn))
        check(cupynum.flatnonzero(mc), numpy.flatnonzero(mn))


def test_nonzero_of_nan_is_true_and_0d_is_numpys():
    n = numpy.array([0.0, numpy.nan, -0.0, 1.0])
    c = cupynum.array(n)
    check(cupynum.nonzero(c), numpy.nonzero(n))
    with pytest.raises(ValueError):
        numpy.nonzero(numpy.array(1.0))
    with pytest.raises(ValueError):
        cupynum.nonzero(cupynum.array(1.0))
    check(cupynum.argwhere(cupynum.array(1.0)), numpy.argwhere(numpy.array(1.0)))


def test_compress():
    n, c = _pair((4, 5, 3), numpy.int32)
    for cond, axis in [([True, False, True, True], 0), ([False, True], 1), ([True] * 5, 1),
                       ([True, False, True], 2), ([True, False, True, False, True, True], None),
                       ([True, True], -1)]:
        check(cupynum.compress(cond, c, axis=axis), numpy.compress(cond, n, axis=axis))
        check(c.compress(cond, axis=axis), n.compress(cond, axis=axis))
    with pytest.raises(IndexError):
        numpy.compress([True] * 6, n, axis=0)
    with pytest.raises(IndexError):
        cupynum.compress([True] * 6, c, axis=0)


def test_mask_get_bytes_bounded():
    """a[mask] of a tiled array: each rank compacts its own tile (dist.c exec_select), so what a
    rank sends is at most the selected bytes plus the counts (tests/test_indexing_adv.py checks
    that bound); here, the looser bound of one copy of a tile to every rank holds too."""
    n, c = _pair((64, 48), numpy.float64)
    m = c > 7.0
    cupynum.sync()
    before = _sent()
    r = c[m]
    cupynum.sync()
    moved = _sent() - before
    check(r, n[n > 7.0])
    per_rank = (n.size * (n.itemsize + 1)) // RANKS + 64 * 48
    assert moved <= per_rank * max(RANKS - 1, 0) + 4096, moved


# ---- integer-array indexing and take --------------------------------------------------------

@pytest.mark.parametrize("dtype", ALL_DTYPES, ids=dtype_id)
@pytest.mark.parametrize("idtype", [numpy.int64, numpy.int32, numpy.uint8, numpy.int8],
                         ids=dtype_id)
def test_int_get_every_dtype(dtype, idtype):
    n, c = _pair((6, 5), dtype)
    idx = numpy.array([0, 5, 3, 3, 1], dtype=idtype)
    if numpy.dtype(idtype).kind == "i":
        idx[1] = -1
    _same_get(n, c, idx, cupynum.array(idx))
    _same_get(n, c, idx, idx)
    _same_get(n, c, (slice(None), idx[idx < 5]), (slice(None), cupynum.array(idx[idx < 5])))
    _same_get(n, c, [0, 2, 2], [0, 2, 2])


def test_int_get_forms():
    n, c = _pair((3, 4, 5), numpy.float64)
    i1 = numpy.array([2, -1, 0, 0])
    i2 = numpy.array([[1, 3], [0, -4]])
    keys = [i1[:3], (slice(None), i2), (1, i1), (slice(None), 1, i1), (Ellipsis, i1),
            (i1[:2], slice(1, 3)), (None, i1[:2]), (0, slice(None), i1), (slice(None), 0, Ellipsis, i1),
            (i2[:, :1] + 1, None, 2), (slice(None, None, -1), slice(1, 3), i1),
            numpy.zeros((0,), numpy.int64), (slice(None), numpy.zeros((2, 0), numpy.intp))]
    for key in keys:
        kn, kc = _both_keys(key)
        _same_get(n, c, kn, kc)
    r = c[numpy.array([0, 0])]
    r[...] = -1                                           # a copy, as NumPy's
    check(c, n)


def test_int_get_errors():
    n, c = _pair((3, 4), numpy.int32)
    for key in [numpy.array([3]), numpy.array([-4]), (slice(None), numpy.array([0, 4])),
                (0, numpy.array([1, -5])), numpy.array([[0], [7]])]:
        kn, kc = _both_keys(key)
        _same_get(n, c, kn, kc)
    e, z = _pair((0, 2), numpy.float64)
    _same_get(e, z, numpy.array([0]), cupynum.array([0]))


@pytest.mark.parametrize("axis", [None, 0, 1, -1])
def test_take(axis):
    n, c = _pair((4, 6), numpy.float32)
    idx = numpy.array([[3, 0], [-1, 2]])
    check(cupynum.take(c, cupynum.array(idx), axis=axis), numpy.take(n, idx, axis=axis))
    check(c.take([1, 1, 0], axis=axis), n.take([1, 1, 0], axis=axis))
    check(cupynum.take(c, 2, axis=axis), numpy.take(n, 2, axis=axis))
    check(cupynum.take(c, [9], axis=axis, mode="clip"), numpy.take(n, [9], axis=axis, mode="clip"))
    with pytest.raises(IndexError) as e:
        numpy.take(n, [99], axis=axis)
    with pytest.raises(IndexError) as g:
        cupynum.take(c, [99], axis=axis)
    assert str(g.value) == str(e.value)


@pytest.mark.parametrize("dtype", ALL_DTYPES, ids=dtype_id)
def test_int_set_every_dtype(dtype):
    n, c = _pair((6, 5), dtype)
    idx = numpy.array([0, -1, 3, 3, 1])
    v = sample((5, 5), dtype, seed=3)
    _same_set(n, c, idx, cupynum.array(idx), v, cupynum.array(v))       # repeats: the last wins
    _same_set(n, c, idx, idx, v[0])                                      # a row, broadcast
    _same_set(n, c, [2, 4], [2, 4], v[0, 0])                             # a scalar
    _same_set(n, c, (slice(None), idx[2:]), (slice(None), cupynum.array(idx[2:])), v[:, :1],
              cupynum.array(v[:, :1]))


def test_int_set_forms_and_errors():
    n, c = _pair((3, 4, 5), numpy.float64)
    i1 = numpy.array([2, -1, 0, 0])
    cases = [((1, i1), numpy.arange(4.0)), ((0, slice(None), i1), numpy.arange(16.0).reshape(4, 4)),
             ((slice(None), 1, i1), numpy.arange(4.0)), ((Ellipsis, i1), -3.0),
             ((i1[:2], slice(1, 3)), numpy.ones((2, 2, 5))), (i1, n[0])]
    for key, v in cases:
        kn, kc = _both_keys(key)
        _same_set(n, c, kn, kc, v, cupynum.array(v) if isinstance(v, numpy.ndarray) else v)
    for key, v in [(numpy.array([3]), 1.0), ((0, numpy.array([-6])), 1.0),
                   (numpy.array([0, 1]), numpy.ones(3)), ((slice(None), i1), numpy.ones((2, 5)))]:
        kn, kc = _both_keys(key)
        _same_set(n, c, kn, kc, v)
    # the value read from the array itself, and augmented assignment with repeats (not
    # accumulating, as NumPy's)
    _same_set(n, c, i1, cupynum.array(i1), n[::-1, ::-1], c[::-1, ::-1])
    n[i1] += 1
    c[cupynum.array(i1)] += 1
    check(c, n)
    ci = cupynum.array([1, 1, 2], dtype=numpy.int64)
    ni = numpy.array([1, 1, 2])
    ni[ni] = 0
    ci[ci] = 0
    check(ci, ni)
