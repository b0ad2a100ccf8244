/* batch_gcd.c — Bernstein's batch GCD as library calls on the device: the product tree (mul), the scaled remainder
 * tree (each node's fraction frac(P / node^2): the root's children by a division, every level below by sqr and a
 * wrapped product, or a mullo, a mul and an add), and per modulus z = (P / N_i) mod N_i from its fraction, then
 * gcd(N_i, z) (gcd). docs/batch_gcd.md. */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "backend.h"
#include "bigdiv.h"
#include "dispatch.h"
#include "kernel_call.h"
#include "ops.h"
#include "plan.h"
#include "wrap_product.h"

/* Levels of the tree at most (2^40 leaves). */
#define MAX_LEVELS 41
/* Parts of a split batch at most (midint_batch_gcd): their products stay on the device while each part runs. */
#define MAX_PARTS 16
_Static_assert(2 * MAX_LEVELS + MAX_PARTS + 16 <= MIDINT_TREE_BUFFERS,
               "the trees' buffers at most: two a level, the parts' products, and a few");

/* The remainder tree's levels take wrapped products (wrap_product.c) from parents' fractions of this many words (4 w
 * for children of w; below, a mullo and a mul at 2 w words); the test hook MIDINT_TEST_WRAP_FROM lowers it. */
#define WRAP_FROM_WORDS 4096u

typedef struct tree {
    midint_context *ctx;
    void *stream;
    void *bufs[MIDINT_TREE_BUFFERS]; /* every buffer it holds: kept in the context at the end, or freed */
    size_t words[MIDINT_TREE_BUFFERS];
    unsigned char spare[MIDINT_TREE_BUFFERS]; /* released: reused by a later alloc that fits */
    unsigned nbufs;
    int trace; /* MIDINT_TRACE_BATCH_GCD=1: each phase's time to stderr (the stream drained after each) */
} tree;

/* The phase just queued has ended: with tracing on, wait for it and print its time by the backend's timer (what it
 * did: `what`, level k, `nodes` nodes of w words), then time the next. Tracing serializes the phases, so their sum
 * is a little above the untraced call. */
static midint_status phase(tree *t, const char *what, unsigned k, size_t nodes, size_t w)
{
    if (!t->trace)
        return MIDINT_OK;
    double ms = 0;
    midint_status st = t->ctx->ops->timer_end(t->ctx, t->stream, &ms);
    fprintf(stderr, "midint batch_gcd: %-10s level %2u: %8zu nodes x %9zu words %9.3f ms\n", what, k, nodes, w, ms);
    return st != MIDINT_OK ? st : t->ctx->ops->timer_begin(t->ctx, t->stream);
}

/* The context's kept buffers (an earlier call's): the smallest of at least `bytes`, or MIDINT_TREE_BUFFERS. */
static unsigned smallest_kept(const midint_context *ctx, size_t bytes)
{
    unsigned best = MIDINT_TREE_BUFFERS;
    for (unsigned i = 0; i < MIDINT_TREE_BUFFERS; i++)
        if (ctx->tree_kept[i].buf && ctx->tree_kept[i].bytes >= bytes &&
            (best == MIDINT_TREE_BUFFERS || ctx->tree_kept[i].bytes < ctx->tree_kept[best].bytes))
            best = i;
    return best;
}

static void free_kept(midint_context *ctx)
{
    for (unsigned i = 0; i < MIDINT_TREE_BUFFERS; i++)
        if (ctx->tree_kept[i].buf) {
            ctx->ops->free(ctx, ctx->tree_kept[i].buf);
            ctx->tree_kept[i].buf = NULL;
            ctx->tree_kept[i].bytes = 0;
        }
}

/* A buffer of `words` words: the smallest released one that holds them, else the smallest the context kept from an
 * earlier call, else a new one (where the device has no room for it, after the kept ones are freed). The levels of
 * both trees take buffers of the same few sizes, so after the first levels of the first call nothing is allocated
 * (each device allocation and free costs tens of microseconds, and a free waits for the device). */
