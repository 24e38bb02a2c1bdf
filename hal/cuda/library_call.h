// LibraryCall: a library kernel (a cuBLASLt matmul, a cuDNN convolution) that
// an export of a "cuda-nvptx-fb" executable runs instead of its PTX kernel
// (schemas/executable_cuda.fbs, `library_call`).
//
// The compiler attaches a call to an export whose generated kernel computes
// exactly what the library computes (compiler/dispatch/library_calls.h);
// the kernel stays in the executable as the fallback. When the executable is
// loaded, each export's call is validated against the export's layout and
// made into a LibraryCall if its library is present and enabled on the
// device (CudaLibraries, cuda_libraries.h); otherwise the export runs its
// kernel, and `--list_devices` says which library was not found.
//
// A dispatch of such an export is an ordinary dispatch command: same
// bindings, constants and validation. The executors differ:
//
//   - Recording (End) plans each call once: the algorithm is chosen by the
//     library's heuristic for the call's shapes and pinned, and the
//     workspace it needs is allocated once and owned by the command buffer.
//   - The stream executor enqueues the call on the queue stream.
//   - The graph executor captures the call (stream capture on a stream the
//     command buffer owns) into a child graph node. When a binding's
//     address changes between submits, the child node is patched in place
//     (cuGraphExecChildGraphNodeSetParams) with the capture for the new
//     addresses: cached from an earlier submit (a few per call, least
//     recently used evicted), or captured now. The whole graph is rebuilt
//     only if CUDA refuses the patch.
//
// Every operand is dense and row-major from its binding's address (the
// dispatch's binding offset included); the bytes each binding must hold
// are checked like a kernel's before anything is enqueued.
#pragma once

#include <cuda.h>

#include <cstdint>
#include <memory>
#include <span>
#include <string>

#include "base/result.h"

namespace kiln::hal::cuda {

// What recording chose for one call: the library's algorithm, pinned, and
// the workspace bytes it needs. Opaque to the command buffer.
class LibraryCallPlan {
 public:
  virtual ~LibraryCallPlan() = default;
  virtual size_t workspace_bytes() const = 0;
};

class LibraryCall {
 public:
  virtual ~LibraryCall() = default;

  // "cublasLt matmul 256x1024x1024 f32 +bias relu": traces and errors.
  virtual const std::string& description() const = 0;

  // The bytes binding `binding` must hold from its offset for the call
  // (0 for a binding the call does not read or write).
  virtual uint64_t RequiredBytes(uint32_t binding) const = 0;

  // Chooses the algorithm (the library's heuristic for these shapes) and
  // sizes its workspace. Called once per dispatch when a command buffer
  // ends; the context is current.
  virtual Result<std::unique_ptr<LibraryCallPlan>> Plan() const = 0;

  // Enqueues the call on `stream` (the queue's, or a capturing one) with
  // `bindings[i]` the device address of binding i (its offset applied) and
  // `workspace` at least plan.workspace_bytes() bytes. Nothing here may
  // synchronize or allocate, so that it can be captured into a graph.
  virtual Status Enqueue(const LibraryCallPlan& plan, CUstream stream,
                         std::span<const CUdeviceptr> bindings, CUdeviceptr workspace) const = 0;
};

}  // namespace kiln::hal::cuda
