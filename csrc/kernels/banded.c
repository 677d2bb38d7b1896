/* banded.c: the threaded driver of a banded write-back (fusion.c: `center[:] = f(center, north,
 * ...)` evaluated in bands of outer rows, each copied into its destination once every band that
 * reads the rows it writes has been computed).
 *
 * The bands are cut into slabs of consecutive bands; a thread takes a slab (dynamically, so a
 * thread whose core another process holds leaves its share to the others) and runs it alone:
 * computes its bands in order into its own ring of band buffers and copies each back as soon as
 * its readers, all inside the slab, are computed.  A band read by a band of another slab (the
 * first and last bands of a slab, for the stencil) is computed into a held buffer instead and
 * copied back after every thread finished computing: the one barrier per run.  So a run costs
 * one thread-team wake-up instead of two per band, each band's write-back reads the band while it
 * is still in the thread's cache, and a slab's inputs stream through one core's cache in order.
 * A band is computed and written once, whatever the thread count: results are the same bits as
 * unfused execution. */
#include <fenv.h>
#include <stddef.h>
#include <string.h>
#ifdef _OPENMP
#include <omp.h>
#endif

#include "alloc.h"
#include "banded.h"
#include "status.h"

#define R64(n) (((size_t)(n) + 63) & ~(size_t)63)

/* Copy band j from `src` (dense rows) into the destination, on this thread. */
static void write_back(const struct cpn_fused_prog *prog, const struct cpn_band_plan *bp, int64_t j,
                       const char *src, struct cpn_kctx *ctx, unsigned *hw)
{
    const int nd = prog->ndim;
    int64_t a = j * bp->h, rows = a + bp->h < bp->rows ? bp->h : bp->rows - a;
    int64_t shape[CPN_MAXDIM];
    memcpy(shape, prog->shape, (size_t)nd * sizeof *shape);
    shape[0] = rows;
    /* Dense source: the innermost dimension is walked by the loop; the others by index. */
    const int last = nd - 1;
    int64_t outer = 1;
    for (int d = 0; d < last; d++) outer *= shape[d];
    const int64_t inner = nd > 0 ? shape[last] : 1;
    int64_t st[2] = {nd > 0 ? bp->pst[last] : 0, nd > 0 ? bp->dst[last] : 0};
    if (bp->watch) cpn_kernel_fpe_clear();
    for (int64_t o = 0; o < outer; o++) {
        char *args[2] = {(char *)src, bp->dbase + a * bp->dst[0]};
        for (int64_t q = o, d = last - 1; d >= 0; d--) {
            int64_t i = q % shape[d];
            q /= shape[d];
            args[0] += i * bp->pst[d];
            args[1] += i * bp->dst[d];
        }
        bp->copy(args, st, inner, ctx);
    }
    if (bp->watch) *hw |= cpn_kernel_fpe_status();
}

/* Evaluate band k of the program into `buf` with the thread's copy `sub` of it. */
static enum cpn_status compute_band(const struct cpn_fused_prog *prog, const struct cpn_band_plan *bp,
                                    int64_t k, char *buf, struct cpn_fused_prog *sub, char *regs,
                                    struct cpn_kctx *ctx)
{
    const int nd = prog->ndim;
    int64_t a = k * bp->h;
    memcpy(sub, prog, offsetof(struct cpn_fused_prog, ext_base));
    sub->next = prog->next;
    for (int e = 0; e < prog->next; e++) {
        sub->ext_base[e] = prog->ext_base[e] + (intptr_t)(a * prog->ext_st[e][0]);
        memcpy(sub->ext_st[e], prog->ext_st[e], (size_t)nd * sizeof prog->ext_st[e][0]);
    }
    sub->ext_base[bp->pext] = (intptr_t)buf;
    sub->ndim = nd;
    memcpy(sub->shape, prog->shape, (size_t)nd * sizeof *sub->shape);
    sub->shape[0] = a + bp->h < bp->rows ? bp->h : bp->rows - a;
    sub->reduce_out = NULL;
    return cpn_kernel_fused_serial(sub, regs, ctx);
}

struct slabs {
    int64_t nslab;
    int64_t *start;     /* nslab + 1 band indices */
    int64_t *need;      /* per band: the slab-local running maximum of the last readers */
    int64_t *hslot;     /* per band: its held buffer, or -1 */
    int64_t *held;      /* the held bands, in order */
    int64_t nheld;
};

/* Run slab s on this thread: bands in order, written back as their readers complete. */
static enum cpn_status run_slab(const struct cpn_fused_prog *prog, const struct cpn_band_plan *bp,
                                const struct slabs *sl, int64_t s, char *ring, char *heldbuf,
                                size_t hstride, struct cpn_fused_prog *sub, char *regs, struct cpn_kctx *ctx,
                                unsigned *hw)
{
    const int64_t s0 = sl->start[s], s1 = sl->start[s + 1];
    int64_t next_wb = s0;
    enum cpn_status st = CPN_OK;
    for (int64_t k = s0; k < s1 && st == CPN_OK; k++) {
        char *buf = sl->hslot[k] >= 0 ? heldbuf + (size_t)sl->hslot[k] * hstride
                                      : ring + (k % bp->ring) * bp->band_bytes;
        st = compute_band(prog, bp, k, buf, sub, regs, ctx);
        while (st == CPN_OK && next_wb <= k && (sl->hslot[next_wb] >= 0 || sl->need[next_wb] <= k)) {
            if (sl->hslot[next_wb] < 0)
                write_back(prog, bp, next_wb, ring + (next_wb % bp->ring) * bp->band_bytes, ctx, hw);
            next_wb++;
        }
    }
    for (; st == CPN_OK && next_wb < s1; next_wb++)
        if (sl->hslot[next_wb] < 0)
            write_back(prog, bp, next_wb, ring + (next_wb % bp->ring) * bp->band_bytes, ctx, hw);
    return st;
}

