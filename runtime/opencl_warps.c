/* opencl_warps.c — how an OpenCL context's builds spell the warp primitives (prelude_opencl.j2's MIDINT_SUBGROUPS):
 * what the device offers, the probe kernel that must agree before a spelling is trusted, and the build options. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "launch.h"
#include "opencl_api.h"

const char *const midint_ocl_warp_names[] = {"local", "subgroups", "ptx"};

/* The device's extension string (freed by the caller), or NULL. */
static char *device_extensions(cl_device_id dev)
{
    size_t len = 0;
    char *exts = NULL;
    if (midint_cl.clGetDeviceInfo(dev, CL_DEVICE_EXTENSIONS, 0, NULL, &len) != CL_SUCCESS || len == 0 ||
        !(exts = calloc(len + 1, 1)))
        return NULL;
    if (midint_cl.clGetDeviceInfo(dev, CL_DEVICE_EXTENSIONS, len, exts, NULL) != CL_SUCCESS)
        exts[0] = '\0';
    return exts;
}

static int has_ext(const char *exts, const char *name)
{
    size_t len = strlen(name);
    for (const char *p = exts; p && (p = strstr(p, name)) != NULL; p += len)
        if ((p == exts || p[-1] == ' ') && (p[len] == ' ' || p[len] == '\0'))
            return 1;
    return 0;
}

/* Build options: OpenCL C 1.2 with local-memory warps, or the device's OpenCL C with its warp spelling; plus
 * MIDINT_OPENCL_OPTIONS when set (e.g. "-cl-opt-disable", which the CPU tests use to build hundreds of kernels
 * quickly). */
const char *midint_ocl_build_options(const cl_state *s, warp_spelling w)
{
    static _Thread_local char opts[512];
    const char *extra = getenv("MIDINT_OPENCL_OPTIONS");
    char warps[128] = "-cl-std=CL1.2";
    if (w == WARPS_SUBGROUPS)
        snprintf(warps, sizeof warps, "-cl-std=%s -DMIDINT_SUBGROUPS=1%s", s->c_std,
                 s->sub_group_attr ? " -DMIDINT_SUBGROUP_SIZE_32=1" : "");
    else if (w == WARPS_PTX)
        snprintf(warps, sizeof warps, "-cl-std=CL1.2 -DMIDINT_SUBGROUPS=2");
    snprintf(opts, sizeof opts, "%s%s%s", warps, extra ? " " : "", extra ? extra : "");
    return opts;
}

cl_program midint_ocl_build(cl_state *s, const char *const *srcs, warp_spelling w, cl_int *err)
{
    cl_program p = midint_cl.clCreateProgramWithSource(s->context, 2, (const char **)srcs, NULL, err);
    if (!p)
        return NULL;
    *err = midint_cl.clBuildProgram(p, 1, &s->device, midint_ocl_build_options(s, w), NULL, NULL);
    return p;
}

/* Sub-groups of a multiple of 32 that tile the group (the other spellings have warps of 32 by construction). */
int midint_ocl_warps_fit(const cl_state *s, cl_kernel k, warp_spelling w, size_t block)
{
    if (w != WARPS_SUBGROUPS)
        return 1;
    size_t sg = 0;
    if (!midint_cl_sub_group_info ||
        midint_cl_sub_group_info(k, s->device, MIDINT_CL_KERNEL_MAX_SUB_GROUP_SIZE_FOR_NDRANGE, sizeof block, &block,
                                 sizeof sg, &sg, NULL) != CL_SUCCESS)
        return 0;
    return sg >= 32 && sg % 32 == 0 && block % sg == 0;
}

/* The spelling to try, before the probe: the one MIDINT_OPENCL_WARPS names, else what a GPU or accelerator offers
 * (NVIDIA's warps of 32, or sub-group shuffles and ballots), else local memory. */
static warp_spelling offered_warps(cl_state *s)
{
    const char *env = getenv("MIDINT_OPENCL_WARPS");
    if (env && strcmp(env, "local") == 0)
        return WARPS_LOCAL;
    char cver[64] = "";
    midint_cl.clGetDeviceInfo(s->device, CL_DEVICE_OPENCL_C_VERSION, sizeof cver - 1, cver, NULL);
    int major = cver[9] >= '1' && cver[9] <= '9' ? cver[9] - '0' : 1; /* "OpenCL C X.Y ..." */
    snprintf(s->c_std, sizeof s->c_std, "%s", major >= 3 ? "CL3.0" : major == 2 ? "CL2.0" : "CL1.2");
    char *exts = device_extensions(s->device);
    const char *e = exts ? exts : "";
    warp_spelling w = WARPS_LOCAL;
    cl_uint warp = 0;
    size_t sizes[32], got = 0;
    if (has_ext(e, "cl_nv_device_attribute_query") &&
        midint_cl.clGetDeviceInfo(s->device, MIDINT_CL_DEVICE_WARP_SIZE_NV, sizeof warp, &warp, NULL) == CL_SUCCESS &&
        warp == 32)
        w = WARPS_PTX;
    else if (has_ext(e, "cl_khr_subgroup_shuffle") && has_ext(e, "cl_khr_subgroup_ballot") &&
             (has_ext(e, "cl_khr_subgroups") || major >= 3) && midint_cl_sub_group_info)
        w = WARPS_SUBGROUPS;
    if (has_ext(e, "cl_intel_required_subgroup_size") &&
        midint_cl.clGetDeviceInfo(s->device, MIDINT_CL_DEVICE_SUB_GROUP_SIZES_INTEL, sizeof sizes, sizes, &got) ==
            CL_SUCCESS)
        for (size_t i = 0; i < got / sizeof *sizes && i < 32; i++)
            s->sub_group_attr |= sizes[i] == 32;
    free(exts);
    for (int f = WARPS_SUBGROUPS; env && f <= WARPS_PTX; f++)
        if (strcmp(env, midint_ocl_warp_names[f]) == 0) {
            s->forced_warps = 1; /* no fallback: a probe or build that fails says why */
            if (w != (warp_spelling)f) /* not built at all: a CPU compiler given PTX may abort (PoCL 6 did) */
                snprintf(s->warps_error, sizeof s->warps_error, "the device does not offer it (%s)",
                         f == WARPS_PTX ? "it is not NVIDIA's OpenCL with warps of 32"
                                        : "it lacks cl_khr_subgroup_shuffle, cl_khr_subgroup_ballot, or "
                                          "cl_khr_subgroups before OpenCL C 3.0");
            return (warp_spelling)f;
        }
    /* CPU devices keep local memory unless asked: a shuffle by a run-time index is a permutation across vector
     * registers there, where local memory is the cache (Intel's CPU runtime, 2 cores: mullo 1024 bits `_w2` 7.7 ms
     * with sub-group shuffles against 2.5 ms) */
    cl_device_type type = 0;
    midint_cl.clGetDeviceInfo(s->device, CL_DEVICE_TYPE, sizeof type, &type, NULL);
    return type & CL_DEVICE_TYPE_CPU ? WARPS_LOCAL : w;
}

