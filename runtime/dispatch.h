/* dispatch.h — internal: which variant runs a call (forced, tuned table, default rule); what the device serves. */
#ifndef MIDINT_DISPATCH_H
#define MIDINT_DISPATCH_H

#include "context.h"

/* The traits of a call's modulus objects that some variants refuse (midint_variant.refuses_moduli): one of them is
 * even (the variants of odd moduli only), or every one takes Barrett's reduction in radix 2^52 (its flag in
 * runtime/modulus.h), which a variant of the size serves faster (the lanes' Montgomery products cede them, at a call
 * of their own size only). */
#define MIDINT_MODULI_EVEN 1u
#define MIDINT_MODULI_F52 2u
/* A trait of a call's per-instance moduli (mulmod's m, ops.c's check_instances): some instance's modulus is below
 * 2^fdiv, the least the FP64 division of the mulmod kernel of the call's size takes (registry fdiv,
 * midint_mulmod_fdiv_min_bits); the kernel leaves it to its thread's division on words, so where mul then mod would
 * run, such a batch composes (midint_composed_applies). */
#define MIDINT_MODULI_NARROW 4u

/* Choose the variant for a call of n words and `count` instances (moduli: the MIDINT_MODULI_* traits of its modulus
 * objects); on failure the message is set. */
midint_status midint_dispatch(midint_context *ctx, midint_op op, uint32_t n, size_t count, unsigned moduli,
                              const midint_variant **out);

/* midint_selected_variant's answer (its checks of the arguments too) for a call whose modulus object has the
 * MIDINT_MODULI_* traits `moduli` (0: odd, or none); midint_selected_variant_modulus (modulus.c) passes its
 * object's. */
const char *midint_selected_variant_for(midint_context *ctx, midint_op op, unsigned bits, size_t count,
                                        unsigned moduli);

/* Forget remembered dispatch decisions (the forced variants or the tuned table changed). */
void midint_dispatch_forget(midint_context *ctx);

/* Read MIDINT_VARIANT into ctx->forced; MIDINT_ERR_UNKNOWN_VARIANT for a name not in the registry. */
midint_status midint_dispatch_init(midint_context *ctx);

/* Tuned tables (tuning.c): load at open from the environment or the default location; look up a call. */
void midint_tuning_init(midint_context *ctx);
void midint_tuning_free(struct midint_tuning *t);
const midint_variant *midint_tuning_lookup(const midint_context *ctx, midint_op op, uint32_t n, size_t count);

/* The largest size each operation and each expression runs on this device (max_bits, expr_limits; registry.c): at
 * open, and again when the device turns a variant down. */
midint_status midint_find_max_bits(midint_context *ctx);

/* Whether op at `bits` for `count` instances runs as two other operations (ops.c's run_composed: mulmod and
 * mulmod_shared as mul then mod), by the table in dispatch.c or the test hook MIDINT_TEST_COMPOSED=1 wherever both
 * parts serve: not where a variant of op is forced, nor where the temporaries pass the workspace cap, nor (the hook
 * aside) where mulmod's variant of exactly these bits divides on the FP64 pipe (registry fdiv) and `moduli`
 * (MIDINT_MODULI_*) has no NARROW modulus.
 * midint_selected_variant then says MIDINT_COMPOSED_NAME. */
int midint_composed_applies(const midint_context *ctx, midint_op op, unsigned bits, size_t count, unsigned moduli);

/* The registry's fdiv of the mulmod variant of exactly `bits` on this device (the least modulus, in bits, its
 * FP64 division takes), or 0 where it has none: from the list made at open (context.h, mulmod_fdiv). */
unsigned midint_mulmod_fdiv_min_bits(const midint_context *ctx, unsigned bits);
#define MIDINT_COMPOSED_NAME "mul+mod"
/* midint_selected_variant's answer for divrem and mod of large numbers (bigdiv.c): Newton's reciprocal and products. */
#define MIDINT_BIGDIV_NAME "newton"

/* Whether a divrem or mod call at `bits` runs as the division of large numbers (bigdiv.c): above its kernels'
 * largest size (`own_max`, ctx->kernel_max_bits[op]) up to ctx->bigdiv_max_bits, or at any size of 2 words or more
 * under the test hook MIDINT_TEST_BIGDIV; never where a variant of op is forced. */
int midint_bigdiv_applies(const midint_context *ctx, midint_op op, unsigned bits, unsigned own_max);

/* Device bytes of the temporaries a composed call of op for `count` instances at `bits` uses: the product, 2 bits
 * each (composed_tmp), and for mulmod_shared the modulus once per instance, bits each (composed_mods: mod's
 * divisors). */
size_t midint_composed_bytes(midint_op op, unsigned bits, size_t count);

/* Whether the device of ctx can run v (threads per block, shared memory, and not turned down once built). */
int midint_variant_fits(const midint_context *ctx, const midint_variant *v);

#endif
