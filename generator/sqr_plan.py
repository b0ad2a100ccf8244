"""The full square a^2 (op "sqr"): its blocks, the chains of its cross products and diagonal, the owner and one-thread
schedules and the join, as data for templates/kernel_sqr_owner.j2 and kernel_sqr_thread.j2, and their families.

With a = sum_i A_i B^i (L blocks A_i of Q words, B = 2^(32 Q)),

    a^2 = sum_k B^k (2 T_k + D_k),   T_k = sum_{i < j, i + j = k} A_i A_j  (+ tri(A_m) when k = 2m),
                                      D_k = sq(A_m) when k = 2m, else 0,

where tri(A) = sum_{s < t} a_s a_t 2^(32 (s + t)) is a block's own cross products and sq(A) = sum_s a_s^2 2^(64 s) its
word squares: every cross product a_u a_v (u < v) of the whole operand once, every word square once, n (n + 1) / 2
multiply-adds for n = L Q words where a full product does n^2. A block product A_i A_j is the lanes family's row chains
(generator/lanes_plan.py: sums E and O, one 64-bit multiply-add with carry per word product); tri(A) the tails of the
same rows (only a_j a_t with j > t), summed in one E/O pair too, so its products are aligned register pairs as well.

Two schedules (tests/test_sqr_plan.py runs both word by word against Python's a * a; change them together with the
templates):
- owner (`sqr_..._oL`, SqrOwnerPlan): lane i of each of h = L/2 warps serves instance i of a group of 32; warp w owns
  four result blocks whose block products total about L (the same work as every other warp), sums each block k into a
  window of 2Q + 1 words (T_k doubled in place, then D_k), and the windows are joined as the balanced low half joins
  its own (generator/owner_plan.py): P_k[0, Q) + P_(k-1)[Q, 2Q) + P_(k-2)[2Q] plus a carry from (carry, margin) codes.
- one thread (`sqr_..._t1`, SqrThreadPlan): the blocks k = 0 .. 2L - 1 in order in one thread, T in one window that
  slides a block at a time (no join: a block is final once the products of the blocks below it are in), each finished
  block doubled on its way out (the top bit of the block below shifted in) with D_k and a carry of at most 1 added,
  and stored through the warp's transposition in shared memory (lib_thread_io.j2), coalesced.
Both issue n (n + 1) / 2 IMAD.WIDE per square. For full batches the one thread won at every size on the H200 (no
barriers, no join, n + Q + 2 words of shared memory per instance against the owners' about 4n: 12-16 resident warps
per SM up to 4096 bits), 1.6-1.9x mul from 2048 bits and 94-97% of the copy rate at 512-1024; the owners win
mid-size batches at 4096-8192 bits, where 32 instances a warp leave too few warps (the numbers: the families below).
"""

from dataclasses import dataclass
from functools import lru_cache

from .lanes_plan import Chain, lanes_chains, row_chains
from .owner_plan import PAD, WarpGroup

WARP = 32
MASK = (1 << 32) - 1


# ---- the chains ----
def _tail(chain: Chain, t: int):
    """chain without the products of x words j <= t (None when nothing is left); its carry target stays: the run of
    what is left ends where the full row's ends, so the target is still never inside an earlier row's run."""
    ops = tuple(op for op in chain.ops if op[2] > t)
    return Chain(chain.sums, ops, chain.carry_to) if ops else None


@lru_cache(maxsize=None)
def triangle_rows(q: int) -> tuple:
    """The chains of tri(A) for a block of q words, one row per word t < q - 1 (its b word is the block's own word
    a_t): a_j a_t for j > t at word t + j of fresh sums E and O, as lanes_plan.row_chains lays them out (each product
    an aligned register pair, one gap-free run per array and row)."""
    return tuple(tuple(c for c in (_tail(ch, t) for ch in row_chains(q, t, False)) if c is not None)
                 for t in range(q - 1))


def product_rows(q: int) -> tuple:
    """The chains of a block product A_i A_j (rows t = 0 .. q - 1, b word the word t of A_j)."""
    return tuple(lanes_chains(q, False))


