/* fused.c: the threaded block driver of fused element-wise programs (fused.h).
 *
 * The iteration space is coalesced as cpn_iterate does (unit dimensions dropped, neighbours that
 * every external operand walks contiguously merged), then cut into tasks: one row of the
 * outer dimensions times one block of at most CPN_FUSED_BLOCK elements of the inner one.
 * Threads take tasks dynamically; each has its own register file (nslots blocks of 16-byte
 * elements), so registers never reach memory.  A reduction folds each block into a per-thread
 * partial; the partials are combined in thread order (the executor fuses only reductions whose
 * result does not depend on that order). */
#include <fenv.h>
#include <stdbool.h>
#include <string.h>
#ifdef _OPENMP
#include <omp.h>
#endif

#include "alloc.h"
#include "fused.h"
#include "stats.h"
#include "status.h"

#define REG_BYTES ((int64_t)CPN_FUSED_BLOCK * 16)

struct geom {
    int nd;
    int64_t shape[CPN_MAXDIM];
    int64_t inner, outer, chunk, nchunks;
    int64_t rows;                          /* outer rows per task (> 1: short rows grouped) */
    bool flat[CPN_FUSED_MAXINSTR];         /* rows > 1: instruction k's externals walk the rows
                                            * of a group as one run (one call for the group) */
    bool streams;                          /* some instruction's output is streamed */
    bool stream[CPN_FUSED_MAXINSTR];       /* instruction k writes its external output through a
                                            * staging block with streaming stores */
    int npf;                               /* the externals read along the inner dimension ... */
    int pf[CPN_FUSED_MAXEXT];              /* ... whose next piece a task prefetches ... */
    int pf_by[CPN_FUSED_MAXEXT];           /* ... while the first instruction reading it runs */
};

/* The output external of instruction `in` (-1: none) and its element size. */
static int out_ext(const struct cpn_fused_instr *in, size_t *item)
{
    const struct cpn_fused_arg *r;
    switch (in->kind) {
    case CPN_FI_LOOP:
        r = &in->arg[in->narg - 1];
        *item = cpn_dtype_size(in->out_dt);
        break;
    case CPN_FI_RANDOM:
        r = &in->arg[0];
        *item = sizeof(double);
        break;
    case CPN_FI_ARANGE:
        r = &in->arg[0];
        *item = cpn_dtype_size(in->dt);
        break;
    default:
        return -1;
    }
    return r->kind == CPN_FARG_EXT ? r->idx : -1;
}

/* The bytes [lo, hi) external a spans over the space (`item` bytes an element at most). */
static void ext_span(const struct cpn_fused_prog *p, const struct geom *g, int a, int64_t item,
                     intptr_t *lo, intptr_t *hi)
{
    intptr_t l = p->ext_base[a], h = p->ext_base[a] + (intptr_t)item;
    for (int d = 0; d < g->nd; d++) {
        const intptr_t ext = (intptr_t)(p->ext_st[a][d] * (g->shape[d] - 1));
        if (ext < 0) l += ext;
        else h += ext;
    }
    *lo = l;
    *hi = h;
}

/* Which outputs stream (cpn_kernel_stream_min): an external written contiguously along the inner
 * dimension, of at least the threshold's bytes, whose bytes no instruction reads through any
 * external (an in-place update's lines are in the cache already; a read-back after the write
 * would miss it).  Externals are per operand, so an in-place update reads the same bytes through
 * another external: spans are compared, not indices. */
static void plan_streams(const struct cpn_fused_prog *p, struct geom *g)
{
    g->streams = false;
    memset(g->stream, 0, sizeof g->stream);
    const int64_t min = cpn_kernel_stream_min();
    if (min <= 0 || g->inner * g->outer < 64) return;
    for (int k = 0; k < p->ninstr; k++) {
        size_t item = 0;
        const int e = out_ext(&p->instr[k], &item);
        if (e < 0 || item == 0 || item > 16 || p->ext_st[e][g->nd - 1] != (int64_t)item ||
            g->inner * g->outer * (int64_t)item < min)
            continue;
        bool read = false;
        intptr_t wlo, whi;
        ext_span(p, g, e, (int64_t)item, &wlo, &whi);
        for (int j = 0; j < p->ninstr && !read; j++) {
            const struct cpn_fused_instr *in = &p->instr[j];
            const int nread = in->kind == CPN_FI_LOOP ? in->narg - 1 : in->kind == CPN_FI_REDUCE ? 1 : 0;
            for (int a = 0; a < nread; a++) {
                if (in->arg[a].kind != CPN_FARG_EXT) continue;
                intptr_t rlo, rhi;
                ext_span(p, g, in->arg[a].idx, 16, &rlo, &rhi);
                if (rlo < whi && wlo < rhi) read = true;
            }
        }
        if (!read) {
            g->stream[k] = g->streams = true;
            cpn_stats.bytes_streamed += g->inner * g->outer * (int64_t)item;
        }
    }
}

