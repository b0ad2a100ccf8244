"""NTT number theory for the generator: prime search, roots of unity, prime sets, the exactness bound, constants."""

from dataclasses import dataclass
from functools import lru_cache

# Primes are below 2^30 so that lazy butterflies may hold values below 4p in a 32-bit word (Harvey's NTT),
# and their 2-adic order is at least 2^MIN_TWO_ADIC so that one prime serves transforms up to that length:
# 2^23 points, the multi-kernel NTT of operands up to 2^27 bits with 32-bit digits (2^22 digits, and a
# product of 2^23 - 1 coefficients). Three such primes have P ~ 2^89.35, so the bound m (2^32 - 1)^2 < P holds
# up to m = 2^25.3 digits: the 2-adic order, not the bound, is what stops the transform at 2^23 points.
PRIME_BITS = 30
MIN_TWO_ADIC = 23
WORD = 1 << 32

# Digit sizes that divide a 32-bit word (a digit never straddles two words).
DIGIT_BITS = (16, 32)
# Prime sets: set id -> how many primes; set k is the k largest primes the search finds.
PRIME_SET_SIZES = (2, 3)


def is_prime(n: int) -> bool:
    """Deterministic Miller-Rabin for n < 3.3e24 (the first 13 primes as bases are a proven witness set)."""
    if n < 2:
        return False
    bases = (2, 3, 5, 7, 11, 13, 17, 19, 23, 29, 31, 37, 41)
    for p in bases:
        if n % p == 0:
            return n == p
    d, s = n - 1, 0
    while d % 2 == 0:
        d //= 2
        s += 1
    for a in bases:
        x = pow(a, d, n)
        if x in (1, n - 1):
            continue
        for _ in range(s - 1):
            x = x * x % n
            if x == n - 1:
                break
        else:
            return False
    return True


def prime_factors(n: int) -> list[int]:
    """Distinct prime factors by trial division (n is p - 1 of a 30-bit prime: fast)."""
    out, f = [], 2
    while f * f <= n:
        if n % f == 0:
            out.append(f)
            while n % f == 0:
                n //= f
        f += 1
    if n > 1:
        out.append(n)
    return out


def primitive_root(p: int) -> int:
    """The smallest generator of the multiplicative group mod prime p."""
    factors = prime_factors(p - 1)
    for g in range(2, p):
        if all(pow(g, (p - 1) // q, p) != 1 for q in factors):
            return g
    raise ValueError(f"{p} has no primitive root: not prime")


def two_adic_order(p: int) -> int:
    """The largest e with 2^e dividing p - 1: transforms up to length 2^e exist mod p."""
    e, x = 0, p - 1
    while x % 2 == 0:
        x //= 2
        e += 1
    return e


@dataclass(frozen=True)
class NttPrime:
    p: int
    order: int      # 2-adic order e: p = k * 2^e + 1 with k odd
    g: int          # primitive root
    root: int       # a primitive 2^order-th root of unity, g^k

    def omega(self, length: int) -> int:
        """The primitive `length`-th root of unity used for a transform of that length (a power of two):
        a power of the same root for every length, so twiddles of shorter transforms are shared."""
        assert length & (length - 1) == 0 and length <= 1 << self.order
        return pow(self.root, (1 << self.order) // length, self.p)


@lru_cache(maxsize=None)
def find_primes(count: int, bits: int = PRIME_BITS, min_two_adic: int = MIN_TWO_ADIC) -> tuple[NttPrime, ...]:
    """The `count` largest primes p < 2^bits with 2^min_two_adic dividing p - 1, largest first."""
    step = 1 << min_two_adic
    out = []
    p = ((1 << bits) - 1) // step * step + 1
    while len(out) < count:
        if p < step:
            raise ValueError(f"fewer than {count} primes below 2^{bits} of 2-adic order {min_two_adic}")
        if p < 1 << bits and is_prime(p):
            g = primitive_root(p)
            e = two_adic_order(p)
            out.append(NttPrime(p=p, order=e, g=g, root=pow(g, (p - 1) >> e, p)))
        p -= step
    return tuple(out)


def prime_set(set_id: int) -> tuple[NttPrime, ...]:
    """Prime set `set_id`: the set_id largest primes."""
    return find_primes(set_id)


def product(ps) -> int:
    out = 1
    for q in ps:
        out *= q.p
    return out


def digits_per_operand(bits: int, digit_bits: int) -> int:
    return -(-bits // digit_bits)


def bound_holds(bits: int, set_id: int, digit_bits: int) -> bool:
    """Exactness: every convolution coefficient of two operands of `bits` bits is a sum of at most m products
    of two digits, so it is below m * (2^b - 1)^2; CRT recovers it when that is below P = prod(primes)."""
    m = digits_per_operand(bits, digit_bits)
    return m * ((1 << digit_bits) - 1) ** 2 < product(prime_set(set_id))


def transform_length(bits: int, digit_bits: int) -> int:
    """A cyclic convolution of length L >= 2m - 1 has no wrap-around, for the full product and the low half
    alike (a wrapped coefficient lands at position 0)."""
    m = digits_per_operand(bits, digit_bits)
    return 1 << max(1, (2 * m - 2).bit_length())   # the next power of two >= 2m - 1


def shoup(w: int, p: int) -> int:
    """Shoup's precomputed quotient floor(w * 2^32 / p) for multiplying by the constant w mod p."""
    return w * WORD // p


def kernel_constants(set_id: int, digit_bits: int, length: int) -> list[dict]:
    """Per prime of the set: the constants a kernel of this transform length is compiled with.
    Garner's mixed radix: x = v1 + p1 v2 + p1 p2 v3 with v_i < p_i, from residues c_i:
      v1 = c1, v2 = (c2 - v1) / p1 mod p2, v3 = (c3 - v1 - p1 v2) / (p1 p2) mod p3.
    The inverse transform's 1/L and the Montgomery factor 2^-32 of the pointwise product are folded into
    the scale s_i applied to each residue first: c_i = y_i * s_i."""
    ps = prime_set(set_id)
    out = []
    for i, q in enumerate(ps):
        p = q.p
        scale = pow(length, -1, p) * WORD % p
        before = product(ps[:i])
        c = dict(p=p, two_p=2 * p, pinv_neg=(-pow(p, -1, WORD)) % WORD, scale=scale, scale_q=shoup(scale, p),
                 floor_inv=WORD // p)
        if i > 0:
            inv = pow(before % p, -1, p)
            # v_i = (c_i - v1 - p1 v2 - ...) * inv mod p: the earlier mixed-radix digits times their weights
            c["garner_inv"], c["garner_inv_q"] = inv, shoup(inv, p)
            c["weights"] = []
            w = 1
            for prev in ps[:i]:
                c["weights"].append((w % p, shoup(w % p, p)))
                w *= prev.p
        out.append(c)
    return out


def describe(set_id: int, digit_bits: int, bits: int) -> str:
    """The bound as a sentence with its exact numbers, for the generated kernel's header comment."""
    ps = prime_set(set_id)
    m = digits_per_operand(bits, digit_bits)
    lhs = m * ((1 << digit_bits) - 1) ** 2
    assert lhs < product(ps)
    return (f"primes {', '.join(f'{q.p} = {(q.p - 1) >> q.order} * 2^{q.order} + 1' for q in ps)}; "
            f"m = {m} digits of {digit_bits} bits; every coefficient is at most m (2^{digit_bits} - 1)^2 = {lhs} "
            f"< P = {product(ps)} (checked by the generator)")
