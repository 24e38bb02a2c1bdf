// kiln-compile --instrument-dispatches on every target: the generated kernel
// of the fused elementwise dispatch records one entry per workgroup into the
// context's ring, kiln-run-module --instrument_file writes the ring and the
// site table, and kiln-dump-instruments counts exactly one record per
// workgroup (100000 elements, 1024 per workgroup: 98) under site 0, with the
// dispatch's source location. The results are those of the uninstrumented
// program. A ring too small for the records keeps the last ones and says
// how many it dropped.
// RUN: %kiln-compile %s --iree-hal-target-backends=%target_backend --instrument-dispatches=64k -o %t.kmod
// RUN: %kiln-run-module --device=%device --module=%t.kmod --function=f --input=100000xf32=1 --input=100000xf32=2 --instrument_file=%t.kins --output_max_element_count=4 | FileCheck %s --check-prefix=RESULT
// RUN: %kiln-dump-instruments %t.kins | FileCheck %s
// RUN: %kiln-compile %s --iree-hal-target-backends=%target_backend --instrument-dispatches=1k -o %t.small.kmod
// RUN: %kiln-run-module --device=%device --module=%t.small.kmod --function=f --input=100000xf32=1 --input=100000xf32=2 --instrument_file=%t.small.kins --output=
// RUN: %kiln-dump-instruments %t.small.kins | FileCheck %s --check-prefix=SMALL

// RESULT: EXEC @f
// RESULT-NEXT: result[0]: hal.buffer_view
// RESULT-NEXT: 100000xf32=6 6 6 6...

// CHECK: Instrumented dispatches (clock {{ns|ticks}}; 1 site, 98 workgroups in 1 call):
// CHECK: {{^ +}}0{{ +}}1{{ +}}98{{ .*}}@f_dispatch_0::@f_dispatch_0 ({{.*}}instrument_dispatches.mlir:{{[0-9]+}}:8)
// CHECK-NOT: Dropped

// 1 KiB holds 31 records: the last 31 of 98 stay, and the figures are lower
// bounds (the call counts only if its workgroup (0,0,0) is among them).
// SMALL: 1 site, 31 workgroups in {{0 calls|1 call}}; lower bounds: records were dropped):
// SMALL: Dropped records: 67 ({{.*}}the figures cover the 31 kept, so they are lower bounds

func.func @f(%a: tensor<100000xf32>, %b: tensor<100000xf32>) -> tensor<100000xf32> {
  %0 = arith.addf %a, %b : tensor<100000xf32>
  %1 = arith.mulf %0, %b : tensor<100000xf32>
  return %1 : tensor<100000xf32>
}
