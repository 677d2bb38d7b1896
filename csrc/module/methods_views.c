/* methods_views.c: the module's views and data: view arithmetic (reshape, transpose,
 * broadcast, components, layout), data in and out (from any array-like, to NumPy, to a scalar),
 * the relations of two arrays' views, and the ndarray's C methods. */
#include "cpn_module.h"
#include "dist.h"
#include "partition.h"

PyObject *cpn_mod_from_any(PyObject *m, PyObject *obj) { return cpn_array_from_any(obj); }

PyObject *cpn_mod_to_numpy(PyObject *m, PyObject *a)
{
    if (cpn_check_array(a) < 0) return NULL;
    return cpn_array_to_numpy(a);
}

PyObject *cpn_mod_to_scalar(PyObject *m, PyObject *a)
{
    if (cpn_check_array(a) < 0) return NULL;
    return cpn_array_to_scalar(a);
}

PyObject *cpn_mod_reshape(PyObject *m, PyObject *args)
{
    PyObject *a, *shape_o;
    if (!PyArg_ParseTuple(args, "OO", &a, &shape_o) || cpn_check_array(a) < 0) return NULL;
    int ndim;
    int64_t shape[CPN_MAXDIM];
    if (cpn_parse_shape(shape_o, &ndim, shape) < 0) return NULL;
    struct cpn_view *v;
    enum cpn_status st = cpn_view_reshape(cpn_array_view(a), ndim, shape, &v);
    if (st == CPN_ERR_NOVIEW) Py_RETURN_NONE;   /* the caller copies */
    if (st != CPN_OK) return cpn_raise(st);
    return cpn_array_wrap(v);
}

PyObject *cpn_mod_transpose(PyObject *m, PyObject *args)
{
    PyObject *a, *perm_o;
    if (!PyArg_ParseTuple(args, "OO", &a, &perm_o) || cpn_check_array(a) < 0) return NULL;
    int ndim;
    int64_t p64[CPN_MAXDIM];
    int perm[CPN_MAXDIM];
    if (cpn_parse_shape(perm_o, &ndim, p64) < 0) return NULL;
    struct cpn_view *src = cpn_array_view(a), *v;
    if (ndim != src->ndim) {
        PyErr_SetString(PyExc_ValueError, "axes don't match array");
        return NULL;
    }
    for (int i = 0; i < ndim; i++) perm[i] = (int)p64[i];
    enum cpn_status st = cpn_view_transpose(src, perm, &v);
    if (st != CPN_OK) return cpn_raise(st);
    return cpn_array_wrap(v);
}

PyObject *cpn_mod_broadcast_to(PyObject *m, PyObject *args)
{
    PyObject *a, *shape_o;
    int readonly = 1;   /* broadcast_arrays' views are writable (readonly = 0) */
    if (!PyArg_ParseTuple(args, "OO|p", &a, &shape_o, &readonly) || cpn_check_array(a) < 0)
        return NULL;
    int ndim;
    int64_t shape[CPN_MAXDIM];
    if (cpn_parse_shape(shape_o, &ndim, shape) < 0) return NULL;
    struct cpn_view *v;
    enum cpn_status st = cpn_view_broadcast(cpn_array_view(a), ndim, shape, &v);
    if (st != CPN_OK) return cpn_raise(st);
    if (readonly) v->readonly = true;   /* as numpy.broadcast_to: elements repeat */
    return cpn_array_wrap(v);
}

/* diagonal(a, offset, axis1, axis2): numpy.diagonal, a read-only view (axes normalized, distinct). */
PyObject *cpn_mod_diagonal(PyObject *m, PyObject *args)
{
    PyObject *a;
    int offset, axis1, axis2;   /* a C int offset, as NumPy's (its OverflowError beyond) */
    if (!PyArg_ParseTuple(args, "Oiii", &a, &offset, &axis1, &axis2) || cpn_check_array(a) < 0)
        return NULL;
    struct cpn_view *src = cpn_array_view(a), *v;
    if (axis1 < 0 || axis1 >= src->ndim || axis2 < 0 || axis2 >= src->ndim || axis1 == axis2) {
        PyErr_SetString(PyExc_ValueError, "diagonal: bad axes");
        return NULL;
    }
    enum cpn_status st = cpn_view_diagonal(src, offset, axis1, axis2, &v);
    if (st != CPN_OK) return cpn_raise(st);
    return cpn_array_wrap(v);
}

