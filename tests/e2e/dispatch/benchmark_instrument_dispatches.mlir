// kiln-benchmark-module --instrument_file on every device (kiln_e2e: cpu;
// kiln_e2e_vulkan; kiln_e2e_cuda, label gpu): the context makes its ring
// once and every call appends to it, so the file holds the records of every
// call the tool made, the one before timing and each timed call, exactly.
// With --iterations=4: 1 + 4 = 5 calls of the fused dispatch, each of 98
// workgroups (100000 elements, 1024 per workgroup): 490 records. With
// --benchmark_repetitions=2 (and --batch_size=2, which changes how the
// calls are grouped, not how many): 1 + 2 x 4 = 9 calls, 882 records. A
// 64 KiB ring holds 2047 records, so none is dropped.
//
// On cuda the function's memoized command buffer is a CUDA graph (graph mode
// is the default), instantiated once and launched at every call: each
// replay records its 98 workgroups. (tests/hal/cuda/
// cuda_instrumentation_test.cc checks the same in the driver, with the
// graph's instantiation count.)
// REQUIRES: kiln-benchmark-module
// RUN: %kiln-compile %s --iree-hal-target-backends=%target_backend --instrument-dispatches=64k -o %t.kmod
// RUN: %kiln-benchmark-module --device=%device --module=%t.kmod --function=f --input=100000xf32=1 --input=100000xf32=2 --iterations=4 --benchmark_format=json --instrument_file=%t.kins | FileCheck %s --check-prefix=BENCH
// RUN: %kiln-dump-instruments %t.kins | FileCheck %s
// RUN: %kiln-dump-instruments %t.kins --output=json | FileCheck %s --check-prefix=JSON
// RUN: %kiln-benchmark-module --device=%device --module=%t.kmod --function=f --input=100000xf32=1 --input=100000xf32=2 --iterations=4 --batch_size=2 --benchmark_repetitions=2 --benchmark_format=json --instrument_file=%t.repeated.kins | FileCheck %s --check-prefix=REPEATED-BENCH
// RUN: %kiln-dump-instruments %t.repeated.kins | FileCheck %s --check-prefix=REPEATED

// BENCH: "name": "BM_f/iterations:4/process_time/real_time",
// BENCH: "iterations": 4,

// CHECK: Instrumented dispatches (clock {{ns|ticks}}; 1 site, 490 workgroups in 5 calls):
// CHECK-NEXT: site calls workgroups
// CHECK-NEXT: {{^ +}}0{{ +}}5{{ +}}490{{ .*}}@f_dispatch_0::@f_dispatch_0 ({{.*}}benchmark_instrument_dispatches.mlir:{{[0-9]+}}:8)
// CHECK-NOT: Dropped

// JSON: "tool": "kiln-benchmark-module",
// JSON: "records": 490,
// JSON-NEXT: "dropped": 0,
// JSON: "site_id": 0,
// JSON: "calls": 5,
// JSON-NEXT: "workgroups": 490,

// Two repetitions of 4 timed calls each; the aggregates count repetitions.
// REPEATED-BENCH-COUNT-2: "iterations": 4,
// REPEATED-BENCH-NOT: "iterations": 4,

// REPEATED: Instrumented dispatches (clock {{ns|ticks}}; 1 site, 882 workgroups in 9 calls):
// REPEATED-NEXT: site calls workgroups
// REPEATED-NEXT: {{^ +}}0{{ +}}9{{ +}}882{{ }}
// REPEATED-NOT: Dropped

func.func @f(%a: tensor<100000xf32>, %b: tensor<100000xf32>) -> tensor<100000xf32> {
  %0 = arith.addf %a, %b : tensor<100000xf32>
  %1 = arith.mulf %0, %b : tensor<100000xf32>
  return %1 : tensor<100000xf32>
}
