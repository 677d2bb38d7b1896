"""Binary files, each rank reading and writing its own part (issue #20): `save`/`load` of .npy,
`savez` and `load` of .npz (stored members: see NpzFile and _savez_parts), `savez_compressed`
(deflated in parts, each rank its own: _savez_deflated),
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
import struct
import time
import zipfile
import zlib

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


def _rank0(work, what, path):
    """Run work() on rank 0 alone; every rank raises if it failed there (its own error on rank
    0, an OSError elsewhere), so the ranks stay in step.  Collective."""
    rank, ranks = _ranks()
    err = None
    if rank == 0:
        try:
            work()
        except BaseException as e:   # noqa: BLE001 -- re-raised below, after the ranks agree
            err = e
    if ranks > 1 and _core.bcast_u64(0 if err is None else 1) and err is None:
        raise OSError(f"cupynum: rank 0 could not {what} {os.fsdecode(path)!r}")
    if err is not None:
        raise err


def _write_parts(path, a, header, total):
    """Write `header` then a's elements in C order (total bytes after the header) to path.
    Collective."""
    rank, ranks = _ranks()
    t = _c_order_source(a) if a.size else None   # flushes (collective) before any file work

    def create():
        with open(path, "wb") as f:
            f.write(header)
            f.truncate(len(header) + total)
    _rank0(create, "create", path)
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


def _read_array(fd, shape, fortran, dtype, base):
    """The array of a .npy body at byte `base` of fd (C or Fortran order), each rank reading its
    own tile."""
    cshape = tuple(shape[::-1]) if fortran else tuple(shape)
    a = _core.empty(cshape, dtype.newbyteorder("="))
    _read_into(fd, a, dtype, base)
    return a.T if fortran else a


def _read_into(fd, a, file_dtype, base):
    """Fill the new array a (a whole root store) from the file: this rank's tile only, read
    straight into the store's buffer (byte-swapped there when the file's order is not native)."""
    lo, hi, tile = _core._tile_buffer(a)
    offs, length = _runs(a.shape, lo, hi, file_dtype.itemsize, base)
    mv = memoryview(tile.reshape(-1).view(_np.uint8)) if tile.size else None
    for i, off in enumerate(offs.tolist()):
        _pread_all(fd, mv[i * length:(i + 1) * length], off)
    if not file_dtype.isnative and tile.size:
        tile.byteswap(inplace=True)
    del tile, mv


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
            if magic.startswith(b"PK\x03\x04") or magic.startswith(b"PK\x05\x06"):
                return _npz_open(file, allow_pickle, fix_imports, encoding, max_header_size,
                                 numpy_load)
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
        return _read_array(fd, shape, fortran, dtype, base)
    finally:
        os.close(fd)


# ---- .npz (uncompressed members) ----------------------------------------------------------------------

_CHUNK = 16 << 20   # the bytes a rank streams through at once to check or compute a CRC


def _crc(fd, off, n):
    crc = 0
    while n > 0:
        b = os.pread(fd, min(n, _CHUNK), off)
        if not b:
            return None
        crc = zlib.crc32(b, crc)
        off, n = off + len(b), n - len(b)
    return crc


def _npz_open(file, allow_pickle, fix_imports, encoding, max_header_size, numpy_load):
    try:
        z = _np.load(file, allow_pickle=allow_pickle, fix_imports=fix_imports, encoding=encoding,
                     max_header_size=max_header_size)
    except Exception:   # noqa: BLE001 -- NumPy's error, raised through the fallback path
        return numpy_load()
    z.__class__ = NpzFile
    return z


class NpzFile(_np.lib.npyio.NpzFile):
    """numpy.load's NpzFile of an .npz: a stored (uncompressed) .npy member of a dtype cupynum
    holds is read as a .npy file is, each rank its own tile, straight from the member's bytes in
    the archive (after rank 0 checked the member's CRC, streaming it: the archive's promise that
    NumPy's reader checks too); other members are NumPy's, as cupynum arrays.  Collective."""

    def __getitem__(self, key):
        name = self._files.get(key)
        if name is None or not hasattr(self.fid, "name") or not _is_name(self.fid.name):
            return _fallback.wrap(super().__getitem__(key))
        info = self.zip.getinfo(name)
        r = None
        if info.compress_type == zipfile.ZIP_STORED and not info.flag_bits & 1:
            r = self._stored(info)
        return _fallback.wrap(super().__getitem__(key)) if r is None else r

    def _stored(self, info):
        fd = os.open(os.fspath(self.fid.name), os.O_RDONLY)
        try:
            size = os.fstat(fd).st_size
            local = os.pread(fd, 30, info.header_offset)
            if len(local) < 30 or local[:4] != b"PK\x03\x04":
                return None
            start = info.header_offset + 30 + int.from_bytes(local[26:28], "little") + \
                int.from_bytes(local[28:30], "little")
            end = start + info.file_size
            if end > size:
                return None
            with os.fdopen(os.dup(fd), "rb") as fp:
                fp.seek(start)
                if fp.read(len(_fmt.MAGIC_PREFIX)) != _fmt.MAGIC_PREFIX:
                    return None
                fp.seek(start)
                try:
                    version = _fmt.read_magic(fp)
                    shape, fortran, dtype = _read_array_header(
                        fp, version, max_header_size=self.max_header_size)
                except Exception:   # noqa: BLE001 -- NumPy's reader raises its error
                    return None
                base = fp.tell()
            if not _held(dtype) or any(s < 0 for s in shape) or len(shape) > 32:
                return None
            count = 1
            for s in shape:
                count *= s
            if base + count * dtype.itemsize > end:
                return None
            rank, ranks = _ranks()
            ok = 1
            if rank == 0:
                ok = int(_crc(fd, start, info.file_size) == info.CRC)
            if ranks > 1:
                ok = _core.bcast_u64(ok)
            if not ok:
                return None   # NumPy's reader raises its "Bad CRC-32" error
            return _read_array(fd, shape, fortran, dtype, base)
        finally:
            os.close(fd)


def _dos_time():
    y, mo, d, h, mi, s = time.localtime()[:6]
    return ((h << 11) | (mi << 5) | (s // 2)), (((y - 1980) << 9) | (mo << 5) | d)


def _savez(qualname, file, args, kwds, allow_pickle, compress):
    npf = _np.savez_compressed if compress else _np.savez
    numpy_savez = lambda: _fallback.call(qualname, npf, (file,) + args,  # noqa: E731
                                         dict(kwds, allow_pickle=allow_pickle))
    if not _is_name(file):
        return numpy_savez()
    named = dict(kwds)
    for i, v in enumerate(args):
        key = "arr_%d" % i
        if key in named:
            raise ValueError(f"Cannot use un-named variables and keyword {key}")
        named[key] = v
    arrays = {}
    for k, v in named.items():
        if not isinstance(v, ndarray):
            n = _np.asanyarray(v)
            if type(n) is not _np.ndarray or not _held(n.dtype) or not n.dtype.isnative:
                return numpy_savez()
            v = _core.from_any(n)
        arrays[k] = v
    file = os.fspath(file)
    if isinstance(file, bytes):
        file = os.fsdecode(file)
    if not file.endswith(".npz"):
        file = file + ".npz"
    (_savez_deflated if compress else _savez_parts)(file, arrays)


def savez(file, *args, allow_pickle=True, **kwds):
    _savez("numpy.savez", file, args, kwds, allow_pickle, False)


def savez_compressed(file, *args, allow_pickle=True, **kwds):
    _savez("numpy.savez_compressed", file, args, kwds, allow_pickle, True)


def _npy_members(arrays):
    """(member name, .npy header, C-order source, its tile read) of each array, as numpy.savez
    writes them (a Fortran-ordered array as the C order of its transpose).  Collective (the
    tile reads flush)."""
    out = []
    for k, a in arrays.items():
        fortran = a.ndim > 1 and not a.flags.c_contiguous and a.flags.f_contiguous
        h = io.BytesIO()
        _write_array_header(h, {"descr": _fmt.dtype_to_descr(a.dtype),
                                "fortran_order": bool(fortran), "shape": tuple(a.shape)}, None)
        src = a.T if fortran else a
        out.append(((k + ".npy").encode("utf-8"), h.getvalue(), src,
                    _c_order_source(src) if a.size else None))
    return out


def _savez_parts(path, arrays):
    """A ZIP archive of stored members, laid out as zipfile with force_zip64 lays it (local
    header with a zip64 extra field, the .npy bytes), central directory at the end.  Rank 0
    writes the headers and sets the length; every rank writes its tiles' bytes; rank 0 computes
    each member's CRC by streaming the file back, patches the local headers and writes the
    directory.  Collective."""
    rank, ranks = _ranks()
    members = []
    off = 0
    for name, header, src, t in _npy_members(arrays):
        size = len(header) + src.size * src.itemsize
        members.append((name, off, header, size, src, t))
        off += 30 + len(name) + 20 + size
    cd_offset = off
    tm, dt = _dos_time()

    def create():
        with open(path, "wb") as f:
            for name, o, header, size, _, _ in members:
                f.seek(o)
                f.write(_local_header(name, 0, size, tm, dt, name_flags(name)))
                f.write(header)
            f.truncate(cd_offset)
    _rank0(create, "create", path)
    try:
        for name, o, header, size, src, t in members:
            if t is not None and (rank == 0 or _tiled(t, src.shape)):
                lo, hi, tile = t
                _write_tile(path, src.shape, lo, hi, tile, o + 30 + len(name) + 20 + len(header))
    finally:
        if ranks > 1:
            _core.barrier()
    def finish():
        fd = os.open(path, os.O_RDWR)
        try:
            cd = []
            for name, o, header, size, _, _ in members:
                crc = _crc(fd, o + 30 + len(name) + 20, size)
                os.pwrite(fd, crc.to_bytes(4, "little"), o + 14)
                cd.append(_central_header(name, crc, size, o, tm, dt, name_flags(name)))
            cd = b"".join(cd)
            _pwrite_all(fd, memoryview(cd + _end_records(len(members), len(cd), cd_offset)),
                        cd_offset)
        finally:
            os.close(fd)
    _rank0(finish, "finish", path)


# ---- .npz of deflated members (savez_compressed) --------------------------------------------------
#
# A deflate stream can be cut anywhere into parts compressed apart (as parallel gzip tools do): a
# part ended with a full flush is byte-aligned and its successor refers to nothing before it, so
# the parts' bytes laid end to end are one stream; the part that ends the member is finished
# instead.  Each rank deflates its own runs of each member (its tile's runs of the C-order bytes,
# adjacent runs merged; rank 0 also the .npy header) into a file of its own beside the target,
# with each part's CRC-32; the ranks read one another's part lists (small files, after a
# barrier), lay the parts out in stream order, rank 0 writes the ZIP headers with the members'
# CRCs combined from the parts', and each rank copies its parts into place.  No array data moves
# between ranks and no rank holds more than its tile and one chunk.

_CRC_POLY = 0xEDB88320


def _gf2_mul(a, b):
    """a * b modulo CRC-32's polynomial, both in its reflected bit order (x^0 the top bit)."""
    p, m = 0, 1 << 31
    while a:
        if a & m:
            p ^= b
            a ^= m
        b = (b >> 1) ^ _CRC_POLY if b & 1 else b >> 1
        m >>= 1
    return p


def _crc_combine(crc1, crc2, len2):
    """The CRC-32 of A + B from crc1 of A, crc2 of B and B's length: crc1 times x^(8 len2)."""
    shift, square = 1 << 31, 1 << 23          # x^0 and x^8
    while len2:
        if len2 & 1:
            shift = _gf2_mul(shift, square)
        square = _gf2_mul(square, square)
        len2 >>= 1
    return _gf2_mul(shift, crc1) ^ crc2


def _part_runs(header, src, t, rank):
    """This rank's (stream offset, bytes-like) pieces of one member, adjacent runs merged."""
    pieces = [(0, memoryview(header))] if rank == 0 else []
    if t is not None and (rank == 0 or _tiled(t, src.shape)):
        lo, hi, tile = t
        offs, length = _runs(src.shape, lo, hi, tile.itemsize, len(header))
        if len(offs):
            mv = memoryview(_np.ascontiguousarray(tile)).cast("B")
            offs = offs.tolist()
            i = 0
            while i < len(offs):
                j = i + 1
                while j < len(offs) and offs[j] == offs[j - 1] + length:
                    j += 1
                pieces.append((offs[i], mv[i * length:j * length]))
                i = j
    return pieces


def _deflate_parts(tmp, members, rank):
    """Deflate this rank's pieces into the open file `tmp`: [(member, stream offset, length,
    offset in tmp, compressed length, crc)]."""
    parts, pos = [], 0
    for m, (name, header, src, t) in enumerate(members):
        total = len(header) + src.size * src.itemsize
        for uoff, mv in _part_runs(header, src, t, rank):
            c = zlib.compressobj(zlib.Z_DEFAULT_COMPRESSION, zlib.DEFLATED, -15)
            crc, clen = 0, 0
            for k in range(0, len(mv), _CHUNK):
                chunk = mv[k:k + _CHUNK]
                crc = zlib.crc32(chunk, crc)
                out = c.compress(chunk)
                tmp.write(out)
                clen += len(out)
            out = c.flush(zlib.Z_FINISH if uoff + len(mv) == total else zlib.Z_FULL_FLUSH)
            tmp.write(out)
            clen += len(out)
            parts.append((m, uoff, len(mv), pos, clen, crc))
            pos += clen
    return parts


def _savez_deflated(path, arrays):
    """numpy.savez_compressed to a file name, each rank deflating its own tiles (see above).
    The members decompress to numpy.savez's bytes; the compressed bytes differ from zipfile's
    (the parts' flush points).  Collective."""
    rank, ranks = _ranks()
    members = _npy_members(arrays)
    tmp_name = f"{path}.cupynum-{rank}.part"
    idx_name = f"{path}.cupynum-{rank}.index"
    try:
        try:
            with open(tmp_name, "wb") as tmp:
                parts = _deflate_parts(tmp, members, rank)
            with open(idx_name + ".new", "wb") as f:
                f.write(_np.array(parts, dtype=_np.int64).reshape(-1, 6).tobytes())
            os.replace(idx_name + ".new", idx_name)
        finally:
            if ranks > 1:
                _core.barrier()
        lists = []
        for r in range(ranks):
            try:
                with open(f"{path}.cupynum-{r}.index", "rb") as f:
                    lists.append((r, _np.frombuffer(f.read(), dtype=_np.int64).reshape(-1, 6)))
            except OSError:
                raise OSError(f"cupynum: rank {r} could not deflate its part of {path!r}") from None
        layout = _deflated_layout(members, lists)

        def create():
            with open(path, "wb") as f:
                for off, b in layout["writes"]:
                    f.seek(off)
                    f.write(b)
        _rank0(create, "create", path)
        try:
            mine = layout["places"].get(rank, [])
            if mine:
                src_fd = os.open(tmp_name, os.O_RDONLY)
                dst_fd = os.open(path, os.O_WRONLY)
                try:
                    for toff, clen, foff in mine:
                        for k in range(0, clen, _CHUNK):
                            b = os.pread(src_fd, min(_CHUNK, clen - k), toff + k)
                            _pwrite_all(dst_fd, memoryview(b), foff + k)
                finally:
                    os.close(src_fd)
                    os.close(dst_fd)
        finally:
            if ranks > 1:
                _core.barrier()
    finally:
        for n in (tmp_name, idx_name, idx_name + ".new"):
            try:
                os.unlink(n)
            except OSError:
                pass


def _deflated_layout(members, lists):
    """Every rank alike from the ranks' part lists: what rank 0 writes (each local header and
    the central directory at their offsets: [(offset, bytes)]) and, per rank, where each of its
    parts goes: (offset in its part file, length, offset in the archive)."""
    tm, dt = _dos_time()
    per_member = [[] for _ in members]
    for r, arr in lists:
        for m, uoff, ulen, toff, clen, crc in arr.tolist():
            per_member[m].append((uoff, ulen, r, toff, clen, crc))
    writes, cd, places, end = [], [], {}, 0
    for m, (name, header, src, _) in enumerate(members):
        total = len(header) + src.size * src.itemsize
        ps = sorted(per_member[m])
        crc, csize, at = 0, 0, 0
        for uoff, ulen, _, _, clen, pcrc in ps:
            if uoff != at:
                raise RuntimeError(f"cupynum: the parts of {name!r} do not cover its bytes")
            crc = _crc_combine(crc, pcrc, ulen)
            csize += clen
            at += ulen
        if at != total:
            raise RuntimeError(f"cupynum: the parts of {name!r} do not cover its bytes")
        flags = name_flags(name)
        local = _local_header(name, crc, total, tm, dt, flags, 8, csize)
        writes.append((end, local))
        cd.append(_central_header(name, crc, total, end, tm, dt, flags, 8, csize))
        pos = end + len(local)
        for _, _, r, toff, clen, _ in ps:
            places.setdefault(r, []).append((toff, clen, pos))
            pos += clen
        end = pos
    cd = b"".join(cd)
    writes.append((end, cd + _end_records(len(members), len(cd), end)))
    return {"writes": writes, "places": places}


def name_flags(name):
    try:
        name.decode("ascii")
        return 0
    except UnicodeDecodeError:
        return 0x800   # the name is UTF-8


_M32 = 0xFFFFFFFF


def _local_header(name, crc, size, tm, dt, flags, method=0, csize=None):
    extra = struct.pack("<HHQQ", 1, 16, size, size if csize is None else csize)
    return struct.pack("<4sHHHHHIIIHH", b"PK\x03\x04", 45, flags, method, tm, dt, crc, _M32,
                       _M32, len(name), len(extra)) + name + extra


def _central_header(name, crc, size, off, tm, dt, flags, method=0, csize=None):
    fields = [size, size if csize is None else csize]
    if off >= _M32:
        fields.append(off)
    extra = struct.pack("<HH", 1, 8 * len(fields)) + struct.pack("<" + "Q" * len(fields), *fields)
    return struct.pack("<4sHHHHHHIIIHHHHHII", b"PK\x01\x02", 45, 45, flags, method, tm, dt, crc,
                       _M32, _M32, len(name), len(extra), 0, 0, 0, 0,
                       min(off, _M32)) + name + extra


def _end_records(count, cd_size, cd_offset):
    r = b""
    if count >= 0xFFFF or cd_offset >= _M32 or cd_size >= _M32:
        z = cd_offset + cd_size
        r = struct.pack("<4sQHHIIQQQQ", b"PK\x06\x06", 44, 45, 45, 0, 0, count, count, cd_size,
                        cd_offset)
        r += struct.pack("<4sIQI", b"PK\x06\x07", 0, z, 1)
    return r + struct.pack("<4sHHHHIIH", b"PK\x05\x06", 0, 0, min(count, 0xFFFF),
                           min(count, 0xFFFF), min(cd_size, _M32), min(cd_offset, _M32), 0)


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


NAMES = ("save load savez savez_compressed fromfile").split()


def install_methods(cls):
    cls.tofile = _tofile
