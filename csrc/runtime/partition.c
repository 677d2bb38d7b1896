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

enum cpn_status cpn_partition_batch(struct cpn_store *s, const struct cpn_store *src, int nb)
{
    if (n_ranks < 2 || !src->tiled || nb < 1 || nb > s->ndim || nb > src->ndim) return cpn_partition_default(s);
    for (int d = 0; d < src->ndim; d++)
        if (src->grid[d] > 1 && (d >= nb || src->shape[d] != s->shape[d])) return cpn_partition_default(s);
    int grid[CPN_MAXDIM];
    int64_t rs[CPN_MAXDIM];
    for (int d = 0; d < s->ndim; d++) {
        grid[d] = d < nb ? src->grid[d] : 1;
        rs[d] = d < nb ? src->rank_stride[d] : 1;
    }
    CPN_TRY(set_tiling(s, grid, rs));
    const int64_t *sp_src = src->splits;
    int64_t *sp = s->splits;
    for (int d = 0; d < s->ndim; d++) {
        if (d < nb) {
            memcpy(sp, sp_src, (size_t)(grid[d] + 1) * sizeof(int64_t));
            sp_src += src->grid[d] + 1;
        } else {
            sp[0] = 0;
            sp[1] = s->shape[d];
        }
        sp += grid[d] + 1;
    }
    return CPN_OK;
}

static int64_t floor_div(int64_t a, int64_t b) { return a >= 0 ? a / b : -((-a + b - 1) / b); }

/* The tiling `like` induces on a result s of its shape: grid, rank strides and split points
 * (the source's, shifted to the view's origin, divided by its step -- the first view index at
 * or past the source's split -- clamped).  False when it induces none (the view does not walk
 * each cut dimension of a tiled source forward, by one view dimension). */
static bool like_tiling(const struct cpn_store *s, const struct cpn_view *like, int *grid, int64_t *rs,
                        int64_t *splits)
{
    const struct cpn_store *src = like->store;   /* a root, or a flat alias tiled as its rows */
    if (!src->tiled || like->ndim != s->ndim) return false;
    int walker[CPN_MAXDIM];
    for (int d = 0; d < src->ndim; d++) walker[d] = -1;
    for (int i = 0; i < like->ndim; i++) {
        int d = like->sdim[i];
        if (d < 0 || like->shape[i] == 1) continue;
        if (like->step[i] < 1) return false;
        /* Several view dimensions walking one store dimension (a reshape of a 1-D store, or a
         * view through a flat alias): the outermost walks it when the others stay within one
         * of its steps (rows of a C-order reshape); it alone is cut. */
        if (walker[d] < 0 || like->step[i] > like->step[walker[d]]) walker[d] = i;
    }
    for (int i = 0; i < like->ndim; i++) {
        int d = like->sdim[i];
        if (d < 0 || like->shape[i] == 1 || walker[d] == i) continue;
        int64_t reach = 0;
        for (int j = 0; j < like->ndim; j++)
            if (like->sdim[j] == d && j != walker[d]) reach += (like->shape[j] - 1) * like->step[j];
        if (reach >= like->step[walker[d]]) return false;
    }
    for (int d = 0; d < src->ndim; d++)
        if (src->grid[d] > 1 && walker[d] < 0) return false;
    for (int i = 0; i < s->ndim; i++) {
        grid[i] = 1;
        rs[i] = 1;
    }
    for (int d = 0; d < src->ndim; d++)
        if (walker[d] >= 0 && src->grid[d] > 1) {
            grid[walker[d]] = src->grid[d];
            rs[walker[d]] = src->rank_stride[d];
        }
    const int64_t *ssp[CPN_MAXDIM];
    const int64_t *p = src->splits;
    for (int d = 0; d < src->ndim; d++) {
        ssp[d] = p;
        p += src->grid[d] + 1;
    }
    int64_t *sp = splits;
    for (int i = 0; i < s->ndim; i++) {
        int d = like->sdim[i];
        for (int k = 0; k <= grid[i]; k++) {
            int64_t v;
            if (grid[i] == 1) v = k ? s->shape[i] : 0;
            else v = floor_div(ssp[d][k] - like->off[d] + like->step[i] - 1, like->step[i]);
            sp[k] = v < 0 ? 0 : v > s->shape[i] ? s->shape[i] : v;
        }
        sp[0] = 0;
        sp[grid[i]] = s->shape[i];
        sp += grid[i] + 1;
    }
    return true;
}

enum cpn_status cpn_partition_like(struct cpn_store *s, int n, const struct cpn_view *const *like)
{
    if (!worth_tiling(s) || n < 1 || !like[0]) return cpn_partition_default(s);
    /* An operand that is a whole array (an earlier result, a named array) decides: the result
     * lies like it.  Only slices of arrays (a stencil's north and south) are averaged. */
    for (int j = 0; j < n; j++)
        if (like[j] && cpn_view_covers_store(like[j]) && cpn_store_root(like[j]->store)->tiled) {
            like = &like[j];
            n = 1;
            break;
        }
    int grid[CPN_MAXDIM], g2[CPN_MAXDIM];
    int64_t rs[CPN_MAXDIM], r2[CPN_MAXDIM];
    /* a grid of P tiles has at most P + 2 ndim split points */
    const size_t cap = (size_t)cpn_partition_ranks() + 2 * (size_t)s->ndim + 1;
    int64_t *sp = cpn_alloc(3 * cap * sizeof *sp);
    if (!sp) return CPN_ERR_NOMEM;
    int64_t *sum = sp + cap, *sp2 = sum + cap;
    enum cpn_status st;
    if (!like_tiling(s, like[0], grid, rs, sp)) {
        cpn_free(sp);
        return cpn_partition_default(s);
    }
    int64_t nsp = 0;
    for (int i = 0; i < s->ndim; i++) nsp += grid[i] + 1;
    /* The split points averaged (rounded down) over the operands that induce the same grid: a
     * result of north + south of one grid lies like the centre between them, so that the copy
     * into grid[1:-1] that usually follows moves nothing (Jacobi's u[:-2] + u[2:]). */
    int m = 1;
    for (int64_t k = 0; k < nsp; k++) sum[k] = sp[k];
    for (int j = 1; j < n; j++) {
        if (!like[j] || !like_tiling(s, like[j], g2, r2, sp2)) continue;
        bool same = true;
        for (int i = 0; i < s->ndim && same; i++) same = g2[i] == grid[i] && r2[i] == rs[i];
        if (!same) continue;
        for (int64_t k = 0; k < nsp; k++) sum[k] += sp2[k];
        m++;
    }
    st = set_tiling(s, grid, rs);
    if (st == CPN_OK)
        for (int64_t k = 0; k < nsp; k++) s->splits[k] = sum[k] / m;
    cpn_free(sp);
    return st;
}
