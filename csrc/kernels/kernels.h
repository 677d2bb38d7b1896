/* kernels.h: the CPU kernels' one interface.
 *
 * Element-wise work is a 1-D inner loop with NumPy's signature (argument pointers, byte strides,
 * count) driven over an n-d strided space by cpn_iterate, which coalesces dimensions and splits
 * the work over OpenMP threads.  Kernels write no status; a loop that meets a value error (an
 * integer raised to a negative power) sets ctx->err, and the executor reports it.
 *
 * Floating-point findings are values, never kernel state: cpn_iterate leaves what its threads'
 * status flags showed in ctx->hw (each thread clears its flags before its share, reads them
 * after, and the threads' bits are ORed), the loops leave their own findings in ctx->fpe, and
 * every other entry point that runs loops ORs what it found into a `struct cpn_fpreport` its
 * caller passes (NULL: not wanted).  The executor hands the report of each op to fperr.c. */
#ifndef CPN_KERNELS_H
#define CPN_KERNELS_H

#include <stdbool.h>
#include <stdint.h>

#include "op.h"
#include "status.h"

#define CPN_MAXARGS 4

struct cpn_kctx {
    int err;            /* set (atomically) by a loop that met a value error */
    unsigned fpe;       /* CPN_FPE_* bits a loop found itself (ORed atomically) */
    unsigned hw;        /* CPN_FPE_* bits of the status flags, ORed by cpn_iterate */
};

/* What running an op's loops found, in CPN_FPE_* bits: `hw` from the status flags (meaningful
 * for floating-point arithmetic only), `sw` from the loops' own findings (integer division).
 * A device backend's kernels leave theirs in a device report word instead (runtime/devfpe.h):
 * `dev` is set and `dev_word` names it; fperr.c reads it.  Zero-initialised: nothing found. */
struct cpn_fpreport {
    unsigned hw, sw;
    bool dev;
    int dev_word;
};

/* OR findings hw, sw into *fp (nothing when fp is NULL). */
static inline void cpn_fpreport_add(struct cpn_fpreport *fp, unsigned hw, unsigned sw)
{
    if (!fp) return;
    fp->hw |= hw;
    fp->sw |= sw;
}

/* OR report *b into *a; b's device word, when it names one, becomes a's (an op has at most one). */
static inline void cpn_fpreport_or(struct cpn_fpreport *a, const struct cpn_fpreport *b)
{
    a->hw |= b->hw;
    a->sw |= b->sw;
    if (b->dev) {
        a->dev = true;
        a->dev_word = b->dev_word;
    }
}

/* The report of one cpn_iterate call (or several with one ctx), read after it returned. */
static inline struct cpn_fpreport cpn_kctx_report(const struct cpn_kctx *ctx)
{
    return (struct cpn_fpreport){.hw = ctx->hw, .sw = ctx->fpe};
}

/* Floating-point error categories, NumPy's bit values (the second argument of a seterrcall
 * function).  Hardware status flags and the loops' own findings are both reported in these. */
enum cpn_fpe {
    CPN_FPE_DIVIDE = 1,
    CPN_FPE_OVERFLOW = 2,
    CPN_FPE_UNDERFLOW = 4,
    CPN_FPE_INVALID = 8,
};

/* The inner loop of element-wise op `code` with loop dtype `dt` (args: inputs then output), or
 * NULL when the op has no loop for that dtype.  Local. */
cpn_loop_fn cpn_kernel_elementwise(enum cpn_opcode code, enum cpn_dtype dt);
/* The same op's plain (compiler-vectorised, libm) loop, ignoring vector overrides.  Local. */
cpn_loop_fn cpn_kernel_elementwise_scalar(enum cpn_opcode code, enum cpn_dtype dt);
/* ufunc.at's loop over a whole index list (elementwise.c): dst[k] = op(dst[k], val[j]) (or
 * op(dst[k])) for k = idx[j] (int64, byte stride is; negatives from the end of n), j = 0..m-1
 * in order; dst of n elements at byte stride
 * ds, val at stride vs (0: one value).  Returns the first j out of bounds (nothing from it on is
 * applied) or -1; integer division's findings go to ctx->fpe.  NULL where the op's operands or
 * result differ in type from the array, or the op may fail on its data. */
typedef int64_t (*cpn_at_fn)(char *dst, int64_t n, int64_t ds, const char *val, int64_t vs,
                             const char *idx, int64_t is, int64_t m, struct cpn_kctx *ctx);
cpn_at_fn cpn_kernel_at_loop(enum cpn_opcode code, enum cpn_dtype dt);
/* The conversion loop from `from` to `to` (args: in, out); C's conversion rules, which are
 * NumPy's unsafe casting.  Local. */
cpn_loop_fn cpn_kernel_cast(enum cpn_dtype from, enum cpn_dtype to);
/* The element size of a copy loop cpn_kernel_cast returns for from == to (1, 2, 4, 8 or 16);
 * 0 for any other loop.  Local. */
