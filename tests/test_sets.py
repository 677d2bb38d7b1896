"""searchsorted, unique (every flag, equal_nan), unique_values/counts/inverse/all, isin and the
set functions against NumPy: dtypes, NaN/inf/signed zeros, duplicates, empty and length-1 inputs,
NumPy's errors; under mpirun every array partitioned (CUPYNUM_MIN_TILE=1)."""

import numpy
import pytest

import cupynum
from conftest import ALL_DTYPES, check, dtype_id, same_error
from test_sorting import special

pytestmark = [pytest.mark.device, pytest.mark.mpi_device]

REAL = [d for d in ALL_DTYPES if d.kind != "c"]


def _sorted_list(r):
    return numpy.sort(numpy.asarray(r))


@pytest.mark.parametrize("dtype", ALL_DTYPES, ids=dtype_id)
@pytest.mark.parametrize("n", [0, 1, 7, 300])
def test_unique_every_flag(dtype, n):
    x = special(dtype, n, seed=n)
    a = cupynum.array(x)
    check(cupynum.unique(a), numpy.unique(x))
    for flags in [(1, 0, 0), (0, 1, 0), (0, 0, 1), (1, 1, 1)]:
        ri, rv, rc = map(bool, flags)
        check(cupynum.unique(a, return_index=ri, return_inverse=rv, return_counts=rc),
              numpy.unique(x, return_index=ri, return_inverse=rv, return_counts=rc))
    check(cupynum.unique(a, equal_nan=False), numpy.unique(x, equal_nan=False))


def test_unique_nd_inverse_shape_and_axis():
    x = special(numpy.dtype(numpy.int32), 24, seed=4).reshape(2, 3, 4)
    a = cupynum.array(x)
    check(cupynum.unique(a, return_inverse=True), numpy.unique(x, return_inverse=True))
    check(cupynum.unique(a, axis=1), numpy.unique(x, axis=1))          # axis: NumPy's help
    check(cupynum.unique(5), numpy.unique(5))


@pytest.mark.parametrize("dtype", REAL, ids=dtype_id)
def test_unique_array_api_functions(dtype):
    x = special(dtype, 50, seed=9).reshape(5, 10)
    a = cupynum.array(x)
    got = cupynum.unique_values(a)     # NumPy's order is unspecified (a hash table for integers)
    assert isinstance(got, cupynum.ndarray) and got.dtype == x.dtype
    numpy.testing.assert_array_equal(_sorted_list(got), _sorted_list(numpy.unique_values(x)))
    for name in ("unique_counts", "unique_inverse", "unique_all"):
        got, want = getattr(cupynum, name)(a), getattr(numpy, name)(x)
        assert type(got) is type(want) and got._fields == want._fields
        ref = numpy.unique(x, return_index=True, return_inverse=True, return_counts=True,
                           equal_nan=False)
        full = dict(values=ref[0], indices=ref[1], inverse_indices=ref[2], counts=ref[3])
        for f in got._fields:
            check(getattr(got, f), full[f] if name == "unique_all" or f != "values" else ref[0])


@pytest.mark.parametrize("dtype", REAL, ids=dtype_id)
def test_searchsorted_both_sides_sorter_and_method(dtype):
    base = special(dtype, 200, seed=2)
    s = numpy.sort(base)
    v = special(dtype, 60, seed=3)
    a = cupynum.array(s)
    for side in ("left", "right"):
        check(cupynum.searchsorted(a, cupynum.array(v), side=side), numpy.searchsorted(s, v, side=side))
        check(a.searchsorted(cupynum.array(v.reshape(6, 10)), side=side),
              s.searchsorted(v.reshape(6, 10), side=side))
        perm = numpy.argsort(base, kind="stable")
        check(cupynum.searchsorted(cupynum.array(base), v, side=side, sorter=cupynum.array(perm)),
              numpy.searchsorted(base, v, side=side, sorter=perm))
    check(cupynum.searchsorted(a, v[0]), numpy.searchsorted(s, v[0]))
    check(cupynum.searchsorted(cupynum.array(s[:0]), v), numpy.searchsorted(s[:0], v))


