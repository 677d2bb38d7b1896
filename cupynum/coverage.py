"""cupynum.coverage: the API coverage table, docs/api-coverage.md.

    python -m cupynum.coverage              # (re)write docs/api-coverage.md (relative to the cwd)
    python -m cupynum.coverage --check      # exit 1 when the committed table is not current
    python -m cupynum.coverage --stdout     # print it

One row per public callable of numpy, numpy.linalg, numpy.fft and numpy.random (with the methods
of Generator and RandomState) and per public name of numpy.ndarray, enumerated from the installed
NumPy, saying whether cupynum implements it natively, falls back to NumPy, or provides NumPy's own
object (types, dtypes, configuration).  The status is read off the objects cupynum provides (a
fallback wrapper carries `__cupynum_fallback__`), never from a hand list.

DISTRIBUTED and CUDA_KERNEL below are the one place that says which native functions run
partitioned over MPI ranks and which have a CUDA kernel that runs; an issue that makes one true
adds its NumPy name here and regenerates the table.  CUDA_KERNEL is empty: the CUDA backend
(cuda/) generates and compiles device kernels, but none has yet run on a GPU (benchmarks/gpu_check.sh
is the check that would mark them).

The table depends on the NumPy version (its names); `--check` compares against a table generated
for the same NumPy major.minor and only notes a different one."""

import argparse
import inspect
import os
import sys
import types

import numpy as np

import cupynum
from cupynum import _core, _fallback
from cupynum import _ufunc as _ufunc_mod

# Native functions (NumPy names, e.g. "numpy.add", "numpy.ndarray.sum") that run partitioned.
_RANDOM_DRAWS = (
    "beta binomial chisquare exponential f gamma geometric gumbel hypergeometric integers "
    "laplace logistic lognormal logseries negative_binomial noncentral_chisquare noncentral_f "
    "normal pareto poisson power rand randint randn random random_integers random_sample ranf "
    "rayleigh sample standard_cauchy standard_exponential standard_gamma standard_normal "
    "standard_t tomaxint triangular uniform vonmises wald weibull zipf dirichlet "
    "multivariate_normal").split()
_JOINS = ("concatenate concat stack vstack row_stack hstack dstack column_stack block append "
          "repeat tile roll copyto require trim_zeros resize pad insert delete r_ c_").split()
