/* cases.c — patterns that stress carries (whole-number chains, zeros, maxima, single bits) and the GMP reference. */
#include <gmp.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cases.h"

uint64_t rng_next(rng *g)
{
    uint64_t z = (g->s += 0x9E3779B97F4A7C15ull);
    z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
    z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
    return z ^ (z >> 31);
}

static uint32_t rnd32(rng *g) { return (uint32_t)rng_next(g); }

typedef void (*pattern_fn)(rng *g, unsigned n, uint32_t *a, uint32_t *b);

static void p_random(rng *g, unsigned n, uint32_t *a, uint32_t *b)
{
    for (unsigned i = 0; i < n; i++) {
        a[i] = rnd32(g);
        b[i] = rnd32(g);
    }
}

static void p_zero(rng *g, unsigned n, uint32_t *a, uint32_t *b)
{
    (void)g;
    memset(a, 0, n * 4);
    memset(b, 0, n * 4);
}

static void p_max(rng *g, unsigned n, uint32_t *a, uint32_t *b)
{
    (void)g;
    memset(a, 0xff, n * 4);
    memset(b, 0xff, n * 4);
}

/* all ones + 1: a carry crosses every word (for sub, nothing borrows) */
static void p_ones_plus_one(rng *g, unsigned n, uint32_t *a, uint32_t *b)
{
    (void)g;
    memset(a, 0xff, n * 4);
    memset(b, 0, n * 4);
    b[0] = 1;
}

/* 0 - 1: a borrow crosses every word (for add, nothing carries) */
static void p_zero_minus_one(rng *g, unsigned n, uint32_t *a, uint32_t *b)
{
    (void)g;
    memset(a, 0, n * 4);
    memset(b, 0, n * 4);
    b[0] = 1;
}

/* b = 2^bits - a: the sum is exactly 2^bits (zero with a carry out) */
static void p_complement(rng *g, unsigned n, uint32_t *a, uint32_t *b)
{
    p_random(g, n, a, b);
    a[0] |= 1; /* a != 0 */
    uint64_t borrow = 1;
    for (unsigned i = 0; i < n; i++) { /* b = ~a + 1 */
        uint64_t x = (uint64_t)(uint32_t)~a[i] + borrow;
        b[i] = (uint32_t)x;
        borrow = x >> 32;
    }
}

static void p_single_bits(rng *g, unsigned n, uint32_t *a, uint32_t *b)
{
    memset(a, 0, n * 4);
    memset(b, 0, n * 4);
    unsigned i = (unsigned)(rng_next(g) % (32u * n)), j = (unsigned)(rng_next(g) % (32u * n));
    a[i / 32] |= 1u << (i % 32);
    b[j / 32] |= 1u << (j % 32);
}

/* long runs of all-ones (or zero) words broken at random places: carries and borrows that travel across
 * several threads' chunks and stop inside one */
static void p_runs(rng *g, unsigned n, uint32_t *a, uint32_t *b)
{
    uint32_t fill = rng_next(g) & 1 ? 0xffffffffu : 0;
    for (unsigned i = 0; i < n; i++) {
        a[i] = rng_next(g) % 23 == 0 ? rnd32(g) : fill;
        b[i] = 0;
    }
    b[0] = rnd32(g) | 1;
    if (n > 1)
        b[rng_next(g) % n] = 1;
}

static void p_equal(rng *g, unsigned n, uint32_t *a, uint32_t *b)
{
    p_random(g, n, a, b);
    memcpy(b, a, n * 4);
}

/* b = 1: the product is a itself */
static void p_one(rng *g, unsigned n, uint32_t *a, uint32_t *b)
{
    p_random(g, n, a, b);
    memset(b, 0, n * 4);
    b[0] = 1;
}

/* b = 2^k - 1 for a random k: a*b = a*2^k - a, long borrow runs in the product */
static void p_mersenne(rng *g, unsigned n, uint32_t *a, uint32_t *b)
{
    p_random(g, n, a, b);
    unsigned k = 1 + (unsigned)(rng_next(g) % (32u * n));
    memset(b, 0, n * 4);
    for (unsigned i = 0; i < k; i++)
        b[i / 32] |= 1u << (i % 32);
}

/* a few random words among zeros in both operands: few nonzero products, spread over the whole product */
static void p_sparse(rng *g, unsigned n, uint32_t *a, uint32_t *b)
{
    for (unsigned i = 0; i < n; i++) {
        a[i] = rng_next(g) % 16 == 0 ? rnd32(g) : 0;
        b[i] = rng_next(g) % 16 == 0 ? rnd32(g) : 0;
    }
    a[n - 1] |= 0x80000000u; /* the top word is set: the largest shift of a nonzero word */
    b[rng_next(g) % n] |= 1u;
}

