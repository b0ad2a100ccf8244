"""The grid families, whose instance spreads over many blocks and several kernels: their kernels and geometry as data.

Add/sub: a tile kernel adds each tile of `block` x Q words with carry-in 0 and records the tile's carry state
(generates / propagates); a fix-up kernel finds each tile's carry-in from the states before it and ripples it in.
NTT multiplication (a four-step transform of L = L1 x L2 points, docs/ntt.md): column kernels transform the L1
strided columns of L2 points and multiply by the twiddles w_L^(i1 k2), row kernels transform the L2 contiguous
rows of L1 points of both operands, multiply them pointwise and transform back, inverse column kernels undo the
columns, a CRT kernel recombines the primes' residues into result words tile by tile, and the fix-up kernel
carries between tiles. Additions-only expressions (expr_NAME, a linear combination per output): a tile kernel sums
each tile of every output with carry-in 0 and records the tile's (carry, margin) function per output; the same
fix-up kernel, in its "linear" mode, scans those functions and adds each tile's carry-in. The kernels do not depend on the variant's size: one set serves every size up to it, and
variants of several sizes share it (an "engine").
"""

from dataclasses import dataclass, replace

from . import expr_plan, ntt, ntt_plan, ops
from .variant import Variant

WARP = 32


@dataclass(frozen=True)
class GridKernel:
    role: str            # the runtime's midint_role: tile, fixup, cols, cols_inv, cols_wrap, rows, crt
    log_length: int      # NTT pass kernels: log2 of their sub-transform length; 0 otherwise
    template: str
    block: int           # threads per block
    shared_words: int    # dynamic shared words per block, before the OpenCL shuffle scratch
    span: int            # columns per block (cols), rows per block (rows), words per tile (tile, crt, fixup)
    scans: bool          # uses the block carry scan (so needs the OpenCL shuffle scratch)
    outputs: int = 0     # rows_mac: outputs of a product of pieces each block sums and transforms back; 0 otherwise

    @property
    def row_buffers(self) -> int:
        """Shared row buffers per row of a row kernel: two (X, Y), or one per output where rows_mac makes more."""
        return max(2, self.outputs)

    def name(self, engine: str) -> str:
        return f"{engine}_{self.role}{1 << self.log_length if self.log_length else ''}"


# ---- NTT grid: lengths, twiddle tables, geometry ----
LOG_MAX = ntt.MIN_TWO_ADIC   # 2^23 points at most: the primes' 2-adic order
LOG_MIN = 12                 # shorter transforms are zero-padded to 2^12 points (rows and columns of 2^6 or more)
ROW_LOGS = tuple(range(6, 13))    # contiguous sub-transforms: 2^6 .. 2^12 points
COL_LOGS = tuple(range(6, 12))    # strided sub-transforms: 2^6 .. 2^11 points
BLOCK_ELEMENTS = 4096        # points per block of a row or column kernel (four 16-point registers x 256 threads)
# A column block reads and writes rows of at least 32 bytes, a whole sector of the memory system. With 4 columns (16
# bytes) an H200 ran a 2^29-bit product in 4.74-4.77 ms, with 8 in 4.12 (2^26 bits 0.440 -> 0.389 ms): the column
# passes are bound by their global accesses' issue and latency, and a 16-byte row is half a sector ...
MIN_COLUMNS = 8
# ... unless that passes the backend's work-items per group: OpenCL devices may allow fewer than the API's maximum
# for a kernel (NVIDIA's OpenCL allowed 256 for the 2048-point column pass's 512, its registers; AMD and Intel GPUs
# cap groups at 256 too), and a grid engine runs only if every kernel of it fits, so there the 2048-point columns
# go two to a block (8-byte rows) and every grid kernel has at most 256 work-items
MAX_GROUP_ITEMS = {"cuda": 1024, "opencl": 256}
CRT_WORDS = 8                # result words a CRT thread sums (RW)
# Outputs of a product of pieces one rows_mac block makes (docs/ntt.md "Pieces"), each in a row buffer of shared
# memory: a piece's row is read once per block instead of once per output it enters (at 4 pieces, 20 planes read
# for 7 outputs instead of 32). Two fit the buffers every row kernel has (NVIDIA's OpenCL allows 48 KB); on an H200
# CUDA with 4 read 14 planes but ran slower than with 2 (fewer blocks per SM; the kernel is bound by its arithmetic).
MAC_OUTPUTS = {"cuda": 2, "opencl": 2}
# registers per thread each NTT role is held to (0: the compiler's choice); uncapped, the column kernels used up
# to 95 and the row kernels 80 (256 points) to 128 (4096)
REGISTER_CAPS = {"cols": 64, "cols_inv": 64, "cols_wrap": 64, "rows": 64, "rows_fwd": 64, "rows_mac": 64}
DIGIT_BITS = 32
PRIME_SET = 3

