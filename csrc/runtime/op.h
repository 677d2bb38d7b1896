/* op.h: the deferred op record and the enums the op table expands into.
 *
 * An op names output views, input views (or inline scalars) and parameters.  The module builds
 * ops fully resolved: inputs already have the loop dtype and the output's shape (broadcast), so
 * the executor never re-derives NumPy's rules. */
#ifndef CPN_OP_H
#define CPN_OP_H

#include <stdint.h>

#include "dtype.h"
#include "view.h"

enum cpn_opcode {
#define OP(E, FN, NIN, KIND, CLASSES, IDENT) CPN_OP_##E,
#include "ops.def"
#undef OP
    CPN_OP_COUNT
};

enum cpn_op_result { CPN_RESULT_ARITH, CPN_RESULT_CMP, CPN_RESULT_REAL, CPN_RESULT_COUNT };
enum cpn_identity { CPN_IDENT_NONE, CPN_IDENT_ZERO, CPN_IDENT_ONE, CPN_IDENT_COUNT };

struct cpn_op_info {
    const char *name;      /* NumPy's ufunc name */
    int nin;
    enum cpn_op_result result;
    unsigned classes;      /* bit (1 << enum cpn_dtype_class) per supported class */
    enum cpn_identity identity;
};

/* The table row of `code`.  Local. */
const struct cpn_op_info *cpn_op_info(enum cpn_opcode code);
/* The op whose NumPy name is `name`, or -1.  Local. */
int cpn_op_lookup(const char *name);
/* Output dtype of element-wise op `code` on loop dtype `dt`.  Local. */
enum cpn_dtype cpn_op_out_dtype(enum cpn_opcode code, enum cpn_dtype dt);

/* What an op does; each kind has one executor entry (queue.c). */
enum cpn_opkind {
    CPN_OPK_ELEMENTWISE,   /* out[0] = code(in...), loop dtype `dtype` */
    CPN_OPK_CAST,          /* out[0] = (out dtype) in[0]; also plain copies and fills */
    CPN_OPK_ARANGE,        /* out[0][i] = dparam[0] + i * dparam[1] (ints: iparam) */
    CPN_OPK_RANDOM,        /* Philox draws; code: enum cpn_random_dist */
    CPN_OPK_REDUCE,        /* out[0] = reduce code over `axes` of in[0]; iparam[0] = 1: start
                            * from scalar[1] (the initial value, accumulator dtype) */
    CPN_OPK_ARGREDUCE,     /* out[0] (int64) = argmax (code MAXIMUM) / argmin (MINIMUM) over the
                            * `axes` of in[0], as a C-order index over the reduced dimensions */
    CPN_OPK_SCAN,          /* out[0] = accumulate of op code along axis iparam[0] of in[0]
                            * (same dtype as out[0]) */
    CPN_OPK_MATMUL,        /* out[0] = in[0] @ in[1], 2-D */
    CPN_OPK_COUNT
};

enum cpn_random_dist { CPN_RANDOM_UNIFORM, CPN_RANDOM_NORMAL, CPN_RANDOM_COUNT };

#define CPN_OP_MAXIN 3
#define CPN_OP_MAXOUT 2

struct cpn_op {
    enum cpn_opkind kind;
    int code;
    enum cpn_dtype dtype;               /* loop dtype of the inputs */
    int nin, nout;
    struct cpn_view *in[CPN_OP_MAXIN];  /* NULL: the input is scalar[i], broadcast */
    union cpn_scalar scalar[CPN_OP_MAXIN];
    struct cpn_view *out[CPN_OP_MAXOUT];
    uint64_t axes;                      /* REDUCE: bit d set when dimension d of in[0] is reduced */
    int64_t iparam[4];
    double dparam[4];
};

/* A human-readable name of the op for error messages ("add", "cast", "matmul").  Local. */
const char *cpn_op_describe(const struct cpn_op *op);

#endif
