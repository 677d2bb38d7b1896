/* ufunc.c: applying an element-wise op of the table to Python operands, NumPy's way.
 *
 * Type resolution is NumPy's own (ufunc.resolve_dtypes, which implements NEP 50: Python scalars
 * are weak), cached per (op, operand kinds).  Operands are then cast to the loop dtype (scalars
 * packed inline into the op), broadcast as views, and one op is queued.  Whatever the table cannot
 * do natively (mixed-dtype loops, out-of-range Python integers in comparisons, output casting
 * NumPy rejects) goes to the Python fallback, which lets NumPy compute or raise its own error. */
#include "cpn_module.h"

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

/* NumPy's loop dtypes for the operand kinds; 0 ok, 1 unsupported natively, -1 error. */
static int resolve(enum cpn_opcode code, const struct operand *ops, struct resolved *res)
{
    const struct cpn_op_info *info = cpn_op_info(code);
    int nin = info->nin, nout = info->nout;
    int t0 = ops[0].tok, t1 = nin > 1 ? ops[1].tok : 0;
    struct resolved *c = &cache[code][t0][t1];
    if (!c->valid) {
        PyObject *tup = PyTuple_New(nin + nout);
        if (!tup) return -1;
        for (int i = 0; i < nin; i++) {
            PyObject *t = tok_object(ops[i].tok);
            Py_INCREF(t);
            PyTuple_SET_ITEM(tup, i, t);
        }
        for (int k = 0; k < nout; k++) PyTuple_SET_ITEM(tup, nin + k, Py_NewRef(Py_None));
        PyObject *r = PyObject_CallMethod(np_ufuncs[code], "resolve_dtypes", "(O)", tup);
        Py_DECREF(tup);
        if (!r) return -1;
        int dts[CPN_OP_MAXIN + CPN_OP_MAXOUT] = {0};
        for (int i = 0; i < nin + nout; i++) {
            PyObject *d = PyTuple_GET_ITEM(r, i);
            dts[i] = PyArray_DescrCheck(d) ? cpn_dtype_from_descr((PyArray_Descr *)d) : -1;
            if (dts[i] < 0) {
                PyErr_Clear();
                Py_DECREF(r);
                return 1;
            }
        }
        Py_DECREF(r);
        enum cpn_dtype dt = (enum cpn_dtype)dts[0];
        c->in0 = (signed char)dt;
        c->in1_np = (signed char)(nin > 1 ? dts[1] : dts[0]);
        c->in1 = (signed char)cpn_op_in_dtype(code, 1, dt);
        /* Native only when the table has the loop NumPy chose: its input and output dtypes.  An
         * int64 second input takes NumPy's int32 loop too (the cast is exact). */
        bool ok = cpn_op_has_loop(code, dt);
        if (nin > 1 && c->in1_np != c->in1)
            ok &= info->in1 == CPN_RESULT_I64 && cpn_dtype_class((enum cpn_dtype)c->in1_np) == CPN_CLASS_INT;
        for (int k = 0; k < nout; k++) {
            c->out[k] = (signed char)dts[nin + k];
            ok &= (int)cpn_op_out_dtype(code, k, dt) == c->out[k];
        }
        c->valid = ok ? 1 : 2;
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

/* NumPy's error for an output operand whose shape is not the broadcast shape. */
static void raise_out_shape(const struct cpn_view *ov, int ndim, const int64_t *shape)
{
    PyObject *parts = PyList_New(0);
    if (!parts) return;
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

/* Split `out` (NULL, None, an ndarray, or a tuple of nout entries, each None or an ndarray) into
 * outs[k] (borrowed, NULL for None).  -1 with NumPy's exception. */
static int parse_out(PyObject *out, int nout, PyObject **outs)
{
    for (int k = 0; k < nout; k++) outs[k] = NULL;
    if (!out || out == Py_None) return 0;
    if (PyTuple_Check(out)) {
        if (PyTuple_GET_SIZE(out) != nout) {
            PyErr_SetString(PyExc_ValueError, "The 'out' tuple must have exactly one entry per ufunc output");
            return -1;
        }
        for (int k = 0; k < nout; k++) {
            PyObject *o = PyTuple_GET_ITEM(out, k);
            outs[k] = o == Py_None ? NULL : o;
        }
    } else if (nout == 1) {
        outs[0] = out;
    } else {
        PyErr_SetString(PyExc_TypeError, "'out' must be a tuple of arrays");
        return -1;
    }
    for (int k = 0; k < nout; k++) {
        if (outs[k] && !cpn_array_check(outs[k])) {
            PyErr_SetString(PyExc_TypeError, "return arrays must be of ArrayType");
            return -1;
        }
        if (outs[k] && cpn_array_view(outs[k])->readonly) {
            PyErr_SetString(PyExc_ValueError, "output array is read-only");
            return -1;
        }
    }
    return 0;
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

PyObject *cpn_ufunc_apply(enum cpn_opcode code, PyObject *const *args, PyObject *out)
{
    const struct cpn_op_info *info = cpn_op_info(code);
    const int nin = info->nin, nout = info->nout;
    struct operand ops[CPN_OP_MAXIN] = {{0}};
    PyObject *result = NULL, *targets[CPN_OP_MAXOUT] = {NULL, NULL}, *outs[CPN_OP_MAXOUT];
    struct cpn_view *bviews[CPN_OP_MAXIN] = {NULL, NULL, NULL};
    int done = 0, foreign_dtype = 0;
    for (; done < nin; done++) {
        int c = classify(args[done], &ops[done]);
        if (c < 0) goto fail;
        if (c == 0) {
            result = Py_NewRef(Py_NotImplemented);
            goto fail;
        }
        foreign_dtype |= c == 2;
    }
    if (foreign_dtype) {
        result = fallback(code, args, out);
        goto fail;
    }
    if (parse_out(out, nout, outs) < 0) goto fail;
    struct resolved res = {0};
    int rc = resolve(code, ops, &res);
    if (rc < 0) goto fail;
    for (int k = 0; rc == 0 && k < nout; k++)
        if (outs[k] && !PyArray_CanCastTypeTo(cpn_descr(res.out[k]), cpn_descr(cpn_array_dtype(outs[k])),
                                              NPY_SAME_KIND_CASTING))
            rc = 1;  /* NumPy raises its own casting error */
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
            } else {
                goto fail;
            }
        } else if (np_dt != want) {
            widen_int_scalar((enum cpn_dtype)np_dt, &op.scalar[i]);
        }
    }
    if (rc == 0 && code == CPN_OP_POWER && !ops[1].arr && negative_int_scalar(op.dtype, &op.scalar[1])) {
        /* A negative scalar exponent is known now: raise at the call, as NumPy does. */
        PyErr_SetString(PyExc_ValueError, "Integers to negative integer powers are not allowed.");
        goto fail;
    }
    if (rc == 0 && code == CPN_OP_POWER && ops[1].arr && cpn_dtype_class(op.dtype) == CPN_CLASS_INT) {
        /* A signed integer exponent array: NumPy's error depends on its values and comes from
         * the call, so look at them now (this op alone pays the flush). */
        PyObject *h = cpn_py_helper("_any_negative");
        PyObject *neg = h ? PyObject_CallOneArg(h, ops[1].arr) : NULL;
        int yes = neg ? PyObject_IsTrue(neg) : -1;
        Py_XDECREF(neg);
        if (yes) {
            if (yes > 0)
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
    for (int k = 0; k < nout; k++) {
        if (!outs[k]) continue;
        const struct cpn_view *ov = cpn_array_view(outs[k]);
        int ok = ov->ndim >= ndim;
        for (int d = 0; ok && d < ndim; d++) ok = ov->shape[ov->ndim - ndim + d] == shape[d] || shape[d] == 1;
        if (!ok) {
            raise_out_shape(ov, ndim, shape);
            goto fail;
        }
        ndim = ov->ndim;
        for (int d = 0; d < ndim; d++) shape[d] = ov->shape[d];
    }
    for (int k = 0; k < nout; k++) {   /* every output has the one final shape */
        if (!outs[k]) continue;
        const struct cpn_view *ov = cpn_array_view(outs[k]);
        int ok = ov->ndim == ndim;
        for (int d = 0; ok && d < ndim; d++) ok = ov->shape[d] == shape[d];
        if (!ok) {
            raise_out_shape(ov, ndim, shape);
            goto fail;
        }
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
    for (int k = 0; k < nout; k++) {
        /* One output may be written in place (the executor handles aliasing of out[0]); two
         * outputs are computed into fresh arrays and then assigned. */
        if (nout == 1 && outs[k] && (int)cpn_array_dtype(outs[k]) == res.out[k]) {
            targets[k] = Py_NewRef(outs[k]);
        } else {
            /* Lay the result out like an operand, so that owner-computes keeps it local. */
            const struct cpn_view *like = outs[k] ? cpn_array_view(outs[k]) : NULL;
            for (int i = 0; !like && i < nin; i++) like = bviews[i];
            targets[k] = cpn_array_new_like(res.out[k], ndim, shape, like);
            if (!targets[k]) goto fail;
        }
        op.out[k] = cpn_array_view(targets[k]);
    }
    if (cpn_submit(&op) < 0) goto fail;
    for (int k = 0; k < nout; k++)
        if (outs[k] && targets[k] != outs[k] && cpn_assign(cpn_array_view(outs[k]), targets[k]) < 0) goto fail;
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
fail:
    for (int i = 0; i < nin; i++) {
        Py_XDECREF(ops[i].arr);
        cpn_view_release(bviews[i]);
    }
    for (int k = 0; k < nout; k++) Py_XDECREF(targets[k]);
    return result;
}
