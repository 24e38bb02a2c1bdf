// Arithmetic and math on whole tensors: kiln fuses the chain into one
// dispatch and generates its kernel for the device the suite runs on (cpu:
// LLVM, linked by lld; vulkan: SPIR-V).
// RUN: %kiln-compile %s --iree-hal-target-backends=%target_backend -o %t.kmod
// RUN: %kiln-run-module --device=%device --module=%t.kmod --function=chain --input="5xf32=0 1 2 -3 4" --input="5xf32=1 1 1 1 1" | FileCheck %s --check-prefix=CHAIN
// RUN: %kiln-run-module --device=%device --module=%t.kmod --function=chain --input=1000003xf32=1 --input=1000003xf32=2 --expected_output=1000003xf32=1 | FileCheck %s --check-prefix=LARGE
// RUN: %kiln-run-module --device=%device --module=%t.kmod --function=chain --input=7xf32=1 --input=7xf32=2 --expected_output=7xf32=1 | FileCheck %s --check-prefix=LARGE
// RUN: %kiln-run-module --device=%device --module=%t.kmod --function=empty_ok --input=0xf32 | FileCheck %s --check-prefix=EMPTY
// RUN: %kiln-run-module --device=%device --module=%t.kmod --function=barrier --input="2xf32=0 1" | FileCheck %s --check-prefix=BARRIER
// RUN: %kiln-dump-module %t.kmod | FileCheck %s --check-prefix=DUMP

// max(a * b - b, 0) then exp of its negation, elementwise.
func.func @chain(%a: tensor<?xf32>, %b: tensor<?xf32>) -> tensor<?xf32> {
  %0 = arith.mulf %a, %b : tensor<?xf32>
  %1 = arith.subf %0, %b : tensor<?xf32>
  %c0f = arith.constant 0.0 : f32
  %c0 = arith.constant 0 : index
  %n = tensor.dim %a, %c0 : tensor<?xf32>
  %z = tensor.empty(%n) : tensor<?xf32>
  %zeros = linalg.fill ins(%c0f : f32) outs(%z : tensor<?xf32>) -> tensor<?xf32>
  %2 = arith.maximumf %1, %zeros : tensor<?xf32>
  %3 = arith.negf %2 : tensor<?xf32>
  %4 = math.exp %3 : tensor<?xf32>
  return %4 : tensor<?xf32>
}
// a*b - b = 0 -1 1 -4 3 -> max 0 0 1 0 3 -> exp(-x) = 1 1 0.367879 1 0.0497871
// CHAIN: EXEC @chain
// CHAIN-NEXT: result[0]: hal.buffer_view
// CHAIN-NEXT: 5xf32=1 1 0.367879 1 0.0497871

// a*b - b = 1*2 - 2 = 0 everywhere -> exp(0) = 1.
// LARGE: [SUCCESS]

// An empty tensor: the dispatch has no workgroups and is skipped.
func.func @empty_ok(%a: tensor<?xf32>) -> tensor<?xf32> {
  %0 = math.absf %a : tensor<?xf32>
  return %0 : tensor<?xf32>
}
// EMPTY: EXEC @empty_ok
// EMPTY-NEXT: result[0]: hal.buffer_view
// EMPTY-NEXT: 0xf32=

// util.optimization_barrier stops fusion: two dispatches, the same values.
func.func @barrier(%a: tensor<?xf32>) -> tensor<?xf32> {
  %0 = arith.negf %a : tensor<?xf32>
  %1 = util.optimization_barrier %0 : tensor<?xf32>
  %2 = math.exp %1 : tensor<?xf32>
  return %2 : tensor<?xf32>
}
// BARRIER: EXEC @barrier
// BARRIER-NEXT: result[0]: hal.buffer_view
// BARRIER-NEXT: 2xf32=1 0.367879

// The chain is one dispatch; the barrier's function has two.
// DUMP: executables: 4
// DUMP-NEXT:   @chain_dispatch_0
// DUMP-NEXT:     variant {{(llvm-cpu system-elf-x86_64|vulkan-spirv vulkan-spirv-fb|cuda cuda-nvptx-fb)}}
// DUMP-NEXT:     export 0 @chain_dispatch_0 workgroup_size [128, 1, 1]
// DUMP-NEXT:     dispatch of @chain_dispatch_0 in function {{[0-9]+}} 'chain' at offset {{[0-9]+}} ({{.*}}elementwise.mlir:
// DUMP-NEXT:   @empty_ok_dispatch_0
// DUMP:   @barrier_dispatch_0
// DUMP:   @barrier_dispatch_1
