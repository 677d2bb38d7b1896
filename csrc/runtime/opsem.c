/* opsem.c: what a deferred op record means, for the executors and error messages. */
#include "opsem.h"

const char *cpn_op_describe(const struct cpn_op *op)
{
    switch (op->kind) {
    case CPN_OPK_ELEMENTWISE: return cpn_op_info(op->code)->name;
    case CPN_OPK_CAST: return "copy/cast";
    case CPN_OPK_ARANGE: return "arange";
    case CPN_OPK_RANDOM: return op->code == CPN_RANDOM_NORMAL ? "random.normal" : "random.uniform";
    case CPN_OPK_REDUCE: return cpn_op_info(op->code)->name;
    case CPN_OPK_MATMUL: return "matmul";
    case CPN_OPK_BINCOUNT: return "bincount";
    case CPN_OPK_ARGREDUCE: return op->code == CPN_OP_MAXIMUM ? "argmax" : "argmin";
    case CPN_OPK_SCAN: return cpn_op_info(op->code)->name;
    case CPN_OPK_QUANTILE: return op->iparam[0] == CPN_QM_MEDIAN ? "median" : "quantile";
    default: return "op";
    }
}
