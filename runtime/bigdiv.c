/* bigdiv.c — divrem and mod of numbers above their kernels' sizes: the divisor's reciprocal by Newton's iteration,
 * then the quotient a block of n words at a time, each a product by the reciprocal and a product by the divisor,
 * corrected exactly. Every step is an operation's kernels on device buffers (mul, add, sub, the shifts, the small
 * divrem, through kernel_call.c), a copy or fill, or one of the runtime's five helper kernels
 * (templates/kernel_div_steps.j2); docs/operations.md, "Division of large numbers", has the method and its bounds.
 *
 * Notation: B = 2^32, n the divisor's words, D' = D 2^s the divisor normalised (its top bit set; s per instance), d =
 * D' / B^n in [1/2, 1). The reciprocal is kept as V = B^n + V' (V' of n words, the leading 1 implicit), an
 * underestimate of B^(2n) / D' by at most 89 units (the bound below). */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "backend.h"
#include "bigdiv.h"
#include "kernel_call.h"
#include "plan.h"
#include "registry.h"
#include "replay.h"
#include "wrap_product.h"

/* The base of the iteration: V of b words from one division B^(2b) / (top b words of D' + 1) by the divrem kernels,
 * so b + 1 words must be within their sizes. */
#define BASE_MAX_WORDS 1023u
/* Levels of the iteration at most (n halves at each: 2^27 bits is 22). */
#define MAX_LEVELS 40
/* The top level doubles exactly (its second product at n/2 words, not n/2 + 1) by truncating its error term 4 bits
 * lower; its reciprocal is then within 89 units, so the quotient of a block within 92 (its remainder below 93 D'):
 * the correction is counted from the remainder's top words within one (the cmul helper), the rest single steps. */
#define TOP_SHIFT 4u
/* Single corrections after those until none changes anything: a guard that the bounds make idle. */
#define MAX_EXTRA_ROUNDS 64
/* A block whose YH has at most this many nonzero words (and at most n / 2 - 1) takes its quotient from V''s top words
 * and q D' from the smul helper, whose threads take a product per word of q: two O(n) kernels in place of two
 * products of n words (the top block of a dividend that the normalising shift pushed past its words, batch GCD's
 * root, a dividend of the divisor's width). */
#define SHORT_MAX_WORDS 64u
/* A level's first product, (U - 1) V of w by h + 1 words, is w + h + 1 words long, but mul of two w-word operands
 * takes a transform of the power of two at or above 2 w points: below the top two levels w is a power of two plus one
 * (w = n / 2^i + 1) and that is twice the product's length. A product on the NTT grid of exactly its length
 * (wrap_product.c with nothing to fold) takes half, from products of this many words (below, the one-block kernels'
 * mul is faster; MIDINT_TEST_WRAP_FROM lowers it for the CPU tests). */
#define EXACT_FROM_WORDS 4096u
/* A level's second product, V' E_t, is of h-word operands, h a power of two plus one below the top two levels (and
 * E_t of h - 1 words at the second), so mul takes twice the transform that h - 1 words would. From products of this
 * many words (h - 1: about 50 us of the full product's transform on an H200, against the split's ~8 more launches)
 * the level splits the bottom word off V' and the top word off E_t: a product of h - 1 words and the rows of the
 * split words (the xmul helper) added to it (MIDINT_TEST_SPLIT_FROM sets it for the tests). */
#define SPLIT_FROM_WORDS (1u << 18)
/* From divisors of this many words (even), the quotient comes in blocks of t = n / 2 words from the reciprocal of D''s
 * top t words: a block's estimate is then a product of t words and q D' one of n, and the reciprocal has no level of
 * n words, whose two products (n by n / 2 + 1 and n / 2 words) cost more than the two half blocks' extra t-word
 * products (MIDINT_TEST_HALF_FROM sets it for the tests). */
#define HALF_FROM_WORDS (1u << 21)

/* The temporaries: each holds the pass's m instances at one width at a time (stride = that width), within its
 * capacity of per_n n + fixed words an instance (about 27 n in all). The reciprocal's (UT .. C1S) are free once it is
 * made, so the blocks of the quotient reuse them under their own names. */
enum {
    R_X, R_BIG, R_DN, R_DN1, R_VA, R_VB, R_UT, R_VP, R_VPE, R_E, R_E2, R_ET, R_P2, R_C2, R_C2W, R_C1, R_C1S, R_ZERO,
    R_LZ, R_LZX, R_ONES, R_BR, R_CNT, R_COUNT,
    R_YH = R_VP, R_YL = R_VPE, R_T = R_E, R_TT = R_E2, R_CB = R_C1, R_Q = R_C2W, R_RA = R_P2,
    R_RB = R_C2
};
static const struct {
    unsigned per_n, fixed, per_call; /* per_call: words for the whole pass beside those per instance (a flag) */
} REGIONS[R_COUNT] = {
    /* X = A << s and A's zero-extended copy: a block above the dividend's */
    [R_X] = {MIDINT_BIGDIV_MAX_BLOCKS + 1, 0, 0}, [R_BIG] = {MIDINT_BIGDIV_MAX_BLOCKS + 1, 2, 0},
    [R_DN] = {1, 0, 0},  [R_DN1] = {1, 1, 0}, [R_VA] = {1, 0, 0},
    [R_VB] = {1, 0, 0},  [R_UT] = {1, 0, 0},  [R_VP] = {1, 0, 0},  [R_VPE] = {1, 1, 0}, [R_E] = {1, 1, 0},
    [R_E2] = {1, 1, 0},  [R_ET] = {1, 0, 0},  [R_P2] = {2, 2, 0},  [R_C2] = {2, 2, 0},  [R_C2W] = {1, 0, 0},
    [R_C1] = {1, 0, 0},  [R_C1S] = {1, 0, 0}, [R_ZERO] = {1, 1, 0}, [R_LZ] = {0, 1, 1}, [R_LZX] = {0, 1, 1},
    [R_ONES] = {0, 1, 0}, [R_BR] = {0, 1, 0}, [R_CNT] = {0, 1, 1},
};

