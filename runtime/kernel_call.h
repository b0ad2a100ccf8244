/* kernel_call.h — internal: one operation's kernels on device buffers, dispatched and planned with no checks (the
 * steps of the division of large numbers, bigdiv.c), copies of words between rows of instances, and how a call's
 * buffers and scalars bind to kernel slots. */
#ifndef MIDINT_KERNEL_CALL_H
#define MIDINT_KERNEL_CALL_H

#include "context.h"
#include "launch.h"

/* The launch arguments of a call of `info`: bufs and scalar hold one entry per parameter (a buffer's handle, a
 * scalar's value; the other NULL / 0). */
void midint_bind(const midint_op_info *info, void *const *bufs, const unsigned *scalar, midint_launch *l);

/* Words per instance of the output in slot r at n words (from its width scalar where it has one). */
uint32_t midint_result_words(const midint_op_info *info, uint32_t n, const unsigned *scalar);

/* A device call of op's own kernels (never composed, never expression steps), arguments as midint_run_device's:
 * buffers in the order of the row's buffers, scalars in the order of its scalars. Enqueued on `stream`. */
midint_status midint_kernel_call(midint_context *ctx, midint_op op, size_t count, unsigned bits, void *const *buffers,
                                 const unsigned *scalars, void *stream);

/* Enqueue a copy of k words from each of `rows` rows: src's words [soff, soff + k) of rows of sw words to dst's
 * [doff, doff + k) of rows of dw words (an offset past a row starts at a later one). */
midint_status midint_copy_words(midint_context *ctx, void *dst, size_t dw, size_t doff, const void *src, size_t sw,
                                size_t soff, size_t k, size_t rows, void *stream);

#endif
