/* ufunc.c: THE ufunc call -- an element-wise op of the table applied to Python operands with
 * NumPy's keywords (out=, where=, dtype=, signature=, casting=, order=, subok=), NumPy's way.
 * Operators (a + b, a += b) and cupynum.ufunc objects (ufuncobject.c) both come here.
 *
 * Type resolution is NumPy's own (ufunc.resolve_dtypes, which implements NEP 50: Python scalars
 * are weak).  A plain call (at most out=) is cached per (op, operand kinds); a call with other
 * keywords is first validated by NumPy's ufunc on zero-size stand-ins of the operands (NumPy's
 * exact errors for bad dtype=, signature=, casting=, order=, subok=, output and where dtypes) and
 * cached per (op, operand kinds, output and where dtypes, keyword values).  Operands are then cast
 * to the loop dtype (scalars packed inline into the op), broadcast as views with the outputs and
 * the where mask, and one op is queued (a where mask adds one select into each output).  What the
 * table cannot do natively (mixed-dtype loops, out-of-range Python integers in comparisons,
 * output casting NumPy rejects, foreign operands or outputs) goes to the one fallback,
 * cupynum/_ufunc.py's _numpy_general over cupynum/_fallback.py: NumPy computes or raises its own
 * error.  order= is validated and otherwise does not change the result's values or layout
 * (cupynum lays results out like their operands); subok= has no subclass to keep. */
#include "cpn_module.h"

#include <stdlib.h>
#include <string.h>


#define N_TOK (CPN_DTYPE_COUNT + 3)   /* strong dtypes, then weak int, float, complex */
#define TOK_WEAK_INT CPN_DTYPE_COUNT

struct resolved {
    signed char valid, in0, in1, out[CPN_OP_MAXOUT];
    signed char in1_np;   /* NumPy's dtype of input 1 (ldexp: int32 or int64; in1 is int64) */
};
static struct resolved cache[CPN_OP_COUNT][N_TOK][N_TOK];
static PyObject *np_ufuncs[CPN_OP_COUNT];

int cpn_ufunc_init(PyObject *module)
{
    PyObject *np = PyImport_ImportModule("numpy");
    if (!np) return -1;
    for (int i = 0; i < CPN_OP_COUNT; i++) {
        np_ufuncs[i] = PyObject_GetAttrString(np, cpn_op_info(i)->name);
        if (!np_ufuncs[i]) {
            Py_DECREF(np);
            return -1;
        }
    }
    Py_DECREF(np);
    return 0;
}

struct operand {
    PyObject *obj;   /* borrowed: what the caller passed */
    PyObject *arr;   /* owned: our ndarray, when the operand is an array */
    int tok;         /* resolution token */
};

/* Classify one operand.  Returns 1 when done, 0 when foreign (NotImplemented), 2 when NumPy must
compute (a NumPy scalar or array of a dtype cupynum lacks: longdouble, object...), -1 on error. */
static int classify(PyObject *o, struct operand *op)
{
    op->obj = o;
    op->arr = NULL;
    if (cpn_array_check(o)) {
        Py_INCREF(o);
        op->arr = o;
        op->tok = cpn_array_dtype(o);
        return 1;
    }
    if (PyBool_Check(o)) { op->tok = CPN_DTYPE_BOOL; return 1; }
    if (PyLong_CheckExact(o) || (PyLong_Check(o) && !PyArray_IsScalar(o, Generic))) {
        op->tok = TOK_WEAK_INT; return 1;
    }
    if (PyFloat_Check(o) && !PyArray_IsScalar(o, Generic)) { op->tok = TOK_WEAK_INT + 1; return 1; }
    if (PyComplex_Check(o) && !PyArray_IsScalar(o, Generic)) { op->tok = TOK_WEAK_INT + 2; return 1; }
    if (PyArray_IsScalar(o, Generic)) {
        PyArray_Descr *d = PyArray_DescrFromScalar(o);
        if (!d) return -1;
        int dt = cpn_dtype_from_descr(d);
        Py_DECREF(d);
        if (dt < 0) { PyErr_Clear(); return 2; }
        op->tok = dt;
        return 1;
    }
    if (!PyArray_Check(o) && !PyList_Check(o) && !PyTuple_Check(o)) {
        if (PyObject_HasAttrString(o, "__array_ufunc__")) return 0;
    }
    PyObject *a = cpn_array_from_any(o);
    if (!a) {
        PyErr_Clear();
        /* Arrays and sequences NumPy can take (longdouble, object...): NumPy computes or raises
         * its own error.  Other objects: NotImplemented, so Python's reflected operators and
         * ndarray's == / != rules apply. */
        return (PyArray_Check(o) || PyList_Check(o) || PyTuple_Check(o)) ? 2 : 0;
    }
    op->arr = a;
    op->tok = cpn_array_dtype(a);
    return 1;
}

static PyObject *tok_object(int tok)
{
    if (tok < CPN_DTYPE_COUNT) return (PyObject *)cpn_descr(tok);
    if (tok == TOK_WEAK_INT) return (PyObject *)&PyLong_Type;
    if (tok == TOK_WEAK_INT + 1) return (PyObject *)&PyFloat_Type;
    return (PyObject *)&PyComplex_Type;
}

