/* measure_host.h — the host-path commands of the measuring tool (measure_host.c). */
#ifndef MIDINT_MEASURE_HOST_H
#define MIDINT_MEASURE_HOST_H

#include <stddef.h>

#include "midint.h"

/* "host OP BITS COUNT pageable|pinned REPS": one synchronous host call timed on the wall clock (median of REPS
 * after one warm-up), sampled results checked against GMP. */
void cmd_host(midint_context *ctx, const char *op_s, unsigned bits, size_t count, const char *mem, int reps);

/* "hostcopy BYTES REPS": page-locked host <-> device copy rates, each direction alone and both at once. */
void cmd_hostcopy(midint_context *ctx, int device, size_t bytes, int reps);

#endif
