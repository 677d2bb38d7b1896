/* index.c: NumPy's basic indexing as view arithmetic.
 *
 * Integers, slices (any step), Ellipsis and None build a view of the same store, so a write
 * through the result is seen in the original.  Anything else (integer or boolean arrays: advanced
 * indexing) is handed to the Python helpers of cupynum/_ndarray.py: an aligned boolean-mask
 * assignment becomes the select op there; the rest is computed with NumPy on the gathered data
 * and written back for assignments. */
#include "cpn_module.h"

enum idx_kind { IDX_INT, IDX_SLICE, IDX_NEWAXIS, IDX_ELLIPSIS, IDX_COUNT };

struct idx {
    enum idx_kind kind;
    PyObject *obj;     /* borrowed */
    Py_ssize_t value;  /* IDX_INT */
};

/* Is `o` a basic index item?  Fills it; 0 when advanced. */
static int basic_item(PyObject *o, struct idx *it)
{
    it->obj = o;
    if (PySlice_Check(o)) { it->kind = IDX_SLICE; return 1; }
    if (o == Py_None) { it->kind = IDX_NEWAXIS; return 1; }
    if (o == Py_Ellipsis) { it->kind = IDX_ELLIPSIS; return 1; }
    if (PyBool_Check(o) || PyArray_IsScalar(o, Bool)) return 0;
    if (PyLong_Check(o) || PyArray_IsScalar(o, Integer) ||
        (cpn_array_check(o) && cpn_array_view(o)->ndim == 0 &&
         cpn_dtype_class(cpn_array_dtype(o)) <= CPN_CLASS_UINT && cpn_array_dtype(o) != CPN_DTYPE_BOOL) ||
        (PyArray_CheckExact(o) && PyArray_NDIM((PyArrayObject *)o) == 0 &&
         PyArray_ISINTEGER((PyArrayObject *)o))) {
        it->kind = IDX_INT;
        PyObject *i = PyNumber_Index(o);
        if (!i) return -1;
        it->value = PyLong_AsSsize_t(i);
        if (it->value == -1 && PyErr_Occurred()) {
            if (PyErr_ExceptionMatches(PyExc_OverflowError)) {
                /* NumPy's texts: an integer of 64 unsigned bits fails its conversion to a C
                 * long; a larger one is not a valid index at all */
                PyErr_Clear();
                (void)PyLong_AsUnsignedLongLong(i);
                if (PyErr_Occurred()) {
                    PyErr_Clear();
                    PyErr_SetString(PyExc_IndexError,
                                    "only integers, slices (`:`), ellipsis (`...`), numpy.newaxis "
                                    "(`None`) and integer or boolean arrays are valid indices");
                } else {
                    PyErr_SetString(PyExc_OverflowError, "Python int too large to convert to C long");
                }
            }
            Py_DECREF(i);
            return -1;
        }
        Py_DECREF(i);
        return 1;
    }
    return 0;
}

/* Build the view for a basic key.  Returns 1 with *out set, 0 when the key is advanced, -1 on error.
 * *all_int is set when every dimension was indexed by an integer (NumPy returns a scalar). */
