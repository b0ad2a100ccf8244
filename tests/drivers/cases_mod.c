/* cases_mod.c — test inputs for division and modular arithmetic: every input of an instance from one shape, built
 * with GMP so that the relations the shapes promise (a = d q + d - 1, a shared large factor) hold exactly. */
#include <gmp.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cases.h"

/* The shapes (generator/ops.py, MOD_PATTERNS). The modulus (the input that must be nonzero or odd; else the last
 * input of n words, gcd's b) first, then the other inputs relative to it. */
const char *const modular_pattern_names[] = {"random", "zero", "max", "one", "mersenne", "fermat", "pow2", "near",
                                             "multiple", "single_bits", "shared", "equal", "exponents", "mixed", NULL};
#define NSHAPES 13

int op_is_modular(const midint_op_info *d)
{
    static const char *const fns[] = {"(div ", "(mod ", "(powm ", "(gcd ", "(invert "};
    for (unsigned k = 0; d->reference && k < sizeof fns / sizeof fns[0]; k++)
        if (strstr(d->reference, fns[k]))
            return 1;
    return 0;
}

/* the words drawn most significant first, imported at once (a shift per word was quadratic: minutes at 2^25 bits) */
static void random_bits(mpz_t z, rng *g, unsigned bits)
{
    size_t words = (bits + 31u) / 32u;
    uint32_t *w = malloc(words * sizeof *w);
    if (!w) {
        fprintf(stderr, "random_bits: out of memory\n");
        exit(2);
    }
    for (size_t k = 0; k < words; k++)
        w[k] = (uint32_t)rng_next(g);
    mpz_import(z, words, 1, sizeof *w, 0, 0, w);
    free(w);
    mpz_fdiv_r_2exp(z, z, bits);
}

/* a random value of a random length 1..bits (small and large values both) */
static void random_len(mpz_t z, rng *g, unsigned bits)
{
    random_bits(z, g, 1u + (unsigned)(rng_next(g) % bits));
}

static void ones(mpz_t z, unsigned bits)
{
    mpz_set_ui(z, 0);
    mpz_setbit(z, bits);
    mpz_sub_ui(z, z, 1);
}

/* the modulus of shape s, `bits` wide */
static void make_modulus(mpz_t m, int s, rng *g, unsigned bits)
{
    unsigned k = 1u + (unsigned)(rng_next(g) % bits);
    switch (s) {
    case 2: ones(m, bits); break;                                        /* max */
    case 3: mpz_set_ui(m, 1); break;                                     /* one */
    case 4: ones(m, k); break;                                           /* mersenne: 2^k - 1 */
    case 5: mpz_set_ui(m, 0), mpz_setbit(m, k < bits ? k : bits - 1), mpz_add_ui(m, m, 1); break; /* fermat */
    case 6: case 9: mpz_set_ui(m, 0), mpz_setbit(m, k - 1); break;       /* pow2, single_bits */
    case 7: random_len(m, g, bits); break;                               /* near: any length */
    default: random_bits(m, g, bits); mpz_setbit(m, bits - 1 - (unsigned)(rng_next(g) % 2)); break;
    }
}

/* operand j of shape s against the modulus m (the operand `bits` wide) */
static void make_operand(mpz_t x, int s, unsigned j, size_t inst, const mpz_t m, rng *g, unsigned bits)
{
    mpz_t q;
    mpz_init(q);
    switch (s) {
    case 1: mpz_set_ui(x, 0); break;                                     /* zero */
    case 2: ones(x, bits); break;                                        /* max: all-ones */
    case 7: {                                                            /* near: below, at, above, d q + d - 1 */
        static const int near[] = {-1, 0, 1, 2, 3};
        int w = near[(inst + j) % 5];
        if (w <= 1)
            mpz_set(x, m), w < 0 ? mpz_sub_ui(x, x, 1) : mpz_add_ui(x, x, (unsigned)w);
        else {
            random_len(q, g, bits > mpz_sizeinbase(m, 2) ? bits - (unsigned)mpz_sizeinbase(m, 2) + 1 : 1);
            mpz_mul(x, m, q), mpz_add(x, x, m), mpz_sub_ui(x, x, w == 2 ? 1 : 0);  /* d q + d - 1 or d (q + 1) */
        }
        break;
    }
    case 8:                                                              /* multiple: d q exactly */
        random_len(q, g, bits > mpz_sizeinbase(m, 2) ? bits - (unsigned)mpz_sizeinbase(m, 2) + 1 : 1);
        mpz_mul(x, m, q);
        break;
    case 9: mpz_set_ui(x, 0), mpz_setbit(x, (unsigned)(rng_next(g) % bits)); break;   /* single_bits */
    case 11: mpz_set(x, m); break;                                       /* equal */
    default: random_bits(x, g, bits); break;
    }
    mpz_fdiv_r_2exp(x, x, bits);   /* what does not fit is cut: the value stays a valid input */
    mpz_clear(q);
}

