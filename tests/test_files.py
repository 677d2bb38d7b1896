"""Binary files (cupynum/_files.py): save/load of .npy and tofile/fromfile, each rank writing and
reading its own tile.  NumPy is the oracle: the bytes of every file are numpy.save's (or
tofile's) for the same array, loading gives numpy.load's values, corrupted files raise NumPy's
errors.  Under mpirun the ranks share one directory."""

import gc
import io
import os
import pickle
import re
import tempfile

import warnings

import numpy
import pytest

import cupynum
from conftest import ALL_DTYPES, check, dtype_id, raises_same, sample, shape_id

INFO = cupynum.runtime_info()
RANK, RANKS = INFO["rank"], INFO["ranks"]


@pytest.fixture(scope="module")
def base(tmp_path_factory):
    if RANKS > 1:   # one directory shared by the ranks of this job
        tag = os.environ.get("PMIX_NAMESPACE") or str(os.getppid())
        d = os.path.join(tempfile.gettempdir(), f"cupynum-files-test-{tag}")
        os.makedirs(d, exist_ok=True)
    else:
        d = str(tmp_path_factory.mktemp("files"))
    yield d
    cupynum._core.barrier()
    if RANK == 0:
        for f in os.listdir(d):
            os.remove(os.path.join(d, f))
        if RANKS > 1:
            os.rmdir(d)


def _path(base, name):
    return os.path.join(base, name)


def _put(path, data):
    """Rank 0 writes the bytes; every rank sees them after."""
    if RANK == 0:
        with open(path, "wb") as f:
            f.write(data)
    cupynum._core.barrier()


def _read(path):
    with open(path, "rb") as f:
        return f.read()


def _npy_bytes(n):
    b = io.BytesIO()
    numpy.save(b, n)
    return b.getvalue()


LAYOUTS = {
    "C": lambda x: x,
    "T": lambda x: x.T,                                     # Fortran order when ndim > 1
    "step": lambda x: x[::2] if x.ndim else x,              # not contiguous
    "rev": lambda x: x[::-1] if x.ndim else x,
}
SHAPES = [(), (0,), (1,), (7,), (40,), (3, 4), (9, 10), (2, 3, 5), (5, 6, 7), (4, 0, 3)]


@pytest.mark.parametrize("layout", list(LAYOUTS))
@pytest.mark.parametrize("shape", SHAPES, ids=shape_id)
@pytest.mark.parametrize("dtype", ALL_DTYPES, ids=dtype_id)
def test_save_load_bytes_as_numpy(base, dtype, shape, layout):
    n0 = sample(shape, dtype, seed=3)
    n = LAYOUTS[layout](n0)
    c = LAYOUTS[layout](cupynum.array(n0))
    p = _path(base, f"s-{dtype.name}-{shape_id(shape)}-{layout}")
    cupynum.save(p, c)                       # '.npy' appended as NumPy does
    assert _read(p + ".npy") == _npy_bytes(n)
    r = cupynum.load(p + ".npy")
    check(r, numpy.load(p + ".npy"))
    assert r.flags.f_contiguous == numpy.load(p + ".npy").flags.f_contiguous


@pytest.mark.parametrize("shape", [(7,), (9, 10), (5, 6, 7), (64,)], ids=shape_id)
@pytest.mark.parametrize("dtype", ALL_DTYPES, ids=dtype_id)
def test_load_what_numpy_wrote(base, dtype, shape):
    n = sample(shape, dtype, seed=5)
    for order in "CF":
        p = _path(base, f"n-{dtype.name}-{shape_id(shape)}-{order}.npy")
        m = numpy.asarray(n, order=order)
        if RANK == 0:
            numpy.save(p, m)
        cupynum._core.barrier()
        r = cupynum.load(p)
        check(r, numpy.load(p))
        assert r.flags.f_contiguous == m.flags.f_contiguous
        check(cupynum.load(p, mmap_mode="r"), numpy.load(p))   # a normal array


