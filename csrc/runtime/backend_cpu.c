/* backend_cpu.c: the CPU backend, a backend like the others (backend.h): it supports every op and
 * computes bound ops with the CPU kernels (kernels.h) on host buffers.  The dispatcher (exec.c)
 * hands it every op a device backend does not take; the simulated device (backend_sim.c) runs
 * the same compute on its own memory. */
#include "backend.h"

#include <stdlib.h>
#include <string.h>

#include "kernels.h"
#include "opsem.h"
#include "view.h"

static int cpu_device_count(const char **why) { (void)why; return 1; }
static enum cpn_status cpu_init(int index) { (void)index; return CPN_OK; }
static const char *cpu_describe(void) { return "cpu"; }
static void *cpu_raw_alloc(size_t n) { return malloc(n ? n : 1); }
static void cpu_raw_free(void *p) { free(p); }
static enum cpn_status cpu_copy(void *dst, const void *src, size_t n)
{
    if (n) memcpy(dst, src, n);
    return CPN_OK;
}
static enum cpn_status cpu_fill_zero(void *dst, size_t n)
{
    if (n) memset(dst, 0, n);
    return CPN_OK;
}
static bool cpu_supports(const struct cpn_op *op) { (void)op; return true; }
/* Fused programs run on the CPU through cpn_kernel_fused directly (fusion.c). */
static bool cpu_supports_fused(const struct cpn_fused_prog *p) { (void)p; return false; }
static enum cpn_status cpu_execute_fused(struct cpn_fused_prog *p) { (void)p; return CPN_ERR_UNSUPPORTED; }
static enum cpn_status cpu_sync(void) { return CPN_OK; }

/* Element-wise ops and casts: the op's loop over the output's shape, every operand's strides. */
static enum cpn_status compute_loop(const struct cpn_bound_op *b, struct cpn_fpreport *fp)
{
    const struct cpn_op *op = b->op;
    cpn_loop_fn fn = cpn_op_loop(op);
    if (!fn) return CPN_ERR_TYPE;
    int64_t strides[CPN_MAXARGS][CPN_MAXDIM];
    char *ptr[CPN_MAXARGS];
    const int nd = b->out[0].ndim;
    for (int i = 0; i < op->nin; i++) {
        ptr[i] = b->in[i].ptr;
        memcpy(strides[i], b->in[i].st, (size_t)nd * sizeof *strides[i]);
    }
    for (int k = 0; k < op->nout; k++) {
        ptr[op->nin + k] = b->out[k].ptr;
        memcpy(strides[op->nin + k], b->out[k].st, (size_t)nd * sizeof *strides[0]);
    }
    struct cpn_kctx ctx = {0};
    /* One output in a store no input reads: a large one is written with streaming stores. */
    bool own = op->nout == 1 && op->out[0];
    for (int i = 0; i < op->nin && own; i++)
        if (op->in[i] && op->in[i]->store == op->out[0]->store) own = false;
    if (own) {
        const size_t item = cpn_dtype_size(op->out[0]->dtype);
        int64_t bytes = (int64_t)item;
        for (int d = 0; d < nd; d++) bytes *= b->out[0].shape[d];
        cpn_iterate_out(fn, op->nin + 1, ptr, nd, b->out[0].shape, strides, item, bytes, &ctx);
    } else {
        cpn_iterate(fn, op->nin + op->nout, ptr, nd, b->out[0].shape, strides, &ctx);
    }
    cpn_fpreport_add(fp, ctx.hw, ctx.fpe);
    return ctx.err ? cpn_op_loop_error(op) : CPN_OK;
}

static enum cpn_status compute_quantile(const struct cpn_bound_op *b)
{
    const struct cpn_op *op = b->op;
    const struct cpn_bound_arg *in = &b->in[0];
    CPN_ASSERT(cpn_view_is_contiguous(op->out[0]));
    struct cpn_quantile_args qa = {
        .method = (enum cpn_quantile_method)op->iparam[0],
        .skip_nan = (op->iparam[1] & CPN_QF_SKIP_NAN) != 0,
        .take = (op->iparam[1] & CPN_QF_TAKE) != 0,
        .weak = (op->iparam[1] & CPN_QF_WEAK) != 0,
        .ma_mean = (op->iparam[1] & CPN_QF_MA_MEAN) != 0,
        .gdt = (enum cpn_dtype)op->iparam[2],
        .cdt = (enum cpn_dtype)op->iparam[3],
        .odt = op->out[0]->dtype,
        .nq = 1,
    };
    if (op->nin > 1 && op->in[1]) {
        CPN_ASSERT(cpn_view_is_contiguous(op->in[1]) && op->in[1]->dtype == CPN_DTYPE_FLOAT64);
        qa.q = (const double *)b->in[1].ptr;
        qa.nq = cpn_view_size(op->in[1]);
    }
    return cpn_kernel_quantile(&qa, op->in[0]->dtype, in->ptr, in->ndim, in->shape, in->st, op->axes,
                               b->out[0].ptr);
}

