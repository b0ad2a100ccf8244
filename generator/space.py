"""The parameter space as data: operations, candidate values, resource model and constraints."""

from dataclasses import dataclass
from typing import Callable

from .variant import BACKENDS, LIMB_WORDS, Variant

# ---- hardware limits the generator plans against (the runtime re-checks against the actual device) ----
MAX_BLOCK_THREADS = 1024          # CUDA and the OpenCL devices we target
WARP = 32                         # lanes per warp; the carry scan works in groups of this many
MAX_SHARED_BYTES = 227 * 1024     # largest dynamic shared memory a block may opt into on sm_90
MAX_BITS = 1 << 24                # no request beyond this is even considered

DEFAULT_SIZES = tuple(1 << e for e in range(9, 19))   # 2^9 .. 2^18 bits


@dataclass(frozen=True)
class OpFamily:
    """Operations sharing one kernel template and one resource model."""

    ops: tuple[str, ...]
    template: str
    limbs: tuple[str, ...]
    qs: tuple[int, ...]
    ipbs: tuple[int, ...]


ADDSUB = OpFamily(
    ops=("add", "sub"),
    template="kernel_addsub.j2",
    limbs=("u32", "u64"),
    qs=(1, 2, 4, 8, 16),
    ipbs=(1, 2, 4, 8, 16, 32, 64, 128, 256),
)

FAMILIES = (ADDSUB,)
OPS = {op: fam for fam in FAMILIES for op in fam.ops}


# ---- resource model (one formula, used by constraints, the registry and the templates) ----
def padded_words(words: int) -> int:
    """Shared-memory words for `words` staged words: one pad word per 32 keeps chunk reads conflict-free."""
    return words + words // 32


def shared_bytes(v: Variant) -> int:
    """Dynamic local memory of one block: two staged operands, plus scratch for the carry scan
    (32 warp totals, and on OpenCL one word per thread to emulate warp shuffles)."""
    staged = 2 * padded_words(v.block * v.chunk_words)
    scratch = WARP + (v.block if v.backend == "opencl" else 0)
    return 4 * (staged + scratch)


# ---- constraints: name, what it says, predicate. Order matters only for the messages. ----
@dataclass(frozen=True)
class Constraint:
    name: str
    rule: str
    holds: Callable[[Variant], bool]
    kind: str = "legal"     # "legal": the kernel cannot work otherwise; "prune": it works but cannot win


MIN_CHUNK_WORDS = 4
MAX_CHUNK_WORDS = 16
MIN_BLOCK = 64
MULTI_INSTANCE_BLOCKS = (128, 256)

CONSTRAINTS = (
    Constraint("bits_multiple_of_32", "bits is a positive multiple of 32",
               lambda v: v.bits > 0 and v.bits % 32 == 0),
    Constraint("known_limb", f"limb type is one of {', '.join(LIMB_WORDS)}",
               lambda v: v.limb in LIMB_WORDS),
    Constraint("known_backend", f"backend is one of {', '.join(BACKENDS)}",
               lambda v: v.backend in BACKENDS),
    Constraint("q_positive", "Q and IPB are at least 1", lambda v: v.q >= 1 and v.ipb >= 1),
    Constraint("chunk_registers", f"Q x limb words is at most {MAX_CHUNK_WORDS} (registers per thread)",
               lambda v: v.chunk_words <= MAX_CHUNK_WORDS),
    # "Q divides the padded length" holds by construction: an instance is padded to threads per instance
    # x Q limbs (Variant.threads_per_instance rounds up), so it is not a check here.
    Constraint("chunk_fits_instance", "a thread's Q limbs are no more than one instance",
               lambda v: v.chunk_words <= v.words),
    # Blocks are whole warps by construction (Variant.block rounds up), so that is not a check either.
    Constraint("block_max", f"threads per block (IPB x threads per instance) is at most {MAX_BLOCK_THREADS}",
               lambda v: v.block <= MAX_BLOCK_THREADS),
    Constraint("shared_memory", f"shared memory per block is at most {MAX_SHARED_BYTES} bytes",
               lambda v: shared_bytes(v) <= MAX_SHARED_BYTES),
    Constraint("min_chunk", f"a thread holds at least {MIN_CHUNK_WORDS} words (one 16-byte access; "
               "narrower chunks only add threads)", lambda v: v.chunk_words >= MIN_CHUNK_WORDS, "prune"),
    Constraint("min_block", f"at least {MIN_BLOCK} threads per block (32 resident blocks must fill an SM)",
               lambda v: v.block >= MIN_BLOCK, "prune"),
    Constraint("multi_instance_block", "a block of several instances has "
               f"{' or '.join(map(str, MULTI_INSTANCE_BLOCKS))} threads (smaller blocks cap occupancy, larger "
               "ones gain nothing)", lambda v: v.ipb == 1 or v.block in MULTI_INSTANCE_BLOCKS, "prune"),
)


def failed_constraint(v: Variant, kinds=("legal", "prune")) -> Constraint | None:
    """The first constraint `v` breaks, or None."""
    for c in CONSTRAINTS:
        if c.kind in kinds and not c.holds(v):
            return c
    return None


def candidates(op: str, bits: int, backend: str):
    """Every point of the space for (op, bits, backend), legal or not."""
    fam = OPS[op]
    for limb in fam.limbs:
        for q in fam.qs:
            for ipb in fam.ipbs:
                yield Variant(op=op, bits=bits, limb=limb, q=q, ipb=ipb, backend=backend)