def test_load_swapped_byte_order(base):
    n = sample((6, 5), numpy.float64, seed=1).astype(">f8")
    p = _path(base, "big.npy")
    _put(p, _npy_bytes(n))
    r = cupynum.load(p)
    assert isinstance(r, cupynum.ndarray) and r.dtype == numpy.float64   # native order
    numpy.testing.assert_array_equal(numpy.asarray(r), numpy.load(p))


def test_save_accepts_path_objects_and_lists(base):
    import pathlib
    p = pathlib.Path(base) / "pl"
    c = cupynum.arange(12.0).reshape(3, 4)
    cupynum.save(p, c)
    assert _read(str(p) + ".npy") == _npy_bytes(numpy.arange(12.0).reshape(3, 4))
    cupynum.save(_path(base, "list.npy"), [1, 2, 3])
    assert _read(_path(base, "list.npy")) == _npy_bytes(numpy.array([1, 2, 3]))


def test_save_load_moves_nothing(base):
    """Partitioned save and load: no array byte goes between ranks; each rank holds its tile."""
    n = sample((64, 48), numpy.float64, seed=2)
    c = cupynum.array(n) * 2.0
    cupynum.sync()
    p = _path(base, "moved.npy")
    cupynum.reset_stats()
    cupynum.save(p, c)
    sent = cupynum.runtime_stats()["bytes_sent"]
    assert sent < 256, sent
    assert _read(p) == _npy_bytes(n * 2.0)
    cupynum.reset_stats()
    r = cupynum.load(p)
    t = cupynum._core._tiling(r)
    assert cupynum.runtime_stats()["bytes_sent"] < 256
    if RANKS > 1:
        assert t["tiled"]
        assert cupynum._core._tiling(c)["tiled"]
    check(r, n * 2.0)


def test_save_of_a_computed_array(base):
    n = sample((30, 20), numpy.float32, seed=4)
    c = cupynum.array(n)
    p = _path(base, "computed.npy")
    cupynum.save(p, (c + 1)[::2, 1:].T)
    assert _read(p) == _npy_bytes((n + 1)[::2, 1:].T)
    check(cupynum.load(p), numpy.load(p))


# ---- corrupted and unusual files: NumPy's errors, nothing read past the end ---------------------

def _good(shape=(10,), dtype=numpy.float64):
    return _npy_bytes(numpy.arange(int(numpy.prod(shape)), dtype=dtype).reshape(shape))


def _header(shape, descr="<f8", fortran=False):
    b = io.BytesIO()
    from numpy.lib import format as fmt
    fmt.write_array_header_1_0(b, {"descr": descr, "fortran_order": fortran, "shape": shape})
    return b.getvalue()


CORRUPT = {
    "empty": b"",
    "magic only": _good()[:6],
    "short version": _good()[:7],
    "truncated header length": _good()[:9],
    "truncated header": _good()[:40],
    "garbled header": _good()[:10] + b"{'descr': '<f8', 'fortran_order': Fals".ljust(117) + b"\n"
    + _good()[128:],
    "header not a dict": _good()[:10] + b"[1, 2, 3]".ljust(117) + b"\n" + _good()[128:],
    "missing key": _good()[:10] + b"{'descr': '<f8', 'shape': (10,)}".ljust(117) + b"\n"
    + _good()[128:],
    "bad version": b"\x93NUMPY\x09\x00" + _good()[8:],
    "short data": _good()[:-9],
    "header only": _good()[:128],
    "not npy": b"hello, world: this is not an array file",
    "negative shape": _header((-1,)) + _good()[128:],
    "negative in 2-d": _header((5, -2)) + _good()[128:],
    "huge shape": _header((10 ** 12,)) + _good()[128:],
    "overflowing shape": _header((2 ** 40, 2 ** 40)) + _good()[128:],
    "more than said": _header((11,)) + _good()[128:],
    "fortran, short": _header((3, 4), fortran=True) + _good()[128:],
    "bad descr": _header((10,), descr="<q9") + _good()[128:],
}


