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
#define OP(E, FN, NIN, NOUT, O0, O1, IN1, DTS, IDENT, FL) CPN_OP_##E,
#include "ops.def"
#undef OP
    CPN_OP_COUNT
};

/* The dtype of an op's output (or second input) given the loop dtype: ops.def's out0/out1/in1. */
enum cpn_op_result {
    CPN_RESULT_NONE,   /* no such output */
    CPN_RESULT_SAME,   /* the loop dtype */
    CPN_RESULT_BOOL,
    CPN_RESULT_REAL,   /* complex -> its real dtype, others unchanged */
    CPN_RESULT_U8,
    CPN_RESULT_I32,
    CPN_RESULT_I64,
    CPN_RESULT_COUNT
};
enum cpn_identity { CPN_IDENT_NONE, CPN_IDENT_ZERO, CPN_IDENT_ONE, CPN_IDENT_COUNT };

/* ops.def's flags: the op's floating-point reports (fperr.c, fusion.c, elementwise.c and, through
 * _core.op_info, cupynum/_ufunc.py read these, never a list of op names). */
enum cpn_op_flag {
    CPN_OPF_NONE = 0,
    CPN_OPF_SILENT = 1,     /* NumPy's loops report no floating-point error */
    CPN_OPF_INTDIV = 2,     /* integer loops divide: by zero gives 0 and "divide by zero" */
    CPN_OPF_QUOTIENT = 4,   /* integer loops also report "overflow" for MIN // -1 */
    CPN_OPF_INTDIV_Q = CPN_OPF_INTDIV | CPN_OPF_QUOTIENT,
};
/* The same flags as compile-time constants per op, CPN_OPFLAGS_<ENUM>, for code generated per op
 * (the loops' integer-division checks fold away in other ops). */
enum cpn_op_flags_of {
#define OP(E, FN, NIN, NOUT, O0, O1, IN1, DTS, IDENT, FL) CPN_OPFLAGS_##E = CPN_OPF_##FL,
#include "ops.def"
#undef OP
};

/* The dtype sets of ops.def: CPN_DTYPES_<set>(X, ...) expands X(ENUM, suffix, C type, class
 * letter, ...) once per dtype of the set, the extra arguments passed through.  The CPU loops,
 * their table and the metadata masks all expand from these, so they cannot disagree. */
#define CPN_DT_B(X, ...) X(BOOL, b, _Bool, B, __VA_ARGS__)
#define CPN_DT_I(X, ...)                                                                  \
    X(INT8, i8, int8_t, I, __VA_ARGS__) X(INT16, i16, int16_t, I, __VA_ARGS__)            \
    X(INT32, i32, int32_t, I, __VA_ARGS__) X(INT64, i64, int64_t, I, __VA_ARGS__)
#define CPN_DT_U(X, ...)                                                                  \
    X(UINT8, u8, uint8_t, U, __VA_ARGS__) X(UINT16, u16, uint16_t, U, __VA_ARGS__)        \
    X(UINT32, u32, uint32_t, U, __VA_ARGS__) X(UINT64, u64, uint64_t, U, __VA_ARGS__)
#define CPN_DT_F(X, ...)                                                                  \
    X(FLOAT16, f16, _Float16, F, __VA_ARGS__) X(FLOAT32, f32, float, F, __VA_ARGS__)      \
    X(FLOAT64, f64, double, F, __VA_ARGS__)
#define CPN_DT_C(X, ...)                                                                  \
    X(COMPLEX64, c64, float _Complex, C, __VA_ARGS__)                                     \
    X(COMPLEX128, c128, double _Complex, C, __VA_ARGS__)
#define CPN_DTYPES_BIUFC(X, ...) CPN_DT_B(X, __VA_ARGS__) CPN_DTYPES_IUFC(X, __VA_ARGS__)
#define CPN_DTYPES_IUFC(X, ...) CPN_DTYPES_IUF(X, __VA_ARGS__) CPN_DT_C(X, __VA_ARGS__)
#define CPN_DTYPES_BIUF(X, ...) CPN_DT_B(X, __VA_ARGS__) CPN_DTYPES_IUF(X, __VA_ARGS__)
#define CPN_DTYPES_IUF(X, ...) CPN_DT_I(X, __VA_ARGS__) CPN_DT_U(X, __VA_ARGS__) CPN_DT_F(X, __VA_ARGS__)
#define CPN_DTYPES_BIU(X, ...) CPN_DT_B(X, __VA_ARGS__) CPN_DT_I(X, __VA_ARGS__) CPN_DT_U(X, __VA_ARGS__)
#define CPN_DTYPES_IU(X, ...) CPN_DT_I(X, __VA_ARGS__) CPN_DT_U(X, __VA_ARGS__)
#define CPN_DTYPES_FC(X, ...) CPN_DT_F(X, __VA_ARGS__) CPN_DT_C(X, __VA_ARGS__)
#define CPN_DTYPES_F(X, ...) CPN_DT_F(X, __VA_ARGS__)
#define CPN_DTYPES_DZ(X, ...)                                                             \
    X(FLOAT64, f64, double, F, __VA_ARGS__) X(COMPLEX128, c128, double _Complex, C, __VA_ARGS__)