int64_t cpn_kernel_copy_item(cpn_loop_fn fn);
/* dst[i][j] = src[j][i] for i < rows, j < cols, elements of `item` bytes (1, 2, 4, 8 or 16),
 * src's rows sld bytes apart, dst's dld: a copy whose source is transposed relative to its
 * destination, in cache tiles (cast.c).  The bits are moved unchanged.  Runs on the team where
 * the measured choice takes it.  Local. */
void cpn_kernel_copy_transposed(int64_t item, const char *src, int64_t sld, char *dst, int64_t dld,
                                int64_t rows, int64_t cols);
/* The same on the calling thread alone (the element driver's staging of a transposed operand).
 * Local. */
void cpn_kernel_transpose_local(int64_t item, const char *src, int64_t sld, char *dst, int64_t dld,
                                int64_t rows, int64_t cols);

/* Run `fn` over the n-d space `shape` for `narg` arrays with origins base[a] and byte strides
 * strides[a][d], threaded when the space is large.  Each thread clears the floating-point status
 * flags before its work and reads them after; what they show is ORed into ctx->hw (the loops add
 * theirs to ctx->fpe).  Local. */
void cpn_iterate(cpn_loop_fn fn, int narg, char **base, int ndim, const int64_t *shape,
                 int64_t (*strides)[CPN_MAXDIM], struct cpn_kctx *ctx);

/* cpn_iterate for a loop whose one output (the last argument) is `out_item`-byte elements, none
 * of the inputs: an output of cpn_kernel_stream_min() bytes or more is computed into a small
 * staging block per thread and written with streaming (non-temporal) stores where it is
 * contiguous, which skips reading each destination line before writing it (on the 2-core test
 * machine 800 MB took 18-20 ms instead of 48-55).  The values are the loop's own.  Local. */
void cpn_iterate_out(cpn_loop_fn fn, int narg, char **base, int ndim, const int64_t *shape,
                     int64_t (*strides)[CPN_MAXDIM], size_t out_item, int64_t out_bytes,
                     struct cpn_kctx *ctx);
/* The output size in bytes from which writes stream (CUPYNUM_STREAM_MIN, default 16 MiB; 0:
 * never).  Local. */
int64_t cpn_kernel_stream_min(void);
/* Copy `bytes` from src to dst with streaming stores for the 64-byte-aligned body of dst (ordinary
 * stores for the ends), then a store fence.  Thread-safe. */
void cpn_kernel_stream_copy(char *dst, const char *src, size_t bytes);

/* This thread's floating-point status flags as CPN_FPE_* bits.  Local. */
unsigned cpn_kernel_fpe_status(void);
/* Clear this thread's status flags where one of those four is raised: reading them (fetestexcept)
 * costs a tenth of clearing them (feclearexcept stores and reloads the x87 environment), and a
 * kernel clears before each op it watches, usually with nothing raised (inexact is never read).
 * Local. */
void cpn_kernel_fpe_clear(void);
/* The same from the SSE/AVX status register alone, on x86-64 (elsewhere: all flags): half the
 * cost of fetestexcept, which also stores the x87 status word.  Right after a loop that touches
 * no float16: the x87 flags are raised only by libgcc's float16 conversions (soft-fp) and glibc's
 * feraiseexcept (float16 spacing).  Local. */
unsigned cpn_kernel_fpe_status_sse(void);

/* Threads the kernels use (>= 1).  Local. */
int cpn_kernel_threads(void);

/* Dimensions 0..nd-1 of an iteration (shape, and st[a][d] for its narg arguments) put in
 * argument `key`'s memory order, outermost (largest |stride|) first, as NumPy's iterator orders
 * an element-wise loop; stable (equal strides keep their order).  Only for loops whose elements
 * are independent of one another.  Local. */
void cpn_kernel_dims_memory_order(int nd, int64_t *shape, int narg, int64_t (*st)[CPN_MAXDIM], int key);

/* The vector extensions this CPU runs, probed once, for the kernels' hand-written paths (compiled
 * with target attributes, reached only after this check): 0 the baseline, 1 AVX2 and FMA, 2 also
 * AVX-512 F, DQ, BW and VL (every AVX-512 CPU but the Xeon Phi); 0 off x86-64.  Local. */
int cpn_kernel_cpu_level(void);

/* The per-op cost model of the element-wise and fused drivers: below this many
 * element-instructions the calling thread computes alone.  Waking the team (OMP_WAIT_POLICY is
 * PASSIVE: a futex wake per thread and a barrier) costs tens of microseconds on a quiet machine
 * and far more on a loaded one, where the caller waits for a descheduled worker to run at all
 * (issue #21).  2^18 element-instructions, the break-even measured in a loop of ops
 * (elementwise.c); CUPYNUM_PARALLEL_MIN sets it; never with one thread.  Local. */
int64_t cpn_kernel_parallel_min(void);

