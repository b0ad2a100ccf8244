"""Register-resident fused expressions (EXPR_LANES, templates/kernel_expr_lanes.j2): which programs the family takes
and the registers a lane keeps live, as data for generator/space.py's constraints."""

from .expr import Program

# step ops the family spells: sums mod 2^bits (a lane's chain plus a ballot across lanes), the lanes pipeline's low
# half, constants. Full products (mul) and zero-extension (ext) make double-width values, which the L x Q layout of
# one width cannot hold.
OPS = frozenset({"add", "sub", "mullo", "const"})


def supported(p: Program) -> bool:
    return p.kinds() <= OPS and all(w == 1 for w in p.widths)


def pipeline_words(q: int) -> int:
    """As space.lanes_live_words: a and b's Q words, E and O (2Q + 1 and 2Q - 1), the passed Q words, the carry."""
    return 7 * q + 1


def step_words(p: Program, i: int, q: int) -> int:
    """Words a lane keeps live during step i: every value defined before it and read at or after it, and its result,
    Q words each; a product's operands are counted in the pipeline's 7Q + 1 (which holds two, so a square, whose
    operands are one array, takes Q fewer), a sum's result chain a few scalars beyond the values (the carry out, the
    all-ones test, the carry in)."""
    nin = len(p.inputs)
    last = p.last_uses()
    live = {v for v in range(nin + i) if last.get(v, -1) >= i}
    s = p.steps[i]
    if s.op == "mullo":
        others = live - set(s.args)
        return (len(others) + 1) * q + pipeline_words(q) - (q if s.args[0] == s.args[1] else 0)
    return (len(live) + 1) * q + 4


def live_words(p: Program, q: int) -> int:
    """The most words a lane keeps live at any step (the loads and stores hold no more than the steps around them;
    a program without steps holds its inputs)."""
    used = len(p.last_uses())
    return max([step_words(p, i, q) for i in range(len(p.steps))] + [used * q])


# The pipeline's steps are unrolled (the window moves become register renaming, as in kernel_mul_lanes.j2) only where
# the lanes hold at most UNROLL_MAX_WORDS words of a value (L Q); beyond, a loop. ptxas 12 (sm_90), poly: unrolled,
# 200 registers at 2048 bits (Q = 8, 8 lanes), 208 at 1024 bits (Q = 16, 2 lanes), 255 with 120 to 812 bytes of
# spills at 4096 and 8192 bits, 6060 bytes at 8192 bits with Q = 16 (it hoists the shuffles of the unrolled steps of
# several products); as a loop 80 (Q = 8) and 154 (Q = 16) registers without spills at every size, as live_words
# counts. Unrolled, 512 bits keep 94 (Q = 8, 2 lanes) and 123 (Q = 16, 1 lane: one step).
UNROLL_MAX_WORDS = 16


def unroll_steps(lanes: int, q: int) -> bool:
    return lanes * q <= UNROLL_MAX_WORDS
