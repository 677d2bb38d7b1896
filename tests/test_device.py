"""The CUDA backend: device selection, interop, and NumPy parity of the device paths.

- Device selection and runtime_info run everywhere (processes started with CUPYNUM_DEVICE set).
- The parity tests run on a device backend: the GPU ("cuda"), or the simulated device
  (CUPYNUM_DEVICE=sim: host memory standing in for device memory, so the executor's device path,
  host/device coherence and the host fallback of unsupported ops are tested without a GPU).
  On the CPU backend they skip with the reason "no CUDA device".
- The generated kernels are compiled by NVRTC and nvcc in the C test tests/c/test_codegen.c.
"""
import os
import subprocess
import sys

import numpy
import pytest

import cupynum
from cupynum import _core

pytestmark = [pytest.mark.device, pytest.mark.mpi_device, pytest.mark.gpu]

INFO = cupynum.runtime_info()
BACKEND = INFO["backend"]
on_device = pytest.mark.skipif(BACKEND not in ("cuda", "sim"),
                               reason="no CUDA device (CUPYNUM_DEVICE=sim runs these on the simulated device)")
on_gpu = pytest.mark.skipif(BACKEND != "cuda", reason="no CUDA device")
single = pytest.mark.skipif(INFO["ranks"] > 1, reason="starts processes of its own: run single-process")


def run_python(code, device=None):
    """Run `code` in a fresh single-process interpreter (no MPI launcher variables)."""
    env = {k: v for k, v in os.environ.items()
           if not k.startswith(("OMPI_", "PMI", "PMIX_", "MPI_LOCAL", "CUPYNUM_DEVICE"))}
    if device is not None:
        env["CUPYNUM_DEVICE"] = device
    return subprocess.run([sys.executable, "-c", code], env=env, capture_output=True, text=True, timeout=300)


# ---- device selection ---------------------------------------------------------------------------

def test_runtime_info_fields():
    assert isinstance(INFO["cuda_built"], bool)
    assert INFO["backend"] in ("cpu", "cuda", "sim")
    assert isinstance(INFO["device"], str) and INFO["device"]
    if INFO["backend"] == "cpu":
        assert INFO["device"] == "cpu"
    if INFO["backend"] == "cuda":
        assert INFO["cuda_built"]


@single
def test_forced_cpu():
    r = run_python("import cupynum; i = cupynum.runtime_info(); print(i['backend'], i['device'])", "cpu")
    assert r.returncode == 0, r.stderr
    assert r.stdout.split() == ["cpu", "cpu"]


@single
def test_default_is_gpu_when_present_else_cpu():
    r = run_python("import cupynum; print(cupynum.runtime_info()['backend'])")
    assert r.returncode == 0, r.stderr
    assert r.stdout.strip() == ("cuda" if BACKEND == "cuda" or _gpu_present() else "cpu")


def _gpu_present():
    r = run_python("import cupynum; print(cupynum.runtime_info()['backend'])", "gpu")
    return r.returncode == 0


@single
def test_forced_gpu_without_one_is_a_clear_error():
    r = run_python("import cupynum", "gpu")
    if r.returncode == 0:
        pytest.skip("a GPU is present: CUPYNUM_DEVICE=gpu works")
    assert "RuntimeError" in r.stderr and "CUPYNUM_DEVICE=gpu" in r.stderr
    if INFO["cuda_built"]:
        assert "no GPU is usable" in r.stderr      # the driver's reason follows
    else:
        assert "built without CUDA" in r.stderr
    assert "Segmentation" not in r.stderr


@single
def test_unknown_device_value():
    r = run_python("import cupynum", "tpu")
    assert r.returncode != 0
    assert "ValueError" in r.stderr and "CUPYNUM_DEVICE" in r.stderr


@single
def test_simulated_device_selected():
    r = run_python("import cupynum; print(cupynum.runtime_info()['backend'])", "sim")
    assert r.returncode == 0, r.stderr
    assert r.stdout.strip() == "sim"


# ---- interop --------------------------------------------------------------------------------------

