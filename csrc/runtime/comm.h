/* comm.h: the transport between ranks: MPI when built with it and launched under a launcher,
 * nothing at all on one rank.
 *
 * Point-to-point traffic is split-phase (cpn_comm_post, then cpn_comm_wait) so that work can
 * overlap it.  Collectives are deterministic: the same bytes result on every rank. */
#ifndef CPN_COMM_H
#define CPN_COMM_H

#include <stddef.h>
#include <stdint.h>

#include "status.h"

struct cpn_msg {
    int peer;
    int tag;
    void *buf;
    size_t bytes;
};

/* This rank and the number of ranks (1 without MPI).  Local. */
int cpn_comm_rank(void);
int cpn_comm_size(void);

/* Post every receive, then every send; returns a handle for cpn_comm_wait (NULL when nothing was
 * posted).  Counts bytes and messages sent.  Collective in the sense that peers must post the
 * matching messages. */
enum cpn_status cpn_comm_post(int nrecv, const struct cpn_msg *recvs, int nsend,
                              const struct cpn_msg *sends, void **handle);
/* Complete what cpn_comm_post started and free the handle.  Local. */
enum cpn_status cpn_comm_wait(void *handle);

/* An all-to-all of byte pieces on cpn_comm_post: sbytes[b] bytes from sbuf + soff[b] to rank b,
 * rbytes[q] bytes from rank q into rbuf + roff[q] (this rank's own piece copied), every array
 * indexed by rank.  Collective in the sense that the peers must make the matching call. */
enum cpn_status cpn_comm_alltoallv(int tag, const char *sbuf, const int64_t *soff, const int64_t *sbytes,
                                   char *rbuf, const int64_t *roff, const int64_t *rbytes);

/* Every rank contributes `mine` (counts[rank] bytes); `all` receives the pieces in rank order
 * (counts[r] bytes each, back to back).  Collective. */
enum cpn_status cpn_comm_allgatherv(const void *mine, void *all, const size_t *counts);
/* The minimum of *v over all ranks, into *v.  Collective. */
enum cpn_status cpn_comm_allreduce_min(int64_t *v);
/* The bitwise OR of buf[0..n) over all ranks, into buf.  Collective. */
enum cpn_status cpn_comm_allreduce_or(uint32_t *buf, int n);
/* Wait for every rank.  Collective. */
enum cpn_status cpn_comm_barrier(void);
/* Broadcast `bytes` from `root`.  Collective. */
enum cpn_status cpn_comm_bcast(void *buf, size_t bytes, int root);
/* Set up what cpn_comm_leave needs (a communicator of its own).  Collective, at initialisation. */
void cpn_comm_init(void);
/* The end of the program on this rank: tell the others, then wait for every rank to end too.
 * A rank still waiting for this one in an exchange or collective aborts the job (comm.c).
 * Collective. */
enum cpn_status cpn_comm_leave(void);
/* Terminate every rank (after an uncaught error on one).  Local, does not return. */
void cpn_comm_abort(int code);

/* Count traffic another transport sent (the device transport, backend.h) in cpn_stats' bytes_sent
 * and messages_sent, beside what this file sends.  Local. */
void cpn_comm_count_sent(int64_t bytes, int64_t messages);

#endif
