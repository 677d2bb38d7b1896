/* distfft.h: the fft op (CPN_OPK_FFT) on partitioned stores: owner computes when no tile cuts a
 * transformed dimension, slab decomposition with all-to-all transposes otherwise (distfft.c). */
#ifndef CPN_DISTFFT_H
#define CPN_DISTFFT_H

#include <stdbool.h>
#include <stdint.h>

#include "opsem.h"

struct cpn_store;
struct cpn_view;

/* A new root store for the result of a transform over `axes` of `in`: tiled like in's store
 * when no tile of it cuts a transformed dimension, else in the slabs distfft.c's last step
 * leaves (so the result moves no further); as cpn_store_new when in is not partitioned.  NULL
 * with the error recorded.  Local (a pure function of the shapes and tilings). */
struct cpn_store *cpn_distfft_new_output(enum cpn_dtype dt, int nd, const int64_t *shape,
                                         const struct cpn_view *in, uint64_t axes);
/* Does distfft.c compute op (whole-store operands, one of them tiled, a dimension to cut)?
 * Local. */
bool cpn_distfft_applies(const struct cpn_op *op);
/* Compute op, which cpn_distfft_applies to.  Collective. */
enum cpn_status cpn_distfft_execute(const struct cpn_op *op);

#endif
