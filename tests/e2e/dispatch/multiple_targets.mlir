// One executable with CUDA and Vulkan objects (the SPIR-V given inline: a
// module with one GLCompute entry point, `main`, of LocalSize 1 x 1 x 1):
// every declared target is embedded by default, in declaration order, and
// the hal.executable holds one hal.executable.binary per variant, each
// loaded with its format and data (the runtime picks the first one the
// device supports); --target keeps only the chosen.
// Memoization is off so the dispatch call stays in @scale, where the checks
// look for it (tests/e2e/memoize covers the memoized shape).
// REQUIRES: device-cpu
// RUN: %kiln-compile %s --memoize-command-buffers=false --mlir-print-ir-after=kiln-hal-schedule-command-buffers -o %t.kmod 2>&1 | FileCheck %s --check-prefix=ALL
// RUN: %kiln-dump-module %t.kmod | FileCheck %s --check-prefix=DUMP
// RUN: %kiln-compile %s --target=vulkan --mlir-print-ir-after=kiln-hal-schedule-command-buffers -o %t.vulkan.kmod 2>&1 | FileCheck %s --check-prefix=VULKAN

#cuda = #hal.executable.target<"cuda", "cuda-nvptx-fb", {target_arch = "sm_80"}>
#spirv = #hal.executable.target<"vulkan-spirv", "vulkan-spirv-fb">

module {
  hal.executable.source private @executable attributes {
    objects = #hal.executable.objects<{
      #cuda = [#hal.executable.object<{path = "Inputs/kernels_sm_80.ptx"}>],
      #spirv = [#hal.executable.object<{data = dense<[3, 2, 35, 7, 0, 0, 1, 0, 0, 0, 0, 0, 2, 0, 0, 0, 0, 0, 0, 0, 15, 0, 5, 0, 5, 0, 0, 0, 1, 0, 0, 0, 109, 97, 105, 110, 0, 0, 0, 0, 16, 0, 6, 0, 1, 0, 0, 0, 17, 0, 0, 0, 1, 0, 0, 0, 1, 0, 0, 0, 1, 0, 0, 0]> : vector<64xi8>}>]
    }>
  } {
    hal.executable.export public @simple_mul_inplace ordinal(0)
        layout(#hal.pipeline.layout<constants = 0, bindings = [
          #hal.pipeline.binding<storage_buffer>]>)
  }

  // A static shape: the byte length (4 x 4) and the dims fold to constants.
  func.func @scale(%a: tensor<4xf32>) -> tensor<4xf32> {
    %0 = flow.dispatch @executable::@simple_mul_inplace(%a) : (tensor<4xf32>) -> %a
    return %0 : tensor<4xf32>
  }

  // tensor.empty allocates; the dispatch writes into it in place.
  func.func @fresh(%n: index) -> tensor<?x4xf32> {
    %e = tensor.empty(%n) : tensor<?x4xf32>
    %0 = flow.dispatch @executable::@simple_mul_inplace(%e) : (tensor<?x4xf32>{%n}) -> %e{%n}
    return %0 : tensor<?x4xf32>
  }
}

// The host-level IR (typed hal ops, before the conversion to the VM):
// ALL:       hal.executable private @executable {
// ALL-NEXT:    hal.executable.binary public @cuda_nvptx_fb attributes {data = dense<"0x{{[0-9A-F]+}}"> : vector<{{[0-9]+}}xi8>, format = "cuda-nvptx-fb", kiln.backend = "cuda", kiln.config = "target_arch = [sm_80]"}
// ALL-NEXT:    hal.executable.binary public @vulkan_spirv_fb attributes {data = dense<"0x{{[0-9A-F]+}}"> : vector<{{[0-9]+}}xi8>, format = "vulkan-spirv-fb", kiln.backend = "vulkan-spirv"}
// ALL-NEXT:    hal.executable.export public @simple_mul_inplace ordinal(0)
// ALL-LABEL: func.func @scale(%arg0: !hal.buffer_view) -> !hal.buffer_view attributes {kiln.abi_type = (tensor<4xf32>) -> tensor<4xf32>} {
// ALL-DAG:     %[[C16:.+]] = arith.constant 16 : index
// ALL-DAG:     %[[C4:.+]] = arith.constant 4 : index
// ALL:         hal.buffer_view.assert<%arg0 : !hal.buffer_view> message("argument 0 of @scale") shape([%[[C4]]])
// ALL:         %[[BUF:.+]] = hal.buffer_view.buffer<%arg0 : !hal.buffer_view> : !hal.buffer
// ALL-NOT:     arith.muli
// ALL:         hal.command_buffer.dispatch<%{{.+}} : !hal.command_buffer> target(%{{.+}} : !hal.executable)[%{{.+}}] workgroups([%{{.+}}, %{{.+}}, %{{.+}}]) bindings([
// ALL-NEXT:      (%[[BUF]] : !hal.buffer)[%{{.+}}, %[[C16]]]
// ALL-NEXT:    ]) attributes {dispatch = @executable::@simple_mul_inplace}
// ALL:         hal.buffer_view.create buffer(%[[BUF]] : !hal.buffer) shape([%[[C4]]])
// ALL-LABEL: func.func @fresh(%arg0: index) -> !hal.buffer_view attributes {kiln.abi_type = (index) -> tensor<?x4xf32>} {
// ALL:         %[[LEN:.+]] = arith.muli %arg0, %{{.+}} : index
// ALL:         %[[NEW:.+]] = hal.allocator.allocate<%{{.+}} : !hal.allocator> type(%{{.+}}) usage(%{{.+}}) : !hal.buffer{%[[LEN]]}
// ALL:         hal.command_buffer.dispatch<%{{.+}} : !hal.command_buffer> target(%{{.+}} : !hal.executable)[%{{.+}}] workgroups([%{{.+}}, %{{.+}}, %{{.+}}]) bindings([
// ALL-NEXT:      (%[[NEW]] : !hal.buffer)[%{{.+}}, %[[LEN]]]
// ALL:         hal.buffer_view.create buffer(%[[NEW]] : !hal.buffer) shape([%arg0, %{{.+}}])
// ALL-LABEL: util.initializer {
// ALL:         hal.executable.create device(%{{.+}} : !hal.device) target(@executable) : !hal.executable

// DUMP:      executables: 1
// DUMP-NEXT:   @executable
// DUMP-NEXT:     variant cuda cuda-nvptx-fb target_arch = [sm_80]: {{[0-9]+}} bytes
// DUMP-NEXT:     variant vulkan-spirv vulkan-spirv-fb: {{[0-9]+}} bytes
// DUMP-NEXT:     export 0 @simple_mul_inplace workgroup_size [1, 1, 1] layout #hal.pipeline.layout<bindings = [#hal.pipeline.binding<storage_buffer>]>
// DUMP-NEXT:     dispatch of @simple_mul_inplace in function {{[0-9]+}} 'scale' at offset {{[0-9]+}} ({{.*}}multiple_targets.mlir:31:10)
// DUMP-NEXT:     dispatch of @simple_mul_inplace in function {{[0-9]+}} 'fresh' at offset {{[0-9]+}} ({{.*}}multiple_targets.mlir:38:10)

// VULKAN-NOT: cuda-nvptx-fb
// VULKAN:     hal.executable.binary public @vulkan_spirv_fb
// VULKAN-NOT: cuda-nvptx-fb
