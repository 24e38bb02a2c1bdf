// scale_i32: out = in * factor, wrapping (workgroup size 4, as in
// dispatch/two_results_and_integers.mlir).
//
// One of the Vulkan versions of tests/e2e/Inputs/dispatch_test_kernels.c,
// compiled by glslc to scale_i32.spv (one module per kernel: GLSL has one entry
// point, main). Set 0 binding i is dispatch binding i; the push constants are
// the dispatch constants (DESIGN.md). The local size must equal the export's
// workgroup_size in the tests (kiln-compile checks it).
#version 450
layout(local_size_x = 4) in;
layout(set = 0, binding = 0) readonly buffer In { int values[]; };
layout(set = 0, binding = 1) writeonly buffer Out { int result[]; };
layout(push_constant) uniform Constants {
  uint n;
  int factor;
};

void main() {
  uint i = gl_GlobalInvocationID.x;
  // GLSL integer multiplication wraps, as the C and CUDA versions do.
  if (i < n) result[i] = values[i] * factor;
}
