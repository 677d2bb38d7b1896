/* backend.h: where ops execute and where store buffers live (ggml's backend registry idea).
 *
 * A backend is a vtable, `struct cpn_backend_i`; the registry (backend.c) lists the backends this
 * build has: always "cpu", plus "cuda" when cuda/ was compiled (a build without CUDA simply lacks
 * that entry), and "sim", a simulated device for tests (backend_sim.c).  One backend is *active*
 * per process, chosen once at runtime initialisation: CUPYNUM_DEVICE=cpu|gpu|sim forces one; by
 * default the GPU when a device is present, else the CPU.
 *
 * Every backend executes ops the same way (ggml's backend): it answers `supports(op)`, and
 * `compute` runs an op whose operands the runtime has bound once to {address, shape, byte
 * strides} in the backend's memory (struct cpn_bound_op).  One dispatcher (exec.c's
 * exec_direct) hands each op to the active backend when it is a device backend that supports
 * it, else binds the host buffers and hands it to the CPU backend (backend_cpu.c, the CPU
 * kernels).  So a new op kind is one compute case per backend.  The CPU backend's buffers are
 * the store buffers.  A device backend holds a second copy of a store's buffer in device memory
 * (store.c keeps the two coherent: `cpn_store_data` returns valid host memory,
 * `cpn_store_device_data` valid device memory); what it does not support runs on the CPU
 * backend after the data moved to the host.  So data moves to the host only when a host path
 * needs it.  The distributed executor's piece exchange is a separate interface (transport.h).
 *
 * All functions are Local. */
#ifndef CPN_BACKEND_H
#define CPN_BACKEND_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "opsem.h"
#include "status.h"

struct cpn_op;
struct cpn_fpreport;
struct cpn_fused_prog;
struct cpn_transport_i;

enum cpn_backend_kind { CPN_BACKEND_CPU, CPN_BACKEND_CUDA, CPN_BACKEND_SIM, CPN_BACKEND_COUNT };

/* One operand of a bound op: its origin in the backend's memory, its shape and byte strides.  An
 * input the op holds as an inline scalar is bound to the scalar's bytes with zero strides over
 * the op's output shape. */
struct cpn_bound_arg {
    char *ptr;
    int ndim;
    const int64_t *shape;
    int64_t st[CPN_MAXDIM];
};

/* An op bound by the runtime for a backend's compute: the op record (kind, code, dtypes,
 * parameters, scalars) and its operands, in[i] for i < op->nin (absent optional inputs: ptr
 * NULL), out[k] for k < op->nout. */
struct cpn_bound_op {
    const struct cpn_op *op;
    struct cpn_bound_arg in[CPN_OP_MAXIN], out[CPN_OP_MAXOUT];
};

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
    /* Can compute run this op here?  (Consulted before binding; the CPU backend runs every op.) */
    bool (*supports)(const struct cpn_op *op);
    /* Run a bound op; what its kernels found goes into *fp (kernels.h: host findings ORed in, or
     * a device report word named, devfpe.h), when the op is watched (cpn_fperr_watches).  A
     * device backend may still answer CPN_ERR_UNSUPPORTED (no status message needed, nothing
     * written): the dispatcher then runs the op on the CPU backend. */
    enum cpn_status (*compute)(const struct cpn_bound_op *b, struct cpn_fpreport *fp);
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

/* Bind a region of an element-wise op or cast (the distributed executor's, transport.h): ptr[k]
 * (k <= nin; ptr[nin] the output) at the region's origin with byte strides strides[k] over the
 * ndim-dimensional extent ext; inline scalars as bind_op binds them.  *b holds pointers into ext
 * and op only.  Local. */
void cpn_bind_region(const struct cpn_op *op, char *const *ptr, int ndim, const int64_t *ext,
                     const int64_t *const *strides, struct cpn_bound_op *b);

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
