/*
 * A `cuda` language for highlight.js 10.1.1, the version mdBook 0.5.4
 * bundles: C++ (highlight.js's c-like grammar) with CUDA's qualifiers,
 * built-in variables, intrinsics and vector types. theme/highlight.js is
 * mdBook's highlight.js followed by this file (scripts/highlight writes
 * it; scripts/test checks it), so the language is there before book.js
 * highlights the page's ```cuda blocks.
 */
hljs.registerLanguage("cuda", function (hljs) {
    "use strict";
    var QUALIFIERS = [
        "__global__", "__device__", "__host__", "__shared__", "__constant__",
        "__managed__", "__grid_constant__", "__restrict__", "__noinline__",
        "__forceinline__", "__inline__", "__launch_bounds__",
        "__cluster_dims__", "__align__", "__builtin_assume_aligned",
        "__builtin_expect", "__builtin_assume",
    ];
    var TYPES = ["dim3", "half", "half2", "__half", "__half2", "__nv_bfloat16",
        "__nv_bfloat162", "__nv_fp8_e4m3", "__nv_fp8_e5m2", "cudaStream_t",
        "cudaEvent_t", "cudaError_t"];
    ["char", "uchar", "short", "ushort", "int", "uint", "long", "ulong",
        "longlong", "ulonglong", "float", "double"].forEach(function (base) {
        [1, 2, 3, 4].forEach(function (n) { TYPES.push(base + n); });
    });
    var BUILT_INS = [
        // built-in variables
        "threadIdx", "blockIdx", "blockDim", "gridDim", "warpSize",
        "clusterIdx", "clusterDim",
        // barriers and fences
        "__syncthreads", "__syncthreads_count", "__syncthreads_and",
        "__syncthreads_or", "__syncwarp", "__threadfence",
        "__threadfence_block", "__threadfence_system",
        // warp intrinsics
        "__shfl_sync", "__shfl_up_sync", "__shfl_down_sync",
        "__shfl_xor_sync", "__ballot_sync", "__all_sync", "__any_sync",
        "__activemask", "__match_any_sync", "__match_all_sync",
        "__reduce_add_sync", "__reduce_min_sync", "__reduce_max_sync",
        "__reduce_and_sync", "__reduce_or_sync", "__reduce_xor_sync",
        // atomics
        "atomicAdd", "atomicSub", "atomicExch", "atomicMin", "atomicMax",
        "atomicInc", "atomicDec", "atomicCAS", "atomicAnd", "atomicOr",
        "atomicXor", "atomicAdd_block", "atomicAdd_system",
        // loads, stores and bit tricks
        "__ldg", "__ldcg", "__ldca", "__ldcs", "__ldlu", "__ldcv", "__stcg",
        "__stcs", "__stwb", "__stwt", "__popc", "__popcll", "__clz",
        "__clzll", "__ffs", "__ffsll", "__brev", "__byte_perm", "__funnelshift_l",
        "__funnelshift_r", "__mul24", "__umul24", "__mulhi", "__umulhi",
        "__fmaf_rn", "__fadd_rn", "__fmul_rn", "__fdividef", "__expf",
        "__exp10f", "__logf", "__log2f", "__sinf", "__cosf", "__powf",
        "__saturatef", "__float2half", "__half2float", "__float2bfloat16",
        "__bfloat162float", "__nanosleep", "clock", "clock64",
        "__cvta_generic_to_shared", "__isShared", "__isGlobal",
        // maths the kernels call
        "expf", "exp2f", "logf", "log2f", "sqrtf", "rsqrtf", "fmaf", "fmaxf",
        "fminf", "fabsf", "floorf", "ceilf", "max", "min",
        // vector constructors
        "make_int2", "make_int4", "make_uint2", "make_uint4", "make_float2",
        "make_float3", "make_float4", "make_double2",
        // cooperative groups and the cluster API
        "cooperative_groups", "this_thread_block", "this_grid",
        "this_cluster", "tiled_partition", "thread_block", "thread_block_tile",
        "cluster_group", "grid_group", "map_shared_rank",
    ];
    var lang = hljs.getLanguage("c-like").rawDefinition();
    lang.name = "CUDA";
    lang.aliases = ["cu", "cuh"];
    lang.disableAutodetect = true;
    // One keywords object, shared with the grammar's nested modes
    // (function heads, parameter lists): extended in place.
    lang.keywords.keyword += " " + QUALIFIERS.concat(TYPES).join(" ");
    lang.keywords.built_in += " " + BUILT_INS.join(" ");
    return lang;
});
