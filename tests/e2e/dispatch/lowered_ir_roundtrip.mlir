// The host-level IR (after the last host pass, --kiln-hal-memoize-command-buffers,
// as MLIR's --mlir-print-ir-after prints it) is itself a valid program: the
// lowered blocks_and_calls.mlir (typed hal ops on buffers and command buffers,
// the executable with each serialized variant -- CPU, CUDA, Vulkan -- as a
// hal.executable.binary, the device and executable globals and their
// initializer) compiles again, to the same module byte for byte (with its
// source locations, printed by --mlir-print-debuginfo), and computes the same
// results on every device.
// RUN: %kiln-compile %S/blocks_and_calls.mlir --target=%kiln_targets --object-search-path=%e2e_kernels_dir --mlir-print-ir-after=kiln-hal-memoize-command-buffers --mlir-print-debuginfo -o %t.kmod 2> %t.lowered.mlir
// RUN: FileCheck %s --check-prefix=LOWERED < %t.lowered.mlir
// RUN: %kiln-compile %t.lowered.mlir -o %t.again.kmod
// RUN: cmp %t.kmod %t.again.kmod
// RUN: %kiln-run-module --device=%device --module=%t.again.kmod --function=chain --input="3xf32=1 2 3" --input="3xf32=4 5 6" --input=1 | FileCheck %s
// RUN: %kiln-run-module --device=%device --module=%t.again.kmod --function=chain --input="3xf32=1 2 3" --input="3xf32=4 5 6" --input=0 | FileCheck %s --check-prefix=ADD
// RUN: %kiln-run-module --device=%device --module=%t.again.kmod --function=rows --input=8xf32=2 --input=8xf32=3 | FileCheck %s --check-prefix=ROWS
// CHECK: EXEC @chain
// CHECK-NEXT: result[0]: hal.buffer_view
// CHECK-NEXT: 3xf32=4 20 54
// ADD: 3xf32=5 14 27
// ROWS: 2x4xf32=[6 6 6 6][6 6 6 6]

// LOWERED:     IR Dump After {{.*}}(kiln-hal-memoize-command-buffers)
// LOWERED:     hal.executable private @executable {
// LOWERED-DAG:   hal.executable.binary public @system_elf_x86_64 attributes {data = dense<
// LOWERED-DAG:   hal.executable.export public @simple_mul ordinal(0)
// LOWERED:     func.func @chain(%arg0: !hal.buffer_view
// LOWERED-SAME:  -> !hal.buffer_view attributes {kiln.abi_type = (tensor<?xf32>, tensor<?xf32>, i1) -> tensor<?xf32>
// LOWERED:       hal.command_buffer.dispatch<
// LOWERED:       hal.device.queue.execute<
// LOWERED-NOT:   flow.dispatch
// LOWERED:     util.global private @__hal_device : !hal.device
// LOWERED:     util.global private @__hal_executable_executable : !hal.executable
// LOWERED:     util.initializer {
