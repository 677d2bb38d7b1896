"""numpy.fft (cupynum/fft/_transforms.py over the fft op, csrc/kernels/fft.c on FFTW3) against
NumPy: the 1-D transforms along any axis of batched inputs, the n-D ones with s= and axes=, every
norm, out=, the dtypes NumPy computes in (float16/float32/complex64 single, the rest double, ints
and bool promoted), odd, prime and length-1 sizes, strided views, and NumPy's errors with nothing
written on failure.  fftfreq/rfftfreq/fftshift/ifftshift exactly.  Runs as it is under mpirun."""

import numpy
import pytest

import cupynum
from conftest import sample

pytestmark = pytest.mark.skipif(cupynum.runtime_info()["fft"] == "none",
                                reason="built without an FFT library (numpy.fft falls back)")

NORMS = [None, "backward", "ortho", "forward"]
DTYPES = [numpy.dtype(t) for t in ("bool", "uint8", "int16", "int64", "float16", "float32",
                                    "float64", "complex64", "complex128")]
REAL = [d for d in DTYPES if d.kind != "c"]


def _tol(dt):
    dt = numpy.dtype(dt)
    if dt in (numpy.float16,):
        return 2e-3
    return 2e-5 if dt in (numpy.float32, numpy.complex64) else 1e-12


def close(got, want):
    """cupynum's result is NumPy's: a cupynum array of its dtype and shape, values within the
    precision's tolerance relative to the largest magnitude."""
    assert isinstance(got, cupynum.ndarray), type(got)
    g = numpy.asarray(got)
    assert g.dtype == want.dtype, (g.dtype, want.dtype)
    assert g.shape == want.shape, (g.shape, want.shape)
    if want.size:
        scale = max(1.0, float(numpy.max(numpy.abs(want.astype(numpy.complex128)))))
        err = float(numpy.max(numpy.abs(g.astype(numpy.complex128) - want.astype(numpy.complex128))))
        assert err <= _tol(want.dtype) * scale, (err, scale)


def data(shape, dt, seed=0):
    n = sample(shape, dt, seed=seed)
    if n.dtype.kind in "fc":
        n = (n / 3).astype(dt)   # not exact in binary: the transforms really round
    return n, cupynum.array(n)


CASES_1D = [  # (shape, axis, n)
    ((1,), -1, None), ((1,), 0, 3), ((7,), -1, None), ((16,), 0, None), ((13,), -1, 13),
    ((13,), -1, 5), ((13,), -1, 20), ((3, 5), 0, None), ((3, 5), 1, None), ((3, 5), -2, 4),
    ((2, 3, 4), 1, None), ((2, 3, 4), 1, 7), ((4, 1, 3), 1, None), ((4, 1, 3), 1, 2),
    ((2, 0, 3), -1, None), ((1, 9), 0, 1),
]


def _cid(c):
    return f"{'x'.join(map(str, c[0]))}-ax{c[1]}-n{c[2]}"


@pytest.mark.parametrize("norm", NORMS)
@pytest.mark.parametrize("case", CASES_1D, ids=_cid)
@pytest.mark.parametrize("dt", DTYPES, ids=str)
@pytest.mark.parametrize("name", ["fft", "ifft", "rfft", "irfft", "hfft", "ihfft"])
def test_1d(name, dt, case, norm):
    shape, axis, n = case
    if name in ("rfft", "ihfft") and dt.kind == "c":
        pytest.skip("NumPy rejects complex input (tested in test_errors_match_numpy)")
    if name in ("irfft", "hfft") and n is None and shape[axis] == 1:
        pytest.skip("n = 0: an error (tested in test_errors_match_numpy)")
    na, a = data(shape, dt)
    close(getattr(cupynum.fft, name)(a, n=n, axis=axis, norm=norm),
          getattr(numpy.fft, name)(na, n=n, axis=axis, norm=norm))


@pytest.mark.parametrize("name", ["fft", "ifft", "rfft", "irfft", "hfft", "ihfft"])
def test_1d_strided_views(name):
    na, a = data((6, 10), "float64" if name in ("rfft", "ihfft") else "complex128", seed=3)
    for view in (lambda x: x[::2, 1::3], lambda x: x.T, lambda x: x[::-1, ::2]):
        for axis in (0, 1):
            close(getattr(cupynum.fft, name)(view(a), axis=axis),
                  getattr(numpy.fft, name)(view(na), axis=axis))


