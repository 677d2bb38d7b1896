/* view.c: the affine view arithmetic.  Pure functions of their inputs; no data is touched. */
#include "view.h"

#include <string.h>

#include "alloc.h"

/* Views are made and dropped on every array expression: recycle them through free lists
 * instead of the general allocator.  (Only the Python-holding thread makes views.)  A flush
 * releases the views of up to 512 queued ops at once (several each): a pool holds them all,
 * so the next 512 ops do not go back to the system allocator (issue #21).  One pool per size
 * class: a view's arrays follow its record, room for 4, 8 or CPN_MAXDIM dimensions (view.h). */
#define VIEW_POOL 4096
enum { VCLASS_SMALL, VCLASS_MID, VCLASS_MAX, VCLASS_COUNT };
static const int class_cap[VCLASS_COUNT] = {4, 8, CPN_MAXDIM};
static struct cpn_view *pool[VCLASS_COUNT][VIEW_POOL];
static int pool_n[VCLASS_COUNT];

static int view_class(int n) { return n <= 4 ? VCLASS_SMALL : n <= 8 ? VCLASS_MID : VCLASS_MAX; }

static struct cpn_view *view_alloc(int c)
{
    const int cap = class_cap[c];
    struct cpn_view *v = cpn_alloc(sizeof *v + (size_t)cap * (3 * sizeof(int64_t) + sizeof(int)));
    if (!v) return NULL;
    v->cap = (uint8_t)cap;
    v->shape = (int64_t *)(v + 1);
    v->step = v->shape + cap;
    v->off = v->step + cap;
    v->sdim = (int *)(v->off + cap);
    return v;
}

/* A view of `store` with room for `ndim` view dimensions (and the store's); ndim and the arrays
 * are the caller's to fill (off is zero). */
static struct cpn_view *view_blank(struct cpn_store *store, int ndim)
{
    CPN_ASSERT(ndim >= 0 && ndim <= CPN_MAXDIM && store->ndim <= CPN_MAXDIM);
    const int c = view_class(ndim > store->ndim ? ndim : store->ndim);
    struct cpn_view *v = pool_n[c] ? pool[c][--pool_n[c]] : view_alloc(c);
    if (!v) return NULL;
    v->ndim = 0;
    v->dtype = store->dtype;
    v->part = 0;
    v->readonly = false;
    memset(v->off, 0, (size_t)store->ndim * sizeof v->off[0]);
    v->refcnt = 1;
    v->store = store;
    cpn_store_retain(store);
    return v;
}

/* A copy of src with room for `ndim` view dimensions (>= src->ndim). */
static struct cpn_view *view_clone(const struct cpn_view *src, int ndim)
{
    struct cpn_view *v = view_blank(src->store, ndim > src->ndim ? ndim : src->ndim);
    if (!v) return NULL;
    v->ndim = src->ndim;
    v->dtype = src->dtype;
    v->part = src->part;
    v->readonly = src->readonly;
    size_t n = (size_t)src->ndim;
    memcpy(v->shape, src->shape, n * sizeof v->shape[0]);
    memcpy(v->sdim, src->sdim, n * sizeof v->sdim[0]);
    memcpy(v->step, src->step, n * sizeof v->step[0]);
    memcpy(v->off, src->off, (size_t)src->store->ndim * sizeof v->off[0]);
    return v;
}

struct cpn_view *cpn_view_new_dims(struct cpn_store *store, int ndim)
{
    struct cpn_view *v = view_blank(store, ndim);
    if (!v) return NULL;
    v->ndim = store->ndim;
    for (int i = 0; i < store->ndim; i++) {
        v->shape[i] = store->shape[i];
        v->sdim[i] = i;
        v->step[i] = 1;
    }
    return v;
}

struct cpn_view *cpn_view_new(struct cpn_store *store) { return cpn_view_new_dims(store, store->ndim); }

void cpn_view_retain(struct cpn_view *v) { v->refcnt++; }

void cpn_view_release(struct cpn_view *v)
{
    if (!v || --v->refcnt > 0) return;
    CPN_ASSERT(v->ndim <= v->cap && v->store->ndim <= v->cap);
    cpn_store_release(v->store);
    const int c = view_class(v->cap);
    if (pool_n[c] < VIEW_POOL) pool[c][pool_n[c]++] = v;
    else cpn_free(v);
}

