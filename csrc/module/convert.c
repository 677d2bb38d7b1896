/* convert.c: dtypes, wrapping views as ndarrays, and moving data between NumPy and stores.
 *
 * Data crosses the runtime boundary here only: from NumPy when an array is created from data,
 * to NumPy when a value leaves (after a flush). */
#include "cpn_module.h"

#include "dist.h"

static PyArray_Descr *descrs[CPN_DTYPE_COUNT];
static const int typenums[CPN_DTYPE_COUNT] = {
    NPY_BOOL, NPY_INT8, NPY_UINT8, NPY_INT16, NPY_UINT16, NPY_INT32, NPY_UINT32,
    NPY_INT64, NPY_UINT64, NPY_FLOAT16, NPY_FLOAT32, NPY_FLOAT64, NPY_COMPLEX64, NPY_COMPLEX128,
};

int cpn_convert_init(void)
{
    for (int i = 0; i < CPN_DTYPE_COUNT; i++) {
        descrs[i] = PyArray_DescrFromType(typenums[i]);
        if (!descrs[i]) return -1;
    }
    return 0;
}

PyArray_Descr *cpn_descr(enum cpn_dtype dt) { return descrs[dt]; }

int cpn_dtype_from_descr(PyArray_Descr *d)
{
    if (PyDataType_ISNOTSWAPPED(d)) {
        int size = (int)PyDataType_ELSIZE(d);
        switch (d->kind) {
        case 'b': return CPN_DTYPE_BOOL;
        case 'i':
            switch (size) {
            case 1: return CPN_DTYPE_INT8;
            case 2: return CPN_DTYPE_INT16;
            case 4: return CPN_DTYPE_INT32;
            case 8: return CPN_DTYPE_INT64;
            }
            break;
        case 'u':
            switch (size) {
            case 1: return CPN_DTYPE_UINT8;
            case 2: return CPN_DTYPE_UINT16;
            case 4: return CPN_DTYPE_UINT32;
            case 8: return CPN_DTYPE_UINT64;
            }
            break;
        case 'f':
            switch (size) {
            case 2: return CPN_DTYPE_FLOAT16;
            case 4: return CPN_DTYPE_FLOAT32;
            case 8: return CPN_DTYPE_FLOAT64;
            }
            break;
        case 'c':
            switch (size) {
            case 8: return CPN_DTYPE_COMPLEX64;
            case 16: return CPN_DTYPE_COMPLEX128;
            }
            break;
        }
    }
    PyErr_Format(PyExc_TypeError, "cupynum does not support dtype %R", (PyObject *)d);
    return -1;
}

int cpn_dtype_from_object(PyObject *o)
{
    PyArray_Descr *d = NULL;
    if (!PyArray_DescrConverter(o, &d)) return -1;
    int r = cpn_dtype_from_descr(d);
    Py_DECREF(d);
    return r;
}

PyObject *cpn_array_wrap(struct cpn_view *v)
{
    if (!v) return cpn_raise(CPN_ERR_NOMEM);
    CpnArray *a = (CpnArray *)cpn_array_type->tp_alloc(cpn_array_type, 0);
    if (!a) {
        cpn_view_release(v);
        return NULL;
    }
    a->view = v;
    return (PyObject *)a;
}

static PyObject *wrap_store(struct cpn_store *s)
{
    if (!s) return cpn_raise(cpn_error_status() == CPN_ERR_NOMEM ? CPN_ERR_NOMEM : CPN_ERR_VALUE);
    struct cpn_view *v = cpn_view_new(s);
    cpn_store_release(s);
    return cpn_array_wrap(v);
}

PyObject *cpn_array_new(enum cpn_dtype dt, int ndim, const int64_t *shape)
{
    return wrap_store(cpn_store_new(dt, ndim, shape));
}