@pytest.mark.parametrize("dt", ["complex64", "complex128", "float32", "float64"])
def test_large_threaded_batches(dt):
    """Big enough for FFTW's threads (>= 32768 outputs), batched along either axis, and the
    round trip."""
    na, a = data((64, 1024), dt, seed=4)
    for axis in (0, 1):
        close(cupynum.fft.fft(a, axis=axis), numpy.fft.fft(na, axis=axis))
        close(cupynum.fft.ifft(cupynum.fft.fft(a, axis=axis), axis=axis),
              numpy.fft.ifft(numpy.fft.fft(na, axis=axis), axis=axis))
    if dt.startswith("float"):
        close(cupynum.fft.irfft(cupynum.fft.rfft(a), n=1024), numpy.fft.irfft(numpy.fft.rfft(na), n=1024))


@pytest.mark.parametrize("dt", ["complex64", "complex128"])
@pytest.mark.parametrize("axes", [(1,), (0,), (0, 1, 2), (1, 2), (0, 2)])
def test_large_blocked_axes(dt, axes):
    """Large complex transforms of a non-innermost axis go axis by axis in blocks of lanes
    (fft.c c2c_by_axes): batches before and after the axis, a partial last block (21 lanes)."""
    na, a = data((3, 700, 21), dt, seed=8)
    for norm in (None, "ortho"):
        close(cupynum.fft.fftn(a, axes=axes, norm=norm), numpy.fft.fftn(na, axes=axes, norm=norm))
        close(cupynum.fft.ifftn(a, axes=axes, norm=norm), numpy.fft.ifftn(na, axes=axes, norm=norm))


def test_plans_reused_on_other_buffers():
    """A cached plan runs on other buffers of one layout (and of other alignments): results stay
    NumPy's call after call."""
    for seed in range(4):
        na, a = data((3, 17), "complex128", seed=seed)
        close(cupynum.fft.fft(a), numpy.fft.fft(na))
        close(cupynum.fft.fft(a[:, 1:]), numpy.fft.fft(na[:, 1:]))


ND_CASES = [  # (shape, s, axes)
    ((4, 6), None, None), ((5, 7), None, (0, 1)), ((5, 7), (3, 9), (0, 1)), ((2, 3, 5), None, None),
    ((2, 3, 5), (4, 4), (0, 2)), ((2, 3, 5), None, (-1, 0)), ((3, 4, 5), (2, -1, 6), (2, 0, 1)),
    ((6,), None, (0,)), ((1, 1), None, None), ((3, 4), None, (1, 1)), ((3, 4), (5, 2), (0, 0)),
    ((2, 4, 3), None, (1,)),
]


def _nid(c):
    return f"{'x'.join(map(str, c[0]))}-s{c[1]}-ax{c[2]}"


@pytest.mark.parametrize("norm", NORMS)
@pytest.mark.parametrize("case", ND_CASES, ids=_nid)
@pytest.mark.parametrize("dt", ["int64", "float32", "float64", "complex64", "complex128"])
@pytest.mark.parametrize("name", ["fftn", "ifftn", "rfftn", "irfftn"])
def test_nd(name, dt, case, norm):
    shape, s, axes = case
    if name == "rfftn" and dt.startswith("complex"):
        pytest.skip("NumPy rejects complex input")
    na, a = data(shape, dt, seed=1)
    if name == "irfftn" and s is None and shape[(axes or (-1,))[-1]] == 1:
        pytest.skip("n = 0: an error")
    close(getattr(cupynum.fft, name)(a, s=s, axes=axes, norm=norm),
          getattr(numpy.fft, name)(na, s=s, axes=axes, norm=norm))


