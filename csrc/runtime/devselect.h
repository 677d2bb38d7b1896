/* devselect.h: which selection and indexing ops the device takes (cuda/select.cu): COMPACT
 * (a[mask], compress, extract), NONZERO (nonzero, argwhere, flatnonzero), GATHER (a[idx], take,
 * take_along_axis) and SCATTER (a[idx] = v, put, put_along_axis, a[idx] += v's write; the
 * integer dtypes' add/subtract/multiply/maximum/minimum.at).
 * The CUDA backend and the simulated device (backend_sim.c) decide with this one function, so the
 * simulated device runs exactly the coverage of the GPU.  Pure, Local. */
#ifndef CPN_DEVSELECT_H
#define CPN_DEVSELECT_H

#include <stdbool.h>
#include <stdint.h>

#include "op.h"
#include "opsem.h"
#include "view.h"

/* What a SCATTER writes: the plain store, or ufunc.at's op applied at the indices in order (the
 * integer dtypes' add, subtract, multiply, maximum and minimum: wrapping, never a floating-point
 * report).  cuda/select.h's enum cpn_cub_at mirrors it (select_op.c checks). */
enum cpn_devsel_at { CPN_DEVSEL_SET, CPN_DEVSEL_ADD, CPN_DEVSEL_SUB, CPN_DEVSEL_MUL, CPN_DEVSEL_MAX, CPN_DEVSEL_MIN };

static inline int64_t cpn_devselect_elements(const struct cpn_view *v)
{
    int64_t n = 1;
    for (int d = 0; d < v->ndim; d++) n *= v->shape[d];
    return n;
}

/* A SCATTER's enum cpn_devsel_at, or -1 for a ufunc.at the device leaves to the host (floats:
 * their floating-point reports; bool; other ops). */
static inline int cpn_devselect_at(const struct cpn_op *op)
{
    if (op->iparam[0] == 0) return CPN_DEVSEL_SET;
    const enum cpn_dtype dt = op->out[0] ? op->out[0]->dtype : CPN_DTYPE_BOOL;
    if (op->iparam[0] != 2 || dt < CPN_DTYPE_INT8 || dt > CPN_DTYPE_UINT64) return -1;
    switch (op->code) {
    case CPN_OP_ADD: return CPN_DEVSEL_ADD;
    case CPN_OP_SUBTRACT: return CPN_DEVSEL_SUB;
    case CPN_OP_MULTIPLY: return CPN_DEVSEL_MUL;
    case CPN_OP_MAXIMUM: return CPN_DEVSEL_MAX;
    case CPN_OP_MINIMUM: return CPN_DEVSEL_MIN;
    default: return -1;
    }
}

/* Every dtype (the kernels copy bytes).  COMPACT and NONZERO: masks below 2^31 elements (CUB's
 * scan counts in int); SCATTER: below 2^31 indices (its radix sort's), a ufunc.at only as
 * cpn_devselect_at says (the others apply the op in index order on the host). */
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
        return op->nin == 2 && op->in[0] && op->in[1] && op->out[0] && cpn_devselect_at(op) >= 0 &&
               op->out[0]->ndim >= 1 && op->in[1]->ndim == 1 && op->in[1]->shape[0] <= INT32_MAX;
    default:
        return false;
    }
}

#endif
