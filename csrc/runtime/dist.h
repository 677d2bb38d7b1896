/* dist.h: executing ops on partitioned stores (owner computes) and moving values in and out.
 *
 * Every function here is Collective when the process has more than one rank: all ranks call it
 * for the same op or view, in the same order (the queue guarantees it: every rank builds the same
 * op sequence and flushes at the same points). */
#ifndef CPN_DIST_H
#define CPN_DIST_H

#include <stdbool.h>

#include "opsem.h"

/* Execute `op` on this rank's part of its output, exchanging the halo pieces its inputs need.
 * What this rank's loops found goes into *fp (queue.h's cpn_op_execute).  Collective. */
struct cpn_fpreport;
enum cpn_status cpn_dist_execute(const struct cpn_op *op, struct cpn_fpreport *fp);

/* Copy the elements of view `v` into `dst` (byte strides dst_strides per view dimension) on every
 * rank, gathering from the owners.  Collective. */
enum cpn_status cpn_dist_read(const struct cpn_view *v, char *dst, const int64_t *dst_strides);

/* Fill this rank's tile of root store `s` from a full C-ordered copy of its data.  Local. */
enum cpn_status cpn_dist_scatter(struct cpn_store *s, const void *full);

/* Is the op or view entirely on replicated stores (then the single-process path applies)? */
bool cpn_dist_op_is_local(const struct cpn_op *op);

/* Whether every rank's part of view v (of a tiled or replicated store) is a range of v's first
 * dimension, or none of v: GATHER and SCATTER then serve whole rows of v from their owners (the
 * advanced-indexing planner's test for a view whose elements do not lie in C order).  Local (a
 * pure function of the tilings). */
bool cpn_dist_row_parts(const struct cpn_view *v);
/* Whether views a and b (one shape) of tiled stores have the same box of view indices on every
 * rank: COMPACT of a where b is true then runs on each rank's own tiles.  Local. */
bool cpn_dist_parts_match(const struct cpn_view *a, const struct cpn_view *b);
/* Is `out` (a whole fresh store) tiled like the kept dimensions of `in` (after `lead` leading
 * dimensions of its own, whole in every tile: the quantiles), with no rank tile of in's store
 * cutting a reduced axis (`axes`)?  Then each rank reduces its own lanes into its own tile of out
 * (x.sum(axis=1), median(x, axis=1) of row slabs).  Local (a pure function of the tilings). */
bool cpn_dist_reduce_local(const struct cpn_view *in, uint64_t axes, const struct cpn_view *out, int lead);

/* ---- fused runs (fusion.c) over aligned tiles ----
 * A run of element-wise ops on tiled stores is fused when every op's work box (the view indices of
 * its output that this rank computes) is the same: the exchanges of all the run's ops are posted
 * first (xchg_begin, in queue order), the run is evaluated on the interior of the work box (where
 * every input is local: read in place from the tiles) while the messages fly, the exchanges are
 * completed (xchg_end), and the run is evaluated on the border, each external input read from its
 * tile or from a copy of the region's image (remote pieces in it) or of the op's whole need box
 * (an input on the output's store). */
struct cpn_dist_box {
    int64_t lo[CPN_MAXDIM], hi[CPN_MAXDIM];
};
#define CPN_DIST_MAXREG (1 + 2 * CPN_MAXDIM)
/* The regions of work box w: `in` (an interior within w) first, then the rest of w as at most
 * 2 ndim slabs; with in == NULL, w alone.  Returns how many (out holds CPN_DIST_MAXREG).  Local. */
int cpn_dist_regions(int ndim, const struct cpn_dist_box *w, const struct cpn_dist_box *in,
                     struct cpn_dist_box *out);
struct cpn_dist_work {
    bool work;                                  /* this rank computes something */
    int64_t lo[CPN_MAXDIM], hi[CPN_MAXDIM];     /* the work box, when work */
    bool interior;                              /* `in` holds the indices whose inputs are local */
    struct cpn_dist_box in;
    bool moves[CPN_OP_MAXIN];                   /* input k sends or receives pieces here */
    bool buffered[CPN_OP_MAXIN];                /* input k is read through a buffer copy */
};
/* 1 with *w filled when op takes the box path (its plan is cached, built on a miss); 0 when it
 * does not (local, gathered, or an error in *st).  Local (pure function of the op and tilings). */
int cpn_dist_run_info(const struct cpn_op *op, struct cpn_dist_work *w, enum cpn_status *st);
/* The partial `part` this rank computed of full reduction op (a fused run's closing reduction
 * over the rank's tile of its input: what exec_reduce computes locally) combined with the other
 * ranks' in rank order into op's output, as the unfused reduction does.  Collective. */
enum cpn_status cpn_dist_reduce_combine(const struct cpn_op *op, const char *part, struct cpn_fpreport *fp);
struct cpn_dist_xchg;
/* Post op's exchanges (a box-path op) and copy the local parts of its buffered inputs for the
 * `nreg` regions `reg` the op will be computed in (view indices of the output covering the work
 * box; the caller's array, read until the exchange is freed); *x is set (free it with
 * cpn_dist_xchg_free, also on failure).  With `device` (and a device backend with the device
 * transport, backend.h) the buffers and cpn_dist_xchg_input's addresses are device memory, else
 * host memory; every rank passes the same.  `snap` (or NULL): a root store the caller will
 * write over region 0 before it computes regions 1.. (a banded write-back computing its
 * interior while the messages fly): the inputs that read it are copied for regions 1.. now,
 * like a buffered input's local part, so those regions read the values from before.
 * Collective (with the peers). */
enum cpn_status cpn_dist_xchg_begin(const struct cpn_op *op, bool device, int nreg,
                                    const struct cpn_dist_box *reg, const struct cpn_store *snap,
                                    struct cpn_dist_xchg **x);
/* Wait for the exchange and unpack what arrived.  Collective (with the peers). */
enum cpn_status cpn_dist_xchg_end(struct cpn_dist_xchg *x);
void cpn_dist_xchg_free(struct cpn_dist_xchg *x);
/* Origin (region j's low corner) and byte strides of op input k for the fused kernel: before
 * xchg_end only for a region whose inputs are local; NULL when the tile's buffer cannot be
 * allocated.  Local. */
char *cpn_dist_xchg_input(struct cpn_dist_xchg *x, int k, int j, int64_t *byte_strides);
/* Origin and byte strides of view v at view index wlo in its tile buffer `base`.  Local. */
char *cpn_dist_tile_layout(const struct cpn_view *v, const int64_t *wlo, char *base,
                           int64_t *byte_strides);

/* For tests: the box plan this rank builds for an element-wise op (bypassing the cache).
 * Returns 1 with the plan described, 0 when the op takes the gather path, <0 on error. */
#define CPN_PLAN_INFO_MAX 64
struct cpn_plan_piece {
    int rank;
    int64_t lo[CPN_MAXDIM], hi[CPN_MAXDIM];
};
struct cpn_plan_info {
    int work;
    int64_t wlo[CPN_MAXDIM], whi[CPN_MAXDIM];
    int nrecv[CPN_OP_MAXIN], nsend[CPN_OP_MAXIN];
    struct cpn_plan_piece recv[CPN_OP_MAXIN][CPN_PLAN_INFO_MAX], send[CPN_OP_MAXIN][CPN_PLAN_INFO_MAX];
};
int cpn_dist_plan_info(const struct cpn_op *op, struct cpn_plan_info *info);

#endif