DISTRIBUTED = frozenset(
    # element-wise ufuncs: every op of the table (csrc/base/ops.def) and its aliases runs
    # owner-computes over tiles, halos exchanged -- except the two-output ops, which are computed
    # on gathered copies under MPI (see the note below)
    ["numpy." + n for n in cupynum._core.op_names() if n not in ("divmod", "modf", "frexp", "where")]
    + ["numpy." + n for n in (
        # reductions: local reduce, then every rank combines the partials; the statistics are
        # element-wise ops and such reductions (where= masks through the select op)
        "all amax amin any average count_nonzero max mean min nanmax nanmean nanmin nanprod "
        "nanstd nansum nanvar prod ptp std sum var "
        # argmax/argmin of a partitioned array: the extreme, then the least index holding it
        "argmax argmin nanargmax nanargmin "
        # creation: each rank fills or keeps its own tiles
        "arange array asanyarray asarray ascontiguousarray copy empty empty_like full full_like "
        "linspace ones ones_like zeros zeros_like "
        # views of distributed arrays (cupynum/_views.py; diagonal is a view through the flat
        # alias, see below)
        "broadcast_to transpose squeeze expand_dims atleast_1d atleast_2d atleast_3d "
        "broadcast_arrays swapaxes moveaxis rollaxis permute_dims matrix_transpose flip fliplr "
        "flipud rot90 array_split split hsplit vsplit dsplit unstack real imag "
        # the select op, owner-computes like the element-wise ops, and its chains
        "where select choose putmask "
        # compaction: each rank compacts its tile, counts shared, parts sent to the result's
        # owners (dist.c exec_select: arrays split along their first dimension; a replicated
        # mask selects on the array's own parts); the n-d selections through the indices of
        # the selected elements, each served by its owner (tests/test_indexing_adv.py bounds
        # the bytes of each by the selection)
        "nonzero argwhere flatnonzero extract compress place "
        # integer indices: gathers and scatters routed to the owners of the rows or elements
        # (take's clip/wrap modes map the indices element-wise first); ix_ builds index arrays
        "take put take_along_axis put_along_axis ix_ "
        # sorting: a sample sort along the partitioned axis of a 1-D array, each rank's own
        # lanes along an axis no tile splits (csrc/runtime/samplesort.c), after a copy into
        # slabs along another dimension when one does
        "sort argsort sort_complex partition argpartition "
        # searchsorted: each rank searches its tile of the sorted array (positions added) or
        # its own values (the small array read everywhere); isin on them and the sample sort
        "searchsorted isin "
        # unique's values and counts: the sample sort, then runs per tile joined at the rank
        # boundaries; indices and the inverse: the stable argsort too, each run's first index
        # from the rank it starts on, each element's run sent to its owner; union1d is unique
        # of a join, the other set functions unique, sorts, run masks, each rank's compaction
        # and routed searches and gathers (tests/test_sets.py bounds their bytes)
        "unique unique_values unique_counts unique_inverse unique_all union1d intersect1d "
        "setdiff1d setxor1d "
        # lexsort of 1-D keys: a stable sample-sort argsort per key and routed gathers through
        # the order; of n-d keys: each rank's own lanes (keys copied into slabs along another
        # dimension first when a tile cuts the axis); digitize: searchsorted of each rank's own
        # values in the bins read everywhere
        "lexsort digitize "
        # counts of each rank's tile, partial counts added (unweighted); histogram2d/dd bin by
        # searchsorted on the edges, then count the same way
        "histogram histogram2d histogramdd "
        # bincount: each rank counts its range (weighted: chunks cut by a rank boundary
        # continued from the previous rank's running sums: one process's bits), counts added
        "bincount "
        # edges from the native min/max, or NumPy's estimators over the distributed statistics
        "histogram_bin_edges "
        # native means and products: variables cut along their observations multiply as each
        # rank's partial product, gathered and added (summa.c's inner path); others by SUMMA
        "cov corrcoef "
        # order statistics of a whole partitioned array: each rank sorts its own values, the
        # positions found by bisection over the order keys with counts added (distselect.c);
        # along some axes each rank's own lanes (copied into slabs when a tile cuts a lane)
        "median nanmedian percentile nanpercentile quantile nanquantile "
        # element-wise helpers and masks: compositions of the ops above (cupynum/_helpers.py,
        # _construct.py)
        "clip round around fix isclose nan_to_num angle sinc i0 isposinf isneginf iscomplex "
        "isreal real_if_close tri tril triu "
        # trace: each rank sums the diagonal's elements in its tile, partials combined (a 1-D
        # diagonal; an n-d array's diagonal is copied out slice by slice, each slice moving to
        # its new owner, then reduced); packbits/unpackbits: 8 strided
        # element-wise ops (axis=None of an n-d array: through its ravel); mgrid/ogrid:
        # aranges broadcast into each rank's tile
        "trace packbits unpackbits mgrid ogrid astype "
        # reshapes merging dimensions: through the flat alias, tiled as the root's row slabs,
        # else read from a flat copy whose ranges each rank receives once (dist.c)
        "ravel reshape "
        # issue 20's helpers (tests/test_helpers_distributed.py bounds each one's bytes per rank):
        # metadata only, no array data touched
        "asfortranarray shares_memory may_share_memory iscomplexobj isrealobj "
        # construction: element-wise over broadcast aranges, a vector's pieces to its rows' owners
        # (diagflat), compaction of a generated mask (the index sets), aranges (diag_indices)
        "diagflat indices meshgrid fromfunction vander geomspace logspace identity eye "
        "tril_indices triu_indices tril_indices_from triu_indices_from mask_indices diag_indices "
        "diag_indices_from ravel_multi_index unravel_index bartlett blackman hamming hanning "
        "kaiser "
        # fill_diagonal: through the flat alias of row slabs; a scalar on a grid-tiled matrix as
        # a where over a mask laid out like it; an array of values there computed where the
        # values lie, each element sent to its owner (csrc/runtime/flatroute.c); diagonal/diag
        # of a 2-d array: a view, read by moving only its elements (flatroute.c on a grid)
        "fill_diagonal diagonal diag "
        # element-wise and reductions to one flag
        "allclose array_equal array_equiv asarray_chkfinite "
        # differences of slices (a halo per boundary), shifted-slice sums (convolve), and scans:
        # a pipeline along the axis, one slice per rank (csrc/runtime/distscan.c)
        "diff ediff1d gradient convolve correlate cross trapezoid unwrap cumulative_sum "
        "cumulative_prod cumsum cumprod "
        # interp: searchsorted routed to xp's tiles, four routed gathers at the neighbours
        "interp polyval polyadd polysub polymul polyder polyint").split()]
    + ["numpy.ndarray." + n for n in
       "T all any astype copy fill imag max mean min mT prod real std sum swapaxes transpose "
       "nonzero choose take put compress flat "
       "var squeeze flags sort argsort partition argpartition clip round conj conjugate "
       "searchsorted trace byteswap view getfield setfield setflags ravel reshape flatten "
       "cumsum cumprod argmax argmin diagonal resize".split()]
    + ["numpy.linalg.matrix_transpose", "numpy.linalg.diagonal"]
    # ndarray(shape, dtype) constructed directly: a new partitioned array (_construct._ndarray_new)
    + ["numpy.ndarray"]
    # joins, repeats and layout (cupynum/_joins.py): slice assignments into a new array, each
    # output tile filled by its owner from the input pieces it needs
    + ["numpy." + n for n in _JOINS] + ["numpy.ndarray.repeat"]
    # binary files (cupynum/_files.py): each rank reads and writes its own tile's bytes
    # host data (frombuffer, fromiter, fromstring): NumPy parses, each rank keeps its tile
    + ["numpy.frombuffer", "numpy.fromiter", "numpy.fromstring"]
    + ["numpy.save", "numpy.savez", "numpy.savez_compressed", "numpy.load", "numpy.fromfile", "numpy.ndarray.tofile"]
    # cholesky and solve of one partitioned matrix: ScaLAPACK (csrc/runtime/scalapack.c), when
    # built with it; the other numpy.linalg factorizations compute on gathered copies
    + ["numpy.linalg.cholesky", "numpy.linalg.solve"]
    # numpy.random: every draw is a deferred Philox op, each rank draws its own part
    + ["numpy.random." + n for n in _RANDOM_DRAWS]
    + [f"numpy.random.{c}.{n}" for c in ("Generator", "RandomState") for n in _RANDOM_DRAWS]
    # numpy.fft (with an FFT library): owner computes, or slabs and all-to-all transposes
    # (csrc/runtime/distfft.c); fftfreq/rfftfreq are arange, fftshift/ifftshift slice copies
    + ["numpy.fft." + n for n in
       "fft ifft rfft irfft hfft ihfft fft2 ifft2 fftn ifftn rfft2 irfft2 rfftn irfftn fftfreq "
       "rfftfreq fftshift ifftshift".split()])
