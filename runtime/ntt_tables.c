/* ntt_tables.c — the NTT twiddle tables (one-block and grid): made on the host from the generated primes, uploaded
 * once per context. */
#include <stdlib.h>

#include "plan.h"

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

static void put(uint32_t *pair, uint32_t w, uint32_t p)
{
    pair[0] = w;
    pair[1] = (uint32_t)(((uint64_t)w << 32) / p);
}

/* The grid NTT's tables of one prime (midint_ntt_grid_layout): the twiddles between passes, lo[j] = w^j and
 * hi[j] = w^(j 2^lo_bits) for the primitive 2^log_max-th root w, forward and inverse, in Montgomery form
 * (times 2^32 mod p: the kernels multiply them with Montgomery products), and scale[l] = 2^32 / 2^l (with its
 * Shoup quotient). */
static void fill_grid(uint32_t *t, const midint_ntt_prime *q)
{
    const midint_ntt_grid_layout *g = &midint_ntt_grid;
    uint32_t p = q->p, w = powmod(q->root, (uint64_t)1 << (q->order - g->log_max), p);
    uint32_t lo = 1u << g->lo_bits, hi = 1u << (g->log_max - g->lo_bits);
    for (int inverse = 0; inverse < 2; inverse++) {
        uint32_t base = inverse ? powmod(w, p - 2u, p) : w, step = powmod(base, lo, p), x = 1, y = 1;
        uint32_t *tlo = t + 2u * (inverse ? g->inv_lo : g->fwd_lo), *thi = t + 2u * (inverse ? g->inv_hi : g->fwd_hi);
        for (uint32_t j = 0; j < lo; j++, x = mulmod(x, base, p))
            put(tlo + 2u * j, (uint32_t)(((uint64_t)x << 32) % p), p);
        for (uint32_t j = 0; j < hi; j++, y = mulmod(y, step, p))
            put(thi + 2u * j, (uint32_t)(((uint64_t)y << 32) % p), p);
    }
    uint32_t half = (p + 1u) / 2u, scale = (uint32_t)(((uint64_t)1 << 32) % p); /* 2^32 / 2^l: halve l times */
    for (uint32_t l = 0; l < g->scales; l++, scale = mulmod(scale, half, p))
        put(t + 2u * (g->scale + l), scale, p);
}

midint_status midint_ntt_table(midint_context *ctx, void **out)
{
    if (ctx->ntt_table) {
        *out = ctx->ntt_table;
        return MIDINT_OK;
    }
    const uint32_t len = midint_ntt_table_length;
    const size_t words = 2u * ((size_t)midint_ntt_grid.base + midint_ntt_prime_count * midint_ntt_grid.stride);
    uint32_t *host = malloc(words * 4);
    if (!host)
        return midint_fail(ctx, MIDINT_ERR_OUT_OF_MEMORY, "NTT twiddle tables: out of host memory (%zu bytes)",
                           words * 4);
    for (size_t i = 0; i < midint_ntt_prime_count; i++) {
        for (int inverse = 0; inverse < 2; inverse++)
            fill(host + (2u * i + (size_t)inverse) * 2u * len, &midint_ntt_primes[i], len, inverse);
        fill_grid(host + 2u * (midint_ntt_grid.base + i * midint_ntt_grid.stride), &midint_ntt_primes[i]);
    }
    void *buf = NULL;
    midint_status st = ctx->ops->alloc(ctx, words * 4, &buf);
    if (st == MIDINT_OK && (st = ctx->ops->upload(ctx, buf, host, words * 4)) != MIDINT_OK)
        ctx->ops->free(ctx, buf);
    free(host);
    if (st != MIDINT_OK)
        return midint_fail(ctx, st, "NTT twiddle tables (%zu bytes): %s", words * 4, ctx->msg);
    ctx->ntt_table = buf;
    midint_replay_invalidate(ctx, "NTT tables made");
    *out = buf;
    return MIDINT_OK;
}
