/* test_view.c: the view arithmetic against a brute-force reference, without Python.
 *
 * The reference is NumPy's model: a view is (byte offset, byte strides) on the buffer, and every
 * view operation is the textbook stride rule.  Each case applies the same operations to both and
 * compares the buffer offset of every element. */
#include <stdio.h>
#include <string.h>

#include "stats.h"
#include "view.h"

#include "check.h"

struct ref {
    int ndim;
    int64_t shape[CPN_MAXDIM], stride[CPN_MAXDIM], off; /* elements */
};

static struct ref ref_full(const struct cpn_store *s)
{
    struct ref r = {.ndim = s->ndim};
    for (int i = 0; i < s->ndim; i++) {
        r.shape[i] = s->shape[i];
        r.stride[i] = s->stride[i];
    }
    return r;
}

/* Compare every element's position. */
static void same_map(const struct cpn_view *v, const struct ref *r, const char *what)
{
    int64_t bst[CPN_MAXDIM], boff;
    cpn_view_byte_layout(v, bst, &boff);
    int64_t item = (int64_t)cpn_dtype_size(v->store->dtype);
    int ok = v->ndim == r->ndim;
    for (int i = 0; ok && i < v->ndim; i++) ok = v->shape[i] == r->shape[i];
    int64_t n = cpn_view_size(v);
    for (int64_t k = 0; ok && k < n; k++) {
        int64_t q = k, a = boff, b = r->off * item;
        for (int d = v->ndim - 1; d >= 0; d--) {
            int64_t i = q % v->shape[d];
            q /= v->shape[d];
            a += i * bst[d];
            b += i * r->stride[d] * item;
        }
        ok = a == b;
    }
    if (!ok) printf("  map mismatch in %s\n", what);
    CHECK(ok);
}

static struct ref ref_slice(struct ref r, int d, int64_t start, int64_t step, int64_t len)
{
    if (len > 0) r.off += start * r.stride[d];
    r.stride[d] *= step;
    r.shape[d] = len;
    return r;
}

static struct ref ref_index(struct ref r, int d, int64_t i)
{
    r.off += i * r.stride[d];
    for (int k = d; k + 1 < r.ndim; k++) {
        r.shape[k] = r.shape[k + 1];
        r.stride[k] = r.stride[k + 1];
    }
    r.ndim--;
    return r;
}

static void test_slices(void)
{
    int64_t shape[3] = {5, 6, 7};
    struct cpn_store *s = cpn_store_new(CPN_DTYPE_FLOAT64, 3, shape);
    struct cpn_view *v = cpn_view_new(s), *a, *b, *c, *t;
    struct ref r = ref_full(s);
    same_map(v, &r, "full");
    /* a = v[1:5:2, ::-1, 3] */
    CHECK(cpn_view_slice(v, 0, 1, 2, 2, &a) == CPN_OK);
    CHECK(cpn_view_slice(a, 1, 5, -1, 6, &b) == CPN_OK);
    CHECK(cpn_view_index(b, 2, 3, &c) == CPN_OK);
    struct ref rc = ref_index(ref_slice(ref_slice(r, 0, 1, 2, 2), 1, 5, -1, 6), 2, 3);
    same_map(c, &rc, "slice/reverse/index");
    /* negative index and out of range */
    struct cpn_view *e;
    CHECK(cpn_view_index(v, 0, -1, &e) == CPN_OK);
    struct ref re = ref_index(r, 0, 4);
    same_map(e, &re, "negative index");
    CHECK(cpn_view_index(v, 0, 5, &t) == CPN_ERR_INDEX);
    CHECK(cpn_view_index(v, 0, -6, &t) == CPN_ERR_INDEX);
    /* transpose of the slice */
    int perm[2] = {1, 0};
    CHECK(cpn_view_transpose(c, perm, &t) == CPN_OK);
    struct ref rt = rc;
    rt.shape[0] = rc.shape[1]; rt.shape[1] = rc.shape[0];
    rt.stride[0] = rc.stride[1]; rt.stride[1] = rc.stride[0];
    same_map(t, &rt, "transpose");
    cpn_view_release(t);
    cpn_view_release(e);
    cpn_view_release(c);
    cpn_view_release(b);
    cpn_view_release(a);
    cpn_view_release(v);
    cpn_store_release(s);
}