# Native but not partitioned: computed on gathered copies under MPI (matrix products; the
# two-output ufuncs divmod/modf/frexp; reductions of ops other than
# add/multiply/maximum/minimum, e.g. subtract.reduce), or writes through a flat alias
# of a root not in row slabs: correct on every rank, not distributed work.
# Native functions with a CUDA kernel that runs on the device.
CUDA_KERNEL = frozenset()

NATIVE, FALLBACK, OWN = "native", "fallback", "NumPy's own"

# Notes on native entries whose behaviour a reader should know.
NOTES = {
    **{f"numpy.fft.{n}": "distributed for n-d arrays; a 1-D array partitioned along its only "
       "dimension is gathered (no distributed 1-D FFT)" for n in "fft ifft rfft irfft hfft ihfft".split()},
    "numpy.ndarray.flat": "reads copy, writes go to the array; iterating it reads the elements",
    "numpy.ndarray.base": "always None: views share stores, not bases",
    "numpy.ndarray.real": "view (writes seen both ways)",
    "numpy.ndarray.imag": "view (writes seen both ways)",
    "numpy.ndarray.setflags": "write=True allowed while no array the user made read-only views "
    "all of the store (NumPy: while the base is writeable)",
    "numpy.ndarray.getfield": "a view of the whole element reinterpreted or of a complex "
    "element's half; other fields: NumPy's, on a copy",
    "numpy.ndarray.setfield": "through getfield's view where it is one; other fields: NumPy's, "
    "written back",
    "numpy.ndarray.flags": "OWNDATA always True; WRITEABLE set as setflags",
    "numpy.ndarray.view": "a view for any dtype (another size: through the store's flat alias in "
    "that dtype); a type, or an offset or stride not whole new elements: NumPy's, on a copy",
    "numpy.ndarray.diagonal": "read-only view",
    "numpy.diagonal": "read-only view",
    "numpy.linalg.diagonal": "read-only view",
    "numpy.broadcast_arrays": "writable views, as NumPy's (without its FutureWarning on writes)",
    "numpy.load": "a .npy, and an .npz's stored members: each rank reads its tile (mmap_mode "
    "gives a normal array); an .npz gives an NpzFile of cupynum arrays",
    "numpy.savez": "to a file name: each rank writes its tiles, rank 0 the headers, CRCs and "
    "directory; file objects: NumPy's, rank 0 writes",
    "numpy.savez_compressed": "to a file name: each rank deflates its tiles' runs as parts of "
    "one stream, the parts laid end to end, CRCs combined; file objects: NumPy's, rank 0 writes",
    "numpy.ndarray.byteswap": "every dtype element-wise through a bit view (shifts and masks); "
    "owner computes under MPI",
    "numpy.unpackbits": "an empty input padded by count gives zeros (NumPy 2.4: uninitialised)",
    "numpy.frombuffer": "a copy of the buffer (writes do not reach it)",
    "numpy.save": "to a file name: each rank writes its tile (rank 0 the header); file objects: "
    "NumPy's, rank 0 writes",
    "numpy.ndarray.tofile": "raw binary to a file name: each rank writes its tile; text (sep) "
    "and file objects: NumPy's, rank 0 writes",
    "numpy.fromfile": "raw binary from a file name: each rank reads its tile; text (sep) and "
    "file objects: NumPy's",
    "numpy.asmatrix": "returns NumPy's matrix",
    "numpy.bmat": "returns NumPy's matrix",
    "numpy.random.get_state": "cupynum's Philox state (key, stream), not NumPy's",
    "numpy.random.set_state": "cupynum's Philox state (key, stream), not NumPy's",
    "numpy.quantile": "weights= and integer/float16 q are computed by NumPy",
    "numpy.percentile": "weights= and float16 q are computed by NumPy",
    "numpy.nanquantile": "weights= and integer/float16 q are computed by NumPy",
    "numpy.nanpercentile": "weights= and float16 q are computed by NumPy",
    "numpy.unique": "axis= of a float16 array holding NaN is computed by NumPy",
    **{f"numpy.{n}": "axis=None of an n-d array reads it through its flat alias (gathered under "
       "MPI)" for n in ("concatenate", "concat", "append", "roll")},
    "numpy.repeat": "more than 256 runs of equal counts: a native gather (gathered under MPI)",
    "numpy.ndarray.repeat": "more than 256 runs of equal counts: a native gather (gathered under MPI)",
    **{f"numpy.{n}": "more than 256 runs of kept or inserted positions: a native gather or "
       "scatter (gathered under MPI)" for n in ("insert", "delete")},
    "numpy.pad": "every named mode native; a callable mode is called on cupynum views of each "
    "vector (user Python per vector)",
    "numpy.require": "OWNDATA is always true (a view is not copied for it)",
    "numpy.trim_zeros": "view, as NumPy's; a list argument is NumPy's",
    "numpy.tile": "more than 256 blocks of a partitioned result: one op through a split view "
                  "(gathered under MPI)",
    "numpy.vectorize": "cupynum class: calls take and return cupynum arrays",
    "numpy.poly1d": "cupynum class: methods take and return cupynum arrays",
    "numpy.random.Generator": "cupynum class over a counter-based Philox: streams differ from NumPy's",
    "numpy.random.RandomState": "cupynum class over a counter-based Philox: streams differ from NumPy's",
    "numpy.random.default_rng": "returns a cupynum.random.Generator (Philox keyed by SeedSequence)",
    "numpy.random.Generator.multivariate_hypergeometric":
        "marginals for both methods (hypergeometric draws); totals of 10**9 or more: NumPy's "
        "Generator keyed by (key, stream)",
    "numpy.random.Generator.multinomial": "conditional binomials, element-wise (array n, n-d pvals)",
    "numpy.random.Generator.integers":
        "float bounds truncated as NumPy's cast; bounds with a NaN or an empty truncated range: "
        "NumPy's Generator keyed by (key, stream)",
    "numpy.random.Generator.choice":
        "native draws; p= and replace=False then searchsorted/argsort/take",
    "numpy.random.Generator.permutation":
        "a counter-based bijection; partitioned rows move once (one all-to-all)",
    "numpy.random.Generator.shuffle":
        "a counter-based bijection; partitioned rows move once (one all-to-all)",
    "numpy.random.Generator.permuted":
        "axis=None: a counter-based bijection; an axis: argsort of counter-based keys",
}
for _n in ("choice", "permutation", "shuffle"):   # the legacy spellings of the same draws
    for _p in ("numpy.random.", "numpy.random.RandomState."):
        NOTES[_p + _n] = NOTES["numpy.random.Generator." + _n]
