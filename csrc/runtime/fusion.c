/* fusion.c: finding fusable runs in the flushed queue, deciding which stores live only in
 * registers, and building (cached) and binding the fused programs that kernels/fused.c runs.
 *
 * Liveness: cpn_fusion_prepare counts, per view and per root store, the references held by the
 * queued ops.  A view whose reference count equals its queue occurrences, of a store whose
 * reference count equals the number of distinct queued views of it, is reachable from nothing
 * but the queue: its Python arrays have died.  Such a store is "unowned"; once the last queued
 * op naming it has run, nobody can read it.  Python does not run during a flush, so the facts
 * hold for the whole flush.
 *
 * Plans: a run's shape-free description (op kinds, codes, dtypes, which operands are external,
 * scalar or which register) is its signature; the program template built from it (loops
 * resolved, registers assigned) is cached, so a loop that flushes the same runs each iteration
 * builds nothing after the first.  Binding (buffer addresses, strides, scalars, seeds) is per
 * execution. */
#include "fusion.h"

#include <stdlib.h>
#include <string.h>

#include "alloc.h"
#include "backend.h"
#include "dist.h"
#include "fused.h"
#include "kernels.h"
#include "partition.h"
#include "queue.h"

static int enabled = -1;
static struct cpn_fusion_stats stats;

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

void cpn_fusion_stats(struct cpn_fusion_stats *out) { *out = stats; }
void cpn_fusion_reset_stats(void) { memset(&stats, 0, sizeof stats); }

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

void cpn_fusion_prepare(struct cpn_op *ops, int n)
{
    struct cpn_view *vs[OP_MAXVIEWS];
    bool w[OP_MAXVIEWS];
    for (int i = 0; i < n; i++) {
        int nv = op_views(&ops[i], vs, w);
        for (int k = 0; k < nv; k++) {
            struct cpn_store *r = cpn_store_root(vs[k]->store);
            vs[k]->q_count = 0;
            r->q_refs = r->q_views = 0;
            r->q_first = r->q_last = -1;
            r->q_owned = false;
        }
    }
    for (int i = 0; i < n; i++) {
        int nv = op_views(&ops[i], vs, w);
        for (int k = 0; k < nv; k++) {
            struct cpn_view *v = vs[k];
            struct cpn_store *r = cpn_store_root(v->store);
            if (++v->q_count == 1) r->q_views++;
            if (v->store != r) r->q_owned = true;   /* through an alias: not tracked */
            r->q_refs++;
            if (r->q_first < 0) r->q_first = i;
            r->q_last = i;
        }
    }
    for (int i = 0; i < n; i++) {
        int nv = op_views(&ops[i], vs, w);
        for (int k = 0; k < nv; k++) {
            struct cpn_store *r = cpn_store_root(vs[k]->store);
            if (vs[k]->refcnt != vs[k]->q_count || r->refcnt != r->q_views) r->q_owned = true;
        }
    }
}

static bool may_fail_on_data(const struct cpn_op *op)
{
    return op->kind == CPN_OPK_ELEMENTWISE && op->code == CPN_OP_POWER &&
           cpn_dtype_class(op->dtype) == CPN_CLASS_INT;
}

static bool op_local(const struct cpn_op *op)
{
    return cpn_partition_ranks() == 1 || cpn_dist_op_is_local(op);
}

/* Nothing can read what op `i` writes: every output is an unowned root store that no later op
 * names. */
static bool droppable(const struct cpn_op *op, int i)
{
    if (op->nout == 0 || may_fail_on_data(op) || !op_local(op)) return false;
    for (int k = 0; k < op->nout; k++) {
        const struct cpn_store *s = op->out[k]->store;
        if (s->root || s->q_owned || s->q_last != i) return false;
    }
    return true;
}

/* ---- runs ----------------------------------------------------------------------------------- */

static bool same_shape(const struct cpn_view *v, int ndim, const int64_t *shape)
{
    if (v->ndim != ndim) return false;
    for (int d = 0; d < ndim; d++)
        if (v->shape[d] != shape[d]) return false;
    return true;
}