/* Which externals a task prefetches: each one read along the inner dimension with a stride of at
 * most a line, once per distinct (address, stride), when the program reads more than the caches
 * hold (CUPYNUM_PREFETCH_MIN bytes, default 4 MiB; 0: never).  A task runs its instructions one
 * after another over a block, so a block's loads come in bursts between which the hardware's
 * stream prefetchers fall behind; measured on the 2-core EPYC, `x[x > t] = 0` over 10^7 float64
 * on one thread took 3.2 ms without and 1.9 ms with the next piece prefetched. */
static void plan_prefetch(const struct cpn_fused_prog *p, struct geom *g)
{
    static int64_t min = -1;
    if (min < 0) {
        const char *v = getenv("CUPYNUM_PREFETCH_MIN");
        min = v ? atoll(v) : (int64_t)4 << 20;
        if (min < 0) min = 0;
    }
    g->npf = 0;
    if (min == 0 || g->inner < 2 * CPN_FUSED_BLOCK) return;
    int64_t bytes = 0;
    for (int k = 0; k < p->ninstr; k++) {
        const struct cpn_fused_instr *in = &p->instr[k];
        const int nread = in->kind == CPN_FI_LOOP ? in->narg - 1 : in->kind == CPN_FI_REDUCE ? 1 : 0;
        for (int a = 0; a < nread; a++) {
            if (in->arg[a].kind != CPN_FARG_EXT) continue;
            const int x = in->arg[a].idx;
            const int64_t st = p->ext_st[x][g->nd - 1];
            if (st == 0 || st > 64 || st < -64) continue;
            bool seen = false;
            for (int j = 0; j < g->npf && !seen; j++)
                seen = p->ext_base[g->pf[j]] == p->ext_base[x] && p->ext_st[g->pf[j]][g->nd - 1] == st;
            if (seen) continue;
            g->pf_by[g->npf] = k;
            g->pf[g->npf++] = x;
            bytes += g->inner * g->outer * (st < 0 ? -st : st);
        }
    }
    if (bytes < min) g->npf = 0;
    else cpn_stats.bytes_prefetched += bytes;
}

#define PF_SLICES 8

/* Run loop instruction k (fn over args/st, cnt elements at col) in PF_SLICES slices, prefetching
 * before each the same slice of the next piece of the externals k is the first to read: the
 * loads of the next piece spread over this one's work. */
static void run_prefetching(const struct cpn_fused_prog *p, const struct geom *g, int k, const intptr_t *e,
                            int64_t col, int64_t cnt, char **args, const int64_t *st, struct cpn_kctx *c)
{
    const struct cpn_fused_instr *in = &p->instr[k];
    int mine[CPN_FUSED_MAXEXT], n = 0;
    if (col + 2 * cnt <= g->inner)   /* else the next piece starts another row */
        for (int j = 0; j < g->npf; j++)
            if (g->pf_by[j] == k) mine[n++] = g->pf[j];
    if (n == 0 || cnt < PF_SLICES * 16) {
        in->fn(args, st, cnt, c);
        return;
    }
    char *sa[CPN_MAXARGS];
    for (int s = 0; s < PF_SLICES; s++) {
        const int64_t lo = cnt * s / PF_SLICES, hi = cnt * (s + 1) / PF_SLICES;
        for (int j = 0; j < n; j++) {
            const int64_t xs = p->ext_st[mine[j]][g->nd - 1];
            const char *a = (const char *)e[mine[j]] + (cnt + lo) * xs, *b = (const char *)e[mine[j]] + (cnt + hi) * xs;
            if (xs < 0) {   /* elements cnt + lo .. cnt + hi - 1 lie downwards from a */
                const char *t = a;
                a = b - xs;
                b = t - xs;
            }
            for (; a < b; a += 64) __builtin_prefetch(a, 0, 3);
        }
        for (int a = 0; a < in->narg; a++) sa[a] = args[a] + lo * st[a];
        in->fn(sa, st, hi - lo, c);
    }
}

