"""cupynum.fft: numpy.fft over cupynum arrays.

Nothing is native yet: every function of numpy.fft falls back to NumPy on gathered data
(cupynum/_fallback.py), warning once per function; results are cupynum arrays."""

import numpy.fft as _npfft

from .. import _fallback


def __getattr__(name):
    return _fallback.module_getattr(globals(), _npfft, "numpy.fft", name)


def __dir__():
    return _fallback.module_dir(globals(), _npfft)
