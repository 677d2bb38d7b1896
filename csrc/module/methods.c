/* methods.c: the module's introspection and runtime control, and its method table.
 *
 * The Python package (cupynum/) builds NumPy's API on the module's C primitives; each does one
 * runtime thing and leaves argument conventions to Python.  By concept: op builders
 * (methods_ops.c: make a store, queue an op), views and data (methods_views.c: view arithmetic,
 * data in and out, the ndarray's C methods), and here what the module tells and sets: the op
 * table, runtime info and counters, flushes and barriers, test hooks; and the table of all. */
#include "cpn_module.h"

#include "backend.h"
#include "alloc.h"
#include "comm.h"
#include "dist.h"
#include "fusion.h"
#include "runtime.h"
#include "stats.h"

static PyObject *helpers_module;

PyObject *cpn_py_helper(const char *name)
{
    if (!helpers_module) {
        helpers_module = PyImport_ImportModule("cupynum._ndarray");
        if (!helpers_module) return NULL;
    }
    PyObject *h = PyObject_GetAttrString(helpers_module, name);
    if (h) Py_DECREF(h);   /* the module keeps it alive: hand out a borrowed reference */
    return h;
}

int cpn_parse_shape(PyObject *o, int *ndim, int64_t *shape)
{
    PyObject *seq = PySequence_Fast(o, "shape must be a sequence of integers");
    if (!seq) return -1;
    Py_ssize_t n = PySequence_Fast_GET_SIZE(seq);
    if (n > CPN_MAXDIM) {
        Py_DECREF(seq);
        PyErr_Format(PyExc_ValueError, "maximum supported dimension for an ndarray is currently %d, found %zd",
                     CPN_MAXDIM, n);
        return -1;
    }
    for (Py_ssize_t i = 0; i < n; i++) {
        PyObject *idx = PyNumber_Index(PySequence_Fast_GET_ITEM(seq, i));
        if (!idx) { Py_DECREF(seq); return -1; }
        shape[i] = PyLong_AsLongLong(idx);
        Py_DECREF(idx);
        if (shape[i] == -1 && PyErr_Occurred()) { Py_DECREF(seq); return -1; }
    }
    *ndim = (int)n;
    Py_DECREF(seq);
    return 0;
}

int cpn_check_array(PyObject *o)
{
    if (cpn_array_check(o)) return 0;
    PyErr_Format(PyExc_TypeError, "expected a cupynum.ndarray, got %.100s", Py_TYPE(o)->tp_name);
    return -1;
}

static PyObject *mod_op_names(PyObject *m, PyObject *unused)
{
    (void)m;
    (void)unused;
    PyObject *t = PyTuple_New(cpn_op_name_count());
    for (int i = 0; t && i < cpn_op_name_count(); i++) {
        PyObject *s = PyUnicode_FromString(cpn_op_name(i));
        if (!s) {
            Py_CLEAR(t);
            break;
        }
        PyTuple_SET_ITEM(t, i, s);
    }
    return t;
}

static PyObject *mod_has_op(PyObject *m, PyObject *name)
{
    const char *s = PyUnicode_AsUTF8(name);
    if (!s) return NULL;
    int code = cpn_op_lookup(s);
    return PyBool_FromLong(code >= 0 && code != CPN_OP_WHERE);
}

/* op_info(name): the table row of op `name` (or an alias) as a dict: name, nin, nout, identity
 * (None, 0 or 1), the flags silent, intdiv, quotient and, from the reduce column, reorderable
 * and combines (bools); KeyError for a name the table lacks. */
static PyObject *mod_op_info(PyObject *m, PyObject *name)
{
    (void)m;
    const char *s = PyUnicode_AsUTF8(name);
    if (!s) return NULL;
    int code = cpn_op_lookup(s);
    if (code < 0) return PyErr_Format(PyExc_KeyError, "%s", s);
    const struct cpn_op_info *info = cpn_op_info(code);
    PyObject *ident = info->identity == CPN_IDENT_NONE ? Py_NewRef(Py_None)
                                                       : PyLong_FromLong(info->identity == CPN_IDENT_ONE);
    if (!ident) return NULL;
    return Py_BuildValue("{s:s,s:i,s:i,s:N,s:O,s:O,s:O,s:O,s:O}", "name", info->name, "nin", info->nin,
                         "nout", info->nout, "identity", ident,
                         "silent", info->flags & CPN_OPF_SILENT ? Py_True : Py_False,
                         "intdiv", info->flags & CPN_OPF_INTDIV ? Py_True : Py_False,
                         "quotient", info->flags & CPN_OPF_QUOTIENT ? Py_True : Py_False,
                         "reorderable", cpn_op_reorderable(code) ? Py_True : Py_False,
                         "combines", cpn_op_combines(code) ? Py_True : Py_False);
}