static int basic_view(PyObject *self, PyObject *key, struct cpn_view **out, int *all_int)
{
    struct idx items[2 * CPN_MAXDIM + 2];
    Py_ssize_t n;
    struct cpn_view *v = cpn_array_view(self);
    if (PyTuple_Check(key)) {
        n = PyTuple_GET_SIZE(key);
        if (n > 2 * CPN_MAXDIM) return 0;
        for (Py_ssize_t i = 0; i < n; i++) {
            int r = basic_item(PyTuple_GET_ITEM(key, i), &items[i]);
            if (r <= 0) return r;
        }
    } else {
        n = 1;
        int r = basic_item(key, &items[0]);
        if (r <= 0) return r;
    }
    int consumed = 0, ellipses = 0, ints = 0, arrays = 0;
    for (Py_ssize_t i = 0; i < n; i++) {
        if (items[i].kind == IDX_INT || items[i].kind == IDX_SLICE) consumed++;
        if (items[i].kind == IDX_INT) ints++;
        if (items[i].kind == IDX_INT && (cpn_array_check(items[i].obj) || PyArray_Check(items[i].obj)))
            arrays++;
        if (items[i].kind == IDX_ELLIPSIS) ellipses++;
    }
    /* A 0-d integer array is an integer only in a full integer index (NumPy's scalar result);
     * anywhere else it is an index array: the result is a copy, not a view. */
    if (arrays && !(ints == v->ndim && consumed == ints && n == ints)) return 0;
    if (ellipses > 1) {
        PyErr_SetString(PyExc_IndexError, "an index can only have a single ellipsis ('...')");
        return -1;
    }
    if (consumed > v->ndim) {
        PyErr_Format(PyExc_IndexError,
                     "too many indices for array: array is %d-dimensional, but %d were indexed",
                     v->ndim, consumed);
        return -1;
    }
    struct cpn_view *cur = v;
    cpn_view_retain(cur);
    int dim = 0;    /* the next dimension of `cur` to index */
    int oaxis = 0;  /* the same position in the original array, for messages */
    *all_int = ints == v->ndim && consumed == ints && n == ints;
    for (Py_ssize_t i = 0; i < n; i++) {
        struct cpn_view *next = NULL;
        enum cpn_status st = CPN_OK;
        switch (items[i].kind) {
        case IDX_INT: {
            Py_ssize_t k = items[i].value, len = cur->shape[dim];
            if (k < -len || k >= len) {
                PyErr_Format(PyExc_IndexError, "index %zd is out of bounds for axis %d with size %zd",
                             k, oaxis, len);
                cpn_view_release(cur);
                return -1;
            }
            st = cpn_view_index(cur, dim, k, &next);
            oaxis++;
            break;
        }
        case IDX_SLICE: {
            Py_ssize_t start, stop, step;
            if (PySlice_Unpack(items[i].obj, &start, &stop, &step) < 0) {
                cpn_view_release(cur);
                return -1;
            }
            Py_ssize_t len = PySlice_AdjustIndices(cur->shape[dim], &start, &stop, step);
            st = cpn_view_slice(cur, dim, start, step, len, &next);
            dim++;
            oaxis++;
            break;
        }
        case IDX_NEWAXIS:
            st = cpn_view_newaxis(cur, dim, &next);
            dim++;
            break;
        case IDX_ELLIPSIS: {
            int remaining = 0;
            for (Py_ssize_t j = i + 1; j < n; j++)
                if (items[j].kind == IDX_INT || items[j].kind == IDX_SLICE) remaining++;
            dim = cur->ndim - remaining;
            oaxis = v->ndim - remaining;
            continue;
        }
        default: break;
        }
        cpn_view_release(cur);
        if (st != CPN_OK) {
            cpn_raise(st);
            return -1;
        }
        cur = next;
    }
    *out = cur;
    return 1;
}

static PyObject *advanced(const char *helper, PyObject *self, PyObject *key, PyObject *value)
{
    PyObject *h = cpn_py_helper(helper);
    if (!h) return NULL;
    return value ? PyObject_CallFunctionObjArgs(h, self, key, value, NULL)
                 : PyObject_CallFunctionObjArgs(h, self, key, NULL);
}

/* (idx, :, ..., :) with an integer index array and at most one full slice per remaining
 * dimension: NumPy's result is a[idx]'s, which the row-gather fast path may read. */
static int row_gather_key(PyObject *self, PyObject *key)
{
    if (!PyTuple_Check(key) || PyTuple_GET_SIZE(key) < 2 ||
        PyTuple_GET_SIZE(key) > cpn_array_view(self)->ndim)
        return 0;
    PyObject *k0 = PyTuple_GET_ITEM(key, 0);
    if (!cpn_array_check(k0) || cpn_dtype_class(cpn_array_dtype(k0)) > CPN_CLASS_UINT ||
        cpn_array_dtype(k0) == CPN_DTYPE_BOOL)
        return 0;
    for (Py_ssize_t i = 1; i < PyTuple_GET_SIZE(key); i++) {
        PyObject *o = PyTuple_GET_ITEM(key, i);
        if (!PySlice_Check(o)) return 0;
        PySliceObject *sl = (PySliceObject *)o;
        if (sl->start != Py_None || sl->stop != Py_None || sl->step != Py_None) return 0;
    }
    return 1;
}

