/* scalapack.h: cholesky, solve, inv, det/slogdet, eigh, qr, svd, lstsq and eig of a partitioned matrix
 * on ScaLAPACK;
 * batched LAPACK owner computes (scalapack.c). */
#ifndef CPN_SCALAPACK_H
#define CPN_SCALAPACK_H

#include <stdbool.h>

#include "opsem.h"

/* Does scalapack.c compute this op (an unbatched float64/complex128 LAPACK cholesky, solve, inv,
 * slogdet, eigh, qr, svd, lstsq or eig of a whole tiled 2-D root store, built with ScaLAPACK, under MPI)?  Local (a pure function of the
 * op, the tilings and CUPYNUM_SCALAPACK, so every rank answers alike). */
bool cpn_scalapack_applies(const struct cpn_op *op);
/* Redistribute to block-cyclic, factor, redistribute back into the op's outputs.  Collective. */
enum cpn_status cpn_scalapack_execute(const struct cpn_op *op);

/* Batched LAPACK owner computes: a stack of matrices tiled along its batch dimensions only (every
 * matrix whole in one tile) is factored where it lies, each rank running the batched kernel on
 * its own matrices, no byte sent.  The builder gives the op's outputs the operand's batch tiling
 * (cpn_lapack_batch_source, then cpn_store_new_batch_as); LAPACK's infos stay in each rank's
 * tile of aux (cupynum's lapack_info agrees on them with one integer allreduce).  */
/* The tiled root store whose batch tiling the outputs take: a's, when a (..., m, n) is a whole
 * root store tiled along batch dimensions only and b (or NULL) is one tiled alike; NULL
 * otherwise.  Local. */
const struct cpn_store *cpn_lapack_batch_source(const struct cpn_view *a, const struct cpn_view *b);
/* Should the builder first copy a (..., m, n) into slabs along its first dimension: a whole tiled
 * root stack whose tiles cut its matrices (a 2 x 2 grid of 4 ranks does), with at least two
 * matrices along that dimension?  The copy moves each piece whose owner changes once, against
 * the whole stack to every rank on the gathered path.  Local. */
bool cpn_lapack_batch_wants_slabs(const struct cpn_view *a);
/* Does cpn_lapack_batch_execute compute this op (operands and outputs tiled alike along the
 * batch dimensions, nothing else cut)?  Local. */
bool cpn_lapack_batch_applies(const struct cpn_op *op);
/* Each rank's matrices through the batched kernel, in place in its tiles.  Local (no message). */
enum cpn_status cpn_lapack_batch_execute(const struct cpn_op *op);

#endif