/* reduce_dtype(name, dtype): the accumulator numpy.dtype of reducing op `name` over `dtype`
 * without dtype= where the table's acc column decides it (add, multiply widen), else None (the
 * reduction loop's dtype: NumPy's resolver gives it; also for a name or dtype the table lacks). */
static PyObject *mod_reduce_dtype(PyObject *m, PyObject *const *args, Py_ssize_t nargs)
{
    (void)m;
    if (nargs != 2) return PyErr_Format(PyExc_TypeError, "reduce_dtype(name, dtype)");
    const char *s = PyUnicode_AsUTF8(args[0]);
    if (!s) return NULL;
    int code = cpn_op_lookup(s);
    if (code < 0) Py_RETURN_NONE;
    int dt = cpn_dtype_from_object(args[1]);
    if (dt < 0) {
        PyErr_Clear();
        Py_RETURN_NONE;
    }
    int acc = cpn_op_reduce_dtype(code, (enum cpn_dtype)dt);
    if (acc < 0) Py_RETURN_NONE;
    return Py_NewRef((PyObject *)cpn_descr((enum cpn_dtype)acc));
}

static PyObject *mod_sync(PyObject *m, PyObject *noargs)
{
    if (cpn_flush() < 0) return NULL;
    /* and wait for the device's queued work, so that a timing around sync() is honest */
    enum cpn_status st = cpn_backend_active()->sync();
    if (st != CPN_OK) return cpn_raise(st);
    Py_RETURN_NONE;
}

static PyObject *mod_barrier(PyObject *m, PyObject *noargs)
{
    if (cpn_thread_guard() < 0) return NULL;
    enum cpn_status st = cpn_comm_barrier();
    if (st != CPN_OK) return cpn_raise(st);
    Py_RETURN_NONE;
}

static PyObject *mod_finalize(PyObject *m, PyObject *noargs)
{
    cpn_runtime_finalize();
    Py_RETURN_NONE;
}

static PyObject *mod_runtime_info(PyObject *m, PyObject *noargs)
{
    return Py_BuildValue("{s:i,s:i,s:i,s:O,s:O,s:O,s:s,s:s,s:i,s:s,s:s,s:s,s:s,s:L}",
                         "rank", cpn_runtime_rank(), "ranks", cpn_runtime_ranks(),
                         "threads", cpn_runtime_threads(),
                         "mpi_running", cpn_runtime_mpi_active() ? Py_True : Py_False,
                         "mpi_built", cpn_runtime_have_mpi() ? Py_True : Py_False,
                         "cuda_built", cpn_runtime_have_cuda() ? Py_True : Py_False,
                         "backend", cpn_backend_active()->name,
                         "device", cpn_backend_device_name(), "max_dims", CPN_MAXDIM,
                         "vmath", cpn_runtime_vmath(), "blas", cpn_runtime_blas(),
                         "sort", cpn_runtime_sort(), "fft", cpn_runtime_fft(),
                         "parallel_min", cpn_runtime_parallel_min());
}

/* _vmath_kernel(name, a[, b]): the raw vector kernel of NumPy function `name` on contiguous
 * float64 or float32 NumPy arrays (a new array); for tests of kernels whose ops are not in the
 * op table.  RuntimeError when the vector backend is not in use.  Local. */
