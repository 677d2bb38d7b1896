"""_fallback.py: whatever cupynum does not implement natively runs in NumPy.

A name of `numpy`, `numpy.linalg`, `numpy.fft`, `numpy.random` or `numpy.ndarray` that cupynum
lacks resolves (module `__getattr__`; methods and properties installed on the ndarray type for
every public name of numpy.ndarray it lacks; `__array_function__`; `__array_ufunc__`) to a
wrapper that

1. gathers every cupynum array among the arguments (also inside lists, tuples, named tuples and
   dicts) into a NumPy copy with `_core.to_numpy` -- the same object gathered once per call, so
   NumPy sees the aliasing the caller wrote;
2. runs the NumPy function on every rank (the program is replicated, so every rank computes the
   same result);
3. writes back into the caller's cupynum arrays what NumPy wrote into their copies (`copyto`,
   `put`, `ndarray.sort`, `random.shuffle`, `out=`...), with `_core.assign`;
4. turns NumPy arrays in the result (also inside tuples, named tuples, lists) into cupynum arrays
   with `_core.from_any` (which places them: replicated, or partitioned when large); a result that
   *is* the copy of an argument comes back as that argument, as NumPy returns `out`.

Write-back detection: copies are handed to NumPy read-only.  A function that writes into one
raises NumPy's "read-only" ValueError before writing anything, and is run again on writable
copies (and remembered as in-place); the known in-place functions (and any call with `out=`) go
straight to writable copies.  After an in-place call only the copies whose bytes changed are
written back, so an unchanged source that overlaps the destination does not undo the write.

Warnings: the first call of each fallen-back function in a process warns with FallbackWarning
naming it; CUPYNUM_FALLBACK (read at each call) is `warn` (default), `silent`, or `error` (raise
FallbackError instead of running NumPy).  Calls made from inside the cupynum package are
internal machinery and never warn: a caller is internal when its frame's module is cupynum or
cupynum.*.  Native functions that hand some argument combinations to NumPy (advanced indexing,
`where=`, mixed-dtype loops) are native functions with NumPy's help and do not warn either.

Collective: every wrapper gathers every cupynum operand (`_core.to_numpy` will be a collective
once arrays are partitioned) on every rank in the same order.  Writing a file by name (`save`,
`savez`, `savetxt`, `ndarray.tofile`, `ndarray.dump`) happens on rank 0 only, followed by a
barrier, so ranks never race on one file."""

import inspect
import functools
import os
import sys
import warnings

import numpy as _np

from . import _core

ndarray = _core.ndarray


class FallbackWarning(RuntimeWarning):
    """A NumPy function or method that cupynum lacks ran in NumPy on gathered data."""


class FallbackError(NotImplementedError):
    """Raised instead of falling back to NumPy when CUPYNUM_FALLBACK=error."""


# ---- policy and the warn-once registry -----------------------------------------------------------

POLICIES = ("silent", "warn", "error")
_warned = set()


def policy():
    """The CUPYNUM_FALLBACK setting now: 'silent', 'warn' (default) or 'error'.  Local."""
    p = os.environ.get("CUPYNUM_FALLBACK", "").strip().lower() or "warn"
    if p not in POLICIES:
        raise ValueError(f"CUPYNUM_FALLBACK must be one of {', '.join(POLICIES)} (got {p!r})")
    return p


def reset_warnings():
    """Forget which functions have warned (tests use it for a fresh registry).  Local."""
    _warned.clear()


def _internal(frame):
    name = frame.f_globals.get("__name__", "") if frame is not None else ""
    return name == "cupynum" or name.startswith("cupynum.")


def public_name(qualname):
    """numpy.linalg.svd -> cupynum.linalg.svd: the name the user called."""
    return "cupynum" + qualname[len("numpy"):] if qualname.startswith("numpy") else qualname


