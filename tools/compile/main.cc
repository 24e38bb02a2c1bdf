// kiln-compile: MLIR text -> .kmod, through kiln's pass pipeline on upstream
// MLIR (compiler/pipeline/pipeline.h) and the vm dialect's bytecode emission.
//
//   kiln-compile in.mlir -o out.kmod
//   cat in.mlir | kiln-compile - -o out.kmod        (-o defaults to stdout)
//   kiln-compile k.mlir --iree-hal-target-backends=llvm-cpu,cuda
//       --iree-hal-executable-object-search-path=build/ -o k.kmod
//   kiln-compile in.mlir --memoize-command-buffers=false -o out.kmod
//   kiln-compile in.mlir --output-format=mlir      (the lowered vm-dialect IR)
//   kiln-compile in.mlir --instrument-dispatches=4m -o out.kmod  (per-workgroup records)
//   kiln-compile in.mlir --mlir-print-ir-after-all --mlir-timing -o out.kmod
//
// The command line is LLVM's (llvm::cl), as in mlir-opt and iree-compile: one
// positional input, and a malformed or extra argument is an error; every
// MLIR context, pass manager and printer flag works (--mlir-print-ir-*,
// --mlir-timing, --mlir-print-debuginfo, --mlir-disable-threading, ...), and
// --pass-pipeline replaces kiln's pipeline. Diagnostics go to stderr as
// `file:line:col: error: ...` with the source line and a caret; any error
// exits with status 1.
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "compiler/dialects/registration.h"
#include "compiler/pipeline/compile.h"
#include "compiler/pipeline/pass_registration.h"
#include "compiler/targets/passes.h"
#include "llvm/Config/llvm-config.h"
#include "llvm/Support/CommandLine.h"
#include "llvm/Support/InitLLVM.h"
#include "llvm/Support/Process.h"
#include "llvm/Support/SourceMgr.h"
#include "llvm/Support/ToolOutputFile.h"
#include "llvm/Support/raw_ostream.h"
#include "mlir/IR/AsmState.h"
#include "mlir/IR/Diagnostics.h"
#include "mlir/IR/MLIRContext.h"
#include "mlir/Parser/Parser.h"
#include "mlir/Pass/PassManager.h"
#include "mlir/Pass/PassRegistry.h"
#include "mlir/Support/FileUtilities.h"
#include "mlir/Support/Timing.h"
#include "tools/common/version.h"

