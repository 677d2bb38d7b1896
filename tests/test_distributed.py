"""Distribution: partitioning, halo traffic, plan caching and reproducibility across rank counts.

These tests run in every configuration (`python -m pytest` is one rank; CI also runs the suite
under `mpirun -np 2, 3, 4` with CUPYNUM_MIN_TILE=1); what they assert depends on the rank count
the run has, and every rank compares with NumPy on the same data."""

import json
import os
import subprocess
import sys

import numpy
import pytest

import cupynum
from conftest import both, check, sample, stencil

pytestmark = [pytest.mark.mpi_device]

INFO = cupynum.runtime_info()
RANKS = INFO["ranks"]
MIN_TILE = int(os.environ.get("CUPYNUM_MIN_TILE", "16384"))


def test_large_arrays_are_tiled_over_every_rank_small_ones_replicated():
    big = cupynum.zeros((max(4, 2 * RANKS) * 16, 64))
    t = cupynum._core._tiling(big)
    if RANKS > 1 and big.size >= MIN_TILE * RANKS:
        assert t["tiled"]
        assert numpy.prod(t["grid"]) == RANKS
        # near-square tiles: no tile edge more than 8x another on this 2-D grid
        ext = [h - l for l, h in zip(t["lo"], t["hi"])]
        assert min(ext) > 0
    else:
        assert not t["tiled"]
    tiny = cupynum.zeros(1)
    assert not cupynum._core._tiling(tiny)["tiled"]


def test_tiles_partition_the_array():
    """Every element is owned by exactly one rank: a sum of ones over tiles counts each once."""
    n, c = both(numpy.arange(7 * 13, dtype=numpy.float64).reshape(7, 13))
    check(c.sum(), n.sum())
    check(c.sum(axis=0), n.sum(axis=0))
    check(c.sum(axis=1), n.sum(axis=1))
    check((c > 40).sum(), (n > 40).sum())


@pytest.mark.parametrize("shape", [(9, 9), (17, 6), (6, 23)])
def test_stencil_bitwise_on_any_rank_count(shape):
    n = numpy.zeros(shape)
    n[0, :] = 40.0
    n[:, 0] = -273.15
    c = cupynum.array(n)
    check(stencil(cupynum, c, 25), stencil(numpy, n.copy(), 25))


def test_stencil_halo_bytes_are_the_tile_perimeter():
    """Weak scaling: each rank owns a 48x48 block; per iteration it sends at most 2x its tile's
    perimeter in bytes, whatever the rank count (so traffic per rank does not grow with ranks)."""
    block = 48
    grid = cupynum.zeros((block * RANKS + 2, block + 2))
    grid[0, :] = 1.0
    stencil(cupynum, grid, 2)          # plans built, buffers warm
    cupynum.sync()
    cupynum.reset_stats()
    iterations = 5
    stencil(cupynum, grid, iterations)
    cupynum.sync()
    stats = cupynum.runtime_stats()
    per_iteration = stats["bytes_sent"] / iterations
    t = cupynum._core._tiling(grid)
    if RANKS == 1 or not t["tiled"]:
        assert stats["bytes_sent"] == 0
        return
    ext = [h - l for l, h in zip(t["lo"], t["hi"])]
    perimeter_bytes = 2 * sum(ext) * grid.itemsize
    assert per_iteration <= 2 * perimeter_bytes, (per_iteration, perimeter_bytes)
    assert stats["plans_cached"] == 0          # the loop planned nothing new
    assert stats["plan_hits"] > 0
    # every rank still agrees with NumPy
    n = numpy.zeros((block * RANKS + 2, block + 2))
    n[0, :] = 1.0
    check(grid, stencil(numpy, n, 2 + iterations))


