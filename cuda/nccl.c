/* nccl.c: the CUDA backend's device transport for the distributed executor (see cuda_transport.h; the interface: csrc/runtime/transport.h). */
#include "cuda_transport.h"

#include <dlfcn.h>
#include <stdlib.h>
#include <string.h>

#include <cuda_runtime_api.h>

#include "alloc.h"
#include "backend.h"
#include "comm.h"
#include "cuda_try.h"
#include "devargs.h"
#include "devfpe.h"
#include "fperr.h"
#include "kernels.h"
#include "opsem.h"
#include "transport.h"

static cudaStream_t stream(void) { return (cudaStream_t)cpn_cuda_stream(); }

/* ---- region copies -------------------------------------------------------------------------- */

bool cpn_cuda_copy_prog(struct cpn_fused_prog *p, int n, const int64_t *ext, size_t item, void *dst,
                        const int64_t *dst_st, const void *src, const int64_t *src_st)
{
    const size_t word = item == 16 ? 8 : item;
    enum cpn_dtype dt;
    switch (word) {
    case 1: dt = CPN_DTYPE_UINT8; break;
    case 2: dt = CPN_DTYPE_UINT16; break;
    case 4: dt = CPN_DTYPE_UINT32; break;
    case 8: dt = CPN_DTYPE_UINT64; break;
    default: return false;
    }
    const int nd = n + (item == 16);
    if (n < 0 || nd > CPN_DEV_MAXDIM) return false;
    struct cpn_fused_instr *in = &p->instr[0];
    memset(in, 0, sizeof *in);
    in->kind = CPN_FI_LOOP;
    in->code = -1;   /* a cast: the same type, so the bits are copied */
    in->in_dt = dt;
    in->out_dt = dt;
    in->narg = 2;
    in->arg[0].kind = CPN_FARG_EXT;
    in->arg[0].idx = 0;
    in->arg[1].kind = CPN_FARG_EXT;
    in->arg[1].idx = 1;
    p->ninstr = 1;
    p->nslots = 0;
    p->fpe = NULL;
    p->reduce_out = NULL;
    p->next = 2;
    p->ext_base[0] = (intptr_t)src;
    p->ext_base[1] = (intptr_t)dst;
    p->ndim = nd;
    for (int d = 0; d < n; d++) {
        p->shape[d] = ext[d];
        p->ext_st[0][d] = src_st[d] * (int64_t)item;
        p->ext_st[1][d] = dst_st[d] * (int64_t)item;
    }
    if (item == 16) {   /* two 8-byte words per element */
        p->shape[n] = 2;
        p->ext_st[0][n] = 8;
        p->ext_st[1][n] = 8;
    }
    return true;
}

static enum cpn_status copy_kernel(int n, const int64_t *ext, size_t item, char *dst, const int64_t *dst_st,
                                   const char *src, const int64_t *src_st)
{
    if (n > CPN_DEV_MAXDIM - 1) {   /* one slab of the first dimension at a time */
        for (int64_t i = 0; i < ext[0]; i++)
            CPN_TRY(copy_kernel(n - 1, ext + 1, item, dst + i * dst_st[0] * (int64_t)item, dst_st + 1,
                                src + i * src_st[0] * (int64_t)item, src_st + 1));
        return CPN_OK;
    }
    static struct cpn_fused_prog p;
    if (!cpn_cuda_copy_prog(&p, n, ext, item, dst, dst_st, src, src_st))
        return cpn_error(CPN_ERR_INTERNAL, "cupynum: no device copy for %zu-byte elements", item);
    if (!cpn_cuda_prog_supported(&p))
        return cpn_error(CPN_ERR_INTERNAL, "cupynum: the device copy program is not supported");
    return cpn_cuda_run_prog(&p);
}

