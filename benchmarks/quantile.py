"""median / percentile / quantile, cupynum against NumPy in the same run.

    python -m benchmarks.quantile [--n N] [--repeat R]

On N = 10**7 float64 values (normal draws): the whole array (one lane: one introselect, as
NumPy's partition), and the same data as (1000, N/1000) reduced along axis 1 (many lanes, which
cupynum spreads over its threads), and along axis 0 (strided lanes).  Under mpirun the (1000,
N/1000) array is its own tiled store: reduced along the axis its tiling cuts, it is first copied
into slabs along the other (about (P - 1) / P of a rank's part sent), along the other axis only
the results move.  Each line gives NumPy's
time, cupynum's time including the flush (the result is read back), and the ratio cupynum /
NumPy (below 1: cupynum is faster), each the median of R runs; under mpirun also the bytes one
call sends per rank, as a fraction of the rank's part (each rank times NumPy on the whole array:
the ratio is not a scaling figure)."""
import argparse

import numpy

import cupynum

from benchmarks.ufuncs import median_time


def main():
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--n", type=int, default=10**7)
    p.add_argument("--repeat", type=int, default=5)
    opt = p.parse_args()
    a = numpy.random.default_rng(0).standard_normal(opt.n)
    c = cupynum.array(a)
    a2 = a.reshape(1000, -1)
    c2 = cupynum.array(a2)     # its own 2-D store (row slabs under mpirun), not a view of c
    cases = [
        ("median", lambda xp, x: xp.median(x), (a, c)),
        ("percentile [25,50,75]", lambda xp, x: xp.percentile(x, [25, 50, 75]), (a, c)),
        ("quantile 0.3 hazen", lambda xp, x: xp.quantile(x, 0.3, method="hazen"), (a, c)),
        ("median axis=1 (1000 lanes)", lambda xp, x: xp.median(x, axis=1), (a2, c2)),
        ("percentile 90 axis=1", lambda xp, x: xp.percentile(x, 90, axis=1), (a2, c2)),
        ("median axis=0", lambda xp, x: xp.median(x, axis=0), (a2, c2)),
        ("quantile [.1,.9] axis=0", lambda xp, x: xp.quantile(x, [0.1, 0.9], axis=0), (a2, c2)),
    ]
    info = cupynum.runtime_info()
    print(f"# {opt.n} float64 elements, median of {opt.repeat}; cupynum threads={info['threads']} "
          f"ranks={info['ranks']}")
    print(f"{'case':30s} {'numpy s':>10s} {'cupynum s':>10s} {'ratio':>7s}"
          + (f" {'sent/part':>9s}" if info["ranks"] > 1 else ""))
    for name, f, (xn, xc) in cases:
        numpy.asarray(f(numpy, xn)), numpy.asarray(f(cupynum, xc))     # warm-up
        tn = median_time(lambda: numpy.asarray(f(numpy, xn)), opt.repeat)
        tc = median_time(lambda: numpy.asarray(f(cupynum, xc)), opt.repeat)
        cupynum.sync()
        cupynum.reset_stats()
        numpy.testing.assert_array_equal(numpy.asarray(f(cupynum, xc)), f(numpy, xn))
        sent = cupynum.runtime_stats()["bytes_sent"] / (a.nbytes / info["ranks"])
        print(f"{name:30s} {tn:10.4f} {tc:10.4f} {tc / tn:7.2f}"
              + (f" {sent:9.3f}" if info["ranks"] > 1 else ""))


if __name__ == "__main__":
    main()
