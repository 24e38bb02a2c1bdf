// kiln-compile refuses to write a binary module to a terminal (here a
// pseudo-terminal from script(1)); the IR as text may go there.
// REQUIRES: script
// RUN: not script -qec "%kiln-compile %s" /dev/null | FileCheck %s
// RUN: script -qec "%kiln-compile %s --output-format=mlir" /dev/null | FileCheck %s --check-prefix=TEXT
// CHECK: error: refusing to write a binary module to a terminal: pass -o FILE or redirect stdout
// TEXT: vm.module
func.func @f() {
  return
}