/* (operand kinds..., None per output): resolve_dtypes' first argument. */
static PyObject *kinds_tuple(enum cpn_opcode code, const struct operand *ops)
{
    const struct cpn_op_info *info = cpn_op_info(code);
    PyObject *tup = PyTuple_New(info->nin + info->nout);
    if (!tup) return NULL;
    for (int i = 0; i < info->nin; i++) PyTuple_SET_ITEM(tup, i, Py_NewRef(tok_object(ops[i].tok)));
    for (int k = 0; k < info->nout; k++) PyTuple_SET_ITEM(tup, info->nin + k, Py_NewRef(Py_None));
    return tup;
}

/* The loop NumPy resolved (resolve_dtypes' tuple) as the table's: valid 1 when the table has it,
 * 2 when NumPy must compute (a dtype cupynum lacks, a mixed loop, an output dtype the table's
 * loop does not give). */
static void take_loop(enum cpn_opcode code, PyObject *loop, struct resolved *c)
{
    const struct cpn_op_info *info = cpn_op_info(code);
    int nin = info->nin, nout = info->nout;
    int dts[CPN_OP_MAXIN + CPN_OP_MAXOUT] = {0};
    c->valid = 2;
    if (!PyTuple_Check(loop) || PyTuple_GET_SIZE(loop) != nin + nout) return;
    for (int i = 0; i < nin + nout; i++) {
        PyObject *d = PyTuple_GET_ITEM(loop, i);
        dts[i] = PyArray_DescrCheck(d) ? cpn_dtype_from_descr((PyArray_Descr *)d) : -1;
        if (dts[i] < 0) {
            PyErr_Clear();
            return;
        }
    }
    enum cpn_dtype dt = (enum cpn_dtype)dts[0];
    c->in0 = (signed char)dt;
    c->in1_np = (signed char)(nin > 1 ? dts[1] : dts[0]);
    c->in1 = (signed char)cpn_op_in_dtype(code, 1, dt);
    /* Native only when the table has the loop NumPy chose: its input and output dtypes.  An int64
     * second input takes NumPy's int32 loop too (the cast is exact). */
    bool ok = cpn_op_has_loop(code, dt);
    if (nin > 1 && c->in1_np != c->in1)
        ok &= info->in1 == CPN_RESULT_I64 && cpn_dtype_class((enum cpn_dtype)c->in1_np) == CPN_CLASS_INT;
    for (int k = 0; k < nout; k++) {
        c->out[k] = (signed char)dts[nin + k];
        ok &= (int)cpn_op_out_dtype(code, k, dt) == c->out[k];
    }
    c->valid = ok ? 1 : 2;
}

/* A plain call's loop (operand kinds only); 0 native, 1 NumPy computes, -1 error. */
static int resolve(enum cpn_opcode code, const struct operand *ops, struct resolved *res)
{
    int t0 = ops[0].tok, t1 = cpn_op_info(code)->nin > 1 ? ops[1].tok : 0;
    struct resolved *c = &cache[code][t0][t1];
    if (!c->valid) {
        PyObject *tup = kinds_tuple(code, ops);
        if (!tup) return -1;
        PyObject *r = PyObject_CallMethod(np_ufuncs[code], "resolve_dtypes", "(O)", tup);
        Py_DECREF(tup);
        if (!r) return -1;
        take_loop(code, r, c);
        Py_DECREF(r);
    }
    *res = *c;
    return c->valid == 1 ? 0 : 1;
}

/* ---- calls with keywords: NumPy validates once per key ---------------------------------- */

/* What a keyword call's validation and loop depend on.  -1: keyword absent; -2: given as None
 * (NumPy tells them apart: dtype=None with signature=None is an error). */
struct kwkey {
    int16_t code;
    int8_t tok[CPN_OP_MAXIN], out[CPN_OP_MAXOUT], where;   /* operand, output, where dtypes */
    int8_t dtype, sig_kind, sig[CPN_OP_MAXIN + CPN_OP_MAXOUT], casting, order, subok;
};
#define KW_CACHE 64
static struct {
    struct kwkey key;
    struct resolved res;
} kw_cache[KW_CACHE];
static int kw_cache_n, kw_cache_next;

/* A dtype-like keyword value as a key entry: -2 for None, a dtype of the table, or -3 when it
 * cannot be one (NumPy then validates every call: strings NumPy refuses, byte-swapped or
 * unit-carrying dtypes, dtypes cupynum lacks). */
static int key_dtype(PyObject *o)
{
    if (o == Py_None) return -2;
    PyArray_Descr *d = NULL;
    if (!PyArray_DescrConverter(o, &d)) {
        PyErr_Clear();
        return -3;
    }
    int dt = PyArray_ISNBO(d->byteorder) ? cpn_dtype_from_descr(d) : -3;
    Py_DECREF(d);
    if (dt < 0) PyErr_Clear();
    return dt < 0 ? -3 : dt;
}

static const char *const castings[] = {"no", "equiv", "safe", "same_kind", "unsafe"};

