/* fusion.h: fusing runs of the flushed queue into one pass over memory (fusion.c).
 *
 * At a flush the executor asks, op by op, whether the ops from there on form a run that can be
 * evaluated as one fused program (kernels/fused.h): element-wise ops, casts, random draws and
 * arange fills over one iteration shape, optionally closed by a full reduction whose result does
 * not depend on evaluation order (integer or bool accumulator).  Within a run, a store that the
 * run writes entirely, that nothing outside the run references (no Python array, no other queued
 * op) and that the run reads only through the writing view lives in a per-thread register block
 * and is never allocated.  An op whose outputs nobody can ever read is not executed at all.
 *
 * Every element goes through the same operations in the same order as unfused execution, so
 * results are bitwise equal.  A run never contains an op that accesses a store the run writes
 * through a different, overlapping view (`center[:] = average` after reads of `north`): such an
 * op ends the run and executes alone, after every read of the run.
 *
 * Distribution: only ops the distributed executor runs locally (all stores replicated, or one
 * rank) are fused or dropped, so the decisions never change communication. */
#ifndef CPN_FUSION_H
#define CPN_FUSION_H

#include <stdbool.h>

#include "opsem.h"
#include "status.h"

/* Record the lifetimes of the stores named by ops[0..n) (store.h q_* fields) before they run.
 * Local. */
void cpn_fusion_prepare(struct cpn_op *ops, int n);

/* Execute ops[start..] as one fused run, or drop ops[start] when its results are unreachable.
 * Returns the number of ops consumed (0: the caller executes ops[start] alone), with the run's
 * status in *st (on failure every op of the run failed with it).  The caller still releases the
 * consumed ops.  Local. */
int cpn_fusion_execute(struct cpn_op *ops, int n, int start, enum cpn_status *st);

/* Fusion on/off (initially on unless CUPYNUM_FUSION=0); returns the previous setting.  Local. */
/* What the loops of op start+k of the last executed run found (CPN_FPE_* bits: status flags,
 * the loops' own findings); 0 for ops that were dropped or are not element-wise.  Local. */
void cpn_fusion_op_fpe(int k, unsigned *hw, unsigned *sw);

bool cpn_fusion_set_enabled(bool on);
bool cpn_fusion_enabled(void);

struct cpn_fusion_stats {
    int64_t runs;                /* fused runs executed */
    int64_t ops_fused;           /* ops executed inside fused runs */
    int64_t temporaries_elided;  /* stores never allocated (registers or dropped ops) */
    int64_t bytes_elided;        /* their sizes */
    int64_t ops_dropped;         /* ops not executed: nothing could read their results */
    int64_t plans_built;         /* fused programs built */
    int64_t plan_hits;           /* fused programs taken from the cache */
    int64_t banded_runs;         /* of the runs, those written back band by band (no temporary) */
    int64_t dist_runs;           /* of the runs, those over tiled stores (exchanges first) */
    int64_t virtual_regenerated; /* reads of virtual stores computed again in registers */
};
void cpn_fusion_stats(struct cpn_fusion_stats *out);
void cpn_fusion_reset_stats(void);

#endif
