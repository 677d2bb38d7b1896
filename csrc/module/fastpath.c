/* fastpath.c: scalar results of small arrays without the general machinery.
 *
 * `a[50]` and `a.sum()` return NumPy scalars, so they flush the queue and read a value.  The
 * general paths build a view object, an output array, an op record and a NumPy array to read
 * through (and for reductions several Python layers of keyword handling): microseconds that a
 * 100-element array's arithmetic does not need.  Here the common cases -- an integer index of a
 * 1-d array, and sum/prod/max/min with no arguments -- read or reduce the store's bytes in place
 * once the queue is flushed, with the same kernel the executor would run on the same layout, so
 * the values are the same bits.  Only stores whose whole bytes this rank holds on the host
 * qualify (one rank, or replicated; not poisoned by a failed op; not device-resident, and on
 * more ranks not on a device backend at all: local_origin); everything else, and every error,
 * goes the general way.  The decision depends only on the store's distribution, which
 * every rank agrees on, so ranks take the same path and flush alike. */
#include "cpn_module.h"

#include <string.h>

#include "alloc.h"
#include "fusion.h"
#include "hostexec.h"
#include "backend.h"
#include "partition.h"

/* The origin of v's bytes when the caller may read them here directly (after a flush); NULL
 * (no exception) to go the general way. */
static char *local_origin(const struct cpn_view *v)
{
    const struct cpn_store *r = cpn_store_root(v->store);
    if (r->tiled || r->poison != CPN_OK) return NULL;
    /* Where a replicated store's current copy lies is this rank's own state: a store written by a
     * distributed op may be current on the device on one rank and on the host on another.  One
     * process declines a device-current store (the general path reads it on the device); on
     * more ranks on a device backend every store is declined, so that every rank takes the
     * same path -- the general way flushes, and a flush is collective (its floating-point
     * report).  (Declining by residency on 3 ranks on the simulated device once made
     * unique(axis=1) hang: one rank reduced an index's extremes while the others read them
     * here.) */
    if (cpn_store_device_only(r) || (cpn_partition_ranks() > 1 && cpn_backend_on_device())) return NULL;
    return cpn_view_origin(v);
}

static PyObject *scalar_from(const void *p, enum cpn_dtype dt)
{
    _Alignas(16) unsigned char buf[16];
    memcpy(buf, p, cpn_dtype_size(dt));   /* views may be unaligned for the type (none today) */
    return PyArray_Scalar(buf, cpn_descr(dt), NULL);
}

/* Element `k` of a 1-d view of a virtual store (a draw or an arange still unwritten), computed
 * where it is read: the store stays virtual (store.c, cpn_store_read_bytes).  NULL without an
 * exception when that does not apply. */
static PyObject *virtual_scalar(const struct cpn_view *v, int64_t k)
{
    const struct cpn_store *r = cpn_store_root(v->store);
    if (!cpn_store_is_virtual(r) || v->part || v->dtype != r->dtype || r->tiled) return NULL;
    int64_t st[CPN_MAXDIM], off;
    cpn_view_byte_layout(v, st, &off);
    off += v->ndim ? k * st[0] : 0;
    const int64_t item = (int64_t)cpn_dtype_size(v->dtype);
    if (!cpn_store_reads_virtual(r, off, item)) return NULL;
    _Alignas(16) unsigned char buf[16];
    if (cpn_store_read_bytes(r, off, item, buf) != CPN_OK) return NULL;
    return PyArray_Scalar(buf, cpn_descr(v->dtype), NULL);
}

/* Longest queue scanned for a writer of a read store; a longer one is flushed. */
#define READ_SCAN_MAX 64

/* Flush before reading v's bytes, unless no waiting op writes its store: a scalar read of data
 * already in memory (`b[i]` in a loop that queues `x[i] = ...`) does not wait for unrelated
 * deferred work (issue #21).  The queue is the same on every rank, so ranks decide alike;
 * virtual stores and anything not read here (local_origin NULL) go the general way, which
 * flushes. */
static int flush_for_read(const struct cpn_view *v)
{
    const int n = cpn_queue_length();
    if (n == 0) return 0;
    if (n <= READ_SCAN_MAX && !cpn_store_is_virtual(v->store) && !cpn_queue_writes(v->store))
        return 0;
    return cpn_flush();
}

/* The key of an advanced-indexing fast path read where it lies: flushed if the queue writes it,
 * then its local origin; NULL with *err = 0 where it is not in this process's memory (the fast
 * path is not taken), NULL with *err = -1 on an error (set). */
static const char *key_origin(const struct cpn_view *k, int *err)
{
    *err = flush_for_read(k);
    if (*err < 0) return NULL;
    const char *o = local_origin(k);
    if (!o) PyErr_Clear();
    return o;
}

PyObject *cpn_fast_advanced_get(PyObject *self, PyObject *key)
{
    const struct cpn_view *v = cpn_array_view(self), *k = cpn_array_view(key);
    const int64_t nk = cpn_view_size(k);
    if (v->ndim < 1 || nk == 0 || cpn_store_root(v->store)->tiled || !cpn_view_is_contiguous(k) ||
        (k->dtype == CPN_DTYPE_INT64 ? k->ndim != 1 : k->dtype != CPN_DTYPE_BOOL || k->ndim != v->ndim))
        return Py_NewRef(Py_NotImplemented);
    if (k->dtype == CPN_DTYPE_BOOL)
        for (int d = 0; d < v->ndim; d++)
            if (k->shape[d] != v->shape[d]) return Py_NewRef(Py_NotImplemented);
    int err;
    const char *o = key_origin(k, &err);
    if (!o) return err < 0 ? NULL : Py_NewRef(Py_NotImplemented);
    if (k->dtype == CPN_DTYPE_BOOL)
        return cpn_compact_new(self, key, cpn_hostexec_count_true(o, nk), 1);
    int64_t lo, hi;
    cpn_hostexec_range_i64(o, nk, &lo, &hi);
    if (lo < -v->shape[0] || hi >= v->shape[0]) return Py_NewRef(Py_NotImplemented);   /* NumPy's IndexError */
    return cpn_gather_rows(self, key);
}

