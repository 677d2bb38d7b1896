"""Binary files, each rank reading and writing its own part (issue #20): `save`/`load` of .npy,
`ndarray.tofile`/`fromfile` of raw bytes.

A file's bytes are the array in C order (Fortran order for a .npy whose header says so: the C
order of the transpose).  A rank's tile of a partitioned array is a box of that order: a set of
runs of contiguous bytes, one per index of the box's leading dimensions (trailing dimensions the
tile spans whole merge into one run).  Writing: rank 0 creates the file, writes the header and
sets the file's length; a barrier; every rank writes its tile's runs at their offsets
(`os.pwrite`); a barrier, so the file is whole when `save` returns on any rank.  A replicated
array (one rank, or too small to tile) is written by rank 0 alone.  Reading: every rank reads the
header itself, makes a new array (tiled as any array of its shape) and reads its own tile's runs
(`os.preadv`) into it.  No array data moves between ranks (`runtime_stats()['bytes_sent']`), and
no rank holds more than its tile.

Safety is NumPy's: the header is parsed by numpy.lib.format (its errors, its max_header_size);
whatever is not a well-formed .npy of a dtype cupynum holds, with all its data present, is handed
to `numpy.load` itself (pickles, .npz, object arrays refused without allow_pickle, truncated
files, malformed headers: NumPy's own errors, or its NpzFile).  Nothing is read past the end of
the file.  `mmap_mode` gives a normal array (its bytes read as above).  File objects (rather
than names) and text (`sep`) go to NumPy as before (cupynum/_fallback.py: rank 0 writes)."""

import io
import os

import numpy as _np
from numpy.lib import format as _fmt

from . import _core, _fallback
from ._core import ndarray

try:
    from numpy.lib._format_impl import _read_array_header, _write_array_header
except ImportError:   # NumPy < 2
    from numpy.lib.format import _read_array_header, _write_array_header


def _is_name(f):
    return isinstance(f, (str, bytes, os.PathLike))


def _held(dt):
    """Can cupynum hold this dtype (after a byte swap to native order)?"""
    dt = _np.dtype(dt)
    return (dt.kind in "biufc" and dt.char not in "gG" and dt.fields is None
            and dt.subdtype is None)


def _ranks():
    info = _core.runtime_info()
    return info["rank"], info["ranks"]


def _runs(shape, lo, hi, item, base):
    """(offsets, run length in bytes) of the box [lo, hi) of a C-order array of `shape` whose
    first byte is at `base`: one run per index of the leading dimensions."""
    n = len(shape)
    if n == 0:
        return _np.array([base], dtype=_np.int64), item
    if any(h <= l for l, h in zip(lo, hi)):
        return _np.zeros(0, dtype=_np.int64), 0
    k = n - 1
    while k > 0 and lo[k] == 0 and hi[k] == shape[k]:
        k -= 1
    stride = [item] * n
    for d in range(n - 2, -1, -1):
        stride[d] = stride[d + 1] * shape[d + 1]
    length = (hi[k] - lo[k]) * stride[k]
    offs = _np.array([base + lo[k] * stride[k]], dtype=_np.int64)
    for d in range(k - 1, -1, -1):
        idx = _np.arange(lo[d], hi[d], dtype=_np.int64) * stride[d]
        offs = (idx[:, None] + offs[None, :]).ravel()
    return offs, length


def _pwrite_all(fd, mv, off):
    while len(mv):
        w = os.pwrite(fd, mv, off)
        mv, off = mv[w:], off + w


def _pread_all(fd, mv, off):
    while len(mv):
        r = os.preadv(fd, [mv], off)
        if r == 0:
            raise EOFError("cupynum: the file ended before the array's data")
        mv, off = mv[r:], off + r


def _c_order_source(a):
    """A whole root store holding a's elements in C order, and its tile read: (lo, hi, tile)."""
    t = _core._tile_read(a)
    if t is None:
        t = _core._tile_read(a.copy(order="C"))
    return t


def _write_parts(path, a, header, total):
    """Write `header` then a's elements in C order (total bytes after the header) to path.
    Collective."""
    rank, ranks = _ranks()
    t = _c_order_source(a) if a.size else None   # flushes (collective) before any file work
    err = None
    if rank == 0:
        try:
            with open(path, "wb") as f:
                f.write(header)
                f.truncate(len(header) + total)
        except BaseException as e:   # noqa: BLE001 -- re-raised below, after the ranks agree
            err = e
    if ranks > 1 and _core.bcast_u64(0 if err is None else 1):
        if err is None:
            raise OSError(f"cupynum: rank 0 could not create {os.fsdecode(path)!r}")
    if err is not None:
        raise err
    try:
        if t is not None and (rank == 0 or _tiled(t, a.shape)):
            lo, hi, tile = t
            _write_tile(path, a.shape, lo, hi, tile, len(header))
    finally:
        if ranks > 1:
            _core.barrier()


def _tiled(t, shape):
    """Is the tile a part (not the whole array, which rank 0 alone writes)?"""
    lo, hi, _ = t
    return tuple(lo) != (0,) * len(lo) or tuple(hi) != tuple(shape)


def _write_tile(path, shape, lo, hi, tile, base):
    offs, length = _runs(shape, lo, hi, tile.itemsize, base)
    if not len(offs):
        return
    mv = memoryview(_np.ascontiguousarray(tile)).cast("B")
    fd = os.open(path, os.O_WRONLY)
    try:
        for i, off in enumerate(offs.tolist()):
            _pwrite_all(fd, mv[i * length:(i + 1) * length], off)
    finally:
        os.close(fd)


