"""python -m tests.conformance: NumPy's own test files, run on cupynum (run from the repo root).

    python -m tests.conformance                      # the full list (FILES), one process per core
    python -m tests.conformance --ci                 # the CI subset (CI_FILES), checked against the baseline
    python -m tests.conformance --files _core/tests/test_umath.py lib/tests/test_shape_base.py
    python -m tests.conformance --ranks 3            # MPI_FILES under mpirun -np 3, CUPYNUM_MIN_TILE=1
    python -m tests.conformance --update-baseline    # also rewrite the baseline and docs/conformance.md

Each file (named relative to the installed numpy package) is collected by pytest from the installed
NumPy, with the plugin `tests/conformance/plugin.py` binding `np`/`numpy` in NumPy's test modules
to cupynum, applying `exclusions.txt` and a per-test timeout, and logging each outcome.  Tests are
dealt round-robin to `--jobs` pytest processes (CUPYNUM_THREADS=1 each); a process that dies
(a crash, a test stuck in C code) is resumed after the test it was running, which counts as failed.

The ratchet: every test id listed in the baseline file (the passing ids of the files run, for this
rank count) must pass again; one that fails now makes the exit status 1.  Newly passing tests are
listed (`--update-baseline` records them).  A test that is no longer collected (another NumPy
version) is reported, not counted as a regression.

The run sets CUPYNUM_FALLBACK=silent (the once-per-function warning would make results depend on
test order) unless --fallback says otherwise, and NPY_AVAILABLE_MEM=1GB, so NumPy's tests that need
more memory skip themselves as they would on a small machine."""

import argparse
import json
import os
import shutil
import subprocess
import sys
import tempfile
import time

from . import report

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(os.path.dirname(HERE))
EXCLUSIONS = os.path.join(HERE, "exclusions.txt")
DOCS = os.path.join(ROOT, "docs", "conformance.md")

# The files the issue starts from: what a drop-in replacement must do.
FILES = [
    "_core/tests/test_umath.py",
    "_core/tests/test_ufunc.py",
    "_core/tests/test_numeric.py",
    "_core/tests/test_indexing.py",
    "_core/tests/test_shape_base.py",
    "_core/tests/test_function_base.py",
    "lib/tests/test_function_base.py",
    "lib/tests/test_shape_base.py",
    "lib/tests/test_nanfunctions.py",
    "linalg/tests/test_linalg.py",
    "fft/tests/test_pocketfft.py",
    "random/tests/test_random.py",
]
# What CI runs on one process, within its time budget (about 6 minutes on 2 cores).
CI_FILES = FILES
# What `--ranks N` runs by default.
MPI_FILES = [
    "_core/tests/test_shape_base.py",
    "_core/tests/test_function_base.py",
    "lib/tests/test_shape_base.py",
]


def baseline_path(ranks):
    return os.path.join(HERE, "baseline.txt" if ranks == 1 else f"baseline-{ranks}ranks.txt")


def numpy_dir():
    import numpy
    return os.path.dirname(numpy.__file__)


def parse_args(argv):
    p = argparse.ArgumentParser(prog="python -m tests.conformance", description=__doc__,
                                formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--files", nargs="+", metavar="FILE",
                   help="NumPy test files relative to the numpy package (default: FILES)")
    p.add_argument("--ci", action="store_true", help="run CI_FILES (the CI subset)")
    p.add_argument("--ranks", type=int, default=1,
                   help="run under mpirun -np N with CUPYNUM_MIN_TILE=1 (default files: MPI_FILES)")
    p.add_argument("--timeout", type=float, default=30.0, help="seconds per test phase")
    p.add_argument("--jobs", type=int, default=0,
                   help="parallel pytest processes on one rank (default: the cores, at most 4)")
    p.add_argument("--fallback", choices=("silent", "error"), default="silent",
                   help="CUPYNUM_FALLBACK for the run: 'error' counts native passes only")
    p.add_argument("--update-baseline", action="store_true",
                   help="rewrite the baseline for the files run, and docs/conformance.md")
    p.add_argument("--log-dir", help="keep the per-process JSON-lines logs here")
    p.add_argument("--wall", type=float, default=0,
                   help="give up (exit 2) after this many seconds in all (default: none)")
    p.add_argument("-q", "--quiet", action="store_true", help="print the summary only")
    args = p.parse_args(argv)
    if args.files is None:
        args.files = MPI_FILES if args.ranks > 1 else (CI_FILES if args.ci else FILES)
    if args.jobs <= 0:
        args.jobs = 1 if args.ranks > 1 else max(1, min(4, os.cpu_count() or 1))
    return args