# Twiddles between the passes, w_L^e = w^(e 2^(23 - log L)) for the primitive 2^23-th root w, come from two small
# tables in Montgomery form, lo[j] = w^j (j < 2^LO_BITS) and hi[j] = w^(j 2^LO_BITS): a column kernel makes two
# roots per group of points from them (one Montgomery product each) and the rest by a chain of products
# (kernel_ntt_cols.j2). They, and the scale 2^32 / L mod p per log L, follow the one-block tables in the
# runtime's table buffer (runtime/ntt_tables.c); offsets in (value, quotient) pairs (the twiddles' quotient
# words are unused).
LO_BITS = 12
HI_BITS = LOG_MAX - LO_BITS
SCALES = 32                  # one scale per log2 L < 32
GRID_TABLE_BASE = 2 * PRIME_SET * ntt_plan.TABLE_LENGTH
GRID_TABLE_SECTIONS = (("fwd_lo", 1 << LO_BITS), ("fwd_hi", 1 << HI_BITS), ("inv_lo", 1 << LO_BITS),
                       ("inv_hi", 1 << HI_BITS), ("scale", SCALES))
GRID_TABLE_STRIDE = sum(size for _, size in GRID_TABLE_SECTIONS)


def grid_table_offsets() -> dict:
    """Section -> offset (pairs) within one prime's grid tables."""
    out, off = {}, 0
    for name, size in GRID_TABLE_SECTIONS:
        out[name] = off
        off += size
    return out


def split(log_l: int) -> tuple[int, int]:
    """(log2 L1, log2 L2): rows of L1 contiguous points, columns of L2; rows are the longer."""
    return (log_l + 1) // 2, log_l // 2


def log_length(bits: int) -> int:
    """log2 of the transform length for operands of `bits` bits (32-bit digits), at least LOG_MIN."""
    return max(LOG_MIN, ntt.transform_length(bits, DIGIT_BITS).bit_length() - 1)


