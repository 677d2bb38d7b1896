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
from conftest import check

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
