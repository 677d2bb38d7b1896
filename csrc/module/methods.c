/* methods.c: the module's C primitives and the ndarray's C methods.
 *
 * The Python package (cupynum/) builds NumPy's API on these; each primitive does one runtime
 * thing (make a store, queue an op, move data) and leaves argument conventions to Python. */
#include "cpn_module.h"

#include "backend.h"
#include "alloc.h"
#include "comm.h"
#include "dist.h"
#include "fusion.h"
#include "kernels.h"
#include "runtime.h"
#include "vmath.h"

static PyObject *helpers_module;

PyObject *cpn_py_helper(const char *name)
{
    if (!helpers_module) {
        helpers_module = PyImport_ImportModule("cupynum._array_api");
        if (!helpers_module) return NULL;
    }
    PyObject *h = PyObject_GetAttrString(helpers_module, name);
    if (h) Py_DECREF(h);   /* the module keeps it alive: hand out a borrowed reference */
    return h;
}

/* Parse a shape tuple into int64s; -1 with an exception on error. */
static int parse_shape(PyObject *o, int *ndim, int64_t *shape)
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

static int check_array(PyObject *o)
{
    if (cpn_array_check(o)) return 0;
    PyErr_Format(PyExc_TypeError, "expected a cupynum.ndarray, got %.100s", Py_TYPE(o)->tp_name);
    return -1;
}

/* Queue `op`, which computes the new array r: r, or NULL (r dropped) when submission fails. */
static PyObject *submit_for(PyObject *r, const struct cpn_op *op)
{
    if (cpn_submit(op) < 0) {
        Py_DECREF(r);
        return NULL;
    }
    return r;
}

/* ---- module functions -------------------------------------------------------------------- */

static PyObject *mod_empty(PyObject *m, PyObject *args)
{
    PyObject *shape_o, *dtype_o;
    if (!PyArg_ParseTuple(args, "OO", &shape_o, &dtype_o)) return NULL;
    int ndim;
    int64_t shape[CPN_MAXDIM];
    if (parse_shape(shape_o, &ndim, shape) < 0) return NULL;
    int dt = cpn_dtype_from_object(dtype_o);
    if (dt < 0) return NULL;
    return cpn_array_new(dt, ndim, shape);
}

static PyObject *mod_from_any(PyObject *m, PyObject *obj) { return cpn_array_from_any(obj); }

static PyObject *mod_to_numpy(PyObject *m, PyObject *a)
{
    if (check_array(a) < 0) return NULL;
    return cpn_array_to_numpy(a);
}

static PyObject *mod_to_scalar(PyObject *m, PyObject *a)
{
    if (check_array(a) < 0) return NULL;
    return cpn_array_to_scalar(a);
}

static PyObject *mod_cast(PyObject *m, PyObject *args)
{
    PyObject *a, *dtype_o;
    if (!PyArg_ParseTuple(args, "OO", &a, &dtype_o) || check_array(a) < 0) return NULL;
    int dt = cpn_dtype_from_object(dtype_o);
    if (dt < 0) return NULL;
    return cpn_array_cast(a, dt);
}

static PyObject *mod_assign(PyObject *m, PyObject *args)
{
    PyObject *a, *value;
    if (!PyArg_ParseTuple(args, "OO", &a, &value) || check_array(a) < 0) return NULL;
    if (cpn_assign(cpn_array_view(a), value) < 0) return NULL;
    Py_RETURN_NONE;
}

static PyObject *mod_reshape(PyObject *m, PyObject *args)
{
    PyObject *a, *shape_o;
    if (!PyArg_ParseTuple(args, "OO", &a, &shape_o) || check_array(a) < 0) return NULL;
    int ndim;
    int64_t shape[CPN_MAXDIM];
    if (parse_shape(shape_o, &ndim, shape) < 0) return NULL;
    struct cpn_view *v;
    enum cpn_status st = cpn_view_reshape(cpn_array_view(a), ndim, shape, &v);
    if (st == CPN_ERR_NOVIEW) Py_RETURN_NONE;   /* the caller copies */
    if (st != CPN_OK) return cpn_raise(st);
    return cpn_array_wrap(v);
}

