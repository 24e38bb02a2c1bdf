// simple_mul: out = lhs * rhs (workgroup size 2, as in
// dispatch/blocks_and_calls.mlir).
//
// One of the Vulkan versions of tests/e2e/Inputs/dispatch_test_kernels.c,
// compiled by glslc to simple_mul.spv (one module per kernel: GLSL has one
// entry point, main). Set 0 binding i is dispatch binding i; the push constants
// are the dispatch constants (DESIGN.md). The local size must equal the
// export's workgroup_size in the tests (kiln-compile checks it).
#version 450
layout(local_size_x = 2) in;
layout(set = 0, binding = 0) readonly buffer Lhs { float lhs[]; };
layout(set = 0, binding = 1) readonly buffer Rhs { float rhs[]; };
layout(set = 0, binding = 2) writeonly buffer Out { float result[]; };
layout(push_constant) uniform Constants { uint n; };

void main() {
  uint i = gl_GlobalInvocationID.x;
  if (i < n) result[i] = lhs[i] * rhs[i];
}
