"""The benchmark programs: plain NumPy code, each a function `f(np, size...)`.

The same source runs with `np` bound to numpy, to cupynum, or to a peer with NumPy's API
(dask.array, cupynumeric). Nothing inside is cupynum-specific; every program ends by reading a
value out (`float(...)`), which completes cupynum's deferred work, so the time measured is the
time of the whole computation on every library.

Inputs are made from `arange` (Weyl sequences `(i * phi) % 1` where a program wants scattered
values) rather than from `np.random`, so that NumPy and cupynum compute on identical data and the
results can be compared to floating-point tolerance. `pi` is the exception: it is the seed
program, drawn with `np.random` as the seed draws it; its check is statistical.

`BENCHMARKS` below lists the programs with their default and `--quick` sizes, how a size grows
for weak scaling, the issue's target and the tolerance of the result check."""
import math
from dataclasses import dataclass
from typing import Callable, Optional

PHI1 = 0.6180339887498949     # fractional parts of the golden ratio and of its 2-D/3-D analogues:
PHI2 = 0.7548776662466927     # (i * PHI) % 1 is evenly spread over [0, 1)
PHI3 = 0.5698402909980532


# ---- the seed programs ------------------------------------------------------------------------

def pi(np, n=100_000_000):
    """Monte Carlo estimate of pi (examples/pi.py)."""
    np.random.seed(7)
    x = np.random.uniform(size=n)
    y = np.random.uniform(size=n)
    inside = np.sum(x * x + y * y < 1.0)
    return 4.0 * float(inside) / n


def stencil(np, n=4000, iters=20):
    """The seed's 5-point stencil on aliasing views (examples/stencil.py)."""
    grid = np.zeros((n + 2, n + 2))
    grid[:, 0] = -273.15
    grid[:, -1] = -273.15
    grid[-1, :] = -273.15
    grid[0, :] = 40.0
    center = grid[1:-1, 1:-1]
    north = grid[0:-2, 1:-1]
    east = grid[1:-1, 2:]
    west = grid[1:-1, 0:-2]
    south = grid[2:, 1:-1]
    for _ in range(iters):
        average = center + north + east + west + south
        average = 0.2 * average
        center[:] = average
    return float(np.mean(grid[1:-1, 1:-1]))


# ---- numerical kernels ------------------------------------------------------------------------

def blackscholes(np, n=10_000_000):
    """European call and put prices, CND by the Abramowitz-Stegun polynomial."""
    i = np.arange(n, dtype=np.float64)
    price = 10.0 + 40.0 * ((i * PHI1) % 1.0)
    strike = 10.0 + 40.0 * ((i * PHI2) % 1.0)
    years = 0.25 + 1.75 * ((i * PHI3) % 1.0)
    rate, vol = 0.02, 0.30

    def cnd(d):
        k = 1.0 / (1.0 + 0.2316419 * np.abs(d))
        poly = k * (0.31938153 + k * (-0.356563782 + k * (1.781477937
                                                          + k * (-1.821255978 + k * 1.330274429))))
        w = 1.0 - 0.3989422804014327 * np.exp(-0.5 * d * d) * poly
        return np.where(d < 0, 1.0 - w, w)

    sqrt_t = np.sqrt(years)
    d1 = (np.log(price / strike) + (rate + 0.5 * vol * vol) * years) / (vol * sqrt_t)
    d2 = d1 - vol * sqrt_t
    discounted = strike * np.exp(-rate * years)
    call = price * cnd(d1) - discounted * cnd(d2)
    put = call - price + discounted
    return float(np.sum(call)), float(np.sum(put))


def cg(np, n=2000, iters=50):
    """Conjugate gradient for -Laplace(u) = 1 on an n x n grid, zero boundary: the 5-point
    operator is applied with slices of a zero-padded array, no matrix; a fixed iteration count."""
    x = np.zeros((n, n))
    r = np.ones((n, n))
    p = np.zeros((n + 2, n + 2))
    p[1:-1, 1:-1] = r
    rr = np.sum(r * r)
    for _ in range(iters):
        pc = p[1:-1, 1:-1]
        ap = 4.0 * pc - p[:-2, 1:-1] - p[2:, 1:-1] - p[1:-1, :-2] - p[1:-1, 2:]
        alpha = rr / np.sum(pc * ap)
        x += alpha * pc
        r -= alpha * ap
        rr_new = np.sum(r * r)
        p[1:-1, 1:-1] = r + (rr_new / rr) * pc
        rr = rr_new
    return float(np.sqrt(rr)), float(np.sum(x))