static PyObject *mod_transpose(PyObject *m, PyObject *args)
{
    PyObject *a, *perm_o;
    if (!PyArg_ParseTuple(args, "OO", &a, &perm_o) || check_array(a) < 0) return NULL;
    int ndim;
    int64_t p64[CPN_MAXDIM];
    int perm[CPN_MAXDIM];
    if (parse_shape(perm_o, &ndim, p64) < 0) return NULL;
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

static PyObject *mod_broadcast_to(PyObject *m, PyObject *args)
{
    PyObject *a, *shape_o;
    if (!PyArg_ParseTuple(args, "OO", &a, &shape_o) || check_array(a) < 0) return NULL;
    int ndim;
    int64_t shape[CPN_MAXDIM];
    if (parse_shape(shape_o, &ndim, shape) < 0) return NULL;
    struct cpn_view *v;
    enum cpn_status st = cpn_view_broadcast(cpn_array_view(a), ndim, shape, &v);
    if (st != CPN_OK) return cpn_raise(st);
    v->readonly = true;   /* as numpy.broadcast_to: elements repeat, writes are refused */
    return cpn_array_wrap(v);
}

/* component(a, part): the real (1) or imaginary (2) part of a complex array, as a view. */
static PyObject *mod_component(PyObject *m, PyObject *args)
{
    PyObject *a;
    int part;
    if (!PyArg_ParseTuple(args, "Oi", &a, &part) || check_array(a) < 0) return NULL;
    struct cpn_view *v;
    enum cpn_status st = cpn_view_component(cpn_array_view(a), part, &v);
    if (st != CPN_OK) return cpn_raise(st);
    return cpn_array_wrap(v);
}

/* layout(a): byte strides of the view in its store, for order='K'/'A' decisions. */
static PyObject *mod_layout(PyObject *m, PyObject *a)
{
    if (check_array(a) < 0) return NULL;
    struct cpn_view *v = cpn_array_view(a);
    int64_t st[CPN_MAXDIM], off;
    cpn_view_byte_layout(v, st, &off);
    PyObject *t = PyTuple_New(v->ndim);
    if (!t) return NULL;
    for (int i = 0; i < v->ndim; i++) PyTuple_SET_ITEM(t, i, PyLong_FromLongLong(st[i]));
    return t;
}

static PyObject *mod_ufunc(PyObject *m, PyObject *args)
{
    const char *name;
    PyObject *operands, *out = Py_None;
    if (!PyArg_ParseTuple(args, "sO!|O", &name, &PyTuple_Type, &operands, &out)) return NULL;
    int code = cpn_op_lookup(name);
    if (code < 0 || code == CPN_OP_WHERE) return PyErr_Format(PyExc_KeyError, "%s", name);
    const struct cpn_op_info *info = cpn_op_info(code);
    if (PyTuple_GET_SIZE(operands) != info->nin)   /* NumPy's TypeError for a wrong arity */
        return PyErr_Format(PyExc_TypeError, "%s() takes from %d to %d positional arguments but %zd were given",
                            name, info->nin, info->nin + info->nout, PyTuple_GET_SIZE(operands));
    return cpn_ufunc_apply(code, &PyTuple_GET_ITEM(operands, 0), out == Py_None ? NULL : out);
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
 * (None, 0 or 1) and the flags silent, intdiv, quotient (bools); KeyError for a name the table
 * lacks. */
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
    return Py_BuildValue("{s:s,s:i,s:i,s:N,s:O,s:O,s:O}", "name", info->name, "nin", info->nin,
                         "nout", info->nout, "identity", ident,
                         "silent", info->flags & CPN_OPF_SILENT ? Py_True : Py_False,
                         "intdiv", info->flags & CPN_OPF_INTDIV ? Py_True : Py_False,
                         "quotient", info->flags & CPN_OPF_QUOTIENT ? Py_True : Py_False);
}

/* The binary op `name` of the table, or -1 with KeyError. */
static int binary_op(const char *name)
{
    int code = cpn_op_lookup(name);
    if (code < 0 || cpn_op_info(code)->nin != 2) {
        PyErr_Format(PyExc_KeyError, "%s", name);
        return -1;
    }
    return code;
}

/* Parse an axes sequence into a bit mask over the view's dimensions. */
static int axes_mask(PyObject *axes_o, const struct cpn_view *v, uint64_t *mask)
{
    int nax;
    int64_t ax[CPN_MAXDIM];
    if (parse_shape(axes_o, &nax, ax) < 0) return -1;
    *mask = 0;
    for (int i = 0; i < nax; i++) {
        if (ax[i] < 0 || ax[i] >= v->ndim) {
            PyErr_SetString(PyExc_ValueError, "internal: axis out of range");
            return -1;
        }
        *mask |= (uint64_t)1 << ax[i];
    }
    return 0;
}

/* reduce(name, a, axes, acc_dtype, initial=None, segment=0): a new array of the kept dimensions
 * in acc_dtype; `initial` (packed as acc_dtype) starts every accumulator; `segment` (CPN_REDUCEAT_*
 * bits: 1 a segment of ufunc.reduceat, 2 its first, 4 its last) makes the floating-point reports
 * those of one reduceat. */
static PyObject *mod_reduce(PyObject *m, PyObject *args)
{
    const char *name;
    PyObject *a, *axes_o, *dtype_o, *initial = Py_None;
    int segment = 0;
    if (!PyArg_ParseTuple(args, "sOOO|Oi", &name, &a, &axes_o, &dtype_o, &initial, &segment) ||
        check_array(a) < 0)
        return NULL;
    int code = binary_op(name);
    if (code < 0) return NULL;
    int dt = cpn_dtype_from_object(dtype_o);
    if (dt < 0) return NULL;
    struct cpn_view *v = cpn_array_view(a);
    uint64_t mask;
    if (axes_mask(axes_o, v, &mask) < 0) return NULL;
    if (!cpn_kernel_elementwise(code, dt) || cpn_op_out_dtype(code, 0, dt) != (enum cpn_dtype)dt)
        return PyErr_Format(PyExc_TypeError, "no native reduction for %s on %s", name, cpn_dtype_name(dt));
    int64_t shape[CPN_MAXDIM], nred = 1;
    int nd = 0;
    for (int d = 0; d < v->ndim; d++) {
        if (mask >> d & 1) nred *= v->shape[d];
        else shape[nd++] = v->shape[d];
    }
    struct cpn_op op = {.kind = CPN_OPK_REDUCE, .code = code, .nin = 1, .nout = 1, .axes = mask};
    op.iparam[1] = segment & (CPN_REDUCEAT_SEGMENT | CPN_REDUCEAT_FIRST | CPN_REDUCEAT_LAST);
    if (initial != Py_None) {
        if (cpn_pack_scalar(initial, dt, &op.scalar[1]) < 0) return NULL;
        op.iparam[0] = 1;
    }
    if (nred == 0 && cpn_op_info(code)->identity == CPN_IDENT_NONE && initial == Py_None) {
        PyErr_Format(PyExc_ValueError, "zero-size array to reduction operation %s which has no identity",
                     cpn_op_info(code)->name);
        return NULL;
    }
    PyObject *r = cpn_array_new_replicated(dt, nd, shape);   /* on every rank, as MPI_Allreduce */
    if (!r) return NULL;
    op.dtype = dt;
    op.in[0] = v;
    op.out[0] = cpn_array_view(r);
    return submit_for(r, &op);
}

/* argreduce(name, a, axes): argmax ('maximum') / argmin ('minimum') over axes, int64, as a C-order
 * index over the reduced dimensions; the reduced extent must be non-empty. */
static PyObject *mod_argreduce(PyObject *m, PyObject *args)
{
    const char *name;
    PyObject *a, *axes_o;
    if (!PyArg_ParseTuple(args, "sOO", &name, &a, &axes_o) || check_array(a) < 0) return NULL;
    int code = binary_op(name);
    if (code < 0) return NULL;
    if (code != CPN_OP_MAXIMUM && code != CPN_OP_MINIMUM) return PyErr_Format(PyExc_KeyError, "%s", name);
    struct cpn_view *v = cpn_array_view(a);
    uint64_t mask;
    if (axes_mask(axes_o, v, &mask) < 0) return NULL;
    int64_t shape[CPN_MAXDIM], nred = 1;
    int nd = 0;
    for (int d = 0; d < v->ndim; d++) {
        if (mask >> d & 1) nred *= v->shape[d];
        else shape[nd++] = v->shape[d];
    }
    if (nred == 0) {
        PyErr_Format(PyExc_ValueError, "attempt to get %s of an empty sequence",
                     code == CPN_OP_MAXIMUM ? "argmax" : "argmin");
        return NULL;
    }
    PyObject *r = cpn_array_new_replicated(CPN_DTYPE_INT64, nd, shape);
    if (!r) return NULL;
    struct cpn_op op = {.kind = CPN_OPK_ARGREDUCE, .code = code, .nin = 1, .nout = 1, .axes = mask};
    op.dtype = cpn_array_dtype(a);
    op.in[0] = v;
    op.out[0] = cpn_array_view(r);
    return submit_for(r, &op);
}

/* scan(name, a, axis): ufunc.accumulate of binary op `name` along `axis`, in a's dtype. */
static PyObject *mod_scan(PyObject *m, PyObject *args)
{
    const char *name;
    PyObject *a;
    int axis;
    if (!PyArg_ParseTuple(args, "sOi", &name, &a, &axis) || check_array(a) < 0) return NULL;
    int code = binary_op(name);
    if (code < 0) return NULL;
    struct cpn_view *v = cpn_array_view(a);
    enum cpn_dtype dt = cpn_array_dtype(a);
    if (axis < 0 || axis >= v->ndim) return PyErr_Format(PyExc_ValueError, "internal: scan axis %d", axis);
    if (!cpn_kernel_elementwise(code, dt) || cpn_op_out_dtype(code, 0, dt) != dt)
        return PyErr_Format(PyExc_TypeError, "no native accumulate for %s on %s", name, cpn_dtype_name(dt));
    PyObject *r = cpn_array_new_like(dt, v->ndim, v->shape, v);
    if (!r) return NULL;
    struct cpn_op op = {.kind = CPN_OPK_SCAN, .code = code, .nin = 1, .nout = 1};
    op.dtype = dt;
    op.iparam[0] = axis;
    op.in[0] = v;
    op.out[0] = cpn_array_view(r);
    return submit_for(r, &op);
}

/* quantile(a, axes, q, method, flags, index_dtype, compute_dtype, out_dtype): numpy.quantile's
 * (and numpy.median's) values over `axes` of `a` as a new replicated array of shape
 * (len(q),) + kept dimensions (kept dimensions only for a median, q None).  q: a 1-D float64
 * array of quantiles in [0, 1]; method: enum cpn_quantile_method; flags: CPN_QF_*.  The caller
 * has applied NumPy's checks (q range, dtypes, non-empty lanes). */
static PyObject *mod_quantile(PyObject *m, PyObject *args)
{
    PyObject *a, *axes_o, *q, *gdt_o, *cdt_o, *odt_o;
    int method, flags;
    if (!PyArg_ParseTuple(args, "OOOiiOOO", &a, &axes_o, &q, &method, &flags, &gdt_o, &cdt_o, &odt_o) ||
        check_array(a) < 0 || (q != Py_None && check_array(q) < 0))
        return NULL;
    int gdt = cpn_dtype_from_object(gdt_o), cdt = cpn_dtype_from_object(cdt_o),
        odt = cpn_dtype_from_object(odt_o);
    if (gdt < 0 || cdt < 0 || odt < 0) return NULL;
    if (method < 0 || method >= CPN_QM_COUNT || (q == Py_None) != (method == CPN_QM_MEDIAN))
        return PyErr_Format(PyExc_ValueError, "internal: quantile method %d", method);
    struct cpn_view *v = cpn_array_view(a);
    enum cpn_dtype dt = cpn_array_dtype(a);
    if (dt >= CPN_DTYPE_COMPLEX64 || (flags & CPN_QF_TAKE ? odt != (int)dt : odt < CPN_DTYPE_FLOAT16))
        return PyErr_Format(PyExc_TypeError, "no native quantile for %s", cpn_dtype_name(dt));
    uint64_t mask;
    if (axes_mask(axes_o, v, &mask) < 0) return NULL;
    int64_t shape[CPN_MAXDIM], nred = 1;
    int nd = 0;
    if (q != Py_None) {
        struct cpn_view *qv = cpn_array_view(q);
        if (qv->ndim != 1 || cpn_array_dtype(q) != CPN_DTYPE_FLOAT64)
            return PyErr_Format(PyExc_ValueError, "internal: quantiles must be 1-D float64");
        shape[nd++] = qv->shape[0];
    }
    for (int d = 0; d < v->ndim; d++) {
        if (mask >> d & 1) nred *= v->shape[d];
        else shape[nd++] = v->shape[d];
    }
    if (nred == 0) return PyErr_Format(PyExc_ValueError, "internal: quantile of an empty lane");
    PyObject *r = cpn_array_new_replicated(odt, nd, shape);
    if (!r) return NULL;
    struct cpn_op op = {.kind = CPN_OPK_QUANTILE, .code = 0, .nin = q == Py_None ? 1 : 2, .nout = 1,
                        .axes = mask};
    op.dtype = dt;
    op.in[0] = v;
    if (q != Py_None) op.in[1] = cpn_array_view(q);
    op.iparam[0] = method;
    op.iparam[1] = flags;
    op.iparam[2] = gdt;
    op.iparam[3] = cdt;
    op.out[0] = cpn_array_view(r);
    return submit_for(r, &op);
}

/* select(cond, a, b, out): out[...] = cond ? a : b.  out is an ndarray of the loop dtype; cond is a
 * bool ndarray of out's shape or a scalar; a and b are ndarrays of out's dtype and shape or
 * scalars (packed as out's dtype).  out may be a or b (each element is read before written). */
static PyObject *mod_select(PyObject *m, PyObject *args)
{
    PyObject *ops[3], *out;
    if (!PyArg_ParseTuple(args, "OOOO", &ops[0], &ops[1], &ops[2], &out) || check_array(out) < 0) return NULL;
    struct cpn_view *ov = cpn_array_view(out);
    if (ov->readonly) {
        PyErr_SetString(PyExc_ValueError, "output array is read-only");
        return NULL;
    }
    struct cpn_op op = {.kind = CPN_OPK_ELEMENTWISE, .code = CPN_OP_WHERE, .nin = 3, .nout = 1};
    op.dtype = ov->dtype;
    for (int i = 0; i < 3; i++) {
        enum cpn_dtype want = i == 0 ? CPN_DTYPE_BOOL : ov->dtype;
        if (cpn_array_check(ops[i])) {
            struct cpn_view *iv = cpn_array_view(ops[i]);
            int same = iv->ndim == ov->ndim && iv->dtype == want;
            for (int d = 0; same && d < ov->ndim; d++) same = iv->shape[d] == ov->shape[d];
            if (!same) {
                PyErr_SetString(PyExc_ValueError, "internal: select operand shape/dtype mismatch");
                return NULL;
            }
            op.in[i] = iv;
        } else if (cpn_pack_scalar(ops[i], want, &op.scalar[i]) < 0) {
            return NULL;
        }
    }
    op.out[0] = ov;
    if (cpn_submit(&op) < 0) return NULL;
    return Py_NewRef(out);
}

/* bincount(a, weights, nbins): numpy.bincount of a (1-D int64, values in [0, nbins), checked by
 * the caller), weighted by `weights` (1-D float64 of a's length) or not (None); a new replicated
 * array of nbins int64 counts / float64 sums. */
static PyObject *mod_bincount(PyObject *m, PyObject *args)
{
    PyObject *a, *w;
    long long nbins;
    if (!PyArg_ParseTuple(args, "OOL", &a, &w, &nbins) || check_array(a) < 0) return NULL;
    if (w != Py_None && check_array(w) < 0) return NULL;
    struct cpn_view *av = cpn_array_view(a), *wv = w != Py_None ? cpn_array_view(w) : NULL;
    if (av->ndim != 1 || av->dtype != CPN_DTYPE_INT64 || nbins < 0 ||
        (wv && (wv->ndim != 1 || wv->dtype != CPN_DTYPE_FLOAT64 || wv->shape[0] != av->shape[0]))) {
        PyErr_SetString(PyExc_ValueError, "internal: bincount operand shape/dtype mismatch");
        return NULL;
    }
    int64_t shape[1] = {(int64_t)nbins};
    PyObject *r = cpn_array_new_replicated(wv ? CPN_DTYPE_FLOAT64 : CPN_DTYPE_INT64, 1, shape);
    if (!r) return NULL;
    struct cpn_op op = {.kind = CPN_OPK_BINCOUNT, .nin = wv ? 2 : 1, .nout = 1};
    op.dtype = CPN_DTYPE_INT64;
    op.in[0] = av;
    op.in[1] = wv;
    op.out[0] = cpn_array_view(r);
    return submit_for(r, &op);
}

/* matmul(a, b, dtype): operands already cast to dtype, of one ndim >= 2 and equal batch dims
 * (broadcast views); a new (..., m, n) array. */
static PyObject *mod_matmul(PyObject *m, PyObject *args)
{
    PyObject *a, *b, *dtype_o;
    if (!PyArg_ParseTuple(args, "OOO", &a, &b, &dtype_o) || check_array(a) < 0 || check_array(b) < 0)
        return NULL;
    int dt = cpn_dtype_from_object(dtype_o);
    if (dt < 0) return NULL;
    struct cpn_view *av = cpn_array_view(a), *bv = cpn_array_view(b);
    int nd = av->ndim;
    bool ok = nd >= 2 && bv->ndim == nd && av->shape[nd - 1] == bv->shape[nd - 2] &&
              (int)cpn_array_dtype(a) == dt && (int)cpn_array_dtype(b) == dt;
    for (int d = 0; ok && d < nd - 2; d++) ok = av->shape[d] == bv->shape[d];
    if (!ok) {
        PyErr_SetString(PyExc_ValueError, "matmul: internal shape/dtype mismatch");
        return NULL;
    }
    int64_t shape[CPN_MAXDIM];
    memcpy(shape, av->shape, sizeof(int64_t) * (size_t)(nd - 1));
    shape[nd - 1] = bv->shape[nd - 1];
    PyObject *r = cpn_array_new(dt, nd, shape);
    if (!r) return NULL;
    struct cpn_op op = {.kind = CPN_OPK_MATMUL, .nin = 2, .nout = 1};
    op.dtype = dt;
    op.in[0] = av;
    op.in[1] = bv;
    op.out[0] = cpn_array_view(r);
    return submit_for(r, &op);
}

/* arange(n, dtype, start, second): NumPy's arange fill. */
static PyObject *mod_arange(PyObject *m, PyObject *args)
{
    long long n;
    PyObject *dtype_o, *start, *second;
    if (!PyArg_ParseTuple(args, "LOOO", &n, &dtype_o, &start, &second)) return NULL;
    int dt = cpn_dtype_from_object(dtype_o);
    if (dt < 0) return NULL;
    int64_t shape[1] = {n};
    PyObject *r = cpn_array_new(dt, 1, shape);
    if (!r) return NULL;
    struct cpn_op op = {.kind = CPN_OPK_ARANGE, .nout = 1};
    op.out[0] = cpn_array_view(r);
    if (cpn_dtype_class(dt) == CPN_CLASS_FLOAT) {
        op.dparam[0] = PyFloat_AsDouble(start);
        op.dparam[1] = PyFloat_AsDouble(second);
    } else {
        /* Integers wrap into the dtype as NumPy's fill does. */
        PyObject *s = PyNumber_Long(start), *t = s ? PyNumber_Long(second) : NULL;
        if (t) {
            op.iparam[0] = (int64_t)PyLong_AsUnsignedLongLongMask(s);
            op.iparam[1] = (int64_t)PyLong_AsUnsignedLongLongMask(t);
        }
        Py_XDECREF(s);
        Py_XDECREF(t);
    }
    if (PyErr_Occurred()) {
        Py_DECREF(r);
        return NULL;
    }
    return submit_for(r, &op);
}

/* random(dist, shape, seed, stream, lo, hi): float64 draws keyed by element index. */
static PyObject *mod_random(PyObject *m, PyObject *args)
{
    int dist;
    PyObject *shape_o;
    unsigned long long seed, stream;
    double lo, hi;
    if (!PyArg_ParseTuple(args, "iOKKdd", &dist, &shape_o, &seed, &stream, &lo, &hi)) return NULL;
    int ndim;
    int64_t shape[CPN_MAXDIM];
    if (parse_shape(shape_o, &ndim, shape) < 0) return NULL;
    PyObject *r = cpn_array_new(CPN_DTYPE_FLOAT64, ndim, shape);
    if (!r) return NULL;
    struct cpn_op op = {.kind = CPN_OPK_RANDOM, .code = dist, .nout = 1};
    op.out[0] = cpn_array_view(r);
    op.iparam[0] = (int64_t)seed;
    op.iparam[1] = (int64_t)stream;
    op.dparam[0] = lo;
    op.dparam[1] = hi;
    return submit_for(r, &op);
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
    return Py_BuildValue("{s:i,s:i,s:i,s:O,s:O,s:O,s:s,s:s,s:i,s:s,s:s}",
                         "rank", cpn_runtime_rank(), "ranks", cpn_runtime_ranks(),
                         "threads", cpn_runtime_threads(),
                         "mpi", cpn_runtime_mpi_active() ? Py_True : Py_False,
                         "mpi_built", cpn_runtime_have_mpi() ? Py_True : Py_False,
                         "cuda", cpn_runtime_have_cuda() ? Py_True : Py_False,
                         "backend", cpn_backend_active()->name,
                         "device", cpn_backend_device_name(), "max_dims", CPN_MAXDIM,
                         "vmath", cpn_vmath_backend(), "blas", cpn_kernel_blas_name());
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
    if (cpn_vmath_kernel(name, &nin, &f64, &f32) < 0)
        return PyErr_Format(PyExc_RuntimeError, "no vector kernel '%s' (%s)", name, cpn_vmath_backend());
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

static PyObject *mod_runtime_stats(PyObject *m, PyObject *noargs)
{
    struct cpn_queue_stats s;
    struct cpn_fusion_stats f;
    int64_t to_host, to_device;
    cpn_queue_stats(&s);
    cpn_fusion_stats(&f);
    cpn_store_transfer_stats(&to_host, &to_device);
    int64_t vmade, vmat;
    cpn_store_virtual_stats(&vmade, &vmat);
    return Py_BuildValue("{s:L,s:L,s:L,s:L,s:L,s:L,s:L,s:i,s:L,s:L,s:L,s:L,s:L,s:L,s:L,s:L,s:L,s:L,s:L,s:L,s:L,s:L,s:L,s:L,s:L,s:L}",
                         "bytes_to_host", (long long)to_host, "bytes_to_device", (long long)to_device,
                         "ops_executed", (long long)s.ops_executed, "flushes", (long long)s.flushes,
                         "temporaries", (long long)s.temporaries,
                         "bytes_allocated", (long long)cpn_alloc_total_bytes(),
                         "bytes_live", (long long)cpn_alloc_live_bytes(),
                         "queued", cpn_queue_length(),
                         "bytes_sent", (long long)cpn_comm_bytes_sent(),
                         "messages_sent", (long long)cpn_comm_messages_sent(),
                         "plans_cached", (long long)cpn_dist_plans_built(),
                         "plan_hits", (long long)cpn_dist_plan_hits(),
                         "stores_live", (long long)cpn_store_live_count(),
                         "bytes_peak", (long long)cpn_alloc_peak_bytes(),
                         "fused_runs", (long long)f.runs, "fused_ops", (long long)f.ops_fused,
                         "temporaries_elided", (long long)f.temporaries_elided,
                         "bytes_elided", (long long)f.bytes_elided,
                         "ops_dropped", (long long)f.ops_dropped,
                         "fusion_plans", (long long)f.plans_built,
                         "fusion_plan_hits", (long long)f.plan_hits,
                         "fused_runs_dist", (long long)f.dist_runs,
                         "fused_runs_banded", (long long)f.banded_runs,
                         "stores_virtual", (long long)vmade,
                         "virtual_materialized", (long long)vmat,
                         "virtual_regenerated", (long long)f.virtual_regenerated);
}

static PyObject *mod_reset_stats(PyObject *m, PyObject *noargs)
{
    cpn_queue_reset_stats();
    cpn_comm_reset_stats();
    cpn_store_reset_transfer_stats();
    cpn_store_reset_virtual_stats();
    cpn_dist_reset_stats();
    cpn_fusion_reset_stats();
    cpn_alloc_reset_peak();
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

/* _set_random_simd(on): draw uniforms through the AVX2 Philox path (where the CPU has it) or
 * the baseline loop; returns the previous setting.  Flushes first.  Collective. */
static PyObject *mod_set_random_simd(PyObject *m, PyObject *arg)
{
    int on = PyObject_IsTrue(arg);
    if (on < 0) return NULL;
    enum cpn_status st = cpn_queue_flush();
    if (st != CPN_OK) return cpn_raise(st);
    return PyBool_FromLong(cpn_kernel_random_set_simd(on));
}

/* bcast_u64(x): rank 0's value of x on every rank (seeds drawn from the OS).  Collective. */
static PyObject *mod_bcast_u64(PyObject *m, PyObject *arg)
{
    unsigned long long x = PyLong_AsUnsignedLongLongMask(arg);
    if (PyErr_Occurred()) return NULL;
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
    if (check_array(a) < 0) return NULL;
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

static PyObject *mod_shares_store(PyObject *m, PyObject *args)
{
    PyObject *a, *b;
    if (!PyArg_ParseTuple(args, "OO", &a, &b) || check_array(a) < 0 || check_array(b) < 0) return NULL;
    return PyBool_FromLong(cpn_store_root(cpn_array_view(a)->store) ==
                           cpn_store_root(cpn_array_view(b)->store));
}

static PyObject *mod_may_overlap(PyObject *m, PyObject *args)
{
    PyObject *a, *b;
    if (!PyArg_ParseTuple(args, "OO", &a, &b) || check_array(a) < 0 || check_array(b) < 0) return NULL;
    return PyBool_FromLong(cpn_view_may_overlap(cpn_array_view(a), cpn_array_view(b)));
}

PyMethodDef cpn_module_methods[] = {
    {"empty", mod_empty, METH_VARARGS, "empty(shape, dtype): a new array (zero-filled lazily)."},
    {"from_any", mod_from_any, METH_O, "A new array holding a copy of any array-like's data."},
    {"to_numpy", mod_to_numpy, METH_O, "Flush and copy into a numpy.ndarray."},
    {"to_scalar", mod_to_scalar, METH_O, "Flush and return a size-1 array's element as a NumPy scalar."},
    {"cast", mod_cast, METH_VARARGS, "cast(a, dtype): a new array converted to dtype."},
    {"assign", mod_assign, METH_VARARGS, "assign(a, value): a[...] = value."},
    {"reshape", mod_reshape, METH_VARARGS, "reshape(a, shape): a view, or None when a copy is needed."},
    {"transpose", mod_transpose, METH_VARARGS, "transpose(a, perm): a view."},
    {"broadcast_to", mod_broadcast_to, METH_VARARGS, "broadcast_to(a, shape): a read view."},
    {"component", mod_component, METH_VARARGS, "component(a, part): real (1) / imaginary (2) view."},
    {"layout", mod_layout, METH_O, "Byte strides of a view within its store."},
    {"ufunc", mod_ufunc, METH_VARARGS,
     "ufunc(name, operands, out=None): apply an op of the table; out is None or an ndarray, or for\n"
     "two-output ops a tuple of nout entries (None or ndarray); two-output ops return a tuple."},
    {"op_names", mod_op_names, METH_NOARGS, "Every name (ops and aliases) _core.ufunc accepts."},
    {"has_op", mod_has_op, METH_O, "Is `name` an op of the table?"},
    {"op_info", mod_op_info, METH_O, "op_info(name): the op table's row of `name` as a dict."},
    {"full_reduce", (PyCFunction)(void (*)(void))cpn_mod_full_reduce, METH_FASTCALL,
     "full_reduce(a, name): a full add/multiply/maximum/minimum reduction read at once, or None."},
    {"reduce", mod_reduce, METH_VARARGS,
     "reduce(name, a, axes, dtype, initial=None, segment=0): a new array."},
    {"argreduce", mod_argreduce, METH_VARARGS, "argreduce('maximum'|'minimum', a, axes): int64 indices."},
    {"scan", mod_scan, METH_VARARGS, "scan(name, a, axis): accumulate along axis, in a's dtype."},
    {"quantile", mod_quantile, METH_VARARGS,
     "quantile(a, axes, q, method, flags, index_dtype, compute_dtype, out_dtype): order statistics."},
    {"select", mod_select, METH_VARARGS, "select(cond, a, b, out): out[...] = where(cond, a, b)."},
    {"matmul", mod_matmul, METH_VARARGS, "matmul(a, b, dtype): (batched) product."},
    {"bincount", mod_bincount, METH_VARARGS, "bincount(a, weights, nbins): int64 counts / float64 sums."},
    {"arange", mod_arange, METH_VARARGS, "arange(n, dtype, start, second)."},
    {"random", mod_random, METH_VARARGS, "random(dist, shape, seed, stream, lo, hi)."},
    {"sync", mod_sync, METH_NOARGS, "Execute every queued operation and wait for the device (cupynum.sync())."},
    {"barrier", mod_barrier, METH_NOARGS, "Wait for every rank (Collective; no-op on one rank)."},
    {"_finalize", mod_finalize, METH_NOARGS, "Flush and shut the runtime down (at exit)."},
    {"runtime_info", mod_runtime_info, METH_NOARGS, "Rank, ranks, threads, backend, MPI and CUDA."},
    {"_vmath_kernel", mod_vmath_kernel, METH_VARARGS, "A raw vector kernel on NumPy arrays (tests)."},
    {"runtime_stats", mod_runtime_stats, METH_NOARGS, "This rank's counters."},
    {"reset_stats", mod_reset_stats, METH_NOARGS, "Zero this rank's counters."},
    {"_set_fusion", mod_set_fusion, METH_O, "Turn executor fusion on or off; the old setting."},
    {"_set_random_simd", mod_set_random_simd, METH_O, "Uniform draws' AVX2 path on or off; the old setting."},
    {"bcast_u64", mod_bcast_u64, METH_O, "Rank 0's value of an unsigned 64-bit integer."},
    {"_abort", mod_abort, METH_O, "Abort every rank of the job."},
    {"_tiling", mod_tiling, METH_O, "How the array's store is laid out over ranks."},
    {"_alloc_fail_after", mod_alloc_fail_after, METH_O, "Test hook: fail the n-th allocation."},
    {"_shares_store", mod_shares_store, METH_VARARGS, "Do two arrays view one store?"},
    {"_may_overlap", mod_may_overlap, METH_VARARGS, "May two arrays touch a common element?"},
    {"_device_export", cpn_mod_device_export, METH_O, "(address, device, byte strides) of a device array."},
    {"_dlpack_capsule", cpn_mod_dlpack_capsule, METH_O, "A DLPack capsule of a device array."},
    {NULL},
};

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
static PyObject *array_item(PyObject *self, PyObject *args) { return numpy_method(self, "item", args); }

static PyObject *array_fill(PyObject *self, PyObject *value)
{
    if (cpn_assign(cpn_array_view(self), value) < 0) return NULL;
    Py_RETURN_NONE;
}

PyMethodDef cpn_array_methods[] = {
    {"__array__", (PyCFunction)(void (*)(void))array_array, METH_VARARGS | METH_KEYWORDS,
     "A numpy.ndarray copy of the data (flushes)."},
    {"tolist", array_tolist, METH_VARARGS, "The array as nested Python lists (flushes)."},
    {"item", array_item, METH_VARARGS, "One element as a Python scalar (flushes)."},
    {"fill", array_fill, METH_O, "Fill the array with a scalar value."},
    {NULL},
};