def note(qualname, depth=1):
    """Record that `qualname` (NumPy's name) is about to fall back.

    `depth` counts the frames between note and the user's: 1 when the function calling note was
    called by the user.  Warns the first time per process, raises FallbackError under
    CUPYNUM_FALLBACK=error, says nothing when the caller is cupynum itself.  Local."""
    try:
        frame = sys._getframe(depth + 1)
    except ValueError:
        frame = None
    if _internal(frame):
        return
    p = policy()
    if p == "silent":
        return
    if p == "error":
        raise FallbackError(f"{public_name(qualname)} is not implemented natively by cupynum, and "
                            f"CUPYNUM_FALLBACK=error forbids running {qualname} instead")
    if qualname in _warned:
        return
    warnings.warn(f"{public_name(qualname)} is not implemented natively: {qualname} runs on "
                  f"gathered data (warned once; CUPYNUM_FALLBACK=silent|warn|error)",
                  FallbackWarning, stacklevel=depth + 2)
    _warned.add(qualname)   # after: under `-W error` every call raises, as warnings-as-errors do


# ---- what is special --------------------------------------------------------------------------------

# Functions that write into their array arguments: they get writable copies at once.  Others are
# found out by the read-only probe (and added to _learned_inplace).
INPLACE = frozenset("""
numpy.copyto numpy.put numpy.place numpy.putmask numpy.fill_diagonal numpy.put_along_axis
numpy.random.shuffle numpy.random.Generator.shuffle numpy.random.Generator.permuted
numpy.random.RandomState.shuffle
numpy.ndarray.sort numpy.ndarray.partition numpy.ndarray.put numpy.ndarray.setfield
numpy.ndarray.byteswap
""".split())
_learned_inplace = set()

# Functions that write a file: (position, keyword) of the file argument (self is position 0 of
# a method).  Given a name, rank 0 alone writes it.
WRITERS = {
    "numpy.save": (0, "file"),
    "numpy.savez": (0, "file"),
    "numpy.savez_compressed": (0, "file"),
    "numpy.savetxt": (0, "fname"),
    "numpy.ndarray.tofile": (1, "fid"),
    "numpy.ndarray.dump": (1, "file"),
}

# Where NumPy returns a view and the fallback a copy (writes through the result are not seen by
# the operand).  Documentation only: the coverage table notes them.  (Where NumPy returns its
# argument itself -- atleast_1d of a vector, require, ndarray.conj of reals -- the fallback
# returns the cupynum argument itself too.)
# (squeeze, flip, diagonal, the splits... are native views: cupynum/_views.py.)
VIEW_COPIES = frozenset("""
numpy.asmatrix
""".split())


def _is_inplace(qualname):
    return qualname in INPLACE or qualname in _learned_inplace or qualname.endswith(".at")


def _has_out(kwargs):
    out = kwargs.get("out")
    if isinstance(out, tuple):
        return any(isinstance(o, ndarray) for o in out)
    return isinstance(out, ndarray)


# ---- gathering and wrapping ---------------------------------------------------------------------------

# Values gather passes through untouched (the common keys and keywords), checked first.
_ATOMS = frozenset({int, float, bool, complex, str, bytes, type(None), slice, type(Ellipsis)})


