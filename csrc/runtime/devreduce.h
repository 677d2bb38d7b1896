/* devreduce.h: which reductions, scans and argreductions the device backends run.
 *
 * One predicate for the CUDA backend (cuda/reduce_op.c, CUB) and the simulated device
 * (backend_sim.c, the CPU kernels on its device buffers), so the sim's coverage is the GPU's and
 * the executor paths the sim tests are the ones a GPU takes.  Covered, by ops.def's reduce
 * column: REDUCE of SUM, PROD, MAX, MIN ops (add, multiply, maximum, minimum) and into bool of OR
 * and AND ops (logical_or, logical_and), SCAN of SUM, PROD, MAX, MIN ops, ARGREDUCE (argmax,
 * argmin), on bool, the integers, float32 and float64, with a non-empty input and output.  Not
 * covered (the host runs them): float16 and complex, other ops, float-to-integer accumulator
 * casts, empty reductions.
 *
 * The plan also names the type the device computes in (its "work" type): float32 and float64 in
 * themselves; integer and bool add/multiply in uint64 (wrapping arithmetic: the low bits of the
 * uint64 result are the narrow type's result, converted back when stored); integer maximum and
 * minimum in int64 or uint64 by signedness, bool's as 0/1 in uint64. */
#ifndef CPN_DEVREDUCE_H
#define CPN_DEVREDUCE_H

#include <stdbool.h>

#include "opsem.h"
#include "view.h"

enum cpn_devred_op { CPN_DRO_ADD, CPN_DRO_MUL, CPN_DRO_MAX, CPN_DRO_MIN };
enum cpn_devred_work { CPN_DRW_U64, CPN_DRW_I64, CPN_DRW_F32, CPN_DRW_F64 };

struct cpn_devred_plan {
    enum cpn_devred_op op;
    enum cpn_devred_work work;
};

static inline bool cpn_devred_dtype_ok(enum cpn_dtype dt)
{
    return dt <= CPN_DTYPE_UINT64 || dt == CPN_DTYPE_FLOAT32 || dt == CPN_DTYPE_FLOAT64;
}

/* Whether the device runs REDUCE, SCAN or ARGREDUCE op `op`; its plan into *pl (may be NULL). */
static inline bool cpn_devred_plan(const struct cpn_op *op, struct cpn_devred_plan *pl)
{
    if (op->kind != CPN_OPK_REDUCE && op->kind != CPN_OPK_SCAN && op->kind != CPN_OPK_ARGREDUCE) return false;
    if (op->nin < 1 || !op->in[0] || op->nout != 1 || !op->out[0]) return false;
    const struct cpn_view *in = op->in[0], *out = op->out[0];
    const enum cpn_dtype in_dt = in->dtype, acc_dt = op->kind == CPN_OPK_ARGREDUCE ? in_dt : out->dtype;
    if (!cpn_devred_dtype_ok(in_dt) || !cpn_devred_dtype_ok(acc_dt) || in->ndim > CPN_MAXDIM) return false;
    const bool acc_float = acc_dt == CPN_DTYPE_FLOAT32 || acc_dt == CPN_DTYPE_FLOAT64;
    const bool in_float = in_dt == CPN_DTYPE_FLOAT32 || in_dt == CPN_DTYPE_FLOAT64;
    if (in_float && !acc_float && acc_dt != CPN_DTYPE_BOOL) return false;   /* float -> int casts */
    if (op->kind == CPN_OPK_ARGREDUCE && out->dtype != CPN_DTYPE_INT64) return false;
    if (op->kind == CPN_OPK_SCAN && (in_dt != acc_dt || out->ndim != in->ndim)) return false;
    enum cpn_devred_op o;
    const enum cpn_op_reduce rc = cpn_op_info((enum cpn_opcode)op->code)->reduce;   /* ops.def */
    switch (rc) {
    case CPN_RED_SUM: o = CPN_DRO_ADD; break;
    case CPN_RED_PROD: o = CPN_DRO_MUL; break;
    case CPN_RED_MAX: o = CPN_DRO_MAX; break;
    case CPN_RED_MIN: o = CPN_DRO_MIN; break;
    case CPN_RED_OR: o = CPN_DRO_MAX; break;    /* on bool: the larger of 0 and 1 */
    case CPN_RED_AND: o = CPN_DRO_MIN; break;
    default: return false;
    }
    if ((rc == CPN_RED_OR || rc == CPN_RED_AND) && (op->kind != CPN_OPK_REDUCE || acc_dt != CPN_DTYPE_BOOL))
        return false;
    if (op->kind == CPN_OPK_ARGREDUCE && o != CPN_DRO_MAX && o != CPN_DRO_MIN) return false;
    /* Geometry: a non-empty input; a reduction's output holds one element per kept position. */
    int64_t n = 1, nkept = 1;
    for (int d = 0; d < in->ndim; d++) {
        n *= in->shape[d];
        if (op->kind == CPN_OPK_SCAN ? d != op->iparam[0] : !(op->axes >> d & 1)) nkept *= in->shape[d];
    }
    if (n == 0) return false;
    if (op->kind == CPN_OPK_SCAN) {
        if (op->iparam[0] < 0 || op->iparam[0] >= in->ndim) return false;
        for (int d = 0; d < in->ndim; d++)
            if (out->shape[d] != in->shape[d]) return false;
    } else if (cpn_view_size(out) != nkept || (in->ndim < 64 && op->axes >> in->ndim)) {
        return false;
    }
    if (pl) {
        pl->op = o;
        pl->work = acc_dt == CPN_DTYPE_FLOAT32 ? CPN_DRW_F32
                 : acc_dt == CPN_DTYPE_FLOAT64 ? CPN_DRW_F64
                 : (o == CPN_DRO_MAX || o == CPN_DRO_MIN) && cpn_dtype_class(acc_dt) == CPN_CLASS_INT ? CPN_DRW_I64
                 : CPN_DRW_U64;
    }
    return true;
}

#endif
