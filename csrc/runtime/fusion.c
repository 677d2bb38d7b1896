/* fusion.c: finding fusable runs in the flushed queue, deciding which stores live only in
 * registers, and building (cached) and binding the fused programs that kernels/fused.c runs.
 *
 * Liveness: cpn_fusion_prepare counts, per view and per root store, the references held by the
 * queued ops, in a table this file owns for the flush (struct flush; views and stores are not
 * written: views stay immutable).  A view whose reference count equals its queue occurrences, of
 * a store whose reference count equals the number of distinct queued views of it, is reachable
 * from nothing but the queue: its Python arrays have died.  Such a store is "unowned"; once the
 * last queued op naming it has run, nobody can read it.  Python does not run during a flush, so
 * the facts hold for the whole flush.
 *
 * A run goes through named phases that hand their results on in one struct run: select_run
 * (which ops, and whether the run is written back in bands), assign_registers (which stores live
 * in registers, which ops are dropped, the run's signature), lookup_plan, bind_run (buffers,
 * strides, scalars, exchanges) and run_program (the kernel, the findings per op).  The struct is
 * the flush context's workspace (too large for the stack), reused run after run.
 *
 * Plans: a run's shape-free description (op kinds, codes, dtypes, which operands are external,
 * scalar or which register) is its signature; the program template built from it (loops
 * resolved, registers assigned) is cached, so a loop that flushes the same runs each iteration
 * builds nothing after the first.  Binding (buffer addresses, strides, scalars, seeds) is per
 * execution. */
#include "fusion.h"
#include "fperr.h"

#include <stddef.h>
#include <stdlib.h>
#include <string.h>

#include "alloc.h"
#include "backend.h"
#include "dist.h"
#include "transport.h"
#include "banded.h"
#include "fused.h"
#include "kernels.h"
#include "partition.h"
#include "opsem.h"
#include "stats.h"

static int enabled = -1;

bool cpn_fusion_enabled(void)
{
    if (enabled < 0) {
        const char *e = getenv("CUPYNUM_FUSION");
        enabled = !(e && strcmp(e, "0") == 0);
    }
    return enabled;
}

bool cpn_fusion_set_enabled(bool on)
{
    bool was = cpn_fusion_enabled();
    enabled = on;
    return was;
}

/* ---- liveness ------------------------------------------------------------------------------- */

/* The views an op names: inputs (not scalars) then outputs; w[i] marks outputs. */
static int op_views(const struct cpn_op *op, struct cpn_view **vs, bool *w)
{
    int n = 0;
    for (int i = 0; i < op->nin; i++)
        if (op->in[i]) {
            vs[n] = op->in[i];
            w[n++] = false;
        }
    for (int i = 0; i < op->nout; i++) {
        vs[n] = op->out[i];
        w[n++] = true;
    }
    return n;
}

#define OP_MAXVIEWS (CPN_OP_MAXIN + CPN_OP_MAXOUT)

/* What the flush's queue holds of one view or root store: an entry of the flush's table. */
struct live {
    const void *key;        /* a view or a root store (never both at one address) */
    int32_t root;           /* a view's: the entry of its root store; -1 for a store */
    int32_t count;          /* view: occurrences in the queue; store: distinct queued views */
    int32_t first, last;    /* store: the first and the last op naming it */
    bool owned;             /* store: something outside the queue (a Python array, an alias)
                             * can still reach it */
};

/* The flush in progress: the table's entries in the order their keys first occur, a hash of
 * the keys onto them (slots of earlier flushes have another gen: nothing is cleared), and per op
 * and operand position (inputs at 0..CPN_OP_MAXIN-1, outputs after them) the entry of the root
 * store it names, so that the questions a run asks later ("what of op j's output k") are array
 * reads.  Grown, never shrunk; per-flush facts only, nothing of a run. */
static struct flush {
    const struct cpn_op *ops;   /* the queue the table describes (ready) */
    int n;
    bool ready;
    struct live *ent;
    int32_t nent;
    size_t ent_cap;
    struct {
        int32_t e;              /* the entry */
        uint32_t gen;           /* the flush that filled the slot: others are free */
    } *hash;
    uint32_t gen;
    size_t hash_cap, mask;
    int shift;                  /* 64 - log2(mask + 1) */
    int32_t *slot;              /* [op * OP_MAXVIEWS + position]: a root store's entry, -1 */
    size_t slot_cap;
} flush;

static size_t live_hash(const void *key)
{
    return (size_t)((((uint64_t)(uintptr_t)key >> 4) * 0x9E3779B97F4A7C15ull) >> flush.shift);
}

/* The entry of `key`, added when absent (the table is sized for every key of the queue). */
static int32_t live_put(const void *key, int32_t root)
{
    size_t h = live_hash(key);
    for (; flush.hash[h].gen == flush.gen; h = (h + 1) & flush.mask)
        if (flush.ent[flush.hash[h].e].key == key) return flush.hash[h].e;
    const int32_t e = flush.nent++;
    flush.ent[e] = (struct live){key, root, 0, -1, -1, false};
    flush.hash[h].e = e;
    flush.hash[h].gen = flush.gen;
    return e;
}

/* Make room for `keys` keys and `n` ops; false when the memory cannot be had. */
static bool live_reserve(size_t keys, int n)
{
    size_t cap = 64;
    int bits = 6;
    while (cap < 2 * keys) {
        cap <<= 1;
        bits++;
    }
    if (cap > flush.hash_cap) {
        cpn_free(flush.hash);
        flush.hash = cpn_alloc_zeroed(cap * sizeof *flush.hash);
        flush.hash_cap = flush.hash ? cap : 0;
        flush.gen = 0;
        if (!flush.hash) return false;
    }
    if (keys > flush.ent_cap) {
        cpn_free(flush.ent);
        flush.ent = cpn_alloc(keys * sizeof *flush.ent);
        flush.ent_cap = flush.ent ? keys : 0;
        if (!flush.ent) return false;
    }
    const size_t slots = (size_t)n * OP_MAXVIEWS;
    if (slots > flush.slot_cap) {
        cpn_free(flush.slot);
        flush.slot = cpn_alloc(slots * sizeof *flush.slot);
        flush.slot_cap = flush.slot ? slots : 0;
        if (!flush.slot) return false;
    }
    if (++flush.gen == 0) {   /* wrapped: forget every earlier flush */
        memset(flush.hash, 0, flush.hash_cap * sizeof *flush.hash);
        flush.gen = 1;
    }
    flush.mask = cap - 1;
    flush.shift = 64 - bits;
    flush.nent = 0;
    return true;
}

/* The facts about the root store of op j's input i, or of its output k. */
static const struct live *live_in(int j, int i) { return &flush.ent[flush.slot[j * OP_MAXVIEWS + i]]; }
static const struct live *live_out(int j, int k)
{
    return &flush.ent[flush.slot[j * OP_MAXVIEWS + CPN_OP_MAXIN + k]];
}

static bool same_shape(const struct cpn_view *v, int ndim, const int64_t *shape)
{
    if (v->ndim != ndim) return false;
    for (int d = 0; d < ndim; d++)
        if (v->shape[d] != shape[d]) return false;
    return true;
}

/* Op i writes a fresh temporary of the shape of op i - 1's element-wise result: it is tiled as
 * that result (no data exists yet), so that the two share work boxes and fuse under `mpirun`.
 * Tiled by its own shape's split points, the 401 faces beside the 400 cells of a finite-volume
 * step cut at 201 and 200 and every such pair of ops ran apart.  A pure function of the queue and
 * the tilings: every rank retiles alike. */
static void retile_chain(const struct cpn_op *ops, int i)
{
    const struct cpn_op *op = &ops[i], *prev = &ops[i - 1];
    if (op->nout != 1 || prev->nout != 1 || (op->kind != CPN_OPK_ELEMENTWISE && op->kind != CPN_OPK_CAST) ||
        (prev->kind != CPN_OPK_ELEMENTWISE && prev->kind != CPN_OPK_CAST))
        return;
    const struct cpn_view *ov = op->out[0], *pv = prev->out[0];
    if (!cpn_view_covers_store(ov) || live_out(i, 0)->first != i || !cpn_store_root(pv->store)->tiled ||
        !same_shape(pv, ov->ndim, ov->shape))
        return;
    cpn_store_retile_like(ov->store, pv);
}

static const struct cpn_view *lent_view;
void cpn_fusion_lend(const struct cpn_view *v) { lent_view = v; }

void cpn_fusion_prepare(struct cpn_op *ops, int n)
{
    /* The loan is this flush's alone: a flush from a callback after it (errstate's 'call')
     * counts every reference. */
    const struct cpn_view *lent = lent_view;
    lent_view = NULL;
    size_t keys = 0;
    for (int i = 0; i < n; i++) keys += 2 * (size_t)(ops[i].nin + ops[i].nout);
    /* Without a table nothing is fused in this flush (every op runs alone). */
    flush.ready = live_reserve(keys, n);
    flush.ops = ops;
    flush.n = n;
    if (!flush.ready) return;
    for (int i = 0; i < n; i++) {
        const struct cpn_op *op = &ops[i];
        int32_t *slot = &flush.slot[(size_t)i * OP_MAXVIEWS];
        for (int p = 0; p < OP_MAXVIEWS; p++) {
            const bool out = p >= CPN_OP_MAXIN;
            const int q = out ? p - CPN_OP_MAXIN : p;
            struct cpn_view *v = out ? (q < op->nout ? op->out[q] : NULL)
                                     : (q < op->nin ? op->in[q] : NULL);
            if (!v) {
                slot[p] = -1;
                continue;
            }
            struct cpn_store *r = cpn_store_root(v->store);
            const int32_t er = live_put(r, -1), ev = live_put(v, er);
            struct live *lr = &flush.ent[er];
            if (++flush.ent[ev].count == 1) lr->count++;
            if (v->store != r) lr->owned = true;   /* through an alias: not tracked */
            if (lr->first < 0) lr->first = i;
            lr->last = i;
            slot[p] = er;
        }
    }
    /* Reachable from outside: more references than the queue holds. */
    for (int32_t e = 0; e < flush.nent; e++) {
        const struct live *l = &flush.ent[e];
        if (l->root >= 0) {
            const struct cpn_view *v = l->key;
            if (v->refcnt - (v == lent) != l->count) flush.ent[l->root].owned = true;
        } else if (((const struct cpn_store *)l->key)->refcnt != l->count) {
            flush.ent[e].owned = true;
        }
    }
    if (cpn_partition_ranks() > 1)
        for (int i = 1; i < n; i++) retile_chain(ops, i);
}

