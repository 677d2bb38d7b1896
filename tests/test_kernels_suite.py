"""The ordinary-kernel suite of benchmarks/kernels.py (issue #21), short form: every kernel at its
small size computes what NumPy computes (no timing), and `python -m benchmarks kernels` runs."""
import os
import subprocess
import sys

import numpy
import pytest

import cupynum

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
sys.path.insert(0, ROOT)

from benchmarks import kernels, measure  # noqa: E402


@pytest.mark.parametrize("name", list(kernels.KERNELS))
def test_kernel_agrees_with_numpy(name):
    k = kernels.KERNELS[name]
    ref = k.func(numpy, **k.small)
    got = k.func(cupynum, **k.small)
    assert kernels.check(k, ref, got), (ref, got)


@pytest.mark.parametrize("size", kernels.JACOBI_SWEEP[:3])
def test_jacobi_sweep_agrees_with_numpy(size):
    k = kernels.KERNELS["jacobi1d"]
    size = {**size, "iters": 7}
    assert kernels.check(k, k.func(numpy, **size), k.func(cupynum, **size))


def test_a_mismatch_is_reported():
    k = kernels.KERNELS["trisolv"]
    ref = k.func(numpy, **k.small)
    assert not kernels.check(k, ref, (ref[0] * (1 + 1e-6), ref[1]))


@pytest.mark.skipif(cupynum.runtime_info()["rank"] != 0, reason="the suite runs on rank 0 only")
def test_kernels_command(tmp_path):
    proc = subprocess.run([sys.executable, "-m", "benchmarks", "kernels", "trisolv", "jacobi1d",
                           "--quick", "--repeat", "1"], cwd=ROOT, env=measure.clean_env(),
                          capture_output=True, text=True, timeout=300)
    assert proc.returncode == 0, proc.stdout + proc.stderr
    assert "geometric mean speedup, small" in proc.stdout
    assert "result checks: 5 of 5 agree with NumPy" in proc.stdout, proc.stdout
