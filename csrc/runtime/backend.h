/* backend.h: where ops execute and where store buffers live (ggml's backend registry idea).
 *
 * A backend is a vtable, `struct cpn_backend_i`; the registry (backend.c) lists the backends this
 * build has: always "cpu", plus "cuda" when cuda/ was compiled (a build without CUDA simply lacks
 * that entry), and "sim", a simulated device for tests (backend_sim.c).  One backend is *active*
 * per process, chosen once at runtime initialisation: CUPYNUM_DEVICE=cpu|gpu|sim forces one; by
 * default the GPU when a device is present, else the CPU.
 *
 * The CPU backend is the existing executor; its buffers are the store buffers.  A device backend
 * holds a second copy of a store's buffer in device memory (store.c keeps the two coherent:
 * `cpn_store_data` returns valid host memory, `cpn_store_device_data` valid device memory), and
 * executes the ops it supports on device buffers; everything else runs on the host after the
 * data moved there.  So data moves to the host only when a host path needs it.
 *
 * All functions are Local. */
#ifndef CPN_BACKEND_H
#define CPN_BACKEND_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "status.h"

struct cpn_op;
struct cpn_fpreport;
struct cpn_fused_prog;
struct cpn_transport_i;

enum cpn_backend_kind { CPN_BACKEND_CPU, CPN_BACKEND_CUDA, CPN_BACKEND_SIM, CPN_BACKEND_COUNT };

struct cpn_backend_i {
    const char *name;                    /* "cpu", "cuda" */
    enum cpn_backend_kind kind;
    bool device;                         /* buffers in device memory (store.c keeps a copy) */
    /* How many devices this process can see (0 with no driver or no device: never an error);
     * *why gets a reason when there are none.  May be called before init. */
    int (*device_count)(const char **why);
    /* Bind device `index` of this process; CPN_OK or an error with a clear message. */
    enum cpn_status (*init)(int index);
    /* A human-readable description of the bound device ("cpu", "NVIDIA H200 (0 of 8)"). */
    const char *(*describe)(void);
    /* Raw buffers of this backend (the allocator's pool calls these; nobody else). */
    void *(*raw_alloc)(size_t n);
    void (*raw_free)(void *p);
    /* Copies; to_host waits for the work queued on the buffer (the only synchronising call). */
    enum cpn_status (*to_device)(void *dst, const void *src, size_t n);
    enum cpn_status (*to_host)(void *dst, const void *src, size_t n);
    enum cpn_status (*fill_zero)(void *dst, size_t n);
    /* Execute one op on device buffers; what its kernels found goes into *fp (kernels.h: host
     * findings ORed in, or a device report word named, devfpe.h), when the op is watched
     * (cpn_fperr_watches).  CPN_ERR_UNSUPPORTED (no status message needed): the caller runs it
     * on the host instead.  Nothing has been written then. */
    enum cpn_status (*execute_op)(const struct cpn_op *op, struct cpn_fpreport *fp);
    /* Can a fused program with this template run here?  (Consulted before binding.) */
    bool (*supports_fused)(const struct cpn_fused_prog *p);
    /* Execute a bound fused program whose externals are device addresses; watched (p->fpe),
     * each instruction's findings go to its p->fpe entry. */
    enum cpn_status (*execute_fused)(struct cpn_fused_prog *p);
    /* Wait for all queued device work. */
    enum cpn_status (*sync)(void);

    /* The distributed executor's device transport (transport.h: piece buffers, box copies,
     * exchanges and region computations on device buffers); NULL: none, dist.c then works on
     * host copies with the host transport. */
    const struct cpn_transport_i *transport;
};

/* The registered backends (cpu first) and their number. */
int cpn_backend_count(void);
const struct cpn_backend_i *cpn_backend_get(int i);
/* The registered backend of `kind`, or NULL when this build lacks it. */
const struct cpn_backend_i *cpn_backend_find(enum cpn_backend_kind kind);

/* Choose and initialise the active backend from CUPYNUM_DEVICE (cpu|gpu|unset) and the devices
 * present; `local_rank` picks device local_rank % device_count.  Errors: CUPYNUM_DEVICE=gpu on a
 * build without CUDA or with no usable device, or an unknown value.  Idempotent. */
enum cpn_status cpn_backend_select(int local_rank);
/* Make `be` the active backend (initialising it on device 0); for tests, before any store holds
 * device memory.  Returns the previous one. */
const struct cpn_backend_i *cpn_backend_use(const struct cpn_backend_i *be);
/* The active backend (the CPU backend before selection). */
const struct cpn_backend_i *cpn_backend_active(void);
/* Is the active backend a device backend? */
bool cpn_backend_on_device(void);
/* The bound device's index (0 on the CPU backend). */
int cpn_backend_device_index(void);
/* For __cuda_array_interface__ / __dlpack__: the device address of view v's origin and its byte
 * strides, after all device work is done; the device copy becomes the current one (the consumer
 * may write it).  Errors: not on a device backend (CPN_ERR_UNSUPPORTED), a tiled store
 * (CPN_ERR_VALUE).  The caller flushes the queue first. */
struct cpn_view;
enum cpn_status cpn_backend_export(struct cpn_view *v, void **ptr, int64_t *byte_strides);
/* The bound device in words ("cpu" on the CPU backend). */
const char *cpn_backend_device_name(void);

/* The CPU backend (backend.c), the simulated device (backend_sim.c) and, when built, the CUDA
 * backend (cuda/backend.c). */
const struct cpn_backend_i *cpn_cpu_backend(void);
const struct cpn_backend_i *cpn_sim_backend(void);
const struct cpn_backend_i *cpn_cuda_backend(void);

#endif
