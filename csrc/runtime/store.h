/* store.h: a store is a logical N-d array (shape, dtype) and the memory that holds it.
 *
 * Invariants: a store's elements are laid out in C order in its buffer; the buffer is allocated
 * lazily, on the first access of an executing op (so a store that is never computed never costs
 * memory).  A store may be an *alias* of a root store (same buffer, another shape): reshapes that
 * merge dimensions of a view are expressed on the root's flat alias (see view.c).  Stores are
 * reference counted; an alias holds a reference to its root.
 *
 * Distribution (a tiling over ranks) is the distribution issue's; today every store is
 * replicated: each rank holds all of it. */
#ifndef CPN_STORE_H
#define CPN_STORE_H

#include <stdint.h>

#include "dtype.h"
#include "status.h"

#define CPN_MAXDIM 32

struct cpn_store {
    int64_t refcnt;
    uint64_t id;                   /* creation order, unique per process */
    enum cpn_dtype dtype;
    int ndim;
    int64_t shape[CPN_MAXDIM];
    int64_t stride[CPN_MAXDIM];    /* element strides of the C-order layout */
    int64_t size;                  /* number of elements */
    struct cpn_store *root;        /* NULL for a root store; the store whose buffer this aliases */
    void *data;                    /* root stores only; NULL until first touched */
    enum cpn_status poison;        /* root stores: CPN_OK, or the error of the op that failed
                                    * to compute this store (reading it raises that error) */
    char *poison_msg;
};

/* A new root store of `shape` (ndim <= CPN_MAXDIM, non-negative extents); refcount 1.
 * NULL with CPN_ERR_VALUE / CPN_ERR_NOMEM recorded on failure.  Local. */
struct cpn_store *cpn_store_new(enum cpn_dtype dtype, int ndim, const int64_t *shape);

/* A 1-D alias of `s`'s root covering all its elements in order; refcount 1.  Local. */
struct cpn_store *cpn_store_flat_alias(struct cpn_store *s);

void cpn_store_retain(struct cpn_store *s);
/* Drop a reference; frees the store (and its buffer, for a root) at zero.  Local. */
void cpn_store_release(struct cpn_store *s);

/* The root store whose buffer `s` uses (s itself for a root).  Local. */
static inline struct cpn_store *cpn_store_root(struct cpn_store *s) { return s->root ? s->root : s; }

/* The store's buffer, allocated (zero-filled) on first use; NULL with CPN_ERR_NOMEM.  Local. */
void *cpn_store_data(struct cpn_store *s);
/* As cpn_store_data, for a caller about to overwrite every element: a first allocation is not
 * zero-filled.  Local. */
void *cpn_store_data_for_overwrite(struct cpn_store *s);

/* Mark a root store as holding the result of a failed op (st != CPN_OK, with its message), or
 * clear the mark (st == CPN_OK).  Local. */
void cpn_store_poison(struct cpn_store *s, enum cpn_status st, const char *msg);

/* Number of root stores currently alive (for leak tests).  Local. */
int64_t cpn_store_live_count(void);

#endif