@pytest.mark.skipif(BACKEND == "cuda", reason="the CPU-backend behaviour")
def test_interop_without_a_gpu():
    x = cupynum.arange(12.0).reshape(3, 4)
    assert not hasattr(x, "__cuda_array_interface__")
    assert x.__dlpack_device__() == (1, 0)
    got = numpy.from_dlpack(x)
    numpy.testing.assert_array_equal(got, numpy.arange(12.0).reshape(3, 4))
    with pytest.raises(BufferError):
        x.__dlpack__(copy=False)
    n = numpy.arange(12.0).reshape(3, 4)
    assert x.__dlpack_device__() == n.__dlpack_device__()


@on_device
def test_device_export_addresses_the_data():
    if BACKEND != "sim":
        pytest.skip("host-readable addresses only on the simulated device")
    if INFO["ranks"] > 1:
        pytest.skip("partitioned arrays have no single buffer to export")
    import ctypes
    n = numpy.arange(60, dtype=numpy.int32).reshape(6, 10)
    x = cupynum.asarray(n) * 2
    v = x[1:5:2, ::-3]
    ptr, dev, strides = _core._device_export(v)
    assert dev == 0
    ref = n[1:5:2, ::-3] * 2
    assert strides == tuple(s for s in (n * 2)[1:5:2, ::-3].strides)
    for i in range(ref.shape[0]):
        for j in range(ref.shape[1]):
            addr = ptr + i * strides[0] + j * strides[1]
            assert ctypes.c_int32.from_address(addr).value == ref[i, j]


@on_gpu
def test_cuda_array_interface():
    x = cupynum.arange(20.0).reshape(4, 5)[:, 1:]
    cai = x.__cuda_array_interface__
    assert cai["version"] == 3 and cai["shape"] == (4, 4) and cai["typestr"] == "<f8"
    assert cai["strides"] == (40, 8)
    try:
        import cupy
    except ImportError:
        return
    numpy.testing.assert_array_equal(cupy.asnumpy(cupy.asarray(x)), numpy.arange(20.0).reshape(4, 5)[:, 1:])
    numpy.testing.assert_array_equal(cupy.asnumpy(cupy.from_dlpack(x)), numpy.arange(20.0).reshape(4, 5)[:, 1:])


# ---- parity on the device backend -------------------------------------------------------------------

DEVICE_DTYPES = ["bool", "int8", "uint8", "int16", "int32", "uint32", "int64", "uint64", "float32", "float64"]


def _data(dtype, shape, seed):
    rng = numpy.random.default_rng(seed)
    if dtype == "bool":
        return rng.random(shape) < 0.5
    if numpy.dtype(dtype).kind in "iu":
        return rng.integers(1, 50, size=shape).astype(dtype)
    return (rng.random(shape) * 10 - 5).astype(dtype)


BINARY = ["add", "subtract", "multiply", "divide", "floor_divide", "remainder", "maximum", "minimum",
          "bitwise_and", "left_shift", "equal", "less", "greater_equal", "power"]
UNARY = ["negative", "absolute", "square", "sqrt", "exp", "log", "sin", "floor", "invert"]


@on_device
@pytest.mark.parametrize("dtype", DEVICE_DTYPES)
@pytest.mark.parametrize("name", BINARY + UNARY)
def test_ops_parity(name, dtype):
    nf = getattr(numpy, name)
    a, b = _data(dtype, (13, 17), 1), _data(dtype, (13, 17), 2)
    args = (a,) if nf.nin == 1 else (a, b)
    with numpy.errstate(all="ignore"):
        try:
            ref = nf(*args)
        except TypeError:
            with pytest.raises(TypeError):
                getattr(cupynum, name)(*[cupynum.asarray(x) for x in args])
            return
        got = numpy.asarray(getattr(cupynum, name)(*[cupynum.asarray(x) for x in args]))
    assert got.dtype == ref.dtype
    if ref.dtype.kind == "f" and name in ("sqrt", "exp", "log", "sin", "power", "divide"):
        numpy.testing.assert_allclose(got, ref, rtol=4e-7 if ref.dtype == numpy.float32 else 1e-15)
    else:
        numpy.testing.assert_array_equal(got, ref)