@pytest.mark.parametrize("norm", NORMS)
@pytest.mark.parametrize("name", ["fft2", "ifft2", "rfft2", "irfft2"])
def test_2d(name, norm):
    dt = "float64" if name == "rfft2" else "complex128"
    na, a = data((3, 5, 6), dt, seed=2)
    f, g = getattr(cupynum.fft, name), getattr(numpy.fft, name)
    close(f(a, norm=norm), g(na, norm=norm))
    close(f(a, s=(4, 7), norm=norm), g(na, s=(4, 7), norm=norm))
    close(f(a, axes=(0, 2), norm=norm), g(na, axes=(0, 2), norm=norm))
    close(f(a[:, ::2, :].T, norm=norm), g(na[:, ::2, :].T, norm=norm))


def test_empty_axes_and_lists():
    na, a = data((3, 4), "complex128")
    r = cupynum.fft.fftn(a, axes=())
    assert numpy.array_equal(numpy.asarray(r), numpy.fft.fftn(na, axes=()))
    close(cupynum.fft.fft([1, 2, 3, 4]), numpy.fft.fft([1, 2, 3, 4]))
    r = numpy.fft.fft(a)   # NumPy's own function on a cupynum array: __array_function__
    close(r, numpy.fft.fft(na))


def test_s_without_axes_warns_as_numpy():
    na, a = data((3, 4), "complex128")
    with pytest.warns(DeprecationWarning, match="`axes` should not be `None`"):
        want = numpy.fft.fftn(na, s=(2, 5))
    with pytest.warns(DeprecationWarning, match="`axes` should not be `None`"):
        got = cupynum.fft.fftn(a, s=(2, 5))
    close(got, want)


@pytest.mark.parametrize("name", ["fft", "ifft", "rfft", "irfft", "ihfft", "fft2", "fftn",
                                  "ifftn", "rfftn", "irfftn", "rfft2"])
def test_out(name):
    real_in = name in ("rfft", "ihfft", "rfftn", "rfft2")
    na, a = data((4, 6), "float64" if real_in else "complex128", seed=5)
    want = getattr(numpy.fft, name)(na)
    for odt in (want.dtype, numpy.complex64 if want.dtype.kind == "c" else numpy.float32):
        out = cupynum.zeros(want.shape, odt)
        r = getattr(cupynum.fft, name)(a, out=out)
        assert r is out
        close(out, want.astype(odt))


@pytest.mark.parametrize("name", ["ifft2", "irfft2", "hfft"])
def test_out_ignored_where_numpy_ignores_it(name):
    """NumPy 2's ifft2, irfft2 and hfft pass out=None on: a new array, out untouched."""
    na, a = data((4, 6), "complex128", seed=6)
    want = getattr(numpy.fft, name)(na)
    nout = numpy.full(want.shape, 7, want.dtype)
    assert getattr(numpy.fft, name)(na, out=nout) is not nout and numpy.all(nout == 7)
    out = cupynum.full(want.shape, 7, want.dtype)
    r = getattr(cupynum.fft, name)(a, out=out)
    assert r is not out and numpy.all(numpy.asarray(out) == 7)
    close(r, want)


def _raises_like(f_np, f_cp, *args, **kwargs):
    with pytest.raises(Exception) as e_np:
        f_np(*[numpy.asarray(x) if isinstance(x, cupynum.ndarray) else x for x in args],
             **{k: (numpy.asarray(v) if isinstance(v, cupynum.ndarray) else v) for k, v in kwargs.items()})
    with pytest.raises(Exception) as e_cp:
        f_cp(*args, **kwargs)
    assert type(e_cp.value) is type(e_np.value), (e_cp.value, e_np.value)
    assert str(e_cp.value) == str(e_np.value)


ERRORS = [
    ("fft", (), {"norm": "bad"}), ("ifft", (), {"norm": "bad"}), ("hfft", (), {"norm": "x"}),
    ("ihfft", (), {"norm": 1}), ("rfft", (), {"n": 0}), ("fft", (), {"n": -1}),
    ("irfft", (), {"n": 0}), ("fft", (), {"axis": 2}), ("ifft", (), {"axis": -3}),
    ("rfft", (), {"axis": 5, "n": 4}), ("fftn", (), {"s": (2, 3), "axes": (0,)}),
    ("fftn", (), {"axes": (0, 3)}), ("rfftn", (), {"s": (2, 0), "axes": (0, 1)}),
    ("irfftn", (), {"axes": (4,)}), ("fft2", (), {"norm": "bad"}), ("ifft2", (), {"s": (1, 2, 3)}),
    ("fftshift", (), {"axes": 3}), ("ifftshift", (), {"axes": (0, -4)}),
]


