/* transport.c: the host transport (see transport.h): host tiles and buffers, MPI messages
 * (comm.c), the CPU kernels. */
#include "transport.h"

#include <string.h>

#include "alloc.h"
#include "backend.h"
#include "comm.h"
#include "kernels.h"
#include "opsem.h"
#include "store.h"

static char *host_tile(struct cpn_store *s) { return cpn_store_data(s) ? cpn_store_root(s)->data : NULL; }
static void host_release(void *p, size_t n) { (void)n; cpn_free(p); }

/* Rows of the innermost dimension copied with one memcpy where both sides are contiguous. */
static enum cpn_status host_copy(int n, const int64_t *ext, size_t item, void *dst, const int64_t *dst_st,
                                 const void *src, const int64_t *src_st)
{
    if (n == 0) {
        memcpy(dst, src, item);
        return CPN_OK;
    }
    int64_t rows = 1;
    for (int d = 0; d < n; d++) {
        if (ext[d] <= 0) return CPN_OK;
        if (d < n - 1) rows *= ext[d];
    }
    const int last = n - 1;
    const int64_t it = (int64_t)item;
    for (int64_t row = 0; row < rows; row++) {
        int64_t q = row, doff = 0, soff = 0;
        for (int d = last - 1; d >= 0; d--) {
            int64_t i = q % ext[d];
            q /= ext[d];
            doff += i * dst_st[d];
            soff += i * src_st[d];
        }
        char *dp = (char *)dst + doff * it;
        const char *sp = (const char *)src + soff * it;
        if (dst_st[last] == 1 && src_st[last] == 1) {
            memcpy(dp, sp, (size_t)ext[last] * item);
        } else {
            for (int64_t k = 0; k < ext[last]; k++)
                memcpy(dp + k * dst_st[last] * it, sp + k * src_st[last] * it, item);
        }
    }
    return CPN_OK;
}

static bool host_region_supported(const struct cpn_op *op) { (void)op; return true; }

/* The region bound as an op of its own, computed by the CPU backend. */
static enum cpn_status host_compute_region(const struct cpn_op *op, char *const *ptr, int ndim,
                                           const int64_t *ext, const int64_t *const *strides,
                                           struct cpn_fpreport *fp)
{
    struct cpn_bound_op b;
    cpn_bind_region(op, ptr, ndim, ext, strides, &b);
    return cpn_cpu_backend()->compute(&b, fp);
}

static enum cpn_status host_reduce_region(const struct cpn_op *op, const char *in, int ndim, const int64_t *ext,
                                          const int64_t *in_st, char *part, const int64_t *part_st,
                                          struct cpn_fpreport *fp)
{
    return cpn_kernel_reduce(op->code, op->in[0]->dtype, op->out[0]->dtype, in, ndim, ext, in_st, op->axes, part,
                             part_st, NULL, fp);
}

static const struct cpn_transport_i host_transport = {
    .device = false,
    .tile = host_tile,
    .alloc = cpn_alloc,
    .release = host_release,
    .copy_region = host_copy,
    .xchg_post = cpn_comm_post,
    .xchg_wait = cpn_comm_wait,
    .region_supported = host_region_supported,
    .compute_region = host_compute_region,
    .reduce_region = host_reduce_region,
};

const struct cpn_transport_i *cpn_transport_host(void) { return &host_transport; }

char *cpn_transport_device_tile(struct cpn_store *s) { return cpn_store_device_data(s, false, false); }