class _Gather:
    """One call's NumPy copies of its cupynum operands, for write-back and identity."""

    __slots__ = ("writable", "copies", "by_copy")

    def __init__(self, writable):
        self.writable = writable
        self.copies = {}    # id(cupynum array) -> (array, NumPy copy, bytes before the call)
        self.by_copy = {}   # id(NumPy copy) -> cupynum array

    def array(self, a):
        c = self.copies.get(id(a))
        if c is not None:
            return c[1]
        n = _to_numpy(a)
        snap = None
        if self.writable:
            snap = n.tobytes()
        else:
            n.flags.writeable = False
        self.copies[id(a)] = (a, n, snap)
        self.by_copy[id(n)] = a
        return n

    def tree(self, obj):
        if isinstance(obj, ndarray):
            return self.array(obj)
        if isinstance(obj, _Proxy):
            return object.__getattribute__(obj, "_cpn_inner")
        t = type(obj)
        if t is list:
            return self._seq(obj, list)
        if isinstance(obj, tuple):
            if hasattr(obj, "_fields"):
                new = [self.tree(o) for o in obj]
                return obj if all(n is o for n, o in zip(new, obj)) else t(*new)
            return self._seq(obj, tuple)
        if t is dict:
            new = {k: self.tree(v) for k, v in obj.items()}
            return obj if all(new[k] is v for k, v in obj.items()) else new
        return obj

    def _seq(self, obj, kind):
        new = [self.tree(o) for o in obj]
        return obj if all(n is o for n, o in zip(new, obj)) else kind(new)

    def write_back(self):
        for a, n, snap in self.copies.values():
            if n.tobytes() != snap:
                _core.assign(a, n)

    def wrap(self, r):
        if isinstance(r, _np.ndarray):
            a = self.by_copy.get(id(r))
            if a is not None:
                return a
        return wrap(r)


def wrap(r):
    """NumPy results -> cupynum: plain arrays (and memmaps) of the dtypes cupynum holds become
    cupynum arrays, also inside tuples, named tuples and lists; NumPy generators and the other
    proxied classes become their cupynum proxies; anything else (scalars, dtypes, strings,
    matrices, record arrays, object arrays) passes through.  Local."""
    t = type(r)
    if t is _np.ndarray or isinstance(r, _np.memmap):
        if r.dtype.kind in "biufc" and r.dtype.char not in "gG":
            if r.ndim > 1 and r.flags.f_contiguous and not r.flags.c_contiguous:
                # NumPy's result is in Fortran order: the same layout (a transposed view of a
                # C-ordered store), so flags and order='K'/'A' copies say what NumPy's would
                return _core.transpose(_core.from_any(r.T), tuple(range(r.ndim))[::-1])
            return _core.from_any(r)
        return r
    if t is list:
        return [wrap(o) for o in r]
    if isinstance(r, tuple):
        new = [wrap(o) for o in r]
        return t(*new) if hasattr(r, "_fields") else tuple(new)
    p = _PROXY_OF.get(t)
    if p is not None:
        return p._adopt(r)
    return r


def _tree(obj, copies):
    """gather's walk: new containers, each cupynum array copied once (copies: id -> copy)."""
    t = type(obj)
    if t in _ATOMS:
        return obj
    if t is ndarray or isinstance(obj, ndarray):
        n = copies.get(id(obj))
        if n is None:
            n = copies[id(obj)] = _to_numpy(obj)
        return n
    if t is list:
        return [_tree(o, copies) for o in obj]
    if t is tuple:
        return tuple([_tree(o, copies) for o in obj])
    if isinstance(obj, tuple):
        new = [_tree(o, copies) for o in obj]
        return t(*new) if hasattr(obj, "_fields") else tuple(new)
    if isinstance(obj, dict):
        return {k: _tree(v, copies) for k, v in obj.items()}
    if isinstance(obj, _Proxy):
        return object.__getattribute__(obj, "_cpn_inner")
    return obj


def _f_ordered(shape, strides):
    """Do byte strides walk `shape` in Fortran order and not in C order (size-1 dimensions
    ignored, as NumPy's flags)?"""
    dims = [(n, s) for n, s in zip(shape, strides) if n != 1]
    if len(dims) < 2:
        return False
    return all(abs(s) > 0 for _, s in dims) and all(
        dims[i + 1][1] == dims[i][1] * dims[i][0] for i in range(len(dims) - 1))


def _to_numpy(a):
    """The NumPy copy of cupynum array `a`, in Fortran order where `a` is laid out so (a
    transposed view), as NumPy's own functions see their operand's order (order-preserving
    results: delete, copy(order='K'), ufuncs)."""
    if a.ndim > 1 and 0 not in a.shape and _f_ordered(a.shape, _core.layout(a)):
        return _core.to_numpy(_core.transpose(a, tuple(range(a.ndim))[::-1])).T
    return _core.to_numpy(a)


