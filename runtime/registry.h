/* registry.h — the generated tables: variants (what each computes and how a call runs) and their kernels. */
#ifndef MIDINT_REGISTRY_H
#define MIDINT_REGISTRY_H

#include "launch.h"
#include "midint.h"

/* How a call of a variant runs (plan.c): one launch, or several sharing a workspace. */
typedef enum midint_plan_kind {
    MIDINT_PLAN_ONE_BLOCK = 0,   /* one kernel, an instance (or several) per block */
    MIDINT_PLAN_ADDSUB_GRID = 1, /* tiles of an instance added in parallel, then the carries between them */
    MIDINT_PLAN_NTT_GRID = 2,    /* four-step NTT: column, row and inverse column passes, CRT, carries */
    MIDINT_PLAN_EXPR_GRID = 3,   /* additions-only expression: tiles of every output, then the carries between them */
    MIDINT_PLAN_MAP = 4          /* a word-wise operation: one kernel over the batch's flat array of words */
} midint_plan_kind;

/* What a kernel does within its variant's plan. */
typedef enum midint_role {
    MIDINT_ROLE_ONE_BLOCK = 0, /* the whole operation */
    MIDINT_ROLE_TILE = 1,      /* add/sub grid: tiles with no carry in, and their carry states */
    MIDINT_ROLE_FIXUP = 2,     /* grid families: carries between tiles, carry out */
    MIDINT_ROLE_ROWS = 3,      /* NTT grid: row transforms, pointwise product, inverse row transforms */
    MIDINT_ROLE_COLS = 4,      /* NTT grid: digits in, column transforms, twiddles */
    MIDINT_ROLE_COLS_INV = 5,  /* NTT grid: twiddles, inverse column transforms, scale: the residues */
    MIDINT_ROLE_CRT = 6,       /* NTT grid: residues to result words, tile by tile */
    MIDINT_ROLE_EXPR = 7,      /* a fused expression: the whole of it (expr grid: its tiles, carry in 0); takes the
                                * buffers io0..io7 (launch.h) */
    MIDINT_ROLE_MAP = 8,       /* map family: Q words per thread of the flat array of count x n words */
    MIDINT_ROLE_CHECK = 9,     /* the device-side check of divisors and moduli (one per backend; runtime/ops.c) */
    MIDINT_ROLE_DIV_LZ = 10,   /* large division (runtime/bigdiv.c): each instance's leading zero bits */
    MIDINT_ROLE_DIV_PICK = 11, /* large division: keep or take a difference per instance, count the corrections */
    MIDINT_ROLE_ROWS_FWD = 12, /* NTT grid, products of pieces: the pieces' row transforms, forward */
    MIDINT_ROLE_ROWS_MAC = 13, /* NTT grid, products of pieces: the outputs' sums of pointwise products, rows back */
    MIDINT_ROLE_CRT_PIECES = 14, /* NTT grid, products of pieces: the outputs' residues to result words */
    MIDINT_ROLE_COLS_WRAP = 15,  /* NTT grid, wrapped products (wrap_product.c): digits in over whole columns */
    MIDINT_ROLE_DIV_CMUL = 16,   /* large division: a block's correction from the remainder's top words, times D' */
    MIDINT_ROLE_DIV_SMUL = 17,   /* large division: a short quotient times D', as three numbers */
    MIDINT_ROLE_DIV_PLACE = 18,  /* large division: words copied into zeros (a fill and copies in one launch) */
    MIDINT_ROLE_DIV_XMUL = 19    /* large division: a level's product's rows of one word, as two numbers */
} midint_role;

typedef struct midint_kernel {
    const char *name;
    midint_backend backend;
    midint_role role;
    uint32_t log_length;     /* NTT pass kernels: log2 of their sub-transform length; 0 otherwise */
    uint32_t block;          /* threads per block */
    uint32_t shared_bytes;   /* dynamic shared / local memory per block */
    uint32_t span;           /* columns per block (cols), rows per block (rows), words per tile (tile, crt, fixup);
                              * one-block kernels: workspace words per instance (0: none; plan.c runs passes) */
    int impl;                /* index into midint_cuda_launchers or midint_opencl_kernels */
    uint32_t outputs;        /* rows_mac: outputs of a product of pieces each block makes; 0 otherwise */
} midint_kernel;