static void coalesce(struct cpn_fused_prog *p, struct geom *g)
{
    g->streams = false;
    g->npf = 0;
    int nd = 0, ne = p->next;
    for (int d = 0; d < p->ndim; d++) {
        if (p->shape[d] == 1) continue;
        g->shape[nd] = p->shape[d];
        for (int a = 0; a < ne; a++) p->ext_st[a][nd] = p->ext_st[a][d];
        nd++;
    }
    /* An element-wise program (no fold, draw or fill: their order is their index's) runs in its
     * last output's memory order, outermost first, as cpn_iterate does: a result laid out as a
     * transposed operand is then contiguous runs. */
    bool ordered = false;
    for (int k = 0; k < p->ninstr; k++) ordered |= p->instr[k].kind != CPN_FI_LOOP;
    const struct cpn_fused_instr *last = p->ninstr ? &p->instr[p->ninstr - 1] : NULL;
    if (!ordered && last && last->narg > 0 && last->arg[last->narg - 1].kind == CPN_FARG_EXT)
        cpn_kernel_dims_memory_order(nd, g->shape, ne, p->ext_st, last->arg[last->narg - 1].idx);
    int m = 0;
    for (int d = 1; d < nd; d++) {
        int ok = 1;
        for (int a = 0; a < ne; a++)
            if (p->ext_st[a][m] != p->ext_st[a][d] * g->shape[d]) ok = 0;
        if (ok) {
            g->shape[m] *= g->shape[d];
            for (int a = 0; a < ne; a++) p->ext_st[a][m] = p->ext_st[a][d];
        } else {
            m++;
            g->shape[m] = g->shape[d];
            for (int a = 0; a < ne; a++) p->ext_st[a][m] = p->ext_st[a][d];
        }
    }
    if (nd == 0) {   /* a single element */
        g->shape[0] = 1;
        for (int a = 0; a < ne; a++) p->ext_st[a][0] = 0;
        nd = 1;
    } else {
        nd = m + 1;
    }
    /* A short inner dimension (the 3 of an (n, n, 3) broadcast) makes every task a few elements
     * long.  An element-wise program computes each element from the same element of its operands,
     * so any order gives its result: the longest dimension goes innermost instead.  Not with a
     * fold (its order is NumPy's) or a draw or fill (their index runs along the inner dimension). */
    if (nd >= 2 && g->shape[nd - 1] < 64) {
        int best = nd - 1;
        for (int d = 0; d < nd - 1; d++)
            if (g->shape[d] > g->shape[best]) best = d;
        if (!ordered && g->shape[best] >= 4 * g->shape[nd - 1]) {
            int64_t t = g->shape[best];
            g->shape[best] = g->shape[nd - 1];
            g->shape[nd - 1] = t;
            for (int a = 0; a < ne; a++) {
                t = p->ext_st[a][best];
                p->ext_st[a][best] = p->ext_st[a][nd - 1];
                p->ext_st[a][nd - 1] = t;
            }
        }
    }
    g->nd = nd;
    g->inner = g->shape[nd - 1];
    g->outer = 1;
    for (int d = 0; d < nd - 1; d++) g->outer *= g->shape[d];
    g->chunk = g->inner < CPN_FUSED_BLOCK ? g->inner : CPN_FUSED_BLOCK;
    g->nchunks = (g->inner + g->chunk - 1) / g->chunk;
    g->rows = 1;
}

/* Short rows are grouped, as many as fill a block, into one task that runs each instruction over
 * all of them before the next (the order within a block already: fusion.c never puts two
 * different overlapping views of a store in one run, one of them written, so an element sees its
 * operations in queue order either way).  The task's setup (the externals' addresses, one
 * division per dimension) and the status-flag read after each instruction, which cost more than
 * eight elements' arithmetic, are paid once per group instead of once per row.  Element-wise
 * programs only, without streamed outputs (a fold's, draw's or fill's task is one row). */
static void group_rows(const struct cpn_fused_prog *p, struct geom *g)
{
    g->rows = 1;
    if (g->nd < 2 || g->nchunks != 1 || g->streams || 2 * g->inner > CPN_FUSED_BLOCK) return;
    for (int k = 0; k < p->ninstr; k++)
        if (p->instr[k].kind != CPN_FI_LOOP) return;
    g->rows = CPN_FUSED_BLOCK / g->inner;
    if (g->rows > g->outer) g->rows = g->outer;
    /* An instruction whose externals are all C-ordered over the whole space (the contiguous
     * operands of `out + t` beside a transposed copy in the same run) takes a group in one call. */
    for (int k = 0; k < p->ninstr; k++) {
        const struct cpn_fused_instr *in = &p->instr[k];
        bool flat = true;
        for (int a = 0; a < in->narg && flat; a++) {
            if (in->arg[a].kind != CPN_FARG_EXT) continue;
            const int x = in->arg[a].idx;
            for (int d = 0; d < g->nd - 1; d++)
                if (p->ext_st[x][d] != p->ext_st[x][d + 1] * g->shape[d + 1]) flat = false;
        }
        g->flat[k] = flat;
    }
}

/* Run every instruction (all loops) on outer rows [row, row + nrows) (whole rows, nrows * inner
 * at most a block): the registers hold the rows one after another. */
/* After instruction k of a watched program ran into lc: the status flags it raised (clear before
 * it: cleared when the thread started and after any instruction that raised one -- reading them
 * is cheap, clearing is not; MXCSR alone without float16, see kernels.h) and its loops' own
 * findings, ORed into k's report. */