/* Fill the key; false when a value cannot be part of one. */
static bool make_key(enum cpn_opcode code, const struct operand *ops, PyObject *const *outs, int wtok,
                     const struct cpn_ufunc_kw *kw, struct kwkey *key)
{
    const struct cpn_op_info *info = cpn_op_info(code);
    memset(key, -1, sizeof *key);
    key->code = (int16_t)code;
    for (int i = 0; i < info->nin && i < CPN_OP_MAXIN; i++) key->tok[i] = (int8_t)ops[i].tok;
    for (int k = 0; k < info->nout && k < CPN_OP_MAXOUT; k++)
        if (outs[k]) key->out[k] = (int8_t)cpn_array_dtype(outs[k]);
    key->where = (int8_t)wtok;
    if (kw->dtype && (key->dtype = (int8_t)key_dtype(kw->dtype)) == -3) return false;
    if (kw->signature == Py_None) {
        key->sig_kind = -2;
    } else if (kw->signature) {
        if (!PyTuple_Check(kw->signature) || PyTuple_GET_SIZE(kw->signature) != info->nin + info->nout)
            return false;
        key->sig_kind = 1;
        for (int i = 0; i < info->nin + info->nout; i++)
            if ((key->sig[i] = (int8_t)key_dtype(PyTuple_GET_ITEM(kw->signature, i))) == -3) return false;
    }
    if (kw->casting) {
        if (!PyUnicode_Check(kw->casting)) return false;
        for (int c = 0; c < 5 && key->casting < 0; c++)
            if (PyUnicode_CompareWithASCIIString(kw->casting, castings[c]) == 0) key->casting = (int8_t)c;
        if (key->casting < 0) return false;
    }
    if (kw->order == Py_None) {
        key->order = -2;
    } else if (kw->order) {
        const char *s = PyUnicode_Check(kw->order) ? PyUnicode_AsUTF8(kw->order) : NULL;
        if (!s || !s[0] || s[1] || !strchr("CFAKcfak", s[0])) {
            PyErr_Clear();
            return false;
        }
        key->order = (int8_t)s[0];
    }
    if (kw->subok) {
        if (!PyBool_Check(kw->subok)) return false;
        key->subok = (int8_t)(kw->subok == Py_True);
    }
    return true;
}

/* A zero-size NumPy array of dtype dt: an operand's stand-in for NumPy's validation. */
static PyObject *stand_in(int dt)
{
    npy_intp zero = 0;
    PyArray_Descr *d = cpn_descr((enum cpn_dtype)dt);
    Py_INCREF(d);
    return PyArray_Empty(1, &zero, d, 0);
}

static int set_given(PyObject *dict, const char *name, PyObject *value)
{
    return value ? PyDict_SetItemString(dict, name, value) : 0;
}

/* NumPy's ufunc on zero-size stand-ins of the operands, outputs (read-only where ours are) and
 * where mask (wtok < 0: the where= object itself), with the call's dtype=, signature=, casting=,
 * order= and subok=: raises NumPy's exact error, or succeeds.  0 or -1. */
static int validate(enum cpn_opcode code, const struct operand *ops, PyObject *const *outs, int wtok,
                    const struct cpn_ufunc_kw *kw)
{
    const struct cpn_op_info *info = cpn_op_info(code);
    PyObject *args = PyTuple_New(info->nin), *kwargs = PyDict_New(), *out = NULL, *where = NULL;
    int rc = -1;
    if (!args || !kwargs) goto done;
    for (int i = 0; i < info->nin; i++) {
        PyObject *x = ops[i].arr ? stand_in(cpn_array_dtype(ops[i].arr)) : Py_NewRef(ops[i].obj);
        if (!x) goto done;
        PyTuple_SET_ITEM(args, i, x);
    }
    /* out=(None, ...) when none is given: NumPy's where-without-out warning is ours to give */
    if (!(out = PyTuple_New(info->nout))) goto done;
    for (int k = 0; k < info->nout; k++) {
        PyObject *x = outs[k] ? stand_in(cpn_array_dtype(outs[k])) : Py_NewRef(Py_None);
        if (!x) goto done;
        if (outs[k] && cpn_array_view(outs[k])->readonly)   /* NumPy's order of complaints */
            PyArray_CLEARFLAGS((PyArrayObject *)x, NPY_ARRAY_WRITEABLE);
        PyTuple_SET_ITEM(out, k, x);
    }
    if (wtok >= 0 ? !(where = stand_in(wtok)) : kw->where && !(where = Py_NewRef(kw->where))) goto done;
    if (PyDict_SetItemString(kwargs, "out", out) < 0 || set_given(kwargs, "where", where) < 0 ||
        set_given(kwargs, "dtype", kw->dtype) < 0 || set_given(kwargs, "signature", kw->signature) < 0 ||
        set_given(kwargs, "casting", kw->casting) < 0 || set_given(kwargs, "order", kw->order) < 0 ||
        set_given(kwargs, "subok", kw->subok) < 0)
        goto done;
    PyObject *r = PyObject_Call(np_ufuncs[code], args, kwargs);
    if (r) {
        Py_DECREF(r);
        rc = 0;
    }
done:
    Py_XDECREF(args);
    Py_XDECREF(kwargs);
    Py_XDECREF(out);
    Py_XDECREF(where);
    return rc;
}

