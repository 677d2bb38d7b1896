/* store.h: a store is a logical N-d array (shape, dtype) and the memory that holds it.
 *
 * Invariants: a store's elements are laid out in C order in its buffer; the buffer is allocated
 * lazily, on the first access of an executing op (so a store that is never computed never costs
 * memory).  A store may be an *alias* of a root store (same buffer, another shape): reshapes that
 * merge dimensions of a view are expressed on the root's flat alias (see view.c).  Stores are
 * reference counted; an alias holds a reference to its root.
 *
 * Distribution: a store is either replicated (every rank holds all of it) or tiled: block-
 * partitioned over a process grid, grid[d] tiles along dimension d cut at split points, tile
 * coordinates c owned by rank sum(c[d] * rank_stride[d]).  The buffer holds only this rank's tile
 * [tlo, thi), in C order with strides tstride (for a replicated store: the whole store, and
 * tstride == stride).  partition.c decides tilings.
 *
 * Virtual stores.  A root store that a pure generator defined (a random draw, an arange fill:
 * element i is a function of i and the op's parameters alone) may be left *virtual* by the
 * executor: the generator is recorded in the store (`gen`) instead of being run into a buffer,
 * and fused readers compute the values in registers (fusion.c).  The store is materialized --
 * allocated and the generator run into it, once -- by the first access through cpn_store_data,
 * cpn_store_device_data or cpn_store_read_bytes (every memory access of the runtime goes through
 * them); cpn_store_data_for_overwrite drops the generator instead.  Only untiled stores (one
 * rank, or replicated) are made virtual. */
#ifndef CPN_STORE_H
#define CPN_STORE_H

#include <stdbool.h>
#include <stdint.h>

#include "dtype.h"
#include "status.h"

/* The generator of a virtual store's values (op.h: an op of kind CPN_OPK_RANDOM or
 * CPN_OPK_ARANGE over the whole store in C order, with these parameters). */
struct cpn_store_gen {
    int kind;                      /* enum cpn_opkind */
    int code;                      /* RANDOM: enum cpn_random_dist */
    uint64_t seed, stream;         /* RANDOM */
    double p0, p1;                 /* RANDOM lo/hi (or mean/sd); ARANGE start/second */
    int64_t i0, i1;                /* ARANGE integer start/second */
};

struct cpn_store {
    /* The fields every op reads come first, in one or two cache lines (issue #17). */
    int64_t refcnt;
    uint64_t id;                   /* creation order, unique per process */
    enum cpn_dtype dtype;
    int ndim;
    int64_t size;                  /* number of elements */
    struct cpn_store *root;        /* NULL for a root store; the store whose buffer this aliases */
    void *data;                    /* root stores only; NULL until first touched */
    /* Per dimension: arrays of `cap` entries right after the record (store.c), so a store of
     * few dimensions is a few cache lines, not ~2 KB of CPN_MAXDIM-sized arrays. */
    int64_t *shape;
    int64_t *stride;               /* element strides of the C-order layout */
    bool tiled;                    /* distribution (root stores) */
    bool pinned;                   /* tiling chosen for a consumer (slabs, batch-as): kept */
    /* Virtual (root stores): no buffer anywhere; the values are gen's (see the file header). */
    bool virt;
    /* Contents undefined until written (NumPy's `empty`): the first buffer is not zero-filled,
     * so a store its first ops overwrite piece by piece (joins, pad) is written once, not twice. */
    bool uninit;
    int cap;                       /* room for this many dimensions */
    int64_t tsize;                 /* elements in this rank's buffer */
    int64_t naliases;              /* root stores: live tiled aliases (their tilings are the root's,
                                    * so the root is not retiled while one lives) */
    /* The device copy (root stores, device backend only; backend.h): NULL until a device op
     * touches the store.  dev_state says which copy is current. */
    void *dev;
    enum cpn_store_where { CPN_WHERE_HOST, CPN_WHERE_BOTH, CPN_WHERE_DEVICE, CPN_WHERE_COUNT } dev_state;
    enum cpn_status poison;        /* root stores: CPN_OK, or the error of the op that failed
                                    * to compute this store (reading it raises that error) */
    char *poison_msg;
    int *grid;
    int64_t *rank_stride;
    int64_t *splits;               /* grid[d] + 1 split points per dimension, back to back */
    int64_t *tlo, *thi, *tstride;
    struct cpn_store_gen gen;
};

/* A new root store of `shape` (ndim <= CPN_MAXDIM, non-negative extents); refcount 1.
 * NULL with CPN_ERR_VALUE / CPN_ERR_NOMEM recorded on failure.  Local. */
struct cpn_store *cpn_store_new(enum cpn_dtype dtype, int ndim, const int64_t *shape);

/* As cpn_store_new, tiled like the store region `like` views when that is possible (so an
 * element-wise result lines up with its operand and needs no communication), else as
 * cpn_store_new decides.  `like` is a struct cpn_view with like->ndim == ndim and the same
 * shape.  Local (a pure function of its arguments on every rank). */
struct cpn_view;
struct cpn_store *cpn_store_new_like(enum cpn_dtype dtype, int ndim, const int64_t *shape,
                                     const struct cpn_view *like);
/* Tile `s`, a tiled root store that holds no data yet (no buffer, not virtual), as the region
 * `like` (of s's shape) views: its split points become the ones `like` induces
 * (cpn_partition_like of one operand).  True when the tiling changed; false (and unchanged) when
 * s holds data, its tiling is pinned (made for a consumer: slabs, batch-as) or `like` induces
 * no tiling.  Local (a pure function of the tilings). */
