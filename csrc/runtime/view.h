/* view.h: a view is an affine map from an index space onto a store.
 *
 * View dimension i has extent shape[i] and walks store dimension sdim[i] with step step[i]
 * (negative for reversed slices); sdim[i] == -1 marks a dimension that walks no store dimension
 * (newaxis, broadcasting: its step is 0).  off[d] is the store index of the view's origin in
 * store dimension d.  So the element at view index (j0, j1, ...) is the store element
 *     s[d] = off[d] + sum over i with sdim[i] == d of step[i] * j_i.
 * Several view dimensions may walk one store dimension (a reshape that splits it).  A reshape
 * that merges dimensions in a way no store dimension can express is rebased onto the store's flat
 * alias (a 1-D store sharing the buffer), where every strided pattern is affine.
 *
 * A view may select one component of a complex store (part = 1: real, 2: imaginary); its
 * element type `dtype` is then the matching real type.  NumPy's `z.real` and `z.imag` are such
 * views: writes through them change `z`.  `readonly` marks views NumPy makes read-only
 * (broadcast_to); it is inherited by views derived from them.
 *
 * Views are immutable once built and reference counted; each holds one reference to its store.
 * All functions are Local. */
#ifndef CPN_VIEW_H
#define CPN_VIEW_H

#include <stdbool.h>
#include <stdint.h>

#include "store.h"

struct cpn_view {
    int64_t refcnt;
    struct cpn_store *store;
    enum cpn_dtype dtype;   /* element type seen through the view */
    int ndim;
    int part;               /* 0: whole elements; 1/2: real/imaginary component of complex */
    bool readonly;
    uint8_t cap;            /* room for this many view dimensions and store dimensions */
    /* shape, sdim and step per view dimension, off per store dimension: arrays of `cap` entries
     * right after the record (view.c), so a view of few dimensions is a few cache lines, not
     * ~1 KB of CPN_MAXDIM-sized arrays of which every op touches the first entries of each
     * (the per-op host cost of small arrays, issue #17).  ndim and store->ndim <= cap. */
    int64_t *shape;
    int64_t *step;
    int64_t *off;
    int *sdim;
};

/* The whole of `store`, in its own shape; retains the store.  NULL on OOM. */
struct cpn_view *cpn_view_new(struct cpn_store *store);
/* As cpn_view_new, with room for `ndim` view dimensions (<= CPN_MAXDIM): for a caller that then
 * sets ndim, shape, sdim and step itself (a view of another's shape onto a new store). */
struct cpn_view *cpn_view_new_dims(struct cpn_store *store, int ndim);
void cpn_view_retain(struct cpn_view *v);
void cpn_view_release(struct cpn_view *v);

/* Number of elements. */
int64_t cpn_view_size(const struct cpn_view *v);
/* Byte strides per view dimension and the byte offset of the origin within the root buffer. */
void cpn_view_byte_layout(const struct cpn_view *v, int64_t *byte_strides, int64_t *byte_offset);
/* Address of the origin, allocating the store's buffer if needed (NULL on OOM). */
char *cpn_view_origin(const struct cpn_view *v);

/* dim taken with slice(start, ..., step) giving `len` elements; start/len already adjusted to
 * the extent as PySlice_AdjustIndices does.  New reference in *out. */
enum cpn_status cpn_view_slice(const struct cpn_view *v, int dim, int64_t start, int64_t step,
                               int64_t len, struct cpn_view **out);
/* Fix dimension `dim` at index `i` (negative counts from the end) and drop it; CPN_ERR_INDEX
 * when out of range. */
enum cpn_status cpn_view_index(const struct cpn_view *v, int dim, int64_t i, struct cpn_view **out);
/* Insert a new dimension of extent 1 before position `pos` (0..ndim). */
enum cpn_status cpn_view_newaxis(const struct cpn_view *v, int pos, struct cpn_view **out);
/* Permute dimensions: new dimension i is old dimension perm[i]. */
enum cpn_status cpn_view_transpose(const struct cpn_view *v, const int *perm, struct cpn_view **out);
/* Broadcast to `shape` (ndim >= v->ndim) by NumPy's rules; CPN_ERR_VALUE when incompatible. */
enum cpn_status cpn_view_broadcast(const struct cpn_view *v, int ndim, const int64_t *shape,
                                   struct cpn_view **out);
/* The same elements in C order with a new shape (same size), as a view; CPN_ERR_NOVIEW when no
 * view can express it (then the caller copies, as NumPy does). */
enum cpn_status cpn_view_reshape(const struct cpn_view *v, int ndim, const int64_t *shape,
                                 struct cpn_view **out);
/* numpy.diagonal: dimensions axis1 != axis2 replaced by one last dimension walking both at once
 * from (max(0, -offset), max(0, offset)); read-only as NumPy's.  Where the two walk different
 * store dimensions the view is rebased onto the flat alias (a sum of two strides is affine there). */
enum cpn_status cpn_view_diagonal(const struct cpn_view *v, int64_t offset, int axis1, int axis2,
                                  struct cpn_view **out);
/* The real (part 1) or imaginary (part 2) component of a complex view. */
enum cpn_status cpn_view_component(const struct cpn_view *v, int part, struct cpn_view **out);
/* The same elements with their bits seen as the unsigned integer type of their size (a real
 * view of 1, 2, 4 or 8 bytes: a component keeps its part): ndarray.view(uintN), for byteswap. */
enum cpn_status cpn_view_bits(const struct cpn_view *v, struct cpn_view **out);
/* The same elements seen as `dtype`, of the same size (ndarray.view(dtype)): the bytes are
 * reinterpreted, nothing copied; a component view stays one.  CPN_ERR_TYPE for another size. */
enum cpn_status cpn_view_reinterpret(const struct cpn_view *v, enum cpn_dtype dtype, struct cpn_view **out);
/* The same bytes seen as `dtype` of any size, as ndarray.view(dtype): the last dimension (whose
 * byte stride is the element size) has shape * old / new elements, the others keep their byte
 * strides; through the root's flat alias in dtype (cpn_store_flat_alias_as).  The caller checks
 * NumPy's rules (not 0-d, last dimension contiguous, its bytes a multiple of the new size);
 * CPN_ERR_UNSUPPORTED (no error recorded) when the view cannot be expressed on whole elements
 * of dtype (an offset or a stride not a multiple of its size, a complex component). */
enum cpn_status cpn_view_retype(const struct cpn_view *v, enum cpn_dtype dtype, struct cpn_view **out);

/* True when the views are the same map onto the same store. */
bool cpn_view_same(const struct cpn_view *a, const struct cpn_view *b);
/* True when the two views may touch a common element (conservative: false means disjoint). */
bool cpn_view_may_overlap(const struct cpn_view *a, const struct cpn_view *b);
/* True when the view covers its whole root store in C order (a plain contiguous buffer). */
bool cpn_view_is_contiguous(const struct cpn_view *v);
/* Does v walk its store whole, in the store's own order (no root, whole elements, the store's
 * dtype, every dimension in place, unsliced)?  Local. */
bool cpn_view_is_whole(const struct cpn_view *v);
/* Does writing every element of the view overwrite its whole root store (no broadcast, no
 * component, as many elements as the store)? */
bool cpn_view_covers_store(const struct cpn_view *v);
/* Store-index bounding box of the view's footprint in store dimension d: [lo[d], hi[d]]. */
void cpn_view_footprint(const struct cpn_view *v, int64_t *lo, int64_t *hi);

#endif
