/* ufuncobject.c: the cupynum.ufunc type, one object per NumPy ufunc.
 *
 * A call of a native ufunc with its positional operands and any of NumPy's call keywords (out=,
 * where=, dtype=, signature=, casting=, order=, subok=) goes straight from vectorcall to the one
 * apply, cpn_ufunc_call (ufunc.c).  cupynum/_ufunc.py's _call only reduces the other argument
 * forms to it (outputs passed positionally, the older sig= spelling), lets NumPy raise its
 * TypeError for wrong ones, and sends ufuncs the op table lacks to NumPy.  The methods
 * reduce/accumulate/reduceat/outer/at/resolve_dtypes run in cupynum/_ufunc.py, which receives the
 * ufunc object first.  Attributes (nin, nout, nargs, identity, types, ntypes, signature, __doc__)
 * are the NumPy ufunc's.
 *
 * Invariant: `code` is an op of the table with the ufunc's nin, or -1 (not native). */
#include "cpn_module.h"

#include <stddef.h>
#include <structmember.h>

typedef struct {
    PyObject_HEAD
    vectorcallfunc vectorcall;
    PyObject *np;     /* NumPy's ufunc */
    PyObject *name;   /* its __name__ */
    int code;         /* op table code, -1 when NumPy computes */
    int nin, nout;
} CpnUfunc;

static PyTypeObject *ufunc_type;
static PyObject *impl_module;   /* cupynum._ufunc */

PyObject *cpn_ufunc_impl(const char *name)
{
    if (!impl_module) {
        impl_module = PyImport_ImportModule("cupynum._ufunc");
        if (!impl_module) return NULL;
    }
    PyObject *f = PyObject_GetAttrString(impl_module, name);
    if (f) Py_DECREF(f);   /* the module keeps it alive */
    return f;
}

/* _ufunc.<fn>(self, *args, **kwargs) */
static PyObject *call_impl(const char *fn, PyObject *self, PyObject *const *args, Py_ssize_t nargs,
                           PyObject *kwnames)
{
    PyObject *f = cpn_ufunc_impl(fn);
    if (!f) return NULL;
    Py_ssize_t nkw = kwnames ? PyTuple_GET_SIZE(kwnames) : 0;
    PyObject *stack[16], **buf = stack;
    if (nargs + nkw + 1 > 16) {
        buf = PyMem_Malloc((size_t)(nargs + nkw + 1) * sizeof *buf);
        if (!buf) return PyErr_NoMemory();
    }
    buf[0] = self;
    for (Py_ssize_t i = 0; i < nargs + nkw; i++) buf[i + 1] = args[i];
    PyObject *r = PyObject_Vectorcall(f, buf, (size_t)(nargs + 1), kwnames);
    if (buf != stack) PyMem_Free(buf);
    return r;
}

/* NumPy's call keywords, in struct cpn_ufunc_kw's order; interned at type init. */
static const char *const kw_names[] = {"out", "where", "dtype", "signature", "casting", "order", "subok"};
#define N_KW 7
static PyObject *kw_strings[N_KW];

static PyObject **kw_slot(struct cpn_ufunc_kw *kw, int i)
{
    PyObject **slots[N_KW] = {&kw->out, &kw->where, &kw->dtype, &kw->signature, &kw->casting, &kw->order, &kw->subok};
    return slots[i];
}

/* The slot of keyword `name`, or NULL when it is not one of the call's. */
static PyObject **find_kw(struct cpn_ufunc_kw *kw, PyObject *name)
{
    for (int i = 0; i < N_KW; i++)
        if (name == kw_strings[i]) return kw_slot(kw, i);
    for (int i = 0; i < N_KW; i++)
        if (PyUnicode_Check(name) && PyUnicode_Compare(name, kw_strings[i]) == 0) return kw_slot(kw, i);
    return NULL;
}

static PyObject *ufunc_vectorcall(PyObject *self, PyObject *const *args, size_t nargsf, PyObject *kwnames)
{
    CpnUfunc *u = (CpnUfunc *)self;
    Py_ssize_t nargs = PyVectorcall_NARGS(nargsf);
    if (u->code >= 0 && nargs == u->nin) {
        struct cpn_ufunc_kw kw = {0};
        Py_ssize_t nkw = kwnames ? PyTuple_GET_SIZE(kwnames) : 0, i = 0;
        for (PyObject **slot; i < nkw && (slot = find_kw(&kw, PyTuple_GET_ITEM(kwnames, i))); i++)
            *slot = args[nargs + i];
        if (i == nkw) return cpn_ufunc_call((enum cpn_opcode)u->code, args, &kw, 1);
    }
    return call_impl("_call", self, args, nargs, kwnames);
}

