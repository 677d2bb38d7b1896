/* transport.h: how the distributed executor (dist.c) moves and computes the pieces of an op on
 * tiled stores -- the halo/piece exchange behind one small interface, apart from the backends'
 * execution (backend.h).
 *
 * A transport says where a store's tile is read from, allocates and frees piece buffers, copies
 * n-dimensional boxes between buffers, posts and completes one exchange's messages, and computes
 * an element-wise op or a reduction's rank partial over a region of its buffers.  Two kinds:
 *   - the host transport (transport.c): host tiles and buffers, MPI through comm.c, the CPU
 *     kernels;
 *   - a device backend's (its `transport`, NULL for none): device copies of the tiles and device
 *     buffers, messages device to device (cuda/nccl.c: NCCL, or MPI staged through host buffers;
 *     backend_sim.c: MPI on its simulated device memory), the device's kernels.
 * dist.c runs one plan with either, so halos move device to device when the data are there.
 *
 * All functions are Local except xchg_post / xchg_wait, which are collective with the peers. */
#ifndef CPN_TRANSPORT_H
#define CPN_TRANSPORT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "status.h"

struct cpn_op;
struct cpn_msg;
struct cpn_store;
struct cpn_fpreport;

struct cpn_transport_i {
    bool device;                                  /* buffers in device memory */
    /* s's tile, current here, for reading; NULL: out of memory. */
    char *(*tile)(struct cpn_store *s);
    /* Piece buffers of n bytes (n > 0). */
    void *(*alloc)(size_t n);
    void (*release)(void *p, size_t n);
    /* An n-dimensional box of ext[0..n) elements of `item` bytes (n == 0: one element) from src
     * to dst, each pointing at the box's first element, with element strides. */
    enum cpn_status (*copy_region)(int n, const int64_t *ext, size_t item, void *dst,
                                   const int64_t *dst_st, const void *src, const int64_t *src_st);
    /* One exchange's messages, cpn_comm_post's and cpn_comm_wait's contracts (every rank posts an
     * exchange's messages in the same order; a peer's messages are matched in that order).  After
     * xchg_wait the received bytes are visible to later work.  xchg_wait(NULL) does nothing. */
    enum cpn_status (*xchg_post)(int nrecv, const struct cpn_msg *recvs, int nsend,
                                 const struct cpn_msg *sends, void **handle);
    enum cpn_status (*xchg_wait)(void *handle);
    /* Can compute_region run this element-wise op or cast?  (The same answer on every rank.) */
    bool (*region_supported)(const struct cpn_op *op);
    /* Run the op's loop over the ndim-dimensional region ext: ptr[0..nin] are the operands'
     * addresses at the region's origin (ptr[nin] the output; an input the op holds as an inline
     * scalar is ignored), strides[k] their byte strides.  What the loops found goes into *fp
     * (kernels.h); the regions of one op share one report (and its device word). */
    enum cpn_status (*compute_region)(const struct cpn_op *op, char *const *ptr, int ndim,
                                      const int64_t *ext, const int64_t *const *strides,
                                      struct cpn_fpreport *fp);
    /* A distributed REDUCE's rank partial: reduce the ndim-dimensional region ext (every
     * ext[d] > 0) at `in` (a tile here; byte strides in_st) over the dimensions set in op->axes,
     * op's input dtype into its output dtype, without op's initial value, into the HOST buffer
     * `part` at the region's kept positions (byte strides part_st over the kept dimensions, in
     * order), overwriting them (cpn_kernel_reduce's contract), findings into *fp.  Returns after
     * the results are on the host.  CPN_ERR_UNSUPPORTED (nothing written): the caller reduces a
     * host copy.  NULL: none. */
    enum cpn_status (*reduce_region)(const struct cpn_op *op, const char *in, int ndim, const int64_t *ext,
                                     const int64_t *in_st, char *part, const int64_t *part_st,
                                     struct cpn_fpreport *fp);
};

/* The host transport. */
const struct cpn_transport_i *cpn_transport_host(void);

/* For device backends' transports: a store's device copy current for reading. */
char *cpn_transport_device_tile(struct cpn_store *s);

#endif