def gather(obj):
    """`obj` with every cupynum array in it (also inside lists, tuples, dicts) replaced by a NumPy
    copy.  Collective (see the file header)."""
    return _tree(obj, {})


def _foreign(x):
    """Is x a NumPy array cupynum cannot hold as it is: a subclass (masked arrays, matrices keep
    their type in NumPy's functions) or a dtype cupynum lacks (long double, objects, strings)?"""
    return isinstance(x, _np.ndarray) and (type(x) is not _np.ndarray or x.dtype.kind not in "biufc"
                                          or x.dtype.char in "gG")


_MAYBE_FOREIGN = (_np.ndarray, list, tuple)


def numpy_for_foreign(npfunc):
    """Decorator of a native function: called with a foreign NumPy array (`_foreign`, also one
    level inside a list or tuple argument), NumPy's `npfunc` computes instead, as the fallback
    would, so subclasses and dtypes cupynum lacks give NumPy's results.  Local."""
    def deco(f):
        @functools.wraps(f)
        def wrapper(*args, **kwargs):
            # One isinstance per argument on the common path (cupynum arrays, scalars): a product
            # in a Python loop pays this on every call (issue #21).
            for x in (*args, *kwargs.values()) if kwargs else args:
                t = type(x)
                if t is ndarray or t is int or t is float or x is None:
                    continue
                if isinstance(x, _MAYBE_FOREIGN):
                    if _foreign(x):
                        return compute(npfunc, args, kwargs)
                    if isinstance(x, (list, tuple)):
                        for y in x:   # (a loop: a generator cost as much as the rest)
                            if isinstance(y, _np.ndarray) and _foreign(y):
                                return compute(npfunc, args, kwargs)
            return f(*args, **kwargs)
        return wrapper
    return deco


def compute(func, args, kwargs=None, write=()):
    """Gather, let NumPy compute, write back: the one way cupynum/ has NumPy compute on its
    arrays.  Every cupynum array among `args` and `kwargs` is gathered once into a NumPy copy,
    `func(*args, **kwargs)` runs on the copies, the copies of the cupynum arrays in `write` (what
    `func` writes: an out=, the array an in-place function updates) are written back into them,
    and the result is wrapped (`wrap`).  Does not warn.  Collective (see the file header).
    (`call`, the wrappers' path, gathers through _Gather instead: it also keeps containers that
    hold no cupynum array as they are, guards read-only copies and learns in-place functions.)"""
    copies = {}
    r = func(*[_tree(x, copies) for x in args],
             **({k: _tree(v, copies) for k, v in kwargs.items()} if kwargs else {}))
    for a in write:
        n = copies.get(id(a))
        _core.assign(a, _core.to_numpy(a) if n is None else n)
    return None if r is None else wrap(r)


def _file_named(qualname, args, kwargs):
    pos, kw = WRITERS[qualname]
    f = args[pos] if len(args) > pos else kwargs.get(kw)
    return isinstance(f, (str, bytes, os.PathLike))


def call(qualname, func, args, kwargs):
    """Run NumPy's `func(*args, **kwargs)` on gathered operands: write back what it wrote, wrap
    what it returns.  Does not warn (the caller noted).  Collective (see the file header)."""
    inplace = _is_inplace(qualname) or _has_out(kwargs)
    g = _Gather(inplace)
    nargs = g.tree(args)
    nkwargs = g.tree(kwargs)
    if qualname in WRITERS and _core.runtime_info()["ranks"] > 1 and \
            _file_named(qualname, nargs, nkwargs):
        try:
            if _core.runtime_info()["rank"] == 0:
                func(*nargs, **nkwargs)
        finally:
            _core.barrier()
        return None
    try:
        r = func(*nargs, **nkwargs)
    except (ValueError, TypeError) as e:
        if inplace or not g.copies or "read-only" not in str(e):
            raise
        # NumPy refused to write into a read-only copy: an in-place function.  Nothing was
        # written yet; run it again on writable copies and remember.
        _learned_inplace.add(qualname)
        return call(qualname, func, args, kwargs)
    if inplace:
        g.write_back()
    return g.wrap(r)


