"""Zero-copy interop with other array libraries: __cuda_array_interface__ (v3) and
__dlpack__/__dlpack_device__.

On the GPU backend both describe the rank's own device memory (the whole array when it is not
partitioned; a partitioned array has no single buffer and raises BufferError). On the CPU backend
there is no device memory: __cuda_array_interface__ is absent (hasattr() is False, as for a NumPy
array) and __dlpack__ exports a host copy through NumPy's own DLPack support, refusing
copy=False with BufferError as NumPy does for exports it cannot make without copying."""
from . import _core


def _on_gpu():
    return _core.runtime_info()["backend"] == "cuda"


_TYPESTR_ORDER = "<"


def _cuda_array_interface(self):
    if not _on_gpu():
        raise AttributeError("'cupynum.ndarray' has no __cuda_array_interface__ on the "
                             f"{_core.runtime_info()['backend']} backend (no GPU in use)")
    ptr, _device, strides = _core._device_export(self)
    dt = self.dtype
    typestr = dt.str if dt.byteorder != "=" else _TYPESTR_ORDER + dt.str[1:]
    # The export synchronised cupynum's stream: the data is ready on any stream.
    return {"shape": tuple(self.shape), "typestr": typestr, "descr": dt.descr,
            "data": (ptr, False), "strides": tuple(strides), "version": 3, "stream": None}


def __dlpack__(self, *, stream=None, max_version=None, dl_device=None, copy=None):
    if _on_gpu() and copy is not True and dl_device in (None, __dlpack_device__(self)):
        return _core._dlpack_capsule(self)
    if copy is False:
        raise BufferError("cupynum: this array cannot be exported without a copy "
                          f"(it lives in cupynum's runtime on the {_core.runtime_info()['backend']} "
                          "backend); pass copy=True or None")
    a = _core.to_numpy(self)
    kw = {} if max_version is None else {"max_version": max_version}
    if dl_device is not None:
        kw["dl_device"] = dl_device
    return a.__dlpack__(stream=stream, **kw)


def __dlpack_device__(self):
    if _on_gpu():
        return (2, _core._device_export(self)[1])   # kDLCUDA
    return (1, 0)                                    # kDLCPU


def install(cls):
    cls.__cuda_array_interface__ = property(_cuda_array_interface, doc=_cuda_array_interface.__doc__)
    cls.__dlpack__ = __dlpack__
    cls.__dlpack_device__ = __dlpack_device__