static midint_status alloc(tree *t, size_t words, void **out)
{
    midint_context *ctx = t->ctx;
    unsigned best = t->nbufs;
    for (unsigned i = 0; i < t->nbufs; i++)
        if (t->spare[i] && t->words[i] >= words && (best == t->nbufs || t->words[i] < t->words[best]))
            best = i;
    if (best < t->nbufs) {
        t->spare[best] = 0;
        *out = t->bufs[best];
        return MIDINT_OK;
    }
    if (t->nbufs == MIDINT_TREE_BUFFERS)
        return midint_fail(ctx, MIDINT_ERR_OUT_OF_MEMORY, "more than %u buffers", t->nbufs);
    const unsigned kept = smallest_kept(ctx, words * 4);
    size_t have = words;
    midint_status st = MIDINT_OK;
    if (kept < MIDINT_TREE_BUFFERS) {
        *out = ctx->tree_kept[kept].buf;
        have = ctx->tree_kept[kept].bytes / 4;
        ctx->tree_kept[kept].buf = NULL;
        ctx->tree_kept[kept].bytes = 0;
    } else if ((st = ctx->ops->alloc(ctx, words * 4, out)) != MIDINT_OK) {
        free_kept(ctx);
        st = ctx->ops->alloc(ctx, words * 4, out);
    }
    if (st == MIDINT_OK) {
        t->bufs[t->nbufs] = *out;
        t->words[t->nbufs] = have;
        t->spare[t->nbufs++] = 0;
    }
    return st;
}

/* After the call (the device idle): its buffers join those the context kept where all of them together stay within
 * the workspace cap (midint_set_workspace_bytes, which frees them when lowered, as midint_close does); else all are
 * freed. A failed call frees its own. */
static void keep_or_free(tree *t, int ok)
{
    midint_context *ctx = t->ctx;
    size_t held = 0, slots = 0;
    for (unsigned i = 0; i < MIDINT_TREE_BUFFERS; i++) {
        held += ctx->tree_kept[i].bytes;
        slots += !ctx->tree_kept[i].buf;
    }
    for (unsigned i = 0; i < t->nbufs; i++)
        held += t->words[i] * 4;
    if (!ok || held > midint_workspace_cap(ctx) || slots < t->nbufs) {
        for (unsigned i = 0; i < t->nbufs; i++)
            ctx->ops->free(ctx, t->bufs[i]);
        if (ok)
            free_kept(ctx);
        return;
    }
    for (unsigned i = 0, j = 0; i < t->nbufs; i++) {
        while (ctx->tree_kept[j].buf)
            j++;
        ctx->tree_kept[j].buf = t->bufs[i];
        ctx->tree_kept[j].bytes = t->words[i] * 4;
    }
}

