// kiln-compile --instrument-dispatches[=SIZE]: every generated kernel
// records one entry per workgroup into a ring of SIZE bytes
// (compiler/dispatch/instrument_dispatches.cc). SIZE takes a k or m suffix
// (KiB, MiB), is 1 MiB without a value, and must leave room for the 32-byte
// header and one 32-byte record in a multiple of 32.
// RUN: not %kiln-compile %s --instrument-dispatches=48 -o %t.kmod 2>&1 | FileCheck %s --check-prefix=SMALL
// RUN: not %kiln-compile %s --instrument-dispatches=100 -o %t.kmod 2>&1 | FileCheck %s --check-prefix=UNALIGNED
// RUN: not %kiln-compile %s --instrument-dispatches=1x -o %t.kmod 2>&1 | FileCheck %s --check-prefix=SYNTAX
// RUN: %kiln-compile --help | FileCheck %s --check-prefix=HELP
// SMALL: kiln-compile: error: --instrument-dispatches=48 is 48 bytes; the ring needs at least 64 bytes and a multiple of 32
// UNALIGNED: kiln-compile: error: --instrument-dispatches=100 is 100 bytes; the ring needs at least 64 bytes and a multiple of 32
// SYNTAX: kiln-compile: error: --instrument-dispatches=1x: expected a size in bytes, optionally with a k or m suffix (KiB, MiB)
// HELP: --instrument-dispatches[=<SIZE>]

// CUDA: the kernel takes the ring as its last pointer and the site id as its
// last 32-bit parameter (after the two dimensions); the PTX reads
// %globaltimer at entry; at the end every thread meets at bar.sync, then
// only thread 0 reads the clock again and claims a slot with an atomic add
// on the ring's `next`, and, when the capacity (the header's word 1) is not
// 0, stores the record 32 bytes past the header.
// RUN: %kiln-compile --iree-hal-target-backends=cuda --instrument-dispatches=64k %s -o %t.cuda.kmod
// RUN: FileCheck %s --check-prefix=PTX --input-file=%t.cuda.kmod
// PTX:      .entry scale_dispatch_0(
// PTX-NEXT:   .param .u64 .ptr .align 1 scale_dispatch_0_param_0,
// PTX-NEXT:   .param .u64 .ptr .align 1 scale_dispatch_0_param_1,
// PTX-NEXT:   .param .u64 .ptr .align 1 scale_dispatch_0_param_2,
// PTX-NEXT:   .param .u64 .ptr .align 1 scale_dispatch_0_param_3,
// PTX-NEXT:   .param .u32 scale_dispatch_0_param_4,
// PTX-NEXT:   .param .u32 scale_dispatch_0_param_5,
// PTX-NEXT:   .param .u32 scale_dispatch_0_param_6
// PTX-NEXT: )
// PTX:        mov.u64 {{.*}}, %globaltimer;
// PTX:        bar.sync 0;
// PTX-NEXT:   setp.ne.b32 %[[NOT_LEADER:p[0-9]+]], %{{r[0-9]+}}, 0;
// PTX-NEXT:   @%[[NOT_LEADER]] bra
// PTX-NEXT:   mov.u64 {{.*}}, %globaltimer;
// PTX-NEXT:   atom.global.add.u32 %{{r[0-9]+}}, [%[[RING:rd[0-9]+]]], 1;
// PTX-NEXT:   ld.global.b32 %{{r[0-9]+}}, [%[[RING]]+4];
// PTX:        st.global.b32 [%{{rd[0-9]+}}+32],

// cpu: the shared object imports clock_gettime (allowed by the linker step)
// for hal.interface.timestamp.
// RUN: %kiln-compile --iree-hal-target-backends=llvm-cpu --instrument-dispatches %s -o %t.cpu.kmod
// RUN: FileCheck %s --check-prefix=ELF --input-file=%t.cpu.kmod
// ELF: clock_gettime

// Vulkan: the device clock is OpReadClockKHR, patched into the serialized
// SPIR-V with its capability and extension (the extension's name is in the
// module's bytes).
// RUN: %kiln-compile --iree-hal-target-backends=vulkan-spirv --instrument-dispatches %s -o %t.vk.kmod
// RUN: FileCheck %s --check-prefix=SPIRV --input-file=%t.vk.kmod
// SPIRV: SPV_KHR_shader_clock

// Without --instrument-dispatches nothing of it is left: the same kernels
// read no clock and claim no slot, and take no ring and no site id (three
// pointers and the two dimensions), while each pattern matches the
// instrumented modules above. (tests/e2e/dispatch/
// uninstrumented_pays_nothing.mlir checks the module's layouts, imports,
// site table and run time on every device.)
// RUN: %kiln-compile --iree-hal-target-backends=cuda %s -o %t.cuda.plain.kmod
// RUN: FileCheck %s --check-prefix=PLAIN-PTX --input-file=%t.cuda.plain.kmod
// PLAIN-PTX-NOT: %globaltimer
// PLAIN-PTX-NOT: bar.sync
// PLAIN-PTX-NOT: atom.global.add
// PLAIN-PTX:      .entry scale_dispatch_0(
// PLAIN-PTX-NEXT:   .param .u64 .ptr .align 1 scale_dispatch_0_param_0,
// PLAIN-PTX-NEXT:   .param .u64 .ptr .align 1 scale_dispatch_0_param_1,
// PLAIN-PTX-NEXT:   .param .u64 .ptr .align 1 scale_dispatch_0_param_2,
// PLAIN-PTX-NEXT:   .param .u32 scale_dispatch_0_param_3,
// PLAIN-PTX-NEXT:   .param .u32 scale_dispatch_0_param_4
// PLAIN-PTX-NEXT: )
// PLAIN-PTX-NOT: %globaltimer
// PLAIN-PTX-NOT: bar.sync
// PLAIN-PTX-NOT: atom.global.add
// RUN: %kiln-compile --iree-hal-target-backends=llvm-cpu %s -o %t.cpu.plain.kmod
// RUN: FileCheck %s --check-prefix=PLAIN-ELF --input-file=%t.cpu.plain.kmod
// PLAIN-ELF-NOT: clock_gettime
// RUN: %kiln-compile --iree-hal-target-backends=vulkan-spirv %s -o %t.vk.plain.kmod
// RUN: FileCheck %s --check-prefix=PLAIN-SPIRV --input-file=%t.vk.plain.kmod
// PLAIN-SPIRV-NOT: SPV_KHR_shader_clock

func.func @scale(%a: tensor<?xf32>, %b: tensor<?xf32>) -> tensor<?xf32> {
  %0 = arith.mulf %a, %b : tensor<?xf32>
  return %0 : tensor<?xf32>
}