static void note_findings(const struct cpn_fused_prog *p, int k, const struct cpn_kctx *lc,
                          struct cpn_kctx *ctx)
{
    const struct cpn_fused_instr *in = &p->instr[k];
    const bool half = in->in_dt == CPN_DTYPE_FLOAT16 || in->out_dt == CPN_DTYPE_FLOAT16;
    const unsigned hw = half ? cpn_kernel_fpe_status() : cpn_kernel_fpe_status_sse();
    if (hw) {
        __atomic_fetch_or(&p->fpe[k].hw, hw, __ATOMIC_RELAXED);
        cpn_kernel_fpe_clear();
    }
    if (lc->fpe) __atomic_fetch_or(&p->fpe[k].sw, lc->fpe, __ATOMIC_RELAXED);
    if (lc->err) __atomic_store_n(&ctx->err, 1, __ATOMIC_RELAXED);
}

static void run_rows(const struct cpn_fused_prog *p, const struct geom *g, int64_t row, int64_t nrows,
                     char *regs, struct cpn_kctx *ctx)
{
    const int nd = g->nd, od = nd - 1;   /* dimensions [0, od) are the outer ones */
    const int64_t cnt = g->inner;
    int64_t start[CPN_MAXDIM];
    for (int d = od - 1; d >= 0; d--) {
        start[d] = row % g->shape[d];
        row /= g->shape[d];
    }
    for (int k = 0; k < p->ninstr; k++) {
        const struct cpn_fused_instr *in = &p->instr[k];
        char *args[CPN_MAXARGS];
        /* step: an argument's move to the next row along the innermost outer dimension (a
         * register's: one row of it); est: an external's strides over the outer dimensions, for
         * the carries (every shape[od - 1] rows). */
        int64_t st[CPN_MAXARGS], step[CPN_MAXARGS], est[CPN_MAXARGS][CPN_MAXDIM], ix[CPN_MAXDIM];
        int ext[CPN_MAXARGS], next = 0;
        for (int a = 0; a < in->narg; a++) {
            const struct cpn_fused_arg *r = &in->arg[a];
            step[a] = 0;
            switch (r->kind) {
            case CPN_FARG_EXT: {
                intptr_t e = p->ext_base[r->idx];
                for (int d = 0; d < od; d++) {
                    est[next][d] = p->ext_st[r->idx][d];
                    e += (intptr_t)(start[d] * est[next][d]);
                }
                args[a] = (char *)e;
                st[a] = p->ext_st[r->idx][od];
                step[a] = od > 0 ? est[next][od - 1] : 0;
                ext[next++] = a;
                break;
            }
            case CPN_FARG_REG:
                args[a] = regs + r->idx * REG_BYTES;
                st[a] = r->itemsize;
                step[a] = cnt * r->itemsize;
                break;
            default:
                args[a] = (char *)r->scalar;
                st[a] = 0;
                break;
            }
        }
        memcpy(ix, start, (size_t)od * sizeof ix[0]);
        struct cpn_kctx lc = {0};
        struct cpn_kctx *c = p->fpe ? &lc : ctx;
        const int narg = in->narg;
        const int64_t last = g->shape[od - 1];
        if (g->flat[k]) {
            in->fn(args, st, cnt * nrows, c);
        } else {
            for (int64_t i = 0;;) {
                in->fn(args, st, cnt, c);
                if (++i == nrows) break;
                for (int a = 0; a < narg; a++) args[a] += step[a];
                if (++ix[od - 1] < last) continue;
                /* carry: back along the innermost outer dimension, on along the next ones */
                ix[od - 1] = 0;
                for (int j = 0; j < next; j++) args[ext[j]] -= est[j][od - 1] * last;
                for (int d = od - 2; d >= 0; d--) {
                    for (int j = 0; j < next; j++) args[ext[j]] += est[j][d];
                    if (++ix[d] < g->shape[d]) break;
                    ix[d] = 0;
                    for (int j = 0; j < next; j++) args[ext[j]] -= est[j][d] * g->shape[d];
                }
            }
        }
        if (p->fpe) note_findings(p, k, &lc, ctx);   /* as run_piece */
    }
}

/* Run the first `ninstr` instructions on elements [col, col + cnt) of outer row `row` (cnt at most
 * a block) with registers `regs` (nslots blocks, then the staging block of streamed outputs); fold
 * into acc (has: acc holds a value).  e: the externals' addresses there. */