/* writeable_view(a): the same map as a, writable (ndarray.flags.writeable = True, once the
 * Python side has checked that nothing NumPy would call its base is read-only). */
PyObject *cpn_mod_writeable_view(PyObject *m, PyObject *a)
{
    if (cpn_check_array(a) < 0) return NULL;
    struct cpn_view *src = cpn_array_view(a), *v;
    enum cpn_status st = cpn_view_broadcast(src, src->ndim, src->shape, &v);
    if (st != CPN_OK) return cpn_raise(st);
    v->readonly = false;
    return cpn_array_wrap(v);
}

/* covers_store(a): does a view every element of its root store (NumPy would call it the data's
 * owner or a view of all of it)? */
PyObject *cpn_mod_covers_store(PyObject *m, PyObject *a)
{
    if (cpn_check_array(a) < 0) return NULL;
    return PyBool_FromLong(cpn_view_covers_store(cpn_array_view(a)));
}

PyObject *cpn_mod_readonly(PyObject *m, PyObject *a)
{
    if (cpn_check_array(a) < 0) return NULL;
    return PyBool_FromLong(cpn_array_view(a)->readonly);
}

/* component(a, part): the real (1) or imaginary (2) part of a complex array, as a view. */
PyObject *cpn_mod_component(PyObject *m, PyObject *args)
{
    PyObject *a;
    int part;
    if (!PyArg_ParseTuple(args, "Oi", &a, &part) || cpn_check_array(a) < 0) return NULL;
    struct cpn_view *v;
    enum cpn_status st = cpn_view_component(cpn_array_view(a), part, &v);
    if (st != CPN_OK) return cpn_raise(st);
    return cpn_array_wrap(v);
}

/* bits(a): a real array's elements as the unsigned integers of their size, as a view. */
PyObject *cpn_mod_bits(PyObject *m, PyObject *a)
{
    if (cpn_check_array(a) < 0) return NULL;
    struct cpn_view *v;
    enum cpn_status st = cpn_view_bits(cpn_array_view(a), &v);
    if (st != CPN_OK) return cpn_raise(st);
    return cpn_array_wrap(v);
}

/* reinterpret(a, dtype): a's elements seen as dtype of the same size, as a view. */
PyObject *cpn_mod_reinterpret(PyObject *m, PyObject *args)
{
    PyObject *a, *dtype_o;
    if (!PyArg_ParseTuple(args, "OO", &a, &dtype_o) || cpn_check_array(a) < 0) return NULL;
    int dt = cpn_dtype_from_object(dtype_o);
    if (dt < 0) return NULL;
    struct cpn_view *v;
    enum cpn_status st = cpn_view_reinterpret(cpn_array_view(a), (enum cpn_dtype)dt, &v);
    if (st != CPN_OK) return cpn_raise(st);
    return cpn_array_wrap(v);
}

/* retype(a, dtype): a's bytes seen as dtype of another size (ndarray.view), or None where the
 * view cannot be expressed (the caller falls back to NumPy's copy). */
PyObject *cpn_mod_retype(PyObject *m, PyObject *args)
{
    PyObject *a, *dtype_o;
    if (!PyArg_ParseTuple(args, "OO", &a, &dtype_o) || cpn_check_array(a) < 0) return NULL;
    int dt = cpn_dtype_from_object(dtype_o);
    if (dt < 0) return NULL;
    struct cpn_view *v;
    enum cpn_status st = cpn_view_retype(cpn_array_view(a), (enum cpn_dtype)dt, &v);
    if (st == CPN_ERR_UNSUPPORTED) Py_RETURN_NONE;
    if (st != CPN_OK) return cpn_raise(st);
    return cpn_array_wrap(v);
}

