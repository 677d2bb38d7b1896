/* reduce_op.c: REDUCE, SCAN and ARGREDUCE ops on the device (reduce.h): the op's views become
 * the strided layouts of reduce.cu's entries, rows outer and the reduced or scanned positions
 * inner, each layout's dimensions merged where they nest contiguously. */
#include "reduce.h"

#include <string.h>

#include "alloc.h"
#include "devfpe.h"
#include "devreduce.h"
#include "fperr.h"
#include "kernels.h"
#include "opsem.h"
#include "store.h"
#include "cuda_transport.h"
#include "view.h"

_Static_assert(CPN_CUB_MAXDIM >= CPN_MAXDIM, "layouts hold every view");
_Static_assert((int)CPN_CUB_B == (int)CPN_DTYPE_BOOL && (int)CPN_CUB_I8 == (int)CPN_DTYPE_INT8
                   && (int)CPN_CUB_U8 == (int)CPN_DTYPE_UINT8 && (int)CPN_CUB_I16 == (int)CPN_DTYPE_INT16
                   && (int)CPN_CUB_U16 == (int)CPN_DTYPE_UINT16 && (int)CPN_CUB_I32 == (int)CPN_DTYPE_INT32
                   && (int)CPN_CUB_U32 == (int)CPN_DTYPE_UINT32 && (int)CPN_CUB_I64 == (int)CPN_DTYPE_INT64
                   && (int)CPN_CUB_U64 == (int)CPN_DTYPE_UINT64 && (int)CPN_CUB_F32 == (int)CPN_DTYPE_FLOAT32
                   && (int)CPN_CUB_F64 == (int)CPN_DTYPE_FLOAT64,
               "reduce.h's dtype codes are enum cpn_dtype's");
_Static_assert((int)CPN_CUB_ADD == (int)CPN_DRO_ADD && (int)CPN_CUB_MUL == (int)CPN_DRO_MUL
                   && (int)CPN_CUB_MAX == (int)CPN_DRO_MAX && (int)CPN_CUB_MIN == (int)CPN_DRO_MIN,
               "reduce.h's ops are devreduce.h's");
_Static_assert((int)CPN_CUB_W_U64 == (int)CPN_DRW_U64 && (int)CPN_CUB_W_I64 == (int)CPN_DRW_I64
                   && (int)CPN_CUB_W_F32 == (int)CPN_DRW_F32 && (int)CPN_CUB_W_F64 == (int)CPN_DRW_F64,
               "reduce.h's work types are devreduce.h's");

/* Append a dimension (outer to inner) to l: unit dimensions dropped, one that nests contiguously
 * inside the previous merged with it (the C-order enumeration is unchanged). */
static void put_dim(struct cpn_cub_layout *l, int64_t shape, int64_t stride)
{
    if (shape == 1) return;
    if (l->ndim > 0 && l->stride[l->ndim - 1] == stride * shape) {
        l->shape[l->ndim - 1] *= shape;
        l->stride[l->ndim - 1] = stride;
        return;
    }
    l->shape[l->ndim] = shape;
    l->stride[l->ndim++] = stride;
}

/* The initial value (one acc_dt value) as the work type, into w. */
static void initial_as_work(const union cpn_scalar *s, enum cpn_dtype acc_dt, enum cpn_devred_work work, void *w)
{
    uint64_t u = 0;
    int64_t i = 0;
    switch (acc_dt) {
    case CPN_DTYPE_BOOL: u = s->b ? 1 : 0; i = (int64_t)u; break;
    case CPN_DTYPE_INT8: i = s->i8; break;
    case CPN_DTYPE_UINT8: u = s->u8; break;
    case CPN_DTYPE_INT16: i = s->i16; break;
    case CPN_DTYPE_UINT16: u = s->u16; break;
    case CPN_DTYPE_INT32: i = s->i32; break;
    case CPN_DTYPE_UINT32: u = s->u32; break;
    case CPN_DTYPE_INT64: i = s->i64; break;
    case CPN_DTYPE_UINT64: u = s->u64; break;
    default: break;
    }
    if (cpn_dtype_class(acc_dt) == CPN_CLASS_INT) u = (uint64_t)i;   /* sign-extended, wrapping */
    switch (work) {
    case CPN_DRW_U64: memcpy(w, &u, sizeof u); break;
    case CPN_DRW_I64: memcpy(w, &i, sizeof i); break;
    case CPN_DRW_F32: memcpy(w, &s->f32, sizeof s->f32); break;
    case CPN_DRW_F64: memcpy(w, &s->f64, sizeof s->f64); break;
    }
}

