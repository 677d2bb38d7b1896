/* ndarray.c: the ndarray type: a Python object holding one reference to a view.
 *
 * Attributes, operators, conversions and printing live here; operators go through the op table
 * (ufunc.c) and are deferred.  Anything that hands a value to Python (repr, float(), tolist...)
 * flushes the queue first.  Methods written in Python (reductions, reshape with -1, ...) are
 * installed onto this heap type by the package at import (cupynum/_ndarray.py). */
#include "cpn_module.h"

#include <structmember.h>

PyTypeObject *cpn_array_type;

static void array_dealloc(PyObject *self)
{
    CpnArray *a = (CpnArray *)self;
    PyTypeObject *tp = Py_TYPE(self);
    if (a->weakreflist) PyObject_ClearWeakRefs(self);
    cpn_view_release(a->view);
    tp->tp_free(self);
    Py_DECREF(tp);
}

/* ndarray(shape, dtype=float, buffer=None, offset=0, strides=None, order=None), as NumPy code
 * constructs arrays: Python's (cupynum/_construct.py, set by _core._set_ndarray_new). */
static PyObject *ndarray_new_hook;

PyObject *cpn_mod_set_ndarray_new(PyObject *m, PyObject *f)
{
    Py_XSETREF(ndarray_new_hook, Py_NewRef(f));
    Py_RETURN_NONE;
}

static PyObject *array_new(PyTypeObject *type, PyObject *args, PyObject *kwds)
{
    if (ndarray_new_hook && type == cpn_array_type) return PyObject_Call(ndarray_new_hook, args, kwds);
    PyErr_SetString(PyExc_TypeError,
                    "cupynum.ndarray cannot be constructed directly; use cupynum.array, empty, zeros...");
    return NULL;
}

/* ---- attributes ---------------------------------------------------------------------------- */

static PyObject *array_get_shape(PyObject *self, void *c)
{
    struct cpn_view *v = cpn_array_view(self);
    PyObject *t = PyTuple_New(v->ndim);
    if (!t) return NULL;
    for (int i = 0; i < v->ndim; i++) {
        PyObject *e = PyLong_FromLongLong(v->shape[i]);
        if (!e) { Py_DECREF(t); return NULL; }
        PyTuple_SET_ITEM(t, i, e);
    }
    return t;
}

static int array_set_shape(PyObject *self, PyObject *value, void *c)
{
    PyObject *h = cpn_py_helper("_set_shape");
    if (!h) return -1;
    PyObject *r = PyObject_CallFunctionObjArgs(h, self, value, NULL);
    if (!r) return -1;
    /* _set_shape returns the reshaped view; adopt its map (NumPy forbids copies here). */
    struct cpn_view *nv = cpn_array_view(r);
    cpn_view_retain(nv);
    cpn_view_release(((CpnArray *)self)->view);
    ((CpnArray *)self)->view = nv;
    Py_DECREF(r);
    return 0;
}

