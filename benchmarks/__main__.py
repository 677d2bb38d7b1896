"""python -m benchmarks [names...] [--quick] [--repeat R] [--ranks N] [--plot] [--json PATH]

Each program of `benchmarks/programs.py` runs with NumPy and with cupynum in this invocation (and
with numexpr, Dask and cuPyNumeric where installed); the table gives the median times, the
speedup NumPy/cupynum (> 1: cupynum is faster) against the issue's target, whether the results
agree with NumPy's, and the peak memory of each library (fresh process each). `--ranks N` runs
the cupynum side under mpirun on N ranks and adds weak scaling (problem grown with N) and the
bytes each rank sent. `python -m benchmarks kernels [kernel names...]` runs the suite of ordinary
kernels of `benchmarks/kernels.py` (also run, after the programs, when no name is given).
`python -m benchmarks scale [...]` measures weak scaling on 1-4 ranks and projects it to 1,024
(`benchmarks/scale.py`, also `python -m benchmarks.scale`).  Exit status 1 when a result check
fails."""
import argparse
import json
import os
import platform
import sys

import numpy

import cupynum

from . import kernels, measure
from .peers import peers
from .programs import BENCHMARKS, GROUPS, check, select

MEMORY_SLACK = (1.05, 4 << 20)   # cupynum's peak may exceed NumPy's by 5% + 4 MiB (RSS noise)


def _as_result(x):
    return tuple(x) if isinstance(x, list) else x


def _fmt_time(bench, size, seconds):
    if seconds is None:
        return "-"
    if bench.per_op:
        return f"{seconds / size['reps'] * 1e6:.2f}us"
    return f"{seconds:.4f}"


def _mib(b):
    return "-" if b is None else f"{b / 2**20:.1f}"


def _memory_ok(row):
    mn, mc = row.get("mem_numpy"), row.get("mem_cupynum")
    if mn is None or mc is None:
        return None
    return mc <= mn * MEMORY_SLACK[0] + MEMORY_SLACK[1]


def run_suite(args, out=print):
    benches = select(args.names)
    avail = [] if args.no_peers else [p for p in peers() if p.available]
    absent = [] if args.no_peers else [p for p in peers() if not p.available]
    info = cupynum.runtime_info()
    out(f"numpy {numpy.__version__}; cupynum {info}; {os.cpu_count()} cores; "
        f"load average {os.getloadavg()[0]:.2f}")
    for p in absent:
        out(p.absent_line())
    if args.ranks:
        out(f"cupynum side: mpirun -np {args.ranks} (weak scaling and bytes sent below)")
    rows = []
    for bench in benches:
        size = bench.size_for(args.quick)
        row = {"name": bench.name, "size": size, "label": bench.label(size),
               "target": bench.target, "per_op": bench.per_op}
        row["numpy"], row["numpy_times"], ref, _ = measure.timed(
            lambda: bench.func(numpy, **size), args.repeat)
        row["numpy_result"] = ref
        if not args.ranks:
            row["cupynum"], row["cupynum_times"], res, fb = measure.timed(
                lambda: bench.func(cupynum, **size), args.repeat, finish=cupynum.sync)
            row["cupynum_result"], row["fallbacks"] = res, fb
        row["peers"] = {}
        for p in avail:
            runner = p.runner(bench)
            if runner is None:
                continue
            t, ts, res, _ = measure.timed(lambda: runner(size), args.repeat)
            ok, _ = check(bench, size, ref, _as_result(res))
            row["peers"][p.name] = {"seconds": t, "times": ts, "result": res, "check": ok}
        if not args.no_memory:
            row["mem_numpy"] = measure.peak_memory("numpy", bench.name, size)
            row["mem_cupynum"] = measure.peak_memory("cupynum", bench.name, size)
        rows.append(row)
        if not args.ranks:
            _finish_row(bench, row)
            out(_line(row, avail, first=len(rows) == 1))
    scaling = []
    if args.ranks:
        runs = [{"name": r["name"], "size": r["size"]} for r in rows]
        for row, rec in zip(rows, measure.on_ranks(args.ranks, runs, args.repeat)):
            row["cupynum"], row["cupynum_times"] = rec["seconds"], rec["times"]
            row["cupynum_result"], row["fallbacks"] = _as_result(rec["result"]), rec["fallbacks"]
            row["ranks_agree"] = rec["agree"]
            _finish_row(BENCHMARKS[row["name"]], row)
        for i, row in enumerate(rows):
            out(_line(row, avail, first=i == 0))
        scaling = weak_scaling(benches, args, out)
    _summary(rows, avail, scaling, args, out)
    return rows, scaling


