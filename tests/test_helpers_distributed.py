"""Issue 20's helpers on partitioned arrays: each result equals NumPy's, and the bytes each rank
sends stay within a stated bound of a few slices or boundaries (never the array).

Runs on one rank and under `mpirun -np 2, 3, 4` with CUPYNUM_MIN_TILE=1 (every array
partitioned; 4 ranks tile a matrix as a 2 x 2 grid).  The scans (cumsum, cumprod,
ufunc.accumulate, and cumulative_sum/cumulative_prod/unwrap/vander built on them) are a pipeline
along the axis (csrc/runtime/distscan.c): each rank continues from its predecessor's last slice,
so float results are NumPy's sequential scan's bit for bit, and a rank sends one slice."""

import numpy
import pytest

import cupynum
from conftest import check, same_error

pytestmark = [pytest.mark.device, pytest.mark.mpi_device]

RANKS = cupynum.runtime_info()["ranks"]
EL = 8   # bytes of one float64 element


def _sent(fn):
    """fn()'s result and the bytes this rank sent computing it (queued work flushed first)."""
    cupynum.sync()
    before = cupynum.runtime_stats()["bytes_sent"]
    r = fn()
    cupynum.sync()
    return r, cupynum.runtime_stats()["bytes_sent"] - before


def _rng(seed):
    return numpy.random.default_rng(seed)


# ---- scans ----------------------------------------------------------------------------------------

SCAN_DTYPES = [numpy.float64, numpy.float32, numpy.int64, numpy.int32, numpy.complex128]


def _scan_data(shape, dtype, seed):
    x = _rng(seed).standard_normal(shape) * 3
    if numpy.dtype(dtype).kind == "c":
        x = x + 1j * _rng(seed + 1).standard_normal(shape)
    return x.astype(dtype)


@pytest.mark.parametrize("dtype", SCAN_DTYPES, ids=lambda d: numpy.dtype(d).name)
@pytest.mark.parametrize("shape,axis", [((3001,), 0), ((61, 47), 0), ((61, 47), 1), ((61, 47), -1),
                                        ((9, 10, 11), 1), ((9, 10, 11), 0)])
def test_cumsum_of_a_partitioned_array_is_numpys_bit_for_bit(shape, axis, dtype):
    x = _scan_data(shape, dtype, seed=len(shape) + axis)
    a = cupynum.array(x)
    slice_bytes = numpy.cumsum(x, axis=axis).nbytes // shape[axis]
    r, sent = _sent(lambda: cupynum.cumsum(a, axis=axis))
    check(r, numpy.cumsum(x, axis=axis))
    # one slice across the axis to the successor (each rank's part of it), nothing else
    assert sent <= slice_bytes, (sent, slice_bytes)
    slice_bytes = numpy.cumprod(x, axis=axis).nbytes // shape[axis]
    p = (1 + _scan_data(shape, dtype, seed=5) / 1000).astype(dtype)
    pa = cupynum.array(p)
    r, sent = _sent(lambda: cupynum.cumprod(pa, axis=axis))
    check(r, numpy.cumprod(p, axis=axis))
    assert sent <= slice_bytes, (sent, slice_bytes)


def test_scans_of_views_and_accumulate_of_other_ops():
    x = _scan_data((80, 70), numpy.float64, seed=9)
    a = cupynum.array(x)
    check(cupynum.cumsum(a[3:71:2, ::-1], axis=0), numpy.cumsum(x[3:71:2, ::-1], axis=0))
    check(cupynum.cumsum(a.T, axis=1), numpy.cumsum(x.T, axis=1))
    check(cupynum.subtract.accumulate(a, axis=0), numpy.subtract.accumulate(x, axis=0))
    check(cupynum.maximum.accumulate(a, axis=1), numpy.maximum.accumulate(x, axis=1))
    check(cupynum.cumsum(a), numpy.cumsum(x))
    i = (x * 100).astype(numpy.int16)
    check(cupynum.cumsum(cupynum.array(i), axis=0), numpy.cumsum(i, axis=0))
    check(cupynum.cumsum(cupynum.array(x > 0), axis=0), numpy.cumsum(x > 0, axis=0))
    # short arrays: some ranks hold nothing
    for n in (1, 2, 3, 5):
        check(cupynum.cumsum(cupynum.array(x[:n, 0])), numpy.cumsum(x[:n, 0]))