static enum cpn_status run_piece(const struct cpn_fused_prog *p, const struct geom *g, int64_t row,
                                 int64_t col, int64_t cnt, int ninstr, char *regs, unsigned char *acc,
                                 int *has, struct cpn_kctx *ctx, intptr_t *e)
{
    const int nd = g->nd, ne = p->next;
    for (int a = 0; a < ne; a++) e[a] = p->ext_base[a] + (intptr_t)(col * p->ext_st[a][nd - 1]);
    for (int d = nd - 2; d >= 0; d--) {
        int64_t i = row % g->shape[d];
        row /= g->shape[d];
        for (int a = 0; a < ne; a++) e[a] += (intptr_t)(i * p->ext_st[a][d]);
    }
    for (int k = 0; k < ninstr; k++) {
        const struct cpn_fused_instr *in = &p->instr[k];
        char *args[CPN_MAXARGS];
        int64_t st[CPN_MAXARGS];
        for (int a = 0; a < in->narg; a++) {
            const struct cpn_fused_arg *r = &in->arg[a];
            switch (r->kind) {
            case CPN_FARG_EXT:
                args[a] = (char *)e[r->idx];
                st[a] = p->ext_st[r->idx][nd - 1];
                break;
            case CPN_FARG_REG:
                args[a] = regs + r->idx * REG_BYTES;
                st[a] = r->itemsize;
                break;
            default:
                args[a] = (char *)r->scalar;
                st[a] = 0;
                break;
            }
        }
        char *sdst = NULL;   /* a streamed output: computed into the staging block */
        size_t sitem = 0;
        if (g->streams && g->stream[k]) {
            const int o = in->kind == CPN_FI_LOOP ? in->narg - 1 : 0;
            out_ext(in, &sitem);
            sdst = args[o];
            args[o] = regs + (int64_t)(p->nslots > 0 ? p->nslots : 1) * REG_BYTES;
            st[o] = (int64_t)sitem;
        }
        switch (in->kind) {
        case CPN_FI_LOOP:
            if (p->fpe) {
                /* The flags are clear here (cleared when the thread started and after any
                 * instruction that raised one): reading them is cheap, clearing is not. */
                struct cpn_kctx lc = {0};
                if (g->npf) run_prefetching(p, g, k, e, col, cnt, args, st, &lc);
                else in->fn(args, st, cnt, &lc);
                note_findings(p, k, &lc, ctx);
            } else if (g->npf) {
                run_prefetching(p, g, k, e, col, cnt, args, st, ctx);
            } else {
                in->fn(args, st, cnt, ctx);
            }
            break;
        case CPN_FI_RANDOM:
            cpn_kernel_random((enum cpn_random_dist)in->dist, in->seed, in->stream, (double *)args[0],
                              (int64_t)e[in->index_ext] / in->index_size, cnt, in->p0, in->p1);
            break;
        case CPN_FI_ARANGE:
            cpn_kernel_arange(in->dt, args[0], (int64_t)e[in->index_ext] / in->index_size, cnt,
                              in->p0, in->p1, in->i0, in->i1);
            break;
        case CPN_FI_REDUCE: {
            _Alignas(16) unsigned char part[16];
            if (CPN_KERNEL_BOOL_COUNT(in->rcode, in->dt, in->acc_dt)) {   /* count(c > 1) */
                uint64_t n = cpn_kernel_count_nonzero_bytes(args[0], st[0], cnt);
                if (!*has) {
                    memset(acc, 0, 16);
                    *has = 1;
                }
                *(uint64_t *)acc += n;
                break;
            }
            if (in->dt == CPN_DTYPE_BOOL && in->acc_dt == CPN_DTYPE_BOOL &&
                (in->rcode == CPN_OP_MAXIMUM || in->rcode == CPN_OP_MINIMUM)) {
                /* any / all of a block: its true bytes counted (reduce.c's general fold costs
                 * a microsecond a call: `(x > t).any()` of 10^4 took 11 us) */
                const uint64_t n = cpn_kernel_count_nonzero_bytes(args[0], st[0], cnt);
                part[0] = in->rcode == CPN_OP_MAXIMUM ? n > 0 : n == (uint64_t)cnt;
            } else if (in->dt == in->acc_dt && st[0] == (int64_t)cpn_dtype_size(in->dt) &&
                       cpn_dtype_class(in->dt) <= CPN_CLASS_UINT && cpn_kernel_has_fold(in->rcode, in->dt)) {
                /* the block's values contiguous in the accumulator's dtype: folded directly from
                 * the first (integer and bool ops only: their order does not matter) */
                memcpy(part, args[0], (size_t)st[0]);
                cpn_kernel_fold(in->rcode, in->dt, part, args[0] + st[0], cnt - 1);
            } else {
                int64_t dummy[1] = {0};
                enum cpn_status s = cpn_kernel_reduce(in->rcode, in->dt, in->acc_dt, args[0], 1, &cnt,
                                                      &st[0], 1, (char *)part, dummy, NULL, NULL);
                if (s != CPN_OK) return s;
            }
            if (!*has) {
                memcpy(acc, part, 16);
                *has = 1;
            } else {
                char *ca[3] = {(char *)acc, (char *)part, (char *)acc};
                int64_t cs[3] = {0, 0, 0};
                in->combine(ca, cs, 1, ctx);
            }
            break;
        }
        default:
            return cpn_error(CPN_ERR_INTERNAL, "unknown fused instruction %d", in->kind);
        }
        if (sdst) cpn_kernel_stream_copy(sdst, args[in->kind == CPN_FI_LOOP ? in->narg - 1 : 0],
                                         (size_t)cnt * sitem);
        /* What draws, fills and folds raise is nobody's to report: keep the flags clear. */
        if (in->kind != CPN_FI_LOOP && p->fpe && cpn_kernel_fpe_status()) cpn_kernel_fpe_clear();
    }
    return CPN_OK;
}

