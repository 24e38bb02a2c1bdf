// Emission: an allocated machine function into a vm::FunctionBuilder.
//
// Blocks are emitted in layout order, each ending in an explicit terminator
// (the verifier lets a block be entered only by a branch, so even a branch to
// the next block is written out). Block-argument passing becomes parallel
// copies (parallel_copy.h) after allocation has coalesced what it could:
//   * on a `br`, before the branch;
//   * on an edge of a multi-way terminator (cond_br, br.lt, for.step,
//     switch), before the terminator when that is safe — the copies write
//     nothing the terminator reads, nothing live into the other targets,
//     nothing the other edges read or write differently, and (for.step) read
//     nothing it defines — otherwise in an edge block placed after the
//     function's blocks, which copies and branches on to the target. An edge
//     leaving a loop always gets an edge block, so its copies do not run on
//     every iteration.
// for.step whose result did not get its induction variable's register is
// preceded by a mov into the result register.
#pragma once

#include <functional>

#include "base/status.h"
#include "compiler/codegen/liveness.h"
#include "compiler/codegen/machine_ir.h"
#include "compiler/codegen/register_allocation.h"
#include "vm/module_builder.h"

namespace kiln::compiler::codegen {

// `locate` is called with each instruction's source location before it is
// emitted (it sets the builder's location, or does nothing). `site`, when
// given, is called with (MInst::site, bytecode offset) for every call.import
// that carries a dispatch-site tag.
Status EmitFunction(const MFunction& mf, const ControlFlow& cfg, const Liveness& liveness,
                    const Allocation& allocation, vm::FunctionBuilder& builder,
                    const std::function<void(const Location&)>& locate,
                    const std::function<void(uint32_t site, uint32_t offset)>& site = {});

}  // namespace kiln::compiler::codegen
