/* fft.c: discrete Fourier transforms of strided n-d operands on FFTW3 (see kernels.h).
 *
 * One call transforms a set of axes (complex to complex) or one axis (real to complex, complex
 * to real) of an n-d operand, batched over every other axis: one FFTW guru64 plan covers the
 * whole call (transform dims + "howmany" dims, strides in elements), so no batch loop is ours.
 * An input that is not C-contiguous and aligned is packed first: FFTW then plans, and rounds,
 * alike for every layout of one shape, as NumPy's results do not depend on strides.  Plans
 * are cached by their full description (kind, precision, dims, strides, the operands'
 * alignment, threads): FFTW's new-array execute functions then run a cached plan on
 * other buffers of the same layout and alignment.  Planning uses FFTW_ESTIMATE, which never
 * touches the buffers, so plans are made on the caller's own operands.
 *
 * Threads: FFTW's OpenMP build (libfftw3_omp), so FFTW runs on cupynum's own OpenMP pool with
 * cupynum's thread count (small transforms on one thread); the pools never oversubscribe.
 *
 * The FFTW planner is not thread-safe: planning and the cache are under one mutex; executing a
 * plan is thread-safe.  Scaling (NumPy's norm=) is one pass over the output after the transform.
 * Complex-to-real plans preserve their input (FFTW_PRESERVE_INPUT, 1-D only, which is all this
 * file plans); where FFTW cannot, the input is copied first.  A build without FFTW has no
 * transforms: cpn_kernel_fft returns CPN_ERR_UNSUPPORTED and the Python side falls back. */
#include <stdbool.h>
#include <stdint.h>
#include <string.h>

#include "alloc.h"
#include "cpn_config.h"
#include "kernels.h"

const char *cpn_kernel_fft_name(void) { return CPN_FFT_NAME; }

#if CPN_HAVE_FFTW

#include <fftw3.h>
#ifdef _OPENMP
#include <omp.h>
#endif
#include <pthread.h>

/* Below this many output elements a transform runs on one thread (FFTW's threads cost more than
 * they save on small transforms). */
#define FFT_THREAD_MIN 32768
#define FFT_CACHE 64

struct plan_key {
    int kind, single, rank, hrank, ain, aout, nthreads, destroy;   /* destroy: may overwrite in */
    int inplace, pad;
    fftw_iodim64 dims[CPN_MAXDIM], hdims[CPN_MAXDIM];
};

struct plan_slot {
    bool used;
    struct plan_key key;
    void *plan;   /* fftw_plan or fftwf_plan (key.single) */
};

static pthread_mutex_t plan_lock = PTHREAD_MUTEX_INITIALIZER;
static struct plan_slot cache[FFT_CACHE];
static int cache_next;
static bool threads_ready;

/* FFTW's thread support is initialised before any other FFTW call (its rule). */
static void init_threads(void)
{
    pthread_mutex_lock(&plan_lock);
    if (!threads_ready) {
        fftw_init_threads();
        fftwf_init_threads();
        threads_ready = true;
    }
    pthread_mutex_unlock(&plan_lock);
}

static void destroy_plan(struct plan_slot *s)
{
    if (!s->used) return;
    if (s->key.single) fftwf_destroy_plan((fftwf_plan)s->plan);
    else fftw_destroy_plan((fftw_plan)s->plan);
    s->used = false;
}