int cpn_fast_mask_assign(PyObject *self, PyObject *key, PyObject *value)
{
    if (!cpn_array_check(value)) return 0;
    struct cpn_view *sv = cpn_array_view(self), *mv = cpn_array_view(key), *vv = cpn_array_view(value);
    const int64_t n = cpn_view_size(sv);
    if (mv->dtype != CPN_DTYPE_BOOL || mv->ndim != sv->ndim || sv->ndim < 1 || vv->ndim != 1 ||
        vv->dtype != sv->dtype || n == 0 || !cpn_view_is_contiguous(mv) || !cpn_view_is_contiguous(sv))
        return 0;
    for (int d = 0; d < sv->ndim; d++)
        if (mv->shape[d] != sv->shape[d]) return 0;
    const struct cpn_store *sr = cpn_store_root(sv->store);
    if (sr->tiled || cpn_store_root(mv->store)->tiled || cpn_store_root(vv->store)->tiled ||
        cpn_store_root(vv->store) == sr)
        return 0;
    int err;
    const char *o = key_origin(mv, &err);
    if (!o) return err;
    const int64_t count = cpn_hostexec_count_true(o, n);
    if (vv->shape[0] != count) return 0;   /* NumPy's ValueError, from the general path */
    if (count == 0) return 1;
    /* the positions of the true elements in C order (nonzero of the flat mask), then the values
     * scattered there through the flat view */
    const int64_t flat[1] = {n}, pshape[2] = {1, count};
    struct cpn_view *fm = NULL, *fs = NULL, *pv = NULL;
    PyObject *pos = NULL;
    int rc = -1;
    if (cpn_view_reshape(mv, 1, flat, &fm) != CPN_OK || cpn_view_reshape(sv, 1, flat, &fs) != CPN_OK) {
        PyErr_Clear();
        rc = 0;
        goto done;
    }
    if (!(pos = cpn_array_new(CPN_DTYPE_INT64, 2, pshape))) goto done;
    struct cpn_op nz = {.kind = CPN_OPK_NONZERO, .nin = 1, .nout = 1};
    nz.dtype = CPN_DTYPE_BOOL;
    nz.in[0] = fm;
    nz.out[0] = cpn_array_view(pos);
    nz.iparam[0] = count;
    if (cpn_submit(&nz) < 0) goto done;
    if (cpn_view_reshape(cpn_array_view(pos), 1, &count, &pv) != CPN_OK) {
        cpn_raise(CPN_ERR_INTERNAL);
        goto done;
    }
    struct cpn_op sc = {.kind = CPN_OPK_SCATTER, .nin = 2, .nout = 1};
    sc.dtype = sv->dtype;
    sc.in[0] = vv;
    sc.in[1] = pv;
    sc.out[0] = fs;
    rc = cpn_submit(&sc) < 0 ? -1 : 1;
done:
    cpn_view_release(fm);
    cpn_view_release(fs);
    cpn_view_release(pv);
    Py_XDECREF(pos);
    return rc;
}

int cpn_fast_index_assign(PyObject *self, PyObject *key, PyObject *value)
{
    if (!cpn_array_check(value)) return 0;
    struct cpn_view *sv = cpn_array_view(self), *kv = cpn_array_view(key), *vv = cpn_array_view(value);
    const int64_t m = cpn_view_size(kv);
    if (kv->dtype != CPN_DTYPE_INT64 || kv->ndim != 1 || m == 0 || !cpn_view_is_contiguous(kv) ||
        sv->ndim < 1 || vv->dtype != sv->dtype || vv->ndim != sv->ndim || vv->shape[0] != m)
        return 0;
    for (int d = 1; d < sv->ndim; d++)
        if (vv->shape[d] != sv->shape[d]) return 0;
    const struct cpn_store *sr = cpn_store_root(sv->store);
    if (sr->tiled || cpn_store_root(kv->store)->tiled || cpn_store_root(vv->store)->tiled ||
        cpn_store_root(vv->store) == sr || cpn_store_root(kv->store) == sr)
        return 0;
    int err;
    const char *o = key_origin(kv, &err);
    if (!o) return err;
    int64_t lo, hi;
    cpn_hostexec_range_i64(o, m, &lo, &hi);
    if (lo < -sv->shape[0] || hi >= sv->shape[0]) return 0;   /* NumPy's IndexError */
    struct cpn_op op = {.kind = CPN_OPK_SCATTER, .nin = 2, .nout = 1};
    op.dtype = sv->dtype;
    op.in[0] = vv;
    op.in[1] = kv;
    op.out[0] = sv;
    return cpn_submit(&op) < 0 ? -1 : 1;
}

PyObject *cpn_fast_scalar(const struct cpn_view *v)
{
    if (cpn_view_size(v) != 1) return Py_NewRef(Py_NotImplemented);
    if (flush_for_read(v) < 0) return NULL;
    PyObject *vs = virtual_scalar(v, 0);
    if (vs) return vs;
    char *o = local_origin(v);
    if (!o) {
        PyErr_Clear();
        return Py_NewRef(Py_NotImplemented);
    }
    return scalar_from(o, v->dtype);
}

/* The element at p of dtype dt as the Python scalar NumPy's item() gives (bool, int, float,
 * complex; float16/float32 widened exactly to a float). */