/* Run every instruction on task t (one block of one outer row). */
static enum cpn_status run_task(const struct cpn_fused_prog *p, const struct geom *g, int64_t t,
                                char *regs, unsigned char *acc, int *has, struct cpn_kctx *ctx)
{
    intptr_t e[CPN_FUSED_MAXEXT];
    if (g->rows > 1) {
        const int64_t row = t * g->rows;
        run_rows(p, g, row, g->outer - row < g->rows ? g->outer - row : g->rows, regs, ctx);
        return CPN_OK;
    }
    int64_t row = t / g->nchunks, c = t % g->nchunks;
    int64_t cnt = g->inner - c * g->chunk < g->chunk ? g->inner - c * g->chunk : g->chunk;
    return run_piece(p, g, row, c * g->chunk, cnt, p->ninstr, regs, acc, has, ctx, e);
}

/* ---- a float or complex sum closing the program ------------------------------------------------
 *
 * Unfused, the run's temporary (a fresh C-ordered array) is summed by reduce.c: NumPy's pairwise
 * tree over all n elements in C order, or, from cpn_kernel_parallel_min() elements on, over
 * `threads` equal ranges each added to +0.0 and then combined in order.  Fused, the same tree is
 * walked from the top; each subtree of at most a block is evaluated into a leaf buffer and summed
 * by the same pairwise function, so the result is bitwise the unfused one, and the temporary is
 * never written. */
struct pw_walk {
    const struct cpn_fused_prog *p;
    const struct geom *g;
    char *regs;
    unsigned char *leaf;
    struct cpn_kctx *ctx;
    enum cpn_status st;
    unsigned hw;   /* the flags the sum's own additions raised (cleared at once: the loops after
                    * them read theirs from clear flags) */
};

static void sum_flags(struct pw_walk *w)
{
    if (!w->p->fpe) return;
    unsigned f = cpn_kernel_fpe_status();
    if (f) {
        w->hw |= f;
        cpn_kernel_fpe_clear();
    }
}

/* Evaluate elements [lo, lo + n) (n at most a block) and return where the reduction's input
 * values lie contiguously: the register or the external itself when one piece of one row holds
 * them, else the leaf buffer they are gathered into. */
static const unsigned char *pw_leaf(struct pw_walk *w, int64_t lo, int64_t n)
{
    const struct cpn_fused_prog *p = w->p;
    const struct geom *g = w->g;
    const struct cpn_fused_instr *last = &p->instr[p->ninstr - 1];
    const struct cpn_fused_arg *r = &last->arg[0];
    const size_t es = cpn_dtype_size(last->dt);
    intptr_t e[CPN_FUSED_MAXEXT];
    for (int64_t off = 0; off < n && w->st == CPN_OK;) {
        int64_t f = lo + off, row = f / g->inner, col = f % g->inner;
        int64_t cnt = n - off < g->inner - col ? n - off : g->inner - col;
        w->st = run_piece(p, g, row, col, cnt, p->ninstr - 1, w->regs, NULL, NULL, w->ctx, e);
        const unsigned char *src = r->kind == CPN_FARG_REG ? (const unsigned char *)w->regs + r->idx * REG_BYTES
                                                            : (const unsigned char *)e[r->idx];
        const int64_t st = r->kind == CPN_FARG_REG ? (int64_t)es : p->ext_st[r->idx][g->nd - 1];
        if (cnt == n && st == (int64_t)es) return src;
        if (st == (int64_t)es) {
            memcpy(w->leaf + off * es, src, (size_t)cnt * es);
        } else {
            for (int64_t i = 0; i < cnt; i++) memcpy(w->leaf + (off + i) * es, src + i * st, es);
        }
        off += cnt;
    }
    return w->leaf;
}

static void pw_sum(struct pw_walk *w, int64_t lo, int64_t n, unsigned char *out)
{
    const enum cpn_dtype dt = w->p->instr[w->p->ninstr - 1].acc_dt;
    if (n <= CPN_FUSED_BLOCK) {
        const unsigned char *v = pw_leaf(w, lo, n);
        if (w->st != CPN_OK) return;
        cpn_kernel_pairwise_sum(dt, v, n, out);
        sum_flags(w);
        return;
    }
    const int64_t h = cpn_kernel_pairwise_left(dt, n);
    _Alignas(16) unsigned char right[16];
    pw_sum(w, lo, h, out);
    if (w->st != CPN_OK) return;
    pw_sum(w, lo + h, n - h, right);
    cpn_kernel_fold_add(dt, out, right, 1);   /* out + (-0.0 + right): out + right */
    sum_flags(w);
}

