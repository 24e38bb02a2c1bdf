// Every collective across a group of 2 processes on %device (one device
// each), through kiln-run-module's --rank/--world_size/--rendezvous as
// %run-ranks starts them; each rank gets its own inputs and expected
// outputs ({rank 0|rank 1}). The expected values were computed with numpy in
// f32 (sums in rank order). The program is Inputs/collectives.mlir.
// REQUIRES: ranks-2
// RUN: %kiln-compile %S/Inputs/collectives.mlir --iree-hal-target-backends=%target_backend -o %t.kmod
// RUN: %run-ranks -n 2 -- %kiln-run-module --device=%device --module=%t.kmod --function=channels --expected_output="{0|1}" --expected_output=2 | FileCheck %s
// RUN: %run-ranks -n 2 -- %kiln-run-module --device=%device --module=%t.kmod --function=reductions --input="4xf32={1 2 3 4|10 -20 0.5 8}" --input="4xi32={5 -7 100 0|1 1 -50 -1}" --expected_output="4xf32=11 -18 3.5 12" --expected_output="4xf32=10 -40 1.5 32" --expected_output="4xf32=1 -20 0.5 4" --expected_output="4xf32=10 2 3 8" --expected_output="4xf32=5.5 -9 1.75 6" --expected_output="4xi32=6 -6 50 -1" --expected_output="4xi32=5 1 100 0" | FileCheck %s
// The same over a tcp:// rendezvous (the CPU channel then meshes over TCP).
// RUN: %run-ranks -n 2 --tcp -- %kiln-run-module --device=%device --module=%t.kmod --function=reductions --input="4xf32={1 2 3 4|10 -20 0.5 8}" --input="4xi32={5 -7 100 0|1 1 -50 -1}" --expected_output="4xf32=11 -18 3.5 12" --expected_output="4xf32=10 -40 1.5 32" --expected_output="4xf32=1 -20 0.5 4" --expected_output="4xf32=10 2 3 8" --expected_output="4xf32=5.5 -9 1.75 6" --expected_output="4xi32=6 -6 50 -1" --expected_output="4xi32=5 1 100 0" | FileCheck %s
// RUN: %run-ranks -n 2 -- %kiln-run-module --device=%device --module=%t.kmod --function=reshuffles --input="2x3xf32={1 2 3 4 5 6|10 20 30 40 50 60}" --expected_output="4x3xf32=1 2 3 4 5 6 10 20 30 40 50 60" --expected_output="2x3xf32={2 4 6 8 10 12|20 40 60 80 100 120}" --expected_output="2x3xf32={2 4 6 20 40 60|8 10 12 80 100 120}" | FileCheck %s
// RUN: %run-ranks -n 2 -- %kiln-run-module --device=%device --module=%t.kmod --function=exchanges --input="5xi64={1 2 3 4 5|10 20 30 40 50}" --expected_output="5xi64={10 20 30 40 50|1 2 3 4 5}" --expected_output="5xi64={0 0 0 0 0|1 2 3 4 5}" | FileCheck %s
// RUN: %run-ranks -n 2 -- %kiln-run-module --device=%device --module=%t.kmod --function=split --input="3xi32={1 2 3|10 20 30}" --expected_output=0 --expected_output=1 --expected_output="3xi32={1 2 3|10 20 30}" | FileCheck %s
// RUN: %run-ranks -n 2 -- %kiln-run-module --device=%device --module=%t.kmod --function=twice --input="4xf32={1 2 3 4|0.5 0.25 -1 2}" --expected_output="4xf32={19 29 27 76|18.5 27.25 23 74}" | FileCheck %s

// CHECK: == rank 0: exit 0
// CHECK: [SUCCESS]
// CHECK: == rank 1: exit 0
// CHECK: [SUCCESS]
