"""A variant: one point of the parameter space, and its name, which is its key everywhere."""

from dataclasses import dataclass, replace
import re

from .ntt import transform_length

# Limb types: name -> 32-bit words per limb.
LIMB_WORDS = {"u32": 1, "u64": 2}

BACKENDS = ("cuda", "opencl")


class VariantNameError(ValueError):
    """A string that is not a well-formed variant name."""


@dataclass(frozen=True)
class Variant:
    """(op, bits, limb, q, ipb, ntt, grid, lanes, backend). `ntt` is None for non-NTT algorithms, else a (prime
    set, digit bits) pair. `grid` is None for the one-block families (an instance within one block), else the
    threads per block of a grid family, whose instance is spread over many blocks and several kernels.
    `lanes` is None for block-wide kernels, else the lanes an instance's limbs live on, in registers (1: a thread
    per instance): neighbouring lanes of one warp (name field wL), or with `across` one lane in each of L warps
    (xL), which lets whole warps skip the steps that are of no use to them (the low half), or with `owner` L word
    blocks summed by L/2 warps, each warp the products of two blocks (oL, the balanced low half), or with `staged`
    a thread per instance whose warp's operands and results pass through shared memory, so that global accesses
    are coalesced (t1). `karatsuba` is None for
    the plain algorithms, else the Karatsuba levels over a register-resident base case (name field kK).
    Further optional fields go in the same way: appended with their own prefix, absent when at their default."""

    op: str
    bits: int
    limb: str
    q: int
    ipb: int
    backend: str
    ntt: tuple | None = None
    grid: int | None = None
    lanes: int | None = None
    across: bool = False
    owner: bool = False
    staged: bool = False
    karatsuba: int | None = None

    # ---- derived quantities (resource model shared by constraints, registry and templates) ----
    @property
    def limb_words(self) -> int:
        return LIMB_WORDS[self.limb]

    @property
    def chunk_words(self) -> int:
        """32-bit words each thread holds in registers per operand."""
        return self.q * self.limb_words

    @property
    def words(self) -> int:
        return self.bits // 32

    @property
    def threads_per_instance(self) -> int:
        """Classical: the words / Q chunks. NTT: the transform length / Q elements per thread. Grid families
        spread an instance over as many blocks as its size needs: one block's worth here."""
        if self.grid is not None:
            return self.grid
        if self.lanes is not None:
            return self.lanes // 2 if self.owner else self.lanes
        if self.ntt is not None:   # at least one (a transform shorter than Q points: a legality constraint says no)
            return max(1, transform_length(self.bits, self.ntt[1]) // self.q)
        return -(-self.words // self.chunk_words)

    @property
    def block(self) -> int:
        """Threads per block: IPB instances, rounded up to whole warps (the carry scan works on whole
        warps; the few extra threads idle)."""
        return -(-self.ipb * self.threads_per_instance // 32) * 32

    @property
    def name(self) -> str:
        return format_name(self)

    def with_backend(self, backend: str) -> "Variant":
        return replace(self, backend=backend)


# Fixed field order. Each entry: (field, prefix, pattern of the value, optional).
_NAME_FIELDS = (
    ("op", "", r"[a-z][a-z0-9]*(?:_[a-z][a-z0-9]*)?", False),   # expressions: expr_NAME
    ("bits", "", r"[1-9][0-9]*", False),
    ("limb", "", "|".join(LIMB_WORDS), False),
    ("q", "q", r"[1-9][0-9]*", False),
    ("ipb", "i", r"[1-9][0-9]*", False),
    ("ntt", "p", r"[0-9]+b[1-9][0-9]*", True),
    ("grid", "g", r"[1-9][0-9]*", True),
    # w: lanes of one warp, x: across warps, o: owners, t: a thread per instance, staged through shared memory
    ("lanes", "(?P<lanes_kind>[wxot])", r"[1-9][0-9]*", True),
    ("karatsuba", "k", r"[1-9]", True),                           # Karatsuba levels over the lanes pipeline
    ("backend", "", "|".join(BACKENDS), False),
)
_NAME_RE = re.compile(
    "^"
    + "".join(
        ("(?:_" if i else "(?:") + f"{prefix}(?P<{field}>{pat}))" + ("?" if optional else "")
        for i, (field, prefix, pat, optional) in enumerate(_NAME_FIELDS)
    )
    + "$"
)


def format_name(v: Variant) -> str:
    parts = []
    for field, prefix, _pat, optional in _NAME_FIELDS:
        value = getattr(v, field)
        if optional and value is None:
            continue
        if field == "ntt":
            value = f"{value[0]}b{value[1]}"
        if field == "lanes":
            prefix = "o" if v.owner else "x" if v.across else "t" if v.staged else "w"
        parts.append(f"{prefix}{value}")
    return "_".join(parts)


def parse_name(name: str) -> Variant:
    m = _NAME_RE.match(name)
    if not m:
        raise VariantNameError(
            f"'{name}' is not a variant name: expected op_bits_limb_qQ_iIPB[_pSETbDIGIT][_gBLOCK][_wLANES|_xLANES|_oLANES|_t1][_kLEVELS]_backend, "
            "e.g. add_4096_u64_q4_i1_cuda"
        )
    ntt = m.group("ntt")
    if ntt is not None:
        s, d = ntt.split("b")
        ntt = (int(s), int(d))
    grid = m.group("grid")
    lanes = m.group("lanes")
    karatsuba = m.group("karatsuba")
    return Variant(
        op=m.group("op"),
        bits=int(m.group("bits")),
        limb=m.group("limb"),
        q=int(m.group("q")),
        ipb=int(m.group("ipb")),
        backend=m.group("backend"),
        ntt=ntt,
        grid=int(grid) if grid is not None else None,
        lanes=int(lanes) if lanes is not None else None,
        across=m.group("lanes_kind") == "x",
        owner=m.group("lanes_kind") == "o",
        staged=m.group("lanes_kind") == "t",
        karatsuba=int(karatsuba) if karatsuba is not None else None,
    )
