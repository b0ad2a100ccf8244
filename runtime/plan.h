/* plan.h — internal: how one call runs (plan.c): its launches and the context's workspace they share. */
#ifndef MIDINT_PLAN_H
#define MIDINT_PLAN_H

#include "context.h"

/* The bits of x (0 for 0): an NTT grid plan of n-word operands takes 2^midint_bit_length(2 n - 2) points, a wrapped
 * product into rn words 2^midint_bit_length(rn - 1) (plan.c), each at least the engine's shortest. */
uint32_t midint_bit_length(uint64_t x);

/* The longest operand (words) that the NTT grid multiplies in one transform; longer ones go in pieces of at most this
 * many words (half the longest transform, or MIDINT_TEST_NTT_PIECE). */
uint32_t midint_ntt_piece_words(const midint_context *ctx);

/* How one call runs: the variant's launches for n words and `count` instances, and the workspace they share. A grid
 * variant runs `group` instances per pass; each pass launches its kernels in order. */
typedef struct midint_plan {
    const midint_variant *v;
    uint32_t n, rn;           /* words per operand, per result (the output in slot r) */
    size_t count, group;      /* instances of the call, per pass */
    uint64_t ws_words, st_words; /* workspace per instance: transform planes, tile states */
    uint64_t ws2_words;       /* NTT grid in pieces: the outputs' planes, per instance (ctx->ws2) */
    uint32_t log_length, log_rows; /* NTT grid: log2 of the transform length and of its rows */
    uint32_t pieces, piece_words; /* NTT grid: operands longer than one transform, in pieces of piece_words (0: whole) */
    uint32_t wrap_b;          /* NTT grid, a wrapped product (midint_plan_make_wrap): b's words per instance; 0 else */
    uint32_t tile_words, outputs;  /* expr grid: words per tile (the test hook may shorten it), outputs (st per tile);
                                    * NTT grid in pieces: the outputs (sums of pieces' products) the result reaches */
} midint_plan;

/* Plan a call of v whose result (slot r) holds rn words per instance; MIDINT_ERR_OUT_OF_MEMORY when one instance
 * needs more workspace than the cap. */
midint_status midint_plan_make(midint_context *ctx, const midint_variant *v, uint32_t n, uint32_t rn, size_t count,
                               midint_plan *p);

/* Plan a wrapped product on v (an NTT grid variant; wrap_product.h says what it gives): r (rn words) from a (n words)
 * and b (nb words, x1 of the column pass) by the cyclic convolution of L = 2^ceil(log2 rn) points (at least the
 * layout's minimum), coefficient c + L added to c, truncated to rn words. Refuses n or nb past rn; the caller keeps
 * the coefficients' bound (min(n, nb) (2^32 - 1)^2 below the primes' product). */
midint_status midint_plan_make_wrap(midint_context *ctx, const midint_variant *v, uint32_t n, uint32_t nb, uint32_t rn,
                                    size_t count, midint_plan *p);

/* Device bytes of workspace the plan uses. */
size_t midint_plan_workspace(const midint_plan *p);

/* Enqueue the plan on the buffers and scalars bound in `bind` (r, a, b, aux, io, x0, x1; the rest is the plan's),
 * growing the context's workspace first when needed. NTT variants read their twiddle tables (made here at first
 * use) in aux; vec: 16-byte accesses are safe. */
midint_status midint_plan_run(midint_context *ctx, const midint_plan *p, const midint_launch *bind, int vec,
                              void *stream);

/* Grow one of the context's workspace buffers (ws, ws2, st, composed_tmp) to `bytes`; a smaller one is freed first, once
 * the work that used it is done (the workspace fence). */
midint_status midint_workspace_grow(midint_context *ctx, midint_staging_buf *s, size_t bytes);

/* Release the workspace, the composed product's buffer, the division's temporaries and batch GCD's kept trees with it
 * (after the work that uses them is done). */
void midint_workspace_free(midint_context *ctx);

/* Bytes of those buffers the context holds now. */
size_t midint_workspace_held(midint_context *ctx);

/* The device buffer of NTT twiddle tables, made and uploaded on first use; on failure the message is set. */
midint_status midint_ntt_table(midint_context *ctx, void **out);

#endif
