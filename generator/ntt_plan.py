"""The layout of one NTT kernel, derived from its variant: passes, threads, constants and the final summation."""

from . import ntt
from .variant import Variant

# Registers per thread the compiler is asked to stay within (through the blocks per SM it must fit): left
# alone it keeps every twiddle of a pass live and used 100-240 registers, capping occupancy at 8-16 warps.
# H200: with the cap, blocks of 128-512 threads ran 3-17% faster (65536 and 131072 bits most); 64-thread
# blocks, of which 10 fit an SM uncapped, ran 2-5% slower, so they are left uncapped.
REGISTER_CAP = 80
CAP_FROM_BLOCK = 128
REGISTERS_PER_SM = 65536
SHARED_PER_SM = 228 * 1024

# Twiddle tables (runtime/ntt_tables.c) hold transforms up to this many points; a kernel indexes them with
# this stride, and the registry states it, so the two agree by construction.
TABLE_LENGTH = 1 << 14


def log2(x: int) -> int:
    return x.bit_length() - 1


def result_words(v: Variant) -> int:
    return 2 * v.words if v.op == "mul" else v.words


def words_per_thread(v: Variant) -> int:
    """Result words each thread sums in the final phase."""
    return -(-result_words(v) // v.threads_per_instance)


def passes(length: int, radix: int) -> list[tuple[int, int]]:
    """Forward passes as (radix K, stride s): full radix-R passes over the high bits, the remainder last;
    the first pass has stride L / R, the last stride 1."""
    n, r = log2(length), log2(radix)
    ks = [1 << r] * (n // r) + ([1 << (n % r)] if n % r else [])
    out, s = [], length
    for k in ks:
        s //= k
        out.append((k, s))
    return out


def padded(words: int) -> int:
    return words + words // 32


def shared_words(v: Variant) -> int:
    """Three padded arrays of L words per instance, two spill words per thread."""
    length = ntt.transform_length(v.bits, v.ntt[1])
    return v.ipb * 3 * padded(length) + 2 * v.block


def sum_terms(rw: int, cpt: int, digit_bits: int, value_words: int) -> list[list[str]]:
    """For each word w of a thread's RW + 2 word sum: the 32-bit terms (C expressions over vw[coefficient][word])
    that land in it. Coefficient j sits at bit j * b; a word of its value that starts mid-word is split."""
    terms = [[] for _ in range(rw + 2)]
    for j in range(cpt):
        for ww in range(value_words):
            bit = j * digit_bits + 32 * ww
            idx, shift = divmod(bit, 32)
            if shift == 0:
                terms[idx].append(f"vw[{j}][{ww}]")
            else:
                terms[idx].append(f"(u32)(vw[{j}][{ww}] << {shift})")
                terms[idx + 1].append(f"(vw[{j}][{ww}] >> {32 - shift})")
    return terms


def resident_blocks(v: Variant, words: int | None = None) -> int:
    """Blocks per SM to ask for: as many as REGISTER_CAP registers per thread allow, and shared memory too (`words`
    per block, this kernel's by default); 0 (no request) for blocks below CAP_FROM_BLOCK threads."""
    if v.block < CAP_FROM_BLOCK:
        return 0
    by_regs = REGISTERS_PER_SM // (REGISTER_CAP * v.block)
    by_shared = SHARED_PER_SM // (4 * (shared_words(v) if words is None else words) + 1024)
    return max(1, min(by_regs, by_shared))


def plan(v: Variant) -> dict:
    """Everything kernel_ntt.j2 needs beyond the variant."""
    set_id, digit_bits = v.ntt
    length = ntt.transform_length(v.bits, digit_bits)
    primes = ntt.prime_set(set_id)
    consts = ntt.kernel_constants(set_id, digit_bits, length)
    for c in consts:   # every prime has every key: the kernel selects constants by prime index at run time
        weights = c.pop("weights", [])
        for i in range(2):
            c[f"w{i}"], c[f"w{i}q"] = weights[i] if i < len(weights) else (0, 0)
        c.setdefault("garner_inv", 0)
        c.setdefault("garner_inv_q", 0)
    ti = v.threads_per_instance
    # coefficients the result needs (the low half's for mullo): a thread's elements k + i TI with i >= NEED are
    # never used, so their recombination is skipped and the compiler drops the work that only feeds them
    need = min(v.q, -(-result_words(v) * 32 // digit_bits // ti))
    rw = words_per_thread(v)
    cpt = rw * 32 // digit_bits
    # words of a coefficient: below m (2^b - 1)^2 by the bound (a third CRT word, when there is one, is zero)
    m = ntt.digits_per_operand(v.bits, digit_bits)
    nv = min(len(primes), -(-(m * ((1 << digit_bits) - 1) ** 2).bit_length() // 32))
    return dict(
        L=length, LP=padded(length), R=v.q, TI=ti, NEED=need, RESIDENT=resident_blocks(v), NP=len(primes), DB=digit_bits, TL=TABLE_LENGTH,
        passes=passes(length, v.q), consts=consts, p12=primes[0].p * primes[1].p, RW=rw, CPT=cpt, NV=nv,
        guard=cpt * ti > length, sum_terms=sum_terms(rw, cpt, digit_bits, nv),
        bound=ntt.describe(set_id, digit_bits, v.bits),
    )