static bool float_sum(const struct cpn_fused_prog *p)
{
    const struct cpn_fused_instr *last = &p->instr[p->ninstr - 1];
    if (last->kind != CPN_FI_REDUCE || last->rcode != CPN_OP_ADD || last->dt != last->acc_dt) return false;
    enum cpn_dtype_class c = cpn_dtype_class(last->acc_dt);
    return (c == CPN_CLASS_FLOAT && last->acc_dt != CPN_DTYPE_FLOAT16) || c == CPN_CLASS_COMPLEX;
}

/* Part t of nth of a fused float sum into `part`, its registers at `regs` (per bytes); its
 * hardware flags returned, an error into *status. */
static unsigned float_sum_part(struct cpn_fused_prog *p, const struct geom *g, struct cpn_kctx *ctx,
                               char *regs, size_t per, int64_t n, int t, int nth, unsigned char *part,
                               enum cpn_status *status)
{
    (void)per;
    const int nslots = p->nslots > 0 ? p->nslots : 1;
    const enum cpn_dtype dt = p->instr[p->ninstr - 1].acc_dt;
    struct pw_walk w = {p, g, regs, NULL, ctx, CPN_OK, 0};
    w.leaf = (unsigned char *)w.regs + (size_t)(nslots + 1) * REG_BYTES;
    if (p->fpe) cpn_kernel_fpe_clear();
    memset(part, 0, 16);   /* +0.0, the identity reduce.c starts from */
    const int64_t a = n * t / nth, b = n * (t + 1) / nth;
    if (b > a) {
        _Alignas(16) unsigned char v[16];
        pw_sum(&w, a, b - a, v);
        cpn_kernel_fold_add(dt, part, v, 1);
        sum_flags(&w);
    }
    if (w.st != CPN_OK) {
#pragma omp critical(cpn_fused_status)
        *status = w.st;
    }
    return w.hw;
}

static enum cpn_status fused_float_sum(struct cpn_fused_prog *p, const struct geom *g, struct cpn_kctx *ctx)
{
    const int64_t n = g->inner * g->outer;
    const int last = p->ninstr - 1;
    const enum cpn_dtype dt = p->instr[last].acc_dt;
    int nth = cpn_kernel_threads();   /* reduce.c's split, whatever the team's measured speed */
    if (n < cpn_kernel_parallel_min()) nth = 1;
    if (nth > 64) nth = 64;
    const int nslots = p->nslots > 0 ? p->nslots : 1;
    const size_t per = (size_t)(nslots + 1) * REG_BYTES + (size_t)CPN_FUSED_BLOCK * 16;
    char *scratch = cpn_kernel_scratch(CPN_SCRATCH_FUSED_REGS, (size_t)nth * per);
    if (!scratch) return CPN_ERR_NOMEM;
    _Alignas(16) unsigned char part[64][16];
    enum cpn_status status = CPN_OK;
    unsigned hw = 0;
    if (nth == 1) {   /* no region: an if(0) one still ends on libgomp's barrier, a futex wake */
        hw = float_sum_part(p, g, ctx, scratch, per, n, 0, 1, part[0], &status);
    } else {
#pragma omp parallel for num_threads(nth) schedule(static) reduction(|: hw)
        for (int t = 0; t < nth; t++)
            hw |= float_sum_part(p, g, ctx, scratch + (size_t)t * per, per, n, t, nth, part[t], &status);
    }
    if (status == CPN_OK) {
        if (p->fpe) cpn_kernel_fpe_clear();
        for (int t = 1; t < nth; t++) cpn_kernel_fold_add(dt, part[0], part[t], 1);
        if (p->fpe) hw |= cpn_kernel_fpe_status();
        memcpy(p->reduce_out, part[0], cpn_dtype_size(dt));
    }
    /* The flags the sum's own additions raised are the reduction's (reduce.c reports them). */
    if (p->fpe && hw) {
        __atomic_fetch_or(&p->fpe[last].hw, hw, __ATOMIC_RELAXED);
        cpn_kernel_fpe_clear();
    }
    cpn_kernel_scratch_done(CPN_SCRATCH_FUSED_REGS, scratch);
    return status;
}

