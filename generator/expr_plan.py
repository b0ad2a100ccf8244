"""Fused expressions: the shared-memory layout of one variant's kernel (slots for the live values), as data for
templates/kernel_expr.j2 and for the resource model (generator/space.py)."""

from dataclasses import dataclass

from .expr import Program

WARP = 32
PROGRAMS: dict = {}        # op name (expr_NAME) -> Program, filled by the command line (generator/cli.py)


def program(op: str) -> Program:
    return PROGRAMS[op]


def padded_words(words: int) -> int:
    return words + words // 32      # as space.padded_words: one pad word per 32


@dataclass(frozen=True)
class StepPlan:
    op: str
    width: int
    dst: int                 # slot index
    args: tuple              # slot indices
    value: int
    text: str                # the step as the program spells it (for the kernel's comments)


@dataclass(frozen=True)
class Layout:
    slots: tuple             # (offset in words from the start of shared memory, width)
    steps: tuple             # StepPlan
    inputs: tuple            # (io index, slot) of the inputs the program reads
    outputs: tuple           # (io index, slot, width, name)
    ov: int                  # words of product overflow limbs at offset 0 (0 without products)
    totals: int              # offset of the scan's 32 words
    words: int               # shared words in all (without the OpenCL shuffle scratch)
    registers: bool = False  # the values live in registers, the slots only stage (in_registers)
    linear: tuple = ()       # additions only: per output value (value, ((input, coefficient), ...)), linear_outputs
    direct: bool = False     # linear and not staged: each thread loads and stores its own words (LINEAR_DIRECT_BYTES)


def region_limbs(q: int, op: str) -> int:
    """Limbs of a product region: as kernel_mul (Q for the full product, Q/2 for the low half)."""
    return q if op == "mul" else q // 2


def products(p: Program) -> set:
    return p.kinds() & {"mul", "mullo"}


def lifetime_slots(live_in, steps, last, widths, late=None) -> tuple:
    """Slots by lifetime: `live_in` the values live from the start, `steps` (values read, value defined) in order,
    `last` the index of each value's last reading step, `widths[v]` its width. A value takes a free slot of its width,
    or a new one; a step's operands read for the last time free their slots before its result takes one (a step reads
    its operands before its barrier and writes its result after it; dst None: the step defines nothing), except those
    in `late[i]` (the thread family's moduli: its functions write the result while they still read the modulus),
    which free theirs after it. Returns (slot of each value, width of each slot)."""
    slot_widths, free, slot_of = [], {}, {}

    def take(w):
        if free.get(w):
            return free[w].pop()
        slot_widths.append(w)
        return len(slot_widths) - 1

    def release(i, values):
        for a in values:
            if last[a] == i:
                free.setdefault(widths[a], []).append(slot_of[a])

    for v in live_in:
        slot_of[v] = take(widths[v])
    for i, (reads, dst) in enumerate(steps):
        after = set(late[i]) if late else set()
        release(i, [a for a in dict.fromkeys(reads) if a not in after])
        if dst is not None:   # a step that only releases its operands
            slot_of[dst] = take(widths[dst])
        release(i, [a for a in dict.fromkeys(reads) if a in after])
    return slot_of, slot_widths


def layout(op: str, block: int, chunk: int, limb_words: int) -> Layout:
    """Slots from the values' lifetimes: a value gets a free slot of its width, or a new one; a step's operands that
    it reads last free their slots before its result takes one (a step reads all its operands before a barrier and
    writes its result after it)."""
    p = program(op)
    nin, nout = len(p.inputs), len(p.outputs)
    last = p.last_uses()
    live_in = [i for i in range(nin) if i in last]
    slot_of, widths = lifetime_slots(live_in, [(s.args, nin + i) for i, s in enumerate(p.steps)], last, p.widths)
    inputs = [(nout + i, slot_of[i]) for i in live_in]
    steps = [StepPlan(s.op, s.width, slot_of[nin + i], tuple(slot_of[a] for a in s.args), s.value, s.text())
             for i, s in enumerate(p.steps)]
    ov = 4 * block * limb_words if products(p) else 0
    offsets, off = [], ov
    for w in widths:
        offsets.append((off, w))
        off += padded_words(w * block * chunk)
    outputs = tuple((j, slot_of[v], p.widths[v], name) for j, (name, v) in enumerate(p.outputs))
    registers = in_registers(op, chunk)
    linear = (linear_outputs(p) or ()) if registers else ()
    if linear and 4 * off > LINEAR_DIRECT_BYTES:
        # no staging: a thread loads and stores its own words; shared memory holds the warps' totals only
        return Layout((), (), tuple((io, -1) for io, _s in inputs), tuple((j, -1, 1, name) for j, _s, _w, name in
                      outputs), 0, 2 * WARP, 3 * WARP, True, linear, True)
    return Layout(tuple(offsets), tuple(steps), tuple(inputs), outputs, ov, off, off + WARP, registers, linear)