/* layout(a): byte strides of the view in its store, for order='K'/'A' decisions. */
PyObject *cpn_mod_layout(PyObject *m, PyObject *a)
{
    if (cpn_check_array(a) < 0) return NULL;
    struct cpn_view *v = cpn_array_view(a);
    int64_t st[CPN_MAXDIM], off;
    cpn_view_byte_layout(v, st, &off);
    PyObject *t = PyTuple_New(v->ndim);
    if (!t) return NULL;
    for (int i = 0; i < v->ndim; i++) PyTuple_SET_ITEM(t, i, PyLong_FromLongLong(st[i]));
    return t;
}

PyObject *cpn_mod_contiguous(PyObject *m, PyObject *const *args, Py_ssize_t nargs)
{
    if (nargs < 1 || nargs > 2) return PyErr_Format(PyExc_TypeError, "contiguous(a, fortran=False)");
    if (cpn_check_array(args[0]) < 0) return NULL;
    const int fortran = nargs == 2 ? PyObject_IsTrue(args[1]) : 0;
    if (fortran < 0) return NULL;
    const struct cpn_view *v = cpn_array_view(args[0]);
    int64_t st[CPN_MAXDIM], off, expect = (int64_t)cpn_dtype_size(v->dtype);
    cpn_view_byte_layout(v, st, &off);
    for (int i = 0; i < v->ndim; i++)
        if (v->shape[i] == 0) Py_RETURN_TRUE;
    for (int k = 0; k < v->ndim; k++) {
        const int i = fortran ? k : v->ndim - 1 - k;
        if (v->shape[i] == 1) continue;
        if (st[i] != expect) Py_RETURN_FALSE;
        expect *= v->shape[i];
    }
    Py_RETURN_TRUE;
}

PyObject *cpn_mod_shares_store(PyObject *m, PyObject *args)
{
    PyObject *a, *b;
    if (!PyArg_ParseTuple(args, "OO", &a, &b) || cpn_check_array(a) < 0 || cpn_check_array(b) < 0) return NULL;
    return PyBool_FromLong(cpn_store_root(cpn_array_view(a)->store) ==
                           cpn_store_root(cpn_array_view(b)->store));
}

PyObject *cpn_mod_store_refs(PyObject *m, PyObject *a)
{
    if (cpn_check_array(a) < 0) return NULL;
    return PyLong_FromLongLong(cpn_store_root(cpn_array_view(a)->store)->refcnt);
}

PyObject *cpn_mod_byte_offset(PyObject *m, PyObject *a)
{
    if (cpn_check_array(a) < 0) return NULL;
    int64_t st[CPN_MAXDIM], off;
    cpn_view_byte_layout(cpn_array_view(a), st, &off);
    return PyLong_FromLongLong(off);
}

/* _root(a): an array over the whole of a's root store in its own shape (C order), or None where
 * a's elements are not the root's (a component, another dtype).  Writable when a is. */
PyObject *cpn_mod_root(PyObject *m, PyObject *a)
{
    if (cpn_check_array(a) < 0) return NULL;
    const struct cpn_view *v = cpn_array_view(a);
    struct cpn_store *r = cpn_store_root(v->store);
    if (v->part || v->dtype != r->dtype) Py_RETURN_NONE;
    struct cpn_view *w = cpn_view_new(r);
    if (!w) return PyErr_NoMemory();
    w->readonly = v->readonly;
    return cpn_array_wrap(w);
}

/* _view_as(a, b): b's store seen through a's view geometry (shape, store dimensions, steps,
 * offsets), in b's dtype and writable, where a's and b's stores are roots of one shape tiled
 * alike (a mask aligned with a view it was not made for); else None. */