PyObject *cpn_array_new_like(enum cpn_dtype dt, int ndim, const int64_t *shape,
                             const struct cpn_view *like)
{
    return wrap_store(cpn_store_new_like(dt, ndim, shape, like));
}

PyObject *cpn_array_new_like_n(enum cpn_dtype dt, int ndim, const int64_t *shape, int n,
                               const struct cpn_view *const *like)
{
    return wrap_store(cpn_store_new_like_n(dt, ndim, shape, n, like));
}

PyObject *cpn_array_from_store(struct cpn_store *s)
{
    return wrap_store(s);
}

PyObject *cpn_array_new_replicated(enum cpn_dtype dt, int ndim, const int64_t *shape)
{
    return wrap_store(cpn_store_new_replicated(dt, ndim, shape));
}

PyObject *cpn_array_from_numpy(PyArrayObject *src)
{
    int dt = cpn_dtype_from_descr(PyArray_DESCR(src));
    PyArrayObject *a;
    if (dt < 0) {
        /* Non-native byte order converts; other kinds (object, str, datetime) are unsupported. */
        char kind = PyArray_DESCR(src)->kind;
        if (!strchr("biufc", kind)) return NULL;
        PyErr_Clear();
        PyArray_Descr *nd = PyArray_DescrNewByteorder(PyArray_DESCR(src), NPY_NATIVE);
        if (!nd) return NULL;
        dt = cpn_dtype_from_descr(nd);
        Py_DECREF(nd);
        if (dt < 0) return NULL;
    }
    Py_INCREF(descrs[dt]);
    a = (PyArrayObject *)PyArray_FromArray(src, descrs[dt], NPY_ARRAY_C_CONTIGUOUS | NPY_ARRAY_ALIGNED);
    if (!a) return NULL;
    int64_t shape[CPN_MAXDIM];
    int nd = PyArray_NDIM(a);
    if (nd > CPN_MAXDIM) {
        Py_DECREF(a);
        PyErr_Format(PyExc_ValueError, "cupynum supports at most %d dimensions", CPN_MAXDIM);
        return NULL;
    }
    for (int i = 0; i < nd; i++) shape[i] = PyArray_DIM(a, i);
    PyObject *r = cpn_array_new((enum cpn_dtype)dt, nd, shape);
    if (r) {
        /* Every rank holds the same data (SPMD): each keeps its own tile of it. */
        struct cpn_view *v = cpn_array_view(r);
        enum cpn_status st = cpn_dist_scatter(v->store, PyArray_DATA(a));
        if (st != CPN_OK) {
            Py_DECREF(r);
            r = cpn_raise(st);
        }
    }
    Py_DECREF(a);
    return r;
}

PyObject *cpn_array_from_any(PyObject *o)
{
    if (cpn_array_check(o)) {
        Py_INCREF(o);
        return o;
    }
    PyObject *a = PyArray_FromAny(o, NULL, 0, 0, 0, NULL);
    if (!a) return NULL;
    PyObject *r = cpn_array_from_numpy((PyArrayObject *)a);
    Py_DECREF(a);
    return r;
}

PyObject *cpn_array_to_numpy(PyObject *self)
{
    if (cpn_flush() < 0) return NULL;
    struct cpn_view *v = cpn_array_view(self);
    const struct cpn_store *root = cpn_store_root(v->store);
    if (root->poison != CPN_OK) {
        cpn_error(root->poison, "%s", root->poison_msg ? root->poison_msg : "cupynum: failed deferred operation");
        return cpn_raise(root->poison);
    }
    npy_intp dims[CPN_MAXDIM];
    for (int i = 0; i < v->ndim; i++) dims[i] = v->shape[i];
    PyArray_Descr *d = descrs[v->dtype];
    Py_INCREF(d);
    PyArrayObject *a = (PyArrayObject *)PyArray_NewFromDescr(&PyArray_Type, d, v->ndim, dims,
                                                             NULL, NULL, 0, NULL);
    if (!a || PyArray_SIZE(a) == 0) return (PyObject *)a;
    int64_t strides[CPN_MAXDIM];
    for (int i = 0; i < v->ndim; i++) strides[i] = PyArray_STRIDE(a, i);
    enum cpn_status st = cpn_dist_read(v, PyArray_DATA(a), strides);   /* gathers on every rank */
    if (st != CPN_OK) {
        Py_DECREF(a);
        return cpn_raise(st);
    }
    return (PyObject *)a;
}

