/* cpn_module.h: what the files of csrc/module share.
 *
 * The only place Python.h and the NumPy C API are included.  An ndarray holds one reference to a
 * view (csrc/runtime/view.h); its dtype is the runtime's enum, shown to Python as the matching
 * numpy.dtype. */
#ifndef CPN_MODULE_H
#define CPN_MODULE_H

#define PY_SSIZE_T_CLEAN
#include <Python.h>

#ifndef CPN_NO_IMPORT_ARRAY
#define NO_IMPORT_ARRAY
#endif
#define PY_ARRAY_UNIQUE_SYMBOL cpn_ARRAY_API
#define PY_UFUNC_UNIQUE_SYMBOL cpn_UFUNC_API
#include <numpy/arrayobject.h>

#include "opsem.h"
#include "queue.h"
#include "view.h"

typedef struct {
    PyObject_HEAD
    struct cpn_view *view;
    PyObject *weakreflist;
} CpnArray;

extern PyTypeObject *cpn_array_type;

static inline int cpn_array_check(PyObject *o) { return PyObject_TypeCheck(o, cpn_array_type); }
static inline enum cpn_dtype cpn_array_dtype(PyObject *o) { return ((CpnArray *)o)->view->dtype; }
static inline struct cpn_view *cpn_array_view(PyObject *o) { return ((CpnArray *)o)->view; }

/* errors.c: raise the Python exception for a runtime status (NumPy's types); returns NULL. */
PyObject *cpn_raise(enum cpn_status st);
/* Flush the queue, raising on a failed deferred op; 0 on success, -1 with an exception set. */
int cpn_flush(void);
/* Under mpirun with more than one rank, every rank must issue the same ops in the same order:
 * only the interpreter's main thread may queue, flush or communicate (another thread's ops would
 * interleave differently on each rank and the ranks' messages would not match: a hang).
 * cpn_thread_guard raises RuntimeError from another thread there (0: allowed, -1: raised). */
int cpn_thread_init(void);
int cpn_thread_guard(void);
/* NumPy's errors of the ufunc call, the one copy of each text; each returns NULL.  Broadcasting
 * of n operands' shapes failed (inputs, scalars as 0-d, given outputs, where=, in that order): */
PyObject *cpn_raise_broadcast(int n, const int *ndims, const int64_t *const *shapes);
/* an output's shape is not the broadcast shape of all operands (the outputs included): */
PyObject *cpn_raise_out_shape(int ondim, const int64_t *oshape, int ndim, const int64_t *shape);
PyObject *cpn_raise_readonly_out(void);
/* NumPy's UserWarning for where= without out= (0, or -1 when a filter made it an error). */
int cpn_warn_where_without_out(int stacklevel);

/* errstate.c */
/* NumPy's floating-point error mode now, as op->fpmode (fperr.h); 0 or -1 with an exception. */
int cpn_errstate_mode(uint16_t *mode);
/* Emit NumPy's warnings / callbacks for the reports of the flushes so far, and forget them;
 * 0, or -1 with the exception a warning filter or callback raised. */
int cpn_errstate_report(void);
/* The submitting user line of an op about to be queued (struct cpn_op.site), and the release of
 * every site recorded once no queued op or pending report refers to them. */
uint32_t cpn_errstate_site(void);
void cpn_errstate_release_sites(void);
PyObject *cpn_mod_set_package_dir(PyObject *m, PyObject *dir);

/* convert.c */
/* The numpy.dtype of a runtime dtype (borrowed).  */
PyArray_Descr *cpn_descr(enum cpn_dtype dt);
/* The runtime dtype of a numpy.dtype; -1 with TypeError set when unsupported. */
int cpn_dtype_from_descr(PyArray_Descr *d);
/* As above from anything numpy.dtype() accepts (type objects, strings). */
int cpn_dtype_from_object(PyObject *o);
/* Wrap a view as a new ndarray, stealing the view reference. */
PyObject *cpn_array_wrap(struct cpn_view *v);
/* A new ndarray over a fresh store (buffer allocated lazily, zero-filled). */
PyObject *cpn_array_new(enum cpn_dtype dt, int ndim, const int64_t *shape);
/* As cpn_array_new, its store laid out over ranks like the region `like` views (an operand of the
 * op that will compute it), so that owner-computes moves only halos; like may be NULL. */
PyObject *cpn_array_new_like(enum cpn_dtype dt, int ndim, const int64_t *shape,
                             const struct cpn_view *like);
/* ... between the regions of an op's operands like[0..n) (the result lies like their centre). */
PyObject *cpn_array_new_like_n(enum cpn_dtype dt, int ndim, const int64_t *shape, int n,
                               const struct cpn_view *const *like);
