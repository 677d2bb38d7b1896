"""The runtime's Python surface: runtime_info, sync, runtime_stats/reset_stats, deferred
execution, cupynum.testing."""

import os

import numpy
import pytest

import cupynum
from conftest import both, check


def test_runtime_info_keys_and_types():
    info = cupynum.runtime_info()
    assert isinstance(info, dict)
    expected = {"rank": int, "ranks": int, "threads": int, "mpi_running": bool, "mpi_built": bool, "cuda_built": bool,
                "backend": str}
    for key, typ in expected.items():
        assert key in info, key
        assert type(info[key]) is typ, (key, type(info[key]))
    assert 0 <= info["rank"] < info["ranks"]
    assert info["threads"] >= 1
    assert info["backend"] in ("cpu", "cuda", "sim")   # sim: CUPYNUM_DEVICE=sim, the simulated device
    if not info["cuda_built"]:
        assert info["backend"] != "cuda"


def test_runtime_info_ranks_match_the_launcher():
    info = cupynum.runtime_info()
    launched = os.environ.get("OMPI_COMM_WORLD_SIZE") or os.environ.get("PMI_SIZE")
    if launched:
        assert info["mpi_running"] and info["mpi_built"] and info["ranks"] == int(launched)
        assert info["rank"] == int(os.environ.get("OMPI_COMM_WORLD_RANK", os.environ.get("PMI_RANK", -1)))
    else:
        assert info["rank"] == 0 and info["ranks"] == 1


def test_sync_returns_none_and_is_idempotent():
    a = cupynum.arange(10) * 3
    assert cupynum.sync() is None
    assert cupynum.sync() is None
    check(a, numpy.arange(10) * 3)


STAT_KEYS = ["ops_executed", "flushes", "queued", "bytes_allocated", "bytes_live", "stores_live"]


def test_runtime_stats_and_reset():
    cupynum.sync()
    cupynum.reset_stats()
    s0 = cupynum.runtime_stats()
    assert isinstance(s0, dict)
    for k in STAT_KEYS:
        assert k in s0 and isinstance(s0[k], int) and s0[k] >= 0, k
    assert s0["ops_executed"] == 0 and s0["flushes"] == 0 and s0["queued"] == 0
    a = cupynum.ones(1000)
    b = a + 1
    c = b * 2
    cupynum.sync()
    s1 = cupynum.runtime_stats()
    assert s1["ops_executed"] >= 2
    assert s1["flushes"] >= 1
    assert s1["queued"] == 0
    cupynum.reset_stats()
    s2 = cupynum.runtime_stats()
    assert s2["ops_executed"] == 0 and s2["flushes"] == 0
    check(c, (numpy.ones(1000) + 1) * 2)


# Every key runtime_stats() returns (csrc/runtime/stats.h), by what reset_stats() does with it.
STAT_COUNTS = ["bytes_to_host", "bytes_to_device", "ops_executed", "flushes", "temporaries",
               "bytes_sent", "messages_sent", "plans_cached", "plan_hits", "fused_runs",
               "fused_ops", "temporaries_elided", "bytes_elided", "ops_dropped", "fusion_plans",
               "fusion_plan_hits", "fused_runs_dist", "fused_runs_banded", "fused_runs_cut", "stores_virtual",
               "virtual_materialized", "virtual_regenerated", "sorts_dist", "scans_dist", "copies_elided",
               "runs_alone", "runs_team", "bytes_streamed", "bytes_prefetched",
               "scatters_split"]
STAT_LEVELS = ["bytes_allocated", "bytes_live", "queued", "stores_live"]


def test_runtime_stats_every_key_and_what_reset_does():
    keep = cupynum.arange(5000.0) * 2   # a live store, so the levels are not all zero
    cupynum.sync()
    s = cupynum.runtime_stats()
    assert sorted(s) == sorted(STAT_COUNTS + STAT_LEVELS + ["bytes_peak"])
    assert all(type(v) is int and v >= 0 for v in s.values()), s
    assert s["ops_executed"] > 0 and s["stores_live"] > 0 and s["bytes_live"] > 0
    cupynum.reset_stats()
    r = cupynum.runtime_stats()
    assert all(r[k] == 0 for k in STAT_COUNTS), r
    assert all(r[k] == s[k] for k in STAT_LEVELS), (s, r)   # levels and the running total kept
    assert r["bytes_peak"] == r["bytes_live"]                # the high-water mark starts again
    check(keep, numpy.arange(5000.0) * 2)


