// fail_on_negative (workgroup size 1, as in dispatch/runtime_errors.mlir): a
// GPU kernel cannot fail a dispatch the way the CPU one returns 7, so this one
// only leaves its buffer as it is (the test that expects the failure runs on
// the CPU only).
//
// One of the Vulkan versions of tests/e2e/Inputs/dispatch_test_kernels.c,
// compiled by glslc to fail_on_negative.spv (one module per kernel: GLSL has
// one entry point, main). Set 0 binding i is dispatch binding i; the push
// constants are the dispatch constants (DESIGN.md). The local size must equal
// the export's workgroup_size in the tests (kiln-compile checks it).
#version 450
layout(local_size_x = 1) in;
layout(set = 0, binding = 0) buffer InOut { float values[]; };
layout(push_constant) uniform Constants { uint n; };

void main() {}
