// Every existing program that uses hal and flow parses and verifies with
// kiln's dialects: the custom dispatch samples and the dispatch and memoize
// end-to-end tests (their own RUN lines compile and run them). Each is also
// printed and parsed again.
// RUN: %kiln-opt %kiln_source_dir/samples/custom_dispatch/cpu/example.mlir | %kiln-opt -o /dev/null
// RUN: %kiln-opt %kiln_source_dir/samples/custom_dispatch/cuda/example.mlir | %kiln-opt -o /dev/null
// RUN: %kiln-opt %kiln_source_dir/samples/custom_dispatch/vulkan/example.mlir | %kiln-opt -o /dev/null
// RUN: %kiln-opt %kiln_source_dir/tests/e2e/dispatch/blocks_and_calls.mlir | %kiln-opt -o /dev/null
// RUN: %kiln-opt %kiln_source_dir/tests/e2e/dispatch/compile_errors.mlir | %kiln-opt -o /dev/null
// RUN: %kiln-opt %kiln_source_dir/tests/e2e/dispatch/cuda_dispatch.mlir | %kiln-opt -o /dev/null
// RUN: %kiln-opt %kiln_source_dir/tests/e2e/dispatch/lowered_ir_roundtrip.mlir | %kiln-opt -o /dev/null
// RUN: %kiln-opt %kiln_source_dir/tests/e2e/dispatch/missing_kernel_symbol.mlir | %kiln-opt -o /dev/null
// RUN: %kiln-opt %kiln_source_dir/tests/e2e/dispatch/missing_object.mlir | %kiln-opt -o /dev/null
// RUN: %kiln-opt %kiln_source_dir/tests/e2e/dispatch/multiple_targets.mlir | %kiln-opt -o /dev/null
// RUN: %kiln-opt %kiln_source_dir/tests/e2e/dispatch/no_variant.mlir | %kiln-opt -o /dev/null
// RUN: %kiln-opt %kiln_source_dir/tests/e2e/dispatch/runtime_errors.mlir | %kiln-opt -o /dev/null
// RUN: %kiln-opt %kiln_source_dir/tests/e2e/dispatch/sample_mixed_invocation.mlir | %kiln-opt -o /dev/null
// RUN: %kiln-opt %kiln_source_dir/tests/e2e/dispatch/spirv_objects.mlir | %kiln-opt -o /dev/null
// RUN: %kiln-opt %kiln_source_dir/tests/e2e/dispatch/two_results_and_integers.mlir | %kiln-opt -o /dev/null
// RUN: %kiln-opt %kiln_source_dir/tests/e2e/dispatch/unknown_target.mlir | %kiln-opt -o /dev/null
// RUN: %kiln-opt %kiln_source_dir/tests/e2e/memoize/mixed_shapes.mlir | %kiln-opt -o /dev/null
// RUN: %kiln-opt %kiln_source_dir/tests/e2e/memoize/recording_error.mlir | %kiln-opt -o /dev/null
// RUN: %kiln-opt %kiln_source_dir/tests/e2e/memoize/repeated_calls.mlir | %kiln-opt -o /dev/null
// RUN: %kiln-opt %kiln_source_dir/tests/e2e/memoize/static_sample.mlir | %kiln-opt -o /dev/null
// RUN: %kiln-opt %kiln_source_dir/tests/e2e/memoize/ten_dispatch_chain.mlir | %kiln-opt -o /dev/null

// binding_count_mismatch.mlir is wrong on purpose: verification stops it.
// RUN: not %kiln-opt %kiln_source_dir/tests/e2e/dispatch/binding_count_mismatch.mlir 2>&1 | FileCheck %s
// CHECK: binding_count_mismatch.mlir:27:12: error: 'flow.dispatch' op passes 1 constant and 3 bindings (2 tensor operands, 1 result not tied to an operand), but the layout of @kernels::@mul_add has 1 constant and 4 bindings
