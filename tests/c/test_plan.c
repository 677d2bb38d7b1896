/* test_plan.c: communication plans of random view pairs against a brute-force reference.
 *
 * For P ranks (1..6) and random 2-D stores, slices (any step, reversed), transposes and
 * broadcasts, every rank's plan for out_view = f(in_view) is checked element by element:
 *  - the work box holds exactly the output elements the rank owns;
 *  - every input element the rank needs from another rank q lies in a piece received from q;
 *  - every received piece lies in q's tile, and what r receives from q is exactly what q's own
 *    plan sends to r. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "dist.h"
#include "partition.h"
#include "store.h"
#include "view.h"

static int failures;
#define CHECK(c, ...)                                                                     \
    do {                                                                                  \
        if (!(c)) {                                                                       \
            if (failures < 20) {                                                          \
                printf("FAIL %s:%d: %s: ", __FILE__, __LINE__, #c);                      \
                printf(__VA_ARGS__);                                                      \
                printf("\n");                                                             \
            }                                                                             \
            failures++;                                                                   \
        }                                                                                 \
    } while (0)

static uint64_t rng = 88172645463325252ull;
static int64_t rnd(int64_t n)
{
    rng ^= rng << 13;
    rng ^= rng >> 7;
    rng ^= rng << 17;
    return (int64_t)(rng % (uint64_t)n);
}

/* A random view of `s` with shape `shape` (ndim 2) built from slices/transposes; or a broadcast
 * of a row.  Returns NULL when the random slice came out empty. */
static struct cpn_view *random_view(struct cpn_store *s, const int64_t *shape, int allow_bcast)
{
    struct cpn_view *v = cpn_view_new(s), *t;
    if (allow_bcast && rnd(4) == 0) {
        /* a row of s broadcast over shape[0] rows */
        struct cpn_view *row;
        cpn_view_index(v, 0, rnd(s->shape[0]), &row);
        cpn_view_release(v);
        int64_t n = row->shape[0] < shape[1] ? row->shape[0] : shape[1];
        cpn_view_slice(row, 0, 0, 1, n, &t);
        cpn_view_release(row);
        if (n != shape[1]) { cpn_view_release(t); return NULL; }
        cpn_view_broadcast(t, 2, shape, &v);
        cpn_view_release(t);
        return v;
    }
    int transpose = rnd(3) == 0;
    int64_t want[2] = {transpose ? shape[1] : shape[0], transpose ? shape[0] : shape[1]};
    for (int d = 0; d < 2; d++) {
        int64_t n = s->shape[d], len = want[d];
        int64_t step = 1 + rnd(2);
        if (rnd(3) == 0) step = -step;
        int64_t span = (len - 1) * (step < 0 ? -step : step) + 1;
        if (span > n) step = step < 0 ? -1 : 1, span = len;
        if (span > n) { cpn_view_release(v); return NULL; }
        int64_t start = rnd(n - span + 1);
        if (step < 0) start += span - 1;
        cpn_view_slice(v, d, start, step, len, &t);
        cpn_view_release(v);
        v = t;
    }
    if (transpose) {
        int perm[2] = {1, 0};
        cpn_view_transpose(v, perm, &t);
        cpn_view_release(v);
        v = t;
    }
    return v;
}

/* Store index of view element (i, j) in store dim d. */
static int64_t elem(const struct cpn_view *v, const int64_t *idx, int d)
{
    int64_t x = v->off[d];
    for (int i = 0; i < v->ndim; i++)
        if (v->sdim[i] == d) x += v->step[i] * idx[i];
    return x;
}

static int owner(const struct cpn_store *s, const int64_t *pos, int P)
{
    for (int r = 0; r < P; r++) {
        int64_t lo[CPN_MAXDIM], hi[CPN_MAXDIM];
        cpn_store_tile_box(s, r, lo, hi);
        int in = 1;
        for (int d = 0; d < s->ndim; d++) in &= pos[d] >= lo[d] && pos[d] < hi[d];
        if (in) return r;
    }
    return -1;
}

static int in_piece(const struct cpn_plan_piece *p, const int64_t *pos, int n)
{
    for (int d = 0; d < n; d++)
        if (pos[d] < p->lo[d] || pos[d] >= p->hi[d]) return 0;
    return 1;
}

