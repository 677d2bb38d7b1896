/* store.c: creation, aliasing, reference counting and lazy buffers of stores. */
#include "store.h"

#include <math.h>
#include <stdio.h>
#include <string.h>
#include <sys/sysinfo.h>

#include "alloc.h"
#include "backend.h"
#include "hostexec.h"
#include "opsem.h"
#include "partition.h"
#include "stats.h"

static uint64_t next_id = 1;

/* Store records are recycled like views (see view.c), one pool per size class: the per-dimension
 * arrays follow the record, room for 4, 8 or CPN_MAXDIM dimensions (store.h). */
#define STORE_POOL 1024   /* a flush releases the temporaries of 512 ops at once */
enum { SCLASS_SMALL, SCLASS_MID, SCLASS_MAX, SCLASS_COUNT };
static const int class_cap[SCLASS_COUNT] = {4, 8, CPN_MAXDIM};
static struct cpn_store *pool[SCLASS_COUNT][STORE_POOL];
static int pool_n[SCLASS_COUNT];

static int store_class(int n) { return n <= 4 ? SCLASS_SMALL : n <= 8 ? SCLASS_MID : SCLASS_MAX; }

static struct cpn_store *store_record(int c)
{
    const int cap = class_cap[c];
    struct cpn_store *s = cpn_alloc(sizeof *s + (size_t)cap * (6 * sizeof(int64_t) + sizeof(int)));
    if (!s) return NULL;
    s->cap = cap;
    s->shape = (int64_t *)(s + 1);
    s->stride = s->shape + cap;
    s->tlo = s->stride + cap;
    s->thi = s->tlo + cap;
    s->tstride = s->thi + cap;
    s->rank_stride = s->tstride + cap;
    s->grid = (int *)(s->rank_stride + cap);
    return s;
}

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
    const int c = store_class(ndim);
    struct cpn_store *s = pool_n[c] ? pool[c][--pool_n[c]] : store_record(c);
    if (!s) return NULL;
    s->root = NULL;
    s->data = NULL;
    s->dev = NULL;
    s->dev_state = CPN_WHERE_HOST;
    s->poison = CPN_OK;
    s->poison_msg = NULL;
    s->tiled = false;
    s->virt = false;
    s->uninit = false;
    s->splits = NULL;
    s->naliases = 0;
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

/* NumPy's _ArrayMemoryError._size_to_string: "512. GiB", "8.00 TiB", "1000. KiB", "12 bytes". */
static void size_string(char *buf, size_t n, uint64_t bytes)
{
    static const char *const units[] = {"bytes", "KiB", "MiB", "GiB", "TiB", "PiB", "EiB"};
    int bl = bytes ? 64 - __builtin_clzll(bytes) : 0;
    int u = (bl - 1 > 1 ? bl - 1 : 1) / 10;
    double v = (double)bytes / (double)((uint64_t)1 << (10 * u));
    if (llround(v) == 1024) {
        u++;
        v /= 1024;
    }
    if (u == 0) snprintf(buf, n, "%.0f %s", v, units[u]);
    else if (llround(v) < 1000) snprintf(buf, n, "%#.3g %s", v, units[u]);
    else snprintf(buf, n, "%#.0f %s", v, units[u]);
}

/* A buffer (this rank's tile) larger than the machine's memory and swap can never be allocated:
 * NumPy fails at the call (MemoryError, its message about the whole array), not at the first use
 * of a lazily allocated buffer. */
static enum cpn_status check_allocatable(const struct cpn_store *s)
{
    uint64_t bytes = (uint64_t)s->tsize * cpn_dtype_size(s->dtype);
    struct sysinfo si;
    if (bytes < ((uint64_t)1 << 30) || sysinfo(&si) != 0) return CPN_OK;
    uint64_t limit = ((uint64_t)si.totalram + si.totalswap) * si.mem_unit;
    if (bytes <= limit) return CPN_OK;
    char size[64], shape[CPN_MAXDIM * 22 + 4];
    size_string(size, sizeof size, (uint64_t)s->size * cpn_dtype_size(s->dtype));   /* the array's */
    int k = snprintf(shape, sizeof shape, "(");
    for (int i = 0; i < s->ndim; i++)
        k += snprintf(shape + k, sizeof shape - (size_t)k, i ? ", %lld" : "%lld", (long long)s->shape[i]);
    snprintf(shape + k, sizeof shape - (size_t)k, s->ndim == 1 ? ",)" : ")");
    return cpn_error(CPN_ERR_NOMEM, "Unable to allocate %s for an array with shape %s and data type %s",
                     size, shape, cpn_dtype_name(s->dtype));
}

enum tile_mode { TILE_DEFAULT, TILE_LIKE, TILE_LIKE_N, TILE_REPLICATED, TILE_SLABS, TILE_COPY, TILE_BATCH };
struct batch_of {
    const struct cpn_store *src;
    int nb;
};
struct like_n {
    int n;
    const struct cpn_view *const *v;
};

