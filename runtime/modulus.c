/* modulus.c — midint_modulus: a modulus shared by a whole batch, checked and uploaded once with the constants its
 * kernels would otherwise compute per instance (Montgomery's -m^-1 mod 2^32, R mod m, R^2 mod m). */
#include <stdlib.h>
#include <string.h>

#include "dispatch.h"
#include "modulus.h"
#include "registry.h"

/* x = 2 x mod m for x < m (n words): the doubled value is below 2m, so one subtraction of m reduces it. */
static void double_mod(uint32_t *x, const uint32_t *m, uint32_t *t, unsigned n)
{
    uint32_t top = 0, br = 0;
    for (unsigned i = 0; i < n; i++) {
        uint32_t w = x[i];
        x[i] = w << 1 | top;
        top = w >> 31;
    }
    for (unsigned i = 0; i < n; i++) {
        uint64_t d = (uint64_t)x[i] - m[i] - br;
        t[i] = (uint32_t)d;
        br = (uint32_t)(d >> 32) & 1u;
    }
    if (top || !br) /* 2x >= m */
        memcpy(x, t, n * 4u);
}

/* q = floor(2^e / m) into qw words by restoring division, bit by bit (rem < m stays n words, 2 rem + 1 takes n + 1);
 * returns 0 where the quotient does not fit qw words. rem: n + 1 words of scratch, then n + 1 more. */
static int power_quotient(uint32_t *q, unsigned qw, unsigned e, const uint32_t *m, unsigned n, uint32_t *rem)
{
    uint32_t *d = rem + n + 1;
    int fits = 1;
    memset(q, 0, qw * 4u);
    memset(rem, 0, (n + 1) * 4u);
    for (unsigned p = e + 1; p-- > 0;) {
        uint32_t top = 0, br = 0;
        for (unsigned i = 0; i <= n; i++) { /* rem = 2 rem + (the dividend's bit p: 1 at p = e only) */
            uint32_t v = rem[i];
            rem[i] = v << 1 | top;
            top = v >> 31;
        }
        rem[0] |= p == e;
        for (unsigned i = 0; i <= n; i++) {
            uint64_t s = (uint64_t)rem[i] - (i < n ? m[i] : 0u) - br;
            d[i] = (uint32_t)s;
            br = (uint32_t)(s >> 32) & 1u;
        }
        if (!br) { /* rem >= m: the quotient's bit p */
            memcpy(rem, d, (n + 1) * 4u);
            if (p < 32 * qw)
                q[p / 32] |= 1u << (p % 32);
            else
                fits = 0;
        }
    }
    return fits;
}

/* mu = floor(2^(64n) / m) into n + 1 words; returns 0 (mu zeroed) where it does not fit them (m = 2^(32(n-1)), or m's
 * top word zero). */
static int barrett_mu(uint32_t *mu, const uint32_t *m, unsigned n, uint32_t *rem)
{
    int fits = power_quotient(mu, n + 1, 64 * n, m, n, rem) && m[n - 1] != 0;
    if (!fits)
        memset(mu, 0, (n + 1) * 4u);
    return fits;
}

/* Bits [52 j, 52 j + 52) of x (xw words) as a double (exact: below 2^52). */
static double limb52(const uint32_t *x, unsigned xw, unsigned j)
{
    uint64_t v = 0;
    for (unsigned b = 0; b < 52; b++) {
        unsigned bit = 52 * j + b;
        if (bit / 32 < xw && (x[bit / 32] >> (bit % 32) & 1u))
            v |= 1ull << b;
    }
    return (double)v;
}

/* The radix-2^52 Barrett constants (modulus.h) into w: for objects of at most midint_modulus_f52_max_bits (the
 * generator's sizes of that kernel branch) and m > 2^(52 (K - 1)), m's K limbs and floor(2^(104 K) / m)'s K + 1
 * (below 2^(52 (K + 1)) as m > 2^(52 (K - 1))). q: the quotient's words (modulus_scratch_words); rem: as
 * power_quotient's. */
