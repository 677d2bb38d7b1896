"""Fusion in the executor: fused runs give bitwise the results of op-by-op execution (and NumPy's),
temporaries whose arrays died are never allocated, and fused programs are planned once.

Each test runs the same program with fusion on and off (`_core._set_fusion`) and compares both with
NumPy.  Counter assertions hold on one rank (or wherever stores are replicated); under mpirun with
tiled stores the distributed executor runs ops one at a time and only the results are checked."""

import gc

import numpy
import pytest

import cupynum
from cupynum import _core

from conftest import check

pytestmark = [pytest.mark.device, pytest.mark.gpu]


def one_rank():
    return cupynum.runtime_info()["ranks"] == 1


def both(f):
    """f(cupynum) with fusion on and off, as NumPy arrays; the setting is restored."""
    was = _core._set_fusion(False)
    try:
        off = f(cupynum)
        off = [numpy.asarray(r) for r in off] if isinstance(off, tuple) else numpy.asarray(off)
        _core._set_fusion(True)
        on = f(cupynum)
        on = [numpy.asarray(r) for r in on] if isinstance(on, tuple) else numpy.asarray(on)
    finally:
        _core._set_fusion(was)
    return on, off


def bitwise_equal(a, b):
    a, b = numpy.asarray(a), numpy.asarray(b)
    assert a.dtype == b.dtype and a.shape == b.shape
    assert a.tobytes() == b.tobytes()


def agrees(got, ref):
    """A result (as NumPy) equals NumPy's: same dtype and shape, equal values (NaNs alike)."""
    ref = numpy.asarray(ref)
    assert got.dtype == ref.dtype and got.shape == ref.shape
    numpy.testing.assert_array_equal(got, ref)


def chain(np, n=5000):
    a = np.arange(n, dtype=np.float64) * 1e-3
    b = (a * 1.5 + 2.0) * (a - 0.5) / (a + 3.0)
    return b


@pytest.mark.parametrize("n", [1, 7, 1023, 1025, 5000, 70001])
def test_chain_fused_equals_unfused_and_numpy(n):
    on, off = both(lambda np: chain(np, n))
    bitwise_equal(on, off)
    agrees(on, chain(numpy, n))


def test_chain_with_casts_broadcasts_and_scalars():
    def prog(np):
        a = np.arange(60, dtype=np.int32).reshape(3, 4, 5)
        row = np.arange(5, dtype=np.float32) * 0.5
        col = (np.arange(4, dtype=np.int16) - 2).reshape(4, 1)
        f = a.astype(np.float64) * 0.25 + row       # cast, broadcast of a row
        g = (f - col) * (f > 3.0)                     # broadcast of a column, bool operand
        h = np.sqrt(np.abs(g)).astype(np.float32) + np.float32(1.5)
        m = (a % 7 == 3) | (a > 50)
        return h, m, (a * 3 + 1) // 2
    on, off = both(prog)
    ref = prog(numpy)
    for x, y, r in zip(on, off, ref):
        bitwise_equal(x, y)
        agrees(x, r)


def stencil(np, n=37, iters=6):
    grid = np.zeros((n + 2, n + 2))
    grid[0, :] = 40.0
    grid[-1, :] = -273.15
    grid[:, 0] = 7.5
    center, north, south = grid[1:-1, 1:-1], grid[0:-2, 1:-1], grid[2:, 1:-1]
    east, west = grid[1:-1, 2:], grid[1:-1, 0:-2]
    for _ in range(iters):
        average = center + north + east + west + south
        average = 0.2 * average
        center[:] = average
    for _ in range(iters):   # the one-statement form: every temporary dead at the flush
        center[:] = 0.2 * (center + north + east + west + south)
    return grid


def test_stencil_aliasing_fused_equals_unfused_and_numpy():
    on, off = both(stencil)
    bitwise_equal(on, off)
    agrees(on, stencil(numpy))


def test_overlapping_assignment_in_a_chain():
    def prog(np):
        a = np.arange(40, dtype=np.float64)
        t = a * 2.0 + 1.0
        a[1:] = t[:-1] + a[:-1]          # reads a[:-1] while writing a[1:]
        b = a * 3.0
        a[:-1] = a[1:] - b[:-1]
        return a, b
    on, off = both(prog)
    for x, y, r in zip(on, off, prog(numpy)):
        bitwise_equal(x, y)
        agrees(x, r)


def test_in_place_updates_of_temporaries():
    def prog(np):
        a = np.arange(3000, dtype=np.float64)
        t = a * 0.5
        t += 3.0
        t *= a
        u = t - 1.0
        del t
        return u
    on, off = both(prog)
    bitwise_equal(on, off)
    agrees(on, prog(numpy))


def pi(np, n=30000):
    np.random.seed(11)
    x = np.random.uniform(size=n)
    y = np.random.uniform(size=n)
    inside = np.sum(x * x + y * y < 1.0)
    return x, y, np.asarray(inside)


def test_random_and_reduce_fused_equals_unfused_and_numpy():
    (x1, y1, s1), (x0, y0, s0) = both(pi)
    bitwise_equal(x1, x0)
    bitwise_equal(y1, y0)
    bitwise_equal(s1, s0)
    assert s1 == numpy.sum(x1 * x1 + y1 * y1 < 1.0)


@pytest.mark.parametrize("dtype", ["int8", "int64", "uint16", "bool"])
@pytest.mark.parametrize("red", ["sum", "prod", "max", "min"])
def test_integer_reductions_closing_a_run(dtype, red):
    def prog(np):
        a = np.arange(2000, dtype=np.int64) % 13
        b = (a * 3 + 1).astype(dtype)
        return np.asarray(getattr(np, red)(b))
    on, off = both(prog)
    bitwise_equal(on, off)
    agrees(on, prog(numpy))