static PyObject *array_get_dtype(PyObject *self, void *c)
{
    return Py_NewRef((PyObject *)cpn_descr(cpn_array_dtype(self)));
}
static PyObject *array_get_ndim(PyObject *self, void *c) { return PyLong_FromLong(cpn_array_view(self)->ndim); }
static PyObject *array_get_size(PyObject *self, void *c)
{
    return PyLong_FromLongLong(cpn_view_size(cpn_array_view(self)));
}
static PyObject *array_get_itemsize(PyObject *self, void *c)
{
    return PyLong_FromSize_t(cpn_dtype_size(cpn_array_dtype(self)));
}
static PyObject *array_get_nbytes(PyObject *self, void *c)
{
    return PyLong_FromLongLong(cpn_view_size(cpn_array_view(self)) *
                               (int64_t)cpn_dtype_size(cpn_array_dtype(self)));
}
static PyObject *array_get_T(PyObject *self, void *c)
{
    struct cpn_view *v = cpn_array_view(self), *t;
    int perm[CPN_MAXDIM];
    for (int i = 0; i < v->ndim; i++) perm[i] = v->ndim - 1 - i;
    enum cpn_status st = cpn_view_transpose(v, perm, &t);
    if (st != CPN_OK) return cpn_raise(st);
    return cpn_array_wrap(t);
}
static PyObject *helper_attr(const char *name, PyObject *self)
{
    PyObject *h = cpn_py_helper(name);
    return h ? PyObject_CallFunctionObjArgs(h, self, NULL) : NULL;
}
static int helper_set(const char *name, PyObject *self, PyObject *value)
{
    if (!value) {
        PyErr_SetString(PyExc_AttributeError, "cannot delete array attribute");
        return -1;
    }
    PyObject *h = cpn_py_helper(name);
    PyObject *r = h ? PyObject_CallFunctionObjArgs(h, self, value, NULL) : NULL;
    Py_XDECREF(r);
    return r ? 0 : -1;
}
static PyObject *array_get_real(PyObject *self, void *c) { return helper_attr("_get_real", self); }
static PyObject *array_get_imag(PyObject *self, void *c) { return helper_attr("_get_imag", self); }
static int array_set_real(PyObject *self, PyObject *v, void *c) { return helper_set("_set_real", self, v); }
static int array_set_imag(PyObject *self, PyObject *v, void *c) { return helper_set("_set_imag", self, v); }
static PyObject *array_get_flat_base(PyObject *self, void *c) { Py_RETURN_NONE; }

static PyGetSetDef array_getset[] = {
    {"shape", array_get_shape, array_set_shape, "Tuple of array dimensions.", NULL},
    {"dtype", array_get_dtype, NULL, "Data type of the array's elements (a numpy.dtype).", NULL},
    {"ndim", array_get_ndim, NULL, "Number of array dimensions.", NULL},
    {"size", array_get_size, NULL, "Number of elements in the array.", NULL},
    {"itemsize", array_get_itemsize, NULL, "Length of one array element in bytes.", NULL},
    {"nbytes", array_get_nbytes, NULL, "Total bytes consumed by the elements of the array.", NULL},
    {"T", array_get_T, NULL, "View of the transposed array.", NULL},
    {"real", array_get_real, array_set_real, "The real part of the array.", NULL},
    {"imag", array_get_imag, array_set_imag, "The imaginary part of the array.", NULL},
    {"base", array_get_flat_base, NULL, "Always None: views share stores, not bases.", NULL},
    {NULL},
};

/* ---- conversions ------------------------------------------------------------------------- */

/* Apply a Python-level conversion (bool, float, ...) to the gathered NumPy array, so messages and
 * rules are NumPy's exactly. */
static PyObject *via_numpy(PyObject *self, PyObject *(*conv)(PyObject *))
{
    PyObject *a = cpn_array_to_numpy(self);
    if (!a) return NULL;
    PyObject *r = conv(a);
    Py_DECREF(a);
    return r;
}
static int array_bool(PyObject *self)
{
    PyObject *a = cpn_array_to_numpy(self);
    if (!a) return -1;
    int r = PyObject_IsTrue(a);
    Py_DECREF(a);
    return r;
}
static PyObject *array_float(PyObject *self) { return via_numpy(self, PyNumber_Float); }
static PyObject *array_int(PyObject *self) { return via_numpy(self, PyNumber_Long); }
static PyObject *array_index(PyObject *self) { return via_numpy(self, PyNumber_Index); }
static PyObject *array_repr(PyObject *self) { return via_numpy(self, PyObject_Repr); }
static PyObject *array_str(PyObject *self) { return via_numpy(self, PyObject_Str); }

static Py_ssize_t array_length(PyObject *self)
{
    struct cpn_view *v = cpn_array_view(self);
    if (v->ndim == 0) {
        PyErr_SetString(PyExc_TypeError, "len() of unsized object");
        return -1;
    }
    return (Py_ssize_t)v->shape[0];
}

static PyObject *array_iter(PyObject *self)
{
    if (cpn_array_view(self)->ndim == 0) {
        PyErr_SetString(PyExc_TypeError, "iteration over a 0-d array");
        return NULL;
    }
    return PySeqIter_New(self);
}