/* shared: a large factor p in the modulus and the first operand (no inverse; a large gcd) */
static void make_shared(mpz_t m, mpz_t x, rng *g, unsigned mbits, unsigned xbits, int odd)
{
    mpz_t p, u;
    mpz_inits(p, u, NULL);
    unsigned pb = mbits / 2;
    random_bits(p, g, pb);
    mpz_setbit(p, pb - 1);
    mpz_setbit(p, 0);
    random_bits(u, g, mbits - pb);
    mpz_setbit(u, odd ? 0 : 1);   /* never zero; odd where the modulus must be */
    mpz_mul(m, p, u);
    random_bits(u, g, xbits > pb ? xbits - pb : 1);
    mpz_mul(x, p, u);
    mpz_fdiv_r_2exp(x, x, xbits);
    mpz_clears(p, u, NULL);
}

/* exponents: 0, 1, 2, all-ones, then every bit length in turn */
static void make_exponent(mpz_t e, size_t inst, rng *g, unsigned bits)
{
    if (inst < 4) {
        if (inst == 3)
            ones(e, bits);
        else
            mpz_set_ui(e, (unsigned long)inst);
        return;
    }
    unsigned len = 1u + (unsigned)((inst - 4) % bits);
    random_bits(e, g, len);
    mpz_setbit(e, len - 1);
}

int cases_odd_moduli;

int fill_modular(op_batch *b, const char *pattern, uint64_t seed)
{
    const midint_op_info *d = b->info;
    int mixed = strcmp(pattern, "mixed") == 0, which = -1;
    for (int s = 0; s < NSHAPES; s++)
        if (strcmp(pattern, modular_pattern_names[s]) == 0)
            which = s;
    if (!mixed && which < 0)
        return 0;
    int im = -1;
    unsigned rules = 0;
    for (unsigned i = 0; i < d->nparams; i++)
        if (d->params[i].kind != MIDINT_PARAM_SCALAR && d->params[i].kind != MIDINT_PARAM_OUTPUT &&
            d->params[i].rules & (MIDINT_RULE_NONZERO | MIDINT_RULE_ODD))
            im = (int)i, rules = d->params[i].rules;
    /* a modulus object (MIDINT_PARAM_MODULUS): one modulus, of the first instance's shape, for every instance (the
     * batch's array of it holds count copies, so the reference reads it as any input); the operands keep their own
     * shapes against it, and `shared` makes the first a multiple of it instead of replacing it */
    int one_m = im >= 0 && d->params[im].kind == MIDINT_PARAM_MODULUS;
    for (unsigned i = 0; im < 0 && i < d->nparams; i++)
        if (d->params[i].kind == MIDINT_PARAM_INPUT && d->params[i].words_per_n == 1)
            im = (int)i;   /* the last input of n words: gcd's b */
    rng g = {seed * 0x9E3779B97F4A7C15ull + 7};
    mpz_t m, x;
    mpz_inits(m, x, NULL);
    for (size_t inst = 0; inst < b->count; inst++) {
        int s = mixed ? (int)((inst * 5 + seed) % NSHAPES) : which;
        unsigned mbits = 32u * (unsigned)batch_words(b, (unsigned)im);
        if (!one_m || inst == 0) {
            make_modulus(m, s, &g, mbits);
            if ((rules & MIDINT_RULE_ODD) || (one_m && cases_odd_moduli))
                mpz_setbit(m, 0);
            if ((rules & MIDINT_RULE_NONZERO) && mpz_sgn(m) == 0)
                mpz_set_ui(m, 1);
        }
        unsigned j = 0;   /* the operands relate to the valid modulus; a shared factor replaces it (still valid) */
        for (unsigned i = 0; i < d->nparams; i++) {
            const midint_param_info *p = &d->params[i];
            if (p->kind != MIDINT_PARAM_INPUT || (int)i == im)
                continue;
            unsigned xbits = 32u * (unsigned)batch_words(b, i);
            if (strcmp(p->name, "exp") == 0 && (s == 12 || s == 1 || s == 3))
                make_exponent(x, s == 12 ? inst : s == 1 ? 0 : 1, &g, xbits);   /* zero: e = 0; one: e = 1 */
            else if (s == 10 && j == 0 && one_m)
                make_operand(x, 8, j, inst, m, &g, xbits);   /* multiple */
            else if (s == 10 && j == 0)
                make_shared(m, x, &g, mbits, xbits, (rules & MIDINT_RULE_ODD) != 0);
            else
                make_operand(x, s, j, inst, m, &g, xbits);
            if (s == 1 && !rules && inst % 2)
                mpz_set_ui(m, 0);   /* gcd: both zero on every other instance */
            size_t w = (size_t)batch_words(b, i);
            memset(b->host[i] + inst * w, 0, w * 4);
            mpz_export(b->host[i] + inst * w, NULL, -1, 4, 0, 0, x);
            j++;
        }
        size_t w = (size_t)batch_words(b, (unsigned)im);
        memset(b->host[im] + inst * w, 0, w * 4);
        mpz_export(b->host[im] + inst * w, NULL, -1, 4, 0, 0, m);
    }
    mpz_clears(m, x, NULL);
    return 1;
}