static void test_broadcast_newaxis(void)
{
    int64_t shape[1] = {4};
    struct cpn_store *s = cpn_store_new(CPN_DTYPE_INT32, 1, shape);
    struct cpn_view *v = cpn_view_new(s), *n, *b, *bad;
    CHECK(cpn_view_newaxis(v, 1, &n) == CPN_OK);   /* (4, 1) */
    int64_t to[3] = {2, 4, 3};
    CHECK(cpn_view_broadcast(n, 3, to, &b) == CPN_OK);
    struct ref r = {.ndim = 3, .shape = {2, 4, 3}, .stride = {0, 1, 0}};
    same_map(b, &r, "newaxis+broadcast");
    int64_t to_bad[2] = {3, 5};
    CHECK(cpn_view_broadcast(v, 2, to_bad, &bad) == CPN_ERR_VALUE);
    cpn_view_release(b);
    cpn_view_release(n);
    cpn_view_release(v);
    cpn_store_release(s);
}

static void test_reshape(void)
{
    int64_t shape[2] = {4, 6};
    struct cpn_store *s = cpn_store_new(CPN_DTYPE_FLOAT32, 2, shape);
    struct cpn_view *v = cpn_view_new(s), *flat, *back, *split, *t, *tf, *sl, *slr;
    /* merge both dims: expressed on the flat alias, same buffer */
    int64_t f[1] = {24};
    CHECK(cpn_view_reshape(v, 1, f, &flat) == CPN_OK);
    struct ref rf = {.ndim = 1, .shape = {24}, .stride = {1}};
    same_map(flat, &rf, "ravel");
    CHECK(cpn_store_root(flat->store) == s);
    int64_t b3[3] = {2, 3, 4};
    CHECK(cpn_view_reshape(flat, 3, b3, &back) == CPN_OK);
    struct ref rb = {.ndim = 3, .shape = {2, 3, 4}, .stride = {12, 4, 1}};
    same_map(back, &rb, "reshape back");
    /* split a dim on the store itself */
    int64_t sp[3] = {4, 2, 3};
    CHECK(cpn_view_reshape(v, 3, sp, &split) == CPN_OK);
    CHECK(split->store == s);
    struct ref rs = {.ndim = 3, .shape = {4, 2, 3}, .stride = {6, 3, 1}};
    same_map(split, &rs, "split");
    /* a transpose cannot be flattened without a copy */
    int perm[2] = {1, 0};
    CHECK(cpn_view_transpose(v, perm, &t) == CPN_OK);
    CHECK(cpn_view_reshape(t, 1, f, &tf) == CPN_ERR_NOVIEW);
    /* a column slice v[:, 1:3] reshaped to (4, 2, 1) is a view; to (8,) is not */
    CHECK(cpn_view_slice(v, 1, 1, 1, 2, &sl) == CPN_OK);
    int64_t s421[3] = {4, 2, 1}, s8[1] = {8};
    CHECK(cpn_view_reshape(sl, 3, s421, &slr) == CPN_OK);
    struct ref rsl = {.ndim = 3, .shape = {4, 2, 1}, .stride = {6, 1, 0}, .off = 1};
    same_map(slr, &rsl, "slice reshape");
    CHECK(cpn_view_reshape(sl, 1, s8, &tf) == CPN_ERR_NOVIEW);
    int64_t bad[1] = {7};
    CHECK(cpn_view_reshape(v, 1, bad, &tf) == CPN_ERR_VALUE);
    cpn_view_release(slr);
    cpn_view_release(sl);
    cpn_view_release(t);
    cpn_view_release(split);
    cpn_view_release(back);
    cpn_view_release(flat);
    cpn_view_release(v);
    cpn_store_release(s);
}