PyObject *cpn_array_to_scalar(PyObject *self)
{
    PyObject *fast = cpn_fast_scalar(cpn_array_view(self));
    if (fast != Py_NotImplemented) return fast;
    Py_DECREF(fast);
    PyObject *a = cpn_array_to_numpy(self);
    if (!a) return NULL;
    PyObject *r = PyArray_Scalar(PyArray_DATA((PyArrayObject *)a), PyArray_DESCR((PyArrayObject *)a), a);
    Py_DECREF(a);
    return r;
}

int cpn_pack_scalar(PyObject *value, enum cpn_dtype dt, union cpn_scalar *out)
{
    memset(out, 0, sizeof *out);
    return PyArray_Pack(descrs[dt], out->bytes, value);
}

PyObject *cpn_array_cast(PyObject *src, enum cpn_dtype dt)
{
    struct cpn_view *sv = cpn_array_view(src);
    PyObject *r = cpn_array_new_like(dt, sv->ndim, sv->shape, sv);
    if (!r) return NULL;
    struct cpn_op op = {.kind = CPN_OPK_CAST, .nin = 1, .nout = 1};
    op.in[0] = sv;
    op.out[0] = cpn_array_view(r);
    if (cpn_submit(&op) < 0) Py_CLEAR(r);
    return r;
}

static int is_scalar_value(PyObject *o)
{
    return PyLong_Check(o) || PyFloat_Check(o) || PyComplex_Check(o) || PyBool_Check(o) ||
           PyArray_IsScalar(o, Number) || PyArray_IsScalar(o, Bool);
}

/* A shape as NumPy's C errors print it: "(3,5,7)", "(2,)", "()" (no spaces, unlike a tuple). */
static PyObject *shape_str(const struct cpn_view *v)
{
    char buf[CPN_MAXDIM * 22 + 4];
    int n = 0;
    buf[n++] = '(';
    for (int i = 0; i < v->ndim; i++)
        n += snprintf(buf + n, sizeof buf - (size_t)n, i ? ",%lld" : "%lld", (long long)v->shape[i]);
    if (v->ndim == 1) buf[n++] = ',';
    buf[n++] = ')';
    return PyUnicode_FromStringAndSize(buf, n);
}

/* NumPy's ComplexWarning for complex values cast into a real array; -1 when it is an error. */
static int complex_warning(void)
{
    static PyObject *cls;
    if (!cls) {
        PyObject *m = PyImport_ImportModule("numpy.exceptions");
        if (!m) return -1;
        cls = PyObject_GetAttrString(m, "ComplexWarning");
        Py_DECREF(m);
        if (!cls) return -1;
    }
    return PyErr_WarnEx(cls, "Casting complex values to real discards the imaginary part", 1);
}

/* Is the error set PyArray_FromAny's "object too deep for desired array" (its max_depth)?
 * Then it is cleared. */
static int too_deep_error(void)
{
    if (!PyErr_ExceptionMatches(PyExc_ValueError)) return 0;
    PyObject *type, *val, *tb;
    PyErr_Fetch(&type, &val, &tb);
    PyObject *msg = val ? PyObject_Str(val) : NULL;
    const int deep = msg && PyUnicode_CompareWithASCIIString(msg, "object too deep for desired array") == 0;
    Py_XDECREF(msg);
    PyErr_Clear();
    if (deep) {
        Py_XDECREF(type);
        Py_XDECREF(val);
        Py_XDECREF(tb);
    } else {
        PyErr_Restore(type, val, tb);
    }
    return deep;
}

