/* alloc.c: aligned allocation with accounting, a cache of large blocks, and a fail-the-Nth hook.
 *
 * A 64-byte header before each block remembers its size, so the live-byte counter stays exact
 * without a side table.  Large blocks (above 32 KiB, where the small classes end) are not
 * returned to the system at once: a small cache keeps recently freed ones for reuse, because a
 * loop of array expressions frees and allocates same-sized temporaries every iteration, and
 * fresh pages cost a fault each. */
#include "alloc.h"

#include <stdint.h>
#include <sys/mman.h>

#include <stdlib.h>
#include <string.h>

#include "stats.h"
#include "status.h"

#define HEADER 64

static int64_t fail_countdown;

/* The device memory of the active backend, registered by the backend registry (backend.c): the
 * allocator knows no backend.  Host memory until one registers. */
static void *host_raw_alloc(size_t n) { return malloc(n ? n : 1); }
static void *(*dev_raw_alloc)(size_t n) = host_raw_alloc;
static void (*dev_raw_free)(void *p) = free;

void cpn_alloc_set_device(void *(*raw_alloc)(size_t n), void (*raw_free)(void *p))
{
    dev_raw_alloc = raw_alloc;
    dev_raw_free = raw_free;
}

#define CACHE_MIN ((size_t)32 << 10)   /* from the end of the small classes */
#define CACHE_SLOTS 64
#define CACHE_MAX_BYTES ((size_t)2 << 30)
static struct { void *raw; size_t total; } cache[CACHE_SLOTS];
static int cache_n;
static size_t cache_bytes;

/* Small blocks (results of small-array ops) recycle through per-size free lists: power-of-two
 * totals from 128 bytes to 32 KiB, each list keeping up to 1 MiB (at least 64 blocks): a flush
 * frees the temporaries of hundreds of ops at once, which the next ones allocate again. */
#define SMALL_CLASSES 9
#define SMALL_KEEP_MAX 8192
#define SMALL_KEEP(c) ((((size_t)1 << 20) >> (7 + (c))) > 64 ? (int)(((size_t)1 << 20) >> (7 + (c))) : 64)
static void *small_free[SMALL_CLASSES][SMALL_KEEP_MAX];
static int small_n[SMALL_CLASSES];

static int small_class(size_t total)
{
    int c = 0;
    for (size_t sz = 128; sz < total; sz <<= 1) c++;
    return c < SMALL_CLASSES ? c : -1;
}

/* The bytes a block of n holds: a small class's size, or above CACHE_MIN n rounded up to a
 * sixteenth of its power of two (at most 6.25% more), so that a loop's temporaries of nearly the
 * same size (the 2003 x 1000 and 2000 x 1001 slices of a stencil's fluxes) reuse one another's
 * cached blocks.  Exact sizes missed the cache in examples/swe.py at 2000 x 1000: a third of its
 * time went to the kernel zeroing the fresh huge pages of new blocks. */
static size_t block_total(size_t n)
{
    size_t total = HEADER + ((n + HEADER - 1) / HEADER) * HEADER;
    int sc = small_class(total);
    if (sc >= 0) return (size_t)128 << sc;
    if (total < CACHE_MIN) return total;
    size_t p2 = CACHE_MIN;
    while (p2 * 2 <= total) p2 *= 2;
    size_t g = p2 / 16;
    return (total + g - 1) / g * g;
}

static void *cache_take(size_t total)
{
    for (int i = cache_n - 1; i >= 0; i--) {
        if (cache[i].total == total) {
            void *raw = cache[i].raw;
            cache_bytes -= total;
            cache[i] = cache[--cache_n];
            return raw;
        }
    }
    return NULL;
}

/* Keep `raw` for reuse; evicts the oldest blocks beyond the cache's bounds. */
static void cache_put(void *raw, size_t total)
{
    while (cache_n > 0 && (cache_n == CACHE_SLOTS || cache_bytes + total > CACHE_MAX_BYTES)) {
        free(cache[0].raw);
        cache_bytes -= cache[0].total;
        memmove(cache, cache + 1, (size_t)(cache_n - 1) * sizeof cache[0]);
        cache_n--;
    }
    if (total > CACHE_MAX_BYTES) {
        free(raw);
        return;
    }
    cache[cache_n].raw = raw;
    cache[cache_n].total = total;
    cache_n++;
    cache_bytes += total;
}

/* Large blocks ask for transparent huge pages where the system grants them on request (as
 * NumPy's allocator does): streaming kernels over big arrays otherwise spend their time in TLB
 * misses and page faults. */
static void advise_huge(void *raw, size_t total)
{
#ifdef MADV_HUGEPAGE
    if (total < ((size_t)4 << 20)) return;
    uintptr_t lo = ((uintptr_t)raw + 4095) & ~(uintptr_t)4095;
    uintptr_t hi = ((uintptr_t)raw + total) & ~(uintptr_t)4095;
    if (hi > lo) madvise((void *)lo, hi - lo, MADV_HUGEPAGE);
#else
    (void)raw;
    (void)total;
#endif
}

