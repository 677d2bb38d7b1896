"""Reliability (issue #22): no crash, no hang, no state left behind, under mpirun too.

Run on one rank and under `mpirun -np 2, 3, 4` with CUPYNUM_MIN_TILE=1 (every array partitioned);
every case compares with NumPy on the same data.

The first part is a generator of writes through reshaped arrays: a reshape that merges dimensions
(a view of the store's flat alias) or splits one, written in place or through a view that overlaps
what the op reads.  Under MPI these ops take the gathered path, whose local execution evaluated an
overlapping write into a temporary made with the default tiling: only this rank's tile was
allocated and the loop wrote the whole array into it (heap overflow)."""

import os
import random
import subprocess
import sys
import warnings

import numpy
import pytest

import cupynum
from conftest import check

RANKS = cupynum.runtime_info()["ranks"]

# (shape made, shape reshaped to): merges (flat alias), splits, both.
RESHAPES = [
    ((7, 3, 3), (63,)),
    ((63,), (7, 9)),
    ((891,), (33, 27)),
    ((33, 27), (891,)),
    ((7, 9), (21, 3)),
    ((5, 12), (3, 4, 5)),
    ((2, 3, 4), (4, 6)),
    ((24,), (2, 3, 4)),
    ((6, 5), (30,)),
]

DTYPES = [numpy.float64, numpy.int32, numpy.complex128]


def _rev_last(xp, b):
    b[..., ::-1] = b


def _rev_first(xp, b):
    b[::-1] = b


def _rev_all(xp, b):
    b[...] = b[tuple(slice(None, None, -1) for _ in range(b.ndim))]


def _shift_fwd(xp, b):
    b[1:] = b[:-1]


def _shift_back(xp, b):
    b[:-1] = b[1:]


def _shift_last(xp, b):
    b[..., 1:] = b[..., :-1]


def _iadd(xp, b):
    b += 1


def _imul_self(xp, b):
    b *= b


def _add_rev_out(xp, b):
    xp.add(b[::-1], b, out=b)


def _sub_rev_last_out(xp, b):
    xp.subtract(b, b[..., ::-1], out=b)


def _negative_out(xp, b):
    xp.negative(b, out=b)


def _cast_back(xp, b):
    b[...] = (b[::-1].real % 1000 * 2).astype(numpy.int16)


def _strided_step(xp, b):
    m = b.shape[0] // 2
    b[: 2 * m : 2] = b[1 : 2 * m : 2]


def _minus_mean(xp, b):
    b -= b.sum(axis=0)


def _cumsum_out(xp, b):
    xp.cumsum(b, axis=0, out=b)


def _sum_into_first(xp, b):
    xp.sum(b[::-1], axis=0, out=b[0])


def _max_into_last(xp, b):
    xp.max(b.real if b.dtype.kind == "c" else b, axis=0, out=b[-1].real if b.dtype.kind == "c" else b[-1])


WRITES = {f.__name__.lstrip("_"): f for f in (
    _rev_last, _rev_first, _rev_all, _shift_fwd, _shift_back, _shift_last, _iadd, _imul_self,
    _add_rev_out, _sub_rev_last_out, _negative_out, _cast_back, _strided_step, _minus_mean,
    _cumsum_out, _sum_into_first, _max_into_last)}


def _start(xp, shape, dtype):
    n = int(numpy.prod(shape))
    a = xp.arange(n * 1.0).astype(dtype).reshape(shape)
    if numpy.dtype(dtype).kind == "c":
        a = a - 1j * a
    return a


def _outcome(fn):
    try:
        fn()
    except Exception as e:  # noqa: BLE001  (NumPy's outcome is the oracle)
        return type(e)
    return None


@pytest.mark.parametrize("dtype", DTYPES, ids=lambda d: numpy.dtype(d).name)
@pytest.mark.parametrize("write", list(WRITES), ids=str)
@pytest.mark.parametrize("shapes", RESHAPES, ids=lambda s: "x".join(map(str, s[0])) + "-" + "x".join(map(str, s[1])))
def test_write_through_reshape_overlapping_what_it_reads(shapes, write, dtype):
    src, dst = shapes
    na, ca = _start(numpy, src, dtype), _start(cupynum, src, dtype)
    check(ca, na)
    nb, cb = na.reshape(dst), ca.reshape(dst)
    fn = WRITES[write]
    e = _outcome(lambda: fn(numpy, nb))
    if e is not None:
        with pytest.raises(e):
            fn(cupynum, cb)
    else:
        fn(cupynum, cb)
    check(cb, nb)
    check(ca, na)