/* As cpn_array_new, replicated on every rank (reduction results). */
PyObject *cpn_array_new_replicated(enum cpn_dtype dt, int ndim, const int64_t *shape);
/* An array over the whole of store s, which it takes the caller's reference of (NULL: raise the
 * recorded error). */
PyObject *cpn_array_from_store(struct cpn_store *s);
/* Copy a NumPy array's data into a new ndarray now. */
PyObject *cpn_array_from_numpy(PyArrayObject *a);
/* Any array-like (ndarray of ours returned as is, with a new reference). */
PyObject *cpn_array_from_any(PyObject *o);
/* Flush and copy the view into a new C-contiguous numpy.ndarray. */
PyObject *cpn_array_to_numpy(PyObject *self);
/* Files (cupynum/_files.py): this rank's tile of a whole root store out of / into NumPy. */
PyObject *cpn_mod_tile_read(PyObject *m, PyObject *a);
PyObject *cpn_mod_tile_buffer(PyObject *m, PyObject *a);
/* ndarray.c: the Python function that constructs ndarray(shape, ...) directly. */
PyObject *cpn_mod_set_ndarray_new(PyObject *m, PyObject *f);
/* Flush and return element 0 of a size-1 array as a NumPy scalar. */
PyObject *cpn_array_to_scalar(PyObject *self);
/* Pack a Python/NumPy scalar into `out` as dtype dt with NumPy's rules (OverflowError...). */
int cpn_pack_scalar(PyObject *value, enum cpn_dtype dt, union cpn_scalar *out);
/* Submit an op, raising on failure (a length-bound flush may run a failing op). */
int cpn_submit(const struct cpn_op *op);
/* A new ndarray: `src` cast (or copied) to dtype dt, same shape.  */
PyObject *cpn_array_cast(PyObject *src, enum cpn_dtype dt);
/* Assign `value` (scalar or array-like) into the view dst with broadcasting and unsafe casting. */
int cpn_assign(struct cpn_view *dst, PyObject *value);

/* ufunc.c: the one ufunc call.  The keywords of a call, NULL when not given (values as passed;
 * NumPy validates them). */
struct cpn_ufunc_kw {
    PyObject *out, *where, *dtype, *signature, *casting, *order, *subok;
};
/* An operator's apply of element-wise op `code` to nin operands; out may be NULL or an ndarray
 * of ours.  Returns a new reference, Py_NotImplemented (new ref) when an operand is foreign, or
 * NULL. */
PyObject *cpn_ufunc_apply(enum cpn_opcode code, PyObject *const *args, PyObject *out);
/* A cupynum.ufunc's call with keywords (foreign operands: NumPy computes or dispatches);
 * stacklevel is that of NumPy's where-without-out warning (1: the caller's frame). */
PyObject *cpn_ufunc_call(enum cpn_opcode code, PyObject *const *args, const struct cpn_ufunc_kw *kw,
                         int stacklevel);
int cpn_ufunc_init(PyObject *module);
/* ufuncobject.c: function `name` of cupynum/_ufunc.py (borrowed), or NULL. */
PyObject *cpn_ufunc_impl(const char *name);

/* index.c */
PyObject *cpn_array_subscript(PyObject *self, PyObject *key);
int cpn_array_ass_subscript(PyObject *self, PyObject *key, PyObject *value);
PyObject *cpn_array_item(PyObject *self, Py_ssize_t i);

/* fastpath.c: scalar reads and full reductions of host-local stores without the queue.  Each
 * returns a new reference, NULL with an exception, or Py_NotImplemented (a new reference, no
 * exception) where the general path must run; each flushes the queue first when it applies. */
PyObject *cpn_fast_scalar(const struct cpn_view *v);               /* a size-1 view's element */
PyObject *cpn_fast_index(PyObject *self, PyObject *key);           /* a[i] of a 1-d array */
/* a.item(*at) of in-bounds indices (negatives from the end), one per dimension: read in place
 * as a Python scalar, or NotImplemented where the general way must read it. */
PyObject *cpn_fast_item(const struct cpn_view *v, const Py_ssize_t *at);
PyObject *cpn_fast_full_reduce(PyObject *self, enum cpn_opcode code);   /* a.sum() ... */
/* f(self, *args, **kw) of a METH_FASTCALL | METH_KEYWORDS method's arguments: the Python
 * function behind a C method's fast path.  A new reference, or NULL with the exception set. */
PyObject *cpn_call_with_self(PyObject *f, PyObject *self, PyObject *const *args, Py_ssize_t nargs,
                             PyObject *kwnames);