# ---- wrappers ------------------------------------------------------------------------------------------

def function(qualname, target, name=None):
    """A cupynum function standing for NumPy's `target` (called as target(*args)).  Local."""

    def wrapper(*args, **kwargs):
        note(qualname, 1)
        return call(qualname, target, args, kwargs)

    _describe(wrapper, target, qualname, name)
    return wrapper


def _describe(wrapper, target, qualname, name=None):
    name = name or qualname.rsplit(".", 1)[-1]
    wrapper.__name__ = name
    wrapper.__qualname__ = name
    wrapper.__module__ = public_name(qualname.rsplit(".", 1)[0])
    wrapper.__doc__ = getattr(target, "__doc__", None)
    wrapper.__wrapped__ = target
    wrapper.__cupynum_fallback__ = qualname


class FallbackUfunc:
    """A NumPy ufunc that cupynum lacks: calls and the ufunc methods run in NumPy; attributes
    (nin, nout, identity, types...) are the NumPy ufunc's."""

    __cupynum_fallback__ = True

    def __init__(self, ufunc, qualname):
        self._ufunc = ufunc
        self._qualname = qualname
        self.__name__ = ufunc.__name__
        self.__doc__ = ufunc.__doc__
        self.__wrapped__ = ufunc

    def __call__(self, *args, **kwargs):
        note(self._qualname, 1)
        return call(self._qualname, self._ufunc, args, kwargs)

    def _method(self, method, args, kwargs):
        q = f"{self._qualname}.{method}"
        note(q, 2)
        return call(q, getattr(self._ufunc, method), args, kwargs)

    def reduce(self, *args, **kwargs):
        return self._method("reduce", args, kwargs)

    def accumulate(self, *args, **kwargs):
        return self._method("accumulate", args, kwargs)

    def reduceat(self, *args, **kwargs):
        return self._method("reduceat", args, kwargs)

    def outer(self, *args, **kwargs):
        return self._method("outer", args, kwargs)

    def at(self, *args, **kwargs):
        return self._method("at", args, kwargs)

    def __getattr__(self, name):
        if name.startswith("__"):
            raise AttributeError(name)
        return getattr(self._ufunc, name)

    def __repr__(self):
        return f"<cupynum fallback ufunc {self.__name__!r}>"


class _Indexer:
    """np.r_, np.c_, np.mgrid, np.ogrid: indexing runs in NumPy, arrays come back cupynum."""

    __cupynum_fallback__ = True

    def __init__(self, obj, qualname):
        self._obj = obj
        self._qualname = qualname

    def __getitem__(self, key):
        note(self._qualname, 1)
        return call(self._qualname, self._obj.__getitem__, (key,), {})

    def __len__(self):
        return len(self._obj)

    def __repr__(self):
        return f"<cupynum fallback {self._qualname}>"


# ---- proxies for NumPy objects whose methods take and return arrays ----------------------------------

_PROXY_OF = {}   # NumPy class -> proxy class
_FORWARDED = ("__call__", "__len__", "__iter__", "__getitem__", "__setitem__", "__contains__",
              "__add__", "__radd__", "__sub__", "__rsub__", "__mul__", "__rmul__", "__truediv__",
              "__rtruediv__", "__pow__", "__neg__", "__pos__", "__eq__", "__ne__")


