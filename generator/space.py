"""The parameter space as data: operations, candidate values, resource model and constraints."""

from dataclasses import dataclass, replace
from typing import Callable

from . import (expr_lanes_plan, expr_mod_plan, expr_ntt_plan, expr_plan, grid_plan, lanes_plan, mod_scratch, ntt,
               ntt_plan, ops, owner_plan, sqr_plan)
from .variant import BACKENDS, LIMB_WORDS, Variant

# ---- hardware limits the generator plans against (the runtime re-checks against the actual device) ----
MAX_BLOCK_THREADS = 1024          # CUDA and the OpenCL devices we target
WARP = 32                         # lanes per warp; the carry scan works in groups of this many
MAX_SHARED_BYTES = 227 * 1024     # largest dynamic shared memory a block may opt into on sm_90
MAX_BITS = 1 << 31                # no request beyond this is even considered

# 2^8 .. 2^30 bits, and 2^31 for add and sub (a grid kernel for a size serves every size below it)
DEFAULT_SIZES = tuple(1 << e for e in range(8, 31)) + (1 << 31,)

MIN_CHUNK_WORDS = 4               # words per thread: one 16-byte access
MIN_BLOCK = 64                    # threads per block: 32 resident blocks must fill an SM


# ---- constraints: name, what it says, predicate. Order matters only for the messages. ----
@dataclass(frozen=True)
class Constraint:
    name: str
    rule: str
    holds: Callable[[Variant], bool]
    kind: str = "legal"     # "legal": the kernel cannot work otherwise; "prune": it works but cannot win


@dataclass(frozen=True)
class OpFamily:
    """Operations sharing one kernel template, one resource model and their own constraints. Which operations a family
    generates is said by the operations' rows (generator/ops.py, `families`), under the family's `name`."""

    name: str
    template: str
    limbs: tuple[str, ...]
    qs: tuple[int, ...]
    ipbs: tuple[int, ...]
    extra_shared_words: Callable[[Variant], int] = lambda v: 0   # per block, beyond the two staged operands
    constraints: tuple[Constraint, ...] = ()
    multi_instance_blocks: tuple[int, ...] = (128, 256)         # block sizes generated when IPB > 1
    ntts: tuple = (None,)            # NTT (prime set, digit bits) choices; (None,) for other algorithms
    grids: tuple = (None,)           # grid families: threads per block of their tile kernels; (None,) otherwise
    lanes: tuple = (None,)           # register-resident families: lanes per instance; (None,) otherwise
    across: tuple = (False,)         # register-resident families: lanes in one warp (False) or across warps (True)
    owners: tuple = (False,)         # (True,): the balanced low half (`_oL`), blocks summed by their owner warps
    staged: tuple = (False,)         # register-resident families: also a thread per instance staged through shared
                                     # memory (`_t1`, True)
    karatsubas: tuple = (None,)      # Karatsuba levels over a register-resident base case; (None,) otherwise
    # shared words of the kernel's own layout; None: two staged operands plus extra_shared_words
    shared_words: Callable[[Variant], int] | None = None
    render_context: Callable[[Variant], dict] = lambda v: {}    # what the template needs beyond `v`
    # the least-pruned variants kept where prune constraints would remove all (plan.variants_for) are chosen among
    # this family's own, not among every family of the op: the fused expressions' two families are alternatives the
    # tuner weighs, so one's unpruned variants must not remove the other's
    own_fallback: bool = False
    # sizes the family's operations are generated at beyond the requested ones when the request is the default sizes
    # (cryptographic sizes between the powers of two, where a variant of the next power of two would do up to 1.8x
    # the work of a thread per instance)
    extra_sizes: tuple = ()
    # the family's kernels take odd moduli only where its operations take any (mulmod_shared on lanes: Montgomery
    # products): the registry marks its variants (midint_variant.odd_moduli) and the runtime sends even moduli to
    # the operation's other variants
    odd_moduli: bool = False
    # words of the context's workspace per instance, for one-block kernels that keep their arrays there (the runtime
    # then runs the batch in passes of as many instances as the workspace holds, runtime/plan.c); 0: none
    workspace_words: Callable[[Variant], int] = lambda v: 0
    # the backends it generates for; a point of another backend goes to the op's next family (family_of)
    backends: tuple = ("cuda", "opencl")

    @property
    def ops(self) -> tuple:
        return tuple(op.name for op in ops.OPERATIONS if self.name in op.families)


def full_product(v: Variant) -> bool:
    """Whether v's operation writes the full product (2n words: mul, sqr), not a value mod 2^bits."""
    return v.op in ops.BY_NAME and ops.BY_NAME[v.op].result.width == "2n"


def padded_words(words: int) -> int:
    """Shared-memory words for `words` staged words: one pad word per 32 keeps chunk reads conflict-free."""
    return words + words // 32


def region_limbs(v: Variant) -> int:
    """Classical multiplication: result limbs per region (a thread computes two regions)."""
    return v.q if full_product(v) else v.q // 2


# Registers a multiplying thread keeps live: two region sums (RQ + 2 limbs each) and the window of RQ b limbs.
MUL_MAX_LIVE_WORDS = 104
REGISTERS_PER_SM = 65536
MUL_OVERHEAD_REGISTERS = 24     # addresses, loop bounds, the a limb, carries: measured from ptxas reports
REGION_LIMBS = (4, 8)           # generated region sizes (H200: 8 u64 limbs best at every size, 4 within 20%)


def mul_live_words(v: Variant) -> int:
    rq = region_limbs(v)
    return v.limb_words * (2 * (rq + 2) + rq)


MAX_CHUNK_WORDS = 16
ADDSUB_MIN_CHUNK_WORDS = 8
MAX_MUL_CHUNK_WORDS = 32
MUL_MAX_BITS = 1 << 18

ADDSUB = OpFamily(
    name="addsub",
    template="kernel_addsub.j2",
    limbs=("u32", "u64"),
    qs=(1, 2, 4, 8, 16),
    ipbs=(1, 2, 4, 8, 16, 32, 64, 128, 256),
    constraints=(
        Constraint("chunk_registers", f"Q x limb words is at most {MAX_CHUNK_WORDS} (registers per thread)",
                   lambda v: v.chunk_words <= MAX_CHUNK_WORDS),
        Constraint("addsub_min_chunk", f"a thread holds at least {ADDSUB_MIN_CHUNK_WORDS} words (H200: 4 words "
                   "ran 10-30% below the copy rate, 8 and 16 at it)",
                   lambda v: v.chunk_words >= ADDSUB_MIN_CHUNK_WORDS, "prune"),
    ),
)

MUL = OpFamily(
    name="mul",
    template="kernel_mul.j2",
    limbs=("u32", "u64"),
    qs=(2, 4, 8, 16, 32),
    ipbs=(1, 2, 4, 8, 16, 32, 64, 128, 256),
    # the overflow limbs each region passes to the next: two limbs for each of 2 regions per thread
    extra_shared_words=lambda v: 4 * v.block * v.limb_words,
    constraints=(
        Constraint("region_limbs", "a region has at least 2 limbs (Q >= 2 for mul, Q >= 4 for mullo), so that "
                   "the summing phase carries at most 1 per chunk", lambda v: region_limbs(v) >= 2),
        Constraint("mul_chunk", f"Q x limb words is at most {MAX_MUL_CHUNK_WORDS} (staging loop length)",
                   lambda v: v.chunk_words <= MAX_MUL_CHUNK_WORDS),
        Constraint("mul_registers", f"a multiplying thread keeps at most {MUL_MAX_LIVE_WORDS} words live "
                   "(two region sums and the window)", lambda v: mul_live_words(v) <= MUL_MAX_LIVE_WORDS),
        Constraint("mul_block_registers", f"a block's registers fit one SM ({REGISTERS_PER_SM}; live words plus "
                   f"{MUL_OVERHEAD_REGISTERS} per thread)",
                   lambda v: v.block * (mul_live_words(v) + MUL_OVERHEAD_REGISTERS) <= REGISTERS_PER_SM),
        Constraint("region_size", f"a region has {' or '.join(map(str, REGION_LIMBS))} limbs (smaller ones load "
                   "more than they multiply, larger ones run out of registers: both slower on the H200)",
                   lambda v: region_limbs(v) in REGION_LIMBS, "prune"),
        Constraint("mul_max_bits", f"at most {MUL_MAX_BITS} bits (beyond, the NTT is more than 20x faster: H200, "
                   "262144 bits)", lambda v: v.bits <= MUL_MAX_BITS, "prune"),
    ),
    multi_instance_blocks=(128,),   # H200: 128-thread blocks were the fastest multi-instance blocks at every size
)

# NTT multiplication (generator/ntt.py for the primes, ntt_plan.py for the kernel layout). Q is the number of
# transform elements a thread holds (the radix of its passes); the limb is the 32-bit prime word.
NTT_MIN_BITS = 4096


def _ntt_prime_set_is_smallest(v: Variant) -> bool:
    smaller = [s for s in ntt.PRIME_SET_SIZES if s < v.ntt[0]]
    return not any(ntt.bound_holds(v.bits, s, v.ntt[1]) for s in smaller)


NTT_BOUND = Constraint("ntt_bound", "exactness: m (2^b - 1)^2 < P, the product of the primes (m digits of b bits)",
                       lambda v: ntt.bound_holds(v.bits, *v.ntt))

NTT = OpFamily(
    name="ntt",
    template="kernel_ntt.j2",
    limbs=("u32",),
    qs=(16, 32),
    ipbs=(1, 2, 4, 8, 16),
    ntts=tuple((s, b) for s in ntt.PRIME_SET_SIZES for b in ntt.DIGIT_BITS),
    shared_words=ntt_plan.shared_words,
    render_context=lambda v: {"nt": ntt_plan.plan(v)},
    # H200: 256-thread blocks of several instances ran 5-13% below one instance per block at 16384..65536 bits
    multi_instance_blocks=(64,),
    constraints=(
        NTT_BOUND,
        Constraint("ntt_two_passes", "the transform is longer than Q elements (at least two passes)",
                   lambda v: ntt.transform_length(v.bits, v.ntt[1]) >= 2 * v.q),
        Constraint("ntt_table", f"the transform has at most {ntt_plan.TABLE_LENGTH} points (the twiddle tables)",
                   lambda v: ntt.transform_length(v.bits, v.ntt[1]) <= ntt_plan.TABLE_LENGTH),
        Constraint("ntt_whole_warps", "IPB x threads per instance is a multiple of 32 (no idle lanes)",
                   lambda v: v.ipb * v.threads_per_instance % WARP == 0),
        Constraint("ntt_sum_words", "a thread sums at least 2 result words (its chunk then carries at most 1)",
                   lambda v: ntt_plan.words_per_thread(v) >= 2),
        Constraint("ntt_fewest_primes", "the prime set is the smallest that meets the bound for its digit size "
                   "(a larger one only adds transforms)", _ntt_prime_set_is_smallest, "prune"),
        Constraint("ntt_32bit_digits", "digits are 32 bits (H200: 16-bit digits with two primes ran at 55-80% "
                   "of 32-bit digits with three primes at every size from 4096 to 131072 bits)",
                   lambda v: v.ntt[1] == 32, "prune"),
        Constraint("ntt_min_bits", f"at least {NTT_MIN_BITS} bits (below, classical multiplication does fewer "
                   "operations than three transforms per prime)", lambda v: v.bits >= NTT_MIN_BITS, "prune"),
    ),
)

# Grid families (generator/grid_plan.py): an instance spread over many blocks and several kernels, for sizes beyond
# one block and for few large instances. Their kernels do not depend on the size, so the variants of every size
# share one set (an engine) and cost no more compilation.
GRID_MIN_BITS = 1 << 16
ADDSUB_GRID_MAX_BITS = 1 << 31


def _grid_min_bits(v: Variant) -> bool:
    return v.bits >= GRID_MIN_BITS


