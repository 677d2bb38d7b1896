"""Element-wise ufuncs, cupynum against NumPy in the same run.

    python -m benchmarks.ufuncs [names...] [--n N] [--repeat R]

For every NumPy ufunc that cupynum implements natively with a float64 loop (binary ones on two
arrays), on N = 10**7 float64 elements drawn inside the function's domain: NumPy's time,
cupynum's time including the flush (cupynum.sync()), and the ratio cupynum / NumPy (below 1:
cupynum is faster), each the median of R runs.  A summary line gives the largest ratio."""
import argparse
import statistics
import sys
import time

import numpy

import cupynum
from cupynum import _functions

# Inputs inside each function's domain (default: uniform on [-100, 100]).
DOMAIN = {
    "log": (0.01, 100), "log2": (0.01, 100), "log10": (0.01, 100), "sqrt": (0.01, 100),
    "log1p": (-0.9, 100), "arcsin": (-0.99, 0.99), "arccos": (-0.99, 0.99),
    "arctanh": (-0.99, 0.99), "arccosh": (1.0, 100), "exp": (-50, 50), "exp2": (-50, 50),
    "expm1": (-50, 50), "sinh": (-50, 50), "cosh": (-50, 50), "power": (0.1, 10),
    "reciprocal": (1, 100), "cbrt": (-100, 100),
}
# Second operands where it matters (divisors away from zero, moderate exponents).
DOMAIN_B = {"power": (-5, 5), "divide": (1, 100), "floor_divide": (1, 100),
            "remainder": (1, 100), "fmod": (1, 100)}


def native_float64_ufuncs():
    """NumPy names of the ufuncs cupynum has natively with a float64 loop, aliases once."""
    seen, names = set(), []
    for name in sorted(_functions.ufuncs):
        u = getattr(numpy, name, None)
        if (not isinstance(u, numpy.ufunc) or u.__name__ in seen or u.nout != 1
                or not cupynum._core.has_op(name)):
            continue
        sig = "d" * u.nin + "->"
        if not any(t.startswith(sig) for t in u.types):
            continue
        seen.add(u.__name__)
        names.append(u.__name__)
    return names


def median_time(f, repeat):
    times = []
    for _ in range(repeat):
        t = time.perf_counter()
        f()
        times.append(time.perf_counter() - t)
    return statistics.median(times)


def run(name, n, repeat, rng):
    u = getattr(numpy, name)
    c = getattr(cupynum, name)
    lo, hi = DOMAIN.get(name, (-100, 100))
    args = [rng.uniform(lo, hi, n)]
    if u.nin == 2:
        lo, hi = DOMAIN_B.get(name, (-100, 100))
        args.append(rng.uniform(lo, hi, n))
    cargs = [cupynum.array(a) for a in args]
    cupynum.sync()
    state = {}

    def np_call():
        state["np"] = u(*args)

    def cpn_call():
        state["cpn"] = None      # the previous result's buffer is reused, as NumPy's is
        state["cpn"] = c(*cargs)
        cupynum.sync()
    np_call()
    cpn_call()   # warm-up: page faults, thread start
    tn = median_time(np_call, repeat)
    tc = median_time(cpn_call, repeat)
    return tn, tc


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("names", nargs="*")
    ap.add_argument("--n", type=int, default=10**7)
    ap.add_argument("--repeat", type=int, default=5)
    opt = ap.parse_args(argv)
    names = opt.names or native_float64_ufuncs()
    rng = numpy.random.default_rng(1)
    info = cupynum.runtime_info()
    print(f"# {opt.n} float64 elements, median of {opt.repeat}; cupynum threads={info['threads']} "
          f"vmath={info.get('vmath')}")
    print(f"{'ufunc':<16}{'numpy ms':>12}{'cupynum ms':>12}{'ratio':>8}")
    worst = (0.0, None)
    with numpy.errstate(all="ignore"), cupynum.errstate(all="ignore"):
        for name in names:
            tn, tc = run(name, opt.n, opt.repeat, rng)
            r = tc / tn
            worst = max(worst, (r, name))
            print(f"{name:<16}{tn * 1e3:>12.2f}{tc * 1e3:>12.2f}{r:>8.2f}", flush=True)
    print(f"max ratio cupynum/numpy: {worst[0]:.2f} ({worst[1]})")
    return 0


if __name__ == "__main__":
    sys.exit(main())
