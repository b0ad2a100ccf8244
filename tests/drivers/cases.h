/* cases.h — test inputs (random and adversarial patterns) and the GMP reference for the test drivers. */
#ifndef MIDINT_TEST_CASES_H
#define MIDINT_TEST_CASES_H

#include <stddef.h>
#include <stdint.h>

#include "midint.h"

/* Deterministic generator (splitmix64), so a failing case can be replayed from its seed. */
typedef struct rng { uint64_t s; } rng;
uint64_t rng_next(rng *g);

/* Fill instance i of a and b (n words each) with `pattern` ("mixed" cycles through all patterns by
 * instance). Returns 0 for an unknown pattern name. */
int fill_operands(const char *pattern, uint64_t seed, size_t count, unsigned n, uint32_t *a, uint32_t *b);

/* Names of the patterns, NULL-terminated. */
extern const char *const pattern_names[];

/* Reference result for one instance through GMP: r (result_words(op, n) words) and the carry/borrow
 * (0 for the multiplications). */
void reference(midint_op op, unsigned n, const uint32_t *a, const uint32_t *b, uint32_t *r, uint32_t *carry);

/* Parse an operation name ("add", "sub", "mul", "mullo"); -1 if unknown. */
int parse_op(const char *name);

/* The host / device entry point of op (device: default stream); carry goes to add and sub only. */
midint_status host_call(midint_op op, midint_context *ctx, size_t count, unsigned bits, uint32_t *r,
                        const uint32_t *a, const uint32_t *b, uint32_t *carry);
/* The asynchronous host call of op on the context's own stream (the caller synchronizes). */
midint_status async_call(midint_op op, midint_context *ctx, size_t count, unsigned bits, uint32_t *r,
                         const uint32_t *a, const uint32_t *b, uint32_t *carry);
midint_status device_call(midint_op op, midint_context *ctx, size_t count, unsigned bits, void *r, const void *a,
                          const void *b, void *carry);

/* Result words per instance (2n for the full product), and whether the op has a carry/borrow output. */
unsigned result_words(midint_op op, unsigned n);
int op_has_carry(midint_op op);

/* Expression reference: the program of d (its steps in mpz, docs/expressions.md) on instance `inst` of the inputs
 * (n words each); out[j] receives output j (output_words[j] x n words). 0 when the program cannot be read. */
int reference_expr(const midint_expr_desc *d, unsigned n, const uint32_t *const *in, size_t inst, uint32_t **out);

#endif
