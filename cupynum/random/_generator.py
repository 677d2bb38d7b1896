"""Generator, RandomState and the bit generators of cupynum.random (see the package docstring).

Every draw is one deferred op of the runtime (kind RANDOM, code: a distribution of
csrc/kernels/philox.h) keyed by (key, stream): element i's value is a function of (key, stream,
i) alone, so each rank computes its own part (owner computes) and the array is the same on any
number of ranks, threads or devices.  A method call takes the next stream of its generator, after
its arguments are checked, so a call that raises leaves the generator as it was."""

import operator
import os

import numpy as _np
from numpy.lib.array_utils import normalize_axis_index

from .. import _core
from .._ndarray import ndarray

# philox.h's distribution numbers (op.h enum cpn_random_dist)
(_UNIFORM, _NORMAL, _UNIT24, _INTEGER, _EXPONENTIAL, _GAMMA, _POISSON, _BINOMIAL, _CAUCHY,
 _LOGISTIC, _GUMBEL, _LAPLACE, _PARETO, _POWER, _RAYLEIGH, _WEIBULL, _LOGNORMAL, _GEOMETRIC,
 _LOGSERIES, _ZIPF, _VONMISES, _STUDENT_T, _WALD, _BETA, _NEGBINOMIAL, _NCCHISQ, _HYPERGEOM,
 _TRIANGULAR) = range(28)

_STREAM_LIMIT = 1 << 56   # philox.h keeps the top byte of the stream for rejection attempts


def _cp():
    import cupynum
    return cupynum


def os_seed():
    """64 bits from the OS, the same on every rank (rank 0's)."""
    return _core.bcast_u64(int.from_bytes(os.urandom(8), "little"))


# NumPy's argument checks, messages and all: a NumPy generator that draws only to check.
_CHECK = _np.random.Generator(_np.random.Philox(0))
_CHECK_LEGACY = _np.random.RandomState(0)


def _gathered(x):
    return _np.asarray(x) if isinstance(x, ndarray) else x


def _is_scalar(x):
    return not isinstance(x, ndarray) and _np.ndim(x) == 0


def _check(name, args, kwargs=None, legacy=False):
    """Raise what NumPy's method raises for these arguments (it draws at most one element per
    distinct parameter: size 1 for scalar parameters).  cupynum array parameters are not
    gathered: NumPy checks a few of their elements, the witnesses (_witnesses)."""
    if any(isinstance(a, ndarray) for a in args):
        args = _witnesses(name, args)
    kw = dict(kwargs or {})
    if all(_is_scalar(a) for a in args):
        kw["size"] = 1
    else:
        kw["size"] = None
    getattr(_CHECK_LEGACY if legacy else _CHECK, name)(*args, **kw)


# Constraints NumPy checks between parameters, as functions whose largest element is the
# element most likely to break them (the parameters broadcast, cupynum or NumPy arrays).
_CROSS = {
    "hypergeometric": (lambda g, b, s: s - (g + b), lambda g, b, s: g + b),
    "triangular": (lambda lo, md, hi: lo - md, lambda lo, md, hi: md - hi,
                   lambda lo, md, hi: lo - hi),
    "uniform": (lambda lo, hi: abs(hi - lo), lambda lo, hi: lo - hi),
}


def _witnesses(name, args):
    """1-d NumPy arrays, one per argument, of a few whole elements (all the parameters of one
    draw element) of the broadcast arguments, found by native reductions: for each array its
    smallest and largest value (NaN aside), a NaN and a -0.0 if it has them, and for each of the
    method's cross-parameter constraints (_CROSS) its likeliest violation.  NumPy's checks are
    "any element breaks c", c a bound on one parameter or _CROSS's relation, so they raise on the
    witnesses exactly where they raise on the whole, and in the same order."""
    cp = _cp()
    shapes = [_np.shape(a) for a in args]
    try:
        shape = _np.broadcast_shapes(*shapes)
    except ValueError:   # NumPy's message, from arrays of these shapes
        return tuple(_np.zeros(sh, a.dtype if isinstance(a, ndarray) else _np.asarray(a).dtype)
                     for a, sh in zip(args, shapes))
    if 0 in shape:
        return tuple(_np.asarray(_gathered(a)) for a in args)
    full = [cp.broadcast_to(a, shape) if isinstance(a, ndarray) else
            _np.broadcast_to(_np.asarray(a), shape) for a in args]
    keys = []
    for a in full:
        if not isinstance(a, ndarray):
            continue
        if a.dtype.kind in "fc":
            nan = cp.isnan(a)
            keys += [cp.where(nan, _np.inf, a), -cp.where(nan, -_np.inf, a), nan,
                     cp.signbit(a) & ~nan]
        else:
            keys += [a, -a]
    dev = [a if isinstance(a, ndarray) else cp.asarray(_np.asarray(a)) for a in args]
    with _np.errstate(all="ignore"):
        keys += [cp.broadcast_to(-f(*dev), shape) for f in _CROSS.get(name, ())]
    idx = {0}
    for k in keys:   # the first smallest element (a true one of a mask): min and a compaction
        if k.dtype == bool:
            if bool(k.any()):
                idx.add(int(cp.flatnonzero(k)[0]))
        else:
            idx.add(int(cp.flatnonzero(k == k.min())[0]))
    pos = [_np.unravel_index(i, shape) for i in sorted(idx)]
    return tuple(_np.array([a[p] for p in pos], dtype=a.dtype) if isinstance(a, ndarray) else
                 _np.array([a[p] for p in pos]) for a in full)


def _kind(x):
    return x.dtype.kind if isinstance(x, ndarray) else _np.asarray(x).dtype.kind


def _int_operand(x):
    """An integer bound as an operand of native ops: cupynum arrays as they are, NumPy arrays and
    lists made cupynum arrays, scalars NumPy scalars of their own dtype (uint64 above int64)."""
    if isinstance(x, ndarray):
        return x
    a = _np.asarray(x)
    return a[()] if a.ndim == 0 else _core.from_any(a)


def _as_int64(x):
    """x's values as int64, modulo 2**64 (uint64 above 2**63 wraps, as int64 arithmetic does)."""
    if isinstance(x, ndarray):
        return x if x.dtype == _np.int64 else x.astype(_np.int64)
    return _np.int64((int(x) + 2**63) % 2**64 - 2**63)


def _as_uint64(x):
    """int64 values as uint64 modulo 2**64."""
    if isinstance(x, ndarray):
        return x.astype(_np.uint64)
    return _np.uint64(int(x) % 2**64)


def _has_nan(x):
    if isinstance(x, ndarray):
        return bool(_cp().isnan(x).any())
    return bool(_np.isnan(_np.asarray(x)).any())


