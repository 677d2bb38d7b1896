/* backend.c: the CUDA backend (backend.h's vtable over the CUDA runtime API).
 *
 * One device per process (local rank modulo the devices visible), one non-blocking stream: every
 * copy and kernel of the process is ordered on it, so the host never waits except where a value
 * leaves the device (to_host, the partials of a reduction).  Kernels are generated from the op
 * (or fused program) by codegen.c, compiled for the device's own architecture by NVRTC (cached
 * by source key in memory and on disk), loaded with cudaLibraryLoadData and cached here by key.
 *
 * What runs on the device: element-wise ops (numpy.where's select and integer power included)
 * and casts over every dtype (bool, integers, float16 as scalar_dev.h's cpn_half, float32/64,
 * complex64/128 as {re, im} structs; any strides, broadcasting, inline scalars), random draws,
 * arange fills (not complex), fused programs of those closed by an integer/bool full reduction,
 * float32/float64 matmul (cuBLAS, blas.c), integer/bool matmul (a tiled generated kernel), the
 * fft op (cuFFT, fft.c), numpy.linalg's factorizations (cuSOLVER, solver.c: devlapack.h), and
 * reductions (over axes, float accumulators), scans and argmax/argmin of add, multiply, maximum,
 * minimum on bool, integers, float32 and float64 (CUB, reduce.cu; csrc/runtime/devreduce.h says
 * which).  Everything else (float16/complex reductions with axes, other reductions, the
 * distributed executor's gather path and reductions' rank partials) returns CPN_ERR_UNSUPPORTED
 * or reads host buffers, which brings the data to the host first (store.c): correct, not fast.
 * The distributed executor's box path runs on device buffers through the device transport
 * (nccl.c: region copies and computations, NCCL messages).
 *
 * Floating-point reports (numpy.errstate): a watched program's kernel ORs what fpclass.h finds
 * per element into device report words (devfpe.h, one per instruction), and its instructions'
 * findings go to fperr.c as tokens naming the words: read after the flush in one copy, or at
 * once when the error mode raises.  Integer power's kernel reports a negative exponent in its
 * word, read right after the launch (the op fails with NumPy's ValueError).  The CUB
 * reductions and scans classify their rows' results (reduce.cu).  Complex arithmetic reports
 * nothing on the device.
 *
 * A failing CUDA call is reported through CUDA_TRY with the call, file and line.
 *
 * CUPYNUM_CUDA_TRACE=1 prints to stderr, per generated-kernel launch, its key, space and grid,
 * the device time (events, the stream waited for) and the host time since the last launch;
 * per transfer and per cudaMalloc its bytes and time.  =2 adds each new kernel's source.  A
 * diagnostic for a real GPU: it serialises the stream. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <cuda_runtime_api.h>

#include "alloc.h"
#include "backend.h"
#include "blas.h"
#include "fft.h"
#include "solver.h"
#include "codegen.h"
#include "cuda_try.h"
#include "devargs.h"
#include "devfpe.h"
#include "devfft.h"
#include "devlapack.h"
#include "devreduce.h"
#include "fperr.h"
#include "fused.h"
#include "rtc.h"
#include "opsem.h"
#include "reduce.h"
#include "sort.h"
#include "devsort.h"
#include "select.h"
#include "devselect.h"
#include "cuda_transport.h"

_Static_assert(sizeof(struct cpn_dev_args) <= 4096, "a kernel's parameters: at most 4 KiB");

static struct {
    int index, count, arch, sms;
    cudaStream_t stream;
    char name[256];
} dev = {.index = -1};

/* ---- tracing (CUPYNUM_CUDA_TRACE) ------------------------------------------------------------ */

static int trace_level(void)
{
    static int level = -1;
    if (level < 0) {
        const char *e = getenv("CUPYNUM_CUDA_TRACE");
        level = e && *e ? atoi(e) : 0;
    }
    return level;
}

static double now_ms(void)
{
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (double)t.tv_sec * 1e3 + (double)t.tv_nsec * 1e-6;
}

/* ---- devices ---------------------------------------------------------------------------------- */

static int cuda_device_count(const char **why)
{
    int n = 0;
    cudaError_t e = cudaGetDeviceCount(&n);
    if (e != cudaSuccess) {
        /* cudaErrorNoDevice, cudaErrorInsufficientDriver (no driver loaded)...: no GPU here. */
        if (why) *why = cudaGetErrorString(e);
        cudaGetLastError();
        return 0;
    }
    if (n == 0 && why) *why = "no CUDA device";
    return n;
}

