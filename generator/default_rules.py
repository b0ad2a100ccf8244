"""The dispatch's built-in default rule as data: one row per operation group, rendered into generated/default_rules.c.

Order of dispatch (runtime/dispatch.c): a forced variant, the tuned table, then this rule. It first picks the kind of
variant (grid, register-resident "lanes", NTT, classical) from the sizes and batch counts below, then, among the
variants of that kind serving the call, those of the smallest generated size, then the lowest cost: the distance in
doublings from the preferred words (NTT: elements) per thread and threads per block, a limb preference and the share
of idle threads, weighted by the w_ fields. Every number below comes from a measurement (tuning/RESULTS.md); the
tests read these rows (tests/test_dispatch.py) rather than copying them. An operation's row is named by its `rule`
in generator/ops.py; expressions use "expr".
"""

from dataclasses import dataclass, fields

NEVER = 0                      # a size threshold that is never reached (lanes, NTT) / a count bound that never holds
UNBOUNDED = (1 << 64) - 1      # UINT64_MAX: every count


@dataclass(frozen=True)
class Rule:
    name: str
    chunk_words: float        # preferred words per thread (classical, one block)
    block: float              # preferred threads per block
    limb_words: float         # preferred limb (1: u32, 2: u64)
    w_chunk: float
    w_block: float
    w_limb: float
    w_idle: float
    ntt_above_bits: int       # NTT variants above this size, classical at or below (0: never NTT)
    ntt_q: float              # preferred transform elements per thread
    ntt_block: float          # and the cost per doubling of threads per block beyond ntt_block
    w_ntt_block: float
    grid_from_bits: int       # grid variants from this size for batches below grid_below_count (and wherever no
    grid_below_count: int     # one-block variant serves the size); 0: never
    grid_q: float             # among grid variants: preferred words (NTT: points) per thread
    grid_block: float         # and threads per tile block
    lanes_upto_bits: int      # register-resident variants up to this size (0: never)
    lanes_from_count: int     # for batches of at least this many instances
    lanes_q: float            # preferred words per lane
    lanes_min: float          # fewest lanes preferred
    lanes_across: int         # 0: lanes of one warp (_wL), 1: across warps (_xL), 2: the balanced owners (_oL)
    lanes_karatsuba: int      # Karatsuba levels preferred among lanes variants (0: the plain pipeline)
    lanes_below_count: int    # and only for batches below this many instances (0: no bound)
    lanes_staged_from: int    # a staged thread (_t1) first, from this many instances and 3/4 of its size (0: never)
    why: str = ""