static bool may_fail_on_data(const struct cpn_op *op)
{
    return op->kind == CPN_OPK_ELEMENTWISE && cpn_op_fails_on_data(op->code, op->dtype);
}

static bool op_local(const struct cpn_op *op)
{
    return cpn_partition_ranks() == 1 || cpn_dist_op_is_local(op);
}

/* Nothing can read what op `i` writes: every output is an unowned root store that no later op
 * names. */
static bool droppable(const struct cpn_op *op, int i)
{
    /* An op whose loops may report floating-point errors under its error mode runs: NumPy would
     * have computed it and warned (or called, logged, raised). */
    if (op->nout == 0 || may_fail_on_data(op) || !op_local(op) || cpn_fperr_may_report(op))
        return false;
    for (int k = 0; k < op->nout; k++) {
        const struct cpn_store *s = op->out[k]->store;
        if (s->root) return false;
        const struct live *l = live_out(i, k);
        if (l->owned || l->last != i) return false;
    }
    return true;
}

/* ---- virtual stores ---------------------------------------------------------------------------
 * A generator op (random draw, arange fill) whose store a Python array still holds need not write
 * it: the store is left virtual (store.h) and the run's readers take the values from a register;
 * whoever reads the store through memory later materializes it.  Candidates: the generator is the
 * first op to name the store in this flush, writes all of it in C order, and the store is an
 * untiled root without a buffer.  Within the run every other op reads it through the generator's
 * view and none writes it (after the run, anything goes: it reads memory, which materializes). */

static bool generator(const struct cpn_op *op)
{
    return (op->kind == CPN_OPK_RANDOM && op->nin == 0) || op->kind == CPN_OPK_ARANGE;
}

static bool virtualizable(const struct cpn_op *ops, int i)
{
    const struct cpn_op *op = &ops[i];
    if (!generator(op) || op->nout != 1) return false;
    const struct cpn_view *ov = op->out[0];
    const struct cpn_store *s = ov->store;
    if (op->kind == CPN_OPK_RANDOM ? ov->dtype != CPN_DTYPE_FLOAT64
                                   : cpn_dtype_class(ov->dtype) == CPN_CLASS_COMPLEX)
        return false;   /* what fused programs generate (pointwise_member) */
    return !s->root && !s->tiled && !s->virt && !s->data && !s->dev && s->poison == CPN_OK &&
           live_out(i, 0)->first == i && ov->dtype == s->dtype && cpn_view_is_contiguous(ov) &&
           cpn_view_size(ov) > 0;
}

/* Does any op of [from, to) write `s`, or name it through a view other than `v`? */
static bool touched_otherwise(const struct cpn_op *ops, int from, int to, const struct cpn_store *s,
                              const struct cpn_view *v)
{
    for (int j = from; j < to; j++) {
        struct cpn_view *vs[OP_MAXVIEWS];
        bool w[OP_MAXVIEWS];
        int nv = op_views(&ops[j], vs, w);
        for (int q = 0; q < nv; q++)
            if (cpn_store_root(vs[q]->store) == s && (w[q] || !cpn_view_same(vs[q], v))) return true;
    }
    return false;
}

static void make_virtual(const struct cpn_op *op)
{
    struct cpn_store_gen g = {.kind = op->kind, .code = op->code, .seed = (uint64_t)op->iparam[0],
                              .stream = (uint64_t)op->iparam[1], .p0 = op->dparam[0],
                              .p1 = op->dparam[1], .i0 = op->iparam[0], .i1 = op->iparam[1]};
    cpn_store_make_virtual(op->out[0]->store, &g);
    cpn_stats.bytes_elided += op->out[0]->store->size * (int64_t)cpn_dtype_size(op->out[0]->dtype);
}

/* The register slot a value produced by op k may take: the first whose last use is before k, or
 * a new one; -1 when all are taken. */
static int take_slot(const int *slot_free_after, int *nslots, int k)
{
    for (int q = 0; q < *nslots; q++)
        if (slot_free_after[q] < k) return q;
    return *nslots < CPN_FUSED_MAXSLOTS ? (*nslots)++ : -1;
}

/* The queue index of the last op of (k, end) that reads store s; k when none does. */
static int last_reader(const struct cpn_op *ops, int k, int end, const struct cpn_store *s)
{
    int last = k;
    for (int j = k + 1; j < end; j++)
        for (int q = 0; q < ops[j].nin; q++)
            if (ops[j].in[q] && ops[j].in[q]->store == s) last = j;
    return last;
}

/* ---- runs ----------------------------------------------------------------------------------- */


static bool poisoned_input(const struct cpn_op *op)
{
    for (int i = 0; i < op->nin; i++)
        if (op->in[i] && cpn_store_root(op->in[i]->store)->poison) return true;
    return false;
}

/* Can `op` be an element of a run over (ndim, shape)?  Reductions only as the last op.  A
 * distributed run (dist) holds element-wise ops and casts on tiled stores only. */
static bool pointwise_member(const struct cpn_op *op, int ndim, const int64_t *shape, bool dist)
{
    if (op->nout != 1 || may_fail_on_data(op) || poisoned_input(op)) return false;
    if (dist ? op_local(op) || (op->kind != CPN_OPK_ELEMENTWISE && op->kind != CPN_OPK_CAST)
             : !op_local(op))
        return false;
    const struct cpn_view *out = op->out[0];
    if (!same_shape(out, ndim, shape) || out->store->root) return false;
    for (int i = 0; i < op->nin; i++)
        if (op->in[i] && (op->in[i]->store->root || !same_shape(op->in[i], ndim, shape))) return false;
    switch (op->kind) {
    case CPN_OPK_ELEMENTWISE:
        return cpn_kernel_elementwise(op->code, op->dtype) != NULL;
    case CPN_OPK_CAST:
        return cpn_kernel_cast(op->in[0] ? op->in[0]->dtype : op->dtype, out->dtype) != NULL;
    case CPN_OPK_RANDOM:   /* per-element parameters: the op alone */
        return op->nin == 0 && cpn_view_is_contiguous(out) && out->dtype == CPN_DTYPE_FLOAT64;
    case CPN_OPK_ARANGE:
        return cpn_view_is_contiguous(out) && cpn_dtype_class(out->dtype) != CPN_CLASS_COMPLEX;
    default:
        return false;
    }
}

/* A full reduction whose result is independent of the order of folding (integer or bool
 * accumulator: wrapping arithmetic is associative), or a float or complex sum of a C-ordered
 * input of the accumulator's dtype on the host, which kernels/fused.c folds in reduce.c's own
 * pairwise tree (bitwise the unfused sum of the temporary).  Not on a device, whose reductions
 * fold in another order. */
static bool reduce_member(const struct cpn_op *op, int ndim, const int64_t *shape)
{
    if (op->kind != CPN_OPK_REDUCE || op->nin != 1 || op->nout != 1 || !op->in[0] || op->iparam[0])
        return false;   /* an initial value (iparam[0]) enters once: not per block */
    if (!op_local(op) || poisoned_input(op)) return false;
    const struct cpn_view *in = op->in[0], *out = op->out[0];
    if (in->store->root || out->store->root || !same_shape(in, ndim, shape) || out->ndim != 0)
        return false;
    uint64_t all = ndim >= 64 ? ~(uint64_t)0 : (((uint64_t)1 << ndim) - 1);
    if ((op->axes & all) != all) return false;
    enum cpn_dtype_class c = cpn_dtype_class(out->dtype);
    if (c == CPN_CLASS_FLOAT || c == CPN_CLASS_COMPLEX) {
        if (op->code != CPN_OP_ADD || in->dtype != out->dtype || !cpn_view_is_contiguous(in) ||
            cpn_backend_on_device() || out->dtype == CPN_DTYPE_FLOAT16)   /* sums in float */
            return false;
    } else if (c != CPN_CLASS_INT && c != CPN_CLASS_UINT && c != CPN_CLASS_BOOL) {
        return false;
    }
    if (!cpn_op_combines((enum cpn_opcode)op->code)) return false;   /* folded per block */
    return cpn_kernel_elementwise(op->code, out->dtype) != NULL;
}

#define ACC_BOXDIM 4
struct access {
    const struct cpn_view *v;
    bool write;
    bool box;                      /* lo/hi hold v's footprint (a store of <= ACC_BOXDIM dims) */
    const struct cpn_store *root;  /* cpn_store_root(v->store) */
    int next;                      /* the previous access of the same root, -1 */
    int64_t lo[ACC_BOXDIM], hi[ACC_BOXDIM];
};

/* v's footprint in its store (cpn_view_footprint), kept with the access so that the run's
 * checks compare boxes before views: a loop over the columns of one array (ADI's sweeps) names
 * a new view of the same store with every op, and each op was compared, view against view, with
 * every earlier access of that store.  Disjoint footprints mean no overlap (cpn_view_may_overlap
 * tests the same boxes first), different ones mean different views.  Not for flat aliases. */
static bool view_box(const struct cpn_view *v, int64_t *lo, int64_t *hi)
{
    if (v->store->root || v->store->ndim > ACC_BOXDIM) return false;
    cpn_view_footprint(v, lo, hi);
    return true;
}

static bool boxes_disjoint(const int64_t *alo, const int64_t *ahi, const int64_t *blo,
                           const int64_t *bhi, int n)
{
    for (int d = 0; d < n; d++)
        if (ahi[d] < blo[d] || bhi[d] < alo[d]) return true;
    return false;
}

static bool boxes_differ(const int64_t *alo, const int64_t *ahi, const int64_t *blo,
                         const int64_t *bhi, int n)
{
    for (int d = 0; d < n; d++)
        if (alo[d] != blo[d] || ahi[d] != bhi[d]) return true;
    return false;
}

/* The run's accesses chained by store root, so that conflicts() looks only at the accesses of
 * the new op's stores: a run of many small ops, each naming a fresh store, is then linear in its
 * length, not quadratic.  Open addressing; a generation number empties the table per run. */
#define ACC_HASH 2048
_Static_assert(ACC_HASH >= 2 * CPN_FUSED_MAXINSTR * OP_MAXVIEWS && !(ACC_HASH & (ACC_HASH - 1)),
               "the access table: a power of two, at most half full");
struct acc_index {
    struct {
        const struct cpn_store *root;
        int head;
        unsigned gen;
    } tab[ACC_HASH];
    unsigned gen;
};

/* ---- the run ---------------------------------------------------------------------------------- */

#define SIG_MAX (CPN_FUSED_MAXINSTR * 13 + 4)
#define BAND_MAX 65536