def _same_message(e_cp, e_np):
    """The messages are NumPy's, but for the address of the file object some of them quote."""
    strip = lambda e: re.sub(r" at 0x[0-9a-f]+", "", str(e))  # noqa: E731
    assert strip(e_cp) == strip(e_np)


@pytest.mark.parametrize("what", list(CORRUPT))
def test_corrupted_npy_raises_as_numpy(base, what):
    p = _path(base, "bad-" + what.replace(" ", "_") + ".npy")
    _put(p, CORRUPT[what])
    e_np, e_cp = raises_same(numpy.load, cupynum.load, p)
    _same_message(e_cp, e_np)


def test_object_arrays_refused(base):
    p = _path(base, "obj.npy")
    if RANK == 0:
        numpy.save(p, numpy.array([1, "a", None], dtype=object))
    cupynum._core.barrier()
    e_np, e_cp = raises_same(numpy.load, cupynum.load, p)
    assert str(e_cp) == str(e_np)
    r = cupynum.load(p, allow_pickle=True)
    assert list(r) == [1, "a", None]


def test_pickle_refused(base):
    p = _path(base, "pickle.npy")
    _put(p, pickle.dumps([1, 2, 3]))
    e_np, e_cp = raises_same(numpy.load, cupynum.load, p)
    assert str(e_cp) == str(e_np)


def test_missing_file(base):
    raises_same(numpy.load, cupynum.load, _path(base, "nothing-here.npy"))
    raises_same(lambda p: numpy.fromfile(p), lambda p: cupynum.fromfile(p),
                _path(base, "nothing-here.bin"))


def test_max_header_size(base):
    n = numpy.zeros((1,) * 30)   # a long shape tuple
    p = _path(base, "long.npy")
    _put(p, _npy_bytes(n))
    f_np = lambda q: numpy.load(q, max_header_size=20)  # noqa: E731
    f_cp = lambda q: cupynum.load(q, max_header_size=20)  # noqa: E731
    e_np, e_cp = raises_same(f_np, f_cp, p)
    assert str(e_cp) == str(e_np)


# ---- raw binary ----------------------------------------------------------------------------------------

@pytest.mark.parametrize("layout", list(LAYOUTS))
@pytest.mark.parametrize("shape", [(), (0,), (7,), (40,), (9, 10), (5, 6, 7)], ids=shape_id)
@pytest.mark.parametrize("dtype", ALL_DTYPES, ids=dtype_id)
def test_tofile_fromfile(base, dtype, shape, layout):
    n = LAYOUTS[layout](sample(shape, dtype, seed=7))
    c = LAYOUTS[layout](cupynum.array(sample(shape, dtype, seed=7)))
    p = _path(base, f"raw-{dtype.name}-{shape_id(shape)}-{layout}.bin")
    c.tofile(p)
    assert _read(p) == n.tobytes()
    check(cupynum.fromfile(p, dtype=dtype), numpy.fromfile(p, dtype=dtype))
    if n.size > 3:
        for count, offset in ((3, 0), (2, dtype.itemsize), (-1, 2 * dtype.itemsize), (0, 0)):
            check(cupynum.fromfile(p, dtype=dtype, count=count, offset=offset),
                  numpy.fromfile(p, dtype=dtype, count=count, offset=offset))


def test_fromfile_odd_cases(base):
    p = _path(base, "odd.bin")
    _put(p, bytes(range(27)))
    for kw in ({"dtype": numpy.int16}, {"dtype": numpy.float64, "offset": 3},
               {"dtype": ">i4"}, {"dtype": numpy.uint8, "count": 5, "offset": 20}):
        r_np = numpy.fromfile(p, **kw)
        r_cp = cupynum.fromfile(p, **kw)
        numpy.testing.assert_array_equal(numpy.asarray(r_cp), r_np)
        assert r_cp.dtype == r_np.dtype.newbyteorder("=")