static struct cpn_store *store_new(enum cpn_dtype dtype, int ndim, const int64_t *shape,
                                   enum tile_mode mode, const void *like)
{
    struct cpn_store *s = store_alloc(dtype, ndim, shape);
    if (!s) return NULL;
    cpn_stats.stores_live++;
    enum cpn_status st = CPN_OK;
    if (mode == TILE_LIKE) st = cpn_partition_like(s, 1, (const struct cpn_view *const *)&like);
    else if (mode == TILE_LIKE_N) st = cpn_partition_like(s, ((const struct like_n *)like)->n, ((const struct like_n *)like)->v);
    else if (mode == TILE_DEFAULT) st = cpn_partition_default(s);
    else if (mode == TILE_SLABS) st = cpn_partition_slabs(s, *(const int *)like);
    else if (mode == TILE_COPY) st = cpn_partition_copy(s, like);
    else if (mode == TILE_BATCH) st = cpn_partition_batch(s, ((const struct batch_of *)like)->src, ((const struct batch_of *)like)->nb);
    if (st != CPN_OK) {
        cpn_store_release(s);
        return NULL;
    }
    s->pinned = mode == TILE_SLABS || mode == TILE_BATCH;
    set_local(s);
    if (check_allocatable(s) != CPN_OK) {
        cpn_store_release(s);
        return NULL;
    }
    return s;
}

bool cpn_store_retile_like(struct cpn_store *s, const struct cpn_view *like)
{
    if (s->root || !s->tiled || s->pinned || s->naliases || cpn_store_allocated(s) || like->ndim != s->ndim)
        return false;
    for (int i = 0; i < s->ndim; i++)
        if (like->shape[i] != s->shape[i]) return false;
    int64_t *old = s->splits, total = 0;
    int grid[CPN_MAXDIM];
    int64_t rs[CPN_MAXDIM];
    for (int d = 0; d < s->ndim; d++) {
        grid[d] = s->grid[d];
        rs[d] = s->rank_stride[d];
        total += grid[d] + 1;
    }
    s->splits = NULL;
    s->tiled = false;
    if (cpn_partition_like(s, 1, &like) != CPN_OK || !s->tiled) {
        cpn_free(s->splits);   /* back to the tiling it had */
        s->splits = old;
        s->tiled = true;
        for (int d = 0; d < s->ndim; d++) {
            s->grid[d] = grid[d];
            s->rank_stride[d] = rs[d];
        }
        return false;
    }
    bool same = true;
    for (int d = 0; d < s->ndim; d++) same &= s->grid[d] == grid[d] && s->rank_stride[d] == rs[d];
    same = same && !memcmp(s->splits, old, (size_t)total * sizeof *old);
    cpn_free(old);
    set_local(s);
    return !same;
}