/* ---- operators --------------------------------------------------------------------------- */

#define BINARY(NAME, CODE)                                                                \
    static PyObject *array_##NAME(PyObject *a, PyObject *b)                               \
    {                                                                                     \
        PyObject *args[2] = {a, b};                                                       \
        return cpn_ufunc_apply(CODE, args, NULL);                                         \
    }                                                                                     \
    static PyObject *array_inplace_##NAME(PyObject *a, PyObject *b)                       \
    {                                                                                     \
        PyObject *args[2] = {a, b};                                                       \
        return cpn_ufunc_apply(CODE, args, a);                                            \
    }
BINARY(add, CPN_OP_ADD)
BINARY(subtract, CPN_OP_SUBTRACT)
BINARY(multiply, CPN_OP_MULTIPLY)
BINARY(true_divide, CPN_OP_TRUE_DIVIDE)
BINARY(floor_divide, CPN_OP_FLOOR_DIVIDE)
BINARY(remainder, CPN_OP_REMAINDER)
BINARY(and, CPN_OP_BITWISE_AND)
BINARY(or, CPN_OP_BITWISE_OR)
BINARY(xor, CPN_OP_BITWISE_XOR)
BINARY(lshift, CPN_OP_LEFT_SHIFT)
BINARY(rshift, CPN_OP_RIGHT_SHIFT)

/* ndarray.__pow__'s shortcut, as NumPy's fast_scalar_power: a Python int exponent 2 is square
 * (so bool ** 2 is int8), -1 is reciprocal and a Python float 0.5 is sqrt for inexact arrays.
 * Returns the op to use instead of power, or -1. */
static int fast_power_op(PyObject *a, PyObject *b)
{
    if (!cpn_array_check(a)) return -1;
    enum cpn_dtype_class cls = cpn_dtype_class(cpn_array_dtype(a));
    int inexact = cls == CPN_CLASS_FLOAT || cls == CPN_CLASS_COMPLEX;
    if (PyLong_CheckExact(b)) {
        int overflow = 0;
        long e = PyLong_AsLongAndOverflow(b, &overflow);
        if (overflow || (e == -1 && PyErr_Occurred())) {
            PyErr_Clear();
            return -1;
        }
        if (e == 2) return CPN_OP_SQUARE;
        if (e == -1 && inexact) return CPN_OP_RECIPROCAL;
    } else if (PyFloat_CheckExact(b) && PyFloat_AS_DOUBLE(b) == 0.5 && inexact) {
        return CPN_OP_SQRT;
    }
    return -1;
}

static PyObject *array_power(PyObject *a, PyObject *b, PyObject *mod)
{
    if (mod != Py_None) Py_RETURN_NOTIMPLEMENTED;
    int fast = fast_power_op(a, b);
    if (fast >= 0) return cpn_ufunc_apply(fast, &a, NULL);
    PyObject *args[2] = {a, b};
    return cpn_ufunc_apply(CPN_OP_POWER, args, NULL);
}
static PyObject *array_inplace_power(PyObject *a, PyObject *b, PyObject *mod)
{
    int fast = fast_power_op(a, b);
    if (fast >= 0) return cpn_ufunc_apply(fast, &a, a);
    PyObject *args[2] = {a, b};
    return cpn_ufunc_apply(CPN_OP_POWER, args, a);
}

#define UNARY(NAME, CODE)                                                                 \
    static PyObject *array_##NAME(PyObject *a)                                            \
    {                                                                                     \
        PyObject *args[1] = {a};                                                          \
        return cpn_ufunc_apply(CODE, args, NULL);                                         \
    }
UNARY(negative, CPN_OP_NEGATIVE)
UNARY(positive, CPN_OP_POSITIVE)
UNARY(absolute, CPN_OP_ABSOLUTE)
UNARY(invert, CPN_OP_INVERT)

/* NumPy's ndarray.__divmod__ is the divmod ufunc: one pass, and its reports name divmod. */
static PyObject *array_divmod(PyObject *a, PyObject *b)
{
    PyObject *args[2] = {a, b};
    return cpn_ufunc_apply(CPN_OP_DIVMOD, args, NULL);
}

