/* devsort.h: which sort ops (CPN_OPK_SORT) the device sort takes (cuda/sort.cu: CUB's radix sort
 * of order keys, segmented for `axis=`).  The CUDA backend and the simulated device
 * (backend_sim.c) decide with this one function, so the simulated device runs exactly the
 * coverage of the GPU.  Pure, Local. */
#ifndef CPN_DEVSORT_H
#define CPN_DEVSORT_H

#include <stdbool.h>
#include <stdint.h>

#include "opsem.h"
#include "view.h"

/* bool, integers, float32 and float64 (float16 and complex: the host's), at most 2^31 - 1
 * elements (CUB's segment offsets are int); lexsort's steps (nin == 2): the host's. */
static inline bool cpn_devsort_supported(const struct cpn_op *op)
{
    if (op->kind != CPN_OPK_SORT || op->nin != 1 || !op->in[0] || !op->out[0]) return false;
    const enum cpn_dtype dt = op->in[0]->dtype;
    if (dt == CPN_DTYPE_FLOAT16 || cpn_dtype_class(dt) == CPN_CLASS_COMPLEX || dt > CPN_DTYPE_FLOAT64) return false;
    const struct cpn_view *v = op->in[0];
    if (v->ndim && (op->iparam[0] < 0 || op->iparam[0] >= v->ndim)) return false;
    int64_t n = 1;
    for (int d = 0; d < v->ndim; d++) {
        if (v->shape[d] > INT32_MAX) return false;
        n *= v->shape[d];
        if (n > INT32_MAX) return false;
    }
    return true;
}

#endif
