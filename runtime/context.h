/* context.h — internal: the context structure (what one open device holds) and the failure helper. */
#ifndef MIDINT_CONTEXT_H
#define MIDINT_CONTEXT_H

#include "backend.h"
#include "hooks.h"
#include "replay.h"

#define MIDINT_MSG_LEN 512
#define MIDINT_MAX_FORCED 64
/* Dispatch decisions remembered, by a hash of the call's shape: a power of two. The division of large numbers calls
 * about six shapes a level over a dozen levels, batch GCD more; 8 slots in turn missed nearly every call there, and a
 * miss walks the registry (3-4 us: tuning/RESULTS.md, twenty-third session). */
#define MIDINT_DISPATCH_MEMO 512
#define MIDINT_STEPS_SLOTS 24 /* temporaries of an expression step by step: values alive at once, at most */

/* Operands of one call through the pipeline at most (an expression's outputs and inputs; an operation's buffers). */
#define MIDINT_PIPE_MAX 8

/* Temporaries of the division of large numbers (bigdiv.c), each its own device buffer. */
#define MIDINT_BIGDIV_BUFFERS 32

/* Device buffers of batch GCD's trees (batch_gcd.c) at most, kept between its calls. */
#define MIDINT_TREE_BUFFERS 120

/* The device workspace's cap until midint_set_workspace_bytes sets one (a composed mulmod's product counts under it). */
#define MIDINT_DEFAULT_WORKSPACE_CAP ((size_t)4 << 30)

/* One slot of the pipeline. Device memory is two buffers (inputs, outputs) with a sub-buffer per operand; the
 * page-locked staging holds the same layout (inputs then outputs) for operands in pageable memory. */
typedef struct midint_pipe_slot {
    void *dev[2];                   /* device buffers: inputs, outputs */
    size_t dev_bytes[2];
    void *sub[MIDINT_PIPE_MAX];     /* sub-buffers of the operands, made for `layout` */
    size_t layout[MIDINT_PIPE_MAX * 2]; /* offset and bytes of each operand in its buffer */
    void *host, *host_handle;       /* page-locked staging (inputs bytes, then outputs bytes) */
    size_t host_bytes;
    void *host_dev;                 /* the staging's device alias (backend host_alias), or NULL */
} midint_pipe_slot;

/* One block of midint_host_alloc memory, listed in its context so that it can be checked and freed at close. */
typedef struct midint_host_block {
    void *ptr, *handle;
    size_t bytes;
    struct midint_host_block *next;
} midint_host_block;

/* A remembered dispatch decision: repeated calls of one shape skip the registry walk. */
typedef struct midint_dispatch_memo {
    midint_op op;
    uint32_t n;
    size_t count;
    unsigned moduli;          /* the call's MIDINT_MODULI_* traits (dispatch.h) */
    const midint_variant *v;  /* NULL: an empty slot */
} midint_dispatch_memo;

/* A device buffer of the host path and its capacity. */
typedef struct midint_staging_buf {
    void *buf;
    size_t bytes;
} midint_staging_buf;

/* The largest size an expression runs on a context: through a fused kernel, and as separate calls, one per step
 * (0: not at all). */
typedef struct midint_expr_limits {
    uint32_t fused, steps;
} midint_expr_limits;

