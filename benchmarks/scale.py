"""Weak scaling, measured on 1..4 ranks and projected to 1,024 (issue #23).

    python -m benchmarks.scale [--ranks 1,2,3,4] [--quick] [--write] [--same-grid stencil,jacobi,swe]

Each program runs under `mpirun -np P` (oversubscribed, `mpi_yield_when_idle`, one thread per
rank) at constant work per rank: the seed stencil and the benchmark's Jacobi on an n x n block per
rank, `examples/swe.py` on nx x ny cells per rank, a sum of n^2 elements per rank and a matmul of
an (n P) x k by k x k product, a sort of n^2 values per rank (the sample sort).  Per rank it prints time per iteration, efficiency against one rank,
bytes and messages sent, bytes allocated and ops per iteration.

Then the same grid (that of 2 ranks) as 1 rank x 1 thread, 1 rank x 2 threads and 2 ranks x 1
thread: the speedup of each over 1 x 1 (threads and ranks should compose).

From the measured figures a LogGP-style model projects the efficiency at 8 ... 1,024 ranks:

    T(P) = T_1 + D + M(P) (L + o) + B(P) / G + C log2(P) (L + o)

T_1: one rank's time per iteration at the per-rank size; D: the distributed path's own cost per
iteration at 2 ranks beyond its messages (measured, clamped at 0; it does not grow with P: each
rank runs the same ops on the same tile); M(P), B(P): messages and bytes per iteration of the
busiest rank, taken from the largest measured rank count (a 2-D tiling's interior rank has four
neighbours from P = 4 on: the counts no longer grow); C: collectives per iteration (reductions,
allreduce as a tree).  Assumed machine: L = 2 us latency, o = 1 us per-message host overhead,
G = 25 GB/s per link.  What the model leaves out is stated in docs/architecture.md
("Weak-scaling model").  --write stores the tables in docs/benchmarks/scale.md (and scale.png
when matplotlib is installed).
"""
import argparse
import json
import math
import os
import shutil
import subprocess
import sys
import time

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
LATENCY = 2e-6       # s per message, network
OVERHEAD = 1e-6      # s per message, host (MPI call, packing of a small piece)
BANDWIDTH = 25e9     # bytes/s per link
PROJECT = [8, 16, 32, 64, 128, 256, 512, 1024]


# ---- the programs, at constant work per rank ---------------------------------------------------

def _factor(p):
    a = next(x for x in range(int(p ** 0.5), 0, -1) if p % x == 0)
    return p // a, a


def stencil(np, p, n):
    ra, ca = _factor(p)
    grid = np.zeros((n * ra + 2, n * ca + 2))
    grid[0, :] = 40.0
    center, north, south = grid[1:-1, 1:-1], grid[0:-2, 1:-1], grid[2:, 1:-1]
    east, west = grid[1:-1, 2:], grid[1:-1, 0:-2]

    def step():
        center[:] = 0.2 * (center + north + east + west + south)
    return step, 0, lambda: float(grid.sum())


def jacobi(np, p, n):
    ra, ca = _factor(p)
    u = np.zeros((n * ra + 2, n * ca + 2))
    v = np.zeros((n * ra + 2, n * ca + 2))
    u[0, :] = 1.0
    f = np.ones((n * ra, n * ca)) * 1e-6
    state = [u, v]

    def step():
        u, v = state
        v[1:-1, 1:-1] = 0.25 * (u[:-2, 1:-1] + u[2:, 1:-1] + u[1:-1, :-2] + u[1:-1, 2:] + f)
        state.reverse()
    return step, 0, lambda: float(state[0].sum())


