/* distselect.h: order statistics of a whole partitioned store (CPN_OPK_QUANTILE under
 * distribution) by a distributed selection (distselect.c). */
#ifndef CPN_DISTSELECT_H
#define CPN_DISTSELECT_H

#include <stdbool.h>

#include "opsem.h"
#include "status.h"

/* Does distselect.c compute this quantile op: every dimension of a tiled real store reduced, the
 * store walked whole in its own order, the output replicated or walked whole?  A pure function
 * of the op and the tilings, so every rank answers alike.  Local. */
bool cpn_distselect_applies(const struct cpn_op *op);

/* The op's results on every rank (each writing its part of the output): each rank sorts its own
 * values, the positions the results read are found by bisection over the order keys with counts
 * added across ranks, each position's element comes from the first rank holding it.  A few
 * kilobytes sent per rank whatever the size.  Collective. */
enum cpn_status cpn_distselect_execute(const struct cpn_op *op);

/* Does cpn_distselect_lanes_execute compute this quantile op: a tiled real store walked whole
 * in its own order, no tile cutting a reduced dimension, the output replicated?  A pure function
 * of the op and the tilings.  Local. */
bool cpn_distselect_lanes_applies(const struct cpn_op *op);

/* The op's results on every rank: each rank computes the lanes of its own tile (select.c's
 * kernel) and the results are allgathered into the replicated output.  Bytes sent per rank: its
 * part of the result.  Collective. */
enum cpn_status cpn_distselect_lanes_execute(const struct cpn_op *op);

#endif
