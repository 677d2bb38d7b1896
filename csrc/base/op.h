/* op.h: the op table (ops.def) and the enums it expands into: opcodes, result and identity
 * kinds, flags, dtype sets, each op's info row; and the parameter enums kernels read (quantile
 * methods and flags, random distributions).  Shared vocabulary of runtime and kernels (base/): no
 * views, no stores.  The deferred op record, struct cpn_op, is the runtime's (opsem.h). */
#ifndef CPN_OP_H
#define CPN_OP_H

#include <stdbool.h>
#include <stdint.h>

#include "dtype.h"
#include "status.h"

enum cpn_opcode {
#define OP(E, FN, NIN, NOUT, O0, O1, IN1, DTS, IDENT, FL, RED, ACC, FPC) CPN_OP_##E,
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
    CPN_OPF_NEGEXP = 8,     /* signed integer loops fail on a negative second input (power) */
};
/* The same flags as compile-time constants per op, CPN_OPFLAGS_<ENUM>, for code generated per op
 * (the loops' integer-division checks fold away in other ops). */
enum cpn_op_flags_of {
#define OP(E, FN, NIN, NOUT, O0, O1, IN1, DTS, IDENT, FL, RED, ACC, FPC) CPN_OPFLAGS_##E = CPN_OPF_##FL,
#include "ops.def"
#undef OP
};

/* ops.def's reduce column: what a reduction of the op may assume.  Every value but NONE is
 * NumPy's "reorderable" (a reduction over several axes at once); SUM, PROD, MAX and MIN also
 * combine partial results with the op itself, each part starting from the class's identity (0,
 * 1, the dtype's lowest, its highest value): distributed and fused reductions, the CPU folds
 * and the device take exactly these.  OR and AND are, into bool, the maximum and the minimum
 * of 0 and 1 (the device reduces them so). */
enum cpn_op_reduce {
    CPN_RED_NONE,
    CPN_RED_REORDER,
    CPN_RED_SUM,
    CPN_RED_PROD,
    CPN_RED_MAX,
    CPN_RED_MIN,
    CPN_RED_OR,
    CPN_RED_AND,
    CPN_RED_COUNT
};
/* ops.def's acc column: the accumulator dtype of reduce/accumulate without dtype=
 * (cpn_op_reduce_dtype). */
enum cpn_op_acc {
    CPN_ACC_LOOP,   /* the op's own reduction loop (the module asks NumPy's resolver) */
    CPN_ACC_INTP,   /* bool and integers narrower than 64 bits widen to int64 / uint64 */
    CPN_ACC_COUNT
};
/* ops.def's fpc column: how the device classifies the results of the op's float loops
 * (kernels/fpclass.h, whose enum cpn_fpc_kind has these values: checked there; LAE stands for
 * logaddexp's float32 and float64 forms). */
