/* exec.h: the local executor (exec.c): one op on this rank's buffers, dispatched to the backend
 * that holds its data.  Called by the queue (one rank, or stores all replicated) and by the
 * distributed executor (a tile's op, dist.c). */
#ifndef CPN_EXEC_H
#define CPN_EXEC_H

#include "opsem.h"

struct cpn_fpreport;   /* kernels.h: what an op's loops found */

/* Execute one op on this rank's buffers as if they were whole stores: the single-process path,
 * also used for ops whose stores are all replicated.  What its loops found goes into *fp (zeroed
 * by the caller).  Local. */
enum cpn_status cpn_op_execute_local(const struct cpn_op *op, struct cpn_fpreport *fp);

#endif