/* NumPy's pairwise sum of n contiguous values of a float or complex dtype into *out (reduce.c's
 * fold: 8 accumulators up to 128 values, halves rounded to 8 above); and *acc += that sum of buf,
 * the fold of an unfused sum.  Local. */
void cpn_kernel_pairwise_sum(enum cpn_dtype dt, const void *a, int64_t n, void *out);
/* How many of n values the first half of that tree sums (n above its block): n/2 down to a
 * multiple of 8, of the real parts for complex.  Local. */
int64_t cpn_kernel_pairwise_left(enum cpn_dtype dt, int64_t n);
/* Whether reduce.c folds op over dt directly (add, multiply, maximum, minimum); then
 * cpn_kernel_fold: *acc = op(*acc, buf[i]) for the n contiguous values of dt at buf, in order.
 * Local. */
bool cpn_kernel_has_fold(enum cpn_opcode code, enum cpn_dtype dt);
void cpn_kernel_fold(enum cpn_opcode code, enum cpn_dtype dt, void *acc, const void *buf, int64_t n);
void cpn_kernel_fold_add(enum cpn_dtype dt, void *acc, const void *buf, int64_t n);

/* The measured choice of team size for work above cpn_kernel_parallel_min() and below 2^23
 * element-instructions (above, the team always runs, except for CPN_TEAM_SCATTER, measured at any
 * size): per kind of kernel (their units of work differ: CPN_TEAM_SCATTER counts 8 per random
 * update) and per power-of-two
 * class of element-instructions, the drivers time runs on the calling thread alone and on the
 * team and take the faster (each tried again every 16th run of its class, so the choice follows
 * the machine's load).  A cache-resident loop (a 1-D Jacobi step of 10^5 float64: 1.6 MB, one
 * core's L2) ran twice as fast on one thread as on two, whose dynamic chunks moved its lines
 * between the cores' caches every step.  Results never depend on the choice.  An explicit
 * CUPYNUM_PARALLEL_MIN turns the measurement off (the threshold alone decides).  Local (the
 * runtime thread). */
enum cpn_team_kind {
    CPN_TEAM_ELEMENTWISE,   /* element-wise and fused loops: work in element-instructions */
    CPN_TEAM_SCATTER,       /* ufunc.at and 1-d scatter split by destination (compact.c) */
    CPN_TEAM_COUNT
};
struct cpn_team_timer {
    int kind, bucket, which;
    int64_t work, t0;
};
int cpn_kernel_team_pick(enum cpn_team_kind kind, int64_t work, struct cpn_team_timer *tm);
void cpn_kernel_team_done(struct cpn_team_timer *tm);

/* Scratch memory a kernel keeps between calls (slot: CPN_SCRATCH_*), so that a loop's runs
 * allocate nothing in steady state: a buffer of at least `bytes`, the slot's (grown as needed,
 * kept up to 64 MiB, outside the runtime's allocation statistics: it belongs to the kernels, as
 * their threads' stacks do) or, when larger or the slot is in use, a cpn_alloc'd one; NULL when
 * out of memory.  Hand it back with cpn_kernel_scratch_done.  Local (the runtime thread only). */
enum { CPN_SCRATCH_FUSED_REGS, CPN_SCRATCH_BANDED, CPN_SCRATCH_BANDED_PLAN };
void *cpn_kernel_scratch(int slot, size_t bytes);
void cpn_kernel_scratch_done(int slot, void *p);
void cpn_kernel_set_threads(int n);

/* NumPy's arange fill of elements [first, first + n) into a contiguous buffer of dtype dt:
 * element 0 = start, 1 = second, i = start + i * (second - start) computed in dt (floats from the
 * double arguments, integers from the int64 ones).  Not for complex dtypes.  Local. */
void cpn_kernel_arange(enum cpn_dtype dt, void *out, int64_t first, int64_t n, double start,
                       double second, int64_t istart, int64_t isecond);

/* Philox4x32-10 draws for elements [first, first + n) of stream (seed, stream) into a contiguous
 * float64 buffer: distribution `dist` with parameters (lo, hi) as op.h's enum cpn_random_dist
 * says (uniform on [lo, hi), normal(loc=lo, scale=hi), ...).  Element i's value depends only on
 * (seed, stream, first + i).  Local. */
void cpn_kernel_random(enum cpn_random_dist dist, uint64_t seed, uint64_t stream, double *out,
                       int64_t first, int64_t n, double lo, double hi);
/* cpn_kernel_random into a contiguous buffer of dtype dt: float64 for every distribution, or
 * int64/uint64 for CPN_RANDOM_INTEGER (p0 = r <= 2**53), element i = off + its draw in [0, r)
 * modulo 2**64 (the same draws as the float64 values).  Local. */
void cpn_kernel_random_to(enum cpn_random_dist dist, enum cpn_dtype dt, uint64_t seed, uint64_t stream,
                          void *out, int64_t first, int64_t n, double p0, double p1, int64_t off);