/* A plan for key on these buffers, from the cache or made now; NULL when FFTW declines. */
static void *get_plan(const struct plan_key *k, const char *in, char *out)
{
    void *p = NULL;
    pthread_mutex_lock(&plan_lock);
    for (int i = 0; i < FFT_CACHE; i++)
        if (cache[i].used && memcmp(&cache[i].key, k, sizeof *k) == 0) {
            p = cache[i].plan;
            goto done;
        }
    const unsigned flags = FFTW_ESTIMATE | (k->kind == CPN_FFT_C2R && !k->destroy ? FFTW_PRESERVE_INPUT : 0);
    const int sign = k->kind == CPN_FFT_C2C_BACKWARD ? FFTW_BACKWARD : FFTW_FORWARD;
    if (k->single) {
        fftwf_plan_with_nthreads(k->nthreads);
        /* fftwf_iodim64 and fftw_iodim64 are the same struct of three ptrdiff_t */
        const fftwf_iodim64 *d = (const fftwf_iodim64 *)k->dims, *h = (const fftwf_iodim64 *)k->hdims;
        if (k->kind == CPN_FFT_R2C)
            p = fftwf_plan_guru64_dft_r2c(k->rank, d, k->hrank, h, (float *)in, (fftwf_complex *)out, flags);
        else if (k->kind == CPN_FFT_C2R)
            p = fftwf_plan_guru64_dft_c2r(k->rank, d, k->hrank, h, (fftwf_complex *)in, (float *)out, flags);
        else
            p = fftwf_plan_guru64_dft(k->rank, d, k->hrank, h, (fftwf_complex *)in, (fftwf_complex *)out,
                                      sign, flags);
    } else {
        fftw_plan_with_nthreads(k->nthreads);
        if (k->kind == CPN_FFT_R2C)
            p = fftw_plan_guru64_dft_r2c(k->rank, k->dims, k->hrank, k->hdims, (double *)in,
                                         (fftw_complex *)out, flags);
        else if (k->kind == CPN_FFT_C2R)
            p = fftw_plan_guru64_dft_c2r(k->rank, k->dims, k->hrank, k->hdims, (fftw_complex *)in,
                                         (double *)out, flags);
        else
            p = fftw_plan_guru64_dft(k->rank, k->dims, k->hrank, k->hdims, (fftw_complex *)in,
                                     (fftw_complex *)out, sign, flags);
    }
    if (p) {
        struct plan_slot *s = &cache[cache_next];
        cache_next = (cache_next + 1) % FFT_CACHE;
        destroy_plan(s);
        s->used = true;
        s->key = *k;
        s->plan = p;
    }
done:
    pthread_mutex_unlock(&plan_lock);
    return p;
}

static void execute(const struct plan_key *k, void *p, const char *in, char *out)
{
    if (k->single) {
        if (k->kind == CPN_FFT_R2C) fftwf_execute_dft_r2c(p, (float *)in, (fftwf_complex *)out);
        else if (k->kind == CPN_FFT_C2R) fftwf_execute_dft_c2r(p, (fftwf_complex *)in, (float *)out);
        else fftwf_execute_dft(p, (fftwf_complex *)in, (fftwf_complex *)out);
    } else {
        if (k->kind == CPN_FFT_R2C) fftw_execute_dft_r2c(p, (double *)in, (fftw_complex *)out);
        else if (k->kind == CPN_FFT_C2R) fftw_execute_dft_c2r(p, (fftw_complex *)in, (double *)out);
        else fftw_execute_dft(p, (fftw_complex *)in, (fftw_complex *)out);
    }
}

/* Copy an n-d strided operand of element size es into a C-contiguous buffer (rows of the last
 * dimension at a time). */
static void pack(char *dst, const char *src, int nd, const int64_t *shape, const int64_t *st, size_t es)
{
    if (nd == 0) {
        memcpy(dst, src, es);
        return;
    }
    int64_t idx[CPN_MAXDIM] = {0}, rows = 1;
    for (int d = 0; d < nd - 1; d++) rows *= shape[d];
    const int64_t len = shape[nd - 1], ls = st[nd - 1];
    for (int64_t r = 0; r < rows; r++) {
        const char *s = src;
        for (int d = 0; d < nd - 1; d++) s += idx[d] * st[d];
        if (ls == (int64_t)es) {
            memcpy(dst, s, (size_t)len * es);
        } else if (es == 16) {
            for (int64_t i = 0; i < len; i++) memcpy(dst + i * 16, s + i * ls, 16);
        } else if (es == 8) {
            for (int64_t i = 0; i < len; i++) memcpy(dst + i * 8, s + i * ls, 8);
        } else {
            for (int64_t i = 0; i < len; i++) memcpy(dst + i * 4, s + i * ls, 4);
        }
        dst += (size_t)len * es;
        for (int d = nd - 2; d >= 0; d--) {
            if (++idx[d] < shape[d]) break;
            idx[d] = 0;
        }
    }
}

static void contiguous_strides(int nd, const int64_t *shape, size_t es, int64_t *st)
{
    int64_t s = (int64_t)es;
    for (int d = nd - 1; d >= 0; d--) {
        st[d] = s;
        s *= shape[d] > 0 ? shape[d] : 1;
    }
}