# ---- programs with low-half products of one width: the owner and NTT families' (EXPR_OWNER, EXPR_NTT) ----
# Step ops both spell: sums mod 2^bits, the low half of a product, constants; every value one width (a full product's
# double width is the shared-memory family's, EXPR).
LOW_PRODUCT_OPS = frozenset({"add", "sub", "mullo", "const"})


def low_products(p) -> bool:
    """Those ops, one width, and at least one product (sums only are faster in registers, lib_expr_regs.j2)."""
    return p.kinds() <= LOW_PRODUCT_OPS and all(w == 1 for w in p.widths) and "mullo" in p.kinds()


# ---- the sums-only kernel: every value in registers (templates/kernel_expr.j2, docs/expressions.md) ----
# A program whose steps are all additions, subtractions and constants of width 1 keeps its values in registers: a
# thread holds the same `chunk` words of every value (sums are word-aligned, unlike products), so a step reads its
# operands from the registers the previous steps wrote, and shared memory serves only the staging and the scan.
REGISTER_STEPS = ("add", "sub", "const")
REGISTER_MAX_WORDS = 128   # live values x chunk words: six at Q = 16 u32 keeps 3 x 16 (ptxas: see docs)


def live_values(p: Program) -> int:
    """The most values live at once: after a step, the values read later (or outputs) and the step's result."""
    last = p.last_uses()
    nin = len(p.inputs)
    live = {v for v in range(nin) if v in last}
    most = len(live)
    for i, _s in enumerate(p.steps):
        live.add(nin + i)
        most = max(most, len(live))
        live = {v for v in live if last.get(v, -1) > i}
    return most


def in_registers(op: str, chunk: int) -> bool:
    """Whether the variant keeps every value in registers: sums of width 1 only, and the live words fit."""
    p = program(op)
    return (all(s.op in REGISTER_STEPS and s.width == 1 for s in p.steps)
            and all(p.width_of(v) == 1 for _n, v in p.outputs)
            and live_values(p) * chunk <= REGISTER_MAX_WORDS)


# ---- additions only: one linear combination per output (lib_expr_regs.j2, linear) ----
# A program of additions alone computes each output as sum c_j x_j mod 2^bits over its inputs (six: r = 6a + 10b), so
# the kernel can sum it word by word with small carries and resolve them once instead of once per step. The carry
# between threads is then at most C = sum c_j; f(x) = c + [x >= m] (c the chunk's carry out, m its margin) maps the
# carry into a chunk to the carry out of it, and such functions compose to one of the same form (compose), so the
# carries are one scan. C stays below 2^15: the kernel packs c and m into 16 bits each.
LINEAR_MAX_SUM = 1 << 12
# Staged or not: the staging's coalesced loads ran six at 4.23-4.31 TB/s at 16384-131072 bits (up to 50 KiB of slots
# per block), a thread loading its own 64 bytes 3.63-3.73; at 262144 bits the slots take 99 KiB, two blocks per SM,
# and staged ran 2.91 TB/s against 3.79 (H200, 2^27 words). Above this many bytes of slots a linear program is not
# staged.
LINEAR_DIRECT_BYTES = 64 * 1024


