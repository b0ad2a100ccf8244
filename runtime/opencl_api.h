/* opencl_api.h — inside the OpenCL backend: the entry points loaded from the ICD loader, a context's state, and the
 * warp spellings of its builds (opencl_warps.c). Not installed. */
#ifndef MIDINT_OPENCL_API_H
#define MIDINT_OPENCL_API_H

#define CL_TARGET_OPENCL_VERSION 120
#define CL_USE_DEPRECATED_OPENCL_1_2_APIS
#include <CL/cl.h>
#include <time.h>

#include "context.h"

/* The OpenCL entry points we use, loaded from the ICD loader so that the library also works (with the
 * CUDA backend) on machines that have no OpenCL installed. */
#define CL_FUNCS(X)                                                                                                \
    X(clGetPlatformIDs) X(clGetDeviceIDs) X(clGetDeviceInfo) X(clCreateContext) X(clReleaseContext)                \
    X(clCreateCommandQueue) X(clReleaseCommandQueue) X(clCreateBuffer) X(clReleaseMemObject)                       \
    X(clEnqueueWriteBuffer) X(clEnqueueReadBuffer) X(clCreateProgramWithSource) X(clBuildProgram)                  \
    X(clGetProgramBuildInfo) X(clCreateKernel) X(clReleaseKernel) X(clReleaseProgram) X(clSetKernelArg)            \
    X(clEnqueueNDRangeKernel) X(clFinish) X(clGetKernelWorkGroupInfo) X(clEnqueueCopyBuffer) X(clGetMemObjectInfo) \
    X(clEnqueueMarkerWithWaitList) X(clEnqueueBarrierWithWaitList) X(clReleaseEvent) X(clWaitForEvents)            \
    X(clEnqueueMapBuffer) X(clEnqueueUnmapMemObject) X(clCreateSubBuffer) X(clFlush)                               \
    X(clEnqueueFillBuffer) X(clEnqueueCopyBufferRect)

typedef struct midint_cl_api {
#define X(f) __typeof__(&f) f;
    CL_FUNCS(X)
#undef X
} midint_cl_api;
extern midint_cl_api midint_cl; /* backend_opencl.c, filled by its loader */
/* OpenCL 2.1's clGetKernelSubGroupInfo, when the loader has it: checks a kernel's sub-group size (NULL otherwise) */
typedef cl_int (*midint_sub_group_info_fn)(cl_kernel, cl_device_id, cl_uint, size_t, const void *, size_t, void *,
                                          size_t *);
extern midint_sub_group_info_fn midint_cl_sub_group_info;

/* Constants past OpenCL 1.2's headers: the sub-group queries (2.1, cl_intel_required_subgroup_size) and NVIDIA's. */
#define MIDINT_CL_KERNEL_MAX_SUB_GROUP_SIZE_FOR_NDRANGE 0x2033
#define MIDINT_CL_DEVICE_SUB_GROUP_SIZES_INTEL 0x4108
#define MIDINT_CL_DEVICE_WARP_SIZE_NV 0x4003

/* How a build spells the warp primitives (prelude_opencl.j2's MIDINT_SUBGROUPS): through local memory, the
 * device's sub-group shuffles and ballots, or NVIDIA's warp instructions as inline PTX. */
typedef enum warp_spelling { WARPS_LOCAL = 0, WARPS_SUBGROUPS = 1, WARPS_PTX = 2 } warp_spelling;
extern const char *const midint_ocl_warp_names[]; /* "local", "subgroups", "ptx" */

typedef struct cl_state {
    struct timespec t0; /* midint_time: the wall clock when the timed region began */
    cl_context context;
    cl_device_id device;
    cl_command_queue queue;
    cl_kernel *kernels;   /* made on first use, indexed by the kernels' impl */
    int warps_known;      /* the device's warp spelling was chosen (at the first build) */
    warp_spelling warps;  /* how programs spell the warp primitives, unless their `plain` flag is set */
    int sub_group_attr;   /* kernels ask for sub-groups of 32 (cl_intel_required_subgroup_size) */
    int forced_warps;     /* MIDINT_OPENCL_WARPS named the spelling: no fallback to local memory */
    char warps_error[320]; /* a forced spelling the probe rejected: why (then every build fails with it) */
    int block_refused;    /* get_kernel failed because the kernel cannot run its work-group size here */
    int probe_fail;       /* test hook MIDINT_TEST_PROBE_FAIL (hooks.h): the probe's values count as wrong */
    char c_std[16];       /* -cl-std= of sub-group builds: the device's OpenCL C version */
    unsigned char *plain; /* per program: built with local-memory warps (its sub-group build did not fit) */
    cl_program *programs; /* built on first use of one of their kernels */
    cl_command_queue pipe[MIDINT_PIPE_SLOTS]; /* the host path's slots, made at first use */
    cl_event fence[MIDINT_FENCES];
} cl_state;

#define STATE(ctx) ((cl_state *)(ctx)->be)

/* opencl_warps.c. The build options of spelling w (in a buffer of the calling thread's). */
const char *midint_ocl_build_options(const cl_state *s, warp_spelling w);
/* A program from its sources (the common prelude, then its own), built with spelling w. */
cl_program midint_ocl_build(cl_state *s, const char *const *srcs, warp_spelling w, cl_int *err);
/* Whether kernel k runs groups of `block` work-items as whole warps under spelling w. */
int midint_ocl_warps_fit(const cl_state *s, cl_kernel k, warp_spelling w, size_t block);
/* The context's spelling, chosen once (at its first build): the device's own when the probe agrees, else local. */
void midint_ocl_choose_warps(cl_state *s);

#endif
