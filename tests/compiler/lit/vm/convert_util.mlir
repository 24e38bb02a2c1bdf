// --kiln-convert-to-vm on util: globals become vm.global.<bank> with their
// initial value in canonical register form (zero values dropped: the global
// bytes start zeroed) or vm.global.ref; a global stored anywhere (an
// initializer may store an immutable one) is mutable at the VM level;
// initializers become vm.func marked vm.initializer.
// RUN: %kiln-opt %s --kiln-convert-to-vm | FileCheck %s

// CHECK-DAG: vm.global.i32 mutable @counter = 10 {sym_visibility = "private"}
util.global private mutable @counter : i32 = 10 : i32
// CHECK-DAG: vm.global.i32 @flag = 1 {
util.global private @flag : i1 = true
// CHECK-DAG: vm.global.i32 @byte = -3 {
util.global private @byte : i8 = -3 : i8
// CHECK-DAG: vm.global.i64 @idx = 42 {
util.global private @idx : index = 42 : index
// CHECK-DAG: vm.global.f32 @half = 5.000000e-01 {
util.global private @half : f32 = 0.5 : f32
// CHECK-DAG: vm.global.f64 mutable @zero {sym_visibility = "private"}
util.global private mutable @zero : f64 = 0.0 : f64
// Stored by the initializer only.
// CHECK-DAG: vm.global.i64 mutable @late {sym_visibility = "private"}
util.global private @late : i64
// CHECK-DAG: vm.global.ref mutable @fence {sym_visibility = "private"} : !vm.ref<!hal.fence>
util.global private mutable @fence : !hal.fence

// CHECK-LABEL: vm.func private @__initializer()
// CHECK-SAME: attributes {vm.initializer}
// CHECK-NEXT: %[[C:.+]] = vm.const.i64 7 : i64
// CHECK-NEXT: vm.global.store.i64 @late, %[[C]]{{$}}
// CHECK-NEXT: %[[NULL:.+]] = vm.const.ref.null : !vm.ref<!hal.fence>
// CHECK-NEXT: vm.global.store.ref @fence, %[[NULL]] : !vm.ref<!hal.fence>
// CHECK-NEXT: vm.return
util.initializer {
  %c = arith.constant 7 : i64
  util.global.store %c, @late : i64
  %null = util.null : !hal.fence
  util.global.store %null, @fence : !hal.fence
  util.return
}

// CHECK-LABEL: vm.func @bump
// CHECK-NEXT: %[[ONE:.+]] = vm.const.i32 1 : i32
// CHECK-NEXT: %[[OLD:.+]] = vm.global.load.i32 @counter : i32
// CHECK-NEXT: %[[NEW:.+]] = vm.add.i32 %[[OLD]], %[[ONE]] : i32
// CHECK-NEXT: vm.global.store.i32 @counter, %[[NEW]]{{$}}
// CHECK-NEXT: %[[B:.+]] = vm.global.load.i32 @byte : i32
// CHECK-NEXT: %[[I:.+]] = vm.global.load.i64 @idx : i64
// CHECK-NEXT: vm.return %[[OLD]], %[[B]], %[[I]] : i32, i32, i64
func.func @bump() -> (i32, i8, index) {
  %old = util.global.load @counter : i32
  %c1 = arith.constant 1 : i32
  %new = arith.addi %old, %c1 : i32
  util.global.store %new, @counter : i32
  %b = util.global.load @byte : i8
  %i = util.global.load @idx : index
  return %old, %b, %i : i32, i8, index
}

// util.cmp.eq of refs is vm.ref.eq; unfoldable constants are plain
// constants now; barriers disappear.
// CHECK-LABEL: vm.func @hints
// CHECK-SAME: (%[[A:.+]]: !vm.ref<!hal.fence>, %[[B:.+]]: !vm.ref<!hal.fence>)
// CHECK-NEXT: %[[FIVE:.+]] = vm.const.i32 5 : i32
// CHECK-NEXT: %[[EQ:.+]] = vm.ref.eq %[[A]], %[[B]] : !vm.ref<!hal.fence>, !vm.ref<!hal.fence> -> i32
// CHECK-NEXT: vm.return %[[EQ]], %[[FIVE]] : i32, i32
func.func @hints(%a: !hal.fence, %b: !hal.fence) -> (i1, i32) {
  %eq = util.cmp.eq %a, %b : !hal.fence
  %c = util.unfoldable_constant 5 : i32
  %d = util.optimization_barrier %c : i32
  return %eq, %d : i1, i32
}
