// Under an MPI launcher the tools need no collective flags: Open MPI's
// OMPI_COMM_WORLD_RANK/SIZE give the rank and the world size, and the
// rendezvous is a directory named after the job (tools/common/
// collective_flags.h). Every rank gets the same input, so the sum over 3
// ranks is 3x and the product x^3.
// REQUIRES: mpirun, ranks-3
// RUN: %kiln-compile %S/Inputs/collectives.mlir --iree-hal-target-backends=%target_backend -o %t.kmod
// RUN: mpirun --allow-run-as-root --oversubscribe -np 3 %kiln-run-module --device=%device --module=%t.kmod --function=channels | sort | FileCheck %s --check-prefix=CHANNELS
// RUN: mpirun --allow-run-as-root --oversubscribe -np 3 %kiln-run-module --device=%device --module=%t.kmod --function=reductions --input="4xf32=1 2 3 4" --input="4xi32=1 -2 3 -4" --expected_output="4xf32=3 6 9 12" --expected_output="4xf32=1 8 27 64" --expected_output="4xf32=1 2 3 4" --expected_output="4xf32=1 2 3 4" --expected_output="4xf32=1 2 3 4" --expected_output="4xi32=3 -6 9 -12" --expected_output="4xi32=1 -2 3 -4" | FileCheck %s --check-prefix=SUCCESS

// Each rank prints its rank and the count (the ranks' lines interleave in
// any order: sorted).
// CHANNELS-COUNT-3: EXEC @channels
// CHANNELS-NEXT: result[0]: i64=0
// CHANNELS-NEXT: result[0]: i64=1
// CHANNELS-NEXT: result[0]: i64=2
// CHANNELS-COUNT-3: result[1]: i64=3
// SUCCESS-COUNT-3: [SUCCESS]
