/* partition.c: process grids, split points and aligned tilings. */
#include "partition.h"

#include <string.h>

#include "alloc.h"
#include "store.h"
#include "view.h"

static int my_rank, n_ranks = 1;
static int64_t min_tile = 16384;

void cpn_partition_configure(int rank, int ranks, int64_t min_tile_per_rank)
{
    my_rank = rank;
    n_ranks = ranks > 0 ? ranks : 1;
    if (min_tile_per_rank > 0) min_tile = min_tile_per_rank;
}

int cpn_partition_rank(void) { return my_rank; }
int cpn_partition_ranks(void) { return n_ranks; }
int64_t cpn_partition_min_tile(void) { return min_tile; }

/* The average halo surface of a tile: along a dimension cut into g tiles a tile has on average
 * 2 (g - 1) / g neighbours, each across a face of the tile.  (Counting 2 faces per cut would tie
 * 4x1 strips with a 2x2 grid on a square; the average prefers the squares.)  Grids that cut a
 * dimension into more tiles than it has elements are penalised. */
static double grid_cost(int ndim, const int64_t *shape, const int *grid)
{
    double cost = 0;
    for (int d = 0; d < ndim; d++) {
        if (grid[d] == 1) continue;
        if (grid[d] > shape[d]) cost += 1e30;
        double face = 1;
        for (int e = 0; e < ndim; e++)
            if (e != d) face *= (double)(shape[e] + grid[e] - 1) / grid[e];
        cost += 2.0 * (grid[d] - 1) / grid[d] * face;
    }
    return cost;
}

static void search(int ndim, const int64_t *shape, int d, int left, int *cur, int *best,
                   double *best_cost)
{
    if (d == ndim - 1) {
        cur[d] = left;
        double c = grid_cost(ndim, shape, cur);
        if (c < *best_cost) {   /* strict: ties keep the earliest, which cuts leading dims */
            *best_cost = c;
            memcpy(best, cur, (size_t)ndim * sizeof *cur);
        }
        return;
    }
    for (int f = left; f >= 1; f--) {
        if (left % f) continue;
        cur[d] = f;
        search(ndim, shape, d + 1, left / f, cur, best, best_cost);
    }
}

void cpn_partition_grid(int ndim, const int64_t *shape, int ranks, int *grid)
{
    int cur[CPN_MAXDIM];
    double best_cost = 1e300;
    for (int d = 0; d < ndim; d++) grid[d] = 1;
    if (ndim == 0) return;
    grid[0] = ranks;
    search(ndim, shape, 0, ranks, cur, grid, &best_cost);
}

/* Replicate unless the store is big enough per rank. */
static bool worth_tiling(const struct cpn_store *s)
{
    return n_ranks > 1 && s->ndim > 0 && s->size >= min_tile * n_ranks;
}

static enum cpn_status set_tiling(struct cpn_store *s, const int *grid, const int64_t *rank_stride)
{
    int64_t total = 0;
    for (int d = 0; d < s->ndim; d++) total += grid[d] + 1;
    s->splits = cpn_alloc((size_t)total * sizeof(int64_t));
    if (!s->splits) return CPN_ERR_NOMEM;
    s->tiled = true;
    for (int d = 0; d < s->ndim; d++) {
        s->grid[d] = grid[d];
        s->rank_stride[d] = rank_stride[d];
    }
    return CPN_OK;
}

enum cpn_status cpn_partition_default(struct cpn_store *s)
{
    if (!worth_tiling(s)) return CPN_OK;
    int grid[CPN_MAXDIM];
    int64_t rs[CPN_MAXDIM], acc = 1;
    cpn_partition_grid(s->ndim, s->shape, n_ranks, grid);
    for (int d = s->ndim - 1; d >= 0; d--) {
        rs[d] = acc;
        acc *= grid[d];
    }
    CPN_TRY(set_tiling(s, grid, rs));
    int64_t *sp = s->splits;
    for (int d = 0; d < s->ndim; d++) {
        for (int k = 0; k <= grid[d]; k++) sp[k] = s->shape[d] * k / grid[d];
        sp += grid[d] + 1;
    }
    return CPN_OK;
}

