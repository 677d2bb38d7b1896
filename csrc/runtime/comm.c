/* comm.c: MPI behind comm.h.  Every MPI call goes through CPN_MPI_TRY, which turns a failure into
 * a status carrying MPI's error string, the expression, file and line. */
#include "comm.h"

#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "alloc.h"
#include "cpn_config.h"
#include "runtime.h"
#include "stats.h"
#if CPN_HAVE_MPI
#include <mpi.h>
#endif

int cpn_comm_rank(void) { return cpn_runtime_rank(); }
int cpn_comm_size(void) { return cpn_runtime_ranks(); }
void cpn_comm_count_sent(int64_t bytes, int64_t messages)
{
    cpn_stats.bytes_sent += bytes;
    cpn_stats.messages_sent += messages;
}

#if CPN_HAVE_MPI
#define CPN_MPI_TRY(expr)                                                                 \
    do {                                                                                  \
        int cpn_mpi_rc_ = (expr);                                                         \
        if (cpn_mpi_rc_ != MPI_SUCCESS) {                                                 \
            char cpn_mpi_msg_[MPI_MAX_ERROR_STRING];                                      \
            int cpn_mpi_len_ = 0;                                                         \
            MPI_Error_string(cpn_mpi_rc_, cpn_mpi_msg_, &cpn_mpi_len_);                   \
            return cpn_error(CPN_ERR_COMM, "MPI error in %s (%s:%d): %s", #expr, __FILE__, \
                             __LINE__, cpn_mpi_msg_);                                     \
        }                                                                                 \
    } while (0)

/* Large messages are cut so that counts fit MPI's int. */
#define CHUNK ((size_t)1 << 30)

struct handle {
    int n;
    int *peer;           /* the peer of each request */
    MPI_Request req[];
};

/* ---- ranks that leave ------------------------------------------------------------------------
 * A rank that reaches the end of the program (cpn_comm_leave) tells every other rank so
 * (a message with TAG_LEAVE) before it waits for them in the final barrier.  A rank that waits
 * for a request the leaver is part of (a collective, or a message to or from it) after that
 * notice is waiting for a rank that has gone: the leaver completed every request it posted, so
 * the request completes within message latency or never.  After CUPYNUM_EXIT_GRACE seconds
 * (default 3) it prints which rank left and aborts the job, instead of hanging in MPI. */
#define TAG_LEAVE 0

static MPI_Comm leave_comm = MPI_COMM_NULL;   /* notices and the final barrier: their own matching */
static int left_rank = -1;
static double left_at;

static double now_s(void)
{
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (double)t.tv_sec + 1e-9 * (double)t.tv_nsec;
}

static double exit_grace(void)
{
    const char *e = getenv("CUPYNUM_EXIT_GRACE");
    double g = e ? atof(e) : 3.0;
    return g > 0 ? g : 3.0;
}

/* Called while a wait polls: abort when a rank this wait needs has left. */
static void watch_leavers(const int *peer, int n, const char *what)
{
    if (leave_comm == MPI_COMM_NULL) return;
    if (left_rank < 0) {
        int flag = 0;
        MPI_Status stt;
        MPI_Iprobe(MPI_ANY_SOURCE, TAG_LEAVE, leave_comm, &flag, &stt);
        if (!flag) return;
        left_rank = stt.MPI_SOURCE;
        left_at = now_s();
    }
    bool needed = peer == NULL;
    for (int i = 0; !needed && i < n; i++) needed = peer[i] == left_rank;
    if (!needed || now_s() - left_at < exit_grace()) return;
    fprintf(stderr,
            "cupynum: rank %d left the program (it returned or exited) while rank %d waits for it "
            "in %s: aborting the job\n",
            left_rank, cpn_comm_rank(), what);
    fflush(stderr);
    MPI_Abort(MPI_COMM_WORLD, 1);
}

/* MPI_Waitall, polling, watching for ranks that left.  `peer` (n entries) names the peer of each
 * request; NULL for a collective (every rank takes part). */
static int wait_all(int n, MPI_Request *req, const int *peer, const char *what)
{
    unsigned spins = 0;
    for (;;) {
        int done = 0;
        int rc = MPI_Testall(n, req, &done, MPI_STATUSES_IGNORE);
        if (rc != MPI_SUCCESS || done) return rc;
        if ((++spins & 63) == 0) watch_leavers(peer, n, what);
    }
}

static int wait_one(MPI_Request *req, const char *what) { return wait_all(1, req, NULL, what); }

static int n_requests(int n, const struct cpn_msg *m)
{
    int total = 0;
    for (int i = 0; i < n; i++) total += (int)((m[i].bytes + CHUNK - 1) / CHUNK);
    return total;
}

