/* rtc.h: run-time compilation of generated kernels with NVRTC, cached in memory and on disk
 * (rtc.c).
 *
 * libnvrtc is loaded with dlopen on first use, so a build with CUDA imports and runs on machines
 * without the toolkit's libraries (the device backend is then unusable, with a clear reason).
 * NVRTC needs no GPU: compiling works on any machine with the library.  Images are keyed by a
 * hash of the source, the options, the target and NVRTC's version; the disk cache lives in
 * CUPYNUM_CACHE_DIR, else $XDG_CACHE_HOME/cupynum, else ~/.cache/cupynum (files written to a
 * temporary name and renamed, so concurrent ranks never read a partial file).  All functions
 * are Local. */
#ifndef CPN_CUDA_RTC_H
#define CPN_CUDA_RTC_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "status.h"

/* Is NVRTC loadable?  On false, *why (if given) says why. */
bool cpn_nvrtc_available(const char **why);

/* Compile `src` (a generated kernel; its includes are the embedded prelude headers) for compute
 * capability `arch` (90 for sm_90): a CUBIN, or PTX for compute_<arch> when `ptx`.  *image
 * points at the cached image (owned by the cache, valid until the process ends), *size is its
 * size.  Errors: CPN_ERR_DEVICE with NVRTC's log in the message. */
enum cpn_status cpn_nvrtc_compile(const char *src, int arch, bool ptx, const void **image, size_t *size);

/* The disk cache directory in use (created on first compile), or "" when caching on disk is off
 * (CUPYNUM_CACHE_DIR=""). */
const char *cpn_nvrtc_cache_dir(void);

struct cpn_nvrtc_stats {
    int64_t compiles;       /* NVRTC invocations */
    int64_t memory_hits;    /* images found in memory */
    int64_t disk_hits;      /* images read from the disk cache */
};
void cpn_nvrtc_stats(struct cpn_nvrtc_stats *out);
/* Forget the in-memory cache (the disk cache stays): for tests.  */
void cpn_nvrtc_forget(void);

#endif