static bool poisoned_input(const struct cpn_op *op)
{
    for (int i = 0; i < op->nin; i++)
        if (op->in[i] && cpn_store_root(op->in[i]->store)->poison) return true;
    return false;
}

/* Can `op` be an element of a run over (ndim, shape)?  Reductions only as the last op. */
static bool pointwise_member(const struct cpn_op *op, int ndim, const int64_t *shape)
{
    if (op->nout != 1 || may_fail_on_data(op) || !op_local(op) || poisoned_input(op)) return false;
    const struct cpn_view *out = op->out[0];
    if (!same_shape(out, ndim, shape) || out->store->root) return false;
    for (int i = 0; i < op->nin; i++)
        if (op->in[i] && (op->in[i]->store->root || !same_shape(op->in[i], ndim, shape))) return false;
    switch (op->kind) {
    case CPN_OPK_ELEMENTWISE:
        return cpn_kernel_elementwise(op->code, op->dtype) != NULL;
    case CPN_OPK_CAST:
        return cpn_kernel_cast(op->in[0] ? op->in[0]->dtype : op->dtype, out->dtype) != NULL;
    case CPN_OPK_RANDOM:
        return cpn_view_is_contiguous(out) && out->dtype == CPN_DTYPE_FLOAT64;
    case CPN_OPK_ARANGE:
        return cpn_view_is_contiguous(out) && cpn_dtype_class(out->dtype) != CPN_CLASS_COMPLEX;
    default:
        return false;
    }
}

/* A full reduction whose result is independent of the order of folding (integer or bool
 * accumulator: wrapping arithmetic is associative). */
static bool reduce_member(const struct cpn_op *op, int ndim, const int64_t *shape)
{
    if (op->kind != CPN_OPK_REDUCE || op->nin != 1 || op->nout != 1 || !op->in[0]) return false;
    if (!op_local(op) || poisoned_input(op)) return false;
    const struct cpn_view *in = op->in[0], *out = op->out[0];
    if (in->store->root || out->store->root || !same_shape(in, ndim, shape) || out->ndim != 0)
        return false;
    uint64_t all = ndim >= 64 ? ~(uint64_t)0 : (((uint64_t)1 << ndim) - 1);
    if ((op->axes & all) != all) return false;
    enum cpn_dtype_class c = cpn_dtype_class(out->dtype);
    if (c != CPN_CLASS_INT && c != CPN_CLASS_UINT && c != CPN_CLASS_BOOL) return false;
    if (op->code != CPN_OP_ADD && op->code != CPN_OP_MULTIPLY && op->code != CPN_OP_MAXIMUM &&
        op->code != CPN_OP_MINIMUM)
        return false;
    return cpn_kernel_elementwise(op->code, out->dtype) != NULL;
}

struct access {
    const struct cpn_view *v;
    bool write;
};

/* Would adding op's accesses to the run's make an element read or written through two different
 * overlapping views, one of them a write? */
static bool conflicts(const struct access *acc, int nacc, const struct cpn_op *op)
{
    struct cpn_view *vs[OP_MAXVIEWS];
    bool w[OP_MAXVIEWS];
    int nv = op_views(op, vs, w);
    for (int k = 0; k < nv; k++) {
        for (int j = 0; j < nacc + nv; j++) {
            const struct cpn_view *o = j < nacc ? acc[j].v : vs[j - nacc];
            bool ow = j < nacc ? acc[j].write : w[j - nacc];
            if (!(ow || w[k])) continue;
            if (cpn_store_root(o->store) != cpn_store_root(vs[k]->store)) continue;
            if (cpn_view_same(o, vs[k]) || !cpn_view_may_overlap(o, vs[k])) continue;
            return true;
        }
    }
    return false;
}

/* ---- plans ---------------------------------------------------------------------------------- */

#define SIG_MAX (CPN_FUSED_MAXINSTR * 12 + 4)
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

/* How an operand of a run op is supplied. */
struct operand {
    int kind;          /* enum cpn_fused_argkind */
    int slot;          /* REG */
};