def kmeans(np, n=1_000_000, k=8, iters=10):
    """Lloyd's k-means on n 2-D points around k centres: a distance matrix, argmin, and
    per-cluster means with bincount."""
    i = np.arange(n, dtype=np.float64)
    angle = (2.0 * math.pi / k) * (i % k)
    points = np.empty((n, 2))
    points[:, 0] = 10.0 * np.cos(angle) + 6.0 * ((i * PHI1) % 1.0 - 0.5)
    points[:, 1] = 10.0 * np.sin(angle) + 6.0 * ((i * PHI2) % 1.0 - 0.5)
    centres = points[:k].copy()
    for _ in range(iters):
        dist = ((points[:, None, :] - centres[None, :, :]) ** 2).sum(axis=2)
        labels = dist.argmin(axis=1)
        counts = np.bincount(labels, minlength=k)
        for j in range(2):
            centres[:, j] = np.bincount(labels, weights=points[:, j], minlength=k) / counts
    inertia = np.sum(np.min(dist, axis=1))
    return float(np.sum(centres * centres)), float(inertia)


def jacobi(np, n=2000, iters=50):
    """Jacobi sweeps for the Poisson problem -Laplace(u) = f on the unit square, zero boundary:
    two grids, the new one written from slices of the old."""
    h = 1.0 / (n + 1)
    x = (np.arange(n, dtype=np.float64) + 1.0) * h
    f = np.sin(math.pi * x)[:, None] * np.sin(math.pi * x)[None, :]
    h2f = (h * h) * f
    u = np.zeros((n + 2, n + 2))
    v = np.zeros((n + 2, n + 2))
    for _ in range(iters):
        v[1:-1, 1:-1] = 0.25 * (u[:-2, 1:-1] + u[2:, 1:-1] + u[1:-1, :-2] + u[1:-1, 2:] + h2f)
        u, v = v, u
    return float(np.max(np.abs(u - v))), float(np.sum(u))


def chains(np, n=10_000_000):
    """Element-wise chains: arithmetic, transcendental, then a mix, read out by one sum."""
    x = np.arange(n, dtype=np.float64) * (1.0 / n)
    y = 1.0 - x
    a = 2.0 * x * y + 0.5 * x * x - y / (1.0 + x)
    b = np.sqrt(x * x + y * y) * np.exp(-x) + np.sin(3.0 * y)
    c = (a - b) * (a + b) / (1.0 + a * a)
    return float(np.sum(c))


