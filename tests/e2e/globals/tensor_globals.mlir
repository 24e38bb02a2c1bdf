// util.global of tensor types read and written by generated kernels on
// %device: immutable globals with element-list and splat values, mutable
// state zero-initialized or with a value, updated across calls within one
// invocation (a store makes a dispatch's result the global's buffer; later
// loads see it), returned to the caller; host tensor constants, which become
// immutable globals uploaded once by the module initializer.
// RUN: %kiln-compile %s --iree-hal-target-backends=%target_backend -o %t.kmod
// RUN: %kiln-run-module --device=%device --module=%t.kmod --function=accumulate --input="4xf32=1 2 3 4" | FileCheck %s --check-prefix=ACC --match-full-lines
// RUN: %kiln-run-module --device=%device --module=%t.kmod --function=initial | FileCheck %s --check-prefix=INITIAL --match-full-lines
// RUN: %kiln-run-module --device=%device --module=%t.kmod --function=count --input="4xi32=1 -2 3 -4" | FileCheck %s --check-prefix=COUNT --match-full-lines
// RUN: %kiln-run-module --device=%device --module=%t.kmod --function=scaled --input="4xf32=2 2 4 4" | FileCheck %s --check-prefix=SCALED --match-full-lines
// RUN: %kiln-run-module --device=%device --module=%t.kmod --function=from_initializer | FileCheck %s --check-prefix=INIT --match-full-lines
// The same without memoized command buffers.
// RUN: %kiln-compile %s --iree-hal-target-backends=%target_backend --memoize-command-buffers=false -o %t.oneshot.kmod
// RUN: %kiln-run-module --device=%device --module=%t.oneshot.kmod --function=accumulate --input="4xf32=1 2 3 4" | FileCheck %s --check-prefix=ACC --match-full-lines
// RUN: %kiln-run-module --device=%device --module=%t.oneshot.kmod --function=scaled --input="4xf32=2 2 4 4" | FileCheck %s --check-prefix=SCALED --match-full-lines
// Constants and initial values are uploaded by the initializer only: no
// function fills a buffer from module data.
// RUN: %kiln-compile %s --iree-hal-target-backends=%target_backend --output-format=mlir -o - | FileCheck %s --check-prefix=IR

util.global private @weights = dense<[1.0, 2.0, 3.0, 4.0]> : tensor<4xf32>
util.global private @half = dense<0.5> : tensor<4xf32>
util.global private mutable @state : tensor<4xf32>
util.global private mutable @counts = dense<[10, 20, 30, 40]> : tensor<4xi32>
util.global private mutable @bytes : tensor<2x3xi8>
util.global private @table = dense<[[1, -2, 3], [-4, 5, -6]]> : tensor<2x3xi16>

// Globals a util.initializer sets: an immutable one from a constant, a
// mutable one from another global (a copy: writing it must not write
// @weights).
util.global private @derived : tensor<3xi32>
util.global private mutable @weights_copy : tensor<4xf32>
util.initializer {
  %c = arith.constant dense<[7, -8, 9]> : tensor<3xi32>
  util.global.store %c, @derived : tensor<3xi32>
  %w = util.global.load @weights : tensor<4xf32>
  util.global.store %w, @weights_copy : tensor<4xf32>
  util.return
}

// state += x * weights; returns the new state.
func.func private @step(%x: tensor<4xf32>) -> tensor<4xf32> {
  %w = util.global.load @weights : tensor<4xf32>
  %s = util.global.load @state : tensor<4xf32>
  %0 = arith.mulf %x, %w : tensor<4xf32>
  %1 = arith.addf %s, %0 : tensor<4xf32>
  util.global.store %1, @state : tensor<4xf32>
  return %1 : tensor<4xf32>
}

// x * w = 1 4 9 16, accumulated three times from zeros; each result keeps
// its value after the state moves on.
// ACC: EXEC @accumulate
// ACC-NEXT: result[0]: hal.buffer_view
// ACC-NEXT: 4xf32=1 4 9 16
// ACC-NEXT: result[1]: hal.buffer_view
// ACC-NEXT: 4xf32=2 8 18 32
// ACC-NEXT: result[2]: hal.buffer_view
// ACC-NEXT: 4xf32=3 12 27 48
// ACC-NEXT: result[3]: hal.buffer_view
// ACC-NEXT: 4xf32=3 12 27 48
func.func @accumulate(%x: tensor<4xf32>) -> (tensor<4xf32>, tensor<4xf32>, tensor<4xf32>, tensor<4xf32>) {
  %a = call @step(%x) : (tensor<4xf32>) -> tensor<4xf32>
  %b = call @step(%x) : (tensor<4xf32>) -> tensor<4xf32>
  %c = call @step(%x) : (tensor<4xf32>) -> tensor<4xf32>
  %s = util.global.load @state : tensor<4xf32>
  return %a, %b, %c, %s : tensor<4xf32>, tensor<4xf32>, tensor<4xf32>, tensor<4xf32>
}

