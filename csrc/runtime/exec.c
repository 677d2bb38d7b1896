/* exec.c: the local executor, the one dispatcher of single ops (exec.h).
 *
 * An op is bound once -- every operand view resolved to {address, shape, byte strides}, inline
 * scalars to their bytes broadcast -- and handed to the backend holding its data: the active
 * device backend computes what it supports on its device buffers; everything else runs on the CPU
 * backend, on host buffers (the data move there).  An op whose output overlaps an input through a
 * different view is evaluated into a temporary and copied.  Below queue.c, fusion.c and dist.c,
 * which all call down into it. */
#include "exec.h"

#include <string.h>

#include "backend.h"
#include "kernels.h"
#include "stats.h"
#include "store.h"

static enum cpn_dtype view_dtype(const struct cpn_view *v) { return v->dtype; }

/* Bind operand v of op in the host (device false) or device memory: its origin, shape and byte
 * strides.  Outputs are bound for writing (out[0] uninitialised where the op overwrites it, as
 * cpn_op_output_buffer).  NULL out of memory. */
static char *bind_view(const struct cpn_op *op, const struct cpn_view *v, int out, bool device,
                       struct cpn_bound_arg *a)
{
    char *base;
    if (device)
        base = cpn_store_device_data(v->store, out >= 0, out >= 0 && cpn_op_overwrites_out(op, out));
    else
        base = out == 0 ? cpn_op_output_buffer(op) : cpn_store_data(v->store);
    if (!base) return NULL;
    int64_t off;
    cpn_view_byte_layout(v, a->st, &off);
    a->ndim = v->ndim;
    a->shape = v->shape;
    a->ptr = base + off;
    return a->ptr;
}

/* Bind every operand of op once (inputs first, so an output sharing their store sees them
 * current): views to {address, shape, byte strides}, inline scalars to their bytes broadcast
 * over the output's shape. */
static enum cpn_status bind_op(const struct cpn_op *op, bool device, struct cpn_bound_op *b)
{
    const struct cpn_view *out = op->out[0];
    b->op = op;
    for (int i = 0; i < op->nin; i++) {
        struct cpn_bound_arg *a = &b->in[i];
        if (op->in[i]) {
            if (!bind_view(op, op->in[i], -1, device, a)) return CPN_ERR_NOMEM;
        } else {
            a->ptr = (char *)op->scalar[i].bytes;
            a->ndim = out->ndim;
            a->shape = out->shape;
            memset(a->st, 0, sizeof a->st);
        }
    }
    for (int k = 0; k < op->nout; k++)
        if (!bind_view(op, op->out[k], k, device, &b->out[k])) return CPN_ERR_NOMEM;
    return CPN_OK;
}

void cpn_bind_region(const struct cpn_op *op, char *const *ptr, int ndim, const int64_t *ext,
                     const int64_t *const *strides, struct cpn_bound_op *b)
{
    b->op = op;
    for (int k = 0; k <= op->nin; k++) {
        const bool scalar = k < op->nin && !op->in[k];
        struct cpn_bound_arg *a = k < op->nin ? &b->in[k] : &b->out[0];
        a->ptr = scalar ? (char *)op->scalar[k].bytes : ptr[k];
        a->ndim = ndim;
        a->shape = ext;
        for (int d = 0; d < ndim; d++) a->st[d] = scalar ? 0 : strides[k][d];
    }
}

/* The one dispatcher: the active device backend computes what it supports on its buffers;
 * everything else runs on the CPU backend, on host buffers (the data move there). */
static enum cpn_status exec_direct(const struct cpn_op *op, struct cpn_fpreport *fp)
{
    const struct cpn_backend_i *be = cpn_backend_active();
    struct cpn_bound_op b;
    if (be->device && be->supports(op)) {
        CPN_TRY(bind_op(op, true, &b));
        enum cpn_status st = be->compute(&b, fp);
        if (st != CPN_ERR_UNSUPPORTED) return st;
    }
    CPN_TRY(bind_op(op, false, &b));
    return cpn_cpu_backend()->compute(&b, fp);
}

/* Must the op be evaluated into a temporary?  Element-wise ops may write the very view they read
 * (each element is read before it is written); any other overlap needs the temporary.  Only
 * out[0] is checked: ops with a second output (divmod, modf, frexp) are built with fresh outputs
 * (csrc/module/ufunc.c). */
static bool needs_temporary(const struct cpn_op *op)
{
    const struct cpn_view *out = op->out[0];
    for (int i = 0; i < op->nin; i++) {
        const struct cpn_view *in = op->in[i];
        if (!in || !cpn_view_may_overlap(in, out)) continue;
        bool pointwise = op->kind == CPN_OPK_ELEMENTWISE || op->kind == CPN_OPK_CAST;
        if (pointwise && cpn_view_same(in, out)) continue;
        return true;
    }
    return false;
}

enum cpn_status cpn_op_execute_local(const struct cpn_op *op, struct cpn_fpreport *fp)
{
    if (op->nout == 0 || cpn_view_size(op->out[0]) == 0) return CPN_OK;
    if (!needs_temporary(op)) return exec_direct(op, fp);

    struct cpn_view *out = op->out[0];
    /* Local execution reads and writes whole stores: the temporary is whole on every rank too
     * (a default store is tiled under MPI, and the loop would write past its tile). */
    struct cpn_store *ts = cpn_store_new_replicated(view_dtype(out), out->ndim, out->shape);
    if (!ts) return CPN_ERR_NOMEM;
    struct cpn_view *tv = cpn_view_new(ts);
    cpn_store_release(ts);
    if (!tv) return CPN_ERR_NOMEM;
    struct cpn_op tmp = *op;
    tmp.out[0] = tv;
    enum cpn_status st = exec_direct(&tmp, fp);
    if (st == CPN_OK) {   /* a plain copy: unwatched, it finds nothing */
        struct cpn_op copy = {.kind = CPN_OPK_CAST, .nin = 1, .nout = 1};
        copy.in[0] = tv;
        copy.out[0] = out;
        struct cpn_fpreport none = {0};
        st = exec_direct(&copy, &none);
    }
    cpn_stats.temporaries++;
    cpn_view_release(tv);
    return st;
}