enum cpn_status cpn_cuda_copy_region(int n, const int64_t *ext_in, size_t item, void *dst, const int64_t *dst_in,
                                     const void *src, const int64_t *src_in)
{
    /* Unit dimensions dropped, dimensions both sides walk contiguously merged. */
    int64_t ext[CPN_MAXDIM], dst_st[CPN_MAXDIM], src_st[CPN_MAXDIM];
    int nd = 0;
    for (int d = 0; d < n; d++) {
        if (ext_in[d] <= 0) return CPN_OK;
        if (ext_in[d] == 1) continue;
        if (nd > 0 && dst_st[nd - 1] == dst_in[d] * ext_in[d] && src_st[nd - 1] == src_in[d] * ext_in[d]) {
            ext[nd - 1] *= ext_in[d];
            dst_st[nd - 1] = dst_in[d];
            src_st[nd - 1] = src_in[d];
            continue;
        }
        ext[nd] = ext_in[d];
        dst_st[nd] = dst_in[d];
        src_st[nd] = src_in[d];
        nd++;
    }
    if (nd == 0) {
        CUDA_TRY(cudaMemcpyAsync(dst, src, item, cudaMemcpyDeviceToDevice, stream()));
        return CPN_OK;
    }
    if (nd == 1 && dst_st[0] == 1 && src_st[0] == 1) {
        CUDA_TRY(cudaMemcpyAsync(dst, src, (size_t)ext[0] * item, cudaMemcpyDeviceToDevice, stream()));
        return CPN_OK;
    }
    const int64_t max_pitch = (int64_t)1 << 30;   /* well below cudaDeviceProp.memPitch */
    if (nd == 2 && dst_st[1] == 1 && src_st[1] == 1 && dst_st[0] >= ext[1] && src_st[0] >= ext[1] &&
        dst_st[0] * (int64_t)item < max_pitch && src_st[0] * (int64_t)item < max_pitch) {
        /* rows of a box: pitched */
        CUDA_TRY(cudaMemcpy2DAsync(dst, (size_t)dst_st[0] * item, src, (size_t)src_st[0] * item,
                                     (size_t)ext[1] * item, (size_t)ext[0], cudaMemcpyDeviceToDevice, stream()));
        return CPN_OK;
    }
    return copy_kernel(nd, ext, item, dst, dst_st, src, src_st);
}

/* ---- region computations ---------------------------------------------------------------------- */

/* The op's instruction over an ndim-dimensional region (externals not bound); false when the
 * device cannot run it. */
static bool region_prog(const struct cpn_op *op, struct cpn_fused_prog *p, int ndim, const int64_t *ext)
{
    if (op->nout != 1 || ndim > CPN_DEV_MAXDIM) return false;
    switch (op->kind) {
    case CPN_OPK_ELEMENTWISE:
        /* Integer power may fail on its data (negative exponents): the host loop reports it. */
        if ((cpn_op_info(op->code)->flags & CPN_OPF_NEGEXP) && cpn_dtype_class(op->dtype) != CPN_CLASS_FLOAT)
            return false;
        break;
    case CPN_OPK_CAST: break;
    default: return false;
    }
    struct cpn_fused_instr *in = &p->instr[0];
    memset(in, 0, sizeof *in);
    in->kind = CPN_FI_LOOP;
    in->code = op->kind == CPN_OPK_CAST ? -1 : op->code;
    in->in_dt = op->in[0] ? op->in[0]->dtype : op->dtype;   /* as cpn_cuda_compute */
    in->out_dt = op->out[0]->dtype;
    in->narg = op->nin + 1;
    for (int i = 0; i < op->nin; i++) in->arg[i].kind = op->in[i] ? CPN_FARG_EXT : CPN_FARG_SCALAR;
    in->arg[op->nin].kind = CPN_FARG_EXT;
    p->ninstr = 1;
    p->nslots = 0;
    p->fpe = NULL;
    p->reduce_out = NULL;
    p->next = 0;
    p->ndim = ndim;
    for (int d = 0; d < ndim; d++) p->shape[d] = ext[d];
    return cpn_cuda_prog_supported(p);
}

bool cpn_cuda_region_supported(const struct cpn_op *op)
{
    static struct cpn_fused_prog p;
    return region_prog(op, &p, op->out[0]->ndim, op->out[0]->shape);
}

/* The region bound as an op of its own, computed as any other (cpn_cuda_compute).  Floating-point
 * reports as there: an op computes several regions (interior, border slabs); the first one's word
 * (*fp names it already) takes the others' findings too, so the op has one word. */
enum cpn_status cpn_cuda_compute_region(const struct cpn_op *op, char *const *ptr, int ndim, const int64_t *ext,
                                        const int64_t *const *strides, struct cpn_fpreport *fp)
{
    static struct cpn_fused_prog p;
    if (!region_prog(op, &p, ndim, ext))
        return cpn_error(CPN_ERR_INTERNAL, "cupynum: a region of an op the device cannot run");
    struct cpn_bound_op b;
    cpn_bind_region(op, ptr, ndim, ext, strides, &b);
    return cpn_cuda_compute(&b, fp);
}