_Static_assert(R_COUNT <= MIDINT_BIGDIV_BUFFERS, "a context buffer per region");

typedef struct bigdiv {
    midint_context *ctx;
    void *stream;
    int estimate;      /* the lowest block's quotient estimate alone, no remainder (midint_bigdiv_quotient) */
    size_t m;          /* instances of this pass */
    uint32_t n;        /* the divisor's words */
    uint32_t t;        /* the quotient's words a block, and the reciprocal's (the top t words of D'): n or n / 2 */
    void *r[R_COUNT];  /* the regions' handles */
    const midint_kernel *lz, *cmul, *smul, *xmul, *pick, *place;
    int trace;         /* MIDINT_TRACE_BIGDIV=1: each phase's wall time and library steps to stderr */
    unsigned steps;    /* library calls, copies and fills queued since the last phase */
    unsigned singles;  /* the last correction's single subtractions that changed something (1 at most: the bounds) */
    double since;      /* when the last phase ended (seconds) */
} bigdiv;

static double now(void)
{
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (double)t.tv_sec + 1e-9 * (double)t.tv_nsec;
}

/* The phase just queued (`what` at w words) has ended: with tracing on, wait for the stream and print the wall time
 * since the last phase, the steps it queued and the host's time to queue them (near the wall time where the host
 * bounds it). Wall time, not the backend's events, so that a phase of many small steps shows what their launches
 * cost, and so that batch_gcd's own trace (which uses the events) can run with it. */
static midint_status phase(bigdiv *z, const char *what, uint32_t w)
{
    if (!z->trace)
        return MIDINT_OK;
    const double queued = now();
    midint_status st = z->ctx->ops->synchronize(z->ctx, z->stream);
    const double t = now();
    fprintf(stderr, "midint bigdiv: %-9s %10u words %4u steps %9.3f ms (%.3f ms to queue them)\n", what, w, z->steps,
            1e3 * (t - z->since), 1e3 * (queued - z->since));
    z->steps = 0;
    z->since = t;
    return st;
}

static size_t region_words(unsigned k, uint32_t n, size_t m)
{
    return ((size_t)REGIONS[k].per_n * n + REGIONS[k].fixed) * m + REGIONS[k].per_call;
}

/* Bytes of every region for m instances. */
static size_t regions_bytes(uint32_t n, size_t m)
{
    size_t total = 0;
    for (unsigned k = 0; k < R_COUNT; k++)
        total += region_words(k, n, m) * 4;
    return total;
}

size_t midint_bigdiv_instance_bytes(unsigned bits)
{
    return regions_bytes(bits / 32u, 1);
}

size_t midint_bigdiv_pass(const midint_context *ctx, unsigned bits, size_t count)
{
    size_t fit = midint_workspace_cap(ctx) / 2 / midint_bigdiv_instance_bytes(bits); /* m of them hold m instances */
    return fit < count ? fit : count;
}

/* ---- the steps, on the pass's m instances ---- */

/* Copy k words of every instance: src's words [soff, soff + k) of its sw-word instances to dst's [doff, doff + k) of
 * its dw-word ones (an offset past the first instance starts at a later one: the caller's buffers, a pass at a time). */
static midint_status copy(bigdiv *z, void *dst, uint32_t dw, size_t doff, const void *src, uint32_t sw, size_t soff,
                          uint32_t k)
{
    z->steps++;
    return midint_copy_words(z->ctx, dst, dw, doff, src, sw, soff, k, z->m, z->stream);
}

static midint_status zero(bigdiv *z, void *dst, uint32_t w)
{
    z->steps++;
    return z->ctx->ops->fill(z->ctx, dst, 0, (size_t)w * 4 * z->m, z->stream);
}

/* One library operation on the pass's instances at w words. */
static midint_status op(bigdiv *z, midint_op o, uint32_t w, void *const *bufs, const unsigned *scalars)
{
    z->steps++;
    return midint_kernel_call(z->ctx, o, z->m, 32u * w, bufs, scalars, z->stream);
}

static midint_status add(bigdiv *z, uint32_t w, void *r, const void *a, const void *b)
{
    void *const bufs[] = {r, (void *)a, (void *)b, NULL};
    return op(z, MIDINT_OP_ADD, w, bufs, NULL);
}

static midint_status sub(bigdiv *z, uint32_t w, void *r, const void *a, const void *b, void *borrow)
{
    void *const bufs[] = {r, (void *)a, (void *)b, borrow};
    return op(z, MIDINT_OP_SUB, w, bufs, NULL);
}

static midint_status mul(bigdiv *z, uint32_t w, void *r, const void *a, const void *b)
{
    void *const bufs[] = {r, (void *)a, (void *)b};
    return op(z, MIDINT_OP_MUL, w, bufs, NULL);
}

/* r = a << shift or a >> shift (shifts: per instance, or NULL) at w words; r is not a. */
static midint_status shift(bigdiv *z, midint_op o, uint32_t w, void *r, const void *a, unsigned by, const void *shifts)
{
    void *const bufs[] = {r, (void *)a, (void *)shifts};
    const unsigned scalars[] = {by};
    return op(z, o, w, bufs, scalars);
}

/* One of the runtime's helper kernels over the pass's m instances, `threads` threads in all (l holds its buffers and
 * parameters). */
static midint_status launch_helper(bigdiv *z, const midint_kernel *k, midint_launch *l, uint64_t threads)
{
    l->count = z->m;
    l->grid = (threads + k->block - 1) / k->block;
    z->steps++;
    return z->ctx->ops->launch(z->ctx, k, l, z->stream);
}

