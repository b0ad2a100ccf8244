"""Finds and loads libmidint.so and declares the C API's prototypes for ctypes (a table, not code per call)."""

import ctypes
import ctypes.util
import os
import threading
from pathlib import Path

_HERE = Path(__file__).resolve().parent

# Where the library is looked for, in order: MIDINT_LIBRARY (a file), the copy the wheel carries
# (midint/lib/, beside midint/share/midint/ with the tuned tables, which the runtime finds relative to
# itself), a source checkout's lib/ (python/midint/../../lib, with tuning/tables beside it), then the system
# (ld.so's path, e.g. after `make install`).
def candidates():
    env = os.environ.get("MIDINT_LIBRARY")
    if env:
        return [Path(env)]
    out = [_HERE / "lib" / "libmidint.so", _HERE.parent.parent / "lib" / "libmidint.so"]
    found = ctypes.util.find_library("midint")
    if found:
        out.append(Path(found))
    return out


c_size_t, c_uint, c_int, c_void_p, c_char_p = ctypes.c_size_t, ctypes.c_uint, ctypes.c_int, ctypes.c_void_p, ctypes.c_char_p
c_double_p = ctypes.POINTER(ctypes.c_double)
c_size_t_p = ctypes.POINTER(ctypes.c_size_t)
c_void_pp = ctypes.POINTER(ctypes.c_void_p)

# name: (return type, argument types). Pointers to data travel as c_void_p (plain integers: NumPy's
# arr.ctypes.data, CUDA device pointers, cl_mem handles), which keeps a call at one ctypes conversion per argument.
PROTOTYPES = {
    "midint_open": (c_int, [c_void_pp, c_int, c_int]),
    "midint_close": (None, [c_void_p]),
    "midint_last_error": (c_char_p, [c_void_p]),
    "midint_status_name": (c_char_p, [c_int]),
    "midint_op_name": (c_char_p, [c_int]),
    "midint_context_backend": (c_int, [c_void_p]),
    "midint_device_name": (c_char_p, [c_void_p]),
    "midint_max_bits": (c_uint, [c_void_p, c_int]),
    # every operation through one call: its buffers and scalars as arrays, in its descriptor's order (ops.py reads
    # the descriptors: the operations are the library's table, not a list kept here)
    "midint_op_count": (c_size_t, []),
    "midint_op_describe": (c_void_p, [c_int]),
    "midint_run": (c_int, [c_void_p, c_int, c_size_t, c_uint, c_void_p, c_void_p]),
    "midint_run_device": (c_int, [c_void_p, c_int, c_size_t, c_uint, c_void_p, c_void_p, c_void_p]),
    # a modulus shared by a batch (midint_modulus_create): the object the *_shared operations take
    "midint_modulus_create": (c_int, [c_void_p, c_void_pp, c_uint, c_void_p]),
    "midint_modulus_free": (None, [c_void_p]),
    "midint_host_alloc": (c_int, [c_void_p, c_size_t, c_void_pp]),
    "midint_host_free": (c_int, [c_void_p, c_void_p]),
    "midint_buffer_alloc": (c_int, [c_void_p, c_size_t, c_void_pp]),
    "midint_buffer_free": (None, [c_void_p, c_void_p]),
    "midint_buffer_write": (c_int, [c_void_p, c_void_p, c_void_p, c_size_t]),
    "midint_buffer_read": (c_int, [c_void_p, c_void_p, c_void_p, c_size_t]),
    "midint_buffer_copy": (c_int, [c_void_p, c_void_p, c_void_p, c_size_t, c_void_p]),
    "midint_synchronize": (c_int, [c_void_p, c_void_p]),
    "midint_load_tuning": (c_int, [c_void_p, c_char_p]),
    "midint_tuning_status": (c_char_p, [c_void_p]),
    "midint_force_variant": (c_int, [c_void_p, c_char_p]),
    "midint_selected_variant": (c_char_p, [c_void_p, c_int, c_uint, c_size_t]),
    "midint_selected_variant_modulus": (c_char_p, [c_void_p, c_int, c_uint, c_size_t, c_void_p]),
    "midint_registry_id": (c_char_p, []),
    "midint_variant_count": (c_size_t, []),
    "midint_variant_name": (c_char_p, [c_size_t]),
    "midint_set_staging_bytes": (c_int, [c_void_p, c_size_t]),
    "midint_workspace_size": (c_int, [c_void_p, c_int, c_uint, c_size_t, c_size_t_p]),
    "midint_set_workspace_bytes": (c_int, [c_void_p, c_size_t]),
    "midint_batch_gcd": (c_int, [c_void_p, c_size_t, c_uint, c_void_p, c_void_p]),
    # fused expressions (docs/expressions.md): outputs and inputs as arrays of pointers
    "midint_expr_count": (c_size_t, []),
    "midint_expr_info": (c_void_p, [c_size_t]),
    "midint_expr_max_bits": (c_uint, [c_void_p, c_char_p]),
    "midint_expr": (c_int, [c_void_p, c_char_p, c_size_t, c_uint, c_size_t, c_void_p, c_size_t, c_void_p]),
    "midint_expr_device": (c_int, [c_void_p, c_char_p, c_size_t, c_uint, c_size_t, c_void_p, c_size_t, c_void_p,
                                   c_void_p]),
}


class ExprDesc(ctypes.Structure):
    """midint_expr_desc (runtime/midint.h): one generated expression."""
    _fields_ = [("name", c_char_p), ("ninputs", c_uint), ("noutputs", c_uint),
                ("inputs", ctypes.POINTER(c_char_p)), ("outputs", ctypes.POINTER(c_char_p)),
                ("output_words", ctypes.POINTER(c_uint)), ("program", c_char_p)]

_lock = threading.Lock()
_lib = None
_path = None


class LibraryNotFound(ImportError):
    """libmidint.so could not be loaded from any of the places midint looks."""


def load():
    """The loaded library (loaded once, at first use, so that `import midint` works without it)."""
    global _lib, _path
    if _lib is not None:
        return _lib
    with _lock:
        if _lib is None:
            tried = []
            for p in candidates():
                if not p.exists() and p.is_absolute():
                    tried.append(f"{p}: missing")
                    continue
                try:
                    lib = ctypes.CDLL(str(p))
                except OSError as e:
                    tried.append(f"{p}: {e}")
                    continue
                for name, (res, args) in PROTOTYPES.items():
                    fn = getattr(lib, name)
                    fn.restype, fn.argtypes = res, args
                _lib, _path = lib, p
                break
            else:
                raise LibraryNotFound("libmidint.so not found (build it with `make`, install the midint wheel, or set "
                                      "MIDINT_LIBRARY to its path); tried: " + "; ".join(tried))
    return _lib


def path():
    """The file the library was loaded from."""
    load()
    return _path
