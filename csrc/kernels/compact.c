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
 * assignment).  A 1-d scatter and ufunc.at may run on two threads each owning half of the
 * destination, in index order within each half (run_list, below); rmw_probe measures their bound. */
#include <fenv.h>
#ifdef _OPENMP
#include <omp.h>
#endif
#include <string.h>
#include <time.h>

#include "alloc.h"
#include "kernels.h"
#include "stats.h"
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
    /* (one chunk, or one thread: no OpenMP region at all -- an if(0) region still ends on
     * libgomp's team barrier, a futex wake per call: reduce.c) */
    if (cpn_kernel_threads() > 1 && nch > 1) {
#pragma omp parallel for num_threads(cpn_kernel_threads()) schedule(dynamic, 1)
        for (int c = 0; c < nch; c++)
            starts[c + 1] = count_rows(ndim, shape, mask, mst, c * per, c * per + per < rows ? c * per + per : rows);
    } else {
        for (int c = 0; c < nch; c++)
            starts[c + 1] = count_rows(ndim, shape, mask, mst, c * per, c * per + per < rows ? c * per + per : rows);
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

/* Chunk c of the compaction's rows into its slots of out (cpn_kernel_compact). */
static void compact_chunk(int c, size_t item, int ndim, const int64_t *shape, const char *src,
                          const int64_t *sst, const char *mask, const int64_t *mst, char *out,
                          int64_t rows, int64_t per, const int64_t *starts)
{
    const int64_t r0 = c * per, r1 = r0 + per < rows ? r0 + per : rows;
    compact_rows(item, ndim, shape, src, sst, mask, mst, r0, r1, out + starts[c] * (int64_t)item,
                 out + starts[c + 1] * (int64_t)item);
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
    if (cpn_kernel_threads() > 1 && nch > 1) {   /* else no region (chunk_starts) */
#pragma omp parallel for num_threads(cpn_kernel_threads()) schedule(dynamic, 1)
        for (int c = 0; c < nch; c++)
            compact_chunk(c, item, ndim, shape, src, sst, mask, mst, out, rows, per, starts);
    } else {
        for (int c = 0; c < nch; c++)
            compact_chunk(c, item, ndim, shape, src, sst, mask, mst, out, rows, per, starts);
    }
    cpn_free(starts);
    return CPN_OK;
}

#if defined(__x86_64__) && defined(__GNUC__) && !defined(__clang__)
#include <immintrin.h>
#define HAVE_NONZERO_AVX512 1
/* The indices of the true bytes of a unit-stride mask row from *ip on, written from slot j while
 * 64 slots are left to the chunk (jend), 64 elements a round in AVX-512: one test of the 64
 * bytes, then per 8 of them the index vector compressed in a register and stored whole (lanes
 * past the true ones land in slots this chunk fills later, as the scalar loop's overwritten
 * stores do).  1-d nonzero of 10^7 random bools: a third of the scalar loop's time.  Returns the
 * next slot; *ip advanced. */
__attribute__((target("avx512f,avx512bw")))
static int64_t nonzero_avx512(const char *m, int64_t len, int64_t *out, int64_t j, int64_t jend, int64_t *ip)
{
    int64_t i = *ip;
    __m512i idx = _mm512_add_epi64(_mm512_set1_epi64(i), _mm512_set_epi64(7, 6, 5, 4, 3, 2, 1, 0));
    const __m512i eight = _mm512_set1_epi64(8);
    for (; i + 64 <= len && jend - j >= 64; i += 64) {
        const __m512i b = _mm512_loadu_si512((const void *)(m + i));
        uint64_t k = (uint64_t)_mm512_test_epi8_mask(b, b);
        for (int g = 0; g < 8; g++, k >>= 8) {
            _mm512_storeu_si512((void *)(out + j), _mm512_maskz_compress_epi64((__mmask8)k, idx));
            j += __builtin_popcount((unsigned)(k & 0xff));
            idx = _mm512_add_epi64(idx, eight);
        }
    }
    *ip = i;
    return j;
}
#endif

/* Chunk c of nonzero's rows into its slots of out (cpn_kernel_nonzero). */
static void nonzero_chunk(int c, int ndim, const int64_t *shape, const char *mask, const int64_t *mst,
                          int64_t *out, int64_t count, int nch, int64_t rows, int64_t per,
                          const int64_t *starts)
{
    const int64_t len = shape[ndim - 1], ms = mst[ndim - 1];
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
#ifdef HAVE_NONZERO_AVX512
        if (ndim == 1 && ms == 1 && cpn_kernel_cpu_level() >= 2) j = nonzero_avx512(m, len, out, j, jend, &i);
#endif
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
    if (cpn_kernel_threads() > 1 && nch > 1) {   /* else no region (chunk_starts) */
#pragma omp parallel for num_threads(cpn_kernel_threads()) schedule(dynamic, 1)
        for (int c = 0; c < nch; c++)
            nonzero_chunk(c, ndim, shape, mask, mst, out, count, nch, rows, per, starts);
    } else {
        for (int c = 0; c < nch; c++)
            nonzero_chunk(c, ndim, shape, mask, mst, out, count, nch, rows, per, starts);
    }
    cpn_free(starts);
    return CPN_OK;
}

/* ---- gather: the elements named by an index array (integer-array indexing, take) ---------- */

/* Rows read or written in index order are random accesses: the row PREFETCH indices ahead is
 * prefetched so that the misses overlap (a loop of calls keeps few in flight by itself).  128,
 * not 64: a[idx] of 10^6 random indices into 10^7 float64 took 4.4 ms of CPU time on one thread
 * against 5.4 ms at 64 (the whole call, loaded machine, least of 31). */
#define PREFETCH 128
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

/* Elements j0 .. j1-1 of the gather (cpn_kernel_gather); whether an index was out of bounds. */
static int gather_range(size_t item, int ndim, const int64_t *shape, const char *src,
                        const int64_t *sst, const char *idx, int64_t ist, int64_t m, char *out,
                        int64_t j0, int64_t j1)
{
    const int64_t n = shape[0];
    int64_t block = 1, rows = 1;
    for (int d = 1; d < ndim; d++) block *= shape[d];
    for (int d = 1; d < ndim - 1; d++) rows *= shape[d];
    const int64_t len = ndim > 1 ? shape[ndim - 1] : 1, ls = ndim > 1 ? sst[ndim - 1] : 0;
    const int64_t bytes = block * (int64_t)item;
    int bad = 0;
    /* A source within the caches is not prefetched: the prefetch's own load and bounds test
     * were a third of a gather of 10^4 from 10^4 float64 (1.3 ns an element). */
    const int64_t span = n * (sst[0] < 0 ? -sst[0] : sst[0]);
    const bool pf = span > ((int64_t)1 << 20);
    if (ndim == 1 && item == 8 && ist == 8 && !pf) {   /* the common a[idx] of float64/int64 */
        const int64_t *ix = (const int64_t *)idx, s0 = sst[0];
        uint64_t *o = (uint64_t *)out;
        for (int64_t j = j0; j < j1; j++) {
            int64_t k = ix[j];
            k += k < 0 ? n : 0;
            if ((uint64_t)k >= (uint64_t)n) {
                bad = 1;
                continue;
            }
            memcpy(&o[j], src + k * s0, 8);
        }
        return bad;
    }
    for (int64_t j = j0; j < j1; j++) {
        int64_t k = *(const int64_t *)(idx + j * ist);
        if (pf && j + PREFETCH < m) prefetch_row(src, sst[0], n, idx + (j + PREFETCH) * ist, 0);
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
    return bad;
}

enum cpn_status cpn_kernel_gather(size_t item, int ndim, const int64_t *shape, const char *src,
                                  const int64_t *sst, const char *idx, int64_t ist, int64_t m,
                                  char *out)
{
    const int64_t n = shape[0];
    int64_t block = 1;
    for (int d = 1; d < ndim; d++) block *= shape[d];
    if (block == 0 || m == 0) return CPN_OK;
    int bad = 0;
    const int nth = cpn_kernel_threads();
    if (nth > 1 && m * block > 32768) {   /* else no region (chunk_starts) */
#pragma omp parallel for num_threads(nth) schedule(static) reduction(|: bad)
        for (int t = 0; t < nth; t++)
            bad |= gather_range(item, ndim, shape, src, sst, idx, ist, m, out, m * t / nth,
                                m * (t + 1) / nth);
    } else {
        bad = gather_range(item, ndim, shape, src, sst, idx, ist, m, out, 0, m);
    }
    return bad ? cpn_error(CPN_ERR_INDEX, "gather: an index is out of bounds for size %lld",
                           (long long)n)
               : CPN_OK;
}

/* ---- scatter: dst[idx[j]] = values[j], in j order (NumPy's last-wins for repeats) ----------- */

/* 128 indices ahead, as PREFETCH: 10^6 random updates of 10^7 float64 (80 MB, past the L3) took
 * 2.2 ms on one thread against 2.7 ms unprefetched (and 3.3 ms at 64 for a read-modify-write;
 * measured in C on the 2-core development machine). */
#define SCATTER_PREFETCH PREFETCH

struct item16 {
    uint64_t lo, hi;
};

/* dst[idx[j]] = val[j] for j = 0..m-1 in order, one item of `item` bytes each (dst stride ds,
 * val stride vs, 0 for one value; idx int64 of byte stride is, negatives from the end).  Returns
 * the first j out of bounds (nothing from it on written), or -1. */
#define SET_LIST(T)                                                                       \
    for (int64_t j = 0; j < m; j++) {                                                     \
        if (j + SCATTER_PREFETCH < m)                                                     \
            prefetch_row(dst, ds, n, idx + (j + SCATTER_PREFETCH) * is, 1);               \
        int64_t k = *(const int64_t *)(idx + j * is);                                     \
        if (k < 0) k += n;                                                                \
        if (k < 0 || k >= n) return j;                                                    \
        memcpy(dst + k * ds, val + j * vs, sizeof(T)); /* fixed size: any alignment */  \
    }                                                                                     \
    return -1;

static int64_t set_list(size_t item, char *dst, int64_t n, int64_t ds, const char *val, int64_t vs,
                        const char *idx, int64_t is, int64_t m)
{
    switch (item) {
    case 1: SET_LIST(uint8_t)
    case 2: SET_LIST(uint16_t)
    case 4: SET_LIST(uint32_t)
    case 8: SET_LIST(uint64_t)
    case 16: SET_LIST(struct item16)
    default:
        for (int64_t j = 0; j < m; j++) {
            if (j + SCATTER_PREFETCH < m)
                prefetch_row(dst, ds, n, idx + (j + SCATTER_PREFETCH) * is, 1);
            int64_t k = *(const int64_t *)(idx + j * is);
            if (k < 0) k += n;
            if (k < 0 || k >= n) return j;
            memcpy(dst + k * ds, val + j * vs, item);
        }
        return -1;
    }
}

/* ---- a 1-d index list split between threads by destination range -----------------------------
 * Random updates of a destination larger than the caches each move a line in and a line out; one
 * thread keeps only so many misses in flight, and the other core's own share of memory-level
 * parallelism is the rest of the machine's rate (two threads each updating their own 40 MB array
 * at 5*10^5 random indices: 0.9 ms against 1.8 ms in turn on one thread, in runs where the other
 * core was free).  So the threads each own a range of the destination, where repeated indices
 * still apply in list order (each element belongs to one thread and sees its updates in j order:
 * NumPy's order, and the same bits as one thread's loop).
 *
 * Thread t of nt owns elements [n*t/nt, n*(t+1)/nt).  Pass 1: each thread checks its nt-th of the
 * list for an index out of bounds; nothing is written when one is (so that a failed call leaves
 * the destination as it was, as NumPy's).  Pass 2, after a barrier: every thread reads the whole
 * list (from the L3 by then: pass 1 brought it in) and keeps, in j order, the entries of its own
 * range in a buffer of FBLOCK entries (plus slack) that stays in L1, applying a block at a time
 * through the one-thread loop (ufunc.at's typed loop or set_list), the block's first entries
 * prefetched first (the loop prefetches the rest ahead).  The keep is branch-free (each entry is
 * stored and the count advances by the range test: a random index would mispredict one time in
 * two), eight entries a round in AVX-512 where the CPU has it.
 *
 * The split wrote nothing but the destination.  An earlier form dealt the list into a scratch
 * list of all m entries by destination half and applied those: it wrote 8 bytes per index (plus
 * the value) that the apply read back; after other work had evicted the scratch (NumPy's runs
 * before ours in the benchmark) those writes were the cold part of the call.  np.add.at of 10^6
 * random indices into 10^7 float64 on 2 threads, median of a loop: 1.84 ms with the deal, 1.53
 * without it (and without the module's separate bounds pass, which pass 1 replaced).
 *
 * Taken when the kernels have a team, the list is long enough for the team's measured choice
 * (cpn_kernel_team_pick, CPN_TEAM_SCATTER: on a loaded machine a descheduled worker costs more
 * than it saves, and one thread is taken), the destination does not overlap the list or the
 * values (another thread may write an element while this one reads the list), and a value's size
 * is one of 1-16 bytes. */
struct split_job {
    cpn_at_fn at;            /* ufunc.at: the typed loop; NULL: assignment (set_list) */
    struct cpn_kctx *ctx;    /* at's findings */
    size_t item;
    char *dst;
    int64_t n, ds;
    const char *val;         /* vs 0: one value for all (nin 1: unused) */
    int64_t vs;
    const char *idx;
    int64_t is, m;
};

static int64_t apply_list(const struct split_job *jb, const char *val, int64_t vs, const char *idx,
                          int64_t is, int64_t m)
{
    if (jb->at) return jb->at(jb->dst, jb->n, jb->ds, val, vs, idx, is, m, jb->ctx);
    return set_list(jb->item, jb->dst, jb->n, jb->ds, val, vs, idx, is, m);
}

/* Whether [a, a + an) and [b, b + bn) share a byte. */
static bool bytes_overlap(const char *a, int64_t an, const char *b, int64_t bn)
{
    return a < b + bn && b < a + an;
}

/* The bytes [*lo, *lo + return) that m items of `item` bytes at stride st starting at p span. */
static int64_t span(const char *p, int64_t st, int64_t m, size_t item, const char **lo)
{
    const int64_t ext = (m - 1) * st;
    *lo = ext < 0 ? p + ext : p;
    return (ext < 0 ? -ext : ext) + (int64_t)item;
}

static bool split_ok(const struct split_job *jb)
{
    if (jb->n < 2) return false;
    if (jb->vs && !(jb->item == 1 || jb->item == 2 || jb->item == 4 || jb->item == 8 ||
                    jb->item == 16))
        return false;
    const char *d, *i, *v;
    const int64_t dn = span(jb->dst, jb->ds, jb->n, jb->item, &d);
    const int64_t in = span(jb->idx, jb->is, jb->m, 8, &i);
    if (bytes_overlap(d, dn, i, in)) return false;
    if (jb->val) {   /* one value too: the sequential loop would see its updates */
        const int64_t vn = span(jb->val, jb->vs, jb->m, jb->item, &v);
        if (bytes_overlap(d, dn, v, vn)) return false;
    }
    return true;
}

#if defined(__x86_64__) && defined(__GNUC__) && !defined(__clang__)
#include <immintrin.h>
#define HAVE_FILTER_AVX512 1
static bool avx512_ok(void) { return cpn_kernel_cpu_level() >= 2; }
#endif

/* The list's entries of one thread's range, applied a block at a time (above). */
#define FBLOCK 2048
#define FHEAD SCATTER_PREFETCH

static inline void prefetch_list(const struct split_job *jb, const int64_t *kb, int64_t c)
{
    for (int64_t i = 0; i < c; i++) __builtin_prefetch(jb->dst + kb[i] * jb->ds, 1);
}

/* Apply the first c of the buffer, its first FHEAD prefetched first (the loop prefetches the
 * rest, FHEAD ahead). */
static void apply_block(const struct split_job *jb, const int64_t *kb, const char *vb, int64_t c)
{
    prefetch_list(jb, kb, c < FHEAD ? c : FHEAD);
    apply_list(jb, jb->vs ? vb : jb->val, jb->vs ? (int64_t)jb->item : 0, (const char *)kb, 8, c);
}

#define FILTER_VALS(T)                                                                    \
    do {                                                                                  \
        T *vt = (T *)vb;                                                                  \
        for (; j < m; j++) {                                                              \
            int64_t k = *(const int64_t *)(idx + j * is);                                 \
            k += k < 0 ? n : 0;                                                           \
            T v;                                                                          \
            memcpy(&v, val + j * vs, sizeof v);                                           \
            kb[c] = k;                                                                    \
            vt[c] = v;                                                                    \
            c += (uint64_t)(k - lo) < span;                                               \
            if (c == FBLOCK + FHEAD) {                                                    \
                apply_block(jb, kb, vb, FBLOCK);                                          \
                memmove(kb, kb + FBLOCK, FHEAD * sizeof *kb);                             \
                memmove(vt, vt + FBLOCK, FHEAD * sizeof *vt);                             \
                c = FHEAD;                                                                \
            }                                                                             \
        }                                                                                 \
    } while (0)

#ifdef HAVE_FILTER_AVX512
/* Eight entries a round of a contiguous int64 list (values none or 8-byte contiguous): those in
 * [lo, lo + span) compressed and stored at kb + c (the buffer has 8 entries of slack).  Stops at
 * the round that fills the buffer past FBLOCK + FHEAD - 8; returns the next j, *c advanced. */
__attribute__((target("avx512f")))
static int64_t filter_avx512(const int64_t *idx, const uint64_t *val, int64_t n, int64_t lo,
                             uint64_t span, int64_t j, int64_t m, int64_t *kb, uint64_t *vb,
                             int64_t *cp)
{
    const __m512i vn = _mm512_set1_epi64(n), vlo = _mm512_set1_epi64(lo),
                  vspan = _mm512_set1_epi64((int64_t)span);
    int64_t c = *cp;
    for (; j + 8 <= m && c <= FBLOCK + FHEAD - 8; j += 8) {
        __m512i k = _mm512_loadu_si512((const void *)(idx + j));
        k = _mm512_mask_add_epi64(k, _mm512_cmplt_epi64_mask(k, _mm512_setzero_si512()), k, vn);
        const __mmask8 in = _mm512_cmplt_epu64_mask(_mm512_sub_epi64(k, vlo), vspan);
        _mm512_storeu_si512((void *)(kb + c), _mm512_maskz_compress_epi64(in, k));
        if (val)
            _mm512_storeu_si512((void *)(vb + c),
                                _mm512_maskz_compress_epi64(in, _mm512_loadu_si512((const void *)(val + j))));
        c += __builtin_popcount(in);
    }
    *cp = c;
    return j;
}
#endif

/* Pass 2 for the destination range [lo, hi): returns nothing (the bounds were checked). */
static void filter_part(const struct split_job *jb, int64_t lo, int64_t hi, int64_t *kb, char *vb)
{
    const int64_t n = jb->n, is = jb->is, vs = jb->vs, m = jb->m;
    const uint64_t span = (uint64_t)(hi - lo);
    const char *idx = jb->idx, *val = jb->val;
    int64_t c = 0, j = 0;
#ifdef HAVE_FILTER_AVX512
    if (is == 8 && (!vs || (vs == 8 && jb->item == 8)) && avx512_ok()) {
        while (j + 8 <= m) {
            j = filter_avx512((const int64_t *)idx, vs ? (const uint64_t *)val : NULL, n, lo, span,
                              j, m, kb, (uint64_t *)vb, &c);
            if (c > FBLOCK + FHEAD - 8) {
                apply_block(jb, kb, vb, FBLOCK);
                memmove(kb, kb + FBLOCK, (size_t)(c - FBLOCK) * sizeof *kb);
                if (vs) memmove(vb, vb + FBLOCK * 8, (size_t)(c - FBLOCK) * 8);
                c -= FBLOCK;
            }
        }
    }
#endif
    /* here c < FBLOCK + FHEAD: the scalar loops below apply a block when c reaches it */
    if (!vs) {
        for (; j < m; j++) {
            int64_t k = *(const int64_t *)(idx + j * is);
            k += k < 0 ? n : 0;
            kb[c] = k;
            c += (uint64_t)(k - lo) < span;
            if (c == FBLOCK + FHEAD) {
                apply_block(jb, kb, vb, FBLOCK);
                memmove(kb, kb + FBLOCK, FHEAD * sizeof *kb);
                c = FHEAD;
            }
        }
    } else {
        switch (jb->item) {
        case 1: FILTER_VALS(uint8_t); break;
        case 2: FILTER_VALS(uint16_t); break;
        case 4: FILTER_VALS(uint32_t); break;
        case 8: FILTER_VALS(uint64_t); break;
        default: FILTER_VALS(struct item16); break;
        }
    }
    if (c) apply_block(jb, kb, vb, c);
}

/* Whether entries [j0, j1) of the list hold an index out of bounds: -n <= k < n is
 * (uint64)(k + n) < 2n, a loop the compiler vectorizes for a contiguous list (in AVX-512 where
 * the CPU has it: 64-bit unsigned compares). */
static uint64_t bad_run(const int64_t *idx, int64_t n, int64_t j0, int64_t j1)
{
    uint64_t bad = 0;
    for (int64_t j = j0; j < j1; j++) bad |= (uint64_t)(idx[j] + n) >= (uint64_t)(2 * n);
    return bad;
}

#ifdef HAVE_FILTER_AVX512
__attribute__((target("avx512f")))
static uint64_t bad_run_avx512(const int64_t *idx, int64_t n, int64_t j0, int64_t j1)
{
    uint64_t bad = 0;
    for (int64_t j = j0; j < j1; j++) bad |= (uint64_t)(idx[j] + n) >= (uint64_t)(2 * n);
    return bad;
}
#endif

/* Whether entries [j0, j1) of the int64 index list at idx (byte stride is) hold one outside
 * [-n, n). */
static bool index_bad(const char *idx, int64_t is, int64_t n, int64_t j0, int64_t j1)
{
    if (is == 8) {
#ifdef HAVE_FILTER_AVX512
        if (avx512_ok()) return bad_run_avx512((const int64_t *)idx, n, j0, j1) != 0;
#endif
        return bad_run((const int64_t *)idx, n, j0, j1) != 0;
    }
    uint64_t bad = 0;
    for (int64_t j = j0; j < j1; j++)
        bad |= (uint64_t)(*(const int64_t *)(idx + j * is) + n) >= (uint64_t)(2 * n);
    return bad != 0;
}

static bool list_bad(const struct split_job *jb, int64_t j0, int64_t j1)
{
    return index_bad(jb->idx, jb->is, jb->n, j0, j1);
}

/* The first j out of bounds, or -1. */
static int64_t first_bad(const struct split_job *jb)
{
    for (int64_t j = 0; j < jb->m; j++) {
        const int64_t k = *(const int64_t *)(jb->idx + j * jb->is);
        if (k < -jb->n || k >= jb->n) return j;
    }
    return -1;
}

/* The list applied on nth threads as above; the first j out of bounds (nothing applied), or -1. */
static int64_t filter_run(const struct split_job *jb, int nth)
{
    enum { CAP = FBLOCK + FHEAD + 8 };
    int bad = 0;
#ifdef _OPENMP
#pragma omp parallel num_threads(nth)
#endif
    {
#ifdef _OPENMP
        const int tid = omp_get_thread_num(), nt = omp_get_num_threads();
#else
        const int tid = 0, nt = 1;
#endif
        if (list_bad(jb, jb->m * tid / nt, jb->m * (tid + 1) / nt))
            __atomic_store_n(&bad, 1, __ATOMIC_RELAXED);
#ifdef _OPENMP
#pragma omp barrier   /* every part checked before any write */
#endif
        if (!__atomic_load_n(&bad, __ATOMIC_RELAXED)) {
            int64_t kb[CAP];
            _Alignas(16) char vb[CAP * 16];
            if (jb->at) cpn_kernel_fpe_clear();
            filter_part(jb, (int64_t)((__int128)jb->n * tid / nt),
                        (int64_t)((__int128)jb->n * (tid + 1) / nt), kb, vb);
            if (jb->at) __atomic_fetch_or(&jb->ctx->hw, cpn_kernel_fpe_status(), __ATOMIC_RELAXED);
        }
    }
    return bad ? first_bad(jb) : -1;
}

/* The list applied in order, every index checked before the first write: split between the
 * team's threads (filter_run) where the measured choice takes them, else on this one.  The first
 * j out of bounds (nothing written), or -1. */
static int64_t run_list(const struct split_job *jb)
{
    struct cpn_team_timer tm = {.bucket = -1};
    /* work for the team's choice: a random update of a line costs about what 8
     * element-instructions do (the scatter kind is measured at any size: on a loaded 2-core
     * machine the worker is placed on the caller's core and the split only adds its reads of
     * the list) */
    const int nth = jb->m > 1 && split_ok(jb) ? cpn_kernel_team_pick(CPN_TEAM_SCATTER, 8 * jb->m, &tm)
                                               : 1;
    int64_t r;
    if (nth > 1) {
        r = filter_run(jb, nth);
        cpn_stats.scatters_split++;
    } else {
        r = list_bad(jb, 0, jb->m) ? first_bad(jb)
                                   : apply_list(jb, jb->val, jb->vs, jb->idx, jb->is, jb->m);
    }
    cpn_kernel_team_done(&tm);
    return r;
}

enum cpn_status cpn_kernel_scatter(size_t item, int ndim, const int64_t *shape, char *dst,
                                   const int64_t *dst_st, const char *val, const int64_t *val_st,
                                   const char *idx, int64_t ist, int64_t m)
{
    const int64_t n = shape[0];
    int64_t block = 1;
    for (int d = 1; d < ndim; d++) block *= shape[d];
    if (block == 0 || m == 0) return CPN_OK;
    if (ndim == 1) {   /* in list order: a later repeat overwrites an earlier one */
        const struct split_job jb = {.item = item, .dst = dst, .n = n, .ds = dst_st[0], .val = val,
                                     .vs = val_st[0], .idx = idx, .is = ist, .m = m};
        return run_list(&jb) >= 0
                   ? cpn_error(CPN_ERR_INDEX, "scatter: an index is out of bounds for size %lld",
                               (long long)n)
                   : CPN_OK;
    }
    if (index_bad(idx, ist, n, 0, m))   /* before the first write, as the 1-d list */
        return cpn_error(CPN_ERR_INDEX, "scatter: an index is out of bounds for size %lld",
                         (long long)n);
    for (int64_t j = 0; j < m; j++) {   /* sequential: a later repeat overwrites an earlier one */
        int64_t k = *(const int64_t *)(idx + j * ist);
        if (k < 0) k += n;
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

/* ufunc.at on one dimension: the typed loop over the whole list (run_list: two threads by
 * destination half where they pay, else this one). */
static enum cpn_status scatter_at(cpn_at_fn at, int nin, size_t item, int64_t n, char *dst,
                                  int64_t ds, const char *val, int64_t vs, const char *idx,
                                  int64_t ist, int64_t m, struct cpn_kctx *ctx)
{
    cpn_kernel_fpe_clear();
    const struct split_job jb = {.at = at, .ctx = ctx, .item = item, .dst = dst, .n = n, .ds = ds,
                                 .val = val, .vs = nin == 2 ? vs : 0, .idx = idx, .is = ist,
                                 .m = m};
    int64_t bad = run_list(&jb);
    ctx->hw |= cpn_kernel_fpe_status();
    return bad >= 0 ? cpn_error(CPN_ERR_INDEX, "scatter: an index is out of bounds for size %lld",
                                (long long)n)
                    : CPN_OK;
}

enum cpn_status cpn_kernel_scatter_apply(cpn_at_fn at, cpn_loop_fn fn, int nin, size_t item,
                                         int ndim, const int64_t *shape, char *dst, const int64_t *dst_st,
                                         const char *val, const int64_t *val_st, const char *idx,
                                         int64_t ist, int64_t m, struct cpn_kctx *ctx)
{
    const int64_t n = shape[0];
    if (at && ndim == 1 && m > 0)
        return scatter_at(at, nin, item, n, dst, dst_st[0], val, val_st ? val_st[0] : 0, idx, ist,
                          m, ctx);
    int64_t rows = 1;
    for (int d = 1; d < ndim - 1; d++) rows *= shape[d];
    const int64_t len = ndim > 1 ? shape[ndim - 1] : 1;
    if (m == 0 || len == 0 || rows == 0) return CPN_OK;
    int64_t st[3] = {ndim > 1 ? dst_st[ndim - 1] : 0, ndim > 1 ? dst_st[ndim - 1] : 0, 0};
    if (nin == 2) {
        st[1] = ndim > 1 ? val_st[ndim - 1] : 0;
        st[2] = st[0];
    }
    if (index_bad(idx, ist, n, 0, m))   /* before the first write, as the 1-d list */
        return cpn_error(CPN_ERR_INDEX, "scatter: an index is out of bounds for size %lld",
                         (long long)n);
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


/* ---- the bound of the scatters: the machine's random read-modify-write rate ------------------ */

/* m updates a[k] += 1 at random k (a fixed xorshift sequence) of an n-element float64 array, the
 * list dealt beforehand (untimed) into one list per thread, each thread owning 1/threads of the
 * array and running the plain loop prefetching SCATTER_PREFETCH ahead: what the hardware gives
 * any scatter, before its own passes (benchmarks/indexing.py prints it beside np.add.at).
 * secs[r] is run r's wall time.  Local. */
enum cpn_status cpn_kernel_rmw_probe(int64_t n, int64_t m, int threads, int repeat, double *secs)
{
    if (n < 1 || m < 1 || threads < 1 || threads > 64 || repeat < 1)
        return cpn_error(CPN_ERR_VALUE, "rmw_probe: n, m, threads (1-64) and repeat must be positive");
    double *a = cpn_alloc_zeroed((size_t)n * sizeof *a);
    int64_t *list = cpn_alloc((size_t)m * sizeof *list);
    int64_t *start = cpn_alloc((size_t)(threads + 1) * sizeof *start);
    if (!a || !list || !start) {
        cpn_free(a);
        cpn_free(list);
        cpn_free(start);
        return CPN_ERR_NOMEM;
    }
    /* two passes of the same sequence: count each owner's updates, then place them */
    for (int t = 0; t <= threads; t++) start[t] = 0;
    for (int pass = 0; pass < 2; pass++) {
        uint64_t x = 0x9e3779b97f4a7c15u;
        for (int64_t j = 0; j < m; j++) {
            x ^= x << 13, x ^= x >> 7, x ^= x << 17;
            const int64_t k = (int64_t)(x % (uint64_t)n);
            const int t = (int)((__int128)k * threads / n);
            if (pass == 0) start[t + 1]++;
            else list[start[t]++] = k;
        }
        if (pass == 0)
            for (int t = 0; t < threads; t++) start[t + 1] += start[t];
        else
            for (int t = threads; t > 0; t--) start[t] = start[t - 1];
    }
    start[0] = 0;
    for (int r = 0; r < repeat; r++) {
        struct timespec t0, t1;
        clock_gettime(CLOCK_MONOTONIC, &t0);
#pragma omp parallel num_threads(threads) if (threads > 1)
        {
            int t = 0, nt = 1;
#ifdef _OPENMP
            t = omp_get_thread_num();
            nt = omp_get_num_threads();
#endif
            for (int q = t; q < threads; q += nt) {
                const int64_t *l = list + start[q], c = start[q + 1] - start[q];
                for (int64_t j = 0; j < c; j++) {
                    if (j + SCATTER_PREFETCH < c) __builtin_prefetch(a + l[j + SCATTER_PREFETCH], 1);
                    a[l[j]] += 1.0;
                }
            }
        }
        clock_gettime(CLOCK_MONOTONIC, &t1);
        secs[r] = (double)(t1.tv_sec - t0.tv_sec) + 1e-9 * (double)(t1.tv_nsec - t0.tv_nsec);
    }
    cpn_free(a);
    cpn_free(list);
    cpn_free(start);
    return CPN_OK;
}
