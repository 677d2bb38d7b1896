/* store.c: creation, aliasing, reference counting and lazy buffers of stores. */
#include "store.h"

#include <string.h>

#include "alloc.h"
#include "backend.h"
#include "hostexec.h"
#include "opsem.h"
#include "partition.h"

static uint64_t next_id = 1;
static int64_t bytes_to_host, bytes_to_device;   /* transfers between the copies */

void cpn_store_transfer_stats(int64_t *to_host, int64_t *to_device)
{
    *to_host = bytes_to_host;
    *to_device = bytes_to_device;
}

void cpn_store_reset_transfer_stats(void) { bytes_to_host = bytes_to_device = 0; }
static int64_t live_count;
static int64_t virtual_made, virtual_materialized;

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
    s->dev = NULL;
    s->dev_state = CPN_WHERE_HOST;
    s->poison = CPN_OK;
    s->poison_msg = NULL;
    s->tiled = false;
    s->virt = false;
    s->splits = NULL;
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
        s->grid[i] = 1;
        s->rank_stride[i] = 1;
        s->tlo[i] = 0;
        s->thi[i] = shape[i];
    }
    for (int i = 0; i < ndim; i++) s->tstride[i] = s->stride[i];
    s->tsize = size;
    return s;
}

/* The local tile of `s` for this rank, from its tiling. */
static void set_local(struct cpn_store *s)
{
    cpn_store_tile_box(s, cpn_partition_rank(), s->tlo, s->thi);
    int64_t st = 1;
    for (int d = s->ndim - 1; d >= 0; d--) {
        s->tstride[d] = st;
        int64_t e = s->thi[d] - s->tlo[d];
        st *= e > 0 ? e : 0;
    }
    s->tsize = 1;
    for (int d = 0; d < s->ndim; d++) s->tsize *= s->thi[d] - s->tlo[d];
}

enum tile_mode { TILE_DEFAULT, TILE_LIKE, TILE_REPLICATED };

static struct cpn_store *store_new(enum cpn_dtype dtype, int ndim, const int64_t *shape,
                                   enum tile_mode mode, const struct cpn_view *like)
{
    struct cpn_store *s = store_alloc(dtype, ndim, shape);
    if (!s) return NULL;
    live_count++;
    enum cpn_status st = CPN_OK;
    if (mode == TILE_LIKE) st = cpn_partition_like(s, like);
    else if (mode == TILE_DEFAULT) st = cpn_partition_default(s);
    if (st != CPN_OK) {
        cpn_store_release(s);
        return NULL;
    }
    set_local(s);
    return s;
}

struct cpn_store *cpn_store_new(enum cpn_dtype dtype, int ndim, const int64_t *shape)
{
    return store_new(dtype, ndim, shape, TILE_DEFAULT, NULL);
}

struct cpn_store *cpn_store_new_like(enum cpn_dtype dtype, int ndim, const int64_t *shape,
                                     const struct cpn_view *like)
{
    return store_new(dtype, ndim, shape, like ? TILE_LIKE : TILE_DEFAULT, like);
}

struct cpn_store *cpn_store_new_replicated(enum cpn_dtype dtype, int ndim, const int64_t *shape)
{
    return store_new(dtype, ndim, shape, TILE_REPLICATED, NULL);
}

void cpn_store_tile_box(const struct cpn_store *s, int rank, int64_t *lo, int64_t *hi)
{
    const int64_t *sp = s->splits;
    for (int d = 0; d < s->ndim; d++) {
        if (!s->tiled || s->grid[d] == 1) {
            lo[d] = 0;
            hi[d] = s->shape[d];
        } else {
            int64_t c = (rank / s->rank_stride[d]) % s->grid[d];
            lo[d] = sp[c];
            hi[d] = sp[c + 1];
        }
        if (s->tiled) sp += s->grid[d] + 1;
    }
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
        if (s->dev) cpn_free_device(s->dev, (size_t)s->tsize * cpn_dtype_size(s->dtype));
        s->dev = NULL;
        cpn_free(s->poison_msg);
        cpn_free(s->splits);
        live_count--;
    }
    if (pool_n < STORE_POOL) pool[pool_n++] = s;
    else cpn_free(s);
}