static enum cpn_status cuda_init(int index)
{
    const char *why;
    if (!cpn_nvrtc_available(&why))
        return cpn_error(CPN_ERR_DEVICE, "cupynum: the GPU backend needs NVRTC: %s", why);
    dev.count = cuda_device_count(NULL);
    CUDA_TRY(cudaSetDevice(index));
    struct cudaDeviceProp prop;
    CUDA_TRY(cudaGetDeviceProperties(&prop, index));
    dev.index = index;
    dev.arch = prop.major * 10 + prop.minor;
    dev.sms = prop.multiProcessorCount;
    snprintf(dev.name, sizeof dev.name, "%.200s (device %d of %d, sm_%d)", prop.name, index, dev.count, dev.arch);
    CUDA_TRY(cudaStreamCreateWithFlags(&dev.stream, cudaStreamNonBlocking));
    return CPN_OK;
}

static const char *cuda_describe(void) { return dev.index >= 0 ? dev.name : "cuda (not initialised)"; }

static void *cuda_raw_alloc(size_t n)
{
    void *p = NULL;
    const double t0 = trace_level() ? now_ms() : 0;
    if (cudaMalloc(&p, n ? n : 1) != cudaSuccess) {
        cudaGetLastError();
        return NULL;
    }
    if (trace_level()) fprintf(stderr, "cupynum-trace: cudaMalloc %zu bytes %.3f ms\n", n, now_ms() - t0);
    return p;
}

static void cuda_raw_free(void *p)
{
    if (p) cudaFree(p);
}

static enum cpn_status cuda_to_device(void *dst, const void *src, size_t n)
{
    const double t0 = trace_level() ? now_ms() : 0;
    if (n) CUDA_TRY(cudaMemcpyAsync(dst, src, n, cudaMemcpyHostToDevice, dev.stream));
    if (trace_level()) {
        CUDA_TRY(cudaStreamSynchronize(dev.stream));
        fprintf(stderr, "cupynum-trace: to device %zu bytes %.3f ms\n", n, now_ms() - t0);
    }
    return CPN_OK;
}

static enum cpn_status cuda_to_host(void *dst, const void *src, size_t n)
{
    const double t0 = trace_level() ? now_ms() : 0;
    if (n) CUDA_TRY(cudaMemcpyAsync(dst, src, n, cudaMemcpyDeviceToHost, dev.stream));
    CUDA_TRY(cudaStreamSynchronize(dev.stream));
    if (trace_level()) fprintf(stderr, "cupynum-trace: to host %zu bytes %.3f ms\n", n, now_ms() - t0);
    return CPN_OK;
}

static enum cpn_status cuda_fill_zero(void *dst, size_t n)
{
    if (n) CUDA_TRY(cudaMemsetAsync(dst, 0, n, dev.stream));
    return CPN_OK;
}

static enum cpn_status cuda_sync(void)
{
    if (dev.index < 0) return CPN_OK;
    CUDA_TRY(cudaStreamSynchronize(dev.stream));
    return CPN_OK;
}

/* ---- kernels by key --------------------------------------------------------------------------- */

struct kernel {
    struct kernel *next;
    char key[17];
    cudaLibrary_t lib;
    cudaKernel_t fn;
};
static struct kernel *kernels;
static char srcbuf[64 << 10];

/* The kernel compiled from the source in srcbuf (its key names it). */
static enum cpn_status load_source(cudaKernel_t *fn)
{
    char key[17];
    cpn_cuda_codegen_key(srcbuf, key);
    for (struct kernel *k = kernels; k; k = k->next)
        if (!strcmp(k->key, key)) {
            *fn = k->fn;
            return CPN_OK;
        }
    const void *image;
    size_t size;
    if (trace_level() > 1) fprintf(stderr, "cupynum-trace: kernel %s source:\n%s\n", key, srcbuf);
    CPN_TRY(cpn_nvrtc_compile(srcbuf, dev.arch, false, &image, &size));
    struct kernel *k = cpn_alloc(sizeof *k);
    if (!k) return CPN_ERR_NOMEM;
    memcpy(k->key, key, sizeof key);
    cudaError_t e = cudaLibraryLoadData(&k->lib, image, NULL, NULL, 0, NULL, NULL, 0);
    if (e == cudaSuccess) e = cudaLibraryGetKernel(&k->fn, k->lib, "cpn_k");
    if (e != cudaSuccess) {
        cpn_free(k);
        return cpn_error(CPN_ERR_DEVICE, "cupynum: loading a generated kernel failed: %s",
                         cudaGetErrorString(e));
    }
    k->next = kernels;
    kernels = k;
    *fn = k->fn;
    return CPN_OK;
}