static PyObject *helper_binary(const char *name, PyObject *a, PyObject *b)
{
    PyObject *h = cpn_py_helper(name);
    return h ? PyObject_CallFunctionObjArgs(h, a, b, NULL) : NULL;
}
/* A view of `v` (a 1-d or 2-d array's) in `ndim` dims of `shape`, a new reference; NULL when it
 * cannot be had (no exception). */
static struct cpn_view *matmul_view(struct cpn_view *v, int ndim, const int64_t *shape)
{
    struct cpn_view *r = NULL;
    if (cpn_view_reshape(v, ndim, shape, &r) != CPN_OK) {
        cpn_error_clear();
        return NULL;
    }
    return r;
}

/* a @ b of two cupynum arrays (exact type) of one dtype, each 1-d or 2-d with matching inner
 * extents: the matmul op queued here, as cupynum/_products.py's _matmul queues it, without its
 * Python layers (a dot product in a Python loop, `L[i, :i] @ x[:i]`: issue #21).  Py_NotImplemented
 * (no exception) for everything else, which the Python helper takes: NumPy's rules and errors.
 * (np.dot of such operands is the same product: _core.dot1.) */
PyObject *cpn_array_fast_matmul(PyObject *a, PyObject *b)
{
    if (Py_TYPE(a) != cpn_array_type || Py_TYPE(b) != cpn_array_type) return Py_NewRef(Py_NotImplemented);
    struct cpn_view *av = cpn_array_view(a), *bv = cpn_array_view(b);
    const int na = av->ndim, nb = bv->ndim;
    const enum cpn_dtype dt = cpn_array_dtype(a);
    if (na < 1 || na > 2 || nb < 1 || nb > 2 || cpn_array_dtype(b) != dt ||
        av->shape[na - 1] != bv->shape[0])
        return Py_NewRef(Py_NotImplemented);
    const int64_t k = bv->shape[0], m = na == 2 ? av->shape[0] : 1, n = nb == 2 ? bv->shape[1] : 1;
    const int64_t ash[2] = {m, k}, bsh[2] = {k, n};
    struct cpn_view *A = na == 2 ? (cpn_view_retain(av), av) : matmul_view(av, 2, ash);
    struct cpn_view *B = nb == 2 ? (cpn_view_retain(bv), bv) : matmul_view(bv, 2, bsh);
    if (!A || !B) {
        if (A) cpn_view_release(A);
        if (B) cpn_view_release(B);
        return Py_NewRef(Py_NotImplemented);
    }
    const int64_t csh[2] = {m, n};
    PyObject *r = cpn_array_new(dt, 2, csh);
    if (r) {
        struct cpn_op op = {.kind = CPN_OPK_MATMUL, .nin = 2, .nout = 1};
        op.dtype = dt;
        op.in[0] = A;
        op.in[1] = B;
        op.out[0] = cpn_array_view(r);
        if (cpn_submit(&op) < 0) Py_CLEAR(r);
    }
    cpn_view_release(A);
    cpn_view_release(B);
    if (!r || (na == 2 && nb == 2)) return r;
    /* NumPy's result: a 1-d operand's dimension removed (two vectors: a scalar). */
    const int64_t out_shape[1] = {na == 2 ? m : n};
    const int ond = na == 2 || nb == 2 ? 1 : 0;
    struct cpn_view *cv = matmul_view(cpn_array_view(r), ond, out_shape);
    Py_DECREF(r);
    if (!cv) {
        PyErr_SetString(PyExc_SystemError, "matmul: result reshape failed");
        return NULL;
    }
    PyObject *c = cpn_array_wrap(cv);
    if (c && ond == 0) Py_SETREF(c, cpn_array_to_scalar(c));
    return c;
}

static PyObject *array_matmul(PyObject *a, PyObject *b)
{
    PyObject *r = cpn_array_fast_matmul(a, b);
    if (r != Py_NotImplemented) return r;
    Py_DECREF(r);
    return helper_binary("_matmul_operator", a, b);
}
static PyObject *array_inplace_matmul(PyObject *a, PyObject *b)
{
    return helper_binary("_imatmul_operator", a, b);
}