/* A buffer no longer needed (the remainder tree's levels as it descends), kept for reuse. */
static void release(tree *t, void *p)
{
    for (unsigned i = 0; i < t->nbufs; i++)
        if (t->bufs[i] == p)
            t->spare[i] = 1;
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

/* A level's c children (as pairs: a row of two children is a parent, its fraction yp of 4 w words): k words from
 * word `off` of each parent's fraction to each of its children, rows of k words in dst. */
static midint_status to_children(tree *t, void *dst, const void *yp, size_t off, size_t k, size_t c, size_t w)
{
    midint_status st = MIDINT_OK;
    for (size_t child = 0; child < 2 && st == MIDINT_OK; child++)
        st = rows(t, dst, 2 * k, k * child, yp, 4 * w, off, k, c / 2);
    return st;
}

/* Each child's product (rows of pw words in p, its fraction's 2 w words from word `off`) to its sibling's fraction in
 * y (c of 2 w words): a child's product is made with its own square, so it is the sibling's. */
static midint_status to_siblings(tree *t, void *y, const void *p, size_t pw, size_t off, size_t c, size_t w)
{
    midint_status st = rows(t, y, 4 * w, 0, p, 2 * pw, pw + off, 2 * w, c / 2);
    return st != MIDINT_OK ? st : rows(t, y, 4 * w, 2 * w, p, 2 * pw, off, 2 * w, c / 2);
}

/* The children's fractions of one level by one wrapped product each (c children of 2 w words; their parents'
 * fractions yp; sq: the children's squares): each parent's fraction to both its children (par: c of 4 w words), the
 * products modulo B^(4w) - 1 (full: c of 4 w words), their words [2w, 4w) to the siblings' y. */
static midint_status wrapped(tree *t, size_t c, size_t w, void *yp, void *sq, void *par, void *full, void *y)
{
    midint_status st;
    if ((st = to_children(t, par, yp, 0, 4 * w, c, w)) != MIDINT_OK ||
        (st = midint_wrap_product(t->ctx, c, (uint32_t)(4 * w), (uint32_t)(2 * w), (uint32_t)(4 * w), full, par, sq,
                                  t->stream)) != MIDINT_OK)
        return st;
    return to_siblings(t, y, full, 4 * w, 2 * w, c, w);
}

/* The same by halves (lo, hi: c of 2 w words; full: c of 4 w words): each parent's halves to both its children,
 * then the low half of hi sq plus the high half of lo sq to the siblings' y. */
static midint_status halves(tree *t, size_t c, size_t w, void *yp, void *sq, void *lo, void *hi, void *full, void *y)
{
    midint_status st;
    void *const ml[] = {hi, hi, sq}, *const mf[] = {full, lo, sq}, *const ad[] = {hi, hi, lo, NULL};
    if ((st = to_children(t, lo, yp, 0, 2 * w, c, w)) != MIDINT_OK ||
        (st = to_children(t, hi, yp, 2 * w, 2 * w, c, w)) != MIDINT_OK ||
        (st = call(t, MIDINT_OP_MULLO, c, (uint32_t)(2 * w), ml, NULL)) != MIDINT_OK ||
        (st = call(t, MIDINT_OP_MUL, c, (uint32_t)(2 * w), mf, NULL)) != MIDINT_OK ||
        (st = rows(t, lo, 2 * w, 0, full, 4 * w, 2 * w, 2 * w, c)) != MIDINT_OK ||
        (st = call(t, MIDINT_OP_ADD, c, (uint32_t)(2 * w), ad, NULL)) != MIDINT_OK)
        return st;
    return to_siblings(t, y, hi, 2 * w, 0, c, w);
}

/* The tree on the device, levels 0 to `top` (at most L): level k has 2^(L-k) nodes of n 2^k words; level 0 the
 * moduli and 1s up to a power of two. The remainder tree starts from the root's children and never reads the root
 * (the product of a whole tree is made only as a part's product for the others of a split batch): not making it
 * saves the tree's largest product. */
static midint_status product_tree(tree *t, size_t count, uint32_t n, const uint32_t *moduli, unsigned levels,
                                   unsigned top, void **node)
{
    midint_context *ctx = t->ctx;
    const size_t leaves = (size_t)1 << levels;
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
        release(t, ones);
    }
    if ((st = phase(t, "upload", 0, leaves, n)) != MIDINT_OK)
        return st;
    /* the product tree: a node is its children's product (evens and odds gathered, then one mul) */
    for (unsigned k = 1; k <= top; k++) {
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
        if ((st = phase(t, "product", k, nodes, 2 * w)) != MIDINT_OK)
            return st;
    }
    return MIDINT_OK;
}

/* The other parts' products where a batch is split (midint_batch_gcd): each of n 2^L words, as the part's own. */
typedef struct others {
    void *prod[MAX_PARTS];
    unsigned count;
} others;

/* Where the batch is split, part i's moduli need their gcds with everything outside the part as well: with Q the
 * other parts' products, P_i Q / T_c^2 = T_s Q / T_c at the root's children, so the tree runs as it is from T_s' =
 * T_s Q mod T_c in place of T_s (Q mod T_c a product of P_j mod T_c, each reduced: `mod` of 2 w words by w, `mul`).
 * Into out: c's T_s' (the root's children, 2 of w words). */
