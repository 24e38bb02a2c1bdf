// RUN: %kiln-opt %s --split-input-file --kiln-hal-bufferize-dispatches | FileCheck %s

// What a check already proved is not checked again. A result tied to an
// operand (`-> %b{%n}`) lives in that operand's buffer, which was checked (or
// sized by construction) for the operand's declared size: when the result
// declares the same element type and dims, the next dispatch that reads it
// needs no hal.buffer.assert of its own. flow.tensor.tie_shape re-dims a
// tensor: with new dims its buffer is checked at the next use.

#layout = #hal.pipeline.layout<constants = 1, bindings = [
  #hal.pipeline.binding<storage_buffer, ReadOnly>,
  #hal.pipeline.binding<storage_buffer>
]>

// CHECK-LABEL: module @tied_chain
module @tied_chain {
  hal.executable private @ex {
    hal.executable.binary public @elf attributes {data = dense<[1, 2, 3, 4]> : vector<4xi8>, format = "system-elf-x86_64"}
    hal.executable.export public @scale ordinal(0) layout(#layout)
  }
  // CHECK: func.func @f
  func.func @f(%a: tensor<?xf32>, %b: tensor<?xf32>) -> tensor<?xf32> {
    %c0 = arith.constant 0 : index
    %n = tensor.dim %a, %c0 : tensor<?xf32>
    %n_i32 = arith.index_cast %n : index to i32
    // %b is declared with %a's length: checked once.
    // CHECK: %[[BBUF:.+]] = hal.buffer_view.buffer<%arg1
    // CHECK: hal.buffer.assert<%[[BBUF]] : !hal.buffer>
    // CHECK-NOT: hal.buffer.assert
    // CHECK: hal.command_buffer.dispatch
    %0 = flow.dispatch @ex::@scale[%n](%n_i32, %a, %b) : (i32, tensor<?xf32>{%n}, tensor<?xf32>{%n}) -> %b{%n}
    // %0 and %1 are %b's buffer with the same declared size: no new checks.
    // CHECK-NOT: hal.buffer.assert
    // CHECK: hal.command_buffer.dispatch
    %1 = flow.dispatch @ex::@scale[%n](%n_i32, %a, %0) : (i32, tensor<?xf32>{%n}, tensor<?xf32>{%n}) -> %0{%n}
    // CHECK-NOT: hal.buffer.assert
    // CHECK: hal.command_buffer.dispatch
    %2 = flow.dispatch @ex::@scale[%n](%n_i32, %a, %1) : (i32, tensor<?xf32>{%n}, tensor<?xf32>{%n}) -> %1{%n}
    // CHECK-NOT: hal.buffer.assert
    // CHECK: return
    return %2 : tensor<?xf32>
  }
}

// -----

#layout = #hal.pipeline.layout<constants = 1, bindings = [
  #hal.pipeline.binding<storage_buffer, ReadOnly>,
  #hal.pipeline.binding<storage_buffer>
]>

// CHECK-LABEL: module @tie_shape
module @tie_shape {
  hal.executable private @ex {
    hal.executable.binary public @elf attributes {data = dense<[1, 2, 3, 4]> : vector<4xi8>, format = "system-elf-x86_64"}
    hal.executable.export public @scale ordinal(0) layout(#layout)
  }
  // CHECK: func.func @f(%{{.+}}: !hal.buffer_view, %{{.+}}: index) -> !hal.buffer_view
  func.func @f(%a: tensor<?xf32>, %m: index) -> tensor<?xf32> {
    %c0 = arith.constant 0 : index
    %n = tensor.dim %a, %c0 : tensor<?xf32>
    %n_i32 = arith.index_cast %n : index to i32
    // CHECK: %[[ABUF:.+]] = hal.buffer_view.buffer<%arg0
    // Tied to its own dims: nothing changes, nothing to check.
    // CHECK-NOT: flow.tensor.tie_shape
    // CHECK-NOT: hal.buffer.assert
    // CHECK: hal.command_buffer.dispatch
    %same = flow.tensor.tie_shape %a : tensor<?xf32>{%n}
    %0 = flow.dispatch @ex::@scale[%n](%n_i32, %same, %same) : (i32, tensor<?xf32>{%n}, tensor<?xf32>{%n}) -> %same{%n}
    // Tied to %m: the buffer of %a must hold %m floats, checked at the use
    // (and so must %0, in the same buffer but sized by %n).
    // CHECK: hal.buffer.assert<%[[ABUF]] : !hal.buffer> message("@f: operand 1 (tensor<?xf32>)
    // CHECK: hal.buffer.assert<%[[ABUF]] : !hal.buffer> message("@f: operand 2 (tensor<?xf32>)
    // CHECK: hal.command_buffer.dispatch
    %tied = flow.tensor.tie_shape %a : tensor<?xf32>{%m}
    %m_i32 = arith.index_cast %m : index to i32
    %1 = flow.dispatch @ex::@scale[%m](%m_i32, %tied, %0) : (i32, tensor<?xf32>{%m}, tensor<?xf32>{%m}) -> %0{%m}
    // The view returned has the tied dims.
    // CHECK: %[[V:.+]] = hal.buffer_view.create
    // CHECK: return %[[V]]
    return %tied : tensor<?xf32>
  }
}
