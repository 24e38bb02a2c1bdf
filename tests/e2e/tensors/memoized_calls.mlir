// Generated dispatches in memoized command buffers (issue 14, item 5): @f
// is static, so its two dispatches (the matmul with its row max fused, then
// the column sums of that result, a barrier between them) are recorded once
// into a reusable command buffer and replayed with each call's bindings.
// @calls calls it four times in one invocation with different buffers
// (arguments swapped, an earlier result, one buffer twice): every result is
// exact, memoized or recorded afresh each call.
// RUN: %kiln-compile %s --iree-hal-target-backends=%target_backend -o %t.kmod
// RUN: %kiln-compile %s --iree-hal-target-backends=%target_backend --output-format=mlir -o - | FileCheck %s --check-prefix=IR
// RUN: %kiln-run-module --device=%device --module=%t.kmod --function=calls --input="4x4xf32=1 2 0 -1 3 1 2 0 0 0 1 4 2 -2 1 1" --input="4x4xf32=1 0 2 1 0 1 1 -1 2 1 0 0 1 3 -1 2" | FileCheck %s --check-prefix=CALLS
// RUN: %kiln-compile %s --iree-hal-target-backends=%target_backend --memoize-command-buffers=false -o %t.oneshot.kmod
// RUN: %kiln-run-module --device=%device --module=%t.oneshot.kmod --function=calls --input="4x4xf32=1 2 0 -1 3 1 2 0 0 0 1 4 2 -2 1 1" --input="4x4xf32=1 0 2 1 0 1 1 -1 2 1 0 0 1 3 -1 2" | FileCheck %s --check-prefix=CALLS

// f(a, b) = (a @ b - rowmax(a), column sums of that); with numpy:
//   f(a, b)#0, f(b, a)#1, f(f(a, b)#0, b)#0, f(a, a)#1.
// CALLS: EXEC @calls
// CALLS-NEXT: result[0]: hal.buffer_view
// CALLS-NEXT: 4x4xf32=[-2 -3 3 -5][4 0 4 -1][2 9 -8 4][3 0 -1 4]
// CALLS-NEXT: result[1]: hal.buffer_view
// CALLS-NEXT: 4xf32=15 1 6 -2
// CALLS-NEXT: result[2]: hal.buffer_view
// CALLS-NEXT: 4x4xf32=[-4 -18 -5 -12][7 -3 5 -2][-19 4 0 -8][1 7 -2 7]
// CALLS-NEXT: result[3]: hal.buffer_view
// CALLS-NEXT: 4xf32=6 -6 -1 3

// IR-LABEL: vm.func @f(
// IR:         vm.call @[[RECORD:__hal_record_command_buffer_[0-9]+]]()
// IR:         vm.call.import @hal.device.queue.execute.indirect(
// IR-LABEL: vm.func @calls(
// IR-NOT:     command_buffer
// IR-COUNT-4: vm.call @f(
// IR:       vm.func private @[[RECORD]]()
// IR:         vm.call.import @hal.command_buffer.dispatch.indirect({{.*}}dispatch = @f_dispatch_0::@f_dispatch_0
// IR-NEXT:    vm.call.import @hal.command_buffer.execution_barrier(
// IR:         vm.call.import @hal.command_buffer.dispatch.indirect({{.*}}dispatch = @f_dispatch_1::@f_dispatch_1
// IR-NOT:     hal.command_buffer.dispatch
// IR:         vm.return

#x = affine_map<(i, j) -> (i, j)>
#r = affine_map<(i, j) -> (i)>
func.func @f(%a: tensor<4x4xf32>, %b: tensor<4x4xf32>) -> (tensor<4x4xf32>, tensor<4xf32>) {
  %zero = arith.constant 0.0 : f32
  %lowest = arith.constant 0xFF800000 : f32
  %e = tensor.empty() : tensor<4x4xf32>
  %acc = linalg.fill ins(%zero : f32) outs(%e : tensor<4x4xf32>) -> tensor<4x4xf32>
  %mm = linalg.matmul ins(%a, %b : tensor<4x4xf32>, tensor<4x4xf32>) outs(%acc : tensor<4x4xf32>) -> tensor<4x4xf32>
  %e1 = tensor.empty() : tensor<4xf32>
  %m0 = linalg.fill ins(%lowest : f32) outs(%e1 : tensor<4xf32>) -> tensor<4xf32>
  %max = linalg.generic {indexing_maps = [#x, #r], iterator_types = ["parallel", "reduction"]}
      ins(%a : tensor<4x4xf32>) outs(%m0 : tensor<4xf32>) {
  ^bb0(%v: f32, %m: f32):
    %y = arith.maximumf %v, %m : f32
    linalg.yield %y : f32
  } -> tensor<4xf32>
  %r = linalg.generic {indexing_maps = [#x, #r, #x], iterator_types = ["parallel", "parallel"]}
      ins(%mm, %max : tensor<4x4xf32>, tensor<4xf32>) outs(%e : tensor<4x4xf32>) {
  ^bb0(%v: f32, %m: f32, %o: f32):
    %y = arith.subf %v, %m : f32
    linalg.yield %y : f32
  } -> tensor<4x4xf32>
  %e2 = tensor.empty() : tensor<4xf32>
  %s0 = linalg.fill ins(%zero : f32) outs(%e2 : tensor<4xf32>) -> tensor<4xf32>
  %colsum = linalg.generic {indexing_maps = [affine_map<(j, i) -> (i, j)>, affine_map<(j, i) -> (j)>], iterator_types = ["parallel", "reduction"]}
      ins(%r : tensor<4x4xf32>) outs(%s0 : tensor<4xf32>) {
  ^bb0(%v: f32, %s: f32):
    %y = arith.addf %v, %s : f32
    linalg.yield %y : f32
  } -> tensor<4xf32>
  return %r, %colsum : tensor<4x4xf32>, tensor<4xf32>
}
func.func @calls(%a: tensor<4x4xf32>, %b: tensor<4x4xf32>) -> (tensor<4x4xf32>, tensor<4xf32>, tensor<4x4xf32>, tensor<4xf32>) {
  %0:2 = call @f(%a, %b) : (tensor<4x4xf32>, tensor<4x4xf32>) -> (tensor<4x4xf32>, tensor<4xf32>)
  %1:2 = call @f(%b, %a) : (tensor<4x4xf32>, tensor<4x4xf32>) -> (tensor<4x4xf32>, tensor<4xf32>)
  %2:2 = call @f(%0#0, %b) : (tensor<4x4xf32>, tensor<4x4xf32>) -> (tensor<4x4xf32>, tensor<4xf32>)
  %3:2 = call @f(%a, %a) : (tensor<4x4xf32>, tensor<4x4xf32>) -> (tensor<4x4xf32>, tensor<4xf32>)
  return %0#0, %1#1, %2#0, %3#1 : tensor<4x4xf32>, tensor<4xf32>, tensor<4x4xf32>, tensor<4xf32>
}