static midint_status fold_others(tree *t, void *children, size_t w, const others *o, void *out)
{
    midint_context *ctx = t->ctx;
    void *acc, *r, *pr, *pj, *sib, *one;
    const unsigned abits[] = {(unsigned)(64u * w)};
    midint_status st;
    if ((st = alloc(t, 2 * w, &acc)) != MIDINT_OK || (st = alloc(t, 2 * w, &r)) != MIDINT_OK ||
        (st = alloc(t, 4 * w, &pr)) != MIDINT_OK || (st = alloc(t, 4 * w, &pj)) != MIDINT_OK ||
        (st = alloc(t, 2 * w, &sib)) != MIDINT_OK || (st = alloc(t, 2, &one)) != MIDINT_OK ||
        (st = ctx->ops->fill(ctx, acc, 0, 2 * w * 4, t->stream)) != MIDINT_OK ||
        (st = ctx->ops->fill(ctx, one, 1, 2 * 4, t->stream)) != MIDINT_OK ||
        (st = rows(t, acc, w, 0, one, 1, 0, 1, 2)) != MIDINT_OK)                        /* acc = 1 */
        return st;
    void *const red[] = {r, pj, children}, *const mu[] = {pr, acc, r}, *const back[] = {acc, pr, children};
    for (unsigned j = 0; j < o->count; j++) /* acc = acc (P_j mod T_c) mod T_c */
        if ((st = rows(t, pj, 2 * w, 0, o->prod[j], 2 * w, 0, 2 * w, 1)) != MIDINT_OK ||
            (st = rows(t, pj, 2 * w, 2 * w, o->prod[j], 2 * w, 0, 2 * w, 1)) != MIDINT_OK ||
            (st = call(t, MIDINT_OP_MOD, 2, (uint32_t)w, red, abits)) != MIDINT_OK ||
            (st = call(t, MIDINT_OP_MUL, 2, (uint32_t)w, mu, NULL)) != MIDINT_OK ||
            (st = call(t, MIDINT_OP_MOD, 2, (uint32_t)w, back, abits)) != MIDINT_OK)
            return st;
    void *const ms[] = {pr, sib, acc}, *const fin[] = {out, pr, children};
    if ((st = rows(t, sib, w, 0, children, w, w, w, 1)) != MIDINT_OK ||             /* each child's sibling */
        (st = rows(t, sib, w, w, children, w, 0, w, 1)) != MIDINT_OK ||
        (st = call(t, MIDINT_OP_MUL, 2, (uint32_t)w, ms, NULL)) != MIDINT_OK ||
        (st = call(t, MIDINT_OP_MOD, 2, (uint32_t)w, fin, abits)) != MIDINT_OK)
        return st;
    release(t, acc);
    release(t, r);
    release(t, pr);
    release(t, pj);
    release(t, sib);
    release(t, one);
    return MIDINT_OK;
}

