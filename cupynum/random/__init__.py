"""cupynum.random: numpy.random over a counter-based generator, native.

Every draw is Philox4x32-10 keyed by the generator's 64-bit key, with counters (block index,
stream) -- a block holds two uniforms or two normals (a ziggurat; element i: half i & 1 of
block i >> 1), four bounded integers below 2**32, or one element of the other distributions:
element i of a draw depends only on (key, stream, i).  So a seeded program draws the same arrays on any number of ranks, threads or devices (each rank draws its own part), and on any
machine.  Rejection samplers (gamma, Poisson, binomial, ...) stay counter-based: attempt a of
element i is the block of counter (i, stream ^ a << 56), never a neighbour's numbers.

**The streams are not NumPy's.**  `default_rng(s)` hashes the seed through NumPy's SeedSequence
into the key, `seed(s)` / `RandomState(s)` take s itself as the key; the values differ from
NumPy's PCG64 and Mersenne Twister streams (as CuPy's and cuPyNumeric's do), the distributions
agree (tests/test_random_gen.py checks them against NumPy's with KS and chi-squared tests).
Naming `PCG64`, `MT19937` or `SFC64` gives the same Philox streams; `get_state`/`set_state` and
`bit_generator.state` round-trip cupynum's state `{"bit_generator", "state": {"key", "stream"}}`.

Array-valued parameters broadcast as NumPy's: each element is drawn with its own parameters by
the rank that holds it (the draw is laid out like the parameters).  What is not cupynum's own
stream: `multinomial` with an array `n` or 2-d `pvals`, `multivariate_hypergeometric`, and
`integers` with array bounds spanning more than 2**53 are drawn by NumPy's Generator on a Philox
keyed by (key, stream) -- identical on every rank, not partitioned work."""

import numpy as _np

from ._generator import (BitGenerator, Generator, MT19937, PCG64, PCG64DXSM, Philox,
                         RandomState, SeedSequence, SFC64, default_rng, os_seed as _os_seed)

_global = RandomState(_os_seed())


def seed(seed=None):
    """Reseed the module's generator; None draws a seed from the operating system."""
    _global.seed(seed)


def get_state(legacy=True):
    return _global.get_state(legacy)


def set_state(state):
    _global.set_state(state)


def get_bit_generator():
    return _global._bit_generator


def set_bit_generator(bitgen):
    if not isinstance(bitgen, BitGenerator):
        raise TypeError("bitgen must be a cupynum.random bit generator")
    _global._bit_generator = bitgen


_LEGACY = ("beta binomial bytes chisquare choice dirichlet exponential f gamma geometric gumbel "
           "hypergeometric laplace logistic lognormal logseries multinomial multivariate_normal "
           "negative_binomial noncentral_chisquare noncentral_f normal pareto permutation poisson "
           "power rand randint randn random random_integers random_sample rayleigh shuffle "
           "standard_cauchy standard_exponential standard_gamma standard_normal standard_t "
           "tomaxint triangular uniform vonmises wald weibull zipf").split()


def _bind(name):
    meth = getattr(RandomState, name)

    def f(*args, **kwargs):
        return meth(_global, *args, **kwargs)
    f.__name__ = f.__qualname__ = name
    f.__doc__ = getattr(_np.random, name).__doc__ if hasattr(_np.random, name) else None
    f.__module__ = __name__
    return f


for _n in _LEGACY:
    globals()[_n] = _bind(_n)
sample = ranf = globals()["random_sample"]
del _n

def __getattr__(name):
    """The rest of numpy.random's namespace (its `test` runner): NumPy's, through _fallback."""
    from .. import _fallback
    return _fallback.module_getattr(globals(), _np.random, "numpy.random", name)


def __dir__():
    from .. import _fallback
    return _fallback.module_dir(globals(), _np.random)


__all__ = sorted(set(_LEGACY) | {"seed", "get_state", "set_state", "get_bit_generator",
                                 "set_bit_generator", "sample", "ranf", "Generator",
                                 "RandomState", "SeedSequence", "BitGenerator", "Philox", "PCG64",
                                 "PCG64DXSM", "MT19937", "SFC64", "default_rng"})
