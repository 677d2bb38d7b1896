"""A 2-D shallow-water (Saint-Venant) solver in plain NumPy: a dam break over a partly dry bed.

    h_t + (hu)_x + (hv)_y = 0
    (hu)_t + (hu^2 + g h^2/2)_x + (huv)_y = 0
    (hv)_t + (huv)_x + (hv^2 + g h^2/2)_y = 0

on a Cartesian grid of nx x ny cells with two layers of ghost cells, by a second-order
central-upwind finite-volume scheme of the Kurganov-Petrova type: piecewise-linear reconstruction
limited by the generalized minmod (theta = 1.3), one-sided local speeds from the reconstructed
states, the central-upwind numerical flux, velocities desingularized near dry cells, wet/dry
handling by boolean masks (`h[h < tol] = 0`, momenta zeroed where dry), reflective walls on the
left and right and outflow at the bottom and top set by slice assignment into the ghost cells, and
the two-stage strong-stability-preserving Runge-Kutta method (SSP-RK2) in time with a fixed step
chosen from the initial state.

Nothing here is specific to cupynum.  The array library is chosen on the command line or by the
environment:

    python examples/swe.py [nx ny steps] [--numpy | --cupynum]     (SWE_LIB=numpy|cupynum)
    mpirun -np 2 python examples/swe.py 2000 1000 50 --cupynum

It prints a checksum (the total water volume and a weighted sum of the three fields)."""
import os
import sys
import time

G = 9.81
THETA = 1.3      # generalized minmod parameter, in [1, 2]
TOL = 1e-6       # depth below which a cell is dry
EPS = 1e-8       # desingularization of velocities near dry cells
NG = 2           # ghost layers
SQRT2 = 2.0 ** 0.5


def minmod(np, a, b, c):
    """The generalized minmod of three slopes: the smallest in magnitude when all agree in sign,
    zero otherwise."""
    pos = (a > 0) & (b > 0) & (c > 0)
    neg = (a < 0) & (b < 0) & (c < 0)
    lo = np.minimum(np.minimum(a, b), c)
    hi = np.maximum(np.maximum(a, b), c)
    return np.where(pos, lo, np.where(neg, hi, 0.0))


def slopes(np, q, axis):
    """Limited slopes of q along axis (0: y, 1: x) in every cell but the outermost layer."""
    if axis == 1:
        c, l, r = q[:, 1:-1], q[:, :-2], q[:, 2:]
    else:
        c, l, r = q[1:-1, :], q[:-2, :], q[2:, :]
    return minmod(np, THETA * (c - l), 0.5 * (r - l), THETA * (r - c))


def faces(np, q, axis):
    """Reconstructed values on both sides of each interior face along axis: (minus, plus), the
    left (lower) and right (upper) limits.  The faces are those around the interior cells."""
    s = slopes(np, q, axis)                       # cells 1 .. n+2 along axis
    if axis == 1:
        qc = q[:, 1:-1]
        minus = qc[:, :-1] + 0.5 * s[:, :-1]      # left state at faces 1+1/2 .. n+1+1/2
        plus = qc[:, 1:] - 0.5 * s[:, 1:]
        return minus[NG:-NG, :], plus[NG:-NG, :]
    qc = q[1:-1, :]
    minus = qc[:-1, :] + 0.5 * s[:-1, :]
    plus = qc[1:, :] - 0.5 * s[1:, :]
    return minus[:, NG:-NG], plus[:, NG:-NG]


def velocity(np, h, m):
    """m / h, desingularized where h is small (Kurganov-Petrova), zero where dry."""
    h4 = h * h * h * h
    u = (SQRT2 * h * m) / np.sqrt(h4 + np.maximum(h4, EPS))
    u[h < TOL] = 0.0
    return u


def flux(np, h, hu, hv, axis):
    """Central-upwind fluxes of (h, hu, hv) through the faces along axis."""
    hm, hp = faces(np, h, axis)
    hm[hm < TOL] = 0.0
    hp[hp < TOL] = 0.0
    if axis == 1:
        n_, t_ = hu, hv          # normal and tangential momentum
    else:
        n_, t_ = hv, hu
    nm, np_ = faces(np, n_, axis)
    tm, tp = faces(np, t_, axis)
    um, up = velocity(np, hm, nm), velocity(np, hp, np_)
    vm, vp = velocity(np, hm, tm), velocity(np, hp, tp)
    nm, np_ = hm * um, hp * up   # momenta consistent with the desingularized velocities
    tm, tp = hm * vm, hp * vp
    cm, cp = np.sqrt(G * hm), np.sqrt(G * hp)
    ap = np.maximum(np.maximum(up + cp, um + cm), 0.0)
    am = np.minimum(np.minimum(up - cp, um - cm), 0.0)
    d = ap - am
    still = d < EPS                # both sides dry or at rest: no flux
    d[still] = 1.0
    w = ap * am / d

    def central(fm, fp, qm, qp):
        f = (ap * fm - am * fp) / d + w * (qp - qm)
        f[still] = 0.0
        return f

    f_h = central(nm, np_, hm, hp)
    f_n = central(nm * um + 0.5 * G * hm * hm, np_ * up + 0.5 * G * hp * hp, nm, np_)
    f_t = central(nm * vm, np_ * vp, tm, tp)
    return (f_h, f_n, f_t) if axis == 1 else (f_h, f_t, f_n)