enum cpn_status cpn_cuda_reduce_op(const struct cpn_op *op, cudaStream_t stream, struct cpn_fpreport *fp)
{
    struct cpn_devred_plan pl;
    if (!cpn_devred_plan(op, &pl)) return CPN_ERR_UNSUPPORTED;
    const struct cpn_view *in = op->in[0], *out = op->out[0];
    int64_t ist[CPN_MAXDIM], ost[CPN_MAXDIM], ioff, ooff;
    cpn_view_byte_layout(in, ist, &ioff);
    cpn_view_byte_layout(out, ost, &ooff);
    struct cpn_cub_layout il, ol;
    memset(&il, 0, sizeof il);
    memset(&ol, 0, sizeof ol);
    int64_t nrows = 1, len = 1;
    if (op->kind == CPN_OPK_SCAN) {
        const int ax = (int)op->iparam[0];
        for (int d = 0; d < in->ndim; d++) {
            if (d == ax) continue;
            put_dim(&il, in->shape[d], ist[d]);
            put_dim(&ol, out->shape[d], ost[d]);
            nrows *= in->shape[d];
        }
        put_dim(&il, in->shape[ax], ist[ax]);
        put_dim(&ol, out->shape[ax], ost[ax]);
        len = in->shape[ax];
    } else {
        for (int d = 0; d < in->ndim; d++)
            if (!(op->axes >> d & 1)) {
                put_dim(&il, in->shape[d], ist[d]);
                nrows *= in->shape[d];
            }
        for (int d = 0; d < in->ndim; d++)
            if (op->axes >> d & 1) {
                put_dim(&il, in->shape[d], ist[d]);
                len *= in->shape[d];
            }
        /* The output's elements in C order are the kept positions in C order (whatever unit
         * dimensions keepdims added). */
        for (int d = 0; d < out->ndim; d++) put_dim(&ol, out->shape[d], ost[d]);
    }
    /* Floating-point reports of a watched float reduction or scan: one report word (argmax and
     * argmin report nothing; integers only what their loops find, which add and multiply never
     * do).  Taken before the buffers: taking may collect the flush's words so far. */
    const bool host = stream == CPN_CUB_HOST;
    const bool watch = op->kind != CPN_OPK_ARGREDUCE && cpn_fperr_watches(op)
                       && (pl.work == CPN_DRW_F32 || pl.work == CPN_DRW_F64);
    uint32_t host_word = 0, *fpe = NULL;
    int word = -1;
    if (watch && host) {
        fpe = &host_word;
    } else if (watch) {
        CPN_TRY(cpn_devfpe_take(1, &word));
        fpe = cpn_devfpe_word(word);
    }
    /* Inputs first, so an output sharing their store sees them current. */
    char *ib = host ? cpn_store_data(in->store) : cpn_store_device_data(in->store, false, false);
    if (!ib) return CPN_ERR_NOMEM;
    char *ob = host ? cpn_store_data(out->store) : cpn_store_device_data(out->store, true, cpn_op_overwrites(op));
    if (!ob) return CPN_ERR_NOMEM;
    ib += ioff;
    ob += ooff;
    cudaError_t e;
    if (op->kind == CPN_OPK_REDUCE) {
        _Alignas(8) unsigned char init[8];
        if (op->iparam[0]) initial_as_work(&op->scalar[1], out->dtype, pl.work, init);
        e = cpn_cub_reduce(pl.op, pl.work, in->dtype, out->dtype, ib, &il, nrows, len, ob, &ol,
                           op->iparam[0] ? init : NULL, fpe, stream);
    } else if (op->kind == CPN_OPK_SCAN) {
        e = cpn_cub_scan(pl.op, pl.work, out->dtype, ib, &il, nrows, len, ob, &ol, fpe, stream);
    } else {
        /* argmax/argmin compare float32 values as float64 (exactly). */
        const int work = pl.work == CPN_DRW_F32 ? CPN_DRW_F64 : pl.work;
        e = cpn_cub_argreduce(pl.op == CPN_DRO_MAX, work, in->dtype, ib, &il, nrows, len, ob, &ol, stream);
    }
    if (e == cudaErrorMemoryAllocation) return CPN_ERR_NOMEM;
    if (e != cudaSuccess)
        return cpn_error(CPN_ERR_DEVICE, "cupynum: %s on the device failed: %s", cpn_op_describe(op),
                         cudaGetErrorString(e));
    if (host && watch) cpn_fpreport_add(fp, host_word & CPN_DEVFPE_HW_MASK, 0);
    else if (watch) cpn_devfpe_report(fp, word);   /* read after the flush */
    return CPN_OK;
}