@on_device
def test_views_broadcast_scalars_and_in_place():
    n = numpy.arange(48.0).reshape(6, 8)
    x = cupynum.asarray(n)
    numpy.testing.assert_array_equal(numpy.asarray(x[::2, 1::3] * 3.0 + x[1::2, :6:2]), n[::2, 1::3] * 3.0 + n[1::2, :6:2])
    numpy.testing.assert_array_equal(numpy.asarray(x + x[0]), n + n[0])
    numpy.testing.assert_array_equal(numpy.asarray(x[:, ::-1] - 1), n[:, ::-1] - 1)
    x += 1.5
    n += 1.5
    x[1:3] = x[2:4] * 2     # overlapping: a temporary
    n[1:3] = n[2:4] * 2
    numpy.testing.assert_array_equal(numpy.asarray(x), n)
    x[0, 0] = -7            # a host write after device work
    n[0, 0] = -7
    numpy.testing.assert_array_equal(numpy.asarray(x * 1), n * 1)
    assert float(x[3, 4]) == n[3, 4]


@on_device
@pytest.mark.parametrize("dtype", ["int8", "int64", "uint32", "float32", "float64", "bool"])
def test_reductions_parity(dtype):
    a = _data(dtype, (20, 30), 3)
    x = cupynum.asarray(a)
    for axis in (None, 0, 1):
        got, ref = numpy.asarray(cupynum.sum(x, axis=axis)), numpy.sum(a, axis=axis)
        numpy.testing.assert_allclose(got, ref, rtol=1e-5 if dtype == "float32" else 1e-12)
        numpy.testing.assert_array_equal(numpy.asarray(cupynum.max(x, axis=axis)), numpy.max(a, axis=axis))
    # an integer full reduction of a fused chain (reduced on the device)
    assert int(cupynum.sum(x > x[0])) == int(numpy.sum(a > a[0]))


@on_device
def test_casts_and_arange():
    for dt in DEVICE_DTYPES:
        numpy.testing.assert_array_equal(numpy.asarray(cupynum.arange(3, 40, 3, dtype=dt) if dt != "bool" else cupynum.arange(2, dtype=dt)),
                                         numpy.arange(3, 40, 3, dtype=dt) if dt != "bool" else numpy.arange(2, dtype=dt))
        a = _data("float64", (7, 9), 4) * 10
        numpy.testing.assert_array_equal(numpy.asarray(cupynum.asarray(a).astype(dt)), a.astype(dt))
    numpy.testing.assert_array_equal(numpy.asarray(cupynum.arange(0.5, 7.25, 0.25)), numpy.arange(0.5, 7.25, 0.25))


def _stencil(np, n, iterations):
    grid = np.zeros((n + 2, n + 2))
    grid[:, 0] = -273.15
    grid[:, -1] = -273.15
    grid[-1, :] = -273.15
    grid[0, :] = 40.0
    center, north, east = grid[1:-1, 1:-1], grid[0:-2, 1:-1], grid[1:-1, 2:]
    west, south = grid[1:-1, 0:-2], grid[2:, 1:-1]
    for _ in range(iterations):
        average = center + north + east + west + south
        average = 0.2 * average
        center[:] = average
    return grid


@on_device
def test_stencil_parity():
    numpy.testing.assert_array_equal(numpy.asarray(_stencil(cupynum, 40, 25)), _stencil(numpy, 40, 25))


@on_device
def test_pi_parity():
    cupynum.random.seed(7)
    x = cupynum.random.uniform(size=100_000)
    y = cupynum.random.uniform(size=100_000)
    inside = int(cupynum.sum(x * x + y * y < 1.0))
    xn, yn = numpy.asarray(x), numpy.asarray(y)
    assert inside == int(numpy.sum(xn * xn + yn * yn < 1.0))
    assert abs(4.0 * inside / 100_000 - numpy.pi) < 0.05