/* NumPy's loop under dtype= / signature= / casting= (after validation): resolve_dtypes with the
 * signature dtype= means (its dtype for every output).  Fills res; -1 on error. */
static int resolve_loop_kw(enum cpn_opcode code, const struct operand *ops, const struct cpn_ufunc_kw *kw,
                           struct resolved *res)
{
    const struct cpn_op_info *info = cpn_op_info(code);
    PyObject *tup = kinds_tuple(code, ops), *rkw = PyDict_New(), *sig = NULL, *casting = NULL, *f = NULL;
    int rc = -1;
    if (!tup || !rkw) goto done;
    if (kw->dtype && kw->dtype != Py_None) {
        if (!(sig = PyTuple_New(info->nin + info->nout))) goto done;
        for (int i = 0; i < info->nin + info->nout; i++)
            PyTuple_SET_ITEM(sig, i, Py_NewRef(i < info->nin ? Py_None : kw->dtype));
    } else if (kw->signature) {
        sig = Py_NewRef(kw->signature);
    }
    casting = kw->casting ? Py_NewRef(kw->casting) : PyUnicode_FromString("same_kind");
    if (!casting || PyDict_SetItemString(rkw, "casting", casting) < 0 || set_given(rkw, "signature", sig) < 0)
        goto done;
    if (!(f = PyObject_GetAttrString(np_ufuncs[code], "resolve_dtypes"))) goto done;
    PyObject *args = PyTuple_Pack(1, tup);
    if (!args) goto done;
    PyObject *r = PyObject_Call(f, args, rkw);
    Py_DECREF(args);
    rc = 0;
    if (!r) {   /* no loop NumPy names here: its own call computes (or decides) */
        PyErr_Clear();
        res->valid = 2;
        goto done;
    }
    take_loop(code, r, res);
    Py_DECREF(r);
done:
    Py_XDECREF(tup);
    Py_XDECREF(rkw);
    Py_XDECREF(sig);
    Py_XDECREF(casting);
    Py_XDECREF(f);
    return rc;
}

/* A keyword call's loop; 0 native, 1 NumPy computes, -1 with NumPy's error. */
static int resolve_kw(enum cpn_opcode code, const struct operand *ops, PyObject *const *outs, int wtok,
                      const struct cpn_ufunc_kw *kw, struct resolved *res)
{
    struct kwkey key;
    bool keyed = make_key(code, ops, outs, wtok, kw, &key);
    for (int e = 0; keyed && e < kw_cache_n; e++)
        if (memcmp(&kw_cache[e].key, &key, sizeof key) == 0) {
            *res = kw_cache[e].res;
            return res->valid == 1 ? 0 : 1;
        }
    if (validate(code, ops, outs, wtok, kw) < 0 || resolve_loop_kw(code, ops, kw, res) < 0) return -1;
    if (keyed) {
        int e = kw_cache_next;
        kw_cache_next = (e + 1) % KW_CACHE;
        if (kw_cache_n < KW_CACHE) kw_cache_n++;
        kw_cache[e].key = key;
        kw_cache[e].res = *res;
    }
    return res->valid == 1 ? 0 : 1;
}

/* ---- operands beyond the inputs ---------------------------------------------------------- */

/* Split `out` (NULL, None, an ndarray of ours, or a tuple of nout entries, each None or an
 * ndarray of ours) into outs[k] (borrowed, NULL for None).  1 when NumPy decides (another form:
 * NumPy's own arrays, or its error for a wrong count or a non-array), 2 when an output is
 * read-only (NumPy's validation raises, its complaints in its order). */
static int parse_out(PyObject *out, int nout, PyObject **outs)
{
    for (int k = 0; k < nout; k++) outs[k] = NULL;
    if (!out) return 0;
    if (out == Py_None) return nout == 1 ? 0 : 1;   /* NumPy refuses out=None for two outputs */
    if (PyTuple_Check(out)) {
        if (PyTuple_GET_SIZE(out) != nout) return 1;
        for (int k = 0; k < nout; k++) {
            PyObject *o = PyTuple_GET_ITEM(out, k);
            outs[k] = o == Py_None ? NULL : o;
        }
    } else if (nout == 1) {
        outs[0] = out;
    } else {
        return 1;
    }
    for (int k = 0; k < nout; k++)
        if (outs[k] && !cpn_array_check(outs[k])) return 1;
    for (int k = 0; k < nout; k++)
        if (outs[k] && cpn_array_view(outs[k])->readonly) return 2;
    return 0;
}

/* The where= mask as an ndarray of ours (*warr, owned; NULL for where=True) and its dtype for
 * NumPy's validation (NumPy reads Python booleans and nested sequences as booleans).  1 when NumPy
 * decides (other objects: NumPy's truth of None, of numbers...), -1 on error. */