PyObject *cpn_mod_view_as(PyObject *m, PyObject *args)
{
    PyObject *a, *b;
    if (!PyArg_ParseTuple(args, "OO", &a, &b) || cpn_check_array(a) < 0 || cpn_check_array(b) < 0) return NULL;
    const struct cpn_view *v = cpn_array_view(a);
    struct cpn_store *s = v->store, *r = cpn_array_view(b)->store;
    if (s->root || r->root || v->part || v->dtype != s->dtype || s->ndim != r->ndim || s->tiled != r->tiled)
        Py_RETURN_NONE;
    for (int d = 0; d < s->ndim; d++)
        if (s->shape[d] != r->shape[d]) Py_RETURN_NONE;
    for (int q = 0; s->tiled && q < cpn_partition_ranks(); q++) {   /* every rank's tile alike */
        int64_t lo[CPN_MAXDIM], hi[CPN_MAXDIM], lo2[CPN_MAXDIM], hi2[CPN_MAXDIM];
        cpn_store_tile_box(s, q, lo, hi);
        cpn_store_tile_box(r, q, lo2, hi2);
        for (int d = 0; d < s->ndim; d++)
            if (lo[d] != lo2[d] || hi[d] != hi2[d]) Py_RETURN_NONE;
    }
    struct cpn_view *w = cpn_view_new_dims(r, v->ndim);
    if (!w) return PyErr_NoMemory();
    w->ndim = v->ndim;
    for (int i = 0; i < v->ndim; i++) {
        w->shape[i] = v->shape[i];
        w->sdim[i] = v->sdim[i];
        w->step[i] = v->step[i];
    }
    for (int d = 0; d < s->ndim; d++) w->off[d] = v->off[d];   /* per store dimension */
    return cpn_array_wrap(w);
}

/* _row_parts(a): is every rank's part of a a range of its first dimension (dist.h)? */
PyObject *cpn_mod_row_parts(PyObject *m, PyObject *a)
{
    if (cpn_check_array(a) < 0) return NULL;
    return PyBool_FromLong(cpn_dist_row_parts(cpn_array_view(a)));
}

/* _parts_match(a, b): do a and b have the same box on every rank (dist.h)? */
PyObject *cpn_mod_parts_match(PyObject *m, PyObject *args)
{
    PyObject *a, *b;
    if (!PyArg_ParseTuple(args, "OO", &a, &b) || cpn_check_array(a) < 0 || cpn_check_array(b) < 0) return NULL;
    return PyBool_FromLong(cpn_dist_parts_match(cpn_array_view(a), cpn_array_view(b)));
}

PyObject *cpn_mod_may_overlap(PyObject *m, PyObject *args)
{
    PyObject *a, *b;
    if (!PyArg_ParseTuple(args, "OO", &a, &b) || cpn_check_array(a) < 0 || cpn_check_array(b) < 0) return NULL;
    return PyBool_FromLong(cpn_view_may_overlap(cpn_array_view(a), cpn_array_view(b)));
}

/* ---- ndarray methods in C ---------------------------------------------------------------- */

static PyObject *array_array(PyObject *self, PyObject *args, PyObject *kw)
{
    static char *kwlist[] = {"dtype", "copy", NULL};
    PyObject *dtype = Py_None, *copy = Py_None;
    if (!PyArg_ParseTupleAndKeywords(args, kw, "|OO", kwlist, &dtype, &copy)) return NULL;
    if (copy == Py_False) {
        PyErr_SetString(PyExc_ValueError,
                        "Unable to avoid copy while creating a NumPy array from a cupynum array.");
        return NULL;
    }
    PyObject *a = cpn_array_to_numpy(self);
    if (!a || dtype == Py_None) return a;
    PyObject *r = PyObject_CallMethod(a, "astype", "O", dtype);
    Py_DECREF(a);
    return r;
}

static PyObject *numpy_method(PyObject *self, const char *name, PyObject *args)
{
    PyObject *a = cpn_array_to_numpy(self);
    if (!a) return NULL;
    PyObject *f = PyObject_GetAttrString(a, name);
    PyObject *r = f ? PyObject_Call(f, args, NULL) : NULL;
    Py_XDECREF(f);
    Py_DECREF(a);
    return r;
}
static PyObject *array_tolist(PyObject *self, PyObject *args) { return numpy_method(self, "tolist", args); }

