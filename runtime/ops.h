/* ops.h — internal: the one call path of every operation and expression (ops.c), which the generated entry points
 * (generated/ops_table.c) and the expressions' functions (expr.c) enter. */
#ifndef MIDINT_CALL_PATH_H
#define MIDINT_CALL_PATH_H

#include "context.h"

/* Where a call's buffers are and how it returns: host memory (synchronous), page-locked host memory (enqueued),
 * device buffers (enqueued). */
typedef enum midint_mode {
    MIDINT_MODE_HOST = 0,
    MIDINT_MODE_ASYNC = 1,
    MIDINT_MODE_DEVICE = 2
} midint_mode;

/* A call of op (an operation's code, or MIDINT_OP_EXPR0 + i for expression i): its descriptor's buffers in order
 * (`buffers`) and its scalars (`scalars`, may be NULL when it has none). Checks every argument before anything is
 * written, dispatches, plans and runs; `fn` names the API function in messages. */
midint_status midint_op_entry(midint_context *ctx, midint_op op, size_t count, unsigned bits, void *const *buffers,
                              const unsigned *scalars, midint_mode mode, void *stream, const char *fn);

/* A device call of op on device buffers that a checked call makes (composed operations' parts, bigdiv.c's steps):
 * dispatched and run with no checks again, on `stream`. */
midint_status midint_op_inner(midint_context *ctx, midint_op op, size_t count, unsigned bits, void *const *buffers,
                              const unsigned *scalars, void *stream);

/* Whether [p, p + pn) and [q, q + qn) overlap. */
int midint_ranges_overlap(const void *p, size_t pn, const void *q, size_t qn);

#endif