ADDSUB_GRID = OpFamily(
    name="addsub_grid",
    template="",
    limbs=("u32",),
    qs=(8, 16),
    ipbs=(1,),
    grids=(256, 512, 1024),
    constraints=(
        Constraint("grid_max_bits", f"at most {ADDSUB_GRID_MAX_BITS} bits (32-bit word indices within an instance)",
                   lambda v: v.bits <= ADDSUB_GRID_MAX_BITS),
        Constraint("grid_min_bits", f"at least {GRID_MIN_BITS} bits (below, a few instances of one-block kernels "
                   "fill the GPU as well)", _grid_min_bits, "prune"),
    ),
)

NTT_GRID = OpFamily(
    name="ntt_grid",
    template="",
    limbs=("u32",),
    qs=(8, 16),
    ipbs=(1,),
    ntts=((grid_plan.PRIME_SET, grid_plan.DIGIT_BITS),),
    grids=(256,),
    constraints=(
        NTT_BOUND,
        Constraint("ntt_grid_min_bits", f"at least {GRID_MIN_BITS} bits (below, a few instances of one-block kernels "
                   "fill the GPU as well)", _grid_min_bits, "prune"),
        Constraint("ntt_grid_radix", "16 points per thread (radix-16 passes; radix 8 measured at 78-80% of its rate "
                   "on the H200, 2^20 to 2^24 bits, single and batched)", lambda v: v.q == 16, "prune"),
    ),
)

# Register-resident multiplication (templates/kernel_mul_lanes.j2): an instance's limbs on `lanes` lanes (1: one
# thread), Q words of each operand per lane, the product as straight-line multiply-add chains over registers; b's
# words and the partial sums pass between lanes by warp shuffles (lanes of one warp), or through shared memory
# (lanes across warps, and OpenCL).
LANES_MAX = 32                     # lanes of one warp, or warps of one block
LANES_BLOCK = 128                  # threads per block
LANES_MAX_BITS = 8192


def lanes_live_words(v: Variant) -> int:
    """Registers a lane keeps live: its Q words of a and b, the sums E and O (2Q + 1 and 2Q - 1 words), the Q
    words passed on at each step and the carry. One thread's low half keeps only the sums' words below Q."""
    if v.lanes == 1 and v.op == "mullo":
        return 3 * v.q + 1
    return 7 * v.q + 1


def lanes_shared_words(v: Variant) -> int:
    """OpenCL, and lanes across warps, pass b's words and the partial sums through shared (local) memory: Q words
    per thread for each. A staged thread (`_t1`) adds its warp's two transposition regions: Q + 1 words per thread
    each (a, then the results; b; the pad word keeps both access patterns free of bank conflicts)."""
    exchange = 2 * v.block * v.q if v.backend == "opencl" or v.across else 0
    return exchange + (2 * v.block * (v.q + 1) if v.staged else 0)


LANES_MAX_LIVE_WORDS = 128
LANES_PIPELINE_QS = (4, 8, 16)      # words per lane of the families on several lanes; 32 only for one staged thread
# 12 for one thread at 384 bits (P-384): H200, 2^27 words, mul 0.572 ms against 0.961 for the 512-bit kernel on
# zero-padded words, mullo 0.377 against 0.617, sqr 0.483 against 0.661 (tuning/results/h200-2026-11-29-s34, run 8); on
# 4 and 8 lanes at 1536 and 3072 bits against the padded 2048- and 4096-bit kernels, mul 1.04 against 1.73 ms and 2.08
# against 3.41, mullo 0.84 against 1.04 and 1.74 against 1.80 (tuning/results/h200-2026-11-29-s38, run 11)
LANES_ONE_THREAD_QS = (12,)
LANES_Q12_SIZES = (1536, 3072)   # 12 words a lane on 4 and 8 lanes (default builds padded them to 2048 and 4096 bits)
LANES = OpFamily(
    name="lanes",
    template="kernel_mul_lanes.j2",
    limbs=("u32",),
    qs=LANES_PIPELINE_QS + LANES_ONE_THREAD_QS + (32,),
    ipbs=tuple(1 << i for i in range(8)),
    lanes=tuple(1 << i for i in range(6)),
    across=(False, True),
    staged=(False, True),
    shared_words=lanes_shared_words,
    # the one-lane low half computes only the words below Q
    render_context=lambda v: {"rows": lanes_plan.lanes_chains(v.q, v.op == "mullo" and v.lanes == 1)},
    multi_instance_blocks=(128, 256, 512, 1024),   # lanes across warps: 32 L threads; lanes_block below
    extra_sizes=(384,) + LANES_Q12_SIZES,
    constraints=(
        Constraint("lanes_fit", "lanes x Q words is the instance exactly, on a power-of-two number of lanes of one "
                   f"warp (at most {LANES_MAX})",
                   lambda v: v.lanes * v.q == v.words and v.lanes <= LANES_MAX and v.lanes & (v.lanes - 1) == 0),
        Constraint("lanes_even_q", "Q is a multiple of 4 (16-byte accesses, even and odd sums of equal length)",
                   lambda v: v.q % 4 == 0),
        Constraint("lanes_registers", f"a lane keeps at most {LANES_MAX_LIVE_WORDS} words live (7 Q + 1)",
                   lambda v: lanes_live_words(v) <= LANES_MAX_LIVE_WORDS),
        Constraint("lanes_across_shape", "lanes across warps: 32 instances per block, one per lane of each warp",
                   lambda v: not v.across or v.ipb == WARP),
        Constraint("lanes_staged_shape", "staged through shared memory (t1): one thread per instance, lanes of one warp",
                   lambda v: not v.staged or (v.lanes == 1 and not v.across)),
        Constraint("lanes_one_thread_q", f"Q in {LANES_ONE_THREAD_QS} on one lane (384 bits: measured there), or at "
                   f"{LANES_Q12_SIZES} bits, where no other Q gives a power-of-two number of lanes",
                   lambda v: v.q not in LANES_ONE_THREAD_QS or v.lanes == 1 or v.bits in LANES_Q12_SIZES, "prune"),
        Constraint("lanes_thread_q32", "32 words in one thread only staged (H200, mullo 1024 bits: unstaged, each "
                   "thread's 16-byte loads 128 bytes apart, 6392 M/s against w2's 8252)",
                   lambda v: v.q < 32 or v.staged, "prune"),
        Constraint("lanes_block", f"lanes of one warp: {LANES_BLOCK} threads per block",
                   lambda v: v.across or v.block == LANES_BLOCK, "prune"),
        Constraint("lanes_across_use", "lanes across warps only for the low half (mullo) on at least 4 lanes: there "
                   "whole warps skip the steps whose products fall above it; a full product has no such steps (H200, "
                   "mullo 1024 bits: x2 skips a quarter of the products and ran 6482 M/s against w2's 8252, its "
                   "shared-memory exchange 192 of 992 instructions against w2's 80 of 824)",
                   lambda v: not v.across or (v.op == "mullo" and v.lanes >= 4), "prune"),
        Constraint("lanes_min_q", "at least 8 words per lane (H200: 4 words ran at 58-85% of 8 or 16 at every size "
                   "512..8192, their shuffles and moves outweighing the multiply-adds)", lambda v: v.q >= 8, "prune"),
        Constraint("lanes_max_bits", f"at most {LANES_MAX_BITS} bits (H200: at 16384 bits the NTT ran 2.9x faster, mul "
                   "and mullo)", lambda v: v.bits <= LANES_MAX_BITS, "prune"),
    ),
)

# One Karatsuba level over the lanes pipeline (templates/kernel_mul_lanes_k.j2, lanes_plan.KaratsubaPlan): the two
# half products on the two halves of the lanes, the middle product |a0 - a1| |b0 - b1| split between them, the terms
# joined through shared memory. The lanes family's shape constraints hold as they are.
LANES_K_MIN_BITS = 2048


def lanes_k_shared_words(v: Variant) -> int:
    """The instances' terms (U, MA, MB with a pad word per chunk), and on OpenCL b's words, the passed words and a
    word per thread for the ballots."""
    kp = lanes_plan.karatsuba_plan(v.lanes, v.q, full_product(v))
    m, c = kp.half_words, kp.chunk
    region = 8 * m + 8 * m // c
    exchange = (2 * v.q + 1) * v.block if v.backend == "opencl" else 0
    return v.block // v.lanes * region + exchange


LANES_K = OpFamily(
    name="lanes_k",
    template="kernel_mul_lanes_k.j2",
    limbs=("u32",),
    qs=LANES_PIPELINE_QS,
    ipbs=LANES.ipbs,
    lanes=LANES.lanes,
    karatsubas=(1,),
    shared_words=lanes_k_shared_words,
    render_context=lambda v: {"rows": lanes_plan.lanes_chains(v.q, False),
                              "kp": lanes_plan.karatsuba_plan(v.lanes, v.q, full_product(v)),
                              "seg_masks": lanes_plan.segment_masks},
    multi_instance_blocks=(LANES_BLOCK,),   # as the lanes of one warp (lanes_block)
    constraints=tuple(c for c in LANES.constraints if c.name in ("lanes_fit", "lanes_even_q", "lanes_registers"))
    + (
        Constraint("lanes_k_levels", "one Karatsuba level (two would need half-lane groups of half-lane groups: not "
                   "built)", lambda v: v.karatsuba == 1),
        Constraint("lanes_k_shape", "lanes of one warp, at least 4 of them: each half of the lanes splits the middle "
                   "product's steps in two", lambda v: not v.across and v.lanes >= 4),
        Constraint("lanes_k_min_q", "at least 8 words per lane, as the lanes family (lanes_min_q)",
                   lambda v: v.q >= 8, "prune"),
        Constraint("lanes_k_bits", f"{LANES_K_MIN_BITS} to {LANES_MAX_BITS} bits: below, the join and the second "
                   "pipeline's drain cost more than the quarter of the products saved; above, the NTT (issue 10 asks "
                   "2048-8192; not measured yet)",
                   lambda v: LANES_K_MIN_BITS <= v.bits <= LANES_MAX_BITS, "prune"),
    ),
)


# Add/sub in registers (templates/kernel_addsub_lanes.j2): the lanes family's shape (L lanes of one warp x Q words,
# the instance exactly), each lane's words loaded straight into registers, a carry chain per lane and one ballot
# across the instance's lanes (lib_lanes_sum.j2): no staging and no block-wide scan, L threads per instance. For
# small batches and the tuner to weigh against ADDSUB (the default rule keeps ADDSUB, at the copy rate for full
# batches). Up to 32 lanes x 32 words: 32768 bits.
ADDSUB_LANES = OpFamily(
    name="addsub_lanes",
    template="kernel_addsub_lanes.j2",
    limbs=("u32",),
    qs=(4, 8, 16, 32),
    ipbs=LANES.ipbs,
    lanes=LANES.lanes,
    shared_words=lambda v: 0,   # OpenCL's ballots use shared_bytes' scratch (a word per thread); CUDA none
    render_context=lambda v: {"masks": lanes_plan.segment_masks(v.lanes)},
    multi_instance_blocks=(LANES_BLOCK,),   # as the lanes of one warp (lanes_block)
    # its own fallback: at a size where ADDSUB's variants are all pruned (below 256 bits: fewer than 8 words a
    # thread), the lanes variants must not replace them, nor ADDSUB's remove these
    own_fallback=True,
    constraints=tuple(c for c in LANES.constraints if c.name in ("lanes_fit", "lanes_even_q", "lanes_block")),
)


# Fused expressions (docs/expressions.md, generator/expr.py, expr_plan.py, templates/kernel_expr.j2): one operation
# expr_NAME per expression file, one block per instance (or several), the live values in shared-memory slots, the
# products classical (lib_mul.j2) and the sums the add scan (lib_addsub.j2).
EXPR_PREFIX = "expr_"
EXPR_PRODUCT_MAX_BITS = 8192
EXPR_MAX_CHUNK_WORDS = 32


def _expr_prog(v: Variant):
    return expr_plan.program(v.op)


# Modular steps (E mod m) run in the thread-per-instance family EXPR_MOD only; the other expression families refuse them.
EXPR_NOT_MODULAR = Constraint("expr_not_modular", "the expression has no modular steps (E mod m: those run in the "
                              "thread-per-instance family expr_mod)",
                              lambda v: not _expr_prog(v).modular())