namespace {

namespace cl = llvm::cl;

enum class OutputFormat { kModule, kMlir };

int Fail(const llvm::Twine& message) {
  // Plain text, also on a terminal: tests and scripts match it.
  llvm::errs() << "kiln-compile: error: " << message << "\n";
  return 1;
}

// --instrument-dispatches[=SIZE]: bytes, with an optional k/K (KiB) or m/M
// (MiB) suffix; 1 MiB without a value. The ring is a 32-byte header and
// 32-byte records (hal/cpu/kernel_abi.h), so it needs room for one record.
constexpr uint64_t kDefaultRingBytes = uint64_t{1} << 20;

std::optional<uint64_t> ParseRingBytes(llvm::StringRef text, std::string* error) {
  if (text.empty()) return kDefaultRingBytes;
  uint64_t scale = 1;
  llvm::StringRef digits = text;
  if (digits.ends_with_insensitive("k")) {
    scale = uint64_t{1} << 10;
    digits = digits.drop_back();
  } else if (digits.ends_with_insensitive("m")) {
    scale = uint64_t{1} << 20;
    digits = digits.drop_back();
  }
  uint64_t value = 0;
  if (digits.empty() || digits.getAsInteger(10, value) || value > UINT64_MAX / scale) {
    *error = ("--instrument-dispatches=" + text +
              ": expected a size in bytes, optionally with a k or m suffix (KiB, MiB)")
                 .str();
    return std::nullopt;
  }
  value *= scale;
  if (value < 64 || value % 32 != 0) {
    *error = ("--instrument-dispatches=" + text + " is " + llvm::Twine(value) +
              " bytes; the ring needs at least 64 bytes and a multiple of 32 (a 32-byte "
              "header, then 32-byte records)")
                 .str();
    return std::nullopt;
  }
  return value;
}

int Run(int argc, char** argv) {
  static cl::opt<std::string> input(cl::Positional, cl::desc("<input .mlir, '-' for stdin>"),
                                    cl::init("-"));
  static cl::opt<std::string> output("o", cl::desc("Output file ('-' for stdout, the default)"),
                                     cl::value_desc("filename"), cl::init("-"));
  static cl::opt<OutputFormat> output_format(
      "output-format", cl::desc("What to write"), cl::init(OutputFormat::kModule),
      cl::values(clEnumValN(OutputFormat::kModule, "kmod", "The bytecode module (default)"),
                 clEnumValN(OutputFormat::kMlir, "mlir",
                            "The IR after the pipeline, as text (the vm dialect)")));
  static cl::list<std::string> targets(
      "target", cl::CommaSeparated, cl::value_desc("cpu,cuda,vulkan"),
      cl::desc("Executable targets to embed (comma list or repeated; default: the module's "
               "hal.device.targets, else every declared target)"));
  static cl::list<std::string> backends("iree-hal-target-backends", cl::CommaSeparated,
                                        cl::value_desc("llvm-cpu,cuda,vulkan-spirv"),
                                        cl::desc("IREE's spelling of --target"));
  static cl::list<std::string> search_paths(
      "object-search-path", cl::value_desc("dir"),
      cl::desc("Directory searched for relative executable object paths after the input's "
               "directory (repeatable)"));
  static cl::list<std::string> iree_search_paths(
      "iree-hal-executable-object-search-path", cl::value_desc("dir"),
      cl::desc("IREE's spelling of --object-search-path"));
  static cl::opt<bool> memoize(
      "memoize-command-buffers", cl::init(true),
      cl::desc("Record each static block's command buffer once and replay it with each call's "
               "buffers; =false records it on every call"));
  static cl::opt<bool> in_place(
      "in-place", cl::init(true),
      cl::desc("Elementwise dispatches write their result over an operand that dies there "
               "(--kiln-tie-dispatch-results); =false gives every result a buffer of its own"));
  static cl::opt<bool> library_calls(
      "library-calls", cl::init(true),
      cl::desc("With the cuda target: matmuls and convolutions that cuBLASLt or cuDNN computes "
               "carry that call beside their generated kernel (per op: kiln.library = \"none\" "
               "or \"always\"); =false generates every kernel"));
  static cl::opt<bool> allow_tf32(
      "allow-tf32", cl::init(false),
      cl::desc("Let f32 library calls use TF32 tensor cores (about 10 mantissa bits; default: "
               "exact f32)"));
  static cl::opt<int64_t> im2col_max_pixels(
      "im2col-max-pixels",
      cl::desc("With library calls: strided or RxS convolutions with at most this many output "
               "pixels (batch x height x width) run as im2col + a GEMM library's matmul (1x1 "
               "ones of stride 1 always do; 0: only those; negative: none). Default: every "
               "convolution where cuda is a target, 0 for cpu alone (oneDNN's direct "
               "convolutions, its matmuls for the 1x1 ones)"));
  static cl::opt<bool> blocked_activations(
      "blocked-activations",
      cl::desc("With library calls: convolution results that only other convolution calls "
               "read stay in oneDNN's blocked layout (nChw16c) between them on the cpu device, "
               "with no reorder (pair with --im2col-max-pixels=-1, which keeps 1x1 ones "
               "convolutions). Default: off; never where cuda is a target (cuDNN reads NCHW)"));
  static cl::opt<std::string> instrument_dispatches(
      "instrument-dispatches", cl::ValueOptional, cl::value_desc("SIZE"),
      cl::desc("Every generated kernel records one entry per workgroup (dispatch site id, "
               "workgroup id, start and end device clock) into a ring of SIZE bytes that the "
               "runtime binds as an extra last binding (kiln-run-module --instrument_file). "
               "SIZE: bytes with an optional k or m suffix (KiB, MiB), at least 64 and a "
               "multiple of 32; 1m without a value. Exports run as library calls are not "
               "instrumented"));
  static cl::opt<std::string> module_name(
      "module-name", cl::desc("Module name (default: the module's @name, else 'module')"));
  static cl::opt<bool> strip_debug_info("strip-debug-info", cl::init(false),
                                        cl::desc("Do not write source locations into the module"));

  // Kiln's passes first: --mlir-print-ir-after=<pass> and --pass-pipeline
  // know the passes registered when their options are.
  kiln::compiler::RegisterPasses();
  mlir::registerMLIRContextCLOptions();
  mlir::registerPassManagerCLOptions();
  mlir::registerDefaultTimingManagerCLOptions();
  mlir::registerAsmPrinterCLOptions();
  mlir::PassPipelineCLParser pass_pipeline("", "Passes to run instead of kiln's pipeline", "p");

  cl::SetVersionPrinter([](llvm::raw_ostream& os) {
    os << kiln::tools::VersionLine("kiln-compile") << " (MLIR/LLVM " << LLVM_VERSION_STRING
       << ")\n";
  });
  cl::ParseCommandLineOptions(argc, argv,
                              "kiln-compile: MLIR programs into kiln modules (.kmod)\n");

  kiln::compiler::CompileOptions options;
  std::vector<std::string> target_names(targets.begin(), targets.end());
  target_names.insert(target_names.end(), backends.begin(), backends.end());
  auto normalized = kiln::compiler::NormalizeTargetNames(target_names);
  if (!normalized.ok()) return Fail(normalized.status().message());
  options.pipeline.targets = *normalized;
  options.pipeline.object_search_paths.assign(search_paths.begin(), search_paths.end());
  options.pipeline.object_search_paths.insert(options.pipeline.object_search_paths.end(),
                                              iree_search_paths.begin(), iree_search_paths.end());
  options.pipeline.memoize_command_buffers = memoize;
  options.pipeline.tie_dispatch_results = in_place;
  options.pipeline.library_calls = library_calls;
  options.pipeline.allow_tf32 = allow_tf32;
  if (im2col_max_pixels.getNumOccurrences() > 0) {
    options.pipeline.im2col_max_pixels = im2col_max_pixels.getValue();
  }
  if (blocked_activations.getNumOccurrences() > 0) {
    options.pipeline.blocked_activations = blocked_activations.getValue();
  }
  if (instrument_dispatches.getNumOccurrences() > 0) {
    std::string size_error;
    std::optional<uint64_t> bytes = ParseRingBytes(instrument_dispatches, &size_error);
    if (!bytes) return Fail(size_error);
    options.pipeline.instrument_dispatches_bytes = *bytes;
  }
  options.module_name = module_name;
  options.debug_locations = !strip_debug_info;

  // A terminal is no place for bytes; checked before any work is done.
  if (output == "-" && output_format == OutputFormat::kModule &&
      llvm::sys::Process::StandardOutIsDisplayed()) {
    return Fail("refusing to write a binary module to a terminal: pass -o FILE or redirect stdout");
  }

  std::string error;
  std::unique_ptr<llvm::MemoryBuffer> buffer = mlir::openInputFile(input, &error);
  if (!buffer) return Fail(error);

  mlir::DialectRegistry registry;
  kiln::compiler::RegisterDialects(registry);
  mlir::MLIRContext context(registry);
  // An error names its op's location and shows the source line; the op as
  // MLIR prints it (mlir-opt's default) only when asked for.
  llvm::cl::Option* print_op = cl::getRegisteredOptions().lookup("mlir-print-op-on-diagnostic");
  if (!print_op || print_op->getNumOccurrences() == 0) context.printOpOnDiagnostic(false);
  llvm::SourceMgr sources;
  sources.AddNewSourceBuffer(std::move(buffer), llvm::SMLoc());
  mlir::SourceMgrDiagnosticHandler diagnostics(sources, &context);

  mlir::OwningOpRef<mlir::ModuleOp> module =
      mlir::parseSourceFile<mlir::ModuleOp>(sources, &context);
  if (!module) return 1;  // The parser or verifier reported why.

  mlir::DefaultTimingManager timing;
  mlir::applyDefaultTimingManagerCLOptions(timing);
  mlir::TimingScope root = timing.getRootScope();

  mlir::PassManager pm(&context, mlir::ModuleOp::getOperationName());
  if (mlir::failed(mlir::applyPassManagerCLOptions(pm))) return 1;
  pm.enableTiming(root);
  if (pass_pipeline.hasAnyOccurrences()) {
    auto report = [&](const llvm::Twine& message) {
      return mlir::emitError(module->getLoc()) << message;
    };
    if (mlir::failed(pass_pipeline.addToPipeline(pm, report))) return 1;
  } else {
    kiln::compiler::BuildPipeline(pm, options.pipeline);
  }
  if (mlir::failed(pm.run(*module))) return 1;

  std::unique_ptr<llvm::ToolOutputFile> out = mlir::openOutputFile(output, &error);
  if (!out) return Fail(error);
  if (output_format == OutputFormat::kMlir) {
    module->print(out->os());
    out->os() << "\n";
  } else {
    mlir::TimingScope emit_timing = root.nest("emission");
    mlir::FailureOr<std::vector<uint8_t>> bytes = kiln::compiler::EmitBytecode(*module, options);
    if (mlir::failed(bytes)) return 1;
    out->os().write(reinterpret_cast<const char*>(bytes->data()), bytes->size());
  }
  out->os().flush();
  if (out->os().has_error()) {
    out->os().clear_error();
    return Fail("cannot write '" + output + "'");
  }
  out->keep();
  return 0;
}

}  // namespace

int main(int argc, char** argv) {
  llvm::InitLLVM init(argc, argv);
  return Run(argc, argv);
}