for _n in ("nditer", "ndenumerate", "broadcast", "matrix", "memmap", "recarray", "record"):
    NOTES[f"numpy.{_n}"] = "NumPy's class: reads cupynum arrays as NumPy copies"
_ATTRIBUTE_OF_COPY = {"ctypes", "data"}

SECTIONS = [
    ("module", "Module-level (`numpy`)"),
    ("ndarray", "Multi-dimensional array (`numpy.ndarray`)"),
    ("linalg", "Linear algebra (`numpy.linalg`)"),
    ("fft", "Discrete Fourier transform (`numpy.fft`)"),
    ("random", "Random sampling (`numpy.random`)"),
]


def _public(obj):
    return sorted(n for n in dir(obj) if not n.startswith("_"))


def _callables(npmod):
    """Public callables of a NumPy module: no submodules, not NumPy's own test runner."""
    out = []
    for n in _public(npmod):
        o = getattr(npmod, n)
        if isinstance(o, types.ModuleType) or not callable(o) or n == "test":
            continue
        out.append(n)
    return out


def _kind(npobj):
    if isinstance(npobj, np.ufunc):
        return "ufunc"
    if isinstance(npobj, type):
        return "class"
    return "function"


def _status(cpobj, npobj):
    if _fallback.is_fallback(cpobj):
        return FALLBACK
    if isinstance(cpobj, _core.ufunc_type) and not cpobj._native and \
            cpobj.__name__ not in _ufunc_mod.GUFUNCS:
        return FALLBACK   # a cupynum.ufunc whose op the table lacks: NumPy computes
    if cpobj is npobj:
        return OWN
    return NATIVE