def test_deferred_execution_queues_until_read():
    a = cupynum.arange(100.0)
    cupynum.sync()
    assert cupynum.runtime_stats()["queued"] == 0
    b = a + 1
    assert cupynum.runtime_stats()["queued"] > 0
    c = b * b
    q = cupynum.runtime_stats()["queued"]
    assert q >= 2
    cupynum.sync()
    assert cupynum.runtime_stats()["queued"] == 0
    n = numpy.arange(100.0)
    check(c, (n + 1) * (n + 1))


@pytest.mark.parametrize("read", [
    lambda x: repr(x), lambda x: x.tolist(), lambda x: numpy.asarray(x), lambda x: float(x[0]),
    lambda x: x.sum(), lambda x: x[3].item(), lambda x: bool(x[1] > 0),
], ids=["repr", "tolist", "asarray", "float", "sum", "item", "bool"])
def test_value_reads_flush_the_queue(read):
    a = cupynum.arange(10.0)
    cupynum.sync()
    b = a * 2 + 1
    assert cupynum.runtime_stats()["queued"] > 0
    read(b)
    assert cupynum.runtime_stats()["queued"] == 0


def test_queue_flushes_itself_when_long():
    a = cupynum.ones(10)
    cupynum.sync()
    for _ in range(2000):
        a += 1
    assert cupynum.runtime_stats()["queued"] < 2000
    check(a, numpy.full(10, 2001.0))


def test_deferred_writes_through_views_are_ordered():
    n, c = both(numpy.zeros((4, 4)))
    for k in range(5):
        n[k % 4] += k
        c[k % 4] += k
        n[:, k % 3] *= 2
        c[:, k % 3] *= 2
    check(c, n)


def test_temporaries_are_released():
    cupynum.sync()
    live0 = cupynum.runtime_stats()["stores_live"]
    for _ in range(50):
        a = cupynum.ones((100, 100))
        b = (a + 1) * 2 - a
        del a, b
    cupynum.sync()
    import gc
    gc.collect()
    assert cupynum.runtime_stats()["stores_live"] <= live0 + 5


@pytest.mark.parametrize("fn", ["assert_allclose", "assert_array_equal", "assert_array_almost_equal",
                                "assert_equal"])
def test_testing_functions_accept_cupynum_arrays(fn):
    n, c = both(numpy.arange(6.0).reshape(2, 3) / 7)
    f = getattr(cupynum.testing, fn)
    f(c, n)
    f(n, c)
    f(c, c)
    with pytest.raises(AssertionError):
        f(c + 1, n)


def test_testing_calling_assertions_pass_arrays_untouched():
    """assert_no_warnings(f, *args) calls f on the caller's arrays: in-place writes are seen."""
    n, c = both(numpy.array([1, 2, 3]))
    numpy.testing.assert_no_warnings(numpy.add, n, 1.1, out=n, casting="unsafe")
    cupynum.testing.assert_no_warnings(cupynum.add, c, 1.1, out=c, casting="unsafe")
    check(c, n)
    with pytest.raises(TypeError):
        cupynum.testing.assert_no_warnings(cupynum.add, c, 1.1, out=c)


def test_testing_assert_allclose_tolerance():
    n, c = both(numpy.linspace(0, 1, 11))
    cupynum.testing.assert_allclose(c * (1 + 1e-10), n, rtol=1e-9)
    with pytest.raises(AssertionError):
        cupynum.testing.assert_allclose(c * (1 + 1e-6), n, rtol=1e-9)