int cpn_assign(struct cpn_view *dst, PyObject *value)
{
    if (dst->readonly) {
        PyErr_SetString(PyExc_ValueError, "assignment destination is read-only");
        return -1;
    }
    struct cpn_op op = {.kind = CPN_OPK_CAST, .nin = 1, .nout = 1};
    op.out[0] = dst;
    if (is_scalar_value(value)) {
        if (cpn_pack_scalar(value, dst->dtype, &op.scalar[0]) < 0) return -1;
        op.dtype = dst->dtype;
        return cpn_submit(&op);
    }
    PyObject *src;
    if (cpn_array_check(value)) {
        /* NumPy's cast of complex values into a real array warns (the imaginary part is lost). */
        if (cpn_dtype_class(cpn_array_view(value)->dtype) == CPN_CLASS_COMPLEX &&
            cpn_dtype_class(dst->dtype) != CPN_CLASS_COMPLEX && complex_warning() < 0)
            return -1;
        src = Py_NewRef(value);
    } else {
        /* NumPy converts the value to the target's dtype (strings parse, floats truncate),
         * discovering a sequence's shape to at most the target's dimensions first (an array
         * value broadcasts instead: its leading 1s drop). */
        const int seq = PyList_Check(value) || PyTuple_Check(value);
        PyObject *a = NULL;
        if (!(seq && dst->ndim == 0)) {
            Py_INCREF(descrs[dst->dtype]);
            a = PyArray_FromAny(value, descrs[dst->dtype], 0, seq ? dst->ndim : 0,
                                NPY_ARRAY_FORCECAST, NULL);
            if (!a && !(seq && too_deep_error())) return -1;
        }
        if (!a || (!PyArray_Check(value) && PyArray_NDIM((PyArrayObject *)a) > dst->ndim)) {
            Py_XDECREF(a);
            PyErr_Format(PyExc_ValueError, "setting an array element with a sequence. The requested "
                         "array would exceed the maximum number of dimension of %d.", dst->ndim);
            return -1;
        }
        src = cpn_array_from_numpy((PyArrayObject *)a);
        Py_DECREF(a);
    }
    if (!src) return -1;
    struct cpn_view *sv = cpn_array_view(src), *bv = NULL, *trimmed = NULL;
    /* NumPy drops leading extent-1 dimensions of the value that the target lacks, as many as
     * lead (PyArray_AssignArray; its broadcast error prints the shape left). */
    if (sv->ndim > dst->ndim) {
        int extra = 0;
        while (sv->ndim - extra > dst->ndim && sv->shape[extra] == 1) extra++;
        if (extra && cpn_view_reshape(sv, sv->ndim - extra, sv->shape + extra, &trimmed) == CPN_OK)
            sv = trimmed;
    }
    enum cpn_status st = sv->ndim <= dst->ndim ? cpn_view_broadcast(sv, dst->ndim, dst->shape, &bv)
                                               : CPN_ERR_VALUE;
    if (st != CPN_OK) {
        cpn_error_clear();
        PyObject *a = shape_str(sv), *b = shape_str(dst);
        if (a && b)
            PyErr_Format(PyExc_ValueError, "could not broadcast input array from shape %U into shape %U", a, b);
        Py_XDECREF(a);
        Py_XDECREF(b);
        cpn_view_release(trimmed);
        Py_DECREF(src);
        return -1;
    }
    op.in[0] = bv;
    int r = cpn_submit(&op);
    cpn_view_release(bv);
    cpn_view_release(trimmed);
    Py_DECREF(src);
    return r;
}