static midint_status helper(bigdiv *z, const midint_kernel *k, uint64_t threads, void *r, const void *a,
                            const void *b, void *aux, void *ws, uint32_t n, uint32_t x0)
{
    midint_launch l;
    memset(&l, 0, sizeof l);
    l.r = r;
    l.a = a;
    l.b = b;
    l.aux = aux;
    l.ws = ws;
    l.n = n;
    l.x0 = x0;
    return launch_helper(z, k, &l, threads);
}

/* dst (dw words an instance) = zeros with src's words [soff, soff + k) (sw-word instances) at doff and one word of
 * `then` (a word an instance) after them where it is given: a fill and one or two copies in one launch (the place
 * helper), so that a level queues fewer steps (each about 3.5 us of host time on CUDA). dst is not src or then. */
static midint_status place(bigdiv *z, void *dst, uint32_t dw, uint32_t doff, const void *src, uint32_t sw,
                           uint32_t soff, uint32_t k, const void *then)
{
    midint_launch l;
    memset(&l, 0, sizeof l);
    l.r = dst;
    l.a = src;
    l.b = then;
    l.vec = then != NULL;
    l.n = dw;
    l.ti = sw;
    l.inst0 = soff;
    l.x0 = k;
    l.x1 = doff;
    return launch_helper(z, z->place, &l, (uint64_t)z->m * dw);
}

/* lz[i] = the leading zero bits of instance i of x (w words), lz[m] their least over the pass. */
static midint_status leading_zeros(bigdiv *z, void *lz, const void *x, uint32_t w)
{
    const uint32_t per_thread = 8;
    midint_status st = z->ctx->ops->fill(z->ctx, lz, 32u * w, (z->m + 1) * 4, z->stream);
    return st != MIDINT_OK ? st
                           : helper(z, z->lz, z->m * ((w + per_thread - 1) / per_thread), lz, x, NULL, NULL, NULL,
                                    w, per_thread);
}

static midint_status read_word(bigdiv *z, void *buf, size_t index, uint32_t *out)
{
    midint_status st = z->ctx->ops->download_async(z->ctx, out, buf, index * 4, 4, z->stream);
    return st != MIDINT_OK ? st : z->ctx->ops->synchronize(z->ctx, z->stream);
}

/* CNT[0 .. m] = 0: the instances' counts and the flag after them, before a correction counts into them. */
static midint_status clear_counts(bigdiv *z)
{
    return z->ctx->ops->fill(z->ctx, z->r[R_CNT], 0, (z->m + 1) * 4, z->stream);
}

/* r (n + 1 words) less d wherever that does not borrow, CNT[i] += x0 there and CNT[m] = 1 if anywhere. */
static midint_status subtract_where_it_fits(bigdiv *z, void *r, const void *d, uint32_t x0)
{
    const uint32_t w = z->n + 1;
    midint_status st = sub(z, w, z->r[R_T], r, d, z->r[R_BR]);
    return st != MIDINT_OK ? st
                           : helper(z, z->pick, (uint64_t)z->m * w, r, z->r[R_T], z->r[R_BR], z->r[R_CNT], NULL, w, x0);
}

/* r (n + 1 words, below 128 D') less c D' with c = floor(r / D') or one less, counted from r's top words (cmul: c D'
 * as two numbers, each subtracted without a borrow, c into CNT, zeroed first); then single subtractions, the flag
 * CNT[m] read back after each, until one changes nothing. Leaves r < D' and CNT[i] the correction of instance i's
 * quotient estimate. One kernel and two subtractions in place of seven conditional subtractions of D' 2^j. */
static midint_status correct(bigdiv *z, void *r)
{
    midint_context *ctx = z->ctx;
    const uint32_t w = z->n + 1;
    void *cnt = z->r[R_CNT], *lo = z->r[R_T], *hi = z->r[R_TT];
    midint_status st;
    if ((st = clear_counts(z)) != MIDINT_OK ||
        (st = helper(z, z->cmul, (uint64_t)z->m * w, lo, r, z->r[R_DN1], cnt, hi, w, 0)) != MIDINT_OK ||
        (st = sub(z, w, r, r, lo, NULL)) != MIDINT_OK || (st = sub(z, w, r, r, hi, NULL)) != MIDINT_OK)
        return st;
    for (int round = 0; st == MIDINT_OK; round++) {
        uint32_t changed = 0;
        if (round == MAX_EXTRA_ROUNDS)
            return midint_fail(ctx, MIDINT_ERR_DEVICE, "the division's quotient estimate was off by more than its "
                               "bound (a defect: please report it with the operands)");
        if ((st = ctx->ops->copy_rect(ctx, cnt, z->m * 4, 4, z->r[R_ZERO], 0, 4, 4, 1, z->stream)) != MIDINT_OK ||
            (st = subtract_where_it_fits(z, r, z->r[R_DN1], 1)) != MIDINT_OK ||
            (st = read_word(z, cnt, z->m, &changed)) != MIDINT_OK || !changed) {
            z->singles = (unsigned)round;
            break;
        }
    }
    return st;
}

/* With tracing on: the block's largest correction over the pass (CNT: what the estimate was below the quotient, at
 * most the reciprocal's error + 4 by the bounds) and its single subtractions, so that tests can hold the reciprocal to
 * its bound (an estimate further off still ends exact, by more single subtractions). */
static midint_status trace_corrections(bigdiv *z)
{
    if (!z->trace)
        return MIDINT_OK;
    uint32_t most = 0, c;
    for (size_t i = 0; i < z->m; i++) {
        midint_status st = read_word(z, z->r[R_CNT], i, &c);
        if (st != MIDINT_OK)
            return st;
        most = c > most ? c : most;
    }
    fprintf(stderr, "midint bigdiv: correction %u at most, %u single\n", most, z->singles);
    return MIDINT_OK;
}