extern PyMethodDef cpn_array_reduce_methods[];                     /* ndarray.sum/prod/max/min */
PyObject *cpn_mod_full_reduce(PyObject *m, PyObject *const *args, Py_ssize_t nargs);
PyObject *cpn_mod_temp_probe(PyObject *m, PyObject *arg);
PyObject *cpn_mod_index_range(PyObject *m, PyObject *a);   /* _core.index_range(a) */
PyObject *cpn_mod_correlate_fast(PyObject *m, PyObject *const *args, Py_ssize_t nargs);  /* _core.correlate_fast */
PyObject *cpn_mod_interp_fast(PyObject *m, PyObject *const *args, Py_ssize_t nargs);  /* _core.interp_fast */
PyObject *cpn_mod_concat_rows(PyObject *m, PyObject *const *args, Py_ssize_t nargs);  /* _core.concat_rows */
PyObject *cpn_mod_full_argreduce(PyObject *m, PyObject *const *args, Py_ssize_t nargs);
PyObject *cpn_mod_nonzero_rows(PyObject *m, PyObject *a);   /* _core.nonzero_rows(m) */

/* methods.c: the module's method table (its introspection and runtime control are there too). */
extern PyMethodDef cpn_module_methods[];
/* Parse a shape tuple into int64s; -1 with an exception on error. */
int cpn_parse_shape(PyObject *o, int *ndim, int64_t *shape);
/* 0 when `o` is a cupynum.ndarray, else -1 with TypeError. */
int cpn_check_array(PyObject *o);
/* methods_ops.c: the op builders (each queues one op). */
PyObject *cpn_mod_empty(PyObject *m, PyObject *args);
/* empty_replicated(shape, dtype): a new zero-filled array held whole on every rank, whatever its
 * size (a small table every rank reads: interp's xp and fp); assigning a partitioned array to it
 * is an allgather. */
PyObject *cpn_mod_empty_replicated(PyObject *m, PyObject *args);
PyObject *cpn_mod_cast(PyObject *m, PyObject *args);
PyObject *cpn_mod_assign(PyObject *m, PyObject *args);
PyObject *cpn_mod_ufunc(PyObject *m, PyObject *args);
PyObject *cpn_mod_reduce(PyObject *m, PyObject *args);
PyObject *cpn_mod_argreduce(PyObject *m, PyObject *args);
PyObject *cpn_mod_scan(PyObject *m, PyObject *args);
PyObject *cpn_mod_quantile(PyObject *m, PyObject *args);
PyObject *cpn_mod_select(PyObject *m, PyObject *args);
/* out[mask] = value for a bool mask of out's shape and a Python int, float or bool: the select op
 * cupynum/_ndarray.py's _setitem_mask queues for it (index.c's fast path).  -1 with the
 * exception set (the value's conversion: NumPy's OverflowError). */
int cpn_mask_assign_scalar(struct cpn_view *mask, PyObject *value, struct cpn_view *out);
/* The index array of nonzero(mask) (int64, (mask.ndim, count): count the mask's true elements,
 * counted by the caller), the nonzero op queued to fill it; NULL with an exception set. */
PyObject *cpn_queue_nonzero(struct cpn_view *mask, int64_t count);
/* gather(a, idx) and compact(a, mask, count) of methods_ops.c on checked arrays (fastpath.c). */
PyObject *cpn_gather_rows(PyObject *a, PyObject *idx);
PyObject *cpn_compact_new(PyObject *a, PyObject *mask, int64_t count, int64_t block);
/* a[key] for a cupynum key: an int64 index of one dimension (rows of a) within bounds, or a bool
 * mask of a's shape, a and key in one process's memory: the gather or compaction op queued at once
 * (index.c); NotImplemented (nothing done) for anything else, which cupynum/_ndarray.py takes
 * (and its errors).  Flushes what writes the key. */
PyObject *cpn_fast_advanced_get(PyObject *self, PyObject *key);
/* a[mask] = v for a cupynum bool mask of a's shape and a cupynum 1-D v of a's dtype holding one
 * value per true element (`a[m] += 1`, `a[m] = b[m]`), all in one process's memory, a and the
 * mask contiguous: the positions (nonzero of the flat mask) and the scatter queued at once.  1
 * done, 0 not taken (nothing done: cupynum/_ndarray.py's path, and its errors), -1 error. */
int cpn_fast_mask_assign(PyObject *self, PyObject *key, PyObject *value);
/* a[idx] = v for a cupynum 1-D int64 index within bounds and a cupynum v of a's dtype holding one
 * row per index ((len(idx),) + a.shape[1:]), none of them tiled, v and idx not a's own store: the
 * scatter op queued at once (NumPy's last-wins for repeats).  As cpn_fast_mask_assign: 1 done,
 * 0 not taken, -1 error. */
