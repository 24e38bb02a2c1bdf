// --target names kiln's drivers: cpu, cuda, vulkan.
// REQUIRES: device-cpu
// RUN: not %kiln-compile %s --target=cuda,metal -o %t.kmod 2>&1 | FileCheck %s
// CHECK: error: unknown target 'metal' (targets: cpu, cuda, vulkan)

func.func @f() {
  return
}