@pytest.mark.parametrize("name,args,kwargs", ERRORS, ids=[f"{e[0]}-{e[2]}" for e in ERRORS])
def test_errors_match_numpy(name, args, kwargs):
    na, a = data((3, 4), "complex128" if name not in ("rfft", "rfftn") else "float64")
    _raises_like(getattr(numpy.fft, name), getattr(cupynum.fft, name), a, *args, **kwargs)


def test_errors_more():
    nz, z = data((3, 4), "complex128")
    _raises_like(numpy.fft.rfft, cupynum.fft.rfft, z)              # complex input to rfft
    _raises_like(numpy.fft.irfft, cupynum.fft.irfft, cupynum.array(numpy.ones(1)))   # n = 0
    _raises_like(numpy.fft.fftfreq, cupynum.fft.fftfreq, 4.0)
    _raises_like(numpy.fft.rfftfreq, cupynum.fft.rfftfreq, 4, device="gpu")


def test_failure_writes_nothing():
    na, a = data((3, 4), "complex128")
    out = cupynum.full((3, 4), 7.0 + 0j)
    bad = [dict(norm="bad"), dict(n=0), dict(axis=3)]
    for kw in bad:
        with pytest.raises((ValueError, IndexError)):
            cupynum.fft.fft(a, out=out, **kw)
    with pytest.raises(ValueError, match="wrong shape"):
        numpy.fft.fft(na, out=numpy.zeros((3, 5), complex))
    with pytest.raises(ValueError, match="wrong shape"):
        cupynum.fft.fft(a, out=cupynum.zeros((3, 5), complex))
    with pytest.raises(TypeError) as e_np:
        numpy.fft.fft(na, out=numpy.zeros((3, 4)))
    with pytest.raises(TypeError) as e_cp:
        cupynum.fft.fft(a, out=cupynum.zeros((3, 4)))   # complex into float: not same_kind
    assert type(e_cp.value) is type(e_np.value)
    assert numpy.all(numpy.asarray(out) == 7.0)


@pytest.mark.parametrize("n", [1, 2, 7, 8, 13])
@pytest.mark.parametrize("d", [1.0, 0.25, numpy.float32(3.0)])
def test_freq(n, d):
    for name in ("fftfreq", "rfftfreq"):
        want = getattr(numpy.fft, name)(n, d)
        got = getattr(cupynum.fft, name)(n, d)
        assert isinstance(got, cupynum.ndarray)
        g = numpy.asarray(got)
        assert g.dtype == want.dtype and numpy.array_equal(g, want), (g, want)
    assert numpy.array_equal(numpy.asarray(cupynum.fft.fftfreq(n, device="cpu")), numpy.fft.fftfreq(n))


@pytest.mark.parametrize("shape", [(1,), (7,), (8,), (3, 5), (4, 1, 6), (0, 3)])
@pytest.mark.parametrize("axes", [None, 0, -1, (0,), (-1, 0)])
def test_shift(shape, axes):
    na, a = data(shape, "int64")
    for name in ("fftshift", "ifftshift"):
        got = getattr(cupynum.fft, name)(a, axes=axes)
        want = getattr(numpy.fft, name)(na, axes=axes)
        assert isinstance(got, cupynum.ndarray)
        assert numpy.array_equal(numpy.asarray(got), want)
    back = cupynum.fft.ifftshift(cupynum.fft.fftshift(a, axes=axes), axes=axes)
    assert numpy.array_equal(numpy.asarray(back), na)


def test_runtime_info_names_the_library():
    assert cupynum.runtime_info()["fft"].startswith("fftw ")


# ---- partitioned (under mpirun with CUPYNUM_MIN_TILE=1; on one rank: nothing moves) -------------

def _tile_bytes(x):
    t = cupynum._core._tiling(x)
    n = 1
    for lo, hi in zip(t["lo"], t["hi"]):
        n *= max(hi - lo, 0)
    return n * x.dtype.itemsize, t


