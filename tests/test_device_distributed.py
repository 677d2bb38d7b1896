"""The distributed executor on device buffers: halos and pieces exchanged device to device.

Run under mpirun on 1-4 ranks with CUPYNUM_DEVICE=sim and CUPYNUM_MIN_TILE=1 (scripts/test.sh),
single-process, and on the CPU backend: every rank computes the same thing with NumPy and
compares.  On a device backend with the device transport (backend.h: the simulated device's MPI
on its buffers, the CUDA backend's NCCL) the box path keeps the tiles on the device, so the
distributed steps move nothing to the host (runtime_stats' bytes_to_host); elsewhere that
assertion is skipped."""

import numpy
import pytest

import cupynum
from conftest import check

pytestmark = [pytest.mark.device, pytest.mark.mpi_device, pytest.mark.gpu]

INFO = cupynum.runtime_info()
RANKS = INFO["ranks"]
ON_DEVICE = INFO["backend"] in ("cuda", "sim")
device_only = pytest.mark.skipif(not ON_DEVICE, reason="device residency: only on a device backend "
                                 "(CUPYNUM_DEVICE=sim runs it on the simulated device)")


@pytest.fixture(params=[True, False], ids=["fused", "unfused"])
def fusion(request):
    """Both executor paths: fused runs (their exchanges) and single ops (the box path)."""
    was = cupynum._core._set_fusion(request.param)
    yield request.param
    cupynum._core._set_fusion(was)


def _grid(shape, seed):
    rng = numpy.random.default_rng(seed)
    n = rng.standard_normal(shape)
    n[0, :] = 40.0
    n[:, 0] = -273.15
    return n


def _stencil(np, grid, iterations):
    center, north, east = grid[1:-1, 1:-1], grid[0:-2, 1:-1], grid[1:-1, 2:]
    west, south = grid[1:-1, 0:-2], grid[2:, 1:-1]
    for _ in range(iterations):
        center[:] = 0.2 * (center + north + east + west + south)
    return grid


def _shifted(np, a, b):
    """Shifted-slice adds (aliasing in place and into a second array) and casts of halo reads."""
    a[1:, :] += a[:-1, :]            # reads the old values everywhere
    a[:, 1:] = a[:, 1:] + a[:, :-1]
    b[2:, 1:] = b[:-2, :-1] * 3.0 - a[1:-1, 1:]
    f = (a[1:, 1:] + b[:-1, :-1]).astype(np.float32)
    i = (b[::-1, :] * 10.0).astype(np.int64)
    k = i[1:, :] - i[:-1, :]
    m = (f[:, ::2] > 0).astype(np.int32) + k[:, 1::2].astype(np.int32)
    return a, b, f, i, k, m


@pytest.mark.parametrize("shape", [(9, 9), (17, 6), (6, 23), (32, 33)])
def test_stencil_matches_numpy(shape, fusion):
    n = _grid(shape, 1)
    c = cupynum.array(n)
    check(_stencil(cupynum, c, 7), _stencil(numpy, n.copy(), 7))


@pytest.mark.parametrize("shape", [(10, 12), (25, 7), (31, 40)])
def test_shifted_adds_and_casts_match_numpy(shape, fusion):
    na, nb = _grid(shape, 2), _grid(shape, 3)
    ca, cb = cupynum.array(na), cupynum.array(nb)
    for c, n in zip(_shifted(cupynum, ca, cb), _shifted(numpy, na.copy(), nb.copy())):
        check(c, n)


def test_integer_power_falls_back_to_the_host_path(fusion):
    """An op the device lacks (integer power) takes the host path under distribution too."""
    n = numpy.arange(6 * 11, dtype=numpy.int64).reshape(6, 11) % 7
    c = cupynum.array(n)
    check(c[1:, :] ** c[:-1, :] + c[:-1, ::-1], n[1:, :] ** n[:-1, :] + n[:-1, ::-1])


@pytest.mark.parametrize("dtype", ["bool", "int8", "int16", "uint32", "float32", "complex128"])
def test_halo_of_every_item_size(dtype, fusion):
    """Pieces of 1 to 16-byte elements packed, sent and unpacked."""
    n = (numpy.arange(13 * 9).reshape(13, 9) % 5).astype(dtype)
    c = cupynum.array(n)
    check(c[1:, 1:] + c[:-1, :-1], n[1:, 1:] + n[:-1, :-1])
    check(c[::-1, 2:] * c[:, :-2], n[::-1, 2:] * n[:, :-2])