/* How an operand of a run op is supplied. */
struct operand {
    int kind;          /* enum cpn_fused_argkind */
    int slot;          /* REG */
};

/* A run written back through an overlapping view band by band (see band_plan). */
struct band {
    bool on;
    bool serial;              /* readers too far back for threads to take slabs of bands */
    int ext;                  /* P's external operand in the bound program */
    int64_t o0;               /* the first outer index banded (a distributed run: its interior's) */
    int64_t rows, h, nb;      /* outer extent, rows per band, bands */
    int64_t band_bytes;       /* P's bytes per band (dense) */
    int32_t lr[BAND_MAX];     /* the last band that reads a row band j writes (>= j) */
    int32_t fr[BAND_MAX];     /* the first such band (<= j) */
};

/* What assign_registers decides per op of the run (k: the op's index in the run). */
struct assign {
    bool drop[CPN_FUSED_MAXINSTR];   /* not computed: nothing reads it */
    bool virt[CPN_FUSED_MAXINSTR];   /* its store is left virtual */
    int16_t into[CPN_FUSED_MAXINSTR]; /* c + 1: it writes op c's output; op c, the copy, is dropped */
    struct operand in[CPN_FUSED_MAXINSTR][CPN_OP_MAXIN], out[CPN_FUSED_MAXINSTR];
    int nslots;
    /* Virtual stores the run reads, regenerated into a register just before op `at` reads them
     * first (the generator's instruction is inserted there). */
    int nregen;
    struct regen {
        int at, slot;
        const struct cpn_view *v;   /* the reading view: contiguous over the whole store */
    } regen[CPN_FUSED_MAXINSTR];
};

/* One run, from its selection to its findings: each phase fills its part and reads the parts of
 * the phases before it. */
struct run {
    /* select_run */
    struct cpn_op *ops;                  /* the flushed queue, n ops */
    int n, start, len;                   /* the run: ops[start, start + len) */
    bool dist;                           /* over tiled stores: exchanges first, work box only */
    int ndim;                            /* the iteration space: the first op's output */
    const int64_t *shape;
    struct cpn_dist_work w0;             /* dist: the first op's work box */
    bool has_in;                         /* dist: `in`, where every op's inputs are local */
    struct cpn_dist_box in;
    int red_k;                           /* dist: the closing reduction's op (run_program then
                                          * combines the ranks' partials), -1: none */
    struct access acc[CPN_FUSED_MAXINSTR * OP_MAXVIEWS];
    int nacc;
    int nacc_after[CPN_FUSED_MAXINSTR];  /* accesses of the run's first k+1 ops */
    struct acc_index ai;
    struct band band;                    /* band.on: ops[start + len] is the write-back copy */
    /* assign_registers */
    struct assign a;
    int32_t sig[SIG_MAX];                /* the plan's signature */
    int nsig;
    /* bind_run */
    struct cpn_fused_prog prog;
    bool on_dev;                         /* the program executes on the device backend */
    struct cpn_dist_xchg *xs[CPN_FUSED_MAXINSTR];
    /* dist: the regions of the work box (the interior first when has_in) and, per external the
     * program reads or writes, where it comes from: input i of the run's op k, or (i < 0) op k's
     * output buffer `out`; bound again for each region */
    struct cpn_dist_box reg[CPN_DIST_MAXREG];
    int nreg;
    int ndext;
    struct dext {
        int e, k, i;                     /* i == -2: the closing reduction's input tile `out` */
        char *out;
    } dext[CPN_FUSED_MAXEXT];
    /* run_program: per op of the run what its loops found (the caller's array); per
     * instruction while it runs */
    struct cpn_fpreport *op_fp;
    struct cpn_fpreport in_fp[CPN_FUSED_MAXINSTR];
};

/* The flush context's run workspace (the runtime is single-threaded outside kernels). */
static struct run workspace;

static void acc_reset(struct acc_index *ai)
{
    if (++ai->gen == 0) {
        memset(ai->tab, 0, sizeof ai->tab);
        ai->gen = 1;
    }
}

static int acc_slot(const struct acc_index *ai, const struct cpn_store *root)
{
    size_t h = (size_t)(((uint64_t)(uintptr_t)root >> 4) * 0x9E3779B97F4A7C15ull >> 53);
    while (ai->tab[h].gen == ai->gen && ai->tab[h].root != root) h = (h + 1) & (ACC_HASH - 1);
    return (int)h;
}

static int acc_head(const struct acc_index *ai, const struct cpn_store *root)
{
    int h = acc_slot(ai, root);
    return ai->tab[h].gen == ai->gen ? ai->tab[h].head : -1;
}

/* A view the run already names is not added again (its write flag is merged): conflicts() gives
 * the same answers, and a loop of `a[i:j] = ...` stays linear. */
static void acc_add(struct run *r, const struct cpn_view *v, bool write)
{
    struct acc_index *ai = &r->ai;
    const struct cpn_store *root = cpn_store_root(v->store);
    int h = acc_slot(ai, root);
    if (ai->tab[h].gen != ai->gen) {
        ai->tab[h].gen = ai->gen;
        ai->tab[h].root = root;
        ai->tab[h].head = -1;
    }
    int64_t lo[ACC_BOXDIM], hi[ACC_BOXDIM];
    const bool box = view_box(v, lo, hi);
    const int sn = v->store->ndim;
    for (int j = ai->tab[h].head; j >= 0; j = r->acc[j].next) {
        const struct access *a = &r->acc[j];
        if (a->v != v && box && a->box && a->v->store == v->store &&
            boxes_differ(a->lo, a->hi, lo, hi, sn))
            continue;
        if (a->v == v || cpn_view_same(a->v, v)) {
            r->acc[j].write |= write;
            return;
        }
    }
    struct access *n = &r->acc[r->nacc];
    n->v = v;
    n->write = write;
    n->box = box;
    n->root = root;
    n->next = ai->tab[h].head;
    if (box) {
        memcpy(n->lo, lo, (size_t)sn * sizeof lo[0]);
        memcpy(n->hi, hi, (size_t)sn * sizeof hi[0]);
    }
    ai->tab[h].head = r->nacc++;
}

/* Would adding op's accesses to the run's make an element read or written through two different
 * overlapping views, one of them a write? */
static bool conflicts(const struct run *r, const struct cpn_op *op)
{
    struct cpn_view *vs[OP_MAXVIEWS];
    bool w[OP_MAXVIEWS];
    int nv = op_views(op, vs, w);
    for (int k = 0; k < nv; k++) {
        const struct cpn_store *root = cpn_store_root(vs[k]->store);
        int64_t lo[ACC_BOXDIM], hi[ACC_BOXDIM];
        bool box = false, boxed = false;
        for (int j = acc_head(&r->ai, root); j >= 0; j = r->acc[j].next) {
            const struct access *a = &r->acc[j];
            if (!(a->write || w[k])) continue;
            if (a->box && a->v->store == vs[k]->store) {
                if (!boxed) {
                    box = view_box(vs[k], lo, hi);
                    boxed = true;
                }
                if (box && boxes_disjoint(a->lo, a->hi, lo, hi, vs[k]->store->ndim)) continue;
            }
            if (cpn_view_same(a->v, vs[k]) || !cpn_view_may_overlap(a->v, vs[k])) continue;
            return true;
        }
        for (int j = 0; j < nv; j++) {
            if (!(w[j] || w[k]) || cpn_store_root(vs[j]->store) != root) continue;
            if (cpn_view_same(vs[j], vs[k]) || !cpn_view_may_overlap(vs[j], vs[k])) continue;
            return true;
        }
    }
    return false;
}

/* May `op` join a distributed run whose first op has work box r->w0?  Its work box must be the
 * same (so registers and the run's outputs line up element for element on every rank), and an
 * input whose store the run wrote before must be read in place: no piece of it moves between
 * ranks (the exchanges are posted before the run computes) and no buffer copy holds its old
 * values.  Each rank decides alone; a rank that stops a run earlier than its peers still posts
 * the same messages in the same order, and what the longer run sends was not written by it yet. */
static bool dist_aligned(const struct run *r, const struct cpn_op *op, struct cpn_dist_work *wp,
                         enum cpn_status *st)
{
    const struct cpn_dist_work *w0 = &r->w0;
    struct cpn_dist_work w;
    if (!cpn_dist_run_info(op, &w, st)) return false;
    *wp = w;
    if (w.work != w0->work) return false;
    for (int d = 0; w.work && d < op->out[0]->ndim; d++)
        if (w.lo[d] != w0->lo[d] || w.hi[d] != w0->hi[d]) return false;
    for (int i = 0; i < op->nin; i++) {
        if (!op->in[i]) continue;
        const struct cpn_store *root = cpn_store_root(op->in[i]->store);
        for (int a = 0; a < r->nacc; a++)
            if (r->acc[a].write && r->acc[a].root == root && (w.moves[i] || w.buffered[i]))
                return false;
    }
    return true;
}

/* Can full reduction `op` close the distributed run r (on the host)?  As reduce_member, over all
 * of a tiled store whose tile on this rank is the run's work box, every input of the run local
 * there (one region, so the program walks the tile in C order: for a float sum, reduce.c's tree
 * over the tile, the partial exec_reduce computes).  run_program then combines the ranks'
 * partials as exec_reduce does (the same collective, whether a peer fused its reduction or not). */
static bool dist_reduce_member(const struct run *r, const struct cpn_op *op)
{
    if (op->kind != CPN_OPK_REDUCE || op->nin != 1 || op->nout != 1 || !op->in[0] || op->iparam[0] ||
        cpn_backend_on_device() || poisoned_input(op))
        return false;
    const struct cpn_view *in = op->in[0], *out = op->out[0];
    const struct cpn_store *s = in->store;
    if (!s->tiled || !cpn_view_is_whole(in) || out->store->root || out->store->tiled || out->ndim != 0 ||
        !same_shape(in, r->ndim, r->shape))
        return false;
    uint64_t all = r->ndim >= 64 ? ~(uint64_t)0 : (((uint64_t)1 << r->ndim) - 1);
    if ((op->axes & all) != all || !cpn_op_combines((enum cpn_opcode)op->code)) return false;
    enum cpn_dtype_class c = cpn_dtype_class(out->dtype);
    if (c == CPN_CLASS_FLOAT || c == CPN_CLASS_COMPLEX) {
        if (op->code != CPN_OP_ADD || in->dtype != out->dtype || out->dtype == CPN_DTYPE_FLOAT16) return false;
    } else if (c != CPN_CLASS_INT && c != CPN_CLASS_UINT && c != CPN_CLASS_BOOL) {
        return false;
    }
    if (!cpn_kernel_elementwise(op->code, out->dtype)) return false;
    if (!r->w0.work) return s->tsize == 0;
    if (!r->has_in) return false;
    for (int d = 0; d < r->ndim; d++)
        if (s->tlo[d] != r->w0.lo[d] || s->thi[d] != r->w0.hi[d] || r->in.lo[d] != r->w0.lo[d] ||
            r->in.hi[d] != r->w0.hi[d])
            return false;
    return true;
}

