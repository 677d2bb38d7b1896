/* compact.c: stream compaction, the kernels of boolean selection (`a[mask]`, nonzero, argwhere,
 * extract, compress).
 *
 * The compaction kernels walk an n-d strided mask in C order.  The walk is cut into chunks of whole
 * innermost rows whose number depends only on the shape (never on the thread count); threads
 * count the true elements of each chunk, an exclusive prefix sum over the chunks gives each
 * chunk's first output position, and threads then write.  The output is therefore the same on
 * any number of threads (it is a copy: order is all there is).
 *
 * The mask is read as bytes, non-zero is true (the module hands bool arrays).
 *
 * Gather and scatter (integer-array indexing) copy blocks of the source's trailing dimensions per
 * index; the scatter runs in index order, so a repeated index keeps the last value (NumPy's
 * assignment). */
#include <fenv.h>
#ifdef _OPENMP
#include <omp.h>
#endif
#include <string.h>

#include "alloc.h"
#include "kernels.h"
#include "status.h"

#define CHUNK_MIN 65536   /* elements per chunk, at least */
#define CHUNKS_MAX 256

/* The C-order walk over all but the innermost dimension: row r's byte offsets. */
static void row_offsets(int ndim, const int64_t *shape, const int64_t *const *strides, int nst,
                        int64_t r, int64_t *off)
{
    for (int k = 0; k < nst; k++) off[k] = 0;
    for (int d = ndim - 2; d >= 0; d--) {
        int64_t i = r % shape[d];
        r /= shape[d];
        for (int k = 0; k < nst; k++) off[k] += i * strides[k][d];
    }
}

static int64_t count_rows(int ndim, const int64_t *shape, const char *mask, const int64_t *mst,
                          int64_t r0, int64_t r1)
{
    const int64_t len = shape[ndim - 1], ms = mst[ndim - 1];
    const int64_t *sts[1] = {mst};
    int64_t n = 0;
    for (int64_t r = r0; r < r1; r++) {
        int64_t off;
        row_offsets(ndim, shape, sts, 1, r, &off);
        n += (int64_t)cpn_kernel_count_nonzero_bytes(mask + off, ms, len);
    }
    return n;
}

/* Chunks of whole rows: (rows, chunk count, rows per chunk). */
static int chunking(int ndim, const int64_t *shape, int64_t *rows, int64_t *per)
{
    int64_t r = 1;
    for (int d = 0; d < ndim - 1; d++) r *= shape[d];
    const int64_t len = shape[ndim - 1] ? shape[ndim - 1] : 1;
    int64_t want = r * len / CHUNK_MIN;
    if (want < 1) want = 1;
    if (want > CHUNKS_MAX) want = CHUNKS_MAX;
    if (want > r) want = r ? r : 1;
    *rows = r;
    *per = (r + want - 1) / want;
    if (*per < 1) *per = 1;
    return (int)((r + *per - 1) / *per);
}

/* Each chunk's first output position (starts[c]) and the total; NULL starts on no memory. */
static int64_t *chunk_starts(int ndim, const int64_t *shape, const char *mask, const int64_t *mst,
                             int nch, int64_t rows, int64_t per, int64_t *total)
{
    int64_t *starts = cpn_alloc((size_t)(nch + 1) * sizeof *starts);
    if (!starts) return NULL;
    int nth = cpn_kernel_threads();
#pragma omp parallel for num_threads(nth) schedule(dynamic, 1) if (nth > 1 && nch > 1)
    for (int c = 0; c < nch; c++) {
        int64_t r0 = c * per, r1 = r0 + per < rows ? r0 + per : rows;
        starts[c + 1] = count_rows(ndim, shape, mask, mst, r0, r1);
    }
    starts[0] = 0;
    for (int c = 0; c < nch; c++) starts[c + 1] += starts[c];
    *total = starts[nch];
    return starts;
}

int64_t cpn_kernel_count_true(int ndim, const int64_t *shape, const char *mask, const int64_t *mst)
{
    if (ndim == 0) return mask[0] != 0;
    for (int d = 0; d < ndim; d++) if (shape[d] == 0) return 0;
    int64_t rows, per;
    int nch = chunking(ndim, shape, &rows, &per);
    int64_t total = 0;
    for (int c = 0; c < nch; c++) {
        int64_t r0 = c * per, r1 = r0 + per < rows ? r0 + per : rows;
        total += count_rows(ndim, shape, mask, mst, r0, r1);
    }
    return total;
}

/* Branch-free: every element is stored at the next slot (a false one is overwritten by the
 * next true one) and the slot advances past the true ones; a random mask would mispredict.  The
 * chunk's last slot bounds the stores (the next chunk's slots belong to another thread). */
