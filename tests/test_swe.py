"""examples/swe.py, the shallow-water solver written in plain NumPy, run unchanged on NumPy and on
cupynum (1-4 ranks): the fields agree, and nothing on its path falls back to NumPy."""

import importlib.util
import pathlib

import numpy
import pytest

import cupynum
from cupynum import _fallback

pytestmark = [pytest.mark.device, pytest.mark.mpi_device]

_PATH = pathlib.Path(__file__).resolve().parent.parent / "examples" / "swe.py"
_spec = importlib.util.spec_from_file_location("swe_example", _PATH)
swe = importlib.util.module_from_spec(_spec)
_spec.loader.exec_module(swe)


@pytest.fixture
def no_fallback(monkeypatch):
    """Fail the test if any NumPy fallback runs (CUPYNUM_FALLBACK=error does not see the
    indexing helpers' NumPy path, which does not warn)."""
    def refuse(*args, **kwargs):
        raise AssertionError("fell back to NumPy")
    monkeypatch.setattr(_fallback, "compute", refuse)
    monkeypatch.setattr(_fallback, "call", refuse)
    monkeypatch.setenv("CUPYNUM_FALLBACK", "error")


@pytest.mark.parametrize("nx,ny,steps", [(40, 24, 8), (33, 17, 5)])
def test_swe_matches_numpy(no_fallback, nx, ny, steps):
    ref = swe.run(numpy, nx, ny, steps)
    got = swe.run(cupynum, nx, ny, steps)
    for g, r in zip(got, ref):
        assert isinstance(g, cupynum.ndarray)
        numpy.testing.assert_allclose(numpy.asarray(g), r, rtol=1e-12, atol=1e-14)
    vr = swe.checksum(numpy, *ref, nx, ny)
    vg = swe.checksum(cupynum, *got, nx, ny)
    assert vg == pytest.approx(vr, rel=1e-12)
    assert numpy.all(numpy.asarray(got[0]) >= 0)      # the wet/dry masks kept depths non-negative


def test_swe_step_moves_only_halos():
    """Weak scaling: a step sends a bounded number of halo strips of the rank's tile (the fields'
    and the face arrays' neighbour rows or columns), never whole arrays."""
    nx, ny = 96, 64
    swe.run(cupynum, nx, ny, 1)             # plans built
    cupynum.sync()
    cupynum.reset_stats()
    steps = 2
    h, _, _ = swe.run(cupynum, nx, ny, steps)
    cupynum.sync()
    sent = cupynum.runtime_stats()["bytes_sent"]
    t = cupynum._core._tiling(h)
    if not t["tiled"]:
        assert sent == 0
        return
    perimeter = 2 * sum(hi - lo for lo, hi in zip(t["lo"], t["hi"])) * 8
    whole = (nx + 4) * (ny + 4) * 8
    per_step = sent / (steps + 1)            # the run's set-up counts as a step
    print("bytes per step", per_step, "tile perimeter bytes", perimeter)
    assert per_step <= 40 * perimeter, (per_step, perimeter)
    assert per_step < whole, (per_step, whole)