def _expr_region_limbs(v: Variant) -> tuple:
    """Region limbs of each kind of product the expression has (kernel_mul's rule: Q full, Q/2 low half)."""
    return tuple(expr_plan.region_limbs(v.q, op) for op in sorted(expr_plan.products(_expr_prog(v))))


def _expr_layout(v: Variant):
    return expr_plan.layout(v.op, v.block, v.chunk_words, v.limb_words)


def _expr_widest(v: Variant) -> int:
    """Words a thread holds in a sum: its chunk times the widest sum's width."""
    return v.chunk_words * max([s.width for s in _expr_prog(v).steps if s.op in ("add", "sub")] or [1])


EXPR = OpFamily(
    name="expr",                    # expr_NAME for every expression given to the generator (expr_plan.PROGRAMS)
    template="kernel_expr.j2",
    limbs=("u32", "u64"),
    qs=(2, 4, 8, 16),
    ipbs=(1, 2, 4, 8, 16, 32, 64, 128, 256),
    shared_words=lambda v: _expr_layout(v).totals,
    own_fallback=True,
    render_context=lambda v: {"ex": _expr_layout(v), "prog": _expr_prog(v),
                              "pairs": [(f"io{j} + first * n", f"s{slot}") for j, slot in _expr_layout(v).inputs]},
    multi_instance_blocks=(128,),
    constraints=(
        EXPR_NOT_MODULAR,
        Constraint("expr_product_max_bits", f"an expression with products: at most {EXPR_PRODUCT_MAX_BITS} bits (its "
                   "products are classical, in one block; beyond, the NTT is faster even as separate calls: H200, "
                   "16384 bits, 2.9x)", lambda v: not _expr_region_limbs(v) or v.bits <= EXPR_PRODUCT_MAX_BITS),
        Constraint("expr_region_limbs", "every product's region has at least 2 limbs (Q >= 4 with a low half, Q >= 2 "
                   "with a full product; the summing bound of kernel_mul)",
                   lambda v: all(rq >= 2 for rq in _expr_region_limbs(v))),
        Constraint("expr_chunk", f"a thread's words in a sum (Q x limb words x the sum's width) are at most "
                   f"{EXPR_MAX_CHUNK_WORDS} (registers)", lambda v: _expr_widest(v) <= EXPR_MAX_CHUNK_WORDS),
        Constraint("expr_registers", f"a multiplying thread keeps at most {MUL_MAX_LIVE_WORDS} words live (two "
                   "region sums and the window of the largest region)",
                   lambda v: all(v.limb_words * 3 * rq + 4 * v.limb_words <= MUL_MAX_LIVE_WORDS
                                 for rq in _expr_region_limbs(v))),
        Constraint("expr_region_size", "products: u64 limbs and the largest region of 8 limbs (kernel_mul's best on "
                   "the H200 at every size); sums only: u32 limbs and 16 words per thread (the add kernel's best)",
                   lambda v: (v.limb == "u64" and max(_expr_region_limbs(v)) == 8) if _expr_region_limbs(v)
                   else (v.limb == "u32" and v.chunk_words == 16), "prune"),
    ),
)

# The balanced low half (templates/kernel_mullo_owner.j2, generator/owner_plan.py): mullo's triangle of block products
# shared by L/2 warps, each warp summing two result blocks (about L block products each), lane i of every warp on
# instance i of a group of 32; operands, partial sums and the join through shared memory. The lanes family's shape
# constraints hold as they are (L blocks of Q words).
OWNER_MIN_BITS = 1024


def lanes_owner_shared_words(v: Variant) -> int:
    return v.ipb // WARP * owner_plan.owner_plan(v.lanes, v.q).group_words


LANES_OWNER = OpFamily(
    name="lanes_owner",
    template="kernel_mullo_owner.j2",
    limbs=("u32",),
    qs=(8, 16),
    ipbs=(32, 64),
    lanes=LANES.lanes,
    owners=(True,),
    shared_words=lanes_owner_shared_words,
    render_context=lambda v: {"rows": lanes_plan.lanes_chains(v.q, False),
                              "trows": lanes_plan.lanes_chains(v.q, True),
                              "op": owner_plan.owner_plan(v.lanes, v.q)},
    multi_instance_blocks=(32, 64, 128, 256, 512, 1024),   # 32 L/2 threads per group of 32 instances
    constraints=tuple(c for c in LANES.constraints if c.name in ("lanes_fit", "lanes_even_q", "lanes_registers",
                                                                 "lanes_max_bits"))
    + (
        Constraint("owner_shape", "at least 2 blocks (L/2 warps), groups of 32 instances (one per lane)",
                   lambda v: v.lanes >= 2 and v.ipb % WARP == 0),
        # legal, not prune: a pruned family would keep its least-pruned variants (own_fallback) for the default rule
        Constraint("owner_min_bits", f"at least {OWNER_MIN_BITS} bits (H200, 512 bits: mullo 19487 against 21370 M/s for "
                   "_w2, poly 1.8x slower than _w1; two blocks leave the staging and join nothing to hide behind)",
                   lambda v: v.bits >= OWNER_MIN_BITS),
    ),
)


# Fused expressions in registers (generator/expr_lanes_plan.py, templates/kernel_expr_lanes.j2): every value on the
# L lanes x Q words of the lanes family, sums by a carry chain per lane and a ballot across lanes, products by the
# lanes pipeline's low half, no shared memory on CUDA. The lanes family's shape constraints hold as they are.
EXPR_LANES_MAX_LIVE_WORDS = 168


EXPR_LANES = OpFamily(
    name="expr_lanes",              # expr_NAME, as EXPR
    template="kernel_expr_lanes.j2",
    limbs=("u32",),
    qs=LANES_PIPELINE_QS,
    ipbs=LANES.ipbs,
    lanes=LANES.lanes,
    # OpenCL passes b's words and the finished words through local memory: Q words per thread for each
    shared_words=lambda v: 2 * v.block * v.q if v.backend == "opencl" else 0,
    render_context=lambda v: {"prog": _expr_prog(v), "rows": lanes_plan.lanes_chains(v.q, v.lanes == 1),
                              "seg_masks": lanes_plan.segment_masks,
                              "unroll": v.backend == "cuda" and expr_lanes_plan.unroll_steps(v.lanes, v.q),
                              "square": expr_lanes_plan.square_plan(v.lanes, v.q)},
    multi_instance_blocks=(LANES_BLOCK,),   # as the lanes of one warp (lanes_block)
    own_fallback=True,
    constraints=(
        EXPR_NOT_MODULAR,
        Constraint("expr_lanes_ops", "the expression's steps are +, -, * (mod 2^bits) and constants: full products "
                   "(mulw, sqrw) and their zero-extensions make double-width values, which the L x Q layout of one "
                   "width does not hold (the shared-memory family EXPR serves them)",
                   lambda v: expr_lanes_plan.supported(_expr_prog(v))),
    )
    + tuple(c for c in LANES.constraints if c.name in ("lanes_fit", "lanes_even_q"))
    + (
        Constraint("expr_lanes_shape", "lanes of one warp (the sums' ballots and the pipeline's shuffles stay in it)",
                   lambda v: not v.across),
        Constraint("expr_lanes_registers", f"a lane keeps at most {EXPR_LANES_MAX_LIVE_WORDS} words live: the live "
                   "values x Q, and during a product the pipeline's 7 Q + 1 (expr_lanes_plan.live_words; about 160 of "
                   "the 255 registers a thread may have, rounded up so that poly fits at Q = 16 with 161)",
                   lambda v: expr_lanes_plan.live_words(_expr_prog(v), v.q) <= EXPR_LANES_MAX_LIVE_WORDS, "prune"),
        Constraint("expr_lanes_max_bits", f"at most {LANES_MAX_BITS} bits (the lanes family's range; beyond, a "
                   "product's NTT is faster even as separate calls, and sums only are the add scan's)",
                   lambda v: v.bits <= LANES_MAX_BITS),
    )
    + tuple(c for c in LANES.constraints if c.name in ("lanes_block", "lanes_min_q")),
)

# Fused expressions on the balanced low half's schedule (generator/owner_plan.py, templates/kernel_expr_owner.j2):
# every value in a shared-memory slot of the group of 32 instances, each product summed block by block by its owner
# warps, each sum by the same join. For programs with products (a sums-only program is lib_expr_regs.j2's).
def _expr_owner_context(v: Variant) -> dict:
    plan, prog = owner_plan.owner_plan(v.lanes, v.q), _expr_prog(v)
    slots, nslots = owner_plan.expr_slots(prog)
    return {"prog": prog, "steps": owner_plan.expr_steps(prog), "op": plan, "slots": slots, "nslots": nslots,
            "group_words": owner_plan.expr_group_words(plan, prog),
            "rows": lanes_plan.lanes_chains(v.q, False), "trows": lanes_plan.lanes_chains(v.q, True)}


LOW_PRODUCTS_RULE = ("the expression's steps are +, -, * (mod 2^bits) and constants, with at least one product (full "
                     "products make double-width values; sums only run in registers)")   # expr_plan.low_products

EXPR_OWNER = OpFamily(
    name="expr_owner",              # expr_NAME, as EXPR
    template="kernel_expr_owner.j2",
    limbs=("u32",),
    qs=LANES_OWNER.qs,
    ipbs=LANES_OWNER.ipbs,
    lanes=LANES.lanes,
    owners=(True,),
    shared_words=lambda v: v.ipb // WARP * _expr_owner_context(v)["group_words"],
    render_context=_expr_owner_context,
    multi_instance_blocks=LANES_OWNER.multi_instance_blocks,
    own_fallback=True,
    constraints=(
        EXPR_NOT_MODULAR,
        Constraint("expr_owner_ops", LOW_PRODUCTS_RULE,
                   lambda v: owner_plan.expr_supported(_expr_prog(v))),
    ) + LANES_OWNER.constraints,
)


# Fused expressions with NTT products in one block (generator/expr_ntt_plan.py, templates/kernel_expr_ntt.j2): the
# program in rounds of products, each round's operands transformed once per prime, values in shared-memory slots.
EXPR_NTT_MIN_BITS = 16384
EXPR_NTT_BLOCK = 256


def _expr_ntt_context(v: Variant) -> dict:
    xl = expr_ntt_plan.layout(v)
    return {"nt": ntt_plan.plan(v), "xl": xl, "prog": _expr_prog(v),
            "resident": ntt_plan.resident_blocks(v, expr_ntt_plan.shared_words(v))}


EXPR_NTT = OpFamily(
    name="expr_ntt",                # expr_NAME, as EXPR
    template="kernel_expr_ntt.j2",
    limbs=("u32",),
    qs=NTT.qs,
    ipbs=NTT.ipbs,
    ntts=tuple((s, 32) for s in ntt.PRIME_SET_SIZES),
    shared_words=expr_ntt_plan.shared_words,
    render_context=_expr_ntt_context,
    multi_instance_blocks=(64, 128, 256),
    own_fallback=True,
    constraints=(
        EXPR_NOT_MODULAR,
        Constraint("expr_ntt_ops", LOW_PRODUCTS_RULE,
                   lambda v: expr_ntt_plan.supported(_expr_prog(v))),
        Constraint("expr_ntt_chunks", "two slots of a value fit the spare transform array (a product's coefficient "
                   "words are staged there)", expr_ntt_plan.chunks_fit),
    )
    + tuple(c for c in NTT.constraints if c.name in ("ntt_bound", "ntt_two_passes", "ntt_table", "ntt_whole_warps",
                                                     "ntt_sum_words", "ntt_fewest_primes"))
    + (
        Constraint("expr_ntt_q16", "16 transform elements per thread (H200, poly 16384..131072 bits: Q = 32 ran "
                   "19-63% slower at every size, 23.7 / 29.7 / 35.4 / 39.4 against 19.3 / 20.5 / 21.7 / 27.4 ms for "
                   "2^27 words)", lambda v: v.q == 16, "prune"),
        Constraint("expr_ntt_block", f"blocks of {EXPR_NTT_BLOCK} threads, or one instance where it needs more (H200, "
                   "poly, 2^27 words: 64 / 128 / 256-thread blocks 28.1 / 22.0 / 19.3 ms at 16384 bits, 128 / 256 "
                   "24.3 / 20.5 ms at 32768)",
                   lambda v: v.block == EXPR_NTT_BLOCK or (v.ipb == 1 and v.block > EXPR_NTT_BLOCK), "prune"),
        # legal, not prune: a pruned family would keep its least-pruned variants (own_fallback) below the bound
        Constraint("expr_ntt_min_bits", f"at least {EXPR_NTT_MIN_BITS} bits (below, the owner family's classical "
                   "products are faster: H200, 8192 bits, mullo _oL 198.8 against the NTT's 100 M/s)",
                   lambda v: v.bits >= EXPR_NTT_MIN_BITS),
    ),
)


