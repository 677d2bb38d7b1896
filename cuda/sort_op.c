/* sort_op.c: the SORT op on the device (sort.h): the op's views become sort.cu's strided layouts,
 * rows (every axis but the sorted one, in order) outer and the sorted axis inner. */
#include "sort.h"

#include <string.h>

#include "devsort.h"
#include "store.h"
#include "view.h"

enum cpn_status cpn_cuda_sort_op(const struct cpn_op *op, cudaStream_t stream)
{
    if (!cpn_devsort_supported(op)) return CPN_ERR_UNSUPPORTED;
    const struct cpn_view *in = op->in[0], *out = op->out[0];
    const int ax = (int)op->iparam[0];
    const int arg = (op->iparam[1] & CPN_SORT_ARG) != 0;
    int64_t ist[CPN_MAXDIM], ost[CPN_MAXDIM], ioff, ooff;
    cpn_view_byte_layout(in, ist, &ioff);
    cpn_view_byte_layout(out, ost, &ooff);
    struct cpn_cub_layout il, ol;
    memset(&il, 0, sizeof il);
    memset(&ol, 0, sizeof ol);
    int64_t nrows = 1, len = in->ndim ? in->shape[ax] : 1;
    int k = 0;
    for (int d = 0; d < in->ndim; d++) {
        if (d == ax) continue;
        il.shape[k] = ol.shape[k] = in->shape[d];
        il.stride[k] = ist[d];
        ol.stride[k++] = ost[d];
        nrows *= in->shape[d];
    }
    il.shape[k] = ol.shape[k] = len;
    il.stride[k] = in->ndim ? ist[ax] : 0;
    ol.stride[k++] = in->ndim ? ost[ax] : 0;
    il.ndim = ol.ndim = k;
    const bool host = stream == CPN_CUB_HOST;
    char *ib = host ? cpn_store_data(in->store) : cpn_store_device_data(in->store, false, false);
    if (!ib) return CPN_ERR_NOMEM;
    char *ob = host ? cpn_store_data(out->store) : cpn_store_device_data(out->store, true, cpn_op_overwrites(op));
    if (!ob) return CPN_ERR_NOMEM;
    cudaError_t e = cpn_cub_sort(in->dtype, arg, ib + ioff, &il, nrows, len, ob + ooff, &ol, stream);
    if (e == cudaErrorMemoryAllocation) return CPN_ERR_NOMEM;
    if (e != cudaSuccess)
        return cpn_error(CPN_ERR_DEVICE, "cupynum: %s on the device failed: %s", cpn_op_describe(op),
                         cudaGetErrorString(e));
    return CPN_OK;
}
