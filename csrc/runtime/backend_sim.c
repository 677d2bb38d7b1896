/* backend_sim.c: a simulated device backend, for testing the device paths without a GPU.
 *
 * CUPYNUM_DEVICE=sim selects it.  Its "device memory" is host memory distinct from the stores'
 * host buffers, and it executes on that memory exactly what the CUDA backend executes on the GPU
 * (element-wise ops and casts, integer power and the two-output ops included, random draws, arange fills, fused
 * programs, matmul of bool, integers, float32 and float64, the reductions, scans and
 * argmax/argmin devreduce.h plans), with the CPU kernels.  So the executor's device hooks, the
 * coherence of host and device copies (store.c), the device pool (alloc.c) and the host fallback
 * of unsupported ops are exercised by the whole test suite on any machine; only the kernels
 * differ on a real GPU (those are generated source, tested by compiling it: tests/c/test_codegen.c).
 *
 * Floating-point reports of element-wise ops, casts and fused programs travel as on the GPU: what
 * a watched op's CPU loops found (status flags and own findings, exactly NumPy's) is written
 * into a device report word (devfpe.h) and handed to fperr.c as a token, read after the flush
 * or, under 'raise', at once.  (The GPU kernels compute the same bits with fpclass.h instead of
 * status flags; tests/c/test_fpclass.c checks the two agree.) */
#include <stdlib.h>
#include <string.h>

#include "backend.h"
#include "comm.h"
#include "devfpe.h"
#include "devreduce.h"
#include "fperr.h"
#include "fused.h"
#include "kernels.h"
#include "queue.h"

static int sim_device_count(const char **why) { (void)why; return 1; }
static enum cpn_status sim_init(int index) { (void)index; return CPN_OK; }
static const char *sim_describe(void) { return "simulated device (host memory)"; }
static void *sim_raw_alloc(size_t n)
{
    /* Garbage, like fresh cudaMalloc memory: the coherence code must never rely on zeros. */
    unsigned char *p = malloc(n ? n : 1);
    if (p) memset(p, 0xA5, n);
    return p;
}
static void sim_raw_free(void *p) { free(p); }
static enum cpn_status sim_copy(void *dst, const void *src, size_t n)
{
    if (n) memcpy(dst, src, n);
    return CPN_OK;
}
static enum cpn_status sim_fill_zero(void *dst, size_t n)
{
    if (n) memset(dst, 0, n);
    return CPN_OK;
}
static enum cpn_status sim_sync(void) { return CPN_OK; }

static bool sim_supports_fused(const struct cpn_fused_prog *p) { (void)p; return true; }

/* Findings hw, sw ORed into device report word w. */
static void or_word(int w, unsigned hw, unsigned sw)
{
    *cpn_devfpe_word(w) |= (hw & CPN_DEVFPE_HW_MASK) | ((sw & CPN_DEVFPE_HW_MASK) << CPN_DEVFPE_SW_SHIFT);
}

/* Findings hw, sw into a device report word of its own; the token naming it. */
static enum cpn_status to_word(unsigned hw, unsigned sw, unsigned *token)
{
    int w;
    CPN_TRY(cpn_devfpe_take(1, &w));
    or_word(w, hw, sw);
    *token = cpn_devfpe_token(w);
    return CPN_OK;
}

/* A watched single op's findings (the CPU kernels' status) handed over through a device word,
 * as the CUDA backend's kernels hand theirs. */
static enum cpn_status findings_to_word(const struct cpn_op *op)
{
    if (!cpn_fperr_watches(op)) return CPN_OK;
    unsigned hw, sw, token;
    cpn_kernel_fpe_take(&hw, &sw);
    CPN_TRY(to_word(hw, sw, &token));
    cpn_kernel_fpe_put(0, token);
    return CPN_OK;
}

static enum cpn_status sim_execute_fused(struct cpn_fused_prog *p)
{
    struct cpn_kctx ctx = {0};
    enum cpn_status st = cpn_kernel_fused(p, &ctx);
    if (st == CPN_OK && ctx.err) st = cpn_error(CPN_ERR_VALUE, "invalid value in a fused run");
    /* Watched: each instruction's findings through the device words. */
    for (int k = 0; st == CPN_OK && p->fpe_hw && k < p->ninstr; k++) {
        unsigned token = 0;
        st = to_word(p->fpe_hw[k], p->fpe_sw[k], &token);
        p->fpe_hw[k] = 0;
        p->fpe_sw[k] = token;
    }
    return st;
}

static char *dev_origin(const struct cpn_view *v, bool write, bool overwrite, int64_t *strides)
{
    char *b = cpn_store_device_data(v->store, write, overwrite);
    if (!b) return NULL;
    int64_t off;
    cpn_view_byte_layout(v, strides, &off);
    return b + off;
}