/* single bits on either side of every power-of-two word boundary (2^k - 1 | 2^k words): the boundaries of tiles,
 * blocks and transform rows and columns; b: one such bit, or a run of ones ending at one, so that sums and
 * products carry across the boundaries */
static void p_edges(rng *g, unsigned n, uint32_t *a, uint32_t *b)
{
    memset(a, 0, n * 4);
    memset(b, 0, n * 4);
    unsigned edges = 0;
    for (unsigned w = 1; w < n; w <<= 1, edges++) {
        a[w - 1] |= 0x80000000u;
        a[w] |= 1u;
    }
    a[n - 1] |= 0x80000000u;
    unsigned w = edges ? 1u << (rng_next(g) % edges) : 0;
    if (rng_next(g) & 1) {
        for (unsigned i = 0; i < w; i++)
            b[i] = 0xffffffffu;
        b[w] |= 1u;
    } else {
        b[w ? w - 1 : 0] |= 0x80000000u;
    }
}

static const struct { const char *name; pattern_fn fn; } patterns[] = {
    {"random", p_random},           {"zero", p_zero},         {"max", p_max},
    {"ones_plus_one", p_ones_plus_one}, {"zero_minus_one", p_zero_minus_one},
    {"complement", p_complement},   {"single_bits", p_single_bits}, {"runs", p_runs},
    {"equal", p_equal},            {"one", p_one},           {"mersenne", p_mersenne},
    {"sparse", p_sparse},           {"edges", p_edges},
};
#define NPATTERNS (sizeof patterns / sizeof patterns[0])

const char *const pattern_names[] = {"random", "zero", "max", "ones_plus_one", "zero_minus_one", "complement",
                                     "single_bits", "runs", "equal", "one", "mersenne", "sparse", "edges", "mixed",
                                     NULL};

int fill_operands(const char *pattern, uint64_t seed, size_t count, unsigned n, uint32_t *a, uint32_t *b)
{
    rng g = {seed};
    int mixed = strcmp(pattern, "mixed") == 0;
    size_t which = NPATTERNS;
    for (size_t p = 0; p < NPATTERNS; p++)
        if (strcmp(pattern, patterns[p].name) == 0)
            which = p;
    if (!mixed && which == NPATTERNS)
        return 0;
    if (n == 0) /* sizes below one word (the library refuses them): nothing to fill, and the patterns divide by n */
        return 1;
    for (size_t i = 0; i < count; i++) {
        /* mixed: neighbours differ, so a carry leaking from one instance into the next shows */
        size_t p = mixed ? (i * 7 + seed) % NPATTERNS : which;
        patterns[p].fn(&g, n, a + i * n, b + i * n);
    }
    return 1;
}

void reference(midint_op op, unsigned n, const uint32_t *a, const uint32_t *b, uint32_t *r, uint32_t *carry)
{
    mpz_t x, y, z;
    unsigned rn = result_words(op, n);
    mpz_inits(x, y, z, NULL);
    mpz_import(x, n, -1, 4, 0, 0, a);
    mpz_import(y, n, -1, 4, 0, 0, b);
    *carry = 0;
    switch (op) {
    case MIDINT_OP_ADD:
        mpz_add(z, x, y);
        *carry = (uint32_t)mpz_tstbit(z, 32ul * n);
        break;
    case MIDINT_OP_SUB:
        mpz_sub(z, x, y);
        *carry = mpz_sgn(z) < 0;
        break;
    default: /* mul, mullo */
        mpz_mul(z, x, y);
        break;
    }
    mpz_fdiv_r_2exp(z, z, 32ul * rn); /* mod 2^(result bits), non-negative */
    memset(r, 0, rn * 4);
    mpz_export(r, NULL, -1, 4, 0, 0, z);
    mpz_clears(x, y, z, NULL);
}

int parse_op(const char *name)
{
    for (int i = 0; i < MIDINT_OP_COUNT_; i++)
        if (strcmp(name, midint_op_name((midint_op)i)) == 0)
            return i;
    return -1;
}

unsigned result_words(midint_op op, unsigned n)
{
    return op == MIDINT_OP_MUL ? 2 * n : n;
}

int op_has_carry(midint_op op)
{
    return op == MIDINT_OP_ADD || op == MIDINT_OP_SUB;
}

