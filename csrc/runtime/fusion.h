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

struct cpn_fpreport;

/* Record the lifetimes of the views and stores named by ops[0..n) before they run, in the
 * flush's liveness table (fusion.c; views and stores are not written).  Call once per flush,
 * before cpn_fusion_execute; without memory for the table nothing of this flush is fused.
 * Local. */
void cpn_fusion_prepare(struct cpn_op *ops, int n);

/* Execute ops[start..] as one fused run, or drop ops[start] when its results are unreachable.
 * Returns the number of ops consumed (0: the caller executes ops[start] alone), with the run's
 * status in *st (on failure every op of the run failed with it), and in op_fp[k] (an array of
 * CPN_FUSED_MAXINSTR + 1) what the loops of op start+k found (kernels.h; nothing for ops that
 * were dropped or are not element-wise).  had[k][q] (an array of CPN_FUSED_MAXINSTR + 1) is set,
 * for the consumed ops only, to whether op start+k's output q held values before the run (what
 * the queue's settle keeps on failure); computed here, where the run's length is known, rather
 * than for every op the run might have reached.  The caller still releases the consumed ops.
 * Local. */
int cpn_fusion_execute(struct cpn_op *ops, int n, int start, enum cpn_status *st,
                       struct cpn_fpreport *op_fp, bool (*had)[CPN_OP_MAXOUT]);

/* Lend one Python reference to view v to the next flushes: liveness does not count it, as if the
 * array holding it had died.  For a temporary argument of a call that flushes before it returns
 * (fastpath.c: `np.sum(x * x)`), so the pending op writing it keeps its values in registers.
 * NULL ends the loan.  Local. */
void cpn_fusion_lend(const struct cpn_view *v);

/* Fusion on/off (initially on unless CUPYNUM_FUSION=0); returns the previous setting.  Local. */

bool cpn_fusion_set_enabled(bool on);
bool cpn_fusion_enabled(void);


#endif