static enum cpn_status sim_execute_op(const struct cpn_op *op)
{
    const struct cpn_view *out = op->out[0];
    int64_t strides[CPN_MAXARGS][CPN_MAXDIM];
    char *ptr[CPN_MAXARGS];
    switch (op->kind) {
    case CPN_OPK_ELEMENTWISE:   /* integer power too: a negative exponent fails like the host's */
    case CPN_OPK_CAST: {
        cpn_loop_fn fn = cpn_op_loop(op);
        if (!fn) {
            cpn_error_clear();
            return CPN_ERR_UNSUPPORTED;   /* the host path reports it */
        }
        for (int i = 0; i < op->nin; i++) {
            if (op->in[i]) {
                if (!(ptr[i] = dev_origin(op->in[i], false, false, strides[i]))) return CPN_ERR_NOMEM;
            } else {
                ptr[i] = (char *)op->scalar[i].bytes;
                for (int d = 0; d < out->ndim; d++) strides[i][d] = 0;
            }
        }
        /* every output (two-output ops: divmod, modf, frexp, as the CUDA backend's kernels) */
        for (int k = 0; k < op->nout; k++)
            if (!(ptr[op->nin + k] = dev_origin(op->out[k], true, cpn_op_overwrites_out(op, k), strides[op->nin + k])))
                return CPN_ERR_NOMEM;
        struct cpn_kctx ctx = {0};
        cpn_iterate(fn, op->nin + op->nout, ptr, out->ndim, out->shape, strides, &ctx);
        if (ctx.err) return cpn_op_loop_error(op);
        return findings_to_word(op);
    }
    case CPN_OPK_RANDOM:
    case CPN_OPK_ARANGE: {
        if (!cpn_view_is_contiguous(out)) return CPN_ERR_UNSUPPORTED;
        char *o = dev_origin(out, true, cpn_op_overwrites(op), strides[0]);
        if (!o) return CPN_ERR_NOMEM;
        if (op->kind == CPN_OPK_RANDOM)
            cpn_kernel_random((enum cpn_random_dist)op->code, (uint64_t)op->iparam[0], (uint64_t)op->iparam[1],
                              (double *)o, 0, cpn_view_size(out), op->dparam[0], op->dparam[1]);
        else
            cpn_kernel_arange(out->dtype, o, 0, cpn_view_size(out), op->dparam[0], op->dparam[1],
                              op->iparam[0], op->iparam[1]);
        return CPN_OK;
    }
    case CPN_OPK_MATMUL: {
        /* as the CUDA backend: float32/float64 (cuBLAS), bool and integers (its tiled kernel) */
        if (op->dtype == CPN_DTYPE_FLOAT16 || cpn_dtype_class(op->dtype) == CPN_CLASS_COMPLEX) return CPN_ERR_UNSUPPORTED;
        const struct cpn_view *a = op->in[0], *b = op->in[1];
        if (out->ndim != 2) return CPN_ERR_UNSUPPORTED;   /* batched: the host path */
        char *ap = dev_origin(a, false, false, strides[0]);
        char *bp = ap ? dev_origin(b, false, false, strides[1]) : NULL;
        char *cp = bp ? dev_origin(out, true, cpn_op_overwrites(op), strides[2]) : NULL;
        if (!cp) return CPN_ERR_NOMEM;
        return cpn_kernel_matmul(op->dtype, 0, NULL, ap, strides[0], bp, strides[1], cp, strides[2],
                                 a->shape[0], a->shape[1], b->shape[1]);
    }
    case CPN_OPK_REDUCE:
    case CPN_OPK_SCAN:
    case CPN_OPK_ARGREDUCE: {
        /* as CUB (cuda/reduce.cu): what devreduce.h plans, with the CPU kernels */
        if (!cpn_devred_plan(op, NULL)) return CPN_ERR_UNSUPPORTED;
        const struct cpn_view *in = op->in[0];
        char *ip = dev_origin(in, false, false, strides[0]);
        char *o = ip ? dev_origin(out, true, cpn_op_overwrites(op), strides[1]) : NULL;
        if (!o) return CPN_ERR_NOMEM;
        enum cpn_status st;
        if (op->kind == CPN_OPK_REDUCE)
            st = cpn_kernel_reduce(op->code, in->dtype, out->dtype, ip, in->ndim, in->shape, strides[0], op->axes,
                                   o, strides[1], op->iparam[0] ? op->scalar[1].bytes : NULL);
        else if (op->kind == CPN_OPK_SCAN)
            st = cpn_kernel_scan(op->code, out->dtype, ip, strides[0], o, strides[1], out->ndim, out->shape,
                                 (int)op->iparam[0]);
        else
            return cpn_kernel_argreduce(op->code, in->dtype, ip, in->ndim, in->shape, strides[0], op->axes, o,
                                    strides[1]);
        return st == CPN_OK ? findings_to_word(op) : st;   /* as reduce.cu's */
    }
    default:
        return CPN_ERR_UNSUPPORTED;
    }
}

/* ---- the distributed executor's device path: MPI on the simulated device buffers -------------- */