static void f52_constants(uint32_t *w, const uint32_t *m, unsigned n, uint32_t *q, uint32_t *rem)
{
    const unsigned k = MIDINT_MODULUS_F52_LIMBS(n), qw = (52 * (k + 1) + 31) / 32;
    uint32_t *limbs = w + MIDINT_MODULUS_F52_AT(n); /* doubles, two words each */
    unsigned bits = 32 * n;
    while (bits > 0 && !(m[(bits - 1) / 32] >> ((bits - 1) % 32) & 1u))
        bits--;
    /* m = 2^(52 (K - 1)) exactly makes mu 2^(52 (K + 1)), a limb more: that m keeps the other branches */
    int applies = 32 * n <= midint_modulus_f52_max_bits && bits > 52 * (k - 1) &&
                  power_quotient(q, qw, 104 * k, m, n, rem) && limb52(q, qw, k + 1) == 0;
    memset(w + 4 * n + 4, 0, (MIDINT_MODULUS_WORDS(n) - (4 * n + 4)) * 4u);
    if (!applies)
        return;
    for (unsigned j = 0; j <= 2 * k; j++) { /* m's K limbs, then mu's K + 1 */
        const double v = j < k ? limb52(m, n, j) : limb52(q, qw, j - k);
        memcpy(limbs + 2 * j, &v, sizeof v);
    }
    w[4 * n + 4] = 1;
}

/* The words MIDINT_MODULUS_WORDS describes, and scratch after them (modulus_scratch_words). R mod m and R^2 mod m by
 * 2 bits doublings of 1 mod m: 2 bits n word steps (for 8192 bits 4 M, a few milliseconds, once per modulus), exact
 * for every m without a division; mu by a division of the same cost; the radix-2^52 constants (f52_constants). */
static void precompute(uint32_t *w, const uint32_t *m, unsigned n, unsigned bits)
{
    uint32_t *x = w + n, *r2 = w + 2 * n, *t = w + MIDINT_MODULUS_WORDS(n);
    memcpy(w, m, n * 4u);
    memset(x, 0, n * 4u);
    int one = m[0] == 1;
    for (unsigned i = 1; i < n; i++)
        one &= m[i] == 0;
    x[0] = one ? 0u : 1u; /* 1 mod m */
    for (unsigned k = 0; k < bits; k++)
        double_mod(x, m, t, n);
    memcpy(r2, x, n * 4u);
    for (unsigned k = 0; k < bits; k++)
        double_mod(r2, m, t, n);
    /* -m^-1 mod 2^32 by Newton's iteration (each step doubles the correct low bits; m0 is right to 3) */
    uint32_t m0 = m[0], inv = m0;
    for (int k = 0; k < 4; k++)
        inv *= 2u - m0 * inv;
    int barrett = barrett_mu(w + 3 * n, m, n, t);
    w[4 * n + 1] = (m0 & 1u) ? 0u - inv : 0u;
    w[4 * n + 2] = m0 & 1u;
    w[4 * n + 3] = (uint32_t)barrett;
    f52_constants(w, m, n, t + 2 * (n + 1), t);
}

/* precompute's scratch beyond the words: the divisions' remainders (2 (n + 1)) and the radix-2^52 quotient's words */
static size_t modulus_scratch_words(unsigned n)
{
    return 2u * (n + 1u) + (52u * (MIDINT_MODULUS_F52_LIMBS(n) + 1u) + 31u) / 32u;
}

