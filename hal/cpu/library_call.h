// CpuLibraryCall: a library kernel (a oneDNN matmul or convolution) that an
// export of a "system-elf-*" executable runs instead of its own kernel
// (schemas/executable_elf.fbs, `library_call`; schemas/library_call.fbs).
//
// The compiler attaches a call to an export whose generated kernel computes
// exactly what the library computes; the kernel stays in the executable as
// the fallback. When the executable is loaded, each export's call is
// validated against the export's layout (library_call_spec.h: a malformed
// call is a load error, whether or not the library is here) and made into a
// CpuLibraryCall if oneDNN is present and enabled on the device
// (cpu_libraries.h); otherwise the export runs its kernel.
//
// A dispatch of such an export is an ordinary dispatch command: same
// bindings, constants and validation, plus the bytes the call reads and
// writes (RequiredBytes), checked against each binding's range. The CPU
// command buffer runs the call ONCE per dispatch, on the executing thread,
// instead of distributing workgroups over the device's thread pool: the
// library parallelizes the call itself (oneDNN's OpenMP threads, as many as
// the device has workers).
#pragma once

#include <cstddef>
#include <cstdint>
#include <span>
#include <string>

#include "base/result.h"

namespace kiln::hal::cpu {

class CpuLibraryCall {
 public:
  virtual ~CpuLibraryCall() = default;

  // "oneDNN matmul 256x1024x1024 f32 +bias relu (gemm:jit)": traces and
  // errors.
  virtual const std::string& description() const = 0;

  // The bytes binding `binding` must hold from its offset for the call (0
  // for a binding the call does not read or write).
  virtual uint64_t RequiredBytes(uint32_t binding) const = 0;

  // Runs the call and returns when it has finished. `bindings[i]` is the
  // host address of binding i (its offset applied), `lengths[i]` its
  // range's length, at least RequiredBytes(i) (the caller checks).
  // Thread-safe: executions of one call are serialized.
  virtual Status Execute(std::span<void* const> bindings,
                         std::span<const size_t> lengths) const = 0;
};

}  // namespace kiln::hal::cpu