def _read_into(fd, a, file_dtype, base):
    """Fill the new array a (a whole root store) from the file: this rank's tile only."""
    info = _core._tiling(a)
    shape = a.shape
    lo, hi = (info["lo"], info["hi"]) if info["tiled"] else ((0,) * a.ndim, shape)
    ext = tuple(max(h - l, 0) for l, h in zip(lo, hi))
    tile = _np.empty(ext, dtype=file_dtype)
    offs, length = _runs(shape, lo, hi, file_dtype.itemsize, base)
    mv = memoryview(tile.reshape(-1).view(_np.uint8)) if tile.size else None
    for i, off in enumerate(offs.tolist()):
        _pread_all(fd, mv[i * length:(i + 1) * length], off)
    if not file_dtype.isnative:
        tile = tile.astype(file_dtype.newbyteorder("="))
    _core._tile_write(a, tile)


# ---- .npy --------------------------------------------------------------------------------------------

def save(file, arr, allow_pickle=True, **kwargs):
    if not _is_name(file) or not isinstance(arr, ndarray) or kwargs:
        # NumPy's own keywords (fix_imports, where this NumPy has it) and errors
        return _fallback.call("numpy.save", _np.save, (file, arr),
                              dict(allow_pickle=allow_pickle, **kwargs))
    file = os.fspath(file)
    if isinstance(file, bytes):
        file = os.fsdecode(file)
    if not file.endswith(".npy"):
        file = file + ".npy"
    a = arr
    fortran = a.ndim > 1 and not a.flags.c_contiguous and a.flags.f_contiguous
    d = {"descr": _fmt.dtype_to_descr(a.dtype), "fortran_order": bool(fortran),
         "shape": tuple(a.shape)}
    h = io.BytesIO()
    _write_array_header(h, d, None)
    src = a.T if fortran else a
    _write_parts(file, src, h.getvalue(), a.size * a.itemsize)


def load(file, mmap_mode=None, allow_pickle=False, fix_imports=True, encoding="ASCII", *,
         max_header_size=_fmt._MAX_HEADER_SIZE if hasattr(_fmt, "_MAX_HEADER_SIZE") else 10000):
    kwargs = {"mmap_mode": mmap_mode, "allow_pickle": allow_pickle, "fix_imports": fix_imports,
              "encoding": encoding, "max_header_size": max_header_size}
    numpy_load = lambda: _fallback.call("numpy.load", _np.load, (file,), kwargs)  # noqa: E731
    if not _is_name(file) or encoding not in ("ASCII", "latin1", "bytes"):
        return numpy_load()
    try:
        fd = os.open(os.fspath(file), os.O_RDONLY)
    except OSError:
        return numpy_load()   # NumPy's error for the missing file
    try:
        with os.fdopen(os.dup(fd), "rb") as fp:
            magic = fp.read(len(_fmt.MAGIC_PREFIX))
            if magic != _fmt.MAGIC_PREFIX:
                return numpy_load()
            fp.seek(0)
            try:
                version = _fmt.read_magic(fp)
                shape, fortran, dtype = _read_array_header(fp, version,
                                                           max_header_size=max_header_size)
            except Exception:   # noqa: BLE001 -- NumPy raises its own error for it
                return numpy_load()
            base = fp.tell()
        if not _held(dtype) or len(shape) > 32 or any(s < 0 for s in shape):
            return numpy_load()
        count = 1
        for s in shape:
            count *= s
        size = os.fstat(fd).st_size
        if size - base < count * dtype.itemsize:
            return numpy_load()   # a short file: NumPy's error
        cshape = tuple(shape[::-1]) if fortran else tuple(shape)
        a = _core.empty(cshape, dtype.newbyteorder("="))
        _read_into(fd, a, dtype, base)
        return a.T if fortran else a
    finally:
        os.close(fd)


# ---- raw binary ------------------------------------------------------------------------------------

def _tofile(self, fid, sep="", format="%s"):  # noqa: A002
    if sep != "" or not _is_name(fid):
        _fallback.note("numpy.ndarray.tofile", 1)
        return _fallback.call("numpy.ndarray.tofile", _np.ndarray.tofile, (self, fid),
                              {"sep": sep, "format": format})
    _write_parts(os.fspath(fid), self, b"", self.size * self.itemsize)


def fromfile(file, dtype=float, count=-1, sep="", offset=0, *, like=None):
    kwargs = {"dtype": dtype, "count": count, "sep": sep, "offset": offset}
    if like is not None:
        kwargs["like"] = like
    numpy_fromfile = lambda: _fallback.call("numpy.fromfile", _np.fromfile, (file,), kwargs)  # noqa: E731
    try:
        dt = _np.dtype(dtype)
    except TypeError:
        return numpy_fromfile()
    if (sep != "" or not _is_name(file) or like is not None or not _held(dt)
            or not isinstance(count, int) or not isinstance(offset, int) or offset < 0):
        return numpy_fromfile()
    try:
        fd = os.open(os.fspath(file), os.O_RDONLY)
    except OSError:
        return numpy_fromfile()
    try:
        size = os.fstat(fd).st_size
        avail = (size - offset) // dt.itemsize if size >= offset else -1
        if avail < 0 or count > avail or count < -1 or (count < 0 and count != -1):
            return numpy_fromfile()   # NumPy's warning or error for what is not there
        n = avail if count == -1 else count
        a = _core.empty((n,), dt.newbyteorder("="))
        _read_into(fd, a, dt, offset)
        return a
    finally:
        os.close(fd)


NAMES = ("save load fromfile").split()


def install_methods(cls):
    cls.tofile = _tofile