enum cpn_status cpn_comm_post(int nrecv, const struct cpn_msg *recvs, int nsend,
                              const struct cpn_msg *sends, void **out)
{
    *out = NULL;
    int total = n_requests(nrecv, recvs) + n_requests(nsend, sends);
    if (total == 0) return CPN_OK;
    struct handle *h = cpn_alloc(sizeof *h + (size_t)total * (sizeof(MPI_Request) + sizeof(int)));
    if (!h) return CPN_ERR_NOMEM;
    h->n = 0;
    h->peer = (int *)(h->req + total);
    *out = h;
    for (int i = 0; i < nrecv; i++)
        for (size_t off = 0; off < recvs[i].bytes; off += CHUNK) {
            size_t len = recvs[i].bytes - off < CHUNK ? recvs[i].bytes - off : CHUNK;
            h->peer[h->n] = recvs[i].peer;
            CPN_MPI_TRY(MPI_Irecv((char *)recvs[i].buf + off, (int)len, MPI_BYTE, recvs[i].peer,
                                  recvs[i].tag, MPI_COMM_WORLD, &h->req[h->n++]));
        }
    for (int i = 0; i < nsend; i++) {
        for (size_t off = 0; off < sends[i].bytes; off += CHUNK) {
            size_t len = sends[i].bytes - off < CHUNK ? sends[i].bytes - off : CHUNK;
            h->peer[h->n] = sends[i].peer;
            CPN_MPI_TRY(MPI_Isend((char *)sends[i].buf + off, (int)len, MPI_BYTE, sends[i].peer,
                                  sends[i].tag, MPI_COMM_WORLD, &h->req[h->n++]));
            cpn_stats.messages_sent++;
        }
        cpn_stats.bytes_sent += (int64_t)sends[i].bytes;
    }
    return CPN_OK;
}

enum cpn_status cpn_comm_wait(void *handle)
{
    struct handle *h = handle;
    if (!h) return CPN_OK;
    int rc = wait_all(h->n, h->req, h->peer, "an exchange");
    cpn_free(h);
    CPN_MPI_TRY(rc);
    return CPN_OK;
}

enum cpn_status cpn_comm_allgatherv(const void *mine, void *all, const size_t *counts)
{
    int p = cpn_comm_size(), me = cpn_comm_rank();
    if (p == 1) {
        if (counts[0]) memmove(all, mine, counts[0]);
        return CPN_OK;
    }
    size_t total = 0;
    for (int r = 0; r < p; r++) total += counts[r];
    if (total < (size_t)1 << 31) {
        int *cnt = cpn_alloc(2 * (size_t)p * sizeof(int));
        if (!cnt) return CPN_ERR_NOMEM;
        int *disp = cnt + p;
        size_t off = 0;
        for (int r = 0; r < p; r++) {
            cnt[r] = (int)counts[r];
            disp[r] = (int)off;
            off += counts[r];
        }
        MPI_Request req;
        int rc = MPI_Iallgatherv(mine, cnt[me], MPI_BYTE, all, cnt, disp, MPI_BYTE, MPI_COMM_WORLD,
                                 &req);
        if (rc == MPI_SUCCESS) rc = wait_one(&req, "a gather");
        cpn_free(cnt);
        CPN_MPI_TRY(rc);
        cpn_stats.bytes_sent += (int64_t)counts[me] * (p - 1);
        cpn_stats.messages_sent += p - 1;
        return CPN_OK;
    }
    /* Huge gathers: one broadcast per rank, in chunks. */
    size_t off = 0;
    for (int r = 0; r < p; r++) {
        if (r == me && counts[r]) memmove((char *)all + off, mine, counts[r]);
        CPN_TRY(cpn_comm_bcast((char *)all + off, counts[r], r));
        off += counts[r];
    }
    return CPN_OK;
}

enum cpn_status cpn_comm_bcast(void *buf, size_t bytes, int root)
{
    if (cpn_comm_size() == 1) return CPN_OK;
    for (size_t off = 0; off < bytes; off += CHUNK) {
        size_t len = bytes - off < CHUNK ? bytes - off : CHUNK;
        MPI_Request req;
        CPN_MPI_TRY(MPI_Ibcast((char *)buf + off, (int)len, MPI_BYTE, root, MPI_COMM_WORLD, &req));
        CPN_MPI_TRY(wait_one(&req, "a broadcast"));
    }
    if (cpn_comm_rank() == root) {
        cpn_stats.bytes_sent += (int64_t)bytes;
        cpn_stats.messages_sent++;
    }
    return CPN_OK;
}

enum cpn_status cpn_comm_barrier(void)
{
    if (cpn_comm_size() == 1) return CPN_OK;
    MPI_Request req;
    CPN_MPI_TRY(MPI_Ibarrier(MPI_COMM_WORLD, &req));
    CPN_MPI_TRY(wait_one(&req, "a barrier"));
    return CPN_OK;
}

