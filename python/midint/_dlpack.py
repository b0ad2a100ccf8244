"""Reads a DLPack capsule (obj.__dlpack__()) with ctypes: the data pointer, device, dtype, shape and strides of an
array from any framework, without importing that framework."""

import ctypes

KDL_CPU, KDL_CUDA, KDL_CUDA_HOST, KDL_CUDA_MANAGED = 1, 2, 3, 13
KDL_UINT = 1


class _Device(ctypes.Structure):
    _fields_ = [("device_type", ctypes.c_int32), ("device_id", ctypes.c_int32)]


class _DType(ctypes.Structure):
    _fields_ = [("code", ctypes.c_uint8), ("bits", ctypes.c_uint8), ("lanes", ctypes.c_uint16)]


class _Tensor(ctypes.Structure):
    _fields_ = [("data", ctypes.c_void_p), ("device", _Device), ("ndim", ctypes.c_int32), ("dtype", _DType),
                ("shape", ctypes.POINTER(ctypes.c_int64)), ("strides", ctypes.POINTER(ctypes.c_int64)),
                ("byte_offset", ctypes.c_uint64)]


# DLManagedTensor starts with its DLTensor, which is all that is read here
_get_pointer = ctypes.pythonapi.PyCapsule_GetPointer
_get_pointer.restype, _get_pointer.argtypes = ctypes.c_void_p, [ctypes.py_object, ctypes.c_char_p]


class View:
    """What a DLPack capsule says about an array. `capsule` must stay referenced while `ptr` is used: the
    capsule's destructor releases the producer's hold on the memory (DLPack's rule for an unconsumed capsule)."""

    def __init__(self, capsule):
        t = _Tensor.from_address(_get_pointer(capsule, b"dltensor"))
        self.capsule = capsule
        self.ptr = (t.data or 0) + t.byte_offset
        self.device_type, self.device_id = t.device.device_type, t.device.device_id
        self.dtype = (t.dtype.code, t.dtype.bits, t.dtype.lanes)
        self.shape = tuple(t.shape[i] for i in range(t.ndim))
        self.strides = tuple(t.strides[i] for i in range(t.ndim)) if t.strides else None   # in elements

    def is_uint32(self):
        return self.dtype == (KDL_UINT, 32, 1)

    def is_c_contiguous(self):
        if self.strides is None:
            return True
        want = 1
        for n, s in zip(reversed(self.shape), reversed(self.strides)):
            if n != 1 and s != want:
                return False
            want *= n
        return True


def view(obj):
    """View of obj.__dlpack__() (obj's own stream semantics: the producer orders the export on its stream)."""
    return View(obj.__dlpack__())
