"""python -m tests.conformance: NumPy's own test files, run on cupynum (run from the repo root).

    python -m tests.conformance                    # FILES on one rank (a process per core, at most 4)
    python -m tests.conformance --ranks 3          # MPI_FILES under mpirun -np 3, CUPYNUM_MIN_TILE=1
    python -m tests.conformance --files _core/tests/test_umath.py lib/tests/test_shape_base.py
    python -m tests.conformance --update-baseline  # also rewrite the baseline and docs/conformance.md

CI (.ci/run) runs the first two and fails when the ratchet does.

Each file (named relative to the installed numpy package) is collected by pytest from the installed
NumPy, with the plugin `tests/conformance/plugin.py` binding `np`/`numpy` in NumPy's test modules
to cupynum, applying `exclusions.txt` and a per-test timeout, and logging each outcome.  Tests are
dealt round-robin to `--jobs` pytest processes (CUPYNUM_THREADS=1 each); a process that dies
(a crash, a test stuck in C code) is resumed after the test it was running, which counts as failed.

The ratchet: every test id listed in the baseline file (the passing ids of the files run, for this
rank count) must pass again; one that fails now makes the exit status 1.  Newly passing tests are
listed (`--update-baseline` records them).  A test that is no longer collected (another NumPy
version renamed it) is reported, not counted; a file of the baseline that no longer collects, or
a run that dies outside any test, fails.

The run sets CUPYNUM_FALLBACK=silent (the once-per-function warning would make results depend on
test order) and NPY_AVAILABLE_MEM=1GB, so NumPy's tests that need more memory skip themselves as
they would on a small machine.  `--fallback error` (CUPYNUM_FALLBACK=error) counts what passes
without any NumPy fallback; it is not checked against the baselines."""

import argparse
import os
import shutil
import signal
import subprocess
import sys
import tempfile
import threading
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
# What `--ranks N` runs by default: every file but the three whose thousands of tiny-array tests
# take minutes each when every op exchanges halos between oversubscribed ranks (test_umath,
# test_ufunc, test_linalg: over 15 minutes together on 3 ranks and 2 cores).
MPI_FILES = [f for f in FILES if f not in (
    "_core/tests/test_umath.py", "_core/tests/test_ufunc.py", "linalg/tests/test_linalg.py")]


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
    p.add_argument("--ranks", type=int, default=1,
                   help="run under mpirun -np N with CUPYNUM_MIN_TILE=1 (default files: MPI_FILES)")
    p.add_argument("--timeout", type=float, default=60.0, help="seconds per test phase")
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
        args.files = MPI_FILES if args.ranks > 1 else FILES
    if args.jobs <= 0:
        args.jobs = 1 if args.ranks > 1 else max(1, min(4, os.cpu_count() or 1))
    if args.ranks > 1 and shutil.which("mpirun") is None:
        p.error("--ranks needs mpirun (Open MPI)")
    if args.update_baseline and args.fallback != "silent":
        p.error("--update-baseline records the baseline of the default run (no --fallback)")
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
        cmd = [shutil.which("mpirun"), "-np", str(args.ranks), "--oversubscribe", "--mca", "mpi_yield_when_idle",
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
    while not _stopping.is_set():
        records = report.read_logs(report.logs_of(log))
        if report.all_done(records):
            return
        if attempts == MAX_RESTARTS:
            report.append(log, event="collect-error", id="(process)",
                          reason=f"gave up after {attempts} restarts of shard {shard}")
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
        # Its own process group: the whole job (mpirun and its ranks) can be stopped at once.
        p = subprocess.Popen(_pytest_command(args, files, log, shard, done), cwd=ROOT, env=env,
                             stdout=subprocess.DEVNULL if args.quiet else None,
                             stderr=subprocess.STDOUT if args.quiet else None,
                             start_new_session=True)
        _running.add(p)
        try:
            p.wait(timeout=timeout)
        finally:
            _stop(p)
            _running.discard(p)
        if _stopping.is_set():
            return
        records = report.read_logs(report.logs_of(log))
        if p.returncode not in (0, 1) and not report.unfinished(records) \
                and not report.all_done(records):
            # Died outside any test (collection, start-up): nothing to resume after.
            report.append(log, event="collect-error", id="(process)",
                          reason=f"pytest exited with status {p.returncode} outside a test")
            return


MAX_RESTARTS = 50
_running = set()    # the pytest (or mpirun) processes of the shards now running
_stopping = threading.Event()   # set when the run is given up: shards start nothing more


def _stop(p):
    """End process group `p` (pytest, or mpirun and its ranks) if it still runs."""
    if p.poll() is not None:
        return
    for sig, wait in ((signal.SIGTERM, 10), (signal.SIGKILL, None)):
        try:
            os.killpg(p.pid, sig)
        except ProcessLookupError:
            return
        try:
            p.wait(timeout=wait)
            return
        except subprocess.TimeoutExpired:
            pass


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
        try:
            for f in futures:
                f.result()
        except BaseException:
            # --wall, Ctrl-C: stop every shard's processes (new sessions get no terminal signal).
            _stopping.set()
            for p in list(_running):
                _stop(p)
            raise
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
    baseline = report.read_baseline(base_file) if args.fallback == "silent" else None
    status = 0
    if args.fallback != "silent":
        print(f"conformance: CUPYNUM_FALLBACK={args.fallback}: not checked against the baseline")
    elif baseline is not None:
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
        if check["regressions"] or check["broken_files"] or "(process)" in collect_errors:
            for f in check["broken_files"]:
                print(f"REGRESSION {f}: the file no longer collects (or no test of it ran)")
            print(f"conformance: {len(check['regressions'])} baseline tests fail now, "
                  f"{len(check['broken_files'])} baseline files ran no test "
                  f"(ratchet: {base_file})")
            status = 1
        else:
            print(f"conformance: every baseline test of these files passes ({check['kept']} tests)")
    else:
        print(f"conformance: no baseline yet ({base_file}); --update-baseline writes one")
    if "(process)" in collect_errors:
        status = 1      # a pytest process died outside any test: the counts are incomplete

    if args.update_baseline:
        report.write_baseline(base_file, baseline, results, files, numpy.__version__)
        print(f"wrote {base_file}")
        default = MPI_FILES if args.ranks > 1 else FILES
        if set(files) >= set(default):
            report.update_docs(DOCS, summary, results, files, args.ranks, numpy.__version__,
                               seconds, args.jobs, report.read_baseline(baseline_path(1)))
            print(f"wrote {DOCS}")
        else:
            print(f"{DOCS} not rewritten: its tables are of the default files")
    return status


if __name__ == "__main__":
    sys.exit(main())
