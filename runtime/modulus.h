/* modulus.h — internal: the midint_modulus object (a modulus shared by a batch) and the words its kernels read. */
#ifndef MIDINT_MODULUS_H
#define MIDINT_MODULUS_H

#include "context.h"

/* The device words of a modulus of n = bits/32 words, in this order (templates/kernel_mod_shared.j2 reads them through
 * the slot its row names): m (n words), R mod m (n), R^2 mod m (n) for R = 2^bits, Barrett's mu = floor(R^2 / m)
 * (n + 1 words; 0 where it does not fit them), -m^-1 mod 2^32 (0 for even m), 1 for odd m else 0, 1 where Barrett's
 * reduction applies (m's top word nonzero and mu within n + 1 words) else 0. */
#define MIDINT_MODULUS_WORDS(n) (4u * (n) + 4u)

struct midint_modulus {
    midint_context *ctx;
    unsigned bits;
    int odd;
    void *dev;   /* MIDINT_MODULUS_WORDS(bits / 32) words on ctx's device */
};

#endif