struct midint_context {
    const midint_backend_ops *ops;
    void *be;                       /* the backend's own state */
    int device;
    char device_name[256];
    uint32_t max_block;             /* threads per block the device allows */
    uint32_t max_shared;            /* dynamic shared memory per block it allows (after opt-in) */
    midint_test_hooks hooks;        /* the test hooks (hooks.c), read at open */
    size_t staging_bytes;           /* cap on the host path's device buffers */
    size_t direct_bytes;            /* host calls of at most this many bytes run on mapped staging (host_path.c) */
    midint_pipe_slot pipe[MIDINT_PIPE_SLOTS]; /* the host path's slots, grown on demand */
    size_t sub_align;               /* offsets of sub-buffers are multiples of this (bytes) */
    int async_pending;              /* an asynchronous host call may still be running on the pipeline */
    struct midint_copy_pool *copy_pool; /* host_copy.c, started at the first large pageable copy */
    int copy_pool_tried;
    midint_host_block *host_blocks; /* midint_host_alloc's blocks not yet freed */
    void *ntt_table;                /* NTT twiddle tables, made at the first NTT launch (ntt_tables.c) */
    void *check_flag;               /* one word: the device-side check's first bad instance (ops.c), made at first
                                     * need */
    midint_staging_buf ws, st;      /* the workspace of grid variants (plan.c): transforms, tile carry states */
    midint_staging_buf ws2;         /* plan.c: the grid NTT's products of pieces, their outputs' planes */
    size_t workspace_cap;           /* midint_set_workspace_bytes (0: MIDINT_DEFAULT_WORKSPACE_CAP) */
    int forced_steps;               /* midint_force_variant(ctx, "steps"): expressions step by step where they can */
    midint_staging_buf steps_tmp[MIDINT_STEPS_SLOTS + 1]; /* expr_steps.c: values' slots, then the constants' column */
    midint_staging_buf composed_tmp; /* ops.c: a composed mulmod's product, 2 n words per instance */
    midint_staging_buf composed_mods; /* ops.c: a composed mulmod_shared's modulus, n words per instance */
    /* composed_mods holds the modulus object of serial composed_mods_serial in its first composed_mods_count
     * instances while replay_epoch is composed_mods_epoch (the epoch moves whenever the workspace's buffers are grown
     * or freed), so that the next call of that modulus copies none; moduli_made: the modulus objects made so far,
     * their serials */
    uint64_t composed_mods_serial, composed_mods_epoch, moduli_made;
    size_t composed_mods_count;
    /* bigdiv.c: its temporaries, one buffer each (OpenCL copies no rectangle between two parts of one buffer whose
     * rows differ) */
    midint_staging_buf div_tmp[MIDINT_BIGDIV_BUFFERS];
    /* batch_gcd.c: the buffers of its last call, taken by the next (each device allocation and free costs tens of
     * microseconds and a free waits for the device: 2-4 ms a call of 2^16 moduli); empty slots have buf NULL */
    midint_staging_buf tree_kept[MIDINT_TREE_BUFFERS];
    const midint_variant *forced[MIDINT_MAX_FORCED];
    size_t nforced;
    struct midint_tuning *tuning;   /* loaded tuned table, or NULL */
    unsigned char *refused;         /* per registry entry: its kernels were turned down by the device (kernels_run) */
    char refusal[MIDINT_MSG_LEN];   /* why the last one was: said when no variant is left for a call */
    midint_dispatch_memo memo[MIDINT_DISPATCH_MEMO]; /* cleared whenever forced variants or the table change */
    /* wrap_product.c: the NTT grid engine its products run on, once searched (the division asks at every level, and
     * a search walks the whole registry); wrap_searched: searched, wrap_engine NULL where none runs here */
    const midint_variant *wrap_engine;
    int wrap_searched;
    /* replay.c: recorded launch sequences (the division's Newton levels), good while replay_epoch stays (bumped when a
     * buffer the context holds is reallocated or freed, or dispatch changes); replay_clock orders their uses */
    midint_replay_slot replays[MIDINT_REPLAY_SLOTS];
    uint64_t replay_epoch, replay_clock;
    uint32_t max_bits[MIDINT_OP_COUNT_];            /* midint_max_bits, worked out at open (registry.c) */
    uint32_t kernel_max_bits[MIDINT_OP_COUNT_];     /* the largest size of each operation's own kernels (max_bits
                                                     * may go further: divrem and mod of large numbers, bigdiv.c) */
    uint32_t bigdiv_max_bits;                       /* the largest divisor bigdiv.c serves here (0: none) */
    /* the mulmod variants here whose kernels divide on the FP64 pipe (the registry's fdiv): their bits and fdiv, found
     * at open with max_bits (registry.c) so that a call does not walk the registry; a size past the 8th would compose
     * as if it had none (space.MULMOD_FDIV_BITS names 4) */
    uint32_t mulmod_fdiv[8][2];
    unsigned mulmod_fdiv_count;
    midint_expr_limits *expr_limits; /* per expression: the largest sizes it runs here (fused: registry.c) */
    int expr_steps_known;           /* expr_limits' step-by-step sizes are worked out (expr_steps.c) */
    char tuning_status[MIDINT_MSG_LEN];
    char msg[MIDINT_MSG_LEN];
};

/* Record a failure on ctx (may be NULL) and for this thread; returns `status`. */
midint_status midint_fail(midint_context *ctx, midint_status status, const char *fmt, ...)
#if defined(__GNUC__)
    __attribute__((format(printf, 3, 4)))
#endif
    ;

/* The workspace cap in force: midint_set_workspace_bytes's, else MIDINT_DEFAULT_WORKSPACE_CAP. */
static inline size_t midint_workspace_cap(const midint_context *ctx)
{
    return ctx->workspace_cap ? ctx->workspace_cap : MIDINT_DEFAULT_WORKSPACE_CAP;
}

#endif