int cpn_fast_index_assign(PyObject *self, PyObject *key, PyObject *value);
PyObject *cpn_mod_bincount(PyObject *m, PyObject *args);
PyObject *cpn_mod_compact(PyObject *m, PyObject *args);
PyObject *cpn_mod_nonzero(PyObject *m, PyObject *args);
PyObject *cpn_mod_sort(PyObject *m, PyObject *args);
PyObject *cpn_mod_lane_slabs(PyObject *m, PyObject *args);
PyObject *cpn_mod_searchsorted(PyObject *m, PyObject *args);
PyObject *cpn_mod_unique(PyObject *m, PyObject *args);
PyObject *cpn_mod_gather(PyObject *m, PyObject *args);
PyObject *cpn_mod_scatter(PyObject *m, PyObject *args);
PyObject *cpn_mod_rmw_probe(PyObject *m, PyObject *args);   /* _core.rmw_probe(n, m, threads, repeat) */
PyObject *cpn_mod_histogram(PyObject *m, PyObject *args);
PyObject *cpn_mod_matmul(PyObject *m, PyObject *args);
PyObject *cpn_mod_dot1(PyObject *m, PyObject *args);
/* ndarray.c: a @ b of two exact cupynum arrays of one dtype, each 1-d or 2-d, queued (a scalar
 * for two vectors); Py_NotImplemented (no exception) for anything else. */
PyObject *cpn_array_fast_matmul(PyObject *a, PyObject *b);
PyObject *cpn_mod_lapack(PyObject *m, PyObject *args);
PyObject *cpn_mod_lapack_info(PyObject *m, PyObject *a);
PyObject *cpn_mod_fft(PyObject *m, PyObject *args);
PyObject *cpn_mod_arange(PyObject *m, PyObject *args);
PyObject *cpn_mod_random(PyObject *m, PyObject *args);
PyObject *cpn_mod_random_p(PyObject *m, PyObject *args);
PyObject *cpn_mod_permute(PyObject *m, PyObject *args);
/* methods_views.c: views and data in and out, and the ndarray's C methods. */
PyObject *cpn_mod_from_any(PyObject *m, PyObject *obj);
PyObject *cpn_mod_to_numpy(PyObject *m, PyObject *a);
PyObject *cpn_mod_to_scalar(PyObject *m, PyObject *a);
PyObject *cpn_mod_reshape(PyObject *m, PyObject *args);
/* contiguous(a, fortran=False): NumPy's C_CONTIGUOUS (F_CONTIGUOUS) flag of a's view: the byte
 * strides of its store, size-1 dimensions ignored, an empty array contiguous.  Local. */
PyObject *cpn_mod_contiguous(PyObject *m, PyObject *const *args, Py_ssize_t nargs);
PyObject *cpn_mod_transpose(PyObject *m, PyObject *args);
PyObject *cpn_mod_broadcast_to(PyObject *m, PyObject *args);
PyObject *cpn_mod_diagonal(PyObject *m, PyObject *args);
PyObject *cpn_mod_readonly(PyObject *m, PyObject *a);
PyObject *cpn_mod_writeable_view(PyObject *m, PyObject *a);
PyObject *cpn_mod_covers_store(PyObject *m, PyObject *a);
PyObject *cpn_mod_retype(PyObject *m, PyObject *args);
PyObject *cpn_mod_component(PyObject *m, PyObject *args);
PyObject *cpn_mod_bits(PyObject *m, PyObject *a);
PyObject *cpn_mod_reinterpret(PyObject *m, PyObject *args);
PyObject *cpn_mod_layout(PyObject *m, PyObject *a);
PyObject *cpn_mod_shares_store(PyObject *m, PyObject *args);
/* _store_refs(a): the reference count of a's root store (its views, aliases and queued ops hold
 * one each): ndarray.resize's refcheck, after a flush, asks whether other arrays view it. */
PyObject *cpn_mod_store_refs(PyObject *m, PyObject *a);
PyObject *cpn_mod_may_overlap(PyObject *m, PyObject *args);
PyObject *cpn_mod_byte_offset(PyObject *m, PyObject *a);
PyObject *cpn_mod_root(PyObject *m, PyObject *a);
PyObject *cpn_mod_view_as(PyObject *m, PyObject *args);
PyObject *cpn_mod_row_parts(PyObject *m, PyObject *a);
PyObject *cpn_mod_parts_match(PyObject *m, PyObject *args);
extern PyMethodDef cpn_array_methods[];

/* Python helpers installed by the package (cupynum/_ndarray.py) and looked up lazily. */
PyObject *cpn_py_helper(const char *name);

/* interop.c: _core._device_export / _core._dlpack_capsule (device backends only). */
PyObject *cpn_mod_device_export(PyObject *m, PyObject *x);
PyObject *cpn_mod_dlpack_capsule(PyObject *m, PyObject *x);

#endif