/* _core.ufunc_call(ufunc, args, kwargs): the native call of a form _ufunc._call has reduced
 * (len(args) == nin, only the call's keywords); the where warning names _call's caller. */
static PyObject *mod_ufunc_call(PyObject *m, PyObject *const *args, Py_ssize_t nargs)
{
    if (nargs != 3 || !PyObject_TypeCheck(args[0], ufunc_type) || !PyTuple_Check(args[1]) || !PyDict_Check(args[2])) {
        PyErr_SetString(PyExc_TypeError, "ufunc_call(ufunc, args, kwargs)");
        return NULL;
    }
    CpnUfunc *u = (CpnUfunc *)args[0];
    if (u->code < 0 || PyTuple_GET_SIZE(args[1]) != u->nin) {
        PyErr_SetString(PyExc_TypeError, "ufunc_call: not a native call");
        return NULL;
    }
    struct cpn_ufunc_kw kw = {0};
    PyObject *key, *value;
    Py_ssize_t pos = 0;
    while (PyDict_Next(args[2], &pos, &key, &value)) {
        PyObject **slot = find_kw(&kw, key);
        if (!slot) return PyErr_Format(PyExc_TypeError, "ufunc_call: keyword %R", key);
        *slot = value;
    }
    return cpn_ufunc_call((enum cpn_opcode)u->code, &PyTuple_GET_ITEM(args[1], 0), &kw, 2);
}

