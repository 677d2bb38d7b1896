/* distroute.h: rows routed to their owners with their indices (issue #15). */
#ifndef CPN_DISTROUTE_H
#define CPN_DISTROUTE_H

#include <stddef.h>
#include <stdint.h>

#include "runtime.h"

/* Each of this rank's m entries j (a row of bbytes bytes at rows + j * bbytes, and an 8-byte
 * index lidx[j] into its owner's rows) goes to its owner own[j] (-1: a bad index; one allgather
 * of per-owner counts carries the flag, so every rank fails alike with CPN_ERR_INDEX), and this
 * rank receives the entries addressed to it: *count of them, their indices in *ridx and rows in
 * *rrows (allocated here; the caller frees both, also on failure), ordered by the sending ranks'
 * key[q] (ascending, ties by rank) and within one sender in its order -- so entries sent in the
 * order of a global index, each rank holding one range of it that key orders, arrive in that
 * order (NumPy's last-wins order of a[idx] = v).  Bytes sent: 8 + bbytes an entry, to its owner
 * only, plus the counts (O(ranks) a rank).  Collective. */
enum cpn_status cpn_route_rows(int64_t m, const int *own, const int64_t *lidx, const char *rows, size_t bbytes,
                               const int64_t *key, int tag, int64_t *count, int64_t **ridx, char **rrows);

#endif