/* a.item(*args): the one element as a Python scalar.  Integer arguments within bounds (none for
 * a size-1 array, one flat C-order index, or one per dimension, also as one tuple) read only that
 * element, through indexing (Collective where a is distributed, as every value read); anything
 * else, including every error, is NumPy's own item() over the whole array. */
static PyObject *array_item(PyObject *self, PyObject *args)
{
    struct cpn_view *v = cpn_array_view(self);
    PyObject *idx = args;
    if (PyTuple_GET_SIZE(args) == 1 && PyTuple_Check(PyTuple_GET_ITEM(args, 0)))
        idx = PyTuple_GET_ITEM(args, 0);
    Py_ssize_t nidx = PyTuple_GET_SIZE(idx);
    int64_t size = cpn_view_size(v);
    Py_ssize_t at[CPN_MAXDIM];
    if (nidx == 0 && size == 1) {
        for (int d = 0; d < v->ndim; d++) at[d] = 0;
    } else if (nidx == 1 || nidx == v->ndim) {
        for (Py_ssize_t i = 0; i < nidx; i++) {
            PyObject *o = PyTuple_GET_ITEM(idx, i);
            if (!PyLong_CheckExact(o) && !PyArray_IsScalar(o, Integer))
                return numpy_method(self, "item", args);
            at[i] = PyLong_AsSsize_t(o);   /* a NumPy integer converts through __index__ */
            if (at[i] == -1 && PyErr_Occurred()) {
                PyErr_Clear();
                return numpy_method(self, "item", args);
            }
        }
        if (nidx == 1 && v->ndim != 1) {   /* a flat index, unravelled in C order */
            Py_ssize_t k = at[0];
            if (k < -size || k >= size) return numpy_method(self, "item", args);
            if (k < 0) k += size;
            for (int d = v->ndim - 1; d >= 0; d--) {
                at[d] = k % v->shape[d];
                k /= v->shape[d];
            }
        } else {
            for (int d = 0; d < v->ndim; d++)
                if (at[d] < -v->shape[d] || at[d] >= v->shape[d])
                    return numpy_method(self, "item", args);
        }
    } else {
        return numpy_method(self, "item", args);
    }
    /* the element read in place where it lies here (0.36 -> 0.1 us; NumPy 0.08) */
    PyObject *fast = cpn_fast_item(v, at);
    if (fast != Py_NotImplemented) return fast;
    Py_DECREF(fast);
    /* one dimension: an int key, which a[i]'s scalar fast path reads in place */
    PyObject *key = v->ndim == 1 ? PyLong_FromSsize_t(at[0]) : PyTuple_New(v->ndim);
    PyObject *el = NULL, *r = NULL;
    if (!key) return NULL;
    for (int d = 0; v->ndim != 1 && d < v->ndim; d++) {
        PyObject *o = PyLong_FromSsize_t(at[d]);
        if (!o) goto fail;
        PyTuple_SET_ITEM(key, d, o);
    }
    el = cpn_array_subscript(self, key);
    if (!el) goto fail;
    static PyObject *item_name;   /* interned once, as ufuncobject.c's keyword names */
    if (!item_name && !(item_name = PyUnicode_InternFromString("item"))) goto fail;
    r = PyObject_CallMethodNoArgs(el, item_name);
fail:
    Py_XDECREF(el);
    Py_DECREF(key);
    return r;
}

static PyObject *array_fill(PyObject *self, PyObject *value)
{
    if (cpn_assign(cpn_array_view(self), value) < 0) return NULL;
    Py_RETURN_NONE;
}

/* ndarray.reshape's common form in C: Python ints (as arguments, or one tuple or list of them),
 * at most one -1, no keywords.  The view where there is one, else a C-order copy reshaped: the
 * general path's _core.reshape, then _core.cast (partitioned arrays alike: the same calls).
 * NotImplemented (no exception) for every other form and every error, which
 * cupynum._ndarray._method_reshape takes with NumPy's messages. */