static void *alloc_impl(size_t n, int zero)
{
    if (fail_countdown > 0 && --fail_countdown == 0) {
        cpn_error(CPN_ERR_NOMEM, "cupynum: allocation of %zu bytes failed (test hook)", n);
        return NULL;
    }
    if (n > SIZE_MAX - 2 * HEADER) {
        cpn_error(CPN_ERR_NOMEM, "cupynum: cannot allocate %zu bytes", n);
        return NULL;
    }
    size_t total = block_total(n);
    int sc = small_class(total);
    void *raw = NULL;
    if (sc >= 0 && small_n[sc] > 0) raw = small_free[sc][--small_n[sc]];
    else if (total >= CACHE_MIN) raw = cache_take(total);
    if (!raw) {
        if (posix_memalign(&raw, HEADER, total) != 0 || raw == NULL) {
            cpn_error(CPN_ERR_NOMEM, "cupynum: unable to allocate %zu bytes", n);
            return NULL;
        }
        advise_huge(raw, total);
    }
    if (zero) memset(raw, 0, total);
    *(size_t *)raw = n;
    int64_t now = __atomic_add_fetch(&cpn_stats.bytes_live, (int64_t)n, __ATOMIC_RELAXED);
    __atomic_add_fetch(&cpn_stats.bytes_allocated, (int64_t)n, __ATOMIC_RELAXED);
    int64_t peak = __atomic_load_n(&cpn_stats.bytes_peak, __ATOMIC_RELAXED);
    while (now > peak && !__atomic_compare_exchange_n(&cpn_stats.bytes_peak, &peak, now, 1, __ATOMIC_RELAXED,
                                                      __ATOMIC_RELAXED)) {
    }
    return (char *)raw + HEADER;
}

void *cpn_alloc(size_t n) { return alloc_impl(n, 0); }
void *cpn_alloc_zeroed(size_t n) { return alloc_impl(n, 1); }

void cpn_free(void *p)
{
    if (!p) return;
    char *raw = (char *)p - HEADER;
    size_t n = *(size_t *)raw, total = block_total(n);
    __atomic_sub_fetch(&cpn_stats.bytes_live, (int64_t)n, __ATOMIC_RELAXED);
    int sc = small_class(total);
    if (sc >= 0 && small_n[sc] < SMALL_KEEP(sc)) small_free[sc][small_n[sc]++] = raw;
    else if (sc < 0 && total >= CACHE_MIN) cache_put(raw, total);
    else free(raw);
}

/* ---- device memory: a pool of freed blocks keyed by rounded size --------------------------- */

#define DEV_SLOTS 64
static struct { void *p; size_t total; } dev_cache[DEV_SLOTS];
static int dev_n;

static size_t dev_round(size_t n)
{
    /* 512-byte granules below 1 MiB, 64 KiB above: a loop's same-sized temporaries match. */
    size_t g = n < ((size_t)1 << 20) ? 512 : ((size_t)64 << 10);
    return n ? (n + g - 1) / g * g : g;
}

void *cpn_alloc_device(size_t n)
{
    if (fail_countdown > 0 && --fail_countdown == 0) {
        cpn_error(CPN_ERR_NOMEM, "cupynum: device allocation of %zu bytes failed (test hook)", n);
        return NULL;
    }
    size_t total = dev_round(n);
    void *p = NULL;
    for (int i = dev_n - 1; i >= 0; i--)
        if (dev_cache[i].total == total) {
            p = dev_cache[i].p;
            dev_cache[i] = dev_cache[--dev_n];
            break;
        }
    if (!p) p = dev_raw_alloc(total);
    if (!p && dev_n > 0) {   /* out of device memory: return the pool and retry once */
        while (dev_n > 0) dev_raw_free(dev_cache[--dev_n].p);
        p = dev_raw_alloc(total);
    }
    if (!p) {
        cpn_error(CPN_ERR_NOMEM, "cupynum: unable to allocate %zu bytes of device memory", n);
        return NULL;
    }
    int64_t now = __atomic_add_fetch(&cpn_stats.bytes_live, (int64_t)n, __ATOMIC_RELAXED);
    __atomic_add_fetch(&cpn_stats.bytes_allocated, (int64_t)n, __ATOMIC_RELAXED);
    if (now > cpn_stats.bytes_peak) cpn_stats.bytes_peak = now;
    return p;
}

void cpn_free_device(void *p, size_t n)
{
    if (!p) return;
    __atomic_sub_fetch(&cpn_stats.bytes_live, (int64_t)n, __ATOMIC_RELAXED);
    size_t total = dev_round(n);
    if (dev_n == DEV_SLOTS) {
        dev_raw_free(dev_cache[0].p);
        memmove(dev_cache, dev_cache + 1, (size_t)(DEV_SLOTS - 1) * sizeof dev_cache[0]);
        dev_n--;
    }
    dev_cache[dev_n].p = p;
    dev_cache[dev_n].total = total;
    dev_n++;
}

void cpn_alloc_trim(void)
{
    while (dev_n > 0) dev_raw_free(dev_cache[--dev_n].p);
    for (int c = 0; c < SMALL_CLASSES; c++)
        while (small_n[c] > 0) free(small_free[c][--small_n[c]]);
    while (cache_n > 0) free(cache[--cache_n].raw);
    cache_bytes = 0;
}

void cpn_alloc_fail_after(int64_t n) { fail_countdown = n > 0 ? n : 0; }
