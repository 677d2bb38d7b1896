/* op.c: the op table's metadata rows, expanded from ops.def. */
#include "op.h"

#include <math.h>
#include <string.h>

#define DTBIT(E, ...) | (1u << CPN_DTYPE_##E)

static const struct cpn_op_info info[] = {
#define OP(E, FN, NIN, NOUT, O0, O1, IN1, DTS, IDENT, FL, RED, ACC, FPC)                   \
    {#FN, NIN, NOUT, {CPN_RESULT_##O0, CPN_RESULT_##O1}, CPN_RESULT_##IN1,                  \
     0u CPN_DTYPES_##DTS(DTBIT, _), CPN_IDENT_##IDENT, CPN_OPF_##FL, CPN_RED_##RED,         \
     CPN_ACC_##ACC, CPN_OPFPC_##FPC},
#include "ops.def"
#undef OP
};
_Static_assert(sizeof info / sizeof info[0] == CPN_OP_COUNT, "one info row per op");

/* The columns agree with each other: NumPy's loops of a SILENT op report nothing, so the device
 * classifies nothing either; an op whose reduction widens (INTP) combines (add, multiply). */
#define OP(E, FN, NIN, NOUT, O0, O1, IN1, DTS, IDENT, FL, RED, ACC, FPC)                   \
    _Static_assert(!(CPN_OPF_##FL & CPN_OPF_SILENT) || CPN_OPFPC_##FPC == CPN_OPFPC_NONE,   \
                   #FN ": a SILENT op has fpc NONE");                                       \
    _Static_assert(CPN_ACC_##ACC != CPN_ACC_INTP || CPN_RED_##RED == CPN_RED_SUM ||          \
                   CPN_RED_##RED == CPN_RED_PROD, #FN ": a widening reduction combines");
#include "ops.def"
#undef OP

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

enum cpn_status cpn_op_data_error(enum cpn_opcode code)
{
    (void)code;   /* NEGEXP is the one way an op fails on its data */
    return cpn_error(CPN_ERR_VALUE, "Integers to negative integer powers are not allowed.");
}

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

bool cpn_op_combines(enum cpn_opcode code)
{
    const enum cpn_op_reduce r = info[code].reduce;
    return r == CPN_RED_SUM || r == CPN_RED_PROD || r == CPN_RED_MAX || r == CPN_RED_MIN;
}

bool cpn_op_reorderable(enum cpn_opcode code) { return info[code].reduce != CPN_RED_NONE; }

int cpn_op_reduce_dtype(enum cpn_opcode code, enum cpn_dtype dt)
{
    if (info[code].acc != CPN_ACC_INTP) return -1;
    switch (dt) {
    case CPN_DTYPE_BOOL: case CPN_DTYPE_INT8: case CPN_DTYPE_INT16: case CPN_DTYPE_INT32:
        return CPN_DTYPE_INT64;
    case CPN_DTYPE_UINT8: case CPN_DTYPE_UINT16: case CPN_DTYPE_UINT32:
        return CPN_DTYPE_UINT64;
    default:
        return dt;
    }
}

void cpn_op_combine_identity(enum cpn_opcode code, enum cpn_dtype dt, void *dst)
{
    const enum cpn_op_reduce r = info[code].reduce;
    const size_t item = cpn_dtype_size(dt);
    memset(dst, 0, item);
    const double d = r == CPN_RED_SUM ? 0.0 : r == CPN_RED_PROD ? 1.0 : r == CPN_RED_MAX ? -INFINITY : INFINITY;
    switch (cpn_dtype_class(dt)) {
    case CPN_CLASS_BOOL:
        *(unsigned char *)dst = r == CPN_RED_PROD || r == CPN_RED_MIN;
        return;
    case CPN_CLASS_FLOAT:
    case CPN_CLASS_COMPLEX: {   /* a complex identity has imaginary part 0 */
        const size_t part = cpn_dtype_class(dt) == CPN_CLASS_COMPLEX ? item / 2 : item;
        if (part == 2) {
            _Float16 h = (_Float16)d;
            memcpy(dst, &h, 2);
        } else if (part == 4) {
            float f = (float)d;
            memcpy(dst, &f, 4);
        } else {
            memcpy(dst, &d, 8);
        }
        return;
    }
    default:
        break;
    }
    const bool is_signed = cpn_dtype_class(dt) == CPN_CLASS_INT;
    const int bits = 8 * (int)item;
    uint64_t v;   /* the value's low `bits` bits (little-endian: its first bytes) */
    if (r == CPN_RED_SUM || r == CPN_RED_PROD)
        v = r == CPN_RED_PROD;
    else if (is_signed)
        v = r == CPN_RED_MAX ? (uint64_t)1 << (bits - 1) : ((uint64_t)1 << (bits - 1)) - 1;
    else
        v = r == CPN_RED_MAX ? 0 : bits == 64 ? UINT64_MAX : ((uint64_t)1 << bits) - 1;
    memcpy(dst, &v, item);
}