struct cpn_op_info {
    const char *name;      /* NumPy's ufunc name */
    int nin, nout;
    enum cpn_op_result out[2];   /* per output; out[1] is NONE for one-output ops */
    enum cpn_op_result in1;      /* SAME, or I64 for an int64 second input */
    unsigned dtypes;       /* bit (1 << enum cpn_dtype) per loop dtype */
    enum cpn_identity identity;
    unsigned flags;        /* CPN_OPF_* bits */
};

/* The table row of `code`.  Local. */
const struct cpn_op_info *cpn_op_info(enum cpn_opcode code);
/* The op whose NumPy name (or alias of ops.def) is `name`, or -1.  Local. */
int cpn_op_lookup(const char *name);
/* Number of names cpn_op_lookup knows (ops, then aliases) and the i-th of them.  Local. */
int cpn_op_name_count(void);
const char *cpn_op_name(int i);
/* Dtype of output `k` of element-wise op `code` on loop dtype `dt`.  Local. */
enum cpn_dtype cpn_op_out_dtype(enum cpn_opcode code, int k, enum cpn_dtype dt);
/* Dtype of input `i` of op `code` on loop dtype `dt` (the loop dtype but for ldexp's int64
 * exponent).  Local. */
enum cpn_dtype cpn_op_in_dtype(enum cpn_opcode code, int i, enum cpn_dtype dt);

/* What an op does; each kind has one executor entry (queue.c). */
enum cpn_opkind {
    CPN_OPK_ELEMENTWISE,   /* out[0] = code(in...), loop dtype `dtype` */
    CPN_OPK_CAST,          /* out[0] = (out dtype) in[0]; also plain copies and fills */
    CPN_OPK_ARANGE,        /* out[0][i] = dparam[0] + i * dparam[1] (ints: iparam) */
    CPN_OPK_RANDOM,        /* Philox draws; code: enum cpn_random_dist */
    CPN_OPK_REDUCE,        /* out[0] = reduce code over `axes` of in[0]; iparam[0] = 1: start
                            * from scalar[1] (the initial value, accumulator dtype); iparam[1]:
                            * CPN_REDUCEAT_* bits when the op is a segment of ufunc.reduceat */
    CPN_OPK_ARGREDUCE,     /* out[0] (int64) = argmax (code MAXIMUM) / argmin (MINIMUM) over the
                            * `axes` of in[0], as a C-order index over the reduced dimensions */
    CPN_OPK_SCAN,          /* out[0] = accumulate of op code along axis iparam[0] of in[0]
                            * (same dtype as out[0]) */
    CPN_OPK_MATMUL,        /* out[0] = in[0] @ in[1]: n-d, batch dims equal (broadcast views) */
    CPN_OPK_QUANTILE,      /* out[0] (contiguous, (nq, kept dims...)) = quantiles of in[0] over
                            * `axes`; in[1]: the quantiles (float64, contiguous; absent for a
                            * median); iparam[0] = method, iparam[1] = flags (CPN_QF_*),
                            * iparam[2] = index dtype, iparam[3] = compute dtype */
    CPN_OPK_BINCOUNT,      /* out[0] = bincount of in[0] (int64, 1-D, values in [0, len(out)))
                            * weighted by in[1] (float64, same length) when nin == 2; out int64
                            * without weights, float64 with */
    CPN_OPK_COUNT
};

/* The methods of numpy.quantile (its names, in its order), and MEDIAN: numpy.median's mean of
 * the middle element(s). */
enum cpn_quantile_method {
    CPN_QM_INVERTED_CDF,
    CPN_QM_AVERAGED_INVERTED_CDF,
    CPN_QM_CLOSEST_OBSERVATION,
    CPN_QM_INTERPOLATED_INVERTED_CDF,
    CPN_QM_HAZEN,
    CPN_QM_WEIBULL,
    CPN_QM_LINEAR,
    CPN_QM_MEDIAN_UNBIASED,
    CPN_QM_NORMAL_UNBIASED,
    CPN_QM_LOWER,
    CPN_QM_HIGHER,
    CPN_QM_MIDPOINT,
    CPN_QM_NEAREST,
    CPN_QM_MEDIAN,
    CPN_QM_COUNT
};

/* CPN_OPK_QUANTILE's flags (kernels.h, struct cpn_quantile_args). */
enum cpn_quantile_flag { CPN_QF_SKIP_NAN = 1, CPN_QF_TAKE = 2, CPN_QF_WEAK = 4, CPN_QF_MA_MEAN = 8 };

/* A reduceat is one REDUCE op per segment; its floating-point findings are reported once, for
 * the whole call, at the last segment (as NumPy's one loop does). */
enum cpn_reduceat_bits { CPN_REDUCEAT_SEGMENT = 1, CPN_REDUCEAT_FIRST = 2, CPN_REDUCEAT_LAST = 4 };

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
    uint16_t fpmode;                    /* ELEMENTWISE, CAST, REDUCE, SCAN: NumPy's error mode at
                                         * submission (fperr.h) */
};

/* A human-readable name of the op for error messages ("add", "cast", "matmul").  Local. */
const char *cpn_op_describe(const struct cpn_op *op);

#endif