# Additions-only expressions over several blocks (generator/grid_plan.py, templates/kernel_expr_tile.j2 and the fix-up's
# "linear" mode, docs/expressions.md): an instance in tiles of `grid` x Q words, one block each, summed as one linear
# combination per output with carry in 0; the fix-up adds the carries between tiles. One engine per expression serves
# every size, as the grid add's.
EXPR_GRID_MIN_BITS = 1 << 17
EXPR_GRID_MAX_BITS = 1 << 27

EXPR_GRID = OpFamily(
    name="expr_grid",               # expr_NAME, as EXPR
    template="",
    limbs=("u32",),
    qs=(16,),                       # the one-block sums' chunk (expr_region_size)
    ipbs=(1,),
    grids=(256, 512),
    constraints=(
        EXPR_NOT_MODULAR,
        Constraint("expr_grid_linear", "the expression is additions alone, each output one linear combination of the "
                   f"inputs with coefficients summing below {expr_plan.LINEAR_MAX_SUM} (expr_plan.linear_outputs): the "
                   "carry between tiles is then a small integer", lambda v: expr_plan.tile_plan(v.op, 32, 1) is not None),
        # legal, not prune: a pruned family would keep its least-pruned variants at every size (plan.variants_for)
        Constraint("expr_grid_min_bits", f"at least {EXPR_GRID_MIN_BITS} bits (below, an instance spans at most 8 warps "
                   "of one block and the one-block kernel ran six at 4.1-4.3 TB/s, H200)",
                   lambda v: v.bits >= EXPR_GRID_MIN_BITS),
        Constraint("expr_grid_max_bits", f"at most {EXPR_GRID_MAX_BITS} bits (the range of the operations other than "
                   "add and sub, DEFAULT_SIZES)", lambda v: v.bits <= EXPR_GRID_MAX_BITS),
    ),
)


# The full square in registers (generator/sqr_plan.py, templates/kernel_sqr_thread.j2 and kernel_sqr_owner.j2,
# lib_sqr.j2): each cross product once and each word square, n(n+1)/2 multiply-adds against mul's n^2. A staged thread
# per instance (_t1: result blocks in order through a sliding window, doubled on the way out) for full batches at every
# size, and mullo's owner scheme (_oL: four blocks of equal work per warp, joined by carry codes) for mid-size batches
# at 4096-8192 bits; sqr_plan.py has the H200 measurements. tests/test_sqr_plan.py runs both schedules word by word.
SQR_REGISTERS = Constraint("sqr_registers", f"a thread keeps at most {LANES_MAX_LIVE_WORDS} words live while it sums "
                           "(7 Q + 1: a block, the sums E and O and the window; Q = 32 would spill)",
                           lambda v: sqr_plan.sqr_live_words(v.q) <= LANES_MAX_LIVE_WORDS)
SQR_EVEN_Q = Constraint("sqr_even_q", "Q is a multiple of 4 (16-byte accesses, even and odd sums of equal length, "
                        "a block's word squares in two halves)", lambda v: v.q % 4 == 0)