void cpn_fused_count(const struct cpn_fused_prog *p, struct cpn_fused_counts *c)
{
    *c = (struct cpn_fused_counts){0, 0, 0};
    for (int k = 0; k < p->ninstr; k++) {
        const struct cpn_fused_instr *in = &p->instr[k];
        if (in->kind == CPN_FI_RANDOM || in->kind == CPN_FI_ARANGE) {
            c->param++;
            c->ext++;
        }
        for (int i = 0; i < in->narg; i++) {
            c->ext += in->arg[i].kind == CPN_FARG_EXT;
            c->scal += in->arg[i].kind == CPN_FARG_SCALAR;
        }
    }
}

size_t cpn_kernel_fused_scratch(const struct cpn_fused_prog *p)
{
    return (size_t)((p->nslots > 0 ? p->nslots : 1) + 1) * (size_t)REG_BYTES;
}

enum cpn_status cpn_kernel_fused_serial(struct cpn_fused_prog *p, char *regs, struct cpn_kctx *ctx)
{
    struct geom g;
    for (int d = 0; d < p->ndim; d++)
        if (p->shape[d] == 0) return CPN_OK;
    coalesce(p, &g);
    group_rows(p, &g);
    _Alignas(16) unsigned char acc[16];
    int has = 0;
    enum cpn_status status = CPN_OK;
    const int64_t ntasks = g.rows > 1 ? (g.outer + g.rows - 1) / g.rows : g.outer * g.nchunks;
    if (p->fpe) cpn_kernel_fpe_clear();
    for (int64_t t = 0; t < ntasks && status == CPN_OK; t++)
        status = run_task(p, &g, t, regs, acc, &has, ctx);
    if (status == CPN_OK && has && p->instr[p->ninstr - 1].kind == CPN_FI_REDUCE)
        memcpy(p->reduce_out, acc, cpn_dtype_size(p->instr[p->ninstr - 1].acc_dt));
    return status;
}


enum cpn_status cpn_kernel_fused(struct cpn_fused_prog *p, struct cpn_kctx *ctx)
{
    struct geom g;
    for (int d = 0; d < p->ndim; d++)
        if (p->shape[d] == 0) return CPN_OK;
    coalesce(p, &g);
    plan_streams(p, &g);
    plan_prefetch(p, &g);
    if (float_sum(p)) return fused_float_sum(p, &g, ctx);
    group_rows(p, &g);
    const int64_t ntasks = g.rows > 1 ? (g.outer + g.rows - 1) / g.rows : g.outer * g.nchunks;
    struct cpn_team_timer tm;
    int nth = cpn_kernel_team_pick(CPN_TEAM_ELEMENTWISE, g.inner * g.outer * p->ninstr, &tm);
    if (nth > ntasks) nth = (int)ntasks;
    if (nth > 64) nth = 64;
    const int nslots = (p->nslots > 0 ? p->nslots : 1) + 1;   /* + the staging block */
    const size_t regn = (size_t)(nth * nslots * REG_BYTES);
    char *regs = cpn_kernel_scratch(CPN_SCRATCH_FUSED_REGS, regn);
    if (!regs) return CPN_ERR_NOMEM;
    _Alignas(16) unsigned char acc[64][16];
    int has[64] = {0};
    enum cpn_status status = CPN_OK;
    if (nth == 1) {
        if (p->fpe) cpn_kernel_fpe_clear();
        for (int64_t t = 0; t < ntasks && status == CPN_OK; t++)
            status = run_task(p, &g, t, regs, acc[0], &has[0], ctx);
    } else {
        int64_t grain = ntasks / (8 * (int64_t)nth);
        if (grain < 1) grain = 1;
#pragma omp parallel num_threads(nth)
        {
            int me = 0;
#ifdef _OPENMP
            me = omp_get_thread_num();
#endif
            char *mine = regs + (int64_t)me * nslots * REG_BYTES;
            if (p->fpe) cpn_kernel_fpe_clear();
#pragma omp for schedule(dynamic, grain)
            for (int64_t t = 0; t < ntasks; t++) {
                enum cpn_status s = run_task(p, &g, t, mine, acc[me], &has[me], ctx);
                if (s != CPN_OK) {
#pragma omp critical(cpn_fused_status)
                    status = s;
                }
            }
        }
    }
    const struct cpn_fused_instr *last = &p->instr[p->ninstr - 1];
    if (status == CPN_OK && last->kind == CPN_FI_REDUCE) {
        int first = -1;
        for (int t = 0; t < nth; t++) {
            if (!has[t]) continue;
            if (first < 0) {
                first = t;
                continue;
            }
            char *ca[3] = {(char *)acc[first], (char *)acc[t], (char *)acc[first]};
            int64_t cs[3] = {0, 0, 0};
            last->combine(ca, cs, 1, ctx);
        }
        if (first >= 0) memcpy(p->reduce_out, acc[first], cpn_dtype_size(last->acc_dt));
    }
    cpn_kernel_scratch_done(CPN_SCRATCH_FUSED_REGS, regs);
    cpn_kernel_team_done(&tm);
    return status;
}