static PyObject *python_scalar(const char *p, enum cpn_dtype dt)
{
    switch (dt) {
#define AS_INT(E, T, S, C) \
    case CPN_DTYPE_##E: { T x; memcpy(&x, p, sizeof x); return C == CPN_CLASS_UINT ? PyLong_FromUnsignedLongLong((unsigned long long)x) : PyLong_FromLongLong((long long)x); }
#define INTS(X) X(INT8, int8_t, i8, CPN_CLASS_INT) X(UINT8, uint8_t, u8, CPN_CLASS_UINT) \
    X(INT16, int16_t, i16, CPN_CLASS_INT) X(UINT16, uint16_t, u16, CPN_CLASS_UINT) \
    X(INT32, int32_t, i32, CPN_CLASS_INT) X(UINT32, uint32_t, u32, CPN_CLASS_UINT) \
    X(INT64, int64_t, i64, CPN_CLASS_INT) X(UINT64, uint64_t, u64, CPN_CLASS_UINT)
    INTS(AS_INT)
#undef INTS
#undef AS_INT
    case CPN_DTYPE_BOOL: return PyBool_FromLong(*(const unsigned char *)p != 0);
    case CPN_DTYPE_FLOAT16: { _Float16 x; memcpy(&x, p, sizeof x); return PyFloat_FromDouble((double)x); }
    case CPN_DTYPE_FLOAT32: { float x; memcpy(&x, p, sizeof x); return PyFloat_FromDouble((double)x); }
    case CPN_DTYPE_FLOAT64: { double x; memcpy(&x, p, sizeof x); return PyFloat_FromDouble(x); }
    case CPN_DTYPE_COMPLEX64: { float x[2]; memcpy(x, p, sizeof x); return PyComplex_FromDoubles(x[0], x[1]); }
    case CPN_DTYPE_COMPLEX128: { double x[2]; memcpy(x, p, sizeof x); return PyComplex_FromDoubles(x[0], x[1]); }
    default: return Py_NewRef(Py_NotImplemented);
    }
}

PyObject *cpn_fast_item(const struct cpn_view *v, const Py_ssize_t *at)
{
    if (cpn_store_is_virtual(v->store)) return Py_NewRef(Py_NotImplemented);
    if (flush_for_read(v) < 0) return NULL;
    const char *o = local_origin(v);
    if (!o) {
        PyErr_Clear();
        return Py_NewRef(Py_NotImplemented);
    }
    int64_t st[CPN_MAXDIM], off;
    cpn_view_byte_layout(v, st, &off);
    for (int d = 0; d < v->ndim; d++) o += (at[d] < 0 ? at[d] + v->shape[d] : at[d]) * st[d];
    return python_scalar(o, v->dtype);
}

PyObject *cpn_fast_index(PyObject *self, PyObject *key)
{
    const struct cpn_view *v = cpn_array_view(self);
    if (v->ndim != 1 || !PyLong_CheckExact(key)) return Py_NewRef(Py_NotImplemented);
    int overflow = 0;
    long long k = PyLong_AsLongLongAndOverflow(key, &overflow);
    const int64_t len = v->shape[0];
    if (overflow || k < -len || k >= len) return Py_NewRef(Py_NotImplemented);  /* the general error */
    if (k < 0) k += len;
    if (flush_for_read(v) < 0) return NULL;
    PyObject *vs = virtual_scalar(v, k);
    if (vs) return vs;
    char *o = local_origin(v);
    if (!o) {
        PyErr_Clear();
        return Py_NewRef(Py_NotImplemented);
    }
    int64_t st[CPN_MAXDIM], off;
    cpn_view_byte_layout(v, st, &off);
    return scalar_from(o + k * st[0], v->dtype);
}

/* NumPy's accumulator of a combining reduction (ops.def's acc column: add and multiply widen
 * small integers and bools); the others (maximum, minimum) reduce in the input's dtype. */
static enum cpn_dtype default_acc(enum cpn_opcode code, enum cpn_dtype dt)
{
    int acc = cpn_op_reduce_dtype(code, dt);
    return acc < 0 ? dt : (enum cpn_dtype)acc;
}

PyObject *cpn_fast_full_reduce(PyObject *self, enum cpn_opcode code)
{
    const struct cpn_view *v = cpn_array_view(self);
    const enum cpn_dtype acc = default_acc(code, v->dtype);
    if (cpn_view_size(v) == 0 || v->ndim > 63 || !cpn_op_has_loop(code, acc) ||
        cpn_op_out_dtype(code, 0, acc) != acc)
        return Py_NewRef(Py_NotImplemented);
    /* Pending ops (which the queued reduction joins in one fused pass, their temporaries kept in
     * registers) and virtual stores (regenerated by that pass, not materialized) go the general
     * way: the fast path is for data already in memory. */
    if (cpn_queue_length() > 0 || cpn_store_is_virtual(v->store))
        return Py_NewRef(Py_NotImplemented);
    char *o = local_origin(v);
    if (!o) {
        PyErr_Clear();
        return Py_NewRef(Py_NotImplemented);
    }
    int64_t st[CPN_MAXDIM], off;
    cpn_view_byte_layout(v, st, &off);
    _Alignas(16) unsigned char out[16] = {0};
    bool findings;
    enum cpn_status s = cpn_hostexec_reduce_all(code, v->dtype, acc, o, v->ndim, v->shape, st, out,
                                                &findings);
    if (s != CPN_OK) return cpn_raise(s);
    /* A floating-point finding (overflow, invalid...) is reported under the error mode by the
     * queued reduction: recompute there, which is rare and keeps one reporting path. */
    if (findings) return Py_NewRef(Py_NotImplemented);
    return PyArray_Scalar(out, cpn_descr(acc), NULL);
}