PyObject *cpn_array_subscript(PyObject *self, PyObject *key)
{
    if (PyLong_CheckExact(key)) {   /* a[i] of a 1-d array: read in place (fastpath.c) */
        PyObject *fast = cpn_fast_index(self, key);
        if (fast != Py_NotImplemented) return fast;
        Py_DECREF(fast);
    }
    if (cpn_array_check(key)) {   /* a[idx], a[mask] (fastpath.c) */
        PyObject *fast = cpn_fast_advanced_get(self, key);
        if (fast != Py_NotImplemented) return fast;
        Py_DECREF(fast);
    }
    if (row_gather_key(self, key)) {   /* A[idx, :] is A[idx] */
        PyObject *fast = cpn_fast_advanced_get(self, PyTuple_GET_ITEM(key, 0));
        if (fast != Py_NotImplemented) return fast;
        Py_DECREF(fast);
    }
    struct cpn_view *v = NULL;
    int all_int = 0;
    int r = basic_view(self, key, &v, &all_int);
    if (r < 0) return NULL;
    if (r == 0) return advanced("_getitem_advanced", self, key, NULL);
    PyObject *res = cpn_array_wrap(v);
    if (res && all_int) Py_SETREF(res, cpn_array_to_scalar(res));
    return res;
}

/* An array of at least one dimension or a list/tuple: not a scalar for one element. */
static int is_sequence_value(PyObject *o)
{
    if (cpn_array_check(o)) return cpn_array_view(o)->ndim > 0;
    if (PyArray_Check(o)) return PyArray_NDIM((PyArrayObject *)o) > 0;
    return PyList_Check(o) || PyTuple_Check(o);
}

int cpn_array_ass_subscript(PyObject *self, PyObject *key, PyObject *value)
{
    if (!value) {
        PyErr_SetString(PyExc_ValueError, "cannot delete array elements");
        return -1;
    }
    /* NumPy checks the destination before the key and the value. */
    if (cpn_array_view(self)->readonly) {
        PyErr_SetString(PyExc_ValueError, "assignment destination is read-only");
        return -1;
    }
    if (cpn_array_check(key) && (PyFloat_CheckExact(value) || PyLong_CheckExact(value) || PyBool_Check(value))) {
        /* a[mask] = scalar with a mask of a's shape (h[h < tol] = 0): the select op at once, as
         * _setitem_mask queues it, without its Python (2 us a call, NumPy's whole assignment of
         * 100 elements taking 0.6 us) */
        struct cpn_view *m = cpn_array_view(key), *sv = cpn_array_view(self);
        int same = m->dtype == CPN_DTYPE_BOOL && m->ndim == sv->ndim && sv->ndim > 0;
        for (int d = 0; same && d < sv->ndim; d++) same = m->shape[d] == sv->shape[d];
        if (same) return cpn_mask_assign_scalar(m, value, sv);
    }
    if (cpn_array_check(key)) {   /* a[mask] = one value per selected element (fastpath.c) */
        int done = cpn_array_view(key)->dtype == CPN_DTYPE_BOOL ? cpn_fast_mask_assign(self, key, value)
                                                                : cpn_fast_index_assign(self, key, value);
        if (done) return done < 0 ? -1 : 0;
    }
    struct cpn_view *v = NULL;
    int all_int = 0;
    int r = basic_view(self, key, &v, &all_int);
    if (r < 0) return -1;
    if (r == 0) {
        PyObject *res = advanced("_setitem_advanced", self, key, value);
        if (!res) return -1;
        Py_DECREF(res);
        return 0;
    }
    if (all_int && is_sequence_value(value)) {
        /* One element from an array or a sequence: what NumPy stores there, or NumPy's error
         * ("setting an array element with a sequence.", or the dtype's own TypeError). */
        PyObject *f = cpn_py_helper("_element_value");
        PyObject *el = f ? PyObject_CallFunctionObjArgs(f, (PyObject *)cpn_descr(v->dtype), value, NULL)
                         : NULL;
        r = el ? cpn_assign(v, el) : -1;
        Py_XDECREF(el);
        cpn_view_release(v);
        return r;
    }
    r = cpn_assign(v, value);
    cpn_view_release(v);
    return r;
}

PyObject *cpn_array_item(PyObject *self, Py_ssize_t i)
{
    if (cpn_array_view(self)->ndim == 0) {
        PyErr_SetString(PyExc_IndexError, "too many indices for array: array is 0-dimensional, but 1 were indexed");
        return NULL;
    }
    PyObject *k = PyLong_FromSsize_t(i);
    if (!k) return NULL;
    PyObject *r = cpn_array_subscript(self, k);
    Py_DECREF(k);
    return r;
}
