/* fft.c: the fft op on the device with cuFFT (see fft.h).
 *
 * cuFFT is loaded with dlopen on first use (as cuBLAS is, blas.c), so a CUDA build imports where
 * libcufft is absent (transforms then run on the host).  What it takes is csrc/runtime/devfft.h's
 * decision (the simulated device decides with the same function): one "advanced layout" plan of
 * rank 1-3 with one batch dimension, executed once per outer block.  Plans are cached by their
 * layout.  cuFFT's complex-to-real transforms overwrite their input, so that input is copied to
 * a device temporary first; NumPy's norm= scaling is cuBLAS scal over the output's reals. */
#include "fft.h"

#include <dlfcn.h>
#include <stddef.h>
#include <string.h>

#include <cufft.h>

#include "alloc.h"
#include "blas.h"
#include "cuda_try.h"
#include "devfft.h"
#include "store.h"
#include "view.h"

#define PLAN_CACHE 16

static struct {
    int tried;
    void *lib;
    cufftResult (*create)(cufftHandle *);
    cufftResult (*make)(cufftHandle, int, long long *, long long *, long long, long long, long long *,
                        long long, long long, cufftType, long long, size_t *);
    cufftResult (*set_stream)(cufftHandle, cudaStream_t);
    cufftResult (*destroy)(cufftHandle);
    cufftResult (*z2z)(cufftHandle, cufftDoubleComplex *, cufftDoubleComplex *, int);
    cufftResult (*c2c)(cufftHandle, cufftComplex *, cufftComplex *, int);
    cufftResult (*d2z)(cufftHandle, cufftDoubleReal *, cufftDoubleComplex *);
    cufftResult (*r2c)(cufftHandle, cufftReal *, cufftComplex *);
    cufftResult (*z2d)(cufftHandle, cufftDoubleComplex *, cufftDoubleReal *);
    cufftResult (*c2r)(cufftHandle, cufftComplex *, cufftReal *);
} fft;

static struct {
    bool used;
    bool single;
    struct cpn_devfft key;
    cufftHandle h;
} cache[PLAN_CACHE];
static int cache_next;

static bool load(void)
{
    if (fft.tried) return fft.lib != NULL;
    fft.tried = 1;
    static const char *names[] = {"libcufft.so.12", "libcufft.so.13", "libcufft.so.11", "libcufft.so"};
    for (size_t i = 0; i < sizeof names / sizeof names[0] && !fft.lib; i++)
        fft.lib = dlopen(names[i], RTLD_NOW | RTLD_LOCAL);
    if (!fft.lib) return false;
    *(void **)&fft.create = dlsym(fft.lib, "cufftCreate");
    *(void **)&fft.make = dlsym(fft.lib, "cufftMakePlanMany64");
    *(void **)&fft.set_stream = dlsym(fft.lib, "cufftSetStream");
    *(void **)&fft.destroy = dlsym(fft.lib, "cufftDestroy");
    *(void **)&fft.z2z = dlsym(fft.lib, "cufftExecZ2Z");
    *(void **)&fft.c2c = dlsym(fft.lib, "cufftExecC2C");
    *(void **)&fft.d2z = dlsym(fft.lib, "cufftExecD2Z");
    *(void **)&fft.r2c = dlsym(fft.lib, "cufftExecR2C");
    *(void **)&fft.z2d = dlsym(fft.lib, "cufftExecZ2D");
    *(void **)&fft.c2r = dlsym(fft.lib, "cufftExecC2R");
    if (!fft.create || !fft.make || !fft.set_stream || !fft.destroy || !fft.z2z || !fft.c2c || !fft.d2z ||
        !fft.r2c || !fft.z2d || !fft.c2r) {
        dlclose(fft.lib);
        fft.lib = NULL;
        return false;
    }
    return true;
}

static cufftType plan_type(int kind, bool single)
{
    if (kind == CPN_FFT_R2C) return single ? CUFFT_R2C : CUFFT_D2Z;
    if (kind == CPN_FFT_C2R) return single ? CUFFT_C2R : CUFFT_Z2D;
    return single ? CUFFT_C2C : CUFFT_Z2Z;
}