/* r (n + 1 words) = YL - q D' mod B^(n + 1) for a whole block's q (n words): a product of n words. */
static midint_status whole_remainder(bigdiv *z, const void *q, const void *yl, void *r)
{
    const uint32_t n = z->n;
    void *p = z->r[R_BIG];
    midint_status st;
    if ((st = mul(z, n, p, q, z->r[R_DN])) != MIDINT_OK || (st = copy(z, r, n + 1, 0, p, 2 * n, 0, n + 1)) != MIDINT_OK)
        return st;
    return sub(z, n + 1, r, yl, r, NULL);
}

/* The same for a half block's q (t = n / 2 words) where a product of n words runs in pieces (past one transform: the
 * 2^29-bit divisor): q D' mod B^(2t + 1) = q D'_lo + (q D'_hi mod B^(t + 1)) B^t, two products of t words (D''s
 * halves in UT and ET, the second product in C1S, free in a block), which cost less there (an H200: 2 x 1.88 against
 * 4.13 ms; within one transform they cost more, 2^27 bits 5.95-6.03 ms against 5.81-5.84). Elsewhere q
 * zero-extended (in UT) times D'. */
static midint_status half_remainder(bigdiv *z, const void *q, const void *yl, void *r)
{
    const uint32_t n = z->n, t = z->t;
    void *p = z->r[R_BIG], *dl = z->r[R_UT], *dh = z->r[R_ET], *ph = z->r[R_C1S], *sh = z->r[R_T];
    midint_status st;
    if (n <= midint_ntt_piece_words(z->ctx))
        return (st = place(z, dl, n, 0, q, t, 0, t, NULL)) != MIDINT_OK ? st : whole_remainder(z, dl, yl, r);
    if ((st = place(z, dl, t, 0, z->r[R_DN], n, 0, t, NULL)) != MIDINT_OK ||
        (st = place(z, dh, t, 0, z->r[R_DN], n, t, t, NULL)) != MIDINT_OK || (st = mul(z, t, p, q, dl)) != MIDINT_OK ||
        (st = mul(z, t, ph, q, dh)) != MIDINT_OK ||
        (st = place(z, r, n + 1, 0, p, 2 * t, 0, 2 * t, NULL)) != MIDINT_OK ||
        (st = sub(z, n + 1, r, yl, r, NULL)) != MIDINT_OK ||
        (st = place(z, sh, n + 1, t, ph, 2 * t, 0, t + 1, NULL)) != MIDINT_OK)
        return st;
    return sub(z, n + 1, r, r, sh, NULL);
}

/* One block of the quotient: Y = R B^t + X_j (R below D', n words; X_j t words) divided by D': q (t words) and r = Y -
 * q D' (n + 1 words, below D'), from YH = R's top t words and YL = Y's low n + 1 words. YH is below B^k for every
 * instance (k from the dividend's leading zeros: run_pass). With T = D''s top t words, V = B^t + V' (t words) is
 * within 89 units below B^(2t) / (T + 1), and the estimate YH + floor(YH V' / B^t) = floor(YH V / B^t) is at most
 * Y / D' (YH B^n <= Y, (T + 1) B^(n - t) > D') and below it by less than YH B^t / (T (T + 1)) + B^t / T + 90 < 94
 * (Y < (YH + 1) B^n, D' >= T B^(n - t), YH <= T, B^t / T <= 2): t = n is the classic case.
 * - k = 0 (the quotient is 0 or 1): r = YL less D' where it fits, no products and no estimate; with `below` (Y < D'
 *   for every instance) not even that.
 * - k short (at most SHORT_MAX_WORDS and the block's words / 2 - 1): the estimate from V''s top k + 1 words (V_k,
 *   V' shifted down: it drops less than 1 / B of YH V' over the block's scale, so it is the full estimate or one
 *   less), by a product of k + 1 words; q D' by the smul helper (three numbers, each subtracted mod B^(n + 1)).
 * - otherwise the estimate by a product of the block's words and q D' mod B^(n+1) by whole_remainder or
 *   half_remainder.
 * Each estimate is at most the quotient and within the reciprocal's error + 4 of it; r is exact mod B^(n+1), which
 * holds it. With `estimate` (the full route only), q is the estimate alone (at most 93 below the quotient) and r is
 * not made. */