def test_issue_reproducers():
    a = cupynum.ones((7, 3, 3))
    b = a.reshape(63)
    b += 1
    check(a, numpy.full((7, 3, 3), 2.0))
    x = cupynum.arange(33 * 27.0).reshape(33, 27)
    x[:, ::-1] = x
    y = numpy.arange(33 * 27.0).reshape(33, 27)
    y[:, ::-1] = y
    check(x, y)


def _views(xp, a, b, rng):
    """A random view of one of the two arrays sharing a store, the same for NumPy and cupynum."""
    base = a if rng.random() < 0.5 else b
    k = rng.randrange(5)
    if k == 0:
        return base
    if k == 1:
        return base[::-1]
    if k == 2:
        return base.reshape(-1)
    if k == 3:
        return base[1:] if base.shape[0] > 1 else base
    return base.reshape(-1)[::-1].reshape(base.shape)   # a copy (negative-stride reshape)


@pytest.mark.parametrize("seed", range(40))
def test_random_programs_of_writes_through_views_of_one_store(seed):
    """Random sequences of in-place and overlapping writes through views of views (reshapes,
    reversals, slices) of one store; ranks draw the same program from the seed."""
    rng = random.Random(seed)
    src, dst = RESHAPES[rng.randrange(len(RESHAPES))]
    dtype = DTYPES[rng.randrange(2)]
    arrays = {}
    for xp in (numpy, cupynum):
        r = random.Random(seed * 7919 + 1)
        a = _start(xp, src, dtype)
        b = a.reshape(dst)
        for _ in range(4):
            v = _views(xp, a, b, r)
            w = list(WRITES)[r.randrange(len(WRITES))]
            arrays.setdefault(xp.__name__, []).append(_outcome(lambda: WRITES[w](xp, v)))
        arrays[xp.__name__ + ".a"] = a
        arrays[xp.__name__ + ".b"] = b
    assert arrays["numpy"] == arrays["cupynum"]
    check(arrays["cupynum.a"], arrays["numpy.a"])
    check(arrays["cupynum.b"], arrays["numpy.b"])


# ---- a rank that leaves early ends the job (launched from a plain process) --------------------

LAUNCHED = any(k in os.environ for k in ("OMPI_COMM_WORLD_SIZE", "PMI_SIZE", "PMIX_RANK"))
needs_launcher = pytest.mark.skipif(
    LAUNCHED or not __import__("shutil").which("mpirun"),
    reason="launches its own mpirun job: runs from a plain (non-MPI) pytest process")


def _job(code, ranks, timeout=60):
    # the job's own settings only: CUPYNUM_OUTPUT and the like of the calling shell do not leak in
    env = {k: v for k, v in os.environ.items()
           if not k.startswith(("OMPI_", "PMIX_", "PMI_", "CUPYNUM_"))}
    env.update(OMPI_ALLOW_RUN_AS_ROOT="1", OMPI_ALLOW_RUN_AS_ROOT_CONFIRM="1", CUPYNUM_MIN_TILE="1")
    cmd = ["mpirun", "-np", str(ranks), "--oversubscribe", "--mca", "mpi_yield_when_idle", "1",
           "-x", "CUPYNUM_MIN_TILE", sys.executable, "-c", code]
    # a hang times out (TimeoutExpired fails the test) instead of blocking the suite
    return subprocess.run(cmd, env=env, capture_output=True, text=True, timeout=timeout)


_WORK = ("    a = np.arange(4000.0)\n"
         "    for i in range(20):\n"
         "        a = a[::-1] + 1\n"
         "    print(float(a.sum()))\n")


@needs_launcher
@pytest.mark.parametrize("ranks", [2, 4])
def test_sys_exit_nonzero_on_one_rank_aborts_the_job_with_its_status(ranks):
    code = ("import sys, cupynum as np\n"
            "if np.runtime_info()['rank'] == 1:\n"
            "    sys.exit(3)\n"
            "if True:\n" + _WORK)
    out = _job(code, ranks)
    assert out.returncode == 3, (out.returncode, out.stderr[-2000:])
    assert "rank 1 exits with status 3" in out.stderr


@needs_launcher
@pytest.mark.parametrize("ranks", [2, 3, 4])
def test_rank_returning_early_while_others_work_ends_the_job(ranks):
    code = ("import cupynum as np\n"
            "def main():\n"
            "    if np.runtime_info()['rank'] == 1:\n"
            "        return\n" + _WORK +
            "main()\n")
    out = _job(code, ranks)
    assert out.returncode != 0, out.stderr[-2000:]
    assert "rank 1 left the program" in out.stderr, out.stderr[-2000:]