@on_device
@single
def test_rng_device_equals_cpu():
    """A seeded program draws bitwise the same uniforms on the device as on the CPU (normals go
    through log/cos, whose device versions may differ in the last place)."""
    code = ("import cupynum as np, numpy, sys; np.random.seed(2024); "
            "u = np.random.uniform(-1.0, 3.0, size=(300, 7)); g = np.random.normal(1.0, 2.0, size=5000); "
            "numpy.save(sys.stdout.buffer, numpy.asarray(u)); numpy.save(sys.stdout.buffer, numpy.asarray(g))")
    env = {k: v for k, v in os.environ.items() if not k.startswith(("OMPI_", "PMI", "PMIX_"))}
    env["CUPYNUM_DEVICE"] = "cpu"
    out = subprocess.run([sys.executable, "-c", code], env=env, capture_output=True, timeout=300)
    assert out.returncode == 0, out.stderr
    import io
    buf = io.BytesIO(out.stdout)
    u_cpu, g_cpu = numpy.load(buf), numpy.load(buf)
    cupynum.random.seed(2024)
    u = numpy.asarray(cupynum.random.uniform(-1.0, 3.0, size=(300, 7)))
    g = numpy.asarray(cupynum.random.normal(1.0, 2.0, size=5000))
    assert u.tobytes() == u_cpu.tobytes()
    numpy.testing.assert_allclose(g, g_cpu, rtol=1e-14, atol=1e-14)


@on_device
@pytest.mark.parametrize("dtype", ["float64", "float32", "int64"])
def test_matmul_parity(dtype):
    """float32/float64 on the device (cuBLAS), transposed operands included; integers on the host."""
    a, b = _data(dtype, (9, 13), 5), _data(dtype, (13, 7), 6)
    x, y = cupynum.asarray(a), cupynum.asarray(b)
    tol = 1e-5 if dtype == "float32" else 1e-12

    def close(got, ref):   # sums in another order: relative to the largest term
        numpy.testing.assert_allclose(numpy.asarray(got), ref, rtol=tol, atol=tol * 100 * float(abs(ref).max()))
    close(x @ y, a @ b)
    close(y.T @ x.T, b.T @ a.T)
    close((x * 2) @ y[:, ::2], (a * 2) @ b[:, ::2])


# ---- float16 and complex on the device ---------------------------------------------------------------
# scalar_dev.h's cpn_half and {re, im} structs (tests/c/test_scalar_dev.c checks their arithmetic on
# the host).  Arithmetic, comparisons and casts are bit for bit NumPy's (no FMA contraction; float16
# computes in float and rounds once), except complex multiply and square, whose CPU loops (and so
# the device, the same formula) round ar*br - ai*bi twice where NumPy's SIMD loops may fuse; the
# transcendental functions are NumPy's formulas over the device's libm: close, not bitwise.

HC_DTYPES = ["float16", "complex64", "complex128"]
HC_EXACT = ["add", "subtract", "multiply", "divide", "maximum", "minimum", "fmax", "equal", "not_equal",
            "less", "greater_equal", "logical_and", "negative", "conjugate", "square", "absolute",
            "isnan", "isinf", "logical_not"]
HC_CLOSE = ["power", "sqrt", "exp", "log", "sin", "cos", "tan", "sinh", "cosh", "tanh", "exp2",
            "expm1", "log2", "log10", "log1p", "reciprocal", "sign", "arcsin", "arccos", "arctan", "arcsinh",
            "arccosh", "arctanh"]


def _hc_data(dtype, shape, seed, special=False):
    rng = numpy.random.default_rng(seed)
    a = rng.random(shape) * 6 - 3
    if numpy.dtype(dtype).kind == "c":
        a = a + 1j * (rng.random(shape) * 6 - 3)
    a = a.astype(dtype)
    if special:   # signed zeros, infinities and NaN in both parts
        vals = [0.0, -0.0, numpy.inf, -numpy.inf, numpy.nan, 1.5]
        flat = a.reshape(-1)
        for k, v in enumerate(vals):
            flat[k] = v
            if a.dtype.kind == "c":
                for m, w in enumerate(vals):
                    flat[len(vals) * (k + 1) + m] = complex(v, w)
    return a


def _close(got, ref, dtype):
    rtol = {"float16": 2e-3, "complex64": 2e-5, "complex128": 1e-12}[numpy.dtype(dtype).name]
    assert got.dtype == ref.dtype
    if ref.dtype.kind == "c":   # a part much smaller than |ref| carries |ref|'s absolute error
        big = numpy.abs(ref[numpy.isfinite(ref)]).max(initial=0.0)
        numpy.testing.assert_allclose(got.real, ref.real, rtol=rtol, atol=rtol * big)
        numpy.testing.assert_allclose(got.imag, ref.imag, rtol=rtol, atol=rtol * big)
    elif ref.dtype.kind == "f":
        numpy.testing.assert_allclose(got, ref, rtol=rtol)
    else:
        numpy.testing.assert_array_equal(got, ref)