static int parse_where(PyObject *where, PyObject **warr, int *wtok)
{
    *warr = NULL;
    *wtok = -1;
    if (!where || where == Py_True) return 0;
    bool sequence = PyList_Check(where) || PyTuple_Check(where);
    if (cpn_array_check(where)) {
        *warr = Py_NewRef(where);
    } else if (PyBool_Check(where) || PyArray_IsScalar(where, Bool) || sequence || PyArray_Check(where)) {
        *warr = cpn_array_from_any(where);
        if (!*warr) {
            PyErr_Clear();
            return 1;
        }
    } else {
        return 1;
    }
    *wtok = sequence || PyBool_Check(where) ? CPN_DTYPE_BOOL : (int)cpn_array_dtype(*warr);
    return 0;
}

/* NumPy computes the call on gathered operands (cupynum/_ufunc.py's _numpy_general) or raises
 * its own error. */
static PyObject *numpy_call(enum cpn_opcode code, PyObject *const *args, const struct cpn_ufunc_kw *kw)
{
    PyObject *helper = cpn_ufunc_impl("_numpy_general");
    if (!helper) return NULL;
    int nin = cpn_op_info(code)->nin;
    PyObject *tup = PyTuple_New(nin), *kwargs = PyDict_New(), *r = NULL;
    if (!tup || !kwargs) goto done;
    for (int i = 0; i < nin; i++) PyTuple_SET_ITEM(tup, i, Py_NewRef(args[i]));
    if (set_given(kwargs, "out", kw->out) < 0 || set_given(kwargs, "where", kw->where) < 0 ||
        set_given(kwargs, "dtype", kw->dtype) < 0 || set_given(kwargs, "signature", kw->signature) < 0 ||
        set_given(kwargs, "casting", kw->casting) < 0 || set_given(kwargs, "order", kw->order) < 0 ||
        set_given(kwargs, "subok", kw->subok) < 0)
        goto done;
    r = PyObject_CallFunction(helper, "OsOO", np_ufuncs[code], "__call__", tup, kwargs);
done:
    Py_XDECREF(tup);
    Py_XDECREF(kwargs);
    return r;
}

/* NumPy's broadcasting of n shapes into ndim/shape; false when they do not broadcast. */
static bool broadcast(int n, const int *ndims, const int64_t *const *shapes, int *ndim, int64_t *shape)
{
    *ndim = 0;
    for (int i = 0; i < n; i++)
        if (ndims[i] > *ndim) *ndim = ndims[i];
    for (int d = 0; d < *ndim; d++) shape[d] = 1;
    for (int i = 0; i < n; i++)
        for (int d = 0; d < ndims[i]; d++) {
            int64_t e = shapes[i][d], *s = &shape[*ndim - ndims[i] + d];
            if (e == *s || e == 1) continue;
            if (*s != 1) return false;
            *s = e;
        }
    return true;
}

static bool same_shape(const struct cpn_view *v, int ndim, const int64_t *shape)
{
    if (v->ndim != ndim) return false;
    for (int d = 0; d < ndim; d++)
        if (v->shape[d] != shape[d]) return false;
    return true;
}

/* v as a view of (ndim, shape): itself (a new reference) or its broadcast; NULL with the error. */
static struct cpn_view *broadcast_view(struct cpn_view *v, int ndim, const int64_t *shape)
{
    if (same_shape(v, ndim, shape)) {
        cpn_view_retain(v);
        return v;
    }
    struct cpn_view *b = NULL;
    enum cpn_status st = cpn_view_broadcast(v, ndim, shape, &b);
    if (st != CPN_OK) {
        cpn_raise(st);
        return NULL;
    }
    return b;
}

/* NumPy's order='K' layout of a new result: the order of the operands' memory, where they agree.
 * NumPy's iterator (npyiter_find_best_axis_ordering) insertion-sorts the axes from the fastest;
 * an axis moves inward past another only when every operand with non-zero strides on both says
 * the other is slower (ambiguous pairs, with no such operand, are passed over).  perm[i] is the
 * result dimension that store dimension i (slowest first) holds; false when that is C order, the
 * only layout when every operand is C-contiguous.  So a ufunc of a transposed array is laid out
 * as NumPy's (its strides), and its loop runs in the operands' memory order instead of a
 * strided gather per short row (a convolution's moveaxis then maximum, issue #17). */
