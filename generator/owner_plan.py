"""The balanced low half (mullo `_oL` variants): which warp sums which word block, and the join, as data."""

from dataclasses import dataclass

from . import expr_plan

PAD = 33   # shared-memory words per word index: 32 instances and a pad word (transposed stores hit distinct banks)


class WarpGroup:
    """A group of 32 instances served by h = L/2 warps (lane i of each warp instance i), each warp summing its blocks
    into windows of 2Q + 1 words; the plans that share this shape (OwnerPlan, sqr_plan.SqrOwnerPlan) add their
    `lanes` and `q` fields and their blocks."""

    @property
    def warps(self) -> int:
        return self.lanes // 2

    @property
    def window(self) -> int:
        return 2 * self.q + 1

    @property
    def pad(self) -> int:
        return PAD

    @property
    def threads(self) -> int:
        """Threads of one group of 32 instances."""
        return 32 * self.warps


@dataclass(frozen=True)
class OwnerPlan(WarpGroup):
    """An instance's low half as L blocks of Q words (a_i, b_j the operands' blocks). Block k of the product
    gathers the block products a_i b_j with i + j = k (their low Q words; k < L - 1 also their high Q words go
    to block k + 1), so block k costs k + 1 products and the triangle is unbalanced. h = L/2 warps share it,
    each lane of a warp one of 32 instances: warp w sums block w, then block L - 2 - w (k + 1 + L - 1 - k = L
    products for every warp but the last); warp h - 1 sums block h - 1 (h products) and block L - 1, of which
    only the low halves matter (L products of about half the multiply-adds). A warp sums its block's products
    into a window of 2Q + 1 words, the partial P_k (for block L - 1: Q words, mod B^Q). The join makes result
    block k = P_k[0, Q) + P_(k-1)[Q, 2Q) + P_(k-2)[2Q] + the carry from below: the three terms give a carry out
    c_k <= 2 (<= 3 when a fused expression adds a fourth, z_k), and with the margin m_k (B^Q - S_k when that is at
    most 4, else 5) the carry into block k + 1 is c_k + (carry into k >= m_k), at most 4, found by one pass over the
    lower blocks' (c, m) codes."""

    lanes: int
    q: int

    def blocks_of(self, w: int) -> tuple:
        """The two blocks warp w sums, the first below h and the second from h (the layout relies on it)."""
        h = self.warps
        return (w, self.lanes - 1 if w == h - 1 else self.lanes - 2 - w)

    def products(self, k: int) -> tuple:
        """The (i, j) block products of block k."""
        return tuple((i, k - i) for i in range(k + 1))

    def truncated(self, k: int) -> bool:
        """Only the low Q words of block k's products are needed (the top block of the low half)."""
        return k == self.lanes - 1

    # shared memory of one group of 32 instances, in words: the partials of the first blocks (below h), then a and b
    # (word w of instance i at w * PAD + i), over which the partials of the second blocks go once every warp is done
    # with a and b, and the join's codes
    @property
    def part_words(self) -> int:
        return PAD * self.warps * self.window

    @property
    def operand_words(self) -> int:
        return PAD * self.lanes * self.q

    @property
    def codes_words(self) -> int:
        return PAD * self.lanes

    @property
    def all_parts_words(self) -> int:
        """Every block's partial (a fused expression keeps its operands while a product runs)."""
        return PAD * self.lanes * self.window

    @property
    def group_words(self) -> int:
        return self.part_words + 2 * self.operand_words + self.codes_words


def owner_plan(lanes: int, q: int) -> OwnerPlan:
    return OwnerPlan(lanes, q)


# ---- fused expressions on the owner schedule (EXPR_OWNER, templates/kernel_expr_owner.j2) ----
# Sums mod 2^bits (a block per owner, carries by the join's codes), the balanced low half, constants: the programs
# expr_plan.low_products takes.
expr_supported = expr_plan.low_products


@dataclass(frozen=True)
class ExprStep:
    """A step as the family runs it: `op` and `args` as the program's, `dst` the value it defines; a product whose
    result only a sum right after it reads takes that sum's other operand `z` into its join (x y + z, or x y - z with
    `sub`) and defines the sum's value instead."""

    op: str
    args: tuple
    dst: int
    z: int | None = None
    sub: bool = False
    value: int = 0

    def reads(self) -> tuple:
        return self.args + ((self.z,) if self.z is not None else ())


def expr_steps(p) -> list:
    """The program's steps with each product fused with the sum that alone reads it, when that sum comes next and
    is x y + z, z + x y or x y - z (z - x y would need the product negated)."""
    last, nin = p.last_uses(), len(p.inputs)
    outputs = {v for _n, v in p.outputs}
    out, i = [], 0
    while i < len(p.steps):
        s, v = p.steps[i], nin + i
        t = p.steps[i + 1] if i + 1 < len(p.steps) else None
        if (s.op == "mullo" and t is not None and t.op in ("add", "sub") and last.get(v) == i + 1 and v not in outputs
                and t.args.count(v) == 1 and (t.op == "add" or t.args[0] == v)):
            z = t.args[1] if t.args[0] == v else t.args[0]
            out.append(ExprStep("mullo", s.args, v + 1, z, t.op == "sub"))
            i += 2
            continue
        out.append(ExprStep(s.op, s.args, v, value=s.value))
        i += 1
    return out


def expr_slots(p) -> tuple:
    """(slot of each live value, slots) over expr_steps: values in shared memory, a slot reused once its value is
    dead. A step's result may take a slot its operands free: it is written only after the step's barriers, when every
    warp has read them (sums: each warp reads and writes only its own blocks). A fused product's own value has none."""
    steps = expr_steps(p)
    nin = len(p.inputs)
    last = {}
    for j, s in enumerate(steps):
        for a in s.reads():
            last[a] = j
    for _n, v in p.outputs:
        last[v] = len(steps)
    slot, widths = expr_plan.lifetime_slots([v for v in range(nin) if v in last],
                                            [(s.reads(), s.dst) for s in steps], last, p.widths)
    return slot, len(widths)


def expr_group_words(plan: OwnerPlan, p) -> int:
    """Shared words of one group: the value slots (L Q words each), the partials of a product (every block's window)
    and the codes."""
    _slot, count = expr_slots(p)
    return count * plan.operand_words + plan.all_parts_words + plan.codes_words