#define COPY_ROW(T)                                                                     \
    do {                                                                                \
        T *o = (T *)out, *const oe = (T *)end;                                          \
        for (int64_t i = 0; i < len; i++) {                                             \
            const T v = *(const T *)(s + i * ss);                                       \
            if (o < oe) *o = v;                                                         \
            o += m[i * ms] != 0;                                                        \
        }                                                                               \
        out = (char *)o;                                                                \
    } while (0)

static void compact_rows(size_t item, int ndim, const int64_t *shape, const char *src,
                         const int64_t *sst, const char *mask, const int64_t *mst, int64_t r0,
                         int64_t r1, char *out, char *end)
{
    const int64_t len = shape[ndim - 1], ms = mst[ndim - 1], ss = sst[ndim - 1];
    const int64_t *sts[2] = {sst, mst};
    for (int64_t r = r0; r < r1; r++) {
        int64_t off[2];
        row_offsets(ndim, shape, sts, 2, r, off);
        const char *s = src + off[0], *m = mask + off[1];
        switch (item) {
        case 1: COPY_ROW(uint8_t); break;
        case 2: COPY_ROW(uint16_t); break;
        case 4: COPY_ROW(uint32_t); break;
        case 8: COPY_ROW(uint64_t); break;
        default:
            for (int64_t i = 0; i < len; i++)
                if (m[i * ms]) {
                    memcpy(out, s + i * ss, item);
                    out += item;
                }
        }
    }
}

enum cpn_status cpn_kernel_compact(size_t item, int ndim, const int64_t *shape, const char *src,
                                   const int64_t *sst, const char *mask, const int64_t *mst,
                                   char *out, int64_t count)
{
    if (ndim == 0) {
        if (mask[0]) memcpy(out, src, item);
        return CPN_OK;
    }
    for (int d = 0; d < ndim; d++) if (shape[d] == 0) return CPN_OK;
    int64_t rows, per, total;
    int nch = chunking(ndim, shape, &rows, &per);
    int64_t *starts = chunk_starts(ndim, shape, mask, mst, nch, rows, per, &total);
    if (!starts) return CPN_ERR_NOMEM;
    if (total != count) {
        cpn_free(starts);
        return cpn_error(CPN_ERR_INTERNAL, "compact: the mask holds %lld true elements, not %lld",
                         (long long)total, (long long)count);
    }
    int nth = cpn_kernel_threads();
#pragma omp parallel for num_threads(nth) schedule(dynamic, 1) if (nth > 1 && nch > 1)
    for (int c = 0; c < nch; c++) {
        int64_t r0 = c * per, r1 = r0 + per < rows ? r0 + per : rows;
        compact_rows(item, ndim, shape, src, sst, mask, mst, r0, r1, out + starts[c] * (int64_t)item,
                     out + starts[c + 1] * (int64_t)item);
    }
    cpn_free(starts);
    return CPN_OK;
}

enum cpn_status cpn_kernel_nonzero(int ndim, const int64_t *shape, const char *mask,
                                   const int64_t *mst, int64_t *out, int64_t count)
{
    if (ndim == 0) return CPN_OK;
    for (int d = 0; d < ndim; d++) if (shape[d] == 0) return CPN_OK;
    int64_t rows, per, total;
    int nch = chunking(ndim, shape, &rows, &per);
    int64_t *starts = chunk_starts(ndim, shape, mask, mst, nch, rows, per, &total);
    if (!starts) return CPN_ERR_NOMEM;
    if (total != count) {
        cpn_free(starts);
        return cpn_error(CPN_ERR_INTERNAL, "nonzero: the mask holds %lld true elements, not %lld",
                         (long long)total, (long long)count);
    }
    const int64_t len = shape[ndim - 1], ms = mst[ndim - 1];
    int nth = cpn_kernel_threads();
#pragma omp parallel for num_threads(nth) schedule(dynamic, 1) if (nth > 1 && nch > 1)
    for (int c = 0; c < nch; c++) {
        int64_t r0 = c * per, r1 = r0 + per < rows ? r0 + per : rows, j = starts[c];
        const int64_t jend = c + 1 < nch ? starts[c + 1] : count;   /* this chunk's slots */
        const int64_t *sts[1] = {mst};
        for (int64_t r = r0; r < r1; r++) {
            int64_t off, idx[CPN_MAXDIM], q = r;
            row_offsets(ndim, shape, sts, 1, r, &off);
            for (int d = ndim - 2; d >= 0; d--) {
                idx[d] = q % shape[d];
                q /= shape[d];
            }
            const char *m = mask + off;
            /* branch-free: every element writes slot j (a false one is overwritten by the next
             * true one), and j advances past the true ones; a random mask would mispredict */
            int64_t i = 0;
            if (ndim == 1 && ms == 1) {
                /* 8 elements at a time while 8 slots are left to the chunk: no slot test (1-d
                 * nonzero of 10^7 random bools on one thread: the kernel's time down by a third) */
                for (; i + 8 <= len && jend - j >= 8; i += 8)
                    for (int k = 0; k < 8; k++) {
                        out[j] = i + k;
                        j += m[i + k] != 0;
                    }
            }
            for (; i < len; i++) {
                const int64_t t = m[i * ms] != 0;
                if (j < jend) {
                    for (int d = 0; d < ndim - 1; d++) out[d * count + j] = idx[d];
                    out[(ndim - 1) * count + j] = i;
                }
                j += t;
            }
        }
    }
    cpn_free(starts);
    return CPN_OK;
}