#define METHOD(M)                                                                                  \
    static PyObject *ufunc_##M(PyObject *self, PyObject *const *args, Py_ssize_t nargs,            \
                               PyObject *kwnames)                                                  \
    {                                                                                              \
        return call_impl(#M, self, args, nargs, kwnames);                                          \
    }
METHOD(reduce)
METHOD(accumulate)
METHOD(reduceat)
METHOD(outer)
METHOD(at)
METHOD(resolve_dtypes)

/* Docs carry text signatures, so inspect.signature works as on NumPy's ufunc methods. */
#define METHOD_ROW(M, SIG)                                                                         \
    {#M, (PyCFunction)(void (*)(void))ufunc_##M, METH_FASTCALL | METH_KEYWORDS,                    \
     #M SIG "\n--\n\nNumPy's ufunc." #M ", computed by cupynum."}
static PyMethodDef ufunc_methods[] = {
    METHOD_ROW(reduce, "($self, array, /, axis=0, dtype=None, out=None, keepdims=False, "
                       "initial=None, where=True)"),
    METHOD_ROW(accumulate, "($self, array, /, axis=0, dtype=None, out=None)"),
    METHOD_ROW(reduceat, "($self, array, /, indices, axis=0, dtype=None, out=None)"),
    METHOD_ROW(outer, "($self, A, B, /, **kwargs)"),
    METHOD_ROW(at, "($self, a, indices, b=None, /)"),
    METHOD_ROW(resolve_dtypes, "($self, dtypes, *, signature=None, casting=None, reduction=False)"),
    {NULL},
};

/* Attributes forwarded to NumPy's ufunc; the closure is the attribute's name. */
static PyObject *ufunc_get_np(PyObject *self, void *closure)
{
    return PyObject_GetAttrString(((CpnUfunc *)self)->np, (const char *)closure);
}
static PyObject *ufunc_get_name(PyObject *self, void *closure)
{
    return Py_NewRef(((CpnUfunc *)self)->name);
}
static PyObject *ufunc_get_native(PyObject *self, void *closure)
{
    return PyBool_FromLong(((CpnUfunc *)self)->code >= 0);
}
static PyObject *ufunc_get_numpy(PyObject *self, void *closure)
{
    return Py_NewRef(((CpnUfunc *)self)->np);
}

#define FORWARD(A) {#A, ufunc_get_np, NULL, NULL, #A}
static PyGetSetDef ufunc_getset[] = {
    {"__name__", ufunc_get_name, NULL, NULL, NULL},
    {"__qualname__", ufunc_get_name, NULL, NULL, NULL},
    FORWARD(__doc__), FORWARD(nin), FORWARD(nout), FORWARD(nargs), FORWARD(identity),
    FORWARD(types), FORWARD(ntypes), FORWARD(signature), FORWARD(__signature__),
    {"_native", ufunc_get_native, NULL, "Does the op table compute this ufunc?", NULL},
    {"_numpy", ufunc_get_numpy, NULL, "NumPy's ufunc of the same name.", NULL},
    {NULL},
};

static PyMemberDef ufunc_members[] = {
    {"__vectorcalloffset__", T_PYSSIZET, offsetof(CpnUfunc, vectorcall), READONLY, NULL},
    {NULL},
};

static PyObject *ufunc_repr(PyObject *self)
{
    return PyUnicode_FromFormat("<ufunc '%U'>", ((CpnUfunc *)self)->name);
}

static void ufunc_dealloc(PyObject *self)
{
    CpnUfunc *u = (CpnUfunc *)self;
    PyTypeObject *tp = Py_TYPE(self);
    Py_XDECREF(u->np);
    Py_XDECREF(u->name);
    tp->tp_free(self);
    Py_DECREF(tp);
}

static PyType_Slot ufunc_slots[] = {
    {Py_tp_dealloc, ufunc_dealloc},
    {Py_tp_call, PyVectorcall_Call},
    {Py_tp_repr, ufunc_repr},
    {Py_tp_methods, ufunc_methods},
    {Py_tp_getset, ufunc_getset},
    {Py_tp_members, ufunc_members},
    {0, NULL},
};

/* make_ufunc(numpy_ufunc): the cupynum.ufunc of a NumPy ufunc (a new object each call; the
 * package keeps one per NumPy ufunc, so aliases are one object). */
static PyObject *mod_make_ufunc(PyObject *m, PyObject *npu)
{
    PyObject *name = PyObject_GetAttrString(npu, "__name__");
    if (!name) return NULL;
    PyObject *nin_o = PyObject_GetAttrString(npu, "nin"), *nout_o = PyObject_GetAttrString(npu, "nout");
    long nin = nin_o ? PyLong_AsLong(nin_o) : -1, nout = nout_o ? PyLong_AsLong(nout_o) : -1;
    Py_XDECREF(nin_o);
    Py_XDECREF(nout_o);
    const char *s = PyUnicode_AsUTF8(name);
    if (!s || PyErr_Occurred()) {
        Py_DECREF(name);
        return NULL;
    }
    CpnUfunc *u = PyObject_New(CpnUfunc, ufunc_type);
    if (!u) {
        Py_DECREF(name);
        return NULL;
    }
    u->vectorcall = ufunc_vectorcall;
    u->np = Py_NewRef(npu);
    u->name = name;
    u->nin = (int)nin;
    u->nout = (int)nout;
    int code = cpn_op_lookup(s);
    u->code = code >= 0 && code != CPN_OP_WHERE && cpn_op_info(code)->nin == nin ? code : -1;
    return (PyObject *)u;
}

static PyMethodDef ufunc_module_methods[] = {
    {"make_ufunc", mod_make_ufunc, METH_O, "make_ufunc(numpy_ufunc): a cupynum.ufunc."},
    {"ufunc_call", (PyCFunction)(void (*)(void))mod_ufunc_call, METH_FASTCALL,
     "ufunc_call(ufunc, args, kwargs): the native call of a reduced argument form."},
    {NULL},
};

int cpn_ufunc_type_init(PyObject *module)
{
    PyType_Spec spec = {
        .name = "cupynum.ufunc",
        .basicsize = sizeof(CpnUfunc),
        .flags = Py_TPFLAGS_DEFAULT | Py_TPFLAGS_HAVE_VECTORCALL | Py_TPFLAGS_DISALLOW_INSTANTIATION |
                 Py_TPFLAGS_IMMUTABLETYPE,
        .slots = ufunc_slots,
    };
    for (int i = 0; i < N_KW; i++)
        if (!(kw_strings[i] = PyUnicode_InternFromString(kw_names[i]))) return -1;
    ufunc_type = (PyTypeObject *)PyType_FromModuleAndSpec(module, &spec, NULL);
    if (!ufunc_type) return -1;
    if (PyModule_AddObjectRef(module, "ufunc_type", (PyObject *)ufunc_type) < 0) return -1;
    return PyModule_AddFunctions(module, ufunc_module_methods);
}
