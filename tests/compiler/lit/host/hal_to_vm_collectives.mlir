// RUN: %kiln-opt %s --kiln-convert-to-vm | FileCheck %s

// Channels and collective commands become calls of the `hal` module's
// imports, declared from the one import table (hal/module/hal_imports.h).
// A channel's group is rodata (empty: the default channel). A collective's
// #hal.collective is packed into the import's op (kind | reduction << 8)
// and element type (the runtime's encoding, signedness kept); ranks are -1
// but for send_recv; binding-table slots call the .indirect import.

// CHECK-LABEL: vm.module @collectives
// CHECK-DAG: vm.import @hal.channel.default(!vm.ref<!hal.device>, !vm.ref<!vm.buffer>) -> !vm.ref<!hal.channel>
// CHECK-DAG: vm.import @hal.channel.split(!vm.ref<!hal.channel>, i32, i32) -> !vm.ref<!hal.channel>
// CHECK-DAG: vm.import @hal.channel.rank_and_count(!vm.ref<!hal.channel>) -> (i32, i32)
// CHECK-DAG: vm.import @hal.command_buffer.collective(!vm.ref<!hal.command_buffer>, !vm.ref<!hal.channel>, i32, i32, i32, i32, !vm.ref<!hal.buffer>, i64, i64, !vm.ref<!hal.buffer>, i64, i64, i64) -> ()
// CHECK-DAG: vm.import @hal.command_buffer.collective.indirect(!vm.ref<!hal.command_buffer>, !vm.ref<!hal.channel>, i32, i32, i32, i32, i32, i64, i64, i32, i64, i64, i64) -> ()

// CHECK: vm.func @channels(%[[DEVICE:.+]]: !vm.ref<!hal.device>, %[[COLOR:.+]]: i32, %[[KEY:.+]]: i32)
// CHECK:   %[[NONE:.+]] = vm.const.ref.rodata @[[EMPTY:__hal_string[_0-9]*]] : !vm.ref<!vm.buffer>
// CHECK:   vm.call.import @hal.channel.default(%[[DEVICE]], %[[NONE]])
// CHECK:   %[[TP_NAME:.+]] = vm.const.ref.rodata @[[TP:__hal_string[_0-9]*]] : !vm.ref<!vm.buffer>
// CHECK:   %[[TP_CHANNEL:.+]] = vm.call.import @hal.channel.default(%[[DEVICE]], %[[TP_NAME]])
// CHECK:   %[[SPLIT:.+]] = vm.call.import @hal.channel.split(%[[TP_CHANNEL]], %[[COLOR]], %[[KEY]]) : (!vm.ref<!hal.channel>, i32, i32) -> !vm.ref<!hal.channel>
// CHECK:   %[[RANK_COUNT:.+]]:2 = vm.call.import @hal.channel.rank_and_count(%[[SPLIT]]) : (!vm.ref<!hal.channel>) -> (i32, i32)
// CHECK:   vm.return %[[RANK_COUNT]]#0, %[[RANK_COUNT]]#1

// CHECK: vm.func @record(%[[CMD:[^:]+]]: !vm.ref<!hal.command_buffer>, %[[CHANNEL:[^:]+]]: !vm.ref<!hal.channel>, %[[A:[^:]+]]: !vm.ref<!hal.buffer>, %[[B:[^:]+]]: !vm.ref<!hal.buffer>, %[[SEND:[^:]+]]: i32, %[[RECV:[^:]+]]: i32, %[[N:[^:]+]]: i64)
// reduce_scatter (3) with maximum (4): 0x403; si32 = 0x11000020.
// CHECK-DAG: %[[REDUCE_SCATTER_MAX:.+]] = vm.const.i32 1027 : i32
// CHECK-DAG: %[[SI32:.+]] = vm.const.i32 285212704 : i32
// CHECK-DAG: %[[NONE_RANK:.+]] = vm.const.i32 -1 : i32
// send_recv (4); bf16 = 0x21000010.
// CHECK-DAG: %[[SEND_RECV:.+]] = vm.const.i32 4 : i32
// CHECK-DAG: %[[BF16:.+]] = vm.const.i32 553648144 : i32
// CHECK-DAG: %[[ZERO:.+]] = vm.const.i64 0 : i64
// CHECK-DAG: %[[SIXTEEN:.+]] = vm.const.i64 16 : i64
// CHECK-DAG: %[[SLOT0:.+]] = vm.const.i32 0 : i32
// CHECK-DAG: %[[SLOT1:.+]] = vm.const.i32 1 : i32
// CHECK: vm.call.import @hal.command_buffer.collective(%[[CMD]], %[[CHANNEL]], %[[REDUCE_SCATTER_MAX]], %[[SI32]], %[[NONE_RANK]], %[[NONE_RANK]], %[[A]], %[[ZERO]], %[[SIXTEEN]], %[[B]], %[[ZERO]], %[[SIXTEEN]], %[[N]])
// CHECK: vm.call.import @hal.command_buffer.collective.indirect(%[[CMD]], %[[CHANNEL]], %[[SEND_RECV]], %[[BF16]], %[[SEND]], %[[RECV]], %[[SLOT0]], %[[ZERO]], %[[SIXTEEN]], %[[SLOT1]], %[[ZERO]], %[[SIXTEEN]], %[[N]])

// CHECK: vm.rodata @[[EMPTY]] ""
// CHECK: vm.rodata @[[TP]] "tp"
module @collectives {
  func.func @channels(%device: !hal.device, %color: i32, %key: i32) -> (i32, i32) {
    %channel = hal.channel.default device(%device : !hal.device) : !hal.channel
    %tp = hal.channel.default device(%device : !hal.device) group("tp") : !hal.channel
    %split = hal.channel.split<%tp : !hal.channel> color(%color) key(%key) : !hal.channel
    %rank, %count = hal.channel.rank_and_count<%split : !hal.channel> : i32, i32
    return %rank, %count : i32, i32
  }
  func.func @record(%cmd: !hal.command_buffer, %channel: !hal.channel, %a: !hal.buffer, %b: !hal.buffer, %send: i32, %recv: i32, %n: index) {
    %c0 = arith.constant 0 : index
    %c1 = arith.constant 1 : index
    %c16 = arith.constant 16 : index
    hal.command_buffer.collective<%cmd : !hal.command_buffer> channel(%channel : !hal.channel) op(<reduce_scatter with maximum : si32>) send(%a : !hal.buffer)[%c0, %c16] recv(%b : !hal.buffer)[%c0, %c16] count(%n)
    hal.command_buffer.collective<%cmd : !hal.command_buffer> channel(%channel : !hal.channel) op(<send_recv : bf16>) ranks(%send, %recv) send(%c0 : index)[%c0, %c16] recv(%c1 : index)[%c0, %c16] count(%n)
    return
  }
}
