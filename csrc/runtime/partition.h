/* partition.h: how stores are laid out over ranks.
 *
 * A store of at least min_tile elements per rank is block-tiled over a process grid chosen to
 * make tiles near-square (least halo surface; any rank count, primes included); a smaller one is
 * replicated.  A result store can instead be tiled *like* the view it is computed from, so that
 * `average = center + north` puts each element of `average` on the rank owning the same element
 * of `center`: the element-wise ops of a stencil then move only halos.  Every function is a pure
 * function of the shapes, the rank count and the view maps, so ranks agree without talking. */
#ifndef CPN_PARTITION_H
#define CPN_PARTITION_H

#include <stdint.h>

#include "status.h"

struct cpn_store;
struct cpn_view;

/* Set the rank, rank count and threshold (elements per rank).  Local. */
void cpn_partition_configure(int rank, int ranks, int64_t min_tile);
int cpn_partition_rank(void);
int cpn_partition_ranks(void);
int64_t cpn_partition_min_tile(void);

/* Give a new root store its default layout (tiled or replicated).  Local. */
enum cpn_status cpn_partition_default(struct cpn_store *s);
/* Tile a new root store like the region like[0] views (same shape), its split points averaged
 * with those of the other views that induce the same grid (an op's operands: the result lies
 * between its shifted inputs); default when like[0] induces none.  Local. */
enum cpn_status cpn_partition_like(struct cpn_store *s, int n, const struct cpn_view *const *like);

/* Tile a new root store in `ranks` slabs along dimension dim (rank r: [shape*r/p, shape*(r+1)/p)),
 * whole along the others; default when it is too small to tile.  Local. */
enum cpn_status cpn_partition_slabs(struct cpn_store *s, int dim);
/* Tile a new root store with src's grid, rank strides and split points (src's split dimensions
 * have s's extents); default when that cannot be.  Local. */
enum cpn_status cpn_partition_copy(struct cpn_store *s, const struct cpn_store *src);
/* Tile a new root store as src on its first nb dimensions (src's grid, rank strides and split
 * points there, whatever s's size: a batch of results beside its operands), whole along the
 * others; default when src is not tiled or cuts a later dimension.  Local. */
enum cpn_status cpn_partition_batch(struct cpn_store *s, const struct cpn_store *src, int nb);
/* The process grid the default layout uses for `shape` over `ranks` (grid[d] tiles per dim). */
void cpn_partition_grid(int ndim, const int64_t *shape, int ranks, int *grid);

#endif