/* cpn_kernel_random with a parameter pair per element: element i's are p0[i * s0], p1[i * s1]
 * (element strides, 0 for one value for all); float64 out.  Element i's value depends only on
 * (seed, stream, first + i, its parameters).  Local. */
void cpn_kernel_random_p(enum cpn_random_dist dist, uint64_t seed, uint64_t stream, double *out,
                         int64_t first, int64_t n, const double *p0, int64_t s0, const double *p1,
                         int64_t s1);
/* A counter-based bijection of [0, n) keyed by (seed, stream) (random.c: a Feistel network with
 * cycle walking; up to CPN_PERM_TABLE elements a tabulated Fisher-Yates shuffle), the same on any
 * partition: cpn_perm_apply(p, i, 0) is element i's place, cpn_perm_apply(p, j, 1) the element
 * placed at j.  cpn_perm_init returns -1 when the table cannot be allocated; cpn_perm_free frees
 * it. */
#define CPN_PERM_ROUNDS 12
#define CPN_PERM_TABLE 65536
struct cpn_perm {
    int64_t n;
    int h;
    uint64_t mask, rk[CPN_PERM_ROUNDS];
    int64_t *fwd, *inv;
};
int cpn_perm_init(struct cpn_perm *p, uint64_t seed, uint64_t stream, int64_t n);
void cpn_perm_free(struct cpn_perm *p);
int64_t cpn_perm_apply(const struct cpn_perm *p, int64_t i, int inverse);
/* out row cpn_perm_apply(i) = in row i, for the n rows of `row` bytes of contiguous in and out;
 * -1 when out of memory.  Local. */
int cpn_kernel_permute(uint64_t seed, uint64_t stream, const char *in, char *out, int64_t n, size_t row);
/* Choose the Philox loops' vector level: 0 the baseline loop, 1 AVX2, 2 AVX-512 (each capped at
 * what the CPU has); returns the level in use before.  All give identical words; tests compare
 * them.  Local, not thread-safe (call between kernels). */
int cpn_kernel_random_set_simd(int level);
/* argmax/argmin's blocked float scan (reduce.c): 0 SSE2 lanes, 1 AVX2 where the CPU has it (the
 * default); returns the old level.  Tests reach both. */
int cpn_kernel_argreduce_set_simd(int level);
/* The raw Philox4x32-10 block for (counter, key), exposed for tests against published vectors. */
void cpn_philox4x32_10(const uint32_t ctr[4], const uint32_t key[2], uint32_t out[4]);

/* Reduce `in` (ndim, shape, byte strides, dtype in_dt) over the dimensions set in `axes` with
 * binary element-wise op `code` (any op whose loop maps acc_dt to acc_dt; add, multiply, maximum
 * and minimum have fast folds), accumulating in dtype acc_dt, into `out` (byte strides ostrides
 * over the kept dimensions, in order, dtype acc_dt).  `initial` (an acc_dt value, or NULL) starts
 * every accumulator; without it add/multiply start from 0/1 and other ops from the first element,
 * folding in C order (so non-reorderable ops such as subtract reduce as NumPy's along one axis).
 * Empty reductions without `initial` write 0/1 for add/multiply; the caller rejects the others.
 * What the loops found is ORed into *fp (NULL: not wanted).  Returns CPN_ERR_VALUE when the op's
 * loop met a value error (integer negative power).  Local. */
enum cpn_status cpn_kernel_reduce(enum cpn_opcode code, enum cpn_dtype in_dt, enum cpn_dtype acc_dt,
                                  const char *in, int ndim, const int64_t *shape,
                                  const int64_t *strides, uint64_t axes, char *out,
                                  const int64_t *ostrides, const void *initial,
                                  struct cpn_fpreport *fp);

/* True when the add reduction of in_dt into acc_dt is a count of nonzero bytes (bool into a
 * 64-bit integer), which cpn_kernel_count_nonzero_bytes computes without casting each element. */
#define CPN_KERNEL_BOOL_COUNT(code, in_dt, acc_dt)                                         \
    ((code) == CPN_OP_ADD && (in_dt) == CPN_DTYPE_BOOL &&                                \
     ((acc_dt) == CPN_DTYPE_INT64 || (acc_dt) == CPN_DTYPE_UINT64))

/* The number of nonzero bytes among the n at `p`, `st` bytes apart.  Local. */
uint64_t cpn_kernel_count_nonzero_bytes(const char *p, int64_t st, int64_t n);
/* The least and the greatest of n >= 1 contiguous int64 at `p` in *lo and *hi, in one pass (an
 * index array's bounds check reads it once, not once per extreme).  Threaded.  Local. */
void cpn_kernel_range_i64(const int64_t *p, int64_t n, int64_t *lo, int64_t *hi);

