/* distroute.c: rows routed to their owners with their indices (issue #15).
 *
 * SCATTER under distribution (a[idx] = v, ufunc.at, the flat route's element case) where the
 * index lies like the values (each rank holds the same range of both): a rank reads only its own
 * part of the index, and sends each of its value rows, with the row's index in its owner's
 * tile, to that owner alone; the owner applies what it receives in the index's order.  Nothing
 * reads the whole index (dist.c's unrouted path has every rank read all of it: 8 bytes an entry
 * from every rank, a figure that grows with the ranks). */
#include "distroute.h"

#include <string.h>

#include "alloc.h"
#include "comm.h"
#include "partition.h"
#include "status.h"

enum cpn_status cpn_route_rows(int64_t m, const int *own, const int64_t *lidx, const char *rows, size_t bbytes,
                               const int64_t *key, int tag, int64_t *count, int64_t **ridx, char **rrows)
{
    const int P = cpn_partition_ranks();
    *count = 0;
    *ridx = NULL;
    *rrows = NULL;
    int64_t *per = cpn_alloc((size_t)(P + 1) * sizeof *per), *cnt = cpn_alloc((size_t)P * (size_t)(P + 1) * sizeof *cnt);
    int64_t *off = cpn_alloc((size_t)(6 * P + 1) * sizeof *off);
    size_t *sizes = cpn_alloc((size_t)P * sizeof *sizes);
    int64_t *sidx = cpn_alloc((size_t)m * 8 + 8), *tidx = NULL;
    char *srows = cpn_alloc((size_t)m * bbytes + 1), *trows = NULL;
    int *src = cpn_alloc((size_t)P * sizeof *src);
    enum cpn_status st = per && cnt && off && sizes && sidx && srows && src ? CPN_OK : CPN_ERR_NOMEM;
    int64_t *soff = off, *sb = off + P, *roff = off + 2 * P, *rb = off + 3 * P, *fill = off + 4 * P,
            *rcnt = off + 5 * P;
    for (int q = 0; st == CPN_OK && q <= P; q++) per[q] = 0;
    for (int64_t j = 0; st == CPN_OK && j < m; j++) {
        if (own[j] < 0) per[P] = 1;
        else per[own[j]]++;
    }
    for (int q = 0; st == CPN_OK && q < P; q++) sizes[q] = (size_t)(P + 1) * sizeof *cnt;
    /* every rank takes part in the exchanges, also one whose part failed (peers wait for it) */
    if (st == CPN_OK) st = cpn_comm_allgatherv(per, cnt, sizes);   /* cnt[q * (P + 1) + b]: q sends b */
    for (int q = 0; st == CPN_OK && q < P; q++)
        if (cnt[q * (P + 1) + P]) st = cpn_error(CPN_ERR_INDEX, "scatter: an index is out of bounds");
    int64_t nrecv = 0, nsend = 0;
    for (int q = 0; st == CPN_OK && q < P; q++) {
        rcnt[q] = cnt[q * (P + 1) + cpn_partition_rank()];
        fill[q] = nsend;
        soff[q] = nsend;
        nsend += per[q];
        roff[q] = nrecv;
        nrecv += rcnt[q];
    }
    if (st == CPN_OK) {
        tidx = cpn_alloc((size_t)nrecv * 8 + 8);
        trows = cpn_alloc((size_t)nrecv * bbytes + 1);
        *ridx = cpn_alloc((size_t)nrecv * 8 + 8);
        *rrows = cpn_alloc((size_t)nrecv * bbytes + 1);
        if (!tidx || !trows || !*ridx || !*rrows) st = CPN_ERR_NOMEM;
    }
    if (st == CPN_OK) {
        /* grouped by owner, each group in this rank's order */
        for (int64_t j = 0; j < m; j++) {
            const int64_t at = fill[own[j]]++;
            sidx[at] = lidx[j];
            if (bbytes) memcpy(srows + (size_t)at * bbytes, rows + (size_t)j * bbytes, bbytes);
        }
        for (int q = 0; q < P; q++) {
            sb[q] = per[q] * 8;
            rb[q] = rcnt[q] * 8;
            soff[q] *= 8;
            roff[q] *= 8;
        }
        st = cpn_comm_alltoallv(tag, (const char *)sidx, soff, sb, (char *)tidx, roff, rb);
    }
    if (st == CPN_OK && bbytes) {
        for (int q = 0; q < P; q++) {
            sb[q] = sb[q] / 8 * (int64_t)bbytes;
            rb[q] = rb[q] / 8 * (int64_t)bbytes;
            soff[q] = soff[q] / 8 * (int64_t)bbytes;
            roff[q] = roff[q] / 8 * (int64_t)bbytes;
        }
        st = cpn_comm_alltoallv(tag + 1, srows, soff, sb, trows, roff, rb);
        for (int q = 0; q < P; q++) roff[q] /= (int64_t)bbytes;
    } else if (st == CPN_OK) {
        for (int q = 0; q < P; q++) roff[q] /= 8;
    }
    if (st == CPN_OK) {
        /* the senders in key order (insertion sort: P is small) */
        for (int q = 0; q < P; q++) {
            int i = q;
            while (i > 0 && key[src[i - 1]] > key[q]) {
                src[i] = src[i - 1];
                i--;
            }
            src[i] = q;
        }
        int64_t c = 0;
        for (int i = 0; i < P; i++) {
            const int q = src[i];
            memcpy(*ridx + c, tidx + roff[q], (size_t)rcnt[q] * 8);
            if (bbytes) memcpy(*rrows + (size_t)c * bbytes, trows + (size_t)roff[q] * bbytes, (size_t)rcnt[q] * bbytes);
            c += rcnt[q];
        }
        *count = c;
    }
    cpn_free(per);
    cpn_free(cnt);
    cpn_free(off);
    cpn_free(sizes);
    cpn_free(sidx);
    cpn_free(srows);
    cpn_free(tidx);
    cpn_free(trows);
    cpn_free(src);
    return st;
}
