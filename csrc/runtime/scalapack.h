/* scalapack.h: cholesky and solve of a partitioned matrix on ScaLAPACK (scalapack.c). */
#ifndef CPN_SCALAPACK_H
#define CPN_SCALAPACK_H

#include <stdbool.h>

#include "opsem.h"

/* Does scalapack.c compute this op (an unbatched float64/complex128 LAPACK cholesky or solve of
 * a whole tiled 2-D root store, built with ScaLAPACK, under MPI)?  Local (a pure function of the
 * op, the tilings and CUPYNUM_SCALAPACK, so every rank answers alike). */
bool cpn_scalapack_applies(const struct cpn_op *op);
/* Redistribute to block-cyclic, factor, redistribute back into the op's outputs.  Collective. */
enum cpn_status cpn_scalapack_execute(const struct cpn_op *op);

#endif