@needs_launcher
@pytest.mark.parametrize("ranks", [2, 3])
def test_ranks_ending_at_different_times_end_normally(ranks):
    """Local work after the last collective (rank 0 sleeps, writes...) is not a rank leaving:
    the others wait for it at exit and the job ends with status 0; so does sys.exit(0)."""
    code = ("import sys, time, cupynum as np\n"
            "import numpy\n"
            "a = np.arange(4000.0)\n"
            "s = float((a[::-1] + 1).sum())\n"
            "assert s == float((numpy.arange(4000.0)[::-1] + 1).sum())\n"
            "if np.runtime_info()['rank'] == 0:\n"
            "    time.sleep(6)\n"
            "    print('<rank 0 late>', flush=True)\n"
            "sys.exit(0)\n")
    out = _job(code, ranks)
    assert out.returncode == 0, out.stderr[-2000:]
    assert "<rank 0 late>" in out.stdout


@needs_launcher
@pytest.mark.parametrize("ranks", [2, 3])
def test_stdout_from_rank_0_only_and_stderr_prefixed_by_rank(ranks):
    """A NumPy script prints once under mpirun: stdout of ranks other than 0 is discarded,
    stderr is every rank's, each line starting with its rank."""
    code = ("import sys, cupynum as np\n"
            "r = np.runtime_info()['rank']\n"
            "a = np.arange(5000.0)\n"
            "print('sum', float(a.sum()), flush=True)\n"
            "print(f'note from {r}\\nsecond line', file=sys.stderr, flush=True)\n")
    out = _job(code, ranks)
    assert out.returncode == 0, out.stderr[-2000:]
    assert out.stdout.splitlines() == [f"sum {float(numpy.arange(5000.0).sum())}"]
    err = out.stderr.splitlines()
    for r in range(ranks):
        assert f"[rank {r}] note from {r}" in err, err
        assert err.count(f"[rank {r}] second line") == 1, err


@needs_launcher
def test_cupynum_output_all_keeps_every_rank_stdout():
    code = ("import cupynum as np\n"
            "import sys\n"
            "sys.stdout.write(f\"rank {np.runtime_info()['rank']}\\n\"); sys.stdout.flush()\n")
    env_code = "import os; os.environ['CUPYNUM_OUTPUT'] = 'all'\n" + code
    out = _job(env_code, 3)
    assert out.returncode == 0, out.stderr[-2000:]
    assert sorted(out.stdout.splitlines()) == ["rank 0", "rank 1", "rank 2"]


# ---- a failed operation leaves nothing behind ----------------------------------------------

_FAILING = {
    "add": lambda xp, a, b: a + b,
    "add_out": lambda xp, a, b: xp.add(a, a, out=b),
    "setitem": lambda xp, a, b: a.__setitem__(Ellipsis, b),
    "setitem_slice": lambda xp, a, b: a.__setitem__((slice(1, None),), b),
    "where": lambda xp, a, b: xp.where(a > 0, a, b),
    "matmul": lambda xp, a, b: a.reshape(20, 6) @ b,
    "reshape": lambda xp, a, b: a.reshape(7, 7),
    "sum_out": lambda xp, a, b: xp.sum(a, axis=0, out=b),
    "mean_out": lambda xp, a, b: xp.mean(a, axis=1, out=b),
    "fancy": lambda xp, a, b: a.__setitem__(([0, 1],), b),
    "reshaped_iadd": lambda xp, a, b: a.reshape(-1).__iadd__(b),
    "cast_add": lambda xp, a, b: a.astype(numpy.int8) + b.astype(numpy.float32),
}


@pytest.mark.parametrize("name", list(_FAILING))
def test_failed_op_on_every_rank_leaves_no_state(name):
    """A broadcast (or shape) error raised at the call on every rank: the operands are unchanged
    and the arrays made afterwards, of any shape (zero-size too), read back right."""
    out = {}
    for xp in (numpy, cupynum):
        a = xp.arange(120.0).reshape(4, 5, 6)
        b = xp.ones((3, 5))
        with pytest.raises(ValueError):
            _FAILING[name](xp, a, b)
        later = [xp.zeros((2, 3, 4)) + 1, xp.zeros((0, 0, 0)), xp.arange(63.0).reshape(7, 3, 3),
                 a.reshape(-1)[::-1] * 2]
        out[xp] = [a, b] + later
    for c, n in zip(out[cupynum], out[numpy]):
        check(c, n)