static enum cpn_status sim_copy_region(int n, const int64_t *ext, size_t item, void *dst,
                                       const int64_t *dst_st, const void *src, const int64_t *src_st)
{
    int64_t count = 1;
    for (int d = 0; d < n; d++) count *= ext[d] > 0 ? ext[d] : 0;
    for (int64_t i = 0; i < count; i++) {   /* element by element: the loops a kernel would run */
        int64_t q = i, doff = 0, soff = 0;
        for (int d = n - 1; d >= 0; d--) {
            int64_t k = q % ext[d];
            q /= ext[d];
            doff += k * dst_st[d];
            soff += k * src_st[d];
        }
        memcpy((char *)dst + doff * (int64_t)item, (const char *)src + soff * (int64_t)item, item);
    }
    return CPN_OK;
}

static bool sim_region_supported(const struct cpn_op *op)
{
    if (op->kind != CPN_OPK_ELEMENTWISE && op->kind != CPN_OPK_CAST) return false;
    if (op->kind == CPN_OPK_ELEMENTWISE && op->code == CPN_OP_POWER && cpn_dtype_class(op->dtype) != CPN_CLASS_FLOAT)
        return false;   /* as the CUDA region path (nccl.c): its failure is the host loop's */
    if (!cpn_op_loop(op)) {
        cpn_error_clear();
        return false;
    }
    return true;
}

static enum cpn_status sim_compute_region(const struct cpn_op *op, char *const *ptr, int ndim,
                                          const int64_t *ext, const int64_t *const *strides)
{
    cpn_loop_fn fn = cpn_op_loop(op);
    if (!fn) return CPN_ERR_TYPE;
    /* Watched: the findings through a device word, as nccl.c's: one word per op, the first
     * region's (its token already handed over) taking the later regions' findings too. */
    const bool watch = cpn_fperr_watches(op);
    unsigned prev_hw = 0, prev_sw = 0;
    if (watch) cpn_kernel_fpe_take(&prev_hw, &prev_sw);
    int64_t st[CPN_MAXARGS][CPN_MAXDIM];
    char *p[CPN_MAXARGS];
    for (int k = 0; k <= op->nin; k++) {
        bool scalar = k < op->nin && !op->in[k];
        p[k] = scalar ? (char *)op->scalar[k].bytes : ptr[k];
        for (int d = 0; d < ndim; d++) st[k][d] = scalar ? 0 : strides[k][d];
    }
    struct cpn_kctx ctx = {0};
    cpn_iterate(fn, op->nin + 1, p, ndim, ext, st, &ctx);
    if (ctx.err) {
        if (watch) {   /* the failure is what counts; what came before stays */
            unsigned hw, sw;
            cpn_kernel_fpe_take(&hw, &sw);
            cpn_kernel_fpe_put(prev_hw, prev_sw);
        }
        return cpn_op_loop_error(op);
    }
    if (watch) {
        unsigned hw, sw, token = prev_sw;
        cpn_kernel_fpe_take(&hw, &sw);
        if (cpn_devfpe_is_token(prev_sw))
            or_word(cpn_devfpe_token_word(prev_sw), hw, sw);
        else
            CPN_TRY(to_word(hw, sw, &token));
        cpn_kernel_fpe_put(prev_hw, token);
    }
    return CPN_OK;
}

/* The rank partial of a distributed reduction (dist.c), on the simulated device buffer: what
 * devreduce.h covers, with the CPU kernel, as the CUDA backend's CUB path. */
static enum cpn_status sim_reduce_region(const struct cpn_op *op, const char *in, int ndim, const int64_t *ext,
                                         const int64_t *in_st, char *part, const int64_t *part_st)
{
    if (op->kind != CPN_OPK_REDUCE || !cpn_devred_plan(op, NULL)) return CPN_ERR_UNSUPPORTED;
    return cpn_kernel_reduce(op->code, op->in[0]->dtype, op->out[0]->dtype, in, ndim, ext, in_st, op->axes, part,
                             part_st, NULL);
}

static const struct cpn_backend_i sim_backend = {
    .name = "sim",
    .kind = CPN_BACKEND_SIM,
    .device = true,
    .device_count = sim_device_count,
    .init = sim_init,
    .describe = sim_describe,
    .raw_alloc = sim_raw_alloc,
    .raw_free = sim_raw_free,
    .to_device = sim_copy,
    .to_host = sim_copy,
    .fill_zero = sim_fill_zero,
    .execute_op = sim_execute_op,
    .supports_fused = sim_supports_fused,
    .execute_fused = sim_execute_fused,
    .sync = sim_sync,
    .copy_region = sim_copy_region,
    .xchg_post = cpn_comm_post,
    .xchg_wait = cpn_comm_wait,
    .region_supported = sim_region_supported,
    .compute_region = sim_compute_region,
    .reduce_region = sim_reduce_region,
};

const struct cpn_backend_i *cpn_sim_backend(void) { return &sim_backend; }