/* May the copy ops[end] after a distributed run be its banded write-back?  On the host only; the
 * copy's work box is the run's and nothing of it moves (no rank sends it or receives it: a peer
 * that runs the copy alone posts no message that this rank would miss). */
static bool dist_copy_aligned(const struct run *r, int end, enum cpn_status *st)
{
    if (end >= r->n || cpn_backend_on_device()) return false;
    const struct cpn_op *c = &r->ops[end];
    struct cpn_dist_work w;
    if (c->nin != 1 || !c->in[0] || !cpn_dist_run_info(c, &w, st)) return false;
    if (!w.work || !r->w0.work || w.moves[0] || w.buffered[0]) return false;
    for (int d = 0; d < c->out[0]->ndim; d++)
        if (w.lo[d] != r->w0.lo[d] || w.hi[d] != r->w0.hi[d]) return false;
    return true;
}

/* Would the last op of the run [start, end) only spill?  It computes a fresh temporary that is
 * read after the run (so it is written to memory, not kept in a register), and it reads nothing
 * the run could hold in a register (every input store is held by Python or not written in the
 * run).  Left out, it starts the next run, where its readers may take it from a register: the
 * stencil of one CG iteration, `4.0 * pc - north - ...`, no longer writes `4.0 * pc` when the
 * previous iteration's update of `p` fused in front of it. */
static bool trailing_spill(const struct cpn_op *ops, int start, int end)
{
    const struct cpn_op *op = &ops[end - 1];
    if ((op->kind != CPN_OPK_ELEMENTWISE && op->kind != CPN_OPK_CAST) || op->nout != 1) return false;
    const struct cpn_store *s = op->out[0]->store;
    if (s->root) return false;
    const struct live *l = live_out(end - 1, 0);
    if (l->owned || l->first != end - 1 || l->last < end) return false;
    for (int i = 0; i < op->nin; i++) {
        if (!op->in[i]) continue;
        const struct cpn_store *r = cpn_store_root(op->in[i]->store);
        if (live_in(end - 1, i)->owned) continue;
        for (int j = start; j < end - 1; j++)
            for (int k = 0; k < ops[j].nout; k++)
                if (cpn_store_root(ops[j].out[k]->store) == r) return false;
    }
    return true;
}

/* ---- plans ---------------------------------------------------------------------------------- */

#define CACHE_SIZE 64

struct plan {
    int nsig;
    int32_t sig[SIG_MAX];
    uint64_t hash;
    int ninstr, nslots;
    struct cpn_fused_instr instr[CPN_FUSED_MAXINSTR];
};

static struct plan *cache[CACHE_SIZE];
static int cache_next;   /* round-robin replacement */

static uint64_t sig_hash(const int32_t *s, int n)
{
    uint64_t h = 1469598103934665603ull;
    for (int i = 0; i < n; i++) {
        h ^= (uint32_t)s[i];
        h *= 1099511628211ull;
    }
    return h;
}

static void instr_template(const struct cpn_op *op, const struct assign *a, int k,
                           struct cpn_fused_instr *in)
{
    memset(in, 0, sizeof *in);
    const struct cpn_view *out = op->out[0];
    switch (op->kind) {
    case CPN_OPK_ELEMENTWISE:
    case CPN_OPK_CAST:
        in->kind = CPN_FI_LOOP;
        in->fn = cpn_op_loop(op);
        in->code = op->kind == CPN_OPK_CAST ? -1 : op->code;
        in->in_dt = op->in[0] ? op->in[0]->dtype : op->dtype;
        in->out_dt = out->dtype;
        in->narg = op->nin + 1;
        for (int i = 0; i < op->nin; i++) {
            in->arg[i].kind = a->in[k][i].kind;
            in->arg[i].idx = a->in[k][i].slot;
            in->arg[i].itemsize = (int)cpn_dtype_size(op->in[i] ? op->in[i]->dtype : op->dtype);
        }
        break;
    case CPN_OPK_RANDOM:
        in->kind = CPN_FI_RANDOM;
        in->narg = 1;
        in->dist = op->code;
        break;
    case CPN_OPK_ARANGE:
        in->kind = CPN_FI_ARANGE;
        in->narg = 1;
        in->dt = out->dtype;
        break;
    default:   /* REDUCE */
        in->kind = CPN_FI_REDUCE;
        in->narg = 1;
        in->arg[0].kind = a->in[k][0].kind;
        in->arg[0].idx = a->in[k][0].slot;
        in->arg[0].itemsize = (int)cpn_dtype_size(op->in[0]->dtype);
        in->dt = op->in[0]->dtype;
        in->acc_dt = out->dtype;
        in->rcode = (enum cpn_opcode)op->code;
        in->combine = cpn_kernel_elementwise(op->code, out->dtype);
        return;
    }
    struct cpn_fused_arg *o = &in->arg[in->narg - 1];
    o->kind = a->out[k].kind;
    o->idx = a->out[k].slot;
    o->itemsize = (int)cpn_dtype_size(out->dtype);
}

/* The instruction regenerating a virtual store's values into register `slot`. */
static void regen_template(const struct cpn_store *s, int slot, struct cpn_fused_instr *in)
{
    memset(in, 0, sizeof *in);
    in->kind = s->gen.kind == CPN_OPK_RANDOM ? CPN_FI_RANDOM : CPN_FI_ARANGE;
    in->narg = 1;
    in->dist = s->gen.code;
    in->dt = s->dtype;
    in->arg[0] = (struct cpn_fused_arg){.kind = CPN_FARG_REG, .idx = slot,
                                         .itemsize = (int)cpn_dtype_size(s->dtype)};
}

/* ---- a run writing back through an overlapping view, in bands ---------------------------------
 * `center[:] = f(center, north, ...)`: the run computes f into a temporary P that the next op C
 * copies into D, a view of a store the run reads through other, overlapping views.  P need not
 * exist whole: the run is evaluated in bands of rows of the outermost dimension into a small ring
 * of band buffers, and band j is copied into D once every band that reads a row band j writes has
 * been computed (its "last reader").  The rows a band reads or writes are boxes in store
 * dimension d0, which every view of D's store must walk with its outermost dimension; the last
 * reader of each band is then found by bisection (the rows move monotonically with the band).
 * When the last readers lie further ahead than the ring holds (reversed writes, transposes), the
 * run keeps its whole temporary. */

#define BAND_BYTES ((int64_t)256 << 10)
#define BAND_RING 4

/* Rows [lo, hi) of store dimension d0 that view v touches for outer indices [a, b). */
static void band_rows(const struct cpn_view *v, int64_t a, int64_t b, int64_t *lo, int64_t *hi)
{
    int64_t o = v->off[v->sdim[0]], s = v->step[0];
    int64_t x = o + s * a, y = o + s * (b - 1);
    *lo = x < y ? x : y;
    *hi = (x < y ? y : x) + 1;
}

/* Does v walk store dimension d0 with its outermost dimension only? */
static bool band_view_ok(const struct cpn_view *v, int d0, int ndim)
{
    if (v->ndim != ndim || v->sdim[0] != d0 || v->step[0] == 0) return false;
    for (int i = 1; i < ndim; i++)
        if (v->sdim[i] == d0) return false;
    return true;
}

/* The last band among [0, nb) whose rows through v meet [wlo, whi); -1 when none. */
static int64_t band_last_reader(const struct band *band, const struct cpn_view *v, int64_t wlo,
                                int64_t whi)
{
    int64_t lo = 0, hi = band->nb - 1, found = -1;
    const bool up = v->step[0] > 0;
    while (lo <= hi) {   /* the largest k not yet past the window */
        int64_t k = (lo + hi) / 2, rlo, rhi;
        int64_t b = (k + 1) * band->h < band->rows ? (k + 1) * band->h : band->rows;
        band_rows(v, band->o0 + k * band->h, band->o0 + b, &rlo, &rhi);
        if (up ? rlo < whi : rhi > wlo) {
            found = k;
            lo = k + 1;
        } else {
            hi = k - 1;
        }
    }
    if (found < 0) return -1;
    int64_t b = (found + 1) * band->h < band->rows ? (found + 1) * band->h : band->rows, rlo, rhi;
    band_rows(v, band->o0 + found * band->h, band->o0 + b, &rlo, &rhi);
    return rlo < whi && rhi > wlo ? found : -1;
}

/* The first band among [0, nb) whose rows through v meet [wlo, whi); nb when none. */
static int64_t band_first_reader(const struct band *band, const struct cpn_view *v, int64_t wlo,
                                 int64_t whi)
{
    int64_t lo = 0, hi = band->nb - 1, found = band->nb;
    const bool up = v->step[0] > 0;
    while (lo <= hi) {   /* the smallest k that reached the window */
        int64_t k = (lo + hi) / 2, rlo, rhi;
        int64_t b = (k + 1) * band->h < band->rows ? (k + 1) * band->h : band->rows;
        band_rows(v, band->o0 + k * band->h, band->o0 + b, &rlo, &rhi);
        if (up ? rhi > wlo : rlo < whi) {
            found = k;
            hi = k - 1;
        } else {
            lo = k + 1;
        }
    }
    if (found == band->nb) return found;
    int64_t b = (found + 1) * band->h < band->rows ? (found + 1) * band->h : band->rows, rlo, rhi;
    band_rows(v, band->o0 + found * band->h, band->o0 + b, &rlo, &rhi);
    return rlo < whi && rhi > wlo ? found : band->nb;
}

/* Decide whether the run's first `len` ops and the copy after them can be banded (band.on), over
 * the iteration box [lo, hi) (the whole shape; a distributed run's interior). */