/* ---- gather: the elements named by an index array (integer-array indexing, take) ---------- */

/* Rows read or written in index order are random accesses: the row PREFETCH indices ahead is
 * prefetched so that the misses overlap (a loop of calls keeps few in flight by itself). */
#define PREFETCH 64
static inline void prefetch_row(const char *base, int64_t st0, int64_t n, const char *ip, int write)
{
    int64_t k = *(const int64_t *)ip;
    if (k < 0) k += n;
    if (k < 0 || k >= n) return;
    if (write) __builtin_prefetch(base + k * st0, 1);
    else __builtin_prefetch(base + k * st0, 0);
}

/* One element of `item` bytes: a fixed-size copy the compiler inlines (a libc call per element
 * costs more than the copy). */
static inline void copy_item(char *dst, const char *src, size_t item)
{
    switch (item) {
    case 1: *dst = *src; return;
    case 2: memcpy(dst, src, 2); return;
    case 4: memcpy(dst, src, 4); return;
    case 8: memcpy(dst, src, 8); return;
    case 16: memcpy(dst, src, 16); return;
    default: memcpy(dst, src, item); return;
    }
}

enum cpn_status cpn_kernel_gather(size_t item, int ndim, const int64_t *shape, const char *src,
                                  const int64_t *sst, const char *idx, int64_t ist, int64_t m,
                                  char *out)
{
    const int64_t n = shape[0];
    int64_t block = 1, rows = 1;
    for (int d = 1; d < ndim; d++) block *= shape[d];
    for (int d = 1; d < ndim - 1; d++) rows *= shape[d];
    if (block == 0 || m == 0) return CPN_OK;
    const int64_t len = ndim > 1 ? shape[ndim - 1] : 1, ls = ndim > 1 ? sst[ndim - 1] : 0;
    const int64_t bytes = block * (int64_t)item;
    int bad = 0;
    int nth = cpn_kernel_threads();
#pragma omp parallel for num_threads(nth) schedule(static) if (nth > 1 && m * block > 32768) reduction(|: bad)
    for (int64_t j = 0; j < m; j++) {
        int64_t k = *(const int64_t *)(idx + j * ist);
        if (j + PREFETCH < m) prefetch_row(src, sst[0], n, idx + (j + PREFETCH) * ist, 0);
        if (k < 0) k += n;
        if (k < 0 || k >= n) {
            bad = 1;
            continue;
        }
        const char *s = src + k * sst[0];
        char *o = out + j * bytes;
        if (ndim == 1) {
            copy_item(o, s, item);
            continue;
        }
        for (int64_t r = 0; r < rows; r++) {
            int64_t off = 0, q = r;
            for (int d = ndim - 2; d >= 1; d--) {
                off += (q % shape[d]) * sst[d];
                q /= shape[d];
            }
            const char *sr = s + off;
            if (ls == (int64_t)item) {
                memcpy(o, sr, (size_t)(len * (int64_t)item));
                o += len * (int64_t)item;
            } else {
                for (int64_t i = 0; i < len; i++, o += item) memcpy(o, sr + i * ls, item);
            }
        }
    }
    return bad ? cpn_error(CPN_ERR_INDEX, "gather: an index is out of bounds for size %lld",
                           (long long)n)
               : CPN_OK;
}

/* ---- scatter: dst[idx[j]] = values[j], in j order (NumPy's last-wins for repeats) ----------- */

