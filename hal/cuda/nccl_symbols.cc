#include "hal/cuda/nccl_symbols.h"

#include "base/shared_library.h"

namespace kiln::hal::cuda {

namespace {

struct NcclVersion {
  int major = 0, minor = 0, patch = 0;
};

NcclVersion DecodeVersion(int code) {
  // NCCL_VERSION(X, Y, Z): X * 1000 + Y * 100 + Z up to 2.8, then
  // X * 10000 + Y * 100 + Z (minors past 9 did not fit).
  if (code < 10000) return {code / 1000, code / 100 % 10, code % 100};
  return {code / 10000, code / 100 % 100, code % 100};
}

}  // namespace

std::string FormatNcclVersion(int code) {
  const NcclVersion v = DecodeVersion(code);
  return std::to_string(v.major) + "." + std::to_string(v.minor) + "." + std::to_string(v.patch);
}

Result<Ref<NcclSymbols>> NcclSymbols::Load(const char* library_path) {
  Ref<NcclSymbols> symbols = Ref<NcclSymbols>::Adopt(new NcclSymbols());
  KILN_ASSIGN_OR_RETURN(
      void* library,
      OpenSharedLibrary(library_path, "the NCCL library",
                        "is NCCL 2 installed (libnccl2)? CUDA channels (collectives) need it"));
  // The version first: a release without ncclCommSplit is "too old", not
  // "missing a symbol".
  const SharedLibrarySymbol version[] = {
      {"ncclGetVersion", reinterpret_cast<void**>(&symbols->ncclGetVersion)}};
  KILN_RETURN_IF_ERROR(ResolveSharedLibrarySymbols(library, library_path, version));
  KILN_RETURN_IF_ERROR(symbols->Check(symbols->ncclGetVersion(&symbols->version_),
                                      std::string(library_path) + ": ncclGetVersion"));
  const NcclVersion loaded = DecodeVersion(symbols->version_);
  if (loaded.major < kMinimumMajor ||
      (loaded.major == kMinimumMajor && loaded.minor < kMinimumMinor)) {
    return UnavailableError(std::string(library_path) + " is NCCL " +
                            FormatNcclVersion(symbols->version_) +
                            ", which is too old: kiln needs " + std::to_string(kMinimumMajor) +
                            "." + std::to_string(kMinimumMinor) +
                            " or newer (ncclCommSplit), and was built with the headers of NCCL " +
                            std::to_string(NCCL_MAJOR) + "." + std::to_string(NCCL_MINOR) + "." +
                            std::to_string(NCCL_PATCH));
  }
  const SharedLibrarySymbol table[] = {
#define KILN_NCCL_SLOT(name) {#name, reinterpret_cast<void**>(&symbols->name)},
      KILN_NCCL_SYMBOLS(KILN_NCCL_SLOT)
#undef KILN_NCCL_SLOT
  };
  KILN_RETURN_IF_ERROR(ResolveSharedLibrarySymbols(library, library_path, table));
  symbols->library_ = library;
  return symbols;
}

NcclSymbols::~NcclSymbols() {
  // The library stays loaded, like libcuda: NCCL keeps threads (proxies,
  // bootstrap) and CUDA runtime state of its own for the process.
}

std::string NcclSymbols::Describe() const { return "NCCL " + FormatNcclVersion(version_); }

std::string NcclSymbols::Probe() {
  Result<Ref<NcclSymbols>> nccl = Load();
  if (nccl.ok()) return "collectives: " + (*nccl)->Describe();
  return "collectives: NCCL not found (" + nccl.status().message() + ")";
}

Status NcclSymbols::Check(ncclResult_t result, std::string_view what, ncclComm_t comm) const {
  if (result == ncclSuccess) return OkStatus();
  std::string message = std::string(what) + ": ";
  const char* text = ncclGetErrorString ? ncclGetErrorString(result) : nullptr;
  message += text ? text : "ncclResult_t " + std::to_string(static_cast<int>(result));
  // NCCL keeps a message of the latest failure (which argument, which peer);
  // a null communicator asks for the last one of the calling thread.
  const char* detail = ncclGetLastError ? ncclGetLastError(comm) : nullptr;
  if (detail != nullptr && detail[0] != '\0') message += std::string(" (") + detail + ")";
  switch (result) {
    case ncclInvalidArgument:
    case ncclInvalidUsage:
      return InvalidArgumentError(std::move(message));
    case ncclRemoteError:
    case ncclSystemError:
      return UnavailableError(std::move(message));
    default:
      return InternalError(std::move(message));
  }
}

}  // namespace kiln::hal::cuda
