/* queue.c: the deferred op queue; it hands each op to the distributed executor (dist.c) or the
 * local one (exec.c).
 *
 * Ops are executed in submission order.  Each op's references are dropped as soon as it has run,
 * so a temporary's buffer is freed once its last consumer has executed (peak memory like
 * NumPy's eager evaluation, not the sum of every temporary of the flush). */
#include "queue.h"

#include <string.h>

#include "alloc.h"
#include "backend.h"
#include "comm.h"
#include "dist.h"
#include "exec.h"
#include "fperr.h"
#include "fused.h"
#include "fusion.h"
#include "kernels.h"
#include "partition.h"
#include "stats.h"

#define QUEUE_BOUND 512

static struct cpn_op *ops;
static int n_ops, cap_ops;

static void op_retain(const struct cpn_op *op)
{
    for (int i = 0; i < op->nin; i++) if (op->in[i]) cpn_view_retain(op->in[i]);
    for (int i = 0; i < op->nout; i++) if (op->out[i]) cpn_view_retain(op->out[i]);
}

static void op_release(struct cpn_op *op)
{
    for (int i = 0; i < op->nin; i++) cpn_view_release(op->in[i]);
    for (int i = 0; i < op->nout; i++) cpn_view_release(op->out[i]);
    memset(op, 0, sizeof *op);
}

enum cpn_status cpn_op_execute(const struct cpn_op *op, struct cpn_fpreport *fp)
{
    if (op->nout == 0 || cpn_view_size(op->out[0]) == 0) return CPN_OK;
    if (cpn_partition_ranks() > 1 && !cpn_dist_op_is_local(op)) return cpn_dist_execute(op, fp);
    return cpn_op_execute_local(op, fp);
}

enum cpn_status cpn_queue_submit(const struct cpn_op *op)
{
    if (n_ops == cap_ops) {
        int ncap = cap_ops ? 2 * cap_ops : 64;
        struct cpn_op *nops = cpn_alloc((size_t)ncap * sizeof *nops);
        if (!nops) return CPN_ERR_NOMEM;
        if (n_ops) memcpy(nops, ops, (size_t)n_ops * sizeof *ops);
        cpn_free(ops);
        ops = nops;
        cap_ops = ncap;
    }
    ops[n_ops] = *op;
    op_retain(&ops[n_ops]);
    n_ops++;
    if (n_ops >= QUEUE_BOUND) return cpn_queue_flush();
    return CPN_OK;
}

/* The first poisoned store an op reads, or NULL. */
static const struct cpn_store *poisoned_input(const struct cpn_op *op)
{
    for (int i = 0; i < op->nin; i++)
        if (op->in[i] && cpn_store_root(op->in[i]->store)->poison) return cpn_store_root(op->in[i]->store);
    return NULL;
}

/* Can `op` fail because of the values it reads (so on some ranks and not others)?  ops.def's
 * NEGEXP ops (integer power with a negative exponent). */
static bool may_fail_on_data(const struct cpn_op *op)
{
    return op->kind == CPN_OPK_ELEMENTWISE && cpn_op_fails_on_data(op->code, op->dtype);
}

/* Several ranks: a data-dependent failure on one rank is a failure on all, with the message of
 * the lowest failing rank, so that every rank poisons the same results and raises at the same
 * read.  Collective. */
static enum cpn_status agree(enum cpn_status st)
{
    int64_t winner = st != CPN_OK ? cpn_partition_rank() : INT64_MAX;
    char msg[512];
    snprintf(msg, sizeof msg, "%s", st != CPN_OK ? cpn_error_message() : "");
    CPN_TRY(cpn_comm_allreduce_min(&winner));
    if (winner == INT64_MAX) return CPN_OK;
    int64_t code = st;
    CPN_TRY(cpn_comm_bcast(&code, sizeof code, (int)winner));
    CPN_TRY(cpn_comm_bcast(msg, sizeof msg, (int)winner));
    msg[sizeof msg - 1] = '\0';
    return cpn_error((enum cpn_status)code, "%s", msg);
}

/* Record op's outcome: poison what a failure left without values, heal what it rewrote. */
static void settle(struct cpn_op *op, enum cpn_status st, const bool *had)
{
    for (int k = 0; k < op->nout; k++) {
        struct cpn_store *r = cpn_store_root(op->out[k]->store);
        if (st != CPN_OK) {
            if (!had[k]) cpn_store_poison(r, st, cpn_error_message());
        } else if (r->poison && cpn_view_covers_store(op->out[k])) {
            cpn_store_poison(r, CPN_OK, NULL);   /* fully rewritten: healthy again */
        }
    }
}