static void band_plan(struct run *r, int len, const int64_t *lo, const int64_t *hi)
{
    struct band *band = &r->band;
    const struct cpn_op *ops = r->ops;
    const int end = r->start + len, ndim = r->ndim;
    const int64_t *shape = r->shape;
    const struct access *acc = r->acc;
    const int nacc = r->nacc;
    band->on = false;
    /* A device evaluates the run in its own memory: the bands are a host cache's economy. */
    if (cpn_backend_on_device()) return;
    /* len 0: the run's first op conflicts with itself (`a[...] = a[::-1]`); there is no last op
     * (ops[end - 1] would be the op before the run, or before the queue when the run starts it) */
    if (len < 1 || end >= r->n || ndim < 1 || hi[0] - lo[0] < 3) return;
    const struct cpn_op *last = &ops[end - 1], *c = &ops[end];
    if (last->kind == CPN_OPK_REDUCE || last->nout != 1) return;
    const struct cpn_view *pv = last->out[0];
    const struct cpn_store *P = pv->store;
    if (P->root) return;
    const struct live *lp = live_out(end - 1, 0);
    if (lp->owned || lp->first != end - 1 || lp->last != end || !cpn_view_covers_store(pv)) return;
    if ((c->kind != CPN_OPK_ELEMENTWISE && c->kind != CPN_OPK_CAST) || c->nin != 1 || c->nout != 1 ||
        !c->in[0] || !cpn_view_same(c->in[0], pv) || !cpn_op_loop(c) || poisoned_input(c))
        return;
    const struct cpn_view *D = c->out[0];
    const struct cpn_store *R = D->store;
    if (R->root || R == P || !same_shape(D, ndim, shape) || D->sdim[0] < 0) return;
    const int d0 = D->sdim[0];
    if (!band_view_ok(D, d0, ndim)) return;
    for (int a = 0; a < nacc; a++) {
        if (acc[a].root != R) continue;
        if (acc[a].write || acc[a].v->store != R || !band_view_ok(acc[a].v, d0, ndim)) return;
    }
    int64_t inner = 1;
    for (int d = 1; d < ndim; d++) inner *= hi[d] - lo[d];
    int64_t row_bytes = inner * (int64_t)cpn_dtype_size(pv->dtype);
    band->o0 = lo[0];
    band->rows = hi[0] - lo[0];
    band->h = row_bytes > 0 && BAND_BYTES / row_bytes > 1 ? BAND_BYTES / row_bytes : 1;
    band->nb = (band->rows + band->h - 1) / band->h;
    if (band->nb < 3 || band->nb > BAND_MAX) return;
    band->band_bytes = band->h * row_bytes;
    int64_t need = -1;   /* running maximum: a thread writes its bands back in order */
    band->serial = false;
    for (int64_t j = 0; j < band->nb; j++) {
        int64_t b = (j + 1) * band->h < band->rows ? (j + 1) * band->h : band->rows, wlo, whi;
        band_rows(D, band->o0 + j * band->h, band->o0 + b, &wlo, &whi);
        int64_t lr = j, fr = j;
        for (int a = 0; a < nacc; a++) {
            if (acc[a].v->store != R) continue;
            int64_t k = band_last_reader(band, acc[a].v, wlo, whi);
            if (k > lr) lr = k;
            k = band_first_reader(band, acc[a].v, wlo, whi);
            if (k < fr) fr = k;
        }
        if (lr > need) need = lr;
        if (need - j + 1 > BAND_RING) return;   /* the ring cannot hold the bands in flight */
        /* Readers far behind (forward reads of a strided write) would hold back many bands of
         * every slab: one thread takes the bands in order instead. */
        if (j - fr + 1 > BAND_RING) band->serial = true;
        band->lr[j] = (int32_t)lr;
        band->fr[j] = (int32_t)fr;
    }
    band->on = true;
}

/* Evaluate the bound program band by band (kernels/banded.c schedules the bands over threads),
 * writing bands back through the copy op `c` as their readers complete. */
static enum cpn_status band_execute(struct run *r, const struct cpn_op *c, bool watch,
                                    struct cpn_kctx *ctx, unsigned *wb_hw)
{
    const struct band *band = &r->band;
    struct cpn_band_plan bp;
    const int ndim = r->prog.ndim;
    int64_t doff;
    bp.rows = band->rows;
    bp.h = band->h;
    bp.nb = band->nb;
    bp.band_bytes = band->band_bytes;
    bp.ring = BAND_RING;
    bp.lr = band->lr;
    bp.fr = band->fr;
    bp.serial = band->serial;
    bp.pext = band->ext;
    memcpy(bp.pst, r->prog.ext_st[band->ext], (size_t)ndim * sizeof *bp.pst);
    bp.copy = cpn_op_loop(c);
    char *dbase = cpn_store_data(c->out[0]->store);
    if (!dbase) return CPN_ERR_NOMEM;
    if (r->dist) {   /* D's tile at the interior's corner */
        bp.dbase = cpn_dist_tile_layout(c->out[0], r->reg[0].lo, dbase, bp.dst);
    } else {
        cpn_view_byte_layout(c->out[0], bp.dst, &doff);
        bp.dbase = dbase + doff;
    }
    bp.watch = watch;
    return cpn_kernel_banded(&r->prog, &bp, ctx, wb_hw);
}

/* ---- the phases of a run ---------------------------------------------------------------------- */

/* Select the run starting at ops[start]: as many following ops as fit, a reduction closing it;
 * then whether it is written back in bands, and whether a trailing op is better left to the next
 * run.  False when no run starts here (or *st failed); r->len may still be below 2. */
/* A view of a virtual store that a run reads in place (its generator regenerated into a register
 * where it is read: assign_registers). */
static bool virtual_in_place(const struct cpn_view *iv)
{
    const struct cpn_store *vs = iv->store;
    return vs->virt && !vs->root && !vs->tiled && iv->dtype == vs->dtype && cpn_view_is_contiguous(iv);
}

static bool select_run(struct run *r, struct cpn_op *ops, int n, int start, enum cpn_status *st)
{
    const struct cpn_op *first = &ops[start];
    r->ops = ops;
    r->n = n;
    r->start = start;
    r->len = 0;
    r->band.on = false;
    if (first->nout != 1 || cpn_view_size(first->out[0]) == 0) return false;
    /* A run starts with an element-wise op over its output's space, or is a full reduction of a
     * virtual store read in place over its input's (lone_virtual_reduce: one op). */
    const bool vred = first->kind == CPN_OPK_REDUCE && first->in[0] && op_local(first) &&
                      virtual_in_place(first->in[0]);
    const struct cpn_view *space = vred ? first->in[0] : first->out[0];
    r->ndim = space->ndim;
    r->shape = space->shape;
    r->dist = !op_local(first);
    r->red_k = -1;
    const int ndim = r->ndim;
    const int64_t *shape = r->shape;
    const bool dist = r->dist;
    if (vred ? !reduce_member(first, ndim, shape) : !pointwise_member(first, ndim, shape, dist))
        return false;
    if (dist && !cpn_dist_run_info(first, &r->w0, st)) return false;
    r->has_in = dist && r->w0.work && r->w0.interior;
    if (r->has_in) r->in = r->w0.in;

    int len = 0;
    r->nacc = 0;
    acc_reset(&r->ai);
    for (int j = start; j < n && len < CPN_FUSED_MAXINSTR; j++) {
        const struct cpn_op *op = &ops[j];
        bool red = dist ? j > start && dist_reduce_member(r, op) : reduce_member(op, ndim, shape);
        if (!red && !pointwise_member(op, ndim, shape, dist)) break;
        if (conflicts(r, op)) break;
        struct cpn_dist_work wj;
        if (dist && j > start && !red && !dist_aligned(r, op, &wj, st)) break;
        if (*st != CPN_OK) return false;
        if (dist && j > start && r->has_in && !red) {
            /* the run's interior: where every op's inputs are local */
            r->has_in = wj.interior;
            for (int d = 0; d < ndim && r->has_in; d++) {
                if (wj.in.lo[d] > r->in.lo[d]) r->in.lo[d] = wj.in.lo[d];
                if (wj.in.hi[d] < r->in.hi[d]) r->in.hi[d] = wj.in.hi[d];
                r->has_in = r->in.lo[d] < r->in.hi[d];
            }
        }
        struct cpn_view *vs[OP_MAXVIEWS];
        bool w[OP_MAXVIEWS];
        int nv = op_views(op, vs, w);
        for (int k = 0; k < nv; k++) acc_add(r, vs[k], w[k]);
        r->nacc_after[len++] = r->nacc;
        if (red) break;
    }
    static const int64_t zero[CPN_MAXDIM];
    if (!dist) {
        band_plan(r, len, zero, shape);
        const int len0 = len;
        while (!r->band.on && len > 1 && trailing_spill(ops, start, start + len)) len--;
        if (len != len0) {
            r->nacc = r->nacc_after[len - 1];
            band_plan(r, len, zero, shape);
        }
    } else {
        r->band.on = false;
        if (len && ops[start + len - 1].kind == CPN_OPK_REDUCE) r->red_k = len - 1;
        else if (r->has_in && dist_copy_aligned(r, start + len, st)) band_plan(r, len, r->in.lo, r->in.hi);
        if (*st != CPN_OK) return false;
    }
    r->len = len;
    return true;
}

/* A full reduction alone in its run whose input is a virtual store read in place (`x.sum()` of a
 * named draw): run as a one-op program, which regenerates the values into registers (assign_
 * registers), instead of alone, which would write the whole store to read it once. */
static bool lone_virtual_reduce(const struct run *r)
{
    const struct cpn_op *op = &r->ops[r->start];
    return r->len == 1 && !r->dist && op->kind == CPN_OPK_REDUCE && op->in[0] && virtual_in_place(op->in[0]);
}

/* A run of fewer than two ops: a draw or fill nothing in this flush reads through a run is left
 * virtual (consumed), anything else runs alone. */
static int lone_op(struct run *r)
{
    const struct cpn_op *first = &r->ops[r->start];
    if (!r->dist && live_out(r->start, 0)->owned && virtualizable(r->ops, r->start)) {
        make_virtual(first);
        return 1;
    }
    return 0;
}

/* Which stores live in registers: written entirely, first named by the writer, unowned, named
 * by nothing after the run, and always through the writer's view.  Also which ops are dropped
 * (never read) and which stores are left virtual; and the run's signature. */
/* Does op j of the run (or, input: only its inputs) touch store `s`? */
static bool run_touches(const struct run *r, int j, const struct cpn_store *s, bool inputs_only)
{
    const struct cpn_op *op = &r->ops[r->start + j];
    for (int i = 0; i < op->nin; i++)
        if (op->in[i] && op->in[i]->store == s) return true;
    if (!inputs_only)
        for (int k = 0; k < op->nout; k++)
            if (op->out[k]->store == s) return true;
    return false;
}