DIST_CASES = [  # (shape, function, kwargs)
    ((24, 10), "fft", dict(axis=0)), ((24, 10), "fft", dict(axis=1)), ((10, 24), "fft", dict(axis=0)),
    ((10, 24), "ifft", dict(axis=1, norm="ortho")), ((24, 10), "fft2", {}), ((10, 24), "fft2", {}),
    ((24, 10), "ifft2", dict(norm="forward")), ((6, 8, 10), "fftn", {}), ((6, 8, 10), "fft2", {}),
    ((6, 8, 10), "ifftn", dict(axes=(0, 2))), ((24, 10), "rfft", dict(axis=0)),
    ((10, 24), "rfft", dict(axis=1)), ((24, 10), "irfft", dict(axis=0)), ((6, 8, 10), "irfft", {}),
    ((24, 10), "rfft2", {}), ((6, 8, 10), "irfftn", {}), ((24, 10), "hfft", dict(axis=0)),
    ((13, 7), "fft2", {}), ((7, 13), "fft", dict(axis=1)),
]


@pytest.mark.parametrize("shape,name,kw", DIST_CASES, ids=[f"{c[1]}-{'x'.join(map(str, c[0]))}-{c[2]}" for c in DIST_CASES])
def test_partitioned_bytes(shape, name, kw):
    """A transform no tile cuts moves nothing (owner computes); one along a cut dimension, and
    fft2/fftn of a partitioned array, move one transpose's worth per rank (the rank's tile) when
    the input is in slabs, at most two when its tiles are cut along two dimensions."""
    real_in = name in ("rfft", "rfft2", "rfftn")
    na, _ = data(shape, "float64" if real_in else "complex128", seed=7)
    x = cupynum.array(na)
    cupynum.sync()
    mine, t = _tile_bytes(x)
    cupynum.reset_stats()
    r = getattr(cupynum.fft, name)(x, **kw)
    cupynum.sync()
    sent = cupynum.runtime_stats()["bytes_sent"]
    close(r, getattr(numpy.fft, name)(na, **kw))
    if not t["tiled"]:
        assert sent == 0
        return
    nd = len(shape)
    if "axes" in kw:
        axes = [a % nd for a in kw["axes"]]
    elif "axis" in kw:
        axes = [kw["axis"] % nd]
    elif name.endswith("2"):
        axes = [nd - 2, nd - 1]
    elif name.endswith("n"):
        axes = list(range(nd))
    else:
        axes = [nd - 1]
    cut = [d for d in range(nd) if t["grid"][d] > 1]
    if not set(cut) & set(axes):
        assert sent == 0, (t, sent)
    else:
        transposes = 1 if len(cut) == 1 else 2
        # complex output of a real input weighs twice the input per element
        assert 0 < sent <= transposes * mine * (2 if real_in else 1), (t, sent, mine)


@pytest.mark.parametrize("axes", [None, (0, 1), (0, 2), (1, 2)])
@pytest.mark.parametrize("transpose", [False, True])
@pytest.mark.parametrize("complex_in", [True, False])
def test_nd_out_argument_same_in_any_layout(axes, transpose, complex_in):
    """NumPy's test_fftn_out_argument: fftn/ifftn (rfftn/irfftn) into out= (C or Fortran order,
    in place for the complex inverse) equal the same call without out= exactly, on any rank
    count: the transform's order of dimensions (its rounding) follows the shape, not the layout
    of the operand (a result left in slabs, a zeros_like in the default tiling)."""
    rng = numpy.random.default_rng(11)
    nx = rng.random((10, 5, 6)) + (1j * rng.random((10, 5, 6)) if complex_in else 0)
    x = cupynum.array(nx)
    fwd, inv = ((cupynum.fft.fftn, cupynum.fft.ifftn) if complex_in
                else (cupynum.fft.rfftn, cupynum.fft.irfftn))
    nfwd, ninv = ((numpy.fft.fftn, numpy.fft.ifftn) if complex_in
                  else (numpy.fft.rfftn, numpy.fft.irfftn))

    def zeros_like(y):
        return cupynum.zeros_like(y.T).T if transpose else cupynum.zeros_like(y)

    expected = fwd(x, axes=axes)
    close(expected, nfwd(nx, axes=axes))
    out = zeros_like(expected)
    assert fwd(x, out=out, axes=axes) is out
    numpy.testing.assert_array_equal(numpy.asarray(out), numpy.asarray(expected))
    expected2 = inv(expected, axes=axes)
    close(expected2, ninv(nfwd(nx, axes=axes), axes=axes))
    out2 = out if complex_in else zeros_like(expected2)
    assert inv(out, out=out2, axes=axes) is out2
    numpy.testing.assert_array_equal(numpy.asarray(out2), numpy.asarray(expected2))


