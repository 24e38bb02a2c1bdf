// Bad input at run time: each gives one clear error line and exit code 1,
// on every device (an empty input is not bad input: it gives an empty result).
// RUN: %kiln-compile %s --target=%kiln_targets --object-search-path=%e2e_kernels_dir -o %t.kmod
//
// Not an error: an empty tensor makes a workload of 0 and a zero workgroup
// count, and a dispatch with a zero in its workgroup count is skipped (it
// records nothing): the call returns the empty tensor, exit code 0.
// RUN: %kiln-run-module --device=%device --module=%t.kmod --function=check --input=0xf32= 2>&1 | FileCheck %s --check-prefix=ZERO
// ZERO-NOT: error
// ZERO: EXEC @check
// ZERO-NEXT: result[0]: hal.buffer_view
// ZERO-NEXT: 0xf32={{$}}
// ZERO-NOT: error
//
// An input whose shape or element type does not match the signature names the argument.
// RUN: not %kiln-run-module --device=%device --module=%t.kmod --function=check_static --input=8xf32=1 2>&1 | FileCheck %s --check-prefix=SHAPE
// SHAPE: error: {{.*}}argument 0{{.*}}4xf32{{.*}}8xf32
// RUN: not %kiln-run-module --device=%device --module=%t.kmod --function=check --input=4xi32=1 2>&1 | FileCheck %s --check-prefix=TYPE
// TYPE: error: {{.*}}argument 0{{.*}}f32{{.*}}i32
//
// A kernel that reports failure fails the call with the export and its code.
// Only CPU kernels return a status (the GPU versions of fail_on_negative
// write nothing and cannot fail).
// RUN: %if device-cpu %{ not %kiln-run-module --device=%device --module=%t.kmod --function=check --input="3xf32=1 -2 3" 2>&1 | FileCheck %s --check-prefix=KERNEL %}
// KERNEL: error: {{.*}}fail_on_negative{{.*}}7
//
// RUN: %kiln-run-module --device=%device --module=%t.kmod --function=check --input="3xf32=1 2 3" | FileCheck %s --check-prefix=OK
// OK: EXEC @check
// OK-NEXT: result[0]: hal.buffer_view
// OK-NEXT: 3xf32=1 2 3

#x86_64 = #hal.executable.target<"llvm-cpu", "system-elf-x86_64">
#cuda_sm75 = #hal.executable.target<"cuda", "cuda-nvptx-fb", {target_arch = "sm_75"}>
#vulkan = #hal.executable.target<"vulkan-spirv", "vulkan-spirv-fb">

module {
  hal.executable.source private @kernels attributes {
    objects = #hal.executable.objects<{
      #x86_64 = [#hal.executable.object<{path = "dispatch_test_kernels.so"}>],
      #cuda_sm75 = [#hal.executable.object<{path = "dispatch_test_kernels_sm_75.ptx"}>],
      #vulkan = [#hal.executable.object<{path = "fail_on_negative.spv"}>]
    }>
  } {
    hal.executable.export public @fail_on_negative ordinal(0)
        layout(#hal.pipeline.layout<constants = 1, bindings = [
          #hal.pipeline.binding<storage_buffer>
        ]>) count(%device: !hal.device, %workload: index) -> (index, index, index) {
      %c1 = arith.constant 1 : index
      hal.return %workload, %c1, %c1 : index, index, index
    } attributes {workgroup_size = [1, 1, 1]}
  }

  func.func @check(%in: tensor<?xf32>) -> tensor<?xf32> {
    %c0 = arith.constant 0 : index
    %n = tensor.dim %in, %c0 : tensor<?xf32>
    %n_i32 = arith.index_cast %n : index to i32
    %out = flow.dispatch @kernels::@fail_on_negative[%n](%n_i32, %in) : (i32, tensor<?xf32>{%n}) -> %in{%n}
    return %out : tensor<?xf32>
  }

  func.func @check_static(%in: tensor<4xf32>) -> tensor<4xf32> {
    %c4 = arith.constant 4 : index
    %c4_i32 = arith.constant 4 : i32
    %out = flow.dispatch @kernels::@fail_on_negative[%c4](%c4_i32, %in) : (i32, tensor<4xf32>) -> %in
    return %out : tensor<4xf32>
  }
}
