/* queue.c: the deferred op queue and the executor behind it.
 *
 * Ops are executed in submission order.  Each op's references are dropped as soon as it has run,
 * so a temporary's buffer is freed once its last consumer has executed (peak memory like
 * NumPy's eager evaluation, not the sum of every temporary of the flush). */
#include "queue.h"

#include <string.h>

#include "alloc.h"
#include "backend.h"
#include "comm.h"
#include "dist.h"
#include "fperr.h"
#include "fused.h"
#include "fusion.h"
#include "kernels.h"
#include "partition.h"

#define QUEUE_BOUND 512

static struct cpn_op *ops;
static int n_ops, cap_ops;
static struct cpn_queue_stats stats;

static void op_retain(const struct cpn_op *op)
{
    for (int i = 0; i < op->nin; i++) if (op->in[i]) cpn_view_retain(op->in[i]);
    for (int i = 0; i < op->nout; i++) if (op->out[i]) cpn_view_retain(op->out[i]);
}

static void op_release(struct cpn_op *op)
{
    for (int i = 0; i < op->nin; i++) cpn_view_release(op->in[i]);
    for (int i = 0; i < op->nout; i++) cpn_view_release(op->out[i]);
    memset(op, 0, sizeof *op);
}

/* Origin pointer and byte strides of argument `v`, or of an inline scalar broadcast to ndim. */
static enum cpn_status arg_layout(const struct cpn_view *v, const union cpn_scalar *sc, int ndim,
                                  char **ptr, int64_t *strides)
{
    if (!v) {
        *ptr = (char *)sc->bytes;
        for (int d = 0; d < ndim; d++) strides[d] = 0;
        return CPN_OK;
    }
    int64_t off;
    CPN_ASSERT(v->ndim == ndim);
    char *base = cpn_store_data(v->store);
    if (!base) return CPN_ERR_NOMEM;
    cpn_view_byte_layout(v, strides, &off);
    *ptr = base + off;
    return CPN_OK;
}

static enum cpn_dtype view_dtype(const struct cpn_view *v) { return v->dtype; }

bool cpn_op_overwrites(const struct cpn_op *op) { return cpn_op_overwrites_out(op, 0); }

bool cpn_op_overwrites_out(const struct cpn_op *op, int k)
{
    const struct cpn_view *out = op->out[k];
    bool overwrite = cpn_view_covers_store(out);
    for (int i = 0; i < op->nin; i++)
        if (op->in[i] && cpn_store_root(op->in[i]->store) == cpn_store_root(out->store)) overwrite = false;
    for (int j = 0; j < k; j++)   /* written first by an earlier output */
        if (cpn_store_root(op->out[j]->store) == cpn_store_root(out->store)) overwrite = false;
    return overwrite;
}

char *cpn_op_output_buffer(const struct cpn_op *op)
{
    const struct cpn_view *out = op->out[0];
    return cpn_op_overwrites(op) ? cpn_store_data_for_overwrite(out->store) : cpn_store_data(out->store);
}

cpn_loop_fn cpn_op_loop(const struct cpn_op *op)
{
    if (op->kind == CPN_OPK_CAST) {
        enum cpn_dtype from = op->in[0] ? op->in[0]->dtype : op->dtype;
        return cpn_kernel_cast(from, op->out[0]->dtype);
    }
    cpn_loop_fn fn = cpn_kernel_elementwise(op->code, op->dtype);
    if (!fn)
        cpn_error(CPN_ERR_TYPE, "ufunc '%s' has no loop for dtype %s", cpn_op_info(op->code)->name,
                  cpn_dtype_name(op->dtype));
    return fn;
}

enum cpn_status cpn_op_loop_error(const struct cpn_op *op)
{
    if (op->kind == CPN_OPK_ELEMENTWISE && op->code == CPN_OP_POWER)
        return cpn_error(CPN_ERR_VALUE, "Integers to negative integer powers are not allowed.");
    return cpn_error(CPN_ERR_VALUE, "invalid value in %s", cpn_op_describe(op));
}

