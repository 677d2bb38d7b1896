/* ufunc.c: applying an element-wise op of the table to Python operands, NumPy's way.
 *
 * Type resolution is NumPy's own (ufunc.resolve_dtypes, which implements NEP 50: Python scalars
 * are weak), cached per (op, operand kinds).  Operands are then cast to the loop dtype (scalars
 * packed inline into the op), broadcast as views, and one op is queued.  Whatever the table cannot
 * do natively (mixed-dtype loops, out-of-range Python integers in comparisons, output casting
 * NumPy rejects) goes to the Python fallback, which lets NumPy compute or raise its own error. */
#include "cpn_module.h"

#include "kernels.h"

#define N_TOK (CPN_DTYPE_COUNT + 3)   /* strong dtypes, then weak int, float, complex */
#define TOK_WEAK_INT CPN_DTYPE_COUNT

struct resolved {
    signed char valid, in0, in1, out;
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

/* Classify one operand.  Returns 1 when done, 0 when foreign (NotImplemented), -1 on error. */
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
        if (dt < 0) { PyErr_Clear(); return 0; }
        op->tok = dt;
        return 1;
    }
    if (!PyArray_Check(o) && !PyList_Check(o) && !PyTuple_Check(o)) {
        if (PyObject_HasAttrString(o, "__array_ufunc__")) return 0;
    }
    PyObject *a = cpn_array_from_any(o);
    if (!a) {
        PyErr_Clear();
        return 0;
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

/* NumPy's loop dtypes for the operand kinds; 0 ok, 1 unsupported natively, -1 error. */
static int resolve(enum cpn_opcode code, const struct operand *ops, struct resolved *res)
{
    int nin = cpn_op_info(code)->nin;
    int t0 = ops[0].tok, t1 = nin > 1 ? ops[1].tok : 0;
    struct resolved *c = &cache[code][t0][t1];
    if (!c->valid) {
        PyObject *tup = PyTuple_New(nin + 1);
        if (!tup) return -1;
        for (int i = 0; i < nin; i++) {
            PyObject *t = tok_object(ops[i].tok);
            Py_INCREF(t);
            PyTuple_SET_ITEM(tup, i, t);
        }
        Py_INCREF(Py_None);
        PyTuple_SET_ITEM(tup, nin, Py_None);
        PyObject *r = PyObject_CallMethod(np_ufuncs[code], "resolve_dtypes", "(O)", tup);
        Py_DECREF(tup);
        if (!r) return -1;
        int dts[3] = {0, 0, 0};
        for (int i = 0; i <= nin; i++) {
            PyObject *d = PyTuple_GET_ITEM(r, i);
            dts[i] = PyArray_DescrCheck(d) ? cpn_dtype_from_descr((PyArray_Descr *)d) : -1;
            if (dts[i] < 0) {
                PyErr_Clear();
                Py_DECREF(r);
                return 1;
            }
        }
        Py_DECREF(r);
        c->in0 = (signed char)dts[0];
        c->in1 = (signed char)(nin > 1 ? dts[1] : dts[0]);
        c->out = (signed char)dts[nin];
        /* Native only when one loop dtype feeds the table and the table agrees on the output. */
        c->valid = (c->in0 == c->in1 && cpn_kernel_elementwise(code, (enum cpn_dtype)c->in0) != NULL &&
                    (int)cpn_op_out_dtype(code, (enum cpn_dtype)c->in0) == c->out) ? 1 : 2;
    }
    *res = *c;
    return c->valid == 1 ? 0 : 1;
}

static PyObject *fallback(enum cpn_opcode code, PyObject *const *args, PyObject *out)
{
    PyObject *helper = cpn_py_helper("_ufunc_fallback");
    if (!helper) return NULL;
    int nin = cpn_op_info(code)->nin;
    PyObject *tup = PyTuple_New(nin);
    if (!tup) return NULL;
    for (int i = 0; i < nin; i++) {
        Py_INCREF(args[i]);
        PyTuple_SET_ITEM(tup, i, args[i]);
    }
    PyObject *r = PyObject_CallFunction(helper, "sOO", cpn_op_info(code)->name, tup, out ? out : Py_None);
    Py_DECREF(tup);
    return r;
}

static void shape_tuple_str(PyObject *list, const struct cpn_view *v)
{
    PyObject *t = PyTuple_New(v->ndim);
    if (!t) return;
    for (int i = 0; i < v->ndim; i++) PyTuple_SET_ITEM(t, i, PyLong_FromLongLong(v->shape[i]));
    PyObject *s = PyObject_Str(t);
    Py_DECREF(t);
    if (s) {
        PyList_Append(list, s);
        Py_DECREF(s);
    }
}

/* NumPy's broadcasting of the array operands' shapes into shape/ndim; -1 with ValueError. */
static int broadcast_shapes(struct operand *ops, int nin, int *ndim, int64_t *shape)
{
    *ndim = 0;
    for (int i = 0; i < nin; i++)
        if (ops[i].arr && cpn_array_view(ops[i].arr)->ndim > *ndim) *ndim = cpn_array_view(ops[i].arr)->ndim;
    for (int d = 0; d < *ndim; d++) shape[d] = 1;
    for (int i = 0; i < nin; i++) {
        if (!ops[i].arr) continue;
        const struct cpn_view *v = cpn_array_view(ops[i].arr);
        for (int d = 0; d < v->ndim; d++) {
            int64_t e = v->shape[d], *s = &shape[*ndim - v->ndim + d];
            if (e == *s || e == 1) continue;
            if (*s == 1) { *s = e; continue; }
            PyObject *parts = PyList_New(0);
            if (!parts) return -1;
            for (int k = 0; k < nin; k++)
                if (ops[k].arr) shape_tuple_str(parts, cpn_array_view(ops[k].arr));
            PyObject *sep = PyUnicode_FromString(" ");
            PyObject *joined = sep ? PyUnicode_Join(sep, parts) : NULL;
            if (joined)
                PyErr_Format(PyExc_ValueError,
                             "operands could not be broadcast together with shapes %U ", joined);
            Py_XDECREF(joined);
            Py_XDECREF(sep);
            Py_DECREF(parts);
            return -1;
        }
    }
    return 0;
}

PyObject *cpn_ufunc_apply(enum cpn_opcode code, PyObject *const *args, PyObject *out)
{
    const int nin = cpn_op_info(code)->nin;
    struct operand ops[2] = {{0}};
    PyObject *result = NULL, *target = NULL;
    struct cpn_view *bviews[2] = {NULL, NULL};
    int done = 0;
    for (; done < nin; done++) {
        int c = classify(args[done], &ops[done]);
        if (c < 0) goto fail;
        if (c == 0) {
            result = Py_NewRef(Py_NotImplemented);
            goto fail;
        }
    }
    if (out && out != Py_None && !cpn_array_check(out)) {
        PyErr_SetString(PyExc_TypeError, "return arrays must be of ArrayType");
        goto fail;
    }
    if (out == Py_None) out = NULL;
    if (out && cpn_array_view(out)->readonly) {
        PyErr_SetString(PyExc_ValueError, "output array is read-only");
        goto fail;
    }
    struct resolved res = {0, 0, 0, 0};
    int rc = resolve(code, ops, &res);
    if (rc < 0) goto fail;
    if (rc == 0 && out && !PyArray_CanCastTypeTo(cpn_descr(res.out), cpn_descr(cpn_array_dtype(out)),
                                                  NPY_SAME_KIND_CASTING))
        rc = 1;  /* NumPy raises its own casting error */
    struct cpn_op op = {.kind = CPN_OPK_ELEMENTWISE, .code = code, .nin = nin, .nout = 1};
    op.dtype = res.in0;
    for (int i = 0; rc == 0 && i < nin; i++) {
        if (ops[i].arr) {
            if ((int)cpn_array_dtype(ops[i].arr) != res.in0) {
                PyObject *c = cpn_array_cast(ops[i].arr, res.in0);
                if (!c) goto fail;
                Py_SETREF(ops[i].arr, c);
            }
        } else if (cpn_pack_scalar(ops[i].obj, res.in0, &op.scalar[i]) < 0) {
            if (cpn_op_info(code)->result == CPN_RESULT_CMP && PyErr_ExceptionMatches(PyExc_OverflowError)) {
                PyErr_Clear();
                rc = 1;  /* NumPy compares out-of-range Python integers exactly */
            } else {
                goto fail;
            }
        }
    }
    if (rc == 0 && code == CPN_OP_POWER && !ops[1].arr && cpn_dtype_class(op.dtype) == CPN_CLASS_INT) {
        /* A negative scalar exponent is known now: raise at the call, as NumPy does. */
        const union cpn_scalar *e = &op.scalar[1];
        int neg = 0;
        switch (op.dtype) {
        case CPN_DTYPE_INT8: neg = e->i8 < 0; break;
        case CPN_DTYPE_INT16: neg = e->i16 < 0; break;
        case CPN_DTYPE_INT32: neg = e->i32 < 0; break;
        default: neg = e->i64 < 0; break;
        }
        if (neg) {
            PyErr_SetString(PyExc_ValueError, "Integers to negative integer powers are not allowed.");
            goto fail;
        }
    }
    if (rc == 1) {
        result = fallback(code, args, out);
        goto fail;  /* not a failure: the common exit */
    }
    int ndim;
    int64_t shape[CPN_MAXDIM];
    if (broadcast_shapes(ops, nin, &ndim, shape) < 0) goto fail;
    if (out) {
        const struct cpn_view *ov = cpn_array_view(out);
        int ok = ov->ndim >= ndim;
        for (int d = 0; ok && d < ndim; d++) ok = ov->shape[ov->ndim - ndim + d] == shape[d] || shape[d] == 1;
        if (!ok) {
            PyObject *parts = PyList_New(0);
            if (parts) {
                shape_tuple_str(parts, ov);
                struct cpn_view tmp = {.ndim = ndim};
                for (int d = 0; d < ndim; d++) tmp.shape[d] = shape[d];
                shape_tuple_str(parts, &tmp);
                if (PyList_GET_SIZE(parts) == 2)
                    PyErr_Format(PyExc_ValueError,
                                 "non-broadcastable output operand with shape %U doesn't match the broadcast shape %U",
                                 PyList_GET_ITEM(parts, 0), PyList_GET_ITEM(parts, 1));
                Py_DECREF(parts);
            }
            goto fail;
        }
        ndim = ov->ndim;
        for (int d = 0; d < ndim; d++) shape[d] = ov->shape[d];
    }
    for (int i = 0; i < nin; i++) {
        if (!ops[i].arr) continue;
        struct cpn_view *iv = cpn_array_view(ops[i].arr);
        int same = iv->ndim == ndim;
        for (int d = 0; same && d < ndim; d++) same = iv->shape[d] == shape[d];
        if (same) {   /* no broadcasting needed: use the operand's own view */
            cpn_view_retain(iv);
            bviews[i] = iv;
            op.in[i] = iv;
            continue;
        }
        enum cpn_status st = cpn_view_broadcast(iv, ndim, shape, &bviews[i]);
        if (st != CPN_OK) { cpn_raise(st); goto fail; }
        op.in[i] = bviews[i];
    }
    if (out && (int)cpn_array_dtype(out) == res.out) {
        target = Py_NewRef(out);
    } else {
        /* Lay the result out like an operand, so that owner-computes keeps it local. */
        const struct cpn_view *like = out ? cpn_array_view(out) : NULL;
        for (int i = 0; !like && i < nin; i++) like = bviews[i];
        target = cpn_array_new_like(res.out, ndim, shape, like);
        if (!target) goto fail;
    }
    op.out[0] = cpn_array_view(target);
    if (cpn_submit(&op) < 0) goto fail;
    if (out && target != out) {
        if (cpn_assign(cpn_array_view(out), target) < 0) goto fail;
    }
    if (out) {
        result = Py_NewRef(out);
    } else if (ndim == 0) {
        result = cpn_array_to_scalar(target);   /* NumPy returns scalars for 0-d results */
    } else {
        result = Py_NewRef(target);
    }
fail:
    for (int i = 0; i < nin; i++) {
        Py_XDECREF(ops[i].arr);
        cpn_view_release(bviews[i]);
    }
    Py_XDECREF(target);
    return result;
}
