/* measure_ops.h — the measuring tool's commands for any operation of the table through its descriptor
 * (measure_ops.c): division and modular arithmetic, whose inputs and scalars the classic batch does not cover. */
#ifndef MIDINT_MEASURE_OPS_H
#define MIDINT_MEASURE_OPS_H

#include <stddef.h>

#include "midint.h"

/* Force VARIANT (or, for "default", none) and say which variant the call will run (*chosen) with the modulus object
 * mod (NULL: none, or an odd one); a variant that is not generated or does not serve the call: an error status. */
midint_status choose_variant(midint_context *ctx, midint_op op, unsigned bits, size_t count, const char *name,
                             const midint_modulus *mod, const char **chosen);

/* "run OP BITS COUNT VARIANT REPS [ARGS]": the operation on device buffers of random inputs (the test drivers'
 * pattern "random", or "pattern=NAME" among ARGS; ARGS as check_batch's: "ebits=512", "abits=2n", "secret=1"), timed (median of REPS), 257
 * sampled instances checked against GMP. Prints "run OP BITS COUNT VARIANT ok|error MEDIAN_MS pass|FAIL [ARGS]". */
void cmd_run(midint_context *ctx, const char *op_s, unsigned bits, size_t count, const char *name, int reps,
             const char *args);

/* "gmpop OP BITS COUNT THREADS [ARGS]": GMP's mpz function for the operation (mpz_tdiv_qr, mpz_tdiv_r, mpz_mul and
 * mpz_tdiv_r, mpz_powm or mpz_powm_sec with secret=1, mpz_gcd, mpz_invert) over the same inputs on THREADS host
 * threads. Prints "gmpop OP BITS COUNT THREADS SECONDS [ARGS]" ("none" for an operation GMP does not have). */
void cmd_gmpop(const char *op_s, unsigned bits, size_t count, int threads, const char *args);

#endif