typedef struct midint_variant {
    const char *name;        /* the key everywhere: op_bits_limb_qQ_iIPB[_pSETbDIGIT][_gBLOCK][_wLANES|_xLANES][_kK]_backend */
    midint_op op;
    uint32_t bits;           /* largest size it serves; any multiple of 32 below works too */
    uint32_t limb_words;     /* 32-bit words per limb: 1 (u32) or 2 (u64) */
    uint32_t q;              /* limbs (NTT: transform points) per thread */
    uint32_t ipb;            /* instances per block at the full size (NTT variants: at every size) */
    midint_backend backend;
    uint32_t block;          /* threads per block (grid variants: of their largest kernel) */
    uint32_t shared_bytes;   /* dynamic shared / local memory per block (grid variants: the most of any kernel) */
    uint32_t ntt_primes;     /* NTT variants: primes in the set (the first ones of midint_ntt_primes); 0 otherwise */
    uint32_t digit_bits;     /* NTT variants: bits per digit */
    midint_plan_kind plan;
    uint32_t kernel, nkernels; /* its kernels: midint_kernels[kernel .. kernel + nkernels) */
    uint32_t lanes;          /* register-resident variants: lanes per instance (1: a thread); 0 otherwise */
    uint32_t across;         /* register-resident variants: 0 lanes of one warp (_wL), 1 lanes in different warps (_xL),
                              * 2 blocks summed by their owner warps, L/2 per instance (_oL, the balanced low half),
                              * 3 a thread per instance staged through shared memory (_t1) */
    uint32_t karatsuba;      /* Karatsuba levels over the register-resident pipeline (_kK); 0 otherwise */
    uint32_t grid;           /* grid variants: threads per block of their tile kernels (_gB); 0 otherwise */
    uint32_t refuses_moduli; /* the MIDINT_MODULI_* traits (dispatch.h) of the calls it leaves to the operation's other
                              * variants: EVEN where it serves odd moduli only (generator/space.py OpFamily.odd_moduli),
                              * F52 where another variant of its size takes them faster (space.cedes_f52) */
    uint32_t fdiv;           /* mulmod: where its kernel divides on the FP64 pipe the instances whose modulus is
                              * at least 2^fdiv (space.mulmod_fdiv, fdiv_min_bits), fdiv; 0 otherwise. Faster than
                              * mul then mod: a call of its size with no smaller modulus runs it (dispatch.c,
                              * midint_composed_applies) */
} midint_variant;

extern const midint_kernel midint_kernels[];
extern const size_t midint_kernel_count;

/* An NTT prime p = k 2^order + 1 and a primitive 2^order-th root of unity mod p. */
typedef struct midint_ntt_prime {
    uint32_t p, root, order;
} midint_ntt_prime;
extern const midint_ntt_prime midint_ntt_primes[];
extern const size_t midint_ntt_prime_count;
extern const uint32_t midint_ntt_table_length;
/* The largest size whose mulmod_shared kernel has the branch of Barrett in radix 2^52 (generator/space.py
 * MOD_SHARED_F52_BITS; 0: none): modulus objects up to it carry its constants (modulus.h; their bit-by-bit division
 * costs 104 K n word steps, so larger objects are spared it). */
extern const uint32_t midint_modulus_f52_max_bits;

/* The grid NTT's constants (generator/grid_plan.py): where its tables sit in the twiddle buffer (in (value,
 * quotient) pairs), and its transform lengths. */
typedef struct midint_ntt_grid_layout {
    uint32_t base;        /* first pair after the one-block tables */
    uint32_t stride;      /* pairs per prime */
    uint32_t lo_bits;     /* lo[j] = w^j for j < 2^lo_bits, hi[j] = w^(j 2^lo_bits), w a primitive 2^log_max-th root */
    uint32_t log_min;     /* shorter transforms are padded to 2^log_min points */
    uint32_t log_max;     /* the longest transform: 2^log_max points */
    uint32_t fwd_lo, fwd_hi, inv_lo, inv_hi, scale; /* sections within one prime's pairs */
    uint32_t scales;      /* scale[l] = (2^32 / 2^l mod p, quotient) for l < scales */
} midint_ntt_grid_layout;
extern const midint_ntt_grid_layout midint_ntt_grid;