def _bound_int64(x):
    """An integer bound as int64 modulo 2**64 (_as_int64); a float one truncated as NumPy's
    forced cast does (its checks passed: -2**63 <= x <= 2**64), through uint64 where it is
    nonnegative (2**64 itself is 0 modulo 2**64)."""
    if _kind(x) != "f":
        return _as_int64(_int_operand(x))
    if not isinstance(x, ndarray):
        a = _np.asarray(x)
        if a.ndim == 0:
            return _np.int64((int(a) + 2**63) % 2**64 - 2**63)
        x = _core.from_any(a)
    cp = _cp()
    pos = cp.where(x >= 2.0**64, 0.0, cp.maximum(x, 0.0)).astype(_np.uint64).astype(_np.int64)
    return cp.where(x >= 0, pos, cp.minimum(x, 0.0).astype(_np.int64))


def _trunc_empty(low, high, endpoint):
    """Where the truncated bounds leave no integer (floats truncate, exactly, in float64)."""
    cp = _cp()
    lo, hi = (cp.trunc(x) if isinstance(x, ndarray) else _np.trunc(_np.asarray(x, dtype=_np.float64))
              for x in (low, high))
    lo = lo if isinstance(lo, ndarray) or _np.ndim(lo) == 0 else _core.from_any(lo)
    hi = hi if isinstance(hi, ndarray) or _np.ndim(hi) == 0 else _core.from_any(hi)
    return lo > hi if endpoint else lo >= hi


def _int_witnesses(low, high, endpoint):
    """NumPy arrays of a few whole elements of integer bounds (broadcast), on which NumPy's
    checks raise as on the whole: each bound's smallest and largest element and the first
    element where low >= high (low > high with endpoint); found by native reductions."""
    cp = _cp()
    shape = _np.broadcast_shapes(_np.shape(low), _np.shape(high))
    if 0 in shape:
        return tuple(_np.asarray(_gathered(a)) for a in (low, high))
    full = [cp.broadcast_to(a, shape) if isinstance(a, ndarray) else
            _np.broadcast_to(_np.asarray(a), shape) for a in (low, high)]
    idx = {0}
    for a in full:   # the first smallest and largest (min/max and a compaction: argmin gathers)
        if isinstance(a, ndarray):
            idx.update(int(cp.flatnonzero(a == m)[0]) for m in (a.min(), a.max()))
    dev = [a if isinstance(a, ndarray) else _core.from_any(_np.ascontiguousarray(a)) for a in full]
    bad = dev[0] > dev[1] if endpoint else dev[0] >= dev[1]
    if bool(bad.any()):
        idx.add(int(cp.flatnonzero(bad)[0]))
    pos = [_np.unravel_index(i, shape) for i in sorted(idx)]
    return tuple(_np.array([a[p] for p in pos], dtype=a.dtype) for a in full)


def _size(size):
    """NumPy's size argument as a shape tuple (None stays None), with NumPy's errors."""
    if size is None:
        return None
    try:
        if isinstance(size, (int, _np.integer)) or _np.ndim(size) == 0:
            shape = (operator.index(size),)
        else:
            shape = tuple(operator.index(s) for s in size)
    except TypeError:
        raise TypeError(f"expected a sequence of integers or a single integer, got '{size!r}'") \
            from None
    if any(s < 0 for s in shape):
        raise ValueError("negative dimensions are not allowed")
    return shape


def _shape_of(size, params):
    """The draw's shape: size, or the broadcast of the array parameters (NumPy's error when size
    cannot hold them)."""
    shapes = [_np.shape(p) for p in params if not _is_scalar(p)]
    shape = _size(size)
    if shape is None:
        return _np.broadcast_shapes(*shapes) if shapes else None
    if shapes and _np.broadcast_shapes(shape, *shapes) != shape:
        raise ValueError("shape mismatch: objects cannot be broadcast to a single shape")
    return shape


def _as_array(x):
    return x if isinstance(x, ndarray) else _core.from_any(_np.asarray(x, dtype=_np.float64))


def _param(x, shape):
    """An array parameter as a float64 cupynum array of the draw's shape: itself when it is one
    (laid out as it is: the draw follows it), else its broadcast, copied, so that each rank holds
    the values of the elements it draws."""
    a = _as_array(x)
    if a.dtype != _np.float64:
        a = a.astype(_np.float64)
    if a.shape == shape and a.flags.c_contiguous:
        return a
    return _cp().broadcast_to(a, shape).copy()


class SeedSequence(_np.random.SeedSequence):
    """NumPy's SeedSequence (entropy, spawn keys, generate_state), the OS entropy shared by every
    rank so that an unseeded program still draws the same arrays on all of them."""

    def __init__(self, entropy=None, *, spawn_key=(), pool_size=4, n_children_spawned=0):
        if entropy is None:
            entropy = os_seed() | os_seed() << 64
        super().__init__(entropy, spawn_key=spawn_key, pool_size=pool_size,
                         n_children_spawned=n_children_spawned)


def _seed_sequence(seed):
    if isinstance(seed, _np.random.SeedSequence):
        return seed
    if isinstance(seed, _np.random.BitGenerator):
        ss = getattr(seed, "seed_seq", None)
        if isinstance(ss, _np.random.SeedSequence):
            return ss
        return SeedSequence(int(seed.random_raw()))
    if seed is not None and not isinstance(seed, (int, _np.integer)):
        seed = _np.asarray(seed)
        if seed.dtype.kind not in "iu" and seed.size:
            raise TypeError("SeedSequence expects int or sequence of ints for entropy not "
                            f"{seed!r}")
        seed = [int(s) for s in seed.ravel()]
    return SeedSequence(seed)


class BitGenerator:
    """Philox4x32-10, counter-based: the state is a 64-bit key and the number of draws made
    (the stream).  The name given (Philox, PCG64, MT19937, SFC64) is kept for show; the streams
    are cupynum's Philox streams whatever it is, and differ from NumPy's."""

    _name = "Philox"

    def __init__(self, seed=None, *, key=None):
        if key is not None:
            self.seed_seq = None
            self._key = int(_np.uint64(key if _np.ndim(key) == 0 else _np.asarray(key).ravel()[0]))
        else:
            self.seed_seq = _seed_sequence(seed)
            k = self.seed_seq.generate_state(2, _np.uint32)
            self._key = int(k[0]) | int(k[1]) << 32
        self._stream = 0

    def _next_stream(self):
        self._stream += 1
        if self._stream >= _STREAM_LIMIT:
            self._stream = 1
        return self._stream

    @property
    def state(self):
        return {"bit_generator": self._name, "state": {"key": self._key, "stream": self._stream}}

    @state.setter
    def state(self, value):
        if not isinstance(value, dict) or "state" not in value:
            raise TypeError("state must be a dict")
        if value.get("bit_generator") not in (self._name, "Philox", "PCG64", "MT19937", "SFC64"):
            raise ValueError(f"state must be for a {self._name} PRNG")
        st = value["state"]
        self._key = int(st["key"]) & (2**64 - 1)
        self._stream = int(st["stream"])

    def spawn(self, n_children):
        if self.seed_seq is None:
            raise TypeError("The underlying SeedSequence does not implement spawning.")
        return [type(self)(ss) for ss in self.seed_seq.spawn(n_children)]

    def random_raw(self, size=None, output=True):
        """Raw 64-bit draws (uint64), two words of a Philox block."""
        shape = _size(size)
        r = Generator(self).integers(0, 2**64, size=shape, dtype=_np.uint64)
        return r if output else None

    def __reduce__(self):
        obj = type(self).__new__(type(self))
        return (_restore_bitgen, (type(self), self.seed_seq, self._key, self._stream))

    def __repr__(self):
        return f"{self._name}(cupynum counter-based) at 0x{id(self):X}"