int64_t cpn_view_size(const struct cpn_view *v)
{
    int64_t n = 1;
    for (int i = 0; i < v->ndim; i++) n *= v->shape[i];
    return n;
}

void cpn_view_byte_layout(const struct cpn_view *v, int64_t *byte_strides, int64_t *byte_offset)
{
    const struct cpn_store *s = v->store;
    int64_t item = (int64_t)cpn_dtype_size(s->dtype);
    int64_t off = 0;
    for (int d = 0; d < s->ndim; d++) off += v->off[d] * s->stride[d];
    for (int i = 0; i < v->ndim; i++)
        byte_strides[i] = v->sdim[i] < 0 ? 0 : v->step[i] * s->stride[v->sdim[i]] * item;
    *byte_offset = off * item + (v->part == 2 ? item / 2 : 0);
}

enum cpn_status cpn_view_component(const struct cpn_view *v, int part, struct cpn_view **out)
{
    CPN_ASSERT(v->part == 0 && (part == 1 || part == 2));
    if (v->dtype != CPN_DTYPE_COMPLEX64 && v->dtype != CPN_DTYPE_COMPLEX128)
        return cpn_error(CPN_ERR_TYPE, "only complex views have real and imaginary components");
    struct cpn_view *r = view_clone(v, v->ndim);
    if (!r) return CPN_ERR_NOMEM;
    r->part = part;
    r->dtype = v->dtype == CPN_DTYPE_COMPLEX64 ? CPN_DTYPE_FLOAT32 : CPN_DTYPE_FLOAT64;
    *out = r;
    return CPN_OK;
}

enum cpn_status cpn_view_reinterpret(const struct cpn_view *v, enum cpn_dtype dtype, struct cpn_view **out)
{
    if (cpn_dtype_size(dtype) != cpn_dtype_size(v->dtype))
        return cpn_error(CPN_ERR_TYPE, "a reinterpreting view keeps the element size");
    struct cpn_view *r = view_clone(v, v->ndim);
    if (!r) return CPN_ERR_NOMEM;
    r->dtype = dtype;
    *out = r;
    return CPN_OK;
}

enum cpn_status cpn_view_retype(const struct cpn_view *v, enum cpn_dtype dtype, struct cpn_view **out)
{
    const int64_t old = (int64_t)cpn_dtype_size(v->dtype), item = (int64_t)cpn_dtype_size(dtype);
    const int last = v->ndim - 1;
    if (old == item) return cpn_view_reinterpret(v, dtype, out);
    if (last < 0 || v->part || (int64_t)cpn_dtype_size(v->store->dtype) != old)
        return CPN_ERR_UNSUPPORTED;
    int64_t bst[CPN_MAXDIM], boff;
    cpn_view_byte_layout(v, bst, &boff);
    if (v->shape[last] > 1 && bst[last] != old) return CPN_ERR_UNSUPPORTED;   /* not contiguous */
    if (v->shape[last] * old % item || boff % item) return CPN_ERR_UNSUPPORTED;
    for (int i = 0; i < last; i++)
        if (bst[i] % item) return CPN_ERR_UNSUPPORTED;
    struct cpn_store *flat = cpn_store_flat_alias_as(v->store, dtype);
    if (!flat) return CPN_ERR_NOMEM;
    struct cpn_view *r = view_blank(flat, v->ndim);
    cpn_store_release(flat);
    if (!r) return CPN_ERR_NOMEM;
    r->dtype = dtype;
    r->readonly = v->readonly;
    r->ndim = v->ndim;
    r->off[0] = boff / item;
    for (int i = 0; i < v->ndim; i++) {
        r->shape[i] = i == last ? v->shape[i] * old / item : v->shape[i];
        bool walks = i == last ? r->shape[i] > 1 : v->sdim[i] >= 0 && bst[i] != 0;
        r->sdim[i] = walks ? 0 : -1;
        r->step[i] = !walks ? 0 : i == last ? 1 : bst[i] / item;
    }
    *out = r;
    return CPN_OK;
}

enum cpn_status cpn_view_bits(const struct cpn_view *v, struct cpn_view **out)
{
    enum cpn_dtype dt;
    switch (cpn_dtype_class(v->dtype) == CPN_CLASS_COMPLEX ? 0 : cpn_dtype_size(v->dtype)) {
    case 1: dt = CPN_DTYPE_UINT8; break;
    case 2: dt = CPN_DTYPE_UINT16; break;
    case 4: dt = CPN_DTYPE_UINT32; break;
    case 8: dt = CPN_DTYPE_UINT64; break;
    default: return cpn_error(CPN_ERR_TYPE, "only real views have an unsigned integer bit view");
    }
    return cpn_view_reinterpret(v, dt, out);
}