static PyObject *mod_vmath_kernel(PyObject *m, PyObject *args)
{
    const char *name;
    PyObject *ao, *bo = NULL, *a = NULL, *b = NULL, *o = NULL;
    int nin;
    void (*f64)(void), (*f32)(void);
    if (!PyArg_ParseTuple(args, "sO|O", &name, &ao, &bo)) return NULL;
    if (cpn_runtime_vmath_kernel(name, &nin, &f64, &f32) < 0)
        return PyErr_Format(PyExc_RuntimeError, "no vector kernel '%s' (%s)", name, cpn_runtime_vmath());
    if ((nin == 2) != (bo != NULL)) return PyErr_Format(PyExc_TypeError, "%s takes %d arrays", name, nin);
    a = PyArray_FROM_OF(ao, NPY_ARRAY_C_CONTIGUOUS | NPY_ARRAY_ALIGNED);
    if (!a) goto fail;
    int t = PyArray_TYPE((PyArrayObject *)a);
    if (t != NPY_FLOAT64 && t != NPY_FLOAT32) {
        PyErr_SetString(PyExc_TypeError, "float64 or float32 arrays only");
        goto fail;
    }
    if (bo) {
        b = PyArray_FROM_OTF(bo, t, NPY_ARRAY_C_CONTIGUOUS | NPY_ARRAY_ALIGNED);
        if (!b) goto fail;
        if (PyArray_SIZE((PyArrayObject *)b) != PyArray_SIZE((PyArrayObject *)a)) {
            PyErr_SetString(PyExc_ValueError, "operands differ in size");
            goto fail;
        }
    }
    o = PyArray_NewLikeArray((PyArrayObject *)a, NPY_CORDER, NULL, 0);
    if (!o) goto fail;
    int64_t n = PyArray_SIZE((PyArrayObject *)a);
    void *pa = PyArray_DATA((PyArrayObject *)a), *pb = b ? PyArray_DATA((PyArrayObject *)b) : NULL,
         *po = PyArray_DATA((PyArrayObject *)o);
    if (t == NPY_FLOAT64 && nin == 1)
        ((void (*)(const double *, double *, int64_t))f64)(pa, po, n);
    else if (t == NPY_FLOAT64)
        ((void (*)(const double *, const double *, double *, int64_t))f64)(pa, pb, po, n);
    else if (nin == 1)
        ((void (*)(const float *, float *, int64_t))f32)(pa, po, n);
    else
        ((void (*)(const float *, const float *, float *, int64_t))f32)(pa, pb, po, n);
    Py_DECREF(a);
    Py_XDECREF(b);
    return o;
fail:
    Py_XDECREF(a);
    Py_XDECREF(b);
    Py_XDECREF(o);
    return NULL;
}

