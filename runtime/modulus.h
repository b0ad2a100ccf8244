/* modulus.h — internal: the midint_modulus object (a modulus shared by a batch) and the words its kernels read. */
#ifndef MIDINT_MODULUS_H
#define MIDINT_MODULUS_H

#include "context.h"

/* The device words of a modulus of n = bits/32 words, in this order (templates/kernel_mod_shared.j2 reads them through
 * the slot its row names): m (n words), R mod m (n), R^2 mod m (n) for R = 2^bits, Barrett's mu = floor(R^2 / m)
 * (n + 1 words; 0 where it does not fit them), -m^-1 mod 2^32 (0 for even m), 1 for odd m else 0, 1 where Barrett's
 * reduction applies (m's top word nonzero and mu within n + 1 words) else 0; then for Barrett's reduction in radix
 * 2^52 (templates/lib_modshared_f52.j2, K = MIDINT_MODULUS_F52_LIMBS(n) limbs): 1 where it applies (bits at most
 * midint_modulus_f52_max_bits, registry.h, and 2^(52 (K - 1)) < m) else 0, a word of padding, then from word
 * MIDINT_MODULUS_F52_AT(n) (8-byte aligned) m's K limbs and mu = floor(2^(104 K) / m)'s K + 1 limbs as doubles (0
 * where it does not apply). */
#define MIDINT_MODULUS_F52_LIMBS(n) ((32u * (n) + 51u) / 52u)
#define MIDINT_MODULUS_F52_AT(n) (4u * (n) + 6u)
#define MIDINT_MODULUS_WORDS(n) (MIDINT_MODULUS_F52_AT(n) + 2u * (2u * MIDINT_MODULUS_F52_LIMBS(n) + 1u))

struct midint_modulus {
    midint_context *ctx;
    unsigned bits;
    int odd;
    int f52;     /* Barrett's reduction in radix 2^52 applies (its flag among the words) */
    void *dev;   /* MIDINT_MODULUS_WORDS(bits / 32) words on ctx's device */
    uint64_t serial;   /* its context's count of modulus objects when it was made: no two alike (ops.c's copies) */
};

#endif