struct run {
    int start, len;
    bool drop[CPN_FUSED_MAXINSTR];
    struct operand in[CPN_FUSED_MAXINSTR][CPN_OP_MAXIN], out[CPN_FUSED_MAXINSTR];
    int nslots;
};

static uint64_t sig_hash(const int32_t *s, int n)
{
    uint64_t h = 1469598103934665603ull;
    for (int i = 0; i < n; i++) {
        h ^= (uint32_t)s[i];
        h *= 1099511628211ull;
    }
    return h;
}

static void instr_template(const struct cpn_op *op, const struct run *r, int k,
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
            in->arg[i].kind = r->in[k][i].kind;
            in->arg[i].idx = r->in[k][i].slot;
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
        in->arg[0].kind = r->in[k][0].kind;
        in->arg[0].idx = r->in[k][0].slot;
        in->arg[0].itemsize = (int)cpn_dtype_size(op->in[0]->dtype);
        in->dt = op->in[0]->dtype;
        in->acc_dt = out->dtype;
        in->rcode = (enum cpn_opcode)op->code;
        in->combine = cpn_kernel_elementwise(op->code, out->dtype);
        return;
    }
    struct cpn_fused_arg *o = &in->arg[in->narg - 1];
    o->kind = r->out[k].kind;
    o->idx = r->out[k].slot;
    o->itemsize = (int)cpn_dtype_size(out->dtype);
}

/* ---- executing a run -------------------------------------------------------------------------- */

static struct cpn_fused_prog prog;   /* the runtime is single-threaded outside kernels */
static bool on_dev;                  /* this run executes on the device backend */

/* The buffer a run binds for `s`: the host buffer, or the device copy when the run executes on
 * the device (`write`: the run writes it; `overwrite`: every element, reading none). */
static char *run_buffer(struct cpn_store *s, bool write, bool overwrite)
{
    if (on_dev) return cpn_store_device_data(s, write, overwrite);
    return overwrite ? cpn_store_data_for_overwrite(s) : cpn_store_data(s);
}

static int add_ext(const struct cpn_view *v, intptr_t base)
{
    int e = prog.next++;
    int64_t off;
    cpn_view_byte_layout(v, prog.ext_st[e], &off);
    prog.ext_base[e] = base + (intptr_t)off;
    return e;
}

