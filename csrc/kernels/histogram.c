/* histogram.c: bincount, the counting kernel of numpy.bincount.
 *
 * The input is cut into a number of chunks that depends only on (n, nbins) -- never on the thread
 * count -- each chunk is counted into its own histogram (threads take chunks), and the chunk
 * histograms are added in chunk order.  So a weighted count rounds the same on any number of
 * threads or ranks (unweighted counts are exact anyway).  When the histograms of the chunks would
 * not be small next to the input (many bins), one sequential pass counts straight into the output,
 * which is NumPy's order.
 *
 * The caller has checked that every index lies in [0, nbins). */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "alloc.h"
#include "kernels.h"
#include "status.h"

#define CHUNK_MIN 32768   /* elements per chunk, at least */
#define CHUNKS_MAX 64

static void count_into(const char *idx, int64_t is, const char *w, int64_t ws, int64_t lo,
                       int64_t hi, char *out, int64_t os, bool weighted)
{
    if (weighted) {
        for (int64_t i = lo; i < hi; i++) {
            int64_t k = *(const int64_t *)(idx + i * is);
            *(double *)(out + k * os) += *(const double *)(w + i * ws);
        }
    } else {
        for (int64_t i = lo; i < hi; i++) {
            int64_t k = *(const int64_t *)(idx + i * is);
            *(int64_t *)(out + k * os) += 1;
        }
    }
}

int64_t cpn_kernel_bincount_chunk(int64_t n, int64_t nbins)
{
    int64_t nchunks = n / CHUNK_MIN;
    if (nchunks > CHUNKS_MAX) nchunks = CHUNKS_MAX;
    if (nchunks < 2 || nbins * nchunks > n / 4) return n > 0 ? n : 1;
    return (n + nchunks - 1) / nchunks;
}

void cpn_kernel_bincount_add(const char *idx, int64_t is, const char *w, int64_t ws, int64_t lo,
                             int64_t hi, char *out, int64_t os)
{
    count_into(idx, is, w, ws, lo, hi, out, os, w != NULL);
}

enum cpn_status cpn_kernel_bincount(const char *idx, int64_t is, const char *w, int64_t ws,
                                    int64_t n, char *out, int64_t os, int64_t nbins)
{
    const bool weighted = w != NULL;
    for (int64_t k = 0; k < nbins; k++) {   /* both dtypes are 8 bytes wide; 0.0 is all zeros */
        int64_t zero = 0;
        memcpy(out + k * os, &zero, sizeof zero);
    }
    const int64_t per = cpn_kernel_bincount_chunk(n, nbins);
    const int64_t nchunks = (n + per - 1) / per;
    if (nchunks < 2) {
        count_into(idx, is, w, ws, 0, n, out, os, weighted);
        return CPN_OK;
    }
    char *hist = cpn_alloc((size_t)(nchunks * nbins) * 8);
    if (!hist) return CPN_ERR_NOMEM;
    memset(hist, 0, (size_t)(nchunks * nbins) * 8);
    int nth = cpn_kernel_threads();
#pragma omp parallel for num_threads(nth) schedule(dynamic, 1) if (nth > 1)
    for (int64_t c = 0; c < nchunks; c++) {
        int64_t lo = c * per, hi = lo + per < n ? lo + per : n;
        count_into(idx, is, w, ws, lo, hi, hist + c * nbins * 8, 8, weighted);
    }
    for (int64_t c = 0; c < nchunks; c++) {
        const char *h = hist + c * nbins * 8;
        if (weighted)
            for (int64_t k = 0; k < nbins; k++) *(double *)(out + k * os) += ((const double *)h)[k];
        else
            for (int64_t k = 0; k < nbins; k++) *(int64_t *)(out + k * os) += ((const int64_t *)h)[k];
    }
    cpn_free(hist);
    return CPN_OK;
}

/* ---- numpy.histogram -------------------------------------------------------------------------------
 *
 * Uniform bins (NumPy's fast path, computed as its code computes it, in float64): an element v in
 * [first, last] goes to bin (int)(((v - first) / denom) * nbins), moved down or up one where the
 * edges (NumPy's linspace) say so, the last edge inclusive.  Bins given as edges: the bin whose
 * half-open interval holds the element's order key (the edges and the input of one dtype), the
 * last one closed: numpy.histogram's counts (its sorted-block searchsorted differences).  Counts
 * are exact in any order; weighted sums are formed as NumPy forms them, per block of 65536
 * elements in element order, the blocks' sums then added in block order, so the result is
 * NumPy's bit for bit on any thread count. */

#define HIST_BLOCK 65536

static inline int64_t uniform_bin(double v, double first, double last, double denom, int64_t nb,
                                  const double *edges)
{
    if (!(v >= first && v <= last)) return -1;
    int64_t i = (int64_t)(((v - first) / denom) * (double)nb);
    if (i == nb) i--;
    if (v < edges[i]) i--;
    else if (i != nb - 1 && v >= edges[i + 1]) i++;
    return i;
}