/* Run a virtual store's generator into its new buffer. */
static void materialize(struct cpn_store *r)
{
    cpn_hostexec_generate(&r->gen, r->dtype, r->data, r->size);
    virtual_materialized++;
}

static void *store_data(struct cpn_store *s, int zero)
{
    struct cpn_store *r = cpn_store_root(s);
    size_t n = (size_t)r->tsize * cpn_dtype_size(r->dtype);
    if (r->virt) {
        /* The values are read: compute them, once.  Overwritten: they never matter. */
        r->data = cpn_alloc(n ? n : 1);
        if (!r->data) return NULL;
        r->virt = false;
        if (zero) materialize(r);
        r->dev_state = CPN_WHERE_HOST;
        return r->data;
    }
    bool from_dev = r->dev && r->dev_state == CPN_WHERE_DEVICE;
    if (!r->data) r->data = zero && !from_dev ? cpn_alloc_zeroed(n ? n : 1) : cpn_alloc(n ? n : 1);
    if (!r->data) return NULL;
    if (from_dev) {
        enum cpn_status st = cpn_backend_active()->to_host(r->data, r->dev, n);
        if (st != CPN_OK) return NULL;
        bytes_to_host += (int64_t)n;
    }
    /* The caller may write through the pointer: the host copy is now the current one. */
    r->dev_state = CPN_WHERE_HOST;
    return r->data;
}

void *cpn_store_device_data(struct cpn_store *s, bool write, bool overwrite)
{
    struct cpn_store *r = cpn_store_root(s);
    const struct cpn_backend_i *be = cpn_backend_active();
    size_t n = (size_t)r->tsize * cpn_dtype_size(r->dtype);
    if (!be->device) {
        cpn_error(CPN_ERR_INTERNAL, "device buffer requested on the %s backend", be->name);
        return NULL;
    }
    if (r->virt && !overwrite && !store_data(r, 1)) return NULL;   /* generated on the host */
    if (r->virt) r->virt = false;
    bool fresh = !r->dev;
    if (fresh && !(r->dev = cpn_alloc_device(n ? n : 1))) return NULL;
    if (r->dev_state == CPN_WHERE_HOST) {
        if (!overwrite) {
            enum cpn_status st = r->data ? be->to_device(r->dev, r->data, n)
                                         : fresh ? be->fill_zero(r->dev, n) : CPN_OK;
            if (st != CPN_OK) return NULL;
            if (r->data) bytes_to_device += (int64_t)n;
        }
        r->dev_state = CPN_WHERE_BOTH;
    }
    /* A read leaves a device-only copy device-only; a write makes it so. */
    if (write) r->dev_state = CPN_WHERE_DEVICE;
    return r->dev;
}

bool cpn_store_device_only(const struct cpn_store *s)
{
    const struct cpn_store *r = cpn_store_root(s);
    return r->dev && r->dev_state == CPN_WHERE_DEVICE;
}

enum cpn_status cpn_store_read_bytes(const struct cpn_store *s, int64_t off, int64_t n, void *dst)
{
    struct cpn_store *r = cpn_store_root(s);
    if (n <= 0) return CPN_OK;
    if (cpn_store_device_only(r)) {
        bytes_to_host += n;
        return cpn_backend_active()->to_host(dst, (const char *)r->dev + off, (size_t)n);
    }
    const char *h = cpn_store_data(r);
    if (!h) return CPN_ERR_NOMEM;
    memcpy(dst, h + off, (size_t)n);
    return CPN_OK;
}

bool cpn_store_allocated(const struct cpn_store *s)
{
    const struct cpn_store *r = cpn_store_root(s);
    return r->data != NULL || r->dev != NULL || r->virt;
}

void cpn_store_make_virtual(struct cpn_store *s, const struct cpn_store_gen *gen)
{
    struct cpn_store *r = cpn_store_root(s);
    CPN_ASSERT(!r->tiled && !r->data && !r->dev);
    r->virt = true;
    r->gen = *gen;
    virtual_made++;
}

bool cpn_store_is_virtual(const struct cpn_store *s) { return cpn_store_root(s)->virt; }

void cpn_store_virtual_stats(int64_t *made, int64_t *materialized)
{
    *made = virtual_made;
    *materialized = virtual_materialized;
}

void cpn_store_reset_virtual_stats(void) { virtual_made = virtual_materialized = 0; }

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