def test_searchsorted_mixed_dtypes_and_errors():
    s = numpy.arange(10, dtype=numpy.int8)
    a = cupynum.array(s)
    check(cupynum.searchsorted(a, 3.5), numpy.searchsorted(s, 3.5))
    check(cupynum.searchsorted(a, [300, -300]), numpy.searchsorted(s, [300, -300]))
    for f in (lambda m, x: m.searchsorted(x, [1], side="x"),
              lambda m, x: m.searchsorted(x, [1], sorter=m.array([0, 1])),
              lambda m, x: m.searchsorted(x, [1], sorter=m.arange(10) + 5)):
        with pytest.raises(Exception) as e_np:
            f(numpy, s)
        with pytest.raises(type(e_np.value)) as e_cp:
            f(cupynum, a)
        assert str(e_cp.value) == str(e_np.value)


@pytest.mark.parametrize("dtype", REAL, ids=dtype_id)
def test_isin_and_set_functions(dtype):
    x = special(dtype, 80, seed=6).reshape(8, 10)
    y = special(dtype, 30, seed=7)
    a, b = cupynum.array(x), cupynum.array(y)
    for invert in (False, True):
        for kind in (None, "sort"):
            check(cupynum.isin(a, b, invert=invert, kind=kind), numpy.isin(x, y, invert=invert, kind=kind))
    if dtype.kind in "bi" or (dtype.kind == "u" and dtype.itemsize < 8):   # (a table of wrapped uint64 is too big)
        check(cupynum.isin(a, b, kind="table"), numpy.isin(x, y, kind="table"))
    check(cupynum.isin(a[0, 0], b), numpy.isin(x[0, 0], y))
    for name in ("union1d", "intersect1d", "setdiff1d", "setxor1d"):
        check(getattr(cupynum, name)(a, b), getattr(numpy, name)(x, y))
        check(getattr(cupynum, name)(a[:0], b), getattr(numpy, name)(x[:0], y))
    ux, uy = numpy.unique(x), numpy.unique(y)
    for name in ("intersect1d", "setdiff1d", "setxor1d"):
        check(getattr(cupynum, name)(cupynum.array(ux), cupynum.array(uy), assume_unique=True),
              getattr(numpy, name)(ux, uy, assume_unique=True))
    check(cupynum.intersect1d(a, b, return_indices=True), numpy.intersect1d(x, y, return_indices=True))
    check(cupynum.intersect1d(cupynum.array(ux), cupynum.array(uy), assume_unique=True,
                              return_indices=True),
          numpy.intersect1d(ux, uy, assume_unique=True, return_indices=True))
    check(cupynum.intersect1d(a[:0], b, return_indices=True),
          numpy.intersect1d(x[:0], y, return_indices=True))


def test_set_functions_mixed_and_errors():
    x, y = numpy.array([1, 5, 2, 2]), numpy.array([2.5, 5.0, 1.0])
    for name in ("union1d", "intersect1d", "setdiff1d", "setxor1d", "isin"):
        check(getattr(cupynum, name)(cupynum.array(x), y), getattr(numpy, name)(x, y))
    check(cupynum.intersect1d(x, y, return_indices=True), numpy.intersect1d(x, y, return_indices=True))
    with pytest.raises(ValueError, match="Invalid kind"):
        cupynum.isin(cupynum.array(x), y, kind="x")
    with pytest.raises(ValueError, match="only supported for boolean or integer"):
        cupynum.isin(cupynum.array(y), y, kind="table")


def test_large_unique_and_isin():
    rng = numpy.random.default_rng(1)
    x = rng.integers(0, 1000, 100_000)
    a = cupynum.array(x)
    check(cupynum.unique(a, return_counts=True), numpy.unique(x, return_counts=True))
    t = rng.integers(0, 2000, 500)
    check(cupynum.isin(a, t), numpy.isin(x, t))


# ---- unique along an axis, complex unique ---------------------------------------------------------

def _rows(dtype, shape, axis, seed):
    """An array of `shape` whose slices along `axis` repeat a few patterns (duplicates to merge,
    NaN, +-inf, +-0.0 among their elements)."""
    axis %= len(shape)
    n = shape[axis]
    rest = [d for i, d in enumerate(shape) if i != axis]
    m = int(numpy.prod(rest))
    pats = special(dtype, 3 * m, seed=seed).reshape(3, m)
    pick = numpy.random.default_rng(seed).integers(0, 3, n)
    return numpy.moveaxis(pats[pick].reshape([n] + rest), 0, axis)


