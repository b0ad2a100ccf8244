/* batch_gcd.c — Bernstein's batch GCD as library calls on the device: the product tree (mul), the remainder tree
 * (each node's remainder of the product modulo its square: sqr and mod, the division of large numbers where the nodes
 * are), and per modulus gcd(N_i, (P mod N_i^2) / N_i) = gcd(N_i, P / N_i) (divrem and gcd). docs/batch_gcd.md. */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "backend.h"
#include "kernel_call.h"
#include "ops.h"

/* Levels of the tree at most (2^40 leaves). */
#define MAX_LEVELS 41

typedef struct tree {
    midint_context *ctx;
    void *stream;
    void *bufs[2 * MAX_LEVELS + 8];
    unsigned nbufs;
} tree;

static midint_status alloc(tree *t, size_t words, void **out)
{
    midint_status st = t->ctx->ops->alloc(t->ctx, words * 4, out);
    if (st == MIDINT_OK)
        t->bufs[t->nbufs++] = *out;
    return st;
}

/* Free a buffer before the end (the remainder tree's levels as it descends). */
static void release(tree *t, void *p)
{
    for (unsigned i = 0; i < t->nbufs; i++)
        if (t->bufs[i] == p) {
            t->ctx->ops->free(t->ctx, p);
            t->bufs[i] = t->bufs[--t->nbufs];
            return;
        }
}

static midint_status call(tree *t, midint_op op, size_t count, uint32_t words, void *const *bufs,
                          const unsigned *scalars)
{
    return midint_op_inner(t->ctx, op, count, 32u * words, bufs, scalars, t->stream);
}

/* rows of k words from src (pitch sw words, from word soff) to dst (pitch dw words, from word doff) */
static midint_status rows(tree *t, void *dst, size_t dw, size_t doff, const void *src, size_t sw, size_t soff,
                          size_t k, size_t nrows)
{
    return midint_copy_words(t->ctx, dst, dw, doff, src, sw, soff, k, nrows, t->stream);
}

