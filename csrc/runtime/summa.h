/* summa.h: distributed 2-D products by SUMMA's row and column panels (summa.c). */
#ifndef CPN_SUMMA_H
#define CPN_SUMMA_H

#include <stdbool.h>

#include "opsem.h"

/* Does summa.c compute this op (a 2-D matmul of whole 2-D root stores, direct or transposed,
 * into a tiled whole root store)?  Local (a pure function of the op and the tilings, so every
 * rank answers alike). */
bool cpn_summa_applies(const struct cpn_op *op);
/* Compute this rank's tile of the product: the panels of A and B it needs arrive from the ranks
 * holding them, then one local product.  Collective. */
enum cpn_status cpn_summa_execute(const struct cpn_op *op);

#endif