/* Is register `slot`, as op c reads it, read by no op of the run but c? */
static bool only_reader(const struct run *r, int k, int c, int slot)
{
    const struct assign *a = &r->a;
    bool live = true;   /* the register holds op k's value */
    for (int j = k + 1; j < r->len && live; j++) {
        if (a->drop[j]) continue;
        const struct cpn_op *op = &r->ops[r->start + j];
        for (int i = 0; i < op->nin; i++)
            if (j != c && a->in[j][i].kind == CPN_FARG_REG && a->in[j][i].slot == slot) return false;
        if (op->kind != CPN_OPK_REDUCE && a->out[j].kind == CPN_FARG_REG && a->out[j].slot == slot)
            live = false;
    }
    for (int g = 0; g < a->nregen; g++)   /* a regeneration into it ends op k's value too */
        if (a->regen[g].slot == slot && a->regen[g].at > k && a->regen[g].at <= c) return false;
    return true;
}

/* `B[...] = f(...)`: f's last op writes B itself and the copy from its register is not run (an
 * ordered, in-place evaluation), where nothing between the two touches B, f's last op reads B
 * only through the copy's own view (element i read before element i is written), and the
 * register is the copy's alone.  Recorded in the signature: the plan differs. */
static void coalesce_copies(struct run *r)
{
    if (r->dist || r->band.on) return;
    const struct cpn_op *ops = r->ops;
    struct assign *a = &r->a;
    const int start = r->start, len = r->len;
    for (int c = 1; c < len; c++) {
        const struct cpn_op *cp = &ops[start + c];
        if (cp->kind != CPN_OPK_CAST || a->drop[c] || a->out[c].kind != CPN_FARG_EXT ||
            a->in[c][0].kind != CPN_FARG_REG || !cp->in[0] || cp->in[0]->dtype != cp->out[0]->dtype)
            continue;
        const int slot = a->in[c][0].slot;
        int k = c - 1;
        while (k >= 0 && (a->drop[k] || ops[start + k].kind == CPN_OPK_REDUCE ||
                          a->out[k].kind != CPN_FARG_REG || a->out[k].slot != slot))
            k--;
        if (k < 0) continue;
        const struct cpn_op *pr = &ops[start + k];
        const struct cpn_view *B = cp->out[0];
        if ((pr->kind != CPN_OPK_ELEMENTWISE && pr->kind != CPN_OPK_CAST) || pr->nout != 1 ||
            a->virt[k] || a->into[k] || pr->out[0]->dtype != B->dtype ||
            !same_shape(B, pr->out[0]->ndim, pr->out[0]->shape) || !only_reader(r, k, c, slot))
            continue;
        bool ok = true;
        for (int j = k + 1; j < c && ok; j++) ok = !run_touches(r, j, B->store, false);
        for (int i = 0; i < pr->nin && ok; i++)
            ok = !pr->in[i] || pr->in[i]->store != B->store || cpn_view_same(pr->in[i], B);
        if (!ok) continue;
        a->into[k] = (int16_t)(c + 1);
        a->out[k] = (struct operand){CPN_FARG_EXT, 0};
        a->drop[c] = true;
        r->sig[r->nsig++] = 0x7e000000 | k << 12 | c;
        cpn_stats.copies_elided++;
    }
}

static void assign_registers(struct run *r)
{
    const struct cpn_op *ops = r->ops;
    const int start = r->start, len = r->len, end = start + len;
    const bool dist = r->dist;
    struct assign *a = &r->a;
    memset(a, 0, sizeof *a);
    int slot_free_after[CPN_FUSED_MAXSLOTS];  /* queue index of the slot's last use */
    const struct cpn_store *slot_store[CPN_FUSED_MAXSLOTS];
    int nslots = 0;
    int32_t *sig = r->sig;
    int nsig = 0;
    sig[nsig++] = len | dist << 16 | r->band.on << 17;
    for (int k = 0; k < len; k++) {
        const struct cpn_op *op = &ops[start + k];
        for (int i = 0; i < op->nin; i++) {
            a->in[k][i].kind = CPN_FARG_SCALAR;
            if (!op->in[i]) continue;
            a->in[k][i].kind = CPN_FARG_EXT;
            for (int s = 0; s < nslots; s++)
                if (slot_store[s] == op->in[i]->store && slot_free_after[s] >= start + k) {
                    a->in[k][i] = (struct operand){CPN_FARG_REG, s};
                    break;
                }
            const struct cpn_view *iv = op->in[i];
            const struct cpn_store *vs = iv->store;
            if (a->in[k][i].kind == CPN_FARG_EXT && !dist && vs->virt && !vs->root &&
                iv->dtype == vs->dtype && cpn_view_is_contiguous(iv) && len + a->nregen < CPN_FUSED_MAXINSTR &&
                !touched_otherwise(ops, start, end, vs, iv)) {
                /* A virtual store read in place: its generator runs again, into a register. */
                int last = last_reader(ops, start + k, end, vs);
                int reg = take_slot(slot_free_after, &nslots, start + k);
                if (reg >= 0) {
                    slot_store[reg] = vs;
                    slot_free_after[reg] = last;
                    a->regen[a->nregen++] = (struct regen){k, reg, iv};
                    a->in[k][i] = (struct operand){CPN_FARG_REG, reg};
                    sig[nsig++] = 0x7f000000 | k << 12 | reg << 4 | vs->gen.kind;
                    sig[nsig++] = vs->gen.code | (int)vs->dtype << 8;
                    cpn_stats.virtual_regenerated++;
                }
            }
        }
        if (op->kind == CPN_OPK_REDUCE) {
            a->out[k].kind = CPN_FARG_EXT;
        } else {
            const struct cpn_view *ov = op->out[0];
            const struct cpn_store *s = ov->store;
            const struct live *ls = live_out(start + k, 0);
            int reg = -1;
            for (int q = 0; q < nslots; q++)   /* an in-place update of a register */
                if (slot_store[q] == s && slot_free_after[q] >= start + k) reg = q;
            if (reg < 0 && ls->owned && virtualizable(ops, start + k) &&
                !touched_otherwise(ops, start + k + 1, end, s, ov)) {
                /* Held by Python: left virtual, its readers in the run use a register. */
                a->virt[k] = true;
                int last = last_reader(ops, start + k, end, s);
                if (last == start + k) {
                    a->drop[k] = true;
                } else {
                    reg = take_slot(slot_free_after, &nslots, start + k);
                    if (reg >= 0) {
                        slot_store[reg] = s;
                        slot_free_after[reg] = last;
                    } else {
                        a->virt[k] = false;   /* no register left: written as usual */
                    }
                }
            } else if (reg < 0 && !ls->owned && ls->first == start + k && ls->last < end &&
                       cpn_view_covers_store(ov)) {
                bool same = true;
                for (int j = start + k + 1; j <= ls->last && same; j++) {
                    struct cpn_view *vs[OP_MAXVIEWS];
                    bool w[OP_MAXVIEWS];
                    int nv = op_views(&ops[j], vs, w);
                    for (int q = 0; q < nv; q++)
                        if (vs[q]->store == s && !cpn_view_same(vs[q], ov)) same = false;
                    if (ops[j].kind == CPN_OPK_REDUCE && ops[j].out[0]->store == s) same = false;
                }
                if (same && ls->last == start + k && !cpn_fperr_may_report(op)) {
                    a->drop[k] = true;   /* never read: not computed */
                } else if (same) {
                    reg = take_slot(slot_free_after, &nslots, start + k);
                    if (reg >= 0) {
                        slot_store[reg] = s;
                        slot_free_after[reg] = ls->last;
                        cpn_stats.temporaries_elided++;
                        cpn_stats.bytes_elided += s->size * (int64_t)cpn_dtype_size(s->dtype);
                    }
                }
            }
            a->out[k] = reg >= 0 ? (struct operand){CPN_FARG_REG, reg} : (struct operand){CPN_FARG_EXT, 0};
        }
        if (a->drop[k] && !a->virt[k]) {
            cpn_stats.temporaries_elided++;
            cpn_stats.bytes_elided += op->out[0]->store->size * (int64_t)cpn_dtype_size(op->out[0]->dtype);
        }
        sig[nsig++] = op->kind | op->code << 4 | (int)op->dtype << 20 | a->drop[k] << 28;
        sig[nsig++] = op->nin | (int)op->out[0]->dtype << 4;
        for (int i = 0; i < op->nin; i++)
            sig[nsig++] = a->in[k][i].kind | a->in[k][i].slot << 4 |
                          (op->in[i] ? (int)op->in[i]->dtype : 31) << 12;
        sig[nsig++] = a->out[k].kind | a->out[k].slot << 4;
    }
    a->nslots = nslots;
    sig[nsig++] = nslots;
    r->nsig = nsig;
    coalesce_copies(r);
}

/* The program template of the run's signature: from the cache, or built and cached.  NULL with
 * *st = CPN_ERR_NOMEM when it cannot be allocated. */
static struct plan *lookup_plan(const struct run *r, enum cpn_status *st)
{
    const int32_t *sig = r->sig;
    const int nsig = r->nsig;
    const struct assign *a = &r->a;
    uint64_t h = sig_hash(sig, nsig);
    for (int c = 0; c < CACHE_SIZE; c++)
        if (cache[c] && cache[c]->hash == h && cache[c]->nsig == nsig &&
            !memcmp(cache[c]->sig, sig, (size_t)nsig * sizeof *sig)) {
            cpn_stats.fusion_plan_hits++;
            return cache[c];
        }
    struct plan *p = cpn_alloc(sizeof *p);
    if (!p) {
        *st = CPN_ERR_NOMEM;
        return NULL;
    }
    p->nsig = nsig;
    memcpy(p->sig, sig, (size_t)nsig * sizeof *sig);
    p->hash = h;
    p->nslots = a->nslots;
    p->ninstr = 0;
    for (int k = 0, g = 0; k < r->len; k++) {
        for (; g < a->nregen && a->regen[g].at == k; g++)
            regen_template(a->regen[g].v->store, a->regen[g].slot, &p->instr[p->ninstr++]);
        if (!a->drop[k]) instr_template(&r->ops[r->start + k], a, k, &p->instr[p->ninstr++]);
    }
    if (cache[cache_next]) cpn_free(cache[cache_next]);
    cache[cache_next] = p;
    cache_next = (cache_next + 1) % CACHE_SIZE;
    cpn_stats.fusion_plans++;
    return p;
}

/* The buffer a run binds for `s`: the host buffer, or the device copy when the run executes on
 * the device (`write`: the run writes it; `overwrite`: every element, reading none). */
