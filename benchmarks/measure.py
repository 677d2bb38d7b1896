"""How the suite measures: time in this process, peak memory in a fresh process, and the cupynum
side under mpirun.

- **Time**: one warm-up run (excluded), then `repeat` timed runs; the median is reported. A
  cupynum run ends with `cupynum.sync()` inside the timed region, so nothing deferred escapes.
- **Peak memory**: each (program, library) runs once in a fresh `python -m benchmarks.worker`;
  the figure is the growth of the process's peak resident set (VmHWM; `ru_maxrss` where there
  is no /proc) over its value after the imports, so both libraries are measured the same way,
  allocator caches and all.
- **Ranks**: `mpirun -np N python -m benchmarks.worker` runs the cupynum side on N ranks; each
  rank writes its times and `runtime_stats()` counters to a JSON file, which this side merges
  (a run's time is the slowest rank's)."""
import gc
import json
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
import warnings

MPI_ENV = {"OMPI_ALLOW_RUN_AS_ROOT": "1", "OMPI_ALLOW_RUN_AS_ROOT_CONFIRM": "1"}

# Variables by which an MPI launcher tells a process it is a rank: a worker started from inside an
# MPI job (the test suite under mpirun) must not inherit them, or it would join the wrong job.
_LAUNCHER_PREFIXES = ("OMPI_", "PMIX_", "PMI_", "MPI_LOCALNRANKS", "HYDRA_", "I_MPI_")


def clean_env(extra=None):
    env = {k: v for k, v in os.environ.items() if not k.startswith(_LAUNCHER_PREFIXES)}
    root = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
    env["PYTHONPATH"] = root + (os.pathsep + env["PYTHONPATH"] if env.get("PYTHONPATH") else "")
    env.update(extra or {})
    return env


def _fallback_names(caught):
    names = set()
    for w in caught:
        msg = str(w.message)
        if type(w.message).__name__ == "FallbackWarning" and " is not implemented" in msg:
            names.add(msg.split(" is not implemented")[0].replace("cupynum.", "", 1))
    return sorted(names)


def timed(run, repeat, finish=None):
    """Warm up once, then time `repeat` runs of `run()` (each followed by `finish()`, in the
    timed region). Returns (median seconds, all times, result, fallback names seen)."""
    fresh = getattr(sys.modules.get("cupynum._fallback"), "reset_warnings", None)
    if fresh is not None:
        fresh()     # so that this program's fallbacks warn again, and are listed for it
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        result = run()
        if finish is not None:
            finish()
    times = []
    for _ in range(repeat):
        gc.collect()
        t0 = time.perf_counter()
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            result = run()
            if finish is not None:
                finish()
        times.append(time.perf_counter() - t0)
    return statistics.median(times), times, result, _fallback_names(caught)


def _worker(spec, ranks=None, timeout=None):
    """Run `python -m benchmarks.worker` on `spec` (under mpirun on `ranks` ranks when given);
    returns the per-rank records, or raises RuntimeError with the worker's output."""
    out = tempfile.mkdtemp(prefix="cpn-bench-")
    try:
        spec = {**spec, "out": out}
        cmd = [sys.executable, "-m", "benchmarks.worker", json.dumps(spec)]
        extra = {}
        if ranks is not None:
            launcher = shutil.which("mpirun") or shutil.which("mpiexec")
            if launcher is None:
                raise RuntimeError("mpirun not found: --ranks needs an MPI launcher")
            cmd = [launcher, "-np", str(ranks), "--oversubscribe", "--mca", "mpi_yield_when_idle",
                   "1"] + cmd
            extra = MPI_ENV
        proc = subprocess.run(cmd, env=clean_env(extra), capture_output=True, text=True,
                              timeout=timeout)
        records = []
        for name in sorted(os.listdir(out)):
            with open(os.path.join(out, name)) as fh:
                records.append(json.load(fh))
        if proc.returncode != 0 or not records:
            raise RuntimeError(f"{' '.join(cmd[:-1])} failed (exit {proc.returncode}):\n"
                               f"{(proc.stdout + proc.stderr)[-3000:]}")
        return sorted(records, key=lambda r: r["rank"])
    finally:
        shutil.rmtree(out, ignore_errors=True)


def peak_memory(lib, name, size, timeout=None):
    """Peak resident memory growth, bytes, of one run of benchmark `name` with `lib` ('numpy' or
    'cupynum') in a fresh process."""
    rec = _worker({"lib": lib, "mode": "memory", "runs": [{"name": name, "size": size}]},
                  timeout=timeout)[0]
    return rec["runs"][0]["peak_bytes"]


def on_ranks(ranks, runs, repeat, timeout=None):
    """Time cupynum on `ranks` ranks: runs = [{"name", "size"}]. Returns, per run, a dict with
    'seconds' (median of the slowest rank's times), 'times', 'result' (rank 0's),
    'bytes_sent' and 'messages_sent' (per rank, of one timed run), 'agree' (every rank read the
    same result) and 'fallbacks'."""
    recs = _worker({"lib": "cupynum", "mode": "time", "repeat": repeat, "runs": runs},
                   ranks=ranks, timeout=timeout)
    merged = []
    for i, run in enumerate(runs):
        per_rank = [r["runs"][i] for r in recs]
        times = [max(ts) for ts in zip(*(p["times"] for p in per_rank))]
        results = [p["result"] for p in per_rank]
        merged.append({"name": run["name"], "size": run["size"],
                       "seconds": statistics.median(times), "times": times,
                       "result": results[0], "agree": all(r == results[0] for r in results),
                       "bytes_sent": [p["bytes_sent"] for p in per_rank],
                       "messages_sent": [p["messages_sent"] for p in per_rank],
                       "fallbacks": per_rank[0]["fallbacks"]})
    return merged
