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

struct cpn_fpreport;   /* kernels.h: what an op's loops found */

/* Append a copy of `op`; the queue retains every view it names.  May flush (length bound), and
 * then returns that flush's status.  Collective. */
enum cpn_status cpn_queue_submit(const struct cpn_op *op);

/* Execute every queued op in order, then release them.  On the first failing op the remaining
 * ops are dropped and its status is returned, the message naming the op.  Collective. */
enum cpn_status cpn_queue_flush(void);

/* Number of ops waiting.  Local. */
int cpn_queue_length(void);

/* Does a waiting op write (some view of) s's root store?  Scans the queue.  Local. */
bool cpn_queue_writes(const struct cpn_store *s);

/* Execute one op now, ignoring the queue (used by the queue and by C tests); on several ranks
 * through the distributed executor (dist.h).  What its loops found goes into *fp (kernels.h's
 * report, zeroed by the caller; this rank's findings only): host findings are ORed in, or a
 * device backend names its device report word.  Collective. */
enum cpn_status cpn_op_execute(const struct cpn_op *op, struct cpn_fpreport *fp);

/* Counted in cpn_stats (stats.h): ops_executed, flushes, temporaries (aliasing temporaries made). */

#endif
