/* methods_ops.c: the module's op builders: each makes the result's store and queues one op of
 * the runtime (element-wise, cast, reduce, scan, quantile, select, bincount, matmul, arange,
 * random), arguments already reduced to the runtime's by cupynum/. */
#include "cpn_module.h"
#include "hostexec.h"
#include "comm.h"
#include "dist.h"
#include "partition.h"
#include "distfft.h"
#include "samplesort.h"
#include "scalapack.h"

/* Queue `op`, which computes the new array r: r, or NULL (r dropped) when submission fails. */
static PyObject *submit_for(PyObject *r, const struct cpn_op *op)
{
    if (cpn_submit(op) < 0) {
        Py_DECREF(r);
        return NULL;
    }
    return r;
}

PyObject *cpn_mod_empty(PyObject *m, PyObject *args)
{
    PyObject *shape_o, *dtype_o, *like = Py_None;
    int uninit = 0;
    if (!PyArg_ParseTuple(args, "OO|Op", &shape_o, &dtype_o, &like, &uninit)) return NULL;
    int ndim;
    int64_t shape[CPN_MAXDIM];
    if (cpn_parse_shape(shape_o, &ndim, shape) < 0) return NULL;
    int dt = cpn_dtype_from_object(dtype_o);
    if (dt < 0) return NULL;
    PyObject *r;
    if (like != Py_None) {   /* laid out like an operand of the op that will write it */
        if (cpn_check_array(like) < 0) return NULL;
        r = cpn_array_new_like(dt, ndim, shape, cpn_array_view(like));
    } else {
        r = cpn_array_new(dt, ndim, shape);
    }
    if (r && uninit) cpn_array_view(r)->store->uninit = true;
    return r;
}

PyObject *cpn_mod_empty_replicated(PyObject *m, PyObject *args)
{
    PyObject *shape_o, *dtype_o;
    if (!PyArg_ParseTuple(args, "OO", &shape_o, &dtype_o)) return NULL;
    int ndim;
    int64_t shape[CPN_MAXDIM];
    if (cpn_parse_shape(shape_o, &ndim, shape) < 0) return NULL;
    int dt = cpn_dtype_from_object(dtype_o);
    if (dt < 0) return NULL;
    return cpn_array_new_replicated(dt, ndim, shape);
}

PyObject *cpn_mod_cast(PyObject *m, PyObject *args)
{
    PyObject *a, *dtype_o;
    if (!PyArg_ParseTuple(args, "OO", &a, &dtype_o) || cpn_check_array(a) < 0) return NULL;
    int dt = cpn_dtype_from_object(dtype_o);
    if (dt < 0) return NULL;
    return cpn_array_cast(a, dt);
}

PyObject *cpn_mod_assign(PyObject *m, PyObject *args)
{
    PyObject *a, *value;
    if (!PyArg_ParseTuple(args, "OO", &a, &value) || cpn_check_array(a) < 0) return NULL;
    if (cpn_assign(cpn_array_view(a), value) < 0) return NULL;
    Py_RETURN_NONE;
}

PyObject *cpn_mod_ufunc(PyObject *m, PyObject *args)
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
    if (cpn_parse_shape(axes_o, &nax, ax) < 0) return -1;
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

/* The result of reducing v over `mask` as a new array tiled like v's kept dimensions, where no
 * rank tile of v cuts a reduced axis (dist.c's cpn_dist_reduce_local: each rank then reduces its
 * own lanes, nothing moves); NULL without an error where that does not hold (the caller makes
 * the replicated result, each rank's partials combined). */
static PyObject *reduce_result_tiled(struct cpn_view *v, uint64_t mask, enum cpn_dtype dt, int nd,
                                     const int64_t *shape, int lead)
{
    if (cpn_partition_ranks() < 2 || nd == lead || !v->store->tiled || v->store->root) return NULL;
    for (int d = 0; d < v->ndim; d++)
        if ((mask >> d & 1) && v->shape[d] == 0) return NULL;
    struct cpn_view *like = v;
    cpn_view_retain(v);
    for (int d = v->ndim - 1; d >= 0; d--) {   /* the kept dimensions: each reduced one fixed at 0 */
        if (!(mask >> d & 1)) continue;
        struct cpn_view *nx = NULL;
        enum cpn_status st = cpn_view_index(like, d, 0, &nx);
        cpn_view_release(like);
        if (st != CPN_OK) return cpn_raise(st);
        like = nx;
    }
    for (int k = 0; k < lead; k++) {           /* the result's own leading dimensions */
        struct cpn_view *nx = NULL;
        enum cpn_status st = cpn_view_newaxis(like, 0, &nx);
        cpn_view_release(like);
        if (st != CPN_OK) return cpn_raise(st);
        like = nx;
    }
    PyObject *r = cpn_array_new_like(dt, nd, shape, like);
    cpn_view_release(like);
    if (r && !cpn_dist_reduce_local(v, mask, cpn_array_view(r), lead)) Py_CLEAR(r);
    return r;
}

/* reduce(name, a, axes, acc_dtype, initial=None, segment=0): a new array of the kept dimensions
 * in acc_dtype; `initial` (packed as acc_dtype) starts every accumulator; `segment` (CPN_REDUCEAT_*
 * bits: 1 a segment of ufunc.reduceat, 2 its first, 4 its last) makes the floating-point reports
 * those of one reduceat. */
PyObject *cpn_mod_reduce(PyObject *m, PyObject *args)
{
    const char *name;
    PyObject *a, *axes_o, *dtype_o, *initial = Py_None;
    int segment = 0;
    if (!PyArg_ParseTuple(args, "sOOO|Oi", &name, &a, &axes_o, &dtype_o, &initial, &segment) ||
        cpn_check_array(a) < 0)
        return NULL;
    int code = binary_op(name);
    if (code < 0) return NULL;
    int dt = cpn_dtype_from_object(dtype_o);
    if (dt < 0) return NULL;
    struct cpn_view *v = cpn_array_view(a);
    uint64_t mask;
    if (axes_mask(axes_o, v, &mask) < 0) return NULL;
    if (!cpn_op_has_loop(code, dt) || cpn_op_out_dtype(code, 0, dt) != (enum cpn_dtype)dt)
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
    PyObject *r = reduce_result_tiled(v, mask, (enum cpn_dtype)dt, nd, shape, 0);
    if (!r && !PyErr_Occurred())
        r = cpn_array_new_replicated(dt, nd, shape);   /* on every rank, as MPI_Allreduce */
    if (!r) return NULL;
    op.dtype = dt;
    op.in[0] = v;
    op.out[0] = cpn_array_view(r);
    return submit_for(r, &op);
}