static enum cpn_status get_kernel(const struct cpn_fused_prog *p, cudaKernel_t *fn)
{
    int n = cpn_cuda_codegen(p, srcbuf, sizeof srcbuf);
    if (n < 0 || (size_t)n >= sizeof srcbuf)
        return cpn_error(CPN_ERR_INTERNAL, "cupynum: no device kernel for this program");
    return load_source(fn);
}

/* ---- executing a bound program ------------------------------------------------------------------ */

static bool cuda_supports_fused(const struct cpn_fused_prog *p)
{
    return dev.index >= 0 && p->ndim <= CPN_DEV_MAXDIM && cpn_cuda_codegen_supports(p, NULL);
}

/* The program's space with unit dimensions dropped and dimensions every external walks
 * contiguously merged, into a. */
static void coalesce(const struct cpn_fused_prog *p, struct cpn_dev_args *a)
{
    int nd = 0;
    for (int d = 0; d < p->ndim; d++) {
        if (p->shape[d] == 1) continue;
        bool merge = nd > 0;
        for (int e = 0; e < p->next && merge; e++)
            merge = a->st[e][nd - 1] == p->ext_st[e][d] * p->shape[d];
        if (merge) {
            a->shape[nd - 1] *= p->shape[d];
            for (int e = 0; e < p->next; e++) a->st[e][nd - 1] = p->ext_st[e][d];
            continue;
        }
        a->shape[nd] = p->shape[d];
        for (int e = 0; e < p->next; e++) a->st[e][nd] = p->ext_st[e][d];
        nd++;
    }
    if (nd == 0) {   /* a single element */
        a->shape[0] = 1;
        for (int e = 0; e < p->next; e++) a->st[e][0] = 0;
        nd = 1;
    }
    a->ndim = nd;
}

static int last_words = -1;   /* the report words of the last launch, or -1 */
static int into_words = -1;   /* the next launch's report words (a region's op ran before), or -1 */

