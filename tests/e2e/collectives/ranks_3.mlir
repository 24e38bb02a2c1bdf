// Every collective across a group of 3 processes on %device (one device
// each): ranks_2.mlir's functions with a third rank, where the ring, the
// split by parity (ranks 0 and 2 together, ordered by descending rank) and
// all_to_all's chunks of 2 differ from two ranks. Expected values computed
// with numpy in f32 (sums in rank order).
// REQUIRES: ranks-3
// RUN: %kiln-compile %S/Inputs/collectives.mlir --iree-hal-target-backends=%target_backend -o %t.kmod
// RUN: %run-ranks -n 3 -- %kiln-run-module --device=%device --module=%t.kmod --function=channels --expected_output="{0|1|2}" --expected_output=3 | FileCheck %s
// RUN: %run-ranks -n 3 -- %kiln-run-module --device=%device --module=%t.kmod --function=reductions --input="4xf32={1 2 3 4|10 -20 0.5 8|-4 6 2 0.25}" --input="4xi32={5 -7 100 0|1 1 -50 -1|2 3 4 5}" --expected_output="4xf32=7 -12 5.5 12.25" --expected_output="4xf32=-40 -240 3 8" --expected_output="4xf32=-4 -20 0.5 0.25" --expected_output="4xf32=10 6 3 8" --expected_output="4xf32=2.333333 -4 1.833333 4.083333" --expected_output="4xi32=8 -3 54 4" --expected_output="4xi32=5 3 100 5" | FileCheck %s
// RUN: %run-ranks -n 3 -- %kiln-run-module --device=%device --module=%t.kmod --function=reshuffles --input="2x3xf32={1 2 3 4 5 6|10 20 30 40 50 60|-1 -2 -3 -4 -5 -6}" --expected_output="6x3xf32=1 2 3 4 5 6 10 20 30 40 50 60 -1 -2 -3 -4 -5 -6" --expected_output="2x3xf32={3 6 9 12 15 18|30 60 90 120 150 180|-3 -6 -9 -12 -15 -18}" --expected_output="2x3xf32={3 6 30 60 -3 -6|9 12 90 120 -9 -12|15 18 150 180 -15 -18}" | FileCheck %s
// RUN: %run-ranks -n 3 -- %kiln-run-module --device=%device --module=%t.kmod --function=exchanges --input="5xi64={1 2 3 4 5|10 20 30 40 50|-1 -2 -3 -4 -5}" --expected_output="5xi64={-1 -2 -3 -4 -5|1 2 3 4 5|10 20 30 40 50}" --expected_output="5xi64={0 0 0 0 0|0 0 0 0 0|1 2 3 4 5}" | FileCheck %s
// RUN: %run-ranks -n 3 -- %kiln-run-module --device=%device --module=%t.kmod --function=split --input="3xi32={1 2 3|10 20 30|100 200 300}" --expected_output="{1|0|0}" --expected_output="{2|1|2}" --expected_output="3xi32={101 202 303|10 20 30|101 202 303}" | FileCheck %s
// RUN: %run-ranks -n 3 -- %kiln-run-module --device=%device --module=%t.kmod --function=twice --input="4xf32={1 2 3 4|0.5 0.25 -1 2|3 0 1 -2}" --expected_output="4xf32={73 38 51 68|72.5 36.25 47 66|75 36 49 62}" | FileCheck %s

// CHECK: == rank 0: exit 0
// CHECK: [SUCCESS]
// CHECK: == rank 1: exit 0
// CHECK: [SUCCESS]
// CHECK: == rank 2: exit 0
// CHECK: [SUCCESS]
