// NcclSymbols: the NCCL entry points kiln uses, resolved at run time from
// libnccl.so.2.
//
// kiln never links NCCL (DESIGN.md, principle 5): a binary built with the
// toolkit's nccl.h starts on a machine without it, where creating a CUDA
// channel (CudaDevice::CreateChannel) is then UNAVAILABLE with the reason
// and --list_devices says NCCL was not found. nccl.h is used at build time
// only, for types and prototypes; each member has exactly the type of the
// function the header declares.
//
// kiln needs NCCL 2.18 or newer: ncclCommSplit (Channel::Split) appeared in
// 2.18. Every entry point below exists, with the same signature, in every
// release since; kiln passes no ncclConfig_t (whose layout grows with the
// release), so a library older than the headers works.
#pragma once

#include <nccl.h>

#include <string>
#include <string_view>

#include "base/ref.h"
#include "base/result.h"

namespace kiln::hal::cuda {

// X(name): every NCCL function kiln calls, looked up by its own name.
#define KILN_NCCL_SYMBOLS(X) \
  X(ncclGetVersion)          \
  X(ncclGetUniqueId)         \
  X(ncclCommInitRank)        \
  X(ncclCommSplit)           \
  X(ncclCommDestroy)         \
  X(ncclCommAbort)           \
  X(ncclCommCount)           \
  X(ncclCommUserRank)        \
  X(ncclCommGetAsyncError)   \
  X(ncclGetErrorString)      \
  X(ncclGetLastError)        \
  X(ncclAllReduce)           \
  X(ncclAllGather)           \
  X(ncclReduceScatter)       \
  X(ncclSend)                \
  X(ncclRecv)                \
  X(ncclGroupStart)          \
  X(ncclGroupEnd)

class NcclSymbols : public RefObject {
 public:
  // The oldest NCCL kiln runs with (ncclCommSplit), as NCCL_VERSION codes.
  static constexpr int kMinimumMajor = 2;
  static constexpr int kMinimumMinor = 18;

  // Opens libnccl.so.2 (or `library_path`), resolves every symbol and checks
  // the version. UNAVAILABLE names what is wrong: the library (with
  // dlerror's text), a symbol, or a release older than 2.18 (both versions
  // in the message).
  static Result<Ref<NcclSymbols>> Load(const char* library_path = "libnccl.so.2");
  ~NcclSymbols() override;

  // "NCCL 2.28.3": the version of the library that was loaded (not of the
  // headers kiln was built with).
  std::string Describe() const;

  // What --list_devices says of NCCL: "collectives: NCCL 2.28.3", or
  // "collectives: NCCL not found (<the loader's error>)". The library, if
  // it opens, stays loaded.
  static std::string Probe();

  // OK for ncclSuccess; otherwise an error whose code follows the result
  // (INVALID_ARGUMENT for an invalid argument or usage, UNAVAILABLE for a
  // remote or system error: a peer or the network failed, INTERNAL
  // otherwise) and whose message is "<what>: <NCCL's error string>", with
  // NCCL's last error message for `comm` (may be null) when it has one.
  Status Check(ncclResult_t result, std::string_view what, ncclComm_t comm = nullptr) const;

#define KILN_NCCL_DECLARE_MEMBER(name) decltype(&::name) name = nullptr;
  KILN_NCCL_SYMBOLS(KILN_NCCL_DECLARE_MEMBER)
#undef KILN_NCCL_DECLARE_MEMBER

 private:
  NcclSymbols() = default;
  void* library_ = nullptr;
  int version_ = 0;  // ncclGetVersion's code.
};

// "2.28.3" for an ncclGetVersion code (both encodings NCCL has used: 2.8.4
// was 2804, 2.9.6 and later major * 10000 + minor * 100 + patch).
std::string FormatNcclVersion(int code);

}  // namespace kiln::hal::cuda