static enum cpn_status cuda_execute_fused(struct cpn_fused_prog *p)
{
    last_words = -1;
    const int into = into_words;
    into_words = -1;
    struct cpn_dev_args a;
    memset(&a, 0, sizeof a);
    a.n = 1;
    for (int d = 0; d < p->ndim; d++) a.n *= p->shape[d];
    if (a.n == 0) return CPN_OK;
    if (p->next > CPN_DEV_MAXEXT) return cpn_error(CPN_ERR_INTERNAL, "too many device operands");
    for (int e = 0; e < p->next; e++) a.base[e] = (uint64_t)p->ext_base[e];
    coalesce(p, &a);
    int scal = 0, param = 0;
    for (int k = 0; k < p->ninstr; k++) {
        const struct cpn_fused_instr *in = &p->instr[k];
        int nin = in->kind == CPN_FI_LOOP ? in->narg - 1 : in->kind == CPN_FI_REDUCE ? 1 : 0;
        for (int i = 0; i < nin; i++)
            if (in->arg[i].kind == CPN_FARG_SCALAR) memcpy(a.scal[scal++], in->arg[i].scalar, 16);
        if (in->kind == CPN_FI_RANDOM || in->kind == CPN_FI_ARANGE) {
            a.seed[param] = in->seed;
            a.stream[param] = in->stream;
            a.p0[param] = in->p0;
            a.p1[param] = in->p1;
            a.i0[param] = in->i0;
            a.i1[param] = in->i1;
            param++;
        }
    }
    cudaKernel_t fn = NULL;
    CPN_TRY(get_kernel(p, &fn));
    /* Report words (zeroed on the stream before the kernel runs), one per instruction. */
    int words = -1;
    if (cpn_cuda_codegen_reports(p)) {
        if (into >= 0) words = into;   /* ORed into words already handed out */
        else CPN_TRY(cpn_devfpe_take(p->ninstr, &words));
        a.fpe = (uint64_t)cpn_devfpe_word(words);
    }
    const struct cpn_fused_instr *last = &p->instr[p->ninstr - 1];
    const bool reduce = last->kind == CPN_FI_REDUCE;
    size_t accsize = reduce ? cpn_dtype_size(last->acc_dt) : 0;
    /* Grid: x over the innermost dimension, y over rows; every block gets at least one element
     * (the reduction's partials rely on it).  A reduction caps the blocks (its partials come to
     * the host); other kernels only respect the grid limits. */
    int64_t inner = a.shape[a.ndim - 1], outer = a.n / inner;
    int64_t gx = (inner + CPN_DEV_BLOCK - 1) / CPN_DEV_BLOCK, gy = outer;
    int64_t cap = reduce ? (int64_t)dev.sms * 32 : (int64_t)1 << 30;
    if (gx > cap) gx = cap;
    if (gx > 0x7fffffff) gx = 0x7fffffff;
    if (gy > 65535) gy = 65535;
    if (gx * gy > cap) gy = cap / gx > 0 ? cap / gx : 1;
    const int64_t blocks = gx * gy;
    void *partials = NULL;
    if (reduce && !(partials = cpn_alloc_device((size_t)blocks * accsize))) return CPN_ERR_NOMEM;
    a.partials = (uint64_t)partials;
    void *args[] = {&a};
    dim3 grid = {(unsigned)gx, (unsigned)gy, 1}, block = {CPN_DEV_BLOCK, 1, 1};
    static double last_launch;
    cudaEvent_t ev[2];
    bool tr = trace_level() && cudaEventCreate(&ev[0]) == cudaSuccess;
    if (tr && cudaEventCreate(&ev[1]) != cudaSuccess) {
        cudaEventDestroy(ev[0]);
        tr = false;
    }
    if (tr) cudaEventRecord(ev[0], dev.stream);
    cudaError_t e = cudaLaunchKernel((const void *)fn, grid, block, args, 0, dev.stream);
    if (tr) {
        float ms = 0;
        char key[17];
        cpn_cuda_codegen_key(srcbuf, key);
        cudaEventRecord(ev[1], dev.stream);
        cudaEventSynchronize(ev[1]);
        cudaEventElapsedTime(&ms, ev[0], ev[1]);
        const double t = now_ms();
        fprintf(stderr, "cupynum-trace: kernel %s instr=%d n=%lld dims=%d grid=%lldx%lld %.3f ms, host %.3f ms since the last\n",
                key, p->ninstr, (long long)a.n, (int)a.ndim, (long long)gx, (long long)gy, ms,
                last_launch ? t - last_launch - ms : 0.0);
        last_launch = t;
        cudaEventDestroy(ev[0]);
        cudaEventDestroy(ev[1]);
    }
    enum cpn_status st = CPN_OK;
    if (e != cudaSuccess)
        st = cpn_error(CPN_ERR_DEVICE, "cupynum: launching a generated kernel failed: %s", cudaGetErrorString(e));
    if (st == CPN_OK && reduce) {
        /* The block partials, combined on the host in block order by the CPU's own loop. */
        char *host = cpn_alloc((size_t)blocks * accsize);
        if (!host) st = CPN_ERR_NOMEM;
        if (st == CPN_OK) st = cuda_to_host(host, partials, (size_t)blocks * accsize);
        if (st == CPN_OK) {
            struct cpn_kctx ctx = {0};
            for (int64_t b = 1; b < blocks; b++) {
                char *ca[3] = {host, host + b * accsize, host};
                int64_t cs[3] = {0, 0, 0};
                last->combine(ca, cs, 1, &ctx);
            }
            memcpy(p->reduce_out, host, accsize);
        }
        cpn_free(host);
    }
    cpn_free_device(partials, (size_t)blocks * accsize);
    if (st == CPN_OK && words >= 0 && p->fpe)
        for (int k = 0; k < p->ninstr; k++)   /* each instruction's findings: its word */
            cpn_devfpe_report(&p->fpe[k], words + k);
    last_words = words;
    return st;
}

/* ---- integer matmul: a tiled kernel (cuBLAS has float gemm only) --------------------------------- */

