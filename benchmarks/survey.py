"""Everyday NumPy calls of scientific scripts at three sizes, cupynum against NumPy in the same run.

    python -m benchmarks.survey [--n N ...] [--budget S] [--repeat R] [--only TEXT ...]

The calls `benchmarks.smallops` does not time: shifts and differences, scans and reductions along
an axis, grids, convolution, interpolation, histograms, sets, sorting along axes, quantiles,
closeness tests, ufunc chains, powers, joins, padding and tiling, triangles, small linear algebra,
NaN reductions, list conversions, strided, masked and row reads.  Each runs on arrays of N
elements (default 10^3, 10^5 and 10^6; 2-d of about sqrt(N) x sqrt(N) where natural).  Every
cupynum result is checked against NumPy's first (values, dtype, shape), then both are timed: the
median of up to R calls or of what fits in S seconds, cupynum's including the flush
(`cupynum.sync()`, or the Python value the call returns).  A row prints NumPy's time, cupynum's,
and the ratio numpy / cupynum (above 1: cupynum is faster); `F` marks a call that went through
the NumPy fallback.  The end gives the geometric mean per size and overall, and the load
average."""
import argparse
import os
import time
import warnings

import numpy

import cupynum

from .smallops import _synced


def median_us(f, repeat, budget):
    t = time.perf_counter()
    f()
    first = time.perf_counter() - t
    reps = int(min(repeat, max(3, budget / max(first, 1e-7))))
    ts = []
    for _ in range(reps):
        t = time.perf_counter()
        f()
        ts.append(time.perf_counter() - t)
    ts.sort()
    return ts[len(ts) // 2] * 1e6


def check(got, exp, name):
    """cupynum's result `got` against NumPy's `exp`: same structure, shape, dtype and values
    (exact for integers and booleans, to 1e-10 relative for floats, whose sums may add in
    another order)."""
    if isinstance(exp, (tuple, list)) and not isinstance(exp, numpy.ndarray):
        if type(got) is not type(exp) and not (name == "tolist" and isinstance(got, list)):
            raise AssertionError(f"{name}: {type(got).__name__} instead of {type(exp).__name__}")
        assert len(got) == len(exp), name
        if name == "tolist":
            assert got == exp, name
            return
        for g, e in zip(got, exp):
            check(g, e, name)
        return
    if isinstance(exp, (bool, int, float, complex)):
        assert type(got) is type(exp), f"{name}: {type(got).__name__} instead of {type(exp)}"
        assert got == exp or abs(got - exp) <= 1e-10 * abs(exp), (name, got, exp)
        return
    g = numpy.asarray(got)
    assert g.shape == exp.shape, (name, g.shape, exp.shape)
    assert g.dtype == exp.dtype, (name, g.dtype, exp.dtype)
    if exp.dtype.kind in "fc":
        numpy.testing.assert_allclose(g, exp, rtol=1e-10, atol=1e-12, err_msg=name)
    else:
        numpy.testing.assert_array_equal(g, exp, err_msg=name)


def cases(n, rng):
    """(name, f(xp, *args), NumPy's args, cupynum's args) for arrays of about n elements."""
    r = max(int(round(n ** 0.5)), 2)
    c = max(n // r, 2)
    a, b = rng.standard_normal(n), rng.standard_normal(n)
    A, B = rng.standard_normal((r, c)), rng.standard_normal((r, c))
    ints = rng.integers(0, 1000, size=n)
    pos = numpy.abs(a) + 0.1
    nan = a.copy()
    nan[rng.integers(0, n, size=max(n // 50, 1))] = numpy.nan
    NA = A.copy()
    NA[rng.integers(0, r, size=max(r // 5, 1)), rng.integers(0, c, size=max(r // 5, 1))] = numpy.nan
    srt = numpy.sort(rng.standard_normal(n))
    q = rng.standard_normal(max(n // 10, 1))
    x, y = numpy.linspace(0.0, 1.0, r), numpy.linspace(-1.0, 1.0, c)
    xp_, fp_ = numpy.sort(rng.uniform(0, 10, max(n // 10, 2))), rng.standard_normal(max(n // 10, 2))
    xq = rng.uniform(-1, 11, n)
    k5 = numpy.array([0.1, 0.2, 0.4, 0.2, 0.1])
    parts = [rng.standard_normal(n // 4) for _ in range(4)]
    vec3 = [rng.standard_normal(n // 3) for _ in range(3)]
    P, Q = rng.standard_normal((n // 3, 3)), rng.standard_normal((n // 3, 3))
    M8 = rng.standard_normal((max(n // 64, 1), 8, 8))
    S4 = rng.standard_normal((max(n // 20, 1), 4, 4)) + 4 * numpy.eye(4)
    s4 = rng.standard_normal((max(n // 20, 1), 4, 1))
    lo, hi = -numpy.abs(b), numpy.abs(b) + 0.5
    rows = rng.integers(0, r, size=max(r // 4, 1))
    lst = a.tolist()
    lst2 = A.tolist()

    args = {}
    for key, val in dict(a=a, b=b, A=A, B=B, ints=ints, pos=pos, nan=nan, NA=NA, srt=srt, q=q, x=x, y=y,
                         xp_=xp_, fp_=fp_, xq=xq, k5=k5, P=P, Q=Q, M8=M8, S4=S4, s4=s4, lo=lo,
                         hi=hi, rows=rows).items():
        args[key] = (val, cupynum.array(val))
    cparts = [cupynum.array(p) for p in parts]
    cvec3 = [cupynum.array(v) for v in vec3]

    def c_(*names):
        return tuple(args[k][0] for k in names), tuple(args[k][1] for k in names)

    def case(name, f, *names):
        na, ca = c_(*names)
        return name, f, na, ca

    return [
        case("roll(a, 3)", lambda xp, v: xp.roll(v, 3), "a"),
        case("roll(A, 1, axis=0)", lambda xp, v: xp.roll(v, 1, axis=0), "A"),
        case("diff(a)", lambda xp, v: xp.diff(v), "a"),
        case("diff(A, axis=0)", lambda xp, v: xp.diff(v, axis=0), "A"),
        case("gradient(a)", lambda xp, v: xp.gradient(v), "a"),
        case("cumsum(A, axis=1)", lambda xp, v: xp.cumsum(v, axis=1), "A"),
        case("cumsum(A, axis=0)", lambda xp, v: xp.cumsum(v, axis=0), "A"),
        ("linspace", lambda xp: xp.linspace(0.0, 1.0, n), (), ()),
        ("arange * 0.5", lambda xp: xp.arange(n) * 0.5, (), ()),
        case("meshgrid(x, y)", lambda xp, u, v: xp.meshgrid(u, v), "x", "y"),
        case("outer(x, y)", lambda xp, u, v: xp.outer(u, v), "x", "y"),
        case("convolve(a, k5)", lambda xp, v, k: xp.convolve(v, k, mode="same"), "a", "k5"),
        case("interp", lambda xp, u, xx, ff: xp.interp(u, xx, ff), "xq", "xp_", "fp_"),
        case("histogram(a, 50)", lambda xp, v: xp.histogram(v, bins=50), "a"),
        case("bincount(ints)", lambda xp, v: xp.bincount(v), "ints"),
        case("unique(ints)", lambda xp, v: xp.unique(v), "ints"),
        case("sort(A, axis=1)", lambda xp, v: xp.sort(v, axis=1), "A"),
        case("sort(A, axis=0)", lambda xp, v: xp.sort(v, axis=0), "A"),
        case("argsort(A, axis=1)", lambda xp, v: xp.argsort(v, axis=1), "A"),
        case("searchsorted", lambda xp, s, v: xp.searchsorted(s, v), "srt", "q"),
        case("percentile 5,50,95", lambda xp, v: xp.percentile(v, [5, 50, 95]), "a"),
        case("median(a)", lambda xp, v: xp.median(v), "a"),
        case("median(A, axis=1)", lambda xp, v: xp.median(v, axis=1), "A"),
        case("isclose(a, b)", lambda xp, u, v: xp.isclose(u, v), "a", "b"),
        case("allclose(a, a)", lambda xp, u: xp.allclose(u, u + 1e-12), "a"),
        case("sqrt(abs)+exp(-a*a)", lambda xp, v: xp.sqrt(xp.abs(v)) + xp.exp(-v * v), "a"),
        case("sin*cos+log(pos)", lambda xp, v, p: xp.sin(v) * xp.cos(v) + xp.log(p), "a", "pos"),
        case("power(pos, 2.5)", lambda xp, p: xp.power(p, 2.5), "pos"),
        case("a ** 3", lambda xp, v: v ** 3, "a"),
        case("ints ** 2", lambda xp, v: v ** 2, "ints"),
        case("floor_divide(ints, 7)", lambda xp, v: xp.floor_divide(v, 7), "ints"),
        case("mod(a, 1.5)", lambda xp, v: xp.mod(v, 1.5), "a"),
        case("where(a > b, a, b)", lambda xp, u, v: xp.where(u > v, u, v), "a", "b"),
        case("maximum.reduce(A, 0)", lambda xp, v: xp.maximum.reduce(v, axis=0), "A"),
        case("A.max(axis=1)", lambda xp, v: v.max(axis=1), "A"),
        case("A.mean(axis=1)", lambda xp, v: v.mean(axis=1), "A"),
        case("argmin(A, axis=1)", lambda xp, v: xp.argmin(v, axis=1), "A"),
        case("any(A > 2, axis=1)", lambda xp, v: xp.any(v > 2, axis=1), "A"),
        case("all(A > -4, axis=0)", lambda xp, v: xp.all(v > -4, axis=0), "A"),
        case("A.T.copy()", lambda xp, v: v.T.copy(), "A"),
        case("ascontiguousarray(A.T)", lambda xp, v: xp.ascontiguousarray(v.T), "A"),
        case("A[:, ::2].reshape(-1)", lambda xp, v: v[:, ::2].reshape(-1), "A"),
        case("A[::2, ::2].reshape(-1)", lambda xp, v: v[::2, ::2].reshape(-1), "A"),
        ("concatenate 4 parts", lambda xp, *p: xp.concatenate(p), tuple(parts), tuple(cparts)),
        ("stack 3 vectors", lambda xp, *p: xp.stack(p), tuple(vec3), tuple(cvec3)),
        case("vstack([A, B])", lambda xp, u, v: xp.vstack([u, v]), "A", "B"),
        case("hstack([A, B])", lambda xp, u, v: xp.hstack([u, v]), "A", "B"),
        case("pad(A, 2)", lambda xp, v: xp.pad(v, 2), "A"),
        case("tile(x, (3, 2))", lambda xp, v: xp.tile(v, (3, 2)), "x"),
        case("repeat(a, 2)", lambda xp, v: xp.repeat(v, 2), "a"),
        case("flip(A, 0) + 0", lambda xp, v: xp.flip(v, axis=0) + 0.0, "A"),
        case("triu(A)", lambda xp, v: xp.triu(v), "A"),
        case("tril(A, -1)", lambda xp, v: xp.tril(v, -1), "A"),
        ("eye(r)", lambda xp: xp.eye(r), (), ()),
        ("identity(r)", lambda xp: xp.identity(r), (), ()),
        case("diag(A)", lambda xp, v: xp.diag(v).copy(), "A"),
        case("diag(x)", lambda xp, v: xp.diag(v), "x"),
        case("trace(A)", lambda xp, v: xp.trace(v), "A"),
        case("dot(a, b)", lambda xp, u, v: xp.dot(u, v), "a", "b"),
        case("matmul batch 8x8", lambda xp, v: v @ v, "M8"),
        case("solve batch 4x4", lambda xp, m, s: xp.linalg.solve(m, s), "S4", "s4"),
        case("norm(A, axis=1)", lambda xp, v: xp.linalg.norm(v, axis=1), "A"),
        case("cross(P, Q)", lambda xp, u, v: xp.cross(u, v), "P", "Q"),
        case("clip(a, lo, hi)", lambda xp, v, l, h: xp.clip(v, l, h), "a", "lo", "hi"),
        case("round(a, 2)", lambda xp, v: xp.round(v, 2), "a"),
        case("astype f32 -> i64", lambda xp, v: (v * 100).astype(xp.float32).astype(xp.int64),
             "a"),
        case("nansum", lambda xp, v: xp.nansum(v), "nan"),
        case("nanmean", lambda xp, v: xp.nanmean(v), "nan"),
        case("nanmax(NA, axis=0)", lambda xp, v: xp.nanmax(v, axis=0), "NA"),
        case("logical_and(..).sum()", lambda xp, u, v: xp.logical_and(u > 0, v > 0).sum(),
             "a", "b"),
        case("logical_or(..).any()", lambda xp, u, v: xp.logical_or(u > 3, v > 3).any(),
             "a", "b"),
        ("array(list)", lambda xp, v: xp.array(v), (lst,), (lst,)),
        ("array(list of lists)", lambda xp, v: xp.array(v), (lst2,), (lst2,)),
        case("A[::2, 1::3].sum()", lambda xp, v: v[::2, 1::3].sum(), "A"),
        case("a[::3] * 2", lambda xp, v: v[::3] * 2.0, "a"),
        case("A[A > 1]", lambda xp, v: v[v > 1], "A"),
        case("A[rows, :]", lambda xp, v, i: v[i, :], "A", "rows"),
        case("A[3, :] * 2", lambda xp, v: v[3, :] * 2.0, "A"),
        case("tolist", lambda xp, v: v.tolist(), "a"),
        case("a.item(7) loop x10", lambda xp, v: [v.item(i) for i in range(10)], "a"),
        case("float(a[i]) loop x10", lambda xp, v: [float(v[i]) for i in range(10)], "a"),
    ]


def main():
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--n", type=int, nargs="*", default=[1_000, 100_000, 1_000_000])
    p.add_argument("--budget", type=float, default=0.25, help="seconds per timing (default 0.25)")
    p.add_argument("--repeat", type=int, default=200, help="most calls per timing (default 200)")
    p.add_argument("--only", nargs="*", default=None, help="calls whose name contains one of these")
    opt = p.parse_args()
    load = lambda: " ".join("%.2f" % v for v in os.getloadavg())   # noqa: E731
    print(f"# everyday calls, median of up to {opt.repeat} (or {opt.budget} s); load average "
          f"{load()}")
    print(f"{'n':>8s} {'call':24s} {'numpy us':>10s} {'cupynum us':>11s} {'x numpy':>8s}")
    per_n = {}
    for n in opt.n:
        for name, f, na, ca in cases(n, numpy.random.default_rng(n)):
            if opt.only and not any(s in name for s in opt.only):
                continue
            exp = f(numpy, *na)
            with warnings.catch_warnings(record=True) as caught:
                warnings.simplefilter("always")
                got = _synced(lambda: f(cupynum, *ca))()
            fell = any(type(w.message).__name__ == "FallbackWarning" for w in caught)
            check(got, exp, name)
            tn = median_us(lambda: f(numpy, *na), opt.repeat, opt.budget)
            with warnings.catch_warnings():
                warnings.simplefilter("ignore")
                tc = median_us(_synced(lambda: f(cupynum, *ca)), opt.repeat, opt.budget)
            per_n.setdefault(n, []).append(tn / tc)
            print(f"{n:8d} {name:24s} {tn:10.1f} {tc:11.1f} {tn / tc:7.2f}x{' F' if fell else ''}",
                  flush=True)
    allr = [x for rs in per_n.values() for x in rs]
    for n, rs in per_n.items():
        print(f"geometric mean x numpy at n={n}: {numpy.exp(numpy.mean(numpy.log(rs))):.2f} "
              f"over {len(rs)} calls")
    if allr:
        print(f"geometric mean x numpy: {numpy.exp(numpy.mean(numpy.log(allr))):.2f} over "
              f"{len(allr)} calls; load average at the end {load()}")


if __name__ == "__main__":
    main()
