#include "hal/cuda/cuda_executable.h"

#include <charconv>

#include "flatbuffers/flatbuffers.h"
#include "hal/cuda/cublaslt_matmul.h"
#include "hal/cuda/cudnn_convolution.h"
#include "schemas/executable_cuda_generated.h"

namespace kiln::hal::cuda {

namespace fb = ::kiln::schema::cuda;
namespace lib = ::kiln::schema::library;

CudaModule::~CudaModule() {
  if (context_->MakeCurrent().ok()) context_->symbols().cuModuleUnload(module_);
}

Result<Ref<CudaModule>> CudaModuleCache::Load(const std::string& ptx, const std::string& where) {
  std::lock_guard<std::mutex> lock(mutex_);
  auto it = modules_.find(ptx);
  if (it != modules_.end()) return it->second;
  KILN_RETURN_IF_ERROR(context_->health());
  KILN_RETURN_IF_ERROR(context_->MakeCurrent());
  // The JIT writes its diagnostics into these buffers.
  std::string error_log(16384, '\0');
  std::string info_log(4096, '\0');
  CUjit_option options[] = {CU_JIT_ERROR_LOG_BUFFER, CU_JIT_ERROR_LOG_BUFFER_SIZE_BYTES,
                            CU_JIT_INFO_LOG_BUFFER, CU_JIT_INFO_LOG_BUFFER_SIZE_BYTES};
  void* values[] = {error_log.data(), reinterpret_cast<void*>(uintptr_t{error_log.size()}),
                    info_log.data(), reinterpret_cast<void*>(uintptr_t{info_log.size()})};
  CUmodule module = nullptr;
  CUresult result =
      context_->symbols().cuModuleLoadDataEx(&module, ptx.c_str(), 4, options, values);
  if (result != CUDA_SUCCESS) {
    error_log.resize(std::strlen(error_log.c_str()));
    while (!error_log.empty() && (error_log.back() == '\n' || error_log.back() == ' ')) {
      error_log.pop_back();
    }
    Status status = context_->Check(result, where + ": cuModuleLoadDataEx");
    if (error_log.empty()) return status;
    return Status(status.code(), status.message() + "; JIT log: " + error_log);
  }
  Ref<CudaModule> loaded = MakeRef<CudaModule>(context_, module);
  modules_.emplace(ptx, loaded);
  return loaded;
}

size_t CudaModuleCache::size() const {
  std::lock_guard<std::mutex> lock(mutex_);
  return modules_.size();
}

std::optional<TargetArch> ParseTargetArch(std::string_view arch) {
  if (arch.size() < 4 || arch.substr(0, 3) != "sm_") return std::nullopt;
  TargetArch parsed;
  const char* begin = arch.data() + 3;
  const char* end = arch.data() + arch.size();
  auto [next, error] = std::from_chars(begin, end, parsed.capability);
  if (error != std::errc() || next == begin || parsed.capability <= 0) return std::nullopt;
  if (next != end) {
    if (next + 1 != end || (*next != 'a' && *next != 'f')) return std::nullopt;
    parsed.arch_specific = true;
  }
  return parsed;
}

Result<size_t> SelectImage(std::span<const std::string> archs, int capability) {
  std::optional<size_t> best;
  int best_capability = 0;
  std::string listed;
  for (size_t i = 0; i < archs.size(); ++i) {
    listed += (i ? ", " : "") + archs[i];
    std::optional<TargetArch> arch = ParseTargetArch(archs[i]);
    if (!arch) continue;
    const bool runs =
        arch->arch_specific ? arch->capability == capability : arch->capability <= capability;
    // Prefer the newest architecture that runs; among equals, the generic one
    // listed first.
    if (runs && (!best || arch->capability > best_capability)) {
      best = i;
      best_capability = arch->capability;
    }
  }
  if (best) return *best;
  const std::string device_arch = "sm_" + std::to_string(capability);
  return InvalidArgumentError("no PTX image runs on this " + device_arch + " device (images: " +
                              (listed.empty() ? std::string("none") : listed) +
                              "); PTX built for a newer architecture cannot be JIT-compiled for "
                              "an older one: build the PTX for " +
                              device_arch + " or older");
}

namespace {

// The LibraryCall of export `e`: null when it has none, or its library is
// disabled or missing here. INVALID_ARGUMENT from the library's Create is a
// malformed call (a load error); any other failure (the library could not
// make its descriptors) leaves the export to its kernel, which computes the
// same thing.
Result<std::unique_ptr<LibraryCall>> CreateLibraryCall(const fb::Export& e,
                                                       const ExecutableExport& info,
                                                       const CudaLibraries& libraries,
                                                       const std::string& where) {
  const lib::LibraryCall* call = e.library_call();
  if (call == nullptr) return std::unique_ptr<LibraryCall>();
  const std::string call_where = where + " library_call";
  // Checked even where calls are off, so a module loads (or not) the same
  // way everywhere.
  if ((call->matmul() != nullptr) == (call->convolution() != nullptr)) {
    return InvalidArgumentError(call_where + ": must hold exactly one of matmul and convolution (" +
                                (call->matmul() ? "it has both" : "it has neither") + ")");
  }
  // cuDNN's convolutions read and write NCHW: an operand in the cpu
  // driver's blocked layout (library_call.fbs) would compute garbage.
  if (const lib::ConvolutionCall* convolution = call->convolution()) {
    const std::pair<const char*, bool> layouts[] = {{"x", convolution->x_blocked()},
                                                    {"y", convolution->y_blocked()},
                                                    {"z", convolution->z_blocked()}};
    for (const auto& [operand, blocked] : layouts) {
      if (!blocked) continue;
      return InvalidArgumentError(
          call_where + ".convolution: " + operand + " is in the blocked layout (" + operand +
          "_blocked), which only the cpu driver's oneDNN calls read; cuDNN's take NCHW "
          "(kiln-compile marks blocked layouts only where cuda is not a target)");
    }
  }
  if (!libraries.enabled()) return std::unique_ptr<LibraryCall>();
  Result<std::unique_ptr<LibraryCall>> created = std::unique_ptr<LibraryCall>();
  if (call->matmul() != nullptr) {
    const Result<Ref<CublasLtLibrary>>& library = libraries.cublaslt();
    if (!library.ok()) return std::unique_ptr<LibraryCall>();
    created = CreateCublasLtMatmul(*library, *call->matmul(), info, call_where + ".matmul");
  } else {
    const Result<Ref<CudnnLibrary>>& library = libraries.cudnn();
    if (!library.ok()) return std::unique_ptr<LibraryCall>();
    created =
        CreateCudnnConvolution(*library, *call->convolution(), info, call_where + ".convolution");
  }
  if (created.ok() || created.status().code() == StatusCode::kInvalidArgument) return created;
  return std::unique_ptr<LibraryCall>();
}

}  // namespace

Result<Ref<CudaExecutable>> CudaExecutable::Load(Ref<CudaContext> context, CudaModuleCache& cache,
                                                 const CudaLibraries& libraries,
                                                 std::span<const uint8_t> bytes) {
  const std::string where = "cuda-nvptx-fb executable";
  flatbuffers::Verifier verifier(bytes.data(), bytes.size());
  if (bytes.size() < 8 || !fb::CudaExecutableBufferHasIdentifier(bytes.data()) ||
      !fb::VerifyCudaExecutableBuffer(verifier)) {
    return InvalidArgumentError(where + ": not a valid CUDA executable FlatBuffer (identifier " +
                                std::string(fb::CudaExecutableIdentifier()) + ")");
  }
  const fb::CudaExecutable* flat = fb::GetCudaExecutable(bytes.data());
  if (!flat->images() || flat->images()->size() == 0) {
    return InvalidArgumentError(where + " has no PTX image");
  }
  std::vector<std::string> archs;
  for (const fb::PtxImage* image : *flat->images()) {
    archs.push_back(image->target_arch() ? image->target_arch()->str() : std::string());
  }
  KILN_ASSIGN_OR_RETURN(size_t chosen, SelectImage(archs, context->compute_capability()));
  const fb::PtxImage* image = flat->images()->Get(static_cast<flatbuffers::uoffset_t>(chosen));
  if (!image->ptx() || image->ptx()->size() == 0) {
    return InvalidArgumentError(where + ": image " + archs[chosen] + " has no PTX");
  }

  std::vector<ExecutableExport> exports;
  std::vector<std::string> kernel_names;
  std::vector<uint32_t> shared_memory;
  if (flat->exports()) {
    for (const fb::Export* e : *flat->exports()) {
      ExecutableExport info;
      info.name = e->name() ? e->name()->str() : std::string();
      if (const fb::BlockSize* block = e->block_size()) {
        info.workgroup_size = {block->x(), block->y(), block->z()};
      }
      info.layout.constant_count = e->constant_count();
      if (e->bindings()) {
        for (const fb::Binding* binding : *e->bindings()) {
          info.layout.bindings.push_back(
              {DescriptorType::kStorageBuffer, binding != nullptr && binding->read_only()});
        }
      }
      kernel_names.push_back(
          e->kernel_name() && e->kernel_name()->size() > 0 ? e->kernel_name()->str() : info.name);
      shared_memory.push_back(e->shared_memory_bytes());
      exports.push_back(std::move(info));
    }
  }
  KILN_RETURN_IF_ERROR(ValidateExports("cuda-nvptx-fb", exports));

  KILN_ASSIGN_OR_RETURN(Ref<CudaModule> module,
                        cache.Load(image->ptx()->str(), where + " image " + archs[chosen]));
  Ref<CudaExecutable> executable =
      Ref<CudaExecutable>::Adopt(new CudaExecutable(std::move(exports), context));
  executable->module_ = std::move(module);
  executable->target_arch_ = archs[chosen];
  const CudaSymbols& s = context->symbols();
  for (size_t i = 0; i < executable->exports().size(); ++i) {
    const ExecutableExport& info = executable->exports()[i];
    const std::string export_where =
        where + " export '" + info.name + "' (kernel '" + kernel_names[i] + "')";
    CudaKernel kernel;
    kernel.shared_memory_bytes = shared_memory[i];
    CUresult found = s.cuModuleGetFunction(&kernel.function, executable->module_->module(),
                                           kernel_names[i].c_str());
    if (found == CUDA_ERROR_NOT_FOUND) {
      return NotFoundError(export_where + ": the PTX (" + archs[chosen] + ") has no kernel '" +
                           kernel_names[i] + "'");
    }
    KILN_RETURN_IF_ERROR(context->Check(found, export_where + ": cuModuleGetFunction"));
    int max_threads = 0;
    KILN_RETURN_IF_ERROR(
        context->Check(s.cuFuncGetAttribute(&max_threads, CU_FUNC_ATTRIBUTE_MAX_THREADS_PER_BLOCK,
                                            kernel.function),
                       export_where + ": cuFuncGetAttribute"));
    const uint64_t threads =
        uint64_t{info.workgroup_size[0]} * info.workgroup_size[1] * info.workgroup_size[2];
    if (threads > static_cast<uint64_t>(max_threads)) {
      return InvalidArgumentError(
          export_where + ": workgroup size [" + std::to_string(info.workgroup_size[0]) + ", " +
          std::to_string(info.workgroup_size[1]) + ", " + std::to_string(info.workgroup_size[2]) +
          "] is " + std::to_string(threads) + " threads per block, more than the " +
          std::to_string(max_threads) + " this kernel allows on this device");
    }
    if (kernel.shared_memory_bytes >
        static_cast<uint32_t>(context->max_shared_memory_per_block_optin())) {
      return InvalidArgumentError(export_where + ": " + std::to_string(kernel.shared_memory_bytes) +
                                  " bytes of dynamic shared memory exceed the device's " +
                                  std::to_string(context->max_shared_memory_per_block_optin()));
    }
    if (kernel.shared_memory_bytes > 48 * 1024) {
      // Above 48 KiB a kernel must opt in.
      KILN_RETURN_IF_ERROR(context->Check(
          s.cuFuncSetAttribute(kernel.function, CU_FUNC_ATTRIBUTE_MAX_DYNAMIC_SHARED_SIZE_BYTES,
                               static_cast<int>(kernel.shared_memory_bytes)),
          export_where + ": cuFuncSetAttribute"));
    }
    executable->kernels_.push_back(kernel);
    KILN_ASSIGN_OR_RETURN(
        std::unique_ptr<LibraryCall> call,
        CreateLibraryCall(*flat->exports()->Get(static_cast<flatbuffers::uoffset_t>(i)), info,
                          libraries, where + " export '" + info.name + "'"));
    executable->library_calls_.push_back(std::move(call));
  }
  return executable;
}

}  // namespace kiln::hal::cuda