static midint_status block(bigdiv *z, const void *yh, const void *yl, void *q, void *r, uint32_t k, int below,
                           int estimate)
{
    const uint32_t n = z->n, bw = z->t, t = k + 1u;
    void *p = z->r[R_BIG], *cb = z->r[R_CB];
    midint_status st = MIDINT_OK;
    if (k == 0) {
        if ((st = copy(z, r, n + 1, 0, yl, n + 1, 0, n + 1)) != MIDINT_OK || below)
            return st != MIDINT_OK ? st : zero(z, q, bw); /* Y below D' for every instance: q = 0, r = Y */
        /* Y < B^n <= 2 D' (YH is 0): D' subtracted once where it fits and q the count; no estimate to correct, so
         * none of correct()'s steps and no read-back */
        z->singles = 0;
        if ((st = clear_counts(z)) != MIDINT_OK || (st = subtract_where_it_fits(z, r, z->r[R_DN1], 1)) != MIDINT_OK ||
            (st = trace_corrections(z)) != MIDINT_OK)
            return st;
        return place(z, q, bw, 0, z->r[R_CNT], 1, 0, 1, NULL);
    } else if (k <= SHORT_MAX_WORDS && 2u * t <= bw) {
        /* the reciprocal's regions are free here: YH's words and V_t, their product, the estimate */
        void *yt = z->r[R_UT], *vt = z->r[R_ET], *pt = z->r[R_C1S], *qt = z->r[R_VB];
        void *lo = z->r[R_T], *mid = z->r[R_TT], *hi = p;
        if ((st = place(z, yt, t, 0, yh, bw, 0, k, NULL)) != MIDINT_OK ||
            (st = copy(z, vt, t, 0, z->r[R_VA], bw, bw - t, t)) != MIDINT_OK ||
            (st = mul(z, t, pt, yt, vt)) != MIDINT_OK || (st = copy(z, qt, t, 0, pt, 2 * t, t, t)) != MIDINT_OK ||
            (st = add(z, t, qt, qt, yt)) != MIDINT_OK ||
            (st = helper(z, z->smul, (uint64_t)z->m * (n + 1), lo, qt, z->r[R_DN1], hi, mid, n + 1, t)) !=
                MIDINT_OK ||
            (st = sub(z, n + 1, r, yl, lo, NULL)) != MIDINT_OK || (st = sub(z, n + 1, r, r, mid, NULL)) != MIDINT_OK ||
            (st = sub(z, n + 1, r, r, hi, NULL)) != MIDINT_OK ||
            (st = place(z, q, bw, 0, qt, t, 0, t, NULL)) != MIDINT_OK)
            return st;
    } else if ((st = mul(z, bw, p, yh, z->r[R_VA])) != MIDINT_OK ||
               (st = copy(z, q, bw, 0, p, 2 * bw, bw, bw)) != MIDINT_OK || (st = add(z, bw, q, q, yh)) != MIDINT_OK ||
               estimate || (st = bw == n ? whole_remainder(z, q, yl, r) : half_remainder(z, q, yl, r)) != MIDINT_OK) {
        return st; /* a failure, or the estimate alone */
    }
    if ((st = correct(z, r)) != MIDINT_OK || (st = trace_corrections(z)) != MIDINT_OK ||
        (st = place(z, cb, bw, 0, z->r[R_CNT], 1, 0, 1, NULL)) != MIDINT_OK)
        return st;
    return add(z, bw, q, q, cb);
}

/* The base: V' of b words with B^b + V' = floor(B^(2b) / U), U = (the top b words of D') + 1 <= B^b, by one small
 * divrem: an underestimate of B^(2b) / d within 5 units. Into VA. */
static midint_status base(bigdiv *z, uint32_t b)
{
    const uint32_t n = z->n;
    void *u = z->r[R_VPE], *num = z->r[R_C2], *quo = z->r[R_P2], *rem = z->r[R_E], *one = z->r[R_E2];
    midint_status st;
    if ((st = place(z, u, b + 1, 0, z->r[R_DN], n, n - b, b, NULL)) != MIDINT_OK ||
        (st = place(z, one, b + 1, 0, z->r[R_ONES], 1, 0, 1, NULL)) != MIDINT_OK ||
        (st = add(z, b + 1, u, u, one)) != MIDINT_OK ||
        (st = place(z, num, 2 * b + 2, 2 * b, z->r[R_ONES], 1, 0, 1, NULL)) != MIDINT_OK)
        return st;
    void *const bufs[] = {quo, rem, num, u};
    const unsigned abits[] = {64u * (b + 1)};
    if ((st = op(z, MIDINT_OP_DIVREM, b + 1, bufs, abits)) != MIDINT_OK)
        return st;
    return copy(z, z->r[R_VA], b, 0, quo, 2 * b + 2, 0, b);
}

/* Whether a level's (U - 1) V takes the grid product of its own length (EXACT_FROM_WORDS): a shorter transform than
 * mul's at w words, by the planner's own rule for both (plan.h). */
static int exact_product_pays(bigdiv *z, uint32_t w, uint32_t h)
{
    const uint64_t len = (uint64_t)w + h + 1;
    const uint32_t from = z->ctx->hooks.wrap_from ? z->ctx->hooks.wrap_from : EXACT_FROM_WORDS;
    return midint_bit_length(len - 1) < midint_bit_length(2ull * w - 2) && len >= from &&
           midint_wrap_product_applies(z->ctx, (uint32_t)len);
}

/* Whether a level's V' E_t (h words each) takes the split product: mul at h - 1 words has half mul's transform at h
 * (h - 1 a power of two), and the product is long enough for that to outweigh the split's launches. */
static int split_pays(bigdiv *z, uint32_t h)
{
    const uint32_t from = z->ctx->hooks.split_from ? z->ctx->hooks.split_from : SPLIT_FROM_WORDS;
    return h >= 3 && h - 1 >= from && midint_bit_length(2ull * h - 4) < midint_bit_length(2ull * h - 2);
}

/* out (2 h - 1 words) = floor(V' E_t / B), V' (in VA) and E_t (in ET) of h words: with V' = v0 + B A and E_t = E_lo +
 * e B^(h - 1), the product A E_lo of h - 1 words plus the xmul helper's two numbers (its rows of v0 and of e). The
 * reciprocal's regions UT, VP, P2, C2 and E2 are free at this point of a level whose k is 0. */
static midint_status split_product(bigdiv *z, uint32_t h, void *out)
{
    void *va = z->r[R_VA], *et = z->r[R_ET], *a = z->r[R_UT], *el = z->r[R_VP], *prod = z->r[R_P2];
    void *lo = z->r[R_C2], *hi = z->r[R_E2];
    const uint32_t ow = 2 * h - 1;
    midint_status st;
    if ((st = place(z, a, h - 1, 0, va, h, 1, h - 1, NULL)) != MIDINT_OK ||  /* A = V' >> 32 */
        (st = place(z, el, h - 1, 0, et, h, 0, h - 1, NULL)) != MIDINT_OK || /* E_lo */
        (st = mul(z, h - 1, prod, a, el)) != MIDINT_OK ||
        (st = helper(z, z->xmul, (uint64_t)z->m * ow, lo, va, et, hi, NULL, ow, h)) != MIDINT_OK ||
        (st = place(z, out, ow, 0, prod, 2 * h - 2, 0, 2 * h - 2, NULL)) != MIDINT_OK ||
        (st = add(z, ow, out, out, lo)) != MIDINT_OK)
        return st;
    return add(z, ow, out, out, hi);
}