@pytest.mark.parametrize("dtype", ALL_DTYPES, ids=dtype_id)
@pytest.mark.parametrize("shape", [(7,), (9, 3), (2, 6, 4), (1, 5), (5, 1), (40, 2), (3, 30, 2)],
                         ids=str)
def test_unique_axis_matches_numpy(dtype, shape, monkeypatch):
    for axis in range(-len(shape), len(shape)):
        x = _rows(dtype, shape, axis, seed=len(shape) + axis)
        if dtype.kind in "fc" and axis % 2:
            x = numpy.where(numpy.isnan(x), 1, x).astype(dtype)   # no NaN: native
        if dtype != numpy.float16 or not numpy.isnan(x).any():
            monkeypatch.setenv("CUPYNUM_FALLBACK", "error")
        else:       # float16 rows holding NaN (its structured compare is unordered): NumPy's own
            monkeypatch.setenv("CUPYNUM_FALLBACK", "silent")
        a = cupynum.array(x)
        check(cupynum.unique(a, axis=axis), numpy.unique(x, axis=axis))
        check(cupynum.unique(a, True, True, True, axis=axis),
              numpy.unique(x, True, True, True, axis=axis))
        check(cupynum.unique(a, return_counts=True, axis=axis, equal_nan=False),
              numpy.unique(x, return_counts=True, axis=axis, equal_nan=False))


@pytest.mark.parametrize("dtype", [numpy.dtype(d) for d in (numpy.float32, numpy.float64,
                                                            numpy.complex64, numpy.complex128)],
                         ids=dtype_id)
@pytest.mark.parametrize("seed", range(12))
def test_unique_axis_of_rows_holding_nan_is_native(dtype, seed, monkeypatch):
    """Rows drawn from NaN, +-0.0, +-inf and a few values (many duplicate rows, many with NaN):
    NumPy's order (its structured compare: NaN last per field), a NaN row kept every time, the
    first indices, the inverse and the counts, along every axis, natively."""
    monkeypatch.setenv("CUPYNUM_FALLBACK", "error")
    rng = numpy.random.default_rng(seed)
    vals = numpy.array([numpy.nan, 0.0, -0.0, 1.0, -numpy.inf, numpy.inf, 2.0])
    shape = tuple(int(d) for d in rng.integers(1, 6, size=int(rng.integers(2, 4))))
    x = vals[rng.integers(0, len(vals), size=shape)]
    if dtype.kind == "c":
        x = x.astype(dtype)
        x.imag = vals[rng.integers(0, len(vals), size=shape)]
    x = x.astype(dtype)
    a = cupynum.array(x)
    for axis in range(-x.ndim, x.ndim):
        check(cupynum.unique(a, axis=axis), numpy.unique(x, axis=axis))
        check(cupynum.unique(a, True, True, True, axis=axis), numpy.unique(x, True, True, True, axis=axis))


def test_unique_axis_empty_and_errors():
    for shape, axis in [((0, 3), 0), ((3, 0), 0), ((3, 0), 1), ((0,), 0)]:
        x = numpy.zeros(shape)
        check(cupynum.unique(cupynum.array(x), True, True, True, axis=axis),
              numpy.unique(x, True, True, True, axis=axis))
    x = numpy.arange(6.0).reshape(2, 3)
    same_error(lambda: numpy.unique(x, axis=2), lambda: cupynum.unique(cupynum.array(x), axis=2))
    same_error(lambda: numpy.unique(x, axis=-3), lambda: cupynum.unique(cupynum.array(x), axis=-3))


@pytest.mark.parametrize("dtype", [d for d in ALL_DTYPES if d.kind == "c"], ids=dtype_id)
@pytest.mark.parametrize("n", [0, 1, 7, 300])
def test_unique_complex_is_native(dtype, n, monkeypatch):
    monkeypatch.setenv("CUPYNUM_FALLBACK", "error")
    x = special(dtype, n, seed=n + 5)
    a = cupynum.array(x)
    for eq in (True, False):
        check(cupynum.unique(a, equal_nan=eq), numpy.unique(x, equal_nan=eq))
        check(cupynum.unique(a, True, True, True, equal_nan=eq),
              numpy.unique(x, True, True, True, equal_nan=eq))
    y = x[: n - n % 2].reshape(-1, 2) if n > 1 else x.reshape(-1, 1)
    check(cupynum.unique(cupynum.array(y), return_inverse=True),
          numpy.unique(y, return_inverse=True))