def test_tofile_moves_nothing(base):
    n = sample((50, 40), numpy.int32, seed=9)
    c = cupynum.array(n) + 1
    cupynum.sync()
    p = _path(base, "raw-moved.bin")
    cupynum.reset_stats()
    c.tofile(p)
    r = cupynum.fromfile(p, dtype=numpy.int32)
    assert cupynum.runtime_stats()["bytes_sent"] < 256
    assert _read(p) == (n + 1).tobytes()
    check(r, (n + 1).ravel())


@pytest.mark.device
def test_save_load_device(base):
    """Arrays computed on the device: the tile comes back to the host for the write; a loaded
    array computes on."""
    n = sample((33, 17), numpy.float64, seed=11)
    c = cupynum.sqrt(cupynum.array(n) ** 2 + 1.0)
    p = _path(base, "dev.npy")
    cupynum.save(p, c)
    assert _read(p) == _npy_bytes(numpy.sqrt(n ** 2 + 1.0))
    r = cupynum.load(p)
    check(r * 2.0, numpy.sqrt(n ** 2 + 1.0) * 2.0)
    c.tofile(p + ".bin")
    check(cupynum.fromfile(p + ".bin").reshape(33, 17), numpy.sqrt(n ** 2 + 1.0))


# ---- .npz ---------------------------------------------------------------------------------------------

def _members(path):
    import zipfile
    with zipfile.ZipFile(path) as z:
        assert z.testzip() is None   # every CRC right
        return {i.filename: (i.compress_type, z.read(i.filename)) for i in z.infolist()}


def _contents(members):
    return {k: data for k, (_, data) in members.items()}


@pytest.mark.parametrize("how", ["savez", "savez_compressed"])
@pytest.mark.parametrize("dtype", ALL_DTYPES, ids=dtype_id)
def test_savez_load(base, dtype, how):
    n = {s: sample(s, dtype, seed=len(s)) for s in [(), (0,), (7,), (9, 10), (5, 6, 7)]}
    c = {s: cupynum.array(v) for s, v in n.items()}
    p = _path(base, f"z-{how}-{dtype.name}")
    with warnings.catch_warnings():
        warnings.simplefilter("error", cupynum.FallbackWarning)
        getattr(cupynum, how)(p, c[(9, 10)], c[(7,)][::-1], s=c[()], e=c[(0,)],
                              t=c[(5, 6, 7)].T, v=c[(9, 10)][::2, 1:])
    q = _path(base, f"zn-{how}-{dtype.name}.npz")
    if RANK == 0:
        getattr(numpy, how)(q, n[(9, 10)], n[(7,)][::-1], s=n[()], e=n[(0,)],
                            t=n[(5, 6, 7)].T, v=n[(9, 10)][::2, 1:])
    cupynum._core.barrier()
    got, want = _members(p + ".npz"), _members(q)
    if how == "savez":
        assert got == want                     # the same members, byte for byte
    else:                                      # deflated (flush points differ): same contents
        assert {k: m for k, (m, _) in got.items()} == {k: 8 for k in want}
        assert _contents(got) == _contents(want)
    assert not [f for f in os.listdir(base) if ".cupynum-" in f]   # no part files left
    for f in (p + ".npz", q):
        with numpy.load(f) as zn, cupynum.load(f) as zc:
            assert sorted(zc.files) == sorted(zn.files)
            for k in zn.files:
                check(zc[k], zn[k])
                assert zc[k].flags.f_contiguous == zn[k].flags.f_contiguous