/* The tree on the device: level k has 2^(L-k) nodes of n 2^k words; level 0 the moduli and 1s up to a power of two. */
static midint_status run(tree *t, size_t count, uint32_t n, const uint32_t *moduli, uint32_t *g, unsigned levels)
{
    midint_context *ctx = t->ctx;
    const size_t leaves = (size_t)1 << levels;
    void *node[MAX_LEVELS], *rem[MAX_LEVELS];
    midint_status st;
    /* level 0: the moduli, then 1s */
    if ((st = alloc(t, leaves * n, &node[0])) != MIDINT_OK ||
        (st = ctx->ops->fill(ctx, node[0], 0, leaves * n * 4, t->stream)) != MIDINT_OK ||
        (st = ctx->ops->upload_async(ctx, node[0], 0, moduli, count * n * 4, t->stream)) != MIDINT_OK)
        return st;
    if (leaves > count) {
        void *ones;
        if ((st = alloc(t, leaves - count, &ones)) != MIDINT_OK ||
            (st = ctx->ops->fill(ctx, ones, 1, (leaves - count) * 4, t->stream)) != MIDINT_OK ||
            (st = rows(t, node[0], n, count * n, ones, 1, 0, 1, leaves - count)) != MIDINT_OK)
            return st;
    }
    /* the product tree: a node is its children's product (evens and odds gathered, then one mul) */
    for (unsigned k = 1; k <= levels; k++) {
        size_t nodes = leaves >> k, w = (size_t)n << (k - 1);
        void *ev, *od;
        if ((st = alloc(t, nodes * w, &ev)) != MIDINT_OK || (st = alloc(t, nodes * w, &od)) != MIDINT_OK ||
            (st = alloc(t, nodes * 2 * w, &node[k])) != MIDINT_OK ||
            (st = rows(t, ev, w, 0, node[k - 1], 2 * w, 0, w, nodes)) != MIDINT_OK ||
            (st = rows(t, od, w, 0, node[k - 1], 2 * w, w, w, nodes)) != MIDINT_OK)
            return st;
        void *const b[] = {node[k], ev, od};
        if ((st = call(t, MIDINT_OP_MUL, nodes, (uint32_t)w, b, NULL)) != MIDINT_OK)
            return st;
        release(t, ev);
        release(t, od);
    }
    /* the remainder tree: rem[k] = P mod node[k]^2 (2 n 2^k words a node). The root's children take no division of
     * P: P = N_c N_s for a child c and its sibling s, so P mod N_c^2 = N_c (N_s mod N_c), one division of their
     * own width and one product (dividing P by N_c^2 would take divisors of P's whole width) */
    if (levels) {
        size_t w = (size_t)n << (levels - 1);
        void *sib, *sm;
        if ((st = alloc(t, 2 * w, &sib)) != MIDINT_OK || (st = alloc(t, 2 * w, &sm)) != MIDINT_OK ||
            (st = alloc(t, 4 * w, &rem[levels - 1])) != MIDINT_OK ||
            (st = rows(t, sib, w, 0, node[levels - 1], w, w, w, 1)) != MIDINT_OK ||
            (st = rows(t, sib, w, w, node[levels - 1], w, 0, w, 1)) != MIDINT_OK)
            return st;
        void *const m[] = {sm, sib, node[levels - 1]};
        const unsigned abits[] = {(unsigned)(32u * w)};
        void *const b[] = {rem[levels - 1], node[levels - 1], sm};
        if ((st = call(t, MIDINT_OP_MOD, 2, (uint32_t)w, m, abits)) != MIDINT_OK ||
            (st = call(t, MIDINT_OP_MUL, 2, (uint32_t)w, b, NULL)) != MIDINT_OK)
            return st;
        release(t, sib);
        release(t, sm);
        release(t, node[levels]);
    } else if ((st = alloc(t, 2 * (size_t)n, &rem[0])) != MIDINT_OK || /* one modulus: P mod N^2 = N */
               (st = ctx->ops->fill(ctx, rem[0], 0, 2 * (size_t)n * 4, t->stream)) != MIDINT_OK ||
               (st = rows(t, rem[0], 2 * (size_t)n, 0, node[0], n, 0, n, 1)) != MIDINT_OK)
        return st;
    for (unsigned k = levels > 0 ? levels - 1 : 0; k-- > 0;) {
        size_t nodes = leaves >> k, w = (size_t)n << k;
        void *sq, *dup;
        if ((st = alloc(t, nodes * 2 * w, &sq)) != MIDINT_OK || (st = alloc(t, nodes * 4 * w, &dup)) != MIDINT_OK ||
            (st = alloc(t, nodes * 2 * w, &rem[k])) != MIDINT_OK)
            return st;
        void *const s[] = {sq, node[k]};
        if ((st = call(t, MIDINT_OP_SQR, nodes, (uint32_t)w, s, NULL)) != MIDINT_OK ||   /* the children's squares */
            (st = rows(t, dup, 8 * w, 0, rem[k + 1], 4 * w, 0, 4 * w, nodes / 2)) != MIDINT_OK || /* the parent's */
            (st = rows(t, dup, 8 * w, 4 * w, rem[k + 1], 4 * w, 0, 4 * w, nodes / 2)) != MIDINT_OK)
            return st;                                                                /* remainder, to both */
        void *const m[] = {rem[k], dup, sq};
        const unsigned abits[] = {(unsigned)(128u * w)};
        if ((st = call(t, MIDINT_OP_MOD, nodes, (uint32_t)(2 * w), m, abits)) != MIDINT_OK)
            return st;
        release(t, sq);
        release(t, dup);
        release(t, rem[k + 1]);
        release(t, node[k + 1]);
    }
    /* the leaves: (P mod N^2) / N, exact, below N; then its gcd with N */
    void *q, *r, *z, *out;
    if ((st = alloc(t, leaves * 2 * n, &q)) != MIDINT_OK || (st = alloc(t, leaves * n, &r)) != MIDINT_OK ||
        (st = alloc(t, leaves * n, &z)) != MIDINT_OK || (st = alloc(t, leaves * n, &out)) != MIDINT_OK)
        return st;
    void *const dv[] = {q, r, rem[0], node[0]};
    const unsigned abits[] = {64u * n};
    if ((st = call(t, MIDINT_OP_DIVREM, count, n, dv, abits)) != MIDINT_OK ||
        (st = rows(t, z, n, 0, q, 2 * n, 0, n, count)) != MIDINT_OK)
        return st;
    void *const gc[] = {out, node[0], z};
    if ((st = call(t, MIDINT_OP_GCD, count, n, gc, NULL)) != MIDINT_OK ||
        (st = ctx->ops->download_async(ctx, g, out, 0, count * n * 4, t->stream)) != MIDINT_OK)
        return st;
    return ctx->ops->synchronize(ctx, t->stream);
}