/* dst (dw words) = the low dw words of src (sw words) >> by, through tmp (sw words): a shift and a copy. Where `by` is
 * whole words the level takes one place() instead. */
static midint_status shifted(bigdiv *z, void *dst, uint32_t dw, void *tmp, const void *src, uint32_t sw, unsigned by)
{
    midint_status st = shift(z, MIDINT_OP_SHR, sw, tmp, src, by, NULL);
    return st != MIDINT_OK ? st : copy(z, dst, dw, 0, tmp, sw, 0, dw);
}

/* One level: from V' of h words in VA to V' of w words (h < w <= 2h) in VA. With U = (top w words of D') + 1 and
 * V = B^h + V', E = B^(w+h) - U V >= 0 (V never passes 1 / U's scale: both only round down) and below 8 B^w, so it is
 * computed mod B^(w+1) from the product; then V_w = V B^(w-h) + floor(V E_t 2^k / B^h) with E_t = floor(E / (B^h
 * 2^k)), which is V' B^(w-h) + (E_t << k) + (V' E_t >> (32 h - k)). k = 0 where w < 2h (each level's error stays
 * within 7 units) and TOP_SHIFT at the top (w = 2h: E_t of h words, not h + 1). With k = 0 both shifts are whole
 * words: E_t is E's words [h, w + 1), at most h of them, and V' E_t >> 32 h the product's words [h, 2 h). */
static midint_status level(bigdiv *z, uint32_t h, uint32_t w, unsigned k)
{
    const uint32_t n = z->n;
    void *ut = z->r[R_UT], *vp = z->r[R_VP], *vpe = z->r[R_VPE], *p1 = z->r[R_BIG], *e = z->r[R_E], *e2 = z->r[R_E2];
    void *et = z->r[R_ET], *p2 = z->r[R_P2], *c2 = z->r[R_C2], *c2w = z->r[R_C2W], *c1 = z->r[R_C1];
    void *c1s = z->r[R_C1S], *va = z->r[R_VA], *vn = z->r[R_VB];
    /* (U - 1) V: by mul at w words (V zero-extended to w), or where that would take twice the transform, on the grid
     * at its own length of w + h + 1 words (V of h + 1 words) */
    const int exact = exact_product_pays(z, w, h);
    const uint32_t vw = exact ? h + 1 : w, pw = exact ? w + h + 1 : 2 * w;
    /* V' E_t: by mul at h words into P2, or split (words from 1 up, into E) */
    const int split = !k && split_pays(z, h);
    void *ve = split ? e : p2;
    const uint32_t vew = split ? 2 * h - 1 : 2 * h;
    midint_status st;
    if ((st = copy(z, ut, w, 0, z->r[R_DN], n, n - w, w)) != MIDINT_OK ||           /* top w words of D' */
        (st = place(z, vp, vw, 0, va, h, 0, h, z->r[R_ONES])) != MIDINT_OK ||         /* V, h + 1 words */
        (st = exact ? midint_wrap_product(z->ctx, z->m, w, h + 1, pw, p1, ut, vp, z->stream)
                    : mul(z, w, p1, ut, vp)) != MIDINT_OK ||                            /* (U - 1) V */
        (st = place(z, vpe, w + 1, 0, vp, vw, 0, h + 1, NULL)) != MIDINT_OK ||
        (st = copy(z, e, w + 1, 0, p1, pw, 0, w + 1)) != MIDINT_OK ||
        (st = sub(z, w + 1, e, z->r[R_ZERO], e, NULL)) != MIDINT_OK ||                   /* -(U - 1) V - V */
        (st = sub(z, w + 1, e, e, vpe, NULL)) != MIDINT_OK ||
        (st = k ? shifted(z, et, h, e2, e, w + 1, 32u * h + k) : place(z, et, h, 0, e, w + 1, h, w + 1 - h, NULL)) !=
            MIDINT_OK ||                                                                  /* E_t */
        (st = split ? split_product(z, h, ve) : mul(z, h, p2, va, et)) != MIDINT_OK ||  /* V' E_t */
        (st = k ? shifted(z, c2w, w, c2, p2, 2 * h, 32u * h - k) : place(z, c2w, w, 0, ve, vew, h - split, h, NULL)) !=
            MIDINT_OK ||
        (st = place(z, vn, w, w - h, va, h, 0, h, NULL)) != MIDINT_OK || (st = add(z, w, vn, vn, c2w)) != MIDINT_OK ||
        (st = place(z, c1, w, 0, et, h, 0, h, NULL)) != MIDINT_OK)
        return st;
    if (k && (st = shift(z, MIDINT_OP_SHL, w, c1s, c1, k, NULL)) != MIDINT_OK)
        return st;
    if ((st = add(z, w, vn, vn, k ? c1s : c1)) != MIDINT_OK)
        return st;
    z->r[R_VA] = vn; /* the new V' is VA from here */
    z->r[R_VB] = va;
    return MIDINT_OK;
}

/* V' of n words in VA: the widths from the top, each level's h from its w (at the top ceil(w / 2), below ceil((w +
 * 1) / 2) so that w < 2h), down to a base of at most `base_max` words; then up. */
static midint_status reciprocal(bigdiv *z, uint32_t base_max)
{
    uint32_t widths[MAX_LEVELS + 1];
    unsigned levels = 0;
    widths[0] = z->t;
    while (widths[levels] > base_max && levels < MAX_LEVELS) {
        uint32_t w = widths[levels];
        widths[levels + 1] = levels == 0 ? (w + 1) / 2 : (w + 2) / 2;
        levels++;
    }
    midint_status st = base(z, widths[levels]);
    if (st == MIDINT_OK)
        st = phase(z, "base", widths[levels]);
    for (unsigned i = levels; i-- > 0 && st == MIDINT_OK;)
        if ((st = level(z, widths[i + 1], widths[i], i == 0 ? TOP_SHIFT : 0u)) == MIDINT_OK)
            st = phase(z, "level", widths[i]);
    return st;
}

