// One executable with CUDA and Vulkan objects (the SPIR-V given inline: a
// module with one GLCompute entry point, `main`, of LocalSize 1 x 1 x 1):
// every declared target is embedded by default, in declaration order, and
// hal.executable.load receives each variant's format and data (the runtime
// picks the first one the device supports); --target keeps only the chosen.
// Memoization is off so the dispatch call stays in @scale, where the checks
// look for it (tests/e2e/memoize covers the memoized shape).
// REQUIRES: device-cpu
// RUN: %kiln-compile %s --memoize-command-buffers=false --print-ir-after-lowering -o %t.kmod | FileCheck %s --check-prefix=ALL
// RUN: %kiln-dump-module %t.kmod | FileCheck %s --check-prefix=DUMP
// RUN: %kiln-compile %s --target=vulkan --print-ir-after-lowering -o %t.vulkan.kmod | FileCheck %s --check-prefix=VULKAN

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

// ALL-LABEL: func.func @scale(%a: !hal.buffer_view) -> !hal.buffer_view attributes {kiln.abi_type = (tensor<4xf32>) -> tensor<4xf32>} {
// ALL-DAG:     %[[C16:.+]] = arith.constant 16 : i64
// ALL-DAG:     %[[C4:.+]] = arith.constant 4 : index
// ALL:         call @hal.buffer_view.assert$rriI_(%a, %{{.+}}, %{{.+}}, %[[C4]])
// ALL:         %[[BUF:.+]] = call @hal.buffer_view.buffer(%a)
// ALL-NOT:     arith.muli
// ALL:         call @hal.command_buffer.dispatch$rriiiiirII_(%{{.+}}, %{{.+}}, %{{.+}}, %{{.+}}, %{{.+}}, %{{.+}}, %{{.+}}, %[[BUF]], %{{.+}}, %[[C16]])
// ALL:         call @hal.buffer_view.create$riI_r(%[[BUF]], %{{.+}}, %[[C4]])
// ALL-LABEL: func.func @fresh(%n: index) -> !hal.buffer_view attributes {kiln.abi_type = (index) -> tensor<?x4xf32>} {
// ALL:         %[[ROWS:.+]] = arith.muli %{{.+}}, %n : index
// ALL:         %[[LEN:.+]] = arith.muli %[[ROWS]], %{{.+}} : index
// ALL:         %[[NEW:.+]] = call @hal.allocator.allocate(%{{.+}}, %{{.+}}, %{{.+}}, %[[LEN]])
// ALL:         call @hal.command_buffer.dispatch$rriiiiirII_({{.+}}, %[[NEW]],
// ALL:         call @hal.buffer_view.create$riII_r(%[[NEW]], %{{.+}}, %n, %{{.+}})
// ALL-DAG:   "vm.rodata"() {sym_name = "{{.+}}", sym_visibility = "private", value = "cuda-nvptx-fb"}
// ALL-DAG:   "vm.rodata"() {sym_name = "{{.+}}", sym_visibility = "private", value = "vulkan-spirv-fb"}
// ALL-LABEL: func.func private @__hal_initialize()
// ALL:         call @hal.executable.load$rrrrrr_r(

// DUMP:      executables: 1
// DUMP-NEXT:   @executable
// DUMP-NEXT:     variant cuda cuda-nvptx-fb target_arch = [sm_80]: {{[0-9]+}} bytes
// DUMP-NEXT:     variant vulkan-spirv vulkan-spirv-fb: {{[0-9]+}} bytes
// DUMP-NEXT:     export 0 @simple_mul_inplace workgroup_size [1, 1, 1] layout #hal.pipeline.layout<constants = 0, bindings = [#hal.pipeline.binding<storage_buffer>]>
// DUMP-NEXT:     dispatch of @simple_mul_inplace in function {{[0-9]+}} 'scale'
// DUMP-NEXT:     dispatch of @simple_mul_inplace in function {{[0-9]+}} 'fresh'

// VULKAN:     call @hal.executable.load$rrrr_r(
// VULKAN-NOT: cuda-nvptx-fb