# ---- silent wrong answers (#22): each compared with NumPy ---------------------------------------

def _same(fn):
    """fn(numpy) and fn(cupynum): the same exception type and message, or equal results."""
    res = []
    for xp in (numpy, cupynum):
        try:
            res.append(("ok", fn(xp)))
        except Exception as e:  # noqa: BLE001  (NumPy's outcome is the oracle)
            res.append(("err", type(e).__name__, str(e)))
    (kn, *n), (kc, *c) = res
    assert kn == kc, (res[0], res[1])
    if kn == "err":
        assert n == c
    else:
        r_c, r_n = c[0], n[0]
        check(r_c, r_n)


_RAVEL_VIEWS = {
    "reversed": lambda a: a[::-1],
    "step": lambda a: a[::2],
    "rows": lambda a: a.reshape(2, 6)[:1],
    "columns": lambda a: a.reshape(2, 6)[:, :3],
    "transposed": lambda a: a.reshape(3, 4).T,
    "reversed_2d": lambda a: a.reshape(3, 4)[:, ::-1],
    "slice": lambda a: a[3:7],
}


@pytest.mark.parametrize("order", ["C", "F", "A", "K"])
@pytest.mark.parametrize("view", list(_RAVEL_VIEWS))
def test_ravel_is_a_view_only_where_numpy_s_is(view, order):
    def fn(xp):
        a = xp.arange(12.0)
        r = _RAVEL_VIEWS[view](a).ravel(order=order)
        r[0] = 99.0
        return a, r
    _same(fn)


_REDUCE_OUT = [
    # (function, input, input dtype, axis, out dtype)
    ("prod", [[-7.189], [9.92]], numpy.float64, 0, numpy.int64),
    ("sum", [[1.7, 2.6], [3.5, -1.2]], numpy.float64, 0, numpy.int64),
    ("sum", [[100, 100], [100, 100]], numpy.int8, 0, numpy.int16),
    ("min", [6, 2**64 - 1, 7], numpy.uint64, None, numpy.int16),
    ("max", [6, 2**63 + 5, 7], numpy.uint64, None, numpy.int16),
    ("max", [[1.7, 2.6], [3.5, -1.2]], numpy.float64, 0, numpy.int64),
    ("mean", [[0.1, 0.7, 1e8 + 0.3], [3.3, 1e-3, 2.9]], numpy.float32, 1, numpy.float64),
    ("mean", [20, 40, 60, 120], numpy.int8, None, numpy.float32),
    ("mean", [numpy.inf, 1.0], numpy.float64, None, numpy.complex128),
    ("var", [[0.1, 0.7, 1e4 + 0.3], [3.3, 1e-3, 2.9]], numpy.float32, 1, numpy.float64),
    ("std", [[1, 5, 9], [2, 3, 100]], numpy.int64, 1, numpy.float32),
    ("sum", [[1 + 2j, 3.5 - 1j]], numpy.complex128, 1, numpy.float64),
]


@pytest.mark.parametrize("case", _REDUCE_OUT, ids=lambda c: f"{c[0]}-{numpy.dtype(c[2]).name}-{numpy.dtype(c[4]).name}")
def test_reduction_into_out_of_another_dtype_accumulates_as_numpy(case):
    """NumPy promotes (out, input, out) for the loop, then casts into out."""
    name, data, dt, axis, odt = case

    def fn(xp):
        a = xp.array(numpy.array(data, dtype=dt))
        shape = numpy.sum(numpy.zeros(numpy.shape(data)), axis=axis).shape
        o = xp.zeros(shape, dtype=odt)
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            r = getattr(xp, name)(a, axis=axis, out=o)
            if xp is cupynum:
                cupynum.sync()     # its floating-point reports (an invalid cast) land here too
        assert r is o
        return o
    _same(fn)


@pytest.mark.parametrize("dtype", [numpy.int8, numpy.int32, numpy.int64, numpy.uint16])
@pytest.mark.parametrize("name", ["std", "var"])
@pytest.mark.parametrize("axis", [None, 0])
def test_std_var_with_integer_dtype_return_that_dtype_or_raise(name, dtype, axis):
    _same(lambda xp: getattr(xp, name)(xp.arange(12.0).reshape(3, 4) * 1.5, axis=axis, dtype=dtype))


@pytest.mark.parametrize("args", [(-5, 5, 3, "u8"), (5, -5, -3, "u8"), (-1, 3, 1, "u1"),
                                  (0, 10, 300, "i1"), (0, 300, 100, "i1"), (-5.0, 5, 3, "u8"),
                                  (250, 260, 1, "u1"), (1, -1, -1, "u1")])
