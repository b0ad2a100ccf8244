"""Register-resident multiplication: the multiply-add chains of one lane's rows, as data for kernel_mul_lanes.j2."""

from dataclasses import dataclass


@dataclass(frozen=True)
class Chain:
    """One carry chain of a row: `ops` are (index into the sum array, "lo" or "hi", index of the a word), added
    in order with the carry flag running through; the carry out is added into `carry_to` (None: dropped, as
    where a truncated product stops)."""

    sums: str                 # "E" (low word at an even word of the window) or "O" (at an odd word)
    ops: tuple
    carry_to: int | None


def row_chains(q: int, t: int, truncate: bool) -> tuple:
    """The chains that add a * b_t (a: the lane's q words, b_t: one word) at word t of the lane's window.
    a_j b_t's low word lands at word t + j and its high word at t + j + 1. Products whose low word lands at an
    even word go to E (E[i] holds word i), the others to O (O[i] holds word i + 1): in both arrays every
    product then fills an aligned pair of registers, which the compiler turns into one 64-bit multiply-add
    with carry (IMAD.WIDE.U32.X on sm_90) and no moves; each array takes one gap-free run of words per row,
    one chain. The word a chain's carry goes into was at most a carry target before (a small value), never
    inside an earlier run, so it cannot overflow. `truncate` keeps only words below q (the low half of a
    one-lane product)."""
    chains = []
    for sums, offset in (("E", 0), ("O", 1)):
        ops = []
        first = (t + offset) % 2      # a words j with t + j even (E) or odd (O)
        for j in range(first, q, 2):
            for half, pos in (("lo", t + j), ("hi", t + j + 1)):
                if not truncate or pos < q:
                    ops.append((pos - offset, half, j))
        top = t + (q - 2 + first) + 2 - offset   # the index past the run
        carry = None if truncate and top + offset >= q else top
        if ops:
            chains.append(Chain(sums, tuple(ops), carry))
    return tuple(chains)


def lanes_chains(q: int, truncate: bool) -> list:
    """The chains of each row t = 0 .. q-1 of a step."""
    return [row_chains(q, t, truncate) for t in range(q)]


@dataclass(frozen=True)
class KaratsubaPlan:
    """One Karatsuba level over the pipeline (`_k1` variants, templates/kernel_mul_lanes_k.j2), for L lanes of Q
    words: a = a0 + B a1, b = b0 + B b1 with B = 2^(32 m), m = (L/2) Q words, the halves on the two groups of
    h = L/2 lanes. Each group runs two pipelines of h lanes: a0 b0 (group 0) or a1 b1 (group 1), then half of the
    middle product |a0 - a1| |b0 - b1| (group g takes |b0 - b1|'s blocks g h/2 .. g h/2 + h/2 - 1), so both do
    3h/2 product steps where the plain pipeline does 2h. The emitted blocks go to shared memory: U = a0 b0 | a1 b1
    (4m words), MA = the middle's low part (blocks 0 .. at most 3h/2 - 1), MB = its high part (from block h/2),
    XORed with the mask of tau (1: the signs of a0 - a1 and b0 - b1 agree, so the middle is subtracted). The join
    gives lane l the result words l C .. l C + C - 1 (C = 2Q for mul, Q for mullo) and sums
        U[w] + (w in [m, 3m) or [m, 2m) for mullo) (U[w - m] + U[w + m] + MA[w - m] + MB[w - m]) + tau K[w],
    where the words MA and MB lack read as the mask and K holds the constants of the two's complements: -X over
    the 2m words of MA (or MB) is ~X + 1 - B^2, so K is 2 at word m and, for mul, B^3 (B - 2) mod B^4 above
    (mullo: the B^2 terms fall beyond the low half)."""

    lanes: int
    q: int
    full: bool

    @property
    def half(self) -> int:
        return self.lanes // 2

    @property
    def half_words(self) -> int:
        return self.half * self.q

    @property
    def chunk(self) -> int:
        """Result words each lane sums in the join."""
        return 2 * self.q if self.full else self.q

    @property
    def p_steps(self) -> int:
        """Steps of the half products (h with products, h draining): a0 b0 is needed whole also for mullo."""
        return 2 * self.half

    @property
    def m_steps(self) -> int:
        """Steps of the middle pipelines (h/2 with products): mul needs their 3h/2 blocks, mullo only those below
        block h of the middle (group 0: h, group 1, whose blocks start at h/2: h/2)."""
        return 3 * self.half // 2 if self.full else self.half

    @property
    def m_store(self) -> tuple:
        """Blocks each group's middle pipeline stores."""
        return (self.m_steps, self.m_steps) if self.full else (self.half, self.half // 2)

    @property
    def middle_from(self) -> int:
        return self.half_words

    @property
    def middle_to(self) -> int:
        return (3 if self.full else 2) * self.half_words

    @property
    def result_words(self) -> int:
        return (4 if self.full else 2) * self.half_words

    def constant(self, w: int) -> int:
        """Word w of K (added when tau is 1)."""
        m = self.half_words
        if w == m:
            return 2
        if self.full and w == 3 * m:
            return 0xFFFFFFFE
        if self.full and w > 3 * m:
            return 0xFFFFFFFF
        return 0


def karatsuba_plan(lanes: int, q: int, full: bool) -> KaratsubaPlan:
    return KaratsubaPlan(lanes, q, full)


def segment_masks(seg: int) -> tuple:
    """(top, first): the bits of a warp's lanes that are the last, and the first, of a segment of `seg` lanes."""
    top = sum(1 << i for i in range(seg - 1, 32, seg))
    first = sum(1 << i for i in range(0, 32, seg))
    return top, first