def linear_outputs(p: Program):
    """((value, ((input, coefficient), ...)), ...) for each output value that is not an input, or None when the
    program is not additions alone (or a coefficient sum reaches LINEAR_MAX_SUM)."""
    if not p.steps or not all(s.op == "add" and s.width == 1 for s in p.steps):
        return None
    nin = len(p.inputs)
    coef = {i: {i: 1} for i in range(nin)}
    for i, s in enumerate(p.steps):
        c = dict(coef[s.args[0]])
        for k, x in coef[s.args[1]].items():
            c[k] = c.get(k, 0) + x
        coef[nin + i] = c
    out = []
    for _n, v in p.outputs:
        if v >= nin and v not in [o[0] for o in out]:
            terms = tuple(sorted(coef[v].items()))
            if sum(x for _k, x in terms) >= LINEAR_MAX_SUM:
                return None
            out.append((v, terms))
    return tuple(out)


INF = 0xFFFF   # a margin no carry reaches: the function is a constant


def compose(later: tuple, earlier: tuple) -> tuple:
    """later o earlier for f = (A, M): x -> A + [x >= M] (the kernel's rule, spelled the same way)."""
    (a2, m2), (a1, m1) = later, earlier
    if a1 >= m2:
        return (a2 + 1, INF)
    if a1 + 1 == m2:
        return (a2, m1)
    return (a2, INF)


# ---- additions only over several blocks (EXPR_GRID: kernel_expr_tile.j2, then kernel_carry_fixup.j2 "linear") ----
# An instance is cut into tiles of block x chunk words, one block per tile. The tile kernel sums its tile of every
# linear output with carry in 0 (the one-block `linear` scan, the tile standing for the instance) and records the
# tile's function f = (A, M) for each output; the fix-up scans those functions over the tiles, segmented by instance
# (an instance's first tile is a constant: nothing carries into it), and adds each tile's carry in (below cmax, a
# small integer) into its words. The scan across a fix-up block needs a neutral element, which (A, M) cannot spell:
# ID is a code no function takes (M = 0: every margin is at least 1).
ID = 0xFFFF      # packed A | M << 16 with A = 0xffff, M = 0: the identity x -> x


def combine(earlier, later):
    """later o earlier over packed functions with the identity (the fix-up's lin_combine, spelled the same)."""
    if earlier == ID:
        return later
    if later == ID:
        return earlier
    a, m = compose((later & 0xFFFF, later >> 16), (earlier & 0xFFFF, earlier >> 16))
    return a | m << 16


def apply(f, x):
    """f(x) for a packed function (the identity included)."""
    return x if f == ID else (f & 0xFFFF) + (x >= f >> 16)


def is_constant(f):
    """Whether f no longer depends on its carry in (the fix-up's look-back stops there)."""
    return f >> 16 == INF


@dataclass(frozen=True)
class TilePlan:
    """The tile kernel's data: which inputs it stages (one slot each), what each output is, the shared words."""
    inputs: tuple            # (io index, input index) of the inputs read, in slot order
    outputs: tuple           # (io index, value, name): value an input index (a copy) or a linear output's value
    linear: tuple            # linear_outputs(p): (value, ((input, coefficient), ...)) for each summed output
    slot_words: int          # padded words of one staged tile
    words: int               # shared words in all: the slots, then the warps' totals (two buffers of 32 words)

    @property
    def slots(self) -> int:
        return len(self.inputs)

    @property
    def totals(self) -> int:
        return self.slots * self.slot_words


def tile_plan(op: str, block: int, chunk: int):
    """The tile kernel's plan for tiles of block x chunk words, or None when the program is not additions alone. Every
    input an output needs is staged once; the outputs are staged for their store through the same slots, as many at a
    time as there are slots."""
    p = program(op)
    lin = linear_outputs(p)
    if lin is None:
        return None
    nin, nout = len(p.inputs), len(p.outputs)
    read = sorted({j for _v, terms in lin for j, _c in terms} | {v for _n, v in p.outputs if v < nin})
    outputs = tuple((j, v, name) for j, (name, v) in enumerate(p.outputs))
    slot_words = padded_words(block * chunk)
    inputs = tuple((nout + i, i) for i in read)
    return TilePlan(inputs, outputs, lin, slot_words, len(inputs) * slot_words + 2 * WARP)
