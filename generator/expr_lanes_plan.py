"""Register-resident fused expressions (EXPR_LANES, templates/kernel_expr_lanes.j2): which programs the family takes
and the registers a lane keeps live, as data for generator/space.py's constraints."""

from dataclasses import dataclass

from .expr import Program
from .lanes_plan import Chain, row_chains

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


# Squares (a mullo step whose two operands are one value, a*a or sqr(a)) on L >= SQUARE_MIN_LANES lanes: with A_l the
# Q-word block of lane l and B = 2^(32 Q),
#     a^2 mod B^L = 2 T + D mod B^L,  T = sum_{l > s} A_l A_s B^(l+s),  D = sum_l A_l^2 B^(2l).
# T is the lanes pipeline with lane l adding its products at step s only where l > s (the others multiply by a zero
# word of b): a product step s needs a lane l > s with l + s < L, so only the first L // 2 of the L steps have
# products, the rest only carry the windows down. D is each lane's own square, its 2Q words by the classical
# square (the products a_i a_j with i > j once, doubled by a shift, plus the diagonal a_i^2), sent to lanes 2l and
# 2l + 1 by shuffles. The step's result is 2T + D: each lane shifts its block of T left by one bit (the bit above
# comes from the lane below), adds its block of D, and the carries between lanes go through the sums' ballot.
# Word products per lane: L // 2 steps of Q^2 plus Q (Q + 1) / 2 for the own square, against L Q^2 for a product.
# One lane (512 bits) keeps the truncated product: its one step is all the work, nothing to halve but the diagonal.
SQUARE_MIN_LANES = 2


@dataclass(frozen=True)
class SquarePlan:
    """The numbers kernel_expr_lanes.j2 spells for a square on `lanes` lanes of `q` words (see above)."""

    lanes: int
    q: int

    @property
    def product_steps(self) -> int:
        """Pipeline steps with products: s < L // 2 (a lane l > s with l + s < L exists)."""
        return self.lanes // 2

    def contributes(self, lane: int, step: int) -> bool:
        """Whether lane `lane` adds its products at pipeline step `step` (else it multiplies by zero)."""
        return lane > step and step < self.product_steps

    @property
    def own_rows(self) -> list:
        """The chains of the lane's own square's off-diagonal products, one row per word t of the lane's block:
        a_j a_t for j > t at word t + j of a 2Q-word sum (E and O as lanes_plan.row_chains: each product an aligned
        register pair, one gap-free run per array and row). A row's runs are the tails of a full row's, ending at the
        same word, so the carry targets are the full rows' (never inside an earlier row's run)."""
        return [tuple(c for c in (_tail(ch, t) for ch in row_chains(self.q, t, False)) if c is not None)
                for t in range(self.q)]

    def word_products(self) -> int:
        """Multiply-adds (32 x 32 -> 64-bit, one IMAD.WIDE each) a lane issues for the square, against lanes q^2
        for a product: the product steps, the own square's triangle and its diagonal."""
        return self.product_steps * self.q * self.q + self.q * (self.q - 1) // 2 + self.q


def _tail(chain: Chain, t: int):
    """chain without the products of a words j <= t (None when nothing is left); the carry target stays."""
    ops = tuple(op for op in chain.ops if op[2] > t)
    return Chain(chain.sums, ops, chain.carry_to) if ops else None


def square_plan(lanes: int, q: int):
    """The SquarePlan for a variant's shape, or None where squares run as products (one lane)."""
    return SquarePlan(lanes, q) if lanes >= SQUARE_MIN_LANES else None


def is_square(p: Program, i: int) -> bool:
    s = p.steps[i]
    return s.op == "mullo" and s.args[0] == s.args[1]