def test_arange_out_of_range_python_ints_as_numpy(args):
    _same(lambda xp: xp.arange(*args[:3], dtype=args[3]))


def _view_pairs(xp):
    a = xp.arange(24.0).reshape(4, 6)
    c = xp.arange(3, dtype=complex)
    return [(a, a[::2]), (a, a[1:]), (a[:2], a[2:]), (a[:, ::2], a[:, 1::2]), (a.reshape(-1), a),
            (a.T, a), (a[0], a[1]), (a, xp.arange(3.0)), (a[::-1], a[-1]), (c.real, c.imag),
            (c.real, c), (a[:0], a), (a.reshape(2, 12)[:, 5:7], a[1:, 0])]


@pytest.mark.parametrize("name", ["shares_memory", "may_share_memory"])
def test_shares_memory_of_views_of_one_store(name):
    n = [getattr(numpy, name)(x, y) for x, y in _view_pairs(numpy)]
    c = [getattr(cupynum, name)(x, y) for x, y in _view_pairs(cupynum)]
    assert c == n


def test_imag_of_a_real_array_is_read_only_zeros():
    def fn(xp):
        a = xp.arange(3.0)
        im = a.imag
        a.imag[0] = 1.0
        return a, im
    _same(fn)
    check(cupynum.arange(3.0).imag, numpy.arange(3.0).imag)


@pytest.mark.parametrize("value", [2**63 - 1, -2**63, 2**63, -2**63 - 1, 2**64, 2**70])
@pytest.mark.parametrize("name", ["logical_and", "logical_or", "logical_xor"])
@pytest.mark.parametrize("dtype", [numpy.int64, numpy.uint8, numpy.float64, numpy.bool_])
def test_logical_ops_with_python_ints_beyond_64_bits(name, value, dtype):
    _same(lambda xp: getattr(xp, name)(xp.arange(3).astype(dtype), value))


@pytest.mark.parametrize("initial", [-1, 256, 2**64, 3])
@pytest.mark.parametrize("name,dtype", [("sum", numpy.uint8), ("max", numpy.uint32),
                                        ("min", numpy.uint16), ("prod", numpy.uint64),
                                        ("max", numpy.int8)])
def test_initial_python_int_out_of_range_raises_as_numpy(name, dtype, initial):
    _same(lambda xp: getattr(xp, name)(xp.arange(1, 4, dtype=dtype), initial=initial))


# ---- errors at the call --------------------------------------------------------------------

@pytest.mark.parametrize("make", [
    lambda xp: xp.zeros((1, 2**35), dtype=numpy.complex128),
    lambda xp: xp.empty((2**20, 2**20)),
    lambda xp: xp.ones((2**40,), dtype=numpy.int8),
    lambda xp: xp.full((2**22, 2**22, 3), 1.5, dtype=numpy.float32),
], ids=["zeros", "empty", "ones", "full"])
def test_impossible_allocation_raises_memory_error_at_the_call(make):
    """Larger than any machine's memory: NumPy's MemoryError and message at the creation, not at
    the first use of a lazily allocated buffer."""
    with pytest.raises(MemoryError) as en:
        make(numpy)
    with pytest.raises(MemoryError) as ec:
        make(cupynum)
    assert str(ec.value) == str(en.value)
    check(cupynum.zeros(3) + 1, numpy.zeros(3) + 1)     # the runtime goes on


def test_failed_power_at_the_call_leaves_no_error_for_a_later_read():
    a = cupynum.arange(3)
    with pytest.raises(ValueError, match="Integers to negative integer powers are not allowed."):
        a ** cupynum.array([-3, 1, 2], dtype=numpy.int8)
    check(cupynum.power(a, cupynum.array([3, 1, 2], dtype=numpy.int8)).tolist(),
          numpy.power(numpy.arange(3), numpy.array([3, 1, 2], dtype=numpy.int8)).tolist())


def test_errstate_raise_comes_from_the_call():
    for xp in (numpy, cupynum):
        with xp.errstate(divide="raise"):
            with pytest.raises(FloatingPointError, match="divide by zero encountered in divide"):
                xp.arange(3.0) / 0


# ---- found by the differential fuzzer (tests/fuzz.py) ---------------------------------------

