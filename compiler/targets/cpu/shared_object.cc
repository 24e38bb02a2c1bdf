// The LLVM-dialect module -> .so bytes path (shared_object.h).
#include "compiler/targets/cpu/shared_object.h"

#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstdio>
#include <cstring>
#include <memory>
#include <set>
#include <string_view>

#include "compiler/targets/llvm_optimization.h"
#include "compiler/targets/llvm_translation.h"
#include "lld/Common/Driver.h"
#include "llvm/ADT/ScopeExit.h"
#include "llvm/ADT/SmallString.h"
#include "llvm/ADT/StringExtras.h"
#include "llvm/IR/LLVMContext.h"
#include "llvm/IR/LegacyPassManager.h"
#include "llvm/IR/Module.h"
#include "llvm/MC/TargetRegistry.h"
#include "llvm/Object/ObjectFile.h"
#include "llvm/Passes/PassBuilder.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/MemoryBuffer.h"
#include "llvm/Support/Path.h"
#include "llvm/Support/TargetSelect.h"
#include "llvm/Support/raw_ostream.h"
#include "llvm/Target/TargetMachine.h"
#include "llvm/Target/TargetOptions.h"
#include "llvm/TargetParser/Host.h"
#include "llvm/TargetParser/Triple.h"

LLD_HAS_DRIVER(elf)