static enum cpn_status cuda_int_matmul(const struct cpn_op *op)
{
    const struct cpn_view *av = op->in[0], *bv = op->in[1], *cv = op->out[0];
    if (!av || !bv || av->ndim != 2 || bv->ndim != 2 || cv->ndim != 2) return CPN_ERR_UNSUPPORTED;
    if (av->dtype != op->dtype || bv->dtype != op->dtype || cv->dtype != op->dtype) return CPN_ERR_UNSUPPORTED;
    const int64_t m = av->shape[0], k = av->shape[1], n = bv->shape[1];
    const int64_t gx = (n + CPN_DEV_MM_TILE - 1) / CPN_DEV_MM_TILE, gy = (m + CPN_DEV_MM_TILE - 1) / CPN_DEV_MM_TILE;
    if (gx > 0x7fffffff || gy > 65535) return CPN_ERR_UNSUPPORTED;
    int len = cpn_cuda_codegen_matmul(op->dtype, srcbuf, sizeof srcbuf);
    if (len < 0) return CPN_ERR_UNSUPPORTED;   /* not an integer or bool dtype */
    if ((size_t)len >= sizeof srcbuf) return cpn_error(CPN_ERR_INTERNAL, "cupynum: matmul kernel too long");
    if (m == 0 || n == 0) return CPN_OK;   /* nothing to write */
    cudaKernel_t fn = NULL;
    CPN_TRY(load_source(&fn));
    struct cpn_dev_args a;
    memset(&a, 0, sizeof a);
    a.n = m * n;
    a.ndim = 3;
    a.shape[0] = m;
    a.shape[1] = k;
    a.shape[2] = n;
    const struct cpn_view *v[3] = {av, bv, cv};
    for (int i = 0; i < 3; i++) {
        /* inputs first, so an output sharing their store sees them current */
        char *b = cpn_store_device_data(v[i]->store, i == 2, i == 2 && cpn_op_overwrites(op));
        if (!b) return CPN_ERR_NOMEM;
        int64_t off;
        cpn_view_byte_layout(v[i], a.st[i], &off);
        a.base[i] = (uint64_t)(b + off);
    }
    void *args[] = {&a};
    dim3 grid = {(unsigned)gx, (unsigned)gy, 1}, block = {CPN_DEV_BLOCK, 1, 1};
    cudaError_t e = cudaLaunchKernel((const void *)fn, grid, block, args, 0, dev.stream);
    if (e != cudaSuccess)
        return cpn_error(CPN_ERR_DEVICE, "cupynum: launching the matmul kernel failed: %s", cudaGetErrorString(e));
    return CPN_OK;
}

/* ---- single ops: a one-instruction program ------------------------------------------------------ */

static int bind_ext(struct cpn_fused_prog *p, const struct cpn_view *v, char *base)
{
    int e = p->next++;
    int64_t off;
    cpn_view_byte_layout(v, p->ext_st[e], &off);
    p->ext_base[e] = base ? (intptr_t)(base + off) : (intptr_t)off;   /* index sources: offsets */
    return e;
}

/* Integer power: NumPy's ValueError for a negative exponent.  A scalar exponent is checked here
 * (nothing launched); an array's elements by the kernel, into its report word. */
static bool int_power(const struct cpn_op *op)
{
    return op->kind == CPN_OPK_ELEMENTWISE && cpn_op_fails_on_data(op->code, op->dtype);
}

static bool negative_scalar(const struct cpn_op *op)
{
    if (op->in[1]) return false;
    switch (op->dtype) {
    case CPN_DTYPE_INT8: return op->scalar[1].i8 < 0;
    case CPN_DTYPE_INT16: return op->scalar[1].i16 < 0;
    case CPN_DTYPE_INT32: return op->scalar[1].i32 < 0;
    default: return op->scalar[1].i64 < 0;
    }
}

/* The one-instruction program template of an element-wise op, cast, random draw or arange fill
 * (false: another kind). */
