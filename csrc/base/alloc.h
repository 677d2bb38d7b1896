/* alloc.h: the one allocator every host buffer and runtime object goes through.
 *
 * A test hook makes the Nth allocation from now fail, so out-of-memory paths are exercised
 * (Lua's allocator idea).  Buffers are 64-byte aligned so that kernels vectorise cleanly. */
#ifndef CPN_ALLOC_H
#define CPN_ALLOC_H

#include <stddef.h>
#include <stdint.h>

/* Allocate `n` bytes (64-byte aligned); NULL on failure, with CPN_ERR_NOMEM recorded.  Local. */
void *cpn_alloc(size_t n);
/* As cpn_alloc, zero-filled.  Local. */
void *cpn_alloc_zeroed(size_t n);
/* Release memory from cpn_alloc*; NULL is ignored.  Local. */
void cpn_free(void *p);

/* Device memory of the active backend, through a caching pool: a freed block is
 * kept for reuse by a later request of the same rounded size (cudaMalloc/cudaFree synchronise
 * the device, so a loop must not call them per iteration).  Counted in the same live/peak bytes,
 * failed by the same test hook.  NULL with CPN_ERR_NOMEM recorded on failure.  Local. */
void *cpn_alloc_device(size_t n);
void cpn_free_device(void *p, size_t n);
/* Where device memory comes from: the active backend's raw allocation (backend.c registers it when
 * it selects one; host malloc/free until then).  Local. */
void cpn_alloc_set_device(void *(*raw_alloc)(size_t n), void (*raw_free)(void *p));

/* Return every cached block (host and device) to the system.  Local. */
void cpn_alloc_trim(void);

/* Test hook: the `n`-th allocation from now fails (n >= 1); 0 disarms.  Local. */
void cpn_alloc_fail_after(int64_t n);
/* Bytes live now, ever allocated and at most live at once: cpn_stats (stats.h) bytes_live,
 * bytes_allocated, bytes_peak. */

#endif