/* ---- NCCL --------------------------------------------------------------------------------------- */

/* The few declarations of nccl.h used here (its ABI: ncclResult_t and ncclDataType_t are enums,
 * ncclSuccess = 0, ncclUint8 = 1, ncclUniqueId is NCCL_UNIQUE_ID_BYTES = 128 bytes, ncclComm_t
 * an opaque pointer), so that building needs no NCCL. */
typedef int nccl_result;
typedef struct cpn_nccl_comm *nccl_comm;
typedef struct {
    char internal[128];
} nccl_id;
enum { NCCL_UINT8 = 1 };
#if defined(__has_include)
#if __has_include(<nccl.h>)
/* Where the header is at hand, it confirms these. */
#include <nccl.h>
_Static_assert(sizeof(ncclUniqueId) == sizeof(nccl_id), "ncclUniqueId's size");
_Static_assert((int)ncclUint8 == (int)NCCL_UINT8 && (int)ncclSuccess == 0, "NCCL's enum values");
_Static_assert(sizeof(ncclResult_t) == sizeof(nccl_result) && sizeof(ncclDataType_t) == sizeof(int),
               "NCCL's enums are ints");
#endif
#endif

static struct {
    int state;   /* 0: not set up; 1: NCCL; 2: staging through the host over MPI; -1: setup failed */
    void *lib;
    const char *why;   /* why staging */
    nccl_result (*get_id)(nccl_id *);
    nccl_result (*init_rank)(nccl_comm *, int, nccl_id, int);
    nccl_result (*send)(const void *, size_t, int, int, nccl_comm, cudaStream_t);
    nccl_result (*recv)(void *, size_t, int, int, nccl_comm, cudaStream_t);
    nccl_result (*group_start)(void);
    nccl_result (*group_end)(void);
    nccl_result (*async_error)(nccl_comm, nccl_result *);
    const char *(*errstr)(nccl_result);
    nccl_comm comm;
} nc;

static enum cpn_status nccl_error(const char *call, nccl_result r)
{
    return cpn_error(CPN_ERR_DEVICE, "cupynum: %s failed: %s (NCCL error %d)", call,
                     nc.errstr ? nc.errstr(r) : "unknown", r);
}

#define NCCL_CHECK(call, expr)                                                               \
    do {                                                                                     \
        nccl_result cpn_nccl_r_ = (expr);                                                    \
        if (cpn_nccl_r_ != 0) return nccl_error(call, cpn_nccl_r_);                          \
    } while (0)

static bool load(void)
{
    const char *env = getenv("CUPYNUM_NCCL");
    if (env && !strcmp(env, "0")) {
        nc.why = "CUPYNUM_NCCL=0";
        return false;
    }
    static const char *names[] = {"libnccl.so.2", "libnccl.so", "/usr/local/cuda/lib/libnccl.so.2",
                                  "/usr/local/cuda/lib64/libnccl.so.2"};
    for (size_t i = 0; i < sizeof names / sizeof names[0] && !nc.lib; i++)
        nc.lib = dlopen(names[i], RTLD_NOW | RTLD_LOCAL);
    if (!nc.lib) {
        nc.why = "libnccl.so.2 was not found";
        return false;
    }
#define SYM(field, name)                                                                    \
    if (!(*(void **)&nc.field = dlsym(nc.lib, name))) {                                     \
        nc.why = "libnccl lacks " name;                                                     \
        dlclose(nc.lib);                                                                    \
        nc.lib = NULL;                                                                      \
        return false;                                                                       \
    }
    SYM(get_id, "ncclGetUniqueId")
    SYM(init_rank, "ncclCommInitRank")
    SYM(send, "ncclSend")
    SYM(recv, "ncclRecv")
    SYM(group_start, "ncclGroupStart")
    SYM(group_end, "ncclGroupEnd")
    SYM(async_error, "ncclCommGetAsyncError")
    SYM(errstr, "ncclGetErrorString")
#undef SYM
    return true;
}

/* Choose the transport, the same on every rank, and bootstrap the communicator.  Collective
 * (every rank reaches its first exchange in the same op). */