def column_stride(s: int, columns: int) -> int:
    """Shared words between two columns: at least the padded column, and = 32/W (mod 32) so that a warp's
    accesses to W neighbouring columns (32/W rows each) fall in different banks (odd for W >= 32)."""
    want = max(1, WARP // columns) % WARP if columns < WARP else 1
    cs = ntt_plan.padded(1 << s)
    while cs % WARP != want and not (columns >= WARP and cs % 2 == 1):
        cs += 1
    return cs


# The column passes: forward with operands filling at most half the transform (cols: the products), inverse
# (cols_inv), and forward over whole columns (cols_wrap: the wrapped products of runtime/wrap_product.c, whose first
# operand fills the transform, so that the product wraps around modulo B^L - 1).
COL_ROLES = ("cols", "cols_inv", "cols_wrap")


def col_kernel(s: int, r: int, role: str, max_items: int) -> GridKernel:
    columns = max(MIN_COLUMNS, BLOCK_ELEMENTS >> s)
    while columns > 1 and columns * ((1 << s) // r) > max_items:
        columns //= 2
    threads = columns * ((1 << s) // r)
    return GridKernel(role, s, "kernel_ntt_cols.j2", threads, columns * column_stride(s, columns), columns, False)


def row_kernel(s: int, r: int, role: str, backend: str) -> GridKernel:
    """The row pass of one product (rows), or for products of pieces (docs/ntt.md "Pieces") its forward half
    (rows_fwd) and its sums of products with the inverse (rows_mac): each a kernel of its own, so that each keeps its
    registers (modes in one kernel cost 3-6% at 2^20-2^27 bits, and spilled). Two row buffers per row, or one per
    output where rows_mac makes more."""
    rows = max(1, BLOCK_ELEMENTS >> s)
    k = GridKernel(role, s, "kernel_ntt_rows.j2" if role == "rows" else "kernel_ntt_rows_pieces.j2",
                   rows * ((1 << s) // r), 0, rows, False, MAC_OUTPUTS[backend] if role == "rows_mac" else 0)
    return replace(k, shared_words=rows * k.row_buffers * ntt_plan.padded(1 << s))


def crt_kernel(block: int, pieces: bool = False) -> GridKernel:
    tile = block * CRT_WORDS
    # the coefficients' three words for the tile and the chunk below it, two spill words per thread and the one
    # below, 32 scan words
    words = 3 * ntt_plan.padded(tile + CRT_WORDS) + 2 * (block + 1) + WARP
    return GridKernel("crt_pieces" if pieces else "crt", 0, "kernel_ntt_crt.j2", block, words, tile, True)


def fixup_kernel(block: int, tile_words: int) -> GridKernel:
    """One thread per tile of `tile_words` words (the tile kernel's), `block` tiles per block."""
    return GridKernel("fixup", 0, "kernel_carry_fixup.j2", block, WARP + 2, tile_words, True)


def tile_kernel(block: int, q: int) -> GridKernel:
    tile = block * q
    return GridKernel("tile", 0, "kernel_addsub_tile.j2", block, 2 * ntt_plan.padded(tile) + WARP, tile, True)


def expr_tile_kernel(v: Variant) -> GridKernel:
    """Additions-only expressions: a tile of block x Q words of every output per block (role expr: it takes the
    expression's buffers io0..io7); its states, one per output, for the fix-up."""
    tp = expr_plan.tile_plan(v.op, v.grid, v.chunk_words)
    words = tp.words if tp else 2 * WARP   # not additions alone: refused by expr_grid_linear, sized here all the same
    return GridKernel("expr", 0, "kernel_expr_tile.j2", v.grid, words, v.grid * v.chunk_words, True)


# The tile kernel's registers per thread (CUDA), where its live words allow, so that 4 blocks of 256 threads or 2 of 512
# share an SM (one block per SM, as the one-block kernel at 262144 bits, leaves no block's loads overlapping another's
# sums). ptxas (sm_90) gives six's tile kernel 53 registers, no spills; at 512 threads a version that kept 78 would
# have run one block per SM.
TILE_REGISTER_CAP = 64
TILE_CAP_WORDS = 48          # live words a thread holds (inputs read + summed outputs, x Q) that fit under the cap


def tile_resident(v: Variant, tp) -> int:
    """Blocks per SM the tile kernel asks the compiler to fit (KERNEL_RESIDENT), 0 for its own choice."""
    live = (len(tp.inputs) + len(tp.linear)) * v.chunk_words
    return ntt_plan.REGISTERS_PER_SM // (TILE_REGISTER_CAP * v.grid) if live <= TILE_CAP_WORDS else 0


def map_kernel(block: int, q: int) -> GridKernel:
    """Word-wise operations (the map family): Q words per thread of the batch's flat array, no shared memory."""
    return GridKernel("map", 0, "kernel_map.j2", block, 0, block * q, False)


def is_expr(v: Variant) -> bool:
    return v.op.startswith("expr_")


def is_map(v: Variant) -> bool:
    """A word-wise operation (its row gives the word, or it is a shift): the map family's."""
    return v.op in ops.BY_NAME and "map" in ops.BY_NAME[v.op].families


def plan_kind(v: Variant) -> str:
    """The runtime's midint_plan_kind of a grid variant (lower case)."""
    return "ntt_grid" if v.ntt else "expr_grid" if is_expr(v) else "map" if is_map(v) else "addsub_grid"


def kernels(v: Variant) -> list[GridKernel]:
    """The kernels of v's engine, in a fixed order."""
    if is_map(v):
        return [map_kernel(v.grid, v.q)]
    if is_expr(v):
        return [expr_tile_kernel(v), fixup_kernel(v.grid, v.grid * v.chunk_words)]
    if v.ntt is None:
        return [tile_kernel(v.grid, v.q), fixup_kernel(v.grid, v.grid * v.q)]
    out = [row_kernel(s, v.q, role, v.backend) for role in ("rows", "rows_fwd", "rows_mac") for s in ROW_LOGS]
    out += [col_kernel(s, v.q, role, MAX_GROUP_ITEMS[v.backend]) for role in COL_ROLES for s in COL_LOGS]
    return out + [crt_kernel(v.grid, pieces) for pieces in (False, True)] + [fixup_kernel(v.grid, v.grid * CRT_WORDS)]


def engine(v: Variant) -> str:
    """The name of v's engine: the fields its kernels depend on (not the size). mul and mullo share one."""
    kind = "ntt" if v.ntt is not None else v.op
    nt = f"_p{v.ntt[0]}b{v.ntt[1]}" if v.ntt else ""
    return f"{kind}_{'map' if is_map(v) else 'grid'}_{v.limb}_q{v.q}{nt}_g{v.grid}_{v.backend}"


def shared_bytes(k: GridKernel, backend: str) -> int:
    """Dynamic local memory of one block of kernel k (OpenCL emulates warp shuffles in one word per thread)."""
    return 4 * (k.shared_words + (k.block if backend == "opencl" and k.scans else 0))


def crt_context(v: Variant) -> dict:
    """What kernel_ntt_crt.j2 needs: the prime set's constants and the chunk sum's layout."""
    primes = ntt.prime_set(PRIME_SET)
    consts = ntt.kernel_constants(PRIME_SET, DIGIT_BITS, 1 << LOG_MAX)
    nv = 3   # a coefficient is below m (2^32 - 1)^2 < 2^86 for m <= 2^22 digits: three words
    return dict(RW=CRT_WORDS, CPT=CRT_WORDS, NV=nv, consts=consts, p12=primes[0].p * primes[1].p,
                sum_terms=ntt_plan.sum_terms(CRT_WORDS, CRT_WORDS, DIGIT_BITS, nv))


def render_context(v: Variant, k: GridKernel) -> dict:
    """Everything a grid kernel's template needs beyond the variant and the kernel."""
    ctx = dict(k=k, R=v.q, Q=v.q, mode=v.op, TL=ntt_plan.TABLE_LENGTH, LOG_MAX=LOG_MAX, LO_BITS=LO_BITS,
               GRID_BASE=GRID_TABLE_BASE, GRID_STRIDE=GRID_TABLE_STRIDE, grid_off=grid_table_offsets())
    if is_map(v):   # the row's word expression (None for the shifts, which the template spells)
        ctx["word"] = ops.BY_NAME[v.op].word
    if is_expr(v):   # additions only: the tiles' sums, and the fix-up of their (carry, margin) functions
        tp = expr_plan.tile_plan(v.op, v.grid, v.chunk_words)
        ctx.update(mode="linear", prog=expr_plan.program(v.op), tp=tp, lin_id=expr_plan.ID, RESIDENT=tile_resident(v, tp),
                   pairs=[(f"io{j} + off", f"s{slot}") for slot, (j, _i) in enumerate(tp.inputs)])
    if v.ntt is not None:
        ctx["primes"] = [q.p for q in ntt.prime_set(PRIME_SET)]
        ctx["pconsts"] = ntt.kernel_constants(PRIME_SET, DIGIT_BITS, 1 << LOG_MAX)
        if k.log_length:
            cap = REGISTER_CAPS.get(k.role, 0)
            ctx["RESIDENT"] = ntt_plan.REGISTERS_PER_SM // (cap * k.block) if cap else 0
            ctx["S"] = 1 << k.log_length
            ctx["TI"] = ctx["S"] // v.q
            ctx["passes"] = ntt_plan.passes(ctx["S"], v.q)
            if k.role.startswith("cols"):
                ctx["CS"] = column_stride(k.log_length, k.span)
        if k.role == "fixup":   # the product's carries are added
            ctx.update(mode="add")
        if k.role.startswith("crt"):
            ctx["nt"] = crt_context(v)
            ctx["bound"] = ntt.describe(PRIME_SET, DIGIT_BITS, 1 << (LOG_MAX + 4))
    return ctx