@pytest.mark.parametrize("cols", [300, 301])
def test_stencil_steady_state_is_banded_and_allocates_only_exchange_buffers(cols):
    """Issue #23: a rank's tile goes through the banded fused execution of one process (the
    write-back copy fused, the temporary never allocated; the border rows computed from copies
    of just their halo), bitwise equal to NumPy; in steady state an iteration allocates no more
    than its exchange buffers (on one rank: nothing but small records)."""
    rows = 340 * RANKS                       # >= 3 bands of 256 KiB per rank's interior
    n = numpy.zeros((rows + 2, cols + 2))
    n[0, :] = 40.0
    n[:, 0] = -273.15
    c = cupynum.array(n)
    stencil(cupynum, c, 2)                   # plans built, scratch grown
    cupynum.sync()
    cupynum.reset_stats()
    before = cupynum.runtime_stats()["bytes_allocated"]    # a running total
    iterations = 6
    stencil(cupynum, c, iterations)
    cupynum.sync()
    stats = cupynum.runtime_stats()
    check(c, stencil(numpy, n, 2 + iterations))
    per_iteration = (stats["bytes_allocated"] - before) / iterations
    t = cupynum._core._tiling(c)
    tile_bytes = numpy.prod([h - l for l, h in zip(t["lo"], t["hi"])]) * c.itemsize
    if INFO["backend"] != "cpu":
        # a device evaluates the run in its own memory and keeps the temporary: bands are the
        # host's economy (they ran the host's loops over device buffers: a crash on a real GPU)
        assert stats["fused_runs_banded"] == 0, stats
    elif RANKS > 1 and t["tiled"]:
        assert stats["fused_runs_banded"] == iterations, stats
        ext = [h - l for l, h in zip(t["lo"], t["hi"])]
        exchange = 4 * 2 * sum(ext) * c.itemsize   # sends, receives, border copies: halo-sized
        assert per_iteration <= exchange + 16384, (per_iteration, exchange, tile_bytes)
    else:
        assert stats["fused_runs_banded"] == iterations, stats
        assert per_iteration <= 16384, (per_iteration, tile_bytes)


def test_second_iteration_plans_nothing():
    n, c = both(numpy.arange(40.0).reshape(5, 8))
    for _ in range(2):
        c[1:, :] = c[:-1, :] * 0.5 + 1
        n[1:, :] = n[:-1, :] * 0.5 + 1
    cupynum.sync()
    cupynum.reset_stats()
    c[1:, :] = c[:-1, :] * 0.5 + 1
    n[1:, :] = n[:-1, :] * 0.5 + 1
    cupynum.sync()
    assert cupynum.runtime_stats()["plans_cached"] == 0
    check(c, n)


@pytest.mark.parametrize("expr", [
    lambda a: a.T + a[::-1, ::-1].T,
    lambda a: a[1::3, ::-2] * 2,
    lambda a: a + a[2],              # a row broadcast over the rows
    lambda a: a[:, 3:4] - a,         # a column broadcast over the columns
    lambda a: a[::2] + a[1::2],
    lambda a: a.reshape(4, 3, 12)[:, ::-1, 1::2],
], ids=["transposes", "steps", "row-broadcast", "column-broadcast", "interleaved", "split-reshape"])
def test_views_of_distributed_arrays(expr):
    n, c = both(numpy.arange(144.0).reshape(12, 12))
    check(expr(c), expr(n))


@pytest.mark.parametrize("assign", [
    lambda a, s: a.__setitem__(slice(1, None), s(a)[:-1] + a[1:]),
    lambda a, s: a.__setitem__(slice(None, None, -1), s(a)),
    lambda a, s: a.__setitem__(slice(None, -1), s(a)[1:]),
    lambda a, s: a.__setitem__((slice(1, None), slice(None, None, 2)), s(a)[:-1, 1::2] * 2),
    lambda a, s: a.__setitem__((slice(None), slice(1, None)), a[:, 1:] - s(a)[:, :-1]),
    lambda a, s: a.T.__setitem__(slice(1, None), s(a).T[:-1]),
], ids=["a[1:]+=a[:-1]", "a[::-1]=a", "a[:-1]=a[1:]", "a[1:,::2]=a[:-1,1::2]*2",
        "a[:,1:]-=a[:,:-1]", "a.T[1:]=a.T[:-1]"])
def test_aliasing_assignments(assign):
    """The source is read before anything is written; NumPy's reference reads from a copy."""
    n = numpy.arange(108.0).reshape(9, 12)
    c = cupynum.array(n)
    assign(c, lambda a: a)
    ref = n.copy()
    assign(ref, lambda a: a.copy())
    check(c, ref)


def test_inplace_operator_on_shifted_slices():
    n, c = both(numpy.arange(40.0).reshape(4, 10))
    c[:, 1:] += c[:, :-1]
    n[:, 1:] += n[:, :-1].copy()
    check(c, n)


