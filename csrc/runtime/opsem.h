/* opsem.h: the deferred op record, struct cpn_op, over the op table of base/op.h, and what a
 * record means to the executors.
 *
 * An op names output views, input views (or inline scalars) and parameters.  The module builds
 * ops fully resolved: inputs already have the loop dtype and the output's shape (broadcast), so
 * the executor never re-derives NumPy's rules. */
#ifndef CPN_OPSEM_H
#define CPN_OPSEM_H

#include <stdbool.h>
#include <stdint.h>

#include "dtype.h"
#include "op.h"
#include "view.h"

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
    CPN_OPK_COMPACT,       /* out[0] (1-D, contiguous, iparam[0] elements) = the elements of in[0]
                            * where in[1] (bool, in[0]'s shape) is true, in C order */
    CPN_OPK_NONZERO,       /* out[0] (int64, contiguous (ndim, iparam[0])) = the indices of the
                            * true elements of in[0] (bool, ndim >= 1), in C order */
    CPN_OPK_SORT,          /* out[0] = numpy.sort of in[0] along axis iparam[0] (same dtype), or
                            * with iparam[1] & CPN_SORT_ARG numpy.argsort (out int64); out has
                            * in's shape and does not overlap it (runtime/samplesort.c under
                            * distribution).  nin == 2 (argsort): a step of lexsort, in[1] an
                            * int64 permutation of each lane, out = in[1] composed with the
                            * stable argsort of in[0] read through it */
    CPN_OPK_SEARCHSORTED,  /* out[0][j] = numpy.searchsorted(a, v[j]): in[0] = a (1-D, sorted;
                            * through in[2], an int64 sorter, when present), in[1] = v (1-D),
                            * iparam[0] = 1: side right; iparam[1] = 1: out bool, "a holds v[j]" */
    CPN_OPK_UNIQUE,        /* runs of equal elements of in[0] (1-D, sorted; through in[1], an
                            * int64 permutation, when present): iparam[0] = enum
                            * cpn_unique_mode, iparam[1] = 1: NaNs distinct (equal_nan=False),
                            * iparam[2] = 1: in[0] sorted itself, in[1] the positions its
                            * elements had before the sort (what INDEX/INVERSE give) */
    CPN_OPK_LAPACK,        /* code: enum cpn_lapack_routine (kernels.h) on in[0] (and in[1],
                            * the right-hand side), batched along the leading dims; out[0] the
                            * packed results (..., L), out[1] float64 aux (..., naux), aux[0]
                            * LAPACK's info; iparam[0..1] the routine's options, dparam[0] rcond */
    CPN_OPK_FFT,           /* out[0] = transform `code` (enum cpn_fft_kind) of in[0] over `axes`
                            * (r2c / c2r: one axis), times dparam[0]; dtype: the complex dtype;
                            * other dims are batch dims (kernels.h cpn_kernel_fft) */
    CPN_OPK_GATHER,        /* out[0] (contiguous (m, in[0].shape[1:])) = in[0][in[1]]: in[1] is
                            * int64, 1-D of m indices into dimension 0 (negatives from the end;
                            * bounds checked by the builder) */
    CPN_OPK_SCATTER,       /* out[0][in[1][j]] = in[0][j] for j in order (last wins): out[0] of
                            * shape (n, rest...), in[0] (m, rest...) of its dtype, in[1] int64 1-D
                            * (checked by the builder); it writes some rows only: never an
                            * overwrite of its output (cpn_op_overwrites_out).  iparam[0] = 1
                            * or 2 (ufunc.at): out[0][in[1][j]] = code(out[0][in[1][j]]
                            * [, in[0][j]]) in order instead, code's nin inputs */
    CPN_OPK_HISTOGRAM,     /* out[0] (1-D, int64, or float64 with weights in[1]) = numpy.histogram
                            * counts of in[0] (1-D) over the edges in[2] (len(out) + 1):
                            * iparam[0] = 1: uniform bins (in[0] and in[2] float64; dparam[0..2] =
                            * first, last, last - first); else in[0] and in[2] of one dtype */
    CPN_OPK_PERMUTE,       /* out[0] row cpn_perm_apply(i) = in[0] row i along dimension 0 (kernels.h
                            * struct cpn_perm keyed by iparam[0], iparam[1]): both contiguous, of
                            * one shape and dtype */
    CPN_OPK_COUNT
};

/* CPN_OPK_SORT's iparam[1] bits. */
enum cpn_sort_bits { CPN_SORT_ARG = 1 };

/* A reduceat is one REDUCE op per segment; its floating-point findings are reported once, for
 * the whole call, at the last segment (as NumPy's one loop does). */
enum cpn_reduceat_bits { CPN_REDUCEAT_SEGMENT = 1, CPN_REDUCEAT_FIRST = 2, CPN_REDUCEAT_LAST = 4 };

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
    uint32_t site;                      /* where it was submitted, for its reports: 0 none, else
                                         * the module's site number (carried, never read, here) */
};

/* A human-readable name of the op for error messages ("add", "cast", "matmul").  Local. */
const char *cpn_op_describe(const struct cpn_op *op);

/* What an op means to every executor (queue.c, fusion.c, dist.c, the backends): its loop, its
 * error, how it writes its output. */
/* The inner loop of an element-wise or cast op; NULL with CPN_ERR_TYPE recorded.  Local. */
cpn_loop_fn cpn_op_loop(const struct cpn_op *op);
/* The status for a loop that set ctx->err while running `op`.  Local. */
enum cpn_status cpn_op_loop_error(const struct cpn_op *op);
/* This rank's buffer of op's output, allocated uninitialised only when the op writes all of it
 * and reads none of it; NULL on OOM.  Local. */
char *cpn_op_output_buffer(const struct cpn_op *op);
/* Does op write every element of its output store while reading none of it?  Local. */
bool cpn_op_overwrites(const struct cpn_op *op);
/* The same for output k (two-output ops); k = 0 is cpn_op_overwrites.  Local. */
bool cpn_op_overwrites_out(const struct cpn_op *op, int k);

#endif