static enum cpn_status exec_loop(const struct cpn_op *op)
{
    cpn_loop_fn fn = cpn_op_loop(op);
    if (!fn) return CPN_ERR_TYPE;
    const struct cpn_view *out = op->out[0];
    int64_t strides[CPN_MAXARGS][CPN_MAXDIM];
    char *ptr[CPN_MAXARGS];
    for (int i = 0; i < op->nin; i++)
        CPN_TRY(arg_layout(op->in[i], &op->scalar[i], out->ndim, &ptr[i], strides[i]));
    for (int k = 0; k < op->nout; k++)
        CPN_TRY(arg_layout(op->out[k], NULL, out->ndim, &ptr[op->nin + k], strides[op->nin + k]));
    struct cpn_kctx ctx = {0};
    cpn_iterate(fn, op->nin + op->nout, ptr, out->ndim, out->shape, strides, &ctx);
    return ctx.err ? cpn_op_loop_error(op) : CPN_OK;
}

static enum cpn_status exec_direct(const struct cpn_op *op)
{
    struct cpn_view *out = op->out[0];
    if (cpn_backend_on_device()) {   /* the device runs what it supports, on device buffers */
        enum cpn_status st = cpn_backend_active()->execute_op(op);
        if (st != CPN_ERR_UNSUPPORTED) return st;
    }
    if (!cpn_op_output_buffer(op)) return CPN_ERR_NOMEM;
    switch (op->kind) {
    case CPN_OPK_ELEMENTWISE:
    case CPN_OPK_CAST:
        return exec_loop(op);
    case CPN_OPK_ARANGE: {
        char *o = cpn_view_origin(out);
        if (!o) return CPN_ERR_NOMEM;
        CPN_ASSERT(cpn_view_is_contiguous(out));
        cpn_kernel_arange(view_dtype(out), o, 0, cpn_view_size(out), op->dparam[0], op->dparam[1],
                          op->iparam[0], op->iparam[1]);
        return CPN_OK;
    }
    case CPN_OPK_RANDOM: {
        char *o = cpn_view_origin(out);
        if (!o) return CPN_ERR_NOMEM;
        CPN_ASSERT(cpn_view_is_contiguous(out) && view_dtype(out) == CPN_DTYPE_FLOAT64);
        cpn_kernel_random((enum cpn_random_dist)op->code, (uint64_t)op->iparam[0],
                          (uint64_t)op->iparam[1], (double *)o, 0, cpn_view_size(out),
                          op->dparam[0], op->dparam[1]);
        return CPN_OK;
    }
    case CPN_OPK_REDUCE: {
        const struct cpn_view *in = op->in[0];
        int64_t ist[CPN_MAXDIM], ost[CPN_MAXDIM], ioff, ooff;
        char *ib = cpn_store_data(in->store), *ob = cpn_store_data(out->store);
        if (!ib || !ob) return CPN_ERR_NOMEM;
        cpn_view_byte_layout(in, ist, &ioff);
        cpn_view_byte_layout(out, ost, &ooff);
        return cpn_kernel_reduce(op->code, view_dtype(in), view_dtype(out), ib + ioff, in->ndim,
                                 in->shape, ist, op->axes, ob + ooff, ost,
                                 op->iparam[0] ? op->scalar[1].bytes : NULL);
    }
    case CPN_OPK_ARGREDUCE:
    case CPN_OPK_SCAN: {
        const struct cpn_view *in = op->in[0];
        int64_t ist[CPN_MAXDIM], ost[CPN_MAXDIM], ioff, ooff;
        char *ib = cpn_store_data(in->store), *ob = cpn_store_data(out->store);
        if (!ib || !ob) return CPN_ERR_NOMEM;
        cpn_view_byte_layout(in, ist, &ioff);
        cpn_view_byte_layout(out, ost, &ooff);
        if (op->kind == CPN_OPK_SCAN)
            return cpn_kernel_scan(op->code, view_dtype(out), ib + ioff, ist, ob + ooff, ost,
                                   out->ndim, out->shape, (int)op->iparam[0]);
        return cpn_kernel_argreduce(op->code, view_dtype(in), ib + ioff, in->ndim, in->shape, ist,
                                    op->axes, ob + ooff, ost);
    }
    case CPN_OPK_QUANTILE: {
        const struct cpn_view *in = op->in[0];
        int64_t ist[CPN_MAXDIM], ioff;
        char *ib = cpn_store_data(in->store), *ob = cpn_view_origin(out);
        if (!ib || !ob) return CPN_ERR_NOMEM;
        CPN_ASSERT(cpn_view_is_contiguous(out));
        cpn_view_byte_layout(in, ist, &ioff);
        struct cpn_quantile_args qa = {
            .method = (enum cpn_quantile_method)op->iparam[0],
            .skip_nan = (op->iparam[1] & CPN_QF_SKIP_NAN) != 0,
            .take = (op->iparam[1] & CPN_QF_TAKE) != 0,
            .weak = (op->iparam[1] & CPN_QF_WEAK) != 0,
            .ma_mean = (op->iparam[1] & CPN_QF_MA_MEAN) != 0,
            .gdt = (enum cpn_dtype)op->iparam[2],
            .cdt = (enum cpn_dtype)op->iparam[3],
            .odt = view_dtype(out),
            .nq = 1,
        };
        if (op->nin > 1 && op->in[1]) {
            const struct cpn_view *q = op->in[1];
            CPN_ASSERT(cpn_view_is_contiguous(q) && view_dtype(q) == CPN_DTYPE_FLOAT64);
            qa.q = (const double *)cpn_view_origin(q);
            if (!qa.q) return CPN_ERR_NOMEM;
            qa.nq = cpn_view_size(q);
        }
        return cpn_kernel_quantile(&qa, view_dtype(in), ib + ioff, in->ndim, in->shape, ist,
                                   op->axes, ob);
    }
    case CPN_OPK_MATMUL: {
        const struct cpn_view *a = op->in[0], *b = op->in[1];
        int64_t as[CPN_MAXDIM], bs[CPN_MAXDIM], cs[CPN_MAXDIM], ao, bo, co;
        char *ab = cpn_store_data(a->store), *bb = cpn_store_data(b->store),
             *cb = cpn_store_data(out->store);
        if (!ab || !bb || !cb) return CPN_ERR_NOMEM;
        cpn_view_byte_layout(a, as, &ao);
        cpn_view_byte_layout(b, bs, &bo);
        cpn_view_byte_layout(out, cs, &co);
        int nb = out->ndim - 2;
        return cpn_kernel_matmul(op->dtype, nb, out->shape, ab + ao, as, bb + bo, bs, cb + co, cs,
                                 a->shape[nb], a->shape[nb + 1], b->shape[nb + 1]);
    }
    case CPN_OPK_BINCOUNT: {
        const struct cpn_view *in = op->in[0], *w = op->nin > 1 ? op->in[1] : NULL;
        int64_t ist[CPN_MAXDIM], wst[CPN_MAXDIM] = {0}, ost[CPN_MAXDIM], ioff, woff = 0, ooff;
        char *ib = cpn_store_data(in->store), *ob = cpn_store_data(out->store);
        char *wb = w ? cpn_store_data(w->store) : NULL;
        if (!ib || !ob || (w && !wb)) return CPN_ERR_NOMEM;
        cpn_view_byte_layout(in, ist, &ioff);
        cpn_view_byte_layout(out, ost, &ooff);
        if (w) cpn_view_byte_layout(w, wst, &woff);
        return cpn_kernel_bincount(ib + ioff, ist[0], w ? wb + woff : NULL, wst[0], in->shape[0],
                                   ob + ooff, ost[0], out->shape[0]);
    }
    default:
        return cpn_error(CPN_ERR_INTERNAL, "unknown op kind %d", op->kind);
    }
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

enum cpn_status cpn_op_execute(const struct cpn_op *op)
{
    if (op->nout == 0 || cpn_view_size(op->out[0]) == 0) return CPN_OK;
    if (cpn_partition_ranks() > 1 && !cpn_dist_op_is_local(op)) return cpn_dist_execute(op);
    return cpn_op_execute_local(op);
}

enum cpn_status cpn_op_execute_local(const struct cpn_op *op)
{
    if (op->nout == 0 || cpn_view_size(op->out[0]) == 0) return CPN_OK;
    if (!needs_temporary(op)) return exec_direct(op);

