"""Ordinary kernels: plain NumPy code of the kinds scientific programs are made of (issue #21).

    python -m benchmarks kernels [kernel names...] [--quick] [--repeat R]

Each kernel is a function `f(np, **size)` written once against NumPy's API, run with `np` bound
to numpy and to cupynum in the same process; every kernel ends by reading values out (`float`),
so the time is the whole computation on both. Each has a small size (per-op host cost:
10^2-10^4 elements, Python loops) and a medium size (NumPy takes roughly 50-500 ms on one core).
The table gives the fastest of R timed runs, the speedup NumPy/cupynum (> 1: cupynum faster) in
wall-clock time and in CPU time (the process's, all threads: what a busy machine does not
distort, and what does not credit cupynum's second core), whether the result agrees with NumPy's,
and the geometric means of the speedups per size. `jacobi1d` is also
swept over n = 10^2..10^6 (`JACOBI_SWEEP`).

Inputs are Weyl sequences `(i * phi) % 1` made with arange (as in programs.py), so both libraries
compute on identical data. The same functions at small sizes are the result checks of
tests/test_kernels_suite.py."""
import gc
import math
import os
import sys
import time
import warnings
from dataclasses import dataclass
from typing import Callable

from .programs import PHI1, PHI2, PHI3


def _weyl(np, shape, phi=PHI1, lo=0.0, hi=1.0):
    n = math.prod(shape) if isinstance(shape, tuple) else shape
    i = np.arange(n, dtype=np.float64)
    v = lo + (hi - lo) * ((i * phi) % 1.0)
    return v.reshape(shape) if isinstance(shape, tuple) else v


# ---- stencils ---------------------------------------------------------------------------------