static enum cpn_status setup(void)
{
    if (nc.state == -1) return cpn_error(CPN_ERR_DEVICE, "cupynum: the NCCL communicator could not be set up");
    if (nc.state) return CPN_OK;
    nc.state = -1;
    /* NCCL refuses two ranks on one GPU (more ranks than devices on a node): every rank's
     * device UUID, compared everywhere alike. */
    int device = 0;
    struct cudaDeviceProp prop;
    CUDA_TRY(cudaGetDevice(&device));
    CUDA_TRY(cudaGetDeviceProperties(&prop, device));
    const int P = cpn_comm_size();
    char *uuids = cpn_alloc((size_t)P * 16);
    size_t *counts = cpn_alloc((size_t)P * sizeof *counts);
    enum cpn_status st = uuids && counts ? CPN_OK : CPN_ERR_NOMEM;
    for (int r = 0; st == CPN_OK && r < P; r++) counts[r] = 16;
    if (st == CPN_OK) st = cpn_comm_allgatherv(prop.uuid.bytes, uuids, counts);
    bool shared = false;
    for (int a = 0; st == CPN_OK && a < P; a++)
        for (int b = a + 1; b < P; b++) shared |= !memcmp(uuids + 16 * a, uuids + 16 * b, 16);
    cpn_free(uuids);
    cpn_free(counts);
    if (st != CPN_OK) return st;
    int64_t have = !shared && load() ? 1 : 0;
    CPN_TRY(cpn_comm_allreduce_min(&have));
    if (!have) {
        if (shared) nc.why = "ranks share a GPU";
        else if (!nc.why) nc.why = "NCCL is missing on another rank";
        nc.state = 2;
        return CPN_OK;
    }
    struct {
        int32_t ok, code;
        nccl_id id;
    } boot;
    memset(&boot, 0, sizeof boot);
    if (cpn_comm_rank() == 0) {
        boot.code = nc.get_id(&boot.id);
        boot.ok = boot.code == 0;
    }
    CPN_TRY(cpn_comm_bcast(&boot, sizeof boot, 0));
    if (!boot.ok) return nccl_error("ncclGetUniqueId (on rank 0)", boot.code);
    /* The device is bound (cuda_init ran at runtime initialisation, on this thread). */
    NCCL_CHECK("ncclCommInitRank", nc.init_rank(&nc.comm, cpn_comm_size(), boot.id, cpn_comm_rank()));
    nc.state = 1;
    return CPN_OK;
}

static int nccl_token;   /* the handle of an exchange posted over NCCL */

/* An exchange staged through host buffers: msgs[0..nrecv) receive, msgs[nrecv..) were sent. */
struct staged {
    void *mpi;
    int nrecv, nsend;
    struct cpn_msg *dev;    /* the device-side receives */
    struct cpn_msg *msgs;   /* host-side receives, then sends */
};

static void staged_free(struct staged *s)
{
    if (!s) return;
    if (s->msgs)
        for (int i = 0; i < s->nrecv + s->nsend; i++) cpn_free(s->msgs[i].buf);
    cpn_free(s->msgs);
    cpn_free(s->dev);
    cpn_free(s);
}

static enum cpn_status staged_post(int nrecv, const struct cpn_msg *recvs, int nsend, const struct cpn_msg *sends,
                                   void **handle)
{
    struct staged *s = cpn_alloc(sizeof *s);
    if (!s) return CPN_ERR_NOMEM;
    memset(s, 0, sizeof *s);
    s->nrecv = nrecv;
    s->nsend = nsend;
    s->dev = cpn_alloc((size_t)(nrecv + 1) * sizeof *s->dev);
    s->msgs = cpn_alloc_zeroed((size_t)(nrecv + nsend + 1) * sizeof *s->msgs);
    enum cpn_status st = s->dev && s->msgs ? CPN_OK : CPN_ERR_NOMEM;
    for (int i = 0; st == CPN_OK && i < nrecv + nsend; i++) {
        const struct cpn_msg *m = i < nrecv ? &recvs[i] : &sends[i - nrecv];
        s->msgs[i] = (struct cpn_msg){m->peer, m->tag, cpn_alloc(m->bytes ? m->bytes : 1), m->bytes};
        if (!s->msgs[i].buf) st = CPN_ERR_NOMEM;
        if (i < nrecv) s->dev[i] = *m;
    }
    for (int i = nrecv; st == CPN_OK && i < nrecv + nsend; i++) {
        cudaError_t e = cudaMemcpyAsync(s->msgs[i].buf, sends[i - nrecv].buf, s->msgs[i].bytes,
                                        cudaMemcpyDeviceToHost, stream());
        if (e != cudaSuccess)
            st = cpn_error(CPN_ERR_DEVICE, "cupynum: staging a message to the host failed: %s", cudaGetErrorString(e));
    }
    if (st == CPN_OK) {
        cudaError_t e = cudaStreamSynchronize(stream());
        if (e != cudaSuccess)
            st = cpn_error(CPN_ERR_DEVICE, "cupynum: cudaStreamSynchronize failed: %s", cudaGetErrorString(e));
    }
    if (st == CPN_OK) st = cpn_comm_post(nrecv, s->msgs, nsend, s->msgs + nrecv, &s->mpi);
    if (st != CPN_OK) {
        staged_free(s);
        return st;
    }
    *handle = s;
    return CPN_OK;
}