@device_only
@pytest.mark.parametrize("which", ["stencil", "shifted"])
def test_distributed_steps_stay_on_the_device(which, fusion):
    """After a warm-up step (the tiles move to the device once), further steps move no byte to
    the host: the halos and pieces went device to device; with several ranks they did move, and
    the results are on the device until read."""
    shape = (8 * max(RANKS, 2) + 2, 8 * max(RANKS, 2) + 2)
    na, nb = _grid(shape, 4), _grid(shape, 5)
    ca, cb = cupynum.array(na), cupynum.array(nb)

    def step(np, a, b):
        if which == "stencil":
            return [_stencil(np, a, 2)]
        a, b, f, i, k, m = _shifted(np, a, b)
        return [a, b, f, i, k, m]

    step(cupynum, ca, cb)
    step(numpy, na, nb)
    cupynum.sync()
    before = cupynum.runtime_stats()
    got = [step(cupynum, ca, cb) for _ in range(3)]
    want = [step(numpy, na, nb) for _ in range(3)]
    cupynum.sync()
    after = cupynum.runtime_stats()
    assert after["bytes_to_host"] == before["bytes_to_host"]
    tiled = cupynum._core._tiling(ca)["tiled"]
    if RANKS > 1 and tiled:
        assert after["bytes_sent"] > before["bytes_sent"]
    # The values, read back only now: this moves this rank's tile to the host, so they were
    # on the device (not left on the host all along).
    t = cupynum._core._tiling(ca)
    numpy.asarray(ca)
    if all(h > l for l, h in zip(t["lo"], t["hi"])):
        assert cupynum.runtime_stats()["bytes_to_host"] > after["bytes_to_host"]
    for g, w in zip(got, want):
        for c, n in zip(g, w):
            check(c, n)


@pytest.mark.parametrize("shape", [(6, 7, 8), (11, 3, 5)])
def test_3d_halos_transposes_and_complex_parts(shape, fusion):
    """3-D pieces (region copies over three dimensions), a transposed operand, and the real and
    imaginary parts of a complex array (views at a byte offset into 16-byte elements)."""
    rng = numpy.random.default_rng(6)
    n = rng.standard_normal(shape)
    z = n + 1j * rng.standard_normal(shape)
    c, cz = cupynum.array(n), cupynum.array(z)
    check(c[1:, 1:, 1:] + c[:-1, :-1, :-1] * c[1:, :-1, 1:], n[1:, 1:, 1:] + n[:-1, :-1, :-1] * n[1:, :-1, 1:])
    t = numpy.ascontiguousarray(n.transpose(2, 1, 0))
    ct = cupynum.array(t)
    check(c[:, ::-1, :] - ct.transpose(2, 1, 0), n[:, ::-1, :] - t.transpose(2, 1, 0))
    check(cz.real[1:, :, :] * cz.imag[:-1, :, :], z.real[1:, :, :] * z.imag[:-1, :, :])
    check(cz[1:, 1:, :] + cz[:-1, :-1, :], z[1:, 1:, :] + z[:-1, :-1, :])


@pytest.mark.parametrize("dtype", ["float64", "float32", "int32", "uint8"])
@pytest.mark.parametrize("reduce,axis", [("sum", None), ("sum", 0), ("sum", 1), ("max", None), ("max", 0),
                                         ("min", 1), ("prod", None), ("prod", 1), ("sum", (0, 2)),
                                         ("max", 2), ("sum", "view")])
@pytest.mark.parametrize("resident", ["device", "host"])
def test_distributed_reduction_partial_on_the_device(dtype, reduce, axis, resident):
    """sum/max/min/prod of a tiled array (device- or host-resident): every rank gets NumPy's
    values, and on a device backend only the rank partials come to the host, not the tile
    (backend.h's reduce_region; a host-current tile is reduced on the host)."""
    rng = numpy.random.default_rng(7)
    three = axis in ((0, 2), 2)
    shape = (4 * max(RANKS, 2) + 1, 6, 9) if three else (8 * max(RANKS, 2) + 2, 40)
    if reduce == "prod":
        n = rng.uniform(-0.5, 0.5, shape) if dtype.startswith("float") else rng.integers(0, 2, shape)
    else:
        n = rng.standard_normal(shape) * 50 if dtype.startswith("float") else rng.integers(0, 100, shape)
    n = n.astype(dtype)
    if resident == "device":
        c = cupynum.array(n)
        c = c + c.dtype.type(1)        # computed on the device: its tiles are device-resident
        n = n + n.dtype.type(1)
    else:                              # current on the host only: reduced there, not uploaded
        n = n + n.dtype.type(1)
        c = cupynum.array(n)
    cupynum.sync()
    before = cupynum.runtime_stats()["bytes_to_host"]
    if axis == "view":
        got, want = c[1:, ::3].sum(axis=0), n[1:, ::3].sum(axis=0)
    else:
        got, want = getattr(c, reduce)(axis=axis), getattr(n, reduce)(axis=axis)
    cupynum.sync()
    grown = cupynum.runtime_stats()["bytes_to_host"] - before
    t = cupynum._core._tiling(c)
    tile_bytes = int(numpy.prod([h - l for l, h in zip(t["lo"], t["hi"])])) * n.itemsize if t["tiled"] else 0
    if ON_DEVICE and tile_bytes > 2 * numpy.asarray(want).nbytes:
        assert grown < tile_bytes // 2, (grown, tile_bytes)
    float_ = dtype.startswith("float")
    check(got, want, rtol=1e-3 if dtype == "float32" else 1e-10 if float_ else 0.0)