/* ndarray.sum/prod/max/min: the fast path without arguments, else cupynum._reductions. */
static PyObject *reductions_module;

static PyObject *reduce_method(PyObject *self, const char *name, enum cpn_opcode code,
                               PyObject *const *args, Py_ssize_t nargs, PyObject *kwnames)
{
    if (nargs == 0 && (!kwnames || PyTuple_GET_SIZE(kwnames) == 0)) {
        PyObject *r = cpn_fast_full_reduce(self, code);
        if (r != Py_NotImplemented) return r;
        Py_DECREF(r);
    }
    if (!reductions_module) {
        reductions_module = PyImport_ImportModule("cupynum._reductions");
        if (!reductions_module) return NULL;
    }
    PyObject *f = PyObject_GetAttrString(reductions_module, name);
    if (!f) return NULL;
    PyObject *r = cpn_call_with_self(f, self, args, nargs, kwnames);
    Py_DECREF(f);
    return r;
}

PyObject *cpn_call_with_self(PyObject *f, PyObject *self, PyObject *const *args, Py_ssize_t nargs,
                             PyObject *kwnames)
{
    const Py_ssize_t nkw = kwnames ? PyTuple_GET_SIZE(kwnames) : 0;
    PyObject *small[8], **all = small;
    if (nargs + nkw + 1 > 8) {
        all = PyMem_Malloc((size_t)(nargs + nkw + 1) * sizeof *all);
        if (!all) return PyErr_NoMemory();
    }
    all[0] = self;
    for (Py_ssize_t i = 0; i < nargs + nkw; i++) all[i + 1] = args[i];
    PyObject *r = PyObject_Vectorcall(f, all, (size_t)(nargs + 1), kwnames);
    if (all != small) PyMem_Free(all);
    return r;
}