def test_threads_env_in_subprocess():
    """CUPYNUM_THREADS sets the reported thread count."""
    import subprocess
    import sys
    code = "import cupynum; print(cupynum.runtime_info()['threads'])"
    for t in ("1", "2"):
        env = dict(__import__("os").environ, CUPYNUM_THREADS=t)
        # A child of an MPI rank is a plain process: it must not inherit the launcher's variables.
        env = {k: v for k, v in env.items() if not k.startswith(("OMPI_", "PMIX_", "PMI_"))}
        out = subprocess.run([sys.executable, "-c", code], env=env, capture_output=True, text=True,
                             timeout=120, check=True)
        assert out.stdout.strip() == t



_PLACE = ("import os, cupynum; print(cupynum.runtime_info()['threads'], "
          "len(os.sched_getaffinity(0)), "
          "min(len(os.sched_getaffinity(int(t))) for t in os.listdir('/proc/self/task')))")


@pytest.mark.skipif(bool(os.environ.get("OMPI_COMM_WORLD_SIZE")) or not __import__("shutil").which("mpirun")
                    or not cupynum.runtime_info()["mpi_built"] or len(os.sched_getaffinity(0)) < 2,
                    reason="needs mpirun, an MPI build and two cores, from a plain process")
def test_one_rank_under_mpirun_takes_its_share_of_the_cores():
    """Open MPI binds a lone rank to one core; the rank widens its mask to its share of the node
    (the online CPUs), for every thread, and runs that many threads: 1 rank x 2 threads is not
    two threads on one core.  CUPYNUM_BIND=launcher keeps the launcher's binding."""
    import subprocess
    import sys
    env = {k: v for k, v in os.environ.items() if not k.startswith(("OMPI_", "PMIX_", "PMI_", "CUPYNUM_"))}
    env.update(OMPI_ALLOW_RUN_AS_ROOT="1", OMPI_ALLOW_RUN_AS_ROOT_CONFIRM="1")
    cmd = ["mpirun", "-np", "1", "--bind-to", "core", sys.executable, "-c", _PLACE]
    out = subprocess.run(cmd, env=env, capture_output=True, text=True, timeout=120, check=True)
    threads, mask, narrowest = map(int, out.stdout.split())
    cores = os.cpu_count()
    assert (threads, mask, narrowest) == (cores, cores, cores)
    out = subprocess.run(["mpirun", "-np", "1", "--bind-to", "core", "-x", "CUPYNUM_BIND", sys.executable,
                          "-c", _PLACE], env=dict(env, CUPYNUM_BIND="launcher"), capture_output=True,
                         text=True, timeout=120, check=True)
    assert list(map(int, out.stdout.split())) == [1, 1, 1]
    if __import__("shutil").which("taskset"):   # the job's CPUs are the launcher's: one here
        cpu = str(min(os.sched_getaffinity(0)))
        out = subprocess.run(["taskset", "-c", cpu] + cmd, env=env, capture_output=True, text=True,
                             timeout=120, check=True)
        assert list(map(int, out.stdout.split())) == [1, 1, 1]


@pytest.mark.skipif(bool(os.environ.get("OMPI_COMM_WORLD_SIZE")) or not __import__("shutil").which("taskset")
                    or len(os.sched_getaffinity(0)) < 2, reason="needs taskset and two cores")
def test_taskset_mask_sets_the_default_threads():
    """A plain process restricted to one CPU runs one thread by default."""
    import subprocess
    import sys
    env = {k: v for k, v in os.environ.items() if not k.startswith(("OMPI_", "PMIX_", "PMI_", "CUPYNUM_"))}
    cpu = str(min(os.sched_getaffinity(0)))
    out = subprocess.run(["taskset", "-c", cpu, sys.executable, "-c", _PLACE], env=env,
                         capture_output=True, text=True, timeout=120, check=True)
    assert list(map(int, out.stdout.split())) == [1, 1, 1]

# ---- deferred execution keeps NumPy's eager semantics ------------------------------------------