static inline int64_t edges_bin(enum cpn_dtype dt, const char *p, const char *e, int64_t es, int64_t nb)
{
    const uint64_t k = cpn_kernel_sort_key(dt, p);
    int64_t lo = 0, hi = nb + 1;   /* the number of edges not above k */
    while (lo < hi) {
        int64_t mid = lo + (hi - lo) / 2;
        if (cpn_kernel_sort_key(dt, e + mid * es) <= k) lo = mid + 1;
        else hi = mid;
    }
    if (lo == 0) return -1;
    if (lo == nb + 1) return cpn_kernel_sort_key(dt, e + nb * es) == k ? nb - 1 : -1;
    return lo - 1;
}

/* The uniform, unweighted count of a block, its loop free of the other cases' tests: the
 * quotient by denom taken as a product with nbins / denom -- within an ulp or two of NumPy's
 * ((v - first) / denom) * nbins, so within one bin, and the move against the edges that follows
 * lands both on the same bin (the edges decide). */
static void hist_uniform_counts(const struct cpn_hist_args *h, int64_t lo, int64_t hi, char *out,
                                int64_t os)
{
    const double first = h->first, last = h->last, scale = (double)h->nbins / h->denom;
    const double *edges = (const double *)h->edges;
    const int64_t nb = h->nbins, xs = h->xs;
    for (int64_t i = lo; i < hi; i++) {
        const double v = *(const double *)(h->x + i * xs);
        if (!(v >= first && v <= last)) continue;
        int64_t b = (int64_t)((v - first) * scale);
        if (b >= nb) b = nb - 1;
        if (b < 0) b = 0;
        if (v < edges[b]) b--;
        else if (b != nb - 1 && v >= edges[b + 1]) b++;
        *(int64_t *)(out + b * os) += 1;
    }
}

static void hist_block(const struct cpn_hist_args *h, int64_t lo, int64_t hi, char *out, int64_t os)
{
    if (h->uniform && !h->w && isfinite((double)h->nbins / h->denom)) {
        hist_uniform_counts(h, lo, hi, out, os);
        return;
    }
    for (int64_t i = lo; i < hi; i++) {
        const char *p = h->x + i * h->xs;
        int64_t b = h->uniform ? uniform_bin(*(const double *)p, h->first, h->last, h->denom, h->nbins,
                                             (const double *)h->edges)
                               : edges_bin(h->dt, p, h->edges, h->es, h->nbins);
        if (b < 0) continue;
        if (h->w) *(double *)(out + b * os) += *(const double *)(h->w + i * h->ws);
        else *(int64_t *)(out + b * os) += 1;
    }
}

enum cpn_status cpn_kernel_histogram(const struct cpn_hist_args *h, char *out, int64_t os)
{
    const int64_t nb = h->nbins, n = h->n;
    for (int64_t k = 0; k < nb; k++) memset(out + k * os, 0, 8);   /* int64 0 and 0.0 alike */
    const int64_t nblocks = (n + HIST_BLOCK - 1) / HIST_BLOCK;
    int nth = cpn_kernel_threads();
    if (nblocks < 2 || nth < 2 || nb * nblocks > (int64_t)1 << 24) {
        /* one pass, block by block (the weighted sums in NumPy's order) */
        char *tmp = h->w ? cpn_alloc((size_t)nb * 8 + 1) : NULL;
        if (h->w && !tmp) return CPN_ERR_NOMEM;
        for (int64_t c = 0; c < nblocks; c++) {
            int64_t lo = c * HIST_BLOCK, hi = lo + HIST_BLOCK < n ? lo + HIST_BLOCK : n;
            if (!h->w) {
                hist_block(h, lo, hi, out, os);
                continue;
            }
            memset(tmp, 0, (size_t)nb * 8);
            hist_block(h, lo, hi, tmp, 8);
            for (int64_t k = 0; k < nb; k++) *(double *)(out + k * os) += ((double *)tmp)[k];
        }
        cpn_free(tmp);
        return CPN_OK;
    }
    char *hist = cpn_alloc((size_t)(nblocks * nb) * 8);
    if (!hist) return CPN_ERR_NOMEM;
    memset(hist, 0, (size_t)(nblocks * nb) * 8);
#pragma omp parallel for num_threads(nth) schedule(dynamic, 1)
    for (int64_t c = 0; c < nblocks; c++) {
        int64_t lo = c * HIST_BLOCK, hi = lo + HIST_BLOCK < n ? lo + HIST_BLOCK : n;
        hist_block(h, lo, hi, hist + c * nb * 8, 8);
    }
    for (int64_t c = 0; c < nblocks; c++) {
        const char *b = hist + c * nb * 8;
        if (h->w)
            for (int64_t k = 0; k < nb; k++) *(double *)(out + k * os) += ((const double *)b)[k];
        else
            for (int64_t k = 0; k < nb; k++) *(int64_t *)(out + k * os) += ((const int64_t *)b)[k];
    }
    cpn_free(hist);
    return CPN_OK;
}
