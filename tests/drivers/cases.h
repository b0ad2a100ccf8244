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

/* ---- operations through their descriptors (midint_op_describe: the table of operations, generator/ops.py) ---- */

#define OPB_MAX 8 /* parameters of an operation at most */

/* The operation named `name` ("add", "sqr", ...); -1 if unknown. */
int parse_op(const char *name);

/* Words per instance of a buffer parameter at n words; the index of the buffer bound to kernel slot `slot`
 * (MIDINT_SLOT_R: the result), or of the k-th input of n words; -1 when there is none. */
uint64_t param_words(const midint_param_info *p, unsigned n);
int param_in_slot(const midint_op_info *d, unsigned slot);
int nth_input(const midint_op_info *d, unsigned k);

/* The result's words per instance (2n for a full product, 1 for a comparison), and whether the operation has a
 * flag output (add's carry, sub's borrow). */
unsigned result_words(midint_op op, unsigned n);
int op_has_carry(midint_op op);

/* Reference result for one instance through GMP (the operation's reference text, reference.c): r (result_words
 * words) from the inputs a and b (its first and second inputs of n words; its scalars 0) and the flag (0 without). */
void reference(midint_op op, unsigned n, const uint32_t *a, const uint32_t *b, uint32_t *r, uint32_t *carry);

/* The operation's host / asynchronous (the context's own stream; the caller synchronizes) / device call with the
 * result r, the first two inputs of n words a and b, and the flag output carry (where the operation has them; its
 * scalars 0): the older drivers' view of an operation. */
midint_status host_call(midint_op op, midint_context *ctx, size_t count, unsigned bits, uint32_t *r,
                        const uint32_t *a, const uint32_t *b, uint32_t *carry);
midint_status async_call(midint_op op, midint_context *ctx, size_t count, unsigned bits, uint32_t *r,
                         const uint32_t *a, const uint32_t *b, uint32_t *carry);
midint_status device_call(midint_op op, midint_context *ctx, size_t count, unsigned bits, void *r, const void *a,
                          const void *b, void *carry);

/* A batch of any operation on the host: per parameter its array (inputs filled, outputs poisoned with 0xDEADBEEF),
 * its scalar, or absent (an optional buffer left out: NULL in the call). */
typedef struct op_batch {
    const midint_op_info *info;
    midint_op op;
    size_t count;
    unsigned bits, n;
    uint32_t *host[OPB_MAX];
    unsigned scalar[OPB_MAX];
    int absent[OPB_MAX];
    midint_modulus *mod[OPB_MAX]; /* a modulus object's parameter: made from host[i]'s first instance (batch_moduli) */
} op_batch;

/* Make a batch: the inputs of n words from `pattern` and `seed` (pairs as fill_operands' a and b), the scalars and the
 * optional buffers as `args` says ("shift=33", "shift=max": bits - 1, "shifts=each": per-instance counts, the edges
 * 0, 1, 31, 32, 33, bits-1 first, "carry=none": an optional output left out); a scalar not given is random below bits
 * where it must be, else 0; an optional input not given is left out. Arrays from alloc(bytes, arg). 0 with `why`. */
int batch_make(op_batch *b, midint_op op, size_t count, unsigned bits, const char *pattern, uint64_t seed,
               const char *args, void *(*alloc)(size_t bytes, void *arg), void *arg, char *why, size_t len);
void batch_free(op_batch *b, void (*release)(void *p, void *arg), void *arg);
/* Words per instance of parameter i in this batch (a width scalar's buffers: that scalar's value / 32). */
uint64_t batch_words(const op_batch *b, unsigned i);
/* Division and modular arithmetic (cases_mod.c): whether the operation's reference divides, reduces, exponentiates,
 * takes gcds or inverses (its inputs then come from fill_modular), and the inputs of every instance from `pattern`
 * (one of modular_pattern_names, or "mixed"); 0 for an unknown pattern. */
int op_is_modular(const midint_op_info *d);
int fill_modular(op_batch *b, const char *pattern, uint64_t seed);
/* Nonzero: fill_modular makes modulus objects odd (check_batch --odd-moduli), as for an operation whose modulus must
 * be odd. */
extern int cases_odd_moduli;
extern const char *const modular_pattern_names[];

/* The modulus objects of a batch (parameters of kind MIDINT_PARAM_MODULUS) on ctx, made from their arrays' first
 * instance (fill_modular gives every instance the same); batch_free frees them. */
midint_status batch_moduli(op_batch *b, midint_context *ctx);

/* The call's arguments: its buffers in the descriptor's order (NULL where absent; a modulus object where the
 * parameter is one), and its scalars. */
void batch_buffers(const op_batch *b, void **bufs);
void batch_scalars(const op_batch *b, unsigned *scalars);

/* The expected words of every output of instance `inst` (out[i] for output parameter i, param_words words; NULL:
 * skipped), from the inputs as they are now. 0 when the reference cannot be evaluated. */
int batch_expect(const op_batch *b, size_t inst, uint32_t *const *out);

/* Expression reference: the program of d (its steps in mpz, docs/expressions.md) on instance `inst` of the inputs
 * (n words each); out[j] receives output j (output_words[j] x n words). 0 when the program cannot be read. */
int reference_expr(const midint_expr_desc *d, unsigned n, const uint32_t *const *in, size_t inst, uint32_t **out);
/* The inputs of expression d serving as a modulus (the last argument of its modular steps, E mod m), bit i for input
 * i: those must be odd (the tests' and measurements' inputs make them so, expr_odd_moduli). */
unsigned expr_moduli(const midint_expr_desc *d);
/* Make instance inst's modulus inputs (in[i], n words each, for i in expr_moduli) odd moduli of varied shapes, by
 * instance: as filled but odd, 1, 3, 2^k - 1, the largest odd value of n words, odd of a random length. */
void expr_odd_moduli(const midint_expr_desc *d, unsigned n, uint32_t *const *in, size_t count, uint64_t seed);

#endif