@pytest.mark.parametrize("dtype", ["float32", "float64", "complex64", "complex128"])
@pytest.mark.parametrize("n", [1, 7, 128, 1000, 1024, 1025, 4099, 70001, 300007])
def test_float_sums_closing_a_run_are_the_unfused_pairwise_sums(dtype, n):
    """A float or complex sum closing a run folds the run's values in the unfused reduction's own
    pairwise tree (split over threads above the threshold as reduce.c splits): bitwise the
    unfused result, also when the run's space is 2-D and not coalesced (rows of a wider array)."""
    def prog(np):
        a = (np.arange(n, dtype=np.float64) * 0.61803398875) % 1.0 - 0.25
        b = (a * 1.5 + 0.125).astype(dtype)
        s1 = np.sum(b * b - a.astype(dtype))
        m = np.arange(3 * (n + 5), dtype=np.float64).reshape(3, n + 5) * 1e-3
        s2 = np.sum((m[:, 2:-3] * 0.5 + 1.0).astype(dtype))     # 3 rows of n: not coalesced
        s3 = np.mean(np.sqrt(np.abs(b)) + 1.0)
        return np.asarray(s1), np.asarray(s2), np.asarray(s3)
    on, off = both(prog)
    ref = prog(numpy)
    for x1, x0, r in zip(on, off, ref):
        bitwise_equal(x1, x0)
        numpy.testing.assert_allclose(x1, r, rtol=1e-5 if dtype in ("float32", "complex64") else 1e-12)


def test_float_sum_closing_a_run_reports_overflow_as_unfused():
    """The sum's own additions overflow: the warning (or error) of the unfused reduction."""
    def prog(np):
        a = np.ones(5000) * 1e305
        with np.errstate(over="raise"):
            try:
                np.sum(a * 100.0)
            except FloatingPointError as e:
                return str(e)
        return "no error"
    on, off = both(lambda np: numpy.array(prog(np)))
    assert str(on) == str(off) == prog(numpy), (on, off)


def test_errors_inside_a_run_are_raised_as_unfused():
    a = cupynum.arange(10)
    b = (a - 5) * 2
    rows = cupynum.empty((2, 10), dtype=a.dtype)
    rows[0] = a
    rows[1] = b
    c = cupynum.power.reduce(rows, axis=0)   # integers to negative powers: ValueError at the read
    d = c + 1
    with pytest.raises(ValueError, match="negative integer powers"):
        d.tolist()
    check(a, numpy.arange(10))