/* out *= scale, element by element (reals: a complex counts two), over an n-d strided output. */
static void scale_output(char *out, int nd, const int64_t *shape, const int64_t *st, size_t es, bool single,
                         double scale, int nth)
{
    int64_t cst[CPN_MAXDIM], total = 1;
    contiguous_strides(nd, shape, es, cst);
    for (int d = 0; d < nd; d++) total *= shape[d];
    bool contig = true;
    for (int d = 0; d < nd; d++) contig &= shape[d] == 1 || st[d] == cst[d];
    const int64_t nreal = total * (int64_t)(es / (single ? sizeof(float) : sizeof(double)));
    if (contig) {
        if (single) {
            float *f = (float *)out, s = (float)scale;
#pragma omp parallel for num_threads(nth) schedule(static) if (nth > 1)
            for (int64_t i = 0; i < nreal; i++) f[i] *= s;
        } else {
            double *f = (double *)out;
#pragma omp parallel for num_threads(nth) schedule(static) if (nth > 1)
            for (int64_t i = 0; i < nreal; i++) f[i] *= scale;
        }
        return;
    }
    int64_t idx[CPN_MAXDIM] = {0};
    const int per = (int)(nreal / (total ? total : 1));
    for (int64_t i = 0; i < total; i++) {
        int64_t off = 0;
        for (int d = 0; d < nd; d++) off += idx[d] * st[d];
        for (int j = 0; j < per; j++) {
            if (single) ((float *)(out + off))[j] *= (float)scale;
            else ((double *)(out + off))[j] *= scale;
        }
        for (int d = nd - 1; d >= 0; d--) {
            if (++idx[d] < shape[d]) break;
            idx[d] = 0;
        }
    }
}

static bool is_c_contiguous(int nd, const int64_t *shape, const int64_t *st, size_t es)
{
    int64_t want = (int64_t)es;
    for (int d = nd - 1; d >= 0; d--) {
        if (shape[d] != 1 && st[d] != want) return false;
        want *= shape[d];
    }
    return true;
}

/* The plan key of a call: transform dims and batch dims, strides in elements. */
static void describe(struct plan_key *k, enum cpn_fft_kind kind, int nd, uint64_t axes,
                     const int64_t *ishape, const int64_t *ist, size_t ies, const int64_t *oshape,
                     const int64_t *os, size_t oes)
{
    k->rank = k->hrank = 0;
    for (int d = 0; d < nd; d++) {
        if ((axes >> d) & 1) {
            /* the logical length: the real side's for r2c / c2r */
            const int64_t n = kind == CPN_FFT_C2R ? oshape[d] : ishape[d];
            k->dims[k->rank++] = (fftw_iodim64){n, ist[d] / (int64_t)ies, os[d] / (int64_t)oes};
        } else if (oshape[d] != 1) {
            k->hdims[k->hrank++] = (fftw_iodim64){oshape[d], ist[d] / (int64_t)ies, os[d] / (int64_t)oes};
        }
    }
}

/* A plan of `howmany` contiguous rows of length n, row distance n (in place when in == out). */
static void *row_plan(int kind, bool single, int64_t n, int64_t howmany, int nth, const char *in, char *out)
{
    struct plan_key k;
    memset(&k, 0, sizeof k);
    k.kind = kind;
    k.single = single;
    k.nthreads = nth;
    k.inplace = in == out;
    k.rank = 1;
    k.dims[0] = (fftw_iodim64){n, 1, 1};
    if (howmany > 1) {
        k.hrank = 1;
        k.hdims[0] = (fftw_iodim64){howmany, n, n};
    }
    k.ain = single ? fftwf_alignment_of((float *)in) : fftw_alignment_of((double *)in);
    k.aout = single ? fftwf_alignment_of((float *)out) : fftw_alignment_of((double *)out);
    void *p = get_plan(&k, in, out);
    return p;
}

static void exec_c2c(bool single, void *p, const char *in, char *out)
{
    if (single) fftwf_execute_dft(p, (fftwf_complex *)in, (fftwf_complex *)out);
    else fftw_execute_dft(p, (fftw_complex *)in, (fftw_complex *)out);
}

#define FFT_BLOCK 16   /* lanes of a non-innermost axis transformed together (L2-sized block) */

