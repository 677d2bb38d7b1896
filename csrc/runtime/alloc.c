/* alloc.c: aligned allocation with accounting and a fail-the-Nth hook.
 *
 * A 64-byte header before each block remembers its size, so the live-byte counter stays exact
 * without a side table. */
#include "alloc.h"

#include <stdlib.h>
#include <string.h>

#include "status.h"

#define HEADER 64

static int64_t fail_countdown;
static int64_t live_bytes, total_bytes;

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
    size_t total = HEADER + ((n + HEADER - 1) / HEADER) * HEADER;
    void *raw = NULL;
    if (posix_memalign(&raw, HEADER, total) != 0 || raw == NULL) {
        cpn_error(CPN_ERR_NOMEM, "cupynum: unable to allocate %zu bytes", n);
        return NULL;
    }
    if (zero) memset(raw, 0, total);
    *(size_t *)raw = n;
    __atomic_add_fetch(&live_bytes, (int64_t)n, __ATOMIC_RELAXED);
    __atomic_add_fetch(&total_bytes, (int64_t)n, __ATOMIC_RELAXED);
    return (char *)raw + HEADER;
}

void *cpn_alloc(size_t n) { return alloc_impl(n, 0); }
void *cpn_alloc_zeroed(size_t n) { return alloc_impl(n, 1); }

void cpn_free(void *p)
{
    if (!p) return;
    char *raw = (char *)p - HEADER;
    __atomic_sub_fetch(&live_bytes, (int64_t)*(size_t *)raw, __ATOMIC_RELAXED);
    free(raw);
}

void cpn_alloc_fail_after(int64_t n) { fail_countdown = n > 0 ? n : 0; }
int64_t cpn_alloc_live_bytes(void) { return live_bytes; }
int64_t cpn_alloc_total_bytes(void) { return total_bytes; }
