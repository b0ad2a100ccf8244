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