/* Cut the bands into slabs and find the bands each slab must hold back.  Local. */
static enum cpn_status plan_slabs(const struct cpn_band_plan *bp, int64_t nslab, struct slabs *sl)
{
    const int64_t nb = bp->nb;
    sl->nslab = nslab;
    sl->start = cpn_kernel_scratch(CPN_SCRATCH_BANDED_PLAN, (size_t)(nslab + 1 + 3 * nb) * sizeof(int64_t));
    if (!sl->start) return CPN_ERR_NOMEM;
    sl->need = sl->start + nslab + 1;
    sl->hslot = sl->need + nb;
    sl->held = sl->hslot + nb;
    sl->nheld = 0;
    for (int64_t s = 0; s <= nslab; s++) sl->start[s] = nb * s / nslab;
    for (int64_t s = 0; s < nslab; s++) {
        const int64_t s0 = sl->start[s], s1 = sl->start[s + 1];
        int64_t need = -1;
        for (int64_t j = s0; j < s1; j++) {
            if (bp->lr[j] > need) need = bp->lr[j];
            sl->need[j] = need;
            bool hold = bp->fr[j] < s0 || need >= s1;
            sl->hslot[j] = hold ? sl->nheld : -1;
            if (hold) sl->held[sl->nheld++] = j;
        }
    }
    return CPN_OK;
}

enum cpn_status cpn_kernel_banded(const struct cpn_fused_prog *prog, const struct cpn_band_plan *bp,
                                  struct cpn_kctx *ctx, unsigned *wb_hw)
{
    int nth = bp->serial ? 1 : cpn_kernel_threads();
    int64_t nslab = nth > 1 ? 4 * (int64_t)nth : 1;
    if (nslab > bp->nb / (2 * bp->ring)) nslab = bp->nb / (2 * bp->ring);
    if (nslab < 2) nslab = 1;
    if (nslab == 1) nth = 1;
    if (nth > nslab) nth = (int)nslab;
    struct slabs sl;
    enum cpn_status status = plan_slabs(bp, nslab, &sl);
    if (status != CPN_OK) return status;
    /* Per thread: its ring, its registers, its copy of the program; then the held bands. */
    const size_t regbytes = R64(cpn_kernel_fused_scratch(prog)), ringbytes = R64((size_t)bp->ring * bp->band_bytes);
    const size_t hstride = R64((size_t)bp->band_bytes);
    const size_t per = ringbytes + regbytes + R64(sizeof(struct cpn_fused_prog));
    const size_t sn = (size_t)nth * per + (size_t)sl.nheld * hstride;
    char *scratch = cpn_kernel_scratch(CPN_SCRATCH_BANDED, sn);
    if (!scratch) {
        cpn_kernel_scratch_done(CPN_SCRATCH_BANDED_PLAN, sl.start);
        return CPN_ERR_NOMEM;
    }
    char *heldbuf = scratch + (size_t)nth * per;
    unsigned hw = 0;
    if (nth == 1) {
        struct cpn_fused_prog *sub = (struct cpn_fused_prog *)(scratch + ringbytes + regbytes);
        for (int64_t s = 0; s < nslab && status == CPN_OK; s++)
            status = run_slab(prog, bp, &sl, s, scratch, heldbuf, hstride, sub, scratch + ringbytes, ctx, &hw);
        for (int64_t i = 0; i < sl.nheld && status == CPN_OK; i++)
            write_back(prog, bp, sl.held[i], heldbuf + (size_t)i * hstride, ctx, &hw);
    } else {
#pragma omp parallel num_threads(nth) reduction(|: hw)
        {
            int me = 0;
#ifdef _OPENMP
            me = omp_get_thread_num();
#endif
            char *mine = scratch + (size_t)me * per;
            char *regs = mine + ringbytes;
            struct cpn_fused_prog *sub = (struct cpn_fused_prog *)(regs + regbytes);
#pragma omp for schedule(dynamic, 1)
            for (int64_t s = 0; s < nslab; s++) {
                enum cpn_status s_st = run_slab(prog, bp, &sl, s, mine, heldbuf, hstride, sub, regs, ctx, &hw);
                if (s_st != CPN_OK) {
#pragma omp critical(cpn_banded_status)
                    status = s_st;
                }
            }
            /* (the loop's implicit barrier: every band is computed, so no read is pending) */
            if (status == CPN_OK) {
#pragma omp for schedule(dynamic, 1)
                for (int64_t i = 0; i < sl.nheld; i++)
                    write_back(prog, bp, sl.held[i], heldbuf + (size_t)i * hstride, ctx, &hw);
            }
        }
    }
    *wb_hw |= hw;
    cpn_kernel_scratch_done(CPN_SCRATCH_BANDED, scratch);
    cpn_kernel_scratch_done(CPN_SCRATCH_BANDED_PLAN, sl.start);
    return status;
}
