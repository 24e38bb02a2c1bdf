// Dispatch instrumentation on the host (kiln-compile --instrument-dispatches;
// the ring's layout is hal/cpu/kernel_abi.h's, the kernels' side is
// compiler/dispatch/instrument_dispatches.cc): the names the host passes and
// the VM emitter share.
//
// An export whose layout is instrumented (compiler/dialects/hal/
// instrumented_layout.h) gets two extras from the host at every dispatch,
// which bufferize-dispatches appends: its site id as the last constant and
// the context's ring as the last binding,
//
//   util.global private @__hal_instrumentation_ring : !hal.buffer
//   (module initializer)
//   %ring = hal.device.instrumentation_ring<%device : !hal.device> bytes(%c1048576)
//       : !hal.buffer
//   util.global.store %ring, @__hal_instrumentation_ring : !hal.buffer
//   (each dispatch)
//   %ring = util.global.load immutable @__hal_instrumentation_ring : !hal.buffer
//   hal.command_buffer.dispatch<%cmd> ... constants([..., %c3_i32])
//       bindings([..., (%ring)[%c0, %c1048576]]) {dispatch = @ex::@f, kiln.dispatch_site_id = 3 :
//       i32}
//
// The ring is an immutable global: memoized command buffers record it as a
// fixed buffer (never a binding-table slot that changes), and scheduling does
// not order dispatches by it (each workgroup claims its own record
// atomically). The site id travels on the dispatch to the vm.call.import and
// into the module's dispatch-site table (DispatchSiteDescriptor.site_id), so
// that tools map records back to the dispatch in the source.
#pragma once

#include <cstdint>

#include "llvm/ADT/StringRef.h"

namespace kiln::compiler::host {

// The i32 site id of an instrumented dispatch: on flow.dispatch (set by
// kiln-instrument-dispatches, else numbered by bufferize-dispatches in
// program order), hal.command_buffer.dispatch and its vm.call.import.
inline constexpr llvm::StringLiteral kDispatchSiteIdAttrName = "kiln.dispatch_site_id";

// The module attribute (an integer, bytes) giving the ring's size; without
// it a module with instrumented exports gets kDefaultInstrumentRingBytes.
inline constexpr llvm::StringLiteral kInstrumentRingBytesAttrName = "kiln.instrument_ring_bytes";
inline constexpr uint64_t kDefaultInstrumentRingBytes = 1 << 20;

// The immutable !hal.buffer global holding the ring.
inline constexpr llvm::StringLiteral kInstrumentationRingGlobal = "__hal_instrumentation_ring";

}  // namespace kiln::compiler::host
