// CpuLibraries: the library whose kernels one CPU device may run instead of
// an export's own (library_call.h): oneDNN (libdnnl.so.2) for matmuls and
// convolutions.
//
// oneDNN is opened for the device at the first executable that has a call,
// not when the device is created: a program without calls should not pay
// for loading it. A library that does not load (not installed, wrong
// version, kiln built without its headers) is never an error: its Result is
// kept, the exports run their kernels, and --list_devices shows the reason
// (Probe). `--cpu_library_calls=false` (CpuDeviceOptions::library_calls)
// turns every call off, so the exports run their kernels, for comparison.
#pragma once

#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <string_view>

#include "base/ref.h"
#include "base/result.h"
#include "hal/cpu/library_call.h"
#include "hal/executable.h"

// schemas/library_call_generated.h, which only the driver's sources include.
namespace kiln::schema::library {
struct LibraryCall;
}

namespace kiln::hal::cpu {

class OnednnLibrary;
class ThreadPool;

class CpuLibraries {
 public:
  // `thread_count`: the threads each call runs on (the device's workers).
  // `onednn_path`: the library to open (tests name an absent one).
  // `pool` (the device's, outliving this; null for a synchronous device):
  // once oneDNN is loaded on OpenMP, the pool runs its jobs on OpenMP's
  // threads too (ThreadPool::ShareOpenMpThreads says why).
  CpuLibraries(bool enabled, uint32_t thread_count, std::string onednn_path = "libdnnl.so.2",
               ThreadPool* pool = nullptr);
  ~CpuLibraries();

  bool enabled() const { return enabled_; }

  // The call export `info` describes with `call`: validated first, whether
  // or not calls are on (INVALID_ARGUMENT: a malformed call, a load error
  // that names `where` and the field); then null where calls are off,
  // oneDNN is missing, or it cannot run this call (f16, shapes it has no
  // implementation for): the export runs its kernel. A convolution with an
  // operand in the blocked layout (library_call.fbs) that oneDNN, loaded,
  // cannot make is FAILED_PRECONDITION instead: its kernel computes NCHW
  // while the calls around it run in oneDNN. Thread-safe.
  Result<std::unique_ptr<CpuLibraryCall>> CreateCall(const schema::library::LibraryCall& call,
                                                     const ExecutableExport& info,
                                                     std::string_view where) const;

  // What --list_devices says of a CPU device's library without creating the
  // device: "libraries: oneDNN 2.6.3", "oneDNN: not found (<the loader's
  // error>)", or that library calls are disabled.
  static std::string Probe(bool enabled);

 private:
  // oneDNN, loaded on first use; the reason it is unusable otherwise.
  const Result<Ref<OnednnLibrary>>& onednn() const;

  bool enabled_;
  uint32_t thread_count_;
  std::string onednn_path_;
  ThreadPool* pool_;
  mutable std::once_flag onednn_once_;
  mutable std::optional<Result<Ref<OnednnLibrary>>> onednn_;
};

}  // namespace kiln::hal::cpu