def _finish_row(bench, row):
    size = row["size"]
    row["speedup"] = row["numpy"] / row["cupynum"] if row["cupynum"] > 0 else float("inf")
    row["met"] = None if bench.target is None else row["speedup"] >= bench.target
    ok, tol = check(bench, size, row["numpy_result"], row["cupynum_result"])
    row["check"] = ok and row.get("ranks_agree", True)
    row["tolerance"] = tol


def _line(row, avail, first=False):
    bench = BENCHMARKS[row["name"]]
    size = row["size"]
    cols = [f"{row['name']:<15}", f"{row['label']:<17}",
            f"{_fmt_time(bench, size, row['numpy']):>9}",
            f"{_fmt_time(bench, size, row['cupynum']):>9}", f"{row['speedup']:>7.2f}x"]
    if bench.target is None:
        cols += [f"{'-':>7}", f"{'-':>4}"]
    else:
        t = f"<={1 / bench.target:.0f}x t" if bench.per_op else f">={bench.target:g}x"
        cols += [f"{t:>7}", f"{'yes' if row['met'] else 'NO':>4}"]
    cols.append(f"  {'ok' if row['check'] else 'MISMATCH':<8} {row['tolerance']:<12}")
    mem_ok = _memory_ok(row)
    cols.append(f"{_mib(row.get('mem_numpy')):>7}{_mib(row.get('mem_cupynum')):>7}"
                f"{'' if mem_ok is None else (' ok' if mem_ok else ' HI'):>4}")
    for p in avail:
        r = row["peers"].get(p.name)
        cell = "-" if r is None else (_fmt_time(bench, size, r["seconds"])
                                      + ("" if r["check"] else "!"))
        cols.append(f"{cell:>12}")
    line = " ".join(cols)
    if not first:
        return line
    head = [f"{'benchmark':<15}", f"{'size':<17}", f"{'numpy s':>9}", f"{'cupynum s':>9}",
            f"{'speedup':>8}", f"{'target':>7}", f"{'met?':>4}",
            f"  {'check':<8} {'tolerance':<12}",
            f"{'MiB np':>7}{'cpn':>7}{'mem':>4}"] + [f"{p.name + ' s':>12}" for p in avail]
    return " ".join(head) + "\n" + line


def weak_scaling(benches, args, out):
    """cupynum on 1 rank at the base size and on N ranks at the size grown N-fold (per-rank work
    constant): efficiency t1 / tN, and the bytes each rank sent in one run."""
    scaled = [b for b in benches if b.grow is not None]
    if not scaled:
        return []
    base = [{"name": b.name, "size": b.size_for(args.quick)} for b in scaled]
    grown = [{"name": b.name, "size": b.grow(b.size_for(args.quick), args.ranks)} for b in scaled]
    one = measure.on_ranks(1, base, args.repeat)
    many = measure.on_ranks(args.ranks, grown, args.repeat)
    out(f"\nweak scaling, cupynum on 1 and {args.ranks} ranks (problem grown {args.ranks}x, "
        f"per-rank work constant; {os.cpu_count()} cores: ranks beyond the cores share them)")
    out(f"{'benchmark':<15}{'size on 1':>18}{'size on N':>18}{'t1 s':>9}{'tN s':>9}{'eff':>7}"
        f"  bytes sent per rank per run (min / mean / max)")
    res = []
    for b, r1, rn in zip(scaled, one, many):
        eff = r1["seconds"] / rn["seconds"] if rn["seconds"] > 0 else float("inf")
        bs = rn["bytes_sent"]
        res.append({"name": b.name, "size_1": r1["size"], "size_n": rn["size"],
                    "t1": r1["seconds"], "tn": rn["seconds"], "efficiency": eff,
                    "bytes_sent": bs, "messages_sent": rn["messages_sent"],
                    "agree": rn["agree"]})
        out(f"{b.name:<15}{b.label(r1['size']):>18}{b.label(rn['size']):>18}"
            f"{r1['seconds']:>9.4f}{rn['seconds']:>9.4f}{eff:>7.2f}  "
            f"{min(bs):,} / {sum(bs) / len(bs):,.0f} / {max(bs):,}")
    return res