static midint_status run(tree *t, size_t count, uint32_t n, const uint32_t *moduli, uint32_t *g, unsigned levels,
                         const others *o)
{
    midint_context *ctx = t->ctx;
    const size_t leaves = (size_t)1 << levels;
    void *node[MAX_LEVELS];
    midint_status st;
    if ((st = product_tree(t, count, n, moduli, levels, levels ? levels - 1 : 0, node)) != MIDINT_OK)
        return st;
    /* the scaled remainder tree (docs/batch_gcd.md): node v of level k holds Y_v of 2 w_k words (w_k = n 2^k), the
     * fraction y_v = frac(P / T_v^2) to 2 w_k words, within a unit per level (y_v = Y_v / B^(2 w_k), B = 2^32). The
     * root's children c (sibling s, w words each) have y_c = frac(T_s / T_c), so Y_c = floor(T_s B^(2w) / T_c) mod
     * B^(2w): where the division of large numbers takes it, one division of T_s B^(2w) (one reciprocal for three
     * blocks of the quotient, the lowest one's estimate uncorrected: up to 92 units low, which the leaves allow);
     * else (q1, r1) = T_s B^w divided by T_c and q2 = r1 B^w / T_c give it as q1 B^w + q2, q2 below B^w. In a part
     * of a split batch T_s is T_s Q mod T_c (fold_others) */
    void *y[MAX_LEVELS];
    if (levels) {
        const size_t w = (size_t)n << (levels - 1);
        const unsigned own = ctx->kernel_max_bits[MIDINT_OP_DIVREM];
        const int one = 32u * w > own && midint_bigdiv_applies(ctx, MIDINT_OP_DIVREM, (unsigned)(32u * w), own) &&
                        32u * (MIDINT_BIGDIV_MAX_BLOCKS + 1u) * w <= midint_max_bits(ctx, MIDINT_OP_SHL); /* its X */
        const size_t xw = one ? 3 * w : 2 * w; /* the dividend's words */
        void *big, *r1, *q1, *q2, *tsp = NULL;
        if ((st = alloc(t, 2 * xw, &big)) != MIDINT_OK || (st = alloc(t, 2 * w, &r1)) != MIDINT_OK ||
            (st = alloc(t, 2 * xw, &q1)) != MIDINT_OK || (st = alloc(t, 4 * w, &y[levels - 1])) != MIDINT_OK ||
            (st = ctx->ops->fill(ctx, big, 0, 2 * xw * 4, t->stream)) != MIDINT_OK)
            return st;
        if (o->count) { /* T_s Q mod T_c at the top */
            if ((st = alloc(t, 2 * w, &tsp)) != MIDINT_OK ||
                (st = fold_others(t, node[levels - 1], w, o, tsp)) != MIDINT_OK ||
                (st = rows(t, big, xw, xw - w, tsp, w, 0, w, 2)) != MIDINT_OK)
                return st;
            release(t, tsp);
        } else if ((st = rows(t, big, xw, xw - w, node[levels - 1], w, w, w, 1)) != MIDINT_OK || /* T_s at the top */
                   (st = rows(t, big, xw, 2 * xw - w, node[levels - 1], w, 0, w, 1)) != MIDINT_OK)
            return st;
        const unsigned abits[] = {(unsigned)(32u * xw)};
        void *const d1[] = {q1, r1, big, node[levels - 1]};
        if ((st = one ? midint_bigdiv_quotient(ctx, (unsigned)(32u * w), abits[0], 2, q1, big, node[levels - 1],
                                               t->stream)
                      : call(t, MIDINT_OP_DIVREM, 2, (uint32_t)w, d1, abits)) != MIDINT_OK)
            return st;
        if (one) {
            if ((st = rows(t, y[levels - 1], 2 * w, 0, q1, xw, 0, 2 * w, 2)) != MIDINT_OK)
                return st;
        } else {
            if ((st = alloc(t, 4 * w, &q2)) != MIDINT_OK)
                return st;
            void *const d2[] = {q2, r1, big, node[levels - 1]};
            if ((st = rows(t, big, 2 * w, w, r1, w, 0, w, 2)) != MIDINT_OK || /* r1 B^w */
                (st = call(t, MIDINT_OP_DIVREM, 2, (uint32_t)w, d2, abits)) != MIDINT_OK ||
                (st = rows(t, y[levels - 1], 2 * w, w, q1, 2 * w, 0, w, 2)) != MIDINT_OK ||
                (st = rows(t, y[levels - 1], 2 * w, 0, q2, 2 * w, 0, w, 2)) != MIDINT_OK)
                return st;
            release(t, q2);
        }
        release(t, big);
        release(t, r1);
        release(t, q1);
        if ((st = phase(t, "root", levels - 1, 2, 2 * w)) != MIDINT_OK)
            return st;
    }
    /* a child c of v (sibling s): y_c = frac(y_v T_s^2), so Y_c is words [2 w_c, 4 w_c) of Y_v T_s^2. Where the
     * NTT grid takes it, that is one product wrapped around modulo B^(4 w_c) - 1 (wrap_product.c), whose fold
     * reaches those words as a carry of at most one; else the low half of Y_v's high half times T_s^2 plus the high
     * half of its low half times it (mod B^(2 w_c)). Each child's product is computed with its own square and
     * written to its sibling. */
    const uint32_t wrap_from = ctx->hooks.wrap_from ? ctx->hooks.wrap_from : WRAP_FROM_WORDS;
    for (unsigned k = levels; k-- > 1;) {
        const size_t c = leaves >> (k - 1), w = (size_t)n << (k - 1); /* c children of 2 w words */
        const int wrap = 4 * w >= wrap_from && midint_wrap_product_applies(ctx, (uint32_t)(4 * w));
        void *sq, *lo = NULL, *hi = NULL, *full;
        if ((st = alloc(t, c * 2 * w, &sq)) != MIDINT_OK || (st = alloc(t, c * 4 * w, &full)) != MIDINT_OK ||
            (st = alloc(t, c * 2 * w, &y[k - 1])) != MIDINT_OK ||
            (st = alloc(t, c * (wrap ? 4 : 2) * w, &lo)) != MIDINT_OK ||
            (!wrap && (st = alloc(t, c * 2 * w, &hi)) != MIDINT_OK))
            return st;
        void *const s[] = {sq, node[k - 1]};
        if ((st = call(t, MIDINT_OP_SQR, c, (uint32_t)w, s, NULL)) != MIDINT_OK ||
            (st = phase(t, "square", k - 1, c, 2 * w)) != MIDINT_OK)
            return st;
        if ((st = wrap ? wrapped(t, c, w, y[k], sq, lo, full, y[k - 1])
                       : halves(t, c, w, y[k], sq, lo, hi, full, y[k - 1])) != MIDINT_OK)
            return st;
        release(t, sq);
        release(t, lo);
        if (hi)
            release(t, hi);
        release(t, full);
        release(t, y[k]);
        release(t, node[k]);
        if ((st = phase(t, wrap ? "wrapped" : "fraction", k - 1, c, 2 * w)) != MIDINT_OK)
            return st;
    }
    /* the leaves: y_i = frac(P / N_i^2) = ((P / N_i) mod N_i) / N_i, so z_i = (P / N_i) mod N_i is y_i N_i rounded
     * to the nearest integer (Y_i N_i / B^(2n) is within 133 / B^n of it: docs/batch_gcd.md), where z_i = N_i
     * stands for 0 (the gcds agree); then gcd(N_i, z_i). One modulus: P / N = 1. */
    void *npad, *x, *bit, *z, *out;
    if ((st = alloc(t, count * 2 * n, &npad)) != MIDINT_OK || (st = alloc(t, count * 4 * n, &x)) != MIDINT_OK ||
        (st = alloc(t, count * n, &bit)) != MIDINT_OK || (st = alloc(t, count * n, &z)) != MIDINT_OK ||
        (st = alloc(t, count * n, &out)) != MIDINT_OK)
        return st;
    if (levels) {
        void *const mf[] = {x, y[0], npad};
        void *const sh[] = {npad, bit, NULL}, *const ad[] = {z, z, npad, NULL}; /* npad free after the product */
        const unsigned by[] = {31u};
        if ((st = ctx->ops->fill(ctx, npad, 0, count * 2 * n * 4, t->stream)) != MIDINT_OK ||
            (st = rows(t, npad, 2 * n, 0, node[0], n, 0, n, count)) != MIDINT_OK ||
            (st = call(t, MIDINT_OP_MUL, count, 2 * n, mf, NULL)) != MIDINT_OK ||
            (st = ctx->ops->fill(ctx, bit, 0, count * n * 4, t->stream)) != MIDINT_OK ||
            (st = rows(t, bit, n, 0, x, 4 * n, 2 * n - 1, 1, count)) != MIDINT_OK ||  /* the fraction's top word */
            (st = call(t, MIDINT_OP_SHR, count, n, sh, by)) != MIDINT_OK ||             /* its top bit: one half */
            (st = rows(t, z, n, 0, x, 4 * n, 2 * n, n, count)) != MIDINT_OK ||          /* the integer part */
            (st = call(t, MIDINT_OP_ADD, count, n, ad, NULL)) != MIDINT_OK)
            return st;
    } else if ((st = ctx->ops->fill(ctx, bit, 1, 4, t->stream)) != MIDINT_OK ||
               (st = ctx->ops->fill(ctx, z, 0, (size_t)n * 4, t->stream)) != MIDINT_OK ||
               (st = rows(t, z, n, 0, bit, 1, 0, 1, 1)) != MIDINT_OK)
        return st;
    if ((st = phase(t, "leaves", 0, count, n)) != MIDINT_OK)
        return st;
    void *const gc[] = {out, node[0], z};
    if ((st = call(t, MIDINT_OP_GCD, count, n, gc, NULL)) != MIDINT_OK ||
        (st = phase(t, "gcd", 0, count, n)) != MIDINT_OK ||
        (st = ctx->ops->download_async(ctx, g, out, 0, count * n * 4, t->stream)) != MIDINT_OK ||
        (st = phase(t, "download", 0, count, n)) != MIDINT_OK)
        return st;
    /* everything back for the next part (a split batch), in stream order */
    void *const done[] = {node[0], levels ? y[0] : NULL, npad, x, bit, z, out};
    for (unsigned i = 0; i < sizeof done / sizeof done[0]; i++)
        release(t, done[i]);
    return ctx->ops->synchronize(ctx, t->stream);
}