/* The probe (kernel_probe_warps.j2) built and run with spelling w: 1 when every work-item of two groups of 64 got
 * what 32-item warps in order give. */
static int probe_warps(cl_state *s, warp_spelling w)
{
    enum { GROUPS = 2, ITEMS = 64 * GROUPS };
    const char *srcs[2] = {midint_opencl_common, midint_opencl_probe};
    cl_int err;
    int ok = 0;
    cl_program p = midint_ocl_build(s, srcs, w, &err);
    if (p && err != CL_SUCCESS) {
        char log[256] = "";
        midint_cl.clGetProgramBuildInfo(p, s->device, CL_PROGRAM_BUILD_LOG, sizeof log - 1, log, NULL);
        snprintf(s->warps_error, sizeof s->warps_error, "the probe kernel did not build (error %d): %s", (int)err, log);
    }
    cl_kernel k = p && err == CL_SUCCESS ? midint_cl.clCreateKernel(p, "midint_probe_warps", &err) : NULL;
    cl_mem out =
        k ? midint_cl.clCreateBuffer(s->context, CL_MEM_READ_WRITE, 4 * ITEMS * sizeof(cl_uint), NULL, &err) : NULL;
    if (out && midint_ocl_warps_fit(s, k, w, 64)) {
        size_t local = 64, global = ITEMS;
        cl_uint got[4 * ITEMS];
        err = midint_cl.clSetKernelArg(k, 0, sizeof out, &out);
        err |= midint_cl.clSetKernelArg(k, 1, 64 * sizeof(cl_uint), NULL);
        if (err == CL_SUCCESS &&
            midint_cl.clEnqueueNDRangeKernel(s->queue, k, 1, NULL, &global, &local, 0, NULL, NULL) == CL_SUCCESS &&
            midint_cl.clEnqueueReadBuffer(s->queue, out, CL_TRUE, 0, sizeof got, got, 0, NULL, NULL) == CL_SUCCESS) {
            ok = 1;
            for (cl_uint i = 0; i < ITEMS; i++) {
                cl_uint t = i % 64, warp = i & ~31u, lane = i & 31u;
#define V(j) (((cl_uint)(j)) * 0x9e3779b9u + 7u)
                cl_uint ballot = 0;
                for (cl_uint j = 0; j < 32; j++)
                    ballot |= ((V(warp + j) >> 3) & 1u) << j;
                ok &= got[4 * i] == V(warp + ((t * 7u + 3u) & 31u));
                ok &= got[4 * i + 1] == (lane >= 5 ? V(i - 5) : V(i));
                ok &= got[4 * i + 2] == ballot;
                ok &= got[4 * i + 3] == V(i ^ 1u);
#undef V
            }
            ok &= !s->probe_fail; /* the test hook: as on a device whose shuffles are wrong */
            if (!ok)
                snprintf(s->warps_error, sizeof s->warps_error, "the probe kernel's shuffles, ballot or warp barrier "
                         "gave wrong values");
        }
    } else if (out) {
        snprintf(s->warps_error, sizeof s->warps_error, "the probe kernel's sub-groups are not whole warps of 32");
    }
    if (out)
        midint_cl.clReleaseMemObject(out);
    if (k)
        midint_cl.clReleaseKernel(k);
    if (p)
        midint_cl.clReleaseProgram(p);
    return ok;
}

void midint_ocl_choose_warps(cl_state *s)
{
    if (s->warps_known)
        return;
    s->warps_known = 1;
    warp_spelling w = offered_warps(s);
    int works = w == WARPS_LOCAL || (!s->warps_error[0] && probe_warps(s, w));
    /* a spelling the device merely offered falls back to local memory quietly; a forced one stays, and its
     * builds fail with the probe's reason */
    s->warps = works || s->forced_warps ? w : WARPS_LOCAL;
    if (works || !s->forced_warps)
        s->warps_error[0] = '\0';
}

