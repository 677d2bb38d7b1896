/* backend.c: the backend registry and device selection (the CPU backend: backend_cpu.c).
 *
 * The registry is a fixed list built at compile time: the CPU backend always, the CUDA backend
 * when cuda/ was compiled (its one #if).  Selection happens once, at runtime initialisation, and
 * is a pure function of CUPYNUM_DEVICE, the devices visible and the node-local rank, so every
 * rank of a job decides alike on alike nodes.  A device probe that finds no driver or no device
 * (cudaErrorNoDevice, cudaErrorInsufficientDriver) is "zero devices", not an error, unless the
 * user forced the GPU. */
#include "backend.h"

#include <stdlib.h>
#include <string.h>

#include "alloc.h"
#include "cpn_config.h"
#include "store.h"
#include "view.h"

/* ---- the registry ----------------------------------------------------------------------------- */

static const struct cpn_backend_i *registry[CPN_BACKEND_COUNT];
static int n_registered;
static const struct cpn_backend_i *active;
static int device_index;

static void registry_init(void)
{
    if (n_registered) return;
    registry[n_registered++] = cpn_cpu_backend();
    registry[n_registered++] = cpn_sim_backend();
#if CPN_HAVE_CUDA
    registry[n_registered++] = cpn_cuda_backend();
#endif
}

int cpn_backend_count(void)
{
    registry_init();
    return n_registered;
}

const struct cpn_backend_i *cpn_backend_get(int i)
{
    registry_init();
    return i >= 0 && i < n_registered ? registry[i] : NULL;
}

const struct cpn_backend_i *cpn_backend_find(enum cpn_backend_kind kind)
{
    registry_init();
    for (int i = 0; i < n_registered; i++)
        if (registry[i]->kind == kind) return registry[i];
    return NULL;
}

static enum cpn_status select_backend(int local_rank);

/* The allocator's device memory follows the active backend (alloc.h). */
enum cpn_status cpn_backend_select(int local_rank)
{
    if (active) return CPN_OK;
    enum cpn_status st = select_backend(local_rank);
    cpn_alloc_set_device(active->raw_alloc, active->raw_free);
    return st;
}

static enum cpn_status select_backend(int local_rank)
{
    const char *want = getenv("CUPYNUM_DEVICE");
    if (want && !*want) want = NULL;
    if (want && strcmp(want, "cpu") != 0 && strcmp(want, "gpu") != 0 && strcmp(want, "cuda") != 0 &&
        strcmp(want, "sim") != 0) {
        active = cpn_cpu_backend();
        return cpn_error(CPN_ERR_VALUE, "CUPYNUM_DEVICE must be 'cpu' or 'gpu' (or 'sim'), not '%s'", want);
    }
    if (want && !strcmp(want, "sim")) {
        active = cpn_sim_backend();
        return active->init(0);
    }
    const struct cpn_backend_i *gpu = cpn_backend_find(CPN_BACKEND_CUDA);
    bool forced_gpu = want && strcmp(want, "cpu") != 0;
    if (want && !forced_gpu) {
        active = cpn_cpu_backend();
        return CPN_OK;
    }
    if (!gpu) {
        active = cpn_cpu_backend();
        if (forced_gpu)
            return cpn_error(CPN_ERR_DEVICE, "CUPYNUM_DEVICE=%s: this cupynum was built without CUDA "
                             "(rebuild with the CUDA toolkit and -Dcuda=enabled)", want);
        return CPN_OK;
    }
    const char *why = "no CUDA device";
    int n = gpu->device_count(&why);
    if (n <= 0) {
        active = cpn_cpu_backend();
        if (forced_gpu)
            return cpn_error(CPN_ERR_DEVICE, "CUPYNUM_DEVICE=%s but no GPU is usable: %s", want, why);
        return CPN_OK;
    }
    device_index = (local_rank > 0 ? local_rank : 0) % n;
    enum cpn_status st = gpu->init(device_index);
    if (st != CPN_OK) {
        active = cpn_cpu_backend();
        /* A device that is present but fails to initialise is reported, forced or not: silently
         * running on the CPU would hide a broken installation. */
        return st;
    }
    active = gpu;
    return CPN_OK;
}

const struct cpn_backend_i *cpn_backend_use(const struct cpn_backend_i *be)
{
    const struct cpn_backend_i *was = cpn_backend_active();
    if (be->init(0) == CPN_OK) active = be;
    cpn_alloc_set_device(cpn_backend_active()->raw_alloc, cpn_backend_active()->raw_free);
    return was;
}

const struct cpn_backend_i *cpn_backend_active(void) { return active ? active : cpn_cpu_backend(); }
bool cpn_backend_on_device(void) { return active && active->device; }
const char *cpn_backend_device_name(void) { return cpn_backend_active()->describe(); }

int cpn_backend_device_index(void) { return cpn_backend_on_device() ? device_index : 0; }

enum cpn_status cpn_backend_export(struct cpn_view *v, void **ptr, int64_t *byte_strides)
{
    const struct cpn_backend_i *be = cpn_backend_active();
    if (!be->device) return cpn_error(CPN_ERR_UNSUPPORTED, "the %s backend holds no device memory", be->name);
    if (cpn_store_root(v->store)->tiled)
        return cpn_error(CPN_ERR_VALUE, "cupynum: an array partitioned over ranks has no single device "
                         "buffer to export (each rank holds a tile)");
    char *base = cpn_store_device_data(v->store, true, false);
    if (!base) return CPN_ERR_NOMEM;
    CPN_TRY(be->sync());
    int64_t off;
    cpn_view_byte_layout(v, byte_strides, &off);
    *ptr = base + off;
    return CPN_OK;
}
