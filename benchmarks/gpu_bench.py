"""python benchmarks/gpu_bench.py MODULE PROGRAM [size] [iterations]: one GPU benchmark program
on one array module (cupynum, cupy or numpy), printing one JSON line: seconds per run (best of
the timed runs, after a warm-up run that compiles kernels), the bytes the program must move at
least, and the achieved bandwidth.  gpu_check.sh runs it for every module and program.

Programs: stencil (N x N Jacobi sweeps on aliasing views), pi (Monte Carlo, N points),
blackscholes (N options, the normal CDF by the Abramowitz-Stegun polynomial, element-wise ops
only), copy (a device-to-device copy of N float64: the card's copy bandwidth, for reference), and
numpy.linalg on an N x N float64 matrix (cuSOLVER on the GPU): solve (one right-hand side),
cholesky, svd (U, s, Vh) and eigh (w, V) of a symmetric positive definite matrix (svd: a general
one).  The linalg programs time the call alone (and a sync); their "value" is the relative
residual of the result, computed after the timed runs (||A x - b|| / ||b||, ||L L^T - A|| / ||A||,
||U S Vh - A|| / ||A||, ||A V - V diag(w)|| / ||A||), so a wrong device result shows in the
output."""
import json
import math
import sys
import time


def _module(name):
    if name == "cupynum":
        import cupynum as m
    elif name == "cupy":
        import cupy as m
    else:
        import numpy as m
    return m


def _sync(m):
    if m.__name__ == "cupynum":
        m.sync()
    elif m.__name__ == "cupy":
        m.cuda.Device().synchronize()


def stencil(np, n, iters):
    grid = np.zeros((n + 2, n + 2))
    grid[:, 0] = -273.15
    grid[:, -1] = -273.15
    grid[-1, :] = -273.15
    grid[0, :] = 40.0
    center, north, east = grid[1:-1, 1:-1], grid[0:-2, 1:-1], grid[1:-1, 2:]
    west, south = grid[1:-1, 0:-2], grid[2:, 1:-1]
    _sync(np)

    def run():
        for _ in range(iters):
            average = center + north + east + west + south
            average = 0.2 * average
            center[:] = average
        _sync(np)
        return float(grid[n // 2, n // 2])
    # at least: read the grid once, write the interior once, per iteration
    return run, 2 * 8 * n * n * iters


def pi(np, n, iters):
    def run():
        np.random.seed(42)
        x = np.random.uniform(size=n)
        y = np.random.uniform(size=n)
        inside = np.sum(x * x + y * y < 1.0)
        r = 4.0 * float(inside) / n
        _sync(np)
        return r
    return run, 2 * 8 * n   # x and y are written (the program keeps them)


def blackscholes(np, n, iters):
    np.random.seed(1)
    s = np.random.uniform(10.0, 50.0, size=n)
    k = np.random.uniform(10.0, 50.0, size=n)
    t = np.random.uniform(0.1, 2.0, size=n)
    r, v = 0.02, 0.3
    _sync(np)

    def cnd(d):
        a = np.abs(d)
        kk = 1.0 / (1.0 + 0.2316419 * a)
        poly = kk * (0.319381530 + kk * (-0.356563782 + kk * (1.781477937 + kk * (-1.821255978 + kk * 1.330274429))))
        w = 1.0 - 0.3989422804014327 * np.exp(-0.5 * d * d) * poly
        sgn = (d >= 0.0) * 2.0 - 1.0
        return 0.5 + sgn * (w - 0.5)

    def run():
        for _ in range(iters):
            sq = v * np.sqrt(t)
            d1 = (np.log(s / k) + (r + 0.5 * v * v) * t) / sq
            d2 = d1 - sq
            disc = k * np.exp(-r * t)
            call = s * cnd(d1) - disc * cnd(d2)
            put = call - s + disc
        _sync(np)
        return float(call[n // 2]) + float(put[n // 3])
    return run, 5 * 8 * n * iters   # read s, k, t; write call, put


def _spd(np, n):
    np.random.seed(7)
    r = np.random.uniform(-1.0, 1.0, size=(n, n))
    return r @ r.T / n + np.eye(n)


def _rel(np, x, y):
    return float(np.linalg.norm(x - y)) / float(np.linalg.norm(y))


def _linalg(np, n, call, residual, general=False):
    if general:
        np.random.seed(8)
        a = np.random.uniform(-1.0, 1.0, size=(n, n))
    else:
        a = _spd(np, n)
    np.random.seed(9)
    b = np.random.uniform(-1.0, 1.0, size=n)
    _sync(np)
    last = []

    def run():
        last[:] = [call(a, b)]
        _sync(np)
        return None
    run.residual = lambda: residual(a, b, last[0])
    return run, 8 * n * n   # the matrix, read once at least


def solve(np, n, iters):
    return _linalg(np, n, lambda a, b: np.linalg.solve(a, b), lambda a, b, x: _rel(np, a @ x, b))


def cholesky(np, n, iters):
    return _linalg(np, n, lambda a, b: np.linalg.cholesky(a), lambda a, b, l: _rel(np, l @ l.T, a))


def svd(np, n, iters):
    return _linalg(np, n, lambda a, b: np.linalg.svd(a),
                   lambda a, b, r: _rel(np, (r[0] * r[1][None, :]) @ r[2], a), general=True)


def eigh(np, n, iters):
    return _linalg(np, n, lambda a, b: np.linalg.eigh(a),
                   lambda a, b, r: _rel(np, a @ r[1], r[1] * r[0][None, :]))


def copy(np, n, iters):
    a = np.ones(n)
    b = np.zeros(n)
    _sync(np)
    if np.__name__ == "cupy":
        def run():
            for _ in range(iters):
                np.copyto(b, a)
            _sync(np)
            return 0.0
    else:
        def run():
            for _ in range(iters):
                b[...] = a
            _sync(np)
            return 0.0
    return run, 2 * 8 * n * iters


def main():
    mod, prog = sys.argv[1], sys.argv[2]
    n = int(float(sys.argv[3])) if len(sys.argv) > 3 else 1 << 24
    iters = int(sys.argv[4]) if len(sys.argv) > 4 else 10
    repeat = int(sys.argv[5]) if len(sys.argv) > 5 else 3
    m = _module(mod)
    run, nbytes = globals()[prog](m, n, iters)
    value = run()          # warm-up: compiles and caches kernels
    best = math.inf
    for _ in range(repeat):
        t0 = time.perf_counter()
        value = run()
        best = min(best, time.perf_counter() - t0)
    if hasattr(run, "residual"):
        value = run.residual()
    out = {"module": mod, "program": prog, "n": n, "iters": iters, "seconds": best,
           "value": value, "GBps": nbytes / best / 1e9}
    if mod == "cupynum":
        info = m.runtime_info()
        out["backend"], out["device"] = info["backend"], info["device"]
    print(json.dumps(out), flush=True)


if __name__ == "__main__":
    main()
