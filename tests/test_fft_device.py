"""numpy.fft on a device backend (cuda/fft.c: cuFFT; CUPYNUM_DEVICE=sim: the simulated device,
which takes exactly the layouts cuFFT takes, csrc/runtime/devfft.h, and computes them with the
host kernel in its memory): results against NumPy, and the transform ran on the device (a
device-resident operand is not brought back to the host).  Layouts cuFFT does not take run on
the host, also checked."""

import numpy
import pytest

import cupynum

pytestmark = [pytest.mark.device, pytest.mark.gpu]

INFO = cupynum.runtime_info()
on_device = pytest.mark.skipif(INFO["backend"] not in ("cuda", "sim") or INFO["fft"] == "none",
                               reason="no CUDA device (CUPYNUM_DEVICE=sim runs these) or no FFT library")


def _close(got, want, single):
    g = numpy.asarray(got)
    assert g.dtype == want.dtype and g.shape == want.shape
    tol = 2e-5 if single else 1e-12
    assert numpy.max(numpy.abs(g - want)) <= tol * max(1.0, float(numpy.max(numpy.abs(want))))


CASES = [  # (shape, function, kwargs): layouts cuFFT takes
    ((64,), "fft", {}), ((5, 12), "fft", {}), ((5, 12), "ifft", dict(axis=0, norm="ortho")),
    ((3, 7, 4), "fft", dict(axis=1)), ((6, 8), "fft2", {}), ((2, 6, 8), "fftn", dict(axes=(1, 2))),
    ((3, 4, 5), "ifftn", dict(norm="forward")), ((9, 6), "rfft", {}), ((9, 6), "rfft", dict(axis=0)),
    ((9, 6), "irfft", {}), ((8, 6), "irfft", dict(axis=0, n=15)),
    ((9, 6), "irfft", dict(axis=0, n=24)), ((5, 7), "fft", dict(n=11)), ((4, 10), "hfft", {}),
    ((4, 10), "ihfft", dict(norm="ortho")), ((6, 8), "rfft2", {}), ((6, 8), "irfft2", {}),
]


@on_device
@pytest.mark.parametrize("dt", ["complex128", "complex64"])
@pytest.mark.parametrize("shape,name,kw", CASES, ids=[f"{c[1]}-{'x'.join(map(str, c[0]))}-{c[2]}" for c in CASES])
def test_device_transforms(shape, name, kw, dt):
    rng = numpy.random.default_rng(3)
    real_in = name in ("rfft", "ihfft", "rfft2")
    n = rng.standard_normal(shape)
    if not real_in:
        n = n + 1j * rng.standard_normal(shape)
    n = n.astype(dt if not real_in else ("float32" if dt == "complex64" else "float64"))
    x = cupynum.array(n) * 1   # computed on the device: the host copy is stale
    cupynum.sync()
    cupynum.reset_stats()
    r = getattr(cupynum.fft, name)(x, **kw)
    cupynum.sync()
    assert cupynum.runtime_stats()["bytes_to_host"] == 0   # the transform ran on the device
    _close(r, getattr(numpy.fft, name)(n, **kw), dt == "complex64")


@on_device
def test_device_other_layouts_run_on_the_host():
    rng = numpy.random.default_rng(4)
    n = rng.standard_normal((6, 10)) + 1j * rng.standard_normal((6, 10))
    x = cupynum.array(n) * 1
    for view, nv in ((x[:, ::2], n[:, ::2]), (x.T, n.T)):
        _close(cupynum.fft.fft(view, axis=0), numpy.fft.fft(nv, axis=0), False)
    _close(cupynum.fft.fftn(x, axes=(0,)), numpy.fft.fftn(n, axes=(0,)), False)
    _close(cupynum.fft.irfft(x, n=9, axis=0), numpy.fft.irfft(n, n=9, axis=0), False)   # a crop
    n3 = rng.standard_normal((4, 5, 6)) + 0j
    x3 = cupynum.array(n3) * 1
    _close(cupynum.fft.fftn(x3, axes=(0, 2)), numpy.fft.fftn(n3, axes=(0, 2)), False)   # not one run