# ---- the blocks of the square ----
@dataclass(frozen=True)
class SquareBlocks:
    """a as `lanes` blocks of q words: the result's 2L blocks, block k gathering T_k's products and D_k."""

    lanes: int
    q: int

    @property
    def words(self) -> int:
        return self.lanes * self.q

    @property
    def product_blocks(self) -> int:
        """Blocks k with products: 0 .. 2L - 2 (block 2L - 1 only receives the high words of block 2L - 2)."""
        return 2 * self.lanes - 1

    @property
    def result_blocks(self) -> int:
        return 2 * self.lanes

    def pairs(self, k: int) -> tuple:
        """The block products (i, j) of block k: i < j, i + j = k, both below L; i ascending (the template's loop
        order: the last pair of an odd k has i = (k - 1) / 2, the block whose word squares D_k needs)."""
        return tuple((i, k - i) for i in range(max(0, k - self.lanes + 1), self.lanes) if 2 * i < k)

    def diagonal(self, k: int):
        """m with 2m = k (block k holds tri(A_m) and sq(A_m)'s low half; k + 1 the high half), or None."""
        return k // 2 if k % 2 == 0 and k < self.product_blocks else None

    def block_work(self, k: int) -> int:
        """Multiply-adds (IMAD.WIDE) of block k: Q^2 per block product, Q (Q - 1) / 2 for tri, Q for sq."""
        q = self.q
        return len(self.pairs(k)) * q * q + (q * (q + 1) // 2 if self.diagonal(k) is not None else 0)

    @property
    def word_products(self) -> int:
        """n (n + 1) / 2: every cross product once and every word square once."""
        return sum(self.block_work(k) for k in range(self.product_blocks))


# ---- the owner schedule ----
@dataclass(frozen=True)
class SqrOwnerPlan(SquareBlocks, WarpGroup):
    """The owner schedule (kernel_sqr_owner.j2). Block k costs (k + 1) / 2 block products below the middle and as
    much mirrored above it (k and 2L - 2 - k alike), so pairs of blocks balance: {j, L - 2 - j} and its mirror
    {L + j, 2L - 2 - j} cost L/2 block products each (j < h - 1), as {h - 1, 3h - 1} and {L - 1}. Warp w < h - 1
    takes {w, L - 2 - w} and its mirror, warp h - 1 the two others, and the result block 2L - 1 (no products) to
    join: every warp L block products (a warp whose blocks are even has four diagonal blocks: 2Q multiply-adds more,
    their squares), four blocks each.

    Shared memory of a group (words, PAD per word index: 32 instances and a pad word, so that a warp's 32 lanes
    reading one word of their instances hit distinct banks): the windows of blocks 0 .. 2L - 2, 2Q + 1 words each,
    block k's at k (2Q + 1) PAD; a's L Q words are staged over the windows of the top h blocks (3h - 1 .. 4h - 2),
    which are each warp's last task: it keeps that window in registers until every warp is done with a, then
    stores it there. Then the codes of the 2L blocks. The results (2L Q words) go over the windows once every warp is
    done reading them."""

    def blocks_of(self, w: int) -> tuple:
        """Warp w's four blocks in the order it sums them: the first three stored at once, the fourth (one of the
        top h, over a) kept until the barrier. The last warp's third is block 2L - 1: no products, nothing stored."""
        L, h = self.lanes, self.warps
        if w == h - 1:
            return (h - 1, L - 1, 2 * L - 1, 3 * h - 1)
        return (w, L - 2 - w, L + w, 2 * L - 2 - w)

    def join_blocks(self, w: int) -> tuple:
        """The blocks warp w joins (its own, ascending: its carry pass visits the codes once)."""
        return tuple(sorted(self.blocks_of(w)))

    STORED_TASKS = 3      # tasks whose windows are stored as soon as they are summed; the fourth waits for a

    def task_blocks(self, t: int) -> tuple:
        """Task t's block for each warp (the template selects its own by the warp's index)."""
        return tuple(self.blocks_of(w)[t] for w in range(self.warps))

    def join_task_blocks(self, t: int) -> tuple:
        return tuple(self.join_blocks(w)[t] for w in range(self.warps))

    def work(self, w: int) -> int:
        return sum(self.block_work(k) for k in self.blocks_of(w) if k < self.product_blocks)

    # the layout, in words of shared memory of one group
    def window_at(self, k: int) -> int:
        return k * self.window * PAD

    @property
    def part_words(self) -> int:
        return self.product_blocks * self.window * PAD

    @property
    def a_at(self) -> int:
        return self.window_at(3 * self.warps - 1)

    @property
    def codes_at(self) -> int:
        return self.part_words

    @property
    def group_words(self) -> int:
        return self.part_words + self.result_blocks * PAD


def owner_plan(lanes: int, q: int) -> SqrOwnerPlan:
    return SqrOwnerPlan(lanes, q)


# ---- the one-thread schedule ----
# A word g of the warp's span of 32 instances of n words is in instance mulhi(g, m), m = 2^32 / n rounded up, exact for
# every g < 32 N and n <= N <= THREAD_MAX_WORDS (tests/test_sqr_plan.py checks every case): one multiplication where a
# division costs tens of instructions. lib_thread_io.j2's (g m) >> 16 is exact only up to 32 words.
THREAD_MAX_WORDS = 256


def divide_magic(n: int) -> int:
    """m for the staging's instance of a word: mulhi(g, m) = g / n for n >= 2 (n = 1: the word's index itself)."""
    return 0 if n < 2 else MASK // n + 1


@dataclass(frozen=True)
class SqrThreadPlan(SquareBlocks):
    """The one-thread schedule (kernel_sqr_thread.j2): blocks k = 0 .. 2L - 1 in order, each summing its pairs (i
    ascending) and its diagonal into the sliding window of T, then leaving doubled with D_k. The warp's region of a
    (instance i's word j at i (N + 1) + j, N = L Q: the odd stride keeps a lane's own rows and the staging's stores
    free of bank conflicts) holds a throughout; the results pass through a second region of Q + 1 words per instance
    (lib_thread_io.j2's store_transposed). `unroll`: the blocks and their pairs unrolled (small L: the window's moves
    become register renaming) or loops (larger L: the code of every block product once)."""

    UNROLL_MAX_LANES = 2

    @property
    def unroll(self) -> bool:
        return self.lanes <= self.UNROLL_MAX_LANES

    @property
    def a_stride(self) -> int:
        return self.words + 1

    @property
    def warp_words(self) -> int:
        return WARP * (self.words + 1) + WARP * (self.q + 1)

    STAGE_MAX_BATCH = 8

    @property
    def stage_batch(self) -> int:
        """16-byte units a lane has in flight while staging (their registers are free: nothing else is live yet): the
        largest divisor of the N/4 units per lane up to STAGE_MAX_BATCH, so that the batches end exactly at the warp's
        32 instances (a batch past them would load the next warp's instances into the region's neighbours)."""
        units = self.words // 4
        return max(d for d in range(1, self.STAGE_MAX_BATCH + 1) if units % d == 0)

    def square_half(self, k: int) -> int:
        """Which half of the block x holds when block k leaves (0: words 0 .. Q/2 - 1, 1: Q/2 .. Q - 1): D_k is the
        word squares of a_u for u in [k Q / 2, (k + 1) Q / 2), the half k & 1 of block k // 2."""
        return k & 1


def thread_plan(lanes: int, q: int) -> SqrThreadPlan:
    return SqrThreadPlan(lanes, q)


# ---- what the families (generator/space.py: SQR_OWNER, SQR_THREAD) are made of ----
# Measured on an H200 (2^27 words per operand unless a count is given, M squares/s; mul = the fastest full product,
# mul_2048 _w4, mul_4096 _w8, mul_8192 _w16_k1, measured in the same runs):
#   bits   one thread (t1, Q = 16)       owner (Q = 16, one group per block)   mul
#   512    20906 (97% of the copy rate)  -                                     19664
#   1024   10007 (94% of the copy rate)  o2: 6475                              5960
#   2048    2836 (1.75x mul)             o4: 2026                              1624
#   4096     778 (1.91x mul)             o8:  607                              407
#   8192     166 (1.61x mul, i64)        o16: 143                              102.6
# Small batches (the one thread has 32 instances per warp; the owners spread an instance over L/2 warps): at 4096 and
# 8192 bits the owners lead from about 4096 to 16384 instances (8192 bits, 4096 instances: o16 114.7, t1 32.2, mul
# 77.3; 16384: o16 128.1, t1 122.2), below 2048 bits never (2048 bits, 4096 instances: mul's w4 357, o8 322, t1 239;
# 16384: t1 923, o8 900, w4 835).
OWNER_QS = (8, 16)
THREAD_QS = (4, 8, 16, 32)
OWNER_MIN_BITS = 4096
SQR_BLOCK = 128              # threads per block of the one-thread family (the lanes families' LANES_BLOCK)
SM_SHARED_BYTES = 228 * 1024  # shared memory of an SM (H100, H200), of which each resident block also takes 1 KB
SM_REGISTERS = 65536
SM_MAX_BLOCKS = 32
REGISTER_OVERHEAD = 15        # addresses, counters, the doubling's bit and carry beside 7Q + 1 (ptxas: 128 at Q = 16)


def sqr_live_words(q: int) -> int:
    """Registers a thread keeps live while it sums: x (Q), E (2Q + 1), O (2Q - 1), the window W (2Q + 1)."""
    return 7 * q + 1


def owner_shared_words(v) -> int:
    return v.ipb // WARP * owner_plan(v.lanes, v.q).group_words


def thread_shared_words(v) -> int:
    return v.block // WARP * thread_plan(v.words // v.q, v.q).warp_words


def thread_resident_warps(v) -> int:
    """Warps of a one-thread variant an SM holds: its blocks by shared memory (each warp's regions of a and of the
    results), capped by registers."""
    per_block = 4 * (thread_shared_words(v) + WARP) + 1024
    blocks = min(SM_MAX_BLOCKS, SM_SHARED_BYTES // per_block)
    registers = min(255, sqr_live_words(v.q) + REGISTER_OVERHEAD)
    return min(blocks * v.block // WARP, SM_REGISTERS // (registers * WARP))


def thread_block_best(v) -> bool:
    """SQR_BLOCK threads per block, or half of it where that packs more resident warps (a large instance's region)."""
    from dataclasses import replace
    full, half = (thread_resident_warps(replace(v, ipb=b)) for b in (SQR_BLOCK, SQR_BLOCK // 2))
    return v.block == (SQR_BLOCK if full >= half else SQR_BLOCK // 2)


def owner_context(v) -> dict:
    return {"op": owner_plan(v.lanes, v.q), "rows": product_rows(v.q), "tri": triangle_rows(v.q)}


def thread_context(v) -> dict:
    return {"sp": thread_plan(v.words // v.q, v.q), "rows": product_rows(v.q), "tri": triangle_rows(v.q)}