# Why each module-level function that falls back does (one line each; issue #20's "what may
# keep falling back": user Python per element, no computation on array data, datetime and
# business days, string formatting, text files, the matrix/poly1d classes).
_WHY = {
    **{f"numpy.{n}": "why: user Python per element or per slice" for n in
       "apply_along_axis apply_over_axes frompyfunc piecewise vectorize".split()},
    **{f"numpy.{n}": "why: datetime and business days (no such dtype in cupynum)" for n in
       "busday_count busday_offset is_busday datetime_as_string isnat".split()},
    **{f"numpy.{n}": "why: string formatting" for n in "array2string array_repr array_str".split()},
    **{f"numpy.{n}": "why: text files (NumPy parses, the data scattered after)" for n in
       "loadtxt savetxt genfromtxt fromregex".split()},
    **{f"numpy.{n}": "why: NumPy's matrix class" for n in ("asmatrix", "bmat")},
    "numpy.poly1d": "why: the poly1d class",
    **{f"numpy.ndarray.{n}": "why: the array's bytes on the host (a whole copy by definition)"
       for n in "tobytes dumps dump ctypes data".split()},
    "numpy.nested_iters": "why: an iterator over NumPy's memory, no array result",
    "numpy.from_dlpack": "why: imports a foreign buffer into NumPy (no cupynum store can adopt "
    "another library's memory)",
}