static PyObject *fast_reshape(PyObject *self, PyObject *const *args, Py_ssize_t nargs)
{
    PyObject *const *items = args;
    Py_ssize_t n = nargs;
    if (nargs == 1 && (PyTuple_CheckExact(args[0]) || PyList_CheckExact(args[0]))) {
        items = PySequence_Fast_ITEMS(args[0]);
        n = PySequence_Fast_GET_SIZE(args[0]);
    } else if (nargs == 0) {
        return Py_NewRef(Py_NotImplemented);
    }
    const struct cpn_view *src = cpn_array_view(self);
    if (n > CPN_MAXDIM) return Py_NewRef(Py_NotImplemented);
    int64_t shape[CPN_MAXDIM], known = 1;
    int unknown = -1;
    for (Py_ssize_t i = 0; i < n; i++) {
        int overflow;
        if (!PyLong_CheckExact(items[i])) return Py_NewRef(Py_NotImplemented);
        const long long x = PyLong_AsLongLongAndOverflow(items[i], &overflow);
        if (overflow || x < -1 || (x == -1 && unknown >= 0)) return Py_NewRef(Py_NotImplemented);
        if (x == -1) {
            unknown = (int)i;
            continue;
        }
        shape[i] = x;
        if (__builtin_mul_overflow(known, (int64_t)x, &known)) return Py_NewRef(Py_NotImplemented);
    }
    const int64_t size = cpn_view_size(src);
    if (unknown >= 0) {
        if (known == 0 || size % known) return Py_NewRef(Py_NotImplemented);
        shape[unknown] = size / known;
    } else if (known != size) {
        return Py_NewRef(Py_NotImplemented);
    }
    struct cpn_view *v;
    enum cpn_status st = cpn_view_reshape(src, (int)n, shape, &v);
    if (st == CPN_OK) return cpn_array_wrap(v);
    if (st != CPN_ERR_NOVIEW) return Py_NewRef(Py_NotImplemented);
    PyObject *copy = cpn_array_cast(self, src->dtype);
    if (!copy) return NULL;
    st = cpn_view_reshape(cpn_array_view(copy), (int)n, shape, &v);
    Py_DECREF(copy);
    return st == CPN_OK ? cpn_array_wrap(v) : cpn_raise(st);
}

static PyObject *ndarray_module;   /* cupynum._ndarray, for every other form */

static PyObject *array_reshape(PyObject *self, PyObject *const *args, Py_ssize_t nargs, PyObject *kwnames)
{
    if (!kwnames || PyTuple_GET_SIZE(kwnames) == 0) {
        PyObject *r = fast_reshape(self, args, nargs);
        if (r != Py_NotImplemented) return r;
        Py_DECREF(r);
    }
    if (!ndarray_module) {
        ndarray_module = PyImport_ImportModule("cupynum._ndarray");
        if (!ndarray_module) return NULL;
    }
    PyObject *f = PyObject_GetAttrString(ndarray_module, "_method_reshape");
    if (!f) return NULL;
    PyObject *r = cpn_call_with_self(f, self, args, nargs, kwnames);
    Py_DECREF(f);
    return r;
}

PyMethodDef cpn_array_methods[] = {
    {"reshape", (PyCFunction)(void (*)(void))array_reshape, METH_FASTCALL | METH_KEYWORDS,
     "a.reshape(shape, order='C', copy=None): a view where there is one, else a copy "
     "(numpy.ndarray.reshape)."},
    {"__array__", (PyCFunction)(void (*)(void))array_array, METH_VARARGS | METH_KEYWORDS,
     "A numpy.ndarray copy of the data (flushes)."},
    {"tolist", array_tolist, METH_VARARGS, "The array as nested Python lists (flushes)."},
    {"item", array_item, METH_VARARGS, "One element as a Python scalar (flushes)."},
    {"fill", array_fill, METH_O, "Fill the array with a scalar value."},
    {NULL},
};