midint_status midint_modulus_create(midint_context *ctx, midint_modulus **mod, unsigned bits, const uint32_t *m_host)
{
    const char *fn = "midint_modulus_create";
    if (mod)
        *mod = NULL;
    if (!ctx || !mod || !m_host)
        return midint_fail(ctx, MIDINT_ERR_NULL_POINTER, "%s: %s is NULL", fn, !ctx ? "ctx" : !mod ? "mod" : "m_host");
    if (bits == 0 || bits % 32)
        return midint_fail(ctx, MIDINT_ERR_INVALID_BITS, "%s: bits is %u; it must be a positive multiple of 32", fn,
                           bits);
    /* the largest size an operation taking a modulus object serves (a build may generate some of them only) */
    unsigned max = 0;
    for (unsigned op = 0; op < MIDINT_OP_COUNT_; op++) {
        const midint_op_info *info = midint_op_describe((midint_op)op);
        for (unsigned i = 0; info && i < info->nparams; i++)
            if (info->params[i].kind == MIDINT_PARAM_MODULUS && ctx->max_bits[op] > max)
                max = ctx->max_bits[op];
    }
    if (bits > max)
        return midint_fail(ctx, MIDINT_ERR_BITS_TOO_LARGE, "%s: bits is %u; the largest size generated for the "
                           "operations of a modulus object on the %s backend is %u (make gen SIZES=...)", fn, bits,
                           ctx->ops->name, max);
    unsigned n = bits / 32;
    uint32_t any = 0;
    for (unsigned i = 0; i < n; i++)
        any |= m_host[i];
    if (!any)
        return midint_fail(ctx, MIDINT_ERR_INVALID_ARGUMENT, "%s: m is zero; a modulus must be at least 1", fn);
    size_t bytes = (size_t)MIDINT_MODULUS_WORDS(n) * 4u;
    midint_modulus *m = calloc(1, sizeof *m);
    uint32_t *w = malloc(bytes + modulus_scratch_words(n) * 4u); /* the words, then precompute's scratch */
    midint_status st = MIDINT_OK;
    if (!m || !w) {
        st = midint_fail(ctx, MIDINT_ERR_OUT_OF_MEMORY, "%s: out of host memory", fn);
    } else {
        precompute(w, m_host, n, bits);
        m->ctx = ctx;
        m->bits = bits;
        m->odd = (int)(m_host[0] & 1u);
        m->f52 = (int)w[4 * n + 4];
        m->serial = ++ctx->moduli_made;
        if ((st = ctx->ops->alloc(ctx, bytes, &m->dev)) != MIDINT_OK)
            st = midint_fail(ctx, st, "%s: allocating %zu bytes of device memory: %s", fn, bytes, ctx->msg);
        else if ((st = ctx->ops->upload(ctx, m->dev, w, bytes)) != MIDINT_OK) {
            st = midint_fail(ctx, st, "%s: uploading the modulus: %s", fn, ctx->msg);
            ctx->ops->free(ctx, m->dev);
        }
    }
    free(w);
    if (st != MIDINT_OK) {
        free(m);
        return st;
    }
    *mod = m;
    return MIDINT_OK;
}

unsigned midint_modulus_bits(const midint_modulus *mod)
{
    return mod ? mod->bits : 0u;
}

int midint_modulus_is_odd(const midint_modulus *mod)
{
    return mod ? mod->odd : 0;
}

const char *midint_selected_variant_modulus(midint_context *ctx, midint_op op, unsigned bits, size_t count,
                                            const midint_modulus *mod)
{
    if (ctx && mod && mod->ctx != ctx) {   /* as the calls refuse it */
        midint_fail(ctx, MIDINT_ERR_INVALID_ARGUMENT,
                    "midint_selected_variant_modulus: mod was made on another context");
        return NULL;
    }
    const unsigned traits = !mod ? 0u : (mod->odd ? 0u : MIDINT_MODULI_EVEN) | (mod->f52 ? MIDINT_MODULI_F52 : 0u);
    return midint_selected_variant_for(ctx, op, bits, count, traits);
}

void midint_modulus_free(midint_modulus *mod)
{
    if (!mod)
        return;
    mod->ctx->ops->free(mod->ctx, mod->dev);
    free(mod);
}
