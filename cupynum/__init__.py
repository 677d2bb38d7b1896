"""cupynum: a drop-in replacement for NumPy.

    import cupynum as np

Arrays are views of stores held by a C runtime; operations are queued and executed by C kernels
(threaded with OpenMP) when a value is needed.  Every other public name of NumPy resolves through
the module `__getattr__` below: dtypes, types and constants are NumPy's own objects, functions
fall back to NumPy on gathered data (cupynum/_fallback.py).  See docs/architecture.md."""

import atexit as _atexit
import os as _os

import numpy as _np

# OpenMP threads that spin while waiting steal the core from the thread holding the work when the
# machine is shared (other ranks, other programs): 10x slower under load.  Sleep instead, unless
# the user chose otherwise.  Must be set before the OpenMP runtime loads with _core.
_os.environ.setdefault("OMP_WAIT_POLICY", "PASSIVE")
# OpenBLAS's workers spin for 2^28 cycles (~0.1 s) after each call before they sleep, on the
# cores where cupynum's threads then run the element-wise ops between the products (a small CNN:
# 36% of the run in blas_thread_server, 0.80x NumPy; with 2^4 cycles, 1.02x).  Read once when the
# library loads with _core (NumPy's own OpenBLAS is loaded already and keeps its setting); the
# variable is restored afterwards, so child processes see the user's environment.
_blas_timeout = _os.environ.get("OPENBLAS_THREAD_TIMEOUT")
if _blas_timeout is None:
    _os.environ["OPENBLAS_THREAD_TIMEOUT"] = "4"

try:
    from . import _core  # noqa: E402
except ImportError as _e:
    # Built against the PyPI scipy-openblas32 whose build-time directory (the rpath) is gone, as
    # after `pip install .` in an isolated build environment: load the installed package's
    # library first, so that the loader finds it by its name.
    if "libscipy_openblas" not in str(_e):
        raise
    import ctypes as _ctypes
    import scipy_openblas32 as _sob
    _ctypes.CDLL(_os.path.join(_sob.get_lib_dir(), "libscipy_openblas.so"), mode=_ctypes.RTLD_GLOBAL)
    from . import _core  # noqa: E402
if _blas_timeout is None:
    del _os.environ["OPENBLAS_THREAD_TIMEOUT"]
from ._core import ndarray, runtime_info, runtime_stats, reset_stats, sync
from . import _ndarray
from ._ndarray import flatiter
from ._errstate import errstate, geterr, geterrcall, seterr, seterrcall
from . import _functions
from ._creation import (arange, array, asanyarray, asarray, ascontiguousarray, asfortranarray,
                        copy, empty,
                        empty_like, eye, full, full_like, identity, linspace, ones, ones_like,
                        zeros, zeros_like)
from ._functions import (broadcast_to, dot, matmul, may_share_memory, ndim, ravel, reshape,
                         shape, shares_memory, size, transpose)
from ._products import inner, kron, outer, tensordot, vdot
from ._einsum import einsum, einsum_path, polyfit, roots  # noqa: E402
from ._where import where
from ._selection import argwhere, compress, extract, flatnonzero, nonzero, take
from ._advindex import (choose, ix_, place, put, put_along_axis, putmask, select,
                        take_along_axis)
from ._bincount import bincount
from ._reductions import (all, amax, amin, any, argmax, argmin, average, count_nonzero,
                          cumprod, cumsum, max, mean, min, nanargmax, nanargmin, nancumprod,
                          nancumsum, nanmax, nanmean, nanmin, nanprod, nanstd, nansum, nanvar,
                          prod, ptp, std, sum, var)
from ._quantile import (median, nanmedian, nanpercentile, nanquantile, percentile,
                        quantile)

# Dtypes, scalar types and constants are NumPy's own objects: cupynum.float64 is numpy.float64.
from numpy import (bool_, int8, int16, int32, int64, uint8, uint16, uint32, uint64, float16,
                   float32, float64, complex64, complex128, intp, uintp, byte, ubyte, short, ushort,
                   intc, uintc, int_, uint, longlong, ulonglong, half, single, double, csingle,
                   cdouble, dtype, finfo, iinfo, result_type,
                   promote_types, can_cast, pi, e, inf, nan, newaxis, euler_gamma, generic,
                   number, integer, signedinteger, unsignedinteger, floating, complexfloating,
                   inexact, issubdtype)
from numpy import bool  # noqa: A004  (NumPy 2 exports `bool` as the dtype)

globals().update(_functions.ufuncs)   # every NumPy ufunc name: cupynum.ufunc objects
ufunc = _core.ufunc_type

from . import _fallback  # noqa: E402
from ._fallback import FallbackError, FallbackWarning  # noqa: E402
from . import fft  # noqa: E402
from . import linalg  # noqa: E402
from . import random  # noqa: E402
# cupynum.testing is imported on first use, as NumPy's numpy.testing (module __getattr__): it
# brings unittest, difflib and pprint, a third of the objects the collector would walk.

# NumPy classes whose instances compute on arrays: cupynum proxies (methods take and return
# cupynum arrays); every other NumPy class is NumPy's own (module __getattr__).
vectorize = _fallback.proxy_class(_np.vectorize, "numpy.vectorize")
poly1d = _fallback.proxy_class(_np.poly1d, "numpy.poly1d")

