// Instrumented pipeline layouts: the marker of a kernel that records one
// entry per workgroup into the dispatch instrumentation ring
// (hal/cpu/kernel_abi.h, kiln_hal_instrument_ring_header_t).
//
// An export's layout is instrumented when its LAST binding carries the
// `Instrumentation` flag:
//
//   #hal.pipeline.layout<constants = N + 1, bindings = [
//     ...the dispatch's own bindings...,
//     #hal.pipeline.binding<storage_buffer, Instrumentation>]>
//
// The host, not the dispatch's operands, supplies the two extras: the ring
// buffer as that last binding and the dispatch site id as the LAST constant
// (ordinal N). The layout verifier (hal_attrs.cc) allows the flag only on the
// last binding of a layout with at least one constant, so the test below
// needs to look at the last binding alone. Generated kernels get such a
// layout from kiln-instrument-dispatches; hand-written kernels opt in by
// declaring it.
#pragma once

#include <cstdint>

#include "compiler/dialects/hal/hal_dialect.h"

namespace kiln::compiler::HAL {

// True when `layout`'s last binding is the instrumentation ring.
bool IsInstrumentedLayout(PipelineLayoutAttr layout);

// `layout` with one more constant (the site id) and the ring appended as its
// last binding. `layout` must not be instrumented already.
PipelineLayoutAttr MakeInstrumentedLayout(PipelineLayoutAttr layout);

// The ordinal of the site id constant and of the ring binding of an
// instrumented layout.
int64_t InstrumentationSiteIdOrdinal(PipelineLayoutAttr layout);
int64_t InstrumentationRingBinding(PipelineLayoutAttr layout);

}  // namespace kiln::compiler::HAL