static enum cpn_status staged_wait(struct staged *s)
{
    enum cpn_status st = cpn_comm_wait(s->mpi);
    for (int i = 0; st == CPN_OK && i < s->nrecv; i++) {
        cudaError_t e = cudaMemcpyAsync(s->dev[i].buf, s->msgs[i].buf, s->dev[i].bytes, cudaMemcpyHostToDevice,
                                        stream());
        if (e != cudaSuccess)
            st = cpn_error(CPN_ERR_DEVICE, "cupynum: staging a message to the device failed: %s", cudaGetErrorString(e));
    }
    /* The host buffers are freed below: wait for the copies out of them. */
    cudaError_t e = cudaStreamSynchronize(stream());
    if (st == CPN_OK && e != cudaSuccess)
        st = cpn_error(CPN_ERR_DEVICE, "cupynum: cudaStreamSynchronize failed: %s", cudaGetErrorString(e));
    staged_free(s);
    return st;
}

enum cpn_status cpn_cuda_xchg_post(int nrecv, const struct cpn_msg *recvs, int nsend, const struct cpn_msg *sends,
                                   void **handle)
{
    *handle = NULL;
    CPN_TRY(setup());
    if (nrecv + nsend == 0) return CPN_OK;
    if (nc.state == 2) return staged_post(nrecv, recvs, nsend, sends, handle);
    /* One group: every receive and send of the exchange, queued on the backend's stream.  A
     * peer's messages are matched in posting order, which every rank shares (dist.c). */
    NCCL_CHECK("ncclGroupStart", nc.group_start());
    nccl_result r = 0;
    const char *call = NULL;
    int64_t bytes = 0;
    for (int i = 0; !r && i < nrecv; i++) {
        r = nc.recv(recvs[i].buf, recvs[i].bytes, NCCL_UINT8, recvs[i].peer, nc.comm, stream());
        call = "ncclRecv";
    }
    for (int i = 0; !r && i < nsend; i++) {
        r = nc.send(sends[i].buf, sends[i].bytes, NCCL_UINT8, sends[i].peer, nc.comm, stream());
        call = "ncclSend";
        bytes += (int64_t)sends[i].bytes;
    }
    nccl_result end = nc.group_end();   /* closes the group whatever happened inside it */
    if (r) return nccl_error(call, r);
    if (end) return nccl_error("ncclGroupEnd", end);
    cpn_comm_count_sent(bytes, nsend);
    *handle = &nccl_token;
    return CPN_OK;
}

enum cpn_status cpn_cuda_xchg_wait(void *handle)
{
    if (!handle) return CPN_OK;
    if (handle != &nccl_token) return staged_wait(handle);
    /* Stream-ordered: the kernels queued next see the received bytes.  Report a failure NCCL
     * found asynchronously. */
    nccl_result async = 0;
    NCCL_CHECK("ncclCommGetAsyncError", nc.async_error(nc.comm, &async));
    if (async) return nccl_error("an NCCL exchange", async);
    return CPN_OK;
}

const struct cpn_transport_i cpn_cuda_transport = {
    .device = true,
    .tile = cpn_transport_device_tile,
    .alloc = cpn_alloc_device,
    .release = cpn_free_device,
    .copy_region = cpn_cuda_copy_region,
    .xchg_post = cpn_cuda_xchg_post,
    .xchg_wait = cpn_cuda_xchg_wait,
    .region_supported = cpn_cuda_region_supported,
    .compute_region = cpn_cuda_compute_region,
    .reduce_region = cpn_cuda_reduce_region,
};
