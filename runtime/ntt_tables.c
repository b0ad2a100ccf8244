/* ntt_tables.c — the NTT twiddle tables: made on the host from the generated primes, uploaded once per context. */
#include <stdlib.h>

#include "context.h"

static uint32_t mulmod(uint32_t a, uint32_t b, uint32_t p)
{
    return (uint32_t)((uint64_t)a * b % p);
}

static uint32_t powmod(uint32_t a, uint64_t e, uint32_t p)
{
    uint32_t r = 1 % p;
    for (; e; e >>= 1, a = mulmod(a, a, p))
        if (e & 1)
            r = mulmod(r, a, p);
    return r;
}

/* One table of `len` (w, floor(w 2^32 / p)) pairs: entry h + j = w_2h^j for h = 1, 2, 4, .., len/2 and j < h,
 * where w_2h = root^(2^order / 2h) (inverse: its inverse). Entry 0 is unused. Every transform length shares
 * the table because w_2h is the same for all of them. */
static void fill(uint32_t *t, const midint_ntt_prime *q, uint32_t len, int inverse)
{
    t[0] = t[1] = 0;
    for (uint32_t h = 1; h < len; h <<= 1) {
        uint32_t w = powmod(q->root, ((uint64_t)1 << q->order) / (2u * h), q->p);
        if (inverse)
            w = powmod(w, q->p - 2u, q->p);
        uint32_t x = 1;
        for (uint32_t j = 0; j < h; j++, x = mulmod(x, w, q->p)) {
            t[2u * (h + j)] = x;
            t[2u * (h + j) + 1u] = (uint32_t)(((uint64_t)x << 32) / q->p);
        }
    }
}

midint_status midint_ntt_table(midint_context *ctx, void **out)
{
    if (ctx->ntt_table) {
        *out = ctx->ntt_table;
        return MIDINT_OK;
    }
    const uint32_t len = midint_ntt_table_length;
    const size_t words = midint_ntt_prime_count * 2u * 2u * len;
    uint32_t *host = malloc(words * 4);
    if (!host)
        return midint_fail(ctx, MIDINT_ERR_OUT_OF_MEMORY, "NTT twiddle tables: out of host memory (%zu bytes)",
                           words * 4);
    for (size_t i = 0; i < midint_ntt_prime_count; i++)
        for (int inverse = 0; inverse < 2; inverse++)
            fill(host + (2u * i + (size_t)inverse) * 2u * len, &midint_ntt_primes[i], len, inverse);
    void *buf = NULL;
    midint_status st = ctx->ops->alloc(ctx, words * 4, &buf);
    if (st == MIDINT_OK && (st = ctx->ops->upload(ctx, buf, host, words * 4)) != MIDINT_OK)
        ctx->ops->free(ctx, buf);
    free(host);
    if (st != MIDINT_OK)
        return midint_fail(ctx, st, "NTT twiddle tables (%zu bytes): %s", words * 4, ctx->msg);
    ctx->ntt_table = buf;
    *out = buf;
    return MIDINT_OK;
}