class _Proxy:
    """A NumPy object (a Generator, a RandomState, a poly1d, a vectorize) whose methods take
    cupynum arrays and return them.  Constructing one falls back like a function (it warns once
    for the class); each method warns once for itself; dunders count as the class."""

    __slots__ = ("_cpn_inner",)
    __cupynum_fallback__ = True
    _np_class = None
    _qualname = None

    def __new__(cls, *args, **kwargs):
        note(cls._qualname, 1)
        return call(cls._qualname, cls._np_class, args, kwargs)

    def __init__(self, *args, **kwargs):
        pass

    @classmethod
    def _adopt(cls, inner):
        obj = object.__new__(cls)
        object.__setattr__(obj, "_cpn_inner", inner)
        return obj

    def __getattr__(self, name):
        inner = object.__getattribute__(self, "_cpn_inner")
        attr = getattr(inner, name)
        if name.startswith("_") or not callable(attr) or isinstance(attr, type):
            return wrap(attr)
        q = f"{type(self)._qualname}.{name}"

        def method(*args, **kwargs):
            note(q, 1)
            return call(q, attr, args, kwargs)

        _describe(method, attr, q, name)
        return method

    def __setattr__(self, name, value):
        setattr(object.__getattribute__(self, "_cpn_inner"), name, _Gather(True).tree(value))

    def __dir__(self):
        return dir(object.__getattribute__(self, "_cpn_inner"))

    def __repr__(self):
        return repr(object.__getattribute__(self, "_cpn_inner"))

    def __str__(self):
        return str(object.__getattribute__(self, "_cpn_inner"))

    def __array__(self, dtype=None, copy=None):
        return _np.asarray(object.__getattribute__(self, "_cpn_inner"), dtype=dtype)

    def __reduce__(self):
        return (_readopt, (object.__getattribute__(self, "_cpn_inner"),))


def _readopt(inner):
    return _PROXY_OF[type(inner)]._adopt(inner)


def _forwarder(dunder):
    def f(self, *args, **kwargs):
        cls = type(self)
        inner = object.__getattribute__(self, "_cpn_inner")
        note(cls._qualname, 1)
        return call(cls._qualname, getattr(inner, dunder), args, kwargs)
    f.__name__ = dunder
    return f


def proxy_class(np_class, qualname):
    """The cupynum class standing for NumPy's `np_class`: instances wrap NumPy instances.  Local."""
    if np_class in _PROXY_OF:
        return _PROXY_OF[np_class]
    ns = {"__slots__": (), "_np_class": np_class, "_qualname": qualname,
          "__doc__": np_class.__doc__, "__module__": public_name(qualname.rsplit(".", 1)[0])}
    for d in _FORWARDED:
        own = getattr(np_class, d, None)
        if own is not None and own is not getattr(object, d, None):
            ns[d] = _forwarder(d)
    cls = type(np_class.__name__, (_Proxy,), ns)
    cls.__qualname__ = np_class.__name__
    _PROXY_OF[np_class] = cls
    return cls


# ---- module namespaces --------------------------------------------------------------------------------

# Configuration, dtype introspection and formatting: NumPy's own function is the right one (no
# array data involved), so these are provided directly, as dtypes and constants are.
DIRECT = frozenset("""
seterr geterr seterrcall geterrcall errstate set_printoptions get_printoptions printoptions
setbufsize getbufsize show_config show_runtime get_include info typename mintypecode isdtype
issubdtype result_type promote_types can_cast min_scalar_type format_float_positional
format_float_scientific base_repr binary_repr broadcast_shapes datetime_data isscalar iterable
common_type test
""".split())

PROXIED = {"vectorize", "poly1d", "random.Generator", "random.RandomState"}
_INDEXERS = {"r_", "c_", "mgrid", "ogrid"}


def resolve(npobj, qualname):
    """What cupynum provides for NumPy's object `npobj` called `qualname`.  Local."""
    import types
    short = qualname[len("numpy."):]
    if isinstance(npobj, types.ModuleType):
        return npobj
    if short in PROXIED:
        return proxy_class(npobj, qualname)
    if isinstance(npobj, type) or ("." not in short and short in DIRECT):
        return npobj
    if isinstance(npobj, _np.ufunc):
        return FallbackUfunc(npobj, qualname)
    if callable(npobj):
        return function(qualname, npobj)
    if short in _INDEXERS:
        return _Indexer(npobj, qualname)
    return npobj