static char *run_buffer(bool on_dev, struct cpn_store *s, bool write, bool overwrite)
{
    if (on_dev) return cpn_store_device_data(s, write, overwrite);
    return overwrite ? cpn_store_data_for_overwrite(s) : cpn_store_data(s);
}

static int add_ext(struct cpn_fused_prog *prog, const struct cpn_view *v, intptr_t base)
{
    int e = prog->next++;
    int64_t off;
    cpn_view_byte_layout(v, prog->ext_st[e], &off);
    prog->ext_base[e] = base + (intptr_t)off;
    return e;
}

/* Bind plan p to the run's operands: buffers, strides, scalars, parameters; where the program
 * executes; for a distributed run every op's exchange.  CPN_ERR_NOMEM (or the exchange's error)
 * when that fails. */
static enum cpn_status bind_run(struct run *r, const struct plan *p)
{
    struct cpn_fused_prog *prog = &r->prog;
    const struct assign *a = &r->a;
    const int start = r->start, len = r->len, ndim = r->ndim;
    const int64_t *shape = r->shape;
    const bool dist = r->dist;
    const struct cpn_dist_work *w0 = &r->w0;
    struct cpn_dist_xchg **xs = r->xs;
    prog->ninstr = p->ninstr;
    prog->nslots = p->nslots;
    memcpy(prog->instr, p->instr, (size_t)p->ninstr * sizeof *p->instr);
    prog->next = 0;
    prog->ndim = ndim;
    memcpy(prog->shape, shape, (size_t)ndim * sizeof *shape);
    if (dist)
        for (int d = 0; d < ndim; d++) prog->shape[d] = w0->work ? w0->hi[d] - w0->lo[d] : 0;
    prog->reduce_out = NULL;
    r->on_dev = cpn_backend_on_device() && cpn_backend_active()->supports_fused(prog);
    const bool on_dev = r->on_dev;
    /* Distributed: every op's exchange posted (dropped ops' too: the peers expect them), its
     * buffers where the run executes; run_program evaluates the interior, completes the
     * exchanges, then evaluates the border (the regions of the work box). */
    r->ndext = 0;
    r->nreg = 0;
    if (dist) {
        enum cpn_status st = CPN_OK;
        if (w0->work) {
            struct cpn_dist_box w;
            memcpy(w.lo, w0->lo, sizeof w.lo);
            memcpy(w.hi, w0->hi, sizeof w.hi);
            r->nreg = cpn_dist_regions(ndim, &w, r->has_in ? &r->in : NULL, r->reg);
        }
        /* A banded write-back writes D's interior while the messages fly, before the border
         * regions are computed: their reads of D are copied now (cpn_dist_xchg_begin). */
        const struct cpn_store *snap =
            r->band.on ? cpn_store_root(r->ops[start + len].out[0]->store) : NULL;
        for (int k = 0; k < len && st == CPN_OK; k++)
            if (k != r->red_k)   /* the closing reduction reads its tile in place */
                st = cpn_dist_xchg_begin(&r->ops[start + k], on_dev, r->nreg, r->reg, snap, &xs[k]);
        if (st != CPN_OK) return st;
    }
    int pi = 0;
    for (int k = 0, g = 0; k < len; k++) {
        struct cpn_op *op = &r->ops[start + k];
        for (; g < a->nregen && a->regen[g].at == k; g++) {
            struct cpn_fused_instr *in = &prog->instr[pi++];
            const struct cpn_store *vs = a->regen[g].v->store;
            in->index_ext = add_ext(prog, a->regen[g].v, 0);
            in->index_size = (int64_t)cpn_dtype_size(vs->dtype);
            in->seed = vs->gen.seed;
            in->stream = vs->gen.stream;
            in->p0 = vs->gen.p0;
            in->p1 = vs->gen.p1;
            in->i0 = vs->gen.i0;
            in->i1 = vs->gen.i1;
        }
        if (a->drop[k]) continue;
        struct cpn_fused_instr *in = &prog->instr[pi++];
        if (op->kind == CPN_OPK_REDUCE) {
            if (in->arg[0].kind == CPN_FARG_EXT && (!dist || w0->work)) {
                char *b = run_buffer(on_dev, op->in[0]->store, false, false);
                if (!b) return CPN_ERR_NOMEM;
                if (dist) {   /* its tile, read in place (dist_reduce_member) */
                    int e = prog->next++;
                    r->dext[r->ndext++] = (struct dext){e, k, -2, b};
                    in->arg[0].idx = e;
                } else {
                    in->arg[0].idx = add_ext(prog, op->in[0], (intptr_t)b);
                }
            }
            /* The accumulator goes to the host: the reduction's result is read there next. */
            prog->reduce_out = cpn_view_origin(op->out[0]);
            if (!prog->reduce_out) return CPN_ERR_NOMEM;
            continue;
        }
        for (int i = 0; i < op->nin && in->kind == CPN_FI_LOOP; i++) {
            if (in->arg[i].kind == CPN_FARG_SCALAR) {
                in->arg[i].scalar = (const char *)op->scalar[i].bytes;
            } else if (in->arg[i].kind == CPN_FARG_EXT && dist) {
                if (!w0->work) continue;
                int e = prog->next++;
                r->dext[r->ndext++] = (struct dext){e, k, i, NULL};
                in->arg[i].idx = e;
            } else if (in->arg[i].kind == CPN_FARG_EXT) {
                char *b = run_buffer(on_dev, op->in[i]->store, false, false);
                if (!b) return CPN_ERR_NOMEM;
                in->arg[i].idx = add_ext(prog, op->in[i], (intptr_t)b);
            }
        }
        struct cpn_fused_arg *o = &in->arg[in->narg - 1];
        if (o->kind == CPN_FARG_EXT && r->band.on && k == len - 1) {
            /* P lives in the band ring: dense strides, base set per band. */
            int e = prog->next++;
            int64_t stv = (int64_t)cpn_dtype_size(op->out[0]->dtype);
            for (int d = ndim - 1; d >= 0; d--) {
                prog->ext_st[e][d] = stv;
                stv *= shape[d];
            }
            prog->ext_base[e] = 0;
            o->idx = e;
            r->band.ext = e;
        } else if (o->kind == CPN_FARG_EXT) {
            const int w = a->into[k] ? a->into[k] - 1 : k;   /* the op whose output it writes */
            const struct cpn_op *wop = &r->ops[start + w];
            char *b = run_buffer(on_dev, wop->out[0]->store, true,
                                 live_out(start + w, 0)->first == start + w && cpn_op_overwrites(wop));
            if (!b) return CPN_ERR_NOMEM;
            if (dist) {
                if (!w0->work) continue;
                int e = prog->next++;
                r->dext[r->ndext++] = (struct dext){e, k, -1, b};
                o->idx = e;
            } else {
                o->idx = add_ext(prog, wop->out[0], (intptr_t)b);
            }
        }
        if (in->kind == CPN_FI_RANDOM || in->kind == CPN_FI_ARANGE) {
            in->index_ext = add_ext(prog, op->out[0], 0);
            in->index_size = (int64_t)cpn_dtype_size(op->out[0]->dtype);
        }
        if (in->kind == CPN_FI_RANDOM) {
            in->seed = (uint64_t)op->iparam[0];
            in->stream = (uint64_t)op->iparam[1];
            in->p0 = op->dparam[0];
            in->p1 = op->dparam[1];
        } else if (in->kind == CPN_FI_ARANGE) {
            in->p0 = op->dparam[0];
            in->p1 = op->dparam[1];
            in->i0 = op->iparam[0];
            in->i1 = op->iparam[1];
        }
    }
    return CPN_OK;
}

static enum cpn_status run_kernel(struct run *r)
{
    struct cpn_kctx ctx = {0};
    struct cpn_fused_prog *prog = &r->prog;
    enum cpn_status st = r->on_dev ? cpn_backend_active()->execute_fused(prog) : cpn_kernel_fused(prog, &ctx);
    if (st == CPN_OK && ctx.err) st = cpn_error(CPN_ERR_VALUE, "invalid value in a fused run");
    return st;
}

/* Bind the distributed run's externals to region j of its work box. */
static enum cpn_status bind_region(struct run *r, int j)
{
    struct cpn_fused_prog *prog = &r->prog;
    const struct cpn_dist_box *g = &r->reg[j];
    for (int d = 0; d < r->ndim; d++) prog->shape[d] = g->hi[d] - g->lo[d];
    for (int x = 0; x < r->ndext; x++) {
        const struct dext *de = &r->dext[x];
        const struct cpn_op *op = &r->ops[r->start + de->k];
        char *b = de->i >= 0 ? cpn_dist_xchg_input(r->xs[de->k], de->i, j, prog->ext_st[de->e])
                             : cpn_dist_tile_layout(de->i == -2 ? op->in[0] : op->out[0], g->lo, de->out,
                                                    prog->ext_st[de->e]);
        if (!b) return CPN_ERR_NOMEM;
        prog->ext_base[de->e] = (intptr_t)b;
    }
    return CPN_OK;
}

/* A distributed run: the interior while the messages fly, then every exchange completed (also
 * after a failure: the peers wait), then the border. */
static enum cpn_status run_dist(struct run *r)
{
    enum cpn_status st = CPN_OK;
    const bool compute = r->prog.ninstr > 0 && r->w0.work;
    int j = 0;
    if (compute && r->has_in) {
        st = bind_region(r, 0);
        if (st == CPN_OK) st = run_kernel(r);
        j = 1;
    }
    for (int k = 0; k < r->len; k++) {
        enum cpn_status e = cpn_dist_xchg_end(r->xs[k]);
        if (st == CPN_OK) st = e;
    }
    for (; compute && j < r->nreg && st == CPN_OK; j++) {
        st = bind_region(r, j);
        if (st == CPN_OK) st = run_kernel(r);
    }
    return st;
}

/* P's external bound to a dense buffer `base` over region j's shape (base 0: the band ring). */
static void bind_p_dense(struct run *r, int j, char *base)
{
    struct cpn_fused_prog *prog = &r->prog;
    const struct cpn_dist_box *g = &r->reg[j];
    const int e = r->band.ext;
    int64_t stv = (int64_t)cpn_dtype_size(r->ops[r->start + r->len - 1].out[0]->dtype);
    for (int d = r->ndim - 1; d >= 0; d--) {
        prog->ext_st[e][d] = stv;
        stv *= g->hi[d] - g->lo[d];
    }
    prog->ext_base[e] = (intptr_t)base;
}

