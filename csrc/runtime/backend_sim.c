/* backend_sim.c: a simulated device backend, for testing the device paths without a GPU.
 *
 * CUPYNUM_DEVICE=sim selects it.  Its "device memory" is host memory distinct from the stores'
 * host buffers, and it executes on that memory exactly what the CUDA backend executes on the GPU
 * (element-wise ops and casts, integer power and the two-output ops included, random draws, arange fills, fused
 * programs, matmul of bool, integers, float32 and float64, the reductions, scans and
 * argmax/argmin devreduce.h plans, the transforms devfft.h plans, the factorizations devlapack.h
 * takes), with the CPU kernels.  So the executor's device hooks, the
 * coherence of host and device copies (store.c), the device pool (alloc.c) and the host fallback
 * of unsupported ops are exercised by the whole test suite on any machine; only the kernels
 * differ on a real GPU (those are generated source, tested by compiling it: tests/c/test_codegen.c).
 *
 * Floating-point reports of element-wise ops, casts and fused programs travel as on the GPU: what
 * a watched op's CPU loops found (status flags and own findings, exactly NumPy's) is written
 * into a device report word (devfpe.h) that the op's report names, read after the flush or,
 * under 'raise', at once.  (The GPU kernels compute the same bits with fpclass.h instead of
 * status flags; tests/c/test_fpclass.c checks the two agree.) */
#include <stdlib.h>
#include <string.h>

#include "alloc.h"
#include "backend.h"
#include "comm.h"
#include "devfpe.h"
#include "devfft.h"
#include "devlapack.h"
#include "devselect.h"
#include "devsort.h"
#include "devreduce.h"
#include "fperr.h"
#include "fused.h"
#include "kernels.h"
#include "opsem.h"
#include "transport.h"
#include "../../cuda/devargs.h"   /* the device kernels' argument bounds */

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

/* A real device's kernel argument block bounds a program (cuda/devargs.h): the simulated device
 * refuses what the GPU would, so fusion.c's cutting of runs to fit is exercised here too. */
static bool sim_supports_fused(const struct cpn_fused_prog *p)
{
    struct cpn_fused_counts c;
    cpn_fused_count(p, &c);
    return p->ndim <= CPN_DEV_MAXDIM && c.ext <= CPN_DEV_MAXEXT && c.scal <= CPN_DEV_MAXSCAL &&
           c.param <= CPN_DEV_MAXPARAM;
}

/* Findings hw, sw ORed into device report word w. */
static void or_word(int w, unsigned hw, unsigned sw)
{
    *cpn_devfpe_word(w) |= (hw & CPN_DEVFPE_HW_MASK) | ((sw & CPN_DEVFPE_HW_MASK) << CPN_DEVFPE_SW_SHIFT);
}

/* What the CPU kernels found (`found`) handed over through a device word, as the CUDA backend's
 * kernels hand theirs: into the word *fp names already (the regions of one op), else a word of
 * its own that *fp then names. */
static enum cpn_status to_word(struct cpn_fpreport found, struct cpn_fpreport *fp)
{
    if (!fp->dev) {
        int w;
        CPN_TRY(cpn_devfpe_take(1, &w));
        cpn_devfpe_report(fp, w);
    }
    or_word(fp->dev_word, found.hw, found.sw);
    return CPN_OK;
}

/* A single op's findings, when it is watched. */
static enum cpn_status findings_to_word(const struct cpn_op *op, struct cpn_fpreport found,
                                        struct cpn_fpreport *fp)
{
    return cpn_fperr_watches(op) ? to_word(found, fp) : CPN_OK;
}

static enum cpn_status sim_execute_fused(struct cpn_fused_prog *p)
{
    struct cpn_kctx ctx = {0};
    enum cpn_status st = cpn_kernel_fused(p, &ctx);
    if (st == CPN_OK && ctx.err) st = cpn_error(CPN_ERR_VALUE, "invalid value in a fused run");
    /* Watched: each instruction's findings through the device words. */
    for (int k = 0; st == CPN_OK && p->fpe && k < p->ninstr; k++) {
        const struct cpn_fpreport found = p->fpe[k];
        p->fpe[k] = (struct cpn_fpreport){0};
        st = to_word(found, &p->fpe[k]);
    }
    return st;
}

