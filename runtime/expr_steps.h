/* expr_steps.h — internal: an expression evaluated step by step as separate calls (expr_steps.c). */
#ifndef MIDINT_EXPR_STEPS_H
#define MIDINT_EXPR_STEPS_H

#include "context.h"

/* Where no fused kernel serves a size: the largest size at which every step's operation is available (0: none), the
 * evaluation on device buffers io (outputs, then inputs; the call's arguments checked), and the release of its
 * temporaries (at close). */
unsigned midint_expr_steps_max_bits(const midint_context *ctx, const midint_expr_desc *d);
/* Whether d's program has modular steps (E mod m): those run in fused kernels only (steps' largest size 0). */
int midint_expr_modular(const midint_expr_desc *d);
midint_status midint_expr_steps_run(midint_context *ctx, const midint_expr_desc *d, unsigned bits, size_t count,
                                    void *const *io, void *stream);
void midint_expr_steps_free(midint_context *ctx);

/* Expression i's largest sizes on this context: fused (found with the operations', registry.c) and step by step
 * (worked out here from the operations' sizes, at first need after they changed). */
midint_expr_limits midint_expr_limits_of(midint_context *ctx, size_t i);

/* Whether a call of expression i at `bits` runs step by step: where no fused kernel serves the size, or wherever its
 * steps serve it when the test hook MIDINT_TEST_EXPR_STEPS or midint_force_variant(ctx, "steps") asks for it. */
int midint_expr_uses_steps(midint_context *ctx, size_t i, unsigned bits);

#endif
