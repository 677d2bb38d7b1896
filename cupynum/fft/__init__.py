"""cupynum.fft: numpy.fft over cupynum arrays.

With an FFT library in the build (runtime_info()["fft"], FFTW3: meson -Dfftw) all 18 functions of
numpy.fft are native (cupynum/fft/_transforms.py over the runtime's fft op).  A build without one
falls back to NumPy on gathered data (cupynum/_fallback.py), warning once per function, as every
name cupynum lacks does."""

import numpy.fft as _npfft

from .. import _core, _fallback

if _core.runtime_info()["fft"] != "none":
    from ._transforms import NAMES as _NAMES
    from ._transforms import (fft, fft2, fftfreq, fftn, fftshift, hfft, ifft, ifft2,  # noqa: F401
                              ifftn, ifftshift, ihfft, irfft, irfft2, irfftn, rfft, rfft2,
                              rfftfreq, rfftn)

    def _register():
        from .._functions import _IMPLEMENTED
        for n in _NAMES:
            _IMPLEMENTED[getattr(_npfft, n)] = globals()[n]

    _register()


def __getattr__(name):
    return _fallback.module_getattr(globals(), _npfft, "numpy.fft", name)


def __dir__():
    return _fallback.module_dir(globals(), _npfft)