/* The table of operations (generated/ops_table.c, from generator/ops.py): each operation's descriptor, indexed by
 * its code. */
extern const midint_op_info midint_op_infos[];

/* Fused expressions (expr.c): expression i's variants have op MIDINT_OP_EXPR0 + i, an op code past the public ones,
 * so that dispatch, forced variants and tuned tables treat each expression as one more operation, and the call path
 * takes its descriptor midint_expr_infos[i] (outputs, then inputs) as an operation's. */
#define MIDINT_OP_EXPR0 MIDINT_OP_COUNT_
extern const midint_expr_desc midint_exprs[];
extern const midint_op_info midint_expr_infos[];
extern const size_t midint_exprs_count;
extern const char *const midint_expr_op_names[]; /* "expr_NAME", the op field of their variant names */

/* The dispatch's built-in default rule (generated from generator/default_rules.py, which says what each field means
 * and the measurements behind each row); midint_op_rule[op] is an operation's row, midint_expr_rule the
 * expressions'. */
typedef struct midint_default_rule {
    const char *name;
    double chunk_words, block, limb_words, w_chunk, w_block, w_limb, w_idle;
    uint32_t ntt_above_bits;
    double ntt_q, ntt_block, w_ntt_block;
    uint32_t grid_from_bits;
    uint64_t grid_below_count;
    double grid_q, grid_block;
    uint32_t lanes_upto_bits;
    uint64_t lanes_from_count;
    double lanes_q, lanes_min;
    uint32_t lanes_across, lanes_karatsuba;
    uint64_t lanes_below_count, lanes_staged_from;
} midint_default_rule;
extern const midint_default_rule midint_default_rules[];
extern const size_t midint_default_rule_count;
extern const unsigned midint_op_rule[];
extern const unsigned midint_expr_rule;

/* The descriptor of an op code: an operation's, or an expression's (MIDINT_OP_EXPR0 + i); NULL when unknown. */
const midint_op_info *midint_info_of(midint_op op);

/* The words per instance of parameter p of a call at n words (0 for a scalar). */
uint64_t midint_param_words(const midint_param_info *p, uint32_t n);

/* The op code of an operation name: a public operation or expr_NAME; 0 when unknown. */
int midint_op_from_name(const char *name, midint_op *op);

extern const midint_variant midint_registry[];
extern const size_t midint_registry_size;
extern const char midint_registry_hash[];

/* The candidates of one (op, bits) pair: a tuned table's row names this hash (format 2, runtime/tuning.c). */
typedef struct midint_candidate_set {
    midint_op op;
    uint32_t bits;
    const char *hash;        /* FNV-1a 64 of the pair's variant lines (+ the expression's program), 16 hex digits */
} midint_candidate_set;
extern const midint_candidate_set midint_candidate_sets[]; /* sorted by op, then bits */
extern const size_t midint_candidate_set_count;

/* The candidate-set hash of (op, bits), or NULL when this build generated no variant of op at exactly bits. */
const char *midint_candidate_set_hash(midint_op op, uint32_t bits);

/* The variant named `name`, or NULL. */
const midint_variant *midint_registry_find(const char *name);

/* Threads per instance for n words, and whether the variant can serve (op, n words) at all. */
uint32_t midint_variant_threads_per_instance(const midint_variant *v, uint32_t n);
int midint_variant_serves(const midint_variant *v, midint_op op, midint_backend backend, uint32_t n);

/* The runtime's own kernel of `role` for `backend` (the check, the division's helpers), or NULL where not built. */
const midint_kernel *midint_runtime_kernel(midint_backend backend, midint_role role);

/* The kernel of v with `role` (and, for NTT passes, sub-transform length 2^log_length), or NULL. */
const midint_kernel *midint_variant_kernel(const midint_variant *v, midint_role role, uint32_t log_length);

#endif