@pytest.mark.parametrize("make", [
    lambda xp, a: xp.ascontiguousarray(a[::-1]),
    lambda xp, a: xp.ascontiguousarray(a.T),
    lambda xp, a: xp.asfortranarray(a),
    lambda xp, a: xp.asarray(a[:, ::2], order="C"),
    lambda xp, a: xp.array(a.T, order="C"),
    lambda xp, a: xp.copy(a.T),
], ids=["asc-reversed", "asc-transposed", "asfortran", "asarray-C", "array-C", "copy-K"])
def test_layout_conversions_copy_when_the_layout_differs(make):
    """ascontiguousarray of a view that is not C-contiguous is a copy: a later write to the
    base does not show through it (it returned the view itself), and the flags are NumPy's."""
    out = {}
    for xp in (numpy, cupynum):
        a = xp.arange(12.0).reshape(3, 4)
        b = make(xp, a)
        a[...] = -1
        out[xp.__name__] = b
        assert xp.shares_memory(a, b) is False
    n, c = out["numpy"], out["cupynum"]
    check(c, n)
    assert (c.flags.c_contiguous, c.flags.f_contiguous) == (n.flags.c_contiguous, n.flags.f_contiguous)


def test_layout_conversions_return_the_array_when_it_has_the_layout():
    a = cupynum.arange(6.0).reshape(2, 3)
    assert cupynum.ascontiguousarray(a) is a
    assert cupynum.asfortranarray(a.T).base is a.T.base or cupynum.shares_memory(
        cupynum.asfortranarray(a.T), a)
    with pytest.raises(ValueError, match="Unable to avoid copy"):
        cupynum.asarray(a.T, order="C", copy=False)


@pytest.mark.parametrize("fill", [1j, numpy.uint8(200), 2.5, numpy.float64(-1.5), 300, -1, 2**70,
                                  [1, 2], numpy.nan])
@pytest.mark.parametrize("dtype", [numpy.int8, numpy.uint8, numpy.float32])
def test_full_casts_its_value_as_numpy(fill, dtype):
    """np.full copies the value with casting='unsafe': a NumPy integer wraps, a complex loses its
    imaginary part (ComplexWarning), an out-of-range Python int raises OverflowError."""
    results = []
    for xp in (numpy, cupynum):
        with warnings.catch_warnings(record=True) as w:
            warnings.simplefilter("always")
            try:
                results.append((xp.full((2, 2) if numpy.ndim(fill) == 0 else (3, 2), fill,
                                        dtype=dtype), None, [x.category for x in w]))
            except Exception as e:
                results.append((None, (type(e), str(e)), None))
    (n, ne, nw), (c, ce, cw) = results
    assert ce == ne
    if n is not None:
        check(c, n)
        assert cw == nw


@pytest.mark.parametrize("shape,axes", [((), (0, 0)), ((2, 3), (0, 0)), ((2, 3), (0,)),
                                        ((2, 3), (0, 2)), ((2, 3), (1, -2))])
def test_transpose_checks_in_numpys_order(shape, axes):
    outcome = []
    for xp in (numpy, cupynum):
        try:
            outcome.append(xp.zeros(shape).transpose(axes).shape)
        except Exception as e:
            outcome.append((type(e).__name__, str(e)))
    assert outcome[0] == outcome[1]


@pytest.mark.parametrize("dst,src", [((2, 3), (3, 5, 7)), ((4,), (2,)), ((1, 1), (2,)), ((), (3,))])
def test_assignment_broadcast_error_prints_shapes_as_numpy(dst, src):
    msgs = []
    for xp in (numpy, cupynum):
        a = xp.zeros(dst)
        with pytest.raises(ValueError) as e:
            a[...] = xp.ones(src)
        msgs.append(str(e.value))
    assert msgs[0] == msgs[1]


# ---- exception classes, messages and warnings as NumPy's ---------------------------------------

def _outcome_of(xp, make):
    """(result as a list or None, (exception type, message) or None, warning categories)."""
    with warnings.catch_warnings(record=True) as w:
        warnings.simplefilter("always")
        try:
            r = make(xp)
            return (None if r is None else repr(numpy.asarray(r).tolist()), None,
                    [x.category for x in w])
        except Exception as e:
            return (None, (type(e), str(e)), [x.category for x in w])


def _set(dtype, shape, index, value, readonly=False):
    def make(xp):
        x = xp.zeros(shape, dtype)
        if readonly:
            x.flags.writeable = False
        x[index] = value
        return x
    return make