/* Is the view its root store whole, in C order (what a file's bytes are laid out as)? */
static int whole_root(const struct cpn_view *v)
{
    const struct cpn_store *s = v->store;
    if (s->root || v->ndim != s->ndim) return 0;
    int64_t st[CPN_MAXDIM], off;
    cpn_view_byte_layout(v, st, &off);
    if (cpn_view_size(v) == 0) return 1;
    if (off != 0) return 0;
    size_t item = cpn_dtype_size(v->dtype);
    for (int d = 0; d < v->ndim; d++)
        if (v->shape[d] != s->shape[d] || (v->shape[d] > 1 && st[d] != s->stride[d] * (int64_t)item))
            return 0;
    return 1;
}

static PyObject *box_tuple(int n, const int64_t *x)
{
    PyObject *t = PyTuple_New(n);
    for (int d = 0; t && d < n; d++) PyTuple_SET_ITEM(t, d, PyLong_FromLongLong(x[d]));
    return t;
}

/* This rank's tile [lo, hi) of the whole root store a as a NumPy array viewing the store's host
 * buffer, C order, its base the ndarray a (which keeps the store alive); `overwrite`: writable,
 * the caller writes every element (nothing is copied from the device), else read-only.  Valid
 * until the next op on the store: the caller uses it at once.  None when a is not a whole root
 * store in C order. */
static PyObject *tile_view(PyObject *a, int overwrite)
{
    if (cpn_check_array(a) < 0) return NULL;
    if (cpn_flush() < 0) return NULL;
    struct cpn_view *v = cpn_array_view(a);
    if (!whole_root(v)) Py_RETURN_NONE;
    struct cpn_store *s = v->store;
    if (!overwrite && s->poison != CPN_OK) {
        cpn_error(s->poison, "%s", s->poison_msg ? s->poison_msg : "cupynum: failed deferred operation");
        return cpn_raise(s->poison);
    }
    int64_t lo[CPN_MAXDIM] = {0}, hi[CPN_MAXDIM];
    npy_intp dims[CPN_MAXDIM];
    for (int d = 0; d < s->ndim; d++) {
        lo[d] = s->tiled ? s->tlo[d] : 0;
        hi[d] = s->tiled ? s->thi[d] : s->shape[d];
        dims[d] = hi[d] > lo[d] ? hi[d] - lo[d] : 0;
    }
    char *data = overwrite ? cpn_store_data_for_overwrite(s) : cpn_store_data(s);
    if (!data) return cpn_raise(CPN_ERR_NOMEM);
    if (overwrite) s->poison = CPN_OK;
    PyArray_Descr *d = descrs[v->dtype];
    Py_INCREF(d);
    PyObject *arr = PyArray_NewFromDescr(&PyArray_Type, d, s->ndim, dims, NULL, data,
                                         overwrite ? NPY_ARRAY_CARRAY : NPY_ARRAY_CARRAY_RO, NULL);
    if (!arr) return NULL;
    Py_INCREF(a);
    if (PyArray_SetBaseObject((PyArrayObject *)arr, a) < 0) {
        Py_DECREF(arr);
        return NULL;
    }
    return Py_BuildValue("(NNN)", box_tuple(s->ndim, lo), box_tuple(s->ndim, hi), arr);
}

/* _tile_read(a) -> (lo, hi, read-only view of this rank's tile), or None (tile_view).  Moves
 * nothing between ranks (files: each rank writes its own part).  Local after the flush. */
PyObject *cpn_mod_tile_read(PyObject *m, PyObject *a)
{
    return tile_view(a, 0);
}

/* _tile_buffer(a) -> (lo, hi, writable view of this rank's tile) of a fresh whole root store,
 * for the caller to fill every element of (tile_view).  Local after the flush. */
PyObject *cpn_mod_tile_buffer(PyObject *m, PyObject *a)
{
    PyObject *r = tile_view(a, 1);
    if (r == Py_None) {
        Py_DECREF(r);
        PyErr_SetString(PyExc_ValueError, "_tile_buffer: not a whole root store");
        return NULL;
    }
    return r;
}
