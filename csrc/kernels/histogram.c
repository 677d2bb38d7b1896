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

enum cpn_status cpn_kernel_bincount(const char *idx, int64_t is, const char *w, int64_t ws,
                                    int64_t n, char *out, int64_t os, int64_t nbins)
{
    const bool weighted = w != NULL;
    for (int64_t k = 0; k < nbins; k++) {   /* both dtypes are 8 bytes wide; 0.0 is all zeros */
        int64_t zero = 0;
        memcpy(out + k * os, &zero, sizeof zero);
    }
    int64_t nchunks = n / CHUNK_MIN;
    if (nchunks > CHUNKS_MAX) nchunks = CHUNKS_MAX;
    if (nchunks < 2 || nbins * nchunks > n / 4) {
        count_into(idx, is, w, ws, 0, n, out, os, weighted);
        return CPN_OK;
    }
    const int64_t per = (n + nchunks - 1) / nchunks;
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
