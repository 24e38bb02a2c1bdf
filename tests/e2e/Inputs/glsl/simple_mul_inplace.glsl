// simple_mul_inplace: inout = inout * lhs (workgroup size 64, as in
// dispatch/blocks_and_calls.mlir).
//
// One of the Vulkan versions of tests/e2e/Inputs/dispatch_test_kernels.c,
// compiled by glslc to simple_mul_inplace.spv (one module per kernel: GLSL has
// one entry point, main). Set 0 binding i is dispatch binding i; the push
// constants are the dispatch constants (DESIGN.md). The local size must equal
// the export's workgroup_size in the tests (kiln-compile checks it).
#version 450
layout(local_size_x = 64) in;
layout(set = 0, binding = 0) readonly buffer Lhs { float lhs[]; };
layout(set = 0, binding = 1) buffer InOut { float inout_values[]; };
layout(push_constant) uniform Constants { uint n; };

void main() {
  uint i = gl_GlobalInvocationID.x;
  if (i < n) inout_values[i] = inout_values[i] * lhs[i];
}