def swe(np, p, n):
    """examples/swe.py's SSP-RK2 step on n x n/2 cells per rank."""
    sys.path.insert(0, os.path.join(ROOT, "examples"))
    import swe as m
    nx, ny = n * p, n // 2
    h, hu, hv, dx, dy = m.initial(np, nx, ny)
    dt = 0.2 * min(dx, dy) / (3.0 * m.G ** 0.5)
    inner = (slice(m.NG, -m.NG), slice(m.NG, -m.NG))

    def step():
        k = m.rhs(np, h, hu, hv, dx, dy)
        h1, hu1, hv1 = h.copy(), hu.copy(), hv.copy()
        for q1, kq in zip((h1, hu1, hv1), k):
            q1[inner] += dt * kq
        m.dry_out(h1, hu1, hv1)
        k = m.rhs(np, h1, hu1, hv1, dx, dy)
        for q, q1, kq in zip((h, hu, hv), (h1, hu1, hv1), k):
            q[inner] = 0.5 * q[inner] + 0.5 * (q1[inner] + dt * kq)
        m.dry_out(h, hu, hv)
    return step, 0, lambda: m.checksum(np, h, hu, hv, nx, ny)


def reduction(np, p, n):
    x = np.arange(float(n * n * p)) * 1e-9
    out = []

    def step():
        out.append(np.sum(x * x))
        if len(out) > 4:
            float(out.pop(0))
    return step, 1, lambda: float(out[-1])


