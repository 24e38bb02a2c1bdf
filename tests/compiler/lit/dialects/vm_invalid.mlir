// What the bytecode verifier would reject is rejected by the vm dialect's
// verifiers, at the op.
// RUN: %kiln-opt %s --split-input-file --verify-diagnostics

vm.module @m {
  vm.func @bank(%a: i64) -> i32 {
    // expected-error @+1 {{operand #0 must be 32-bit signless integer}}
    %0 = "vm.add.i32"(%a, %a) : (i64, i64) -> i32
    vm.return %0 : i32
  }
}

// -----

vm.module @m {
  // expected-error @+1 {{argument #0 has type 'index', which no VM register bank holds}}
  vm.func @arg(%a: index) {
    vm.return
  }
}

// -----

vm.module @m {
  vm.func @immediate(%a: i32) -> i32 {
    // expected-error @+1 {{integer constant out of range for attribute}}
    %0 = vm.add.imm.i32 %a, 4294967296 : i32
    vm.return %0 : i32
  }
}

// -----

vm.module @m {
  vm.func @callee(%a: i32) -> i32 {
    vm.return %a : i32
  }
  vm.func @caller(%a: i64) -> i32 {
    // expected-error @+1 {{calls @callee of type '(i32) -> i32' with ('i64') -> ('i32')}}
    %0 = vm.call @callee(%a) : (i64) -> i32
    vm.return %0 : i32
  }
}

// -----

vm.module @m {
  vm.import @mod.fn(i32, ...) -> i64
  vm.func @caller(%a: i64) -> i64 {
    // expected-error @+1 {{calls @mod.fn of type '(i32) -> i64' (variadic) with ('i64') -> ('i64')}}
    %0 = vm.call.import @mod.fn(%a) : (i64) -> i64
    vm.return %0 : i64
  }
}

// -----

vm.module @m {
  vm.global.f32 mutable @g
  vm.func @bank() -> i32 {
    // expected-error @+1 {{accesses @g of type 'f32' as 'i32'}}
    %0 = vm.global.load.i32 @g : i32
    vm.return %0 : i32
  }
}

// -----

vm.module @m {
  vm.func @missing() {
    %x = vm.const.i64 1 : i64
    // expected-error @+1 {{'@nowhere' does not name a vm.global of the enclosing vm.module}}
    vm.global.store.i64 @nowhere, %x
    vm.return
  }
}

// -----

vm.module @m {
  vm.func @returns(%a: i64) -> i32 {
    // expected-error @+1 {{returns ('i64') from a function returning ('i32')}}
    vm.return %a : i64
  }
}

// -----

vm.module @m {
  vm.func @for_step(%n: i32) {
    %c0 = vm.const.i32 0 : i32
    %z = vm.const.i64 0 : i64
    vm.br ^body(%c0, %z : i32, i64)
  ^body(%i: i32, %acc: i64):
    // expected-error @+1 {{branch has 1 operands for successor #0, but target block has 2}}
    vm.for.step.i32 %i, 1, %n, ^body, ^exit
  ^exit:
    vm.return
  }
}

// -----

vm.module @m {
  // expected-error @+1 {{an initializer takes no arguments and returns nothing}}
  vm.func @init(%a: i32) attributes {vm.initializer} {
    vm.return
  }
}