#define REDUCE_METHOD(NAME, CODE)                                                                 \
    static PyObject *array_##NAME(PyObject *self, PyObject *const *args, Py_ssize_t nargs,        \
                                  PyObject *kwnames)                                              \
    {                                                                                             \
        return reduce_method(self, #NAME, CODE, args, nargs, kwnames);                            \
    }
REDUCE_METHOD(sum, CPN_OP_ADD)
REDUCE_METHOD(prod, CPN_OP_MULTIPLY)
REDUCE_METHOD(max, CPN_OP_MAXIMUM)
REDUCE_METHOD(min, CPN_OP_MINIMUM)

#define METHOD_ROW(NAME, DOC)                                                                     \
    {#NAME, (PyCFunction)(void (*)(void))array_##NAME, METH_FASTCALL | METH_KEYWORDS, DOC}
PyMethodDef cpn_array_reduce_methods[] = {
    METHOD_ROW(sum, "Sum of the elements (numpy.ndarray.sum)."),
    METHOD_ROW(prod, "Product of the elements (numpy.ndarray.prod)."),
    METHOD_ROW(max, "Maximum of the elements (numpy.ndarray.max)."),
    METHOD_ROW(min, "Minimum of the elements (numpy.ndarray.min)."),
    {NULL},
};

/* ---- a full reduction of a temporary -----------------------------------------------------------
 *
 * `np.sum(x * x)` returns a NumPy scalar, so the reduction flushes inside the call, while the
 * temporary `x * x` is still held by the call's argument: the fused run would write all of it,
 * though nothing can read it after the call.  The references such an argument has when
 * full_reduce sees it, called from cupynum.sum & co. with an expression, are measured once at
 * import (_core._temp_probe, cupynum/__init__.py, on CPython 3.11-3.13 only), and lending is on only
 * where it is the known least count, TEMP_REFS: the caller's evaluation stack hands the argument to sum's frame
 * and sum passes it on.  A named array, or one that C code holds, has at
 * least one reference more.  At that count the queued reduction flushes with the argument's view
 * lent (cpn_fusion_lend): its pending writer keeps the values in registers.  Not for the
 * ndarray methods: a method's self is borrowed, so C code holding the array would look the same. */
#define TEMP_REFS 2   /* the least count: sum's local and the stack slot of its full_reduce call */
static bool temp_lend[CPN_OP_COUNT];   /* per reduction: the import measured TEMP_REFS */
static int temp_probe = -1;            /* the reduction being measured, or -1 */

/* _core._temp_probe(name): the next full_reduce(a, name, True) measures a's references (and
 * returns None); lending is on for name only where they are TEMP_REFS.  _temp_probe(None) ends
 * the probe. */
PyObject *cpn_mod_temp_probe(PyObject *m, PyObject *arg)
{
    (void)m;
    temp_probe = -1;
    if (arg == Py_None) Py_RETURN_NONE;
    const char *name = PyUnicode_Check(arg) ? PyUnicode_AsUTF8(arg) : NULL;
    const int code = name ? cpn_op_lookup(name) : -1;
    if (code < 0) return PyErr_Format(PyExc_ValueError, "not a reduction: %R", arg);
    temp_probe = code;
    temp_lend[code] = false;
    Py_RETURN_NONE;
}

/* `op` (of one input, over all its axes) queued into a new replicated 0-d array of dtype `dt`
 * and flushed, its input's view lent to the flush when `lend`; the result as NumPy's scalar. */
static PyObject *queued_scalar(struct cpn_op *op, enum cpn_dtype dt, bool lend)
{
    struct cpn_view *v = op->in[0];
    op->axes = v->ndim >= 64 ? ~(uint64_t)0 : ((uint64_t)1 << v->ndim) - 1;
    PyObject *r = cpn_array_new_replicated(dt, 0, NULL);
    if (!r) return NULL;
    op->out[0] = cpn_array_view(r);
    if (cpn_submit(op) < 0) {
        Py_DECREF(r);
        return NULL;
    }
    if (lend) cpn_fusion_lend(v);
    const int f = cpn_flush();
    if (lend) cpn_fusion_lend(NULL);
    PyObject *s = f < 0 ? NULL : cpn_array_to_scalar(r);
    Py_DECREF(r);
    return s;
}

/* The full reduction of `self` into accumulator dtype `acc` queued (cpn_mod_reduce's op) and
 * flushed, with self's view lent to the flush when `lend` (acc is then self's dtype); the result
 * as NumPy's scalar. */
static PyObject *queued_full_reduce(PyObject *self, enum cpn_opcode code, enum cpn_dtype acc, bool lend)
{
    struct cpn_op op = {.kind = CPN_OPK_REDUCE, .code = code, .nin = 1, .nout = 1, .dtype = acc};
    op.in[0] = cpn_array_view(self);
    return queued_scalar(&op, acc, lend);
}

/* _core.full_reduce(a, name, lend=False): the fast path of a full reduction, or None where it
 * does not apply (cupynum/_reductions.py then takes the general way).  lend: the caller is the
 * public function whose temporaries' references were measured (see above). */
PyObject *cpn_mod_full_reduce(PyObject *m, PyObject *const *args, Py_ssize_t nargs)
{
    (void)m;
    if (nargs < 2 || nargs > 3 || !cpn_array_check(args[0]) || !PyUnicode_Check(args[1]))
        Py_RETURN_NONE;
    const char *name = PyUnicode_AsUTF8(args[1]);
    if (!name) return NULL;
    int code = cpn_op_lookup(name);
    if (code < 0 || !cpn_op_combines((enum cpn_opcode)code)) Py_RETURN_NONE;
    const bool lend = nargs == 3 && args[2] == Py_True;
    if (lend && temp_probe == code) {   /* the measuring call: cupynum/__init__.py, at import */
        temp_probe = -1;
        temp_lend[code] = Py_REFCNT(args[0]) == TEMP_REFS;   /* a tracer at import: more */
        Py_RETURN_NONE;
    }
    const struct cpn_view *v = cpn_array_view(args[0]);
    if (lend && temp_lend[code] && Py_REFCNT(args[0]) <= TEMP_REFS && cpn_queue_length() > 0 &&
        !cpn_store_is_virtual(v->store) && cpn_view_size(v) > 0 && v->ndim < 64 &&
        default_acc((enum cpn_opcode)code, v->dtype) == v->dtype && cpn_op_has_loop(code, v->dtype) &&
        cpn_op_out_dtype(code, 0, v->dtype) == v->dtype)
        return queued_full_reduce(args[0], (enum cpn_opcode)code, v->dtype, true);
    PyObject *r = cpn_fast_full_reduce(args[0], (enum cpn_opcode)code);
    if (r != Py_NotImplemented) return r;
    Py_DECREF(r);
    /* pending or tiled: the reduction queued and flushed here, as the general way queues it */
    const enum cpn_dtype acc = default_acc((enum cpn_opcode)code, v->dtype);
    if (cpn_view_size(v) > 0 && v->ndim >= 1 && v->ndim < 64 && cpn_op_has_loop(code, acc) &&
        cpn_op_out_dtype(code, 0, acc) == acc)
        return queued_full_reduce(args[0], (enum cpn_opcode)code, acc, false);
    Py_RETURN_NONE;
}

/* _core.index_range(a): (min, max) of a non-empty contiguous int64 array read in place in one
 * pass, or None where the fast path does not apply (the caller then reduces twice).  The
 * decision depends only on the store's distribution and the queue, which every rank agrees on. */
PyObject *cpn_mod_index_range(PyObject *m, PyObject *a)
{
    (void)m;
    if (!cpn_array_check(a)) Py_RETURN_NONE;
    const struct cpn_view *v = cpn_array_view(a);
    if (v->dtype != CPN_DTYPE_INT64 || cpn_view_size(v) == 0 || !cpn_view_is_contiguous(v))
        Py_RETURN_NONE;
    if (flush_for_read(v) < 0) return NULL;
    const char *o = local_origin(v);
    if (!o) {
        PyErr_Clear();
        Py_RETURN_NONE;
    }
    int64_t lo, hi;
    cpn_hostexec_range_i64(o, cpn_view_size(v), &lo, &hi);
    return Py_BuildValue("(LL)", (long long)lo, (long long)hi);
}

/* ---- concatenate along the first axis ------------------------------------------------------------
 *
 * `np.concatenate([a, b])` of two 100-element arrays took 5.8 us in cupynum/_joins.py's checks
 * and its result's layout (NumPy: 0.7 us) around two assignments.  The common case -- a list or
 * tuple of cupynum arrays of one dtype and ndim >= 1 whose other dimensions agree, none tiled --
 * is done here: the result is _joins._result's for untiled inputs (a new array of the default
 * layout, left uninitialised as every row is written) and each input is assigned to its rows as
 * `target[start:stop] = a` assigns it (one cast op each).  Anything else, and every error, goes
 * the general way.  Untiled is a fact of the stores every rank agrees on, so ranks take the same
 * path. */

#define CONCAT_MAX 64   /* inputs handled here; more go the general way */

/* _core.concat_rows(seq[, axis[, stack]]): the concatenation of seq along `axis` (default 0),
 * or with stack true (axis 0 only) numpy.stack of seq, whose arrays then all have one shape; or
 * None where the general path must run. */
static PyObject *concat_rows(PyObject *seq, int axis, bool stack);

PyObject *cpn_mod_concat_rows(PyObject *m, PyObject *const *args, Py_ssize_t nargs)
{
    (void)m;
    if (nargs < 1 || nargs > 3) Py_RETURN_NONE;
    PyObject *seq = args[0];
    if (!PyList_CheckExact(seq) && !PyTuple_CheckExact(seq)) Py_RETURN_NONE;
    long axis = 0;
    if (nargs > 1) {
        if (!PyLong_CheckExact(args[1])) Py_RETURN_NONE;
        axis = PyLong_AsLong(args[1]);
        if (axis == -1 && PyErr_Occurred()) {
            PyErr_Clear();
            Py_RETURN_NONE;
        }
        if (axis < 0 || axis >= CPN_MAXDIM) Py_RETURN_NONE;
    }
    const bool stack = nargs > 2 && PyObject_IsTrue(args[2]) == 1;
    if (stack && axis != 0) Py_RETURN_NONE;
    /* a tuple of the inputs, held to the end: an assignment may flush, and a flush may run Python
     * (a warning's hook, the collector) that changes a list whose items were borrowed */
    PyObject *tup = PySequence_Tuple(seq);
    if (!tup) return NULL;
    PyObject *r = concat_rows(tup, (int)axis, stack);
    Py_DECREF(tup);
    return r;
}

static PyObject *concat_rows(PyObject *seq, int axis, bool stack)
{
    const Py_ssize_t k = PySequence_Fast_GET_SIZE(seq);
    if (k < 1 || k > CONCAT_MAX) Py_RETURN_NONE;
    PyObject **items = PySequence_Fast_ITEMS(seq);
    struct cpn_view *vs[CONCAT_MAX];
    for (Py_ssize_t i = 0; i < k; i++) {
        if (Py_TYPE(items[i]) != cpn_array_type) Py_RETURN_NONE;
        vs[i] = cpn_array_view(items[i]);
    }
    const struct cpn_view *f = vs[0];
    if (f->ndim < 1 || axis >= f->ndim || (stack && f->ndim + 1 > CPN_MAXDIM)) Py_RETURN_NONE;
    /* the result's shape: a stack puts a dimension of k in front, a concatenation sums `axis` */
    int64_t shape[CPN_MAXDIM];
    const int rnd = f->ndim + (stack ? 1 : 0);
    if (stack) {
        shape[0] = (int64_t)k;
        memcpy(shape + 1, f->shape, sizeof(int64_t) * (size_t)f->ndim);
    } else {
        memcpy(shape, f->shape, sizeof(int64_t) * (size_t)f->ndim);
        shape[axis] = 0;
    }
    for (Py_ssize_t i = 0; i < k; i++) {
        const struct cpn_view *v = vs[i];
        if (v->dtype != f->dtype || v->ndim != f->ndim || cpn_store_root(v->store)->tiled)
            Py_RETURN_NONE;
        for (int d = 0; d < f->ndim; d++)
            if ((stack || d != axis) && v->shape[d] != f->shape[d]) Py_RETURN_NONE;
        if (!stack) shape[axis] += v->shape[axis];
    }
    PyObject *r = cpn_array_new(f->dtype, rnd, shape);
    if (!r) return NULL;
    struct cpn_view *rv = cpn_array_view(r);
    rv->store->uninit = true;
    int64_t start = 0;
    for (Py_ssize_t i = 0; i < k; i++) {
        /* a stack's input fills one (1, shape...) slice, broadcast into it */
        const int64_t n = stack ? 1 : vs[i]->shape[axis];
        if (!n) continue;
        struct cpn_view *rows = NULL;
        enum cpn_status st = cpn_view_slice(rv, axis, start, 1, n, &rows);
        if (st != CPN_OK) {
            Py_DECREF(r);
            return cpn_raise(st);
        }
        const int rc = cpn_assign(rows, items[i]);
        cpn_view_release(rows);
        if (rc < 0) {
            Py_DECREF(r);
            return NULL;
        }
        start += n;
    }
    return r;
}

/* _core.full_argreduce(a, 'maximum'|'minimum'): argmax/argmin of the whole of an untiled
 * non-empty array (ndim >= 1) as NumPy's intp scalar -- the argreduce op _reductions._arg queues,
 * queued and read here without its Python (2.2 -> 1.3 us for 100 elements) -- or None where
 * _arg must run (0-d, empty: its errors; tiled: its owner-computes composition). */
PyObject *cpn_mod_full_argreduce(PyObject *m, PyObject *const *args, Py_ssize_t nargs)
{
    (void)m;
    if (nargs != 2 || Py_TYPE(args[0]) != cpn_array_type || !PyUnicode_Check(args[1])) Py_RETURN_NONE;
    const char *name = PyUnicode_AsUTF8(args[1]);
    if (!name) return NULL;
    const int code = cpn_op_lookup(name);
    if (code != CPN_OP_MAXIMUM && code != CPN_OP_MINIMUM) Py_RETURN_NONE;
    struct cpn_view *v = cpn_array_view(args[0]);
    if (v->ndim < 1 || v->ndim >= 64 || cpn_view_size(v) == 0 || cpn_store_root(v->store)->tiled)
        Py_RETURN_NONE;
    struct cpn_op op = {.kind = CPN_OPK_ARGREDUCE, .code = code, .nin = 1, .nout = 1, .dtype = v->dtype};
    op.in[0] = v;
    return queued_scalar(&op, CPN_DTYPE_INT64, false);
}

/* _core.nonzero_rows(m): nonzero(m) for a contiguous non-empty bool array (ndim >= 1) whose bytes
 * this process holds (untiled, on the host): the count read in place (flushed first if the queue
 * writes m), the nonzero op queued as _selection.nonzero queues it, and the tuple of the index
 * array's rows (views, as idx[d]); 3.3 -> ~1.5 us for 100 elements.  None elsewhere (the general
 * path, which counts by a reduction every rank shares). */
PyObject *cpn_mod_nonzero_rows(PyObject *m, PyObject *a)
{
    (void)m;
    if (Py_TYPE(a) != cpn_array_type) Py_RETURN_NONE;
    struct cpn_view *v = cpn_array_view(a);
    const int64_t n = cpn_view_size(v);
    if (v->dtype != CPN_DTYPE_BOOL || v->ndim < 1 || n == 0 || cpn_store_root(v->store)->tiled ||
        !cpn_view_is_contiguous(v))
        Py_RETURN_NONE;
    int err;
    const char *o = key_origin(v, &err);
    if (!o) {
        if (err < 0) return NULL;
        Py_RETURN_NONE;
    }
    PyObject *idx = cpn_queue_nonzero(v, cpn_hostexec_count_true(o, n));
    if (!idx) return NULL;
    PyObject *t = PyTuple_New(v->ndim);
    if (!t) goto fail;
    for (int d = 0; d < v->ndim; d++) {
        struct cpn_view *row = NULL;
        enum cpn_status st = cpn_view_index(cpn_array_view(idx), 0, d, &row);
        if (st != CPN_OK) {
            cpn_raise(st);
            goto fail;
        }
        PyObject *r = cpn_array_wrap(row);
        if (!r) goto fail;
        PyTuple_SET_ITEM(t, d, r);
    }
    Py_DECREF(idx);
    return t;
fail:
    Py_XDECREF(t);
    Py_DECREF(idx);
    return NULL;
}

/* ---- interp of small real tables ----------------------------------------------------------------
 *
 * numpy.interp(x, xp, fp) through cupynum/_calculus.py's ops (a search, four gathers and a score
 * of element-wise ops) took 60 us for 1,000 points against NumPy's 7.  Where x (up to
 * INTERP_FAST_MAX points), xp and fp are
 * contiguous float64 arrays held whole on this rank (untiled, on the host) and the result is
 * untiled too, NumPy's own loop (kernels/interp.c) computes the result here into a new array's
 * buffer, after a flush of whatever writes the inputs.  Every rank holding the whole inputs
 * computes the same values, as for any untiled array; tiled arrays, other dtypes, views, complex
 * tables, a period and every error go the general (owner-computes) way.  Untiledness is a fact
 * of the stores every rank agrees on, so ranks take the same path. */

/* Most queries computed here: beyond, the general path's threaded search of the queued ops is
 * faster than NumPy's one loop (10^6 points in a table of 10^5: 58 ms against 92 on a loaded
 * machine), at 10^5 they are even. */
#define INTERP_FAST_MAX 65536

/* A left/right argument as NumPy's PyFloat_AsDouble reads it (None: `dflt`); false where the
 * general path must convert it (other types, their errors). */
static bool interp_bound(PyObject *o, double dflt, double *v)
{
    if (o == Py_None) {
        *v = dflt;
        return true;
    }
    if (PyFloat_CheckExact(o)) {
        *v = PyFloat_AS_DOUBLE(o);
        return true;
    }
    if (PyLong_CheckExact(o)) {
        *v = PyLong_AsDouble(o);
        if (*v == -1.0 && PyErr_Occurred()) {
            PyErr_Clear();
            return false;
        }
        return true;
    }
    return false;
}

/* Is o an input the fast path takes: a contiguous float64 cupynum array whose store is
 * untiled? */
static bool interp_input(PyObject *o)
{
    if (Py_TYPE(o) != cpn_array_type) return false;
    const struct cpn_view *v = cpn_array_view(o);
    return v->dtype == CPN_DTYPE_FLOAT64 && cpn_view_is_contiguous(v) && !cpn_store_root(v->store)->tiled;
}

/* _core.interp_fast(x, xp, fp, left, right): numpy.interp's result for the inputs above (x of
 * ndim >= 1; xp, fp 1-d of one length >= 1; left/right None, float or int), or None where the
 * general path must run. */
PyObject *cpn_mod_interp_fast(PyObject *m, PyObject *const *args, Py_ssize_t nargs)
{
    (void)m;
    if (nargs != 5 || !interp_input(args[0]) || !interp_input(args[1]) || !interp_input(args[2]))
        Py_RETURN_NONE;
    const struct cpn_view *vs[3] = {cpn_array_view(args[0]), cpn_array_view(args[1]), cpn_array_view(args[2])};
    const int64_t lenxp = vs[1]->shape[0];
    if (vs[0]->ndim < 1 || vs[1]->ndim != 1 || vs[2]->ndim != 1 || lenxp < 1 || vs[2]->shape[0] != lenxp ||
        cpn_view_size(vs[0]) > INTERP_FAST_MAX)
        Py_RETURN_NONE;
    /* every flush first (one may move data), then the bytes where they lie */
    for (int i = 0; i < 3; i++)
        if (flush_for_read(vs[i]) < 0) return NULL;
    const double *in[3];
    for (int i = 0; i < 3; i++) {
        in[i] = (const double *)local_origin(vs[i]);
        if (!in[i]) {
            PyErr_Clear();
            Py_RETURN_NONE;
        }
    }
    double lval, rval;
    if (!interp_bound(args[3], in[2][0], &lval) || !interp_bound(args[4], in[2][lenxp - 1], &rval))
        Py_RETURN_NONE;
    PyObject *r = cpn_array_new(CPN_DTYPE_FLOAT64, vs[0]->ndim, vs[0]->shape);
    if (!r) return NULL;
    struct cpn_store *rs = cpn_array_view(r)->store;
    if (cpn_store_root(rs)->tiled) {   /* a result the ranks share: the general way */
        Py_DECREF(r);
        Py_RETURN_NONE;
    }
    double *out = cpn_store_data_for_overwrite(rs);   /* (runs no op: the inputs stay put) */
    if (!out) {
        Py_DECREF(r);
        return cpn_raise(CPN_ERR_NOMEM);
    }
    cpn_hostexec_interp(in[0], cpn_view_size(vs[0]), in[1], in[2], lenxp, lval, rval, out);
    return r;
}

/* ---- correlate and convolve of small untiled vectors --------------------------------------------
 *
 * cupynum/_calculus.py's correlation adds one shifted product per kernel element (two queued ops
 * each): 12 us for 1,000 points and a kernel of 5 against NumPy's 1.6, and, adding in its own
 * order, not NumPy's bits where NumPy's dots are BLAS's.  Where both operands are 1-d cupynum
 * arrays of one float or complex dtype held whole here and the result is untiled,
 * NumPy's own sequence of dots (kernels/matmul.c, cpn_kernel_correlate) fills the new result
 * here, reversed where the operands were swapped (PyArray_Correlate2's inversion).  Everything
 * else goes the general (owner-computes) way; ranks decide alike (untiled is a fact of the
 * stores). */

/* _core.correlate_fast(a, v, mode[, conj]): numpy.correlate(a, v, mode) for mode 0/1/2 (a and v
 * non-empty, any stride), v conjugated here when conj is True (else taken as it is), or None
 * where the general path must run. */
PyObject *cpn_mod_correlate_fast(PyObject *m, PyObject *const *args, Py_ssize_t nargs)
{
    (void)m;
    if (nargs < 3 || nargs > 4 || Py_TYPE(args[0]) != cpn_array_type || Py_TYPE(args[1]) != cpn_array_type ||
        !PyLong_CheckExact(args[2]))
        Py_RETURN_NONE;
    const bool conj = nargs == 4 && args[3] == Py_True;
    const long mode = PyLong_AsLong(args[2]);
    if (mode < 0 || mode > 2) {
        PyErr_Clear();
        Py_RETURN_NONE;
    }
    const struct cpn_view *vs[2] = {cpn_array_view(args[0]), cpn_array_view(args[1])};
    const enum cpn_dtype dt = vs[0]->dtype;
    if (dt != CPN_DTYPE_FLOAT32 && dt != CPN_DTYPE_FLOAT64 && dt != CPN_DTYPE_COMPLEX64 &&
        dt != CPN_DTYPE_COMPLEX128)
        Py_RETURN_NONE;
    for (int i = 0; i < 2; i++)
        if (vs[i]->dtype != dt || vs[i]->ndim != 1 || vs[i]->shape[0] < 1 || cpn_store_root(vs[i]->store)->tiled)
            Py_RETURN_NONE;
    for (int i = 0; i < 2; i++)
        if (flush_for_read(vs[i]) < 0) return NULL;
    /* the operands' bytes where they lie; a strided one (convolve's reversed kernel) packed, as
     * NumPy's PyArray_FromAny makes both contiguous */
    const size_t item = cpn_dtype_size(dt);
    const char *in[2];
    char *packed[2] = {NULL, NULL};
    for (int i = 0; i < 2; i++) {
        if (!(in[i] = local_origin(vs[i]))) {
            PyErr_Clear();
            Py_RETURN_NONE;
        }
        int64_t st[CPN_MAXDIM], off;
        cpn_view_byte_layout(vs[i], st, &off);
        const bool cj = i == 1 && conj && (dt == CPN_DTYPE_COMPLEX64 || dt == CPN_DTYPE_COMPLEX128);
        if ((st[0] != (int64_t)item && vs[i]->shape[0] > 1) || cj) {
            const int64_t n = vs[i]->shape[0];
            if (!(packed[i] = cpn_alloc(item * (size_t)n))) {
                cpn_free(packed[0]);
                return cpn_raise(CPN_ERR_NOMEM);
            }
            for (int64_t k = 0; k < n; k++) memcpy(packed[i] + k * item, in[i] + k * st[0], item);
            if (cj && dt == CPN_DTYPE_COMPLEX64)   /* numpy.correlate's conjugate of v */
                for (int64_t k = 0; k < n; k++) ((float *)packed[i])[2 * k + 1] = -((float *)packed[i])[2 * k + 1];
            else if (cj)
                for (int64_t k = 0; k < n; k++) ((double *)packed[i])[2 * k + 1] = -((double *)packed[i])[2 * k + 1];
            in[i] = packed[i];
        }
    }
    const bool inverted = vs[0]->shape[0] < vs[1]->shape[0];
    const int l = inverted ? 1 : 0;
    const int64_t n1 = vs[l]->shape[0], n2 = vs[1 - l]->shape[0];
    const int64_t len = mode == 0 ? n1 - n2 + 1 : mode == 1 ? n1 : n1 + n2 - 1;
    PyObject *r = cpn_array_new(dt, 1, &len);
    char *out = NULL;
    if (r && cpn_store_root(cpn_array_view(r)->store)->tiled)   /* a result the ranks share */
        Py_CLEAR(r);
    else if (r && !(out = cpn_store_data_for_overwrite(cpn_array_view(r)->store))) {
        Py_CLEAR(r);   /* (the allocation runs no op: the inputs stay put) */
        cpn_raise(CPN_ERR_NOMEM);
    }
    if (out) cpn_hostexec_correlate(dt, in[l], n1, in[1 - l], n2, (int)mode, out);
    cpn_free(packed[0]);
    cpn_free(packed[1]);
    if (!r) return PyErr_Occurred() ? NULL : Py_NewRef(Py_None);
    if (inverted) {   /* _pyarray_revert */
        _Alignas(16) unsigned char t[16];
        for (int64_t i = 0, j = len - 1; i < j; i++, j--) {
            memcpy(t, out + i * item, item);
            memcpy(out + i * item, out + j * item, item);
            memcpy(out + j * item, t, item);
        }
    }
    return r;
}