/* What the CUDA backend executes (cuda/backend.c), decided before binding. */
static bool sim_supports(const struct cpn_op *op)
{
    switch (op->kind) {
    case CPN_OPK_ELEMENTWISE:   /* integer power too: a negative exponent fails like the host's */
    case CPN_OPK_CAST:
        if (!cpn_op_loop(op)) {
            cpn_error_clear();
            return false;   /* the host path reports it */
        }
        return true;
    case CPN_OPK_RANDOM:   /* as the CUDA backend: float64 draws (integer ones: the host) */
        return op->nin == 0 && cpn_view_is_contiguous(op->out[0]) &&
               op->out[0]->dtype == CPN_DTYPE_FLOAT64;   /* per-element parameters: the host */
    case CPN_OPK_ARANGE:
        return cpn_view_is_contiguous(op->out[0]);
    case CPN_OPK_MATMUL:
        /* as the CUDA backend: float32/float64 (cuBLAS), bool and integers (its tiled kernel) */
        return op->dtype != CPN_DTYPE_FLOAT16 && cpn_dtype_class(op->dtype) != CPN_CLASS_COMPLEX &&
               op->out[0]->ndim == 2;   /* batched: the host path */
    case CPN_OPK_REDUCE:
    case CPN_OPK_SCAN:
    case CPN_OPK_ARGREDUCE:
        /* as CUB (cuda/reduce.cu): what devreduce.h plans */
        return cpn_devred_plan(op, NULL);
    case CPN_OPK_FFT:
        return cpn_devfft_plan(op, NULL);   /* as cuFFT (cuda/fft.c) */
    case CPN_OPK_LAPACK:
        return cpn_devlapack_supported(op);   /* as cuSOLVER (cuda/solver.c) */
    case CPN_OPK_SORT:
        return cpn_devsort_supported(op);   /* as CUB's radix sort (cuda/sort.cu) */
    case CPN_OPK_COMPACT:
    case CPN_OPK_NONZERO:
    case CPN_OPK_GATHER:
    case CPN_OPK_SCATTER:
        return cpn_devselect_supported(op);   /* as cuda/select.cu (ufunc.at: integers only) */
    default:
        return false;
    }
}

/* The CPU backend's kernels on the simulated device memory; a watched op's findings through a
 * device word, as the CUDA backend's kernels (and reduce.cu's) hand theirs. */
static enum cpn_status sim_compute(const struct cpn_bound_op *b, struct cpn_fpreport *fp)
{
    struct cpn_fpreport found = {0};
    CPN_TRY(cpn_cpu_backend()->compute(b, &found));
    return findings_to_word(b->op, found, fp);
}

/* ---- the device transport (transport.h): MPI on the simulated device buffers ------------------ */

/* Simulated device memory is host memory: the host transport's box copy. */
static enum cpn_status sim_copy_region(int n, const int64_t *ext, size_t item, void *dst,
                                       const int64_t *dst_st, const void *src, const int64_t *src_st)
{
    return cpn_transport_host()->copy_region(n, ext, item, dst, dst_st, src, src_st);
}

static bool sim_region_supported(const struct cpn_op *op)
{
    if (op->kind != CPN_OPK_ELEMENTWISE && op->kind != CPN_OPK_CAST) return false;
    if (op->kind == CPN_OPK_ELEMENTWISE && (cpn_op_info(op->code)->flags & CPN_OPF_NEGEXP) &&
        cpn_dtype_class(op->dtype) != CPN_CLASS_FLOAT)
        return false;   /* as the CUDA region path (nccl.c): its failure is the host loop's */
    if (!cpn_op_loop(op)) {
        cpn_error_clear();
        return false;
    }
    return true;
}

/* The region bound as an op of its own, computed as any other (sim_compute).  Watched: the
 * findings through a device word, as nccl.c's: one word per op, the first region's (*fp names it
 * already) taking the later regions' findings too. */
static enum cpn_status sim_compute_region(const struct cpn_op *op, char *const *ptr, int ndim,
                                          const int64_t *ext, const int64_t *const *strides,
                                          struct cpn_fpreport *fp)
{
    struct cpn_bound_op b;
    cpn_bind_region(op, ptr, ndim, ext, strides, &b);
    return sim_compute(&b, fp);
}

/* The rank partial of a distributed reduction (dist.c), on the simulated device buffer: what
 * devreduce.h covers, through the host transport (simulated device memory is host memory), as
 * the CUDA backend's CUB path. */
static enum cpn_status sim_reduce_region(const struct cpn_op *op, const char *in, int ndim, const int64_t *ext,
                                         const int64_t *in_st, char *part, const int64_t *part_st,
                                         struct cpn_fpreport *fp)
{
    if (op->kind != CPN_OPK_REDUCE || !cpn_devred_plan(op, NULL)) return CPN_ERR_UNSUPPORTED;
    return cpn_transport_host()->reduce_region(op, in, ndim, ext, in_st, part, part_st, fp);
}

static const struct cpn_transport_i sim_transport = {
    .device = true,
    .tile = cpn_transport_device_tile,
    .alloc = cpn_alloc_device,
    .release = cpn_free_device,
    .copy_region = sim_copy_region,
    .xchg_post = cpn_comm_post,
    .xchg_wait = cpn_comm_wait,
    .region_supported = sim_region_supported,
    .compute_region = sim_compute_region,
    .reduce_region = sim_reduce_region,
};

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
    .supports = sim_supports,
    .compute = sim_compute,
    .supports_fused = sim_supports_fused,
    .execute_fused = sim_execute_fused,
    .sync = sim_sync,
    .transport = &sim_transport,
};

const struct cpn_backend_i *cpn_sim_backend(void) { return &sim_backend; }