/* argmax (code MAXIMUM) or argmin (MINIMUM) of `in` over the dimensions set in `axes`: the int64
 * C-order index over the reduced dimensions of the first extreme element, the first NaN where
 * there is one (NumPy's rule; complex ordering lexicographic).  The reduced extent must be
 * non-empty.  Local. */
enum cpn_status cpn_kernel_argreduce(enum cpn_opcode code, enum cpn_dtype dt, const char *in,
                                     int ndim, const int64_t *shape, const int64_t *strides,
                                     uint64_t axes, char *out, const int64_t *ostrides);

/* Inclusive scan (ufunc.accumulate) of binary op `code` along dimension `axis`:
 * out[..., i, ...] = code(out[..., i-1, ...], in[..., i, ...]), out[..., 0, ...] = in[..., 0, ...].
 * in and out have dtype dt and the same shape (byte strides each); in may be out.  What the loops
 * found is ORed into *fp (NULL: not wanted).  Returns CPN_ERR_VALUE when the loop met a value
 * error.  Local. */
enum cpn_status cpn_kernel_scan(enum cpn_opcode code, enum cpn_dtype dt, const char *in,
                                const int64_t *istrides, char *out, const int64_t *ostrides,
                                int ndim, const int64_t *shape, int axis, struct cpn_fpreport *fp);

/* How cpn_kernel_quantile computes, decided by the caller from NumPy's type rules. */
struct cpn_quantile_args {
    enum cpn_quantile_method method;
    int skip_nan;          /* the nan- variants: NaNs are dropped from each lane */
    int take;              /* the result is an element (discrete methods, linear with integer q);
                            * odt is then the input dtype */
    int weak;              /* q was a Python scalar: gamma is a Python float (NumPy's weak_q) */
    int ma_mean;           /* MEDIAN: the middle pair summed in the input dtype (np.ma.median) */
    enum cpn_dtype gdt;    /* dtype of the index arithmetic: q's (float32 or float64) */
    enum cpn_dtype cdt;    /* dtype _lerp computes in: result_type(input, gamma) */
    enum cpn_dtype odt;    /* output dtype */
    int64_t nq;            /* number of quantiles (1 for MEDIAN) */
    const double *q;       /* the quantiles in [0, 1], values of gdt */
};

/* Quantiles of `in` (ndim, shape, byte strides, dtype dt: bool, integer or real float) over the
 * dimensions set in `axes`, as numpy.quantile / numpy.median (and their nan- variants) compute
 * them, into the contiguous `out` of dtype qa->odt laid out (nq, kept dimensions...).  A lane
 * with a NaN (nan- variants: with nothing but NaNs) gives NaN.  The reduced extent must be
 * non-empty.  Local. */
enum cpn_status cpn_kernel_quantile(const struct cpn_quantile_args *qa, enum cpn_dtype dt,
                                    const char *in, int ndim, const int64_t *shape,
                                    const int64_t *strides, uint64_t axes, char *out);

/* The positions (ascending, distinct, at most 2 nq + 2) of the sorted lane of m values (NaNs
 * dropped) that cpn_kernel_quantile's results read, into ks; returns their number.  Local. */
int cpn_kernel_quantile_positions(const struct cpn_quantile_args *qa, int64_t m, int64_t *ks);
/* cpn_kernel_quantile's results for one lane of m values (m > 0) from the elements at those
 * positions (val: nk contiguous elements of dt, val[i] of rank ks[i]), into the contiguous out
 * (nq elements of qa->odt): a lane selected elsewhere (distselect.c).  Local. */
void cpn_kernel_quantile_finish(const struct cpn_quantile_args *qa, enum cpn_dtype dt, int64_t m,
                                const int64_t *ks, int nk, const char *val, char *out);

/* numpy.bincount: out[k] (k < nbins, byte stride os) = the number of i < n with idx[i] == k
 * (int64), or with weights w (float64, byte stride ws; NULL for none) the sum of w[i] over them
 * (float64).  idx is int64 with byte stride is, every value in [0, nbins) (the caller checks).
 * The summation order depends only on (n, nbins).  Local. */
enum cpn_status cpn_kernel_bincount(const char *idx, int64_t is, const char *w, int64_t ws,
                                    int64_t n, char *out, int64_t os, int64_t nbins);
/* The chunk length of that order: a weighted count adds, for each chunk [c per, (c + 1) per)
 * of the input in turn, the chunk's own sequential sums (n, one chunk: NumPy's order). */
int64_t cpn_kernel_bincount_chunk(int64_t n, int64_t nbins);
/* Elements [lo, hi) counted (or their weights added) into out, in index order.  Local. */
void cpn_kernel_bincount_add(const char *idx, int64_t is, const char *w, int64_t ws, int64_t lo,
                             int64_t hi, char *out, int64_t os);

