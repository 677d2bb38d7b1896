/* hostexec.h: computations the runtime runs at once on host memory, outside the queue.
 *
 * A virtual store's generator run into its new buffer (store.c), and the module's fast path of
 * ndarray.sum/prod/max/min and of an index array's bounds on bytes already in memory
 * (csrc/module/fastpath.c): the same CPU
 * kernels the executor would run on the same layout, so the values are the same bits.  The
 * entry points through which store.c and the module reach a kernel (neither includes
 * kernels.h). */
#ifndef CPN_HOSTEXEC_H
#define CPN_HOSTEXEC_H

#include <stdbool.h>
#include <stdint.h>

#include "op.h"
#include "status.h"

struct cpn_store_gen;

/* Run generator `g` into `data`, the `n` elements of a root store of dtype `dt`.  Local. */
void cpn_hostexec_generate(const struct cpn_store_gen *g, enum cpn_dtype dt, void *data, int64_t n);
/* Elements [first, first + n) of that generator into data (n elements).  Local. */
void cpn_hostexec_generate_range(const struct cpn_store_gen *g, enum cpn_dtype dt, void *data,
                                 int64_t first, int64_t n);

/* Reduce every element of the host bytes at `origin` (dtype `dt`, `ndim` dimensions of `shape`,
 * byte strides `byte_strides`) with op `code` in accumulator dtype `acc` into `out` (one element
 * of `acc`).  *findings: whether the loops reported a floating-point finding (the result is then
 * to be recomputed where the error mode applies).  Local. */
enum cpn_status cpn_hostexec_reduce_all(enum cpn_opcode code, enum cpn_dtype dt, enum cpn_dtype acc,
                                        const char *origin, int ndim, const int64_t *shape,
                                        const int64_t *byte_strides, void *out, bool *findings);

/* numpy's correlation of a (n1) and v (n2 <= n1) into out (cpn_kernel_correlate).  Local. */
void cpn_hostexec_correlate(enum cpn_dtype dt, const char *a, int64_t n1, const char *v, int64_t n2, int mode,
                            char *out);

/* numpy.interp of the n contiguous float64 queries x over the table (xp, fp) of lenxp >= 1
 * points into out (cpn_kernel_interp: NumPy's loop, its bits).  Local. */
void cpn_hostexec_interp(const double *x, int64_t n, const double *xp, const double *fp, int64_t lenxp,
                         double lval, double rval, double *out);

/* The least and greatest of the n >= 1 contiguous int64 at `origin` (cpn_kernel_range_i64).
 * Local. */
void cpn_hostexec_range_i64(const char *origin, int64_t n, int64_t *lo, int64_t *hi);

/* How many of the n contiguous bools at `origin` are true (cpn_kernel_count_nonzero_bytes).
 * Local. */
int64_t cpn_hostexec_count_true(const char *origin, int64_t n);

/* The machine's random read-modify-write rate on its own buffers (cpn_kernel_rmw_probe): the
 * wall time of each of `repeat` runs in secs.  Local. */
enum cpn_status cpn_hostexec_rmw_probe(int64_t n, int64_t m, int threads, int repeat, double *secs);

#endif