/* runtime_stats(): cpn_stats (stats.h) as a dict, one key per field, in the list's order. */
static PyObject *mod_runtime_stats(PyObject *m, PyObject *noargs)
{
    struct cpn_stats s;
    cpn_stats_read(&s);
    PyObject *d = PyDict_New(), *v = NULL;
    if (!d) return NULL;
#define PUT(name, kind)                                                                         \
    v = PyLong_FromLongLong(s.name);                                                            \
    if (!v || PyDict_SetItemString(d, #name, v) < 0) goto fail;                                 \
    Py_CLEAR(v);
    CPN_STATS(PUT)
#undef PUT
    return d;
fail:
    Py_XDECREF(v);
    Py_DECREF(d);
    return NULL;
}

static PyObject *mod_reset_stats(PyObject *m, PyObject *noargs)
{
    cpn_stats_reset();
    Py_RETURN_NONE;
}

/* _set_fusion(on): turn fusion of the executor on or off; returns the previous setting.  Flushes
 * first, so queued ops run under the setting they were queued with.  Collective. */
static PyObject *mod_set_fusion(PyObject *m, PyObject *arg)
{
    int on = PyObject_IsTrue(arg);
    if (on < 0) return NULL;
    enum cpn_status st = cpn_queue_flush();
    if (st != CPN_OK) return cpn_raise(st);
    return PyBool_FromLong(cpn_fusion_set_enabled(on));
}

/* _set_random_simd(level): the Philox loops' vector level (0 baseline, 1 AVX2, 2 AVX-512, each
 * capped at what the CPU has; True is the best there is, False the baseline); returns the
 * previous level.  Flushes first.  Collective. */
static PyObject *mod_set_random_simd(PyObject *m, PyObject *arg)
{
    long level;
    if (PyBool_Check(arg)) {
        level = arg == Py_True ? 2 : 0;
    } else {
        level = PyLong_AsLong(arg);
        if (level == -1 && PyErr_Occurred()) return NULL;
    }
    enum cpn_status st = cpn_queue_flush();
    if (st != CPN_OK) return cpn_raise(st);
    return PyLong_FromLong(cpn_runtime_random_simd((int)level));
}

static PyObject *mod_set_argreduce_simd(PyObject *m, PyObject *arg)
{
    const long level = PyLong_AsLong(arg);
    if (level == -1 && PyErr_Occurred()) return NULL;
    enum cpn_status st = cpn_queue_flush();
    if (st != CPN_OK) return cpn_raise(st);
    return PyLong_FromLong(cpn_runtime_argreduce_simd((int)level));
}

/* bcast_u64(x): rank 0's value of x on every rank (seeds drawn from the OS).  Collective. */
static PyObject *mod_bcast_u64(PyObject *m, PyObject *arg)
{
    unsigned long long x = PyLong_AsUnsignedLongLongMask(arg);
    if (PyErr_Occurred() || cpn_thread_guard() < 0) return NULL;
    enum cpn_status st = cpn_comm_bcast(&x, sizeof x, 0);
    if (st != CPN_OK) return cpn_raise(st);
    return PyLong_FromUnsignedLongLong(x);
}

/* _abort(code): end every rank of the job (an uncaught exception on one rank). */
static PyObject *mod_abort(PyObject *m, PyObject *arg)
{
    int code = (int)PyLong_AsLong(arg);
    fflush(stdout);
    fflush(stderr);
    cpn_comm_abort(code ? code : 1);
    Py_RETURN_NONE;
}

/* _tiling(a): (tiled, grid, this rank's tile box) of the array's store, for tests. */
static PyObject *mod_tiling(PyObject *m, PyObject *a)
{
    if (cpn_check_array(a) < 0) return NULL;
    const struct cpn_store *s = cpn_store_root(cpn_array_view(a)->store);
    PyObject *grid = PyTuple_New(s->ndim), *lo = PyTuple_New(s->ndim), *hi = PyTuple_New(s->ndim);
    if (!grid || !lo || !hi) {
        Py_XDECREF(grid); Py_XDECREF(lo); Py_XDECREF(hi);
        return NULL;
    }
    for (int d = 0; d < s->ndim; d++) {
        PyTuple_SET_ITEM(grid, d, PyLong_FromLong(s->grid[d]));
        PyTuple_SET_ITEM(lo, d, PyLong_FromLongLong(s->tlo[d]));
        PyTuple_SET_ITEM(hi, d, PyLong_FromLongLong(s->thi[d]));
    }
    return Py_BuildValue("{s:O,s:N,s:N,s:N}", "tiled", s->tiled ? Py_True : Py_False, "grid", grid,
                         "lo", lo, "hi", hi);
}

static PyObject *mod_alloc_fail_after(PyObject *m, PyObject *arg)
{
    long long n = PyLong_AsLongLong(arg);
    if (n == -1 && PyErr_Occurred()) return NULL;
    cpn_alloc_fail_after(n);
    Py_RETURN_NONE;
}

PyMethodDef cpn_module_methods[] = {
    {"empty", cpn_mod_empty, METH_VARARGS, "empty(shape, dtype, like=None, uninit=False): a new array (zero-filled lazily; with uninit its values are undefined until written, as NumPy's empty), tiled like the array `like` (of that shape) when given."},
    {"empty_replicated", cpn_mod_empty_replicated, METH_VARARGS, "empty_replicated(shape, dtype): a new array held whole on every rank (zero-filled)."},
    {"from_any", cpn_mod_from_any, METH_O, "A new array holding a copy of any array-like's data."},
    {"to_numpy", cpn_mod_to_numpy, METH_O, "Flush and copy into a numpy.ndarray."},
    {"to_scalar", cpn_mod_to_scalar, METH_O, "Flush and return a size-1 array's element as a NumPy scalar."},
    {"cast", cpn_mod_cast, METH_VARARGS, "cast(a, dtype): a new array converted to dtype."},
    {"assign", cpn_mod_assign, METH_VARARGS, "assign(a, value): a[...] = value."},
    {"_set_package_dir", cpn_mod_set_package_dir, METH_O,
     "_set_package_dir(dir): cupynum's own files, skipped when an op records its user's line."},
    {"reshape", cpn_mod_reshape, METH_VARARGS, "reshape(a, shape): a view, or None when a copy is needed."},
    {"transpose", cpn_mod_transpose, METH_VARARGS, "transpose(a, perm): a view."},
    {"broadcast_to", cpn_mod_broadcast_to, METH_VARARGS,
     "broadcast_to(a, shape, readonly=True): a view (read-only unless readonly=False)."},
    {"diagonal", cpn_mod_diagonal, METH_VARARGS, "diagonal(a, offset, axis1, axis2): a read-only view."},
    {"retype", cpn_mod_retype, METH_VARARGS, "retype(a, dtype): a's bytes as dtype of another size, or None."},
    {"covers_store", cpn_mod_covers_store, METH_O, "covers_store(a): does a view all its store?"},
    {"writeable_view", cpn_mod_writeable_view, METH_O, "writeable_view(a): a's map, writable."},
    {"readonly", cpn_mod_readonly, METH_O, "Are writes through a refused (broadcast_to, diagonal)?"},
    {"component", cpn_mod_component, METH_VARARGS, "component(a, part): real (1) / imaginary (2) view."},
    {"bits", cpn_mod_bits, METH_O, "bits(a): a real array's elements as unsigned integers of their size (a view)."},
    {"reinterpret", cpn_mod_reinterpret, METH_VARARGS, "reinterpret(a, dtype): a's elements seen as dtype of the same size (a view)."},
    {"layout", cpn_mod_layout, METH_O, "Byte strides of a view within its store."},
    {"contiguous", (PyCFunction)(void (*)(void))cpn_mod_contiguous, METH_FASTCALL,
     "contiguous(a, fortran=False): NumPy's C_CONTIGUOUS (F_CONTIGUOUS) flag of a's view."},
    {"ufunc", cpn_mod_ufunc, METH_VARARGS,
     "ufunc(name, operands, out=None): apply an op of the table; out is None or an ndarray, or for\n"
     "two-output ops a tuple of nout entries (None or ndarray); two-output ops return a tuple."},
    {"op_names", mod_op_names, METH_NOARGS, "Every name (ops and aliases) _core.ufunc accepts."},
    {"has_op", mod_has_op, METH_O, "Is `name` an op of the table?"},
    {"op_info", mod_op_info, METH_O, "op_info(name): the op table's row of `name` as a dict."},
    {"reduce_dtype", (PyCFunction)(void (*)(void))mod_reduce_dtype, METH_FASTCALL,
     "reduce_dtype(name, dtype): the table's accumulator dtype of reducing `name`, or None."},
    {"full_reduce", (PyCFunction)(void (*)(void))cpn_mod_full_reduce, METH_FASTCALL,
     "full_reduce(a, name): a full add/multiply/maximum/minimum reduction read at once, or None."},
    {"_temp_probe", cpn_mod_temp_probe, METH_O,
     "_temp_probe(on): the next full_reduce measures a temporary argument's references (import)."},
    {"full_argreduce", (PyCFunction)(void (*)(void))cpn_mod_full_argreduce, METH_FASTCALL,
     "full_argreduce(a, 'maximum'|'minimum'): argmax/argmin of a whole untiled non-empty array (ndim >= 1) as a scalar; else None."},
    {"nonzero_rows", cpn_mod_nonzero_rows, METH_O,
     "nonzero_rows(m): nonzero(m) of a contiguous non-empty untiled bool array on the host, counted in place; else None."},
    {"correlate_fast", (PyCFunction)(void (*)(void))cpn_mod_correlate_fast, METH_FASTCALL,
     "correlate_fast(a, v, mode[, conj]): numpy.correlate(a, v, mode 0/1/2) (v conjugated first when conj is True) for untiled 1-d cupynum arrays of one float or complex dtype; else None."},
    {"interp_fast", (PyCFunction)(void (*)(void))cpn_mod_interp_fast, METH_FASTCALL,
     "interp_fast(x, xp, fp, left, right): numpy.interp for contiguous untiled float64 cupynum arrays (x n-d, xp and fp 1-d of one length) and left/right None, float or int; else None."},
    {"concat_rows", (PyCFunction)(void (*)(void))cpn_mod_concat_rows, METH_FASTCALL,
     "concat_rows(seq[, axis[, stack]]): concatenate(seq, axis) (default 0) for a list or tuple of untiled cupynum arrays of one dtype whose other dimensions agree, or with stack true stack(seq) along axis 0 of such arrays of one shape; else None."},
    {"index_range", cpn_mod_index_range, METH_O,
     "index_range(a): (min, max) of a contiguous int64 array read at once in one pass, or None."},
    {"reduce", cpn_mod_reduce, METH_VARARGS,
     "reduce(name, a, axes, dtype, initial=None, segment=0): a new array."},
    {"argreduce", cpn_mod_argreduce, METH_VARARGS, "argreduce('maximum'|'minimum', a, axes): int64 indices."},
    {"scan", cpn_mod_scan, METH_VARARGS, "scan(name, a, axis): accumulate along axis, in a's dtype."},
    {"quantile", cpn_mod_quantile, METH_VARARGS,
     "quantile(a, axes, q, method, flags, index_dtype, compute_dtype, out_dtype): order statistics."},
    {"select", cpn_mod_select, METH_VARARGS, "select(cond, a, b, out): out[...] = where(cond, a, b)."},
    {"matmul", cpn_mod_matmul, METH_VARARGS, "matmul(a, b, dtype): (batched) product."},
    {"dot1", cpn_mod_dot1, METH_VARARGS, "dot1(a, b): np.dot of two 1-d or 2-d arrays of one dtype (a scalar for two vectors); else None."},
    {"fft", cpn_mod_fft, METH_VARARGS, "fft(a, kind, axes, n, scale): a discrete Fourier transform."},
    {"bincount", cpn_mod_bincount, METH_VARARGS, "bincount(a, weights, nbins): int64 counts / float64 sums."},
    {"compact", cpn_mod_compact, METH_VARARGS, "compact(a, mask, count): a new 1-D array of a's elements where mask (bool, a's shape, count true) is true."},
    {"rmw_probe", cpn_mod_rmw_probe, METH_VARARGS, "rmw_probe(n, m, threads, repeat): wall times of m random float64 read-modify-writes of an n-element array on threads each owning 1/threads of it (the list split beforehand): the scatters' bound."},
    {"scatter", cpn_mod_scatter, METH_VARARGS, "scatter(dst, idx, values[, op]): dst[idx[j]] = values[j] in order (idx 1-D int64 checked by the caller; values (len(idx),) + dst.shape[1:] of dst's dtype); with op (a ufunc name: ufunc.at), dst[idx[j]] = op(dst[idx[j]], values[j]) in order."},
    {"gather", cpn_mod_gather, METH_VARARGS, "gather(a, idx): a new array a[idx] for a 1-D int64 idx (bounds checked by the caller) into a's first dimension."},
    {"nonzero", cpn_mod_nonzero, METH_VARARGS, "nonzero(mask, count): a new int64 (ndim, count) array of the indices of mask's true elements."},
    {"sort", cpn_mod_sort, METH_VARARGS, "sort(a, axis, arg[, perm]): numpy.sort / stable numpy.argsort along axis; with perm a lexsort step."},
    {"lane_slabs", cpn_mod_lane_slabs, METH_VARARGS, "lane_slabs(keys, axes): the keys laid out so that sorts and quantiles along axes stay on each rank."},
    {"searchsorted", cpn_mod_searchsorted, METH_VARARGS,
     "searchsorted(a, v, sorter, right, found): int64 positions (or bool: a holds v) of 1-D v in sorted a."},
    {"histogram", cpn_mod_histogram, METH_VARARGS,
     "histogram(x, weights, edges, uniform, first, last, denom): numpy.histogram's counts."},
    {"unique", cpn_mod_unique, METH_VARARGS,
     "unique(s, perm, mode, nan_distinct, length): runs of equal elements of sorted 1-D s (through perm)."},
    {"lapack_info", cpn_mod_lapack_info, METH_O,
     "lapack_info(aux): the first non-zero LAPACK info of a lapack() result's aux, 0 if none."},
    {"lapack", cpn_mod_lapack, METH_VARARGS,
     "lapack(code, a, b, out_dtype, L, naux, p0, p1, rcond): (out, aux) of one LAPACK routine per matrix."},
    {"arange", cpn_mod_arange, METH_VARARGS, "arange(n, dtype, start, second)."},
    {"random", cpn_mod_random, METH_VARARGS, "random(dist, shape, seed, stream, lo, hi)."},
    {"random_p", cpn_mod_random_p, METH_VARARGS, "random_p(dist, seed, stream, p0, p1): per-element parameters."},
    {"permute", cpn_mod_permute, METH_VARARGS, "permute(a, seed, stream): a counter-based permutation of a's rows."},
    {"sync", mod_sync, METH_NOARGS, "Execute every queued operation and wait for the device (cupynum.sync())."},
    {"barrier", mod_barrier, METH_NOARGS, "Wait for every rank (Collective; no-op on one rank)."},
    {"_finalize", mod_finalize, METH_NOARGS, "Flush and shut the runtime down (at exit)."},
    {"runtime_info", mod_runtime_info, METH_NOARGS, "Rank, ranks, threads, backend, MPI and CUDA."},
    {"_vmath_kernel", mod_vmath_kernel, METH_VARARGS, "A raw vector kernel on NumPy arrays (tests)."},
    {"runtime_stats", mod_runtime_stats, METH_NOARGS, "This rank's counters."},
    {"reset_stats", mod_reset_stats, METH_NOARGS, "Zero this rank's counters."},
    {"_set_fusion", mod_set_fusion, METH_O, "Turn executor fusion on or off; the old setting."},
    {"_set_random_simd", mod_set_random_simd, METH_O, "The Philox loops' vector level (0, 1 AVX2, 2 AVX-512; True the best); the old level."},
    {"_set_argreduce_simd", mod_set_argreduce_simd, METH_O, "argmax/argmin's float scan: 0 SSE2, 1 AVX2 where the CPU has it; the old level."},
    {"bcast_u64", mod_bcast_u64, METH_O, "Rank 0's value of an unsigned 64-bit integer."},
    {"_abort", mod_abort, METH_O, "Abort every rank of the job."},
    {"_tiling", mod_tiling, METH_O, "How the array's store is laid out over ranks."},
    {"_tile_read", cpn_mod_tile_read, METH_O, "(lo, hi, read-only NumPy view of this rank's tile) of a whole C-order root store, else None."},
    {"_set_ndarray_new", cpn_mod_set_ndarray_new, METH_O, "The function ndarray(shape, ...) calls."},
    {"_tile_buffer", cpn_mod_tile_buffer, METH_O, "(lo, hi, writable NumPy view of this rank's tile) of a fresh whole root store, to fill."},
    {"_alloc_fail_after", mod_alloc_fail_after, METH_O, "Test hook: fail the n-th allocation."},
    {"_shares_store", cpn_mod_shares_store, METH_VARARGS, "Do two arrays view one store?"},
    {"_may_overlap", cpn_mod_may_overlap, METH_VARARGS, "May two arrays touch a common element?"},
    {"_store_refs", cpn_mod_store_refs, METH_O, "The reference count of the array's root store."},
    {"_byte_offset", cpn_mod_byte_offset, METH_O, "Byte offset of a view's first element in its root store."},
    {"_root", cpn_mod_root, METH_O, "The whole root store of a's view in its own shape, or None (a component, another dtype)."},
    {"_view_as", cpn_mod_view_as, METH_VARARGS, "b's store seen through a's view geometry where their root stores are alike, else None."},
    {"_row_parts", cpn_mod_row_parts, METH_O, "Is every rank's part of a a range of its first dimension?"},
    {"_parts_match", cpn_mod_parts_match, METH_VARARGS, "Do a and b have the same box of view indices on every rank?"},
    {"_device_export", cpn_mod_device_export, METH_O, "(address, device, byte strides) of a device array."},
    {"_dlpack_capsule", cpn_mod_dlpack_capsule, METH_O, "A DLPack capsule of a device array."},
    {NULL},
};
