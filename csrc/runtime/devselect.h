/* devselect.h: which selection and indexing ops the device takes (cuda/select.cu): COMPACT
 * (a[mask], compress, extract), NONZERO (nonzero, argwhere, flatnonzero), GATHER (a[idx], take,
 * take_along_axis) and the plain SCATTER (a[idx] = v, put, put_along_axis, a[idx] += v's write).
 * The CUDA backend and the simulated device (backend_sim.c) decide with this one function, so the
 * simulated device runs exactly the coverage of the GPU.  Pure, Local. */
#ifndef CPN_DEVSELECT_H
#define CPN_DEVSELECT_H

#include <stdbool.h>
#include <stdint.h>

#include "opsem.h"
#include "view.h"

static inline int64_t cpn_devselect_elements(const struct cpn_view *v)
{
    int64_t n = 1;
    for (int d = 0; d < v->ndim; d++) n *= v->shape[d];
    return n;
}

/* Every dtype (the kernels copy bytes).  COMPACT and NONZERO: masks below 2^31 elements (CUB's
 * scan counts in int); SCATTER: below 2^31 indices (its radix sort's), and not ufunc.at (the
 * accumulating scatter applies the op in index order on the host: iparam[0] != 0). */
static inline bool cpn_devselect_supported(const struct cpn_op *op)
{
    switch (op->kind) {
    case CPN_OPK_COMPACT:
        return op->nin == 2 && op->in[0] && op->in[1] && op->out[0] &&
               cpn_devselect_elements(op->in[1]) <= INT32_MAX;
    case CPN_OPK_NONZERO:
        return op->nin == 1 && op->in[0] && op->out[0] && op->in[0]->ndim >= 1 &&
               cpn_devselect_elements(op->in[0]) <= INT32_MAX;
    case CPN_OPK_GATHER:
        return op->nin == 2 && op->in[0] && op->in[1] && op->out[0] && op->in[0]->ndim >= 1 &&
               op->in[1]->ndim == 1;
    case CPN_OPK_SCATTER:
        return op->iparam[0] == 0 && op->nin == 2 && op->in[0] && op->in[1] && op->out[0] &&
               op->out[0]->ndim >= 1 && op->in[1]->ndim == 1 && op->in[1]->shape[0] <= INT32_MAX;
    default:
        return false;
    }
}

#endif