/* A distributed run written back in bands (band_plan over its interior, region 0): the interior
 * band by band, written back through the copy `c` into D's tile as its readers complete, while
 * the messages fly; then the exchanges completed (also after a failure: the peers wait); each
 * border region computed into a buffer of its own (P's values there: a few rows); then the
 * border buffers copied into D.  Every read sees the values before the run: the interior reads
 * only local data (region 0 is where every input is local) and D's border rows, which it does
 * not write; the border regions read D through copies taken when the exchanges were posted
 * (bind_run's `snap`), and the received pieces.  P is never allocated. */
static enum cpn_status run_dist_banded(struct run *r, const struct cpn_op *c, bool watch,
                                       struct cpn_kctx *ctx, unsigned *wb_hw)
{
    enum cpn_status st = bind_region(r, 0);
    if (st == CPN_OK) {
        bind_p_dense(r, 0, NULL);
        st = band_execute(r, c, watch, ctx, wb_hw);
    }
    for (int k = 0; k < r->len; k++) {
        enum cpn_status e = cpn_dist_xchg_end(r->xs[k]);
        if (st == CPN_OK) st = e;
    }
    char *pb[CPN_DIST_MAXREG] = {0};
    size_t pbn[CPN_DIST_MAXREG] = {0};
    const size_t item = cpn_dtype_size(r->ops[r->start + r->len - 1].out[0]->dtype);
    for (int j = 1; j < r->nreg && st == CPN_OK; j++) {
        int64_t n = 1;
        for (int d = 0; d < r->ndim; d++) n *= r->reg[j].hi[d] - r->reg[j].lo[d];
        pbn[j] = (size_t)n * item;
        if (!(pb[j] = cpn_alloc(pbn[j] ? pbn[j] : 1))) st = CPN_ERR_NOMEM;
        if (st == CPN_OK) st = bind_region(r, j);
        if (st == CPN_OK) {
            bind_p_dense(r, j, pb[j]);
            st = run_kernel(r);
        }
    }
    char *dtile = st == CPN_OK ? cpn_store_data(c->out[0]->store) : NULL;
    for (int j = 1; j < r->nreg && st == CPN_OK; j++) {
        /* the border's write-back: the copy op over region j, from its buffer into D's tile */
        int64_t ext[CPN_MAXDIM], sst[CPN_MAXDIM], dst[CPN_MAXDIM], stv = (int64_t)item;
        for (int d = r->ndim - 1; d >= 0; d--) {
            ext[d] = r->reg[j].hi[d] - r->reg[j].lo[d];
            sst[d] = stv;
            stv *= ext[d];
        }
        char *ptr[2] = {pb[j], cpn_dist_tile_layout(c->out[0], r->reg[j].lo, dtile, dst)};
        const int64_t *strides[2] = {sst, dst};
        struct cpn_fpreport fp = {0};
        st = cpn_transport_host()->compute_region(c, ptr, r->ndim, ext, strides, &fp);
        *wb_hw |= fp.hw;
    }
    for (int j = 1; j < r->nreg; j++) cpn_free(pb[j]);
    return st;
}

/* Run the bound program (band by band when r->band.on, then the copy op is consumed too) and
 * hand each op's findings on.  Returns the number of ops consumed. */
static int run_program(struct run *r, enum cpn_status *st)
{
    const struct cpn_op *ops = r->ops;
    const struct assign *a = &r->a;
    struct cpn_fused_prog *prog = &r->prog;
    const int start = r->start;
    int len = r->len;
    /* Floating-point findings per instruction, when some op's error mode asks for them. */
    bool watch = false;
    for (int k = 0; k < len; k++) watch |= !a->drop[k] && cpn_fperr_watches(&ops[start + k]);
    prog->fpe = watch ? r->in_fp : NULL;
    if (watch) memset(r->in_fp, 0, sizeof r->in_fp);
    const int body = len;
    if (r->band.on) {
        struct cpn_kctx ctx = {0};
        const struct cpn_store *P = ops[start + len - 1].out[0]->store;
        unsigned wb_hw = 0;
        const bool wb_watch = cpn_fperr_watches(&ops[start + len]);
        *st = r->dist ? run_dist_banded(r, &ops[start + len], wb_watch, &ctx, &wb_hw)
                      : band_execute(r, &ops[start + len], wb_watch, &ctx, &wb_hw);
        if (wb_watch) {   /* the copy's own findings, reported as if it ran alone */
            r->op_fp[len].hw = wb_hw;   /* casts report through the status flags only */
        }
        if (*st == CPN_OK && ctx.err) *st = cpn_error(CPN_ERR_VALUE, "invalid value in a fused run");
        cpn_stats.temporaries_elided++;
        cpn_stats.bytes_elided += P->tsize * (int64_t)cpn_dtype_size(P->dtype);
        cpn_stats.fused_runs_banded++;
        len++;   /* the copy ran too */
    } else if (r->dist) {
        *st = run_dist(r);
    } else if (prog->ninstr > 0) {
        *st = run_kernel(r);
    }
    /* Instruction i of op k: after the regenerations placed before it (their findings are
     * nobody's), as lookup_plan laid the program out. */
    if (watch)
        for (int k = 0, i = 0, g = 0; k < body; k++) {
            for (; g < a->nregen && a->regen[g].at == k; g++) i++;
            if (a->drop[k]) continue;
            r->op_fp[k] = r->in_fp[i++];
        }
    if (r->dist && r->red_k >= 0) {
        /* every rank takes part in the combining, also after a failure here (the peers wait) */
        const struct cpn_op *op = &ops[start + r->red_k];
        const enum cpn_dtype dt = op->out[0]->dtype;
        _Alignas(16) char part[16];
        if (*st == CPN_OK && prog->ninstr > 0 && r->w0.work) memcpy(part, prog->reduce_out, cpn_dtype_size(dt));
        else cpn_op_combine_identity((enum cpn_opcode)op->code, dt, part);
        enum cpn_status e = cpn_dist_reduce_combine(op, part, &r->op_fp[r->red_k]);
        if (*st == CPN_OK) *st = e;
    }
    for (int k = 0; k < body && *st == CPN_OK; k++)
        if (a->virt[k]) make_virtual(&ops[start + k]);
    cpn_stats.fused_runs++;
    cpn_stats.fused_ops += len;
    cpn_stats.fused_runs_dist += r->dist;
    return len;
}

/* ---- executing a run -------------------------------------------------------------------------- */

/* Would the device backend take plan p's program?  (r->prog: scratch until bind_run.) */
static bool device_takes(struct run *r, const struct plan *p)
{
    struct cpn_fused_prog *prog = &r->prog;
    prog->ninstr = p->ninstr;
    memcpy(prog->instr, p->instr, (size_t)p->ninstr * sizeof *p->instr);
    prog->next = 0;
    prog->ndim = r->ndim;
    return cpn_backend_active()->supports_fused(prog);
}

/* On a device, the longest prefix of the run whose program the device takes (its kernels bind a
 * bounded argument block: cuda/devargs.h), so that a long run becomes several kernels instead of
 * one host evaluation over data copied off the device.  A run the device takes in no length of
 * two or more is left whole (it runs on the host, as before).  False when *st failed. */
static bool fit_device(struct run *r, enum cpn_status *st)
{
    /* the probes' counts are not what runs: the caller plans the chosen run again */
    const int64_t elided = cpn_stats.copies_elided, regen = cpn_stats.virtual_regenerated,
                  hits = cpn_stats.fusion_plan_hits;
    const int len0 = r->len;
    int lo = 1, hi = len0 + 1;   /* takes(lo) (alone: the op's own path), !takes(hi) */
    for (int len = len0; hi - lo > 1; len = (lo + hi) / 2) {
        r->len = len;
        r->nacc = r->nacc_after[len - 1];
        assign_registers(r);
        const struct plan *p = lookup_plan(r, st);
        if (!p) break;
        if (device_takes(r, p)) lo = len;
        else hi = len;
    }
    cpn_stats.copies_elided = elided;
    cpn_stats.virtual_regenerated = regen;
    cpn_stats.fusion_plan_hits = hits;
    if (*st != CPN_OK) return false;
    if (lo == 1) lo = len0;   /* no cut helps: whole, on the host */
    r->len = lo;
    r->nacc = r->nacc_after[lo - 1];
    cpn_stats.fused_runs_cut += lo < len0;
    return true;
}

/* ops[start] dropped: nothing can read what it writes. */
static int drop_op(const struct cpn_op *op)
{
    for (int k = 0; k < op->nout; k++) {
        const struct cpn_store *s = op->out[k]->store;
        cpn_stats.temporaries_elided += s->data == NULL;
        cpn_stats.bytes_elided += s->data == NULL ? s->size * (int64_t)cpn_dtype_size(s->dtype) : 0;
    }
    cpn_stats.ops_dropped++;
    return 1;
}

/* What the outputs of ops[start..start+count) hold before they execute (see fusion.h). */
static void record_had(const struct cpn_op *ops, int start, int count, bool (*had)[CPN_OP_MAXOUT],
                       struct cpn_fpreport *op_fp)
{
    for (int j = 0; j < count; j++)
        for (int k = 0; k < ops[start + j].nout; k++)
            had[j][k] = cpn_store_allocated(ops[start + j].out[k]->store);
    memset(op_fp, 0, (size_t)count * sizeof *op_fp);
}

int cpn_fusion_execute(struct cpn_op *ops, int n, int start, enum cpn_status *st,
                       struct cpn_fpreport *op_fp, bool (*had)[CPN_OP_MAXOUT])
{
    struct run *r = &workspace;
    *st = CPN_OK;
    r->op_fp = op_fp;
    if (!cpn_fusion_enabled() || !flush.ready || ops != flush.ops || n != flush.n) return 0;
    if (droppable(&ops[start], start)) {
        record_had(ops, start, 1, had, op_fp);
        return drop_op(&ops[start]);
    }
    if (!select_run(r, ops, n, start, st)) return 0;
    if (r->len >= 2 && cpn_backend_on_device() && !fit_device(r, st)) return 0;
    if (r->len < 2 && !lone_virtual_reduce(r)) {
        record_had(ops, start, 1, had, op_fp);
        return lone_op(r);
    }
    record_had(ops, start, r->len + r->band.on, had, op_fp);
    assign_registers(r);
    const struct plan *p = lookup_plan(r, st);
    if (!p) return r->len;
    for (int k = 0; k < r->len; k++) r->xs[k] = NULL;
    *st = bind_run(r, p);
    int used = r->len;
    if (*st == CPN_OK) used = run_program(r, st);
    for (int k = 0; k < r->len; k++) cpn_dist_xchg_free(r->xs[k]);
    return used;
}