static PyObject *array_richcompare(PyObject *a, PyObject *b, int opid)
{
    static const enum cpn_opcode codes[] = {
        [Py_LT] = CPN_OP_LESS, [Py_LE] = CPN_OP_LESS_EQUAL, [Py_EQ] = CPN_OP_EQUAL,
        [Py_NE] = CPN_OP_NOT_EQUAL, [Py_GT] = CPN_OP_GREATER, [Py_GE] = CPN_OP_GREATER_EQUAL,
    };
    PyObject *args[2] = {a, b};
    PyObject *r = cpn_ufunc_apply(codes[opid], args, NULL);
    if (r == Py_NotImplemented && (opid == Py_EQ || opid == Py_NE)) {
        /* NumPy compares with non-numeric objects (None, strings) element by element: nothing
         * is equal. */
        Py_DECREF(r);
        PyObject *self = cpn_array_check(a) ? a : b;
        struct cpn_view *v = cpn_array_view(self);
        r = cpn_array_new(CPN_DTYPE_BOOL, v->ndim, v->shape);
        if (r && cpn_assign(cpn_array_view(r), opid == Py_NE ? Py_True : Py_False) < 0) Py_CLEAR(r);
        if (r && v->ndim == 0) Py_SETREF(r, cpn_array_to_scalar(r));
    }
    return r;
}

static PyObject *array_format(PyObject *self, PyObject *spec)
{
    /* 0-d arrays format as their scalar; others as NumPy formats them. */
    PyObject *a = cpn_view_size(cpn_array_view(self)) == 1 && cpn_array_view(self)->ndim == 0
                      ? cpn_array_to_scalar(self) : cpn_array_to_numpy(self);
    if (!a) return NULL;
    PyObject *r = PyObject_Format(a, spec);
    Py_DECREF(a);
    return r;
}

/* ndarray.resize(*new_shape, refcheck=True): NumPy's refcheck counts the references to the
 * array object as its C method sees them (the caller's name and the call's own), so the count
 * is taken here, where a Python method's frame would add its own; the work is
 * cupynum._joins._resize_impl(self, count, *new_shape, **kwargs). */
static PyObject *array_resize(PyObject *self, PyObject *const *args, Py_ssize_t nargs, PyObject *kwnames)
{
    static PyObject *impl;   /* cupynum._joins._resize_impl, looked up once */
    PyObject *count = NULL, *r = NULL, **stack = NULL;
    if (!impl) {
        PyObject *mod = PyImport_ImportModule("cupynum._joins");
        impl = mod ? PyObject_GetAttrString(mod, "_resize_impl") : NULL;
        Py_XDECREF(mod);
        if (!impl) return NULL;
    }
    Py_ssize_t n = nargs + (kwnames ? PyTuple_GET_SIZE(kwnames) : 0);
    count = PyLong_FromSsize_t(Py_REFCNT(self));
    stack = PyMem_Malloc((size_t)(n + 2) * sizeof *stack);
    if (!count || !stack) {
        if (count) PyErr_NoMemory();
        goto fail;
    }
    stack[0] = self;
    stack[1] = count;
    for (Py_ssize_t i = 0; i < n; i++) stack[i + 2] = args[i];
    r = PyObject_Vectorcall(impl, stack, (size_t)nargs + 2, kwnames);
fail:
    PyMem_Free(stack);
    Py_XDECREF(count);
    return r;
}

static PyMethodDef array_c_methods[] = {
    {"__format__", (PyCFunction)array_format, METH_O, NULL},
    {"resize", (PyCFunction)(void (*)(void))array_resize, METH_FASTCALL | METH_KEYWORDS,
     "a.resize(new_shape, refcheck=True): change the shape and size of the array in place "
     "(numpy.ndarray.resize)."},
    {NULL},
};

static PyMemberDef array_members[] = {
    {"__weaklistoffset__", T_PYSSIZET, offsetof(CpnArray, weakreflist), READONLY, NULL},
    {NULL, 0, 0, 0, NULL},
};