SQR_OWNER = OpFamily(
    name="sqr_owner",
    template="kernel_sqr_owner.j2",
    limbs=("u32",),
    qs=sqr_plan.OWNER_QS,
    ipbs=(32, 64),
    lanes=tuple(1 << i for i in range(6)),
    owners=(True,),
    shared_words=sqr_plan.owner_shared_words,
    render_context=sqr_plan.owner_context,
    multi_instance_blocks=(32, 64, 128, 256, 512, 1024),   # 32 L/2 threads per group of 32 instances
    constraints=(
        Constraint("sqr_owner_fit", f"L blocks x Q words are the instance exactly, L a power of two from 2 to "
                   f"{LANES_MAX} (the schedule pairs blocks into L/2 warps)",
                   lambda v: v.lanes * v.q == v.words and 2 <= v.lanes <= LANES_MAX
                   and v.lanes & (v.lanes - 1) == 0),
        SQR_EVEN_Q,
        SQR_REGISTERS,
        Constraint("sqr_owner_groups", "groups of 32 instances, one per lane of each warp",
                   lambda v: v.ipb % WARP == 0),
        Constraint("sqr_owner_min_bits", f"at least {sqr_plan.OWNER_MIN_BITS} bits (H200: below, the one-thread square "
                   "or mul's lanes pipeline on a and a was faster at every batch size measured, 256 to 2^22 "
                   "instances: 2048 bits, 4096 instances: w4 357, o8 322, t1 239 M/s; 16384: t1 923, o8 900; full "
                   "batches: t1 2836, o4 2026)", lambda v: v.bits >= sqr_plan.OWNER_MIN_BITS, "prune"),
        Constraint("sqr_owner_one_group", "one group of 32 instances per block, two where a group is one warp "
                   "(H200: two groups per block ran 4-18% slower at 1024-4096 bits)",
                   lambda v: v.ipb == WARP or v.lanes == 2, "prune"),
        Constraint("sqr_owner_min_q", "at least 8 words per block (4 words: the loads and additions around each "
                   "block product's 16 multiply-adds outnumber them)", lambda v: v.q >= 8, "prune"),
    ),
)
SQR_THREAD = OpFamily(
    name="sqr_thread",
    template="kernel_sqr_thread.j2",
    limbs=("u32",),
    qs=sqr_plan.THREAD_QS,
    ipbs=(sqr_plan.SQR_BLOCK // 2, sqr_plan.SQR_BLOCK),
    lanes=(1,),
    staged=(True,),
    shared_words=sqr_plan.thread_shared_words,
    render_context=sqr_plan.thread_context,
    multi_instance_blocks=(sqr_plan.SQR_BLOCK // 2, sqr_plan.SQR_BLOCK),
    constraints=(
        Constraint("sqr_thread_fit", "one staged thread per instance (t1), its instance a whole number of blocks "
                   f"of Q words, at most {sqr_plan.THREAD_MAX_WORDS} words (the staging's division by multiplication "
                   "is exact there)", lambda v: v.lanes == 1 and v.staged and v.words % v.q == 0
                   and v.words <= sqr_plan.THREAD_MAX_WORDS),
        SQR_EVEN_Q,
        SQR_REGISTERS,
        Constraint("sqr_thread_q16", "16 words per block (H200: Q = 8 ran 8-18% slower at every size, 512 to 8192 "
                   "bits: 19189 / 8245 / 2585 / 680 / 142 against 20906 / 10007 / 2836 / 778 / 166 M/s; Q = 4 only "
                   "where nothing else divides the instance)", lambda v: v.q == 16, "prune"),
        Constraint("sqr_thread_block", f"{sqr_plan.SQR_BLOCK} threads per block, or {sqr_plan.SQR_BLOCK // 2} where "
                   "that packs more warps into an SM's shared memory (each warp holds its 32 instances' a: at 8192 bits "
                   "3 blocks of 2 warps against 1 of 4; H200: 166 against 131 M/s; equal at 2048 and 4096 bits)",
                   sqr_plan.thread_block_best, "prune"),
    ),
)


# Word-wise operations over the whole batch (templates/kernel_map.j2): bitwise operations and shifts. One kernel (role
# map) reads and writes Q consecutive words of the flat array of count x n words per thread, so neither the size nor
# the batch shapes its blocks: a "grid" family of one kernel, whose engine serves every size (generator/grid_plan.py).
MAP_MAX_BITS = 1 << 31

MAP = OpFamily(
    name="map",
    template="",
    limbs=("u32",),
    qs=(4, 8, 16),
    ipbs=(1,),
    grids=(256,),
    constraints=(
        Constraint("map_max_bits", f"at most {MAP_MAX_BITS} bits (32-bit word indices within an instance)",
                   lambda v: v.bits <= MAP_MAX_BITS),
        Constraint("map_q8", "8 words per thread (H200, 2^32 words: xor at Q = 4 / 8 / 16 ran 4317 / 4292 / 4291 GB/s, "
                   "shl 4106 / 4163 / 4196 against the copy's 4140: every Q within 2%; one Q leaves the tuner nothing "
                   "to time and compiles one kernel per operation)", lambda v: v.q == 8, "prune"),
    ),
)


# Division and modular arithmetic (templates/kernel_mod_thread.j2 over lib_modarith.j2): a thread per instance (w1)
# whose operands live in its private memory, the instance's words a compile-time N = bits/32, so that the small sizes'
# loops unroll into registers. One block shape: 128 threads. divrem and mod up to MOD_ROWS_MAX_WORDS words work in a
# row of shared memory per instance (2N + 1 words: the operands in and the results out with coalesced accesses, the
# dividend and quotient out of registers; lib_moddiv.j2's define_rows); above, the private arrays. On OpenCL only
# where the rows fit the 48 KB of local memory NVIDIA's OpenCL gives a work-group (the variant is the size's only one).
# Above MOD_PRIVATE_MAX_BITS the arrays are the instance's region of the context's workspace (scratch mode,
# lib_modws.j2, generator/mod_scratch.py: powm 31 N + 1 words, 124 KB at 32768 bits) and every loop is rolled: in
# private memory CUDA would reserve the stack for every thread the device holds (an H100: 132 SMs x 2048 threads x
# 124 KB = 33 GB), and 1024-word unrolled loops would take nvcc minutes. Exact, not fast: a thread still does an
# instance's N^2 work alone, its words in global memory (the next step is a block per instance, its operands in shared
# memory). MOD_MAX_BITS is where the modular operations end (issue 24: every multiple of 32 up to 32768 bits).
MOD_PRIVATE_MAX_BITS = 8192
MOD_MAX_BITS = 32768
MOD_ROWS_MAX_WORDS = 64
MOD_DIV_LANES_MIN_BITS = 2048   # divrem and mod on lanes (modld) from here, CUDA (from 2048: the FP64 division)
MOD_ROWS_OPENCL_BYTES = 48 * 1024
# blocks per SM asked of ptxas for the rows' kernels (it caps the registers), where no spill lands in the steps' loop
# (ptxas -v and the SASS, sm_90): 256 bits 48 registers, 10 blocks (divrem spills one word outside the loop); 512 bits
# 64, 8; 1024 bits 96, 5 (80 for 6 spilled in the loop). 2048 bits uncapped takes 168 registers: 3 blocks.
MOD_ROWS_RESIDENT = {8: 10, 16: 8, 32: 5}


# (op, words) kept on the register path: mod at 256 bits, where the remainder alone is stored and the rows' staging
# cost more than they save (H100: 9573 M/s in rows against 13583 in registers; divrem 8562 against 3848)
MOD_REGISTER_KEPT = {("mod", 8)}


def mod_scratch_mode(v: Variant) -> bool:
    """Whether v (a modt or mods variant) keeps its arrays in the workspace (lib_modws.j2's scratch mode)."""
    return v.bits > MOD_PRIVATE_MAX_BITS


def mod_workspace_words(v: Variant) -> int:
    """Workspace words per instance of a modt or mods variant (0 where its arrays are private)."""
    return mod_scratch.kernel_words(v.op, v.words) if mod_scratch_mode(v) else 0


def mod_rows(v: Variant) -> bool:
    """Whether v (a modt variant) divides in rows of shared memory (kernel_mod_thread.j2's `rows`)."""
    if v.op not in ("divrem", "mod") or v.words > MOD_ROWS_MAX_WORDS or (v.op, v.words) in MOD_REGISTER_KEPT:
        return False
    return v.backend != "opencl" or 4 * (v.block * (2 * v.words + 1) + WARP + v.block) <= MOD_ROWS_OPENCL_BYTES


MOD_THREAD = OpFamily(
    name="modt",
    template="kernel_mod_thread.j2",
    limbs=("u32",),
    qs=tuple(range(1, MOD_MAX_BITS // 32 + 1)),   # Q: the instance's words, all in one thread
    ipbs=(128,),
    lanes=(1,),
    multi_instance_blocks=(128,),
    shared_words=lambda v: v.block * (2 * v.words + 1) if mod_rows(v) else 0,
    render_context=lambda v: {"rows": mod_rows(v),
                              "resident": MOD_ROWS_RESIDENT.get(v.words) if mod_rows(v) else None,
                              "scratch": mod_scratch_mode(v), "ws_words": mod_workspace_words(v),
                              "arrays": mod_scratch.kernel_arrays(v.op, v.words),
                              **fdiv_context(v)},
    workspace_words=lambda v: mod_workspace_words(v),
    extra_sizes=(384, 1536, 3072),
    constraints=(
        Constraint("mod_max_bits", f"at most {MOD_MAX_BITS} bits (a thread per instance; above "
                   f"{MOD_PRIVATE_MAX_BITS} its operands, a quotient of twice the width and powm's table of 16 powers "
                   "are in the workspace, and every word is a global memory access)", lambda v: v.bits <= MOD_MAX_BITS),
        Constraint("mod_whole_instance", "Q is the instance's words: a thread holds all of them",
                   lambda v: v.q == v.words),
        Constraint("modt_powm_below_lanes", "powm below 1024 bits, where the lanes (modl) take over (H100, 512-bit "
                   "exponents: 4.31 against 2.24 M/s at 1024 bits, 1.08 against 0.29 at 2048, 0.27 against 0.02 at "
                   "4096); at 256 and 512 bits on CUDA one lane (modl1) owns the point (family_of); sizes the lanes "
                   "do not serve (384 and 8192; 1536 and 3072 on OpenCL) keep it as the fewest-pruned",
                   lambda v: v.op != "powm" or v.bits < 1024, "prune"),
        Constraint("modt_gcd_below_lanes", "gcd below 3072 bits and modinv below 1536 on CUDA, where the lanes "
                   "(modlg) take over (modinv only up to 8192 bits); OpenCL keeps the thread per instance at every size",
                   lambda v: v.op not in MOD_GCD_LANES_MIN_BITS or v.backend != "cuda"
                   or not MOD_GCD_LANES_MIN_BITS[v.op] <= v.bits <= MOD_GCD_LANES_MAX_BITS[v.op], "prune"),
        Constraint("modt_div_below_lanes", f"divrem and mod below {MOD_DIV_LANES_MIN_BITS} bits on CUDA, where the "
                   "lanes (modld) take over; OpenCL keeps the thread per instance at every size",
                   lambda v: v.op not in ("divrem", "mod") or v.bits < MOD_DIV_LANES_MIN_BITS
                   or v.backend != "cuda", "prune"),
    ),
)


# powm's Montgomery products in radix 2^52 on the FP64 pipe (templates/lib_modlanes_f52.j2), CUDA: a lane of 16 words
# holds 10 limbs of 52 bits (520 bits a lane, so R = 2^(520 L) > 4m and products stay below 2m unreduced).
# Why: the 32-bit word products (IMAD.WIDE) issue at half the rate of a 32-bit multiply, about 25 a clock per SM on the
# H200 (tuning/results/h200-2026-11-28-s26/pipes2.cu), and the integer lanes already ran at that ceiling; a 52-bit limb
# product is three FP64 operations (63 a clock) on 2.6 times fewer products, its two halves summed as integers.
# H200, powm with 512-bit exponents, M/s, FP64 against the integer lanes in one call (results/h200-2026-11-28-s26,
# f52_lib_rates.txt): 512 bits 24.75 / 20.94 (one lane, the squarings their own call), 1024 5.79 / 5.06, 2048 1.410 /
# 1.261, 4096 0.354 / 0.316; full-width exponents at 1024 bits 2.92 / 2.54.
# The Qs below take them on CUDA, D = ceil(32 Q / 52) limbs a lane (mod_lanes_f52_limbs): 16 words (10 limbs) from 1024
# bits where L is a power of two, 12 (8 limbs) at 1536 and 3072 bits, 8 (5 limbs) at 256 bits on one lane. H200, 512-bit
# exponents, ms (tuning/results/h200-2026-11-29-s38, run 3): 256 bits FP64 at Q 8 45.7-46.0 against the integer lane's
# 55.7 (4194304 instances); 1536 FP64 at Q 12 225.2-225.3 against the integer lanes at Q 24 235.2 (524288); 3072 225.5
# against 229.9 (131072). Fewer limbs a lane where 16 words fit lost, though they take fewer registers (96, 5 blocks
# an SM): 1024 bits at Q 8 200.3 against 180.3, 2048 199.5 against 177.2, 4096 200.8 against 177.7 (run 2: the 16-word
# kernel issues on 56% of cycles at 2.9 warps a scheduler; a row's reduction factor, its shuffle and carry cost the
# same for 5 limbs as for 10).
MOD_LANES_F52_RESIDENT = {8: 5, 12: 4, 16: 3}   # blocks of 128 an SM the compiler must fit, per Q: 96, 128 and 168
                             # registers, no spill. At 16 unbounded ptxas took 254 (two warps a scheduler); in the
                             # spike a bound of 3 kept its speed and 4 spilled and lost 14%; with the products' turns
                             # 4 spills 140 B and lost 9-10% at 1024-4096 bits, and at 12 it gained 0.8-0.9% (run 7)


# Turns of a Montgomery product's step per words a lane (lib_modlanes_f52.j2, mf_montmul: U = D / turns rows unrolled
# a turn, the window moved down U columns after each). Why: at 10 limbs the kernel's machine code (14752 instructions,
# D unrolled rows in each of its products) outgrew the instruction cache, whose misses were the warps' top stall (1.06
# cycles an issued instruction, 0.03 at 5 limbs; tuning/results/h200-2026-11-29-s38, runs 4-5). H200, 512-bit exponents,
# ms, one turn / two / five (run 6): 512 bits 83.3-83.6 / 79.5-79.8 / 79.6-79.8; 1024 180.5 / 164.3-164.5 / 165.8-165.9;
# 2048 176.9-177.2 / 164.4-164.5 / 167.6; 4096 177.8 / 166.1-166.2 / 167.8-167.9; at 12 words (8 limbs; four turns
# beside) 1536 225.2 / 223.5 / 226.7, 3072 225.8-226.0 / 224.3 / 227.5. The squarings (mf_montsqr, rows of different
# lengths) stay unrolled: squaring by mf_montmul, one body in the windows, ran 181.2-181.3 ms at 1024 bits.
MOD_LANES_F52_ROLLS = {8: 1, 12: 2, 16: 2}

# The order of a Montgomery squaring's step per (words a lane, lanes) (lib_modlanes_f52.j2, mf_montsqr): a count of
# turns puts the step's square rows first (unrolled) and its D reductions after them in turns of D / turns rows; a shape
# not listed interleaves each row's square part and reduction (every row unrolled). H200, 512-bit exponents, ms, two
# rounds (tuning/results/h200-2026-11-29-s39, runs 1-2): one lane of 16 words (512 bits) 79.1-80.9 interleaved against
# 74.5-76.4 with the square rows first (+6%); on 2-8 lanes (1024-4096 bits) within 0.8% either way. Two turns lost up to
# 5.5% at 16 words (1024 bits 164.5 -> 172.2: 6% more instructions for the moves, and the warps waited more), five 3-8%;
# at 12 words (1536, 3072 bits) two or four turns lost 6%, at 8 (256 bits) five lost 6%. mf_montmul with a turn's
# products first, then its reductions, lost up to 2.6% (gained 0.8% at 256 bits).
MOD_LANES_F52_SQR_ROLLS = {(16, 1): 1}


def mod_lanes_f52_limbs(q: int) -> int:
    """52-bit limbs a lane of q words: ceil(32 q / 52) (16 words: 10 limbs, 520 bits)."""
    return -(-32 * q // 52)


def mod_lanes_f52(v: Variant) -> bool:
    """Does v's powm run its Montgomery products in radix 2^52 (lib_modlanes_f52.j2)? CUDA (the product's rounding
    toward minus infinity, and only there measured), at the words a lane measured (MOD_LANES_F52_RESIDENT)."""
    return v.op in ("powm", "powm_shared") and v.backend == "cuda" and v.q in MOD_LANES_F52_RESIDENT


def _mod_lanes_context(v: Variant) -> dict:
    """What kernel_mod_lanes.j2 needs: the segment masks, and 32N = 2^s w0 with w0 odd (R^2 mod m's doublings). For
    the FP64 products (R' = 2^(52 D L), D limbs a lane): 2 log2 R' = 2^f_s c with c odd; the words' 2^(32N) - m' times
    2^(log2 R' - 32N + c) is congruent to R' 2^c, and f_s Montgomery squarings make it R'^3."""
    s = (32 * v.words & -(32 * v.words)).bit_length() - 1
    ctx = {"masks": lanes_plan.segment_masks(v.lanes), "rows": lanes_plan.lanes_chains(v.q, False),
           "w0": 32 * v.words >> s, "s": s, "f52": mod_lanes_f52(v), "f_limbs": mod_lanes_f52_limbs(v.q),
           "f_resident": MOD_LANES_F52_RESIDENT.get(v.q, 0), "f_rolls": MOD_LANES_F52_ROLLS.get(v.q, 1),
           "f_sqr_rolls": MOD_LANES_F52_SQR_ROLLS.get((v.q, v.lanes), 0)}
    if ctx["f52"]:
        for table, key, least in (("MOD_LANES_F52_ROLLS", "f_rolls", 1), ("MOD_LANES_F52_SQR_ROLLS", "f_sqr_rolls", 0)):
            turns = ctx[key]
            if turns < least or (turns and mod_lanes_f52_limbs(v.q) % turns):
                raise ValueError(f"{v.name}: {table} gives {turns} turns, which do not divide its "
                                 f"{mod_lanes_f52_limbs(v.q)} rows a step")
        r_bits = 52 * mod_lanes_f52_limbs(v.q) * v.lanes
        f_s = (2 * r_bits & -(2 * r_bits)).bit_length() - 1
        ctx.update(f_s=f_s, f_doublings=r_bits - 32 * v.words + (2 * r_bits >> f_s))
    return ctx


# powm with an instance on L lanes of one warp (templates/kernel_mod_lanes.j2 over lib_modlanes.j2): Q words per lane
# in registers, the Montgomery product's rows in the register-resident product's E/O windows (a word of b and the
# reduction factor q shuffled to all, Q words passed down a lane per Q rows), the table of 16 powers in each lane's
# private memory. H100, 512-bit exponents, M/s: 4.83 at 1024 bits (thread: 2.24), 1.21 at 2048 (0.29), 0.31 at 4096
# (0.02); one lane of 8 or 16 words at 256 and 512 bits (modl1): 74.5 and 20.2 (thread: 55.9 and 13.3).
MOD_LANES_MAX_BITS = 4096   # above, the thread per instance (modt) until it is measured: each size adds minutes to
                            # the CPU run of its OpenCL variant in CI
MOD_LANES = OpFamily(
    name="modl",
    template="kernel_mod_lanes.j2",
    limbs=("u32",),
    qs=(4, 8, 12, 16, 24),   # 12 and 24: 1536 and 3072 bits on a power-of-two number of lanes
    ipbs=LANES.ipbs,
    lanes=(2, 4, 8, 16, 32),
    # OpenCL's shuffles and ballots use shared_bytes' scratch (a word per thread); the FP64 products stage limbs
    shared_words=lambda v: 2 * mod_lanes_f52_limbs(v.q) * v.block if mod_lanes_f52(v) else 0,
    render_context=_mod_lanes_context,
    multi_instance_blocks=(LANES_BLOCK,),
    constraints=tuple(c for c in LANES.constraints if c.name in ("lanes_fit", "lanes_even_q", "lanes_block")) + (
        Constraint("mod_lanes_max_bits", f"at most {MOD_LANES_MAX_BITS} bits (each lane keeps 16 Q words of powers in "
                   "private memory)", lambda v: v.bits <= MOD_LANES_MAX_BITS),
        Constraint("mod_lanes_min_bits", "from 1024 bits; below, one lane (modl1) on CUDA and the thread per "
                   "instance on OpenCL (H100, powm with 512-bit exponents, M/s: 512 bits one lane 20.2, two lanes of 8 "
                   "words 16.5, the thread 13.3; 256 bits 74.5, 50.8 and 55.9)", lambda v: v.bits >= 1024, "prune"),
        Constraint("mod_lanes_q16", "16 words per lane on CUDA (H100, powm with 512-bit exponents, M/s, 16 against 8 "
                   "words: 1024 bits 4.83 against 4.30, 2048 1.214 against 1.086, 4096 0.312 against 0.268; the rows "
                   "in the windows, where the first version's shifting rows had favoured 8); 8 on OpenCL, "
                   "unmeasured on an OpenCL GPU, whose CPU test run in CI took 80-100 s per variant at 16 against "
                   "under 20 at 8: one variant per size and backend. On CUDA 12 at 1536 and 3072 bits, where 16 "
                   "gives no power-of-two number of lanes (the integer lanes, H100, M/s, Q = 12 / 24, the thread per "
                   "instance beside: 1536 bits 2.19 / 2.22 / 0.99, 3072 0.543 / 0.570 / 0.109; the FP64 products at 12 "
                   "beat the integer ones at 24 on an H200 by 4% and 2%: MOD_LANES_F52_RESIDENT's note)",
                   lambda v: v.backend != "cuda" or v.q in MOD_LANES_Q_CUDA.get(v.bits, (16,)), "prune"),
        Constraint("mod_lanes_opencl_q8", "8 words per lane on OpenCL, the only Q there (mod_lanes_q16's CI times): "
                   "sizes whose 8-word lanes are not a power of two (1536, 3072) keep the thread per instance",
                   lambda v: v.backend != "opencl" or v.q == 8),
    ),
)

# powm's Q per size on CUDA where the default 16 gives no power-of-two number of lanes (mod_lanes_q16)
MOD_LANES_Q_CUDA = {1536: (12,), 3072: (12,)}

# powm and powm_shared below 1024 bits on one lane of the modl kernel (kernel_mod_lanes.j2: its windowed Montgomery
# product, no shuffles on one lane; H100, 512-bit exponents, M/s: 74.5 at 256 bits and 20.2 at 512 against the thread
# per instance's 55.9 and 13.3. A one-lane square computing each cross product once, with 2 a's words as operands,
# ran 75.3 and 19.1 against 74.0 and 20.0 in the same calls, so it was left out: the products it saves are not what
# bounds the kernel). Both sizes now run the lanes' FP64 products (MOD_LANES_F52_RESIDENT: 256 bits +21% on an H200
# over this integer lane). CUDA only: on
# OpenCL the thread per instance keeps these sizes (the one lane's setup shuffles through local memory and barriers,
# and its CPU test run took 40-100 s per variant against ~10).
MOD_LANES_ONE = replace(
    MOD_LANES, name="modl1", lanes=(1,), qs=(8, 16), backends=("cuda",),
    constraints=tuple(c for c in LANES.constraints if c.name in ("lanes_fit", "lanes_even_q", "lanes_block")) + (
        Constraint("modl1_max_bits", "below 1024 bits, where several lanes (modl) take over",
                   lambda v: v.bits < 1024),
    ))

# mulmod_shared on the lanes (templates/kernel_mulmod_lanes.j2 over lib_modlanes.j2): two Montgomery products,
# a R^2 and then b, with the modulus object's R^2 mod m, odd moduli only (even ones keep the mods thread per
# instance's Barrett reduction). The powm family's shape: L lanes of 16 words (8 on OpenCL), from 1024 bits, where
# the thread per instance runs out of registers (H100: 230 registers at 1024 bits, 255 and a 2 KB stack at 2048).
MOD_LANES_MUL = replace(
    MOD_LANES, name="modlm", template="kernel_mulmod_lanes.j2", odd_moduli=True,
    constraints=tuple(c for c in LANES.constraints if c.name in ("lanes_fit", "lanes_even_q", "lanes_block")) + (
        Constraint("modlm_max_bits", f"at most {MOD_LANES_MAX_BITS} bits (each size adds its OpenCL variant's "
                   "CPU run to CI)", lambda v: v.bits <= MOD_LANES_MAX_BITS),
        Constraint("modlm_min_bits", "from 1024 bits, where the thread per instance (mods) spills; below it ran at "
                   "58-87% of mul (H100, 256-512 bits)", lambda v: v.bits >= 1024, "prune"),
        Constraint("modlm_q16", "16 words per lane on CUDA, 8 on OpenCL, as powm's lanes (one variant per size and "
                   "backend; H100, odd modulus, M/s, 16 against 8 words: 1024 bits 1633 against 1476, 2048 423 against "
                   "384, 4096 108 against 98)",
                   lambda v: v.q == (16 if v.backend == "cuda" else 8), "prune"),
    ))

# divrem and mod with an instance on L lanes of one warp (templates/kernel_div_lanes.j2): Algorithm D's partial
# remainder and B^N - D spread over the lanes, Q words each, where the thread per instance (modt) keeps 3N words and
# runs out of registers (its divrem walks local memory from 4096 bits). H100, divrem of 2 bits by bits, M/s: 227.0 at
# 3072 bits (the thread per instance: 48.0), 147.9 at 4096 (9.99; CGBN's best TPI: 103), 43.1 at 8192 (2.89), 12.5 at
# 16384 (0.036), 3.43 at 32768 (0.0046).
# CUDA only: on OpenCL every shuffle and ballot of a step is a work-group barrier through local memory, and the CPU
# run of such a variant in CI costs minutes; OpenCL keeps the thread per instance.
MOD_DIV_LANES_Q = {2048: 16, 3072: 24, 4096: 16}   # Q per size, 32 for the others (modld_q)

# ... and at these sizes by schoolbook division in radix 2^r on the FP64 pipe (templates/kernel_div_lanes_fdiv.j2:
# lib_mulmod_fdiv.j2's digits over the lanes), r per size. Its bounds (div_fdiv_bounds_hold): D's top limb keeps
# 32N - r (K - 1) bits with the top one set, at least 2^(69 - r); the unnormalized limbs (a limb and K + 2 steps'
# two parts, below beta and 8 beta each) stay below 2^62, and what the estimate leaves out of them weighs at most 2^-12
# of a unit against that top limb; a digit times a limb below 2^(r + 52) (r at most 49).
# H200, ms, 524288 instances (262144 at 8192 bits; tuning/results/h200-2026-11-29-s36 run 4), against the division on
# words: divrem 3072 1.54-1.57 / 1.84-1.86, mod 3072 1.35 / 1.56-1.57, divrem 4096 2.35 / 3.20 (223 M/s), mod 4096 2.19
# / 2.90-2.92, divrem 8192 3.82 / 5.38-5.40, mod 8192 3.56-3.58 / 4.90-4.91. Run 7: divrem 16384 (65536 instances)
# 3.45-3.47 / 4.92, mod 3.29-3.31 / 4.57-4.61, divrem 32768 (16384) 3.75 / 4.62-4.65, mod 3.62-3.67 / 4.47-4.49; at 2048
# bits (2^20) against the rows: divrem 1.68-1.69 / 1.70-1.73, mod 1.45 / 1.55.
DIV_LANES_FDIV_RADIX = {2048: 49, 3072: 49, 4096: 49, 8192: 48, 16384: 47, 32768: 44}
# blocks of 128 an SM the compiler must fit (unbounded, ptxas took 118-226 registers): run 4, divrem at 4096 bits 2.35
# ms at 4 blocks against 2.48 at 5 and 2.79 unbounded (run 3), 3072 1.54-1.57 at 3 against 1.62 at 4, 8192 3.82 at 3
# against 4.06 at 2 (the rows of shared memory allow 3 there)
DIV_LANES_FDIV_RESIDENT = {2048: 4, 3072: 3, 4096: 4, 8192: 3, 16384: 3, 32768: 3}


def radix_limbs(bits: int, r: int) -> int:
    """The limbs of r bits that hold `bits` bits (the FP64 divisions' K)."""
    return (bits + r - 1) // r


def fdiv_limb_bound(r: int, k: int) -> int:
    """A bound on the FP64 divisions' unnormalized remainder limbs (lib_mulmod_fdiv.j2, kernel_div_lanes_fdiv.j2): a
    limb and K + 2 digits' two parts, below beta and 8 beta each, in radix beta = 2^r."""
    return 2 ** r + (k + 2) * (2 ** (r + 3) + 2 ** r)


def div_fdiv_limbs(bits: int) -> int:
    """K, D's limbs of DIV_LANES_FDIV_RADIX bits at `bits` bits."""
    return radix_limbs(bits, DIV_LANES_FDIV_RADIX[bits])


def div_fdiv_bounds_hold(bits: int) -> bool:
    """Do kernel_div_lanes_fdiv.j2's bounds (DIV_LANES_FDIV_RADIX's comment) hold at `bits` bits?"""
    r, k = DIV_LANES_FDIV_RADIX[bits], div_fdiv_limbs(bits)
    top = bits - r * (k - 1)   # D's top limb's bits, its top one set
    limb = fdiv_limb_bound(r, k)
    return r <= 49 and top - 1 >= 69 - r and limb < 2 ** 62 and limb * 2 ** 12 <= 2 ** (r + top - 1)


assert all(div_fdiv_bounds_hold(b) for b in DIV_LANES_FDIV_RADIX), "DIV_LANES_FDIV_RADIX outside its bounds"


def div_lanes_fdiv(v: Variant) -> bool:
    """Does v's divrem or mod on lanes (modld) divide on the FP64 pipe (kernel_div_lanes_fdiv.j2)?"""
    return v.op in ("divrem", "mod") and v.backend == "cuda" and v.bits in DIV_LANES_FDIV_RADIX


def div_fdiv_context(v: Variant) -> dict:
    """kernel_div_lanes.j2's `fdiv` (None: the division on words): the radix, D's limbs K, the slots P a lane holds
    (L P >= K + 2: the window; P >= 4: the estimate's limbs and D's top two in the top lane) and the digit slots C a
    lane holds (L C > 64N / r: every digit of a dividend of 2N words, and a carry)."""
    if not div_lanes_fdiv(v):
        return None
    r, k = DIV_LANES_FDIV_RADIX[v.bits], div_fdiv_limbs(v.bits)
    slots = max(4, -(-(k + 2) // v.lanes))
    digits = -(-((64 * v.words + r - 1) // r + 1) // v.lanes)
    return {"radix": r, "limbs": k, "slots": slots, "digit_slots": digits,
            "resident": DIV_LANES_FDIV_RESIDENT.get(v.bits, 0)}


def div_lanes_shared_words(v: Variant) -> int:
    """modld's shared words a block: a row of N + 1 words per instance (the remainder), or for the FP64 division rows
    of L (C + P) limbs of 64 bits (the staged dividend limbs and the digits, the remainder)."""
    f = div_fdiv_context(v)
    if f:
        return v.block // v.lanes * v.lanes * (f["digit_slots"] + f["slots"]) * 2
    return v.block // v.lanes * (v.words + 1)


MOD_DIV_LANES = replace(
    MOD_LANES, name="modld", template="kernel_div_lanes.j2", qs=(12, 16, 24, 32, 48, 64), backends=("cuda",),
    shared_words=div_lanes_shared_words,
    render_context=lambda v: {"masks": lanes_plan.segment_masks(v.lanes), "fdiv": div_fdiv_context(v)},
    constraints=tuple(c for c in LANES.constraints if c.name in ("lanes_fit", "lanes_even_q", "lanes_block")) + (
        Constraint("modld_q", "16 words per lane at 2048 bits, 24 at 3072, 16 at 4096, 32 above (H200, divrem of 2 "
                   "bits by bits, the FP64 division at 2048 bits, ms for 2^20: Q = 16 1.68-1.69, 32 2.42-2.45; "
                   "the division on words, "
                   "M/s, Q = 16 / 32 / 64: 4096 bits 146.5 / 131.3 / 105.3, 8192 40.0 / 42.6 / 35.9, 16384 11.6 / 12.4 "
                   "/ 11.5, 32768 - / 3.45 / 3.26; H100, 3072 bits, Q = 12 / 24 / 48: 225.6 / 227.6 / 177.9, the thread "
                   "per instance 48.0): one variant per size",
                   lambda v: v.q == MOD_DIV_LANES_Q.get(v.bits, 32), "prune"),
        Constraint("modld_min_bits", f"from {MOD_DIV_LANES_MIN_BITS} bits, where the FP64 division on 4 lanes passes "
                   "the thread per instance's rows (H200, 2^20 instances, ms: divrem 1.68-1.69 against 1.70-1.73, mod "
                   "1.45 against 1.55; the division on words there: 4 lanes of 16 words 416 M/s, 2 of 32 278, the rows "
                   "504)", lambda v: v.bits >= MOD_DIV_LANES_MIN_BITS, "prune"),
        Constraint("modld_max_bits", f"at most {MOD_MAX_BITS} bits (where the modular operations end)",
                   lambda v: v.bits <= MOD_MAX_BITS),
    ))

# gcd and modinv with an instance on L lanes of one warp (templates/kernel_gcd_lanes.j2): lib_modgcd.j2's blocked
# binary gcd, the values spread over the lanes, where the thread per instance (modt) keeps 2N words (modinv 5N) and
# walks local memory. Every lane runs the block's steps (a warp issues them once for all its lanes), so fewer lanes of
# more words cost less while the words fit the registers. modinv records the blocks' matrices (4 words each, private
# memory) and replays them on the cofactors, so that X, Y or U, V are live at a time (P in shared memory). H100,
# random operands, M/s: gcd 16.26 at 4096 bits (the thread per instance: 4.00; CGBN's best TPI: 7.24), 4.13 at 8192
# (0.46), 1.01 at 16384, 0.253 at 32768 (the thread's scratch mode: about 0.005 and 0.0003); modinv with the
# cofactors left unreduced until the end (fifteenth session) 30.1 at 2048 (18.6; CGBN 10.8), 7.64 at 4096 (0.86; CGBN
# 4.17), 1.94 at 8192 (0.095); with P in shared rows, Q = 64, the word sums on both pipes and the two-level search
# for the stand-ins and literal shifts in the even moduli's division (twenty-eighth session, H200) 36.4 at 2048, 10.2
# at 4096, 2.60 at 8192.
# CUDA only, as modld.
MOD_GCD_LANES_Q = {"gcd": 64, "modinv": 64}            # Q per operation (modlg_q) ...
MOD_GCD_LANES_Q_AT = {("gcd", 3072): 48, ("modinv", 1536): 24, ("modinv", 2048): 32,
                      ("modinv", 3072): 48}             # ... and where it differs
MOD_GCD_LANES_MIN_BITS = {"gcd": 3072, "modinv": 1536}
MOD_GCD_LANES_MAX_BITS = {"gcd": MOD_MAX_BITS, "modinv": 8192}
MOD_GCD_LANES = replace(
    MOD_DIV_LANES, name="modlg", template="kernel_gcd_lanes.j2", qs=(12, 16, 24, 32, 48, 64),
    # gcd's shifts by the powers of two go through a row of N + 1 shared words per instance; modinv keeps P and m in
    # two rows of Q + 1 words per thread, not in registers: U, V and P in registers spilled at Q = 64, and fewer
    # registers hold more warps at the other Q (H200, twenty-eighth session, M/s with the rows against without, random
    # moduli of both parities: 1536 bits Q 24 54.7 / 53.9, 2048 Q 32 34.4 / 31.3, 3072 Q 48 16.5 / 15.4, 4096 Q 32
    # 8.80 / 7.88 and Q 64 9.49 / 9.41, 8192 Q 32 2.31 / 2.04 and Q 64 2.37 / 2.37)
    shared_words=lambda v: v.block // v.lanes * (v.words + 1) if v.op == "gcd" else 2 * v.block * (v.q + 1),
    constraints=tuple(c for c in LANES.constraints if c.name in ("lanes_fit", "lanes_even_q", "lanes_block")) + (
        Constraint("modlg_q", "64 words per lane for gcd and modinv, or 2 lanes where 64 words would be one (H100, M/s, "
                   "Q = 16 / 32 / 64: gcd 4096 bits 10.2 / 14.8 / 16.3, 8192 2.55 / 3.73 / 4.13, 16384 0.62 / 0.90 / "
                   "1.01, 32768 - / 0.227 / 0.253 (at 64 ptxas spills 216 bytes, still the fastest); H200, twenty-eighth "
                   "session, modinv with P in shared rows: 2048 26.8 / 34.4 / -, 4096 6.97 / 8.80 / 9.49, 8192 1.92 / "
                   "2.31 / 2.37); at 1536 and 3072 bits, where those give no power-of-two number of lanes, Q = 12 / 24 / "
                   "48: gcd 3072 14.8 / 22.8 / 29.9 (H100; the thread per instance 11.8), modinv 1536 40.4 / 54.7 / - "
                   "(H200, Q 12 without the rows), 3072 10.5 / 14.2 / 16.5 (idem): one variant per size",
                   lambda v: v.q == MOD_GCD_LANES_Q_AT.get((v.op, v.bits), MOD_GCD_LANES_Q[v.op]), "prune"),
        Constraint("modlg_min_bits", "gcd from 3072 bits, modinv from 1536 (H100, M/s: gcd at 2048 bits the thread per "
                   "instance 66.2, 2 lanes of 32 words 58.6, 4 of 16 40.5; modinv at 2048 the thread 18.6, 2 lanes of "
                   "32 words 26.7; gcd and modinv at 1024 bits are not measured on lanes)",
                   lambda v: v.bits >= MOD_GCD_LANES_MIN_BITS[v.op], "prune"),
        Constraint("modlg_max_bits", f"gcd up to {MOD_MAX_BITS} bits (where the modular operations end), modinv up to "
                   "8192: its recorded matrices take 4 words a block in each thread's private memory (8.7 KB at 8192 "
                   "bits), which CUDA reserves for every thread the device holds (2.4 GB on an H100 at 8192 bits)",
                   lambda v: v.bits <= MOD_GCD_LANES_MAX_BITS[v.op]),
    ))

# mulmod_shared by Barrett's reduction in radix 2^52 on the FP64 pipe (templates/lib_modshared_f52.j2), a thread per
# instance, CUDA, at these sizes, for moduli of the object's top 52-bit limb (runtime/modulus.h's flag; others take
# the branches below it). H200, 2^22 instances, M/s (tuning/results/h200-2026-11-29-s32, the spike barrett_f64.cu):
# 1024 bits 2640-2800 against the lanes' two Montgomery products (modlm) 1633 and mul's 5760; at 2^27 words an operand
# (h200-2026-11-29-s33, run 11) 512 bits 10000 against the thread's 32-bit Barrett's 6750, 384 14400 against 10300,
# 256 28000 against 7860 (then served by the 384-bit kernel). Larger sizes hold more limbs than a thread's registers
# (2 x 20 operand limbs and 40 product columns at 1024 bits take 254 registers).
MOD_SHARED_F52_BITS = (256, 384, 512, 1024)


def mod_shared_f52(v: Variant) -> bool:
    """Does v's mulmod_shared take Barrett's reduction in radix 2^52 for moduli that fill the object's top limb?"""
    return v.op == "mulmod_shared" and v.backend == "cuda" and v.bits in MOD_SHARED_F52_BITS


# mulmod with a modulus per instance by schoolbook division in radix 2^49 or 2^43 on the FP64 pipe (templates/
# lib_mulmod_fdiv.j2), a thread per instance, CUDA, at these sizes, for moduli of at least fdiv_min_bits (the others,
# and calls of fewer words, take the thread's division on words; where the runtime composes mul and mod, at 1024 bits,
# it does so for a batch with such a modulus: MIDINT_MODULI_NARROW). H200, 2^22 instances, M/s (tuning/results/
# h200-2026-11-29-s33, run 9): 1024 bits 2370 against mul then mod's 1490 (mul 5780), 512 7680 against the thread's
# 3030 (mul 15600), 384 11780 against 6010. Above 1024 bits a thread's registers do not hold the limbs. The radix at
# each size: 49, but 43 at 256 bits, where 49-bit limbs would leave the top one 11 bits and the estimate needs 2^20
# (43: 41 bits, 6 limbs; H200, 2^27 words, tuning/results/h200-2026-11-29-s35 run 1: 0.822-0.838 ms against the
# thread's division on words' 1.178-1.194, mul 0.514-0.522, so 62% of mul). Leaving out digit K's step at 256 (from
# 2^254, a test of the top limb) gained nothing there (0.827-0.857 ms).
MULMOD_FDIV_RADIX = {256: 43, 384: 49, 512: 49, 1024: 49}
MULMOD_FDIV_BITS = tuple(MULMOD_FDIV_RADIX)
# where that division leaves out its first digit's step for moduli of at least 2^(64 N - 49 K) (x / (m beta^K) is zero
# there): for every modulus it takes at 512 bits (2^485), a test of the top limb at 384 (2^376); H200, 2^27 words,
# tuning/results/h200-2026-11-29-s34 run 5: 512 bits 1.028-1.034 against 1.074-1.100 ms, 384 0.856-0.873 against
# 0.874-0.878. At 1024 bits (2^1019) the test cost a spill and 1-2% (run 3: 1.776-1.779 against 1.737-1.763 ms).
MULMOD_FDIV_SKIP_FIRST_BITS = (384, 512)


def fdiv_radix(words: int) -> int:
    """The division's radix (its limbs' bits) at `words` words, a size MULMOD_FDIV_RADIX names."""
    return MULMOD_FDIV_RADIX[32 * words]


def fdiv_limbs(words: int) -> int:
    """K, the limbs of fdiv_radix bits that hold `words` words."""
    return radix_limbs(32 * words, fdiv_radix(words))


def fdiv_min_bits(words: int) -> int:
    """The smallest modulus (as a power of two) the branch takes at `words` words: its top limb at least 2^(69 - r)
    in radix 2^r, so that the limbs a digit's estimate leaves out (below 2^57 each: fdiv_bounds_hold) weigh below
    2^-12 of a unit (1000 bits at 1024, 510 at 512, 241 at 256)."""
    r = fdiv_radix(words)
    return r * (fdiv_limbs(words) - 1) + 69 - r


def fdiv_first_zero_bits(words: int) -> int:
    """The least modulus (as a power of two) for which the division's first digit, x / (m beta^K), is zero at `words`
    words: x < 2^(64 words) <= m beta^K from there (space.MULMOD_FDIV_SKIP_FIRST_BITS: where its step is left out)."""
    return 64 * words - fdiv_radix(words) * fdiv_limbs(words)


def fdiv_bounds_hold(words: int) -> bool:
    """Do lib_mulmod_fdiv.j2's bounds hold at `words` words? Moduli from fdiv_min_bits exist below 2^(32 words), and
    the top word tells them (the runtime's test, ops.c's check_instances, and the kernel's read that word alone); the
    product fits 2K limbs; the first digit (x / (m beta^K)) is below beta / 8; the remainder's unnormalized limbs stay
    below 2^57 (a limb and K + 2 digits' two parts, below beta and 8 beta each); a digit (below 4.3 beta) times a
    limb stays below 2^(r + 52), as the exact split needs (r at most 49)."""
    bits, k, wide, r = 32 * words, fdiv_limbs(words), fdiv_min_bits(words), fdiv_radix(words)
    return (r <= 49 and bits - 32 <= wide < bits <= r * k and 2 * bits - wide - r * k <= r - 3
            and fdiv_limb_bound(r, k) < 2 ** 57)


assert all(fdiv_bounds_hold(b // 32) for b in MULMOD_FDIV_BITS), "MULMOD_FDIV_BITS outside the fdiv bounds"


def mulmod_fdiv(v: Variant) -> bool:
    """Does v's mulmod take the division on the FP64 pipe for moduli of at least fdiv_min_bits?"""
    return v.op == "mulmod" and v.backend == "cuda" and v.bits in MULMOD_FDIV_BITS


def fdiv_context(v: Variant) -> dict:
    """kernel_mod_thread.j2's view of the division (lib_mulmod_fdiv.j2's define): its radix, limbs, least modulus and
    the modulus from which its first digit's step is left out (0 where it is kept), all 0 where v has no such
    division; the template derives none of them."""
    if not mulmod_fdiv(v):
        return {"fdiv_radix": 0, "fdiv_limbs": 0, "fdiv_min_bits": 0, "fdiv_skip_from": 0}
    return {"fdiv_radix": fdiv_radix(v.words), "fdiv_limbs": fdiv_limbs(v.words),
            "fdiv_min_bits": fdiv_min_bits(v.words),
            "fdiv_skip_from": fdiv_first_zero_bits(v.words) if v.bits in MULMOD_FDIV_SKIP_FIRST_BITS else 0}


def cedes_f52(v: Variant) -> bool:
    """Does v leave to its size's mods variant the moduli that take Barrett's reduction in radix 2^52 (the lanes' two
    Montgomery products of mulmod_shared, where mod_shared_f52 holds for mods at that size: 1633 against 2640 M/s)?"""
    fam = family_of(v)
    return bool(fam and fam.name == "modlm" and mod_shared_f52(v))


# A modulus shared by the batch (templates/kernel_mod_shared.j2 over lib_modshared.j2): the modt family's shape and
# constraints, its own template (the modulus object's words in aux, Montgomery constants precomputed).
MOD_SHARED = replace(
    MOD_THREAD, name="mods", template="kernel_mod_shared.j2",
    render_context=lambda v: {**MOD_THREAD.render_context(v), "f52": mod_shared_f52(v)},
    constraints=MOD_THREAD.constraints + (
        Constraint("mods_powm_below_lanes", "powm_shared below 1024 bits, where the lanes (modl) take over (H100, "
                   "512-bit exponents: 4.34 against 2.23 M/s at 1024 bits, 1.09 against 0.29 at 2048)",
                   lambda v: v.op != "powm_shared" or v.bits < 1024, "prune"),
    ))


# Modular expressions (E mod m; generator/expr_mod_plan.py, templates/kernel_expr_mod.j2 over lib_modarith.j2): the
# modt family's shape, a thread per instance holding its values in private arrays of N = bits/32 words (N + 1 and
# 2N + 1 for the lazy sums and products), each modulus's regions in plain residues with lazy reduction (lib_moddiv's
# md_mul, mulmod, md_rem_*) or in Montgomery form (ma_montmul, ma_addmod, ma_submod, the constants once per instance),
# as expr_mod_plan's operation-count model chooses per size. Sizes as modt's private mode (MOD_PRIVATE_MAX_BITS); no
# extra sizes by default (each size is a kernel per backend: ask for 384 or 1536 with SIZES=).
EXPR_MOD = OpFamily(
    name="expr_mod",                # expr_NAME of an expression with modular steps (families_for)
    template="kernel_expr_mod.j2",
    limbs=("u32",),
    qs=MOD_THREAD.qs,
    ipbs=MOD_THREAD.ipbs,
    lanes=(1,),
    multi_instance_blocks=(128,),
    shared_words=lambda v: 0,
    render_context=lambda v: {"prog": _expr_prog(v), "mp": expr_mod_plan.plan(_expr_prog(v), v.words)},
    own_fallback=True,
    constraints=(
        Constraint("expr_mod_ops", "the modular expression's other steps are +, -, * (mod 2^bits) and constants: full "
                   "products (mulw, sqrw) and their zero-extensions make double-width values, which a thread's arrays "
                   "of N words do not hold", lambda v: expr_mod_plan.supported(_expr_prog(v))),
        Constraint("expr_mod_max_bits", f"at most {MOD_PRIVATE_MAX_BITS} bits (as modt's private mode: a thread keeps "
                   "every live value, the moduli's constants and the division's arrays in private memory; modular "
                   "expressions have no workspace mode and no step-by-step path beyond)",
                   lambda v: v.bits <= MOD_PRIVATE_MAX_BITS),
    ) + tuple(c for c in MOD_THREAD.constraints if c.name == "mod_whole_instance"),
)


FAMILIES = (ADDSUB, MUL, NTT, ADDSUB_GRID, NTT_GRID, LANES, LANES_K, LANES_OWNER, EXPR, EXPR_LANES, EXPR_OWNER,
            EXPR_NTT, EXPR_GRID, ADDSUB_LANES, MAP, SQR_THREAD, SQR_OWNER, MOD_THREAD, MOD_SHARED, MOD_LANES,
            MOD_LANES_ONE, MOD_LANES_MUL, MOD_DIV_LANES, MOD_GCD_LANES, EXPR_MOD)
FAMILY_BY_NAME = {fam.name: fam for fam in FAMILIES}
# every built-in operation, in the table's order (its op codes), with the families its row names
OPS = {op.name: tuple(FAMILY_BY_NAME[f] for f in op.families) for op in ops.OPERATIONS}


def extra_sizes_for(op: str) -> tuple:
    """The sizes op's families add to a default request (OpFamily.extra_sizes)."""
    return tuple(sorted({b for fam in families_for(op) for b in fam.extra_sizes}))


def families_for(op: str) -> tuple:
    """The families generating op: an expression's op is expr_NAME for every expression given (expr_plan.PROGRAMS)."""
    if op.startswith(EXPR_PREFIX):
        if op not in expr_plan.PROGRAMS:
            return ()
        # EXPR_MOD's thread per instance (w1, Q = the words) would share names with EXPR_LANES's one-lane variants:
        # it is listed, first, only for programs with modular steps, which the others refuse (EXPR_NOT_MODULAR)
        plain = (EXPR, EXPR_LANES, EXPR_OWNER, EXPR_NTT, EXPR_GRID)
        return (EXPR_MOD,) + plain if expr_plan.PROGRAMS[op].modular() else plain
    return OPS.get(op, ())


def family_of(v: Variant) -> OpFamily | None:
    """The family that generates v: its operation, NTT or not, grid or not, its kind of lanes. Where several have
    that shape, the first that also has v's Q and backend (powm's one-lane kernel, modl1, Q 8 or 16 on CUDA, leaves
    384 bits and OpenCL to the thread per instance); where none has them, the first of the shape (whose constraints
    then say what is wrong with v)."""
    shaped = [fam for fam in families_for(v.op)
              if (v.ntt is None) == (fam.ntts == (None,)) and (v.grid is None) == (fam.grids == (None,))
              and (v.lanes is None) == (fam.lanes == (None,)) and (v.lanes is None or v.lanes in fam.lanes)
              and (v.karatsuba is None) == (fam.karatsubas == (None,)) and v.owner == (fam.owners == (True,))
              and v.staged in fam.staged]
    held = [fam for fam in shaped if v.q in fam.qs and v.backend in fam.backends]
    return (held or shaped or [None])[0]


# ---- resource model (one formula, used by constraints, the registry and the templates) ----
def shared_bytes(v: Variant) -> int:
    """Dynamic local memory of one block: two staged operands (the product reuses them), the family's own
    needs, and scratch for the carry scan (32 warp totals, and on OpenCL one word per thread to emulate warp
    shuffles)."""
    if v.grid is not None:   # the largest of its kernels
        return max(grid_plan.shared_bytes(k, v.backend) for k in grid_plan.kernels(v))
    scratch = WARP + (v.block if v.backend == "opencl" else 0)
    fam = family_of(v)
    if fam is not None and fam.shared_words is not None:
        return 4 * (fam.shared_words(v) + scratch)
    staged = 2 * padded_words(v.block * v.chunk_words)
    extra = fam.extra_shared_words(v) if fam is not None else 0
    return 4 * (staged + extra + scratch)


CONSTRAINTS = (
    Constraint("bits_multiple_of_32", "bits is a positive multiple of 32",
               lambda v: v.bits > 0 and v.bits % 32 == 0),
    Constraint("known_op", "the operation is generated (with this algorithm)", lambda v: family_of(v) is not None),
    Constraint("known_limb", f"limb type is one of {', '.join(LIMB_WORDS)}",
               lambda v: v.limb in LIMB_WORDS),
    Constraint("known_backend", f"backend is one of {', '.join(BACKENDS)}",
               lambda v: v.backend in BACKENDS),
    Constraint("q_positive", "Q and IPB are at least 1", lambda v: v.q >= 1 and v.ipb >= 1),
    # "Q divides the padded length" holds by construction: an instance is padded to threads per instance
    # x Q limbs (Variant.threads_per_instance rounds up), so it is not a check here.
    Constraint("chunk_fits_instance", "a thread's Q limbs are no more than one instance (more only pads)",
               lambda v: v.chunk_words <= v.words, "prune"),
    # Blocks are whole warps by construction (Variant.block rounds up), so that is not a check either.
    Constraint("block_max", f"threads per block (IPB x threads per instance) is at most {MAX_BLOCK_THREADS}",
               lambda v: v.block <= MAX_BLOCK_THREADS),
    Constraint("shared_memory", f"shared memory per block is at most {MAX_SHARED_BYTES} bytes",
               lambda v: shared_bytes(v) <= MAX_SHARED_BYTES),
    Constraint("min_chunk", f"a thread holds at least {MIN_CHUNK_WORDS} words (one 16-byte access; "
               "narrower chunks only add threads)", lambda v: v.chunk_words >= MIN_CHUNK_WORDS, "prune"),
    Constraint("min_block", f"at least {MIN_BLOCK} threads per block (32 resident blocks must fill an SM)",
               lambda v: v.block >= MIN_BLOCK, "prune"),
    Constraint("multi_instance_block", "a block of several instances has one of its family's multi-instance "
               "block sizes (smaller blocks cap occupancy, larger ones gain nothing)",
               lambda v: v.ipb == 1 or v.block in family_of(v).multi_instance_blocks, "prune"),
)


ALL_CONSTRAINTS = tuple(dict.fromkeys(CONSTRAINTS + tuple(c for fam in FAMILIES for c in fam.constraints)))


def constraints_for(v: Variant) -> tuple[Constraint, ...]:
    """The common constraints, then those of v's operation family."""
    fam = family_of(v)
    return CONSTRAINTS + (fam.constraints if fam is not None else ())


def failed_constraint(v: Variant, kinds=("legal", "prune")) -> Constraint | None:
    """The first constraint `v` breaks, or None: legality before pruning, common before the family's."""
    for kind in kinds:
        for c in constraints_for(v):
            if c.kind == kind and not c.holds(v):
                return c
    return None


def candidates(op: str, bits: int, backend: str):
    """Every point of the space for (op, bits, backend), legal or not: each family's own points (a point another family
    of the operation owns by family_of, as the square's staged thread in the lanes family, is left to that one)."""
    for fam in families_for(op):
        for limb in fam.limbs:
            for q in fam.qs:
                for ipb in fam.ipbs:
                    for choice in fam.ntts:
                        for grid in fam.grids:
                            for lanes in fam.lanes:
                                for across in fam.across:
                                    for owner in fam.owners:
                                        for staged in fam.staged:
                                            for kara in fam.karatsubas:
                                                v = Variant(op=op, bits=bits, limb=limb, q=q, ipb=ipb,
                                                              backend=backend, ntt=choice, grid=grid, lanes=lanes,
                                                              across=across, owner=owner, staged=staged,
                                                              karatsuba=kara)
                                                if family_of(v) is fam and backend in fam.backends:
                                                    yield v