bool cpn_store_retile_like(struct cpn_store *s, const struct cpn_view *like);
/* A fresh 1-D tiled store of n = rows x block elements split between whole blocks (the flat
 * result of a selection of rows, whose reshape into rows is then in row parts); else nothing. */
void cpn_store_split_in_blocks(struct cpn_store *s, int64_t block);
/* As cpn_store_new_like, between the regions like[0..n) view (cpn_partition_like). */
struct cpn_store *cpn_store_new_like_n(enum cpn_dtype dtype, int ndim, const int64_t *shape, int n,
                                       const struct cpn_view *const *like);
/* A store in rank slabs along dimension dim (cpn_partition_slabs), or tiled with src's grid and
 * split points (cpn_partition_copy); as cpn_store_new when it cannot be.  Local. */
struct cpn_store *cpn_store_new_slabs(enum cpn_dtype dtype, int ndim, const int64_t *shape, int dim);
struct cpn_store *cpn_store_new_tiled_as(enum cpn_dtype dtype, int ndim, const int64_t *shape,
                                         const struct cpn_store *src);
/* A store tiled as src on its first nb dimensions, whatever its size (cpn_partition_batch).
 * Local. */
struct cpn_store *cpn_store_new_batch_as(enum cpn_dtype dtype, int ndim, const int64_t *shape,
                                         const struct cpn_store *src, int nb);
/* A store replicated on every rank whatever its size.  Local. */
struct cpn_store *cpn_store_new_replicated(enum cpn_dtype dtype, int ndim, const int64_t *shape);

/* The tile [lo, hi) of `rank` (the whole store when replicated).  Local. */
void cpn_store_tile_box(const struct cpn_store *s, int rank, int64_t *lo, int64_t *hi);

/* A 1-D alias of `s`'s root covering all its elements in order; refcount 1.  Local.
 * When each of the root's tiles is one contiguous range of its C-order elements (the root cut
 * along one dimension only, with only size-1 dimensions before it: row slabs), the alias is
 * tiled too, by those ranges: its tile is the root's tile buffer, so element-wise work through
 * it is owner-computes (dist.c's box path).  Otherwise it is untiled and every access through
 * it takes the gathered path. */
struct cpn_store *cpn_store_flat_alias(struct cpn_store *s);
/* As cpn_store_flat_alias, with elements of `dtype`: the root's bytes as root bytes / itemsize
 * elements of dtype (ndarray.view to a dtype of another size).  Tiled when the root's tile
 * ranges are whole elements of dtype.  cpn_store_flat_alias keeps s's dtype. */
struct cpn_store *cpn_store_flat_alias_as(struct cpn_store *s, enum cpn_dtype dtype);

void cpn_store_retain(struct cpn_store *s);
/* Drop a reference; frees the store (and its buffer, for a root) at zero.  Local. */
void cpn_store_release(struct cpn_store *s);

/* The root store whose buffer `s` uses (s itself for a root).  Local. */
static inline struct cpn_store *cpn_store_root(const struct cpn_store *s)
{
    return (struct cpn_store *)(s->root ? s->root : s);
}

/* The store's buffer, allocated (zero-filled) on first use; NULL with CPN_ERR_NOMEM.  Local. */
void *cpn_store_data(struct cpn_store *s);
/* As cpn_store_data, for a caller about to overwrite every element: a first allocation is not
 * zero-filled.  Local. */
void *cpn_store_data_for_overwrite(struct cpn_store *s);

/* The store's device buffer, current: copied from the host when the host copy is newer (a never
 * touched store is zero-filled; `overwrite`: the caller writes every element, nothing is
 * copied).  With `write`, the device copy becomes the only current one until the next
 * cpn_store_data.  NULL with an error recorded.  Device backends only.  Local.
 *
 * cpn_store_data / cpn_store_data_for_overwrite, conversely, bring a newer device copy back to
 * the host (waiting for the device) and mark the host copy as the current one, since the caller
 * may write through the pointer. */
void *cpn_store_device_data(struct cpn_store *s, bool write, bool overwrite);
/* Is the device copy the only current one?  Local. */
bool cpn_store_device_only(const struct cpn_store *s);
/* Copy n bytes at byte offset `off` of the root's buffer to dst from the current copy, without
 * moving the rest of the store (a scalar read of a device array moves one element).  Local. */
enum cpn_status cpn_store_read_bytes(const struct cpn_store *s, int64_t off, int64_t n, void *dst);
/* Would cpn_store_read_bytes compute [off, off + n) of a virtual store where it is read, leaving
 * the store virtual (a few elements: at most 64 KiB and an eighth of the store)?  Local. */
bool cpn_store_reads_virtual(const struct cpn_store *s, int64_t off, int64_t n);
/* Has the store memory anywhere (host or device)?  Local. */
bool cpn_store_allocated(const struct cpn_store *s);

/* Make the root store `s` virtual: its values are those `gen` computes.  `s` must be untiled and
 * have no buffer (host or device).  Local. */
void cpn_store_make_virtual(struct cpn_store *s, const struct cpn_store_gen *gen);
/* Is the root of `s` virtual (values defined, no buffer yet)?  Local. */
bool cpn_store_is_virtual(const struct cpn_store *s);

/* Mark a root store as holding the result of a failed op (st != CPN_OK, with its message), or
 * clear the mark (st == CPN_OK).  Local. */
void cpn_store_poison(struct cpn_store *s, enum cpn_status st, const char *msg);

/* Counted in cpn_stats (stats.h): bytes_to_host, bytes_to_device (moves between the copies),
 * stores_live (root stores alive), stores_virtual, virtual_materialized. */

#endif