enum cpn_status cpn_partition_slabs(struct cpn_store *s, int dim)
{
    if (!worth_tiling(s) || dim < 0 || dim >= s->ndim) return cpn_partition_default(s);
    int grid[CPN_MAXDIM];
    int64_t rs[CPN_MAXDIM];
    for (int d = 0; d < s->ndim; d++) {
        grid[d] = d == dim ? n_ranks : 1;
        rs[d] = 1;
    }
    CPN_TRY(set_tiling(s, grid, rs));
    int64_t *sp = s->splits;
    for (int d = 0; d < s->ndim; d++) {
        for (int k = 0; k <= grid[d]; k++) sp[k] = s->shape[d] * k / grid[d];
        sp += grid[d] + 1;
    }
    return CPN_OK;
}

enum cpn_status cpn_partition_copy(struct cpn_store *s, const struct cpn_store *src)
{
    if (!worth_tiling(s) || !src->tiled || src->ndim != s->ndim) return cpn_partition_default(s);
    for (int d = 0; d < s->ndim; d++)
        if (src->grid[d] > 1 && src->shape[d] != s->shape[d]) return cpn_partition_default(s);
    CPN_TRY(set_tiling(s, src->grid, src->rank_stride));
    int64_t total = 0;
    for (int d = 0; d < s->ndim; d++) total += src->grid[d] + 1;
    memcpy(s->splits, src->splits, (size_t)total * sizeof(int64_t));
    int64_t *sp = s->splits;   /* unsplit dimensions: this store's extent */
    for (int d = 0; d < s->ndim; d++) {
        if (src->grid[d] == 1) sp[1] = s->shape[d];
        sp += src->grid[d] + 1;
    }
    return CPN_OK;
}

enum cpn_status cpn_partition_like(struct cpn_store *s, const struct cpn_view *like)
{
    const struct cpn_store *src = cpn_store_root(like->store);
    if (!worth_tiling(s) || !src->tiled || like->store != src || like->ndim != s->ndim)
        return cpn_partition_default(s);
    /* Each cut dimension of the source must be walked forward by exactly one view dimension. */
    int walker[CPN_MAXDIM];
    for (int d = 0; d < src->ndim; d++) walker[d] = -1;
    for (int i = 0; i < like->ndim; i++) {
        int d = like->sdim[i];
        if (d < 0 || like->shape[i] == 1) continue;
        if (walker[d] >= 0 || like->step[i] != 1) return cpn_partition_default(s);
        walker[d] = i;
    }
    for (int d = 0; d < src->ndim; d++)
        if (src->grid[d] > 1 && walker[d] < 0) return cpn_partition_default(s);
    int grid[CPN_MAXDIM];
    int64_t rs[CPN_MAXDIM];
    for (int i = 0; i < s->ndim; i++) {
        grid[i] = 1;
        rs[i] = 1;
    }
    for (int d = 0; d < src->ndim; d++)
        if (walker[d] >= 0 && src->grid[d] > 1) {
            grid[walker[d]] = src->grid[d];
            rs[walker[d]] = src->rank_stride[d];
        }
    CPN_TRY(set_tiling(s, grid, rs));
    /* Split points: the source's, shifted to the view's origin and clamped to the result. */
    const int64_t *ssp[CPN_MAXDIM];
    const int64_t *p = src->splits;
    for (int d = 0; d < src->ndim; d++) {
        ssp[d] = p;
        p += src->grid[d] + 1;
    }
    int64_t *sp = s->splits;
    for (int i = 0; i < s->ndim; i++) {
        int d = like->sdim[i];
        for (int k = 0; k <= grid[i]; k++) {
            int64_t v;
            if (grid[i] == 1) v = k ? s->shape[i] : 0;
            else v = ssp[d][k] - like->off[d];
            sp[k] = v < 0 ? 0 : v > s->shape[i] ? s->shape[i] : v;
        }
        sp[0] = 0;
        sp[grid[i]] = s->shape[i];
        sp += grid[i] + 1;
    }
    return CPN_OK;
}
