/* reference.c — the operations' GMP reference: evaluates an operation's `reference` text (the table of operations,
 * generator/ops.py) over mpz, so the test drivers hold no per-operation code. The language (docs/operations.md):
 *   text  := output "=" expr { ";" output "=" expr }
 *   expr  := name | number | "W" | "(" function expr { expr } ")"
 * names are the operation's inputs and scalars; W is bits. Functions: add sub mul (exact), and or xor (bitwise on
 * the non-negative values), not x (2^W - 1 - x), shl x s (x 2^s), shr x s (floor(x / 2^s)), cmp x y (-1, 0, 1),
 * lt x y (1 when x < y), div x y and mod x y (floor(x / y), x mod y; y > 0), powm x y z (x^y mod z), gcd x y,
 * invert x y (x^-1 mod y, 0 where there is none) and invertible x y (1 where it exists, as mpz_invert).
 * python/midint/reference.py reads the same language in Python. */
#include <ctype.h>
#include <stdio.h>
#include <string.h>

#include "reference.h"

typedef struct parser {
    const char *p;
    const ref_value *values;
    size_t nvalues;
    unsigned bits;
    int ok;
} parser;

static void skip(parser *s)
{
    while (*s->p == ' ')
        s->p++;
}

/* The next word (letters, digits, '_') into buf. */
static int word(parser *s, char *buf, size_t len)
{
    size_t k = 0;
    skip(s);
    while ((isalnum((unsigned char)*s->p) || *s->p == '_') && k + 1 < len)
        buf[k++] = *s->p++;
    buf[k] = '\0';
    return k > 0;
}

static void eval(parser *s, mpz_t out);

/* (f x y ...): the function applied to its arguments. */
static void apply(parser *s, mpz_t out)
{
    char f[16];
    mpz_t x, y, z;
    mpz_inits(x, y, z, NULL);
    if (!word(s, f, sizeof f)) {
        s->ok = 0;
    } else if (strcmp(f, "not") == 0) {
        eval(s, x);
        mpz_set_ui(out, 0);
        mpz_setbit(out, s->bits);
        mpz_sub_ui(out, out, 1);
        mpz_sub(out, out, x);
    } else {
        eval(s, x);
        eval(s, y);
        if (strcmp(f, "add") == 0)
            mpz_add(out, x, y);
        else if (strcmp(f, "sub") == 0)
            mpz_sub(out, x, y);
        else if (strcmp(f, "mul") == 0)
            mpz_mul(out, x, y);
        else if (strcmp(f, "and") == 0)
            mpz_and(out, x, y);
        else if (strcmp(f, "or") == 0)
            mpz_ior(out, x, y);
        else if (strcmp(f, "xor") == 0)
            mpz_xor(out, x, y);
        else if (strcmp(f, "shl") == 0)
            mpz_mul_2exp(out, x, mpz_get_ui(y));
        else if (strcmp(f, "shr") == 0)
            mpz_fdiv_q_2exp(out, x, mpz_get_ui(y));
        else if (strcmp(f, "cmp") == 0)
            mpz_set_si(out, mpz_cmp(x, y) < 0 ? -1 : mpz_cmp(x, y) > 0);
        else if (strcmp(f, "lt") == 0)
            mpz_set_ui(out, mpz_cmp(x, y) < 0);
        else if ((strcmp(f, "div") == 0 || strcmp(f, "mod") == 0) && mpz_sgn(y) > 0)
            (f[0] == 'd' ? mpz_fdiv_q : mpz_fdiv_r)(out, x, y);
        else if (strcmp(f, "powm") == 0 && (eval(s, z), mpz_sgn(z) > 0))
            mpz_powm(out, x, y, z);
        else if (strcmp(f, "gcd") == 0)
            mpz_gcd(out, x, y);
        else if ((strcmp(f, "invert") == 0 || strcmp(f, "invertible") == 0) && mpz_sgn(y) > 0) {
            /* mpz_invert: 0 where there is no inverse (its rop is then undefined: 0 here) */
            int ok = mpz_invert(z, x, y);
            if (strcmp(f, "invert") == 0 && ok)
                mpz_set(out, z);
            else
                mpz_set_ui(out, strcmp(f, "invert") != 0 && ok);
        } else
            s->ok = 0; /* an unknown function: the driver says so rather than guessing */
    }
    skip(s);
    if (*s->p == ')')
        s->p++;
    else
        s->ok = 0;
    mpz_clears(x, y, z, NULL);
}

static void eval(parser *s, mpz_t out)
{
    char name[32];
    skip(s);
    if (!s->ok)
        return;
    if (*s->p == '(') {
        s->p++;
        apply(s, out);
        return;
    }
    if (!word(s, name, sizeof name)) {
        s->ok = 0;
        return;
    }
    if (isdigit((unsigned char)name[0])) {
        mpz_set_str(out, name, 10);
        return;
    }
    if (strcmp(name, "W") == 0) {
        mpz_set_ui(out, s->bits);
        return;
    }
    for (size_t i = 0; i < s->nvalues; i++)
        if (strcmp(s->values[i].name, name) == 0) {
            mpz_set(out, s->values[i].v);
            return;
        }
    s->ok = 0; /* a name the operation does not have */
}

int reference_eval(const char *text, const ref_value *values, size_t nvalues, unsigned bits, const char *output,
                   mpz_t out)
{
    parser s = {text, values, nvalues, bits, 1};
    char name[32];
    while (*s.p) {
        if (!word(&s, name, sizeof name) || (skip(&s), *s.p != '='))
            return 0;
        s.p++;
        eval(&s, out);
        if (!s.ok)
            return 0;
        if (strcmp(name, output) == 0)
            return 1;
        skip(&s);
        if (*s.p == ';')
            s.p++;
    }
    return 0; /* no reference for this output */
}