enum cpn_status cpn_comm_leave(void)
{
    int p = cpn_comm_size(), me = cpn_comm_rank();
    if (p == 1 || leave_comm == MPI_COMM_NULL) return CPN_OK;
    MPI_Request *req = cpn_alloc((size_t)p * sizeof *req);
    if (!req) return CPN_ERR_NOMEM;
    int n = 0, token = me;
    for (int r = 0; r < p; r++)
        if (r != me) CPN_MPI_TRY(MPI_Isend(&token, 1, MPI_INT, r, TAG_LEAVE, leave_comm, &req[n++]));
    /* The final barrier: no watch (the others leave too; one still working will come). */
    CPN_MPI_TRY(MPI_Ibarrier(leave_comm, &req[n]));
    CPN_MPI_TRY(MPI_Waitall(n + 1, req, MPI_STATUSES_IGNORE));
    /* Every rank has sent its notice: take them, so none is left unmatched. */
    for (int r = 0; r < p; r++) {
        int t;
        if (r != me) CPN_MPI_TRY(MPI_Recv(&t, 1, MPI_INT, r, TAG_LEAVE, leave_comm, MPI_STATUS_IGNORE));
    }
    cpn_free(req);
    MPI_Comm_free(&leave_comm);
    return CPN_OK;
}

void cpn_comm_init(void)
{
    if (leave_comm == MPI_COMM_NULL && cpn_comm_size() > 1) {
        MPI_Comm_dup(MPI_COMM_WORLD, &leave_comm);
        MPI_Comm_set_errhandler(leave_comm, MPI_ERRORS_RETURN);
    }
}

enum cpn_status cpn_comm_allreduce_min(int64_t *v)
{
    if (cpn_comm_size() == 1) return CPN_OK;
    int64_t in = *v;
    MPI_Request req;
    CPN_MPI_TRY(MPI_Iallreduce(&in, v, 1, MPI_INT64_T, MPI_MIN, MPI_COMM_WORLD, &req));
    CPN_MPI_TRY(wait_one(&req, "a reduction"));
    return CPN_OK;
}

enum cpn_status cpn_comm_allreduce_or(uint32_t *buf, int n)
{
    if (cpn_comm_size() == 1 || n == 0) return CPN_OK;
    MPI_Request req;
    CPN_MPI_TRY(MPI_Iallreduce(MPI_IN_PLACE, buf, n, MPI_UINT32_T, MPI_BOR, MPI_COMM_WORLD, &req));
    CPN_MPI_TRY(wait_one(&req, "a reduction"));
    return CPN_OK;
}

void cpn_comm_abort(int code)
{
    if (cpn_runtime_mpi_active()) MPI_Abort(MPI_COMM_WORLD, code);
    exit(code);
}

#else /* one rank, no MPI */

enum cpn_status cpn_comm_post(int nrecv, const struct cpn_msg *recvs, int nsend,
                              const struct cpn_msg *sends, void **out)
{
    *out = NULL;
    if (nrecv || nsend) return cpn_error(CPN_ERR_COMM, "no MPI: cannot exchange messages");
    return CPN_OK;
}
enum cpn_status cpn_comm_wait(void *handle) { return CPN_OK; }
enum cpn_status cpn_comm_allgatherv(const void *mine, void *all, const size_t *counts)
{
    if (counts[0]) memmove(all, mine, counts[0]);
    return CPN_OK;
}
enum cpn_status cpn_comm_bcast(void *buf, size_t bytes, int root) { return CPN_OK; }
enum cpn_status cpn_comm_allreduce_min(int64_t *v) { return CPN_OK; }
enum cpn_status cpn_comm_allreduce_or(uint32_t *buf, int n) { return CPN_OK; }
enum cpn_status cpn_comm_barrier(void) { return CPN_OK; }
enum cpn_status cpn_comm_leave(void) { return CPN_OK; }
void cpn_comm_init(void) {}
void cpn_comm_abort(int code) { exit(code); }

#endif

enum cpn_status cpn_comm_alltoallv(int tag, const char *sbuf, const int64_t *soff, const int64_t *sbytes,
                                   char *rbuf, const int64_t *roff, const int64_t *rbytes)
{
    const int P = cpn_comm_size(), me = cpn_comm_rank();
    struct cpn_msg *msgs = cpn_alloc((size_t)(2 * P) * sizeof *msgs);
    if (!msgs) return CPN_ERR_NOMEM;
    int nr = 0, ns = 0;
    for (int q = 0; q < P; q++)
        if (q != me && rbytes[q]) msgs[nr++] = (struct cpn_msg){q, tag, rbuf + roff[q], (size_t)rbytes[q]};
    for (int b = 0; b < P; b++)
        if (b != me && sbytes[b])
            msgs[nr + ns++] = (struct cpn_msg){b, tag, (void *)(sbuf + soff[b]), (size_t)sbytes[b]};
    void *h = NULL;
    enum cpn_status st = cpn_comm_post(nr, msgs, ns, msgs + nr, &h);
    if (sbytes[me]) memcpy(rbuf + roff[me], sbuf + soff[me], (size_t)sbytes[me]);
    if (st == CPN_OK) st = cpn_comm_wait(h);
    cpn_free(msgs);
    return st;
}