def test_scan_floating_point_errors_as_numpy():
    x = numpy.full(4000, 1e306)    # overflows on the last rank, continuing the others' sum
    x[:2900] = 1.0
    x[3500] = -numpy.inf
    a = cupynum.array(x)
    with numpy.errstate(over="raise"), pytest.raises(FloatingPointError):
        numpy.cumsum(x)
    with cupynum.errstate(over="raise"), pytest.raises(FloatingPointError):
        cupynum.cumsum(a)
    with cupynum.errstate(all="ignore"), numpy.errstate(all="ignore"):
        check(cupynum.cumsum(a), numpy.cumsum(x))
        check(cupynum.cumprod(a), numpy.cumprod(x))


def test_scan_counts_distributed_scans():
    x = _scan_data((3000,), numpy.float64, seed=2)
    a = cupynum.array(x)
    cupynum.sync()
    tiled = cupynum._core._tiling(a)["tiled"]
    cupynum.reset_stats()
    check(cupynum.cumsum(a), numpy.cumsum(x))
    assert cupynum.runtime_stats()["scans_dist"] == (1 if RANKS > 1 and tiled else 0)


# ---- the helpers: results and bytes per rank --------------------------------------------------

N = 3000
ROW, COL = 50 * EL, 60 * EL      # a row and a column of the (60, 50) matrix "m"


def _inputs():
    rng = _rng(20)
    return {
        "x": rng.standard_normal(N) * 2,
        "y": rng.standard_normal(N) * 2,
        "xs": numpy.sort(rng.standard_normal(N) * 2),
        "m": rng.standard_normal((60, 50)),
        "s": rng.standard_normal((60, 60)),
        "t": rng.standard_normal((50, 60)),
        "s8": rng.integers(-100, 100, (60, 60)).astype(numpy.int8),
        "v400": rng.standard_normal(400),
        "k7": rng.standard_normal(7),
        "v3": rng.standard_normal((N, 3)),
        "w3": rng.standard_normal((N, 3)),
        "i": rng.integers(0, 60, N),
        "j": rng.integers(0, 60, N),
        "c3": rng.standard_normal((12, 12, 12)),
        "z": rng.standard_normal((60, 60)) + 1j * rng.standard_normal((60, 60)),
    }


def _filled(xp, a, val, wrap):
    a = a.copy()
    xp.fill_diagonal(a, val, wrap=wrap)
    return a


def _written(a, values):
    a[...] = values
    if a.__class__ is not numpy.ndarray and RANKS > 1:
        assert cupynum._core._tiling(a)["tiled"]
    return a


def _resized(a, shape):
    a = a.copy()
    a.resize(shape, refcheck=False)
    return a


def _moved_twice(res):
    """Each element at most twice (a flat copy, then to its owner), a rank its share."""
    return 2 * res.nbytes // max(RANKS, 1)


def _index_bound(res):
    """A compaction's result (index arrays): each rank sends at most its part of it twice."""
    return 2 * sum(r.nbytes for r in res) // max(RANKS, 1) + 64 * RANKS


