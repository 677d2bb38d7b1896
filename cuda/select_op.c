/* select_op.c: the COMPACT, NONZERO, GATHER and plain SCATTER ops on the device (select.h): the
 * op's views become select.cu's strided layouts (a gather's or scatter's rows: dimension 0's
 * stride, the trailing dimensions a layout of their own). */
#include "select.h"

#include <string.h>

#include "devselect.h"
#include "store.h"
#include "view.h"

_Static_assert((int)CPN_CUB_AT_SET == (int)CPN_DEVSEL_SET && (int)CPN_CUB_AT_ADD == (int)CPN_DEVSEL_ADD &&
                   (int)CPN_CUB_AT_SUB == (int)CPN_DEVSEL_SUB && (int)CPN_CUB_AT_MUL == (int)CPN_DEVSEL_MUL &&
                   (int)CPN_CUB_AT_MAX == (int)CPN_DEVSEL_MAX && (int)CPN_CUB_AT_MIN == (int)CPN_DEVSEL_MIN,
               "select.h's enum cpn_cub_at is devselect.h's enum cpn_devsel_at");
_Static_assert((int)CPN_CUB_I8 == (int)CPN_DTYPE_INT8 && (int)CPN_CUB_U64 == (int)CPN_DTYPE_UINT64,
               "reduce.h's dtype codes are enum cpn_dtype's");

/* v's layout from dimension `from` on, its byte offset in *off. */
static void layout_of(const struct cpn_view *v, int from, struct cpn_cub_layout *l, int64_t *st0, int64_t *off)
{
    int64_t st[CPN_MAXDIM];
    cpn_view_byte_layout(v, st, off);
    memset(l, 0, sizeof *l);
    for (int d = from; d < v->ndim; d++) {
        l->shape[d - from] = v->shape[d];
        l->stride[d - from] = st[d];
    }
    l->ndim = v->ndim - from;
    if (st0) *st0 = v->ndim ? st[0] : 0;
}

static int64_t byte_offset(const struct cpn_view *v)
{
    int64_t st[CPN_MAXDIM], off;
    cpn_view_byte_layout(v, st, &off);
    return off;
}

/* The view's buffer: host memory (CPN_CUB_HOST), or the device copy, read or written. */
static char *buffer(const struct cpn_view *v, bool host, bool write, bool overwrite)
{
    return host ? cpn_store_data(v->store) : cpn_store_device_data(v->store, write, overwrite);
}

enum cpn_status cpn_cuda_select_op(const struct cpn_op *op, cudaStream_t stream)
{
    if (!cpn_devselect_supported(op)) return CPN_ERR_UNSUPPORTED;
    const bool host = stream == CPN_CUB_HOST;
    const struct cpn_view *out = op->out[0];
    const size_t item = cpn_dtype_size(out->dtype);
    struct cpn_cub_layout l0, l1;
    int64_t off0, off1, oofs, st0, st1;
    const bool over = op->kind != CPN_OPK_SCATTER && cpn_op_overwrites(op);
    char *a = buffer(op->in[0], host, false, false);
    char *b = op->nin > 1 ? buffer(op->in[1], host, false, false) : NULL;
    char *o = buffer(out, host, true, over);
    if (!a || (op->nin > 1 && !b) || !o) return CPN_ERR_NOMEM;
    cudaError_t e = cudaSuccess;
    switch (op->kind) {
    case CPN_OPK_COMPACT:
        layout_of(op->in[0], 0, &l0, NULL, &off0);
        layout_of(op->in[1], 0, &l1, NULL, &off1);
        oofs = byte_offset(out);
        e = cpn_cub_compact(item, a + off0, &l0, b + off1, &l1, op->iparam[0], o + oofs, stream);
        break;
    case CPN_OPK_NONZERO:
        layout_of(op->in[0], 0, &l0, NULL, &off0);
        oofs = byte_offset(out);
        e = cpn_cub_nonzero(a + off0, &l0, op->iparam[0], (int64_t *)(o + oofs), stream);
        break;
    case CPN_OPK_GATHER: {   /* out (contiguous) = in[0][in[1]] */
        layout_of(op->in[0], 1, &l0, &st0, &off0);
        layout_of(op->in[1], 0, &l1, NULL, &off1);
        oofs = byte_offset(out);
        e = cpn_cub_gather(item, a + off0, op->in[0]->shape[0], st0, &l0, b + off1, l1.stride[0], op->in[1]->shape[0],
                           o + oofs, stream);
        break;
    }
    default: {   /* CPN_OPK_SCATTER: out[in[1][j]] = in[0][j] (ufunc.at: op(out[in[1][j]], in[0][j])) */
        struct cpn_cub_layout il;
        layout_of(out, 1, &l0, &st0, &oofs);
        layout_of(op->in[0], 1, &l1, &st1, &off0);
        layout_of(op->in[1], 0, &il, NULL, &off1);
        e = cpn_cub_scatter(out->dtype, cpn_devselect_at(op), item, o + oofs, out->shape[0], st0, &l0, a + off0, st1, &l1, b + off1, il.stride[0],
                            op->in[1]->shape[0], stream);
        break;
    }
    }
    if (e == cudaErrorMemoryAllocation) return CPN_ERR_NOMEM;
    if (e != cudaSuccess)
        return cpn_error(CPN_ERR_DEVICE, "cupynum: %s on the device failed: %s", cpn_op_describe(op),
                         cudaGetErrorString(e));
    return CPN_OK;
}