static bool op_template(const struct cpn_op *op, struct cpn_fused_prog *p)
{
    const struct cpn_view *out = op->out[0];
    memset(&p->instr[0], 0, sizeof p->instr[0]);
    struct cpn_fused_instr *in = &p->instr[0];
    p->ninstr = 1;
    p->nslots = 0;
    p->next = 0;
    p->ndim = out->ndim;
    memcpy(p->shape, out->shape, (size_t)out->ndim * sizeof *out->shape);
    p->reduce_out = NULL;
    p->fpe = NULL;
    switch (op->kind) {
    case CPN_OPK_ELEMENTWISE:
    case CPN_OPK_CAST:
        in->kind = CPN_FI_LOOP;
        in->code = op->kind == CPN_OPK_CAST ? -1 : op->code;
        in->in_dt = op->in[0] ? op->in[0]->dtype : op->dtype;
        in->out_dt = out->dtype;
        in->narg = op->nin + op->nout;   /* two-output ops (divmod, modf, frexp): both outputs last */
        for (int i = 0; i < op->nin; i++) in->arg[i].kind = op->in[i] ? CPN_FARG_EXT : CPN_FARG_SCALAR;
        for (int k = 0; k < op->nout; k++) in->arg[op->nin + k].kind = CPN_FARG_EXT;
        return true;
    case CPN_OPK_RANDOM:
    case CPN_OPK_ARANGE:
        /* integer draws written as int64 (random.c's cpn_kernel_random_to): the host */
        if (op->kind == CPN_OPK_RANDOM && (out->dtype != CPN_DTYPE_FLOAT64 || op->nin)) return false;
        in->kind = op->kind == CPN_OPK_RANDOM ? CPN_FI_RANDOM : CPN_FI_ARANGE;
        in->narg = 1;
        in->arg[0].kind = CPN_FARG_EXT;
        in->dist = op->code;
        in->dt = out->dtype;
        return true;
    default:
        return false;
    }
}

static bool cuda_supports(const struct cpn_op *op)
{
    if (dev.index < 0) return false;
    switch (op->kind) {
    case CPN_OPK_MATMUL:   /* float32/float64: cuBLAS; bool and integers: the tiled kernel */
        return op->dtype != CPN_DTYPE_FLOAT16 && cpn_dtype_class(op->dtype) != CPN_CLASS_COMPLEX &&
               op->out[0]->ndim == 2;   /* batched: the host path */
    case CPN_OPK_REDUCE:
    case CPN_OPK_SCAN:
    case CPN_OPK_ARGREDUCE:
        return cpn_devred_plan(op, NULL);   /* CUB (reduce.cu) */
    case CPN_OPK_FFT:
        return cpn_devfft_plan(op, NULL);   /* cuFFT (fft.c) */
    case CPN_OPK_LAPACK:
        return cpn_devlapack_supported(op);   /* cuSOLVER (solver.c) */
    case CPN_OPK_SORT:
        return cpn_devsort_supported(op);   /* CUB's radix sort (sort.cu) */
    case CPN_OPK_COMPACT:
    case CPN_OPK_NONZERO:
    case CPN_OPK_GATHER:
    case CPN_OPK_SCATTER:
        return cpn_devselect_supported(op);   /* CUB's scan, its radix sort, copies (select.cu) */
    default: {
        static struct cpn_fused_prog p;
        return op_template(op, &p) && cuda_supports_fused(&p);
    }
    }
}

/* A bound op's operand as the program's next external. */
static int bind_arg(struct cpn_fused_prog *p, const struct cpn_bound_arg *a, intptr_t base)
{
    int e = p->next++;
    memcpy(p->ext_st[e], a->st, (size_t)a->ndim * sizeof *a->st);
    p->ext_base[e] = base;
    return e;
}