def _summary(rows, avail, scaling, args, out):
    targeted = [r for r in rows if r["target"] is not None]
    out(f"\ntargets met: {sum(bool(r['met']) for r in targeted)} of {len(targeted)}"
        f" (speedup = NumPy time / cupynum time, median of {args.repeat} after a warm-up run; "
        f"small_* rows: microseconds per op, target: at most 2x NumPy's time)")
    bad = [r["name"] for r in rows if not r["check"]]
    out(f"result checks: {len(rows) - len(bad)} of {len(rows)} agree with NumPy"
        + (f"; MISMATCH: {', '.join(bad)}" if bad else ""))
    mem = [r for r in rows if _memory_ok(r) is not None]
    if mem:
        hi = [r["name"] for r in mem if not _memory_ok(r)]
        out(f"peak memory (RSS growth, fresh process each"
            f"{', cupynum on one rank' if args.ranks else ''}): cupynum within NumPy's "
            f"(+5% + 4 MiB) on {len(mem) - len(hi)} of {len(mem)}"
            + (f"; higher on: {', '.join(hi)}" if hi else ""))
    for p in avail:
        ran = [r for r in rows if p.name in r["peers"]]
        ahead = [r for r in ran if r["cupynum"] < r["peers"][p.name]["seconds"]]
        wrong = [r["name"] for r in ran if not r["peers"][p.name]["check"]]
        out(f"{p.name}: ran {len(ran)} programs; cupynum ahead on {len(ahead)}"
            + (f" ({', '.join(r['name'] for r in ahead)})" if ahead else "")
            + (f"; its result differs from NumPy's (!) on {', '.join(wrong)}" if wrong else ""))
    for r in rows:
        if r.get("fallbacks"):
            out(f"{r['name']}: cupynum fell back to NumPy for {', '.join(r['fallbacks'])}")
    for b in (BENCHMARKS[r["name"]] for r in rows):
        if b.notes:
            out(f"{b.name}: {b.notes}")
    out(f"load average at the end {os.getloadavg()[0]:.2f} (a busy machine makes times noisy)")


def main(argv=None):
    argv = sys.argv[1:] if argv is None else list(argv)
    if argv[:1] == ["scale"]:   # weak scaling on 1..4 ranks and its projection (benchmarks/scale.py)
        from . import scale
        return scale.main(argv[1:])
    p = argparse.ArgumentParser(prog="python -m benchmarks", description=__doc__.split("\n")[2])
    p.add_argument("names", nargs="*",
                   help=f"programs (default all): {', '.join(list(BENCHMARKS) + list(GROUPS))}; "
                        f"or kernels [names]: {', '.join(kernels.KERNELS)}; or scale [options]")
    p.add_argument("--repeat", type=int, default=5, help="timed runs per program (median)")
    p.add_argument("--quick", action="store_true", help="sizes 10-100x smaller (smoke test)")
    p.add_argument("--ranks", type=int, default=0, help="run the cupynum side on N MPI ranks")
    p.add_argument("--plot", action="store_true", help="PNG charts into docs/benchmarks/")
    p.add_argument("--json", metavar="PATH", help="save every measurement as JSON")
    p.add_argument("--no-memory", action="store_true", help="skip the peak-memory processes")
    p.add_argument("--no-peers", action="store_true", help="skip numexpr, Dask, cuPyNumeric")
    args = p.parse_args(argv)
    if args.repeat < 1:
        p.error("--repeat must be at least 1")
    if args.ranks < 0:
        p.error("--ranks must be positive")
    if cupynum.runtime_info()["ranks"] > 1:
        p.error("run the suite as one process; --ranks N launches the MPI ranks itself")
    if args.names[:1] == ["kernels"]:
        try:
            _, ok = kernels.run(args.names[1:], args.quick, args.repeat)
        except ValueError as e:
            p.error(str(e))
        return 0 if ok else 1
    try:
        select(args.names)
    except ValueError as e:
        p.error(str(e))
    rows, scaling = run_suite(args)
    kernels_ok = True
    if not args.names and not args.ranks:
        _, kernels_ok = kernels.run([], args.quick, args.repeat)
    if args.json:
        with open(args.json, "w") as fh:
            json.dump({"machine": {"cores": os.cpu_count(), "platform": platform.platform(),
                                   "numpy": numpy.__version__,
                                   "cupynum": cupynum.runtime_info()},
                       "args": vars(args), "rows": rows, "scaling": scaling}, fh, indent=1)
        print(f"saved {args.json}")
    if args.plot:
        from .plot import plot
        for line in plot(rows, scaling):
            print(line)
    return 0 if kernels_ok and all(r["check"] for r in rows) else 1


if __name__ == "__main__":
    sys.exit(main())