    struct cpn_view *out = op->out[0];
    struct cpn_store *ts = cpn_store_new(view_dtype(out), out->ndim, out->shape);
    if (!ts) return CPN_ERR_NOMEM;
    struct cpn_view *tv = cpn_view_new(ts);
    cpn_store_release(ts);
    if (!tv) return CPN_ERR_NOMEM;
    struct cpn_op tmp = *op;
    tmp.out[0] = tv;
    enum cpn_status st = exec_direct(&tmp);
    if (st == CPN_OK) {
        struct cpn_op copy = {.kind = CPN_OPK_CAST, .nin = 1, .nout = 1};
        copy.in[0] = tv;
        copy.out[0] = out;
        st = exec_direct(&copy);
    }
    stats.temporaries++;
    cpn_view_release(tv);
    return st;
}

enum cpn_status cpn_queue_submit(const struct cpn_op *op)
{
    if (n_ops == cap_ops) {
        int ncap = cap_ops ? 2 * cap_ops : 64;
        struct cpn_op *nops = cpn_alloc((size_t)ncap * sizeof *nops);
        if (!nops) return CPN_ERR_NOMEM;
        if (n_ops) memcpy(nops, ops, (size_t)n_ops * sizeof *ops);
        cpn_free(ops);
        ops = nops;
        cap_ops = ncap;
    }
    ops[n_ops] = *op;
    op_retain(&ops[n_ops]);
    n_ops++;
    if (n_ops >= QUEUE_BOUND) return cpn_queue_flush();
    return CPN_OK;
}

/* The first poisoned store an op reads, or NULL. */
static const struct cpn_store *poisoned_input(const struct cpn_op *op)
{
    for (int i = 0; i < op->nin; i++)
        if (op->in[i] && cpn_store_root(op->in[i]->store)->poison) return cpn_store_root(op->in[i]->store);
    return NULL;
}

/* Can `op` fail because of the values it reads (so on some ranks and not others)?  Integer
 * power with a negative exponent is the one such op today. */
static bool may_fail_on_data(const struct cpn_op *op)
{
    return op->kind == CPN_OPK_ELEMENTWISE && op->code == CPN_OP_POWER &&
           cpn_dtype_class(op->dtype) == CPN_CLASS_INT;
}

/* Several ranks: a data-dependent failure on one rank is a failure on all, with the message of
 * the lowest failing rank, so that every rank poisons the same results and raises at the same
 * read.  Collective. */
static enum cpn_status agree(enum cpn_status st)
{
    int64_t winner = st != CPN_OK ? cpn_partition_rank() : INT64_MAX;
    char msg[512];
    snprintf(msg, sizeof msg, "%s", st != CPN_OK ? cpn_error_message() : "");
    CPN_TRY(cpn_comm_allreduce_min(&winner));
    if (winner == INT64_MAX) return CPN_OK;
    int64_t code = st;
    CPN_TRY(cpn_comm_bcast(&code, sizeof code, (int)winner));
    CPN_TRY(cpn_comm_bcast(msg, sizeof msg, (int)winner));
    msg[sizeof msg - 1] = '\0';
    return cpn_error((enum cpn_status)code, "%s", msg);
}

/* Record op's outcome: poison what a failure left without values, heal what it rewrote. */
static void settle(struct cpn_op *op, enum cpn_status st, const bool *had)
{
    for (int k = 0; k < op->nout; k++) {
        struct cpn_store *r = cpn_store_root(op->out[k]->store);
        if (st != CPN_OK) {
            if (!had[k]) cpn_store_poison(r, st, cpn_error_message());
        } else if (r->poison && cpn_view_covers_store(op->out[k])) {
            cpn_store_poison(r, CPN_OK, NULL);   /* fully rewritten: healthy again */
        }
    }
}

/* A failure message naming the op, once. */
static void name_failure(const struct cpn_op *op, enum cpn_status st)
{
    /* FloatingPointError carries NumPy's own text, unprefixed. */
    if (st != CPN_OK && st != CPN_ERR_FLOAT && !strstr(cpn_error_message(), "deferred operation")) {
        char msg[512];
        snprintf(msg, sizeof msg, "%s", cpn_error_message());
        cpn_error(st, "cupynum: deferred operation '%s' failed: %s", cpn_op_describe(op), msg);
    }
}

enum cpn_status cpn_queue_flush(void)
{
    const bool dist = cpn_partition_ranks() > 1;
    enum cpn_status first = CPN_OK;
    char first_msg[512] = "";
    if (n_ops == 0) return CPN_OK;
    stats.flushes++;
    const bool fuse = cpn_fusion_enabled();
    if (fuse) cpn_fusion_prepare(ops, n_ops);
    for (int i = 0; i < n_ops; i++) {
        struct cpn_op *op = &ops[i];
        /* An output that held values before keeps them when the op fails (NumPy's in-place
         * semantics: `a **= b` that raises leaves `a` readable); a fresh one is poisoned. */
        bool had[CPN_OP_MAXOUT];
        for (int k = 0; k < op->nout; k++) had[k] = cpn_store_allocated(op->out[k]->store);
        enum cpn_status st;
        int used = 0;
        if (fuse && !poisoned_input(op)) {
            /* A fused run (or a dropped op): settle each of its ops alike. */
            bool hads[CPN_FUSED_MAXINSTR + 1][CPN_OP_MAXOUT];
            for (int j = i; j < n_ops && j <= i + CPN_FUSED_MAXINSTR; j++)
                for (int k = 0; k < ops[j].nout; k++)
                    hads[j - i][k] = cpn_store_allocated(ops[j].out[k]->store);
            used = cpn_fusion_execute(ops, n_ops, i, &st);
            if (used > 0 && st != CPN_OK && first == CPN_OK) {
                first = st;
                snprintf(first_msg, sizeof first_msg, "%s", cpn_error_message());
            }
            for (int j = i; j < i + used; j++) {
                enum cpn_status sj = st;
                /* What each op's loops found inside the run, reported as if it ran alone. */
                if (sj == CPN_OK && first == CPN_OK && cpn_fperr_watches(&ops[j])) {
                    unsigned hw, sw;
                    cpn_fusion_op_fpe(j - i, &hw, &sw);
                    cpn_fperr_begin_op();
                    cpn_kernel_fpe_put(hw, sw);
                    sj = cpn_fperr_end_op(&ops[j], dist);
                    if (sj != CPN_OK) {
                        first = sj;
                        snprintf(first_msg, sizeof first_msg, "%s", cpn_error_message());
                    }
                }
                name_failure(&ops[j], sj);
                settle(&ops[j], sj, hads[j - i]);
                if (sj == CPN_OK) stats.ops_executed++;
            }
            if (used > 0) {
                for (int j = i; j < i + used; j++) op_release(&ops[j]);
                i += used - 1;
                continue;
            }
        }
        const struct cpn_store *bad = poisoned_input(op);
        if (bad) {
            /* Depends on a failed result: fail the same way, without computing garbage.  Poison
             * is the same on every rank, so ranks skip together. */
            st = bad->poison;
            cpn_error(st, "%s", bad->poison_msg);
        } else {
            bool watched = cpn_fperr_watches(op);
            if (watched) cpn_fperr_begin_op();
            st = cpn_op_execute(op);
            if (dist && may_fail_on_data(op)) st = agree(st);
            /* After a failure ops report nothing, so the collective in end_op is skipped by every
             * rank alike (failures are agreed). */
            if (watched && st == CPN_OK && first == CPN_OK) st = cpn_fperr_end_op(op, dist);
            name_failure(op, st);
        }
        settle(op, st, had);
        if (st != CPN_OK && first == CPN_OK) {
            first = st;
            snprintf(first_msg, sizeof first_msg, "%s", cpn_error_message());
        }
        if (st == CPN_OK) stats.ops_executed++;
        op_release(op);   /* now: a temporary dies as soon as its last reader has run */
    }
    n_ops = 0;
    enum cpn_status fst = cpn_fperr_end_flush(dist);
    if (first == CPN_OK) return fst;
    cpn_error(first, "%s", first_msg);
    return first;
}

int cpn_queue_length(void) { return n_ops; }

void cpn_queue_stats(struct cpn_queue_stats *out) { *out = stats; }
void cpn_queue_reset_stats(void) { memset(&stats, 0, sizeof stats); }