char *cpn_view_origin(const struct cpn_view *v)
{
    char *base = cpn_store_data(v->store);
    if (!base) return NULL;
    int64_t strides[CPN_MAXDIM], off;
    cpn_view_byte_layout(v, strides, &off);
    return base + off;
}

enum cpn_status cpn_view_slice(const struct cpn_view *v, int dim, int64_t start, int64_t step,
                               int64_t len, struct cpn_view **out)
{
    CPN_ASSERT(dim >= 0 && dim < v->ndim && step != 0 && len >= 0);
    struct cpn_view *r = view_clone(v, v->ndim);
    if (!r) return CPN_ERR_NOMEM;
    int d = r->sdim[dim];
    if (d >= 0 && len > 0) r->off[d] += start * r->step[dim];
    r->step[dim] *= step;
    r->shape[dim] = len;
    if (d < 0) r->step[dim] = 0;
    *out = r;
    return CPN_OK;
}

enum cpn_status cpn_view_index(const struct cpn_view *v, int dim, int64_t i, struct cpn_view **out)
{
    CPN_ASSERT(dim >= 0 && dim < v->ndim);
    int64_t n = v->shape[dim];
    if (i < -n || i >= n)
        return cpn_error(CPN_ERR_INDEX, "index %lld is out of bounds for axis %d with size %lld",
                         (long long)i, dim, (long long)n);
    if (i < 0) i += n;
    struct cpn_view *r = view_clone(v, v->ndim);
    if (!r) return CPN_ERR_NOMEM;
    if (r->sdim[dim] >= 0) r->off[r->sdim[dim]] += i * r->step[dim];
    for (int k = dim; k + 1 < r->ndim; k++) {
        r->shape[k] = r->shape[k + 1];
        r->sdim[k] = r->sdim[k + 1];
        r->step[k] = r->step[k + 1];
    }
    r->ndim--;
    *out = r;
    return CPN_OK;
}

enum cpn_status cpn_view_newaxis(const struct cpn_view *v, int pos, struct cpn_view **out)
{
    CPN_ASSERT(pos >= 0 && pos <= v->ndim);
    if (v->ndim >= CPN_MAXDIM)
        return cpn_error(CPN_ERR_INDEX, "number of dimensions must be within [0, %d]", CPN_MAXDIM);
    struct cpn_view *r = view_clone(v, v->ndim + 1);
    if (!r) return CPN_ERR_NOMEM;
    for (int k = r->ndim; k > pos; k--) {
        r->shape[k] = r->shape[k - 1];
        r->sdim[k] = r->sdim[k - 1];
        r->step[k] = r->step[k - 1];
    }
    r->shape[pos] = 1;
    r->sdim[pos] = -1;
    r->step[pos] = 0;
    r->ndim++;
    *out = r;
    return CPN_OK;
}

enum cpn_status cpn_view_transpose(const struct cpn_view *v, const int *perm, struct cpn_view **out)
{
    struct cpn_view *r = view_clone(v, v->ndim);
    if (!r) return CPN_ERR_NOMEM;
    for (int i = 0; i < v->ndim; i++) {
        CPN_ASSERT(perm[i] >= 0 && perm[i] < v->ndim);
        r->shape[i] = v->shape[perm[i]];
        r->sdim[i] = v->sdim[perm[i]];
        r->step[i] = v->step[perm[i]];
    }
    *out = r;
    return CPN_OK;
}

enum cpn_status cpn_view_broadcast(const struct cpn_view *v, int ndim, const int64_t *shape,
                                   struct cpn_view **out)
{
    if (ndim < v->ndim) return cpn_error(CPN_ERR_VALUE, "cannot broadcast to fewer dimensions");
    struct cpn_view *r = view_clone(v, ndim);
    if (!r) return CPN_ERR_NOMEM;
    int lead = ndim - v->ndim;
    for (int i = ndim - 1; i >= 0; i--) {
        int j = i - lead;
        if (j >= 0 && v->shape[j] == shape[i]) {
            r->shape[i] = v->shape[j];
            r->sdim[i] = v->sdim[j];
            r->step[i] = v->step[j];
        } else if (j < 0 || v->shape[j] == 1) {
            r->shape[i] = shape[i];
            r->sdim[i] = -1;
            r->step[i] = 0;
        } else {
            cpn_view_release(r);
            return cpn_error(CPN_ERR_VALUE, "cannot broadcast a dimension of size %lld to size %lld",
                             (long long)v->shape[j], (long long)shape[i]);
        }
    }
    r->ndim = ndim;
    *out = r;
    return CPN_OK;
}