def _pytest_command(args, files, log, shard, done):
    cmd = [sys.executable, "-m", "pytest", "-q", "-p", "tests.conformance.plugin",
           "-p", "no:cacheprovider", "-p", "no:randomly", "-p", "no:xdist", "--color=no",
           "-rN", "--tb=no", "--no-header", "--continue-on-collection-errors",
           "--rootdir", os.path.dirname(numpy_dir()),
           "--conformance-log", log, "--conformance-exclusions", EXCLUSIONS,
           "--conformance-timeout", str(args.timeout),
           "--conformance-shard", f"{shard}/{args.jobs}", "--conformance-done", done]
    cmd += [os.path.join(numpy_dir(), f) for f in files]
    if args.ranks > 1:
        mpirun = shutil.which("mpirun")
        if mpirun is None:
            sys.exit("--ranks needs mpirun")
        cmd = [mpirun, "-np", str(args.ranks), "--oversubscribe", "--mca", "mpi_yield_when_idle",
               "1", "-x", "CUPYNUM_MIN_TILE", "-x", "CUPYNUM_FALLBACK", "-x", "NPY_AVAILABLE_MEM",
               "-x", "CUPYNUM_THREADS", "-x", "PYTHONDONTWRITEBYTECODE"] + cmd
    return cmd


def _environment(args):
    env = dict(os.environ)
    env["CUPYNUM_FALLBACK"] = args.fallback
    env["NPY_AVAILABLE_MEM"] = "1GB"
    env["PYTHONDONTWRITEBYTECODE"] = "1"    # never write into the installed numpy
    if args.jobs > 1 or args.ranks > 1:
        env["CUPYNUM_THREADS"] = "1"
    if args.ranks > 1:
        env["CUPYNUM_MIN_TILE"] = "1"
        env.setdefault("OMPI_ALLOW_RUN_AS_ROOT", "1")
        env.setdefault("OMPI_ALLOW_RUN_AS_ROOT_CONFIRM", "1")
    return env


def _run_shard(args, files, log_dir, shard, deadline):
    """One pytest process (or one mpirun job) over its shard, resumed until its log says done.
    Yields nothing; the logs are read afterwards."""
    log = os.path.join(log_dir, f"shard{shard}.jsonl")
    done = os.path.join(log_dir, f"shard{shard}.done")
    env = _environment(args)
    attempts = 0
    while True:
        records = report.read_logs(report.logs_of(log))
        if report.all_done(records) or attempts > 50:
            return
        finished = report.finished_ids(records)
        running = report.unfinished(records)
        for nid in running:
            # The process died while this test ran (a crash, or MPI aborting the job after
            # another rank's hard timeout): it counts as failed; resume after it.
            report.append(log, event="result", id=nid, outcome="failed",
                          reason="crashed: the test process died while this test ran",
                          duration=None)
            finished.add(nid)
        with open(done, "w") as f:
            f.write("".join(n + "\n" for n in sorted(finished)))
        attempts += 1
        timeout = None if not deadline else max(1.0, deadline - time.monotonic())
        p = subprocess.Popen(_pytest_command(args, files, log, shard, done), cwd=ROOT, env=env,
                             stdout=subprocess.DEVNULL if args.quiet else None,
                             stderr=subprocess.STDOUT if args.quiet else None)
        try:
            p.wait(timeout=timeout)
        except subprocess.TimeoutExpired:
            p.kill()
            p.wait()
            raise
        records = report.read_logs(report.logs_of(log))
        if p.returncode not in (0, 1) and not report.unfinished(records) \
                and not report.all_done(records):
            # Died outside any test (collection, start-up): nothing to resume after.
            report.append(log, event="collect-error", id="(process)",
                          reason=f"pytest exited with status {p.returncode} outside a test")
            return


