"""The balanced low half (mullo `_oL` variants): which warp sums which word block, and the join, as data."""

from dataclasses import dataclass

PAD = 33   # shared-memory words per word index: 32 instances and a pad word (transposed stores hit distinct banks)


@dataclass(frozen=True)
class OwnerPlan:
    """An instance's low half as L blocks of Q words (a_i, b_j the operands' blocks). Block k of the product
    gathers the block products a_i b_j with i + j = k (their low Q words; k < L - 1 also their high Q words go
    to block k + 1), so block k costs k + 1 products and the triangle is unbalanced. h = L/2 warps share it,
    each lane of a warp one of 32 instances: warp w sums block w, then block L - 2 - w (k + 1 + L - 1 - k = L
    products for every warp but the last); warp h - 1 sums block h - 1 (h products) and block L - 1, of which
    only the low halves matter (L products of about half the multiply-adds). A warp sums its block's products
    into a window of 2Q + 1 words, the partial P_k (for block L - 1: Q words, mod B^Q). The join makes result
    block k = P_k[0, Q) + P_(k-1)[Q, 2Q) + P_(k-2)[2Q] + the carry from below: the three terms give a carry out
    c_k <= 2, and with the margin m_k (B^Q - S_k when that is at most 3, else 4) the carry into block k + 1 is
    c_k + (carry into k >= m_k), at most 3, found by one pass over the lower blocks' (c, m) codes."""

    lanes: int
    q: int

    @property
    def warps(self) -> int:
        return self.lanes // 2

    @property
    def window(self) -> int:
        return 2 * self.q + 1

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
    def group_words(self) -> int:
        return self.part_words + 2 * self.operand_words + self.codes_words


def owner_plan(lanes: int, q: int) -> OwnerPlan:
    return OwnerPlan(lanes, q)