def test_read_then_write_hazard():
    """b = a + 1 is queued; a later write to a must not change b."""
    n, c = both(numpy.arange(6.0))
    bn, bc = n + 1, c + 1
    n[0] = 100
    c[0] = 100
    n[2:] *= -1
    c[2:] *= -1
    check(bc, bn)
    check(c, n)


def test_read_through_view_then_write_base():
    n, c = both(numpy.arange(12.0).reshape(3, 4))
    rn, rc = n[1:, ::2] * 2, c[1:, ::2] * 2
    n[:] = -1
    c[:] = -1
    check(rc, rn)


def test_copy_is_snapshot_under_deferral():
    n, c = both(numpy.arange(5))
    cn, cc = n.copy(), c.copy()
    an, ac = n.astype(numpy.float32), c.astype(numpy.float32)
    n += 10
    c += 10
    check(cc, cn)
    check(ac, an)
    check(c, n)


def test_write_after_write_order():
    n, c = both(numpy.zeros(8))
    for k, key in enumerate([slice(None), slice(2, 6), slice(None, None, 3), slice(5, None)]):
        n[key] = k + 1
        c[key] = k + 1
        n[key] += n[::-1][key]
        c[key] += c[::-1][key]
    check(c, n)


def test_reduction_snapshot_before_later_write():
    n, c = both(numpy.arange(10.0))
    sn, sc = n.sum(axis=0, keepdims=True), c.sum(axis=0, keepdims=True)
    n[:] = 0
    c[:] = 0
    check(sc, sn)


def test_long_dependency_chain():
    n, c = both(numpy.linspace(0, 1, 1000))
    for k in range(600):
        n = n * 0.999 + (k % 7) * 1e-3
        c = c * 0.999 + (k % 7) * 1e-3
    check(c, n)


_TEAM_CHILD = r"""
import json, numpy, cupynum
info = cupynum.runtime_info()
n = 100_000
a, b = cupynum.arange(float(n)) % 7.0, cupynum.zeros(n)
an, bn = numpy.arange(float(n)) % 7.0, numpy.zeros(n)
cupynum.sync()
cupynum.reset_stats()
for _ in range(20):
    b[1:-1] = 0.33333 * (a[:-2] + a[1:-1] + a[2:])
    a[1:-1] = 0.33333 * (b[:-2] + b[1:-1] + b[2:])
    bn[1:-1] = 0.33333 * (an[:-2] + an[1:-1] + an[2:])
    an[1:-1] = 0.33333 * (bn[:-2] + bn[1:-1] + bn[2:])
    assert float(a[n // 3]) == an[n // 3]   # a read each step: a flush, one run per statement
s = cupynum.runtime_stats()
assert numpy.asarray(a).tobytes() == an.tobytes() and numpy.asarray(b).tobytes() == bn.tobytes()
print(json.dumps([info["threads"], info["parallel_min"], s["runs_alone"], s["runs_team"]]))
"""


def test_team_choice_is_measured_and_results_do_not_depend_on_it():
    """Runs above the threshold are timed on the calling thread alone and on the team, both tried
    (the team first, twice, then the caller twice, then the slower one after 16 runs, the wait
    doubling while it confirms the choice), and
    the values are NumPy's whichever ran: a 1-D Jacobi step of 10^5 float64, 40 times -- in a
    fresh process (the measurements are per process: earlier tests' runs of the same size would
    have settled the choice and put off its next retry)."""
    import json
    import subprocess
    import sys
    env = {k: v for k, v in os.environ.items() if not k.startswith(("OMPI_", "PMIX_", "PMI_"))}
    r = subprocess.run([sys.executable, "-c", _TEAM_CHILD], env=env, capture_output=True, text=True,
                       timeout=300)
    assert r.returncode == 0, r.stderr[-3000:]
    threads, parallel_min, alone, team = json.loads(r.stdout.split("\n")[-2])
    s = {"runs_alone": alone, "runs_team": team}
    n = 100_000
    work = 4 * (n - 2)   # element-instructions of one statement's run
    if threads > 1 and work >= parallel_min:
        assert s["runs_alone"] >= 2 and s["runs_team"] >= 2, s
        assert s["runs_alone"] + s["runs_team"] >= 40, s
    else:
        assert s["runs_alone"] == 0 and s["runs_team"] == 0, s