def module_getattr(namespace, npmodule, prefix, name):
    """A module `__getattr__`: NumPy's `name` resolved, cached in `namespace`.  Local."""
    if name.startswith("_"):
        if name == "__all__":
            return sorted({n for n in getattr(npmodule, "__all__", ()) if not n.startswith("_")} |
                          {n for n in namespace if not n.startswith("_")})
        raise AttributeError(f"module {namespace['__name__']!r} has no attribute {name!r}")
    try:
        npobj = getattr(npmodule, name)
    except AttributeError:
        raise AttributeError(f"module {namespace['__name__']!r} has no attribute {name!r}") from None
    obj = resolve(npobj, f"{prefix}.{name}")
    namespace[name] = obj
    return obj


def module_dir(namespace, npmodule):
    return sorted(set(namespace) | {n for n in dir(npmodule) if not n.startswith("_")})


def is_fallback(obj):
    """Is `obj` one of the wrappers above (rather than native code or NumPy's own object)?"""
    try:
        return bool(inspect.getattr_static(obj, "__cupynum_fallback__", False))
    except Exception:
        return False


# ---- __array_function__ / __array_ufunc__ -------------------------------------------------------------

def numpy_qualname(func):
    mod = getattr(func, "__module__", None) or "numpy"
    return f"{mod}.{getattr(func, '__name__', repr(func))}"


def array_function(func, args, kwargs, depth=1):
    """`numpy.<func>(cupynum array)` for a function cupynum lacks.  Collective."""
    q = numpy_qualname(func)
    note(q, depth + 1)
    return call(q, func, args, kwargs)



# ---- ndarray methods and attributes -------------------------------------------------------------------

_ndarray_kinds = {}


def ndarray_kind(name):
    """'method' or 'attribute' for a public name of numpy.ndarray, None for others.  Local."""
    if not _ndarray_kinds:
        for n in dir(_np.ndarray):
            if not n.startswith("_"):
                static = inspect.getattr_static(_np.ndarray, n)
                _ndarray_kinds[n] = "method" if inspect.isroutine(static) else "attribute"
    return _ndarray_kinds.get(name)


class _FallbackProperty(property):
    """An attribute of numpy.ndarray that cupynum lacks: read off a gathered copy."""
    __cupynum_fallback__ = True


def _ndarray_method(name):
    q = "numpy.ndarray." + name
    target = getattr(_np.ndarray, name)

    def method(self, *args, **kwargs):
        note(q, 1)
        return call(q, target, (self,) + args, kwargs)

    _describe(method, target, q, name)
    method.__qualname__ = "ndarray." + name
    method.__module__ = "cupynum"
    return method


def _ndarray_attribute(name):
    q = "numpy.ndarray." + name

    def get(self):
        note(q, 1)
        return wrap(getattr(_core.to_numpy(self), name))

    return _FallbackProperty(get, doc=getattr(_np.ndarray, name).__doc__)


def install_ndarray_fallbacks(cls):
    """Give the ndarray type every public method and attribute of numpy.ndarray it lacks, as a
    fallback: methods run on a gathered copy (in-place ones write back), attributes are read off
    one.  Called once, after the native methods are installed.  Private and dunder names of
    numpy.ndarray (__array_interface__, __dlpack__...) are not installed: NumPy must never read a
    temporary copy's memory as if it were the array's."""
    for name in dir(_np.ndarray):
        kind = ndarray_kind(name)
        if kind is None or inspect.getattr_static(cls, name, None) is not None:
            continue
        setattr(cls, name, _ndarray_method(name) if kind == "method" else _ndarray_attribute(name))

