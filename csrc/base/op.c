/* op.c: the op table's metadata rows, expanded from ops.def. */
#include "op.h"

#include <string.h>

#define DTBIT(E, ...) | (1u << CPN_DTYPE_##E)

static const struct cpn_op_info info[] = {
#define OP(E, FN, NIN, NOUT, O0, O1, IN1, DTS, IDENT, FL)                                  \
    {#FN, NIN, NOUT, {CPN_RESULT_##O0, CPN_RESULT_##O1}, CPN_RESULT_##IN1,                  \
     0u CPN_DTYPES_##DTS(DTBIT, _), CPN_IDENT_##IDENT, CPN_OPF_##FL},
#include "ops.def"
#undef OP
};
_Static_assert(sizeof info / sizeof info[0] == CPN_OP_COUNT, "one info row per op");

static const struct {
    const char *name;
    enum cpn_opcode code;
} aliases[] = {
#define ALIAS(NAME, E) {#NAME, CPN_OP_##E},
#include "ops.def"
#undef ALIAS
};
#define N_ALIASES ((int)(sizeof aliases / sizeof aliases[0]))

const struct cpn_op_info *cpn_op_info(enum cpn_opcode code) { return &info[code]; }

int cpn_op_lookup(const char *name)
{
    for (int i = 0; i < CPN_OP_COUNT; i++)
        if (strcmp(info[i].name, name) == 0) return i;
    for (int i = 0; i < N_ALIASES; i++)
        if (strcmp(aliases[i].name, name) == 0) return (int)aliases[i].code;
    return -1;
}

int cpn_op_name_count(void) { return CPN_OP_COUNT + N_ALIASES; }

const char *cpn_op_name(int i)
{
    if (i < 0 || i >= CPN_OP_COUNT + N_ALIASES) return NULL;
    return i < CPN_OP_COUNT ? info[i].name : aliases[i - CPN_OP_COUNT].name;
}

static enum cpn_dtype kind_dtype(enum cpn_op_result kind, enum cpn_dtype dt)
{
    switch (kind) {
    case CPN_RESULT_BOOL: return CPN_DTYPE_BOOL;
    case CPN_RESULT_U8: return CPN_DTYPE_UINT8;
    case CPN_RESULT_I32: return CPN_DTYPE_INT32;
    case CPN_RESULT_I64: return CPN_DTYPE_INT64;
    case CPN_RESULT_REAL:
        if (dt == CPN_DTYPE_COMPLEX64) return CPN_DTYPE_FLOAT32;
        if (dt == CPN_DTYPE_COMPLEX128) return CPN_DTYPE_FLOAT64;
        return dt;
    default: return dt;
    }
}

enum cpn_dtype cpn_op_out_dtype(enum cpn_opcode code, int k, enum cpn_dtype dt)
{
    return kind_dtype(info[code].out[k], dt);
}

enum cpn_dtype cpn_op_in_dtype(enum cpn_opcode code, int i, enum cpn_dtype dt)
{
    return i == 1 ? kind_dtype(info[code].in1, dt) : dt;
}