RULES = (
    # add/sub (and cmp, the same families): the grid from 2^19 bits at every count (H200, 2^27 words: 4.25 TB/s
    # against 3.29 for the one-block kernel, whose 1024 threads hold one instance per block; at 4 instances 10.2
    # against 11.0 us). The register-resident add/sub (ADDSUB_LANES, _wL) for batches below 2048 instances up to
    # 16384 bits: there the tuner (H200, batches of 4 and 512) took it at every size, 1.06-1.31x the one-block kernel
    # (4 to 16 words per lane; 32768 bits: 1.04-1.07x); at 16384 instances it still won up to 4096 bits
    # (1.18-1.44x) but not at 8192 or 16384, and full batches run at the copy rate either way (within 1-3%), so the
    # one-block kernel keeps them. Among lanes variants 4 words per lane (the most lanes), any number of lanes. For
    # add/sub every one-block variant with 16 words per thread ran within 1.5% of the best at each size 2^9..2^18
    # and u32 limbs beat u64 at 2^18 bits.
    # Among grid variants 16 words per thread in 256-thread tiles: the tuned table's choice for add and sub from 16
    # instances at every grid size, 2^19..2^31 bits (H200), and cmp's at 2^20..2^27 bits ran 3.97 TB/s through 8 words.
    Rule("addsub", 16, 256, 1, 2.0, 1.0, 1.0, 4.0, NEVER, 0, 0, 0, 524288, UNBOUNDED, 16, 256, 16384, 0, 4, 1, 0, 0,
         2048, NEVER),
    # multiplication: regions of 8 u64 limbs (Q = 8 for mul, 16 for mullo) in 128-thread blocks. The crossover: H200,
    # million instances/s, mul at 4096 bits: NTT 171.6, classical 128.3; mullo at 8192 bits: NTT 100.9, classical
    # 86.2 (at 4096: classical 335, NTT 225). An NTT variant costs the same at every size it serves while classical
    # cost falls with the square of the size, so below the generated size classical still wins down to
    # 4096 sqrt(128.3/171.6) = 3542 bits (mul) and 8192 sqrt(86.2/100.9) = 7572 bits (mullo). NTT: 16 elements per
    # thread were fastest at every size but 131072 bits, where that makes 512-thread blocks and 32 elements (256
    # threads) ran 14-17% faster; at 262144 bits the two are within 3% (1024 and 512 threads).
    # Register-resident (lanes) variants, H200, 2^27 words, M instances/s against the best other family: mul 11241 /
    # 5784 / 1620 / 406 / 98 at 512..8192 bits (classical 5675 / 1798 / 482 / 128 / 33, NTT 172 at 4096 and 85 at
    # 8192), NTT ahead at 16384 (38); 16 words per lane were best everywhere but at 512 bits, where one lane per
    # instance ran at 71% of two lanes of 8 words. A staged thread per instance (_t1, operands and results through a
    # transposition in shared memory; 512 bits) ran mul 512 at 14518 against _w2's 11243: preferred from 16384
    # instances (lanes_staged_from; at 4 and 512 instances it ran 1.08-1.35x slower than the tuner's choice) and from
    # 3/4 of its size (its words are staged one by one below). Grid variants from 65536 bits for batches below 16.
    Rule("mul", 16, 128, 2, 2.0, 1.0, 1.0, 4.0, 3520, 16, 256, 3.0, 65536, 16, 16, 256, 8192, 1, 16, 2, 0, 0, 0,
         16384),
    # the low half: as mul, with the crossover to the NTT at 7552 bits (above). Lanes mullo 21521 / 8285 / 2280 / 529
    # / 118 at 512..8192 bits (classical 11707 / 3789 / 1241 / 335 / 86, NTT 113 at 8192), lanes across warps ahead of
    # lanes of one warp from 2048 bits (2280 against 1993, 529 against 471). The balanced low half (_oL: blocks summed
    # by their owner warps) ran 19487 / 8548 / 2484 / 758 / 207 at 512..8192 bits against the best other lanes mullo
    # 21370 / 8197 / 2265 / 528 / 118 (H200, 2^27 words), Q = 16 and one group per block best from 1024 bits: preferred
    # (lanes_across 2) at every size, 9% slow at 512 bits. The staged thread (_t1) ran mullo 512 at 22440 against
    # 21657 and mullo 1024 at 9993 against _w2's 8278 and _o2's 8187 (re-measured: 15575 and 9490 with the re-tuned
    # table); at 992 bits 1.69x _w2's rate, at 544 bits 0.75x.
    Rule("mullo", 32, 128, 2, 2.0, 1.0, 1.0, 4.0, 7552, 16, 256, 3.0, 65536, 16, 16, 256, 8192, 1, 16, 2, 2, 0, 0,
         16384),
    # the full square: mul's rule (its kernels, borrowed with b = a, serve every size; the transforms skip one of
    # three per prime for a square, 1.3-1.5x mul from 16384 bits on the H200).
    Rule("sqr", 16, 128, 2, 2.0, 1.0, 1.0, 4.0, 3520, 16, 256, 3.0, 65536, 16, 16, 256, 8192, 1, 16, 2, 0, 0, 0,
         16384),
    # word-wise operations (bitwise, shifts): the map family alone (a grid family), 8 words per thread (two 16-byte
    # accesses in flight per operand) in 256-thread blocks until measured otherwise.
    Rule("map", 16, 256, 1, 2.0, 1.0, 1.0, 4.0, NEVER, 0, 0, 0, 32, UNBOUNDED, 8, 256, NEVER, 0, 4, 1, 0, 0, 0,
         NEVER),
    # division and modular arithmetic: the register-resident kind at every size and count; among its variants 8 words
    # per lane (lanes_q): the modt family's thread per instance (one variant per size) up to 512 bits, powm's lanes
    # (modl, 8 words on each of N/8 lanes) from 1024 bits (H100, 512-bit exponents: 4.21 against 2.24 M/s at 1024
    # bits, 1.05 against 0.29 at 2048, 0.26 against 0.02 at 4096).
    Rule("mod", 8, 128, 1, 2.0, 1.0, 1.0, 4.0, NEVER, 0, 0, 0, NEVER, NEVER, 8, 128, 1 << 31, 0, 8, 1, 0, 0, 0,
         NEVER),
    # Fused expressions: the shared-memory family keeps one region size and limb per expression (constraint
    # expr_region_size), so the rule weighs the block and idle threads. The register-resident family (EXPR_LANES,
    # _wL) first up to 4096 bits from 16 instances, as for mul and mullo: its products run mullo's _wL pipeline (Q^2
    # IMAD.WIDE per lane and step), plus per step Q shuffles and, beyond 2 lanes, about 4Q moves, at most +25% (Q = 8)
    # and +12% (Q = 16) beside the multiply-adds; mullo _wL ran 1.4-2.2x the classical mullo at 512-4096 bits (H200).
    # Among lanes variants w_chunk 0 leaves ties to the registry's order, Q = 8 first (80 registers for poly against
    # 154 at Q = 16). The balanced low half's family (EXPR_OWNER, _oL, from 1024 bits) ran poly 1.47 / 1.54 / 1.67 /
    # 2.90x the rule's choice at 1024 / 2048 / 4096 / 8192 bits (H200, tune_poly), ahead from 16384 instances (below
    # 2048, _wL): preferred (lanes_across 2); programs it does not take keep _wL. At 8192 bits the rule still takes the
    # shared-memory family (lanes_upto_bits 4096). Above 8192 bits products run as transforms (EXPR_NTT).
    # Additions-only expressions over several blocks (EXPR_GRID, _gB) from 2^18 bits at every count: six, H200, 2^27
    # words, ran 4.21 / 4.17 / 4.18 TB/s at 262144 / 524288 / 1048576 bits on 256-thread tiles against the one-block
    # kernel's 3.80 / 3.30 / 2.14, and 4.20 against 4.29 at 131072.
    Rule("expr", 16, 128, 2, 0.0, 1.0, 0.0, 4.0, 8192, 16, 256, 3.0, 262144, UNBOUNDED, 16, 256, 4096, 16, 16, 2, 2, 0,
         0, NEVER),
)

BY_NAME = {r.name: r for r in RULES}
FIELDS = tuple(f.name for f in fields(Rule) if f.name not in ("name", "why"))


def rule_for(op: str) -> Rule:
    """The row dispatch uses for `op` (an operation's name, or expr_NAME)."""
    from . import ops
    return BY_NAME["expr" if op.startswith("expr_") else ops.BY_NAME[op].rule]


def c_value(x) -> str:
    if isinstance(x, float):
        return repr(x)
    return "UINT64_MAX" if x == UNBOUNDED else f"{x}u"