EXCEPTION_CASES = {
    "0d-sequence": _set(float, (), (), [1, 2, 3]),
    "nd-sequence": _set(float, (3,), (), [1, 2, 3]),
    "complex-array-into-real": lambda xp: _set(float, (3,), slice(None),
                                               xp.array([1j, 2, 3]))(xp),
    "complex-scalar-into-real": _set(float, (3,), 1, 1 + 2j),
    "full_like-complex": lambda xp: xp.full_like(xp.arange(6.0).reshape(2, 3), 1 + 2j),
    "float-into-int": _set(int, (3,), 0, 1.7),
    "out-of-range-int": _set(numpy.uint8, (3,), 0, 300),
    "negative-into-uint": _set(numpy.uint8, (3,), 0, -1),
    "string-number": _set(float, (3,), 0, "1.5"),
    "bad-string": _set(float, (3,), 0, "abc"),
    "none-into-float": _set(float, (3,), 0, None),
    "none-into-int": _set(int, (3,), 0, None),
    "readonly-cast": _set(int, (4,), 0, "abc", readonly=True),
    "0d-mean-axis": lambda xp: xp.mean(xp.array(3.0), axis=0),
    "0d-astype-casting": lambda xp: xp.array(3.0).astype(numpy.int64, casting="same_kind"),
    "nd-astype-casting": lambda xp: xp.ones(3).astype(numpy.int64, casting="safe"),
    "readonly-before-index": _set(float, (4,), 10, 1, readonly=True),
    "readonly-fancy": _set(float, (4,), [1, 2], 1, readonly=True),
}
# one element from an array or a sequence: NumPy's conversion or its error, per dtype
for _dt in (float, int, complex, bool, numpy.float32, numpy.uint8):
    for _name, _value in (("size1", lambda xp: xp.ones(1)), ("size1-2d", lambda xp: xp.ones((1, 1))),
                          ("size3", lambda xp: xp.ones(3)), ("0d", lambda xp: xp.array(2.0)),
                          ("list1", lambda xp: [1]), ("nested1", lambda xp: [[1]]),
                          ("list3", lambda xp: [1, 2, 3])):
        EXCEPTION_CASES[f"element-{numpy.dtype(_dt).name}-{_name}"] = (
            lambda xp, _dt=_dt, _value=_value: _set(_dt, (3, 2), (0, 1), _value(xp))(xp))
EXCEPTION_CASES.update({
    "0d-sum-axis-1": lambda xp: xp.sum(xp.array(3.0), axis=1),
})


@pytest.mark.parametrize("case", sorted(EXCEPTION_CASES))
def test_exception_classes_messages_and_warnings_are_numpys(case):
    make = EXCEPTION_CASES[case]
    assert _outcome_of(cupynum, make) == _outcome_of(numpy, make)


# ---- distributed fused runs whose ops' box plans share a cache slot ------------------------------

def _column_sweeps(xp, n):
    """PolyBench's ADI (benchmarks/kernels.py) as column recurrences: each step writes a column
    view from row views, so one flush holds dozens of distinct view shapes; under MPI two ops of
    one fused run could hash to the same box-plan slot, and the second's plan replaced the
    first's while its exchange was in flight (a use after free: SIGSEGV on 3 ranks at n=20, 60)."""
    sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
    from benchmarks import kernels
    return kernels.adi(xp, n=n, iters=2)


@pytest.mark.parametrize("n", [20, 33, 60])
def test_fused_runs_of_many_distinct_views_under_distribution(n):
    got, want = _column_sweeps(cupynum, n), _column_sweeps(numpy, n)
    assert numpy.allclose(got, want, rtol=1e-12, atol=0), (got, want)


@pytest.mark.parametrize("f", ["sum", "prod", "max", "min", "argmax", "argmin", "cumsum", "cumprod",
                               "any", "all", "mean", "std", "var", "nansum"])
@pytest.mark.parametrize("shape", [(), (2, 3)])
def test_reduction_axis_and_keepdims_validation_as_numpy(f, shape):
    """axis 0/-1 of a 0-d array (accepted by ufunc reductions, argmax and scans; AxisError in
    mean/std/var), keepdims that is not a bool (an integer's truth; TypeError for a string in
    the ufunc reductions and mean/std/var, truthiness in argmax), in NumPy's order of checks."""
    cases = [(ax, kd) for ax in (0, -1, (0,), 1, -2, (), None, (0, 1))
             for kd in (False, True, 1, "no")] + [((0, 0), False), ((0, 0), True)]
    results = []
    for xp in (numpy, cupynum):
        x = xp.arange(6.0).reshape(shape) if shape else xp.array(3.0)
        out = []
        for ax, kd in cases:
            try:
                r = (getattr(xp, f)(x, axis=ax) if f.startswith("cum")
                     else getattr(xp, f)(x, axis=ax, keepdims=kd))
                out.append(repr(numpy.asarray(r).tolist()) + numpy.asarray(r).dtype.str)
            except Exception as e:
                out.append((type(e).__name__, str(e)))
        results.append(out)
    assert results[1] == results[0]