def run(args):
    """Run the files; returns {test id: (outcome, reason)} and the collection errors."""
    log_dir = args.log_dir or tempfile.mkdtemp(prefix="cupynum-conformance-")
    os.makedirs(log_dir, exist_ok=True)
    for name in os.listdir(log_dir):
        if name.startswith("shard"):
            os.remove(os.path.join(log_dir, name))
    deadline = time.monotonic() + args.wall if args.wall else None
    import concurrent.futures as cf
    with cf.ThreadPoolExecutor(args.jobs) as pool:
        futures = [pool.submit(_run_shard, args, args.files, log_dir, k, deadline)
                   for k in range(args.jobs)]
        for f in futures:
            f.result()
    records = []
    for k in range(args.jobs):
        records += report.read_logs(report.logs_of(os.path.join(log_dir, f"shard{k}.jsonl")))
    if not args.log_dir:
        shutil.rmtree(log_dir, ignore_errors=True)
    for pattern in report.unused_exclusions(records, EXCLUSIONS, args.files):
        print(f"conformance: exclusion matches no test (stale?): {pattern}")
    return report.merge(records)


def main(argv=None):
    args = parse_args(argv)
    import numpy
    t0 = time.monotonic()
    try:
        results, collect_errors = run(args)
    except subprocess.TimeoutExpired:
        print(f"conformance: gave up after --wall {args.wall:g} s", file=sys.stderr)
        return 2
    seconds = time.monotonic() - t0
    files = args.files
    summary = report.summarize(results, collect_errors, files)
    print(report.table(summary, files))
    print(f"{len(results)} tests in {seconds:.0f} s on {args.jobs} process(es), "
          f"{args.ranks} rank(s), numpy {numpy.__version__}")
    for cid, reason in sorted(collect_errors.items()):
        print(f"COLLECTION ERROR {cid}: {reason}")

    base_file = baseline_path(args.ranks)
    baseline = report.read_baseline(base_file)
    status = 0
    if baseline is not None:
        check = report.ratchet(baseline, results, collect_errors, files)
        for nid, reason in check["regressions"]:
            print(f"REGRESSION {nid}: {reason}")
        if check["missing"]:
            print(f"{len(check['missing'])} baseline tests were not collected (another NumPy "
                  f"version? baseline: numpy {baseline['numpy']}), e.g. {check['missing'][0]}")
        if check["new"]:
            print(f"{len(check['new'])} tests pass that the baseline does not list "
                  "(record them with --update-baseline):")
            for nid in check["new"][:50]:
                print(f"  NEW PASS {nid}")
            if len(check["new"]) > 50:
                print(f"  ... and {len(check['new']) - 50} more")
        if check["regressions"] or check["broken_files"]:
            for f in check["broken_files"]:
                print(f"REGRESSION {f}: the file no longer collects")
            print(f"conformance: {len(check['regressions'])} baseline tests fail now "
                  f"(ratchet: {base_file})")
            status = 1
        else:
            print(f"conformance: every baseline test of these files passes ({check['kept']} tests)")
    else:
        print(f"conformance: no baseline yet ({base_file}); --update-baseline writes one")

    if args.update_baseline:
        report.write_baseline(base_file, baseline, results, files, numpy.__version__)
        print(f"wrote {base_file}")
        report.update_docs(DOCS, summary, results, files, args.ranks, numpy.__version__,
                           seconds, args.jobs)
        print(f"wrote {DOCS}")
    return status


if __name__ == "__main__":
    sys.exit(main())