midint_status host_call(midint_op op, midint_context *ctx, size_t count, unsigned bits, uint32_t *r,
                        const uint32_t *a, const uint32_t *b, uint32_t *carry)
{
    switch (op) {
    case MIDINT_OP_ADD: return midint_add(ctx, count, bits, r, a, b, carry);
    case MIDINT_OP_SUB: return midint_sub(ctx, count, bits, r, a, b, carry);
    case MIDINT_OP_MUL: return midint_mul(ctx, count, bits, r, a, b);
    default: return midint_mullo(ctx, count, bits, r, a, b);
    }
}

midint_status async_call(midint_op op, midint_context *ctx, size_t count, unsigned bits, uint32_t *r,
                         const uint32_t *a, const uint32_t *b, uint32_t *carry)
{
    switch (op) {
    case MIDINT_OP_ADD: return midint_add_async(ctx, count, bits, r, a, b, carry, NULL);
    case MIDINT_OP_SUB: return midint_sub_async(ctx, count, bits, r, a, b, carry, NULL);
    case MIDINT_OP_MUL: return midint_mul_async(ctx, count, bits, r, a, b, NULL);
    default: return midint_mullo_async(ctx, count, bits, r, a, b, NULL);
    }
}

midint_status device_call(midint_op op, midint_context *ctx, size_t count, unsigned bits, void *r, const void *a,
                          const void *b, void *carry)
{
    switch (op) {
    case MIDINT_OP_ADD: return midint_add_device(ctx, count, bits, r, a, b, carry, NULL);
    case MIDINT_OP_SUB: return midint_sub_device(ctx, count, bits, r, a, b, carry, NULL);
    case MIDINT_OP_MUL: return midint_mul_device(ctx, count, bits, r, a, b, NULL);
    default: return midint_mullo_device(ctx, count, bits, r, a, b, NULL);
    }
}

/* The expressions' reference (check_expr, measure): the program (midint_expr_desc.program) step by step in mpz. */
int reference_expr(const midint_expr_desc *d, unsigned n, const uint32_t *const *in, size_t inst, uint32_t **out)
{
    size_t cap = d->ninputs + 64, nv = 0;
    mpz_t *v = malloc(cap * sizeof *v);
    unsigned *width = malloc(cap * sizeof *width);
    for (unsigned i = 0; i < d->ninputs; i++, nv++) {
        mpz_init(v[nv]);
        mpz_import(v[nv], n, -1, 4, 0, 0, in[i] + inst * n);
        width[nv] = 1;
    }
    int ok = 1;
    unsigned nout = 0;
    const char *p = d->program;
    while (ok && *p) {
        char op[8];
        unsigned w = 0, x = 0, y = 0;
        unsigned long value = 0;
        int used = 0;
        if (sscanf(p, "%7s%n", op, &used) != 1) {
            ok = 0;
            break;
        }
        p += used;
        if (strcmp(op, "out") == 0) {
            ok = sscanf(p, "%u%n", &x, &used) == 1 && x < nv;
            if (ok) {
                size_t words = (size_t)width[x] * n, got = 0;
                memset(out[nout], 0, words * 4);
                mpz_export(out[nout], &got, -1, 4, 0, 0, v[x]);
                ok = got <= words;
                nout++;
            }
        } else {
            if (nv == cap) {
                cap *= 2;
                v = realloc(v, cap * sizeof *v);
                width = realloc(width, cap * sizeof *width);
            }
            mpz_init(v[nv]);
            if (strcmp(op, "const") == 0)
                ok = sscanf(p, "%u %lu%n", &w, &value, &used) == 2, mpz_set_ui(v[nv], value);
            else if (strcmp(op, "ext") == 0)
                ok = sscanf(p, "%u %u%n", &w, &x, &used) == 2 && x < nv && (mpz_set(v[nv], v[x]), 1);
            else if ((ok = sscanf(p, "%u %u %u%n", &w, &x, &y, &used) == 3 && x < nv && y < nv)) {
                if (strcmp(op, "add") == 0)
                    mpz_add(v[nv], v[x], v[y]);
                else if (strcmp(op, "sub") == 0)
                    mpz_sub(v[nv], v[x], v[y]);
                else if (strcmp(op, "mullo") == 0 || strcmp(op, "mul") == 0)
                    mpz_mul(v[nv], v[x], v[y]);
                else
                    ok = 0;
            }
            /* every value mod 2^(width bits): mpz_fdiv_r_2exp gives the non-negative residue of a difference */
            mpz_fdiv_r_2exp(v[nv], v[nv], (mp_bitcnt_t)w * 32u * n);
            width[nv++] = w;
        }
        p += used;
        while (*p == ';' || *p == ' ')
            p++;
    }
    ok = ok && nout == d->noutputs;
    for (size_t i = 0; i < nv; i++)
        mpz_clear(v[i]);
    free(v);
    free(width);
    return ok;
}