def reductions(np, n=4000):
    """sum / mean / max / min over all elements and along each axis of an n x n array."""
    a = ((np.arange(n * n, dtype=np.float64) * PHI1) % 1.0).reshape(n, n)
    total = np.sum(a)
    cols = a.sum(axis=0)
    rows = a.sum(axis=1)
    means = a.mean(axis=0)
    highs = a.max(axis=1)
    lows = a.min(axis=0)
    return (float(total), float(cols[n // 3] + rows[n // 5]), float(means[7] + highs[11]),
            float(lows[n - 1]))


# ---- small-array overhead: ~100 elements, per-op cost --------------------------------------

def _small_inputs(np, n):
    a = np.arange(n, dtype=np.float64) * 0.5 + 1.0
    b = np.arange(n, dtype=np.float64)[::-1] * 0.25
    return a, b


def small_add(np, n=100, reps=20000):
    a, b = _small_inputs(np, n)
    for _ in range(reps):
        c = a + b
    return float(c[n // 2])


def small_multiply(np, n=100, reps=20000):
    a, b = _small_inputs(np, n)
    for _ in range(reps):
        c = a * 2.5
    return float(c[n // 2])


def small_sqrt(np, n=100, reps=20000):
    a, b = _small_inputs(np, n)
    for _ in range(reps):
        c = np.sqrt(a)
    return float(c[n // 2])


def small_compare(np, n=100, reps=20000):
    a, b = _small_inputs(np, n)
    for _ in range(reps):
        c = a < b
    return float(c[n // 3])


def small_sum(np, n=100, reps=20000):
    a, b = _small_inputs(np, n)
    for _ in range(reps):
        s = a.sum()
    return float(s)


def small_index(np, n=100, reps=20000):
    a, b = _small_inputs(np, n)
    for _ in range(reps):
        s = a[n // 2]
    return float(s)


def small_slice(np, n=100, reps=20000):
    a, b = _small_inputs(np, n)
    for _ in range(reps):
        c = a[n // 4:-n // 4]
    return float(c[1])


def small_setslice(np, n=100, reps=20000):
    a, b = _small_inputs(np, n)
    for _ in range(reps):
        a[n // 4:n // 2] = b[:n // 4]
    return float(np.sum(a))


# ---- products (BLAS) --------------------------------------------------------------------------

def _weyl_matrix(np, n, m, phi, dtype):
    i = np.arange(n * m, dtype=np.float64)
    return (((i * phi) % 1.0) - 0.5).reshape(n, m).astype(dtype)


def gemm(np, n=1000, dtype="float64"):
    """C = A @ B for n x n matrices (issue #17: within 10% of NumPy, both on OpenBLAS)."""
    a = _weyl_matrix(np, n, n, PHI1, dtype)
    b = _weyl_matrix(np, n, n, PHI2, dtype)
    c = a @ b
    return float(np.sum(c))


def gemv(np, n=4000, reps=20):
    """x <- A @ x / |A @ x|, repeated (power iteration): memory-bound matrix-vector products."""
    a = _weyl_matrix(np, n, n, PHI1, "float64")
    x = _weyl_matrix(np, n, 1, PHI3, "float64").reshape(n)
    for _ in range(reps):
        y = a @ x
        x = y / float(np.sqrt(np.sum(y * y)))
    return float(np.sum(x))


# ---- applications -----------------------------------------------------------------------------

def _swe_module():
    """examples/swe.py, the shallow-water solver in plain NumPy, loaded from its file."""
    import importlib.util
    import os
    import sys
    mod = sys.modules.get("cupynum_example_swe")
    if mod is None:
        path = os.path.join(os.path.dirname(os.path.dirname(os.path.abspath(__file__))),
                            "examples", "swe.py")
        spec = importlib.util.spec_from_file_location("cupynum_example_swe", path)
        mod = importlib.util.module_from_spec(spec)
        spec.loader.exec_module(mod)
        sys.modules["cupynum_example_swe"] = mod
    return mod


def swe(np, nx=2000, ny=1000, steps=50):
    """examples/swe.py: a 2-D shallow-water dam break (central-upwind, minmod, wet/dry masks,
    SSP-RK2); returns its checksum (water volume, weighted sum of the fields)."""
    m = _swe_module()
    h, hu, hv = m.run(np, nx, ny, steps)
    return m.checksum(np, h, hu, hv, nx, ny)
# ---- sorting (issue #16) ----------------------------------------------------------------------

MIX = -7046029254386353131   # 0x9E3779B97F4A7C15 as int64: i * MIX wraps to scattered integers


def _sort_input(np, n, dtype):
    i = np.arange(n, dtype=np.int64)
    if dtype == "float64":
        return (i * PHI1) % 1.0
    x = i * MIX
    return x ^ (x >> 29)


def sort(np, n=10_000_000, dtype="float64", reps=3):
    """np.sort of n scattered values, `reps` times on the same input (made once)."""
    x = _sort_input(np, n, dtype)
    t = 0.0
    for _ in range(reps):
        s = np.sort(x)
        t += float(s[n // 3]) + float(s[-1])
    return t


def argsort(np, n=10_000_000, reps=3):
    """np.argsort(kind="stable") of n scattered float64 values, `reps` times."""
    x = _sort_input(np, n, "float64")
    t = 0.0
    for _ in range(reps):
        s = np.argsort(x, kind="stable")
        t += float(s[n // 3]) + float(s[-1])
    return t


def unique(np, n=10_000_000, distinct=100_000, reps=3):
    """np.unique of n int64 values taking `distinct` values, with counts, `reps` times."""
    i = np.arange(n, dtype=np.int64)
    x = (i * MIX) % distinct
    t = 0.0
    for _ in range(reps):
        u, c = np.unique(x, return_counts=True)
        t += float(u[-1]) + float(c[0]) + float(u.shape[0])
    return t
# ---- factorizations (LAPACK) --------------------------------------------------------------------

def _spd_matrix(np, n):
    """W + W^T + 2n I: symmetric, and positive definite (|W + W^T|_2 <= n)."""
    w = _weyl_matrix(np, n, n, PHI1, "float64")
    return w + w.T + 2.0 * n * np.eye(n)


def la_solve(np, n=2000):
    """x = solve(A, b) for an n x n matrix (issue #17: within 20% of NumPy, both on OpenBLAS)."""
    a = _spd_matrix(np, n) + _weyl_matrix(np, n, n, PHI2, "float64")
    b = _weyl_matrix(np, n, 1, PHI3, "float64")
    return float(np.sum(np.linalg.solve(a, b)))


def la_cholesky(np, n=2000):
    return float(np.sum(np.linalg.cholesky(_spd_matrix(np, n))))


def la_qr(np, n=2000):
    q, r = np.linalg.qr(_weyl_matrix(np, n, n, PHI1, "float64") + n * np.eye(n))
    return float(np.sum(np.abs(r)))


def la_svd(np, n=2000):
    u, s, vh = np.linalg.svd(_weyl_matrix(np, n, n, PHI1, "float64") + n * np.eye(n))
    return float(np.sum(s))


def la_eigh(np, n=2000):
    w, v = np.linalg.eigh(_spd_matrix(np, n))
    return float(np.sum(w))


# ---- FFT (FFTW) -------------------------------------------------------------------------------

def _weyl_complex(np, shape, dtype="complex128"):
    n = math.prod(shape)
    re = _weyl_matrix(np, n, 1, PHI1, "float64").reshape(shape)
    im = _weyl_matrix(np, n, 1, PHI2, "float64").reshape(shape)
    return (re + 1j * im).astype(dtype)


def fft1d(np, n=1 << 22):
    """numpy.fft.fft of n complex128 (issue #17: at least NumPy's speed)."""
    f = np.fft.fft(_weyl_complex(np, (n,)))
    return float(np.sum(np.abs(f))), float(np.sum(f.real * np.arange(n) / n))


def fft2d(np, n=4096):
    """numpy.fft.fft2 of an n x n complex128 array (issue #17: at least NumPy's speed)."""
    f = np.fft.fft2(_weyl_complex(np, (n, n)))
    return float(np.sum(np.abs(f))), float(np.sum(f.imag[:, 1]))


def histogram(np, n=10_000_000, bins=100, reps=3):
    """np.histogram of n scattered float64 values into `bins` equal bins, `reps` times."""
    x = _sort_input(np, n, "float64")
    t = 0.0
    for _ in range(reps):
        h, e = np.histogram(x, bins=bins)
        t += float(h[bins // 3]) + float(e[1])
    return t


# ---- joins and layout (issue #20) ---------------------------------------------------------------

def _join_input(np, n):
    i = np.arange(n, dtype=np.float64)
    return (i * PHI1) % 1.0


def join_concatenate(np, n=10_000_000, reps=3):
    """np.concatenate of two n-element float64 arrays, `reps` times."""
    a = _join_input(np, n)
    b = a + 1.0
    t = 0.0
    for _ in range(reps):
        r = np.concatenate([a, b])
        t += float(r[n // 3]) + float(r[n + n // 2])
    return t


def join_stack(np, n=10_000_000, reps=3):
    """np.stack of two n-element float64 arrays along a new last axis, `reps` times."""
    a = _join_input(np, n)
    b = a + 1.0
    t = 0.0
    for _ in range(reps):
        r = np.stack([a, b], axis=1)
        t += float(r[n // 3, 1]) + float(r[n - 1, 0])
    return t


def join_pad(np, n=10_000_000, reps=3):
    """np.pad of an n-element (rows x 4000) float64 array by 4 on every side (constant),
    `reps` times."""
    a = _join_input(np, n).reshape(-1, 4000)
    t = 0.0
    for _ in range(reps):
        r = np.pad(a, 4)
        t += float(r[a.shape[0] // 2, 7]) + float(r[-1, -1])
    return t


def join_roll(np, n=10_000_000, reps=3):
    """np.roll of an n-element float64 array by 12345, `reps` times."""
    a = _join_input(np, n)
    t = 0.0
    for _ in range(reps):
        r = np.roll(a, 12345)
        t += float(r[n // 3]) + float(r[7])
    return t


def join_tile(np, n=10_000_000, reps=3):
    """np.tile of an n-element float64 array twice, `reps` times."""
    a = _join_input(np, n)
    t = 0.0
    for _ in range(reps):
        r = np.tile(a, 2)
        t += float(r[n // 3]) + float(r[n + n // 2])
    return t


# ---- the registry -----------------------------------------------------------------------------

def _grow_2d(size, ranks):
    """Weak scaling of an n x n problem: n grows with sqrt(ranks), work per rank stays."""
    return {**size, "n": int(round(size["n"] * math.sqrt(ranks)))}


def _grow_rows(size, ranks):
    """Weak scaling of an nx x ny grid: ny grows with the ranks (the grid doubled on 2 ranks)."""
    return {**size, "ny": size["ny"] * ranks}


def _grow_1d(size, ranks):
    return {**size, "n": size["n"] * ranks}


@dataclass
class Benchmark:
    name: str
    func: Callable
    size: dict                      # keyword arguments of the default run
    quick: dict                     # ... of --quick (10-100x less work)
    label: Callable                 # size -> the table's size column
    target: Optional[float] = None  # the speedup target (NumPy time / cupynum time)
    rtol: float = 1e-9              # result check: relative tolerance per returned value
    grow: Optional[Callable] = _grow_1d   # size, ranks -> size (weak scaling); None: not scaled
    per_op: bool = False            # small-array row: times shown per op (size['reps'] ops)
    statistical: Optional[Callable] = None   # size -> absolute tolerance (random streams differ)
    notes: str = ""

    def size_for(self, quick):
        return dict(self.quick if quick else self.size)


def _pi_tolerance(size):
    # Two independent estimates, each with sd 4*sqrt(p(1-p)/n), p = pi/4: 6 sd of their difference.
    p = math.pi / 4
    return 6.0 * math.sqrt(2.0) * 4.0 * math.sqrt(p * (1 - p) / size["n"])


def _sq(s):
    return f"{s['n']}^2 x{s['iters']}"


SMALL_TARGET = 0.5   # "100-element ops <= 2x NumPy's time"

# numpy.random's Generator beside cupynum's (issue #18): name -> (method, args, sd of one draw,
# the target)
RANDOM_DRAWS = {
    "random": ("random", (), math.sqrt(1 / 12), 6.0),
    "uniform": ("uniform", (-1.0, 2.0), 3 * math.sqrt(1 / 12), 6.0),
    "standard_normal": ("standard_normal", (), 1.0, 4.0),
    "integers": ("integers", (0, 1000), 1000 * math.sqrt(1 / 12), 4.0),
    "exponential": ("exponential", (2.0,), 2.0, 2.0),
    "gamma": ("gamma", (2.0,), math.sqrt(2.0), 2.0),
    "poisson": ("poisson", (5.0,), math.sqrt(5.0), 2.0),
    "binomial": ("binomial", (10, 0.3), math.sqrt(2.1), 2.0),
}


def _draw_program(dist):
    method, args, _, _ = RANDOM_DRAWS[dist]

    def draw(np, n=100_000_000):
        """default_rng(7).<method>(size=n), one element read back, then its mean.  On cupynum the
        draw is a virtual store (architecture.md): the element is computed where it is read and
        the mean regenerates the draws in one pass, so the array is never written; NumPy writes
        it and reads it back."""
        x = getattr(np.random.default_rng(7), method)(*args, size=n)
        float(x[-1])
        return float(x.mean())
    draw.__name__ = f"random_{dist}"
    return draw


def _draw_tolerance(dist):
    sd = RANDOM_DRAWS[dist][2]
    return lambda size: 6.0 * sd * math.sqrt(2.0 / size["n"])   # two independent means

BENCHMARKS = {b.name: b for b in [
    Benchmark("pi", pi, {"n": 100_000_000}, {"n": 1_000_000}, lambda s: f"{s['n']:.0e} pts",
              target=6.0, statistical=_pi_tolerance,
              notes="random streams differ (Philox vs Mersenne Twister): checked statistically"),
    Benchmark("stencil", stencil, {"n": 4000, "iters": 20}, {"n": 400, "iters": 10}, _sq,
              target=4.0, grow=_grow_2d),
    Benchmark("blackscholes", blackscholes, {"n": 10_000_000}, {"n": 200_000},
              lambda s: f"{s['n']:.0e} opts", target=3.0),
    Benchmark("cg", cg, {"n": 2000, "iters": 50}, {"n": 200, "iters": 20}, _sq, rtol=1e-6,
              grow=_grow_2d),
    Benchmark("kmeans", kmeans, {"n": 1_000_000, "k": 8, "iters": 10},
              {"n": 20_000, "k": 8, "iters": 5}, lambda s: f"{s['n']:.0e} x{s['k']} x{s['iters']}",
              rtol=1e-8),
    Benchmark("jacobi", jacobi, {"n": 2000, "iters": 50}, {"n": 200, "iters": 20}, _sq,
              grow=_grow_2d),
    Benchmark("chains", chains, {"n": 10_000_000}, {"n": 200_000}, lambda s: f"{s['n']:.0e}",
              target=2.0),
    Benchmark("reductions", reductions, {"n": 4000}, {"n": 400}, lambda s: f"{s['n']}^2",
              target=1.5, grow=_grow_2d),
    Benchmark("gemm", gemm, {"n": 1000}, {"n": 200}, lambda s: f"{s['n']}^2 {s.get('dtype', 'float64')}",
              target=0.9, rtol=1e-9, grow=_grow_2d),
    Benchmark("gemm32", gemm, {"n": 1000, "dtype": "float32"}, {"n": 200, "dtype": "float32"},
              lambda s: f"{s['n']}^2 float32", target=0.9, rtol=1e-4, grow=_grow_2d),
    Benchmark("gemv", gemv, {"n": 4000, "reps": 20}, {"n": 500, "reps": 5},
              lambda s: f"{s['n']}^2 x{s['reps']}", target=0.9, grow=_grow_2d),
    Benchmark("swe", swe, {"nx": 2000, "ny": 1000, "steps": 50}, {"nx": 200, "ny": 100, "steps": 10},
              lambda s: f"{s['nx']}x{s['ny']} x{s['steps']}", target=3.0, rtol=1e-9,
              grow=_grow_rows),
    Benchmark("sort", sort, {"n": 10_000_000}, {"n": 200_000}, lambda s: f"{s['n']:.0e} f64 x3",
              target=1.3),
    Benchmark("sort_int64", sort, {"n": 10_000_000, "dtype": "int64"},
              {"n": 200_000, "dtype": "int64"}, lambda s: f"{s['n']:.0e} i64 x3", target=1.3),
    Benchmark("argsort", argsort, {"n": 10_000_000}, {"n": 200_000},
              lambda s: f"{s['n']:.0e} stable x3", target=1.3),
    Benchmark("unique", unique, {"n": 10_000_000, "reps": 1}, {"n": 200_000, "distinct": 2000},
              lambda s: f"{s['n']:.0e} i64 {s.get('distinct', 100_000):.0e} distinct x{s.get('reps', 3)}",
              target=1.5),
    Benchmark("histogram", histogram, {"n": 10_000_000}, {"n": 200_000},
              lambda s: f"{s['n']:.0e} f64 100 bins x3", target=2.0),
    # ten joins per input built, so that the joins (not the inputs' construction, which
    # cupynum fuses) decide the ratio
    *[Benchmark(f.__name__, f, {"n": 10_000_000, "reps": 10}, {"n": 200_000, "reps": 10},
                lambda s: f"{s['n']:.0e} f64 x{s['reps']}", target=1.5)
      for f in (join_concatenate, join_stack, join_pad, join_roll, join_tile)],
    Benchmark("gemm2000", gemm, {"n": 2000}, {"n": 200}, lambda s: f"{s['n']}^2 float64",
              target=0.9, rtol=1e-9, grow=None),
    Benchmark("gemm2000_32", gemm, {"n": 2000, "dtype": "float32"}, {"n": 200, "dtype": "float32"},
              lambda s: f"{s['n']}^2 float32", target=0.9, rtol=1e-4, grow=None),
] + [
    # numpy.linalg on LAPACK (issue #17: within 20% of NumPy's time)
    Benchmark(f.__name__, f, {"n": 2000}, {"n": 200}, lambda s: f"{s['n']}^2", target=0.8,
              rtol=1e-8, grow=None)
    for f in (la_solve, la_cholesky, la_qr, la_svd, la_eigh)
] + [
    Benchmark("fft", fft1d, {"n": 1 << 22}, {"n": 1 << 16}, lambda s: f"2^{s['n'].bit_length() - 1} c128",
              target=1.0, rtol=1e-9),
    Benchmark("fft2", fft2d, {"n": 4096}, {"n": 256}, lambda s: f"{s['n']}^2 c128", target=1.0,
              rtol=1e-9, grow=_grow_2d),
] + [
    Benchmark(f.__name__, f, {"n": 100, "reps": 20000}, {"n": 100, "reps": 2000},
              lambda s: f"{s['n']} x{s['reps']}", target=SMALL_TARGET, grow=None, per_op=True)
    for f in (small_add, small_multiply, small_sqrt, small_compare, small_sum, small_index,
              small_slice, small_setslice)
] + [
    Benchmark(f"random_{d}", _draw_program(d), {"n": 100_000_000}, {"n": 1_000_000},
              lambda s: f"{s['n']:.0e}", target=RANDOM_DRAWS[d][3], statistical=_draw_tolerance(d),
              notes="streams differ (cupynum's Philox vs NumPy's PCG64): checked statistically")
    for d in RANDOM_DRAWS
]}

GROUPS = {"small": [n for n in BENCHMARKS if n.startswith("small_")],
          "linalg": ["gemm2000", "gemm2000_32"] + [n for n in BENCHMARKS if n.startswith("la_")],
          "random": [n for n in BENCHMARKS if n.startswith("random_")]}


def select(names):
    """Benchmark objects for names (a group name expands); unknown names raise ValueError."""
    out = []
    for name in names or list(BENCHMARKS):
        for n in GROUPS.get(name, [name]):
            if n not in BENCHMARKS:
                raise ValueError(f"unknown benchmark {n!r}; choose from "
                                 f"{', '.join(list(BENCHMARKS) + list(GROUPS))}")
            if BENCHMARKS[n] not in out:
                out.append(BENCHMARKS[n])
    return out


def check(bench, size, reference, value):
    """Whether `value` (a float or tuple of floats) agrees with NumPy's `reference`, and the
    tolerance that was applied, as text."""
    ref = reference if isinstance(reference, tuple) else (reference,)
    got = value if isinstance(value, tuple) else (value,)
    if len(ref) != len(got):
        return False, "shape of result differs"
    if bench.statistical is not None:
        atol = bench.statistical(size)
        return all(abs(g - r) <= atol for g, r in zip(got, ref)), f"|d|<={atol:.1e}"
    ok = all(abs(g - r) <= bench.rtol * max(1.0, abs(r)) for g, r in zip(got, ref))
    return ok, f"rel {bench.rtol:.0e}"
