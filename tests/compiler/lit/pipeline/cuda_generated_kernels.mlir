// kiln-compile for CUDA with generated kernels: each dispatch's kernel is
// lowered to NVVM and compiled to PTX for sm_75 in process (LLVM's NVPTX
// backend; no GPU, driver or toolkit is needed to compile), embedded as the
// one image of a cuda-nvptx-fb variant. Running the module needs a GPU
// (tests/e2e with --device=cuda).
// RUN: %kiln-compile --iree-hal-target-backends=cuda %s -o %t.kmod
// RUN: %kiln-dump-module %t.kmod | FileCheck %s

// Elementwise, with math.exp (a polynomial: there is no libdevice).
func.func @chain(%a: tensor<?xf32>, %b: tensor<?xf32>) -> tensor<?xf32> {
  %0 = arith.mulf %a, %b : tensor<?xf32>
  %1 = arith.subf %0, %b : tensor<?xf32>
  %2 = arith.negf %1 : tensor<?xf32>
  %3 = math.exp %2 : tensor<?xf32>
  return %3 : tensor<?xf32>
}

// A reduction with a captured scalar (a 32-bit constant parameter).
func.func @rowsum(%a: tensor<?x?xf32>, %s: f32) -> tensor<?xf32> {
  %c0 = arith.constant 0 : index
  %n = tensor.dim %a, %c0 : tensor<?x?xf32>
  %zero = arith.constant 0.0 : f32
  %e = tensor.empty(%n) : tensor<?xf32>
  %f = linalg.fill ins(%zero : f32) outs(%e : tensor<?xf32>) -> tensor<?xf32>
  %r = linalg.generic {indexing_maps = [affine_map<(i, j) -> (i, j)>, affine_map<(i, j) -> (i)>],
                       iterator_types = ["parallel", "reduction"]}
      ins(%a : tensor<?x?xf32>) outs(%f : tensor<?xf32>) {
  ^bb0(%x: f32, %acc: f32):
    %m = arith.mulf %x, %s : f32
    %y = arith.addf %m, %acc : f32
    linalg.yield %y : f32
  } -> tensor<?xf32>
  return %r : tensor<?xf32>
}

// CHECK: executables: 2
// CHECK-NEXT:   @chain_dispatch_0
// CHECK-NEXT:     variant cuda cuda-nvptx-fb target_arch = [sm_75]: {{[0-9]+}} bytes
// CHECK-NEXT:     export 0 @chain_dispatch_0 workgroup_size [128, 1, 1]
// CHECK:        @rowsum_dispatch_0
// CHECK-NEXT:     variant cuda cuda-nvptx-fb target_arch = [sm_75]: {{[0-9]+}} bytes
// CHECK-NEXT:     export 0 @rowsum_dispatch_0 workgroup_size [128, 1, 1]

