/* bigdiv.h — internal: divrem and mod of numbers above their kernels' sizes, as a sequence of library operations
 * (Newton's iteration for the divisor's reciprocal over the multi-kernel products; bigdiv.c). */
#ifndef MIDINT_BIGDIV_H
#define MIDINT_BIGDIV_H

#include <stddef.h>

#include "context.h"

/* Where it applies is dispatch's (midint_bigdiv_applies, dispatch.h); how far, the registry's (ctx->bigdiv_max_bits,
 * worked out with max_bits). */

/* Device bytes of its temporaries per instance at `bits` (the products' own workspace is beside them). */
size_t midint_bigdiv_instance_bytes(unsigned bits);

/* Instances of a call of `count` a pass takes: as many as half the workspace cap holds the temporaries of (the
 * products' transforms take the rest); 0 where not even one. */
size_t midint_bigdiv_pass(const midint_context *ctx, unsigned bits, size_t count);

/* Dividends of up to this many times the divisor's width (the operations' rows allow 2; batch_gcd.c's root divides
 * 3 w words by w in one call, one reciprocal for three blocks of the quotient). */
#define MIDINT_BIGDIV_MAX_BLOCKS 3u

/* Run it on device buffers in the operation's order (divrem: q, rem, a, d; mod: r, a, d) for `count` instances of an
 * `abits`-bit dividend (abits <= MIDINT_BIGDIV_MAX_BLOCKS bits; q of abits bits) and a nonzero `bits`-bit divisor, on
 * `stream`. The inputs are read into its
 * temporaries before any output is written, so the in-place pairs of both rows hold. */
midint_status midint_bigdiv_run(midint_context *ctx, midint_op op, unsigned bits, unsigned abits, size_t count,
                                void *const *bufs, void *stream);

/* The same division's quotient alone, its lowest block uncorrected: at most the quotient and at least it less 93,
 * no remainder (batch_gcd.c's root, whose fractions may be that far off: docs/batch_gcd.md). Buffers q (abits bits an
 * instance), a and d as midint_bigdiv_run's. */
midint_status midint_bigdiv_quotient(midint_context *ctx, unsigned bits, unsigned abits, size_t count, void *q,
                                     const void *a, const void *d, void *stream);

#endif