def test_threaded_large_elementwise_bitwise():
    """Arrays large enough to be split across threads give NumPy's values bit for bit."""
    rng = numpy.random.default_rng(0)
    xn = rng.standard_normal((1000, 1001))
    yn = rng.standard_normal((1000, 1001))
    xc, yc = cupynum.array(xn), cupynum.array(yn)
    check(xc * yc + xc / (abs(yc) + 1) - 3.0, xn * yn + xn / (abs(yn) + 1) - 3.0)
    check(xc[:999:3, 1::2] - yc[1::3, 1::2][:, ::-1], xn[:999:3, 1::2] - yn[1::3, 1::2][:, ::-1])
    check(xc[:, :1000].T * yc[:, :1000], xn[:, :1000].T * yn[:, :1000])
    check(xc > yc, xn > yn)
    check(xc.max(axis=0), xn.max(axis=0))
    check(yc.min(axis=1), yn.min(axis=1))
    check(xc.sum(axis=1), xn.sum(axis=1), rtol=1e-12)
    check(xc.sum(), xn.sum(), rtol=1e-12)
    ic = (xc * 1000).astype(numpy.int64)
    inn = (xn * 1000).astype(numpy.int64)
    check(ic, inn)
    check(ic.sum(axis=0), inn.sum(axis=0))
    check(ic.sum(), inn.sum())


def test_large_outputs_stream_and_keep_numpys_values():
    """Outputs of cpn_kernel_stream_min() bytes (16 MiB) or more that no instruction of the run
    reads are written with streaming stores (`bytes_streamed`); an in-place update or a strided
    output is not.  Values are NumPy's bit for bit either way."""
    if cupynum.runtime_info()["ranks"] > 1 or os.environ.get("CUPYNUM_DEVICE") or "CUPYNUM_STREAM_MIN" in os.environ:
        pytest.skip("host stores of one process (tiles and device buffers are written elsewhere)")
    n = 2_200_003   # 17.6 MB of float64, an odd length (unaligned tail)
    an = numpy.arange(n, dtype=numpy.float64) * 0.5 - 7.0
    bn = numpy.sqrt(numpy.arange(n, dtype=numpy.float64))
    a, b = cupynum.asarray(an), cupynum.asarray(bn)
    cupynum.sync()

    def streamed(f):
        cupynum.sync()
        s0 = cupynum.runtime_stats()["bytes_streamed"]
        r = f()
        cupynum.sync()
        return r, cupynum.runtime_stats()["bytes_streamed"] - s0

    c, s = streamed(lambda: a + b)
    check(c, an + bn)
    assert s >= n * 8
    c, s = streamed(lambda: (a - 1.5) * 2.0 + b[::-1])
    check(c, (an - 1.5) * 2.0 + bn[::-1])
    assert s >= n * 8
    c, s = streamed(lambda: cupynum.arange(n, dtype=cupynum.int64) * 3)
    check(c, numpy.arange(n, dtype=numpy.int64) * 3)
    assert s >= n * 8
    c, s = streamed(lambda: (a * 3.0).astype(cupynum.complex128))
    check(c, (an * 3.0).astype(numpy.complex128))
    assert s >= n * 16
    d, dn = a.copy(), an.copy()
    _, s = streamed(lambda: d.__iadd__(b))
    dn += bn
    check(d, dn)
    assert s == 0
    def fused_in_place():   # two ops, one run, reading and writing d's bytes
        d[...] = d * 3.0 - b
        d[...] += 1.0
    _, s = streamed(fused_in_place)
    dn[...] = dn * 3.0 - bn
    dn += 1.0
    check(d, dn)
    assert s == 0
    e, en = cupynum.zeros(2 * n), numpy.zeros(2 * n)
    def strided():
        e[::2] = a + b
    _, s = streamed(strided)
    en[::2] = an + bn
    check(e, en)
    assert s == 0
    small, s = streamed(lambda: a[:1000] + b[:1000])
    check(small, an[:1000] + bn[:1000])
    assert s == 0


