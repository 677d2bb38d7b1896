/* samplesort.h: sorting along an axis of tiled stores (CPN_OPK_SORT under distribution). */
#ifndef CPN_SAMPLESORT_H
#define CPN_SAMPLESORT_H

#include "opsem.h"
#include "status.h"

/* Execute sort op `op` (kind CPN_OPK_SORT) on tiled stores: input and output walked whole, tiled
 * alike.  Along an axis no tile splits, each rank sorts its own tile's lanes (no message; a
 * lexsort step, nin == 2, only so); along the partitioned axis of a 1-D store, a sample sort
 * (samplesort.c).  Returns CPN_ERR_UNSUPPORTED, having done nothing, for anything else (the
 * caller gathers).  Collective. */
enum cpn_status cpn_samplesort_execute(const struct cpn_op *op);

/* Would sort ops along `axis` over views v[0..n) (one shape) run on each rank's own lanes: every
 * view walks a tiled store whole, the stores tiled alike, no tile cutting `axis`; or none is
 * tiled.  Local. */
bool cpn_samplesort_lanes_local(const struct cpn_view *const *v, int n, int axis);

/* Execute searchsorted op `op` (kind CPN_OPK_SEARCHSORTED, no sorter) whose sorted array is a
 * tiled 1-D store walked whole: each rank searches its tile, the positions are added across the
 * ranks (samplesort.c).  CPN_ERR_UNSUPPORTED, having done nothing, for anything else.
 * Collective. */
enum cpn_status cpn_searchsorted_dist_execute(const struct cpn_op *op);

/* Execute unique op `op` (kind CPN_OPK_UNIQUE: the count, values or counts of the runs, no
 * permutation) whose sorted input is a tiled 1-D store walked whole: runs found per tile, joined
 * across rank boundaries (samplesort.c).  CPN_ERR_UNSUPPORTED, having done nothing, for anything
 * else.  Collective. */
enum cpn_status cpn_unique_dist_execute(const struct cpn_op *op);

#endif
