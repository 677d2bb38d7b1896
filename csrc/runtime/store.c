/* store.c: creation, aliasing, reference counting and lazy buffers of stores. */
#include "store.h"

#include <string.h>

#include "alloc.h"

static uint64_t next_id = 1;
static int64_t live_count;

/* Store records are recycled like views (see view.c). */
#define STORE_POOL 256
static struct cpn_store *pool[STORE_POOL];
static int pool_n;

static struct cpn_store *store_alloc(enum cpn_dtype dtype, int ndim, const int64_t *shape)
{
    if (ndim < 0 || ndim > CPN_MAXDIM) {
        cpn_error(CPN_ERR_VALUE, "maximum supported dimension for an ndarray is currently %d, found %d",
                  CPN_MAXDIM, ndim);
        return NULL;
    }
    int64_t size = 1;
    for (int i = 0; i < ndim; i++) {
        if (shape[i] < 0) {
            cpn_error(CPN_ERR_VALUE, "negative dimensions are not allowed");
            return NULL;
        }
        if (shape[i] != 0 && size > INT64_MAX / shape[i]) {
            cpn_error(CPN_ERR_VALUE, "array is too big; `arr.size * arr.dtype.itemsize` is larger than the maximum possible size.");
            return NULL;
        }
        size *= shape[i];
    }
    if (size > INT64_MAX / 16) {
        cpn_error(CPN_ERR_VALUE, "array is too big; `arr.size * arr.dtype.itemsize` is larger than the maximum possible size.");
        return NULL;
    }
    struct cpn_store *s = pool_n ? pool[--pool_n] : cpn_alloc(sizeof *s);
    if (!s) return NULL;
    s->root = NULL;
    s->data = NULL;
    s->poison = CPN_OK;
    s->poison_msg = NULL;
    s->refcnt = 1;
    s->id = next_id++;
    s->dtype = dtype;
    s->ndim = ndim;
    s->size = size;
    int64_t st = 1;
    for (int i = ndim - 1; i >= 0; i--) {
        s->shape[i] = shape[i];
        s->stride[i] = st;
        st *= shape[i] ? shape[i] : 1;
    }
    return s;
}

struct cpn_store *cpn_store_new(enum cpn_dtype dtype, int ndim, const int64_t *shape)
{
    struct cpn_store *s = store_alloc(dtype, ndim, shape);
    if (s) live_count++;
    return s;
}

struct cpn_store *cpn_store_flat_alias(struct cpn_store *s)
{
    struct cpn_store *root = cpn_store_root(s);
    struct cpn_store *a = store_alloc(root->dtype, 1, &root->size);
    if (!a) return NULL;
    a->root = root;
    cpn_store_retain(root);
    return a;
}

void cpn_store_retain(struct cpn_store *s) { s->refcnt++; }

void cpn_store_release(struct cpn_store *s)
{
    if (!s || --s->refcnt > 0) return;
    if (s->root) {
        cpn_store_release(s->root);
    } else {
        cpn_free(s->data);
        cpn_free(s->poison_msg);
        live_count--;
    }
    if (pool_n < STORE_POOL) pool[pool_n++] = s;
    else cpn_free(s);
}

static void *store_data(struct cpn_store *s, int zero)
{
    struct cpn_store *r = cpn_store_root(s);
    if (!r->data) {
        size_t n = (size_t)r->size * cpn_dtype_size(r->dtype);
        r->data = zero ? cpn_alloc_zeroed(n ? n : 1) : cpn_alloc(n ? n : 1);
    }
    return r->data;
}

void *cpn_store_data(struct cpn_store *s) { return store_data(s, 1); }
void *cpn_store_data_for_overwrite(struct cpn_store *s) { return store_data(s, 0); }

void cpn_store_poison(struct cpn_store *s, enum cpn_status st, const char *msg)
{
    s = cpn_store_root(s);
    cpn_free(s->poison_msg);
    s->poison_msg = NULL;
    s->poison = st;
    if (st != CPN_OK && msg) {
        size_t n = strlen(msg) + 1;
        s->poison_msg = cpn_alloc(n);
        if (s->poison_msg) memcpy(s->poison_msg, msg, n);
    }
}

int64_t cpn_store_live_count(void) { return live_count; }
