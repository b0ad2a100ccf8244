/* registry.h — the generated table of variants: what each kernel is and what it needs to run. */
#ifndef MIDINT_REGISTRY_H
#define MIDINT_REGISTRY_H

#include "midint.h"

typedef struct midint_variant {
    const char *name;        /* the key everywhere: op_bits_limb_qQ_iIPB_backend */
    midint_op op;
    uint32_t bits;           /* largest size it serves; any multiple of 32 below works too */
    uint32_t limb_words;     /* 32-bit words per limb: 1 (u32) or 2 (u64) */
    uint32_t q;              /* limbs per thread */
    uint32_t ipb;            /* instances per block at the full size (NTT variants: at every size) */
    midint_backend backend;
    uint32_t block;          /* threads per block (fixed for the kernel) */
    uint32_t shared_bytes;   /* dynamic shared / local memory per block */
    int impl;                /* index into midint_cuda_launchers or midint_opencl_kernels */
    uint32_t ntt_primes;     /* NTT variants: primes in the set (the first ones of midint_ntt_primes); 0 otherwise */
    uint32_t digit_bits;     /* NTT variants: bits per digit */
} midint_variant;

/* An NTT prime p = k 2^order + 1 and a primitive 2^order-th root of unity mod p. */
typedef struct midint_ntt_prime {
    uint32_t p, root, order;
} midint_ntt_prime;
extern const midint_ntt_prime midint_ntt_primes[];
extern const size_t midint_ntt_prime_count;
extern const uint32_t midint_ntt_table_length;

extern const midint_variant midint_registry[];
extern const size_t midint_registry_size;
extern const char midint_registry_hash[];

/* The variant named `name`, or NULL. */
const midint_variant *midint_registry_find(const char *name);

/* Threads per instance for n words, and whether the variant can serve (op, n words) at all. */
uint32_t midint_variant_threads_per_instance(const midint_variant *v, uint32_t n);
int midint_variant_serves(const midint_variant *v, midint_op op, midint_backend backend, uint32_t n);

#endif