def test_scalar_reads_and_printing_agree_on_every_rank():
    n, c = both(numpy.arange(30.0).reshape(5, 6))
    assert c[3, 4] == n[3, 4]
    assert float(c[4, 5]) == float(n[4, 5])
    assert bool(c[0, 0]) is bool(n[0, 0])
    assert repr(c) == repr(n)
    assert str(c[::2]) == str(n[::2])
    assert c.tolist() == n.tolist()


def test_seeded_random_is_the_same_on_any_rank_count():
    """Draw in this run (RANKS ranks) and in a plain one-process child: identical arrays."""
    code = ("import json, numpy, cupynum as np; np.random.seed(2024); "
            "u = np.random.uniform(size=(9, 7)); g = np.random.normal(1.0, 2.0, size=(5, 11)); "
            "print(json.dumps([numpy.asarray(u).tolist(), numpy.asarray(g).tolist()]))")
    env = {k: v for k, v in os.environ.items() if not k.startswith(("OMPI_", "PMIX_", "PMI_"))}
    out = subprocess.run([sys.executable, "-c", code], env=env, capture_output=True, text=True,
                         timeout=120, check=True)
    u1, g1 = (numpy.array(x) for x in json.loads(out.stdout))
    cupynum.random.seed(2024)
    u = cupynum.random.uniform(size=(9, 7))
    g = cupynum.random.normal(1.0, 2.0, size=(5, 11))
    numpy.testing.assert_array_equal(numpy.asarray(u), u1)
    numpy.testing.assert_array_equal(numpy.asarray(g), g1)


def test_pi_matches_numpy_on_the_same_draws():
    cupynum.random.seed(11)
    x = cupynum.random.uniform(size=20000)
    y = cupynum.random.uniform(size=20000)
    inside = cupynum.sum(x * x + y * y < 1.0)
    xn, yn = numpy.asarray(x), numpy.asarray(y)
    assert inside == numpy.sum(xn * xn + yn * yn < 1.0)
    assert abs(4.0 * inside / 20000 - numpy.pi) < 0.05


def test_matmul_and_reductions_of_distributed_operands():
    n, c = both(numpy.arange(56.0).reshape(7, 8) / 7)
    check(c @ c.T, n @ n.T, rtol=1e-13)
    check(c.max(axis=0), n.max(axis=0))
    check(c.min(axis=1), n.min(axis=1))
    check(c.prod(axis=0), n.prod(axis=0), rtol=1e-13)
    check(c.mean(axis=(0, 1)), n.mean(axis=(0, 1)), rtol=1e-13)


# ---- whole jobs, launched from a plain process ------------------------------------------------

LAUNCHED = any(k in os.environ for k in ("OMPI_COMM_WORLD_SIZE", "PMI_SIZE", "PMIX_RANK"))
MPIRUN = ["mpirun", "-np", "2", "--oversubscribe", "--mca", "mpi_yield_when_idle", "1"]
needs_launcher = pytest.mark.skipif(
    LAUNCHED or not __import__("shutil").which("mpirun"),
    reason="launches its own mpirun job: runs from a plain (non-MPI) pytest process")


def _job(code, timeout=120):
    env = {k: v for k, v in os.environ.items() if not k.startswith(("OMPI_", "PMIX_", "PMI_"))}
    env.update(OMPI_ALLOW_RUN_AS_ROOT="1", OMPI_ALLOW_RUN_AS_ROOT_CONFIRM="1", CUPYNUM_MIN_TILE="1")
    return subprocess.run(MPIRUN + ["-x", "CUPYNUM_MIN_TILE", sys.executable, "-c", code], env=env,
                          capture_output=True, text=True, timeout=timeout)


@needs_launcher
def test_uncaught_exception_on_one_rank_aborts_the_whole_job():
    code = ("import cupynum as np\n"
            "a = np.arange(1000.0)\n"
            "if np.runtime_info()['rank'] == 1:\n"
            "    raise RuntimeError('boom on rank 1')\n"
            "print(float(a.sum()))   # rank 0 waits here for rank 1\n")
    out = _job(code, timeout=90)     # a hang would time out and fail the test
    assert out.returncode != 0
    assert "boom on rank 1" in out.stderr