def _notes(q, status, extra=()):
    notes = list(extra)
    if status == FALLBACK and q in _WHY:
        notes.append(_WHY[q])
    if status == FALLBACK:
        if q in _fallback.INPLACE or q.endswith(".at"):
            notes.append("in place: writes back into its cupynum arguments")
        if q in _fallback.WRITERS:
            notes.append("a file named by path is written by rank 0 alone")
        if q in _fallback.VIEW_COPIES:
            notes.append("returns a copy where NumPy returns a view")
    if q in NOTES:
        notes.append(NOTES[q])
    return "; ".join(notes)


def _row(q, kind, status, notes=""):
    if status == NATIVE:
        dist = "yes" if q in DISTRIBUTED else "no"
        cuda = "yes" if q in CUDA_KERNEL else "no"
    else:
        dist = cuda = "—"
    return (q, kind, status, dist, cuda, notes)


def _module_rows(npmod, cpmod, prefix, extra_notes=None):
    rows = []
    for n in _callables(npmod):
        npobj = getattr(npmod, n)
        cpobj = getattr(cpmod, n)
        q = f"{prefix}.{n}"
        status = _status(cpobj, npobj)
        notes = (extra_notes or {}).get(n, ()) if status == FALLBACK else ()
        if status == OWN and q not in NOTES:
            notes = ("NumPy's class" if isinstance(npobj, type) else
                     "NumPy's function: no array data involved",)
        rows.append(_row(q, _kind(npobj), status, _notes(q, status, notes)))
    return rows


def rows_by_section():
    """{section: [(numpy name, kind, status, distributed, cuda, notes)]}, from the installed NumPy."""
    out = {}
    rows = _module_rows(np, cupynum, "numpy")
    for n in ("c_", "mgrid", "ogrid", "r_"):   # indexers: not callable, but they compute arrays
        q = f"numpy.{n}"
        status = _status(getattr(cupynum, n), getattr(np, n))
        rows.append(_row(q, "indexer", status, _notes(q, status)))
    out["module"] = sorted(rows)

    rows = []
    for n in _public(np.ndarray):
        q = f"numpy.ndarray.{n}"
        kind = _fallback.ndarray_kind(n)
        static = inspect.getattr_static(cupynum.ndarray, n, None)
        status = FALLBACK if static is None or _fallback.is_fallback(static) else NATIVE
        extra = ()
        if status == FALLBACK and kind == "attribute":
            extra = ("of a C-ordered copy",) if n in _ATTRIBUTE_OF_COPY else ("computed on a copy",)
        if n == "resize":
            extra = ("refcheck as NumPy's (an array other arrays view is referenced); a "
                     "reshape of a whole array counts as owning its data",)
        rows.append(_row(q, kind, status, _notes(q, status, extra)))
    out["ndarray"] = rows

    out["linalg"] = _module_rows(np.linalg, cupynum.linalg, "numpy.linalg")
    out["fft"] = _module_rows(np.fft, cupynum.fft, "numpy.fft")

    rows = _module_rows(np.random, cupynum.random, "numpy.random")
    for cls in ("Generator", "RandomState"):
        for n in _public(getattr(np.random, cls)):
            if not callable(getattr(getattr(np.random, cls), n)):
                continue
            q = f"numpy.random.{cls}.{n}"
            ours = getattr(getattr(cupynum.random, cls), n, None)
            status = NATIVE if ours is not None else FALLBACK
            rows.append(_row(q, "method", status, _notes(q, status)))
    out["random"] = rows
    return out


def _counts(rows):
    c = {NATIVE: 0, FALLBACK: 0, OWN: 0}
    for r in rows:
        c[r[2]] += 1
    dist = sum(1 for r in rows if r[3] == "yes")
    cuda = sum(1 for r in rows if r[4] == "yes")
    return len(rows), c[NATIVE], c[FALLBACK], c[OWN], dist, cuda


def numpy_version():
    return ".".join(np.__version__.split(".")[:2])