/* Rebase a view onto its root's flat alias: every dimension then walks store dimension 0 with
 * its linear element stride.  Fails only on OOM. */
static enum cpn_status view_flatten(const struct cpn_view *v, struct cpn_view **out)
{
    struct cpn_store *flat = cpn_store_flat_alias(v->store);
    if (!flat) return CPN_ERR_NOMEM;
    struct cpn_view *r = view_blank(flat, v->ndim);
    cpn_store_release(flat);
    if (!r) return CPN_ERR_NOMEM;
    r->dtype = v->dtype;
    r->part = v->part;
    r->readonly = v->readonly;
    const struct cpn_store *s = v->store;
    int64_t off = 0;
    for (int d = 0; d < s->ndim; d++) off += v->off[d] * s->stride[d];
    r->ndim = v->ndim;
    r->off[0] = off;
    for (int i = 0; i < v->ndim; i++) {
        r->shape[i] = v->shape[i];
        r->sdim[i] = v->sdim[i] < 0 ? -1 : 0;
        r->step[i] = v->sdim[i] < 0 ? 0 : v->step[i] * s->stride[v->sdim[i]];
    }
    *out = r;
    return CPN_OK;
}

/* Try the reshape on v's own store dimensions.  Groups of old dimensions whose product equals a
 * group of new dimensions are matched left to right (NumPy's _attempt_nocopy_reshape); a group
 * may merge old dimensions only when they walk one store dimension contiguously. */
static enum cpn_status reshape_on_store(const struct cpn_view *v, int ndim, const int64_t *shape,
                                        struct cpn_view **out)
{
    int oshape_n = 0, odim[CPN_MAXDIM];
    for (int i = 0; i < v->ndim; i++)
        if (v->shape[i] != 1) odim[oshape_n++] = i;
    struct cpn_view *r = view_clone(v, ndim);
    if (!r) return CPN_ERR_NOMEM;
    r->ndim = ndim;
    int oi = 0, ni = 0;
    /* Dimensions of extent 1 in the new shape walk nothing. */
    while (ni < ndim || oi < oshape_n) {
        while (ni < ndim && shape[ni] == 1) {
            r->shape[ni] = 1; r->sdim[ni] = -1; r->step[ni] = 0; ni++;
        }
        if (ni >= ndim && oi >= oshape_n) break;
        if (ni >= ndim || oi >= oshape_n) goto noview;
        int o0 = oi, n0 = ni;
        int64_t op = v->shape[odim[oi++]], np = shape[ni++];
        while (op != np) {
            if (op < np) {
                if (oi >= oshape_n) goto noview;
                op *= v->shape[odim[oi++]];
            } else {
                if (ni >= ndim) goto noview;
                np *= shape[ni++];
            }
        }
        /* The old group must be one affine walk: consecutive dims on the same store dim. */
        for (int k = o0; k + 1 < oi; k++) {
            int a = odim[k], b = odim[k + 1];
            if (v->sdim[a] != v->sdim[b] || v->step[a] != v->step[b] * v->shape[b]) goto noview;
        }
        int64_t inner_step = v->step[odim[oi - 1]];
        int sd = v->sdim[odim[oi - 1]];
        int64_t acc = 1;
        for (int k = ni - 1; k >= n0; k--) {
            r->shape[k] = shape[k];
            if (shape[k] == 1) { r->sdim[k] = -1; r->step[k] = 0; continue; }
            r->sdim[k] = sd;
            r->step[k] = sd < 0 ? 0 : inner_step * acc;
            acc *= shape[k];
        }
    }
    *out = r;
    return CPN_OK;
noview:
    cpn_view_release(r);
    return CPN_ERR_NOVIEW;
}

