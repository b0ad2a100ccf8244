/* cases.c — patterns that stress carries (whole-number chains, zeros, maxima, single bits) and the GMP reference. */
#include <gmp.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cases.h"
#include "reference.h"

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

/* whole-width runs of all-ones (or zero) words broken at a few random words, b 1 at word 0 and at a few random
 * words: carries (borrows) that enter a grid tile from below and run far into it before a break takes them */
static void p_breaks(rng *g, unsigned n, uint32_t *a, uint32_t *b)
{
    uint32_t fill = rng_next(g) & 1 ? 0xffffffffu : 0;
    for (unsigned i = 0; i < n; i++) {
        a[i] = fill;
        b[i] = 0;
    }
    for (unsigned k = 0; k < 4; k++)
        a[rng_next(g) % n] = rnd32(g);
    b[0] = 1;
    for (unsigned k = 0; k < 3; k++)
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

/* b = a except one word (the lowest, the highest, or one between, at random), one more or one less there: operands
 * that a comparison must tell apart by that word alone */
static void p_differ(rng *g, unsigned n, uint32_t *a, uint32_t *b)
{
    p_random(g, n, a, b);
    memcpy(b, a, n * 4);
    uint64_t pick = rng_next(g);
    unsigned w = pick % 3 == 0 ? 0u : pick % 3 == 1 ? n - 1 : (unsigned)(rng_next(g) % n);
    b[w] += (pick >> 8) & 1 ? 1u : 0xffffffffu; /* +1 or -1 in that word (wrapping: still a different word) */
}

static const struct { const char *name; pattern_fn fn; } patterns[] = {
    {"random", p_random},           {"zero", p_zero},         {"max", p_max},
    {"ones_plus_one", p_ones_plus_one}, {"zero_minus_one", p_zero_minus_one},
    {"complement", p_complement},   {"single_bits", p_single_bits}, {"runs", p_runs},
    {"equal", p_equal},            {"one", p_one},           {"mersenne", p_mersenne},
    {"sparse", p_sparse},           {"edges", p_edges},       {"differ", p_differ},
    {"breaks", p_breaks},
};
#define NPATTERNS (sizeof patterns / sizeof patterns[0])

const char *const pattern_names[] = {"random", "zero", "max", "ones_plus_one", "zero_minus_one", "complement",
                                     "single_bits", "runs", "equal", "one", "mersenne", "sparse", "edges", "differ",
                                     "breaks", "mixed", NULL};

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

/* ---- operations through their descriptors (the table of operations): no per-operation code here ---- */

int parse_op(const char *name)
{
    const midint_op_info *d = midint_op_find(name);
    return d ? d->op : -1;
}

uint64_t param_words(const midint_param_info *p, unsigned n)
{
    return (uint64_t)p->words_per_n * n + p->words_fixed;
}

int param_in_slot(const midint_op_info *d, unsigned slot)
{
    for (unsigned i = 0; i < d->nparams; i++)
        if (d->params[i].kind != MIDINT_PARAM_SCALAR && (d->params[i].slots & slot))
            return (int)i;
    return -1;
}

int nth_input(const midint_op_info *d, unsigned k)
{
    for (unsigned i = 0; i < d->nparams; i++)
        if (d->params[i].kind == MIDINT_PARAM_INPUT && d->params[i].words_per_n && k-- == 0)
            return (int)i;
    return -1;
}

/* The optional output of one word per instance (add's carry, sub's borrow), or -1. */
static int flag_output(const midint_op_info *d)
{
    for (unsigned i = 0; i < d->nparams; i++)
        if (d->params[i].kind == MIDINT_PARAM_OUTPUT && d->params[i].optional && !d->params[i].words_per_n)
            return (int)i;
    return -1;
}

unsigned result_words(midint_op op, unsigned n)
{
    const midint_op_info *d = midint_op_describe(op);
    return d ? (unsigned)param_words(&d->params[param_in_slot(d, MIDINT_SLOT_R)], n) : n;
}

int op_has_carry(midint_op op)
{
    const midint_op_info *d = midint_op_describe(op);
    return d && flag_output(d) >= 0;
}

/* The buffers of a call in its descriptor's order from the four of the older drivers: the result (slot r), the first
 * and second inputs of n words, and the flag output; any other buffer NULL, every scalar 0. */
static void classic_buffers(const midint_op_info *d, void *r, const void *a, const void *b, void *carry, void **bufs)
{
    unsigned k = 0;
    int ir = param_in_slot(d, MIDINT_SLOT_R), ia = nth_input(d, 0), ib = nth_input(d, 1), ic = flag_output(d);
    for (unsigned i = 0; i < d->nparams; i++) {
        if (d->params[i].kind == MIDINT_PARAM_SCALAR)
            continue;
        bufs[k++] = (int)i == ir ? r : (int)i == ia ? (void *)a : (int)i == ib ? (void *)b : (int)i == ic ? carry : NULL;
    }
}

midint_status host_call(midint_op op, midint_context *ctx, size_t count, unsigned bits, uint32_t *r,
                        const uint32_t *a, const uint32_t *b, uint32_t *carry)
{
    void *bufs[OPB_MAX];
    const unsigned scalars[OPB_MAX] = {0};
    classic_buffers(midint_op_describe(op), r, a, b, carry, bufs);
    return midint_run(ctx, op, count, bits, bufs, scalars);
}

midint_status async_call(midint_op op, midint_context *ctx, size_t count, unsigned bits, uint32_t *r,
                         const uint32_t *a, const uint32_t *b, uint32_t *carry)
{
    void *bufs[OPB_MAX];
    const unsigned scalars[OPB_MAX] = {0};
    classic_buffers(midint_op_describe(op), r, a, b, carry, bufs);
    return midint_run_async(ctx, op, count, bits, bufs, scalars, NULL);
}

midint_status device_call(midint_op op, midint_context *ctx, size_t count, unsigned bits, void *r, const void *a,
                          const void *b, void *carry)
{
    void *bufs[OPB_MAX];
    const unsigned scalars[OPB_MAX] = {0};
    classic_buffers(midint_op_describe(op), r, a, b, carry, bufs);
    return midint_run_device(ctx, op, count, bits, bufs, scalars, NULL);
}

/* Output `out` (words_out words) of one instance from its values, reduced mod 2^(32 words_out) (so -1 is all ones). */
static int eval_output(const midint_op_info *d, ref_value *vals, size_t nvals, unsigned bits, unsigned i, uint32_t *out,
                       size_t words_out)
{
    mpz_t z;
    mpz_init(z);
    int ok = reference_eval(d->reference, vals, nvals, bits, d->params[i].name, z);
    if (ok) {
        mpz_fdiv_r_2exp(z, z, 32ul * words_out);
        memset(out, 0, words_out * 4);
        mpz_export(out, NULL, -1, 4, 0, 0, z);
    }
    mpz_clear(z);
    return ok;
}

void reference(midint_op op, unsigned n, const uint32_t *a, const uint32_t *b, uint32_t *r, uint32_t *carry)
{
    /* a batch of one instance on the caller's words: the optional buffers left out, the scalars 0 */
    op_batch one = {.info = midint_op_describe(op), .op = op, .count = 1, .bits = 32u * n, .n = n};
    uint32_t *out[OPB_MAX] = {NULL};
    int ia = nth_input(one.info, 0), ib = nth_input(one.info, 1), ic = flag_output(one.info);
    for (unsigned i = 0; i < one.info->nparams; i++)
        one.absent[i] = one.info->params[i].optional;
    one.host[ia] = (uint32_t *)a;
    if (ib >= 0)
        one.host[ib] = (uint32_t *)b;
    out[param_in_slot(one.info, MIDINT_SLOT_R)] = r;
    *carry = 0;
    if (ic >= 0) {
        one.absent[ic] = 0;
        out[ic] = carry;
    }
    batch_expect(&one, 0, out);
}

/* ---- a whole batch of any operation (check_batch, measure) ---- */

/* A per-instance count below bits: first the edges a shift must get right, then random ones. */
static uint32_t count_value(rng *g, size_t inst, unsigned bits)
{
    const uint32_t edges[] = {0, 1, 31, 32, 33, bits - 1, bits / 2, bits - 32};
    uint32_t v = inst < sizeof edges / sizeof edges[0] ? edges[inst] : (uint32_t)(rng_next(g) % bits);
    return v < bits ? v : bits - 1;
}

/* The value `args` gives `name` ("name=V" among space- or comma-separated items), or NULL. */
static const char *arg_of(const char *args, const char *name, char *buf, size_t len)
{
    size_t nl = strlen(name);
    for (const char *p = args ? args : ""; *p;) {
        size_t item = strcspn(p, " ,");
        if (item > nl && strncmp(p, name, nl) == 0 && p[nl] == '=') {
            size_t vl = item - nl - 1 < len - 1 ? item - nl - 1 : len - 1;
            memcpy(buf, p + nl + 1, vl);
            buf[vl] = '\0';
            return buf;
        }
        p += item + (p[item] != '\0');
    }
    return NULL;
}

/* A scalar's value from `given`: a number, "max" (bits - 1), or for a width "Mn" / "Mn+K" (M bits + K); not given: a
 * random count below bits where it must be, a width's default (default_per_n bits), else 0. */
static uint32_t scalar_value(const midint_param_info *p, const char *given, unsigned bits, rng *g)
{
    if (!given)
        return p->below_bits ? (uint32_t)(rng_next(g) % bits) : (p->rules & MIDINT_RULE_WIDTH) ? p->default_per_n * bits
                                                                                              : 0u;
    if (strcmp(given, "max") == 0)
        return bits - 1;
    char *end;
    unsigned long v = strtoul(given, &end, 0);
    if (*end == 'n')
        v = v * bits + strtoul(end + 1, NULL, 0);   /* "+K" reads as K */
    return (uint32_t)v;
}

uint64_t batch_words(const op_batch *b, unsigned i)
{
    const midint_param_info *p = &b->info->params[i];
    return p->width_scalar >= 0 ? b->scalar[p->width_scalar] / 32u : param_words(p, b->n);
}

int batch_make(op_batch *b, midint_op op, size_t count, unsigned bits, const char *pattern, uint64_t seed,
               const char *args, void *(*alloc)(size_t bytes, void *arg), void *arg, char *why, size_t len)
{
    memset(b, 0, sizeof *b);
    const midint_op_info *d = midint_op_describe(op);
    if (!d || d->nparams > OPB_MAX) {
        snprintf(why, len, "unknown operation %d", (int)op);
        return 0;
    }
    b->info = d;
    b->op = op;
    b->count = count;
    b->bits = bits;
    b->n = bits / 32;
    rng g = {seed ^ 0xC0FFEEu};
    char val[32];
    /* the scalars first: widths size the buffers */
    for (unsigned i = 0; i < d->nparams; i++)
        if (d->params[i].kind == MIDINT_PARAM_SCALAR)
            b->scalar[i] = scalar_value(&d->params[i], arg_of(args, d->params[i].name, val, sizeof val), bits, &g);
    if (op_is_modular(d)) {
        /* every input of an instance from one shape (cases_mod.c) */
        for (unsigned i = 0; i < d->nparams; i++) {
            size_t bytes = (size_t)(count * batch_words(b, i) * 4);
            int in = d->params[i].kind == MIDINT_PARAM_INPUT || d->params[i].kind == MIDINT_PARAM_MODULUS;
            if (in && !(b->host[i] = alloc(bytes ? bytes : 4, arg))) {
                snprintf(why, len, "out of host memory");
                return 0;
            }
        }
        if (!fill_modular(b, pattern, seed)) {
            snprintf(why, len, "unknown pattern '%s'", pattern);
            return 0;
        }
    }
    /* inputs of n words: pairs from the pattern (the first two as fill_operands' a and b) */
    for (unsigned k = 0; !op_is_modular(d) && nth_input(d, k) >= 0; k += 2) {
        int i0 = nth_input(d, k), i1 = nth_input(d, k + 1);
        size_t bytes = count * (size_t)b->n * 4;
        b->host[i0] = alloc(bytes ? bytes : 4, arg);
        uint32_t *second = i1 >= 0 ? (b->host[i1] = alloc(bytes ? bytes : 4, arg)) : malloc(bytes ? bytes : 4);
        int filled = b->host[i0] && second && fill_operands(pattern, seed + k, count, b->n, b->host[i0], second);
        if (i1 < 0)
            free(second);
        if (!filled) {
            snprintf(why, len, !b->host[i0] || !second ? "out of host memory" : "unknown pattern '%s'", pattern);
            return 0;
        }
    }
    for (unsigned i = 0; i < d->nparams; i++) {
        const midint_param_info *p = &d->params[i];
        const char *given = arg_of(args, p->name, val, sizeof val);
        if (p->kind == MIDINT_PARAM_SCALAR || b->host[i])
            continue;
        /* an optional buffer is left out unless args ask for it ("shifts=each"); an optional output unless not */
        if (p->optional && (p->kind == MIDINT_PARAM_INPUT ? !given || strcmp(given, "none") == 0
                                                           : given && strcmp(given, "none") == 0)) {
            b->absent[i] = 1;
            continue;
        }
        size_t words = (size_t)(count * batch_words(b, i));
        if (!(b->host[i] = alloc(words ? words * 4 : 4, arg))) {
            snprintf(why, len, "out of host memory");
            return 0;
        }
        for (size_t k = 0; k < words; k++) /* outputs poisoned, so a word never written shows */
            b->host[i][k] = p->kind == MIDINT_PARAM_OUTPUT ? 0xDEADBEEFu
                            : p->below_bits ? count_value(&g, k, bits) : (uint32_t)rng_next(&g);
    }
    return 1;
}

midint_status batch_moduli(op_batch *b, midint_context *ctx)
{
    midint_status st = MIDINT_OK;
    for (unsigned i = 0; i < b->info->nparams && st == MIDINT_OK; i++)
        if (b->info->params[i].kind == MIDINT_PARAM_MODULUS && !b->mod[i])
            st = midint_modulus_create(ctx, &b->mod[i], b->bits, b->host[i]);
    return st;
}

void batch_free(op_batch *b, void (*release)(void *p, void *arg), void *arg)
{
    for (unsigned i = 0; b->info && i < b->info->nparams; i++)
        midint_modulus_free(b->mod[i]);
    for (unsigned i = 0; b->info && i < b->info->nparams; i++) {
        for (unsigned j = 0; j < i; j++) /* an alias shares one array */
            if (b->host[j] == b->host[i])
                b->host[i] = NULL;
        if (b->host[i])
            release(b->host[i], arg);
    }
    memset(b, 0, sizeof *b);
}

void batch_buffers(const op_batch *b, void **bufs)
{
    unsigned k = 0;
    for (unsigned i = 0; i < b->info->nparams; i++)
        if (b->info->params[i].kind == MIDINT_PARAM_MODULUS)
            bufs[k++] = b->mod[i];
        else if (b->info->params[i].kind != MIDINT_PARAM_SCALAR)
            bufs[k++] = b->absent[i] ? NULL : b->host[i];
}

void batch_scalars(const op_batch *b, unsigned *scalars)
{
    unsigned k = 0;
    for (unsigned i = 0; i < b->info->nparams; i++)
        if (b->info->params[i].kind == MIDINT_PARAM_SCALAR)
            scalars[k++] = b->scalar[i];
}

int batch_expect(const op_batch *b, size_t inst, uint32_t *const *out)
{
    const midint_op_info *d = b->info;
    ref_value vals[OPB_MAX];
    size_t nv = 0;
    int ok = 1;
    for (unsigned i = 0; i < d->nparams; i++) {
        const midint_param_info *p = &d->params[i];
        if (p->kind == MIDINT_PARAM_OUTPUT)
            continue;
        vals[nv].name = p->name;
        mpz_init(vals[nv].v);
        if (p->kind == MIDINT_PARAM_SCALAR) {
            mpz_set_ui(vals[nv].v, b->scalar[i]);
        } else if (!b->absent[i]) {
            size_t w = (size_t)batch_words(b, i);
            mpz_import(vals[nv].v, w, -1, 4, 0, 0, b->host[i] + inst * w);
        } else if (p->fallback >= 0) { /* left out: its scalar serves every instance */
            mpz_set_ui(vals[nv].v, b->scalar[p->fallback]);
        }
        nv++;
    }
    for (unsigned i = 0; ok && i < d->nparams; i++)
        if (d->params[i].kind == MIDINT_PARAM_OUTPUT && out[i])
            ok = eval_output(d, vals, nv, b->bits, i, out[i], (size_t)batch_words(b, i));
    for (size_t k = 0; k < nv; k++)
        mpz_clear(vals[k].v);
    return ok;
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
            else if (strcmp(op, "redm") == 0 || strcmp(op, "addm") == 0 || strcmp(op, "subm") == 0 ||
                     strcmp(op, "mulm") == 0) {
                /* the modular steps (E mod m): x mod m, x + y, x - y, x y mod m, the modulus m last; the result is
                 * the residue in [0, m) (mpz_fdiv_r), and the width's reduction below leaves it as it is */
                unsigned m = 0;
                int unary = op[0] == 'r';
                ok = (unary ? sscanf(p, "%u %u %u%n", &w, &x, &m, &used) == 3
                            : sscanf(p, "%u %u %u %u%n", &w, &x, &y, &m, &used) == 4) &&
                     x < nv && y < nv && m < nv && mpz_sgn(v[m]) > 0;
                if (ok) {
                    if (unary)
                        mpz_set(v[nv], v[x]);
                    else
                        (op[0] == 'a' ? mpz_add : op[0] == 's' ? mpz_sub : mpz_mul)(v[nv], v[x], v[y]);
                    mpz_fdiv_r(v[nv], v[nv], v[m]);
                }
            } else if ((ok = sscanf(p, "%u %u %u%n", &w, &x, &y, &used) == 3 && x < nv && y < nv)) {
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

unsigned expr_moduli(const midint_expr_desc *d)
{
    unsigned mask = 0;
    for (const char *p = d->program; p && *p;) {
        const char *end = strchr(p, ';');
        size_t len = end ? (size_t)(end - p) : strlen(p);
        if (len > 5 && p[3] == 'm' && p[4] == ' ' &&
            (!strncmp(p, "redm", 4) || !strncmp(p, "addm", 4) || !strncmp(p, "subm", 4) || !strncmp(p, "mulm", 4))) {
            const char *last = p + len; /* the modulus: the step's last number */
            while (last > p && last[-1] != ' ')
                last--;
            unsigned m = (unsigned)strtoul(last, NULL, 10);
            if (m < d->ninputs && m < 32)
                mask |= 1u << m;
        }
        p += len;
        while (*p == ';' || *p == ' ')
            p++;
    }
    return mask;
}

void expr_odd_moduli(const midint_expr_desc *d, unsigned n, uint32_t *const *in, size_t count, uint64_t seed)
{
    unsigned mask = expr_moduli(d);
    rng g = {seed ^ 0x0DD0DDu};
    for (unsigned i = 0; i < d->ninputs; i++)
        for (size_t inst = 0; (mask >> i & 1u) && inst < count; inst++) {
            uint32_t *w = in[i] + inst * n;
            unsigned shape = (unsigned)((inst + seed) % 6), k = 1u + (unsigned)(rng_next(&g) % (32u * n));
            if (shape >= 1 && shape <= 2) { /* 1, 3 */
                memset(w, 0, (size_t)n * 4);
                w[0] = shape == 1 ? 1u : 3u;
            } else if (shape == 3 || shape == 4) { /* 2^k - 1; all ones: the largest odd value of the width */
                for (unsigned j = 0; j < n; j++)
                    w[j] = shape == 4 || 32u * (j + 1) <= k ? 0xFFFFFFFFu : 32u * j < k ? (1u << (k % 32u)) - 1u : 0u;
            } else if (shape == 5) { /* odd, of a random length: small moduli, inputs far above them */
                for (unsigned j = 0; j < n; j++)
                    w[j] = 32u * j < k ? (uint32_t)rng_next(&g) : 0u;
                if (k % 32u)
                    w[(k - 1u) / 32u] &= (1u << (k % 32u)) - 1u;
            }
            w[0] |= 1u; /* shape 0: the pattern's value, made odd */
        }
}