@needs_launcher
@pytest.mark.parametrize("first", ["mpi4py", "cupynum"])
def test_beside_mpi4py_in_either_import_order(first):
    pytest.importorskip("mpi4py", reason="mpi4py is not installed")
    imports = ("from mpi4py import MPI\nimport cupynum as np\n" if first == "mpi4py"
               else "import cupynum as np\nfrom mpi4py import MPI\n")
    # every rank's stdout (by default only rank 0's reaches it)
    code = "import os\nos.environ['CUPYNUM_OUTPUT'] = 'all'\n" + imports + (
        "import numpy\n"
        "comm = MPI.COMM_WORLD\n"
        "info = np.runtime_info()\n"
        "assert info['ranks'] == comm.Get_size() == 2 and info['rank'] == comm.Get_rank()\n"
        "a = np.arange(20.0).reshape(4, 5)\n"
        "total = comm.allreduce(float(a[1:].sum()), op=MPI.SUM)\n"
        "assert total == 2 * numpy.arange(20.0)[5:].sum(), total\n"
        "print(f'<rank {info[\"rank\"]} ok>', flush=True)\n")
    out = _job(code)
    assert out.returncode == 0, out.stderr[-2000:]
    # the ranks' lines may interleave in mpirun's output: look for each marker
    assert "<rank 0 ok>" in out.stdout and "<rank 1 ok>" in out.stdout, out.stdout


# Fresh temporaries of one shape are tiled alike along a chain of element-wise ops (fusion.c's
# retile_chain): h[1:] * 2 lies like h shifted, h[:-1] * 3 would lie like h unshifted, and the
# two work boxes would differ by one element on every rank, so the three ops ran apart.  Now one
# distributed run, one element of halo per rank boundary.
@pytest.mark.parametrize("n", [4002, 1203])
def test_same_shape_temporaries_share_a_tiling_and_fuse(n):
    def prog(np):
        h = np.arange(float(n)) * 0.5
        a = h[1:] * 2.0
        b = h[:-1] * 3.0
        return (a - b) * h[1:]
    h = cupynum.arange(float(n)) * 0.5   # tiled once, outside the measured flush
    cupynum.sync()
    cupynum.reset_stats()
    a = h[1:] * 2.0
    b = h[:-1] * 3.0
    c = (a - b) * h[1:]
    del a, b
    cupynum.sync()
    s = cupynum.runtime_stats()
    check(c, prog(numpy))
    tiled = cupynum.runtime_info()["ranks"] > 1 and cupynum._core._tiling(h)["tiled"]
    if tiled:
        assert s["fused_runs_dist"] == 1 and s["fused_runs"] == 1, s
        assert s["bytes_sent"] <= 2 * 8, s   # a halo element to each neighbour at most


