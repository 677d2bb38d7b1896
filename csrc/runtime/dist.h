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

/* ---- fused runs (fusion.c) over aligned tiles ----
 * A run of element-wise ops on tiled stores is fused when every op's work box (the view indices of
 * its output that this rank computes) is the same: the exchanges of all the run's ops are posted
 * first (xchg_begin, in queue order), completed (xchg_end), then the run is evaluated on the work
 * box, each external input read from its op's exchange buffer or the local tile. */
struct cpn_dist_work {
    bool work;                                  /* this rank computes something */
    int64_t lo[CPN_MAXDIM], hi[CPN_MAXDIM];     /* the work box, when work */
    bool moves[CPN_OP_MAXIN];                   /* input k sends or receives pieces here */
    bool buffered[CPN_OP_MAXIN];                /* input k is read through a buffer copy */
};
/* 1 with *w filled when op takes the box path (its plan is cached, built on a miss); 0 when it
 * does not (local, gathered, or an error in *st).  Local (pure function of the op and tilings). */
int cpn_dist_run_info(const struct cpn_op *op, struct cpn_dist_work *w, enum cpn_status *st);
struct cpn_dist_xchg;
/* Post op's exchanges (a box-path op) and copy the local parts of its buffered inputs; *x is set
 * (free it with cpn_dist_xchg_free, also on failure).  With `device` (and a device backend with
 * the device transport, backend.h) the buffers and cpn_dist_xchg_input's addresses are device
 * memory, else host memory; every rank passes the same.  Collective (with the peers). */
enum cpn_status cpn_dist_xchg_begin(const struct cpn_op *op, bool device, struct cpn_dist_xchg **x);
/* Wait for the exchange and unpack what arrived.  Collective (with the peers). */
enum cpn_status cpn_dist_xchg_end(struct cpn_dist_xchg *x);
void cpn_dist_xchg_free(struct cpn_dist_xchg *x);
/* Origin (work box's low corner) and byte strides of op input k for the fused kernel.  Local. */
char *cpn_dist_xchg_input(const struct cpn_dist_xchg *x, int k, int64_t *byte_strides);
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