@pytest.mark.parametrize("dtype", [d for d in ALL_DTYPES if d.kind == "c"], ids=dtype_id)
@pytest.mark.parametrize("n", [0, 1, 7, 300])
def test_complex_isin_and_set_functions_are_native(dtype, n, monkeypatch):
    """isin, union1d, intersect1d (and its indices), setdiff1d, setxor1d of complex arrays:
    NumPy's complex order (lexicographic, NaN classes last), NaN never equal (one unique run),
    +-0.0 equal, +-inf, duplicates; complex with real operands; empty and length-1."""
    monkeypatch.setenv("CUPYNUM_FALLBACK", "error")
    x = special(dtype, n, seed=n + 11)
    y = numpy.concatenate([special(dtype, n // 2 + 3, seed=n + 12), x[: n // 3]])
    a, b = cupynum.array(x), cupynum.array(y)
    for invert in (False, True):
        check(cupynum.isin(a, b, invert=invert), numpy.isin(x, y, invert=invert))
        check(cupynum.isin(a, b[:0], invert=invert), numpy.isin(x, y[:0], invert=invert))
    check(cupynum.isin(a.reshape(-1, 1), b), numpy.isin(x.reshape(-1, 1), y))
    check(cupynum.isin(cupynum.array(x.real), b), numpy.isin(x.real, y))
    check(cupynum.isin(a, cupynum.array(y.real)), numpy.isin(x, y.real))
    if n:
        check(cupynum.isin(a[0], b), numpy.isin(x[0], y))
    ux, uy = numpy.unique(x), numpy.unique(y)
    for name in ("union1d", "intersect1d", "setdiff1d", "setxor1d"):
        check(getattr(cupynum, name)(a, b), getattr(numpy, name)(x, y))
        check(getattr(cupynum, name)(a, cupynum.array(y.real)), getattr(numpy, name)(x, y.real))
        if name != "union1d":
            check(getattr(cupynum, name)(cupynum.array(ux), cupynum.array(uy), assume_unique=True),
                  getattr(numpy, name)(ux, uy, assume_unique=True))
    check(cupynum.intersect1d(a, b, return_indices=True),
          numpy.intersect1d(x, y, return_indices=True))
    check(cupynum.sort_complex(a), numpy.sort_complex(x))


@pytest.mark.parametrize("dtype", [d for d in ALL_DTYPES if d.kind == "c"], ids=dtype_id)
@pytest.mark.parametrize("n", [0, 1, 7, 300])
def test_complex_searchsorted_is_native(dtype, n, monkeypatch):
    """searchsorted of complex arrays (both sides, sorter=, the method, real values): NumPy's
    complex order, every NaN class, +-0.0 equal, +-inf, duplicates; under mpirun each rank
    searches its tile of the sorted array."""
    monkeypatch.setenv("CUPYNUM_FALLBACK", "error")
    x = special(dtype, n, seed=n + 21)
    s = numpy.sort(x)
    v = numpy.concatenate([special(dtype, 40, seed=n + 22), x[:5]])
    a, cv = cupynum.array(s), cupynum.array(v)
    for side in ("left", "right"):
        check(cupynum.searchsorted(a, cv, side=side), numpy.searchsorted(s, v, side=side))
        check(cupynum.searchsorted(a, cupynum.array(v.real), side=side),
              numpy.searchsorted(s, v.real, side=side))
        check(a.searchsorted(cv[3], side=side), s.searchsorted(v[3], side=side))
        perm = numpy.argsort(x, kind="stable")
        check(cupynum.searchsorted(cupynum.array(x), cv, side=side, sorter=cupynum.array(perm)),
              numpy.searchsorted(x, v, side=side, sorter=perm))


# ---- distributed: searchsorted and isin of a partitioned sorted array ------------------------------

RANKS = cupynum.runtime_info()["ranks"]


@pytest.mark.parametrize("dtype", [numpy.dtype(numpy.int64), numpy.dtype(numpy.float64),
                                   numpy.dtype(numpy.uint8), numpy.dtype(numpy.float32)],
                         ids=dtype_id)
def test_searchsorted_of_a_partitioned_array_moves_only_positions(dtype):
    n = 5000 * max(RANKS, 1)
    x = numpy.sort(special(dtype, n, seed=21))
    v = special(dtype, 40, seed=22)
    a = cupynum.array(x)
    cv = cupynum.array(v)
    cupynum.sync()
    t = cupynum._core._tiling(a)
    for side in ("left", "right"):
        cupynum.reset_stats()
        r = cupynum.searchsorted(a, cv, side=side)
        f = cupynum.isin(cv, a)     # sorts a copy of a (the sample sort), then searches it
        cupynum.sync()
        sent = cupynum.runtime_stats()["bytes_sent"]
        check(r, numpy.searchsorted(x, v, side=side))
        check(f, numpy.isin(v, x))
        if RANKS > 1 and t["tiled"]:
            part = (t["hi"][0] - t["lo"][0]) * x.itemsize
            # the sort moves about two copies of the part; the searches only v and positions
            assert sent < 2.5 * part + 64 * v.size * RANKS, (sent, part)
    cupynum.reset_stats()
    r = cupynum.searchsorted(a, cv[:7], side="right")
    cupynum.sync()
    check(r, numpy.searchsorted(x, v[:7], side="right"))
    if RANKS > 1 and t["tiled"]:
        assert cupynum.runtime_stats()["bytes_sent"] <= 16 * 7 * RANKS + 8 * 7 * RANKS


def test_searchsorted_of_a_partitioned_array_scalar_and_empty():
    x = numpy.arange(30.0 * max(RANKS, 1))
    a = cupynum.array(x)
    check(cupynum.searchsorted(a, 7.5), numpy.searchsorted(x, 7.5))
    check(cupynum.searchsorted(a, cupynum.array(x[:0])), numpy.searchsorted(x, x[:0]))
    check(cupynum.searchsorted(a, cupynum.array([-1.0, 1e9, numpy.nan]), side="right"),
          numpy.searchsorted(x, [-1.0, 1e9, numpy.nan], side="right"))


def test_searchsorted_of_partitioned_values_in_a_small_array_moves_only_it():
    n = 6000 * max(RANKS, 1)
    edges = numpy.array([-2.0, -0.5, 0.0, 0.0, 1.5, 2.5])
    v = special(numpy.dtype(numpy.float64), n, seed=23)
    ce, cv = cupynum.array(edges), cupynum.array(v)
    cupynum.sync()
    for side in ("left", "right"):
        cupynum.reset_stats()
        r = cupynum.searchsorted(ce, cv, side=side)
        f = cupynum.isin(cv, ce)
        cupynum.sync()
        sent = cupynum.runtime_stats()["bytes_sent"]
        check(r, numpy.searchsorted(edges, v, side=side))
        check(f, numpy.isin(v, edges))
        if RANKS > 1:   # the edges (and isin's sorted copy of them), never v
            assert sent < 40 * edges.size * RANKS, sent


@pytest.mark.parametrize("dtype", [numpy.dtype(numpy.int64), numpy.dtype(numpy.float64),
                                   numpy.dtype(numpy.int8), numpy.dtype(numpy.float32),
                                   numpy.dtype(numpy.bool_)], ids=dtype_id)
@pytest.mark.parametrize("distinct", [1, 3, 50, 10**9])
def test_unique_of_a_partitioned_array_joins_runs_across_ranks(dtype, distinct):
    n = 3000 * max(RANKS, 1)
    rng = numpy.random.default_rng(distinct)
    x = rng.integers(0, distinct, n).astype(dtype)
    if dtype.kind == "f":
        x[rng.random(n) < 0.05] = numpy.nan
        x[rng.random(n) < 0.05] = -0.0
    a = cupynum.array(x)
    cupynum.sync()
    cupynum.reset_stats()
    cupynum.sort(a)
    cupynum.sync()
    sort_sent = cupynum.runtime_stats()["bytes_sent"]
    cupynum.reset_stats()
    got = cupynum.unique(a, return_counts=True)
    cupynum.sync()
    sent = cupynum.runtime_stats()["bytes_sent"]
    check(got, numpy.unique(x, return_counts=True))
    check(cupynum.unique(a, equal_nan=False), numpy.unique(x, equal_nan=False))
    if RANKS > 1 and distinct <= 50:
        # the sample sort, then a few bytes per rank and per run: the sorted array stays put
        assert sent - sort_sent < 64 * RANKS * (RANKS + min(distinct, 50) + 2), (sent, sort_sent)


@pytest.mark.parametrize("dtype", [numpy.dtype(numpy.int64), numpy.dtype(numpy.float64),
                                   numpy.dtype(numpy.int8), numpy.dtype(numpy.float32),
                                   numpy.dtype(numpy.uint16), numpy.dtype(numpy.bool_)],
                         ids=dtype_id)
@pytest.mark.parametrize("distinct", [1, 3, 50, 10**9])
def test_unique_positions_of_a_partitioned_array_stay_distributed(dtype, distinct):
    """return_index / return_inverse of a partitioned array: the sorted values and the stable
    argsort stay where the sample sorts leave them; first positions and run counts are a few bytes
    per run, each element's run goes to the owner of its position (16 bytes an element)."""
    n = 2000 * max(RANKS, 1) + 1
    rng = numpy.random.default_rng(distinct + 7)
    x = rng.integers(0, distinct, n).astype(dtype)
    if dtype.kind == "f":
        x[rng.random(n) < 0.05] = numpy.nan
        x[rng.random(n) < 0.05] = -0.0
        x[rng.random(n) < 0.05] = 0.0
        x[rng.random(n) < 0.02] = -numpy.inf
        x[rng.random(n) < 0.02] = numpy.inf
    a = cupynum.array(x)
    cupynum.sync()
    t = cupynum._core._tiling(a)
    cupynum.reset_stats()
    cupynum.sort(a)
    cupynum.argsort(a, kind="stable")
    cupynum.sync()
    sorts_sent = cupynum.runtime_stats()["bytes_sent"]
    cupynum.reset_stats()
    got = cupynum.unique(a, return_index=True, return_inverse=True, return_counts=True)
    cupynum.sync()
    sent = cupynum.runtime_stats()["bytes_sent"]
    want = numpy.unique(x, return_index=True, return_inverse=True, return_counts=True)
    check(got, want)
    # a run's value is its first element's (the sign of a zero as NumPy's stable order leaves it)
    assert (numpy.signbit(numpy.asarray(got[0])) == numpy.signbit(want[0])).all()
    for flags in [(1, 0, 0), (0, 1, 0), (0, 1, 1)]:
        ri, rv, rc = map(bool, flags)
        check(cupynum.unique(a, return_index=ri, return_inverse=rv, return_counts=rc),
              numpy.unique(x, return_index=ri, return_inverse=rv, return_counts=rc))
    # (NaNs distinct: NumPy's order among them is its stable sort's only with return_index)
    check(cupynum.unique(a, return_index=True, return_inverse=True, equal_nan=False),
          numpy.unique(x, return_index=True, return_inverse=True, equal_nan=False))
    if RANKS > 1 and t["tiled"]:
        part = t["hi"][0] - t["lo"][0]
        k = len(want[0])
        # the two sample sorts, the inverse's (position, run) pairs, a few bytes per rank and run
        bound = sorts_sent + 16 * part + 64 * RANKS * (RANKS + 8) + 24 * k * RANKS
        assert sent <= bound, (sent, sorts_sent, part, k)
        # against the gathered path's every rank receiving the whole array
        assert sent < sorts_sent + 3 * part * 8 + 24 * k * RANKS + 64 * RANKS * (RANKS + 8)


@pytest.mark.parametrize("dtype", [numpy.dtype(numpy.float64), numpy.dtype(numpy.float32),
                                   numpy.dtype(numpy.float16)], ids=dtype_id)
def test_unique_nan_runs_move_nothing_more_than_finite_runs(dtype):
    """unique(return_index=True) of a partitioned float array: a run's value is its first
    element's, bit for bit (a zero's sign, a NaN's payload).  The value sort keeps NaNs in index
    order, so only the zeros' run is read at its first position: with NaNs distinct
    (equal_nan=False: one run each) the call sends, besides its two sorts, what it sends for
    finite runs there."""
    n = 1500 * max(RANKS, 1) + 1
    rng = numpy.random.default_rng(17)
    x = rng.integers(0, 200, n).astype(dtype)
    nan = numpy.zeros(n, bool)
    nan[rng.choice(n, 400 * max(RANKS, 1), replace=False)] = True
    x[rng.random(n) < 0.05] = 0.0
    x[rng.random(n) < 0.05] = -0.0
    y = x.copy()
    y[nan] = 300 + numpy.arange(nan.sum())   # distinct finite runs in the NaNs' places (float16: exact)
    ubits = numpy.dtype(f"u{dtype.itemsize}")
    quiet = numpy.array(numpy.nan, dtype).view(ubits)
    x[nan] = (quiet | rng.integers(1, 64, n).astype(ubits))[nan].view(dtype)   # NaN payloads
    sent = []
    for arr in (x, y):
        a = cupynum.array(arr)
        cupynum.sync()
        cupynum.reset_stats()
        cupynum.sort(a)
        cupynum.argsort(a, kind="stable")
        cupynum.sync()
        sorts_sent = cupynum.runtime_stats()["bytes_sent"]   # the buckets differ with the values
        for equal_nan in (False, True):
            cupynum.sync()
            cupynum.reset_stats()
            got = cupynum.unique(a, return_index=True, return_inverse=True, equal_nan=equal_nan)
            cupynum.sync()
            if not equal_nan:
                sent.append(cupynum.runtime_stats()["bytes_sent"] - sorts_sent)
            want = numpy.unique(arr, return_index=True, return_inverse=True, equal_nan=equal_nan)
            check(got, want)
            numpy.testing.assert_array_equal(numpy.asarray(got[0]).view(ubits), want[0].view(ubits))
    if RANKS == 1:
        assert sent == [0, 0]
    else:   # per NaN run nothing (the old fix-up of every NaN run: its 8 index bytes everywhere)
        assert abs(sent[0] - sent[1]) <= 64 * RANKS * RANKS, sent


@pytest.mark.parametrize("dtype", [numpy.dtype(numpy.int64), numpy.dtype(numpy.float64),
                                   numpy.dtype(numpy.int16), numpy.dtype(numpy.float32)],
                         ids=dtype_id)
@pytest.mark.parametrize("distinct", [2, 40, 10**9])
def test_set_functions_of_partitioned_arrays_stay_distributed(dtype, distinct):
    """isin and the set functions of two partitioned arrays: sample sorts, run ops, each rank's
    own compaction and searches routed to the rank whose tile decides them; no rank receives
    the whole of either array (a gathered path sends each rank's part to every other)."""
    n = 2500 * max(RANKS, 1)
    rng = numpy.random.default_rng(distinct)
    x = rng.integers(0, distinct, n).astype(dtype)
    y = rng.integers(0, distinct, n + 3).astype(dtype)
    if dtype.kind == "f":
        for v in (numpy.nan, -0.0, numpy.inf, -numpy.inf):
            x[rng.random(n) < 0.03] = v
            y[rng.random(n + 3) < 0.03] = v
    a, b = cupynum.array(x), cupynum.array(y)
    ux, uy = numpy.unique(x), numpy.unique(y)
    ua, ub = cupynum.array(ux), cupynum.array(uy)
    cupynum.sync()
    t = cupynum._core._tiling(a)
    # (fn, operands, bound on bytes sent per rank in 8-byte words per element of a rank's part:
    # measured at 3 ranks, 10^9 distinct int64, before: setdiff1d 11, setxor1d 15.8, intersect1d 7.3,
    # return_indices 18.3.  return_indices is four sample sorts and two gathers through the
    # permutations; the gathers are routed (each rank asks the owners for its own rows), and a
    # sample sort's all-to-all sends the (P - 1) / P of its part that leaves the rank, so the bound
    # rises towards a constant with the rank count: measured at most 10.0, 15.3 and 16.3 words on
    # 2, 3 and 4 ranks (17.1 and 19.8 on 3 and 4 while every rank read the whole index))
    cases = [
        (lambda m, p, q: m.isin(p, q), (a, b), (x, y), 3),
        (lambda m, p, q: m.isin(p, q, invert=True), (a, b), (x, y), 3),
        (lambda m, p, q: m.intersect1d(p, q), (a, b), (x, y), 7.5),
        (lambda m, p, q: m.intersect1d(p, q, assume_unique=True), (ua, ub), (ux, uy), 5),
        (lambda m, p, q: m.intersect1d(p, q, return_indices=True), (a, b), (x, y),
         1 + 24 * (RANKS - 1) / max(RANKS, 1)),
        (lambda m, p, q: m.union1d(p, q), (a, b), (x, y), 5.5),
        (lambda m, p, q: m.setdiff1d(p, q), (a, b), (x, y), 6),
        (lambda m, p, q: m.setdiff1d(p, q, assume_unique=True), (ua, ub), (ux, uy), 3),
        (lambda m, p, q: m.setxor1d(p, q), (a, b), (x, y), 7.5),
        (lambda m, p, q: m.setxor1d(p, q, assume_unique=True), (ua, ub), (ux, uy), 5),
    ]
    over = []
    for i, (fn, cps, nps, words) in enumerate(cases):
        cupynum.sync()
        cupynum.reset_stats()
        got = fn(cupynum, *cps)
        cupynum.sync()
        sent = cupynum.runtime_stats()["bytes_sent"]
        check(got, fn(numpy, *nps))
        if RANKS > 1 and t["tiled"]:
            part = t["hi"][0] - t["lo"][0]
            if sent >= words * 8 * part + 64 * RANKS * (RANKS + 16):
                over.append((i, sent, part, words))
    assert not over, over
    if RANKS > 1 and t["tiled"]:
        cupynum.reset_stats()
        got = cupynum.isin(a, b)
        cupynum.sync()
        part = (t["hi"][0] - t["lo"][0]) * x.itemsize
        # b's sample sort (2.5 parts at most), then each value and its answer once
        assert cupynum.runtime_stats()["bytes_sent"] < 2.5 * part + part * (1 + 1 / x.itemsize) + \
            64 * RANKS * RANKS, cupynum.runtime_stats()["bytes_sent"]


@pytest.mark.parametrize("dtype", [numpy.dtype(numpy.complex128), numpy.dtype(numpy.complex64)],
                         ids=dtype_id)
def test_complex_sorts_and_sets_of_partitioned_arrays_stay_distributed(dtype):
    """Complex sort/argsort (the sample sort on three-word keys: NaN class, real, imaginary),
    unique and the set functions of partitioned complex arrays: NumPy's results, and bytes sent
    per rank a bounded number of copies of its part whatever the rank count (measured on 2, 3, 4
    ranks, complex128, in parts: sort 0.74/1.15/1.24, argsort 1.12/1.25/1.38, unique_all
    2.6/3.6/4.4, isin 5.9/8.8/10.5, union1d 2.5/4.3/4.5, intersect1d 1.8/2.7/2.8, setdiff1d
    2.4/3.4/3.4, setxor1d 1.8/2.7/2.8), where gathering sends 2 (P - 1) parts."""
    n = 3000 * max(RANKS, 1)
    rng = numpy.random.default_rng(5)
    x = (rng.integers(0, 300, n) + 1j * rng.integers(0, 3, n)).astype(dtype)
    y = (rng.integers(0, 300, n + 5) + 1j * rng.integers(0, 3, n + 5)).astype(dtype)
    for v in (complex(numpy.nan, 1), complex(1, numpy.nan), complex(numpy.nan, numpy.nan),
              complex(-0.0, 0.0), complex(numpy.inf, -1), complex(2, -numpy.inf)):
        x[rng.random(n) < 0.02] = v
        y[rng.random(n + 5) < 0.02] = v
    a, b = cupynum.array(x), cupynum.array(y)
    cupynum.sync()
    t = cupynum._core._tiling(a)
    cases = [
        (lambda m, p, q: m.sort(p), 2.5),
        (lambda m, p, q: m.argsort(p, kind="stable"), 2.5),
        (lambda m, p, q: m.unique(p), 2.5),
        (lambda m, p, q: m.unique(p, True, True, True), 6),
        (lambda m, p, q: m.isin(p, q), 13),
        (lambda m, p, q: m.union1d(p, q), 6),
        (lambda m, p, q: m.intersect1d(p, q), 4),
        (lambda m, p, q: m.setdiff1d(p, q), 4.5),
        (lambda m, p, q: m.setxor1d(p, q), 4),
    ]
    over = []
    for i, (fn, parts) in enumerate(cases):
        cupynum.sync()
        cupynum.reset_stats()
        got = fn(cupynum, a, b)
        cupynum.sync()
        sent = cupynum.runtime_stats()["bytes_sent"]
        check(got, fn(numpy, x, y))
        if RANKS > 1 and t["tiled"]:
            part = (t["hi"][0] - t["lo"][0]) * 16     # in complex128 elements
            if sent >= parts * part + 64 * RANKS * (RANKS + 16):
                over.append((i, sent, part, parts))
    assert not over, over
