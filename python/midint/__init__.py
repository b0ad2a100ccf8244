"""midint: exact batched arithmetic on big unsigned integers on GPUs (CUDA, else OpenCL), from Python ints,
NumPy arrays and CUDA device arrays. See python/README.md; `python -m midint.info`, `python -m midint.bench`."""

from . import _lib
from ._errors import MidintDeviceError, MidintError, MidintMemoryError, MidintTypeError, MidintValueError
from ._lib import LibraryNotFound
from .context import Context, DeviceArray, Modulus
from .ops import OPS
from .convert import ints_to_limbs, limbs_to_ints

__version__ = "0.1.0"

__all__ = ["Context", "DeviceArray", "Modulus", "MidintError", "MidintValueError", "MidintTypeError", "MidintMemoryError",
           "MidintDeviceError", "LibraryNotFound", "ints_to_limbs", "limbs_to_ints", "library_path", "registry_id",
           "variants", "generated_sizes", "OPS", "batch_gcd"]


def batch_gcd(moduli, backend=None):
    """Context(backend).batch_gcd(moduli): for each modulus, its gcd with the product of all the others."""
    with Context(backend) as ctx:
        return ctx.batch_gcd(moduli)


def library_path():
    """The libmidint.so in use."""
    return str(_lib.path())


def registry_id():
    """The hash of the variant registry the library was built with (tuned tables name it)."""
    return _lib.load().midint_registry_id().decode()


def variants():
    """Names of the generated kernel variants (op_bits_limb_qQ_iIPB[_...]_backend)."""
    lib = _lib.load()
    return [lib.midint_variant_name(i).decode() for i in range(lib.midint_variant_count())]


def generated_sizes(backend=None):
    """{op: sorted sizes in bits generated for it} (for one backend, or any); fused expressions appear as
    expr_NAME. Any multiple of 32 up to the largest works; the generated sizes are the fast ones."""
    out = {}
    for name in variants():
        fields = name.split("_")
        k = next(i for i, f in enumerate(fields) if f.isdigit())   # expr_poly_2048_u64_..., mulmod_shared_256_...
        op = "_".join(fields[:k])
        if backend is None or fields[-1] == backend:
            out.setdefault(op, set()).add(int(fields[k]))
    return {op: sorted(s) for op, s in out.items()}
