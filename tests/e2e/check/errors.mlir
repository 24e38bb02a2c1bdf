// A test whose invocation fails (here a cf.assert) fails with the VM's error,
// which names the instruction's source location; the next test still runs.
// A check module needs kiln-check-module: kiln-run-module has no `check`
// module to link, and says which import is missing.
// RUN: %kiln-compile %s --iree-hal-target-backends=%target_backend -o %t.kmod
// RUN: not %kiln-check-module --device=%device %t.kmod | FileCheck %s
// RUN: not %kiln-run-module --device=%device --module=%t.kmod --function=after 2>&1 | FileCheck %s --check-prefix=RUN-MODULE

// CHECK: [ RUN      ] module.traps
func.func @traps() {
  %false = util.unfoldable_constant 0 : i1
  // CHECK-NEXT: error: function 'module.traps' at bytecode offset {{[0-9]+}} ({{.*}}errors.mlir:[[@LINE+1]]:3): the value is wrong
  cf.assert %false, "the value is wrong"
  return
}
// CHECK-NEXT: [  FAILED  ] module.traps
// CHECK-NEXT: [ RUN      ] module.after
// CHECK-NEXT: [       OK ] module.after
// CHECK: [  FAILED  ] 1 test, listed below:
// CHECK-NEXT: [  FAILED  ] module.traps
func.func @after() {
  %a = util.unfoldable_constant dense<[1.0, 2.0]> : tensor<2xf32>
  check.expect_eq_const(%a, dense<[1.0, 2.0]> : tensor<2xf32>) : tensor<2xf32>
  return
}
// RUN-MODULE: error: {{.*}}missing required import 'check.expect_eq'
