/* op.c: the op table's metadata rows, expanded from ops.def. */
#include "op.h"

#include <string.h>

#define CLS(x) (1u << CPN_CLASS_##x)
#define CLASSES_BIUFC (CLS(BOOL) | CLS(INT) | CLS(UINT) | CLS(FLOAT) | CLS(COMPLEX))
#define CLASSES_IUFC (CLS(INT) | CLS(UINT) | CLS(FLOAT) | CLS(COMPLEX))
#define CLASSES_IUF (CLS(INT) | CLS(UINT) | CLS(FLOAT))
#define CLASSES_BIU (CLS(BOOL) | CLS(INT) | CLS(UINT))
#define CLASSES_IU (CLS(INT) | CLS(UINT))
#define CLASSES_FC (CLS(FLOAT) | CLS(COMPLEX))

static const struct cpn_op_info info[] = {
#define OP(E, FN, NIN, KIND, CLASSES, IDENT) \
    {#FN, NIN, CPN_RESULT_##KIND, CLASSES_##CLASSES, CPN_IDENT_##IDENT},
#include "ops.def"
#undef OP
};
_Static_assert(sizeof info / sizeof info[0] == CPN_OP_COUNT, "one info row per op");

const struct cpn_op_info *cpn_op_info(enum cpn_opcode code) { return &info[code]; }

int cpn_op_lookup(const char *name)
{
    for (int i = 0; i < CPN_OP_COUNT; i++)
        if (strcmp(info[i].name, name) == 0) return i;
    return -1;
}

enum cpn_dtype cpn_op_out_dtype(enum cpn_opcode code, enum cpn_dtype dt)
{
    switch (info[code].result) {
    case CPN_RESULT_CMP: return CPN_DTYPE_BOOL;
    case CPN_RESULT_REAL:
        if (dt == CPN_DTYPE_COMPLEX64) return CPN_DTYPE_FLOAT32;
        if (dt == CPN_DTYPE_COMPLEX128) return CPN_DTYPE_FLOAT64;
        return dt;
    default: return dt;
    }
}

const char *cpn_op_describe(const struct cpn_op *op)
{
    switch (op->kind) {
    case CPN_OPK_ELEMENTWISE: return info[op->code].name;
    case CPN_OPK_CAST: return "copy/cast";
    case CPN_OPK_ARANGE: return "arange";
    case CPN_OPK_RANDOM: return op->code == CPN_RANDOM_NORMAL ? "random.normal" : "random.uniform";
    case CPN_OPK_REDUCE: return info[op->code].name;
    case CPN_OPK_MATMUL: return "matmul";
    case CPN_OPK_ARGREDUCE: return op->code == CPN_OP_MAXIMUM ? "argmax" : "argmin";
    case CPN_OPK_SCAN: return info[op->code].name;
    default: return "op";
    }
}