/* Stream compaction (compact.c), over an n-d mask of bytes (non-zero: true) with byte strides
 * mst, walked in C order; the output is the same on any number of threads.  Local.
 * cpn_kernel_count_true: how many elements are true.
 * cpn_kernel_compact: the elements of src (item bytes each, byte strides sst, mask's shape) where
 *   the mask is true, packed into out in C order; count is that number (checked).
 * cpn_kernel_nonzero: the indices of the true elements, out[d * count + j] = index along
 *   dimension d of the j-th (ndim >= 1). */
int64_t cpn_kernel_count_true(int ndim, const int64_t *shape, const char *mask, const int64_t *mst);
enum cpn_status cpn_kernel_compact(size_t item, int ndim, const int64_t *shape, const char *src,
                                   const int64_t *sst, const char *mask, const int64_t *mst,
                                   char *out, int64_t count);
enum cpn_status cpn_kernel_nonzero(int ndim, const int64_t *shape, const char *mask,
                                   const int64_t *mst, int64_t *out, int64_t count);
/* Sorting (sort.c).  A (key, index) pair: the layout of a 128-bit unsigned number (index the low
 * word, key the high one), ordered by key, then index. */
struct cpn_sort_pair {
    uint64_t idx, key;
};
/* numpy.sort (arg false: out has dtype dt) or numpy.argsort (arg true: out is int64, index_base
 * added to every index) of every lane along `axis` of `in` (ndim, shape, byte strides ist, dtype
 * dt: any of the 14) into `out` (byte strides ost, not overlapping in).  NumPy's order: NaNs
 * last, complex lexicographic with NumPy's NaN classes; argsort is stable.  Threaded; the result
 * does not depend on the thread count.  Local. */
enum cpn_status cpn_kernel_sort(enum cpn_dtype dt, bool arg, const char *in, int ndim,
                                const int64_t *shape, const int64_t *ist, int axis, char *out,
                                const int64_t *ost, int64_t index_base);
/* One step of numpy.lexsort: out = the int64 permutation perm (of in's shape: each lane a
 * permutation of 0..n-1 along `axis`) composed with the stable argsort of every lane of the key
 * read through it, out[j] = perm[argsort(key[perm])[j]] along `axis` (byte strides kst, pst, ost;
 * out overlaps neither).  Threaded; the result does not depend on the thread count.  Local. */
enum cpn_status cpn_kernel_sort_through(enum cpn_dtype dt, const char *key, int ndim, const int64_t *shape,
                                        const int64_t *kst, const char *perm, const int64_t *pst, int axis,
                                        char *out, const int64_t *ost);
/* The order key of one element of a real dtype dt (not complex): keys compare as NumPy orders
 * the values (every NaN the largest key, -0.0 and +0.0 one key).  Local. */
uint64_t cpn_kernel_sort_key(enum cpn_dtype dt, const void *p);
/* Sort n pairs by (key, index), threaded.  Local. */
enum cpn_status cpn_kernel_sort_pairs(struct cpn_sort_pair *p, int64_t n);
/* numpy.searchsorted: for each of the m elements v[j] (byte stride vs), the first position i of
 * the sorted sequence a (n elements, stride as; through perm[i] when perm, int64 stride ps, is
 * not NULL) whose element is not below v[j] (right: above it), as int64 out[j] (stride os); with
 * `found`, whether a holds v[j] (as == compares: never a NaN), as bool.  NumPy's order (real and
 * complex dtypes: complex by NaN class, then real, then imaginary part).  Threaded.  Local. */
enum cpn_status cpn_kernel_searchsorted(enum cpn_dtype dt, const char *a, int64_t as, const char *perm,
                                        int64_t ps, int64_t n, const char *v, int64_t vs, int64_t m,
                                        char *out, int64_t os, bool right, bool found);
/* numpy's _pyarray_correlate of the contiguous a (n1 elements) and v (n2, 1 <= n2 <= n1; already
 * conjugated for numpy.correlate), both of dtype dt (float32, float64, complex64, complex128), in
 * mode 0 (valid), 1 (same) or 2 (full), into the contiguous out (n1 - n2 + 1, n1 or n1 + n2 - 1
 * elements): NumPy's dot per output, BLAS's where NumPy calls BLAS, so its bits (matmul.c).
 * A kernel of up to 11 elements: its full-overlap outputs threaded.  Local. */
void cpn_kernel_correlate(enum cpn_dtype dt, const char *a, int64_t n1, const char *v, int64_t n2, int mode,
                          char *out);
/* numpy.interp of the n float64 queries x over the table (xp, fp) of lenxp >= 1 points, into out
 * (all contiguous; out overlaps nothing): NumPy's arr_interp, its search, formula and cases, so
 * its bits (interp.c).  lval / rval: the values below xp[0] / above xp[lenxp - 1].  Threaded
 * where xp is sorted.  Local. */
void cpn_kernel_interp(const double *x, int64_t n, const double *xp, const double *fp, int64_t lenxp,
                       double lval, double rval, double *out);