def matmul(np, p, n):
    k = max(64, n // 4)
    a = np.ones((n * p, k)) * 0.5
    b = np.ones((k, k)) * 0.25
    out = []

    def step():
        out.append(a @ b)
        if len(out) > 2:
            out.pop(0)
    return step, 0, lambda: float(out[-1].sum())


def sort(np, p, n):
    """np.sort of n^2 scattered float64 values per rank: the sample sort (issue #16)."""
    x = (np.arange(float(n * n * p)) * 0.6180339887498949) % 1.0
    out = []

    def step():
        out.append(np.sort(x))
        if len(out) > 2:
            out.pop(0)
    return step, 2, lambda: float(out[-1][n * n * p // 3]) + float(out[-1][-1])


PROGRAMS = {"stencil": (stencil, 4000, 300), "jacobi": (jacobi, 2000, 200),
            "swe": (swe, 400, 100), "reduction": (reduction, 1400, 300),
            "matmul": (matmul, 1000, 200), "sort": (sort, 1000, 200)}


def result(xp, name, p, n, iters):
    """The program's checksum after `iters` steps with array module xp (tests compare NumPy's)."""
    step, _, value = PROGRAMS[name][0](xp, p, n)
    for _ in range(iters):
        step()
    return value()


# ---- one job (every rank runs this) ------------------------------------------------------------

def worker(name, n, iters, grid_ranks=0):
    import cupynum as np
    info = np.runtime_info()
    p = info["ranks"]
    # grid_ranks > 0: the problem of that many ranks whatever the rank count (the same grid)
    step, collectives, _ = PROGRAMS[name][0](np, grid_ranks or p, n)
    for _ in range(2):
        step()
    np.sync()
    np.reset_stats()
    allocated0 = np.runtime_stats()["bytes_allocated"]   # a running total: the loop's is the difference
    t0 = time.perf_counter()
    for _ in range(iters):
        step()
    np.sync()
    dt = (time.perf_counter() - t0) / iters
    s = np.runtime_stats()
    row = {"program": name, "ranks": p, "rank": info["rank"], "n": n, "s_per_iter": dt,
           "bytes_sent": s["bytes_sent"] / iters, "messages": s["messages_sent"] / iters,
           "bytes_allocated": (s["bytes_allocated"] - allocated0) / iters, "ops": s["ops_executed"] / iters,
           "collectives": collectives}
    sys.stdout.write("SCALE " + json.dumps(row) + "\n")
    sys.stdout.flush()


def run_job(name, p, n, iters, threads=1, grid_ranks=0):
    env = {k: v for k, v in os.environ.items() if not k.startswith(("OMPI_", "PMIX_", "CUPYNUM_"))}
    env.update(OMPI_ALLOW_RUN_AS_ROOT="1", OMPI_ALLOW_RUN_AS_ROOT_CONFIRM="1",
               CUPYNUM_OUTPUT="all", CUPYNUM_THREADS=str(threads), PYTHONPATH=ROOT)
    cmd = [shutil.which("mpirun") or "mpirun", "-np", str(p), "--oversubscribe", "--mca",
           "mpi_yield_when_idle", "1", "-x", "CUPYNUM_OUTPUT", "-x", "CUPYNUM_THREADS",
           "-x", "PYTHONPATH", sys.executable, "-m", "benchmarks.scale", "--worker", name,
           str(n), str(iters), str(grid_ranks)]
    out = subprocess.run(cmd, env=env, capture_output=True, text=True, timeout=600, cwd=ROOT)
    rows = [json.loads(line.split("SCALE ", 1)[1]) for line in out.stdout.splitlines()
            if "SCALE " in line]
    if out.returncode != 0 or len(rows) != p:
        raise RuntimeError(f"{name} on {p} ranks failed ({out.returncode}): {out.stderr[-1500:]}")
    return sorted(rows, key=lambda r: r["rank"])


# ---- the model ---------------------------------------------------------------------------------

def project(measured):
    """measured: {ranks: [rows]} of one program.  Returns (inputs, [(P, efficiency)])."""
    t1 = max(r["s_per_iter"] for r in measured[1])
    top = max(measured)
    busiest = max(measured[top], key=lambda r: r["messages"])
    m, b = busiest["messages"], max(r["bytes_sent"] for r in measured[top])
    c = busiest["collectives"]
    d = 0.0
    if 2 in measured:
        t2 = max(r["s_per_iter"] for r in measured[2])
        b2 = max(r["bytes_sent"] for r in measured[2])
        m2 = max(r["messages"] for r in measured[2])
        # on this machine the messages cost memory copies, not network: what remains of the
        # 2-rank time after them is the distributed path's own cost
        d = max(0.0, t2 - t1 - m2 * (LATENCY + OVERHEAD) - b2 / BANDWIDTH)
    inputs = {"T1_s": t1, "D_s": d, "messages": m, "bytes": b, "collectives": c}
    table = []
    for p in PROJECT:
        t = t1 + d + m * (LATENCY + OVERHEAD) + b / BANDWIDTH + c * math.log2(p) * (LATENCY + OVERHEAD)
        table.append((p, t1 / t))
    return inputs, table


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--ranks", default="1,2,3,4")
    ap.add_argument("--quick", action="store_true", help="small blocks (a smoke test)")
    ap.add_argument("--iters", type=int, default=10)
    ap.add_argument("--programs", default=",".join(PROGRAMS))
    ap.add_argument("--write", action="store_true", help="tables into docs/benchmarks/scale.md")
    ap.add_argument("--same-grid", default="stencil,jacobi,swe",
                    help="programs also run on one grid (that of 2 ranks) as 1 rank x 1 thread, "
                         "1 rank x 2 threads and 2 ranks x 1 thread ('' for none)")
    ap.add_argument("--worker", nargs=4, metavar=("NAME", "N", "ITERS", "GRID_RANKS"), help=argparse.SUPPRESS)
    args = ap.parse_args(argv)
    if args.worker:
        worker(args.worker[0], int(args.worker[1]), int(args.worker[2]), int(args.worker[3]))
        return 0
    ranks = [int(x) for x in args.ranks.split(",")]
    lines = [f"load average {os.getloadavg()[0]:.2f}; {os.cpu_count()} cores; one thread per rank; "
             f"assumed L = {LATENCY * 1e6:g} us, o = {OVERHEAD * 1e6:g} us, G = {BANDWIDTH / 1e9:g} GB/s", ""]
    lines.append("| program | ranks | block | ms/iter (max rank) | efficiency | KB sent/iter | msgs/iter "
                 "| MB allocated/iter | ops/iter |")
    lines.append("|---|---|---|---|---|---|---|---|---|")
    projections = {}
    for name in args.programs.split(","):
        make, n_full, n_quick = PROGRAMS[name]
        n = n_quick if args.quick else n_full
        measured = {}
        for p in ranks:
            measured[p] = run_job(name, p, n, args.iters)
        t1 = max(r["s_per_iter"] for r in measured[ranks[0]])
        for p in ranks:
            rows = measured[p]
            t = max(r["s_per_iter"] for r in rows)
            lines.append(f"| {name} | {p} | {n} | {t * 1e3:.2f} | {t1 / t:.2f} | "
                         f"{max(r['bytes_sent'] for r in rows) / 1e3:.1f} | "
                         f"{max(r['messages'] for r in rows):.1f} | "
                         f"{max(r['bytes_allocated'] for r in rows) / 1e6:.2f} | "
                         f"{max(r['ops'] for r in rows):.1f} |")
        if 1 in measured:
            projections[name] = project(measured)
    lines += ["", "Projected weak-scaling efficiency (LogGP-style model, module docstring):", ""]
    lines.append("| program | T1 ms | D ms | msgs | KB | coll | " + " | ".join(f"P={p}" for p in PROJECT) + " |")
    lines.append("|---|---|---|---|---|---|" + "---|" * len(PROJECT))
    for name, (inp, table) in projections.items():
        lines.append(f"| {name} | {inp['T1_s'] * 1e3:.2f} | {inp['D_s'] * 1e3:.2f} | {inp['messages']:.0f} | "
                     f"{inp['bytes'] / 1e3:.1f} | {inp['collectives']} | "
                     + " | ".join(f"{e:.2f}" for _, e in table) + " |")
    same = [x for x in args.same_grid.split(",") if x]
    if same:
        lines += ["", "Same grid (that of 2 ranks above), ranks x threads on the 2 cores: ms/iter of the "
                  "slowest rank and the speedup over 1 x 1 (issue #23: 2 x 1 at least 1.7x for the stencil; "
                  "1 x 2 and 2 x 1 about the same):", ""]
        lines.append("| program | block | 1 x 1 ms | 1 x 2 ms | 2 x 1 ms | 1 x 2 speedup | 2 x 1 speedup |")
        lines.append("|---|---|---|---|---|---|---|")
        for name in same:
            n = PROGRAMS[name][2] if args.quick else PROGRAMS[name][1]
            t = {}
            for p, th in ((1, 1), (1, 2), (2, 1)):
                t[p, th] = max(r["s_per_iter"] for r in run_job(name, p, n, args.iters, th, grid_ranks=2))
            lines.append(f"| {name} | {n} | {t[1, 1] * 1e3:.2f} | {t[1, 2] * 1e3:.2f} | {t[2, 1] * 1e3:.2f} | "
                         f"{t[1, 1] / t[1, 2]:.2f} | {t[1, 1] / t[2, 1]:.2f} |")
    text = "\n".join(lines)
    print(text)
    if args.write:
        out = os.path.join(ROOT, "docs", "benchmarks", "scale.md")
        with open(out, "w") as f:
            f.write("# Weak scaling: measured and projected (`python -m benchmarks.scale --write`)\n\n"
                    + text + "\n")
        print(f"wrote {out}")
        try:
            import matplotlib
            matplotlib.use("Agg")
            import matplotlib.pyplot as plt
            fig, ax = plt.subplots(figsize=(7, 4))
            for name, (_, table) in projections.items():
                ax.plot([p for p, _ in table], [e for _, e in table], marker="o", label=name)
            ax.set_xscale("log", base=2)
            ax.set_ylim(0, 1.05)
            ax.set_xlabel("ranks")
            ax.set_ylabel("projected weak-scaling efficiency")
            ax.legend()
            fig.savefig(os.path.join(ROOT, "docs", "benchmarks", "scale.png"), dpi=100)
        except ImportError:
            print("matplotlib is not installed: no scale.png")
    return 0


if __name__ == "__main__":
    sys.exit(main())