static PyType_Slot array_slots[] = {
    {Py_tp_dealloc, array_dealloc},
    {Py_tp_new, array_new},
    {Py_tp_getset, array_getset},
    {Py_tp_members, array_members},
    {Py_tp_methods, NULL},   /* filled at init: C methods of methods_views.c + __format__ */
    {Py_tp_repr, array_repr},
    {Py_tp_str, array_str},
    {Py_tp_iter, array_iter},
    {Py_tp_richcompare, array_richcompare},
    {Py_tp_doc, "cupynum.ndarray: an N-d array whose data lives in the cupynum runtime.\n\n"
                "A view of a store; operations are deferred and executed by C kernels."},
    {Py_nb_bool, array_bool},
    {Py_nb_float, array_float},
    {Py_nb_int, array_int},
    {Py_nb_index, array_index},
    {Py_nb_add, array_add},
    {Py_nb_subtract, array_subtract},
    {Py_nb_multiply, array_multiply},
    {Py_nb_true_divide, array_true_divide},
    {Py_nb_floor_divide, array_floor_divide},
    {Py_nb_remainder, array_remainder},
    {Py_nb_divmod, array_divmod},
    {Py_nb_power, array_power},
    {Py_nb_negative, array_negative},
    {Py_nb_positive, array_positive},
    {Py_nb_absolute, array_absolute},
    {Py_nb_invert, array_invert},
    {Py_nb_and, array_and},
    {Py_nb_or, array_or},
    {Py_nb_xor, array_xor},
    {Py_nb_lshift, array_lshift},
    {Py_nb_rshift, array_rshift},
    {Py_nb_matrix_multiply, array_matmul},
    {Py_nb_inplace_add, array_inplace_add},
    {Py_nb_inplace_subtract, array_inplace_subtract},
    {Py_nb_inplace_multiply, array_inplace_multiply},
    {Py_nb_inplace_true_divide, array_inplace_true_divide},
    {Py_nb_inplace_floor_divide, array_inplace_floor_divide},
    {Py_nb_inplace_remainder, array_inplace_remainder},
    {Py_nb_inplace_power, array_inplace_power},
    {Py_nb_inplace_and, array_inplace_and},
    {Py_nb_inplace_or, array_inplace_or},
    {Py_nb_inplace_xor, array_inplace_xor},
    {Py_nb_inplace_lshift, array_inplace_lshift},
    {Py_nb_inplace_rshift, array_inplace_rshift},
    {Py_nb_inplace_matrix_multiply, array_inplace_matmul},
    {Py_mp_length, array_length},
    {Py_mp_subscript, cpn_array_subscript},
    {Py_mp_ass_subscript, cpn_array_ass_subscript},
    {Py_sq_length, array_length},
    {Py_sq_item, cpn_array_item},
    {0, NULL},
};

int cpn_array_type_init(PyObject *module)
{
    /* The type's method table: the C methods (methods_views.c), __format__, sum/prod/max/min
     * (fastpath.c). */
    static PyMethodDef all[64];
    int n = 0;
    for (PyMethodDef *m = cpn_array_methods; m->ml_name; m++) all[n++] = *m;
    for (PyMethodDef *m = array_c_methods; m->ml_name; m++) all[n++] = *m;
    for (PyMethodDef *m = cpn_array_reduce_methods; m->ml_name; m++) all[n++] = *m;
    for (PyType_Slot *s = array_slots; s->slot; s++)
        if (s->slot == Py_tp_methods) s->pfunc = all;
    PyType_Spec spec = {
        .name = "cupynum.ndarray",
        .basicsize = sizeof(CpnArray),
        .flags = Py_TPFLAGS_DEFAULT | Py_TPFLAGS_BASETYPE,
        .slots = array_slots,
    };
    cpn_array_type = (PyTypeObject *)PyType_FromModuleAndSpec(module, &spec, NULL);
    if (!cpn_array_type) return -1;
    if (PyModule_AddObjectRef(module, "ndarray", (PyObject *)cpn_array_type) < 0) return -1;
    return 0;
}