/* Runs of equal elements of the sorted sequence s (n elements, stride ss; through perm when not
 * NULL): their number (COUNT: one int64), first elements (VALUES: dtype dt), lengths (COUNTS),
 * first positions (INDEX: perm[start], or start) or each element's run (INVERSE: out[perm[i]],
 * n int64), out's byte stride os.  Equal as NumPy's unique: -0.0 == +0.0, NaNs one run unless
 * nan_distinct.  Real dtypes.  Local. */
enum cpn_status cpn_kernel_unique(enum cpn_dtype dt, enum cpn_unique_mode mode, bool nan_distinct,
                                  const char *s, int64_t ss, const char *perm, int64_t ps, int64_t n,
                                  char *out, int64_t os);
/* cpn_kernel_unique of s itself sorted (no permutation read), the positions INDEX and INVERSE
 * give taken from pos (int64, stride qs: each element's position before the sort), when not
 * NULL.  Local. */
enum cpn_status cpn_kernel_unique_sorted(enum cpn_dtype dt, enum cpn_unique_mode mode, bool nan_distinct,
                                         const char *s, int64_t ss, const char *pos, int64_t qs, int64_t n,
                                         char *out, int64_t os);
/* What sorts the keys: "vqsort (highway ...)" or the plain C radix sort.  Local. */
const char *cpn_kernel_sort_name(void);

/* Gather (compact.c): out (contiguous, m blocks of shape[1:]) = src[idx[j]] for j < m, src of
 * ndim >= 1 dimensions (shape, byte strides sst), idx int64 with byte stride ist, negative
 * indices counted from the end of dimension 0; an index out of bounds is CPN_ERR_INDEX (the
 * module checks first, so this is a broken invariant).  Local. */
enum cpn_status cpn_kernel_gather(size_t item, int ndim, const int64_t *shape, const char *src,
                                  const int64_t *sst, const char *idx, int64_t ist, int64_t m,
                                  char *out);

/* Scatter (compact.c): dst[idx[j]] = val[j] for j = 0..m-1 in order (a repeated index keeps the
 * last value, as NumPy's assignment), dst of shape (n, shape[1:]) with byte strides dst_st, val
 * (m, shape[1:]) with byte strides val_st, idx int64 with byte stride ist; negatives from the
 * end; out of bounds is CPN_ERR_INDEX (the module checks first).  One dimension may run on two
 * threads, each owning half of dst (the list's order kept within each half; compact.c).
 * Local. */
enum cpn_status cpn_kernel_scatter(size_t item, int ndim, const int64_t *shape, char *dst,
                                   const int64_t *dst_st, const char *val, const int64_t *val_st,
                                   const char *idx, int64_t ist, int64_t m);
/* Scatter with an op (compact.c, ufunc.at): dst[idx[j]] = fn(dst[idx[j]], val[j]) (nin 2) or
 * fn(dst[idx[j]]) (nin 1, val unused) for j = 0..m-1 in order, so a repeated index applies again;
 * items of `item` bytes, shapes, strides and bounds as cpn_kernel_scatter.  fn's findings go to
 * ctx (status flags in ctx->hw).  One dimension goes through `at` (cpn_kernel_at_loop, may be
 * NULL), the typed loop over the whole list, on one thread or on two each owning half of dst
 * (each element's updates in list order: the same bits); more dimensions run sequentially on
 * one thread.  Local. */
enum cpn_status cpn_kernel_scatter_apply(cpn_at_fn at, cpn_loop_fn fn, int nin, size_t item,
                                         int ndim, const int64_t *shape, char *dst, const int64_t *dst_st,
                                         const char *val, const int64_t *val_st, const char *idx,
                                         int64_t ist, int64_t m, struct cpn_kctx *ctx);
/* The machine's random read-modify-write rate (compact.c): m updates a[k] += 1 at random k of an
 * n-element float64 array on `threads` threads each owning 1/threads of it, the list split
 * beforehand; secs[r] the wall time of run r < repeat.  The bound of the scatters
 * (benchmarks/indexing.py).  Local. */
enum cpn_status cpn_kernel_rmw_probe(int64_t n, int64_t m, int threads, int repeat, double *secs);
/* numpy.histogram's counting: n elements x (byte stride xs; float64 when `uniform`, else of
 * dtype dt, like the nbins + 1 edges e, stride es), weighted by float64 w (stride ws; NULL: count
 * into int64).  Uniform bins from first, last, denom (last - first) and edges (float64, NumPy's
 * linspace); otherwise the bins between the edges, the last closed.  NumPy's results bit for bit
 * (histogram.c).  Threaded.  Local. */
struct cpn_hist_args {
    enum cpn_dtype dt;
    bool uniform;
    const char *x, *w, *edges;
    int64_t xs, ws, es, n, nbins;
    double first, last, denom;
};
enum cpn_status cpn_kernel_histogram(const struct cpn_hist_args *h, char *out, int64_t os);