/* A draw with per-element parameters (cpn_kernel_random_p) into its contiguous output, a row
 * (the last dimension) at a time; a parameter without an operand is the op's dparam. */
static void random_p(const struct cpn_bound_op *b)
{
    const struct cpn_op *op = b->op;
    const struct cpn_view *ov = op->out[0];
    const int n = ov->ndim;
    const int64_t len = n ? ov->shape[n - 1] : 1, total = cpn_view_size(ov);
    if (total == 0) return;
    const char *base[2];
    const int64_t *st[2];
    static const int64_t zero[CPN_MAXDIM];
    for (int k = 0; k < 2; k++) {
        bool arr = k < op->nin && op->in[k] && b->in[k].ptr;
        base[k] = arr ? b->in[k].ptr : (const char *)&op->dparam[k];
        st[k] = arr ? b->in[k].st : zero;
    }
    for (int64_t first = 0; first < total; first += len) {
        int64_t q = first / len, off[2] = {0, 0};
        for (int d = n - 2; d >= 0; d--) {
            int64_t i = q % ov->shape[d];
            q /= ov->shape[d];
            off[0] += i * st[0][d];
            off[1] += i * st[1][d];
        }
        cpn_kernel_random_p((enum cpn_random_dist)op->code, (uint64_t)op->iparam[0], (uint64_t)op->iparam[1],
                            (double *)b->out[0].ptr + first, first, len,
                            (const double *)(base[0] + off[0]), n ? st[0][n - 1] / 8 : 0,
                            (const double *)(base[1] + off[1]), n ? st[1][n - 1] / 8 : 0);
    }
}

