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

/* Does summa.c compute this op as a sum of partial products (a 2-D float or complex matmul of
 * whole 2-D root stores, direct or transposed, cut along the inner dimension only and alike, into
 * a whole 2-D store, replicated or small beside the operands: `x @ x.T` of a wide x, as cov and
 * corrcoef ask)?  Local. */
bool cpn_summa_inner_applies(const struct cpn_op *op);
/* Each rank multiplies its own columns of A by its own rows of B; the partial products are
 * gathered and added in rank order (the same result on every rank), each rank keeping its tile
 * of the output: m n elements per rank sent to each other rank, nothing of A or B.  Collective. */
enum cpn_status cpn_summa_inner_execute(const struct cpn_op *op);

#endif