static enum cpn_status get_plan(const struct cpn_devfft *k, bool single, cufftHandle *out)
{
    for (int i = 0; i < PLAN_CACHE; i++)
        if (cache[i].used && cache[i].single == single && memcmp(&cache[i].key, k, sizeof *k) == 0) {
            *out = cache[i].h;
            return CPN_OK;
        }
    cufftHandle h;
    if (fft.create(&h) != CUFFT_SUCCESS) return cpn_error(CPN_ERR_DEVICE, "cupynum: cufftCreate failed");
    long long n[3], in[3], on[3];
    memcpy(n, k->n, sizeof n);
    memcpy(in, k->inembed, sizeof in);
    memcpy(on, k->onembed, sizeof on);
    size_t work = 0;
    cufftResult r = fft.make(h, k->rank, n, in, k->istride, k->idist, on, k->ostride, k->odist,
                             plan_type(k->kind, single), k->batch, &work);
    if (r != CUFFT_SUCCESS) {
        fft.destroy(h);
        return cpn_error(CPN_ERR_DEVICE, "cupynum: cufftMakePlanMany64 failed (status %d)", (int)r);
    }
    if (cache[cache_next].used) fft.destroy(cache[cache_next].h);
    cache[cache_next].used = true;
    cache[cache_next].single = single;
    cache[cache_next].key = *k;
    cache[cache_next].h = h;
    cache_next = (cache_next + 1) % PLAN_CACHE;
    *out = h;
    return CPN_OK;
}

enum cpn_status cpn_cuda_fft(const struct cpn_op *op, cudaStream_t stream)
{
    struct cpn_devfft k;
    if (!cpn_devfft_plan(op, &k) || !load()) return CPN_ERR_UNSUPPORTED;
    const bool single = op->dtype == CPN_DTYPE_COMPLEX64;
    const struct cpn_view *iv = op->in[0], *ov = op->out[0];
    int64_t ist[CPN_MAXDIM], ost[CPN_MAXDIM], ioff, ooff;
    cpn_view_byte_layout(iv, ist, &ioff);
    cpn_view_byte_layout(ov, ost, &ooff);
    char *ib = cpn_store_device_data(iv->store, false, false);
    char *ob = ib ? cpn_store_device_data(ov->store, true, cpn_op_overwrites(op)) : NULL;
    if (!ob) return CPN_ERR_NOMEM;
    ib += ioff;
    ob += ooff;
    const size_t ies = cpn_dtype_size(iv->dtype), oes = cpn_dtype_size(ov->dtype);
    const size_t ibytes = (size_t)cpn_view_size(iv) * ies;
    cufftHandle h = 0;
    CPN_TRY(get_plan(&k, single, &h));
    if (fft.set_stream(h, stream) != CUFFT_SUCCESS) return cpn_error(CPN_ERR_DEVICE, "cupynum: cufftSetStream failed");
    char *tmp = NULL;
    if (k.kind == CPN_FFT_C2R) {   /* cuFFT overwrites a c2r input */
        if (!(tmp = cpn_alloc_device(ibytes))) return CPN_ERR_NOMEM;
        cudaError_t e = cudaMemcpyAsync(tmp, ib, ibytes, cudaMemcpyDeviceToDevice, stream);
        if (e != cudaSuccess) {
            cpn_free_device(tmp, ibytes);
            return cpn_error(CPN_ERR_DEVICE, "cupynum: copying the c2r input failed: %s", cudaGetErrorString(e));
        }
        ib = tmp;
    }
    const int dir = k.kind == CPN_FFT_C2C_BACKWARD ? CUFFT_INVERSE : CUFFT_FORWARD;
    cufftResult r = CUFFT_SUCCESS;
    for (long long l = 0; l < k.loops && r == CUFFT_SUCCESS; l++) {
        char *i = ib + (size_t)(l * k.iloop) * ies, *o = ob + (size_t)(l * k.oloop) * oes;
        switch (plan_type(k.kind, single)) {
        case CUFFT_Z2Z: r = fft.z2z(h, (cufftDoubleComplex *)i, (cufftDoubleComplex *)o, dir); break;
        case CUFFT_C2C: r = fft.c2c(h, (cufftComplex *)i, (cufftComplex *)o, dir); break;
        case CUFFT_D2Z: r = fft.d2z(h, (cufftDoubleReal *)i, (cufftDoubleComplex *)o); break;
        case CUFFT_R2C: r = fft.r2c(h, (cufftReal *)i, (cufftComplex *)o); break;
        case CUFFT_Z2D: r = fft.z2d(h, (cufftDoubleComplex *)i, (cufftDoubleReal *)o); break;
        default: r = fft.c2r(h, (cufftComplex *)i, (cufftReal *)o); break;
        }
    }
    if (tmp) cpn_free_device(tmp, ibytes);
    if (r != CUFFT_SUCCESS) return cpn_error(CPN_ERR_DEVICE, "cupynum: cuFFT exec failed (status %d)", (int)r);
    if (op->dparam[0] != 1.0) {
        const long long nreal = (long long)cpn_view_size(ov) * (long long)(oes / (single ? 4 : 8));
        return cpn_cuda_scale(single, nreal, op->dparam[0], ob, stream);
    }
    return CPN_OK;
}