/* The reciprocal, recorded and replayed (replay.c): its steps depend on n, m and the base's width alone, and it reads
 * and writes only the temporaries (D' in DN, V' in VA), so a division of a shape seen before launches its Newton
 * levels whole, where each of their hundreds of small steps cost the host more than the device (H200: 0.12-0.21 ms
 * a level below 2^18 words). It leaves the swapped VA and VB behind. A traced run times each level instead. */
typedef struct reciprocal_job {
    bigdiv *z;
    uint32_t base_max;
} reciprocal_job;

static midint_status reciprocal_work(void *arg)
{
    const reciprocal_job *j = arg;
    return reciprocal(j->z, j->base_max);
}

static midint_status reciprocal_replayed(bigdiv *z, uint32_t base_max)
{
    if (z->trace)
        return reciprocal(z, base_max);
    const uint64_t key[4] = {MIDINT_REPLAY_RECIPROCAL, z->n | (uint64_t)z->t << 32, z->m,
                             base_max | (uint64_t)z->ctx->hooks.wrap_from << 32};
    reciprocal_job job = {z, base_max};
    void **left[] = {&z->r[R_VA], &z->r[R_VB]};
    return midint_replay(z->ctx, z->stream, key, reciprocal_work, &job, left, 2);
}

/* The regions of an m-instance pass: the context's buffers, grown to size. */
static midint_status bind_regions(bigdiv *z)
{
    for (unsigned k = 0; k < R_COUNT; k++) {
        midint_status st = midint_workspace_grow(z->ctx, &z->ctx->div_tmp[k], region_words(k, z->n, z->m) * 4);
        if (st != MIDINT_OK)
            return st;
        z->r[k] = z->ctx->div_tmp[k].buf;
    }
    return MIDINT_OK;
}

/* One pass of m instances from instance `first` of the caller's buffers (read and written by copies at offsets: a
 * backend may allow no part of a part of a buffer, as OpenCL's sub-buffers of the host path's). */
static midint_status run_pass(bigdiv *z, midint_op o, unsigned abits, void *const *bufs, size_t first,
                              uint32_t base_max)
{
    midint_context *ctx = z->ctx;
    const uint32_t n = z->n, a = abits / 32u;
    const int divrem = o == MIDINT_OP_DIVREM;
    void *qout = divrem ? bufs[0] : NULL, *rout = divrem ? bufs[1] : bufs[0];
    const void *ain = divrem ? bufs[2] : bufs[1], *din = divrem ? bufs[3] : bufs[2];
    void *x = z->r[R_X], *xz = z->r[R_BIG], *lz = z->r[R_LZ], *d = z->r[R_UT];
    uint32_t top_zeros = 0;
    midint_status st;
    /* the inputs into the temporaries first (the outputs may be them), normalised: D' = D << s, X = A << s, X of
     * nb + 1 blocks of n words (the top one below 2^s) */
    const uint32_t nb = a > 2 * n ? (a + n - 1) / n : 2, xw = (nb + 1) * n;
    if ((st = ctx->ops->fill(ctx, z->r[R_ONES], 1, z->m * 4, z->stream)) != MIDINT_OK ||
        (st = zero(z, z->r[R_ZERO], n + 1)) != MIDINT_OK ||
        (st = copy(z, d, n, 0, din, n, first * n, n)) != MIDINT_OK || (st = leading_zeros(z, lz, d, n)) != MIDINT_OK ||
        (st = shift(z, MIDINT_OP_SHL, n, z->r[R_DN], d, 0, lz)) != MIDINT_OK ||
        (st = zero(z, z->r[R_DN1], n + 1)) != MIDINT_OK ||
        (st = copy(z, z->r[R_DN1], n + 1, 0, z->r[R_DN], n, 0, n)) != MIDINT_OK ||
        (st = zero(z, xz, xw)) != MIDINT_OK || (st = copy(z, xz, xw, 0, ain, a, first * a, a)) != MIDINT_OK ||
        (st = shift(z, MIDINT_OP_SHL, xw, x, xz, 0, lz)) != MIDINT_OK ||
        (st = leading_zeros(z, z->r[R_LZX], x, xw)) != MIDINT_OK ||
        (st = read_word(z, z->r[R_LZX], z->m, &top_zeros)) != MIDINT_OK || (st = phase(z, "inputs", a)) != MIDINT_OK ||
        (st = reciprocal_replayed(z, base_max)) != MIDINT_OK)
        return st;
    /* the quotient's blocks of t words from the top, each written out as it is made (the inputs are all read): the
     * remainder R before the first is X's words [nb n, (nb + 1) n), below 2^s <= D'; block j divides R B^t plus X's
     * words [j t, (j + 1) t), YH being R's top t words */
    void *yh = z->r[R_YH], *yl = z->r[R_YL], *q = z->r[R_Q], *rc = z->r[R_RA], *rn = z->r[R_RB];
    const uint32_t t = z->t, blocks = nb * (n / t);
    for (uint32_t k = 0; k < blocks; k++) {
        const uint32_t j = blocks - 1 - k; /* the block's place: words [j t, (j + 1) t) of the quotient */
        if (k == 0 ? (st = copy(z, yh, t, 0, x, xw, nb * n + n - t, t)) != MIDINT_OK ||
                         (st = copy(z, yl, n + 1, 0, x, xw, j * t, n + 1)) != MIDINT_OK
                   : (st = copy(z, yh, t, 0, rc, n + 1, n - t, t)) != MIDINT_OK ||
                         (st = copy(z, yl, n + 1, 0, x, xw, j * t, t)) != MIDINT_OK ||
                         (st = copy(z, yl, n + 1, t, rc, n + 1, 0, n + 1 - t)) != MIDINT_OK)
            return st;
        /* YH is below B^k for every instance: the remainder R entering block j is at most X >> 32 (j + 1) t, which
         * has at most 32 (xw - (j + 1) t) - top_zeros bits, and YH is R >> 32 (n - t). Y = R B^t + X_j is below D'
         * (at least 2^(32 n - 1)) where those bits and 32 t come to at most 32 n - 1: the first half block of a
         * dividend whose normalising shift stays within its words. */
        const uint64_t above = 32ull * (xw - (uint64_t)(j + 1) * t), rbits = above > top_zeros ? above - top_zeros : 0,
                       bits = rbits > 32ull * (n - t) ? rbits - 32ull * (n - t) : 0;
        const uint32_t k = bits >= 32ull * t ? t : (uint32_t)((bits + 31) / 32);
        const int below = rbits + 32ull * t <= 32ull * n - 1;
        if ((st = block(z, yh, yl, q, rn, k, below, z->estimate && j == 0)) != MIDINT_OK ||
            (st = phase(z, "block", k)) != MIDINT_OK)
            return st;
        if (qout && (size_t)j * t < a &&
            (st = copy(z, qout, a, first * a + (size_t)j * t, q, t, 0, a - j * t < t ? a - j * t : t)) != MIDINT_OK)
            return st;
        void *done = rn;
        rn = rc;
        rc = done;
    }
    /* the remainder rc >> s (n words: it is below D' < B^n); the quotient, below B^a, is out */
    if (!rout)
        return MIDINT_OK;
    if ((st = copy(z, yh, n, 0, rc, n + 1, 0, n)) != MIDINT_OK ||
        (st = shift(z, MIDINT_OP_SHR, n, d, yh, 0, lz)) != MIDINT_OK)
        return st;
    if ((st = copy(z, rout, n, first * n, d, n, 0, n)) != MIDINT_OK)
        return st;
    return phase(z, "remainder", n);
}