@pytest.mark.parametrize("shape", [(0,), (3, 0), (2, 3)])
@pytest.mark.parametrize("exponent", [-1, "array"])
def test_integer_power_negative_exponent_only_with_elements(shape, exponent):
    """NumPy's loop refuses a negative integer exponent element by element: an empty operand
    raises nothing, a broadcast error comes before the value error."""
    outcome = []
    for xp in (numpy, cupynum):
        a = xp.ones(shape, dtype=numpy.int64)
        e = -1 if exponent == -1 else xp.array([-1, 2], dtype=numpy.int64)
        try:
            outcome.append(repr(numpy.asarray(a ** e).tolist()))
        except Exception as exc:
            outcome.append((type(exc).__name__, str(exc)))
    assert outcome[1] == outcome[0]


@pytest.mark.parametrize("dtype", [numpy.uint8, numpy.int8, numpy.int64, numpy.float32, bool])
def test_flat_single_item_errors_as_numpy(dtype):
    """a.flat[k] = v: NumPy reports any failure to store the one element as ValueError('Error
    setting single item of array.'), and an index out of range in its own words."""
    outcome = []
    for xp in (numpy, cupynum):
        out = []
        for v in (-1.5, 1.5, 300, -1, 1e300, float("nan"), 1j, 2.7):
            for k in (1, -1, 7, -5):
                x = xp.zeros(4, dtype)
                with warnings.catch_warnings():
                    warnings.simplefilter("ignore")
                    try:
                        x.flat[k] = v
                        out.append(repr(x.tolist()))
                    except Exception as e:
                        out.append(f"{type(e).__name__}: {e}")
        outcome.append(out)
    assert outcome[1] == outcome[0]


@needs_launcher
@pytest.mark.parametrize("ranks", [2, 3])
def test_threads_under_mpirun_raise_instead_of_hanging(ranks):
    """Threads of one rank interleave their ops differently on each rank, so the ranks' messages
    would not match (TestThread of NumPy's random tests hung a 3-rank job): under mpirun only the
    main thread may use arrays; another thread gets RuntimeError at its first op, the arrays are
    as they were and the main thread goes on, with NumPy's results."""
    code = ("import threading, numpy, cupynum as np\n"
            "out = np.zeros((4, 1000))\n"
            "errors = []\n"
            "def work(i):\n"
            "    try:\n"
            "        out[i] = np.arange(1000.0) * i\n"
            "    except RuntimeError as e:\n"
            "        errors.append(str(e))\n"
            "ts = [threading.Thread(target=work, args=(i,)) for i in range(4)]\n"
            "[t.start() for t in ts]\n"
            "[t.join() for t in ts]\n"
            "assert len(errors) == 4 and 'main thread only' in errors[0], errors\n"
            "assert float(abs(out).sum()) == 0.0\n"
            "ref = numpy.arange(1000.0)[None, :] * numpy.arange(4.0)[:, None]\n"
            "for i in range(4):\n"
            "    out[i] = np.arange(1000.0) * i\n"
            "assert (out.__array__() == ref).all()\n"
            "print('ok', flush=True)\n")
    out = _job(code, ranks)
    assert out.returncode == 0, out.stderr[-2000:]
    assert out.stdout.splitlines() == ["ok"]


def test_threads_use_arrays_in_one_process_and_raise_on_several_ranks():
    """In one process threads may use arrays, as with NumPy; on several ranks (this suite under
    mpirun) every rank's threads get the guard's RuntimeError, and nothing is written."""
    import threading
    out = cupynum.zeros((4, 1000))
    ref = numpy.arange(1000.0)[None, :] * numpy.arange(4.0)[:, None]
    errors = []
    def work(i):
        try:
            out[i] = cupynum.arange(1000.0) * i
        except RuntimeError as e:
            errors.append(str(e))
    ts = [threading.Thread(target=work, args=(i,)) for i in range(4)]
    [t.start() for t in ts]
    [t.join() for t in ts]
    if cupynum.runtime_info()["ranks"] > 1:
        assert len(errors) == 4 and "main thread only" in errors[0], errors
        assert (out.__array__() == 0).all()
    else:
        assert errors == []
        assert (out.__array__() == ref).all()