// Every global as the initializer left it.
// INITIAL: EXEC @initial
// INITIAL-NEXT: result[0]: hal.buffer_view
// INITIAL-NEXT: 4xf32=1 2 3 4
// INITIAL-NEXT: result[1]: hal.buffer_view
// INITIAL-NEXT: 4xf32=0.5 0.5 0.5 0.5
// INITIAL-NEXT: result[2]: hal.buffer_view
// INITIAL-NEXT: 4xf32=0 0 0 0
// INITIAL-NEXT: result[3]: hal.buffer_view
// INITIAL-NEXT: 4xi32=10 20 30 40
// INITIAL-NEXT: result[4]: hal.buffer_view
// INITIAL-NEXT: 2x3xi8=[0 0 0][0 0 0]
// INITIAL-NEXT: result[5]: hal.buffer_view
// INITIAL-NEXT: 2x3xi16=[1 -2 3][-4 5 -6]
func.func @initial() -> (tensor<4xf32>, tensor<4xf32>, tensor<4xf32>, tensor<4xi32>, tensor<2x3xi8>, tensor<2x3xi16>) {
  %0 = util.global.load @weights : tensor<4xf32>
  %1 = util.global.load @half : tensor<4xf32>
  %2 = util.global.load @state : tensor<4xf32>
  %3 = util.global.load @counts : tensor<4xi32>
  %4 = util.global.load @bytes : tensor<2x3xi8>
  %5 = util.global.load @table : tensor<2x3xi16>
  return %0, %1, %2, %3, %4, %5 : tensor<4xf32>, tensor<4xf32>, tensor<4xf32>, tensor<4xi32>, tensor<2x3xi8>, tensor<2x3xi16>
}

// counts += d twice; bytes = table * 2 (truncated to i8) + 1, read back.
// COUNT: EXEC @count
// COUNT-NEXT: result[0]: hal.buffer_view
// COUNT-NEXT: 4xi32=12 16 36 32
// COUNT-NEXT: result[1]: hal.buffer_view
// COUNT-NEXT: 2x3xi8=[3 -3 7][-7 11 -11]
func.func @count(%d: tensor<4xi32>) -> (tensor<4xi32>, tensor<2x3xi8>) {
  %c0 = util.global.load @counts : tensor<4xi32>
  %c1 = arith.addi %c0, %d : tensor<4xi32>
  util.global.store %c1, @counts : tensor<4xi32>
  %c2 = util.global.load @counts : tensor<4xi32>
  %c3 = arith.addi %c2, %d : tensor<4xi32>
  util.global.store %c3, @counts : tensor<4xi32>
  %t = util.global.load @table : tensor<2x3xi16>
  %t8 = arith.trunci %t : tensor<2x3xi16> to tensor<2x3xi8>
  %b0 = util.global.load @bytes : tensor<2x3xi8>
  %two = arith.constant dense<2> : tensor<2x3xi8>
  %one = arith.constant dense<1> : tensor<2x3xi8>
  %m = arith.muli %t8, %two : tensor<2x3xi8>
  %p = arith.addi %m, %one : tensor<2x3xi8>
  %b1 = arith.addi %b0, %p : tensor<2x3xi8>
  util.global.store %b1, @bytes : tensor<2x3xi8>
  %final = util.global.load @counts : tensor<4xi32>
  %bytes = util.global.load @bytes : tensor<2x3xi8>
  return %final, %bytes : tensor<4xi32>, tensor<2x3xi8>
}

// A host constant of distinct elements (an immutable global now), scaled
// by the splat global; one element read back on the host: x * c * 0.5 =
// 0.5 0.75 2.5 3.5, element 2 = 2.5; the constant itself returned (a copy).
// SCALED: EXEC @scaled
// SCALED-NEXT: result[0]: hal.buffer_view
// SCALED-NEXT: 4xf32=0.5 0.75 2.5 3.5
// SCALED-NEXT: result[1]: f32=2.5
// SCALED-NEXT: result[2]: hal.buffer_view
// SCALED-NEXT: 4xf32=0.5 0.75 1.25 1.75
func.func @scaled(%x: tensor<4xf32>) -> (tensor<4xf32>, f32, tensor<4xf32>) {
  %c = arith.constant dense<[0.5, 0.75, 1.25, 1.75]> : tensor<4xf32>
  %h = util.global.load @half : tensor<4xf32>
  %0 = arith.mulf %x, %c : tensor<4xf32>
  %1 = arith.mulf %0, %h : tensor<4xf32>
  %i = arith.constant 2 : index
  %e = tensor.extract %1[%i] : tensor<4xf32>
  return %1, %e, %c : tensor<4xf32>, f32, tensor<4xf32>
}

// INIT: EXEC @from_initializer
// INIT-NEXT: result[0]: hal.buffer_view
// INIT-NEXT: 3xi32=7 -8 9
// INIT-NEXT: result[1]: hal.buffer_view
// INIT-NEXT: 4xf32=2 4 6 8
// INIT-NEXT: result[2]: hal.buffer_view
// INIT-NEXT: 4xf32=1 2 3 4
func.func @from_initializer() -> (tensor<3xi32>, tensor<4xf32>, tensor<4xf32>) {
  %d = util.global.load @derived : tensor<3xi32>
  %c = util.global.load @weights_copy : tensor<4xf32>
  %doubled = arith.addf %c, %c : tensor<4xf32>
  util.global.store %doubled, @weights_copy : tensor<4xf32>
  %after = util.global.load @weights_copy : tensor<4xf32>
  %w = util.global.load @weights : tensor<4xf32>
  return %d, %after, %w : tensor<3xi32>, tensor<4xf32>, tensor<4xf32>
}

// The module initializer (before the program's) uploads the four values of
// distinct elements (@weights, @counts, @table, @scaled's constant) and
// fills the splats; the program's initializer uploads its constant when it
// runs, and copies @weights.
// IR:         vm.func private @__initializer()
// IR-COUNT-4: vm.call.import @hal.allocator.allocate.initialized(
// IR-NOT:     allocate.initialized
// IR:         vm.func private @__initializer_0()
// IR:         vm.call.import @hal.allocator.allocate.initialized(
// IR:         vm.call.import @hal.command_buffer.copy_buffer(
// IR-NOT:     allocate.initialized
// IR-LABEL: vm.func @scaled(
// IR-NOT:     allocate.initialized
// IR:         vm.global.load.ref @__constant
// IR-NOT:     allocate.initialized
// IR:         vm.call.import @hal.buffer.load(
// IR-NOT:     allocate.initialized
