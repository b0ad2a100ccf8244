/* wrap_product.h — internal: products that wrap around modulo B^L - 1 on the NTT grid (wrap_product.c), for the
 * middle words of a long product (batch_gcd.c's scaled remainder tree). */
#ifndef MIDINT_WRAP_PRODUCT_H
#define MIDINT_WRAP_PRODUCT_H

#include "context.h"

/* Whether a wrapped product into rn words runs here: an NTT grid engine of this backend with whole-column kernels,
 * and a transform of 2^ceil(log2 rn) points within its longest. */
int midint_wrap_product_applies(midint_context *ctx, uint32_t rn);

/* Enqueue on `stream`, for `count` instances of device buffers: r (rn words each) = sum over the coefficients c_k of
 * a (n words) times b (nb words), c_k B^(k mod L) (B = 2^32, L = 2^ceil(log2 rn) points, at least the engine's
 * shortest), truncated to rn words. With X = a b and H = X div B^L (below B^(n + nb - L)), that is X + H - (X div
 * B^L) B^L truncated: its words from n + nb - L up are X's, or X's plus one carried in. Needs n, nb <= rn and the
 * coefficients' bound (min(n, nb) (2^32 - 1)^2 below the primes' product, as a product of min(n, nb) words). */
midint_status midint_wrap_product(midint_context *ctx, size_t count, uint32_t n, uint32_t nb, uint32_t rn, void *r,
                                  const void *a, const void *b, void *stream);

#endif
