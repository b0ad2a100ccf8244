/* reference.h — the operations' GMP reference, read from their descriptors' `reference` text (reference.c). */
#ifndef MIDINT_TEST_REFERENCE_H
#define MIDINT_TEST_REFERENCE_H

#include <stddef.h>

#include <gmp.h>

/* A named value of one instance: an input's integer or a scalar's. */
typedef struct ref_value {
    const char *name;
    mpz_t v;
} ref_value;

/* Evaluate output `output` of reference `text` ("r=(add a b);carry=(shr (add a b) W)") over `values` at `bits`
 * into out (not yet reduced to the output's width). 0 when the text is malformed, names an unknown function or
 * value, or has no such output. */
int reference_eval(const char *text, const ref_value *values, size_t nvalues, unsigned bits, const char *output,
                   mpz_t out);

#endif
