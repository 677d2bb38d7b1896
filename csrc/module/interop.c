/* interop.c: handing a device array to other libraries without a copy: the data behind
 * __cuda_array_interface__ (v3) and __dlpack__ (a "dltensor" capsule, DLPack 0.8 ABI), on a device
 * backend.  Python-level glue (cupynum/_interop.py) chooses between these and NumPy's own
 * protocols on the CPU backend.  The capsule keeps the ndarray alive until the consumer's deleter
 * runs; the device copy is made the current one, since the consumer may write it. */
#include "cpn_module.h"

#include "backend.h"

/* DLPack 0.8 (dlpack.h, Apache-2.0 ABI; declared here to need no header). */
typedef struct { int32_t device_type, device_id; } DLDevice;
typedef struct { uint8_t code, bits; uint16_t lanes; } DLDataType;
typedef struct {
    void *data;
    DLDevice device;
    int32_t ndim;
    DLDataType dtype;
    int64_t *shape, *strides;
    uint64_t byte_offset;
} DLTensor;
typedef struct DLManagedTensor {
    DLTensor dl_tensor;
    void *manager_ctx;
    void (*deleter)(struct DLManagedTensor *self);
} DLManagedTensor;
enum { DL_INT = 0, DL_UINT = 1, DL_FLOAT = 2, DL_COMPLEX = 5, DL_BOOL = 6, DL_CUDA = 2 };

struct export {
    DLManagedTensor t;
    PyObject *owner;
    int64_t shape[CPN_MAXDIM], strides[CPN_MAXDIM];
};

static int export_view(PyObject *x, void **ptr, int64_t *bst)
{
    if (!cpn_array_check(x)) {
        PyErr_SetString(PyExc_TypeError, "expected a cupynum.ndarray");
        return -1;
    }
    if (cpn_flush() < 0) return -1;
    enum cpn_status st = cpn_backend_export(cpn_array_view(x), ptr, bst);
    if (st == CPN_ERR_UNSUPPORTED) {
        PyErr_Format(PyExc_BufferError, "cupynum: the array is on the %s backend, not on a GPU",
                     cpn_backend_active()->name);
        cpn_error_clear();
        return -1;
    }
    if (st == CPN_ERR_VALUE) {
        PyErr_SetString(PyExc_BufferError, cpn_error_message());
        cpn_error_clear();
        return -1;
    }
    if (st != CPN_OK) {
        cpn_raise(st);
        return -1;
    }
    return 0;
}

/* _core._device_export(x) -> (address, device index, byte strides) */
PyObject *cpn_mod_device_export(PyObject *m, PyObject *x)
{
    void *ptr;
    int64_t bst[CPN_MAXDIM];
    if (export_view(x, &ptr, bst) < 0) return NULL;
    const struct cpn_view *v = cpn_array_view(x);
    PyObject *strides = PyTuple_New(v->ndim);
    if (!strides) return NULL;
    for (int d = 0; d < v->ndim; d++) PyTuple_SET_ITEM(strides, d, PyLong_FromLongLong(bst[d]));
    return Py_BuildValue("(KiN)", (unsigned long long)(uintptr_t)ptr, cpn_backend_device_index(), strides);
}

static void dl_deleter(DLManagedTensor *t)
{
    struct export *e = t->manager_ctx;
    PyGILState_STATE g = PyGILState_Ensure();
    Py_XDECREF(e->owner);
    PyGILState_Release(g);
    PyMem_RawFree(e);
}

static void capsule_destructor(PyObject *cap)
{
    /* A consumer renames the capsule "used_dltensor" and owns it; else it is ours to free. */
    if (PyCapsule_IsValid(cap, "dltensor")) {
        DLManagedTensor *t = PyCapsule_GetPointer(cap, "dltensor");
        if (t && t->deleter) t->deleter(t);
    }
}

/* _core._dlpack_capsule(x) -> a "dltensor" capsule of x's device memory */
PyObject *cpn_mod_dlpack_capsule(PyObject *m, PyObject *x)
{
    void *ptr;
    int64_t bst[CPN_MAXDIM];
    if (export_view(x, &ptr, bst) < 0) return NULL;
    const struct cpn_view *v = cpn_array_view(x);
    enum cpn_dtype dt = v->dtype;
    static const uint8_t codes[CPN_CLASS_COUNT] = {
        [CPN_CLASS_BOOL] = DL_BOOL, [CPN_CLASS_INT] = DL_INT, [CPN_CLASS_UINT] = DL_UINT,
        [CPN_CLASS_FLOAT] = DL_FLOAT, [CPN_CLASS_COMPLEX] = DL_COMPLEX};
    struct export *e = PyMem_RawCalloc(1, sizeof *e);
    if (!e) return PyErr_NoMemory();
    size_t item = cpn_dtype_size(dt);
    for (int d = 0; d < v->ndim; d++) {
        e->shape[d] = v->shape[d];
        e->strides[d] = bst[d] / (int64_t)item;
    }
    e->t.dl_tensor = (DLTensor){.data = ptr, .device = {DL_CUDA, cpn_backend_device_index()},
                                .ndim = v->ndim,
                                .dtype = {codes[cpn_dtype_class(dt)], (uint8_t)(8 * item), 1},
                                .shape = e->shape, .strides = e->strides, .byte_offset = 0};
    e->t.manager_ctx = e;
    e->t.deleter = dl_deleter;
    Py_INCREF(x);
    e->owner = x;
    PyObject *cap = PyCapsule_New(&e->t, "dltensor", capsule_destructor);
    if (!cap) dl_deleter(&e->t);
    return cap;
}
