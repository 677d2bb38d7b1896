"""python -m benchmarks [names...]: each program runs on NumPy and on cupynum in this process;
prints both times (median of --repeat runs), the ratio NumPy/cupynum (> 1: cupynum is faster)
and whether the results agree.

The fusion-and-threads issue grows this into the full suite (peers, --ranks, plots)."""
import argparse
import statistics
import sys
import time

import numpy

import cupynum


def stencil(np, n=2000, iters=20):
    grid = np.zeros((n + 2, n + 2))
    grid[0, :] = 40.0
    grid[-1, :] = -273.15
    center, north, south = grid[1:-1, 1:-1], grid[0:-2, 1:-1], grid[2:, 1:-1]
    east, west = grid[1:-1, 2:], grid[1:-1, 0:-2]
    for _ in range(iters):
        center[:] = 0.2 * (center + north + east + west + south)
    return float(grid.sum())


def pi(np, n=10_000_000):
    np.random.seed(7)
    x = np.random.uniform(size=n)
    y = np.random.uniform(size=n)
    return 4.0 * float(np.sum(x * x + y * y < 1.0)) / n


def chain(np, n=4_000_000):
    a = np.arange(n, dtype=np.float64) * 1e-6
    b = (a * 1.5 + 2.0) * (a - 0.5) / (a + 3.0)
    return float(b[n // 3])


def reductions(np, n=2000):
    a = np.arange(n * n, dtype=np.float64).reshape(n, n) * 1e-3
    return float(a.sum() + a.sum(axis=1)[7] + a.max(axis=0)[5] + a.mean())


def small_ops(np, reps=20000):
    a = np.arange(100, dtype=np.float64)
    b = a
    for _ in range(reps):
        b = a + 1.0
    return float(b[3])


BENCHMARKS = {"stencil": stencil, "pi": pi, "chain": chain, "reductions": reductions,
              "small_ops": small_ops}


def timed(f, mod, repeat):
    times, result = [], None
    for _ in range(repeat):
        t0 = time.perf_counter()
        result = f(mod)
        if mod is cupynum:
            cupynum.sync()
        times.append(time.perf_counter() - t0)
    return statistics.median(times), result


def main(argv=None):
    p = argparse.ArgumentParser(prog="python -m benchmarks")
    p.add_argument("names", nargs="*", default=list(BENCHMARKS))
    p.add_argument("--repeat", type=int, default=5)
    args = p.parse_args(argv)
    print(f"cupynum {cupynum.runtime_info()}")
    print(f"{'benchmark':<12}{'numpy s':>10}{'cupynum s':>11}{'ratio':>8}  result check")
    for name in args.names:
        f = BENCHMARKS[name]
        tn, rn = timed(f, numpy, args.repeat)
        tc, rc = timed(f, cupynum, args.repeat)
        if name == "pi":
            ok = abs(rc - rn) < 0.01   # different random streams: statistical agreement
        else:
            ok = abs(rc - rn) <= 1e-9 * max(1.0, abs(rn))
        print(f"{name:<12}{tn:>10.4f}{tc:>11.4f}{tn / tc:>8.2f}  {'ok' if ok else 'MISMATCH'} "
              f"({rn:.10g} vs {rc:.10g})")
    return 0


if __name__ == "__main__":
    sys.exit(main())