enum cpn_status cpn_kernel_scatter(size_t item, int ndim, const int64_t *shape, char *dst,
                                   const int64_t *dst_st, const char *val, const int64_t *val_st,
                                   const char *idx, int64_t ist, int64_t m)
{
    const int64_t n = shape[0];
    int64_t block = 1;
    for (int d = 1; d < ndim; d++) block *= shape[d];
    if (block == 0 || m == 0) return CPN_OK;
    if (ndim == 1) {
        for (int64_t j = 0; j < m; j++) {   /* sequential: a later repeat overwrites an earlier one */
            int64_t k = *(const int64_t *)(idx + j * ist);
            if (j + PREFETCH < m) prefetch_row(dst, dst_st[0], n, idx + (j + PREFETCH) * ist, 1);
            if (k < 0) k += n;
            if (k < 0 || k >= n)
                return cpn_error(CPN_ERR_INDEX, "scatter: an index is out of bounds for size %lld",
                                 (long long)n);
            copy_item(dst + k * dst_st[0], val + j * val_st[0], item);
        }
        return CPN_OK;
    }
    for (int64_t j = 0; j < m; j++) {   /* sequential: a later repeat overwrites an earlier one */
        int64_t k = *(const int64_t *)(idx + j * ist);
        if (k < 0) k += n;
        if (k < 0 || k >= n)
            return cpn_error(CPN_ERR_INDEX, "scatter: an index is out of bounds for size %lld",
                             (long long)n);
        char *o = dst + k * dst_st[0];
        const char *v = val + j * val_st[0];
        for (int64_t e = 0; e < block; e++) {
            int64_t q = e, od = 0, vd = 0;
            for (int d = ndim - 1; d >= 1; d--) {
                int64_t i = q % shape[d];
                q /= shape[d];
                od += i * dst_st[d];
                vd += i * val_st[d];
            }
            copy_item(o + od, v + vd, item);
        }
    }
    return CPN_OK;
}

/* One thread: the applications are random read-modify-writes whose misses one thread's prefetch
 * already overlaps.  (Threads each taking a range of dst and scanning the whole list lost: the
 * range test mispredicted one index in two, and 2 threads took 3.5x one thread's CPU time and
 * more wall time; bucketing the indices by range first, so each thread applied only its own, still
 * took 2.7x the CPU time and no less wall time than one thread on the 2-core machine, the
 * buckets' writes costing what the second thread saved.) */
static enum cpn_status scatter_at(cpn_at_fn at, int nin, int64_t n, char *dst, int64_t ds,
                                  const char *val, int64_t vs, const char *idx, int64_t ist,
                                  int64_t m, struct cpn_kctx *ctx)
{
    cpn_kernel_fpe_clear();
    int64_t bad = at(dst, n, ds, val, nin == 2 ? vs : 0, idx, ist, m, ctx);
    ctx->hw |= cpn_kernel_fpe_status();
    return bad >= 0 ? cpn_error(CPN_ERR_INDEX, "scatter: an index is out of bounds for size %lld",
                                (long long)n)
                    : CPN_OK;
}

enum cpn_status cpn_kernel_scatter_apply(cpn_at_fn at, cpn_loop_fn fn, int nin, int ndim,
                                         const int64_t *shape, char *dst, const int64_t *dst_st,
                                         const char *val, const int64_t *val_st, const char *idx,
                                         int64_t ist, int64_t m, struct cpn_kctx *ctx)
{
    const int64_t n = shape[0];
    if (at && ndim == 1 && m > 0)
        return scatter_at(at, nin, n, dst, dst_st[0], val, val_st ? val_st[0] : 0, idx, ist, m, ctx);
    int64_t rows = 1;
    for (int d = 1; d < ndim - 1; d++) rows *= shape[d];
    const int64_t len = ndim > 1 ? shape[ndim - 1] : 1;
    if (m == 0 || len == 0 || rows == 0) return CPN_OK;
    int64_t st[3] = {ndim > 1 ? dst_st[ndim - 1] : 0, ndim > 1 ? dst_st[ndim - 1] : 0, 0};
    if (nin == 2) {
        st[1] = ndim > 1 ? val_st[ndim - 1] : 0;
        st[2] = st[0];
    }
    cpn_kernel_fpe_clear();
    enum cpn_status rc = CPN_OK;
    for (int64_t j = 0; j < m; j++) {   /* sequential: a repeated index applies again */
        int64_t k = *(const int64_t *)(idx + j * ist);
        if (j + PREFETCH < m) prefetch_row(dst, dst_st[0], n, idx + (j + PREFETCH) * ist, 1);
        if (k < 0) k += n;
        if (k < 0 || k >= n) {
            rc = cpn_error(CPN_ERR_INDEX, "scatter: an index is out of bounds for size %lld",
                           (long long)n);
            break;
        }
        char *o = dst + k * dst_st[0];
        const char *v = nin == 2 ? val + j * val_st[0] : NULL;
        for (int64_t r = 0; r < rows; r++) {
            int64_t od = 0, vd = 0, q = r;
            for (int d = ndim - 2; d >= 1; d--) {
                int64_t i = q % shape[d];
                q /= shape[d];
                od += i * dst_st[d];
                if (v) vd += i * val_st[d];
            }
            char *args[3] = {o + od, v ? (char *)v + vd : o + od, o + od};
            fn(args, st, len, ctx);
        }
    }
    ctx->hw |= cpn_kernel_fpe_status();
    return rc;
}

