"""cupynum.random: NumPy's legacy random functions over a counter-based generator.

Every draw is Philox4x32-10 keyed by (seed, draw number) and the element's global index, so a
seeded program draws the same arrays on any number of ranks, threads or devices.  The streams are
not NumPy's Mersenne Twister streams: seeded values differ from numpy.random's, distributions
agree.

The rest of numpy.random falls back to NumPy (cupynum/_fallback.py): the other legacy functions
(randint, choice, shuffle, permutation, the other distributions, get_state/set_state...) are the
methods of one numpy.random.RandomState private to cupynum, seeded by `seed()` (a seed below
2**32 gives numpy.random.seed's streams, so after `seed(s)` they equal NumPy's after
`numpy.random.seed(s)`; every rank draws the same values); `RandomState`, `Generator` and
`default_rng` give objects whose methods take and return cupynum arrays; `shuffle` writes back."""

import operator
import os

import numpy as _np

from .. import _core, _fallback
from .._ndarray import ndarray

_UNIFORM, _NORMAL = 0, 1


def _os_seed():
    """A seed from the OS, the same on every rank (rank 0's)."""
    return _core.bcast_u64(int.from_bytes(os.urandom(8), "little"))


_state = {"seed": _os_seed(), "stream": 0}


def seed(seed=None):
    """Reseed the generator; None draws a seed from the operating system."""
    if seed is None:
        s = _os_seed()
    else:
        s = operator.index(seed) if not isinstance(seed, (float,)) else int(seed)
        if s < 0 or s > 2**64 - 1:
            raise ValueError("Seed must be between 0 and 2**64 - 1")
    _state["seed"] = s
    _state["stream"] = 0
    _legacy[0] = None


def _size_tuple(size):
    if size is None:
        return None
    if isinstance(size, (int, _np.integer)):
        return (operator.index(size),)
    return tuple(operator.index(s) for s in size)


def _draw(dist, size, lo, hi):
    shape = _size_tuple(size)
    _state["stream"] += 1
    a = _core.random(dist, () if shape is None else shape, _state["seed"], _state["stream"],
                     float(lo), float(hi))
    if shape is None:
        return float(_core.to_scalar(a))
    return a


def _is_scalar(x):
    return _np.ndim(x) == 0 and not isinstance(x, ndarray)


def random(size=None):
    """Floats uniform on [0, 1)."""
    return _draw(_UNIFORM, size, 0.0, 1.0)


random_sample = random
sample = random
ranf = random


def rand(*shape):
    return random(shape if shape else None)


def uniform(low=0.0, high=1.0, size=None):
    if _is_scalar(low) and _is_scalar(high):
        return _draw(_UNIFORM, size, low, high)
    low_a, high_a = _core.from_any(low) if not isinstance(low, ndarray) else low, \
        _core.from_any(high) if not isinstance(high, ndarray) else high
    shape = _size_tuple(size) or _np.broadcast_shapes(low_a.shape, high_a.shape)
    u = _draw(_UNIFORM, shape, 0.0, 1.0)
    return low_a + (high_a - low_a) * u


def standard_normal(size=None):
    return _draw(_NORMAL, size, 0.0, 1.0)


def randn(*shape):
    return standard_normal(shape if shape else None)


def normal(loc=0.0, scale=1.0, size=None):
    if _is_scalar(loc) and _is_scalar(scale):
        if scale < 0:
            raise ValueError("scale < 0")
        return _draw(_NORMAL, size, loc, scale)
    loc_a = loc if isinstance(loc, ndarray) else _core.from_any(loc)
    scale_a = scale if isinstance(scale, ndarray) else _core.from_any(scale)
    shape = _size_tuple(size) or _np.broadcast_shapes(loc_a.shape, scale_a.shape)
    return loc_a + scale_a * _draw(_NORMAL, shape, 0.0, 1.0)


# ---- the rest of numpy.random: NumPy on gathered data -------------------------------------------

_legacy = [None]   # the numpy.random.RandomState behind the fallen-back legacy functions


def _legacy_state():
    """The private RandomState, created from cupynum's seed on first use after `seed()`."""
    if _legacy[0] is None:
        s = _state["seed"]
        _legacy[0] = _np.random.RandomState(s if s < 2**32 else [s & 0xFFFFFFFF, s >> 32])
    return _legacy[0]


def _get_bit_generator():
    return _legacy_state()._bit_generator


def _set_bit_generator(bitgen):
    _legacy[0] = _np.random.RandomState(bitgen)


# Objects whose methods take and return cupynum arrays (construction and each method fall back).
Generator = _fallback.proxy_class(_np.random.Generator, "numpy.random.Generator")
RandomState = _fallback.proxy_class(_np.random.RandomState, "numpy.random.RandomState")

get_bit_generator = _fallback.function("numpy.random.get_bit_generator", _get_bit_generator)
set_bit_generator = _fallback.function("numpy.random.set_bit_generator", _set_bit_generator)


def _legacy_function(name):
    """numpy.random.<name> is a method of NumPy's global RandomState: cupynum's is the private one."""
    q = "numpy.random." + name
    npf = getattr(_np.random, name)

    def wrapper(*args, **kwargs):
        _fallback.note(q, 1)
        return _fallback.call(q, getattr(_legacy_state(), name), args, kwargs)

    _fallback._describe(wrapper, npf, q, name)
    return wrapper


def __getattr__(name):
    npf = getattr(_np.random, name, None) if not name.startswith("_") else None
    if npf is not None and getattr(npf, "__self__", None) is getattr(_np.random, "mtrand")._rand:
        f = _legacy_function(name)
        globals()[name] = f
        return f
    return _fallback.module_getattr(globals(), _np.random, "numpy.random", name)


def __dir__():
    return _fallback.module_dir(globals(), _np.random)


# numpy.random's names: the native ones above, the rest through __getattr__.
__all__ = sorted({"seed", "random", "random_sample", "sample", "ranf", "rand", "uniform",
                  "standard_normal", "randn", "normal"} | set(_np.random.__all__))