enum cpn_status cpn_cuda_compute(const struct cpn_bound_op *b, struct cpn_fpreport *fp)
{
    static struct cpn_fused_prog p;
    struct cpn_fpreport found[1] = {{0}};
    const struct cpn_op *op = b->op;
    if (dev.index < 0) return CPN_ERR_UNSUPPORTED;
    switch (op->kind) {   /* these bind the views themselves (their layouts are their own) */
    case CPN_OPK_MATMUL:
        if (cpn_dtype_class(op->dtype) == CPN_CLASS_FLOAT) return cpn_cuda_matmul(op, dev.stream);
        return cuda_int_matmul(op);
    case CPN_OPK_REDUCE:
    case CPN_OPK_SCAN:
    case CPN_OPK_ARGREDUCE:
        return cpn_cuda_reduce_op(op, dev.stream, fp);
    case CPN_OPK_FFT:
        return cpn_cuda_fft(op, dev.stream);
    case CPN_OPK_LAPACK:
        return cpn_cuda_lapack(b, dev.stream);   /* b: the operands bound to device buffers */
    case CPN_OPK_SORT:
        return cpn_cuda_sort_op(op, dev.stream);
    case CPN_OPK_COMPACT:
    case CPN_OPK_NONZERO:
    case CPN_OPK_GATHER:
    case CPN_OPK_SCATTER:
        return cpn_cuda_select_op(op, dev.stream);
    default:
        break;
    }
    if (!op_template(op, &p)) return CPN_ERR_UNSUPPORTED;
    p.ndim = b->out[0].ndim;   /* the bound space: the output's, or a region of it (nccl.c) */
    memcpy(p.shape, b->out[0].shape, (size_t)p.ndim * sizeof *p.shape);
    if (!cuda_supports_fused(&p)) return CPN_ERR_UNSUPPORTED;
    struct cpn_fused_instr *in = &p.instr[0];
    if (int_power(op) && negative_scalar(op)) return cpn_op_loop_error(op);
    /* The kernel reports into a word *fp then names: the one it names already when the op ran
     * before (the regions of one op), so the op has one word. */
    if (cpn_fperr_watches(op)) {
        p.fpe = found;
        into_words = fp->dev ? fp->dev_word : -1;
    }
    const int nin = in->kind == CPN_FI_LOOP ? op->nin : 0;
    for (int i = 0; i < nin; i++) {
        if (op->in[i]) in->arg[i].idx = bind_arg(&p, &b->in[i], (intptr_t)b->in[i].ptr);
        else in->arg[i].scalar = (const char *)op->scalar[i].bytes;
    }
    in->arg[nin].idx = bind_arg(&p, &b->out[0], (intptr_t)b->out[0].ptr);
    if (in->kind == CPN_FI_LOOP && op->nout == 2)   /* output 1 */
        in->arg[nin + 1].idx = bind_arg(&p, &b->out[1], (intptr_t)b->out[1].ptr);
    if (in->kind == CPN_FI_RANDOM || in->kind == CPN_FI_ARANGE) {
        /* the element index: the output's byte offset in its store */
        in->index_ext = bind_ext(&p, op->out[0], NULL);
        in->index_size = (int64_t)cpn_dtype_size(op->out[0]->dtype);
        in->seed = (uint64_t)op->iparam[0];
        in->stream = (uint64_t)op->iparam[1];
        in->p0 = op->dparam[0];
        in->p1 = op->dparam[1];
        in->i0 = op->iparam[0];
        in->i1 = op->iparam[1];
    }
    enum cpn_status st = cuda_execute_fused(&p);
    const bool watched = p.fpe != NULL;
    p.fpe = NULL;
    CPN_TRY(st);
    if (int_power(op) && last_words >= 0) {   /* a negative exponent among the elements? */
        uint32_t w = 0;
        CPN_TRY(cpn_devfpe_read(last_words, 1, &w));
        if (w & CPN_DEVFPE_VALUE) return cpn_op_loop_error(op);
    }
    if (watched) cpn_fpreport_or(fp, &found[0]);
    return CPN_OK;
}

/* ---- for the device transport (nccl.c, transport.h) ------------------------------------------- */

void *cpn_cuda_stream(void) { return dev.stream; }
bool cpn_cuda_prog_supported(const struct cpn_fused_prog *p) { return cuda_supports_fused(p); }
enum cpn_status cpn_cuda_run_prog(struct cpn_fused_prog *p) { return cuda_execute_fused(p); }

static const struct cpn_backend_i cuda_backend = {
    .name = "cuda",
    .kind = CPN_BACKEND_CUDA,
    .device = true,
    .device_count = cuda_device_count,
    .init = cuda_init,
    .describe = cuda_describe,
    .raw_alloc = cuda_raw_alloc,
    .raw_free = cuda_raw_free,
    .to_device = cuda_to_device,
    .to_host = cuda_to_host,
    .fill_zero = cuda_fill_zero,
    .supports = cuda_supports,
    .compute = cpn_cuda_compute,
    .supports_fused = cuda_supports_fused,
    .execute_fused = cuda_execute_fused,
    .sync = cuda_sync,
    .transport = &cpn_cuda_transport,
};

const struct cpn_backend_i *cpn_cuda_backend(void) { return &cuda_backend; }