int cpn_fusion_execute(struct cpn_op *ops, int n, int start, enum cpn_status *st)
{
    *st = CPN_OK;
    if (!cpn_fusion_enabled()) return 0;
    struct cpn_op *first = &ops[start];
    if (droppable(first, start)) {
        for (int k = 0; k < first->nout; k++) {
            const struct cpn_store *s = first->out[k]->store;
            stats.temporaries_elided += s->data == NULL;
            stats.bytes_elided += s->data == NULL ? s->size * (int64_t)cpn_dtype_size(s->dtype) : 0;
        }
        stats.ops_dropped++;
        return 1;
    }
    if (first->nout != 1 || cpn_view_size(first->out[0]) == 0) return 0;
    const int ndim = first->out[0]->ndim;
    const int64_t *shape = first->out[0]->shape;
    if (!pointwise_member(first, ndim, shape)) return 0;

    /* The run: as many following ops as fit, a reduction closing it. */
    static struct access acc[CPN_FUSED_MAXINSTR * OP_MAXVIEWS];
    int nacc = 0, len = 0;
    for (int j = start; j < n && len < CPN_FUSED_MAXINSTR; j++) {
        const struct cpn_op *op = &ops[j];
        bool red = reduce_member(op, ndim, shape);
        if (!red && !pointwise_member(op, ndim, shape)) break;
        if (conflicts(acc, nacc, op)) break;
        struct cpn_view *vs[OP_MAXVIEWS];
        bool w[OP_MAXVIEWS];
        int nv = op_views(op, vs, w);
        for (int k = 0; k < nv; k++) acc[nacc++] = (struct access){vs[k], w[k]};
        len++;
        if (red) break;
    }
    if (len < 2) return 0;

    /* Which stores live in registers: written entirely, first named by the writer, unowned,
     * named by nothing after the run, and always through the writer's view. */
    static struct run r;
    memset(&r, 0, sizeof r);
    r.start = start;
    r.len = len;
    const int end = start + len;
    int slot_of[CPN_FUSED_MAXINSTR];          /* op k's register, -1 */
    int slot_free_after[CPN_FUSED_MAXSLOTS];  /* queue index of the slot's last use */
    const struct cpn_store *slot_store[CPN_FUSED_MAXSLOTS];
    int nslots = 0;
    int32_t sig[SIG_MAX];
    int nsig = 0;
    sig[nsig++] = len;
    for (int k = 0; k < len; k++) {
        const struct cpn_op *op = &ops[start + k];
        slot_of[k] = -1;
        for (int i = 0; i < op->nin; i++) {
            r.in[k][i].kind = CPN_FARG_SCALAR;
            if (!op->in[i]) continue;
            r.in[k][i].kind = CPN_FARG_EXT;
            for (int s = 0; s < nslots; s++)
                if (slot_store[s] == op->in[i]->store && slot_free_after[s] >= start + k) {
                    r.in[k][i] = (struct operand){CPN_FARG_REG, s};
                    break;
                }
        }
        if (op->kind == CPN_OPK_REDUCE) {
            r.out[k].kind = CPN_FARG_EXT;
        } else {
            const struct cpn_view *ov = op->out[0];
            const struct cpn_store *s = ov->store;
            int reg = -1;
            for (int q = 0; q < nslots; q++)   /* an in-place update of a register */
                if (slot_store[q] == s && slot_free_after[q] >= start + k) reg = q;
            if (reg < 0 && !s->q_owned && s->q_first == start + k && s->q_last < end &&
                cpn_view_covers_store(ov)) {
                bool same = true;
                for (int j = start + k + 1; j <= s->q_last && same; j++) {
                    struct cpn_view *vs[OP_MAXVIEWS];
                    bool w[OP_MAXVIEWS];
                    int nv = op_views(&ops[j], vs, w);
                    for (int q = 0; q < nv; q++)
                        if (vs[q]->store == s && !cpn_view_same(vs[q], ov)) same = false;
                    if (ops[j].kind == CPN_OPK_REDUCE && ops[j].out[0]->store == s) same = false;
                }
                if (same && s->q_last == start + k) {
                    r.drop[k] = true;   /* never read: not computed */
                } else if (same) {
                    for (int q = 0; q < nslots && reg < 0; q++)
                        if (slot_free_after[q] < start + k) reg = q;
                    if (reg < 0 && nslots < CPN_FUSED_MAXSLOTS) reg = nslots++;
                    if (reg >= 0) {
                        slot_store[reg] = s;
                        slot_free_after[reg] = s->q_last;
                        stats.temporaries_elided++;
                        stats.bytes_elided += s->size * (int64_t)cpn_dtype_size(s->dtype);
                    }
                }
            }
            r.out[k] = reg >= 0 ? (struct operand){CPN_FARG_REG, reg} : (struct operand){CPN_FARG_EXT, 0};
            slot_of[k] = reg;
        }
        if (r.drop[k]) {
            stats.temporaries_elided++;
            stats.bytes_elided += op->out[0]->store->size * (int64_t)cpn_dtype_size(op->out[0]->dtype);
        }
        sig[nsig++] = op->kind | op->code << 4 | (int)op->dtype << 20 | r.drop[k] << 28;
        sig[nsig++] = op->nin | (int)op->out[0]->dtype << 4;
        for (int i = 0; i < op->nin; i++)
            sig[nsig++] = r.in[k][i].kind | r.in[k][i].slot << 4 |
                          (op->in[i] ? (int)op->in[i]->dtype : 31) << 12;
        sig[nsig++] = r.out[k].kind | r.out[k].slot << 4;
    }
    (void)slot_of;
    r.nslots = nslots;
    sig[nsig++] = nslots;

    /* The program template: cached by signature. */
    uint64_t h = sig_hash(sig, nsig);
    struct plan *p = NULL;
    for (int c = 0; c < CACHE_SIZE; c++)
        if (cache[c] && cache[c]->hash == h && cache[c]->nsig == nsig &&
            !memcmp(cache[c]->sig, sig, (size_t)nsig * sizeof *sig)) {
            p = cache[c];
            break;
        }
    if (p) {
        stats.plan_hits++;
    } else {
        p = cpn_alloc(sizeof *p);
        if (!p) {
            *st = CPN_ERR_NOMEM;
            return len;
        }
        p->nsig = nsig;
        memcpy(p->sig, sig, (size_t)nsig * sizeof *sig);
        p->hash = h;
        p->nslots = nslots;
        p->ninstr = 0;
        for (int k = 0; k < len; k++)
            if (!r.drop[k]) instr_template(&ops[start + k], &r, k, &p->instr[p->ninstr++]);
        if (cache[cache_next]) cpn_free(cache[cache_next]);
        cache[cache_next] = p;
        cache_next = (cache_next + 1) % CACHE_SIZE;
        stats.plans_built++;
    }

    /* Bind: buffers, strides, scalars, parameters. */
    prog.ninstr = p->ninstr;
    prog.nslots = p->nslots;
    memcpy(prog.instr, p->instr, (size_t)p->ninstr * sizeof *p->instr);
    prog.next = 0;
    prog.ndim = ndim;
    memcpy(prog.shape, shape, (size_t)ndim * sizeof *shape);
    prog.reduce_out = NULL;
    on_dev = cpn_backend_on_device() && cpn_backend_active()->supports_fused(&prog);
    int pi = 0;
    for (int k = 0; k < len; k++) {
        struct cpn_op *op = &ops[start + k];
        if (r.drop[k]) continue;
        struct cpn_fused_instr *in = &prog.instr[pi++];
        if (op->kind == CPN_OPK_REDUCE) {
            if (in->arg[0].kind == CPN_FARG_EXT) {
                char *b = run_buffer(op->in[0]->store, false, false);
                if (!b) goto nomem;
                in->arg[0].idx = add_ext(op->in[0], (intptr_t)b);
            }
            /* The accumulator goes to the host: the reduction's result is read there next. */
            prog.reduce_out = cpn_view_origin(op->out[0]);
            if (!prog.reduce_out) goto nomem;
            continue;
        }
        for (int i = 0; i < op->nin && in->kind == CPN_FI_LOOP; i++) {
            if (in->arg[i].kind == CPN_FARG_SCALAR) {
                in->arg[i].scalar = (const char *)op->scalar[i].bytes;
            } else if (in->arg[i].kind == CPN_FARG_EXT) {
                char *b = run_buffer(op->in[i]->store, false, false);
                if (!b) goto nomem;
                in->arg[i].idx = add_ext(op->in[i], (intptr_t)b);
            }
        }
        struct cpn_fused_arg *o = &in->arg[in->narg - 1];
        if (o->kind == CPN_FARG_EXT) {
            const struct cpn_store *s = op->out[0]->store;
            char *b = run_buffer(op->out[0]->store, true, s->q_first == start + k && cpn_op_overwrites(op));
            if (!b) goto nomem;
            o->idx = add_ext(op->out[0], (intptr_t)b);
        }
        if (in->kind == CPN_FI_RANDOM || in->kind == CPN_FI_ARANGE) {
            in->index_ext = add_ext(op->out[0], 0);
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
    if (prog.ninstr > 0) {
        struct cpn_kctx ctx = {0};
        *st = on_dev ? cpn_backend_active()->execute_fused(&prog) : cpn_kernel_fused(&prog, &ctx);
        if (*st == CPN_OK && ctx.err) *st = cpn_error(CPN_ERR_VALUE, "invalid value in a fused run");
    }
    stats.runs++;
    stats.ops_fused += len;
    return len;
nomem:
    *st = CPN_ERR_NOMEM;
    return len;
}
