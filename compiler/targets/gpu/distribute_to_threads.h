// Distributing a workgroup's tile over its threads, for the GPU targets
// (vulkan now, cuda next).
//
//   --kiln-gpu-distribute-to-threads   contract kernels -> loops over threads
//
// The input is the contract form of generated kernels
// (compiler/dispatch/distribute_to_workgroups.cc): public `func.func`s that
// compute ONE workgroup's tile with linalg ops on memrefs of the bindings,
// each carrying `kiln.workgroup_size = array<i64: x, y, z>` (a kernel without
// it is treated as 128x1x1, the size --kiln-form-dispatches gives every
// export). The output has no linalg left: each linalg op becomes a loop that
// the workgroup's threads share, over scf/memref/affine/gpu ops; the
// hal.interface ops stay for the target to lower.
//
// Thread mapping. The parallel iterations of each linalg op are numbered
// row-major (the innermost parallel loop fastest) and dealt out cyclically:
//
//   %tid = gpu.thread_id x                  // linearized x + X*(y + Y*z)
//   scf.for %i = %tid to %total step %threads {
//     %p:2 = affine.delinearize_index %i into (%rows, %cols)
//     <the op on the 1x..x1 point %p, its reduction loops sequential>
//   }
//
// so consecutive threads touch consecutive elements of the innermost
// dimension (coalesced accesses where that is the contiguous dimension of
// the output). Each point is the op tiled to size 1 in the parallel dims
// (upstream TilingInterface) and lowered with upstream linalg-to-loops; a
// reduction dimension stays a sequential loop inside the thread, except in
// a reduction whose tile has fewer output points than threads (a row sum
// tiled a few rows per workgroup): there the threads share each point's
// reduction, strided partials combined as a tree in workgroup memory
// (cooperative_reduction.h).
//
// Dependences through memory. Ops of one kernel run one after the other, but
// their threads are not in lockstep: a thread may read an element another
// thread has not written yet. Before a linalg op that reads or writes a
// buffer an earlier op (since the last barrier) wrote, or writes one it read,
// a `gpu.barrier` is inserted (e.g. a linalg.fill of an accumulator, then
// the reduction into it). Buffers are compared by their root: the binding
// number of a hal.interface.binding.subspan or the memref.alloc, through
// subviews and casts; distinct bindings are assumed not to alias (the host
// never binds one buffer twice to a generated kernel).
//
// Intermediate buffers (a memref.alloc written by one op and read by the
// next) move to workgroup memory (#gpu.address_space<workgroup>), sized by
// the static upper bound of their dynamic sizes (the workgroup tile), with a
// subview of the actual size in place of the alloc, and the barrier above
// between producer and consumer. The alternative, keeping producer and
// consumer on the same iteration-to-thread mapping so that each thread only
// reads what it wrote into private memory, works only when the consumer
// reads the intermediate with the producer's indexing (no transpose,
// broadcast or reduction over it) and would give each thread a private copy
// of the whole tile; workgroup memory is correct for every access pattern
// and the barrier is cheap next to a dispatch. An alloc whose size has no
// static bound is an error. An alloc that is only written (dead) is erased
// with its writers.
//
// memref.copy ops become linalg copies first (upstream makeMemRefCopyOp), so
// they are distributed like the rest.
//
// The workgroup-level ops of instrumented kernels become thread-level ones:
// hal.interface.workgroup.barrier a gpu.barrier, and
// hal.interface.workgroup.leader "this thread's local id is (0, 0, 0)".
#pragma once

#include <array>
#include <cstdint>
#include <memory>

#include "mlir/IR/BuiltinOps.h"
#include "mlir/Pass/Pass.h"

namespace kiln::compiler::gpu {

// The workgroup size of a kernel: its `kiln.workgroup_size` attribute, or
// 128x1x1 without one.
std::array<int64_t, 3> KernelWorkgroupSize(mlir::Operation* kernel);

std::unique_ptr<mlir::Pass> createDistributeToThreadsPass();

// Registers --kiln-gpu-distribute-to-threads for kiln-opt and --pass-pipeline.
void registerDistributeToThreadsPass();

}  // namespace kiln::compiler::gpu