/* Complex to complex over `axes` of C-contiguous in -> C-contiguous out (same shape), one axis at
 * a time: the innermost as rows, every other one as blocks of FFT_BLOCK lanes gathered into a
 * contiguous buffer, transformed and scattered back (threads over the blocks) -- what NumPy's
 * pocketfft does, and far faster than FFTW_ESTIMATE's plans of long strides. */
static enum cpn_status c2c_by_axes(int kind, bool single, int nd, uint64_t axes, const int64_t *shape,
                                   const char *in, char *out, int nth)
{
    const size_t cs = single ? 8 : 16;
    const char *src = in;
    for (int d = nd - 1; d >= 0; d--) {
        if (!((axes >> d) & 1)) continue;
        int64_t A = 1, B = 1;
        const int64_t n = shape[d];
        for (int e = 0; e < d; e++) A *= shape[e];
        for (int e = d + 1; e < nd; e++) B *= shape[e];
        if (B == 1) {
            void *p = row_plan(kind, single, n, A, nth, src, out);
            if (!p) return cpn_error(CPN_ERR_INTERNAL, "fft: FFTW made no plan for this layout");
            exec_c2c(single, p, src, out);
        } else {
            const int64_t bs = B < FFT_BLOCK ? B : FFT_BLOCK, nb = (B + bs - 1) / bs, tail = B - (nb - 1) * bs;
            char *bufs[64];
            const int T = nth > 64 ? 64 : nth;
            enum cpn_status st = CPN_OK;
            for (int t = 0; t < T; t++) bufs[t] = NULL;
            for (int t = 0; t < T && st == CPN_OK; t++)
                if (!(bufs[t] = cpn_alloc((size_t)(n * bs) * cs))) st = CPN_ERR_NOMEM;
            void *pf = st == CPN_OK ? row_plan(kind, single, n, bs, 1, bufs[0], bufs[0]) : NULL;
            void *pt = pf && tail != bs ? row_plan(kind, single, n, tail, 1, bufs[0], bufs[0]) : pf;
            if (st == CPN_OK && (!pf || !pt)) st = cpn_error(CPN_ERR_INTERNAL, "fft: FFTW made no plan for this layout");
            if (st == CPN_OK) {
                const int64_t blocks = A * nb;
#pragma omp parallel for num_threads(T) schedule(static) if (T > 1)
                for (int64_t blk = 0; blk < blocks; blk++) {
#ifdef _OPENMP
                    char *buf = bufs[omp_get_thread_num()];
#else
                    char *buf = bufs[0];
#endif
                    const int64_t a = blk / nb, b0 = (blk % nb) * bs, w = b0 + bs <= B ? bs : B - b0;
                    const char *s0 = src + (size_t)(a * n * B + b0) * cs;
                    char *o0 = out + (size_t)(a * n * B + b0) * cs;
                    for (int64_t j = 0; j < n; j++)
                        for (int64_t c = 0; c < w; c++)
                            memcpy(buf + (size_t)(c * n + j) * cs, s0 + (size_t)(j * B + c) * cs, cs);
                    exec_c2c(single, w == bs ? pf : pt, buf, buf);
                    for (int64_t j = 0; j < n; j++)
                        for (int64_t c = 0; c < w; c++)
                            memcpy(o0 + (size_t)(j * B + c) * cs, buf + (size_t)(c * n + j) * cs, cs);
                }
            }
            for (int t = 0; t < T; t++) cpn_free(bufs[t]);
            if (st != CPN_OK) return st;
        }
        src = out;
    }
    return CPN_OK;
}

