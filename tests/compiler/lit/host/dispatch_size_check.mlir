// RUN: %kiln-opt %s --kiln-hal-bufferize-dispatches | FileCheck %s
// RUN: %kiln-opt %s --kiln-hal-bufferize-dispatches --kiln-convert-to-vm | FileCheck %s --check-prefix=VM

// Issue item 6: each tensor operand's declared size (`tensor<?xf32>{%n}`)
// is checked against the buffer bound to it before the submission, unless
// that holds by construction. The message names the function, the operand,
// the dispatch and its location; the runtime adds both sizes:
//   @f: operand 2 (tensor<?xf32>) of the dispatch of @ex::@mul at f.mlir:12:8:
//   needs 32 bytes, but its buffer holds 16

#layout = #hal.pipeline.layout<constants = 1, bindings = [
  #hal.pipeline.binding<storage_buffer, ReadOnly>,
  #hal.pipeline.binding<storage_buffer, ReadOnly>,
  #hal.pipeline.binding<storage_buffer>
]>

// VM: vm.import @hal.buffer.assert(!vm.ref<!hal.buffer>, !vm.ref<!vm.buffer>, i64)
module @size_check {
  hal.executable private @ex {
    hal.executable.binary public @elf attributes {data = dense<[1, 2, 3, 4]> : vector<4xi8>, format = "system-elf-x86_64"}
    hal.executable.export public @mul ordinal(0) layout(#layout)
  }
  // CHECK-LABEL: func.func @f
  func.func @f(%a: tensor<?xf32>, %b: tensor<?xf32>, %s: tensor<4xf32>) -> tensor<?xf32> {
    // CHECK: %[[ABUF:.+]] = hal.buffer_view.buffer<%arg0
    // CHECK: %[[N:.+]] = hal.buffer_view.dim<%arg0
    // CHECK: %[[BBUF:.+]] = hal.buffer_view.buffer<%arg1
    %c0 = arith.constant 0 : index
    %n = tensor.dim %a, %c0 : tensor<?xf32>
    %n_i32 = arith.index_cast %n : index to i32
    // %a is declared with its own length: no check. %b is declared with
    // %a's: checked against %b's buffer.
    // CHECK: %[[LEN:.+]] = arith.muli %{{.+}}, %[[N]] : index
    // CHECK-NOT: hal.buffer.assert<%[[ABUF]]
    // CHECK: hal.buffer.assert<%[[BBUF]] : !hal.buffer> message("@f: operand 2 (tensor<?xf32>) of the dispatch of @ex::@mul at {{.*}}dispatch_size_check.mlir:[[# @LINE + 4]]:10") minimum_length(%{{.+}})
    // CHECK-NOT: hal.buffer.assert
    // CHECK: hal.command_buffer.create
    // VM: vm.call.import @hal.buffer.assert(%{{.+}}, %{{.+}}, %{{.+}}) : (!vm.ref<!hal.buffer>, !vm.ref<!vm.buffer>, i64) -> ()
    %0 = flow.dispatch @ex::@mul[%n](%n_i32, %a, %b) : (i32, tensor<?xf32>{%n}, tensor<?xf32>{%n}) -> tensor<?xf32>{%n}
    // A static shape is asserted on entry: its buffer holds 16 bytes, no check.
    // CHECK-NOT: hal.buffer.assert
    // CHECK: return
    %c4 = arith.constant 4 : index
    %c4_i32 = arith.constant 4 : i32
    %1 = flow.dispatch @ex::@mul[%c4](%c4_i32, %s, %s) : (i32, tensor<4xf32>, tensor<4xf32>) -> tensor<4xf32>
    return %0 : tensor<?xf32>
  }
}