static void one_case(int P, int trial)
{
    int64_t sa[2] = {2 + rnd(9), 2 + rnd(9)}, sb[2] = {2 + rnd(9), 2 + rnd(9)};
    int64_t shape[2] = {1 + rnd(sa[0] < sa[1] ? sa[0] : sa[1]), 1 + rnd(sa[0] < sa[1] ? sa[0] : sa[1])};
    uint64_t seed = rng;
    static struct cpn_plan_info info[8];
    struct cpn_store *out_s[8] = {0}, *in_s[8] = {0};
    struct cpn_view *ov[8] = {0}, *iv[8] = {0};
    int ok = 1;
    for (int r = 0; r < P && ok; r++) {
        /* Every rank builds the same stores and views (same random stream). */
        rng = seed;
        cpn_partition_configure(r, P, 1);
        out_s[r] = cpn_store_new(CPN_DTYPE_FLOAT64, 2, sa);
        in_s[r] = trial % 3 == 0 ? out_s[r] : cpn_store_new(CPN_DTYPE_FLOAT64, 2, sb);
        if (in_s[r] == out_s[r]) cpn_store_retain(in_s[r]);
        ov[r] = random_view(out_s[r], shape, 0);
        iv[r] = random_view(in_s[r], shape, 1);
        if (!ov[r] || !iv[r]) ok = 0;
    }
    if (ok) {
        for (int r = 0; r < P; r++) {
            cpn_partition_configure(r, P, 1);
            struct cpn_op op = {.kind = CPN_OPK_CAST, .nin = 1, .nout = 1};
            op.in[0] = iv[r];
            op.out[0] = ov[r];
            int rc = cpn_dist_plan_info(&op, &info[r]);
            CHECK(rc == 1, "plan not built (rc %d)", rc);
        }
        const struct cpn_view *o = ov[0], *in = iv[0];
        for (int r = 0; r < P; r++) {
            int64_t idx[2], pos[2], ipos[2];
            for (idx[0] = 0; idx[0] < shape[0]; idx[0]++)
                for (idx[1] = 0; idx[1] < shape[1]; idx[1]++) {
                    pos[0] = elem(o, idx, 0);
                    pos[1] = elem(o, idx, 1);
                    int mine = !out_s[0]->tiled || owner(out_s[0], pos, P) == r;  /* replicated: all */
                    int inw = info[r].work && idx[0] >= info[r].wlo[0] && idx[0] < info[r].whi[0] &&
                              idx[1] >= info[r].wlo[1] && idx[1] < info[r].whi[1];
                    CHECK(mine == inw, "P=%d r=%d work box wrong at (%lld,%lld): owner %d, sa=(%lld,%lld) shape=(%lld,%lld) work=%d w=[%lld,%lld)x[%lld,%lld) off=(%lld,%lld) sdim=(%d,%d) step=(%lld,%lld) tiled=%d grid=(%d,%d)", P, r,
                          (long long)idx[0], (long long)idx[1], owner(out_s[0], pos, P), (long long)sa[0], (long long)sa[1], (long long)shape[0], (long long)shape[1], info[r].work, (long long)info[r].wlo[0], (long long)info[r].whi[0], (long long)info[r].wlo[1], (long long)info[r].whi[1], (long long)o->off[0], (long long)o->off[1], o->sdim[0], o->sdim[1], (long long)o->step[0], (long long)o->step[1], out_s[0]->tiled, out_s[0]->grid[0], out_s[0]->grid[1]);
                    if (!mine) continue;
                    ipos[0] = elem(in, idx, 0);
                    ipos[1] = elem(in, idx, 1);
                    int q = owner(in_s[0], ipos, P);
                    if (q == r || !in_s[0]->tiled) continue;
                    int found = 0;
                    for (int j = 0; j < info[r].nrecv[0]; j++)
                        found += info[r].recv[0][j].rank == q && in_piece(&info[r].recv[0][j], ipos, 2);
                    CHECK(found == 1, "P=%d r=%d needs (%lld,%lld) from %d: found %d", P, r,
                          (long long)ipos[0], (long long)ipos[1], q, found);
                }
            for (int j = 0; j < info[r].nrecv[0]; j++) {
                const struct cpn_plan_piece *pc = &info[r].recv[0][j];
                int64_t lo[CPN_MAXDIM], hi[CPN_MAXDIM];
                cpn_store_tile_box(in_s[0], pc->rank, lo, hi);
                CHECK(pc->lo[0] >= lo[0] && pc->hi[0] <= hi[0] && pc->lo[1] >= lo[1] && pc->hi[1] <= hi[1],
                      "piece outside the sender's tile");
                int matched = 0;
                const struct cpn_plan_info *qi = &info[pc->rank];
                for (int k = 0; k < qi->nsend[0]; k++)
                    matched += qi->send[0][k].rank == r && !memcmp(qi->send[0][k].lo, pc->lo, 2 * 8) &&
                               !memcmp(qi->send[0][k].hi, pc->hi, 2 * 8);
                CHECK(matched == 1, "P=%d: rank %d receives a piece rank %d does not send", P, r, pc->rank);
            }
        }
    }
    for (int r = 0; r < P; r++) {
        cpn_view_release(ov[r]);
        cpn_view_release(iv[r]);
        cpn_store_release(out_s[r]);
        cpn_store_release(in_s[r]);
    }
}

int main(void)
{
    int cases = 0;
    for (int P = 1; P <= 6; P++)
        for (int t = 0; t < 400; t++, cases++) one_case(P, t);
    cpn_partition_configure(0, 1, 0);
    printf("%s (%d random view pairs)\n", failures ? "plan tests FAILED" : "plan tests passed", cases);
    return failures != 0;
}