enum cpn_status cpn_kernel_fft(enum cpn_fft_kind kind, enum cpn_dtype cdt, int nd, uint64_t axes,
                               const int64_t *ishape, const char *in, const int64_t *is,
                               const int64_t *oshape, char *out, const int64_t *os, double scale)
{
    if (cdt != CPN_DTYPE_COMPLEX64 && cdt != CPN_DTYPE_COMPLEX128)
        return cpn_error(CPN_ERR_TYPE, "fft: no transform of dtype %s", cpn_dtype_name(cdt));
    const bool single = cdt == CPN_DTYPE_COMPLEX64;
    const size_t cs = single ? 2 * sizeof(float) : 2 * sizeof(double), rs = cs / 2;
    const size_t ies = kind == CPN_FFT_R2C ? rs : cs, oes = kind == CPN_FFT_C2R ? rs : cs;
    int64_t total_in = 1, total_out = 1;
    for (int d = 0; d < nd; d++) {
        total_in *= ishape[d];
        total_out *= oshape[d];
    }
    if (total_in == 0 || total_out == 0) return CPN_OK;
    init_threads();
    for (int d = 0; d < nd; d++)
        if (oshape[d] != 1 && os[d] % (int64_t)oes != 0)
            return cpn_error(CPN_ERR_INTERNAL, "fft: output stride %lld is not whole elements",
                             (long long)os[d]);

    /* One layout per shape: an input that is not C-contiguous and SIMD-aligned is packed first,
     * so FFTW plans (and rounds) alike whatever the operand's strides and offset -- NumPy's
     * results do not depend on them either (its tests compare transposed operands exactly). */
    char *tmp = NULL;
    int64_t ist[CPN_MAXDIM];
    memcpy(ist, is, (size_t)nd * sizeof *ist);
    const int align = single ? fftwf_alignment_of((float *)in) : fftw_alignment_of((double *)in);
    if (align != 0 || !is_c_contiguous(nd, ishape, ist, ies)) {
        tmp = cpn_alloc((size_t)total_in * ies);
        if (!tmp) return CPN_ERR_NOMEM;
        pack(tmp, in, nd, ishape, ist, ies);
        contiguous_strides(nd, ishape, ies, ist);
        in = tmp;
    }

    int nth = cpn_kernel_threads();
    if (total_out < FFT_THREAD_MIN) nth = 1;
    if (kind <= CPN_FFT_C2C_BACKWARD && total_out >= FFT_THREAD_MIN && is_c_contiguous(nd, oshape, os, oes)) {
        /* large complex transforms touching more than the innermost axis: axis by axis, blocked */
        int last = nd - 1;
        while (last > 0 && oshape[last] == 1) last--;
        if ((axes & ~((uint64_t)1 << last)) != 0) {
            enum cpn_status st = c2c_by_axes(kind, single, nd, axes, oshape, in, out, nth);
            if (st == CPN_OK && scale != 1.0) scale_output(out, nd, oshape, os, oes, single, scale, nth);
            cpn_free(tmp);
            return st;
        }
    }
    struct plan_key k;
    memset(&k, 0, sizeof k);
    k.kind = kind;
    k.single = single;
    k.nthreads = nth;
    k.destroy = kind == CPN_FFT_C2R && tmp;   /* our own copy: FFTW may overwrite it */
    describe(&k, kind, nd, axes, ishape, ist, ies, oshape, os, oes);
    CPN_ASSERT(k.rank >= 1 && (kind <= CPN_FFT_C2C_BACKWARD || k.rank == 1));
    k.ain = single ? fftwf_alignment_of((float *)in) : fftw_alignment_of((double *)in);
    k.aout = single ? fftwf_alignment_of((float *)out) : fftw_alignment_of((double *)out);
    void *p = get_plan(&k, in, out);
    if (!p && kind == CPN_FFT_C2R && !tmp) {
        /* FFTW could not preserve the input: transform a copy it may destroy */
        tmp = cpn_alloc((size_t)total_in * ies);
        if (!tmp) return CPN_ERR_NOMEM;
        memcpy(tmp, in, (size_t)total_in * ies);
        in = tmp;
        k.destroy = 1;
        p = get_plan(&k, in, out);
    }
    enum cpn_status st = CPN_OK;
    if (!p) {
        st = cpn_error(CPN_ERR_INTERNAL, "fft: FFTW made no plan for this layout");
    } else {
        execute(&k, p, in, out);
        if (scale != 1.0) scale_output(out, nd, oshape, os, oes, single, scale, nth);
    }
    cpn_free(tmp);
    return st;
}

#else /* !CPN_HAVE_FFTW */

enum cpn_status cpn_kernel_fft(enum cpn_fft_kind kind, enum cpn_dtype cdt, int nd, uint64_t axes,
                               const int64_t *ishape, const char *in, const int64_t *is,
                               const int64_t *oshape, char *out, const int64_t *os, double scale)
{
    return cpn_error(CPN_ERR_UNSUPPORTED, "cupynum was built without an FFT library");
}

#endif