static bool k_order(struct cpn_view *const *views, int n, int ndim, const int64_t *shape, int *perm)
{
    /* Extent-1 dimensions: NumPy's iterator places them by rules not followed here, so a result
     * with one keeps C order (as before; its values are the same). */
    if (ndim < 2) return false;
    for (int d = 0; d < ndim; d++)
        if (shape[d] < 2) return false;
    int64_t st[CPN_OP_MAXIN][CPN_MAXDIM], off;
    int nv = 0;
    for (int i = 0; i < n; i++)
        if (views[i]) cpn_view_byte_layout(views[i], st[nv++], &off);
    if (nv == 0) return false;
    int order[CPN_MAXDIM];   /* fastest first */
    for (int i = 0; i < ndim; i++) order[i] = ndim - 1 - i;
    for (int i0 = 1; i0 < ndim; i0++) {
        const int j0 = order[i0];
        int ipos = i0;
        for (int i1 = i0 - 1; i1 >= 0; i1--) {
            const int j1 = order[i1];
            bool ambig = true, swap = false;
            for (int a = 0; a < nv; a++) {
                const int64_t s0 = st[a][j0], s1 = st[a][j1];
                if (s0 != 0 && s1 != 0) {
                    if (llabs(s1) <= llabs(s0)) swap = false;
                    else if (ambig) swap = true;
                    ambig = false;
                }
            }
            if (!ambig) {
                if (swap) ipos = i1;
                else break;
            }
        }
        if (ipos != i0) {
            for (int i = i0; i > ipos; i--) order[i] = order[i - 1];
            order[ipos] = j0;
        }
    }
    bool c = true;
    for (int i = 0; i < ndim; i++) {
        perm[i] = order[ndim - 1 - i];
        c = c && perm[i] == i;
    }
    if (c) return false;
    /* Only an order every operand is laid out in (its non-zero strides of extents > 1 not
     * growing along perm): where operands disagree (a C-ordered reduction beside a transposed
     * array: cupynum's reductions keep C order) the sort can end between them, and C order is
     * the plainer loop. */
    for (int a = 0; a < nv; a++) {
        int64_t prev = INT64_MAX;
        for (int i = 0; i < ndim; i++) {
            const int64_t x = llabs(st[a][perm[i]]);
            if (x == 0) continue;
            if (x > prev) return false;
            prev = x;
        }
    }
    return true;
}

/* A new array of (ndim, shape) laid out as perm says (k_order): a store of the permuted shape,
 * tiled like the operands seen in its order, and its transposed view.  NULL with the error. */
static PyObject *new_permuted(enum cpn_dtype dt, int ndim, const int64_t *shape, const int *perm,
                              int nl, const struct cpn_view *const *likes)
{
    int64_t sshape[CPN_MAXDIM];
    int inv[CPN_MAXDIM];
    for (int i = 0; i < ndim; i++) {
        sshape[i] = shape[perm[i]];
        inv[perm[i]] = i;
    }
    struct cpn_view *pl[CPN_OP_MAXIN] = {NULL};
    PyObject *r = NULL, *s = NULL;
    for (int j = 0; j < nl; j++) {
        enum cpn_status st = cpn_view_transpose(likes[j], perm, &pl[j]);
        if (st != CPN_OK) {
            cpn_raise(st);
            goto done;
        }
    }
    s = cpn_array_new_like_n(dt, ndim, sshape, nl, (const struct cpn_view *const *)pl);
    if (!s) goto done;
    struct cpn_view *v = NULL;
    enum cpn_status st = cpn_view_transpose(cpn_array_view(s), inv, &v);
    if (st != CPN_OK) {
        cpn_raise(st);
        goto done;
    }
    r = cpn_array_wrap(v);
done:
    for (int j = 0; j < nl; j++) cpn_view_release(pl[j]);
    Py_XDECREF(s);
    return r;
}

/* out[k] = where ? x : out[k], x cast to the output's dtype. */
static int select_into(PyObject *o, PyObject *x, struct cpn_view *mask)
{
    struct cpn_view *ov = cpn_array_view(o);
    PyObject *xc = cpn_array_dtype(x) == ov->dtype ? Py_NewRef(x) : cpn_array_cast(x, ov->dtype);
    if (!xc) return -1;
    struct cpn_op op = {.kind = CPN_OPK_ELEMENTWISE, .code = CPN_OP_WHERE, .nin = 3, .nout = 1, .dtype = ov->dtype};
    op.in[0] = mask;
    op.in[1] = cpn_array_view(xc);
    op.in[2] = ov;
    op.out[0] = ov;
    int rc = cpn_submit(&op);
    Py_DECREF(xc);
    return rc;
}

/* Is the (already packed) scalar exponent of an integer power negative? */
static bool negative_int_scalar(enum cpn_dtype dt, const union cpn_scalar *e)
{
    switch (dt) {
    case CPN_DTYPE_INT8: return e->i8 < 0;
    case CPN_DTYPE_INT16: return e->i16 < 0;
    case CPN_DTYPE_INT32: return e->i32 < 0;
    case CPN_DTYPE_INT64: return e->i64 < 0;
    default: return false;
    }
}

/* An integer scalar packed as `from` (int32 or int64), widened to int64 in place. */
static void widen_int_scalar(enum cpn_dtype from, union cpn_scalar *s)
{
    if (from == CPN_DTYPE_INT32) s->i64 = s->i32;
    else if (from == CPN_DTYPE_INT16) s->i64 = s->i16;
    else if (from == CPN_DTYPE_INT8) s->i64 = s->i8;
}

/* The one apply.  stacklevel 0: an operator (a foreign operand gives NotImplemented); otherwise
 * a ufunc object's call (a foreign operand goes to NumPy, which dispatches on it) and the
 * stack level of NumPy's where-without-out warning. */