# Floating-point warnings found at a flush are issued at the user's line that submitted the op:
# frames in cupynum's own files are skipped (csrc/module/errstate.c).
_core._set_package_dir(_os.path.join(_os.path.dirname(_os.path.abspath(__file__)), ""))
_ndarray._install_methods()
_functions._register_array_functions(globals())
from . import _views  # noqa: E402
_views.install(ndarray, globals(), _functions._IMPLEMENTED)
from . import _sorting  # noqa: E402
_sorting.install(ndarray, globals(), _functions._IMPLEMENTED)
from . import _joins  # noqa: E402
_joins.install(ndarray, globals(), _functions._IMPLEMENTED)
from . import _helpers  # noqa: E402
_helpers.install(ndarray, globals(), _functions._IMPLEMENTED)
_atexit.register(_core._finalize)


def _install_mpi_excepthook():
    """Under MPI an uncaught exception on one rank would leave the others waiting in a
    collective forever: print the traceback, then abort the whole job.  So does sys.exit with
    a non-zero status (a rank that ends with status 0 tells the others at exit instead, and one
    still waiting for it aborts the job: comm.c)."""
    import sys
    previous = sys.excepthook

    def hook(exc_type, exc, tb):
        previous(exc_type, exc, tb)
        _core._abort(1)
    sys.excepthook = hook
    plain_exit = sys.exit

    def exit(status=None):
        code = status if isinstance(status, int) or status is None else 1
        if code:
            if not isinstance(status, int):
                print(status, file=sys.stderr)
            print(f"cupynum: rank {runtime_info()['rank']} exits with status {code}: "
                  "aborting the job", file=sys.stderr, flush=True)
            _core._abort(code)
        plain_exit(status)
    exit.__doc__ = plain_exit.__doc__
    sys.exit = exit


class _RankPrefixed:
    """A text stream that starts every line written through it with `[rank r] `: stderr of a
    job of several ranks.  Whole lines are written at once (a partial line waits for its end or
    a flush), so that the lines of different ranks interleave but are not cut."""

    def __init__(self, stream, rank):
        self._stream = stream
        self._prefix = f"[rank {rank}] "
        self._pending = ""

    def write(self, text):
        if not text:
            return 0
        lines = (self._pending + text).split("\n")
        self._pending = lines.pop()
        if lines:
            self._stream.write("".join(f"{self._prefix}{line}\n" if line else "\n"
                                       for line in lines))
            self._stream.flush()
        return len(text)

    def writelines(self, lines):
        for line in lines:
            self.write(line)

    def flush(self):
        if self._pending:
            self._stream.write(self._prefix + self._pending)
            self._pending = ""
        self._stream.flush()

    def __getattr__(self, name):
        return getattr(self._stream, name)


def _route_rank_output():
    """Under mpirun a NumPy script prints once: sys.stdout of ranks other than 0 is discarded
    (CUPYNUM_OUTPUT=all keeps every rank's); sys.stderr of every rank is kept, each line
    prefixed with its rank.  Python-level streams only: what C code or a child process writes
    to the file descriptors is left alone."""
    import sys
    mode = _os.environ.get("CUPYNUM_OUTPUT", "rank0")
    if mode not in ("rank0", "all"):
        print(f"cupynum: CUPYNUM_OUTPUT={mode!r} is not 'rank0' or 'all': using 'rank0'",
              file=sys.stderr)
        mode = "rank0"
    rank = runtime_info()["rank"]
    if sys.stderr is not None:
        sys.stderr = _RankPrefixed(sys.stderr, rank)
    if mode == "rank0" and rank != 0 and sys.stdout is not None:
        sys.stdout.flush()
        sys.stdout = open(_os.devnull, "w")


if runtime_info()["ranks"] > 1:
    _install_mpi_excepthook()
    _route_rank_output()



def _measure_temporaries():
    """How many references a temporary argument (`np.sum(x * x)`) has when sum, prod, max and min
    reach their C reduction: measured once, through the public functions, as user code calls
    them (csrc/module/fastpath.c says why and what is done with it).  Kept only where it is the
    known least count, 2 on CPython 3.11-3.13 (sum's local and the call's stack slot): a tracer
    or a frame-evaluation hook active at import adds references that later calls lack, and on
    3.10 a C caller passing a borrowed item (list.sort's key) looks like a temporary."""
    import sys
    g = globals()
    trusted = sys.implementation.name == "cpython" and (3, 11) <= sys.version_info[:2] <= (3, 13)
    if not trusted:
        return
    for fname, op in (("sum", "add"), ("prod", "multiply"), ("max", "maximum"), ("min", "minimum")):
        _core._temp_probe(op)
        try:
            g[fname](zeros(1) + 0.0)
        finally:
            _core._temp_probe(None)


_measure_temporaries()

__version__ = "0.1.0"


def __getattr__(name):
    """NumPy's `name`: its own object for dtypes, types and constants, a fallback otherwise."""
    if name == "testing":
        import importlib
        return importlib.import_module("cupynum.testing")
    return _fallback.module_getattr(globals(), _np, "numpy", name)


def __dir__():
    return _fallback.module_dir(globals(), _np)