enum cpn_status cpn_cuda_reduce_op_host(const struct cpn_op *op, struct cpn_fpreport *fp)
{
    return cpn_cuda_reduce_op(op, CPN_CUB_HOST, fp);
}

/* backend.h's reduce_region: the region's rows (kept positions, C order) reduced by CUB into a
 * temporary device buffer, one acc_dt value a row, copied to the host (after a stream sync) and
 * scattered to the kept positions of `part`.  No floating-point reports: the partial's findings
 * are not collected on this path (docs/architecture.md). */
enum cpn_status cpn_cuda_reduce_region(const struct cpn_op *op, const char *in, int ndim, const int64_t *ext,
                                       const int64_t *in_st, char *part, const int64_t *part_st,
                                       struct cpn_fpreport *fp)
{
    (void)fp;   /* nothing found on this path */
    struct cpn_devred_plan pl;
    if (op->kind != CPN_OPK_REDUCE || !cpn_devred_plan(op, &pl) || ndim < 0 || ndim > CPN_MAXDIM)
        return CPN_ERR_UNSUPPORTED;
    struct cpn_cub_layout il, ol;
    memset(&il, 0, sizeof il);
    memset(&ol, 0, sizeof ol);
    int64_t nrows = 1, len = 1, kext[CPN_MAXDIM];
    int nk = 0;
    for (int d = 0; d < ndim; d++)
        if (!(op->axes >> d & 1)) {
            put_dim(&il, ext[d], in_st[d]);
            nrows *= ext[d];
            kext[nk++] = ext[d];
        }
    for (int d = 0; d < ndim; d++)
        if (op->axes >> d & 1) {
            put_dim(&il, ext[d], in_st[d]);
            len *= ext[d];
        }
    if (nrows <= 0 || len <= 0) return CPN_ERR_UNSUPPORTED;
    const enum cpn_dtype acc = op->out[0]->dtype;
    const size_t item = cpn_dtype_size(acc), bytes = (size_t)nrows * item;
    put_dim(&ol, nrows, (int64_t)item);   /* contiguous rows (ndim 0 for one row) */
    char *dtmp = cpn_alloc_device(bytes);
    if (!dtmp) return CPN_ERR_NOMEM;
    char *htmp = cpn_alloc(bytes);
    if (!htmp) {
        cpn_free_device(dtmp, bytes);
        return CPN_ERR_NOMEM;
    }
    cudaStream_t stream = (cudaStream_t)cpn_cuda_stream();
    cudaError_t e = cpn_cub_reduce(pl.op, pl.work, op->in[0]->dtype, acc, in, &il, nrows, len, dtmp, &ol, NULL,
                                   NULL, stream);
    if (e == cudaSuccess) e = cudaMemcpyAsync(htmp, dtmp, bytes, cudaMemcpyDeviceToHost, stream);
    if (e == cudaSuccess) e = cudaStreamSynchronize(stream);
    cpn_free_device(dtmp, bytes);
    if (e != cudaSuccess) {
        cpn_free(htmp);
        if (e == cudaErrorMemoryAllocation) return CPN_ERR_NOMEM;
        return cpn_error(CPN_ERR_DEVICE, "cupynum: the partial of %s on the device failed: %s", cpn_op_describe(op),
                         cudaGetErrorString(e));
    }
    /* Row r (C order over the kept extents) to its kept position in part. */
    for (int64_t r = 0; r < nrows; r++) {
        int64_t rem = r, off = 0;
        for (int k = nk - 1; k >= 0; k--) {
            off += (rem % kext[k]) * part_st[k];
            rem /= kext[k];
        }
        memcpy(part + off, htmp + (size_t)r * item, item);
    }
    cpn_free(htmp);
    return CPN_OK;
}