def test_large_fused_runs_prefetch_and_keep_numpys_values():
    """A fused run reading more than 4 MiB along rows of 2048 elements or more prefetches the next
    piece of each input while it computes the current one, in eighths (`bytes_prefetched`): the
    loops run on slices of the piece, forward or backward, whatever the element size; values are
    NumPy's bit for bit, and the mask assignment writes only the selected elements."""
    if cupynum.runtime_info()["ranks"] > 1 or os.environ.get("CUPYNUM_DEVICE"):
        pytest.skip("the host's fused driver over one process's buffers")
    rng = numpy.random.default_rng(7)
    n = 700_001   # 5.6 MB of float64, an odd length
    an = rng.standard_normal(n)
    bn = rng.standard_normal(n).astype(numpy.float32)
    a, b = cupynum.asarray(an), cupynum.asarray(bn)
    cupynum.sync()

    def prefetched(f):
        cupynum.sync()
        s0 = cupynum.runtime_stats()["bytes_prefetched"]
        r = f()
        cupynum.sync()
        return r, cupynum.runtime_stats()["bytes_prefetched"] - s0

    cases = [
        (lambda x, y: numpy.sqrt(numpy.abs(x * 0.5)) - y, "contiguous, float64 and float32"),
        (lambda x, y: x[::-1] * 2.0 + y[::-1], "reversed"),
        (lambda x, y: x[1::2] * 3.0 - y[1::2], "stride 2"),
        (lambda x, y: (x > 0.25) & (y[::-1] < 0.5), "to bool"),
        (lambda x, y: numpy.where(x > 0, x, y) * 1.5, "where"),
        (lambda x, y: (x * 1e3).astype(numpy.int8) + 1, "casts to a narrow integer"),
        (lambda x, y: (x + 1j * y) * (2 - 1j), "complex"),
    ]
    for f, what in cases:
        got, s = prefetched(lambda: f(a, b))
        check(got, f(an, bn))
        assert s > 0, what
    rows = a[: 350 * 2000].reshape(350, 2000)   # rows of 2000 (>= 2048 in the next case only)
    got, s = prefetched(lambda: rows[:, ::-1] * 2.0 + 1.0)
    check(got, an[: 350 * 2000].reshape(350, 2000)[:, ::-1] * 2.0 + 1.0)
    assert s == 0   # a piece ends every row: no next piece to read ahead
    wide = a[: 100 * 7000].reshape(100, 7000)
    got, s = prefetched(lambda: wide[:, 1:] * wide[:, :-1] - 1.0)
    wn = an[: 100 * 7000].reshape(100, 7000)
    check(got, wn[:, 1:] * wn[:, :-1] - 1.0)
    assert s > 0
    # the mask assignment: only the selected elements change
    d, dn = a.copy(), an.copy()
    _, s = prefetched(lambda: d.__setitem__(d > 1.5, 0.0))
    dn[dn > 1.5] = 0.0
    check(d, dn)
    assert s > 0
    # below the threshold: no prefetching
    small = a[:100_000]
    got, s = prefetched(lambda: small * 2.0 + 1.0)
    check(got, an[:100_000] * 2.0 + 1.0)
    assert s == 0


def test_rmw_probe_bad_arguments_and_times():
    """_core.rmw_probe (benchmarks/indexing.py's roofline): one wall time per run, on 1 and on 2
    threads; bad sizes are ValueError, nothing run."""
    from cupynum import _core
    for threads in (1, 2):
        ts = _core.rmw_probe(1 << 16, 1 << 12, threads, 3)
        assert len(ts) == 3 and all(isinstance(t, float) and 0 < t < 10 for t in ts)
    for bad in ((0, 10, 1, 1), (10, 0, 1, 1), (10, 10, 0, 1), (10, 10, 65, 1), (10, 10, 1, 0),
                (10, 10, 1, 1001)):
        with pytest.raises(ValueError):
            _core.rmw_probe(*bad)