enum cpn_status cpn_view_reshape(const struct cpn_view *v, int ndim, const int64_t *shape,
                                 struct cpn_view **out)
{
    int64_t n = 1;
    for (int i = 0; i < ndim; i++) n *= shape[i];
    if (n != cpn_view_size(v))
        return cpn_error(CPN_ERR_VALUE, "cannot reshape array of size %lld into a shape of size %lld",
                         (long long)cpn_view_size(v), (long long)n);
    if (n == 0) {
        /* An empty result: any map will do; keep the store. */
        struct cpn_view *r = view_clone(v, ndim);
        if (!r) return CPN_ERR_NOMEM;
        r->ndim = ndim;
        for (int i = 0; i < ndim; i++) { r->shape[i] = shape[i]; r->sdim[i] = -1; r->step[i] = 0; }
        *out = r;
        return CPN_OK;
    }
    enum cpn_status st = reshape_on_store(v, ndim, shape, out);
    if (st != CPN_ERR_NOVIEW || v->store->ndim == 1) return st;
    struct cpn_view *flat;
    CPN_TRY(view_flatten(v, &flat));
    st = reshape_on_store(flat, ndim, shape, out);
    cpn_view_release(flat);
    return st;
}

enum cpn_status cpn_view_diagonal(const struct cpn_view *v, int64_t offset, int axis1, int axis2,
                                  struct cpn_view **out)
{
    CPN_ASSERT(axis1 >= 0 && axis1 < v->ndim && axis2 >= 0 && axis2 < v->ndim && axis1 != axis2);
    int64_t n1 = v->shape[axis1], n2 = v->shape[axis2];
    if (offset < -n1) offset = -n1;   /* past either end: empty (and -offset cannot overflow) */
    if (offset > n2) offset = n2;
    int64_t i1 = offset < 0 ? -offset : 0, i2 = offset > 0 ? offset : 0;
    int64_t k = n1 - i1 < n2 - i2 ? n1 - i1 : n2 - i2;
    if (k < 0) k = 0;
    struct cpn_view *a, *b;
    CPN_TRY(cpn_view_slice(v, axis1, k ? i1 : 0, 1, k, &a));
    enum cpn_status st = cpn_view_slice(a, axis2, k ? i2 : 0, 1, k, &b);
    cpn_view_release(a);
    if (st != CPN_OK) return st;
    int d1 = b->sdim[axis1], d2 = b->sdim[axis2];
    if (k > 0 && d1 >= 0 && d2 >= 0 && d1 != d2) {   /* two store dimensions: on the flat alias */
        st = view_flatten(b, &a);
        cpn_view_release(b);
        if (st != CPN_OK) return st;
        b = a;
        d1 = b->sdim[axis1];
        d2 = b->sdim[axis2];
    }
    struct cpn_view *r = view_clone(b, b->ndim);
    cpn_view_release(b);
    if (!r) return CPN_ERR_NOMEM;
    int sd = d1 >= 0 ? d1 : d2;
    int64_t step = (d1 >= 0 ? r->step[axis1] : 0) + (d2 >= 0 ? r->step[axis2] : 0);
    int n = 0;
    for (int i = 0; i < r->ndim; i++) {
        if (i == axis1 || i == axis2) continue;
        r->shape[n] = r->shape[i];
        r->sdim[n] = r->sdim[i];
        r->step[n] = r->step[i];
        n++;
    }
    r->shape[n] = k;
    r->sdim[n] = k > 0 ? sd : -1;
    r->step[n] = k > 0 && sd >= 0 ? step : 0;
    r->ndim = n + 1;
    r->readonly = true;
    *out = r;
    return CPN_OK;
}

bool cpn_view_same(const struct cpn_view *a, const struct cpn_view *b)
{
    if (a->store != b->store || a->ndim != b->ndim || a->part != b->part) return false;
    for (int i = 0; i < a->ndim; i++)
        if (a->shape[i] != b->shape[i] || a->sdim[i] != b->sdim[i] || a->step[i] != b->step[i])
            return false;
    for (int d = 0; d < a->store->ndim; d++)
        if (a->off[d] != b->off[d]) return false;
    return true;
}

void cpn_view_footprint(const struct cpn_view *v, int64_t *lo, int64_t *hi)
{
    for (int d = 0; d < v->store->ndim; d++) lo[d] = hi[d] = v->off[d];
    for (int i = 0; i < v->ndim; i++) {
        if (v->sdim[i] < 0 || v->shape[i] == 0) continue;
        int64_t reach = v->step[i] * (v->shape[i] - 1);
        if (reach < 0) lo[v->sdim[i]] += reach; else hi[v->sdim[i]] += reach;
    }
}

