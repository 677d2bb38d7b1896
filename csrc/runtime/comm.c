/* comm.c: MPI behind comm.h.  Every MPI call goes through CPN_MPI_TRY, which turns a failure into
 * a status carrying MPI's error string, the expression, file and line. */
#include "comm.h"

#include <stdlib.h>
#include <string.h>

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
    MPI_Request req[];
};

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
    struct handle *h = cpn_alloc(sizeof *h + (size_t)total * sizeof(MPI_Request));
    if (!h) return CPN_ERR_NOMEM;
    h->n = 0;
    *out = h;
    for (int i = 0; i < nrecv; i++)
        for (size_t off = 0; off < recvs[i].bytes; off += CHUNK) {
            size_t len = recvs[i].bytes - off < CHUNK ? recvs[i].bytes - off : CHUNK;
            CPN_MPI_TRY(MPI_Irecv((char *)recvs[i].buf + off, (int)len, MPI_BYTE, recvs[i].peer,
                                  recvs[i].tag, MPI_COMM_WORLD, &h->req[h->n++]));
        }
    for (int i = 0; i < nsend; i++) {
        for (size_t off = 0; off < sends[i].bytes; off += CHUNK) {
            size_t len = sends[i].bytes - off < CHUNK ? sends[i].bytes - off : CHUNK;
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
    int rc = MPI_Waitall(h->n, h->req, MPI_STATUSES_IGNORE);
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
        int rc = MPI_Allgatherv(mine, cnt[me], MPI_BYTE, all, cnt, disp, MPI_BYTE, MPI_COMM_WORLD);
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
        CPN_MPI_TRY(MPI_Bcast((char *)buf + off, (int)len, MPI_BYTE, root, MPI_COMM_WORLD));
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
    CPN_MPI_TRY(MPI_Barrier(MPI_COMM_WORLD));
    return CPN_OK;
}

enum cpn_status cpn_comm_allreduce_min(int64_t *v)
{
    if (cpn_comm_size() == 1) return CPN_OK;
    int64_t in = *v;
    CPN_MPI_TRY(MPI_Allreduce(&in, v, 1, MPI_INT64_T, MPI_MIN, MPI_COMM_WORLD));
    return CPN_OK;
}

enum cpn_status cpn_comm_allreduce_or(uint32_t *buf, int n)
{
    if (cpn_comm_size() == 1 || n == 0) return CPN_OK;
    CPN_MPI_TRY(MPI_Allreduce(MPI_IN_PLACE, buf, n, MPI_UINT32_T, MPI_BOR, MPI_COMM_WORLD));
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
void cpn_comm_abort(int code) { exit(code); }

#endif