def test_npz_other_members(base):
    p = _path(base, "mixed.npz")
    if RANK == 0:
        numpy.savez(p, s=numpy.array(["ab", "c"]), x=numpy.arange(5.0))
        numpy.savez_compressed(_path(base, "packed.npz"), x=numpy.arange(30).reshape(5, 6))
    cupynum._core.barrier()
    with cupynum.load(p) as z:
        numpy.testing.assert_array_equal(z["s"], numpy.array(["ab", "c"]))
        check(z["x"], numpy.arange(5.0))
        with numpy.load(p) as zn:   # closed here: a ResourceWarning later would land in another test
            raises_same(lambda k: zn[k], lambda k: z[k], "nothing")
    with cupynum.load(_path(base, "packed.npz")) as z:
        check(z["x"], numpy.arange(30).reshape(5, 6))


@pytest.mark.parametrize("how", ["savez", "savez_compressed"])
def test_npz_moves_nothing(base, how):
    n = sample((60, 50), numpy.float64, seed=12)
    c = cupynum.array(n) + 0.5
    cupynum.sync()
    p = _path(base, f"zmoved-{how}.npz")
    cupynum.reset_stats()
    getattr(cupynum, how)(p, a=c, b=c)
    with cupynum.load(p) as z:
        r = z["a"]
        cupynum.sync()
        assert cupynum.runtime_stats()["bytes_sent"] < 512
        if RANKS > 1:
            assert cupynum._core._tiling(r)["tiled"]
        check(r, n + 0.5)


def test_savez_compressed_large_parts(base):
    """Parts of several chunks and a 2-d tiling: the deflated archive reads back in NumPy, and
    its CRCs (combined from each rank's parts) check."""
    n = (numpy.arange(3_000_000, dtype=numpy.float64) % 977).reshape(1500, 2000)
    c = cupynum.array(n) * 1.0
    p = _path(base, "zbig.npz")
    cupynum.reset_stats()
    cupynum.savez_compressed(p, big=c, small=c[:3, :5])
    cupynum.sync()
    assert cupynum.runtime_stats()["bytes_sent"] < 4096
    members = _members(p)
    assert _contents(members)["big.npy"] == _npy_bytes(n)
    with numpy.load(p) as z:
        numpy.testing.assert_array_equal(z["big"], n)
        numpy.testing.assert_array_equal(z["small"], n[:3, :5])


def test_savez_compressed_errors_and_file_objects(base):
    missing = _path(base, "no-such-dir/x.npz")
    raises_same(lambda f: numpy.savez_compressed(f, a=numpy.ones(3)),
                lambda f: cupynum.savez_compressed(f, a=cupynum.ones(3)), missing)
    with pytest.raises(ValueError, match="Cannot use un-named variables and keyword arr_0"):
        cupynum.savez_compressed(_path(base, "bad.npz"), cupynum.ones(2), arr_0=cupynum.ones(2))
    b = io.BytesIO()                  # a file object: NumPy writes it (rank 0's bytes)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", cupynum.FallbackWarning)
        cupynum.savez_compressed(b, a=cupynum.arange(5.0))
    b.seek(0)
    numpy.testing.assert_array_equal(numpy.load(b)["a"], numpy.arange(5.0))


def _flip(data, at):
    b = bytearray(data)
    b[at] ^= 0xFF
    return bytes(b)


def test_corrupted_npz_raises_as_numpy(base):
    good = _path(base, "zgood.npz")
    if RANK == 0:
        numpy.savez(good, x=numpy.arange(100.0))
    cupynum._core.barrier()
    data = _read(good)
    cases = {"bad crc": _flip(data, 400), "truncated": data[:300],
             "no directory": data[:-22]}
    for what, bad in cases.items():
        p = _path(base, "zbad-" + what.replace(" ", "_") + ".npz")
        _put(p, bad)

        def via(np_):
            with np_.load(p) as z:
                return z["x"]
        e_np, e_cp = raises_same(lambda: via(numpy), lambda: via(cupynum))
        _same_message(e_cp, e_np)
        del e_np, e_cp
        with warnings.catch_warnings():   # NumPy's load leaves a bad archive's file open in its
            warnings.simplefilter("ignore", ResourceWarning)   # traceback: collect it here,
            gc.collect()                  # not during a later test that records warnings