@pytest.mark.parametrize("layout", ["F", "reversed", "sliced"])
@pytest.mark.parametrize("dt", ["complex128", "complex64"])
@pytest.mark.parametrize("name", ["fftn", "ifftn", "fft2"])
def test_nd_same_in_any_operand_layout(layout, dt, name):
    """NumPy's test_fft_with_order: a complex operand in Fortran order, reversed or sliced gives
    the result of its C-order copy, to NumPy's 8 sqrt(log2 n) eps (on 3 ranks it was 1e-14
    apart at near-zero outputs: the view went to the gathered path's single multi-dimensional
    plan, the copy to distfft.c's slabs); equal to NumPy's."""
    rng = numpy.random.default_rng(12)
    nx = (rng.random((9, 7, 13)) + 1j * rng.random((9, 7, 13))).astype(dt)
    x = cupynum.array(nx)
    y = {"F": cupynum.asfortranarray(x), "reversed": x[::-1], "sliced": x[1:]}[layout]
    ny = {"F": numpy.asfortranarray(nx), "reversed": nx[::-1], "sliced": nx[1:]}[layout]
    yc = cupynum.ascontiguousarray(y)
    tol = 8.0 * numpy.sqrt(numpy.log2(nx.size)) * numpy.finfo(dt).eps
    f, nf = getattr(cupynum.fft, name), getattr(numpy.fft, name)
    for axes in ([(0, 1), (1, 2), (0, 2)] + ([(0,), (2,), None] if name != "fft2" else [])):
        r, rc = numpy.asarray(f(y, axes=axes)), numpy.asarray(f(yc, axes=axes))
        numpy.testing.assert_allclose(r, rc, rtol=tol, atol=tol)
        close(f(y, axes=axes), nf(ny, axes=axes))


@pytest.mark.parametrize("n", [1296, 1000, 4096, 30, 6, 97])
@pytest.mark.parametrize("dt", ["complex128", "complex64", "float64"])
def test_partitioned_1d_four_step(n, dt):
    """fft/ifft of a vector partitioned along its only axis: the four-step algorithm (n = n1 * n2,
    three all-to-all transposes, the twiddles between) equals NumPy's for every norm, moving at
    most three transposes' worth per rank (its tile each) and nothing more; a prime length takes
    the gathered path, also NumPy's result."""
    rng = numpy.random.default_rng(n)
    nx = rng.standard_normal(n) + (1j * rng.standard_normal(n) if dt.startswith("complex") else 0)
    nx = nx.astype(dt)
    x = cupynum.array(nx)
    cupynum.sync()
    mine, t = _tile_bytes(x)
    cdt = numpy.dtype("complex64" if dt == "complex64" else "complex128")
    for name in ("fft", "ifft"):
        for norm in NORMS:
            cupynum.reset_stats()
            r = getattr(cupynum.fft, name)(x, norm=norm)
            cupynum.sync()
            sent = cupynum.runtime_stats()["bytes_sent"]
            close(r, getattr(numpy.fft, name)(nx, norm=norm))
            if t["tiled"] and n != 97:
                tile = mine // nx.dtype.itemsize * cdt.itemsize   # the complex operand's tile
                n1 = max(d for d in range(1, int(n ** 0.5) + 1) if n % d == 0)
                # plus, where the split points are not whole rows, a row at each end
                assert 0 < sent <= 3 * tile + 2 * (n1 + n // n1) * cdt.itemsize, (sent, tile, t)
            elif not t["tiled"]:
                assert sent == 0