static midint_status run(midint_context *ctx, midint_op o, unsigned bits, unsigned abits, size_t count,
                         void *const *bufs, void *stream, int estimate)
{
    bigdiv z;
    memset(&z, 0, sizeof z);
    z.ctx = ctx;
    z.stream = stream;
    z.estimate = estimate;
    z.n = bits / 32u;
    const uint32_t half_from = ctx->hooks.half_from ? ctx->hooks.half_from : HALF_FROM_WORDS;
    z.t = z.n % 2 == 0 && z.n >= half_from ? z.n / 2 : z.n;
    z.lz = midint_runtime_kernel(ctx->ops->id, MIDINT_ROLE_DIV_LZ);
    z.cmul = midint_runtime_kernel(ctx->ops->id, MIDINT_ROLE_DIV_CMUL);
    z.smul = midint_runtime_kernel(ctx->ops->id, MIDINT_ROLE_DIV_SMUL);
    z.xmul = midint_runtime_kernel(ctx->ops->id, MIDINT_ROLE_DIV_XMUL);
    z.pick = midint_runtime_kernel(ctx->ops->id, MIDINT_ROLE_DIV_PICK);
    z.place = midint_runtime_kernel(ctx->ops->id, MIDINT_ROLE_DIV_PLACE);
    const char *trace = getenv("MIDINT_TRACE_BIGDIV");
    z.trace = trace && strcmp(trace, "1") == 0;
    /* the base's divrem (b + 1 words) within the division kernels this build has (at least 3 words: registry.c) */
    uint32_t base_max = ctx->hooks.bigdiv_base ? ctx->hooks.bigdiv_base : BASE_MAX_WORDS;
    if (base_max > ctx->kernel_max_bits[MIDINT_OP_DIVREM] / 32u - 1u)
        base_max = ctx->kernel_max_bits[MIDINT_OP_DIVREM] / 32u - 1u;
    const size_t m = midint_bigdiv_pass(ctx, bits, count);
    if (m == 0)
        return midint_fail(ctx, MIDINT_ERR_OUT_OF_MEMORY, "one instance of the division at %u bits needs %zu bytes of "
                           "temporaries, over half the workspace cap of %zu (midint_set_workspace_bytes)", bits,
                           midint_bigdiv_instance_bytes(bits), midint_workspace_cap(ctx));
    z.m = m;
    midint_status st = ctx->ops->fence_wait(ctx, stream, MIDINT_FENCE_WS);
    if (st == MIDINT_OK)
        st = bind_regions(&z);
    if (st == MIDINT_OK && z.trace && (st = ctx->ops->synchronize(ctx, stream)) == MIDINT_OK)
        z.since = now();
    for (size_t first = 0; first < count && st == MIDINT_OK; first += z.m) { /* in stream order: no waits */
        z.m = count - first < m ? count - first : m;
        st = run_pass(&z, o, abits, bufs, first, base_max);
    }
    midint_status marked = ctx->ops->fence_mark(ctx, MIDINT_FENCE_WS, stream);
    return st != MIDINT_OK ? st : marked;
}

midint_status midint_bigdiv_run(midint_context *ctx, midint_op o, unsigned bits, unsigned abits, size_t count,
                                void *const *bufs, void *stream)
{
    return run(ctx, o, bits, abits, count, bufs, stream, 0);
}

midint_status midint_bigdiv_quotient(midint_context *ctx, unsigned bits, unsigned abits, size_t count, void *q,
                                     const void *a, const void *d, void *stream)
{
    void *const bufs[] = {q, NULL, (void *)a, (void *)d};
    return run(ctx, MIDINT_OP_DIVREM, bits, abits, count, bufs, stream, 1);
}