# name, fn(xp, d), bound on the bytes a rank sends (a function of NumPy's result), tolerance
# (relative and absolute; convolve's sums are NumPy's BLAS dot, which adds in its own order)
HELPERS = [
    ("asfortranarray", lambda xp, d: xp.asfortranarray(d["m"]), 0, 0),
    # ndarray(shape, dtype) constructed directly: a new partitioned array (filled here: NumPy's
    # values are uninitialised), laid out as any new array of its shape
    ("ndarray", lambda xp, d: _written(xp.ndarray((60, 50), dtype=numpy.float64), d["m"]), 0, 0),
    ("ndarray", lambda xp, d: _written(xp.ndarray(3000, numpy.float32), d["x"]), 0, 0),
    ("shares_memory", lambda xp, d: xp.shares_memory(d["x"], d["x"][1:]), 0, 0),
    ("may_share_memory", lambda xp, d: xp.may_share_memory(d["x"][:10], d["x"][5:]), 0, 0),
    ("iscomplexobj", lambda xp, d: xp.iscomplexobj(d["m"]), 0, 0),
    ("isrealobj", lambda xp, d: xp.isrealobj(d["m"]), 0, 0),
    # a vector on a diagonal: the vector's pieces to the owners of its rows, never the n x n result
    ("diag", lambda xp, d: xp.diag(d["v400"], 3), 4 * 400 * EL, 0),
    ("diagflat", lambda xp, d: xp.diagflat(d["v400"].reshape(20, 20), -2), 4 * 400 * EL, 0),
    ("indices", lambda xp, d: xp.indices((60, 50)), 2 * (ROW + COL), 0),
    ("meshgrid", lambda xp, d: xp.meshgrid(d["x"][:100], d["y"][:80]), 2 * 180 * EL, 0),
    ("fromfunction", lambda xp, d: xp.fromfunction(lambda i, j: i * 2 + j, (60, 50)),
     2 * (ROW + COL), 0),
    ("vander", lambda xp, d: xp.vander(d["v400"], 6), 400 * EL, 0),
    ("geomspace", lambda xp, d: xp.geomspace(1, 1000, N), 0, 1e-15),
    ("logspace", lambda xp, d: xp.logspace(0, 3, N), 0, 1e-15),
    ("identity", lambda xp, d: xp.identity(60), 4 * COL, 0),   # the two aranges' pieces
    ("eye", lambda xp, d: xp.eye(60, 50, -3, dtype=numpy.int32), 4 * COL, 0),
    ("fill_diagonal", lambda xp, d: _filled(xp, d["s"], 2.5, False), 4 * COL, 0),
    ("fill_diagonal", lambda xp, d: _filled(xp, d["t"], -1.0, True), 4 * COL, 0),
    ("fill_diagonal", lambda xp, d: _filled(xp, d["m"], 7, True), 4 * COL, 0),
    ("fill_diagonal", lambda xp, d: _filled(xp, d["s8"], 3.9, False),
     4 * COL, 0),
    # values from an array: computed where the values lie, each sent to the owner of its place
    # (flatroute.c; a 2 x 2 grid's flat alias is not tiled): at most the diagonal per rank
    ("fill_diagonal", lambda xp, d: _filled(xp, d["s"], d["v400"], False), 60 * EL, 0),
    ("fill_diagonal", lambda xp, d: _filled(xp, d["m"], d["v400"], True), 60 * EL, 0),
    ("fill_diagonal", lambda xp, d: _filled(xp, d["t"], d["k7"], True), 3 * 60 * EL, 0),
    ("fill_diagonal", lambda xp, d: _filled(xp, d["c3"], d["v400"][:12], False), 12 * EL, 0),
    # diagonals (read-only views): only the diagonal's elements move, to the result's tiles
    ("diagonal", lambda xp, d: xp.diagonal(d["s"]).copy(), 60 * EL, 0),
    ("diagonal", lambda xp, d: xp.diagonal(d["t"], 7) * 2, 60 * EL, 0),
    ("diagonal", lambda xp, d: xp.diagonal(d["z"], -3).imag + 1, 60 * 2 * EL, 0),
    ("diagonal", lambda xp, d: xp.diagonal(d["c3"], 1, 2, 0) + 0, 12 * 12 * EL, 0),
    ("ndarray.diagonal", lambda xp, d: d["m"].diagonal(-4) + 1, 60 * EL, 0),
    ("diag", lambda xp, d: xp.diag(d["s8"], 2).astype(numpy.int64), 60 * EL, 0),
    ("diag", lambda xp, d: xp.diag(d["s"]) * xp.diag(d["s"], 1)[0], 2 * 60 * EL, 0),
    # n-d resize: the C-order prefix read through a flat copy and sent to the new owners
    ("ndarray.resize", lambda xp, d: _resized(d["s"], (70, 55)), _moved_twice, 0),
    ("ndarray.resize", lambda xp, d: _resized(d["m"], (40, 30)), _moved_twice, 0),
    ("ndarray.resize", lambda xp, d: _resized(d["t"], (5, 20, 40)), _moved_twice, 0),
    ("resize", lambda xp, d: xp.resize(d["s"], (50, 80)), _moved_twice, 0),
    ("tril_indices", lambda xp, d: xp.tril_indices(80), _index_bound, 0),
    ("triu_indices", lambda xp, d: xp.triu_indices(80, 2), _index_bound, 0),
    ("tril_indices_from", lambda xp, d: xp.tril_indices_from(d["s"], -1), _index_bound, 0),
    ("triu_indices_from", lambda xp, d: xp.triu_indices_from(d["s"]), _index_bound, 0),
    ("mask_indices", lambda xp, d: xp.mask_indices(60, xp.triu, 1), _index_bound, 0),
    ("mask_indices", lambda xp, d: xp.mask_indices(50, xp.tril, -2), _index_bound, 0),
    ("diag_indices", lambda xp, d: xp.diag_indices(60), 0, 0),
    ("diag_indices_from", lambda xp, d: xp.diag_indices_from(d["s"]), 0, 0),
    # the bounds check: a flag per rank
    ("ravel_multi_index", lambda xp, d: xp.ravel_multi_index((d["i"], d["j"]), (60, 60)),
     8 * RANKS, 0),
    ("unravel_index", lambda xp, d: xp.unravel_index(d["i"] * 7, (60, 60)), 8 * RANKS, 0),
    ("bartlett", lambda xp, d: xp.bartlett(N), 0, 1e-15),
    ("blackman", lambda xp, d: xp.blackman(N), 0, 1e-15),
    ("hamming", lambda xp, d: xp.hamming(N), 0, 1e-15),
    ("hanning", lambda xp, d: xp.hanning(N), 0, 1e-15),
    ("kaiser", lambda xp, d: xp.kaiser(N, 5.0), 0, 1e-14),
    # reductions to one flag: a flag per rank
    ("allclose", lambda xp, d: xp.allclose(d["x"], d["x"] + 1e-9), 8 * RANKS, 0),
    ("array_equal", lambda xp, d: xp.array_equal(d["x"], d["y"]), 8 * RANKS, 0),
    ("array_equiv", lambda xp, d: xp.array_equiv(d["m"], d["m"][:1]), 8 * RANKS + 2 * ROW, 0),
    ("asarray_chkfinite", lambda xp, d: xp.asarray_chkfinite(d["x"]), 8 * RANKS, 0),
    # halos of one element, row or column per boundary
    ("diff", lambda xp, d: xp.diff(d["x"]), 2 * EL, 0),
    ("diff", lambda xp, d: xp.diff(d["m"], axis=0), 2 * ROW, 0),
    ("diff", lambda xp, d: xp.diff(d["m"], n=2, axis=1), 2 * COL, 0),
    ("ediff1d", lambda xp, d: xp.ediff1d(d["x"]), 2 * EL, 0),
    ("gradient", lambda xp, d: xp.gradient(d["x"]), 16 * EL, 0),
    ("gradient", lambda xp, d: xp.gradient(d["m"]), 4 * (ROW + COL), 0),
    # a table no larger than about the points per rank is held whole everywhere (a rank sends
    # its part of xp and fp to the others; then each rank works on its own points); a larger one
    # stays tiled: searchsorted reads the points on every rank (the smaller operand), then each
    # point reads its segment's ends as two routed complex pairs (xp[j], xp[j+1]) and (fp[j],
    # fp[j+1]): bytes in proportion to the points, never the table
    ("interp", lambda xp, d: xp.interp(d["y"], d["xs"], d["x"]),
     2 * N * EL * max(RANKS - 1, 0) // max(RANKS, 1) + 256 * RANKS, 0),
    ("interp", lambda xp, d: xp.interp(d["y"], d["xs"][::30], d["x"][:100]),
     2 * 100 * EL + 256 * RANKS, 0),
    ("interp", lambda xp, d: xp.interp(d["y"][::6], d["xs"], d["x"]),
     lambda res: 6 * res.nbytes * max(RANKS - 1, 0) + 256 * RANKS, 0),
    ("interp", lambda xp, d: xp.interp(d["v3"][::8], d["xs"], d["x"] + 1j * d["y"]),
     lambda res: 6 * res.nbytes, 0),
    ("convolve", lambda xp, d: xp.convolve(d["x"], d["k7"]), 16 * 7 * EL, 1e-12),
    ("correlate", lambda xp, d: xp.correlate(d["x"], d["k7"], "same"), 16 * 7 * EL, 1e-12),
    ("cross", lambda xp, d: xp.cross(d["v3"], d["w3"]), 6 * EL, 0),
    # trapezoid sums pairwise per rank, partials combined: rounding differs from NumPy's order
    ("trapezoid", lambda xp, d: xp.trapezoid(d["x"]), 8 * EL + 8 * RANKS, 1e-12),
    ("trapezoid", lambda xp, d: xp.trapezoid(d["m"], axis=0), (RANKS + 1) * ROW, 1e-12),
    # the scans: the difference's halo and the scan's carry
    ("unwrap", lambda xp, d: xp.unwrap(d["x"] * 3), 4 * EL, 0),
    ("unwrap", lambda xp, d: xp.unwrap(d["m"] * 4, axis=0), 2 * ROW, 0),
    ("cumulative_sum", lambda xp, d: xp.cumulative_sum(d["x"]), 2 * EL, 0),
    ("cumulative_sum", lambda xp, d: xp.cumulative_sum(d["m"], axis=1), COL, 0),
    ("cumulative_sum", lambda xp, d: xp.cumulative_sum(d["m"], axis=0, include_initial=True),
     3 * ROW, 0),
    ("cumulative_prod", lambda xp, d: xp.cumulative_prod(1 + d["x"] / 1000), 2 * EL, 0),
    ("cumulative_prod", lambda xp, d: xp.cumulative_prod(1 + d["m"] / 100, axis=0), ROW, 0),
    ("cumsum", lambda xp, d: xp.cumsum(d["m"], axis=0), ROW, 0),
    ("ndarray.cumsum", lambda xp, d: d["m"].cumsum(axis=1), COL, 0),
    ("ndarray.cumprod", lambda xp, d: (1 + d["x"] / 1000).cumprod(), 2 * EL, 0),
    ("cumprod", lambda xp, d: xp.cumprod(1 + d["x"] / 1000), 2 * EL, 0),
    # the coefficients read on every rank
    ("polyval", lambda xp, d: xp.polyval(d["k7"], d["x"]), 2 * 7 * EL * RANKS, 0),
    ("polyadd", lambda xp, d: xp.polyadd(d["x"], d["y"][:100]), 2 * 100 * EL, 0),
    ("polysub", lambda xp, d: xp.polysub(d["x"], d["y"][:100]), 2 * 100 * EL, 0),
    ("polymul", lambda xp, d: xp.polymul(d["x"], d["k7"]), 16 * 7 * EL + 8 * RANKS, 1e-12),
    ("polyder", lambda xp, d: xp.polyder(d["x"]), 4 * EL, 0),
    ("polyint", lambda xp, d: xp.polyint(d["x"]), 4 * EL, 0),
]


@pytest.mark.parametrize("case", HELPERS, ids=[f"{c[0]}-{i}" for i, c in enumerate(HELPERS)])
def test_helper_of_partitioned_arrays_is_numpys_and_moves_a_bounded_number_of_bytes(case):
    name, fn, bound, rtol = case
    d = _inputs()
    c = {k: cupynum.array(v) for k, v in d.items()}
    expected = fn(numpy, d)
    got, sent = _sent(lambda: fn(cupynum, c))
    if isinstance(expected, tuple) and isinstance(got, list):   # meshgrid: NumPy 2.x's tuple
        got = tuple(got)
    check(got, expected, rtol=rtol, atol=rtol)
    limit = bound(expected) if callable(bound) else bound
    assert sent <= limit, (name, sent, limit)


# ---- diagonals and fill_diagonal of a matrix tiled as a grid: views both ways --------------------

def test_diagonal_of_a_partitioned_matrix_is_a_read_only_view_reading_only_its_elements():
    """Writes to the matrix are seen through its diagonals (NumPy's read-only views refuse writes
    alike); reading one to the host sends each rank's own elements of it to the other ranks
    (flatroute.c), never the matrix (on 4 ranks a 2 x 2 grid, whose flat alias is not tiled)."""
    rng = _rng(21)
    n = rng.standard_normal((60, 60))
    c = cupynum.array(n)
    pairs = [(numpy.diagonal(n, 2), cupynum.diagonal(c, 2)), (n.diagonal(-1), c.diagonal(-1)),
             (numpy.diag(n, 3), cupynum.diag(c, 3)),
             (numpy.linalg.diagonal(n), cupynum.linalg.diagonal(c))]
    n *= 3
    c *= 3
    n[4, 6] = -7.0
    c[4, 6] = -7.0
    n[10:20, 5:30] = 0.5
    c[10:20, 5:30] = 0.5
    for dn, dc in pairs:
        host, sent = _sent(lambda: numpy.asarray(dc))
        assert numpy.array_equal(host, dn)
        assert sent <= dn.nbytes * max(RANKS - 1, 0), sent
        same_error(lambda: dn.__setitem__(0, 1.0), lambda: dc.__setitem__(0, 1.0))
    check(c, n)


def test_fill_diagonal_with_values_is_seen_through_views_and_sees_their_writes():
    rng = _rng(22)
    n = rng.standard_normal((60, 50))
    c = cupynum.array(n)
    vn, vc = n[5:, 3:], c[5:, 3:]
    tn, tc = n.T, c.T
    vn[::2] = 1.5          # a write through a view, then fill_diagonal of the base
    vc[::2] = 1.5
    vals = rng.standard_normal(45)
    numpy.fill_diagonal(n, vals, wrap=True)
    _, sent = _sent(lambda: cupynum.fill_diagonal(c, cupynum.array(vals), wrap=True))
    assert sent <= 60 * EL, sent
    check(c, n)
    check(vc, vn)
    check(tc, tn)
    numpy.fill_diagonal(n, vals[:3])   # a short value repeats
    cupynum.fill_diagonal(c, vals[:3])
    check(vc, vn)
    check(cupynum.diagonal(c), numpy.diagonal(n))
