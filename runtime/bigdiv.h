/* bigdiv.h — internal: divrem and mod of numbers above their kernels' sizes, as a sequence of library operations
 * (Newton's iteration for the divisor's reciprocal over the multi-kernel products; bigdiv.c). */
#ifndef MIDINT_BIGDIV_H
#define MIDINT_BIGDIV_H

#include <stddef.h>

#include "context.h"

/* The largest divisor, in bits, the large division serves on this context (0: none): mul at the divisor's width,
 * the shifts at three times it, and the runtime's two helper kernels. */
unsigned midint_bigdiv_max_bits(const midint_context *ctx);

/* Whether a divrem or mod call at `bits` runs as the large division: above its kernels' largest size (`own_max`,
 * what the registry has for op), or at any size of 2 words or more under the test hook MIDINT_TEST_BIGDIV. */
int midint_bigdiv_applies(const midint_context *ctx, midint_op op, unsigned bits, unsigned own_max);

/* Device bytes of its temporaries per instance at `bits` (the products' own workspace is beside them). */
size_t midint_bigdiv_instance_bytes(unsigned bits);

/* Run it on device buffers in the operation's order (divrem: q, rem, a, d; mod: r, a, d) for `count` instances of an
 * `abits`-bit dividend (abits <= 2 bits) and a nonzero `bits`-bit divisor, on `stream`. The inputs are read into its
 * temporaries before any output is written, so the in-place pairs of both rows hold. */
midint_status midint_bigdiv_run(midint_context *ctx, midint_op op, unsigned bits, unsigned abits, size_t count,
                                void *const *bufs, void *stream);

#endif
