/* queue.h: the rank's deferred op queue and its executor.
 *
 * API calls append ops; nothing is computed until a flush: when a value leaves the runtime
 * (the module calls cpn_queue_flush before reading a buffer), at cpn_sync, when the queue reaches
 * its length bound, and at exit.  Flush points are a deterministic function of the op sequence,
 * so every rank flushes at the same point (a precondition of the distribution design).
 *
 * Aliasing: an op whose output overlaps an input through a different view is evaluated into a
 * temporary and copied, so results equal NumPy's (which copies overlapping inputs). */
#ifndef CPN_QUEUE_H
#define CPN_QUEUE_H

#include "opsem.h"

/* Append a copy of `op`; the queue retains every view it names.  May flush (length bound), and
 * then returns that flush's status.  Collective. */
enum cpn_status cpn_queue_submit(const struct cpn_op *op);

/* Execute every queued op in order, then release them.  On the first failing op the remaining
 * ops are dropped and its status is returned, the message naming the op.  Collective. */
enum cpn_status cpn_queue_flush(void);

/* Number of ops waiting.  Local. */
int cpn_queue_length(void);

/* Execute one op now, ignoring the queue (used by the queue and by C tests); on several ranks
 * through the distributed executor (dist.h).  Collective. */
enum cpn_status cpn_op_execute(const struct cpn_op *op);
/* Execute one op on this rank's buffers as if they were whole stores: the single-process path,
 * also used for ops whose stores are all replicated.  Local. */
enum cpn_status cpn_op_execute_local(const struct cpn_op *op);

/* Counters since the last reset.  Local. */
struct cpn_queue_stats {
    int64_t ops_executed;
    int64_t flushes;
    int64_t temporaries;   /* aliasing temporaries made */
};
void cpn_queue_stats(struct cpn_queue_stats *out);
void cpn_queue_reset_stats(void);

#endif
