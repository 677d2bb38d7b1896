"""The peers cupynum is compared with, where they are installed: numexpr, Dask, cuPyNumeric.

Each is an optional dependency: absent means skipped, said once. A peer provides, for the
benchmarks where it is natural, a callable `run(size) -> result` that computes what the program
computes, so that its result is checked against NumPy's like cupynum's:

- **numexpr**: the programs rewritten as a numexpr user writes them, with `numexpr.evaluate`
  strings over NumPy arrays (chains, Black-Scholes, pi, stencil, Jacobi).
- **Dask**: the very same program source with `np` bound to `dask.array` (chunks of
  `DASK_CHUNK`, the threaded scheduler). The stencil writes through views, which Dask cannot do.
- **cuPyNumeric**: the same program source with `np` bound to `cupynumeric`, where importable."""
import importlib
import math

import numpy

from .programs import PHI1, PHI2, PHI3

DASK_CHUNK = "8MiB"   # Dask's default (128 MiB) would leave a 10^7-element array in one chunk


# ---- numexpr versions of the programs ---------------------------------------------------------

def pi_numexpr(ne, n):
    numpy.random.seed(7)
    x = numpy.random.uniform(size=n)
    y = numpy.random.uniform(size=n)
    inside = ne.evaluate("sum(where(x * x + y * y < 1.0, 1.0, 0.0))")
    return 4.0 * float(inside) / n


def stencil_numexpr(ne, n, iters):
    grid = numpy.zeros((n + 2, n + 2))
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
        center[:] = ne.evaluate("0.2 * (center + north + east + west + south)")
    return float(numpy.mean(grid[1:-1, 1:-1]))


def blackscholes_numexpr(ne, n):
    i = numpy.arange(n, dtype=numpy.float64)
    p1, p2, p3 = PHI1, PHI2, PHI3
    price = ne.evaluate("10.0 + 40.0 * ((i * p1) % 1.0)")
    strike = ne.evaluate("10.0 + 40.0 * ((i * p2) % 1.0)")
    years = ne.evaluate("0.25 + 1.75 * ((i * p3) % 1.0)")
    rate, vol = 0.02, 0.30
    d1 = ne.evaluate("(log(price / strike) + (rate + 0.5 * vol * vol) * years) "
                     "/ (vol * sqrt(years))")
    d2 = ne.evaluate("d1 - vol * sqrt(years)")
    cnd = ("(1.0 - 0.3989422804014327 * exp(-0.5 * D * D) * K * (0.31938153 + K * (-0.356563782"
           " + K * (1.781477937 + K * (-1.821255978 + K * 1.330274429)))))")
    k = "(1.0 / (1.0 + 0.2316419 * abs(D)))"
    w1 = cnd.replace("K", k).replace("D", "d1")
    w2 = cnd.replace("K", k).replace("D", "d2")
    call = ne.evaluate(f"price * where(d1 < 0, 1.0 - {w1}, {w1}) "
                       f"- strike * exp(-rate * years) * where(d2 < 0, 1.0 - {w2}, {w2})")
    put = ne.evaluate("call - price + strike * exp(-rate * years)")
    return float(ne.evaluate("sum(call)")), float(ne.evaluate("sum(put)"))


def jacobi_numexpr(ne, n, iters):
    h = 1.0 / (n + 1)
    x = (numpy.arange(n, dtype=numpy.float64) + 1.0) * h
    f = numpy.sin(math.pi * x)[:, None] * numpy.sin(math.pi * x)[None, :]
    h2f = (h * h) * f
    u = numpy.zeros((n + 2, n + 2))
    v = numpy.zeros((n + 2, n + 2))
    for _ in range(iters):
        un, us, uw, ue = u[:-2, 1:-1], u[2:, 1:-1], u[1:-1, :-2], u[1:-1, 2:]
        v[1:-1, 1:-1] = ne.evaluate("0.25 * (un + us + uw + ue + h2f)")
        u, v = v, u
    return float(ne.evaluate("max(abs(u - v))")), float(ne.evaluate("sum(u)"))


def chains_numexpr(ne, n):
    i = numpy.arange(n, dtype=numpy.float64)
    s = 1.0 / n
    x = ne.evaluate("i * s")
    y = ne.evaluate("1.0 - x")
    a = ne.evaluate("2.0 * x * y + 0.5 * x * x - y / (1.0 + x)")
    b = ne.evaluate("sqrt(x * x + y * y) * exp(-x) + sin(3.0 * y)")
    return float(ne.evaluate("sum((a - b) * (a + b) / (1.0 + a * a))"))


NUMEXPR_PROGRAMS = {"pi": pi_numexpr, "stencil": stencil_numexpr,
                    "blackscholes": blackscholes_numexpr, "jacobi": jacobi_numexpr,
                    "chains": chains_numexpr}

# The same source on dask.array: what runs correctly and in reasonable time (the iterative
# solvers build a task graph that grows with every iteration until the final read).
DASK_PROGRAMS = ("pi", "blackscholes", "chains", "reductions", "kmeans")


class Peer:
    """An optional library: `module` is None when it cannot be imported (`why` says why)."""

    def __init__(self, name, import_name, install, programs):
        self.name, self.install, self._programs = name, install, programs
        try:
            self.module = importlib.import_module(import_name)
            self.why = ""
        except Exception as e:   # ImportError, or a broken install failing at import
            self.module = None
            self.why = ("not installed" if isinstance(e, ImportError) else
                        f"fails to import ({type(e).__name__}: {e})")

    @property
    def available(self):
        return self.module is not None

    def absent_line(self):
        return f"{self.name}: {self.why} ({self.install})"

    def runner(self, bench):
        """A callable size -> result for `bench`, or None where this peer does not run it."""
        if self.module is None:
            return None
        return self._programs(self.module, bench)


def _numexpr_programs(ne, bench):
    f = NUMEXPR_PROGRAMS.get(bench.name)
    return None if f is None else (lambda size: f(ne, **size))


def _dask_programs(da, bench):
    if bench.name not in DASK_PROGRAMS:
        return None
    import dask

    def run(size):
        with dask.config.set({"array.chunk-size": DASK_CHUNK}):
            return bench.func(da, **size)
    return run


def _same_source(mod, bench):
    return lambda size: bench.func(mod, **size)


def peers():
    """The peers, installed or not, in the table's column order."""
    return [Peer("numexpr", "numexpr", "pip install numexpr", _numexpr_programs),
            Peer("dask", "dask.array", "pip install 'dask[array]'", _dask_programs),
            Peer("cupynumeric", "cupynumeric", "pip install nvidia-cupynumeric", _same_source)]
