// kiln-import-onnx: an ONNX model → kiln's input MLIR (compiler/onnx/).
//
//   kiln-import-onnx model.onnx -o model.mlir
//       initializers above 1 KiB go to model.safetensors beside model.mlir,
//       read at run time with --parameters=model=model.safetensors
//   kiln-import-onnx model.onnx -o model.mlir --param-threshold=-1
//       every initializer inline as a constant
//   kiln-import-onnx model.onnx --param-file=w.safetensors --param-scope=m
//
// Errors name the file and, for a node, its name, op type and opset; any
// error exits with status 1.
#include <string>

#include "compiler/onnx/model_loading.h"
#include "compiler/onnx/onnx_importer.h"
#include "compiler/onnx/safetensors_writer.h"
#include "llvm/ADT/SmallString.h"
#include "llvm/Support/CommandLine.h"
#include "llvm/Support/InitLLVM.h"
#include "llvm/Support/Path.h"
#include "llvm/Support/ToolOutputFile.h"
#include "llvm/Support/raw_ostream.h"
#include "mlir/IR/Diagnostics.h"
#include "mlir/IR/Location.h"
#include "mlir/IR/MLIRContext.h"
#include "mlir/Pass/PassManager.h"
#include "mlir/Support/FileUtilities.h"
#include "mlir/Transforms/Passes.h"
#include "tools/common/version.h"

namespace {

namespace cl = llvm::cl;

int Fail(const llvm::Twine& message) {
  llvm::errs() << "kiln-import-onnx: error: " << message << "\n";
  return 1;
}

// The file of a location (the model), for messages.
std::string FileOf(mlir::Location loc) {
  std::string file;
  loc->walk([&](mlir::Location inner) {
    if (auto file_loc = llvm::dyn_cast<mlir::FileLineColLoc>(inner)) {
      file = file_loc.getFilename().str();
      return mlir::WalkResult::interrupt();
    }
    return mlir::WalkResult::advance();
  });
  return file;
}

int Run(int argc, char** argv) {
  static cl::opt<std::string> input(cl::Positional, cl::desc("<model.onnx>"), cl::Required);
  static cl::opt<std::string> output("o", cl::desc("Output .mlir ('-' for stdout, the default)"),
                                     cl::value_desc("filename"), cl::init("-"));
  static cl::opt<long long> threshold(
      "param-threshold", cl::init(1024), cl::value_desc("bytes"),
      cl::desc("Initializers larger than this become external parameters in a safetensors "
               "file (default 1024; -1 keeps all inline)"));
  static cl::opt<std::string> param_file(
      "param-file", cl::value_desc("path"),
      cl::desc("The safetensors file of the external parameters (default: the output's path "
               "with the extension .safetensors)"));
  static cl::opt<std::string> param_scope("param-scope", cl::init("model"), cl::value_desc("name"),
                                          cl::desc("The parameters' scope (default 'model')"));
  static cl::opt<std::string> function("function", cl::value_desc("name"),
                                       cl::desc("The function's name (default: the graph's)"));
  static cl::opt<bool> no_cleanup(
      "no-cleanup", cl::init(false),
      cl::desc("Print the converters' IR as built (no canonicalization and CSE)"));
  cl::SetVersionPrinter(
      [](llvm::raw_ostream& os) { os << kiln::tools::VersionLine("kiln-import-onnx") << "\n"; });
  cl::ParseCommandLineOptions(argc, argv, "kiln-import-onnx: ONNX model -> kiln input MLIR\n");

  onnx::ModelProto model;
  std::string error;
  if (!kiln::onnx_import::LoadOnnxModel(input, model, &error)) return Fail(error);
  if (!kiln::onnx_import::InferOnnxShapes(model, &error)) return Fail(input + ": " + error);

  mlir::MLIRContext context;
  context.getDiagEngine().registerHandler([](mlir::Diagnostic& diagnostic) {
    std::string file = FileOf(diagnostic.getLocation());
    llvm::errs() << (file.empty() ? "" : file + ": ") << "error: " << diagnostic << "\n";
    return mlir::success();
  });
  kiln::onnx_import::OnnxImportOptions options;
  options.model_path = input;
  options.parameter_threshold_bytes = threshold;
  options.parameter_scope = param_scope;
  options.function_name = function;
  auto imported = kiln::onnx_import::ImportOnnxModel(context, model, options);
  if (mlir::failed(imported)) return 1;
  if (!no_cleanup) {
    // What converters leave for folding: dead shape computations, repeated
    // dims and constants.
    mlir::PassManager cleanup(&context);
    cleanup.addPass(mlir::createCanonicalizerPass());
    cleanup.addPass(mlir::createCSEPass());
    if (mlir::failed(cleanup.run(imported->module.get()))) return 1;
  }

  if (!imported->parameters.empty()) {
    std::string path = param_file;
    if (path.empty()) {
      if (output == "-") {
        return Fail("the model has " + std::to_string(imported->parameters.size()) +
                    " initializer(s) above --param-threshold; name their file with --param-file "
                    "when writing to stdout");
      }
      llvm::SmallString<256> replaced(output.getValue());
      llvm::sys::path::replace_extension(replaced, "safetensors");
      path = replaced.str().str();
    }
    if (!kiln::onnx_import::WriteSafetensors(path, imported->parameters, &error)) {
      return Fail(error);
    }
  }
  std::string message;
  auto file = mlir::openOutputFile(output, &message);
  if (!file) return Fail(message);
  imported->module->print(file->os());
  file->os() << "\n";
  file->keep();
  return 0;
}

}  // namespace

int main(int argc, char** argv) {
  llvm::InitLLVM init(argc, argv);
  return Run(argc, argv);
}