midint_status midint_batch_gcd(midint_context *ctx, size_t count, unsigned bits, const uint32_t *moduli, uint32_t *g)
{
    const char *fn = "midint_batch_gcd";
    if (!ctx)
        return midint_fail(NULL, MIDINT_ERR_NULL_POINTER, "%s: ctx is NULL", fn);
    if (!moduli || !g)
        return midint_fail(ctx, MIDINT_ERR_NULL_POINTER, "%s: %s is NULL", fn, moduli ? "g" : "moduli");
    if (count == 0)
        return midint_fail(ctx, MIDINT_ERR_INVALID_COUNT, "%s: count is 0", fn);
    if (bits == 0 || bits % 32)
        return midint_fail(ctx, MIDINT_ERR_INVALID_BITS, "%s: bits is %u; it must be a positive multiple of 32", fn,
                           bits);
    const uint32_t n = bits / 32u;
    for (size_t i = 0; i < count; i++) {
        uint32_t any = 0;
        for (uint32_t j = 0; j < n && !any; j++)
            any = moduli[i * n + j];
        if (!any)
            return midint_fail(ctx, MIDINT_ERR_INVALID_ARGUMENT, "%s: moduli[%zu] is zero; every modulus must be "
                               "nonzero", fn, i);
    }
    unsigned levels = 0;
    while (((size_t)1 << levels) < count && levels < MAX_LEVELS - 1)
        levels++;
    /* the root's children are multiplied, and divide each other, at n 2^(L-1) words; the squares of their children
     * (n 2^(L-2) words) divide at twice that */
    const uint64_t top = (uint64_t)bits << levels;
    if (top / 2 > midint_max_bits(ctx, MIDINT_OP_MUL) || top / 4 > midint_max_bits(ctx, MIDINT_OP_SQR) ||
        top / 2 > midint_max_bits(ctx, MIDINT_OP_MOD) || bits > midint_max_bits(ctx, MIDINT_OP_GCD) ||
        bits > midint_max_bits(ctx, MIDINT_OP_DIVREM))
        return midint_fail(ctx, MIDINT_ERR_BITS_TOO_LARGE, "%s: %zu moduli of %u bits make a product of %llu bits "
                           "(the count rounded up to a power of two); this context multiplies at most %u-bit and "
                           "divides at most %u-bit numbers, and takes gcds up to %u bits: split the batch", fn, count,
                           bits, (unsigned long long)top, midint_max_bits(ctx, MIDINT_OP_MUL),
                           midint_max_bits(ctx, MIDINT_OP_MOD), midint_max_bits(ctx, MIDINT_OP_GCD));
    tree t;
    memset(&t, 0, sizeof t);
    t.ctx = ctx;
    midint_status st = run(&t, count, n, moduli, g, levels);
    if (st != MIDINT_OK)
        ctx->ops->synchronize(ctx, NULL);
    for (unsigned i = 0; i < t.nbufs; i++)
        ctx->ops->free(ctx, t.bufs[i]);
    return st == MIDINT_OK ? st : midint_fail(ctx, st, "%s: %s", fn, ctx->msg);
}