/* One case per op kind: the kernel that computes it. */
static enum cpn_status cpu_compute(const struct cpn_bound_op *b, struct cpn_fpreport *fp)
{
    const struct cpn_op *op = b->op;
    const struct cpn_bound_arg *in = &b->in[0], *out = &b->out[0];
    const struct cpn_view *ov = op->out[0];
    switch (op->kind) {
    case CPN_OPK_ELEMENTWISE:
    case CPN_OPK_CAST:
        return compute_loop(b, fp);
    case CPN_OPK_PERMUTE: {
        CPN_ASSERT(cpn_view_is_contiguous(ov) && cpn_view_is_contiguous(op->in[0]));
        const int64_t n = ov->ndim ? ov->shape[0] : 1;
        const size_t row = n ? (size_t)cpn_view_size(ov) / (size_t)n * cpn_dtype_size(ov->dtype) : 0;
        return cpn_kernel_permute((uint64_t)op->iparam[0], (uint64_t)op->iparam[1], in->ptr, out->ptr, n, row) < 0
                   ? CPN_ERR_NOMEM : CPN_OK;
    }
    case CPN_OPK_ARANGE:
        CPN_ASSERT(cpn_view_is_contiguous(ov));
        cpn_kernel_arange(ov->dtype, out->ptr, 0, cpn_view_size(ov), op->dparam[0], op->dparam[1],
                          op->iparam[0], op->iparam[1]);
        return CPN_OK;
    case CPN_OPK_RANDOM:
        CPN_ASSERT(cpn_view_is_contiguous(ov));
        if (op->nin) {
            random_p(b);
            return CPN_OK;
        }
        cpn_kernel_random_to((enum cpn_random_dist)op->code, ov->dtype, (uint64_t)op->iparam[0],
                             (uint64_t)op->iparam[1], out->ptr, 0, cpn_view_size(ov), op->dparam[0],
                             op->dparam[1], op->iparam[2]);
        return CPN_OK;
    case CPN_OPK_REDUCE:
        return cpn_kernel_reduce(op->code, op->in[0]->dtype, ov->dtype, in->ptr, in->ndim, in->shape,
                                 in->st, op->axes, out->ptr, out->st,
                                 op->iparam[0] ? op->scalar[1].bytes : NULL, fp);
    case CPN_OPK_SCAN:
        return cpn_kernel_scan(op->code, ov->dtype, in->ptr, in->st, out->ptr, out->st, out->ndim,
                               out->shape, (int)op->iparam[0], fp);
    case CPN_OPK_ARGREDUCE:
        return cpn_kernel_argreduce(op->code, op->in[0]->dtype, in->ptr, in->ndim, in->shape, in->st,
                                    op->axes, out->ptr, out->st);
    case CPN_OPK_QUANTILE:
        return compute_quantile(b);
    case CPN_OPK_MATMUL:
    {
        const int nb = out->ndim - 2;   /* batch dimensions (equal: broadcast views) */
        return cpn_kernel_matmul(op->dtype, nb, out->shape, b->in[0].ptr, b->in[0].st, b->in[1].ptr,
                                 b->in[1].st, out->ptr, out->st, b->in[0].shape[nb],
                                 b->in[0].shape[nb + 1], b->in[1].shape[nb + 1]);
    }
    case CPN_OPK_BINCOUNT: {
        const struct cpn_bound_arg *w = &b->in[1];
        const bool weights = op->nin > 1 && op->in[1];
        return cpn_kernel_bincount(in->ptr, in->st[0], weights ? w->ptr : NULL, weights ? w->st[0] : 0,
                                   in->shape[0], out->ptr, out->st[0], out->shape[0]);
    }
    case CPN_OPK_COMPACT:
        CPN_ASSERT(cpn_view_is_contiguous(ov));
        return cpn_kernel_compact(cpn_dtype_size(ov->dtype), in->ndim, in->shape, in->ptr, in->st,
                                  b->in[1].ptr, b->in[1].st, out->ptr, op->iparam[0]);
    case CPN_OPK_NONZERO:
        CPN_ASSERT(cpn_view_is_contiguous(ov) && ov->dtype == CPN_DTYPE_INT64);
        return cpn_kernel_nonzero(in->ndim, in->shape, in->ptr, in->st, (int64_t *)out->ptr,
                                  op->iparam[0]);
    case CPN_OPK_SORT:
        if (op->nin > 1 && op->in[1])
            return cpn_kernel_sort_through(op->in[0]->dtype, in->ptr, in->ndim, in->shape, in->st, b->in[1].ptr,
                                           b->in[1].st, (int)op->iparam[0], out->ptr, out->st);
        return cpn_kernel_sort(op->in[0]->dtype, (op->iparam[1] & CPN_SORT_ARG) != 0, in->ptr, in->ndim,
                               in->shape, in->st, (int)op->iparam[0], out->ptr, out->st, 0);
    case CPN_OPK_SEARCHSORTED: {
        const bool sorter = op->nin > 2 && op->in[2];
        return cpn_kernel_searchsorted(op->in[0]->dtype, in->ptr, in->st[0], sorter ? b->in[2].ptr : NULL,
                                       sorter ? b->in[2].st[0] : 0, in->shape[0], b->in[1].ptr,
                                       b->in[1].st[0], b->in[1].shape[0], out->ptr, out->st[0],
                                       op->iparam[0] != 0, op->iparam[1] != 0);
    }
    case CPN_OPK_UNIQUE: {
        const bool perm = op->nin > 1 && op->in[1];
        if (op->iparam[2])   /* in[0] sorted itself, in[1] its elements' positions */
            return cpn_kernel_unique_sorted(op->in[0]->dtype, (enum cpn_unique_mode)op->iparam[0], op->iparam[1] != 0,
                                            in->ptr, in->st[0], perm ? b->in[1].ptr : NULL, perm ? b->in[1].st[0] : 0,
                                            in->shape[0], out->ptr, out->ndim ? out->st[0] : 0);
        return cpn_kernel_unique(op->in[0]->dtype, (enum cpn_unique_mode)op->iparam[0], op->iparam[1] != 0,
                                 in->ptr, in->st[0], perm ? b->in[1].ptr : NULL, perm ? b->in[1].st[0] : 0,
                                 in->shape[0], out->ptr, out->ndim ? out->st[0] : 0);
    }
    case CPN_OPK_LAPACK: {
        const int nb = out->ndim - 1;
        const bool rhs = op->nin > 1 && op->in[1];
        struct cpn_lapack_args la = {
            .code = op->code, .dt = op->dtype, .nb = nb, .bshape = out->shape,
            .a = b->in[0].ptr, .as = b->in[0].st, .b = rhs ? b->in[1].ptr : NULL,
            .bs = rhs ? b->in[1].st : NULL, .m = b->in[0].shape[nb], .n = b->in[0].shape[nb + 1],
            .nrhs = rhs ? b->in[1].shape[nb + 1] : 0, .out = out->ptr, .os = out->st,
            .aux = (double *)b->out[1].ptr, .xs = b->out[1].st,
            .p = {op->iparam[0], op->iparam[1]}, .rcond = op->dparam[0],
        };
        CPN_ASSERT(out->st[nb] == (int64_t)cpn_dtype_size(ov->dtype) && b->out[1].st[nb] == 8);
        return cpn_kernel_lapack(&la);
    }
    case CPN_OPK_FFT:
        return cpn_kernel_fft((enum cpn_fft_kind)op->code, op->dtype, out->ndim, op->axes, in->shape,
                              in->ptr, in->st, out->shape, out->ptr, out->st, op->dparam[0]);
    case CPN_OPK_GATHER:
        CPN_ASSERT(cpn_view_is_contiguous(ov) && b->in[1].ndim == 1);
        return cpn_kernel_gather(cpn_dtype_size(ov->dtype), in->ndim, in->shape, in->ptr, in->st,
                                 b->in[1].ptr, b->in[1].st[0], b->in[1].shape[0], out->ptr);
    case CPN_OPK_SCATTER:
        CPN_ASSERT(b->in[1].ndim == 1 && in->ndim == out->ndim);
        if (op->iparam[0]) {   /* ufunc.at: the op applied in index order */
            cpn_loop_fn fn = cpn_kernel_elementwise_scalar(op->code, op->dtype);   /* one row at a time: the plain loop */
            if (!fn) return CPN_ERR_TYPE;
            struct cpn_kctx ctx = {0};
            enum cpn_status st = cpn_kernel_scatter_apply(
                cpn_kernel_at_loop(op->code, op->dtype), fn, (int)op->iparam[0], cpn_dtype_size(ov->dtype), out->ndim, out->shape, out->ptr, out->st, in->ptr, in->st,
                b->in[1].ptr, b->in[1].st[0], b->in[1].shape[0], &ctx);
            cpn_fpreport_add(fp, ctx.hw, ctx.fpe);
            return st == CPN_OK && ctx.err ? cpn_op_loop_error(op) : st;
        }
        return cpn_kernel_scatter(cpn_dtype_size(ov->dtype), out->ndim, out->shape, out->ptr, out->st,
                                  in->ptr, in->st, b->in[1].ptr, b->in[1].st[0], b->in[1].shape[0]);
    case CPN_OPK_HISTOGRAM: {
        const bool w = op->nin > 1 && op->in[1];
        struct cpn_hist_args h = {
            .dt = op->in[0]->dtype, .uniform = op->iparam[0] != 0, .x = in->ptr, .xs = in->st[0],
            .n = in->shape[0], .w = w ? b->in[1].ptr : NULL, .ws = w ? b->in[1].st[0] : 0,
            .edges = b->in[2].ptr, .es = b->in[2].st[0], .nbins = out->shape[0],
            .first = op->dparam[0], .last = op->dparam[1], .denom = op->dparam[2],
        };
        CPN_ASSERT(!h.uniform || h.es == 8);
        return cpn_kernel_histogram(&h, out->ptr, out->st[0]);
    }
    default:
        return cpn_error(CPN_ERR_INTERNAL, "unknown op kind %d", op->kind);
    }
}

static const struct cpn_backend_i cpu_backend = {
    .name = "cpu",
    .kind = CPN_BACKEND_CPU,
    .device = false,
    .device_count = cpu_device_count,
    .init = cpu_init,
    .describe = cpu_describe,
    .raw_alloc = cpu_raw_alloc,
    .raw_free = cpu_raw_free,
    .to_device = cpu_copy,
    .to_host = cpu_copy,
    .fill_zero = cpu_fill_zero,
    .supports = cpu_supports,
    .compute = cpu_compute,
    .supports_fused = cpu_supports_fused,
    .execute_fused = cpu_execute_fused,
    .sync = cpu_sync,
};

const struct cpn_backend_i *cpn_cpu_backend(void) { return &cpu_backend; }