def render():
    """The table as Markdown text."""
    sections = rows_by_section()
    lines = [
        "# cupynum API coverage",
        "",
        f"Generated by `python -m cupynum.coverage` against NumPy {numpy_version()}; do not edit by "
        "hand. CI runs `python -m cupynum.coverage --check`, which fails when this file is not "
        "current.",
        "",
        "One row per public callable of `numpy`, `numpy.linalg`, `numpy.fft` and `numpy.random` "
        "(with the methods of `Generator` and `RandomState`), and per public method or attribute "
        "of `numpy.ndarray`, enumerated from the installed NumPy. Every one of them is reachable "
        "from cupynum:",
        "",
        "- **native**: cupynum's own implementation (some argument combinations, such as "
        "`where=` or advanced indexing, are computed by NumPy on gathered data without a warning).",
        "- **fallback**: NumPy computes it on gathered data; cupynum arrays in the arguments are "
        "gathered, arrays in the result come back as cupynum arrays, in-place functions write back; "
        "warns once per function with `cupynum.FallbackWarning` "
        "(`CUPYNUM_FALLBACK=silent|warn|error`).",
        "- **NumPy's own**: the NumPy object itself (dtypes, scalar types, other classes, "
        "configuration and dtype-introspection functions): nothing to compute on array data.",
        "- **distributed**: a native function that runs partitioned over MPI ranks (owner "
        "computes on tiles, halos exchanged). Other native functions are correct under `mpirun` "
        "but compute on gathered copies (matrix products, the two-output ufuncs, argmax).",
        "- **CUDA kernel**: a native function whose CUDA kernel runs on the device. The CUDA backend "
        "(`cuda/`) generates and compiles kernels for the element-wise ops, casts, random draws, "
        "arange and fused runs, and builds reductions, sort, boolean selection, nonzero, gather and "
        "scatter on CUB (the simulated device runs their coverage), but none has yet been verified "
        "on a GPU, so none is marked.",
        "",
        "| Section | NumPy | native | fallback | NumPy's own | distributed | CUDA kernel |",
        "|---|--:|--:|--:|--:|--:|--:|",
    ]
    total = [0] * 6
    for key, title in SECTIONS:
        c = _counts(sections[key])
        total = [a + b for a, b in zip(total, c)]
        lines.append(f"| {title} | " + " | ".join(str(x) for x in c) + " |")
    lines.append("| **Total** | " + " | ".join(f"**{x}**" for x in total) + " |")
    for key, title in SECTIONS:
        lines += ["", f"## {title}", "",
                  "| NumPy | kind | cupynum | distributed | CUDA kernel | notes |",
                  "|---|---|---|---|---|---|"]
        for q, kind, status, dist, cuda, notes in sections[key]:
            lines.append(f"| `{q}` | {kind} | {status} | {dist} | {cuda} | {notes} |")
    return "\n".join(lines) + "\n"


def _recorded_version(text):
    marker = "against NumPy "
    i = text.find(marker)
    return text[i + len(marker):].split(";", 1)[0].strip() if i >= 0 else None


def main(argv=None):
    p = argparse.ArgumentParser(prog="python -m cupynum.coverage", description=__doc__.split("\n")[0])
    p.add_argument("-o", "--output", default=os.path.join("docs", "api-coverage.md"))
    p.add_argument("--check", action="store_true", help="fail if the file is not current")
    p.add_argument("--stdout", action="store_true", help="print the table instead of writing it")
    args = p.parse_args(argv)
    os.environ["CUPYNUM_FALLBACK"] = "silent"
    text = render()
    if args.stdout:
        sys.stdout.write(text)
        return 0
    if args.check:
        try:
            with open(args.output, encoding="utf-8") as f:
                old = f.read()
        except FileNotFoundError:
            print(f"{args.output} is missing: run python -m cupynum.coverage", file=sys.stderr)
            return 1
        if old == text:
            print(f"{args.output} is current")
            return 0
        recorded = _recorded_version(old)
        if recorded and recorded != numpy_version():
            print(f"{args.output} was generated against NumPy {recorded}, NumPy {numpy_version()} "
                  f"is installed: not comparable, not checked (regenerate it with that NumPy)")
            return 0
        print(f"{args.output} is not current: run python -m cupynum.coverage and commit it",
              file=sys.stderr)
        return 1
    os.makedirs(os.path.dirname(args.output) or ".", exist_ok=True)
    with open(args.output, "w", encoding="utf-8") as f:
        f.write(text)
    print(f"wrote {args.output}")
    for key, title in SECTIONS:
        n, nat, fb, own, dist, cuda = _counts(rows_by_section()[key])
        print(f"  {title}: {n} ({nat} native, {fb} fallback, {own} NumPy's own)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