/* argreduce(name, a, axes): argmax ('maximum') / argmin ('minimum') over axes, int64, as a C-order
 * index over the reduced dimensions; the reduced extent must be non-empty. */
PyObject *cpn_mod_argreduce(PyObject *m, PyObject *args)
{
    const char *name;
    PyObject *a, *axes_o;
    if (!PyArg_ParseTuple(args, "sOO", &name, &a, &axes_o) || cpn_check_array(a) < 0) return NULL;
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
PyObject *cpn_mod_scan(PyObject *m, PyObject *args)
{
    const char *name;
    PyObject *a;
    int axis;
    if (!PyArg_ParseTuple(args, "sOi", &name, &a, &axis) || cpn_check_array(a) < 0) return NULL;
    int code = binary_op(name);
    if (code < 0) return NULL;
    struct cpn_view *v = cpn_array_view(a);
    enum cpn_dtype dt = cpn_array_dtype(a);
    if (axis < 0 || axis >= v->ndim) return PyErr_Format(PyExc_ValueError, "internal: scan axis %d", axis);
    if (!cpn_op_has_loop(code, dt) || cpn_op_out_dtype(code, 0, dt) != dt)
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
PyObject *cpn_mod_quantile(PyObject *m, PyObject *args)
{
    PyObject *a, *axes_o, *q, *gdt_o, *cdt_o, *odt_o;
    int method, flags;
    if (!PyArg_ParseTuple(args, "OOOiiOOO", &a, &axes_o, &q, &method, &flags, &gdt_o, &cdt_o, &odt_o) ||
        cpn_check_array(a) < 0 || (q != Py_None && cpn_check_array(q) < 0))
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
    /* each rank's own lanes into its tile where no tile cuts a lane (distselect.c), else every
     * rank holds the whole result */
    PyObject *r = cpn_view_is_whole(v) ? reduce_result_tiled(v, mask, (enum cpn_dtype)odt, nd, shape, q != Py_None)
                                       : NULL;
    if (!r && !PyErr_Occurred()) r = cpn_array_new_replicated(odt, nd, shape);
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
PyObject *cpn_mod_select(PyObject *m, PyObject *args)
{
    PyObject *ops[3], *out;
    if (!PyArg_ParseTuple(args, "OOOO", &ops[0], &ops[1], &ops[2], &out) || cpn_check_array(out) < 0) return NULL;
    struct cpn_view *ov = cpn_array_view(out);
    if (ov->readonly) return cpn_raise_readonly_out();
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

int cpn_mask_assign_scalar(struct cpn_view *mask, PyObject *value, struct cpn_view *out)
{
    struct cpn_op op = {.kind = CPN_OPK_ELEMENTWISE, .code = CPN_OP_WHERE, .nin = 3, .nout = 1};
    op.dtype = out->dtype;
    if (cpn_pack_scalar(value, out->dtype, &op.scalar[1]) < 0) return -1;
    op.in[0] = mask;
    op.in[2] = out;
    op.out[0] = out;
    return cpn_submit(&op) < 0 ? -1 : 0;
}

/* bincount(a, weights, nbins): numpy.bincount of a (1-D int64, values in [0, nbins), checked by
 * the caller), weighted by `weights` (1-D float64 of a's length) or not (None); a new replicated
 * array of nbins int64 counts / float64 sums. */
PyObject *cpn_mod_bincount(PyObject *m, PyObject *args)
{
    PyObject *a, *w;
    long long nbins;
    if (!PyArg_ParseTuple(args, "OOL", &a, &w, &nbins) || cpn_check_array(a) < 0) return NULL;
    if (w != Py_None && cpn_check_array(w) < 0) return NULL;
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

/* sort(a, axis, arg[, perm]): numpy.sort of a along axis (0 <= axis < a.ndim, checked by the
 * caller) as a new array of a's dtype, tiled like a; with arg true the stable numpy.argsort
 * (int64).  With perm (arg true; int64 of a's shape, each lane a permutation of its indices: the
 * caller's), a step of lexsort: perm composed with the stable argsort of a read through it. */
PyObject *cpn_mod_sort(PyObject *m, PyObject *args)
{
    PyObject *a, *perm = Py_None;
    int axis, arg;
    if (!PyArg_ParseTuple(args, "Oip|O", &a, &axis, &arg, &perm) || cpn_check_array(a) < 0 ||
        (perm != Py_None && cpn_check_array(perm) < 0))
        return NULL;
    struct cpn_view *v = cpn_array_view(a), *pv = perm != Py_None ? cpn_array_view(perm) : NULL;
    if (axis < 0 || axis >= v->ndim) return PyErr_Format(PyExc_ValueError, "internal: sort axis %d", axis);
    bool ok = !pv || (arg && pv->dtype == CPN_DTYPE_INT64 && pv->ndim == v->ndim);
    for (int d = 0; ok && pv && d < v->ndim; d++) ok = pv->shape[d] == v->shape[d];
    if (!ok) {
        PyErr_SetString(PyExc_ValueError, "internal: lexsort step operand mismatch");
        return NULL;
    }
    PyObject *r = cpn_array_new_like(arg ? CPN_DTYPE_INT64 : cpn_array_dtype(a), v->ndim, v->shape, v);
    if (!r) return NULL;
    struct cpn_op op = {.kind = CPN_OPK_SORT, .nin = pv ? 2 : 1, .nout = 1};
    op.dtype = cpn_array_dtype(a);
    op.in[0] = v;
    op.in[1] = pv;
    op.out[0] = cpn_array_view(r);
    op.iparam[0] = axis;
    op.iparam[1] = arg ? CPN_SORT_ARG : 0;
    return submit_for(r, &op);
}

/* lane_slabs(keys, axes): the keys (a tuple of arrays of one shape, ndim >= 2) as they are when
 * ops along `axes` (an int, or a tuple of the axes of a quantile's lanes) over them run on each
 * rank's own lanes (samplesort.h), else as copies tiled alike in slabs along one other dimension
 * (the one their tiling already cuts, when it cuts one outside axes, else the longest outside
 * axes), so that lexsort's steps, sorts and quantiles along axes need no message.  A tuple. */
PyObject *cpn_mod_lane_slabs(PyObject *m, PyObject *args)
{
    PyObject *keys, *axes_o, *r = NULL;
    if (!PyArg_ParseTuple(args, "O!O", &PyTuple_Type, &keys, &axes_o)) return NULL;
    const Py_ssize_t n = PyTuple_GET_SIZE(keys);
    struct cpn_view *v[64];
    if (n < 1 || n > 64) return PyErr_Format(PyExc_ValueError, "internal: lane_slabs of %zd keys", n);
    for (Py_ssize_t i = 0; i < n; i++) {
        if (cpn_check_array(PyTuple_GET_ITEM(keys, i)) < 0) return NULL;
        v[i] = cpn_array_view(PyTuple_GET_ITEM(keys, i));
        bool ok = v[i]->ndim == v[0]->ndim && v[0]->ndim >= 2;
        for (int d = 0; ok && d < v[0]->ndim; d++) ok = v[i]->shape[d] == v[0]->shape[d];
        if (!ok) return PyErr_Format(PyExc_ValueError, "internal: lane_slabs operand mismatch");
    }
    uint64_t mask;
    if (PyLong_Check(axes_o)) {
        long axis = PyLong_AsLong(axes_o);
        if (axis == -1 && PyErr_Occurred()) return NULL;
        if (axis < 0 || axis >= v[0]->ndim) return PyErr_Format(PyExc_ValueError, "internal: lane_slabs axis %ld", axis);
        mask = (uint64_t)1 << axis;
    } else if (axes_mask(axes_o, v[0], &mask) < 0) {
        return NULL;
    }
    const int nd = v[0]->ndim;
    if (mask == 0 || mask == ((uint64_t)1 << nd) - 1) {
        PyErr_SetString(PyExc_ValueError, "internal: lane_slabs needs a dimension outside axes");
        return NULL;
    }
    bool local = true;
    for (int d = 0; local && d < nd; d++)
        if (mask >> d & 1) local = cpn_samplesort_lanes_local((const struct cpn_view *const *)v, (int)n, d);
    if (local) return Py_NewRef(keys);
    const struct cpn_store *s0 = cpn_store_root(v[0]->store);
    bool in_order = !v[0]->store->root && v[0]->ndim == s0->ndim;   /* view dim d walks store dim d */
    for (int d = 0; in_order && d < nd; d++) in_order = v[0]->sdim[d] == d;
    int dim = -1, cut = 0;
    for (int d = 0; s0->tiled && in_order && d < nd; d++)
        if (s0->grid[d] > 1) {
            cut++;
            dim = d;
        }
    if (cut != 1 || mask >> dim & 1) {
        dim = -1;
        for (int d = 0; d < nd; d++)
            if (!(mask >> d & 1) && (dim < 0 || v[0]->shape[d] > v[0]->shape[dim])) dim = d;
    }
    r = PyTuple_New(n);
    if (!r) return NULL;
    for (Py_ssize_t i = 0; i < n; i++) {
        struct cpn_store *s = cpn_store_new_slabs(v[i]->dtype, nd, v[i]->shape, dim);
        PyObject *c = s ? cpn_array_from_store(s) : PyErr_NoMemory();
        if (!c) goto fail;
        PyTuple_SET_ITEM(r, i, c);
        if (cpn_assign(cpn_array_view(c), PyTuple_GET_ITEM(keys, i)) < 0) goto fail;
    }
    return r;
fail:
    Py_DECREF(r);
    return NULL;
}

/* searchsorted(a, v, sorter, right, found): numpy.searchsorted of 1-D v in 1-D a (both of one
 * dtype; sorter None or a 1-D int64 array of a's length, in range: checked by the caller) as a
 * new int64 array of v's length, or with `found` the bool array "a holds v[j]". */
PyObject *cpn_mod_searchsorted(PyObject *m, PyObject *args)
{
    PyObject *a, *v, *sorter;
    int right, found;
    if (!PyArg_ParseTuple(args, "OOOpp", &a, &v, &sorter, &right, &found) || cpn_check_array(a) < 0 ||
        cpn_check_array(v) < 0 || (sorter != Py_None && cpn_check_array(sorter) < 0))
        return NULL;
    struct cpn_view *av = cpn_array_view(a), *vv = cpn_array_view(v);
    struct cpn_view *sv = sorter != Py_None ? cpn_array_view(sorter) : NULL;
    if (av->ndim != 1 || vv->ndim != 1 || av->dtype != vv->dtype ||
        (sv && (sv->ndim != 1 || sv->dtype != CPN_DTYPE_INT64 || sv->shape[0] != av->shape[0]))) {
        PyErr_SetString(PyExc_ValueError, "internal: searchsorted operand shape/dtype mismatch");
        return NULL;
    }
    PyObject *r = cpn_array_new_like(found ? CPN_DTYPE_BOOL : CPN_DTYPE_INT64, 1, vv->shape, vv);
    if (!r) return NULL;
    struct cpn_op op = {.kind = CPN_OPK_SEARCHSORTED, .nin = sv ? 3 : 2, .nout = 1};
    op.dtype = av->dtype;
    op.in[0] = av;
    op.in[1] = vv;
    op.in[2] = sv;
    op.out[0] = cpn_array_view(r);
    op.iparam[0] = right;
    op.iparam[1] = found;
    return submit_for(r, &op);
}

/* unique(s, perm, mode, nan_distinct, length, presorted=False): what enum cpn_unique_mode `mode`
 * asks of the runs of equal elements of the sorted 1-D s (or of s through perm, a 1-D int64
 * permutation that sorts it; presorted: s sorted itself and perm its elements' positions before
 * the sort, tiled alike), as a new array (replicated, or in the default tiling when s is
 * partitioned): COUNT one int64 (shape (), replicated), VALUES `length` elements of s's dtype,
 * COUNTS/INDEX `length` int64, INVERSE one int64 per element of s (tiled like s). */
PyObject *cpn_mod_unique(PyObject *m, PyObject *args)
{
    PyObject *s, *perm;
    int mode, nan_distinct, presorted = 0;
    long long length;
    if (!PyArg_ParseTuple(args, "OOipL|p", &s, &perm, &mode, &nan_distinct, &length, &presorted) ||
        cpn_check_array(s) < 0 ||
        (perm != Py_None && cpn_check_array(perm) < 0))
        return NULL;
    struct cpn_view *sv = cpn_array_view(s), *pv = perm != Py_None ? cpn_array_view(perm) : NULL;
    if (sv->ndim != 1 || mode < 0 || mode >= CPN_UNIQUE_MODE_COUNT || length < 0 ||
        (pv && (pv->ndim != 1 || pv->dtype != CPN_DTYPE_INT64 || pv->shape[0] != sv->shape[0]))) {
        PyErr_SetString(PyExc_ValueError, "internal: unique operand shape/dtype mismatch");
        return NULL;
    }
    int64_t shape[1] = {mode == CPN_UNIQUE_INVERSE ? sv->shape[0] : (int64_t)length};
    enum cpn_dtype odt = mode == CPN_UNIQUE_VALUES ? sv->dtype : CPN_DTYPE_INT64;
    /* a partitioned s's values, counts and indices are partitioned too (k may be s's length) */
    PyObject *r = mode == CPN_UNIQUE_INVERSE ? cpn_array_new_like(odt, 1, shape, sv)
                  : mode != CPN_UNIQUE_COUNT && cpn_store_root(sv->store)->tiled ? cpn_array_new(odt, 1, shape)
                                                                                : cpn_array_new_replicated(odt, mode == CPN_UNIQUE_COUNT ? 0 : 1, shape);
    if (!r) return NULL;
    struct cpn_op op = {.kind = CPN_OPK_UNIQUE, .nin = pv ? 2 : 1, .nout = 1};
    op.dtype = sv->dtype;
    op.in[0] = sv;
    op.in[1] = pv;
    op.out[0] = cpn_array_view(r);
    op.iparam[0] = mode;
    op.iparam[1] = nan_distinct;
    op.iparam[2] = presorted && pv;
    return submit_for(r, &op);
}

/* histogram(x, weights, edges, uniform, first, last, denom): numpy.histogram's counts of 1-D x
 * over the 1-D edges (len(edges) - 1 bins) as a new replicated array: int64 counts, or float64
 * sums of `weights` (1-D float64 of x's length, or None).  uniform: x and edges float64 and
 * first/last/denom NumPy's outer edges and their difference; else x and edges of one dtype.
 * The caller has checked the edges. */
PyObject *cpn_mod_histogram(PyObject *m, PyObject *args)
{
    PyObject *x, *w, *e;
    int uniform;
    double first, last, denom;
    if (!PyArg_ParseTuple(args, "OOOpddd", &x, &w, &e, &uniform, &first, &last, &denom) ||
        cpn_check_array(x) < 0 || cpn_check_array(e) < 0 || (w != Py_None && cpn_check_array(w) < 0))
        return NULL;
    struct cpn_view *xv = cpn_array_view(x), *ev = cpn_array_view(e), *wv = w != Py_None ? cpn_array_view(w) : NULL;
    if (xv->ndim != 1 || ev->ndim != 1 || ev->shape[0] < 2 || xv->dtype != ev->dtype ||
        cpn_dtype_class(xv->dtype) == CPN_CLASS_COMPLEX || (uniform && xv->dtype != CPN_DTYPE_FLOAT64) ||
        (wv && (wv->ndim != 1 || wv->dtype != CPN_DTYPE_FLOAT64 || wv->shape[0] != xv->shape[0]))) {
        PyErr_SetString(PyExc_ValueError, "internal: histogram operand shape/dtype mismatch");
        return NULL;
    }
    int64_t shape[1] = {ev->shape[0] - 1};
    PyObject *r = cpn_array_new_replicated(wv ? CPN_DTYPE_FLOAT64 : CPN_DTYPE_INT64, 1, shape);
    if (!r) return NULL;
    struct cpn_op op = {.kind = CPN_OPK_HISTOGRAM, .nin = 3, .nout = 1};
    op.dtype = xv->dtype;
    op.in[0] = xv;
    op.in[1] = wv;
    op.in[2] = ev;
    op.out[0] = cpn_array_view(r);
    op.iparam[0] = uniform;
    op.dparam[0] = first;
    op.dparam[1] = last;
    op.dparam[2] = denom;
    return submit_for(r, &op);
}

/* matmul(a, b, dtype): operands already cast to dtype, of one ndim >= 2 and equal batch dims
 * (broadcast views); a new (..., m, n) array. */
PyObject *cpn_mod_matmul(PyObject *m, PyObject *args)
{
    PyObject *a, *b, *dtype_o;
    if (!PyArg_ParseTuple(args, "OOO", &a, &b, &dtype_o) || cpn_check_array(a) < 0 || cpn_check_array(b) < 0)
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

/* dot1(a, b): np.dot of two cupynum arrays of one dtype, each 1-d or 2-d with matching inner
 * extents, is their matmul (cpn_array_fast_matmul: a scalar for two vectors); None for anything
 * else (the caller takes the general path).  A dot in a Python loop pays one call (issue #21). */
PyObject *cpn_mod_dot1(PyObject *m, PyObject *args)
{
    PyObject *a, *b;
    if (!PyArg_ParseTuple(args, "OO", &a, &b)) return NULL;
    PyObject *r = cpn_array_fast_matmul(a, b);
    if (r == Py_NotImplemented) {
        Py_DECREF(r);
        Py_RETURN_NONE;
    }
    return r;
}

/* lapack(code, a, b, out_dtype, L, naux, p0, p1, rcond): one LAPACK routine (kernels.h's enum
 * cpn_lapack_routine; an unknown one fails when it runs) per matrix of a (..., m, n), with b (..., m, nrhs) or None; a and b of one
 * LAPACK dtype and equal batch dims.  Returns (out (..., L) of out_dtype, aux (..., naux) float64),
 * aux[..., 0] LAPACK's info. */
PyObject *cpn_mod_lapack(PyObject *m, PyObject *args)
{
    int code;
    PyObject *a, *b, *dtype_o;
    long long L, naux, p0, p1;
    double rcond;
    if (!PyArg_ParseTuple(args, "iOOOLLLLd", &code, &a, &b, &dtype_o, &L, &naux, &p0, &p1, &rcond) ||
        cpn_check_array(a) < 0 || (b != Py_None && cpn_check_array(b) < 0))
        return NULL;
    int odt = cpn_dtype_from_object(dtype_o);
    if (odt < 0) return NULL;
    struct cpn_view *av = cpn_array_view(a), *bv = b != Py_None ? cpn_array_view(b) : NULL;
    const int nd = av->ndim;
    const enum cpn_dtype dt = av->dtype;
    bool ok = nd >= 2 && code >= 0 && L >= 1 && naux >= 1 &&
              (dt == CPN_DTYPE_FLOAT32 || dt == CPN_DTYPE_FLOAT64 || dt == CPN_DTYPE_COMPLEX64 ||
               dt == CPN_DTYPE_COMPLEX128);
    if (ok && bv) {
        ok = bv->ndim == nd && bv->dtype == dt && bv->shape[nd - 2] == av->shape[nd - 2];
        for (int d = 0; ok && d < nd - 2; d++) ok = av->shape[d] == bv->shape[d];
    }
    if (!ok) {
        PyErr_SetString(PyExc_ValueError, "lapack: internal shape/dtype mismatch");
        return NULL;
    }
    /* a stack whose tiles cut its matrices: copied into slabs of whole matrices first (b, when
     * tiled, alike), so that each rank factors its own (scalapack.h) */
    PyObject *slabs[2] = {NULL, NULL}, *r = NULL, *x = NULL;
    if (cpn_lapack_batch_wants_slabs(av)) {
        struct cpn_store *sa = cpn_store_new_slabs(dt, nd, av->shape, 0);
        slabs[0] = sa ? cpn_array_from_store(sa) : PyErr_NoMemory();
        if (slabs[0] && bv && bv->store->tiled) {
            struct cpn_store *sb = cpn_store_new_batch_as(dt, nd, bv->shape, sa, nd - 2);
            slabs[1] = sb ? cpn_array_from_store(sb) : PyErr_NoMemory();
        }
        if (!slabs[0] || (bv && bv->store->tiled && !slabs[1]) || cpn_assign(cpn_array_view(slabs[0]), a) < 0 ||
            (slabs[1] && cpn_assign(cpn_array_view(slabs[1]), b) < 0))
            goto fail;
        av = cpn_array_view(slabs[0]);
        if (slabs[1]) bv = cpn_array_view(slabs[1]);
    }
    int64_t shape[CPN_MAXDIM];
    memcpy(shape, av->shape, sizeof(int64_t) * (size_t)(nd - 2));
    shape[nd - 2] = L;
    /* under distribution, a stack tiled along its batch only: results tiled alike (scalapack.h) */
    const struct cpn_store *batch = cpn_lapack_batch_source(av, bv);
    r = batch ? cpn_array_from_store(cpn_store_new_batch_as((enum cpn_dtype)odt, nd - 1, shape, batch, nd - 2))
              : cpn_array_new(odt, nd - 1, shape);
    if (!r) goto fail;
    shape[nd - 2] = naux;
    x = batch ? cpn_array_from_store(cpn_store_new_batch_as(CPN_DTYPE_FLOAT64, nd - 1, shape, batch, nd - 2))
              : cpn_array_new(CPN_DTYPE_FLOAT64, nd - 1, shape);
    if (!x) goto fail;
    struct cpn_op op = {.kind = CPN_OPK_LAPACK, .code = code, .nin = bv ? 2 : 1, .nout = 2};
    op.dtype = dt;
    op.in[0] = av;
    op.in[1] = bv;
    op.out[0] = cpn_array_view(r);
    op.out[1] = cpn_array_view(x);
    op.iparam[0] = p0;
    op.iparam[1] = p1;
    op.dparam[0] = rcond;
    if (cpn_submit(&op) < 0) goto fail;
    Py_XDECREF(slabs[0]);
    Py_XDECREF(slabs[1]);
    return Py_BuildValue("NN", r, x);
fail:
    Py_XDECREF(r);
    Py_XDECREF(x);
    Py_XDECREF(slabs[0]);
    Py_XDECREF(slabs[1]);
    return NULL;
}

/* lapack_info(aux): the first non-zero LAPACK info (in C order of the batch) of aux[..., 0], aux a
 * result of lapack(); 0 when there is none.  The same on every rank: each rank reads its own tile
 * (aux tiled along the batch, or whole), the ranks agree with two integer allreduces, no tile
 * moves.  Flushes.  Collective. */
PyObject *cpn_mod_lapack_info(PyObject *m, PyObject *a)
{
    if (cpn_check_array(a) < 0 || cpn_flush() < 0) return NULL;
    struct cpn_view *v = cpn_array_view(a);
    struct cpn_store *s = cpn_store_root(v->store);
    const int nd = s->ndim;
    if (v->store != s || nd < 1 || s->dtype != CPN_DTYPE_FLOAT64 || v->ndim != nd) {
        PyErr_SetString(PyExc_ValueError, "lapack_info: not a lapack() aux array");
        return NULL;
    }
    int64_t lo[CPN_MAXDIM], hi[CPN_MAXDIM];
    cpn_store_tile_box(s, cpn_comm_rank(), lo, hi);
    int64_t rows = 1, first = INT64_MAX, value = 0;
    for (int d = 0; d < nd - 1; d++) rows *= hi[d] - lo[d] > 0 ? hi[d] - lo[d] : 0;
    const int64_t width = hi[nd - 1] - lo[nd - 1];
    if (rows > 0 && width > 0 && lo[nd - 1] == 0) {
        const double *x = cpn_store_data(s);
        if (!x) return PyErr_NoMemory();
        int64_t idx[CPN_MAXDIM] = {0};
        for (int64_t i = 0; i < rows && first == INT64_MAX; i++) {
            if (x[i * width] != 0) {
                int64_t g = 0;   /* the matrix's index in the whole batch */
                for (int d = 0; d < nd - 1; d++) g = g * s->shape[d] + lo[d] + idx[d];
                first = g;
                value = (int64_t)x[i * width];
            }
            for (int d = nd - 2; d >= 0; d--) {
                if (++idx[d] < hi[d] - lo[d]) break;
                idx[d] = 0;
            }
        }
    }
    if (s->tiled) {
        int64_t g = first;
        enum cpn_status st = cpn_comm_allreduce_min(&g);
        int64_t neg = g != INT64_MAX && g == first ? -value : 0, pos = g != INT64_MAX && g == first ? value : 0;
        if (st == CPN_OK) st = cpn_comm_allreduce_min(&neg);   /* the owner's value, either sign */
        if (st == CPN_OK) st = cpn_comm_allreduce_min(&pos);
        if (st != CPN_OK) return cpn_raise(st);
        value = g == INT64_MAX ? 0 : (neg < 0 ? -neg : pos);
    }
    return PyLong_FromLongLong((long long)value);
}

/* fft(a, kind, axes, n, scale): the transform `kind` (enum cpn_fft_kind) of a over the dimensions
 * in the tuple `axes` (non-negative, distinct; r2c and c2r: one), times scale; a new array.  a is
 * already complex64/complex128 (c2c, c2r) or float32/float64 (r2c) and of the transform's length
 * along its axes (c2r: n//2 + 1 for the output length n; n is ignored otherwise). */
PyObject *cpn_mod_fft(PyObject *m, PyObject *args)
{
    PyObject *a, *axes_o;
    int kind;
    long long n;
    double scale;
    if (!PyArg_ParseTuple(args, "OiOLd", &a, &kind, &axes_o, &n, &scale) || cpn_check_array(a) < 0)
        return NULL;
    struct cpn_view *av = cpn_array_view(a);
    const int nd = av->ndim;
    uint64_t axes = 0;
    PyObject *seq = PySequence_Fast(axes_o, "fft: axes must be a sequence");
    if (!seq) return NULL;
    bool ok = kind >= 0 && kind < CPN_FFT_COUNT && PySequence_Fast_GET_SIZE(seq) >= 1;
    int last = -1;
    for (Py_ssize_t i = 0; ok && i < PySequence_Fast_GET_SIZE(seq); i++) {
        long d = PyLong_AsLong(PySequence_Fast_GET_ITEM(seq, i));
        ok = d >= 0 && d < nd && !((axes >> d) & 1);
        if (ok) axes |= (uint64_t)1 << d, last = (int)d;
    }
    Py_DECREF(seq);
    if (PyErr_Occurred()) return NULL;
    const bool real_in = kind == CPN_FFT_R2C, real_out = kind == CPN_FFT_C2R;
    enum cpn_dtype adt = av->dtype;
    enum cpn_dtype cdt = adt == CPN_DTYPE_FLOAT32 || adt == CPN_DTYPE_COMPLEX64 ? CPN_DTYPE_COMPLEX64
                                                                               : CPN_DTYPE_COMPLEX128;
    ok = ok && (real_in ? adt == CPN_DTYPE_FLOAT32 || adt == CPN_DTYPE_FLOAT64
                        : adt == CPN_DTYPE_COMPLEX64 || adt == CPN_DTYPE_COMPLEX128);
    ok = ok && (kind <= CPN_FFT_C2C_BACKWARD || __builtin_popcountll(axes) == 1);
    ok = ok && (!real_out || (n >= 1 && av->shape[last] == n / 2 + 1));
    if (!ok) {
        PyErr_SetString(PyExc_ValueError, "fft: internal operand mismatch");
        return NULL;
    }
    int64_t shape[CPN_MAXDIM];
    memcpy(shape, av->shape, sizeof(int64_t) * (size_t)nd);
    if (real_in) shape[last] = av->shape[last] / 2 + 1;
    if (real_out) shape[last] = n;
    enum cpn_dtype odt = real_out ? (cdt == CPN_DTYPE_COMPLEX64 ? CPN_DTYPE_FLOAT32 : CPN_DTYPE_FLOAT64) : cdt;
    /* under distribution, a layout the transform leaves without further moves (distfft.h) */
    PyObject *r = cpn_array_from_store(cpn_distfft_new_output(odt, nd, shape, av, axes));
    if (!r) return NULL;
    struct cpn_op op = {.kind = CPN_OPK_FFT, .code = kind, .nin = 1, .nout = 1};
    op.dtype = cdt;
    op.axes = axes;
    op.dparam[0] = scale;
    op.in[0] = av;
    op.out[0] = cpn_array_view(r);
    return submit_for(r, &op);
}

/* arange(n, dtype, start, second): NumPy's arange fill. */
PyObject *cpn_mod_arange(PyObject *m, PyObject *args)
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

/* random(dist, shape, seed, stream, lo, hi[, int64_offset]): float64 draws keyed by element
 * index; with an offset (dist INTEGER only, hi unused), int64 draws offset + [0, lo) (modulo
 * 2**64: the same bits as uint64). */
PyObject *cpn_mod_random(PyObject *m, PyObject *args)
{
    int dist;
    PyObject *shape_o, *off_o = NULL;
    unsigned long long seed, stream, off = 0;
    double lo, hi;
    if (!PyArg_ParseTuple(args, "iOKKdd|O", &dist, &shape_o, &seed, &stream, &lo, &hi, &off_o))
        return NULL;
    if (off_o) {
        if (dist != CPN_RANDOM_INTEGER || !(lo >= 1.0 && lo <= 9007199254740992.0)) {
            PyErr_SetString(PyExc_ValueError, "internal: int64 draws are integers in [0, r), r <= 2**53");
            return NULL;
        }
        off = PyLong_AsUnsignedLongLongMask(off_o);
        if (PyErr_Occurred()) return NULL;
    }
    int ndim;
    int64_t shape[CPN_MAXDIM];
    if (cpn_parse_shape(shape_o, &ndim, shape) < 0) return NULL;
    PyObject *r = cpn_array_new(off_o ? CPN_DTYPE_INT64 : CPN_DTYPE_FLOAT64, ndim, shape);
    if (!r) return NULL;
    struct cpn_op op = {.kind = CPN_OPK_RANDOM, .code = dist, .nout = 1};
    op.out[0] = cpn_array_view(r);
    op.iparam[0] = (int64_t)seed;
    op.iparam[1] = (int64_t)stream;
    op.iparam[2] = (int64_t)off;
    op.dparam[0] = lo;
    op.dparam[1] = hi;
    return submit_for(r, &op);
}

/* random_p(dist, seed, stream, p0, p1): float64 draws of distribution dist with a parameter pair
 * per element: p0 and p1 each a float (one value for all) or a float64 cupynum array (broadcast
 * views too), the arrays of one shape (the draw's); the result is laid out like them, so a rank
 * draws the elements whose parameters it holds. */
PyObject *cpn_mod_random_p(PyObject *m, PyObject *args)
{
    int dist;
    unsigned long long seed, stream;
    PyObject *po[2];
    if (!PyArg_ParseTuple(args, "iKKOO", &dist, &seed, &stream, &po[0], &po[1])) return NULL;
    struct cpn_op op = {.kind = CPN_OPK_RANDOM, .code = dist, .nin = 2, .nout = 1};
    struct cpn_view *like = NULL;
    for (int k = 0; k < 2; k++) {
        if (!cpn_array_check(po[k])) {
            op.dparam[k] = PyFloat_AsDouble(po[k]);
            if (PyErr_Occurred()) return NULL;
            continue;
        }
        struct cpn_view *v = cpn_array_view(po[k]);
        bool same = v->dtype == CPN_DTYPE_FLOAT64 && (!like || like->ndim == v->ndim);
        for (int d = 0; same && like && d < v->ndim; d++) same = like->shape[d] == v->shape[d];
        if (!same) {
            PyErr_SetString(PyExc_ValueError, "internal: random_p parameters are float64 arrays of one shape");
            return NULL;
        }
        op.in[k] = v;
        if (!like) like = v;
    }
    if (!like || dist < 0 || dist >= CPN_RANDOM_COUNT) {
        PyErr_SetString(PyExc_ValueError, "internal: random_p takes an array parameter and a float64 distribution");
        return NULL;
    }
    const struct cpn_view *likes[2];
    int nlike = 0;
    for (int k = 0; k < 2; k++)
        if (op.in[k]) likes[nlike++] = op.in[k];
    PyObject *r = cpn_array_new_like_n(CPN_DTYPE_FLOAT64, like->ndim, like->shape, nlike, likes);
    if (!r) return NULL;
    op.out[0] = cpn_array_view(r);
    op.iparam[0] = (int64_t)seed;
    op.iparam[1] = (int64_t)stream;
    return submit_for(r, &op);
}

/* permute(a, seed, stream): a new array laid out like a (contiguous, ndim >= 1) whose row
 * cpn_perm_apply(i) is a's row i (kernels.h struct cpn_perm). */
PyObject *cpn_mod_permute(PyObject *m, PyObject *args)
{
    PyObject *a;
    unsigned long long seed, stream;
    if (!PyArg_ParseTuple(args, "OKK", &a, &seed, &stream) || cpn_check_array(a) < 0) return NULL;
    struct cpn_view *av = cpn_array_view(a);
    if (av->ndim < 1 || !cpn_view_is_contiguous(av)) {
        PyErr_SetString(PyExc_ValueError, "internal: permute takes a contiguous array of ndim >= 1");
        return NULL;
    }
    PyObject *r = cpn_array_new_like(av->dtype, av->ndim, av->shape, av);
    if (!r) return NULL;
    struct cpn_op op = {.kind = CPN_OPK_PERMUTE, .nin = 1, .nout = 1};
    op.dtype = av->dtype;
    op.in[0] = av;
    op.out[0] = cpn_array_view(r);
    op.iparam[0] = (int64_t)seed;
    op.iparam[1] = (int64_t)stream;
    return submit_for(r, &op);
}

/* compact(a, mask, count[, block]): the elements of a where mask (a bool ndarray of a's shape
 * holding `count` true elements: the caller counted) is true, as a new 1-D array in C order;
 * with `block`, its tiles split between whole blocks (rows of the selection's n-d result). */
PyObject *cpn_mod_compact(PyObject *m, PyObject *args)
{
    PyObject *a, *mask;
    long long count, block = 1;
    if (!PyArg_ParseTuple(args, "OOL|L", &a, &mask, &count, &block) || cpn_check_array(a) < 0 ||
        cpn_check_array(mask) < 0)
        return NULL;
    return cpn_compact_new(a, mask, count, block);
}

PyObject *cpn_compact_new(PyObject *a, PyObject *mask, int64_t count, int64_t block)
{
    struct cpn_view *av = cpn_array_view(a), *mv = cpn_array_view(mask);
    int same = av->ndim == mv->ndim && mv->dtype == CPN_DTYPE_BOOL && count >= 0;
    for (int d = 0; same && d < av->ndim; d++) same = av->shape[d] == mv->shape[d];
    if (!same) {
        PyErr_SetString(PyExc_ValueError, "internal: compact operand shape/dtype mismatch");
        return NULL;
    }
    int64_t shape[1] = {(int64_t)count};
    PyObject *r = cpn_array_new(av->dtype, 1, shape);
    if (!r) return NULL;
    if (block > 1) cpn_store_split_in_blocks(cpn_array_view(r)->store, block);
    struct cpn_op op = {.kind = CPN_OPK_COMPACT, .nin = 2, .nout = 1};
    op.dtype = av->dtype;
    op.in[0] = av;
    op.in[1] = mv;
    op.out[0] = cpn_array_view(r);
    op.iparam[0] = count;
    return submit_for(r, &op);
}

/* nonzero(mask, count): the indices of mask's `count` true elements (bool ndarray, ndim >= 1),
 * as a new int64 array of shape (ndim, count). */
PyObject *cpn_mod_nonzero(PyObject *m, PyObject *args)
{
    PyObject *mask;
    long long count;
    if (!PyArg_ParseTuple(args, "OL", &mask, &count) || cpn_check_array(mask) < 0) return NULL;
    struct cpn_view *mv = cpn_array_view(mask);
    if (mv->dtype != CPN_DTYPE_BOOL || mv->ndim < 1 || count < 0) {
        PyErr_SetString(PyExc_ValueError, "internal: nonzero operand shape/dtype mismatch");
        return NULL;
    }
    return cpn_queue_nonzero(mv, (int64_t)count);
}

PyObject *cpn_queue_nonzero(struct cpn_view *mask, int64_t count)
{
    const int64_t shape[2] = {mask->ndim, count};
    PyObject *r = cpn_array_new(CPN_DTYPE_INT64, 2, shape);
    if (!r) return NULL;
    struct cpn_op op = {.kind = CPN_OPK_NONZERO, .nin = 1, .nout = 1};
    op.dtype = CPN_DTYPE_BOOL;
    op.in[0] = mask;
    op.out[0] = cpn_array_view(r);
    op.iparam[0] = count;
    return submit_for(r, &op);
}

/* gather(a, idx): a[idx] for idx a 1-D int64 ndarray of indices into a's first dimension (the
 * caller checked them against its length), as a new array of shape (len(idx),) + a.shape[1:]. */
PyObject *cpn_mod_gather(PyObject *m, PyObject *args)
{
    PyObject *a, *idx;
    if (!PyArg_ParseTuple(args, "OO", &a, &idx) || cpn_check_array(a) < 0 || cpn_check_array(idx) < 0)
        return NULL;
    return cpn_gather_rows(a, idx);
}

PyObject *cpn_gather_rows(PyObject *a, PyObject *idx)
{
    struct cpn_view *av = cpn_array_view(a), *iv = cpn_array_view(idx);
    if (av->ndim < 1 || iv->ndim != 1 || iv->dtype != CPN_DTYPE_INT64) {
        PyErr_SetString(PyExc_ValueError, "internal: gather operand shape/dtype mismatch");
        return NULL;
    }
    int64_t shape[CPN_MAXDIM];
    shape[0] = iv->shape[0];
    for (int d = 1; d < av->ndim; d++) shape[d] = av->shape[d];
    /* rows of the result in rank slabs (a few long rows would otherwise be cut along a later
     * axis, and the owners of source rows serve whole result rows) */
    PyObject *r;
    if (av->ndim > 1) {
        struct cpn_store *s = cpn_store_new_slabs(av->dtype, av->ndim, shape, 0);
        r = s ? cpn_array_from_store(s) : PyErr_NoMemory();
    } else {
        /* a 1-D result lies like its index where that is tiled (ranges of a 1-D store, or of
         * the flat alias of an array in row slabs): each rank then asks the owners for its own
         * result elements only (dist.c's gather_routed), never reading the whole index */
        r = cpn_array_new_like(av->dtype, av->ndim, shape, iv);
    }
    if (!r) return NULL;
    struct cpn_op op = {.kind = CPN_OPK_GATHER, .nin = 2, .nout = 1};
    op.dtype = av->dtype;
    op.in[0] = av;
    op.in[1] = iv;
    op.out[0] = cpn_array_view(r);
    return submit_for(r, &op);
}

/* scatter(dst, idx, values): dst[idx[j]] = values[j] for j in order (NumPy's last-wins), dst a
 * writable view of n rows, idx a 1-D int64 ndarray of m indices in [-n, n) (the caller checked),
 * values an ndarray (m,) + dst.shape[1:] of dst's dtype.  idx and values must not share dst's
 * store (the caller hands fresh copies: the executor would evaluate an overlapping op into a
 * temporary that lacks the rows not written).  Returns None. */
PyObject *cpn_mod_scatter(PyObject *m, PyObject *args)
{
    PyObject *dst, *idx, *val;
    const char *opname = NULL;   /* ufunc.at: the op applied at the indices, in order */
    if (!PyArg_ParseTuple(args, "OOO|s", &dst, &idx, &val, &opname) || cpn_check_array(dst) < 0 ||
        cpn_check_array(idx) < 0 || cpn_check_array(val) < 0)
        return NULL;
    struct cpn_view *dv = cpn_array_view(dst), *iv = cpn_array_view(idx), *vv = cpn_array_view(val);
    int ok = dv->ndim >= 1 && iv->ndim == 1 && iv->dtype == CPN_DTYPE_INT64 && vv->ndim == dv->ndim &&
             vv->dtype == dv->dtype && vv->shape[0] == iv->shape[0];
    for (int d = 1; ok && d < dv->ndim; d++) ok = vv->shape[d] == dv->shape[d];
    if (!ok) {
        PyErr_SetString(PyExc_ValueError, "internal: scatter operand shape/dtype mismatch");
        return NULL;
    }
    if (dv->readonly) {
        PyErr_SetString(PyExc_ValueError, "assignment destination is read-only");
        return NULL;
    }
    struct cpn_op op = {.kind = CPN_OPK_SCATTER, .nin = 2, .nout = 1};
    op.dtype = dv->dtype;
    if (opname) {
        int code = cpn_op_lookup(opname);
        if (code < 0 || cpn_op_info(code)->nout != 1 || !cpn_op_has_loop(code, dv->dtype) ||
            cpn_op_out_dtype(code, 0, dv->dtype) != dv->dtype ||
            (cpn_op_info(code)->nin == 2 && cpn_op_in_dtype(code, 1, dv->dtype) != dv->dtype))
            return PyErr_Format(PyExc_TypeError, "no native %s.at on %s", opname,
                                cpn_dtype_name(dv->dtype));
        op.code = code;
        op.iparam[0] = cpn_op_info(code)->nin;
    }
    /* values tiled on a grid that cuts their rows: copied into rank slabs of whole rows first
     * (bytes in proportion to the values), so that the scatter sends rows to their owners
     * instead of gathering the destination */
    PyObject *slab = NULL;
    const struct cpn_store *vr = cpn_store_root(vv->store);
    bool cut = false;
    for (int d = 1; vr->tiled && d < vr->ndim; d++) cut |= vr->grid[d] > 1;
    if (cut && vv->ndim > 1) {
        struct cpn_store *s = cpn_store_new_slabs(vv->dtype, vv->ndim, vv->shape, 0);
        slab = s ? cpn_array_from_store(s) : PyErr_NoMemory();
        if (!slab || cpn_assign(cpn_array_view(slab), val) < 0) {
            Py_XDECREF(slab);
            return NULL;
        }
        vv = cpn_array_view(slab);
    }
    op.in[0] = vv;
    op.in[1] = iv;
    op.out[0] = dv;
    int rc = cpn_submit(&op);
    Py_XDECREF(slab);                /* the queued op holds its own reference to the view */
    if (rc < 0) return NULL;
    Py_RETURN_NONE;
}

/* _core.rmw_probe(n, m, threads, repeat): cpn_hostexec_rmw_probe's wall times, a list of floats
 * (benchmarks/indexing.py's roofline).  Local. */
PyObject *cpn_mod_rmw_probe(PyObject *m, PyObject *args)
{
    (void)m;
    long long n, k;
    int threads, repeat;
    if (!PyArg_ParseTuple(args, "LLii", &n, &k, &threads, &repeat)) return NULL;
    if (repeat < 1 || repeat > 1000) {
        PyErr_SetString(PyExc_ValueError, "rmw_probe: repeat must be 1-1000");
        return NULL;
    }
    double secs[1000];
    enum cpn_status st = cpn_hostexec_rmw_probe(n, k, threads, repeat, secs);
    if (st != CPN_OK) return cpn_raise(st);
    PyObject *r = PyList_New(repeat);
    for (int i = 0; r && i < repeat; i++) {
        PyObject *f = PyFloat_FromDouble(secs[i]);
        if (!f) {
            Py_CLEAR(r);
            break;
        }
        PyList_SET_ITEM(r, i, f);
    }
    return r;
}