/* A failure message naming the op, once. */
static void name_failure(const struct cpn_op *op, enum cpn_status st)
{
    /* FloatingPointError carries NumPy's own text, unprefixed. */
    if (st != CPN_OK && st != CPN_ERR_FLOAT && !strstr(cpn_error_message(), "deferred operation")) {
        char msg[512];
        snprintf(msg, sizeof msg, "%s", cpn_error_message());
        cpn_error(st, "cupynum: deferred operation '%s' failed: %s", cpn_op_describe(op), msg);
    }
}

enum cpn_status cpn_queue_flush(void)
{
    const bool dist = cpn_partition_ranks() > 1;
    enum cpn_status first = CPN_OK;
    char first_msg[512] = "";
    if (n_ops == 0) return CPN_OK;
    cpn_stats.flushes++;
    const bool fuse = cpn_fusion_enabled();
    if (fuse) cpn_fusion_prepare(ops, n_ops);
    for (int i = 0; i < n_ops; i++) {
        struct cpn_op *op = &ops[i];
        /* An output that held values before keeps them when the op fails (NumPy's in-place
         * semantics: `a **= b` that raises leaves `a` readable); a fresh one is poisoned. */
        bool had[CPN_OP_MAXOUT];
        enum cpn_status st;
        int used = 0;
        if (fuse && !poisoned_input(op)) {
            /* A fused run (or a dropped op): settle each of its ops alike. */
            bool hads[CPN_FUSED_MAXINSTR + 1][CPN_OP_MAXOUT];
            struct cpn_fpreport run_fp[CPN_FUSED_MAXINSTR + 1];
            used = cpn_fusion_execute(ops, n_ops, i, &st, run_fp, hads);
            if (used > 0 && st != CPN_OK && first == CPN_OK) {
                first = st;
                snprintf(first_msg, sizeof first_msg, "%s", cpn_error_message());
            }
            for (int j = i; j < i + used; j++) {
                enum cpn_status sj = st;
                /* What each op's loops found inside the run, reported as if it ran alone. */
                if (sj == CPN_OK && first == CPN_OK && cpn_fperr_watches(&ops[j])) {
                    sj = cpn_fperr_end_op(&ops[j], &run_fp[j - i], dist);
                    if (sj != CPN_OK) {
                        first = sj;
                        snprintf(first_msg, sizeof first_msg, "%s", cpn_error_message());
                    }
                }
                name_failure(&ops[j], sj);
                settle(&ops[j], sj, hads[j - i]);
                if (sj == CPN_OK) cpn_stats.ops_executed++;
            }
            if (used > 0) {
                for (int j = i; j < i + used; j++) op_release(&ops[j]);
                i += used - 1;
                continue;
            }
        }
        for (int k = 0; k < op->nout; k++) had[k] = cpn_store_allocated(op->out[k]->store);
        const struct cpn_store *bad = poisoned_input(op);
        if (bad) {
            /* Depends on a failed result: fail the same way, without computing garbage.  Poison
             * is the same on every rank, so ranks skip together. */
            st = bad->poison;
            cpn_error(st, "%s", bad->poison_msg);
        } else {
            bool watched = cpn_fperr_watches(op);
            struct cpn_fpreport fp = {0};
            st = cpn_op_execute(op, &fp);
            if (dist && may_fail_on_data(op)) st = agree(st);
            /* After a failure ops report nothing, so the collective in end_op is skipped by every
             * rank alike (failures are agreed). */
            if (watched && st == CPN_OK && first == CPN_OK) st = cpn_fperr_end_op(op, &fp, dist);
            name_failure(op, st);
        }
        settle(op, st, had);
        if (st != CPN_OK && first == CPN_OK) {
            first = st;
            snprintf(first_msg, sizeof first_msg, "%s", cpn_error_message());
        }
        if (st == CPN_OK) cpn_stats.ops_executed++;
        op_release(op);   /* now: a temporary dies as soon as its last reader has run */
    }
    n_ops = 0;
    enum cpn_status fst = cpn_fperr_end_flush(dist);
    if (first == CPN_OK) return fst;
    cpn_error(first, "%s", first_msg);
    return first;
}

int cpn_queue_length(void) { return n_ops; }

bool cpn_queue_writes(const struct cpn_store *s)
{
    const struct cpn_store *r = cpn_store_root(s);
    for (int i = 0; i < n_ops; i++)
        for (int k = 0; k < ops[i].nout; k++)
            if (ops[i].out[k] && cpn_store_root(ops[i].out[k]->store) == r) return true;
    return false;
}

void cpn_stats_read(struct cpn_stats *out)
{
    *out = cpn_stats;
    out->queued = n_ops;   /* the queue's own length, not a copy kept beside it */
}