def jacobi1d(np, n=1000, iters=100):
    """PolyBench jacobi-1d: B[1:-1] from three slices of A, then back."""
    a = _weyl(np, n)
    b = np.zeros(n)
    for _ in range(iters):
        b[1:-1] = 0.33333 * (a[:-2] + a[1:-1] + a[2:])
        a[1:-1] = 0.33333 * (b[:-2] + b[1:-1] + b[2:])
    return float(np.sum(a)), float(a[n // 2])


def jacobi2d(np, n=100, iters=20):
    """PolyBench jacobi-2d: a 5-point average into the other grid, then back."""
    a = _weyl(np, (n, n))
    b = np.zeros((n, n))
    for _ in range(iters):
        b[1:-1, 1:-1] = 0.2 * (a[1:-1, 1:-1] + a[1:-1, :-2] + a[1:-1, 2:] + a[2:, 1:-1]
                               + a[:-2, 1:-1])
        a[1:-1, 1:-1] = 0.2 * (b[1:-1, 1:-1] + b[1:-1, :-2] + b[1:-1, 2:] + b[2:, 1:-1]
                               + b[:-2, 1:-1])
    return float(np.sum(a))


def seidel2d(np, n=100, iters=10):
    """Gauss-Seidel-like red-black sweeps: each colour updated in place from its neighbours,
    strided slices of one grid (four colour classes, a 5-point average)."""
    a = _weyl(np, (n + 2, n + 2))
    for _ in range(iters):
        for r in (1, 2):
            for c in (1, 2):
                ctr = a[r:n + 1:2, c:n + 1:2]
                ctr[...] = (ctr + a[r - 1:n:2, c:n + 1:2] + a[r + 1:n + 2:2, c:n + 1:2]
                            + a[r:n + 1:2, c - 1:n:2] + a[r:n + 1:2, c + 1:n + 2:2]) / 5.0
    return float(np.sum(a))


def heat3d(np, n=20, iters=10):
    """PolyBench heat-3d: a 7-point explicit step into the other grid, then back."""
    a = _weyl(np, (n, n, n))
    b = a.copy()
    for _ in range(iters):
        for src, dst in ((a, b), (b, a)):
            c = src[1:-1, 1:-1, 1:-1]
            dst[1:-1, 1:-1, 1:-1] = (
                0.125 * (src[2:, 1:-1, 1:-1] - 2.0 * c + src[:-2, 1:-1, 1:-1])
                + 0.125 * (src[1:-1, 2:, 1:-1] - 2.0 * c + src[1:-1, :-2, 1:-1])
                + 0.125 * (src[1:-1, 1:-1, 2:] - 2.0 * c + src[1:-1, 1:-1, :-2]) + c)
    return float(np.sum(a))


def fdtd2d(np, nx=100, ny=120, iters=10):
    """PolyBench fdtd-2d: Yee-grid updates of ey, ex, hz, a source row each step."""
    ex = _weyl(np, (nx, ny), PHI1)
    ey = _weyl(np, (nx, ny), PHI2)
    hz = _weyl(np, (nx, ny), PHI3)
    for t in range(iters):
        ey[0, :] = float(t)
        ey[1:, :] = ey[1:, :] - 0.5 * (hz[1:, :] - hz[:-1, :])
        ex[:, 1:] = ex[:, 1:] - 0.5 * (hz[:, 1:] - hz[:, :-1])
        hz[:-1, :-1] = hz[:-1, :-1] - 0.7 * (ex[:-1, 1:] - ex[:-1, :-1] + ey[1:, :-1]
                                             - ey[:-1, :-1])
    return float(np.sum(hz)), float(np.sum(ex))


def adi(np, n=60, iters=2):
    """PolyBench ADI: alternating-direction implicit sweeps, the Thomas recurrences as column
    loops over vectors (each step depends on the previous column)."""
    u = _weyl(np, (n, n))
    v = np.zeros((n, n))
    p = np.zeros((n, n))
    q = np.zeros((n, n))
    dx, dy, dt = 1.0 / n, 1.0 / n, 1.0 / iters
    b1, b2 = 2.0, 1.0
    mul1, mul2 = b1 * dt / (dx * dx), b2 * dt / (dy * dy)
    a, b, c = -mul1 / 2.0, 1.0 + mul1, -mul1 / 2.0
    d, e, f = -mul2 / 2.0, 1.0 + mul2, -mul2 / 2.0
    for _ in range(iters):
        v[0, 1:-1] = 1.0
        p[1:-1, 0] = 0.0
        q[1:-1, 0] = v[0, 1:-1]
        for j in range(1, n - 1):
            den = a * p[1:-1, j - 1] + b
            p[1:-1, j] = -c / den
            q[1:-1, j] = (-d * u[j, 0:-2] + (1.0 + 2.0 * d) * u[j, 1:-1] - f * u[j, 2:]
                          - a * q[1:-1, j - 1]) / den
        v[-1, 1:-1] = 1.0
        for j in range(n - 2, 0, -1):
            v[j, 1:-1] = p[1:-1, j] * v[j + 1, 1:-1] + q[1:-1, j]
        u[1:-1, 0] = 1.0
        p[1:-1, 0] = 0.0
        q[1:-1, 0] = u[1:-1, 0]
        for j in range(1, n - 1):
            den = d * p[1:-1, j - 1] + e
            p[1:-1, j] = -f / den
            q[1:-1, j] = (-a * v[0:-2, j] + (1.0 + 2.0 * a) * v[1:-1, j] - c * v[2:, j]
                          - d * q[1:-1, j - 1]) / den
        u[1:-1, -1] = 1.0
        for j in range(n - 2, 0, -1):
            u[1:-1, j] = p[1:-1, j] * u[1:-1, j + 1] + q[1:-1, j]
    return float(np.sum(u)), float(np.sum(v))


def conv2d(np, n=100, iters=2):
    """A 3x3 convolution (a fixed blur kernel) as nine shifted, weighted slices."""
    img = _weyl(np, (n, n))
    w = [[0.0625, 0.125, 0.0625], [0.125, 0.25, 0.125], [0.0625, 0.125, 0.0625]]
    for _ in range(iters):
        out = np.zeros((n - 2, n - 2))
        for di in range(3):
            for dj in range(3):
                out += w[di][dj] * img[di:n - 2 + di, dj:n - 2 + dj]
        img[1:-1, 1:-1] = out
    return float(np.sum(img))


# ---- dependent loops (scalars and rows) -------------------------------------------------------

def _lower(np, n):
    """A well-conditioned lower-triangular matrix."""
    m = _weyl(np, (n, n), PHI2, -0.5, 0.5) / n
    i = np.arange(n)
    return np.where(i[:, None] >= i[None, :], m, 0.0) + 2.0 * np.eye(n)


def trisolv(np, n=100):
    """Forward substitution, one row at a time: x[i] = (b[i] - L[i, :i] @ x[:i]) / L[i, i]
    (a dependent loop with scalar reads and writes)."""
    low = _lower(np, n)
    b = _weyl(np, n, PHI3)
    x = np.zeros(n)
    for i in range(n):
        x[i] = (b[i] - low[i, :i] @ x[:i]) / low[i, i]
    return float(np.sum(x)), float(x[n - 1])


def lu(np, n=60):
    """Right-looking LU without pivoting (diagonally dominant matrix), a row loop of rank-1
    updates of the trailing block."""
    a = _weyl(np, (n, n), PHI1) + n * np.eye(n)
    for k in range(n - 1):
        a[k + 1:, k] = a[k + 1:, k] / a[k, k]
        a[k + 1:, k + 1:] -= np.outer(a[k + 1:, k], a[k, k + 1:])
    return float(np.sum(a)), float(a[n - 1, n - 1])


def durbin(np, n=100):
    """PolyBench durbin: the Levinson-Durbin recursion for a Toeplitz system, vectors of
    growing length and a reversed slice each step."""
    r = _weyl(np, n, PHI1, 0.0, 0.5) / n
    y = np.zeros(n)
    y[0] = -float(r[0])
    beta, alpha = 1.0, -float(r[0])
    for k in range(1, n):
        beta = (1.0 - alpha * alpha) * beta
        alpha = -(float(r[k]) + float(np.dot(r[:k][::-1], y[:k]))) / beta
        z = y[:k] + alpha * y[:k][::-1]
        y[:k] = z
        y[k] = alpha
    return float(np.sum(y)), float(y[n - 1])


def floyd_warshall(np, n=60):
    """All-pairs shortest paths: for each k, path = min(path, path[:, k] + path[k, :])."""
    path = 1.0 + 9.0 * _weyl(np, (n, n), PHI2)
    for k in range(n):
        path = np.minimum(path, path[:, k:k + 1] + path[k:k + 1, :])
    return float(np.sum(path))


def crc16(np, n=1000, length=16):
    """CRC-16/CCITT of n messages of `length` bytes at once, bit by bit (shifts, xors, masks)."""
    i = np.arange(n * length, dtype=np.int64)
    data = ((i * 2654435761) % 251).astype(np.uint16).reshape(n, length)
    crc = np.full(n, 0xFFFF, dtype=np.uint16)
    for j in range(length):
        crc = crc ^ (data[:, j] << 8)
        for _ in range(8):
            top = (crc & 0x8000) != 0
            crc = np.where(top, (crc << 1) ^ 0x1021, crc << 1) & 0xFFFF
            crc = crc.astype(np.uint16)
    return float(np.sum(crc.astype(np.int64))), float(crc[n // 2])


def mandelbrot(np, n=60, iters=20):
    """Escape-time iteration on an n x n grid; only points not yet escaped are updated (a mask)."""
    xs = np.linspace(-2.0, 0.6, n)
    ys = np.linspace(-1.2, 1.2, n)
    c = xs[None, :] + 1j * ys[:, None]
    z = np.zeros((n, n), dtype=np.complex128)
    count = np.zeros((n, n), dtype=np.int64)
    for _ in range(iters):
        live = np.abs(z) <= 2.0
        z = np.where(live, z * z + c, z)
        count += live
    return float(np.sum(count))


# ---- linear algebra (products on BLAS) --------------------------------------------------------

def gemm(np, n=60):
    """PolyBench gemm: C = alpha A B + beta C."""
    a, b, c = _weyl(np, (n, n), PHI1), _weyl(np, (n, n), PHI2), _weyl(np, (n, n), PHI3)
    c = 1.5 * (a @ b) + 1.2 * c
    return float(np.sum(c))


def mm2(np, n=60):
    """PolyBench 2mm: D = alpha A B C + beta D."""
    a, b, c = _weyl(np, (n, n), PHI1), _weyl(np, (n, n), PHI2), _weyl(np, (n, n), PHI3)
    d = _weyl(np, (n, n), PHI1, -1.0, 1.0)
    tmp = 1.5 * (a @ b)
    d = tmp @ c + 1.2 * d
    return float(np.sum(d))


def mm3(np, n=60):
    """PolyBench 3mm: G = (A B)(C D)."""
    a, b = _weyl(np, (n, n), PHI1), _weyl(np, (n, n), PHI2)
    c, d = _weyl(np, (n, n), PHI3), _weyl(np, (n, n), PHI1, -1.0, 1.0)
    g = (a @ b) @ (c @ d)
    return float(np.sum(g))


def atax(np, n=200, reps=4):
    """PolyBench atax: y = A^T (A x)."""
    a = _weyl(np, (n, n), PHI1)
    x = _weyl(np, n, PHI2)
    for _ in range(reps):
        y = a.T @ (a @ x)
        x = y / float(np.max(np.abs(y)))
    return float(np.sum(x))


def bicg(np, n=200, reps=4):
    """PolyBench bicg: s = A^T r, q = A p."""
    a = _weyl(np, (n, n), PHI1)
    r, p = _weyl(np, n, PHI2), _weyl(np, n, PHI3)
    for _ in range(reps):
        s = a.T @ r
        q = a @ p
        r = s / float(np.max(np.abs(s)))
        p = q / float(np.max(np.abs(q)))
    return float(np.sum(r)), float(np.sum(p))


def mvt(np, n=200, reps=4):
    """PolyBench mvt: x1 += A y1, x2 += A^T y2."""
    a = _weyl(np, (n, n), PHI1)
    x1, x2 = np.zeros(n), np.zeros(n)
    y1, y2 = _weyl(np, n, PHI2), _weyl(np, n, PHI3)
    for _ in range(reps):
        x1 += a @ y1
        x2 += a.T @ y2
    return float(np.sum(x1)), float(np.sum(x2))


def gemver(np, n=200):
    """PolyBench gemver: rank-2 update, then two matrix-vector products."""
    a = _weyl(np, (n, n), PHI1)
    u1, v1, u2, v2 = (_weyl(np, n, p) for p in (PHI1, PHI2, PHI3, PHI2))
    y, z = _weyl(np, n, PHI3), _weyl(np, n, PHI1)
    a = a + np.outer(u1, v1) + np.outer(u2, v2)
    x = 1.2 * (a.T @ y) + z
    w = 1.5 * (a @ x)
    return float(np.sum(w))


def covariance(np, n=100, m=80):
    """PolyBench covariance: centre the columns, (D^T D) / (n - 1)."""
    data = _weyl(np, (n, m), PHI1)
    mean = data.mean(axis=0)
    data = data - mean
    cov = (data.T @ data) / (n - 1.0)
    return float(np.sum(cov))


def correlation(np, n=100, m=80):
    """PolyBench correlation: centre and scale the columns, then D^T D."""
    data = _weyl(np, (n, m), PHI2)
    mean = data.mean(axis=0)
    std = np.sqrt(((data - mean) ** 2).mean(axis=0))
    std = np.where(std <= 0.1, 1.0, std)
    data = (data - mean) / (math.sqrt(n) * std)
    corr = data.T @ data
    return float(np.sum(corr))


# ---- machine learning and physics -------------------------------------------------------------

def softmax(np, n=100, m=100, reps=2):
    """Row-wise softmax, numerically stable (subtract the row max)."""
    x = _weyl(np, (n, m), PHI1, -5.0, 5.0)
    for _ in range(reps):
        e = np.exp(x - x.max(axis=1, keepdims=True))
        y = e / e.sum(axis=1, keepdims=True)
        x = x + 0.1 * y
    return float(np.sum(y * y))


def mlp(np, batch=64, width=64, reps=2):
    """A two-layer perceptron forward pass: relu(x W1 + b1) W2 + b2, then softmax."""
    x = _weyl(np, (batch, width), PHI1, -1.0, 1.0)
    w1 = _weyl(np, (width, 2 * width), PHI2, -0.1, 0.1)
    b1 = _weyl(np, 2 * width, PHI3, -0.1, 0.1)
    w2 = _weyl(np, (2 * width, 10), PHI1, -0.1, 0.1)
    b2 = _weyl(np, 10, PHI2, -0.1, 0.1)
    for _ in range(reps):
        h = np.maximum(x @ w1 + b1, 0.0)
        o = h @ w2 + b2
        e = np.exp(o - o.max(axis=1, keepdims=True))
        p = e / e.sum(axis=1, keepdims=True)
        x = x * 0.99
    return float(np.sum(p * np.arange(10)))


def symm(np, n=60):
    """PolyBench symm: C = alpha A B + beta C with A symmetric, stored in its lower triangle."""
    low = np.tril(_weyl(np, (n, n), PHI1))
    a = low + np.tril(low, -1).T
    b, c = _weyl(np, (n, n), PHI2), _weyl(np, (n, n), PHI3)
    c = 1.5 * (a @ b) + 1.2 * c
    return float(np.sum(c))


def trmm(np, n=60):
    """PolyBench trmm: B = alpha A^T B with A unit lower triangular."""
    a = np.tril(_weyl(np, (n, n), PHI1), -1) + np.eye(n)
    b = _weyl(np, (n, n), PHI2)
    b = 1.5 * (a.T @ b)
    return float(np.sum(b))


def cnn(np, batch=8, size=16, ch=8, reps=2):
    """A small convolutional network's forward pass: two 3x3 convolutions (shifted slices and
    tensordot over the channels), ReLU, 2x2 max pooling, a dense layer and softmax."""
    x = _weyl(np, (batch, 1, size, size), PHI1, -1.0, 1.0)
    k1 = _weyl(np, (3, 3, 1, ch), PHI2, -0.5, 0.5)
    k2 = _weyl(np, (3, 3, ch, ch), PHI3, -0.2, 0.2)
    half = (size - 4) // 2
    w = _weyl(np, (ch * half * half, 10), PHI1, -0.1, 0.1)

    def conv(t, k):
        h, v = t.shape[2] - 2, t.shape[3] - 2
        out = 0.0
        for i in range(3):
            for j in range(3):
                out = out + np.tensordot(t[:, :, i:i + h, j:j + v], k[i, j], axes=([1], [0]))
        return np.moveaxis(out, 3, 1)   # (batch, ch, h, v)

    for _ in range(reps):
        y = np.maximum(conv(np.maximum(conv(x, k1), 0.0), k2), 0.0)
        y = y[:, :, :2 * half, :2 * half].reshape(batch, ch, half, 2, half, 2).max(axis=(3, 5))
        o = y.reshape(batch, -1) @ w
        e = np.exp(o - o.max(axis=1, keepdims=True))
        p = e / e.sum(axis=1, keepdims=True)
        x = x * 0.99
    return float(np.sum(p * np.arange(10)))


def nbody(np, n=64, steps=4):
    """Direct-sum gravity: all pairwise accelerations by broadcasting, leapfrog steps."""
    pos = _weyl(np, (n, 3), PHI1, -1.0, 1.0)
    vel = np.zeros((n, 3))
    mass = 1.0 / n + _weyl(np, n, PHI2) / n
    dt, soft = 0.01, 0.01
    for _ in range(steps):
        d = pos[None, :, :] - pos[:, None, :]
        r2 = (d * d).sum(axis=2) + soft
        inv = mass[None, :] / (r2 * np.sqrt(r2))
        acc = (d * inv[:, :, None]).sum(axis=1)
        vel += dt * acc
        pos += dt * vel
    return float(np.sum(pos * pos)), float(np.sum(vel))


def radial_histogram(np, n=10_000, bins=32):
    """Histogram of the distances of n points from the origin (np.histogram)."""
    x = _weyl(np, n, PHI1, -1.0, 1.0)
    y = _weyl(np, n, PHI2, -1.0, 1.0)
    z = _weyl(np, n, PHI3, -1.0, 1.0)
    r = np.sqrt(x * x + y * y + z * z)
    counts, edges = np.histogram(r, bins=bins, range=(0.0, 1.8))
    return float(np.sum(counts * np.arange(bins))), float(counts[bins // 2])


# ---- the registry -----------------------------------------------------------------------------

@dataclass
class Kernel:
    name: str
    func: Callable
    small: dict
    medium: dict
    rtol: float = 1e-9

    def label(self, size):
        return " ".join(f"{k}={v}" for k, v in size.items())


KERNELS = {k.name: k for k in [
    Kernel("jacobi1d", jacobi1d, {"n": 1000, "iters": 100}, {"n": 100_000, "iters": 200}),
    Kernel("jacobi2d", jacobi2d, {"n": 100, "iters": 20}, {"n": 1000, "iters": 5}),
    Kernel("seidel2d", seidel2d, {"n": 100, "iters": 10}, {"n": 1000, "iters": 10}),
    Kernel("heat3d", heat3d, {"n": 20, "iters": 10}, {"n": 100, "iters": 3}),
    Kernel("fdtd2d", fdtd2d, {"nx": 100, "ny": 120, "iters": 10},
           {"nx": 500, "ny": 600, "iters": 10}),
    Kernel("adi", adi, {"n": 60, "iters": 2}, {"n": 400, "iters": 2}, rtol=1e-8),
    Kernel("conv2d", conv2d, {"n": 100, "iters": 2}, {"n": 1000, "iters": 2}),
    Kernel("trisolv", trisolv, {"n": 100}, {"n": 1000}, rtol=1e-8),
    Kernel("lu", lu, {"n": 60}, {"n": 400}, rtol=1e-8),
    Kernel("durbin", durbin, {"n": 100}, {"n": 3000}, rtol=1e-8),
    Kernel("floyd_warshall", floyd_warshall, {"n": 60}, {"n": 400}),
    Kernel("gemm", gemm, {"n": 60}, {"n": 1000}),
    Kernel("2mm", mm2, {"n": 60}, {"n": 800}),
    Kernel("3mm", mm3, {"n": 60}, {"n": 700}),
    Kernel("atax", atax, {"n": 200, "reps": 4}, {"n": 2000, "reps": 2}),
    Kernel("bicg", bicg, {"n": 200, "reps": 4}, {"n": 2000, "reps": 2}),
    Kernel("mvt", mvt, {"n": 200, "reps": 4}, {"n": 2000, "reps": 2}),
    Kernel("gemver", gemver, {"n": 200}, {"n": 2000}),
    Kernel("symm", symm, {"n": 60}, {"n": 1000}),
    Kernel("trmm", trmm, {"n": 60}, {"n": 1000}),
    Kernel("cnn", cnn, {"batch": 8, "size": 16, "ch": 8, "reps": 2},
           {"batch": 64, "size": 32, "ch": 32, "reps": 2}),
    Kernel("covariance", covariance, {"n": 100, "m": 80}, {"n": 3000, "m": 500}),
    Kernel("correlation", correlation, {"n": 100, "m": 80}, {"n": 3000, "m": 500}),
    Kernel("softmax", softmax, {"n": 100, "m": 100, "reps": 2}, {"n": 1000, "m": 1000, "reps": 2}),
    Kernel("mlp", mlp, {"batch": 64, "width": 64, "reps": 2},
           {"batch": 1024, "width": 512, "reps": 2}, rtol=1e-8),
    Kernel("nbody", nbody, {"n": 64, "steps": 4}, {"n": 400, "steps": 4}, rtol=1e-8),
    Kernel("radial_histogram", radial_histogram, {"n": 10_000, "bins": 32},
           {"n": 2_000_000, "bins": 32}),
    Kernel("crc16", crc16, {"n": 1000, "length": 16}, {"n": 100_000, "length": 16}),
    Kernel("mandelbrot", mandelbrot, {"n": 60, "iters": 20}, {"n": 600, "iters": 30}),
]}

# The 1-D Jacobi step at n = 10^2..10^6 (iterations chosen so NumPy takes ~50 ms).
JACOBI_SWEEP = [{"n": 100, "iters": 2000}, {"n": 1000, "iters": 1000},
                {"n": 10_000, "iters": 500}, {"n": 100_000, "iters": 50},
                {"n": 1_000_000, "iters": 5}]


def check(kernel, reference, value):
    ref = reference if isinstance(reference, tuple) else (reference,)
    got = value if isinstance(value, tuple) else (value,)
    return len(ref) == len(got) and all(
        abs(g - r) <= kernel.rtol * max(1.0, abs(r)) for g, r in zip(got, ref))


def _geomean(xs):
    xs = [x for x in xs if x > 0 and math.isfinite(x)]
    return math.exp(sum(math.log(x) for x in xs) / len(xs)) if xs else float("nan")


def run(names, quick=False, repeat=5, out=print):
    """Time every kernel named (all when none) at its small and (unless quick) medium size, NumPy
    and cupynum in this process; print the table and the geometric means. Returns the rows
    and whether every result agrees with NumPy's."""
    import numpy

    import cupynum

    from . import measure
    unknown = [n for n in names if n not in KERNELS]
    if unknown:
        raise ValueError(f"unknown kernel {unknown[0]!r}; choose from {', '.join(KERNELS)}")
    kernels = [KERNELS[n] for n in names] if names else list(KERNELS.values())
    sizes = ["small"] if quick else ["small", "medium"]
    if quick:
        repeat = min(repeat, 3)
    out(f"\nkernels (issue #21): plain NumPy code, NumPy and cupynum in this run, the fastest of "
        f"{repeat} runs after a warm-up; load average {os.getloadavg()[0]:.2f}")
    out(f"{'kernel':<17}{'size':<7}{'args':<28}{'numpy s':>10}{'cupynum s':>10}{'speedup':>9}"
        f"{'cpu':>9}  check")
    rows = []

    def timed(run):
        # The fastest of the timed runs, wall clock and this process's CPU time (all threads): on
        # a shared machine a run of a few milliseconds is often preempted for a scheduler slice,
        # and the least disturbed run is the comparable one; CPU time does not see the wait.
        fresh = getattr(sys.modules.get("cupynum._fallback"), "reset_warnings", None)
        if fresh is not None:
            fresh()
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always")
            result = run()
        walls, cpus = [], []
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            for _ in range(repeat):
                gc.collect()
                t0, c0 = time.perf_counter(), time.process_time()
                run()
                walls.append(time.perf_counter() - t0)
                cpus.append(time.process_time() - c0)
        return min(walls), min(cpus), result, measure._fallback_names(caught)

    def one(kernel, which, size):
        tn, cn, ref, _ = timed(lambda: kernel.func(numpy, **size))
        tc, cc, res, fb = timed(lambda: (kernel.func(cupynum, **size), cupynum.sync())[0])
        ok = check(kernel, ref, res)
        row = {"name": kernel.name, "size": which, "args": size, "numpy": tn, "cupynum": tc,
               "speedup": tn / tc if tc > 0 else float("inf"), "numpy_cpu": cn,
               "cupynum_cpu": cc, "cpu_speedup": cn / cc if cc > 0 else float("inf"),
               "check": ok, "fallbacks": fb}
        rows.append(row)
        out(f"{kernel.name:<17}{which:<7}{kernel.label(size):<28}{tn:>10.4f}{tc:>10.4f}"
            f"{row['speedup']:>8.2f}x{row['cpu_speedup']:>8.2f}x  {'ok' if ok else 'MISMATCH'}"
            + (f"  (fallback: {', '.join(fb)})" if fb else ""))

    for which in sizes:
        for k in kernels:
            one(k, which, getattr(k, which))
    if not names or "jacobi1d" in names:
        j = KERNELS["jacobi1d"]
        for size in (JACOBI_SWEEP[:3] if quick else JACOBI_SWEEP):
            one(j, "sweep", {**size, "iters": size["iters"] // (10 if quick else 1)})
    for which in sizes + ["sweep"]:
        sel = [r for r in rows if r["size"] == which]
        if sel:
            low = min(sel, key=lambda r: r["speedup"])
            out(f"geometric mean speedup, {which}: {_geomean([r['speedup'] for r in sel]):.2f}x "
                f"over {len(sel)} (lowest {low['name']} {low['speedup']:.2f}x); in CPU time "
                f"{_geomean([r['cpu_speedup'] for r in sel]):.2f}x")
    bad = [r["name"] for r in rows if not r["check"]]
    out(f"result checks: {len(rows) - len(bad)} of {len(rows)} agree with NumPy"
        + (f"; MISMATCH: {', '.join(bad)}" if bad else "")
        + f"; load average at the end {os.getloadavg()[0]:.2f}")
    return rows, not bad