@on_device
@pytest.mark.parametrize("dtype", HC_DTYPES)
@pytest.mark.parametrize("name", HC_EXACT + HC_CLOSE)
def test_half_complex_ops_parity(name, dtype):
    nf = getattr(numpy, name)
    exact = name in HC_EXACT and not (dtype != "float16" and name in ("multiply", "square"))
    a, b = _hc_data(dtype, (13, 17), 5, special=exact), _hc_data(dtype, (13, 17), 6)
    args = (a,) if nf.nin == 1 else (a, b)
    with numpy.errstate(all="ignore"):
        ref = nf(*args)
        got = numpy.asarray(getattr(cupynum, name)(*[cupynum.asarray(x) for x in args]))
        # with a scalar operand (an inline scalar of the kernel)
        if nf.nin == 2:
            s = a.dtype.type(1.25 - 0.5j) if a.dtype.kind == "c" else a.dtype.type(1.25)
            ref_s = nf(a, s)
            got_s = numpy.asarray(getattr(cupynum, name)(cupynum.asarray(a), s))
    if exact:
        numpy.testing.assert_array_equal(got, ref)
        assert got.dtype == ref.dtype
        if nf.nin == 2:
            numpy.testing.assert_array_equal(got_s, ref_s)
    else:
        _close(got, ref, dtype)
        if nf.nin == 2:
            _close(got_s, ref_s, dtype)


@on_device
@pytest.mark.parametrize("dtype", HC_DTYPES)
def test_half_complex_casts(dtype):
    import warnings
    a = _hc_data(dtype, (7, 9), 7, special=True)
    x = cupynum.asarray(a)
    with warnings.catch_warnings(), numpy.errstate(all="ignore"):
        warnings.simplefilter("ignore")   # NumPy's ComplexWarning for complex -> real
        # (no unsigned targets: a negative float's conversion to them is undefined in C, and the
        # GPU's saturates where the CPU's wraps)
        for dt in ["bool", "int8", "int16", "int64", "float16", "float32", "float64", "complex64", "complex128"]:
            ref = a.astype(dt)
            got = numpy.asarray(x.astype(dt))
            if numpy.dtype(dt).kind in "iu":   # NaN and infinities convert to unspecified integers
                ok = numpy.isfinite(a.real)
                got, ref = got[ok], ref[ok]
            numpy.testing.assert_array_equal(got, ref)
            # and back from every dtype
            b = _data("float64", (7, 9), 8).astype(dt) if dt != "bool" else _data("bool", (7, 9), 8)
            numpy.testing.assert_array_equal(numpy.asarray(cupynum.asarray(b).astype(dtype)), b.astype(dtype))


@on_device
def test_half_complex_fused_and_fills():
    a, c = _hc_data("float16", (40, 30), 9), _hc_data("complex128", (40, 30), 10)
    x, z = cupynum.asarray(a), cupynum.asarray(c)
    with numpy.errstate(all="ignore"):
        numpy.testing.assert_array_equal(numpy.asarray(x * x + x - 1), a * a + a - 1)
        _close(numpy.asarray(z * z - z / (z + 2j)), c * c - c / (c + 2j), "complex128")
        numpy.testing.assert_array_equal(numpy.asarray((z * 3 > z).astype("int64") + 1), (c * 3 > c).astype("int64") + 1)
        _close(numpy.asarray(cupynum.sum(z * z)), numpy.asarray(numpy.sum(c * c)), "complex128")
    numpy.testing.assert_array_equal(numpy.asarray(cupynum.arange(0, 20, 0.75, dtype="float16")),
                                     numpy.arange(0, 20, 0.75, dtype="float16"))
    numpy.testing.assert_array_equal(numpy.asarray(cupynum.arange(1, 9, 2, dtype="complex128")),
                                     numpy.arange(1, 9, 2, dtype="complex128"))