def boundaries(h, hu, hv):
    """Reflective walls at x = 0 and x = L (normal momentum mirrored with its sign changed),
    outflow at y = 0 and y = L (zero-gradient copies), both into the two ghost layers."""
    for q, sign in ((h, 1.0), (hu, -1.0), (hv, 1.0)):
        q[:, 1] = sign * q[:, 2]
        q[:, 0] = sign * q[:, 3]
        q[:, -2] = sign * q[:, -3]
        q[:, -1] = sign * q[:, -4]
    for q in (h, hu, hv):
        q[0, :] = q[2, :]
        q[1, :] = q[2, :]
        q[-2, :] = q[-3, :]
        q[-1, :] = q[-3, :]


def rhs(np, h, hu, hv, dx, dy):
    """The semi-discrete right-hand side on the interior cells."""
    boundaries(h, hu, hv)
    fx = flux(np, h, hu, hv, 1)
    fy = flux(np, h, hu, hv, 0)
    return tuple(-(f[:, 1:] - f[:, :-1]) / dx - (g[1:, :] - g[:-1, :]) / dy
                 for f, g in zip(fx, fy))


def dry_out(h, hu, hv):
    """Wet/dry: cells too shallow to carry water are emptied and stopped."""
    h[h < 0.0] = 0.0
    dry = h < TOL
    h[dry] = 0.0
    hu[dry] = 0.0
    hv[dry] = 0.0


def initial(np, nx, ny):
    """A dam break: a deep column of water in the left third, shallow water in the middle, a dry
    bed on the right, a circular bump of water above the middle."""
    shape = (ny + 2 * NG, nx + 2 * NG)
    dx, dy = 1.0 / nx, 1.0 / ny
    x = (np.arange(nx + 2 * NG, dtype=np.float64) - NG + 0.5) * dx
    y = (np.arange(ny + 2 * NG, dtype=np.float64) - NG + 0.5) * dy
    X = np.zeros(shape) + x[None, :]
    Y = np.zeros(shape) + y[:, None]
    h = np.zeros(shape)
    h[X < 0.7] = 0.2
    h[X < 0.3] = 1.0
    r2 = (X - 0.5) ** 2 + (Y - 0.7) ** 2
    h[r2 < 0.01] = 0.6
    return h, np.zeros(shape), np.zeros(shape), dx, dy


def run(np, nx=200, ny=100, steps=20):
    """Advance the dam break `steps` SSP-RK2 steps; return (h, hu, hv) with ghost cells."""
    h, hu, hv, dx, dy = initial(np, nx, ny)
    dt = 0.2 * min(dx, dy) / (3.0 * (G * 1.0) ** 0.5)   # CFL for speeds up to 3 sqrt(g h0)
    inner = (slice(NG, -NG), slice(NG, -NG))
    for _ in range(steps):
        k = rhs(np, h, hu, hv, dx, dy)
        h1, hu1, hv1 = h.copy(), hu.copy(), hv.copy()
        for q1, kq in zip((h1, hu1, hv1), k):
            q1[inner] += dt * kq
        dry_out(h1, hu1, hv1)
        k = rhs(np, h1, hu1, hv1, dx, dy)
        for q, q1, kq in zip((h, hu, hv), (h1, hu1, hv1), k):
            q[inner] = 0.5 * q[inner] + 0.5 * (q1[inner] + dt * kq)
        dry_out(h, hu, hv)
    return h, hu, hv


def checksum(np, h, hu, hv, nx, ny):
    """The water volume and a weighted sum of the fields over the interior cells."""
    inner = (slice(NG, -NG), slice(NG, -NG))
    vol = float(np.sum(h[inner])) / (nx * ny)
    mix = float(np.sum(h[inner] + 0.5 * hu[inner] + 0.25 * hv[inner])) / (nx * ny)
    return vol, mix


def library(argv):
    name = os.environ.get("SWE_LIB", "numpy")
    if "--numpy" in argv:
        name = "numpy"
    if "--cupynum" in argv:
        name = "cupynum"
    if name == "cupynum":
        import cupynum as np
    else:
        import numpy as np
    return name, np


def main(argv):
    name, np = library(argv)
    args = [a for a in argv if not a.startswith("--")]
    nx = int(args[0]) if len(args) > 0 else 400
    ny = int(args[1]) if len(args) > 1 else 200
    steps = int(args[2]) if len(args) > 2 else 20
    t0 = time.perf_counter()
    h, hu, hv = run(np, nx, ny, steps)
    vol, mix = checksum(np, h, hu, hv, nx, ny)
    t1 = time.perf_counter()
    print(f"swe {nx}x{ny}, {steps} steps on {name}: volume {vol!r} checksum {mix!r} "
          f"in {t1 - t0:.3f} s")


if __name__ == "__main__":
    main(sys.argv[1:])