/* C[..., m, n] = A[..., m, k] @ B[..., k, n] on strided operands of dtype dt: nb batch dimensions
 * of extents bshape (A and B broadcast to them: stride 0), then the two core dimensions; as, bs
 * and cs hold nb + 2 byte strides each.  Floats and complex through BLAS when built with it
 * (matmul.c).  Local. */
enum cpn_status cpn_kernel_matmul(enum cpn_dtype dt, int nb, const int64_t *bshape, const char *a,
                                  const int64_t *as, const char *b, const int64_t *bs, char *c,
                                  const int64_t *cs, int64_t m, int64_t k, int64_t n);
/* C[m,n] += A[m,k] @ B[k,n] (2-D, byte strides; float16 rounds the sum once per call).  Local. */
enum cpn_status cpn_kernel_matmul_add(enum cpn_dtype dt, const char *a, const int64_t *as, const char *b,
                                      const int64_t *bs, char *c, const int64_t *cs, int64_t m, int64_t k,
                                      int64_t n);
/* The BLAS the products use ("scipy-openblas32 0.3.x", "openblas 0.3.x", or "none").  Local. */
const char *cpn_kernel_blas_name(void);

/* numpy.linalg on LAPACK (lapack.c): one routine per op over a batch of matrices.  A[..., m, n]
 * (byte strides as: nb batch dimensions of extents bshape, then the two core dimensions), B[...,
 * m, nrhs] for solve and lstsq (bs, else NULL), of dtype dt (float32/64, complex64/128).  Per
 * matrix, `out` (strides os: nb + 1, the last the element's) holds the routine's packed results
 * row-major, and `aux` (float64, strides xs: nb + 1) holds LAPACK's info first, then the
 * real-valued results:
 *   SOLVE     out X (n x nrhs)                      INV       out inverse (n x n)
 *   SLOGDET   out sign (1); aux logdet              CHOLESKY  out L or U (p[0]: upper)
 *   QR        p[0] mode: REDUCED out Q (m x k), R (k x n); COMPLETE Q (m x m), R (m x n);
 *             R: R (k x n); RAW: h (n x m), tau (k)                         (k = min(m, n))
 *   EIGH      p[0] upper, p[1] vectors: out V (n x n); aux w (n)
 *   SVD       p[0] full_matrices, p[1] compute_uv: out U (m x m|k), Vh (n|k x n); aux s (k)
 *   EIG       p[1] vectors: out (complex dtype) w (n), V (n x n)
 *   LSTSQ     rcond: out x (n x nrhs); aux rank, s (k), residuals (nrhs)
 * A non-zero info leaves the matrix's results unspecified (the caller raises).  Local. */
enum cpn_lapack_routine {
    CPN_LA_SOLVE, CPN_LA_INV, CPN_LA_SLOGDET, CPN_LA_CHOLESKY, CPN_LA_QR, CPN_LA_EIGH, CPN_LA_SVD,
    CPN_LA_EIG, CPN_LA_LSTSQ, CPN_LA_COUNT
};
enum cpn_qr_mode { CPN_QR_REDUCED, CPN_QR_COMPLETE, CPN_QR_R, CPN_QR_RAW };
struct cpn_lapack_args {
    int code;
    enum cpn_dtype dt;
    int nb;
    const int64_t *bshape;
    const char *a;
    const int64_t *as;
    const char *b;
    const int64_t *bs;
    int64_t m, n, nrhs;
    char *out;
    const int64_t *os;
    double *aux;
    const int64_t *xs;
    int64_t p[2];
    double rcond;
};
enum cpn_status cpn_kernel_lapack(const struct cpn_lapack_args *p);
/* Was cupynum built with LAPACK (the BLAS library's)?  Local. */
bool cpn_kernel_lapack_available(void);
/* Size OpenBLAS's pool before a BLAS or LAPACK call of `work` multiply-adds: cupynum's thread
 * count, or one thread below 2^21 (the per-op cost model: waking a pool costs more).  Local. */
void cpn_kernel_blas_threads(int64_t work);
/* out = the unnormalized transform `kind` of in over the dimensions set in `axes` (complex to
 * complex: any set; real to complex and back: one dimension), times `scale`; every other
 * dimension is a batch (ishape and oshape equal there).  cdt is the complex dtype of the
 * transform (complex64: single precision); real sides are its real dtype.  Along a transformed
 * dimension ishape == oshape except r2c (out n//2 + 1 of in n) and c2r (in n//2 + 1 of out n);
 * is/os: byte strides.  in is never written.  CPN_ERR_UNSUPPORTED without an FFT library
 * (fft.c, on FFTW3).  Local. */
enum cpn_status cpn_kernel_fft(enum cpn_fft_kind kind, enum cpn_dtype cdt, int nd, uint64_t axes,
                               const int64_t *ishape, const char *in, const int64_t *is,
                               const int64_t *oshape, char *out, const int64_t *os, double scale);
/* The FFT library the transforms use ("fftw 3.3.10", or "none").  Local. */
const char *cpn_kernel_fft_name(void);

#endif