def _restore_bitgen(cls, seed_seq, key, stream):
    b = cls.__new__(cls)
    b.seed_seq, b._key, b._stream = seed_seq, key, stream
    return b


class Philox(BitGenerator):
    _name = "Philox"

    def __init__(self, seed=None, counter=None, key=None):
        super().__init__(seed, key=key)
        if counter is not None:
            self._stream = int(_np.asarray(counter).ravel()[0]) % _STREAM_LIMIT


class PCG64(BitGenerator):
    _name = "PCG64"


class PCG64DXSM(BitGenerator):
    _name = "PCG64DXSM"


class MT19937(BitGenerator):
    _name = "MT19937"


class SFC64(BitGenerator):
    _name = "SFC64"


def _wrap_bitgen(bg):
    """A cupynum bit generator for what Generator() was given."""
    if isinstance(bg, BitGenerator):
        return bg
    if isinstance(bg, _np.random.BitGenerator):
        cls = {"PCG64": PCG64, "MT19937": MT19937, "SFC64": SFC64,
               "PCG64DXSM": PCG64DXSM}.get(type(bg).__name__, Philox)
        return cls(bg)
    raise TypeError("BitGenerator expected")


class _Base:
    """Draws shared by Generator and RandomState."""

    def _stream(self):
        return self._bit_generator._next_stream()

    def _key(self):
        return self._bit_generator._key

    def _raw(self, code, shape, p0=0.0, p1=0.0, stream=None):
        """One deferred draw of float64 (a cupynum array; a Python float when shape is None)."""
        s = self._stream() if stream is None else stream
        a = _core.random(code, () if shape is None else shape, self._key(), s, float(p0), float(p1))
        return a

    def _ints(self, shape, r, off=0, stream=None):
        """int64 integers off + [0, r) (modulo 2**64), r <= 2**53, written by the draw itself: the
        values of _raw(_INTEGER, shape, r), without a float64 array and a cast."""
        s = self._stream() if stream is None else stream
        return _core.random(_INTEGER, () if shape is None else shape, self._key(), s, float(r), 0.0,
                            off % 2**64)

    @staticmethod
    def _finish(a, shape, dtype=None, discrete=False):
        if shape is None:
            v = _core.to_scalar(a)
            return int(v) if discrete else float(v)
        if discrete:
            return a.astype(_np.int64)
        if dtype is not None and _np.dtype(dtype) != _np.float64:
            return a.astype(dtype)
        return a

    def _draw(self, code, size, params, to_p=None, name=None, discrete=False):
        """A distribution with scalar or array parameters.  Scalars go to the kernel as they are
        (to_p maps them to its (p0, p1)); array parameters are broadcast to the draw's shape and
        handed to the kernel as per-element operands (_core.random_p): each rank draws the
        elements it holds from their own parameters, element i's value a function of (key,
        stream, i, its parameters) alone."""
        to_p = to_p or (lambda *p: p)
        shape = _shape_of(size, params)
        if all(_is_scalar(p) for p in params):
            return self._finish(self._raw(code, shape, *to_p(*params)), shape, discrete=discrete)
        ps = [float(p) if _is_scalar(p) else _param(p, shape) for p in params]
        p = [x if isinstance(x, ndarray) else float(x) for x in to_p(*ps)] + [0.0]
        p = [x if not isinstance(x, ndarray) or x.shape == shape else _param(x, shape)
             for x in p[:2]]
        r = _core.random_p(code, self._key(), self._stream(), p[0], p[1])
        return r.astype(_np.int64) if discrete else r

    def _locscale(self, code, std_code, loc, scale, size, name, std_p=(0.0, 1.0)):
        """loc + scale * X: scalars in the kernel, arrays as element-wise ops on a standard draw."""
        shape = _shape_of(size, (loc, scale))
        if _is_scalar(loc) and _is_scalar(scale):
            return self._finish(self._raw(code, shape, loc, scale), shape)
        x = self._raw(std_code, shape, *std_p)
        return _as_array(loc) + _as_array(scale) * x

    # ---- uniforms, integers ---------------------------------------------------------------------
    def _random(self, size=None, dtype=_np.float64, out=None):
        dt = _np.dtype(dtype)
        if dt not in (_np.float64, _np.float32):
            raise TypeError(f"Unsupported dtype {dt.name!r} for random")
        shape = _size(size)
        if out is not None:
            _check_out(out, dt, shape)
            shape = out.shape
        if dt == _np.float32:
            r = self._finish(self._raw(_UNIT24, shape), shape, _np.float32)
        else:
            r = self._finish(self._raw(_UNIFORM, shape, 0.0, 1.0), shape)
        if out is not None:
            out[...] = r
            return out
        return r

    def uniform(self, low=0.0, high=1.0, size=None):
        _check("uniform", (low, high))
        shape = _shape_of(size, (low, high))
        if _is_scalar(low) and _is_scalar(high):
            return self._finish(self._raw(_UNIFORM, shape, low, high), shape)
        lo = _as_array(low)
        return lo + (_as_array(high) - lo) * self._raw(_UNIFORM, shape, 0.0, 1.0)

    def _integers(self, low, high, size, dtype, endpoint, name="integers"):
        dt = _np.dtype(dtype)
        if dt.kind not in "biu":
            raise TypeError(f"Unsupported dtype {dt.name!r} for {name}")
        if high is None:
            low, high = 0, low
        shape = _shape_of(size, (low, high))
        if not (_is_scalar(low) and _is_scalar(high)):
            return self._integers_array(low, high, shape, dt, endpoint)
        lo, hi = int(low), int(high) - (0 if endpoint else 1)
        info = _np.iinfo(dt) if dt.kind != "b" else _np.iinfo(_np.uint8)
        imin, imax = (0, 1) if dt.kind == "b" else (info.min, info.max)
        if lo < imin:
            raise ValueError(f"low is out of bounds for {dt.name}")
        if hi > imax:
            raise ValueError(f"high is out of bounds for {dt.name}")
        if lo > hi:
            raise ValueError("low > high" if endpoint else "low >= high")
        r = hi - lo + 1
        if shape is None:   # a scalar: element 0 of a 1-element draw
            return dt.type(_np.asarray(self._integers(lo, hi, 1, dt, True))[0])
        if r <= 2**53:   # lo + [0, r) fits dt: int64's bits are dt's value, modulo 2**64
            d = self._ints(shape, r, lo)
            return d if dt == _np.int64 else d.astype(dt)
        else:   # wide ranges: 64 bits from two draws, rejection of what lies beyond r
            v = self._wide(shape, r)
        if lo:   # modulo 2**64: the value fits dt, so the wrapping cast gives it
            v = v + _np.uint64(lo % 2**64)
        return v.astype(dt)

    def _wide(self, shape, r):
        """uint64 integers in [0, r), 2**53 < r <= 2**64: hi * 2**32 + lo from two integer draws
        (each exact in float64), redrawn where the value is r or more; the rounds are global, so
        an element's value does not depend on the partition."""
        cp = _cp()
        nhi = -(-r // 2**32)
        def one():
            h = self._ints(shape, nhi).astype(_np.uint64)
            lw = self._ints(shape, 2**32).astype(_np.uint64)
            return h * _np.uint64(2**32) + lw
        v = one()
        if r == 2**64:
            return v
        bound = _np.uint64(r)
        for _ in range(64):
            bad = v >= bound
            if not bool(cp.any(bad)):
                break
            v = cp.where(bad, one(), v)
        return v

    def _integers_array(self, low, high, shape, dt, endpoint):
        """Array bounds, drawn natively where the parameters live: NumPy's checks on witness
        elements, then element i is low[i] plus a uniform integer below its own range (Lemire's
        per element up to 2**52; beyond, 64 bits from two draws with global rejection rounds).
        Float bounds are truncated as NumPy's forced cast does.  Bounds with a NaN, float bounds
        whose truncated range is empty (NumPy then raises or wraps, by dtype) and other kinds
        take NumPy's Generator on the gathered bounds."""
        kinds = [_kind(a) for a in (low, high)]
        if all(k in "biuf" for k in kinds) and not any(
                k == "f" and _has_nan(a) for a, k in zip((low, high), kinds)):
            cp = _cp()
            _CHECK.integers(*_int_witnesses(low, high, endpoint), dtype=dt, endpoint=endpoint)
            if 0 in shape:
                return cp.zeros(shape, dt)
            if "f" not in kinds or not bool(cp.any(_trunc_empty(low, high, endpoint))):
                return self._integers_native(_bound_int64(low), _bound_int64(high), shape, dt,
                                             endpoint)
        lo_n = _np.asarray(_gathered(low))
        hi_n = _np.asarray(_gathered(high))
        bg = self._bit_generator
        before = bg._stream
        g = _np.random.Generator(_np.random.Philox(key=self._key(),
                                                   counter=[0, 0, 0, self._stream()]))
        try:
            return _core.from_any(g.integers(lo_n, hi_n, size=shape, dtype=dt, endpoint=endpoint))
        except Exception:
            bg._stream = before   # NumPy raised: no state advances
            raise

    def _integers_native(self, lo64, hi64, shape, dt, endpoint):
        """lo + [0, hi - lo + endpoint) per element, the bounds int64 modulo 2**64 (the range
        too: 0 stands for 2**64)."""
        cp = _cp()
        r = hi64 - lo64 + (1 if endpoint else 0)   # wraps modulo 2**64: exact
        m = _as_uint64(r) - _np.uint64(1)          # range - 1, in [0, 2**64)
        wide = m >= _np.uint64(2**52)
        if not bool(cp.any(wide)):
            v = _core.random_p(_INTEGER, self._key(), self._stream(), _param(r, shape), 0.0)
            return (v.astype(_np.int64) + lo64).astype(dt)
        # ranges up to 2**52 per element as above; wider ones hi * 2**32 + lo, hi below
        # ceil(range / 2**32) and lo below 2**32, redrawn where the value reaches the range
        # (under 2**-20 of them a round); the rounds are global, so no value depends on the
        # partition
        small = ~wide
        v = _core.random_p(_INTEGER, self._key(), self._stream(),
                           _param(cp.where(small, r, 1), shape), 0.0).astype(_np.uint64)
        nhi = _param((m >> _np.uint64(32)) + _np.uint64(1), shape)

        def one():
            h = _core.random_p(_INTEGER, self._key(), self._stream(), nhi, 0.0).astype(_np.uint64)
            return h * _np.uint64(2**32) + self._ints(shape, 2**32).astype(_np.uint64)
        w = one()
        limit = m + _np.uint64(1)   # the range; 0 (2**64): every value is in it
        check = wide & (limit != _np.uint64(0))
        for _ in range(64):
            bad = check & (w >= limit)
            if not bool(cp.any(bad)):
                break
            w = cp.where(bad, one(), w)
        v = cp.where(small, v, w)
        return (v.astype(_np.int64) + lo64).astype(dt)

    # ---- continuous ----------------------------------------------------------------------------
    def normal(self, loc=0.0, scale=1.0, size=None):
        _check("normal", (loc, scale))
        return self._locscale(_NORMAL, _NORMAL, loc, scale, size, "normal")

    def _standard_normal(self, size=None, dtype=_np.float64, out=None):
        dt = _np.dtype(dtype)
        if dt not in (_np.float64, _np.float32):
            raise TypeError(f"Unsupported dtype {dt.name!r} for standard_normal")
        shape = _size(size)
        if out is not None:
            _check_out(out, dt, shape)
            shape = out.shape
        r = self._finish(self._raw(_NORMAL, shape, 0.0, 1.0), shape, dt)
        if out is not None:
            out[...] = r
            return out
        return r

    def exponential(self, scale=1.0, size=None):
        _check("exponential", (scale,))
        shape = _shape_of(size, (scale,))
        if _is_scalar(scale):
            return self._finish(self._raw(_EXPONENTIAL, shape, scale), shape)
        return _as_array(scale) * self._raw(_EXPONENTIAL, shape, 1.0)

    def _standard_exponential(self, size=None, dtype=_np.float64, method="zig", out=None):
        dt = _np.dtype(dtype)
        if dt not in (_np.float64, _np.float32):
            raise TypeError(f"Unsupported dtype {dt.name!r} for standard_exponential")
        if method not in ("zig", "inv"):
            raise ValueError("method must be either 'inv' or 'zig'")
        shape = _size(size)
        if out is not None:
            _check_out(out, dt, shape)
            shape = out.shape
        r = self._finish(self._raw(_EXPONENTIAL, shape, 1.0), shape, dt)
        if out is not None:
            out[...] = r
            return out
        return r

    def gamma(self, shape, scale=1.0, size=None):
        _check("gamma", (shape, scale))
        if _is_scalar(scale) or not _is_scalar(shape):
            return self._draw(_GAMMA, size, (shape, scale), name="gamma")
        return _as_array(scale) * self._draw(_GAMMA, size, (shape, 1.0), name="gamma")

    def _standard_gamma(self, shape, size=None, dtype=_np.float64, out=None):
        dt = _np.dtype(dtype)
        if dt not in (_np.float64, _np.float32):
            raise TypeError(f"Unsupported dtype {dt.name!r} for standard_gamma")
        _check("standard_gamma", (shape,))
        if out is not None:
            _check_out(out, dt, _size(size))
            size = out.shape
        r = self._draw(_GAMMA, size, (shape, 1.0), name="gamma")
        if dt == _np.float32 and not isinstance(r, float):
            r = r.astype(_np.float32)
        if out is not None:
            out[...] = r
            return out
        return r

    def beta(self, a, b, size=None):
        _check("beta", (a, b))
        return self._draw(_BETA, size, (a, b), name="beta")

    def chisquare(self, df, size=None):
        _check("chisquare", (df,))
        return self._draw(_GAMMA, size, (df,), to_p=lambda d: (0.5 * d, 2.0), name="chisquare")

    def noncentral_chisquare(self, df, nonc, size=None):
        _check("noncentral_chisquare", (df, nonc))
        return self._draw(_NCCHISQ, size, (df, nonc), name="noncentral_chisquare")

    def f(self, dfnum, dfden, size=None):
        _check("f", (dfnum, dfden))
        shape = _shape_of(size, (dfnum, dfden))
        x = self.chisquare(dfnum, shape)
        y = self.chisquare(dfden, shape)
        if shape is None:
            return (x * float(dfden)) / (y * float(dfnum))
        return (x * _as_array(dfden)) / (y * _as_array(dfnum))

    def noncentral_f(self, dfnum, dfden, nonc, size=None):
        _check("noncentral_f", (dfnum, dfden, nonc))
        shape = _shape_of(size, (dfnum, dfden, nonc))
        x = self.noncentral_chisquare(dfnum, nonc, shape)
        y = self.chisquare(dfden, shape)
        if shape is None:
            return (x * float(dfden)) / (y * float(dfnum))
        return (x * _as_array(dfden)) / (y * _as_array(dfnum))

    def standard_t(self, df, size=None):
        _check("standard_t", (df,))
        return self._draw(_STUDENT_T, size, (df,), name="standard_t")

    def standard_cauchy(self, size=None):
        shape = _size(size)
        return self._finish(self._raw(_CAUCHY, shape), shape)

    def lognormal(self, mean=0.0, sigma=1.0, size=None):
        _check("lognormal", (mean, sigma))
        shape = _shape_of(size, (mean, sigma))
        if _is_scalar(mean) and _is_scalar(sigma):
            return self._finish(self._raw(_LOGNORMAL, shape, mean, sigma), shape)
        return _cp().exp(_as_array(mean) + _as_array(sigma) * self._raw(_NORMAL, shape, 0.0, 1.0))

    def logistic(self, loc=0.0, scale=1.0, size=None):
        _check("logistic", (loc, scale))
        return self._locscale(_LOGISTIC, _LOGISTIC, loc, scale, size, "logistic")

    def gumbel(self, loc=0.0, scale=1.0, size=None):
        _check("gumbel", (loc, scale))
        return self._locscale(_GUMBEL, _GUMBEL, loc, scale, size, "gumbel")

    def laplace(self, loc=0.0, scale=1.0, size=None):
        _check("laplace", (loc, scale))
        return self._locscale(_LAPLACE, _LAPLACE, loc, scale, size, "laplace")

    def pareto(self, a, size=None):
        _check("pareto", (a,))
        shape = _shape_of(size, (a,))
        if _is_scalar(a):
            return self._finish(self._raw(_PARETO, shape, a), shape)
        return _cp().expm1(self._raw(_EXPONENTIAL, shape, 1.0) / _as_array(a))

    def power(self, a, size=None):
        _check("power", (a,))
        shape = _shape_of(size, (a,))
        if _is_scalar(a):
            return self._finish(self._raw(_POWER, shape, a), shape)
        cp = _cp()
        return cp.power(-cp.expm1(-self._raw(_EXPONENTIAL, shape, 1.0)), 1.0 / _as_array(a))

    def rayleigh(self, scale=1.0, size=None):
        _check("rayleigh", (scale,))
        shape = _shape_of(size, (scale,))
        if _is_scalar(scale):
            return self._finish(self._raw(_RAYLEIGH, shape, scale), shape)
        return _as_array(scale) * self._raw(_RAYLEIGH, shape, 1.0)

    def weibull(self, a, size=None):
        _check("weibull", (a,))
        return self._draw(_WEIBULL, size, (a,), name="weibull")

    def triangular(self, left, mode, right, size=None):
        _check("triangular", (left, mode, right))
        shape = _shape_of(size, (left, mode, right))
        if all(_is_scalar(p) for p in (left, mode, right)):
            left, mode, right = float(left), float(mode), float(right)
            t = self._raw(_TRIANGULAR, shape, (mode - left) / (right - left))
            if shape is None:
                return left + (right - left) * float(_core.to_scalar(t))
            return left + (right - left) * t
        cp = _cp()
        lo, md, hi = _as_array(left), _as_array(mode), _as_array(right)
        base = hi - lo
        c = (md - lo) / base
        u = self._raw(_UNIFORM, shape, 0.0, 1.0)
        t = cp.where(u <= c, cp.sqrt(u * c), 1.0 - cp.sqrt((1.0 - u) * (1.0 - c)))
        return lo + base * t

    def vonmises(self, mu, kappa, size=None):
        _check("vonmises", (mu, kappa))
        return self._draw(_VONMISES, size, (mu, kappa), name="vonmises")

    def wald(self, mean, scale, size=None):
        _check("wald", (mean, scale))
        return self._draw(_WALD, size, (mean, scale), name="wald")

    # ---- discrete ------------------------------------------------------------------------------
    def poisson(self, lam=1.0, size=None):
        _check("poisson", (lam,))
        return self._draw(_POISSON, size, (lam,), name="poisson", discrete=True)

    def binomial(self, n, p, size=None):
        _check("binomial", (n, p))
        return self._draw(_BINOMIAL, size, (n, p), to_p=_binomial_p, name="binomial",
                          discrete=True)

    def negative_binomial(self, n, p, size=None):
        _check("negative_binomial", (n, p))
        return self._draw(_NEGBINOMIAL, size, (n, p), name="negative_binomial", discrete=True)

    def geometric(self, p, size=None):
        _check("geometric", (p,))
        return self._draw(_GEOMETRIC, size, (p,), name="geometric", discrete=True)

    def logseries(self, p, size=None):
        _check("logseries", (p,))
        return self._draw(_LOGSERIES, size, (p,), name="logseries", discrete=True)

    def zipf(self, a, size=None):
        _check("zipf", (a,))
        return self._draw(_ZIPF, size, (a,), name="zipf", discrete=True)

    def hypergeometric(self, ngood, nbad, nsample, size=None):
        _check("hypergeometric", (ngood, nbad, nsample))

        return self._draw(_HYPERGEOM, size, (ngood, nbad, nsample), to_p=_hypergeom_p,
                          name="hypergeometric", discrete=True)

    # ---- permutations, choice ------------------------------------------------------------------
    def _perm_keys(self, n):
        """A random permutation of range(n): _core.permute of arange(n) (a counter-based
        bijection, the same for any partition)."""
        cp = _cp()
        return _core.permute(cp.arange(n, dtype=_np.int64), self._key(), self._stream())

    def _perm(self, arr, axis=0):
        """arr's slices along axis permuted (a new C-contiguous array): _core.permute moves each
        row to its place, one all-to-all of the rows on partitioned arrays."""
        cp = _cp()
        s = self._stream()
        if axis == 0:
            return _core.permute(cp.ascontiguousarray(arr), self._key(), s)
        moved = cp.ascontiguousarray(cp.moveaxis(arr, axis, 0))
        return cp.ascontiguousarray(cp.moveaxis(_core.permute(moved, self._key(), s), 0, axis))

    def permutation(self, x, axis=0):
        if isinstance(x, (int, _np.integer)):
            return self._perm_keys(int(x))
        arr = x if isinstance(x, ndarray) else _core.from_any(_np.asarray(x))
        if arr.ndim == 0:
            raise _np.exceptions.AxisError("x must be an integer or at least 1-dimensional")
        axis = normalize_axis_index(axis, arr.ndim)
        return self._perm(arr, axis)

    def shuffle(self, x, axis=0):
        if not isinstance(x, ndarray):
            raise TypeError("shuffle expects a cupynum array")
        if x.ndim == 0:
            raise TypeError("shuffle expects a non-0d array")
        axis = normalize_axis_index(axis, x.ndim)
        x[...] = self._perm(x, axis)

    def permuted(self, x, axis=None, out=None):
        cp = _cp()
        arr = x if isinstance(x, ndarray) else _core.from_any(_np.asarray(x))
        if axis is None and arr.ndim > 1 and cp.runtime_info()["ranks"] > 1:
            # The flat alias of a partitioned array is not a store PERMUTE can move rows of;
            # its copy is (a 1-d store laid out as arr's tiles: nothing moves), and the copy of
            # the permuted result reshaped is laid out as arr again: the all-to-all is all that
            # moves.  On one rank the views serve.
            r = self._perm(cp.ascontiguousarray(arr).ravel().copy()).reshape(arr.shape).copy()
        elif axis is None:
            r = self._perm(arr.ravel()).reshape(arr.shape)
        else:
            axis = axis % arr.ndim
            keys = self._raw(_INTEGER, arr.shape, 2.0**53)
            r = cp.take_along_axis(arr, cp.argsort(keys, axis=axis, kind="stable"), axis=axis)
        if out is not None:
            out[...] = r
            return out
        return r

    def choice(self, a, size=None, replace=True, p=None, axis=0, shuffle=True):
        cp = _cp()
        if isinstance(a, (int, _np.integer)) or _np.ndim(_gathered(a)) == 0:
            pop = operator.index(a)
            arr = None
        else:
            arr = a if isinstance(a, ndarray) else _core.from_any(_np.asarray(a))
            pop = arr.shape[axis]
        # NumPy's checks (a, p sums to 1, then sizes, replace=False with too large a sample), in
        # NumPy's order; on the population size and without the sample itself, since NumPy's
        # choice would draw it: with a size only where it raises (it then draws nothing)
        pn = None if p is None else _np.asarray(_gathered(p), dtype=_np.float64)
        if pop == 0:
            _CHECK.choice(pop if arr is None else _np.arange(0), size=size, replace=replace, p=pn,
                          shuffle=shuffle)
        else:
            _CHECK.choice(pop, size=None, replace=replace, p=pn, shuffle=shuffle)
        shape = _size(size)
        n = 1 if shape is None else int(_np.prod(shape))
        if pop and not replace and (n > pop or (pn is not None and n > _np.count_nonzero(pn > 0))):
            _CHECK.choice(pop, size=size, replace=False, p=pn, shuffle=shuffle)
        if replace:
            if pn is None:
                idx = self._ints((n,), pop)
            else:
                cdf = _np.cumsum(pn)
                cdf /= cdf[-1]
                u = self._raw(_UNIFORM, (n,), 0.0, 1.0)
                idx = cp.searchsorted(cp.asarray(cdf), u, side="right")
                idx = cp.minimum(idx, pop - 1)
        else:
            if pn is None:
                idx = self._perm_keys(pop)[:n]
            else:   # weighted sampling without replacement: the n smallest of E_i / p_i
                e = self._raw(_EXPONENTIAL, (pop,), 1.0)
                with _np.errstate(divide="ignore"):
                    keys = e / cp.asarray(pn)
                idx = cp.argsort(keys, kind="stable")[:n]
                if not shuffle:
                    idx = cp.sort(idx)
        if shape is None:
            i = int(_np.asarray(idx).ravel()[0])
            return (_np.int64(i) if arr is None else arr[(slice(None),) * axis + (i,)])
        idx = idx.reshape(shape)
        if arr is None:
            return idx
        return cp.take(arr, idx, axis=axis)

    def bytes(self, length):
        n = operator.index(length)
        if n == 0:
            return b""
        v = self._ints((n,), 256).astype(_np.uint8)
        return _np.asarray(v).tobytes()

    # ---- multivariate --------------------------------------------------------------------------
    def multivariate_normal(self, mean, cov, size=None, check_valid="warn", tol=1e-8,
                            method="svd"):
        mean_n = _np.asarray(_gathered(mean), dtype=_np.float64)
        cov_n = _np.asarray(_gathered(cov), dtype=_np.float64)
        if mean_n.ndim != 1:
            raise ValueError("mean must be 1 dimensional")
        if cov_n.ndim != 2 or cov_n.shape[0] != cov_n.shape[1]:
            raise ValueError("cov must be 2 dimensional and square")
        if mean_n.shape[0] != cov_n.shape[0]:
            raise ValueError("mean and cov must have same length")
        if method not in ("svd", "eigh", "cholesky"):
            raise ValueError("method must be one of {'svd', 'eigh', 'cholesky'}")
        # NumPy's factorisation and checks, on the small k x k matrix (its warnings too)
        _CHECK.multivariate_normal(mean_n, cov_n, size=1, check_valid=check_valid, tol=tol,
                                   method=method)
        if method == "cholesky":
            f = _np.linalg.cholesky(cov_n).T
        elif method == "eigh":
            s, v = _np.linalg.eigh(cov_n)
            f = _np.sqrt(_np.abs(s))[:, None] * v.T
        else:
            _, s, v = _np.linalg.svd(cov_n)
            f = _np.sqrt(s)[:, None] * v
        shape = _size(size) or ()
        k = mean_n.shape[0]
        z = self._raw(_NORMAL, shape + (k,), 0.0, 1.0)
        cp = _cp()
        return z @ cp.asarray(f) + cp.asarray(mean_n)

    def dirichlet(self, alpha, size=None):
        al = _np.asarray(_gathered(alpha), dtype=_np.float64)
        _CHECK.dirichlet(al, size=1)
        shape = _size(size) or ()
        cp = _cp()
        g = cp.empty(shape + (al.shape[0],))
        for j, a in enumerate(al):   # one draw per column (its own stream)
            g[..., j] = self._raw(_GAMMA, shape, a, 1.0)
        return g / g.sum(axis=-1, keepdims=True)

    def multinomial(self, n, pvals, size=None):
        """Conditional binomials category by category: element-wise draws with per-element n
        (and per-row probabilities for n-d pvals)."""
        pv = _np.asarray(_gathered(pvals), dtype=_np.float64)
        try:
            lead = _np.broadcast_shapes(_np.shape(n), pv.shape[:-1]) if pv.ndim else None
        except ValueError:
            lead = None
        if isinstance(n, ndarray) and n.size and lead is not None:
            # NumPy's checks of n (its dtype, n < 0) on its smallest element, not the gathered n
            _CHECK.multinomial(_np.asarray(n.min()).astype(n.dtype).reshape(1), pv, size=None)
        else:
            _CHECK.multinomial(_gathered(n), pv, size=None)
        shape = _size(size)
        if _is_scalar(n) and pv.ndim == 1:
            return self._multinomial_scalar(int(n), pv, () if shape is None else shape)
        if shape is not None:
            try:
                ok = _np.broadcast_shapes(shape, lead) == shape
            except ValueError:
                ok = False
            if not ok:   # NumPy's error (it raises before drawing)
                _CHECK.multinomial(_gathered(n), pv, size=shape)
        return self._multinomial_array(n, pv, lead if shape is None else shape)

    def _multinomial_array(self, n, pv, shape):
        """multinomial with an array n or n-d pvals, the draw of the given shape: column j is
        binomial(left, p_j / (1 - p_0 - ... - p_{j-1})), left what the columns before left (NumPy's
        random_multinomial, element-wise; the ratios clamped to [0, 1] against rounding)."""
        cp = _cp()
        k = pv.shape[-1]
        out = cp.empty(shape + (k,), dtype=_np.int64)
        if 0 in shape:
            return out
        left = _param(cp.trunc(_as_array(n)) if not _is_scalar(n) else float(int(n)), shape)
        rem = _np.ones(pv.shape[:-1])
        for j in range(k - 1):
            with _np.errstate(divide="ignore", invalid="ignore"):
                pj = _np.where(rem > 0, _np.clip(pv[..., j] / rem, 0.0, 1.0), 0.0)
            x = self._draw(_BINOMIAL, shape, (left, pj if pj.ndim else float(pj)))
            out[..., j] = x
            left = left - x
            rem = rem - pv[..., j]
        out[..., k - 1] = left
        return out

    def _multinomial_scalar(self, n, pv, shape):
        cp = _cp()
        k = pv.shape[0]
        left = cp.full(shape, float(n)) if shape else None
        cols = []
        rem = 1.0
        for j in range(k - 1):
            pj = min(max(pv[j] / rem, 0.0), 1.0) if rem > 0 else 0.0
            if shape:
                x = self._binomial_array_n(left, pj, shape)
                left = left - x
            else:
                x = float(self.binomial(n, pj))
                n -= int(x)
            cols.append(x)
            rem -= pv[j]
        cols.append(left if shape else float(n))
        if not shape:
            return _core.from_any(_np.array(cols, dtype=_np.int64))
        out = cp.empty(shape + (k,), dtype=_np.int64)
        for j, c in enumerate(cols):
            out[..., j] = c
        return out

    def _binomial_array_n(self, nleft, p, shape):
        """Binomial(nleft, p) for a float64 array nleft of integers: one draw with per-element n."""
        return _core.random_p(_BINOMIAL, self._key(), self._stream(), _param(nleft, shape),
                              float(p))

    def multivariate_hypergeometric(self, colors, nsample, size=None, method="marginals"):
        """NumPy's marginals algorithm for either method (the same distribution): color j is
        hypergeometric(colors[j], the colors after it, what is left to sample), element-wise
        draws with a per-element sample count.  Totals of 10**9 or more (beyond the
        hypergeometric kernel's range) take NumPy's Generator on a Philox keyed by (key,
        stream)."""
        col = _np.asarray(_gathered(colors))
        _CHECK.multivariate_hypergeometric(col, nsample, size=1, method=method)
        shape = _size(size)
        total = int(col.sum())
        if total >= 10**9:
            g = _np.random.Generator(_np.random.Philox(key=self._key(),
                                                       counter=[0, 0, 0, self._stream()]))
            return _core.from_any(g.multivariate_hypergeometric(col, nsample, size=shape,
                                                                method=method))
        cp = _cp()
        k = col.shape[0]
        s = (1,) if shape is None else shape
        out = cp.empty(s + (k,), dtype=_np.int64)
        if 0 in s or k == 0:
            return out[0] if shape is None else out
        left, rest = int(nsample), total
        for j in range(k - 1):
            rest -= int(col[j])
            x = self._draw(_HYPERGEOM, s, (int(col[j]), rest, left), to_p=_hypergeom_p)
            out[..., j] = x
            left = left - x
        out[..., k - 1] = left
        return out[0] if shape is None else out


def _binomial_p(n, p):
    """binomial's kernel parameters: n truncated to an integer (NumPy's cast to int64)."""
    return (_cp().trunc(n) if isinstance(n, ndarray) else float(int(n)), p)


def _hypergeom_p(g, b, s):
    """hypergeometric's three integers packed into the kernel's two float64 parameters (op.h):
    p0 = ngood * 2**22 + (nsample >> 9), p1 = nbad * 2**9 + nsample % 2**9, exact below 2**53."""
    if not any(isinstance(v, ndarray) for v in (g, b, s)):
        g, b, s = int(g), int(b), int(s)
        return (float(g * 2**22 + (s >> 9)), float(b * 2**9 + (s & 511)))
    cp = _cp()
    g, b, s = (cp.asarray(v).astype(_np.int64) if isinstance(v, ndarray) else int(v)
               for v in (g, b, s))
    p0 = g * 2**22 + (s >> 9)
    p1 = b * 2**9 + (s & 511)
    return tuple(cp.asarray(v).astype(_np.float64) if isinstance(v, ndarray) else float(v)
                 for v in (p0, p1))


def _check_out(out, dt, shape):
    if not isinstance(out, ndarray):
        raise TypeError("out must be a cupynum array")
    if out.dtype != dt:
        raise TypeError(f"Supplied output array has the wrong type. Expected {dt.name}, got "
                        f"{out.dtype.name}")
    if shape is not None and tuple(shape) != out.shape:
        raise ValueError("size must match out.shape when used together")


class Generator(_Base):
    """numpy.random.Generator's methods over cupynum's counter-based Philox (module docstring):
    values differ from NumPy's streams, distributions agree."""

    def __init__(self, bit_generator=None):
        self._bit_generator = _wrap_bitgen(Philox() if bit_generator is None else bit_generator)

    @property
    def bit_generator(self):
        return self._bit_generator

    def spawn(self, n_children):
        return [Generator(b) for b in self._bit_generator.spawn(n_children)]

    def __repr__(self):
        return f"Generator({self._bit_generator._name}) at 0x{id(self):X}"

    def __reduce__(self):
        return (Generator, (self._bit_generator,))

    def random(self, size=None, dtype=_np.float64, out=None):
        return self._random(size, dtype, out)

    def integers(self, low, high=None, size=None, dtype=_np.int64, endpoint=False):
        return self._integers(low, high, size, dtype, endpoint)

    def standard_normal(self, size=None, dtype=_np.float64, out=None):
        return self._standard_normal(size, dtype, out)

    def standard_exponential(self, size=None, dtype=_np.float64, method="zig", out=None):
        return self._standard_exponential(size, dtype, method, out)

    def standard_gamma(self, shape, size=None, dtype=_np.float64, out=None):
        return self._standard_gamma(shape, size, dtype, out)


def default_rng(seed=None):
    """A Generator over cupynum's Philox, seeded through NumPy's SeedSequence."""
    if isinstance(seed, Generator):
        return seed
    if isinstance(seed, BitGenerator):
        return Generator(seed)
    if isinstance(seed, _np.random.Generator):
        return Generator(_wrap_bitgen(seed.bit_generator))
    return Generator(Philox(seed))


class RandomState(_Base):
    """numpy.random.RandomState's methods over the same kernels: the key is the seed itself (a
    seed below 2**64), draws number their streams from 1.  Values differ from NumPy's Mersenne
    Twister; get_state/set_state round-trip cupynum's (key, stream) state."""

    def __init__(self, seed=None):
        self._bit_generator = BitGenerator.__new__(Philox)
        self._bit_generator.seed_seq = None
        self.seed(seed)

    def seed(self, seed=None):
        if seed is not None and not (isinstance(seed, (int, _np.integer)) and
                                     2**32 <= seed < 2**64):
            _CHECK_LEGACY.seed(_gathered(seed))   # NumPy's errors (a float, an empty or 2-d array)
        if seed is None:
            s = os_seed()
        elif isinstance(seed, (int, _np.integer)):
            s = operator.index(seed)
            if s < 0 or s > 2**64 - 1:
                raise ValueError("Seed must be between 0 and 2**64 - 1")
        else:
            a = _np.asarray(seed)
            if a.dtype.kind not in "iu" or a.ndim != 1:
                raise TypeError("Cannot cast array data from dtype('float64') to "
                                "dtype('int64') according to the rule 'safe'")
            if (a < 0).any() or (a > 2**32 - 1).any():
                raise ValueError("Seed must be between 0 and 2**32 - 1")
            s = int.from_bytes(_np.random.SeedSequence([int(v) for v in a])
                               .generate_state(2, _np.uint32).tobytes(), "little")
        self._bit_generator._key = s
        self._bit_generator._stream = 0

    def get_state(self, legacy=True):
        return self._bit_generator.state

    def set_state(self, state):
        if not isinstance(state, dict):   # NumPy's legacy tuple: its first item names the PRNG
            if state[0] != "MT19937":
                raise ValueError("set_state can only be used with legacy MT19937 state instances.")
            raise ValueError("cupynum's RandomState is a Philox counter state: set_state takes "
                             "the dict get_state returns")
        self._bit_generator.state = state

    def __getstate__(self):
        return self.get_state()

    def __setstate__(self, state):
        self.__init__(0)
        self.set_state(state)

    def __repr__(self):
        return f"RandomState(Philox) at 0x{id(self):X}"

    def random_sample(self, size=None):
        return self._random(size)

    random = random_sample

    def rand(self, *args):
        return self._random(args if args else None)

    def randn(self, *args):
        return self._standard_normal(args if args else None)

    def standard_normal(self, size=None):
        return self._standard_normal(size)

    def standard_exponential(self, size=None):
        return self._standard_exponential(size)

    def standard_gamma(self, shape, size=None):
        return self._standard_gamma(shape, size)

    def tomaxint(self, size=None):
        return self.randint(0, _np.iinfo(_np.int64).max, size=size)

    def randint(self, low, high=None, size=None, dtype=int):
        dt = _np.dtype("int64" if dtype is int else dtype)
        if dt.kind not in "biu":
            raise TypeError(f"Unsupported dtype {dt.name!r} for randint")
        r = self._integers(low, high, size, dt, False, name="randint")
        if _size(size) is None and _is_scalar(low) and _is_scalar(high) and dtype in (int, bool):
            return dtype(r)   # NumPy's: the Python types give Python scalars
        return r

    def random_integers(self, low, high=None, size=None):
        import warnings
        if high is None:
            warnings.warn("This function is deprecated. Please call randint(1, {low} + 1) "
                          "instead".format(low=low), DeprecationWarning, stacklevel=2)
            low, high = 1, low
        else:
            warnings.warn("This function is deprecated. Please call randint({low}, {high} + 1) "
                          "instead".format(low=low, high=high), DeprecationWarning, stacklevel=2)
        return self.randint(low, int(high) + 1 if _is_scalar(high) else _as_array(high) + 1,
                            size=size)

    # legacy spellings that differ from Generator's
    _poisson_lam_max = _np.random.RandomState._poisson_lam_max

    def choice(self, a, size=None, replace=True, p=None):
        if not isinstance(a, ndarray) and _np.ndim(a) == 0:   # NumPy's legacy checks of a, p
            _CHECK_LEGACY.choice(a, None, replace=True, p=None if p is None else _gathered(p))
        elif _np.ndim(a) != 1:
            raise ValueError("a must be 1-dimensional")
        return _Base.choice(self, a, size, replace, p)

    def multinomial(self, n, pvals, size=None):
        _CHECK_LEGACY.multinomial(_gathered(n), _gathered(pvals))   # pvals must be 1-d
        return _Base.multinomial(self, n, pvals, size)

    def permutation(self, x):
        return _Base.permutation(self, x)

    def shuffle(self, x):
        return _Base.shuffle(self, x)

    def multivariate_normal(self, mean, cov, size=None, check_valid="warn", tol=1e-8):
        return _Base.multivariate_normal(self, mean, cov, size, check_valid, tol)

    def bytes(self, length):
        return _Base.bytes(self, length)


# Generator's methods RandomState does not have
for _n in ("permuted", "multivariate_hypergeometric"):
    setattr(Generator, _n, getattr(_Base, _n))
    delattr(_Base, _n)
del _n