static void test_overlap(void)
{
    int64_t shape[2] = {6, 6};
    struct cpn_store *s = cpn_store_new(CPN_DTYPE_FLOAT64, 2, shape);
    struct cpn_view *v = cpn_view_new(s), *center, *north, *top, *bottom, *flat;
    cpn_view_slice(v, 0, 1, 1, 4, &top);      /* rows 1..4 */
    cpn_view_slice(top, 1, 1, 1, 4, &center); /* [1:-1, 1:-1] */
    cpn_view_slice(v, 0, 0, 1, 1, &north);    /* row 0 */
    cpn_view_slice(v, 0, 5, 1, 1, &bottom);   /* row 5 */
    CHECK(cpn_view_may_overlap(center, top));
    CHECK(!cpn_view_may_overlap(center, north));
    CHECK(!cpn_view_may_overlap(north, bottom));
    CHECK(cpn_view_same(center, center));
    CHECK(!cpn_view_same(center, top));
    int64_t f[1] = {36};
    cpn_view_reshape(v, 1, f, &flat);
    CHECK(cpn_view_may_overlap(flat, north));
    CHECK(cpn_view_is_contiguous(v) && cpn_view_is_contiguous(flat) && !cpn_view_is_contiguous(center));
    cpn_view_release(flat);
    cpn_view_release(bottom);
    cpn_view_release(north);
    cpn_view_release(center);
    cpn_view_release(top);
    cpn_view_release(v);
    cpn_store_release(s);
}

/* numpy.diagonal: one dimension walking two (the sum of their strides). */
static void test_diagonal(void)
{
    int64_t shape[2] = {4, 6};
    struct cpn_store *s = cpn_store_new(CPN_DTYPE_FLOAT32, 2, shape);
    struct cpn_view *v = cpn_view_new(s), *d, *sl, *sl2;
    CHECK(cpn_view_diagonal(v, 1, 0, 1, &d) == CPN_OK);
    struct ref r1 = {.ndim = 1, .shape = {4}, .stride = {7}, .off = 1};
    same_map(d, &r1, "diagonal offset 1");
    CHECK(d->readonly && cpn_store_root(d->store) == s);
    cpn_view_release(d);
    /* of v[::-1, 1::2], offset -1: from (1, 0), steps -6 and 2 */
    CHECK(cpn_view_slice(v, 0, 3, -1, 4, &sl) == CPN_OK);
    CHECK(cpn_view_slice(sl, 1, 1, 2, 3, &sl2) == CPN_OK);
    CHECK(cpn_view_diagonal(sl2, -1, 0, 1, &d) == CPN_OK);
    struct ref r2 = {.ndim = 1, .shape = {3}, .stride = {-4}, .off = 13};
    same_map(d, &r2, "diagonal of a reversed, stepped slice");
    cpn_view_release(d);
    CHECK(cpn_view_diagonal(v, 9, 1, 0, &d) == CPN_OK);   /* past the end: empty */
    CHECK(d->ndim == 1 && d->shape[0] == 0);
    cpn_view_release(d);
    cpn_view_release(sl2);
    cpn_view_release(sl);
    cpn_view_release(v);
    cpn_store_release(s);

    /* 3-D, axes (2, 0), offset 1: the other axis first, then the diagonal */
    int64_t shape3[3] = {2, 3, 4};
    s = cpn_store_new(CPN_DTYPE_INT32, 3, shape3);
    v = cpn_view_new(s);
    CHECK(cpn_view_diagonal(v, 1, 2, 0, &d) == CPN_OK);
    struct ref r3 = {.ndim = 2, .shape = {3, 1}, .stride = {4, 13}, .off = 12};
    same_map(d, &r3, "diagonal of axes (2, 0)");
    cpn_view_release(d);
    cpn_view_release(v);
    cpn_store_release(s);

    /* both axes on one store dimension (a split reshape): stays on the store itself */
    int64_t shape1[1] = {12}, s34[2] = {3, 4};
    s = cpn_store_new(CPN_DTYPE_FLOAT64, 1, shape1);
    v = cpn_view_new(s);
    CHECK(cpn_view_reshape(v, 2, s34, &sl) == CPN_OK);
    CHECK(cpn_view_diagonal(sl, 0, 0, 1, &d) == CPN_OK);
    struct ref r4 = {.ndim = 1, .shape = {3}, .stride = {5}};
    same_map(d, &r4, "diagonal of a split dimension");
    CHECK(d->store == s);
    cpn_view_release(d);
    cpn_view_release(sl);
    cpn_view_release(v);
    cpn_store_release(s);
}

int main(void)
{
    test_slices();
    test_broadcast_newaxis();
    test_reshape();
    test_overlap();
    test_diagonal();
    CHECK(cpn_stats.stores_live == 0);
    printf("%s\n", failures ? "view tests FAILED" : "view tests passed");
    return failures != 0;
}