@pytest.mark.parametrize("rows,cols", [(300, 200), (301, 7), (40, 900), (60, 60)])
def test_reshapes_of_row_slabs_are_owner_computes(rows, cols):
    """A reshape that merges dimensions is a view through the root's flat alias; when the root
    lies in row slabs (each tile one range of its C-order elements) the alias is tiled by those
    ranges, so element-wise work through it sends nothing (it used to gather the whole array:
    640 KB per rank for this 480 KB array on 3 ranks).  Otherwise (a column split, a 2 x 2 grid)
    each rank receives its range of a flat copy from the tiles that hold it: at most its tile's
    bytes sent, not the whole array.  Reading a reversed ravel moves what changes owner.  Every
    rank compares with NumPy."""
    n = numpy.arange(rows * cols, dtype=numpy.float64).reshape(rows, cols) % 97
    c = cupynum.array(n)
    t = cupynum._core._tiling(c)
    slabs = not t["tiled"] or all(g == 1 for g in t["grid"][1:])
    tile = -(-n.nbytes // RANKS) + 8 * cols
    # (form, bytes a rank may send with row slabs, otherwise): a result of other rows is cut at
    # whole rows, so at most a row of it crosses each of the rank's two tile boundaries
    forms = [
        (lambda m: m.reshape(-1) * 2, 0, tile),
        (lambda m: m.flatten() + 1, 0, tile),
        (lambda m: m.ravel()[5:-5] * 3, 0, tile),
        (lambda m: m.reshape(cols, rows) + 0.5, 2 * rows * 8, 2 * tile + 2 * rows * 8),
        (lambda m: m.ravel().reshape(rows, cols) - 1, 0, 2 * tile),
    ]
    for f, bound, other in forms:
        cupynum.sync()
        before = cupynum.runtime_stats()["bytes_sent"]
        r = f(c)
        cupynum.sync()
        sent = cupynum.runtime_stats()["bytes_sent"] - before
        check(r, f(n))
        assert sent <= (bound if slabs else other)
    # writes through the alias, in place and shifted (the shifted read is buffered first)
    c.reshape(-1)[::7] = -1
    n.reshape(-1)[::7] = -1
    c.ravel()[:] = c.ravel() * 3
    n.ravel()[:] = n.ravel() * 3
    check(c, n)
    c.reshape(-1)[1:] = c.reshape(-1)[:-1]
    n.reshape(-1)[1:] = n.reshape(-1)[:-1]
    check(c, n)
    check(c.ravel()[::-1] + 0, n.ravel()[::-1] + 0)


@pytest.mark.parametrize("dtype", ["float64", "float32", "int64", "uint8", "bool", "complex128"])
@pytest.mark.parametrize("shape", [(997,), (61, 47), (9, 14, 11)])
def test_argmax_argmin_of_partitioned_arrays_are_owner_computes(dtype, shape):
    """argmax/argmin (and their nan- forms, ndarray methods, keepdims) of a partitioned array:
    NumPy's index -- first of ties, first NaN -- for axis None and each axis, with repeated
    values and NaNs.  Over the whole array a rank sends its reductions' partials and short index
    vectors (under 4 KiB a call, where the C kernel gathered the array); along an axis, the
    replicated result's partials: less than gathering the tiles."""
    size = int(numpy.prod(shape))
    base = (numpy.arange(size) * 7919 % 13).reshape(shape)   # ties everywhere
    if dtype == "bool":
        n = base > 6
    elif dtype == "complex128":
        n = (base - 6.0) + 1j * (base % 3)
    else:
        n = base.astype(dtype)
    if dtype in ("float64", "float32", "complex128"):
        flat = n.reshape(-1)
        flat[size // 3] = numpy.nan            # one lane's NaN comes first in its lane
        flat[size // 2] = numpy.nan
    c = cupynum.array(n)
    t = cupynum._core._tiling(c)
    tile = int(numpy.prod([h - l for l, h in zip(t["lo"], t["hi"])])) * n.itemsize
    for axis in [None] + list(range(len(shape))):
        cupynum.sync()
        cupynum.reset_stats()
        for f in ("argmax", "argmin"):
            check(getattr(cupynum, f)(c, axis=axis), getattr(numpy, f)(n, axis=axis))
            check(getattr(c, f)(axis=axis, keepdims=True), getattr(n, f)(axis=axis, keepdims=True))
        sent = cupynum.runtime_stats()["bytes_sent"]
        if RANKS > 1 and t["tiled"]:
            # along an axis: the replicated result's partials (the extreme, then the int64
            # index) to each other rank, which on small arrays outweighs a tile
            lanes = size // shape[axis] if axis is not None else 1
            bound = 4 * 4096 if axis is None else 4 * (RANKS - 1) * (tile + 3 * 8 * lanes)
            assert sent < bound, (axis, sent, tile)
    if dtype in ("float64", "float32") and len(shape) == 2:
        for f in ("nanargmax", "nanargmin"):
            check(getattr(cupynum, f)(c, axis=1), getattr(numpy, f)(n, axis=1))
            check(getattr(cupynum, f)(c), getattr(numpy, f)(n))


@pytest.mark.parametrize("dtype", ["float64", "float32", "int64", "complex128"])
@pytest.mark.parametrize("shape,axis", [((300, 2000), 0), ((2000, 300), 1), ((30, 70, 60), (0, 2)),
                                        ((9, 5), 0)])
@pytest.mark.parametrize("op", ["sum", "prod", "max"])
def test_replicated_axis_reduction_scatters_the_combining(dtype, shape, axis, op):
    """A reduction along axes whose (replicated) result is 8 KiB or more: on 3 or more ranks each
    rank combines one P-th of the positions' partials in rank order and the pieces are gathered,
    2 (P - 1) / P of the result per rank instead of every partial to every rank ((P - 1) of it).
    Values are NumPy's (exact data: quarter steps)."""
    if dtype == "complex128" and op == "max":
        pytest.skip("max of complex is NumPy's lexicographic order, not a combining reduction here")
    size = int(numpy.prod(shape))
    base = (numpy.arange(size) % 7).reshape(shape) * (0.25 if op != "prod" else 1.0) + (1 if op == "prod" else -0.75)
    if op == "prod":
        base = numpy.where(numpy.arange(size).reshape(shape) % 5 == 0, 2.0, 1.0)
    # complex products of non-real factors round by association order: real factors then
    n = base.astype(dtype) if dtype != "complex128" else base + (0.5j * (base > 1) if op != "prod" else 0j)
    c = cupynum.array(n)
    cupynum.sync()
    cupynum.reset_stats()
    r = getattr(c, op)(axis=axis)
    cupynum.sync()
    sent = cupynum.runtime_stats()["bytes_sent"]
    check(r, getattr(n, op)(axis=axis))
    out_bytes = getattr(n, op)(axis=axis).nbytes
    if RANKS >= 3 and cupynum._core._tiling(c)["tiled"] and out_bytes >= 8192:
        assert sent <= 2 * (RANKS - 1) / RANKS * out_bytes + 8 * RANKS + 64, (sent, out_bytes)


def test_replicated_axis_reduction_reports_overflow_on_every_rank():
    """An overflow raised while one rank combines its piece of the positions is every rank's:
    with errstate(over='raise') every rank raises, as NumPy does."""
    n = numpy.full((8 * max(RANKS, 1), 4096), 6e37, dtype=numpy.float32)
    c = cupynum.array(n)
    with numpy.errstate(over="raise"):
        with pytest.raises(FloatingPointError):
            n.sum(axis=0)
    with cupynum.errstate(over="raise"):
        with pytest.raises(FloatingPointError):
            r = c.sum(axis=0)
            cupynum.sync()
            float(r[0])


# The reductions, and the last one's input written all the same: np.sum lends its temporary to
# the flush only where the input's dtype is the accumulator's (an int32 sum accumulates int64).
_REDUCTIONS = [lambda np, x, y: np.sum(x * x), lambda np, x, y: np.sum(x * 2.0 - y),
               lambda np, x, y: np.sum((x > 0.25).astype(np.int64) * 3),
               lambda np, x, y: np.count_nonzero(x > y),
               lambda np, x, y: np.sum(x * (1 + 2j)),
               lambda np, x, y: np.sum((x > y).astype(np.int32) * 7)]


@pytest.mark.parametrize("shape,dtype", [((3,), "float64"), ((100_003,), "float64"),
                                         ((301, 407), "float32"), ((64, 3, 129), "float64")])
def test_closing_reductions_fuse_into_distributed_runs(shape, dtype):
    """np.sum(x * x) over a partitioned x: the product never written, each rank's partial computed
    in the run over its tile (the same tree as the unfused local reduction) and the partials
    combined in rank order: bitwise the unfused distributed result, NumPy's to rounding, a partial
    per rank sent and nothing of the size of x allocated."""
    rng = numpy.random.default_rng(sum(shape))
    xn = (rng.standard_normal(shape) * 20).astype(dtype)
    yn = rng.standard_normal(shape).astype(dtype)
    x, y = cupynum.array(xn), cupynum.array(yn)
    cupynum.sync()
    old = cupynum._core._set_fusion(False)
    try:
        unfused = [f(cupynum, x, y).item() for f in _REDUCTIONS]
    finally:
        cupynum._core._set_fusion(old)
    for k, f in enumerate(_REDUCTIONS):
        f(cupynum, x, y).item()   # the plans built: the steady state below
        cupynum.sync()
        s0 = cupynum.runtime_stats()
        r = f(cupynum, x, y)
        cupynum.sync()
        s1 = cupynum.runtime_stats()
        got = r.item()
        exp = f(numpy, xn, yn).item()
        assert type(got) is type(exp) and got == unfused[k], (k, got, unfused[k])
        if isinstance(exp, (int, numpy.integer)):
            assert got == exp, k
        else:
            # to rounding: NumPy's one tree against the ranks' partials (the summed terms'
            # magnitudes bounded by sum |x| max |x| + n)
            big = float(numpy.abs(xn).sum(dtype=numpy.float64) * numpy.abs(xn).max()) + xn.size
            assert abs(got - exp) <= (1e-4 if dtype == "float32" else 1e-12) * big, k
        if RANKS > 1 and cupynum._core._tiling(x)["tiled"]:
            assert s1["bytes_sent"] - s0["bytes_sent"] <= 64 * RANKS, (k, s1["bytes_sent"] - s0["bytes_sent"])
            if os.environ.get("CUPYNUM_DEVICE"):
                continue   # a device folds its reductions in its own order: they are not fused
            assert s1["fused_runs_dist"] - s0["fused_runs_dist"] >= 1, k
            tile = xn.size * xn.itemsize // RANKS
            if k < len(_REDUCTIONS) - 1:
                assert s1["bytes_allocated"] - s0["bytes_allocated"] < tile // 2 + 8192, (k, s1["bytes_allocated"] - s0["bytes_allocated"])


def test_fused_distributed_reduction_reports_overflow_on_every_rank():
    """An overflow in the product a fused distributed sum folds is every rank's, as unfused."""
    n = numpy.full(4096 * max(RANKS, 1), 3e20, dtype=numpy.float32)
    c = cupynum.array(n)
    with numpy.errstate(over="raise"):
        with pytest.raises(FloatingPointError):
            numpy.sum(n * n)
    with cupynum.errstate(over="raise"):
        with pytest.raises(FloatingPointError):
            float(cupynum.sum(c * c))
    with cupynum.errstate(over="ignore"):
        assert float(cupynum.sum(c * c)) == float(numpy.sum(n * n))


@pytest.mark.parametrize("dtype", [numpy.float64, numpy.float32, numpy.int64, numpy.complex128],
                         ids=lambda d: numpy.dtype(d).name)
@pytest.mark.parametrize("shape,axes", [((64, 9), (1,)), ((40, 6, 5), (1, 2)), ((40, 6, 5), (2,)),
                                        ((30, 7), (-1,))], ids=str)
def test_axis_reductions_no_tile_cuts_are_owner_computes(dtype, shape, axes):
    """A reduction along axes no rank tile cuts (x.sum(axis=1) of row slabs; k-means' distance
    matrix): the result is tiled like the input's kept rows and each rank reduces its own lanes
    into its own tile -- the same loop as one process, so NumPy's bits -- and no array data
    moves.  Then ops of the result with the input (x - x.max(axis=1, keepdims=True)) stay
    aligned."""
    n = sample(shape, dtype, seed=5)
    c = cupynum.array(n)
    cupynum.sync()
    before = cupynum.runtime_stats()["bytes_sent"]
    got = [c.sum(axis=axes), c.max(axis=axes), c.prod(axis=axes),
           cupynum.add.reduce(c, axis=axes, initial=3), c.prod(axis=axes, initial=3)]
    want = [n.sum(axis=axes), n.max(axis=axes), n.prod(axis=axes), numpy.add.reduce(n, axis=axes, initial=3),
            n.prod(axis=axes, initial=3)]
    shifted = c - c.max(axis=axes, keepdims=True)
    cupynum.sync()
    moved = cupynum.runtime_stats()["bytes_sent"] - before
    for g, w in zip(got, want):
        check(g, w)
    check(shifted, n - n.max(axis=axes, keepdims=True))
    t = cupynum._core._tiling(c)
    if t["tiled"] and all(t["grid"][d % len(shape)] == 1 for d in axes):
        assert moved <= 1024, moved
        assert cupynum._core._tiling(got[0])["tiled"]


@pytest.mark.parametrize("shape,axis", [((40000, 6), 1), ((20000, 3, 4), (1, 2))], ids=str)
def test_quantiles_along_axes_no_tile_cuts_are_owner_computes(shape, axis):
    """median/percentile along axes no rank tile cuts: each rank's own lanes into its own tile of
    a result tiled like the kept rows (the quantiles' axis whole in every tile): no bytes move
    once the result is large enough to be tiled (small results stay replicated)."""
    n = sample(shape, numpy.float64, seed=6)
    c = cupynum.array(n)
    cupynum.sync()
    for f in (lambda xp, a: xp.median(a, axis=axis), lambda xp, a: xp.percentile(a, [5, 50, 95], axis=axis),
              lambda xp, a: xp.quantile(a, 0.25, axis=axis, keepdims=True)):
        before = cupynum.runtime_stats()["bytes_sent"]
        r = f(cupynum, c)
        cupynum.sync()
        moved = cupynum.runtime_stats()["bytes_sent"] - before
        check(r, f(numpy, n))
        if cupynum._core._tiling(r)["tiled"]:
            assert moved <= 1024, moved