def test_temporaries_are_not_allocated():
    n = 200_000

    def prog(np):
        a = np.arange(n, dtype=np.float64)
        b = ((a * 2.0 + 1.0) * (a - 3.0) + a * a) / 7.0
        return float(b[n // 2])

    cupynum.sync()
    got = {}
    for on in (False, True):
        was = _core._set_fusion(on)
        try:
            cupynum.reset_stats()
            before = cupynum.runtime_stats()["bytes_allocated"]   # a running total
            r = prog(cupynum)
            cupynum.sync()
            s = cupynum.runtime_stats()
            s["bytes_allocated"] -= before
            got[on] = (r, s)
        finally:
            _core._set_fusion(was)
    assert got[True][0] == got[False][0] == prog(numpy)
    if one_rank():
        s_on, s_off = got[True][1], got[False][1]
        # a and b are written (both are Python arrays); the 5 temporaries in between are not
        assert s_on["bytes_allocated"] < 3 * n * 8 <= s_off["bytes_allocated"], (s_on, s_off)
        assert s_on["temporaries_elided"] >= 5
        assert s_on["bytes_peak"] < s_off["bytes_peak"]


def test_dead_results_are_not_computed():
    """Integer ops cannot report floating-point errors: a dead result is never computed."""
    a = cupynum.arange(100, dtype=cupynum.int64)
    cupynum.sync()
    cupynum.reset_stats()
    b = a
    for _ in range(50):
        b = a + 1
    check(b, numpy.arange(100) + 1)
    if one_rank():
        assert cupynum.runtime_stats()["ops_dropped"] >= 49


def test_dead_float_results_are_dropped_only_when_errors_are_ignored():
    """A dead float op still runs when its error mode could report (NumPy computed it and
    warned); under errstate(all='ignore') nothing can be observed, so it is dropped."""
    a = cupynum.zeros(100)
    cupynum.sync()
    with pytest.warns(RuntimeWarning, match="divide by zero encountered in divide"):
        with cupynum.errstate(divide="warn", invalid="ignore"):
            1.0 / a   # dead at once: still computed, still warns
    cupynum.reset_stats()
    with cupynum.errstate(all="ignore"):
        b = a
        for _ in range(50):
            b = a + 1.0
        check(b, numpy.zeros(100) + 1.0)
    if one_rank():
        assert cupynum.runtime_stats()["ops_dropped"] >= 49


def test_second_iteration_plans_nothing():
    grid = cupynum.zeros((66, 66))
    grid[0, :] = 1.0
    center, north, south = grid[1:-1, 1:-1], grid[0:-2, 1:-1], grid[2:, 1:-1]
    east, west = grid[1:-1, 2:], grid[1:-1, 0:-2]
    ref = numpy.asarray(grid).copy()
    rc, rn, rs = ref[1:-1, 1:-1], ref[0:-2, 1:-1], ref[2:, 1:-1]
    re, rw = ref[1:-1, 2:], ref[1:-1, 0:-2]
    plans = []
    for _ in range(4):
        center[:] = 0.2 * (center + north + east + west + south)
        rc[:] = 0.2 * (rc + rn + re + rw + rs)
        cupynum.sync()
        s = cupynum.runtime_stats()
        plans.append((s["fusion_plans"], s["fusion_plan_hits"], s["plans_cached"]))
    check(grid, ref)
    assert plans[1][0] == plans[2][0] == plans[3][0]   # nothing new planned
    assert plans[1][2] == plans[2][2] == plans[3][2]
    if one_rank():
        assert plans[3][1] > plans[2][1] > plans[1][1]  # the cached program reused


def test_fusion_switch_round_trips():
    was = _core._set_fusion(False)
    assert _core._set_fusion(was) is False


def test_deferred_full_reduction_fuses_and_elides_dead_inputs():
    # The C side of a deferred 0-d reduction result (what np.sum may return once the Python
    # reductions keep 0-d results deferred): the reduction closes the run of its producers, and
    # draws whose arrays died before the read are never written.
    n = 100_003

    def draws():
        cupynum.random.seed(11)
        return cupynum.random.uniform(size=n), cupynum.random.uniform(size=n)

    x, y = draws()
    xn, yn = numpy.asarray(x), numpy.asarray(y)
    ref = numpy.sum(xn * xn + yn * yn < 1.0)
    del x, y
    cupynum.sync()
    got = {}
    for on in (False, True):
        was = _core._set_fusion(on)
        try:
            cupynum.reset_stats()
            x, y = draws()
            c = _core.reduce("add", x * x + y * y < 1.0, (0,), numpy.dtype(numpy.int64))
            del x, y
            assert c.ndim == 0
            got[on] = (numpy.asarray(c), cupynum.runtime_stats())
        finally:
            _core._set_fusion(was)
    bitwise_equal(got[True][0], got[False][0])
    agrees(got[True][0], ref)
    if one_rank():
        s_on, s_off = got[True][1], got[False][1]
        assert s_on["fused_runs"] == 1 and s_on["fused_ops"] == 7
        assert s_on["temporaries_elided"] >= 6          # x, y, the squares, their sum, the bool
        # peaks include whatever else is alive: compare the two runs (unfused holds x, y, x*x...)
        assert s_off["bytes_peak"] - s_on["bytes_peak"] > 2 * n * 8, (s_on, s_off)


def _pi_program(np, n):
    np.random.seed(7)
    x = np.random.uniform(size=n)
    y = np.random.uniform(size=n)
    inside = np.sum(x * x + y * y < 1.0)
    return x, y, inside


@pytest.mark.parametrize("n", [1, 1023, 100_003])
def test_pi_with_named_draws_writes_no_draw(n):
    """Virtual stores: x and y are alive when the sum flushes, yet neither is written; the run
    draws them into registers.  A later read of x materializes it with the same values."""
    cupynum.sync()
    was = _core._set_fusion(False)
    try:
        xo, yo, io = _pi_program(cupynum, n)
        io = int(io)
        xo_n, yo_n = numpy.asarray(xo), numpy.asarray(yo)
    finally:
        _core._set_fusion(was)
    del xo, yo
    gc.collect()
    cupynum.sync()
    cupynum.reset_stats()
    live0 = cupynum.runtime_stats()["bytes_live"]
    x, y, inside = _pi_program(cupynum, n)
    st = cupynum.runtime_stats()
    assert int(inside) == io == int(numpy.sum(xo_n * xo_n + yo_n * yo_n < 1.0))
    if one_rank():
        assert st["stores_virtual"] == 2 and st["virtual_materialized"] == 0
        assert st["fused_runs"] == 1
        assert st["bytes_peak"] - live0 < n * 8 or n < 4096, st
    # reads through non-fused paths: a scalar and a few elements (computed where they are read,
    # x stays virtual), a strided view of the whole store, the NumPy conversion
    assert float(x[n // 2]) == xo_n[n // 2]
    assert float(x[-1]) == xo_n[-1]
    bitwise_equal(x[3:7], xo_n[3:7])
    if one_rank() and n >= 64:   # a read of an eighth of the store or more materializes it
        assert cupynum.runtime_stats()["virtual_materialized"] == 0
    bitwise_equal(x[::-3], xo_n[::-3])
    if one_rank():
        assert cupynum.runtime_stats()["virtual_materialized"] == 1
    bitwise_equal(y, yo_n)
    bitwise_equal(x, xo_n)


def test_virtual_store_written_after_generation():
    n = 5000
    cupynum.random.seed(3)
    a = cupynum.random.uniform(-1.0, 2.0, size=n)
    b = cupynum.arange(n, dtype=numpy.int32)
    s = int(cupynum.sum((a < 0.5) & (b % 3 == 0)))
    a_ref = numpy.asarray(a).copy()                 # materialized
    assert s == int(numpy.sum((a_ref < 0.5) & (numpy.arange(n, dtype=numpy.int32) % 3 == 0)))
    b[7] = -1                                       # a write into a virtual store
    ref = numpy.arange(n, dtype=numpy.int32)
    ref[7] = -1
    bitwise_equal(b, ref)
    cupynum.random.seed(3)
    c = cupynum.random.uniform(-1.0, 2.0, size=n)
    c[...] = 2.5                                    # overwritten whole: never generated
    bitwise_equal(c, numpy.full(n, 2.5))
    bitwise_equal(a, a_ref)


@pytest.mark.parametrize("kind", ["uniform", "normal", "arange_f", "arange_i"])
def test_virtual_stores_equal_materialized_streams(kind):
    """A store left virtual and read later gives bitwise the stream the unfused path writes."""
    n = 70_001

    def make(np):
        np.random.seed(123)
        if kind == "uniform":
            v = np.random.uniform(2.0, 5.0, size=n)
        elif kind == "normal":
            v = np.random.normal(1.0, 3.0, size=n)
        elif kind == "arange_f":
            v = np.arange(0.5, n * 0.25 + 0.5, 0.25)
        else:
            v = np.arange(-7, 3 * n - 7, 3)
        w = np.random.uniform(size=n)   # a second draw after it: stream counters advance alike
        total = np.sum(v * 2 < 4.0) + np.sum(w < 0.5)
        return v, w, int(total)

    was = _core._set_fusion(False)
    try:
        v0, w0, t0 = make(cupynum)
        v0, w0 = numpy.asarray(v0), numpy.asarray(w0)
    finally:
        _core._set_fusion(was)
    cupynum.sync()
    cupynum.reset_stats()
    v1, w1, t1 = make(cupynum)
    cupynum.sync()
    if one_rank():
        assert cupynum.runtime_stats()["stores_virtual"] == 2
    assert t1 == t0
    bitwise_equal(v1, v0)
    bitwise_equal(w1, w0)


def test_lone_draw_stays_virtual_until_read():
    n = 50_000
    gc.collect()
    cupynum.sync()
    cupynum.reset_stats()
    live0 = cupynum.runtime_stats()["bytes_live"]
    cupynum.random.seed(5)
    x = cupynum.random.uniform(size=n)
    cupynum.sync()
    st = cupynum.runtime_stats()
    if one_rank():
        assert st["stores_virtual"] == 1 and st["bytes_peak"] - live0 < n * 8, st
    was = _core._set_fusion(False)
    try:
        cupynum.random.seed(5)
        ref = numpy.asarray(cupynum.random.uniform(size=n))
    finally:
        _core._set_fusion(was)
    bitwise_equal(x, ref)


def test_virtual_stores_regenerated_by_later_runs():
    """Later flushes that read a virtual store in a fused run draw it again in registers: three
    reductions over named draws and an arange, nothing of size n written."""
    n = 200_003

    def prog(np):
        np.random.seed(9)
        x = np.random.uniform(size=n)
        y = np.random.normal(size=n)
        a = np.arange(n, dtype=np.float64)
        c1 = int(np.sum(x * x + y * y < 1.0))
        c2 = int(np.sum((x < 0.5) & (a > 10.0)))
        c3 = int(np.sum(x * 3.0 + a < 1000.0))
        c4 = int(np.sum(y > x))
        return x, y, a, (c1, c2, c3, c4)

    was = _core._set_fusion(False)
    try:
        x0, y0, a0, c0 = prog(cupynum)
        x0, y0, a0 = numpy.asarray(x0), numpy.asarray(y0), numpy.asarray(a0)
    finally:
        _core._set_fusion(was)
    assert c0 == (int(numpy.sum(x0 * x0 + y0 * y0 < 1.0)), int(numpy.sum((x0 < 0.5) & (a0 > 10.0))),
                  int(numpy.sum(x0 * 3.0 + a0 < 1000.0)), int(numpy.sum(y0 > x0)))
    gc.collect()
    cupynum.sync()
    cupynum.reset_stats()
    live0 = cupynum.runtime_stats()["bytes_live"]
    x, y, a, c = prog(cupynum)
    st = cupynum.runtime_stats()
    assert c == c0
    if one_rank():
        assert st["virtual_materialized"] == 0 and st["virtual_regenerated"] >= 5, st
        assert st["bytes_peak"] - live0 < n * 8, st
    bitwise_equal(y, y0)
    bitwise_equal(x, x0)
    bitwise_equal(a, a0)


def _cg(np, n, iters):
    x = np.zeros((n, n))
    r = np.ones((n, n))
    p = np.zeros((n + 2, n + 2))
    p[1:-1, 1:-1] = r
    rr = np.sum(r * r)
    for _ in range(iters):
        pc = p[1:-1, 1:-1]
        ap = 4.0 * pc - p[:-2, 1:-1] - p[2:, 1:-1] - p[1:-1, :-2] - p[1:-1, 2:]
        alpha = rr / np.sum(pc * ap)
        x += alpha * pc
        r -= alpha * ap
        rr_new = np.sum(r * r)
        p[1:-1, 1:-1] = r + (rr_new / rr) * pc
        rr = rr_new
    return float(np.sqrt(rr)), float(np.sum(x)), x


def test_cg_iteration_holds_no_spilled_temporary():
    """The p update fuses with the next iteration's `4.0 * pc`, which is then left to start the
    stencil's run (a register there) instead of being written: live arrays are x, r, p, ap and the
    product the float sum reads -- NumPy's five."""
    n = 400
    ref = _cg(numpy, n, 4)
    gc.collect()
    cupynum.sync()
    cupynum.reset_stats()
    live0 = cupynum.runtime_stats()["bytes_live"]
    got = _cg(cupynum, n, 4)
    st = cupynum.runtime_stats()
    assert got[0] == pytest.approx(ref[0], rel=1e-10) and got[1] == pytest.approx(ref[1], rel=1e-10)
    numpy.testing.assert_allclose(numpy.asarray(got[2]), ref[2], rtol=1e-10)
    was = _core._set_fusion(False)
    try:
        off = _cg(cupynum, n, 4)
    finally:
        _core._set_fusion(was)
    bitwise_equal(got[2], off[2])
    # (a device backend keeps host copies besides device buffers: the count is the host's)
    if one_rank() and cupynum.runtime_info()["backend"] == "cpu":
        assert st["bytes_peak"] - live0 <= 5 * (n + 2) ** 2 * 8 + (256 << 10), st


def philox_uniform(seed, stream, idx, lo, hi):
    """NumPy's evaluation of cupynum's uniform draw: Philox4x32-10 of counter (idx >> 1, stream)
    under key seed, words 0 and 1 (even idx) or 2 and 3 (odd idx) as 53 bits, lo + (hi - lo) * u."""
    M0, M1, W0, W1, mask = 0xD2511F53, 0xCD9E8D57, 0x9E3779B9, 0xBB67AE85, 0xFFFFFFFF
    u64 = numpy.uint64
    half = numpy.asarray(idx, dtype=u64) & u64(1)
    idx = numpy.asarray(idx, dtype=u64) >> u64(1)
    c0, c1 = idx & u64(mask), idx >> u64(32)
    c2 = numpy.full_like(idx, stream & mask)
    c3 = numpy.full_like(idx, stream >> 32)
    k0, k1 = seed & mask, seed >> 32
    for _ in range(10):
        p0, p1 = c0 * u64(M0), c2 * u64(M1)
        c0, c1, c2, c3 = ((p1 >> u64(32)) ^ c1 ^ u64(k0), p1 & u64(mask),
                          (p0 >> u64(32)) ^ c3 ^ u64(k1), p0 & u64(mask))
        k0, k1 = (k0 + W0) & mask, (k1 + W1) & mask
    a, b = numpy.where(half == 1, c2, c0), numpy.where(half == 1, c3, c1)
    u = ((a >> u64(5)).astype(numpy.float64) * 67108864.0
         + (b >> u64(6)).astype(numpy.float64)) / 9007199254740992.0
    return numpy.float64(lo) + numpy.float64(hi - lo) * u


@pytest.mark.parametrize("n", [1, 9, 1023, 4099, 70001])
@pytest.mark.parametrize("simd", [0, 1, 2])
def test_uniform_draws_are_philox_on_every_path(n, simd):
    # The AVX2 and AVX-512 paths (where the CPU has them) and the baseline loop all give NumPy's
    # evaluation of the same Philox function, bit for bit; also when fused with a consumer.
    seed = 2**40 + 5

    def prog(np):
        np.random.seed(seed)
        a = np.random.uniform(-1.5, 2.0, size=n)
        b = np.random.uniform(size=(3, n))[:, 1:]
        c = np.random.uniform(size=n) * 3.0
        return a, b, c

    was = _core._set_random_simd(simd)
    try:
        got = [numpy.asarray(r) for r in prog(cupynum)]
    finally:
        _core._set_random_simd(was)
    bitwise_equal(got[0], philox_uniform(seed, 1, numpy.arange(n), -1.5, 2.0))
    bitwise_equal(got[1], philox_uniform(seed, 2, numpy.arange(3 * n), 0.0, 1.0).reshape(3, n)[:, 1:])
    bitwise_equal(got[2], philox_uniform(seed, 3, numpy.arange(n), 0.0, 1.0) * 3.0)


def tiled(a):
    return cupynum.runtime_info()["ranks"] > 1 and a.size >= cupynum.runtime_info()["ranks"] * int(
        __import__("os").environ.get("CUPYNUM_MIN_TILE", "16384"))


def stencil_run(np, n, iters):
    grid = np.zeros((n + 2, n + 2))
    grid[0, :] = 40.0
    grid[-1, :] = -273.15
    grid[:, 0] = 3.0
    center, north, south = grid[1:-1, 1:-1], grid[0:-2, 1:-1], grid[2:, 1:-1]
    east, west = grid[1:-1, 2:], grid[1:-1, 0:-2]
    counts = []
    for _ in range(iters):
        center[:] = 0.2 * (center + north + east + west + south)
        if np is cupynum:
            cupynum.sync()
            s = cupynum.runtime_stats()
            counts.append((s["plans_cached"], s["fusion_plans"], s["fused_runs_dist"]))
    return grid, counts


@pytest.mark.parametrize("n", [5, 23, 64])
def test_stencil_fuses_over_tiles(n):
    # Under mpirun (tiled stores) the adds and the multiply are one run per rank, after the halo
    # exchanges of its inputs; bitwise the unfused result and NumPy's on every rank; the second
    # iteration plans nothing.
    was = _core._set_fusion(False)
    try:
        off, _ = stencil_run(cupynum, n, 4)
        off = numpy.asarray(off)
        _core._set_fusion(True)
        on, counts = stencil_run(cupynum, n, 4)
        on = numpy.asarray(on)
    finally:
        _core._set_fusion(was)
    ref, _ = stencil_run(numpy, n, 4)
    bitwise_equal(on, off)
    bitwise_equal(on, ref)
    assert counts[1][:2] == counts[2][:2] == counts[3][:2]
    if tiled(numpy.zeros((n, n))):
        assert counts[3][2] > counts[2][2] > counts[1][2] > 0


@pytest.mark.parametrize("case", range(5))
def test_tiled_runs_with_halos_casts_and_odd_views(case):
    # Element-wise chains over tiled stores whose inputs need remote pieces (shifts, reversed and
    # transposed views, broadcasts) and whose intermediates are cast: fused == unfused == NumPy.
    def prog(np):
        a = np.arange(30 * 31, dtype=np.float64).reshape(30, 31) * 0.25
        b = np.arange(30 * 31, dtype=np.int32).reshape(30, 31) % 7
        if case == 0:
            r = (a[1:, :-1] + a[:-1, 1:]) * 0.5 - b[1:, 1:]
        elif case == 1:
            r = (a[::-1, ::-1] * 2.0 + a).astype(np.float32) * np.float32(3.0)
        elif case == 2:
            s = a[:30, :30]
            r = (s.T + s) * (s.T - 1.0)
        elif case == 3:
            r = ((a + a[0]) * b).astype(np.int64) + (b * 3 + 1)
        else:
            c = a.copy()
            c[1:-1, 1:-1] = (a[2:, 1:-1] + a[:-2, 1:-1]) * (a[1:-1, 2:] - a[1:-1, :-2])
            r = c * 1.5
        return r
    on, off = both(prog)
    bitwise_equal(on, off)
    agrees(on, prog(numpy))


BAND_CASES = [
    # (destination, sources): assignments dst[:] = f(sources) that read the written store through
    # overlapping views; rows large enough for several bands
    ("g[1:-1, 1:-1]", ["g[1:-1, 1:-1]", "g[:-2, 1:-1]", "g[2:, 1:-1]", "g[1:-1, 2:]", "g[1:-1, :-2]"]),
    ("g[2:, 1:-1]", ["g[:-2, 1:-1]", "g[1:-1, 2:]"]),                 # reads rows above the write
    ("g[:-2, 1:-1]", ["g[2:, 1:-1]", "g[1:-1, :-2]"]),                # reads rows below
    ("g[-2:0:-1, 1:-1]", ["g[1:-1, 1:-1]", "g[:-2, 1:-1]"]),          # reversed write: whole temporary
    ("g[1:-1, 1:-1]", ["g[-2:0:-1, 1:-1]", "g[1:-1, -2:0:-1]"]),      # reversed reads
    ("g[1:-1, 1:-1]", ["g[1:-1, 1:-1].T", "g[:-2, 1:-1]"]),           # transposed read
    ("g[1:-1, 1:-1].T", ["g[1:-1, 1:-1]", "g[2:, 1:-1]"]),            # transposed write
    ("g[10:, :]", ["g[:-10, :]", "g[5:-5, :]"]),                      # reach of several rows
    ("g[::2, 1:-1][1:]", ["g[1:-1:2, 1:-1]", "g[2::2, 1:-1]"]),       # stepped rows
    ("g[-2:0:-1, 1:-1]", ["g[-1:1:-1, 1:-1]", "g[-3::-1, 1:-1]"]),    # all reversed: bands again
    # forward reads at twice the write's pace (a band's first reader lies far behind it: the
    # bands run in order on one thread)
    ("g[:g.shape[0] // 2, :]", ["g[0:g.shape[0] // 2 * 2:2, :]", "g[1:g.shape[0] // 2 * 2:2, :]"]),
]


@pytest.mark.parametrize("case", range(len(BAND_CASES)))
@pytest.mark.parametrize("rows", [40, 1201])
def test_overlapping_write_back_in_bands(case, rows):
    dst, srcs = BAND_CASES[case]
    cols = rows

    def prog(np):
        g = (np.arange(rows * cols, dtype=np.float64).reshape(rows, cols) % 97) * 0.5
        for _ in range(2):
            vals = [eval(s, {"g": g}) for s in srcs]
            acc = vals[0] * 1.0
            for v in vals[1:]:
                acc = acc + v * 0.25
            d = eval(dst, {"g": g})
            d[...] = acc * 0.5
        return g

    ref = prog(numpy)
    on, off = both(prog)
    bitwise_equal(on, off)
    bitwise_equal(on, ref)


def test_stencil_writes_back_in_bands_without_the_temporary():
    n = 1500

    def prog():
        grid = cupynum.zeros((n + 2, n + 2))
        grid[0, :] = 40.0
        ref = numpy.asarray(grid).copy()
        center, north, south = grid[1:-1, 1:-1], grid[0:-2, 1:-1], grid[2:, 1:-1]
        east, west = grid[1:-1, 2:], grid[1:-1, 0:-2]
        rc, rn, rs = ref[1:-1, 1:-1], ref[0:-2, 1:-1], ref[2:, 1:-1]
        re, rw = ref[1:-1, 2:], ref[1:-1, 0:-2]
        gc.collect()
        cupynum.sync()
        cupynum.reset_stats()
        for _ in range(3):
            center[:] = 0.2 * (center + north + east + west + south)
            rc[:] = 0.2 * (rc + rn + re + rw + rs)
        cupynum.sync()
        return numpy.asarray(grid), ref, cupynum.runtime_stats()

    was = _core._set_fusion(False)
    try:
        g_off, _, s_off = prog()
        _core._set_fusion(True)
        g_on, ref, s_on = prog()
    finally:
        _core._set_fusion(was)
    bitwise_equal(g_on, ref)
    bitwise_equal(g_on, g_off)
    if one_rank() and cupynum.runtime_info()["backend"] == "cpu":   # a device never bands
        assert s_on["fused_runs_banded"] == 3
        # peaks include whatever else is alive: the unfused run also held the n*n product
        assert s_off["bytes_peak"] - s_on["bytes_peak"] > n * n * 8 / 2, (s_on, s_off)


@pytest.mark.parametrize("rows, cols", [(60, 20000), (203, 3001), (9, 70000)])
def test_banded_write_back_over_threads_with_bands_held_at_slab_edges(rows, cols):
    # Wide rows make bands of one or a few rows, so the run is cut into several slabs of bands
    # taken by different threads; the bands at a slab's edges are read by the neighbouring slab
    # and are written back only after every band is computed.
    def prog(np):
        g = (np.arange(rows * cols, dtype=np.float64).reshape(rows, cols) * 0.61803) % 1.0
        c, n, s = g[1:-1, 1:-1], g[:-2, 1:-1], g[2:, 1:-1]
        e, w = g[1:-1, 2:], g[1:-1, :-2]
        for _ in range(3):
            c[:] = 0.2 * (c + n + e + w + s)
        g[2:, :] = g[:-2, :] * 0.5 - g[1:-1, :]
        return g
    ref = prog(numpy)
    on, off = both(prog)
    bitwise_equal(on, off)
    bitwise_equal(on, ref)


def test_banded_write_back_casts_into_the_destination():
    # The copy after the run converts (float64 product into an int64 grid): the bands go through
    # the copy op's own loop.
    def prog(np, rows=900):
        g = np.arange(rows * 300, dtype=np.int64).reshape(rows, 300) % 1000
        for _ in range(3):
            g[1:-1, 1:-1] = g[:-2, 1:-1] * 0.5 + g[2:, 1:-1] * 0.25 + g[1:-1, 2:]
        return g
    on, off = both(prog)
    bitwise_equal(on, off)
    agrees(on, prog(numpy))


# `B[...] = f(...)`: f's last op writes B itself where that is safe (copies_elided counts it);
# where it is not, the copy runs.  Every case equals NumPy and the unfused path bit for bit.
COPY_CASES = {
    "jacobi": lambda np, A, B: B.__setitem__(slice(1, -1), 0.33333 * (A[:-2] + A[1:-1] + A[2:])),
    "same_view_read": lambda np, A, B: B.__setitem__(slice(1, -1), B[1:-1] * 2.0 + A[1:-1]),
    "shifted_self": lambda np, A, B: B.__setitem__(slice(1, None), B[:-1] * 0.5 + 1.0),
    "reversed_self": lambda np, A, B: B.__setitem__(slice(None), B[::-1] * 3.0 - A),
    "cast_into": lambda np, A, B: B.__setitem__(slice(None), (A * 4.0).astype(np.float32) + 1),
    "strided": lambda np, A, B: B.__setitem__(slice(None, len(A) // 2 * 2, 2),
                                              A[1::2][:len(A) // 2] - A[::2][:len(A) // 2]),
    "two_statements": lambda np, A, B: (B.__setitem__(slice(None), A * 2.0 + 1.0),
                                        A.__setitem__(slice(None), B * B - A)),
    "temp_read_twice": lambda np, A, B: B.__setitem__(slice(None), (lambda t: t * t)(A + 1.0)),
}
COPY_ELIDED = {"jacobi": 1, "same_view_read": 1, "shifted_self": 0, "reversed_self": 0,
               "cast_into": 0, "strided": 1, "two_statements": 2, "temp_read_twice": 1}


@pytest.mark.parametrize("case", sorted(COPY_CASES))
@pytest.mark.parametrize("n", [6, 1025, 5000])
def test_copy_into_a_view_is_written_by_the_op_before(case, n):
    def prog(np):
        A = np.arange(n, dtype=np.float64) * 0.25 - 3.0
        B = np.linspace(-1.0, 2.0, n)
        COPY_CASES[case](np, A, B)
        return A, B
    cupynum.sync()
    cupynum.reset_stats()
    on, off = both(prog)
    for got, unfused, ref in zip(on, off, prog(numpy)):
        bitwise_equal(got, unfused)
        agrees(got, ref)
    if one_rank():
        # both() ran the program twice; only the fused run elides copies
        assert cupynum.runtime_stats()["copies_elided"] == COPY_ELIDED[case], case


# A short innermost dimension (the 3 of an (n, n, 3) broadcast) is walked outermost by the fused
# driver and by lone element-wise loops; the values are NumPy's either way, fused or not, also
# in place and into strided views, and a floating-point finding is still reported.
@pytest.mark.parametrize("shape", [(300, 300, 3), (5, 70, 2), (3, 1, 200, 4), (64, 3), (2, 2, 2)])
def test_short_inner_dimension_walked_in_any_order(shape):
    def prog(np):
        pos = np.arange(shape[-2] * shape[-1], dtype=np.float64).reshape(shape[-2], shape[-1]) * 0.01
        d = pos[None, ...] - pos[..., None, :] if len(shape) == 3 else pos * 2.0 - 1.0
        r2 = d * d + 0.5
        e = np.zeros(d.shape)
        e[...] = np.sqrt(r2) * 3.0 - d
        e[..., ::2] += d[..., ::2] * 0.25           # in place, strided
        s = (d * d).sum(axis=-1)                     # a fold keeps its order
        return e, r2, s
    if len(shape) != 3:
        def prog(np, prog3=prog):   # noqa: F811  the same statements over the other shapes
            a = np.arange(int(numpy.prod(shape)), dtype=np.float64).reshape(shape) * 1e-3
            b = a[..., :1] * 2.0 + a            # a broadcast along the short dimension
            c = np.empty(shape)
            c[...] = b * b - a
            c[..., 1:] -= b[..., :-1]
            return c, b
    on, off = both(prog)
    for got, unfused, ref in zip(on, off, prog(numpy)):
        bitwise_equal(got, unfused)
        agrees(got, ref)


# Element-wise loops and fused runs walk their output's memory order (outermost first), whatever
# the index order.  The order cannot be seen in values; what this checks is that reordering keeps
# NumPy's results where order could matter: results laid out as transposed operands, writes into
# transposed, reversed and strided destinations, in place through a transposed view, and operands
# in another order than the output, fused or not, bit for bit.
@pytest.mark.parametrize("shape", [(8, 14, 14, 8), (3, 70, 5), (130, 2, 9)])
def test_loops_walk_the_output_memory_order(shape):
    def prog(np):
        x = np.arange(int(numpy.prod(shape)), dtype=np.float64).reshape(shape) * 0.37 - 40.0
        m = np.moveaxis(x, -1, 1)
        r = np.maximum(m, 0.0)                            # a result in x's memory order
        s = r * 2.0 - m                                   # fused over it
        t = np.empty(x.shape[::-1])
        t.T[...] = x * 0.5 + 1.0                          # into a transposed destination
        u = np.zeros(shape)
        u[..., ::-1] = np.sqrt(np.abs(x)) - x             # reversed destination
        v = np.zeros(x.shape[::-1])
        np.add(x.T, t, out=v)                             # two orders, out=
        w = x.copy()
        w.T[...] += t                                     # in place through a transposed view
        return r, s, t, u, v, w
    on, off = both(prog)
    for got, unfused, ref in zip(on, off, prog(numpy)):
        bitwise_equal(got, unfused)
        bitwise_equal(got, ref)


def test_short_inner_dimension_reports_floating_point_findings():
    big = cupynum.full((100, 3), 1e308)
    with pytest.warns(RuntimeWarning, match="overflow encountered in multiply"):
        r = big * cupynum.arange(3.0)[None, :] * 10.0
        cupynum.sync()
    with numpy.errstate(over="ignore"):
        agrees(numpy.asarray(r), numpy.full((100, 3), 1e308) * numpy.arange(3.0)[None, :] * 10.0)


# Short rows that cannot be reordered (every dimension under 4x the innermost one) are grouped
# into tasks of a block's worth of rows (kernels/fused.c group_rows): the outer index carries over
# several dimensions inside a task, the last task is partial, registers hold the rows one after
# another; values and in-place updates are NumPy's, and a finding names the op that raised it.
@pytest.mark.parametrize("shape", [(3, 50, 7, 8), (2, 9, 5), (129, 8), (1000, 3), (4, 2, 600)])
def test_short_rows_grouped_into_tasks(shape):
    def prog(np):
        n = int(numpy.prod(shape))
        a = (np.arange(n, dtype=np.float64) * 1e-3).reshape(shape[::-1]).T   # strided rows
        b = np.arange(n, dtype=np.float32).reshape(shape) * 0.5
        c = np.maximum(a * 2.0 - b, 0.25) + a
        d = np.empty(shape)
        d[...] = c * c - b
        d[..., ::2] += c[..., ::2] * 0.5      # in place, strided
        e = (c * 3).astype(np.int32) + np.arange(shape[-1], dtype=np.int32)
        return c, d, e
    on, off = both(prog)
    for got, unfused, ref in zip(on, off, prog(numpy)):
        bitwise_equal(got, unfused)
        agrees(got, ref)


@pytest.mark.parametrize("dtype", ["float64", "float16"])
@pytest.mark.parametrize("op", ["multiply", "add"])
def test_grouped_short_rows_report_the_op_that_raised(op, dtype):
    """One element of one row late in a group overflows, in the second instruction or the third
    (float16: the flags its conversions raise are read too)."""
    big = numpy.finfo(dtype).max
    def prog(np):
        a = (np.arange(6000, dtype=dtype) * np.asarray(1e-3, dtype)).reshape(8, 10, 25, 3).T
        a[2, 20, 5, 3] = big      # (3, 25, 10, 8): rows of 8, none long enough to go innermost
        t = a - np.asarray(1.0, dtype)
        r = t * np.asarray(10.0, dtype) if op == "multiply" else t + np.asarray(big * 0.9, dtype)
        return r * np.asarray(0.5, dtype) + a
    with numpy.errstate(over="warn"):
        with pytest.warns(RuntimeWarning, match=f"overflow encountered in {op}"):
            got = prog(cupynum)
            cupynum.sync()
        with pytest.warns(RuntimeWarning, match=f"overflow encountered in {op}"):
            ref = prog(numpy)
    agrees(numpy.asarray(got), ref)


def test_run_whose_first_op_conflicts_with_itself():
    """A flush whose first op reads its own output reversed (`a[...] = a[::-1]`) has no run to
    fuse: the planner must not look at the op before it (there is none at the queue's start)."""
    for n in (5, 64, 3000):
        x = numpy.arange(3 * n, dtype=numpy.float32).reshape(3, n)
        c = cupynum.array(x)
        cupynum.sync()
        c[...] = c[::-1]
        c[...] = c[::-1]
        d = cupynum.cos(c)
        d[::3, ::1] = c[:1]
        x[...] = x[::-1]
        x[...] = x[::-1]
        e = numpy.cos(x)
        e[::3, ::1] = x[:1]
        check(d.astype(numpy.int16), e.astype(numpy.int16))
        check(c, x)


@pytest.mark.parametrize("n", [1000, 100_003])
def test_lone_reduction_of_a_virtual_store_regenerates_it(n):
    """x = draw (named, so alive), x[-1], then x.sum() / x.mean() / np.sum(arange): each reduction
    is a one-op run that regenerates the values into registers; the store is never written, and
    the results are bitwise those of the materialized store (arange: NumPy's)."""
    cupynum.sync()
    g = cupynum.random.default_rng(11)
    x = g.random(size=n)
    a = cupynum.arange(n, dtype=cupynum.int64)
    cupynum.sync()
    cupynum.reset_stats()
    last = float(x[-1])
    s, m = float(x.sum()), float(x.mean())
    t = int(cupynum.sum(a))
    st = cupynum.runtime_stats()
    if one_rank() and cupynum.runtime_info()["backend"] == "cpu":   # the device sums floats apart
        assert st["virtual_materialized"] == 0 and st["virtual_regenerated"] >= 3, st
    assert t == int(numpy.sum(numpy.arange(n, dtype=numpy.int64)))
    xn = numpy.asarray(x)                         # materialized now
    assert last == xn[-1]
    if cupynum.runtime_info()["backend"] == "cuda":
        # CUB sums the device store in its own order, the host copy's sum is the host's tree
        assert s == pytest.approx(float(numpy.asarray(cupynum.asarray(xn).sum())), rel=1e-13)
        assert m == pytest.approx(float(numpy.asarray(cupynum.asarray(xn).mean())), rel=1e-13)
    else:
        assert s == float(numpy.asarray(cupynum.asarray(xn).sum()))
        assert m == float(numpy.asarray(cupynum.asarray(xn).mean()))


def test_a_run_beyond_a_device_kernel_is_cut_into_kernels():
    """A device kernel binds at most 32 operands and 32 scalars (cuda/devargs.h): a longer run
    becomes several kernels on the device (fused_runs_cut), not one evaluation on the host over
    data copied off the device; the values are NumPy's bit for bit."""
    x = numpy.linspace(0.1, 2.0, 10007)

    def prog(np, a):
        y = a
        for k in range(40):   # 80 scalars, 2 operands per op
            y = y * 1.0001 + (k * 0.01)
        return y

    a = cupynum.array(x)
    a += 0.0                  # resident where the ops run
    cupynum.sync()
    cupynum.reset_stats()
    got = prog(cupynum, a)
    cupynum.sync()
    st = cupynum.runtime_stats()
    if cupynum.runtime_info()["backend"] != "cpu":
        assert st["fused_runs_cut"] >= 1, st
        assert st["bytes_to_host"] == 0 and st["bytes_to_device"] == 0, st
    else:
        assert st["fused_runs_cut"] == 0, st
    bitwise_equal(numpy.asarray(got), prog(numpy, x))


@pytest.mark.parametrize("dtype", ["float64", "float32", "int64", "int32"])
def test_full_reduction_of_an_expression_never_writes_the_temporary(dtype):
    """`np.sum(x * x)` returns a NumPy scalar, so it flushes inside the call while the temporary is
    still the call's argument; the argument is lent to the flush (fastpath.c) and the product is
    never written: the allocation is the scalar's, and the values are NumPy's bit for bit.  A
    named array is written as ever, and keeps its values."""
    xn = (numpy.arange(300 * 200) % 97 - 40).astype(dtype).reshape(300, 200)
    x = cupynum.array(xn)
    cupynum.sync()
    fns = [("sum", lambda np, a: np.sum(a * a)), ("sum2", lambda np, a: np.sum(a * 3 + a)),
           ("max", lambda np, a: np.max(a - 7)), ("min", lambda np, a: np.min(a * a - a)),
           ("prod", lambda np, a: np.prod(a[:3, :5] * 0 + 1))]
    for name, f in fns:
        f(cupynum, x)         # the kernels' scratch grown
        cupynum.sync()
        gc.collect()
        before = cupynum.runtime_stats()["bytes_allocated"]
        got = f(cupynum, x)
        grew = cupynum.runtime_stats()["bytes_allocated"] - before
        want = f(numpy, xn)
        assert type(got) is type(want), (name, got, want)
        if one_rank() or dtype.startswith("int") or name in ("max", "min"):
            assert got == want, (name, got, want)
        else:   # the ranks' partial sums are combined in rank order, not NumPy's tree
            assert got == pytest.approx(want, rel=1e-5), (name, got, want)
        # float max/min are not fused into a run; an int32 sum or product accumulates in int64
        fused = (dtype.startswith("int") or name.startswith("sum")) and not (
            dtype == "int32" and name in ("sum", "sum2", "prod"))
        if fused and one_rank() and cupynum.runtime_info()["backend"] == "cpu":
            assert grew <= 1024, (name, grew)
    # named, pending when summed: written, and readable after
    t = x * x
    s = cupynum.sum(t)
    assert s == pytest.approx(numpy.sum(xn * xn), rel=1e-5)
    bitwise_equal(numpy.asarray(t), xn * xn)
    # held by a container, or passed on by C code (map): written too
    held = [x + 1]
    assert cupynum.sum(held[0]) == pytest.approx(numpy.sum(xn + 1), rel=1e-5)
    bitwise_equal(numpy.asarray(held[0]), xn + 1)
    mapped = [x - 1, x - 2]
    assert list(map(cupynum.sum, mapped)) == pytest.approx([numpy.sum(xn - 1), numpy.sum(xn - 2)], rel=1e-5)
    bitwise_equal(numpy.asarray(mapped[1]), xn - 2)


def test_a_tracer_at_import_does_not_make_named_arrays_look_temporary():
    """Imported under a tracer that reads frame.f_locals (a debugger), the temporaries' reference
    count measured at import is one too many; lending is then off, so a named pending array that
    np.sum reads is still written (cupynum/__init__.py's _measure_temporaries)."""
    if not one_rank():
        pytest.skip("a fresh interpreter of its own: one process")
    import subprocess
    import sys
    code = (
        "import sys, numpy\n"
        "def tracer(frame, event, arg):\n"
        "    if event == 'call':\n"
        "        frame.f_locals\n"
        "    return None\n"
        "sys.settrace(tracer)\n"
        "import cupynum as cp\n"
        "sys.settrace(None)\n"
        "xn = numpy.arange(100000, dtype=numpy.float64)\n"
        "x = cp.array(xn); cp.sync()\n"
        "y = x * x\n"
        "s = cp.sum(y)\n"
        "assert s == numpy.sum(xn * xn), s\n"
        "assert numpy.array_equal(numpy.asarray(y), xn * xn), numpy.asarray(y)[:5]\n"
        "print('ok')\n")
    import os
    env = {k: v for k, v in os.environ.items() if not k.startswith(("OMPI_", "PMIX_", "PMI_"))}
    r = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=120, env=env)
    assert r.returncode == 0 and r.stdout.strip() == "ok", (r.stdout, r.stderr[-2000:])