enum cpn_op_fpc {
    CPN_OPFPC_NONE,
    CPN_OPFPC_ARITH,
    CPN_OPFPC_DIV,
    CPN_OPFPC_FLOORDIV,
    CPN_OPFPC_RECIP,
    CPN_OPFPC_LOG1P,
    CPN_OPFPC_ATANH,
    CPN_OPFPC_POW,
    CPN_OPFPC_NEXTAFTER,
    CPN_OPFPC_SPACING,
    CPN_OPFPC_LAE,
    CPN_OPFPC_COUNT
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
    enum cpn_op_reduce reduce;
    enum cpn_op_acc acc;
    enum cpn_op_fpc fpc;
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
/* Do partial reductions of `code` combine with the op itself (reduce column SUM, PROD, MAX,
 * MIN)?  Local. */
bool cpn_op_combines(enum cpn_opcode code);
/* May a reduction of `code` run over several axes at once (NumPy's reorderable)?  Local. */
bool cpn_op_reorderable(enum cpn_opcode code);
/* The accumulator dtype of reducing `code` over dtype `dt` without dtype= when the acc column
 * decides it (INTP: bool and narrow integers widen); -1 for LOOP ops (the reduction loop's dtype,
 * which NumPy's resolver gives).  Local. */
int cpn_op_reduce_dtype(enum cpn_opcode code, enum cpn_dtype dt);
/* The identity a partial reduction of combining `code` (cpn_op_combines) starts from, in dtype
 * `dt`, into dst (cpn_dtype_size(dt) bytes): 0, 1, the dtype's lowest (-inf) or highest value.
 * Local. */
void cpn_op_combine_identity(enum cpn_opcode code, enum cpn_dtype dt, void *dst);
/* May element-wise op `code` in loop dtype `dt` fail on its data (ops.def's NEGEXP flag: signed
 * integer loops refuse a negative second input), so on some ranks and not others?  False for
 * codes outside the table (a fused program's casts).  Local. */
static inline bool cpn_op_fails_on_data(int code, int dt)
{
    switch (code) {   /* the column as compile-time cases: per-op paths pay one compare */
#define OP(E, ...)                                                                                \
    case CPN_OP_##E:                                                                              \
        if (!(CPN_OPFLAGS_##E & CPN_OPF_NEGEXP)) return false;                                    \
        break;
#include "ops.def"
#undef OP
    default: return false;
    }
    return cpn_dtype_class((enum cpn_dtype)dt) == CPN_CLASS_INT;
}
/* The failure of such an op (NumPy's ValueError text) as a status, its message set.  Local. */
enum cpn_status cpn_op_data_error(enum cpn_opcode code);
/* Whether op `code` has a loop for dtype `dt`: its info row's dtype set (the CPU loop table and
 * the device kernels expand from the same set).  Local. */
static inline bool cpn_op_has_loop(int code, int dt)
{
    return (unsigned)code < CPN_OP_COUNT && (unsigned)dt < CPN_DTYPE_COUNT &&
           (cpn_op_info((enum cpn_opcode)code)->dtypes >> dt & 1u);
}

/* An inner loop (element-wise, cast): the kernels' calling convention, args and byte strides
 * inputs then outputs (kernels.h: struct cpn_kctx, the loops that exist). */
struct cpn_kctx;
typedef void (*cpn_loop_fn)(char **args, const int64_t *strides, int64_t n, struct cpn_kctx *ctx);

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

/* CPN_OPK_RANDOM's distributions (philox.h, cpn_philox_draw): (p0, p1) are the op's dparam[0..1].
 * The Python side (cupynum/random/) repeats these numbers in _DIST. */
enum cpn_random_dist {
    CPN_RANDOM_UNIFORM,       /* [p0, p1) */
    CPN_RANDOM_NORMAL,        /* loc p0, scale p1 */
    CPN_RANDOM_UNIT24,        /* [0, 1) with 24 bits (exact in float32) */
    CPN_RANDOM_INTEGER,       /* integers in [0, p0), p0 <= 2**53, Lemire with bounded retry */
    CPN_RANDOM_EXPONENTIAL,   /* scale p0 */
    CPN_RANDOM_GAMMA,         /* shape p0, scale p1 (Marsaglia-Tsang) */
    CPN_RANDOM_POISSON,       /* lam p0 (inversion below 10, PTRS above) */
    CPN_RANDOM_BINOMIAL,      /* n p0, p p1 (inversion below n*p 10, BTRS above) */
    CPN_RANDOM_CAUCHY,
    CPN_RANDOM_LOGISTIC,      /* loc p0, scale p1 */
    CPN_RANDOM_GUMBEL,        /* loc p0, scale p1 */
    CPN_RANDOM_LAPLACE,       /* loc p0, scale p1 */
    CPN_RANDOM_PARETO,        /* a p0 */
    CPN_RANDOM_POWER,         /* a p0 */
    CPN_RANDOM_RAYLEIGH,      /* scale p0 */
    CPN_RANDOM_WEIBULL,       /* a p0 */
    CPN_RANDOM_LOGNORMAL,     /* mean p0, sigma p1 */
    CPN_RANDOM_GEOMETRIC,     /* p p0 */
    CPN_RANDOM_LOGSERIES,     /* p p0 */
    CPN_RANDOM_ZIPF,          /* a p0 */
    CPN_RANDOM_VONMISES,      /* mu p0, kappa p1 */
    CPN_RANDOM_STUDENT_T,     /* df p0 */
    CPN_RANDOM_WALD,          /* mean p0, scale p1 */
    CPN_RANDOM_BETA,          /* a p0, b p1 */
    CPN_RANDOM_NEGBINOMIAL,   /* n p0, p p1 */
    CPN_RANDOM_NCCHISQ,       /* df p0, nonc p1 */
    CPN_RANDOM_HYPERGEOM,     /* p0 = ngood * 2**22 + (nsample >> 9), p1 = nbad * 2**9 + nsample % 2**9 */
    CPN_RANDOM_TRIANGULAR,    /* on [0, 1] with mode p0 */
    CPN_RANDOM_COUNT
};

/* What a CPN_OPK_UNIQUE op computes of the runs of equal elements of a sorted sequence
 * (kernels.h, cpn_kernel_unique). */
enum cpn_unique_mode {
    CPN_UNIQUE_COUNT, CPN_UNIQUE_VALUES, CPN_UNIQUE_COUNTS, CPN_UNIQUE_INDEX, CPN_UNIQUE_INVERSE,
    CPN_UNIQUE_MODE_COUNT
};

/* The FFT op's transforms (opsem.h CPN_OPK_FFT, kernels/fft.c): complex to complex forward
 * (exp(-2 pi i jk/n)) or backward (exp(+...)), both unnormalized; real to complex (the n//2 + 1
 * non-negative frequencies) and its inverse complex to real. */
enum cpn_fft_kind { CPN_FFT_C2C_FORWARD, CPN_FFT_C2C_BACKWARD, CPN_FFT_R2C, CPN_FFT_C2R, CPN_FFT_COUNT };

#endif