/* Whether a tree of 2^levels moduli of `bits` bits is within the context's sizes: the root's children (n 2^(L-1)
 * words) divide each other (and reduce the other parts' products, twice as wide, where the batch is split); their
 * children's fractions (twice their n 2^(L-2) words) are multiplied by those children's squares; the leaves'
 * fractions (2 n words) by the moduli. */
static int fits(midint_context *ctx, unsigned bits, unsigned levels)
{
    const uint64_t top = (uint64_t)bits << levels, half = top / 2, leaf = levels ? 2ull * bits : 0;
    return half <= midint_max_bits(ctx, MIDINT_OP_MOD) && half <= midint_max_bits(ctx, MIDINT_OP_DIVREM) &&
           half <= midint_max_bits(ctx, MIDINT_OP_MUL) && half <= midint_max_bits(ctx, MIDINT_OP_MULLO) &&
           half <= midint_max_bits(ctx, MIDINT_OP_ADD) && top / 4 <= midint_max_bits(ctx, MIDINT_OP_SQR) &&
           leaf <= midint_max_bits(ctx, MIDINT_OP_MUL) && bits <= midint_max_bits(ctx, MIDINT_OP_SHR) &&
           bits <= midint_max_bits(ctx, MIDINT_OP_GCD);
}

/* Device bytes a tree of 2^levels moduli of n words takes at most, with `parts` products of a split batch kept:
 * (levels + TREE_SPARE) n 2^L words. Its own buffers are (levels + 21) n 2^L (counted on PoCL from 2^2 to 2^14
 * moduli), the root division's temporaries 27 n 2^L (27 n words an instance of its w = n 2^(L-1), two instances),
 * and the products' transforms come beside them: the peak of live device memory on an H100 was (levels + 65) to
 * (levels + 71) n 2^L words from 2^16 to 2^20 moduli of 1024 bits. */