void cpn_store_split_in_blocks(struct cpn_store *s, int64_t block)
{
    if (s->ndim != 1 || !s->tiled || s->root || s->naliases || block < 2 || cpn_store_allocated(s))
        return;
    const int64_t rows = s->shape[0] / block;
    if (rows * block != s->shape[0]) return;
    for (int k = 0; k <= s->grid[0]; k++) s->splits[k] = rows * k / s->grid[0] * block;
    set_local(s);
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

struct cpn_store *cpn_store_new_like_n(enum cpn_dtype dtype, int ndim, const int64_t *shape, int n,
                                       const struct cpn_view *const *like)
{
    struct like_n l = {n, like};
    return store_new(dtype, ndim, shape, n > 0 && like[0] ? TILE_LIKE_N : TILE_DEFAULT, &l);
}

struct cpn_store *cpn_store_new_slabs(enum cpn_dtype dtype, int ndim, const int64_t *shape, int dim)
{
    return store_new(dtype, ndim, shape, TILE_SLABS, &dim);
}

struct cpn_store *cpn_store_new_tiled_as(enum cpn_dtype dtype, int ndim, const int64_t *shape,
                                         const struct cpn_store *src)
{
    return store_new(dtype, ndim, shape, TILE_COPY, src);
}

struct cpn_store *cpn_store_new_batch_as(enum cpn_dtype dtype, int ndim, const int64_t *shape,
                                         const struct cpn_store *src, int nb)
{
    struct batch_of b = {src, nb};
    return store_new(dtype, ndim, shape, TILE_BATCH, &b);
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

/* The dimension along which every tile of tiled root r is a run of whole C-order rows (the
 * only cut dimension, with nothing but size-1 dimensions before it): each rank's tile is then
 * one contiguous range of the root's flat indices.  -1 when the tiles are not such ranges. */
static int flat_cut(const struct cpn_store *r)
{
    int d0 = -1;
    for (int d = 0; d < r->ndim; d++)
        if (r->grid[d] > 1) {
            if (d0 >= 0) return -1;
            d0 = d;
        }
    for (int d = 0; d < d0; d++)
        if (r->shape[d] != 1) return -1;
    return d0;
}

struct cpn_store *cpn_store_flat_alias(struct cpn_store *s)
{
    return cpn_store_flat_alias_as(s, s->dtype);
}

struct cpn_store *cpn_store_flat_alias_as(struct cpn_store *s, enum cpn_dtype dtype)
{
    struct cpn_store *root = cpn_store_root(s);
    const int64_t ritem = (int64_t)cpn_dtype_size(root->dtype), item = (int64_t)cpn_dtype_size(dtype);
    const int64_t n = root->size * ritem / item;
    struct cpn_store *a = store_alloc(dtype, 1, &n);
    if (!a) return NULL;
    a->root = root;
    cpn_store_retain(root);
    const int d0 = root->tiled ? flat_cut(root) : -1;
    if (d0 < 0) return a;
    /* Tiled as the root's rows: rank q's range of flat indices is its tile of the root, so the
     * alias's tile is the root's tile buffer, element for element (byte for byte in another
     * dtype, when every range is whole elements of it). */
    int64_t row = ritem;
    for (int d = d0 + 1; d < root->ndim; d++) row *= root->shape[d];
    const int g = root->grid[d0];
    const int64_t *sp = root->splits;
    for (int d = 0; d < d0; d++) sp += root->grid[d] + 1;
    for (int k = 0; k <= g; k++)
        if (sp[k] * row % item) return a;   /* untiled: the gathered path */
    a->splits = cpn_alloc((size_t)(g + 1) * sizeof *a->splits);
    if (!a->splits) return a;   /* untiled: every access takes the gathered path, as before */
    for (int k = 0; k <= g; k++) a->splits[k] = sp[k] * row / item;
    a->tiled = true;
    a->grid[0] = g;
    a->rank_stride[0] = root->rank_stride[d0];
    set_local(a);
    root->naliases++;
    return a;
}

void cpn_store_retain(struct cpn_store *s) { s->refcnt++; }

void cpn_store_release(struct cpn_store *s)
{
    if (!s || --s->refcnt > 0) return;
    if (s->root) {
        if (s->tiled) s->root->naliases--;
        cpn_free(s->splits);
        cpn_store_release(s->root);
    } else {
        cpn_free(s->data);
        if (s->dev) cpn_free_device(s->dev, (size_t)s->tsize * cpn_dtype_size(s->dtype));
        s->dev = NULL;
        cpn_free(s->poison_msg);
        cpn_free(s->splits);
        cpn_stats.stores_live--;
    }
    const int c = store_class(s->cap);
    if (pool_n[c] < STORE_POOL) pool[c][pool_n[c]++] = s;
    else cpn_free(s);
}

/* Run a virtual store's generator into its new buffer. */
static void materialize(struct cpn_store *r)
{
    cpn_hostexec_generate(&r->gen, r->dtype, r->data, r->size);
    cpn_stats.virtual_materialized++;
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
    if (!r->data) r->data = zero && !from_dev && !r->uninit ? cpn_alloc_zeroed(n ? n : 1) : cpn_alloc(n ? n : 1);
    if (!r->data) return NULL;
    if (from_dev) {
        enum cpn_status st = cpn_backend_active()->to_host(r->data, r->dev, n);
        if (st != CPN_OK) return NULL;
        cpn_stats.bytes_to_host += (int64_t)n;
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
                                         : fresh && !r->uninit ? be->fill_zero(r->dev, n) : CPN_OK;
            if (st != CPN_OK) return NULL;
            if (r->data) cpn_stats.bytes_to_device += (int64_t)n;
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

#define VIRTUAL_READ_MAX 65536   /* bytes of a virtual store computed for a read, not stored */

bool cpn_store_reads_virtual(const struct cpn_store *s, int64_t off, int64_t n)
{
    const struct cpn_store *r = cpn_store_root(s);
    const int64_t item = (int64_t)cpn_dtype_size(r->dtype);
    return r->virt && n > 0 && n <= VIRTUAL_READ_MAX && n * 8 <= r->size * item && off >= 0 &&
           off % item == 0 && n % item == 0 && off + n <= r->size * item;
}

enum cpn_status cpn_store_read_bytes(const struct cpn_store *s, int64_t off, int64_t n, void *dst)
{
    struct cpn_store *r = cpn_store_root(s);
    if (n <= 0) return CPN_OK;
    if (cpn_store_reads_virtual(r, off, n)) {
        /* Counter-based generators: element i depends on i alone, so a few elements are computed
         * where they are read, bitwise those the whole store would hold. */
        const int64_t item = (int64_t)cpn_dtype_size(r->dtype);
        cpn_hostexec_generate_range(&r->gen, r->dtype, dst, off / item, n / item);
        return CPN_OK;
    }
    if (cpn_store_device_only(r)) {
        cpn_stats.bytes_to_host += n;
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
    cpn_stats.stores_virtual++;
}

bool cpn_store_is_virtual(const struct cpn_store *s) { return cpn_store_root(s)->virt; }

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