/* Byte interval [lo, hi] of the view within its root buffer. */
static void byte_extent(const struct cpn_view *v, int64_t *lo, int64_t *hi)
{
    int64_t st[CPN_MAXDIM], off;
    cpn_view_byte_layout(v, st, &off);
    *lo = *hi = off;
    for (int i = 0; i < v->ndim; i++) {
        int64_t reach = st[i] * (v->shape[i] - 1);
        if (reach < 0) *lo += reach; else *hi += reach;
    }
    *hi += (int64_t)cpn_dtype_size(v->dtype) - 1;
}

/* How view v walks store dimension d: 0 when none of its dimensions of extent > 1 does (a fixed
 * index, off[d]), 1 with the step in *step when exactly one does, 2 when several do. */
static int dim_walk(const struct cpn_view *v, int d, int64_t *step)
{
    int n = 0;
    for (int i = 0; i < v->ndim; i++)
        if (v->sdim[i] == d && v->shape[i] > 1) {
            *step = v->step[i];
            n++;
        }
    return n < 2 ? n : 2;
}

/* Do a and b (views of one store) walk disjoint lattices of some store dimension: the same step
 * s (|s| > 1) from offsets that differ modulo s, or a fixed index off a's lattice?  Red-black
 * sweeps (`a[1::2, 1::2]` beside `a[0::2, 1::2]`) then fuse in place (issue #21). */
static bool lattices_disjoint(const struct cpn_view *a, const struct cpn_view *b)
{
    for (int d = 0; d < a->store->ndim; d++) {
        int64_t sa = 0, sb = 0;
        const int wa = dim_walk(a, d, &sa), wb = dim_walk(b, d, &sb);
        const int64_t diff = a->off[d] - b->off[d];
        int64_t m = 0;
        if (wa == 1 && wb == 1 && sa == sb) m = sa;
        else if (wa == 1 && wb == 0) m = sa;
        else if (wa == 0 && wb == 1) m = sb;
        if (m < 0) m = -m;
        if (m > 1 && diff % m != 0) return true;
    }
    return false;
}

bool cpn_view_may_overlap(const struct cpn_view *a, const struct cpn_view *b)
{
    if (cpn_store_root(a->store) != cpn_store_root(b->store)) return false;
    if (cpn_view_size(a) == 0 || cpn_view_size(b) == 0) return false;
    if (a->part && b->part && a->part != b->part) return false;
    if (a->store == b->store) {
        int64_t alo[CPN_MAXDIM], ahi[CPN_MAXDIM], blo[CPN_MAXDIM], bhi[CPN_MAXDIM];
        cpn_view_footprint(a, alo, ahi);
        cpn_view_footprint(b, blo, bhi);
        for (int d = 0; d < a->store->ndim; d++)
            if (ahi[d] < blo[d] || bhi[d] < alo[d]) return false;
        return !lattices_disjoint(a, b);
    }
    int64_t alo, ahi, blo, bhi;
    byte_extent(a, &alo, &ahi);
    byte_extent(b, &blo, &bhi);
    return !(ahi < blo || bhi < alo);
}

bool cpn_view_is_contiguous(const struct cpn_view *v)
{
    if (v->part || cpn_view_size(v) != v->store->size) return false;
    int64_t st[CPN_MAXDIM], off;
    cpn_view_byte_layout(v, st, &off);
    if (off != 0) return false;
    int64_t expect = (int64_t)cpn_dtype_size(v->store->dtype);
    for (int i = v->ndim - 1; i >= 0; i--) {
        if (v->shape[i] == 1) continue;
        if (st[i] != expect) return false;
        expect *= v->shape[i];
    }
    return true;
}

bool cpn_view_covers_store(const struct cpn_view *v)
{
    if (v->part || cpn_view_size(v) != v->store->size) return false;
    for (int i = 0; i < v->ndim; i++)
        if (v->sdim[i] < 0 && v->shape[i] > 1) return false;
    return true;
}

bool cpn_view_is_whole(const struct cpn_view *v)
{
    const struct cpn_store *s = v->store;
    if (s->root || v->part || v->ndim != s->ndim || v->dtype != s->dtype) return false;
    for (int d = 0; d < v->ndim; d++)
        if (v->sdim[d] != d || v->step[d] != 1 || v->off[d] != 0 || v->shape[d] != s->shape[d]) return false;
    return true;
}