#define TREE_SPARE 80u
static uint64_t tree_bytes(uint32_t n, unsigned levels, size_t parts)
{
    return ((uint64_t)n << levels) * 4u * (levels + TREE_SPARE + (parts > 1 ? parts : 0));
}

/* What a call may allocate on the device: what is free, and what the context holds that the call reuses (all it
 * holds but a composed mulmod's temporaries: the kept trees, the workspace, the division's temporaries); the test hook's
 * figure where set; unknown (no limit) where the backend cannot tell. */
static uint64_t device_room(midint_context *ctx)
{
    size_t free_bytes = 0;
    if (ctx->hooks.device_bytes)
        return ctx->hooks.device_bytes;
    if (!ctx->ops->memory_free || ctx->ops->memory_free(ctx, &free_bytes) != MIDINT_OK)
        return UINT64_MAX;
    return (uint64_t)free_bytes + midint_workspace_held(ctx) - ctx->composed_tmp.bytes - ctx->composed_mods.bytes;
}

/* Moduli in part j of a batch of count cut into parts of `per` (the last one shorter). */
static size_t part_count(size_t count, size_t per, size_t j)
{
    return count - j * per < per ? count - j * per : per;
}

/* Parts of 2^part moduli a batch of count takes (1: the batch's own tree of 2^levels). */
static size_t parts_of(size_t count, unsigned part, unsigned levels)
{
    return part == levels ? 1 : (count + ((size_t)1 << part) - 1) >> part;
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
    /* past the context's sizes or the device's memory (or the test hook's part), parts of 2^part moduli, the largest
     * that fit */
    unsigned part = levels;
    const uint64_t room = device_room(ctx);
    while (part > 2 && ctx->hooks.gcd_part && ((size_t)1 << part) > ctx->hooks.gcd_part)
        part--;
    while (part > 2 && (!fits(ctx, bits, part) || tree_bytes(n, part, parts_of(count, part, levels)) > room))
        part--;
    const size_t per = (size_t)1 << part, parts = parts_of(count, part, levels);
    if (fits(ctx, bits, part) && parts <= MAX_PARTS && tree_bytes(n, part, parts) > room)
        return midint_fail(ctx, MIDINT_ERR_OUT_OF_MEMORY, "%s: %zu moduli of %u bits need about %llu bytes of device "
                           "memory in %s of %zu (the product tree's levels, the remainder tree's working set, the "
                           "root's division and the products' transforms); the device has %llu bytes for it",
                           fn, count, bits, (unsigned long long)tree_bytes(n, part, parts),
                           parts > 1 ? "parts" : "one tree", per, (unsigned long long)room);
    if (!fits(ctx, bits, part) || parts > MAX_PARTS)
        return midint_fail(ctx, MIDINT_ERR_BITS_TOO_LARGE, "%s: %zu moduli of %u bits: this context multiplies at "
                           "most %u-bit and divides at most %u-bit numbers, and takes gcds up to %u bits, so a part "
                           "holds at most %zu of them (the product of a part, its count rounded up to a power of two, "
                           "within twice those), and a batch at most %u parts: split the batch", fn, count, bits,
                           midint_max_bits(ctx, MIDINT_OP_MUL), midint_max_bits(ctx, MIDINT_OP_MOD),
                           midint_max_bits(ctx, MIDINT_OP_GCD), fits(ctx, bits, part) ? per : (size_t)0, MAX_PARTS);
    tree t;
    memset(&t, 0, sizeof t);
    t.ctx = ctx;
    const char *trace = getenv("MIDINT_TRACE_BATCH_GCD");
    t.trace = trace && strcmp(trace, "1") == 0;
    midint_status st = t.trace ? ctx->ops->timer_begin(ctx, t.stream) : MIDINT_OK;
    others all = {{NULL}, 0};
    for (size_t j = 0; j < parts && parts > 1 && st == MIDINT_OK; j++) { /* every part's product, kept */
        void *node[MAX_LEVELS];
        if ((st = product_tree(&t, part_count(count, per, j), n, moduli + j * per * n, part, part, node)) ==
            MIDINT_OK) {
            for (unsigned k = 0; k < part; k++)
                release(&t, node[k]);
            all.prod[all.count++] = node[part];
        }
    }
    for (size_t i = 0; i < parts && st == MIDINT_OK; i++) { /* each part with the others' products */
        others o = {{NULL}, 0};
        for (unsigned j = 0; j < all.count; j++)
            if (j != i)
                o.prod[o.count++] = all.prod[j];
        st = run(&t, part_count(count, per, i), n, moduli + i * per * n, g + i * per * n, part, &o);
    }
    if (st != MIDINT_OK)
        ctx->ops->synchronize(ctx, NULL);
    keep_or_free(&t, st == MIDINT_OK);
    return st == MIDINT_OK ? st : midint_fail(ctx, st, "%s: %s", fn, ctx->msg);
}