namespace kiln::compiler::cpu {
namespace {

constexpr std::string_view kTriple = "x86_64-unknown-linux-gnu";

// What a kernel may leave undefined: functions LLVM calls for math
// intrinsics it has no instruction for (llvm.exp -> expf, ...) and for the
// idioms it recognizes (a zeroing loop -> memset), plus the allocator that
// memref.alloc lowers to, and clock_gettime (hal.interface.timestamp of
// instrumented kernels). All are in every glibc process.
//
// Half-precision truncations where the host CPU has no instruction for them
// (double -> f16 without AVX512-FP16 is __truncdfhf2, rounding once) come
// from libgcc_s (GCC 12 and later), which every C++ process loads.
constexpr std::string_view kRuntimeBuiltins[] = {"__truncdfhf2", "__truncsfhf2"};
constexpr std::string_view kLibmFunctions[] = {
    "acos",     "acosh",  "asin", "asinh", "atan",      "atan2", "atanh", "cbrt",  "ceil",
    "copysign", "cos",    "cosh", "erf",   "erfc",      "exp",   "exp10", "exp2",  "expm1",
    "fabs",     "floor",  "fma",  "fmax",  "fmin",      "fmod",  "frexp", "ldexp", "log",
    "log10",    "log1p",  "log2", "modf",  "nearbyint", "pow",   "rint",  "round", "roundeven",
    "sin",      "sincos", "sinh", "sqrt",  "tan",       "tanh",  "trunc",
};
constexpr std::string_view kLibcFunctions[] = {
    "memcpy", "memmove", "memset", "malloc", "free", "aligned_alloc", "clock_gettime",
};

bool IsAllowedUndefinedSymbol(std::string_view name) {
  for (std::string_view function : kLibcFunctions) {
    if (name == function) return true;
  }
  for (std::string_view builtin : kRuntimeBuiltins) {
    if (name == builtin) return true;
  }
  for (std::string_view function : kLibmFunctions) {
    // The double version, or the float one with its `f` suffix.
    if (name == function || (name.ends_with('f') && name.substr(0, name.size() - 1) == function)) {
      return true;
    }
  }
  return false;
}

void InitializeX86Target() {
  static std::once_flag once;
  std::call_once(once, [] {
    LLVMInitializeX86TargetInfo();
    LLVMInitializeX86Target();
    LLVMInitializeX86TargetMC();
    LLVMInitializeX86AsmPrinter();
  });
}

bool HostIsX86_64() {
  return llvm::Triple(llvm::sys::getProcessTriple()).getArch() == llvm::Triple::x86_64;
}

Result<std::unique_ptr<llvm::TargetMachine>> CreateTargetMachine(
    const SharedObjectOptions& options) {
  InitializeX86Target();
  const llvm::Triple triple{llvm::StringRef(kTriple)};
  std::string error;
  const llvm::Target* target = llvm::TargetRegistry::lookupTarget(triple, error);
  if (!target) return InternalError("no LLVM target for " + triple.str() + ": " + error);

  std::string cpu = options.cpu;
  std::string features = options.features;
  if (cpu.empty()) {
    cpu = HostIsX86_64() ? llvm::sys::getHostCPUName().str() : "x86-64";
    if (features.empty() && HostIsX86_64()) {
      std::vector<std::string> host_features;
      for (const auto& feature : llvm::sys::getHostCPUFeatures()) {
        host_features.push_back((feature.second ? "+" : "-") + feature.first().str());
      }
      // StringMap order is unspecified; sorting keeps the output reproducible.
      std::sort(host_features.begin(), host_features.end());
      features = llvm::join(host_features, ",");
    }
  }
  llvm::TargetOptions target_options;
  // One section per function and object: --gc-sections can then drop
  // whatever no kernel reaches.
  target_options.FunctionSections = true;
  target_options.DataSections = true;
  std::unique_ptr<llvm::TargetMachine> machine(
      target->createTargetMachine(triple, cpu, features, target_options, llvm::Reloc::PIC_,
                                  llvm::CodeModel::Small, llvm::CodeGenOptLevel::Aggressive));
  if (!machine) {
    return InvalidArgumentError("cannot create an LLVM target machine for " + triple.str() +
                                " cpu '" + cpu + "' features '" + features + "'");
  }
  return machine;
}

// Definitions other than the exports become internal; declarations (the
// libm/libc functions) keep default visibility so the dynamic linker binds
// them.
Status RestrictExports(llvm::Module& module, const std::vector<std::string>& exported_symbols) {
  std::set<std::string, std::less<>> exports(exported_symbols.begin(), exported_symbols.end());
  if (exports.empty()) {
    for (const llvm::Function& function : module) {
      if (!function.isDeclaration() && function.hasExternalLinkage()) {
        exports.insert(function.getName().str());
      }
    }
  }
  for (const std::string& name : exports) {
    const llvm::Function* function = module.getFunction(name);
    if (!function || function->isDeclaration()) {
      return InvalidArgumentError("exported kernel '" + name + "' is not defined by the module");
    }
  }
  for (llvm::GlobalValue& value : module.global_values()) {
    if (value.isDeclaration()) continue;
    if (exports.count(value.getName())) {
      value.setLinkage(llvm::GlobalValue::ExternalLinkage);
      value.setVisibility(llvm::GlobalValue::DefaultVisibility);
    } else {
      value.setLinkage(llvm::GlobalValue::InternalLinkage);
    }
  }
  return OkStatus();
}

Result<std::vector<char>> EmitObject(llvm::Module& module, llvm::TargetMachine& machine) {
  llvm::SmallVector<char, 0> buffer;
  llvm::raw_svector_ostream stream(buffer);
  llvm::legacy::PassManager passes;
  if (machine.addPassesToEmitFile(passes, stream, nullptr, llvm::CodeGenFileType::ObjectFile)) {
    return InternalError("the x86-64 target cannot emit an object file");
  }
  passes.run(module);
  return std::vector<char>(buffer.begin(), buffer.end());
}

Status CheckUndefinedSymbols(const std::vector<char>& object_bytes) {
  llvm::MemoryBufferRef buffer(llvm::StringRef(object_bytes.data(), object_bytes.size()),
                               "kernels.o");
  auto object = llvm::object::ObjectFile::createObjectFile(buffer);
  if (!object) {
    return InternalError("cannot read back the emitted object: " +
                         llvm::toString(object.takeError()));
  }
  std::vector<std::string> disallowed;
  for (const llvm::object::SymbolRef& symbol : (*object)->symbols()) {
    auto flags = symbol.getFlags();
    if (!flags) return InternalError(llvm::toString(flags.takeError()));
    if (!(*flags & llvm::object::SymbolRef::SF_Undefined)) continue;
    auto name = symbol.getName();
    if (!name) return InternalError(llvm::toString(name.takeError()));
    if (name->empty() || IsAllowedUndefinedSymbol(*name)) continue;
    disallowed.push_back(name->str());
  }
  if (disallowed.empty()) return OkStatus();
  return InvalidArgumentError(
      "the kernels reference undefined symbols that the CPU runtime does "
      "not provide (only libm and memcpy/memset/malloc-style libc "
      "functions are allowed): " +
      llvm::join(disallowed, ", "));
}

Result<std::vector<uint8_t>> ReadFileBytes(const std::string& path) {
  auto buffer = llvm::MemoryBuffer::getFile(path, /*IsText=*/false,
                                            /*RequiresNullTerminator=*/false);
  if (!buffer) return InternalError("cannot read " + path + ": " + buffer.getError().message());
  llvm::StringRef bytes = (*buffer)->getBuffer();
  return std::vector<uint8_t>(bytes.begin(), bytes.end());
}

// lld runs in a child process of its own. Its driver keeps global state and
// is not reentrant, and it resets every LLVM command-line option of the
// process to its default (cl::ResetAllOptionOccurrences, before it parses
// -mllvm): in kiln-compile's own process that would undo the user's flags
// (-o, --mlir-print-debuginfo, ...) halfway through the compilation. A
// forked child has its own copy of all of that; its messages come back
// through a file.
Result<int> RunLldInChild(llvm::ArrayRef<const char*> args, const std::string& messages_path) {
  fflush(nullptr);
  const pid_t child = fork();
  if (child < 0) return InternalError(std::string("cannot fork to run lld: ") + strerror(errno));
  if (child == 0) {
    std::error_code error;
    llvm::raw_fd_ostream messages(messages_path, error, llvm::sys::fs::OF_None);
    if (error) _exit(125);
    const lld::Result result =
        lld::lldMain(args, messages, messages, {{lld::Gnu, &lld::elf::link}});
    messages.close();
    _exit(result.retCode == 0 ? 0 : 1);
  }
  int status = 0;
  while (waitpid(child, &status, 0) < 0) {
    if (errno != EINTR) {
      return InternalError(std::string("cannot wait for lld: ") + strerror(errno));
    }
  }
  if (WIFSIGNALED(status)) {
    return InternalError("lld was killed by signal " + std::to_string(WTERMSIG(status)));
  }
  return WEXITSTATUS(status);
}

Result<std::vector<uint8_t>> LinkSharedObject(const std::vector<char>& object_bytes) {
  llvm::SmallString<128> directory;
  if (std::error_code error = llvm::sys::fs::createUniqueDirectory("kiln-cpu-link", directory)) {
    return InternalError("cannot create a temporary directory for lld: " + error.message());
  }
  llvm::scope_exit remove_directory([&] { llvm::sys::fs::remove_directories(directory); });

  llvm::SmallString<128> object_path(directory);
  llvm::sys::path::append(object_path, "kernels.o");
  llvm::SmallString<128> library_path(directory);
  llvm::sys::path::append(library_path, "kernels.so");
  {
    std::error_code error;
    llvm::raw_fd_ostream file(object_path, error, llvm::sys::fs::OF_None);
    if (error)
      return InternalError("cannot write " + object_path.str().str() + ": " + error.message());
    file.write(object_bytes.data(), object_bytes.size());
    file.close();
    if (file.has_error()) {
      return InternalError("cannot write " + object_path.str().str() + ": " +
                           file.error().message());
    }
  }

  const char* args[] = {
      "ld.lld",
      "-shared",
      "--gc-sections",
      "-z",
      "noexecstack",
      "-Bsymbolic",
      "-o",
      library_path.c_str(),
      object_path.c_str(),
  };
  llvm::SmallString<128> messages_path(directory);
  llvm::sys::path::append(messages_path, "lld.log");
  KILN_ASSIGN_OR_RETURN(int exit_code, RunLldInChild(args, messages_path.str().str()));
  if (exit_code != 0) {
    Result<std::vector<uint8_t>> messages = ReadFileBytes(messages_path.str().str());
    std::string text = messages.ok() ? std::string(messages->begin(), messages->end()) : "";
    return InternalError("lld failed to link the kernels into a shared object: " +
                         llvm::StringRef(text).trim().str());
  }
  return ReadFileBytes(library_path.str().str());
}

}  // namespace

Result<std::vector<uint8_t>> EmitSharedObject(mlir::ModuleOp llvm_module,
                                              const SharedObjectOptions& options) {
  KILN_ASSIGN_OR_RETURN(std::unique_ptr<llvm::TargetMachine> machine, CreateTargetMachine(options));

  llvm::LLVMContext llvm_context;
  KILN_ASSIGN_OR_RETURN(
      std::unique_ptr<llvm::Module> module,
      TranslateToLLVMIR(llvm_module, llvm_context, *machine, "kiln_cpu_kernels", "the kernels"));
  KILN_RETURN_IF_ERROR(RestrictExports(*module, options.exported_symbols));
  OptimizeWithLLVM(*module, *machine);
  KILN_ASSIGN_OR_RETURN(std::vector<char> object, EmitObject(*module, *machine));
  KILN_RETURN_IF_ERROR(CheckUndefinedSymbols(object));
  return LinkSharedObject(object);
}

}  // namespace kiln::compiler::cpu
