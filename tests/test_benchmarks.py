"""The benchmark suite's plumbing: `python -m benchmarks --quick` runs programs with NumPy and
cupynum in a subprocess, and every result check (cupynum's result against NumPy's) passes.

The suite is one process that launches its own MPI ranks, so under mpirun only rank 0 runs it
(with the launcher's variables removed), and the --ranks test runs only outside mpirun."""
import json
import os
import shutil
import subprocess
import sys
import warnings

import numpy
import pytest

import cupynum

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
sys.path.insert(0, ROOT)

from benchmarks import measure, programs  # noqa: E402

INFO = cupynum.runtime_info()
rank0_only = pytest.mark.skipif(INFO["rank"] != 0, reason="the suite runs on rank 0 only")


def run_suite(tmp_path, *args, timeout=120):
    path = tmp_path / "bench.json"
    proc = subprocess.run([sys.executable, "-m", "benchmarks", "--quick", "--repeat", "1",
                           "--json", str(path), *args],
                          cwd=ROOT, env=measure.clean_env(), capture_output=True, text=True,
                          timeout=timeout)
    assert proc.returncode == 0, proc.stdout + proc.stderr
    return json.loads(path.read_text()), proc.stdout


@rank0_only
def test_quick_suite_results_agree_with_numpy(tmp_path):
    names = ["stencil", "blackscholes", "small_setslice"]
    data, text = run_suite(tmp_path, *names)
    rows = data["rows"]
    assert [r["name"] for r in rows] == names
    for r in rows:
        assert r["check"], r
        assert r["numpy"] > 0 and r["cupynum"] > 0
        assert r["mem_numpy"] >= 0 and r["mem_cupynum"] >= 0
        for peer in r["peers"].values():
            assert peer["check"], r
        assert r["name"] in text
    assert "result checks: 3 of 3 agree with NumPy" in text


@rank0_only
@pytest.mark.skipif(INFO["mpi_running"], reason="--ranks launches mpirun; not from inside an MPI job")
@pytest.mark.skipif(shutil.which("mpirun") is None, reason="mpirun not installed")
def test_quick_suite_on_two_ranks(tmp_path):
    data, text = run_suite(tmp_path, "--ranks", "2", "--no-memory", "--no-peers", "stencil")
    (row,) = data["rows"]
    assert row["check"] and row["ranks_agree"], row
    (scaled,) = data["scaling"]
    assert scaled["size_n"]["n"] > scaled["size_1"]["n"]
    assert len(scaled["bytes_sent"]) == 2
    assert min(scaled["bytes_sent"]) > 0     # the stencil's halo rows cross between the ranks
    assert "weak scaling" in text


@pytest.mark.parametrize("name", ["cg", "jacobi", "reductions", "small_sum"])
def test_programs_check_catches_a_wrong_result(name):
    # The check the suite applies must fail on a perturbed result, or the suite proves nothing.
    bench = programs.BENCHMARKS[name]
    size = bench.size_for(True)
    if "reps" in size:
        size["reps"] = 3
    ref = bench.func(numpy, **size)
    assert programs.check(bench, size, ref, ref)[0]
    vals = ref if isinstance(ref, tuple) else (ref,)
    wrong = tuple(v * (1 + 1e-3) + 1e-3 for v in vals)
    assert not programs.check(bench, size, ref, wrong if isinstance(ref, tuple) else wrong[0])[0]


@pytest.mark.parametrize("name", list(programs.BENCHMARKS))
def test_program_on_cupynum_matches_numpy(name):
    # Every program at its --quick size (fewer repetitions for the small-array loops), on every
    # rank under mpirun: the suite's check accepts cupynum's result.
    bench = programs.BENCHMARKS[name]
    size = bench.size_for(True)
    if "reps" in size:
        size["reps"] = 50
    ref = bench.func(numpy, **size)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", cupynum.FallbackWarning)   # k-means' argmin, bincount
        got = bench.func(cupynum, **size)
    ok, tol = programs.check(bench, size, ref, got)
    assert ok, f"{name}: {got} vs NumPy's {ref} ({tol})"


@pytest.mark.parametrize("name", ["stencil", "jacobi", "swe", "reduction", "matmul", "sort"])
def test_scale_programs_match_numpy(name):
    """benchmarks/scale.py's weak-scaling programs compute what NumPy computes (here at the
    rank count of this run, a small block)."""
    from benchmarks import scale
    n = {"swe": 40}.get(name, 24)
    got = scale.result(cupynum, name, INFO["ranks"], n, 3)
    want = scale.result(numpy, name, INFO["ranks"], n, 3)
    numpy.testing.assert_allclose(got, want, rtol=1e-12)


@rank0_only
@pytest.mark.skipif(bool(os.environ.get("OMPI_COMM_WORLD_SIZE")) or not shutil.which("mpirun"),
                    reason="launches its own mpirun jobs")
def test_scale_benchmark_measures_and_projects(tmp_path):
    proc = subprocess.run([sys.executable, "-m", "benchmarks", "scale", "--quick", "--ranks", "1,2",
                           "--programs", "stencil,reduction", "--iters", "2", "--same-grid", "stencil"],
                          cwd=ROOT, env=measure.clean_env(), capture_output=True, text=True,
                          timeout=300)
    assert proc.returncode == 0, proc.stdout + proc.stderr
    rows = [line for line in proc.stdout.splitlines() if line.startswith("| stencil |")]
    assert len(rows) == 4, proc.stdout   # 1 and 2 ranks measured, one projection row, one same-grid row
    assert rows[2].count("|") == 7 + len([8, 16, 32, 64, 128, 256, 512, 1024])
    same = [float(x) for x in rows[3].strip("| ").split(" | ")[1:]]
    assert len(same) == 6 and all(x > 0 for x in same), rows[3]   # block, 3 times, 2 speedups


@rank0_only
def test_smallops_results_agree_with_numpy():
    """benchmarks.smallops checks each cupynum result against NumPy's before timing it: a quick
    run over two sizes (one odd) exits cleanly and prints every call."""
    proc = subprocess.run([sys.executable, "-m", "benchmarks.smallops", "--n", "37", "1000",
                           "--repeat", "3"], cwd=ROOT, env=measure.clean_env(),
                          capture_output=True, text=True, timeout=120)
    assert proc.returncode == 0, proc.stdout + proc.stderr
    lines = [ln for ln in proc.stdout.splitlines() if ln.strip().startswith(("37 ", "1000 "))]
    assert len(lines) == 44, proc.stdout
    assert "geometric mean x numpy" in proc.stdout


@rank0_only
def test_survey_results_agree_with_numpy():
    """benchmarks.survey checks each cupynum result against NumPy's (values, dtype, shape) before
    timing it: a quick run over two sizes (one odd, so 2-d shapes are not square) exits cleanly
    and prints every call at both."""
    from benchmarks import survey
    calls = len(survey.cases(64, numpy.random.default_rng(0)))
    proc = subprocess.run([sys.executable, "-m", "benchmarks.survey", "--n", "101", "1000",
                           "--repeat", "2", "--budget", "0"], cwd=ROOT, env=measure.clean_env(),
                          capture_output=True, text=True, timeout=180)
    assert proc.returncode == 0, proc.stdout + proc.stderr
    lines = [ln for ln in proc.stdout.splitlines() if ln.strip().startswith(("101 ", "1000 "))]
    assert len(lines) == 2 * calls, proc.stdout
    assert calls >= 60 and "geometric mean x numpy" in proc.stdout
