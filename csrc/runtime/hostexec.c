/* hostexec.c: computations run at once on host memory, outside the queue (hostexec.h). */
#include "hostexec.h"

#include "kernels.h"
#include "opsem.h"
#include "store.h"

void cpn_hostexec_generate(const struct cpn_store_gen *g, enum cpn_dtype dt, void *data, int64_t n)
{
    cpn_hostexec_generate_range(g, dt, data, 0, n);
}

void cpn_hostexec_generate_range(const struct cpn_store_gen *g, enum cpn_dtype dt, void *data,
                                 int64_t first, int64_t n)
{
    if (g->kind == CPN_OPK_RANDOM)
        cpn_kernel_random((enum cpn_random_dist)g->code, g->seed, g->stream, (double *)data, first, n,
                          g->p0, g->p1);
    else
        cpn_kernel_arange(dt, data, first, n, g->p0, g->p1, g->i0, g->i1);
}

enum cpn_status cpn_hostexec_reduce_all(enum cpn_opcode code, enum cpn_dtype dt, enum cpn_dtype acc,
                                        const char *origin, int ndim, const int64_t *shape,
                                        const int64_t *byte_strides, void *out, bool *findings)
{
    int64_t ost[1] = {0};
    uint64_t axes = ndim ? (((uint64_t)1 << ndim) - 1) : 0;
    struct cpn_fpreport fp = {0};
    enum cpn_status s = cpn_kernel_reduce(code, dt, acc, origin, ndim, shape, byte_strides, axes,
                                          (char *)out, ost, NULL, &fp);
    *findings = (fp.hw | fp.sw) != 0;
    return s;
}

void cpn_hostexec_correlate(enum cpn_dtype dt, const char *a, int64_t n1, const char *v, int64_t n2, int mode,
                            char *out)
{
    cpn_kernel_correlate(dt, a, n1, v, n2, mode, out);
}

void cpn_hostexec_interp(const double *x, int64_t n, const double *xp, const double *fp, int64_t lenxp,
                         double lval, double rval, double *out)
{
    cpn_kernel_interp(x, n, xp, fp, lenxp, lval, rval, out);
}

void cpn_hostexec_range_i64(const char *origin, int64_t n, int64_t *lo, int64_t *hi)
{
    cpn_kernel_range_i64((const int64_t *)origin, n, lo, hi);
}

int64_t cpn_hostexec_count_true(const char *origin, int64_t n)
{
    return (int64_t)cpn_kernel_count_nonzero_bytes(origin, 1, n);
}

enum cpn_status cpn_hostexec_rmw_probe(int64_t n, int64_t m, int threads, int repeat, double *secs)
{
    return cpn_kernel_rmw_probe(n, m, threads, repeat, secs);
}