static PyObject *apply(enum cpn_opcode code, PyObject *const *args, const struct cpn_ufunc_kw *kw, int stacklevel)
{
    const struct cpn_op_info *info = cpn_op_info(code);
    const int nin = info->nin, nout = info->nout;
    struct operand ops[CPN_OP_MAXIN] = {{0}};
    PyObject *result = NULL, *targets[CPN_OP_MAXOUT] = {NULL, NULL}, *outs[CPN_OP_MAXOUT] = {NULL, NULL};
    PyObject *warr = NULL;
    struct cpn_view *bviews[CPN_OP_MAXIN] = {NULL, NULL, NULL}, *wview = NULL;
    int foreign = 0, wtok = -1, rc;
    for (int i = 0; i < nin; i++) {
        int c = classify(args[i], &ops[i]);
        if (c < 0) goto fail;
        if (c == 0 && stacklevel == 0) {
            result = Py_NewRef(Py_NotImplemented);
            goto fail;
        }
        foreign |= c != 1;
    }
    if (foreign) goto numpy;
    int out_rc = parse_out(kw->out, nout, outs);
    if (out_rc == 1) goto numpy;
    if ((rc = parse_where(kw->where, &warr, &wtok)) < 0) goto fail;
    if (out_rc == 2) {   /* NumPy raises: read-only, or what it checks before */
        if (validate(code, ops, outs, wtok, kw) == 0) cpn_raise_readonly_out();
        goto fail;
    }
    if (rc == 1) goto numpy;
    struct resolved res = {0};
    if (warr || kw->dtype || kw->signature || kw->casting || kw->order || kw->subok) {
        rc = resolve_kw(code, ops, outs, wtok, kw, &res);
    } else {
        rc = resolve(code, ops, &res);
        for (int k = 0; rc == 0 && k < nout; k++)   /* NumPy raises its own casting error */
            if (outs[k] && !PyArray_CanCastTypeTo(cpn_descr(res.out[k]), cpn_descr(cpn_array_dtype(outs[k])),
                                                  NPY_SAME_KIND_CASTING))
                rc = 1;
    }
    if (rc < 0) goto fail;
    struct cpn_op op = {.kind = CPN_OPK_ELEMENTWISE, .code = code, .nin = nin, .nout = nout};
    op.dtype = res.in0;
    for (int i = 0; rc == 0 && i < nin; i++) {
        int want = i == 1 ? res.in1 : res.in0, np_dt = i == 1 ? res.in1_np : res.in0;
        if (ops[i].arr) {
            if ((int)cpn_array_dtype(ops[i].arr) != want) {
                PyObject *c = cpn_array_cast(ops[i].arr, want);
                if (!c) goto fail;
                Py_SETREF(ops[i].arr, c);
            }
        } else if (np_dt == CPN_DTYPE_BOOL && ops[i].tok == TOK_WEAK_INT &&
                   PyLong_AsLong(ops[i].obj) == -1 && PyErr_Occurred()) {
            goto fail;   /* NumPy takes a Python int into a bool loop (logical_and) as a C long */
        } else if (cpn_pack_scalar(ops[i].obj, np_dt, &op.scalar[i]) < 0) {
            if (info->out[0] == CPN_RESULT_BOOL && nin == 2 && PyErr_ExceptionMatches(PyExc_OverflowError)) {
                PyErr_Clear();
                rc = 1;  /* NumPy compares out-of-range Python integers exactly */
            } else if (PyErr_ExceptionMatches(PyExc_TypeError)) {
                PyErr_Clear();
                rc = 1;  /* a scalar that dtype=/signature= cast unsafely (complex to real): NumPy's */
            } else {
                goto fail;
            }
        } else if (np_dt != want) {
            widen_int_scalar((enum cpn_dtype)np_dt, &op.scalar[i]);
        }
    }
    const bool data_fails = cpn_op_fails_on_data(code, op.dtype);   /* ops.def's NEGEXP */
    if (rc == 1) goto numpy;
    if (warr && cpn_array_dtype(warr) != CPN_DTYPE_BOOL) {   /* a sequence NumPy reads as booleans */
        PyObject *c = cpn_array_cast(warr, CPN_DTYPE_BOOL);
        if (!c) goto fail;
        Py_SETREF(warr, c);
    }
    /* NumPy broadcasts every operand together, the given outputs and the mask included; each
     * output must have the broadcast shape. */
    int nsh = 0, ndims[CPN_OP_MAXIN + CPN_OP_MAXOUT + 1], ndim;
    const int64_t *shapes[CPN_OP_MAXIN + CPN_OP_MAXOUT + 1];
    int64_t shape[CPN_MAXDIM];
    for (int i = 0; i < nin + nout + 1; i++) {
        PyObject *a = i < nin ? ops[i].arr : i < nin + nout ? outs[i - nin] : warr;
        if (!a && i >= nin) continue;   /* a scalar input counts as 0-d */
        const struct cpn_view *v = a ? cpn_array_view(a) : NULL;
        ndims[nsh] = v ? v->ndim : 0;
        shapes[nsh++] = v ? v->shape : NULL;
    }
    if (!broadcast(nsh, ndims, shapes, &ndim, shape)) {
        cpn_raise_broadcast(nsh, ndims, shapes);
        goto fail;
    }
    /* NumPy's iterator meets the dimensions innermost first, the outputs in order in each. */
    for (int d = ndim - 1; d >= 0; d--)
        for (int k = 0; k < nout; k++) {
            const struct cpn_view *ov = outs[k] ? cpn_array_view(outs[k]) : NULL;
            int od = ov ? d - (ndim - ov->ndim) : 0;
            if (ov && (od < 0 || ov->shape[od] != shape[d])) {
                cpn_raise_out_shape(ov->ndim, ov->shape, ndim, shape);
                goto fail;
            }
        }
    /* NumPy's loop refuses a negative integer exponent element by element: after broadcasting,
     * and only when there is an element. */
    int64_t count = 1;
    for (int d = 0; d < ndim; d++) count *= shape[d];
    if (data_fails && count > 0 && !ops[1].arr && negative_int_scalar(op.dtype, &op.scalar[1])) {
        /* A negative scalar exponent is known now: raise at the call, as NumPy does. */
        cpn_raise(cpn_op_loop_error(&op));
        goto fail;
    }
    if (data_fails && count > 0 && ops[1].arr) {
        /* A signed integer exponent array: NumPy's error depends on its values and comes from
         * the call, so look at them now (this op alone pays the flush). */
        PyObject *h = cpn_py_helper("_any_negative");
        PyObject *neg = h ? PyObject_CallOneArg(h, ops[1].arr) : NULL;
        int yes = neg ? PyObject_IsTrue(neg) : -1;
        Py_XDECREF(neg);
        if (yes) {
            if (yes > 0) cpn_raise(cpn_op_loop_error(&op));
            goto fail;
        }
    }
    for (int i = 0; i < nin; i++) {
        if (!ops[i].arr) continue;
        if (!(bviews[i] = broadcast_view(cpn_array_view(ops[i].arr), ndim, shape))) goto fail;
        op.in[i] = bviews[i];
    }
    if (warr && !(wview = broadcast_view(cpn_array_view(warr), ndim, shape))) goto fail;
    if (warr && !kw->out && cpn_warn_where_without_out(stacklevel) < 0) goto fail;
    bool any_out = false;
    for (int k = 0; k < nout; k++) any_out = any_out || outs[k];
    for (int k = 0; k < nout; k++) {
        /* One output may be written in place (the executor handles aliasing of out[0]); two
         * outputs, or a where mask, compute into fresh arrays, then assigned or selected. */
        if (nout == 1 && outs[k] && !warr && (int)cpn_array_dtype(outs[k]) == res.out[k]) {
            targets[k] = Py_NewRef(outs[k]);
        } else {
            /* Lay the result out like an operand (between the operands' regions of one
             * grid), so that owner-computes keeps it local. */
            if (outs[k]) {
                targets[k] = cpn_array_new_like(res.out[k], ndim, shape, cpn_array_view(outs[k]));
            } else {
                const struct cpn_view *likes[CPN_OP_MAXIN];
                int nl = 0, perm[CPN_MAXDIM];
                for (int i = 0; i < nin; i++)
                    if (bviews[i]) likes[nl++] = bviews[i];
                if (!warr && !any_out && k_order(bviews, nin, ndim, shape, perm))
                    targets[k] = new_permuted(res.out[k], ndim, shape, perm, nl, likes);
                else
                    targets[k] = cpn_array_new_like_n(res.out[k], ndim, shape, nl, likes);
            }
            if (!targets[k]) goto fail;
        }
        op.out[k] = cpn_array_view(targets[k]);
    }
    if (cpn_submit(&op) < 0) goto fail;
    for (int k = 0; k < nout; k++) {
        if (!outs[k] || targets[k] == outs[k]) continue;
        if (warr ? select_into(outs[k], targets[k], wview) < 0 : cpn_assign(cpn_array_view(outs[k]), targets[k]) < 0)
            goto fail;
    }
    PyObject *res_k[CPN_OP_MAXOUT] = {NULL, NULL};
    for (int k = 0; k < nout; k++) {
        if (outs[k]) res_k[k] = Py_NewRef(outs[k]);
        else if (ndim == 0) res_k[k] = cpn_array_to_scalar(targets[k]);   /* NumPy returns scalars */
        else res_k[k] = Py_NewRef(targets[k]);
        if (!res_k[k]) {
            for (int j = 0; j < k; j++) Py_DECREF(res_k[j]);
            goto fail;
        }
    }
    if (nout == 1) {
        result = res_k[0];
    } else {
        result = PyTuple_New(nout);
        for (int k = 0; k < nout; k++) {
            if (result) PyTuple_SET_ITEM(result, k, res_k[k]);
            else Py_DECREF(res_k[k]);
        }
    }
    goto fail;   /* the common exit */
numpy:
    result = numpy_call(code, args, kw);
fail:
    for (int i = 0; i < nin; i++) {
        Py_XDECREF(ops[i].arr);
        cpn_view_release(bviews[i]);
    }
    cpn_view_release(wview);
    Py_XDECREF(warr);
    for (int k = 0; k < nout; k++) Py_XDECREF(targets[k]);
    return result;
}

PyObject *cpn_ufunc_apply(enum cpn_opcode code, PyObject *const *args, PyObject *out)
{
    struct cpn_ufunc_kw kw = {.out = out};
    return apply(code, args, &kw, 0);
}

PyObject *cpn_ufunc_call(enum cpn_opcode code, PyObject *const *args, const struct cpn_ufunc_kw *kw, int stacklevel)
{
    return apply(code, args, kw, stacklevel < 1 ? 1 : stacklevel);
}
