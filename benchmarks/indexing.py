"""Advanced indexing and selection (issue 15), cupynum against NumPy in the same run.

    python -m benchmarks.indexing [--n N] [--k K] [--repeat R]

On N = 10**7 float64 values (normal draws) and K = 10**6 random indices: the mask assignment
`a[a > t] = 0`, the compaction `a[mask]`, the gather `a[idx]`, the scatter `a[idx] = v`,
`np.add.at(a, idx, 1)` (repeats accumulate), two index arrays at once on the array as
(N/1000, 1000), `take_along_axis`, and `nonzero`.  Each line gives NumPy's time, cupynum's time
including the flush (results read back, assignments synchronised), their ratio numpy / cupynum
(above 1: cupynum is faster) and the issue's target where it names one ("met" / "NOT met"),
each the median of R runs after a warm-up of WARM runs (default 5: a size's first runs in
cupynum time the kernels alone and on the team -- three on the team, two alone -- before the
measured choice settles; a loop of calls sees the settled one); then each side's least CPU time of the R runs
(`time.process_time`, every thread of the process counted: on a shared machine less noisy than
wall time, but a parallel run counts each thread) and their ratio.  Every result is checked
against NumPy's; the first line gives the load average.  The last line is the roofline of the
scatters: K random read-modify-writes (`+= 1`) of float64 elements of an N-element array by a
plain C loop (prefetching, as the kernels do) on one thread and on cupynum's threads each owning
a part of the array, its list split beforehand (`_core.rmw_probe`: no index check, no split, no
Python), and NumPy's add.at time over each: the most any add.at could gain on this machine now."""
import argparse
import os
import time

import numpy

import cupynum

from benchmarks.ufuncs import median_time


def _read(r):
    return numpy.asarray(r)


def min_cpu_time(f, repeat):
    best = None
    for _ in range(repeat):
        t = time.process_time()
        f()
        t = time.process_time() - t
        best = t if best is None or t < best else best
    return best


def main():
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--n", type=int, default=10**7)
    p.add_argument("--k", type=int, default=10**6)
    p.add_argument("--repeat", type=int, default=5)
    p.add_argument("--warm", type=int, default=5, help="runs before the timed ones (default 5)")
    opt = p.parse_args()
    rng = numpy.random.default_rng(0)
    a = rng.standard_normal(opt.n)
    idx = rng.integers(0, opt.n, size=opt.k)
    vals = rng.standard_normal(opt.k)
    rows = opt.n // 1000
    i2, j2 = rng.integers(0, rows, size=opt.k), rng.integers(0, 1000, size=opt.k)
    tak = rng.integers(0, 1000, size=(rows, 8))
    c, ci, cv = cupynum.array(a), cupynum.array(idx), cupynum.array(vals)
    ci2, cj2, ctak = cupynum.array(i2), cupynum.array(j2), cupynum.array(tak)
    m, cm = a > 0.5, c > 0.5
    t = 1.0

    def mask_set(xp, x, *_):
        x[x > t] = 0
        if xp is cupynum:
            cupynum.sync()
        return x

    def scatter(xp, x, i, v):
        x[i] = v
        if xp is cupynum:
            cupynum.sync()
        return x

    def add_at(xp, x, i, v):
        xp.add.at(x, i, 1.0)
        if xp is cupynum:
            cupynum.sync()
        return x

    cases = [
        # name, f(xp, x, *args), numpy args, cupynum args, target (x NumPy), in place
        ("a[a > t] = 0", mask_set, (a.copy(),), (c.copy(),), 2.0, True),
        ("a[mask]", lambda xp, x, mm: _read(x[mm]), (a, m), (c, cm), 1.5, False),
        ("a[idx] (1e6 idx)", lambda xp, x, i: _read(x[i]), (a, idx), (c, ci), 1.5, False),
        ("a[idx] = v", scatter, (a.copy(), idx, vals), (c.copy(), ci, cv), None, True),
        ("add.at(a, idx, 1)", add_at, (a.copy(), idx, vals), (c.copy(), ci, cv), 3.0, True),
        ("a2[i, j] (two arrays)", lambda xp, x, i, j: _read(x[i, j]),
         (a.reshape(rows, 1000), i2, j2), (cupynum.reshape(c, (rows, 1000)), ci2, cj2), None,
         False),
        ("take_along_axis", lambda xp, x, i: _read(xp.take_along_axis(x, i, axis=1)),
         (a.reshape(rows, 1000), tak), (cupynum.reshape(c, (rows, 1000)), ctak), None, False),
        ("nonzero(mask)", lambda xp, mm: _read(xp.nonzero(mm)[0]), (m,), (cm,), None, False),
    ]
    info = cupynum.runtime_info()
    load = "%.2f %.2f %.2f" % os.getloadavg()
    print(f"# {opt.n} float64 elements, {opt.k} indices, median of {opt.repeat}; cupynum "
          f"threads={info['threads']} ranks={info['ranks']}; load average {load}")
    print(f"{'case':24s} {'numpy s':>9s} {'cupynum s':>10s} {'x numpy':>8s} {'target':>13s} "
          f"{'np cpu s':>9s} {'cp cpu s':>9s} {'x cpu':>6s}")
    numpy_times = {}
    for name, f, na, ca, target, inplace in cases:
        exp, got = f(numpy, *na), f(cupynum, *ca)            # warm-up, and the check
        for _ in range(opt.warm - 1):
            f(numpy, *na), f(cupynum, *ca)
        if inplace:
            # repeated runs see the same work: the mask set is idempotent; scatter/add.at
            # accumulate on both sides alike
            numpy.testing.assert_array_equal(_read(ca[0]), na[0])
        else:
            numpy.testing.assert_array_equal(got, exp)
        tn = median_time(lambda: f(numpy, *na), opt.repeat)
        tc = median_time(lambda: f(cupynum, *ca), opt.repeat)
        pn = min_cpu_time(lambda: f(numpy, *na), opt.repeat)
        pc = min_cpu_time(lambda: f(cupynum, *ca), opt.repeat)
        if inplace:
            numpy.testing.assert_array_equal(_read(ca[0]), na[0])
        numpy_times[name] = tn
        ratio = tn / tc
        goal = "" if target is None else f"{target:.1f}x " + ("met" if ratio >= target else "NOT met")
        print(f"{name:24s} {tn:9.4f} {tc:10.4f} {ratio:7.2f}x {goal:>13s} "
              f"{pn:9.4f} {pc:9.4f} {pn / max(pc, 1e-9):5.2f}x")

    cupynum.sync()
    bound = []
    for nth in sorted({1, info['threads']}):
        ts = sorted(cupynum._core.rmw_probe(opt.n, opt.k, nth, opt.repeat))
        bound.append(f"{nth} thread{'s' if nth > 1 else ''} {ts[len(ts) // 2]:.4f} s "
                     f"({numpy_times['add.at(a, idx, 1)'] / ts[len(ts) // 2]:.2f}x numpy add.at)")
    print(f"# roofline, {opt.k} random += of float64 in {opt.n * 8 >> 20} MiB (plain C, list split "
          f"beforehand), median of {opt.repeat}: " + ", ".join(bound) +
          f"; load average {'%.2f %.2f %.2f' % os.getloadavg()}")


if __name__ == "__main__":
    main()
