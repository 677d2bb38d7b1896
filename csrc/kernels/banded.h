/* banded.h: the threaded driver of a banded write-back (banded.c): a fused program P = f(...)
 * evaluated in bands of outer rows, each band copied into a destination view D that the program
 * reads through other views, once every band that reads the rows it writes is computed.  The
 * runtime (fusion.c) decides that a run may be banded and finds each band's readers; this driver
 * schedules the bands over threads. */
#ifndef CPN_BANDED_H
#define CPN_BANDED_H

#include <stdbool.h>
#include <stdint.h>

#include "fused.h"

struct cpn_band_plan {
    int64_t rows, h, nb;      /* outer extent, rows per band, bands */
    int64_t band_bytes;       /* P's bytes per band (dense) */
    int ring;                 /* band buffers a thread keeps in flight */
    const int32_t *lr;        /* per band: the last band reading a row it writes (>= j) */
    const int32_t *fr;        /* per band: the first band reading a row it writes (<= j) */
    bool serial;              /* readers lie too far back for slabs: one thread, in order */
    int pext;                 /* P's external operand in the program (its base is set per band) */
    int64_t pst[CPN_MAXDIM];  /* P's dense byte strides */
    cpn_loop_fn copy;         /* the write-back loop (P's dtype to D's) */
    char *dbase;              /* D's origin and byte strides */
    int64_t dst[CPN_MAXDIM];
    bool watch;               /* collect the write-back's floating-point status flags */
};

/* Evaluate `prog` band by band and write every band back through bp->copy.  A band read only by
 * bands after it is written back once those are computed (ring of bp->ring buffers per thread,
 * so lr[j] - j < ring is required); every band is written exactly once.  Loops' value errors set
 * ctx->err; the write-back's status flags (bp->watch) are ORed into *wb_hw as CPN_FPE_* bits.
 * Returns CPN_ERR_NOMEM when scratch cannot be allocated.  Local. */
enum cpn_status cpn_kernel_banded(const struct cpn_fused_prog *prog, const struct cpn_band_plan *bp,
                                  struct cpn_kctx *ctx, unsigned *wb_hw);

#endif
