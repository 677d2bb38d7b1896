"""cupynum.random: NumPy's legacy random functions over a counter-based generator.

Every draw is Philox4x32-10 keyed by (seed, draw number) and the element's global index, so a
seeded program draws the same arrays on any number of ranks, threads or devices.  The streams are
not NumPy's Mersenne Twister streams: seeded values differ from numpy.random's, distributions
agree."""

import operator
import os

import numpy as _np

from .. import _core
from .._array_api import ndarray

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


__all__ = ["seed", "random", "random_sample", "sample", "ranf", "rand", "uniform",
           "standard_normal", "randn", "normal"]
