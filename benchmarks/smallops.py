"""Everyday calls on small and medium arrays (per-call host cost), cupynum against NumPy in the
same run.

    python -m benchmarks.smallops [--n N ...] [--repeat R]

For each call (indexing by index and mask arrays, mask assignments, where, reductions, joins,
scans, clip, norm, einsum, sort...) on arrays of N elements (default 100 and 10,000): NumPy's
median time, cupynum's median time including the flush (`cupynum.sync()`, or the Python scalar
the call returns) and their ratio numpy / cupynum (above 1: cupynum is faster).  Every cupynum
result is checked against NumPy's first.  The first line gives the load average."""
import argparse
import os
import time

import numpy

import cupynum


def median_us(f, repeat):
    f()
    ts = []
    for _ in range(repeat):
        t = time.perf_counter()
        f()
        ts.append(time.perf_counter() - t)
    ts.sort()
    return ts[len(ts) // 2] * 1e6


def _synced(f):
    def g():
        r = f()
        cupynum.sync()
        return r
    return g


def cases(n, rng):
    a, b = rng.standard_normal(n), rng.standard_normal(n)
    m, idx = a > 0.5, rng.integers(-n, n, size=max(n // 10, 1))
    side = max(int(n ** 0.5), 2)
    A = rng.standard_normal((side, side))
    ca, cb, cm, ci, cA = (cupynum.array(x) for x in (a, b, m, idx, A))
    w, cw = a.copy(), cupynum.array(a)

    def mask_set(xp, x, mm):
        x[mm] = 0.0
        return x

    def mask_add(xp, x, mm):
        x[mm] += 1.0
        return x
    # name, f(xp, *args), NumPy args, cupynum args
    return [
        ("a[mask]", lambda xp, x, mm: x[mm], (a, m), (ca, cm)),
        ("a[idx]", lambda xp, x, i: x[i], (a, idx), (ca, ci)),
        ("a[mask] = 0", mask_set, (w, m), (cw, cm)),
        ("a[mask] += 1", mask_add, (w, m), (cw, cm)),
        ("where(m, a, 0.0)", lambda xp, mm, x: xp.where(mm, x, 0.0), (m, a), (cm, ca)),
        ("nonzero", lambda xp, mm: xp.nonzero(mm)[0], (m,), (cm,)),
        ("take", lambda xp, x, i: xp.take(x, i), (a, idx), (ca, ci)),
        ("count_nonzero", lambda xp, mm: xp.count_nonzero(mm), (m,), (cm,)),
        ("(a > 2).any()", lambda xp, x: (x > 2).any(), (a,), (ca,)),
        ("mean", lambda xp, x: xp.mean(x), (a,), (ca,)),
        ("std", lambda xp, x: xp.std(x), (a,), (ca,)),
        ("sum(a * b)", lambda xp, x, y: xp.sum(x * y), (a, b), (ca, cb)),
        ("argmax", lambda xp, x: xp.argmax(x), (a,), (ca,)),
        ("linalg.norm", lambda xp, x: xp.linalg.norm(x), (a,), (ca,)),
        ("clip", lambda xp, x: xp.clip(x, -1.0, 1.0), (a,), (ca,)),
        ("cumsum", lambda xp, x: xp.cumsum(x), (a,), (ca,)),
        ("concatenate", lambda xp, x, y: xp.concatenate([x, y]), (a, b), (ca, cb)),
        ("sort", lambda xp, x: xp.sort(x), (a,), (ca,)),
        ("a[1:-1] + a[2:]", lambda xp, x: x[1:-1] + x[2:], (a,), (ca,)),
        ("einsum ij,j->i", lambda xp, X: xp.einsum("ij,j->i", X, X[0]), (A,), (cA,)),
        ("A @ A", lambda xp, X: X @ X, (A,), (cA,)),
        ("A.sum(axis=0)", lambda xp, X: X.sum(axis=0), (A,), (cA,)),
    ]


def main():
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--n", type=int, nargs="*", default=[100, 10_000])
    p.add_argument("--repeat", type=int, default=2000)
    opt = p.parse_args()
    print(f"# small and medium calls, median of {opt.repeat}; load average "
          f"{' '.join('%.2f' % x for x in os.getloadavg())}")
    print(f"{'n':>7s} {'call':18s} {'numpy us':>9s} {'cupynum us':>11s} {'x numpy':>8s}")
    ratios = []
    for n in opt.n:
        for name, f, na, ca in cases(n, numpy.random.default_rng(n)):
            exp = f(numpy, *na)
            got = _synced(lambda: f(cupynum, *ca))()
            numpy.testing.assert_allclose(numpy.asarray(got), exp, rtol=1e-12, atol=0)
            tn = median_us(lambda: f(numpy, *na), opt.repeat)
            tc = median_us(_synced(lambda: f(cupynum, *ca)), opt.repeat)
            ratios.append(tn / tc)
            print(f"{n:7d} {name:18s} {tn:9.2f} {tc:11.2f} {tn / tc:7.2f}x", flush=True)
    gm = numpy.exp(numpy.mean(numpy.log(ratios)))
    print(f"geometric mean x numpy: {gm:.2f} over {len(ratios)} calls; load average at the end "
          f"{' '.join('%.2f' % x for x in os.getloadavg())}")


if __name__ == "__main__":
    main()
