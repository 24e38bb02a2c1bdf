// A hand-authored export may carry a library call (kiln.library_call, as
// --kiln-select-library-calls writes it): the cuda-nvptx-fb binary holds it
// beside the PTX kernel, and the variant's config text describes it for
// kiln-dump-module. Every field is checked: an error names the export and
// the field.
// RUN: %kiln-opt %s --split-input-file --verify-diagnostics --kiln-serialize-executables=targets=cuda --mlir-elide-elementsattrs-if-larger=8 | FileCheck %s

#sm_75 = #hal.executable.target<"cuda", "cuda-nvptx-fb", {target_arch = "sm_75"}>
#layout = #hal.pipeline.layout<constants = 1, bindings = [#hal.pipeline.binding<storage_buffer, ReadOnly>, #hal.pipeline.binding<storage_buffer>]>

// CHECK-LABEL: hal.executable private @library
// CHECK: kiln.config = "target_arch = [sm_75], @mul: cublasLt matmul 4x16x8x32 f16 transpose_a relu tf32"
hal.executable.source private @library attributes {
  objects = #hal.executable.objects<{#sm_75 = [#hal.executable.object<{path = "Inputs/kernels.ptx"}>]}>
} {
  hal.executable.export public @mul ordinal(0) layout(#layout) attributes {
    kiln.library_call = {kind = "matmul", element_type = "f16", m = 16, n = 8, k = 32,
                         batch_count = 4, transpose_a = true, a = 0, b = 0, d = 1,
                         batch_stride_a = 512, batch_stride_d = 128, activation = "relu",
                         allow_tf32 = true}}
}

// -----

// Strided operands (attention's scores read from one qkv binding): the
// layout fields travel to the binary, and the config text names them.

#sm_75 = #hal.executable.target<"cuda", "cuda-nvptx-fb", {target_arch = "sm_75"}>
#layout = #hal.pipeline.layout<constants = 1, bindings = [#hal.pipeline.binding<storage_buffer, ReadOnly>, #hal.pipeline.binding<storage_buffer>]>

// CHECK-LABEL: hal.executable private @strided
// CHECK: kiln.config = "target_arch = [sm_75], @mul: cublasLt matmul 12x128x128x64 f16 transpose_b lda=2304 ldb=2304 offset_b=768"
hal.executable.source private @strided attributes {
  objects = #hal.executable.objects<{#sm_75 = [#hal.executable.object<{path = "Inputs/kernels.ptx"}>]}>
} {
  hal.executable.export public @mul ordinal(0) layout(#layout) attributes {
    kiln.library_call = {kind = "matmul", element_type = "f16", m = 128, n = 128, k = 64,
                         batch_count = 12, transpose_b = true, a = 0, b = 0, d = 1,
                         batch_stride_a = 64, batch_stride_b = 64, batch_stride_d = 16384,
                         lda = 2304, ldb = 2304, offset_b = 768}}
}

// -----

#sm_75 = #hal.executable.target<"cuda", "cuda-nvptx-fb", {target_arch = "sm_75"}>
#layout = #hal.pipeline.layout<constants = 1, bindings = [#hal.pipeline.binding<storage_buffer, ReadOnly>, #hal.pipeline.binding<storage_buffer>]>
// expected-error @+1 {{export @mul: kiln.library_call (matmul) field 'm' = 0 is outside [1, 4294967295]}}
hal.executable.source private @zero_rows attributes {
  objects = #hal.executable.objects<{#sm_75 = [#hal.executable.object<{path = "Inputs/kernels.ptx"}>]}>
} {
  hal.executable.export public @mul ordinal(0) layout(#layout) attributes {
    kiln.library_call = {kind = "matmul", element_type = "f32", m = 0, n = 8, k = 32, a = 0, b = 0, d = 1}}
}

// -----

#sm_75 = #hal.executable.target<"cuda", "cuda-nvptx-fb", {target_arch = "sm_75"}>
#layout = #hal.pipeline.layout<constants = 1, bindings = [#hal.pipeline.binding<storage_buffer, ReadOnly>, #hal.pipeline.binding<storage_buffer>]>
// expected-error @+1 {{export @mul: kiln.library_call (convolution) field 'y' = 2 is outside [0, 1]}}
hal.executable.source private @binding_out_of_range attributes {
  objects = #hal.executable.objects<{#sm_75 = [#hal.executable.object<{path = "Inputs/kernels.ptx"}>]}>
} {
  hal.executable.export public @mul ordinal(0) layout(#layout) attributes {
    kiln.library_call = {kind = "convolution", element_type = "f32", n = 1, c = 1, h = 4, w = 4, k = 1, r = 1, s = 1, x = 0, filter = 0, y = 2}}
}

// -----

#sm_75 = #hal.executable.target<"cuda", "cuda-nvptx-fb", {target_arch = "sm_75"}>
#layout = #hal.pipeline.layout<constants = 1, bindings = [#hal.pipeline.binding<storage_buffer, ReadOnly>, #hal.pipeline.binding<storage_buffer>]>
// expected-error @+1 {{export @mul: kiln.library_call (matmul) has an unknown field 'alpha'}}
hal.executable.source private @unknown_field attributes {
  objects = #hal.executable.objects<{#sm_75 = [#hal.executable.object<{path = "Inputs/kernels.ptx"}>]}>
} {
  hal.executable.export public @mul ordinal(0) layout(#layout) attributes {
    kiln.library_call = {kind = "matmul", element_type = "f32", m = 2, n = 2, k = 2, a = 0, b = 0, d = 1, alpha = 3}}
}

// -----

#sm_75 = #hal.executable.target<"cuda", "cuda-nvptx-fb", {target_arch = "sm_75"}>
#layout = #hal.pipeline.layout<constants = 1, bindings = [#hal.pipeline.binding<storage_buffer, ReadOnly>, #hal.pipeline.binding<storage_buffer>]>
// expected-error @+1 {{export @mul: kiln.library_call kind 'gemv' is not matmul or convolution}}
hal.executable.source private @bad_kind attributes {
  objects = #hal.executable.objects<{#sm_75 = [#hal.executable.object<{path = "Inputs/kernels.ptx"}>]}>
} {
  hal.executable.export public @mul ordinal(0) layout(#layout) attributes {
    kiln.library_call = {kind = "gemv", element_type = "f32"}}
}

// -----

#sm_75 = #hal.executable.target<"cuda", "cuda-nvptx-fb", {target_arch = "sm_75"}>
#layout = #hal.pipeline.layout<constants = 1, bindings = [#hal.pipeline.binding<storage_buffer, ReadOnly>, #hal.pipeline.binding<storage_buffer>]>
hal.executable.source private @bad_value attributes {
  objects = #hal.executable.objects<{#sm_75 = [#hal.executable.object<{path = "Inputs/kernels.ptx"}>]}>
} {
  // expected-error @+1 {{kiln.library_call field 'm' must be an integer or a bool, got 2.000000e+00 : f32}}
  hal.executable.export public @mul ordinal(0) layout(#layout) attributes {
    kiln.library_call = {kind = "matmul", element_type = "f32", m = 2.0 : f32}}
}
