// kiln-make-sample-module <out.kmod>: writes the module the embedding sample
// loads, built with the ModuleBuilder instead of the compiler so the sample
// depends on nothing but the VM.
//
// The module "sample" imports logger.log (i32 -> i32), which the host
// application implements, and exports
//   fib(n: i32) -> i32    recursive Fibonacci
//   main(n: i32) -> i32   r = fib(n); logger.log(r); return r
// Instructions carry locations in a pretend source file "sample.mlir", so
// errors and disassembly point at "sample.mlir:line:col".
#include <cstdio>
#include <filesystem>
#include <string>
#include <system_error>
#include <vector>

#include "base/file_io.h"
#include "vm/module_builder.h"

namespace {

using namespace kiln;
using namespace kiln::vm;

Result<std::vector<uint8_t>> BuildSampleModule() {
  ModuleBuilder builder("sample");
  const uint32_t source = builder.AddSourceFile("sample.mlir");
  const uint32_t log = builder.AddImport("logger.log", "i_i");

  // fib(n) = n < 2 ? n : fib(n - 1) + fib(n - 2)
  FunctionBuilder& fib = builder.AddFunction("fib", "i_i");
  Label base = fib.NewLabel(), recurse = fib.NewLabel();
  fib.SetLocation(source, 2, 3);
  fib.Emit(Opcode::kConstI32, {Reg(1), ImmI32(2)});
  fib.Emit(Opcode::kBrLtI32S, {Reg(0), Reg(1), Target(base), Target(recurse)});
  fib.Bind(base);
  fib.SetLocation(source, 3, 5);
  fib.EmitReturn({0});
  fib.Bind(recurse);
  fib.SetLocation(source, 5, 10);
  fib.Emit(Opcode::kConstI32, {Reg(2), ImmI32(1)});
  fib.Emit(Opcode::kSubI32, {Reg(3), Reg(0), Reg(2)});
  const uint16_t n_minus[] = {3}, first[] = {4}, second[] = {5};
  fib.EmitCall(fib.ordinal(), n_minus, first);
  fib.SetLocation(source, 6, 10);
  fib.Emit(Opcode::kSubI32, {Reg(3), Reg(0), Reg(1)});
  fib.EmitCall(fib.ordinal(), n_minus, second);
  fib.SetLocation(source, 7, 5);
  fib.Emit(Opcode::kAddI32, {Reg(4), Reg(4), Reg(5)});
  fib.EmitReturn({4});

  // main(n): r = fib(n); logger.log(r); return r
  FunctionBuilder& main = builder.AddFunction("main", "i_i");
  const uint16_t n[] = {0}, r[] = {1}, calls[] = {2};
  main.SetLocation(source, 11, 8);
  main.EmitCall(fib.ordinal(), n, r);
  main.SetLocation(source, 12, 3);
  main.EmitCallImport(log, r, calls);
  main.SetLocation(source, 13, 3);
  main.EmitReturn({1});

  ExportReflection fib_reflection;
  fib_reflection.attributes = {{"description", "recursive Fibonacci"}};
  fib_reflection.argument_descriptions = {"n: i32"};
  fib_reflection.result_descriptions = {"fib(n): i32"};
  builder.AddExport("fib", fib.ordinal(), fib_reflection);

  ExportReflection main_reflection;
  main_reflection.attributes = {{"description", "fib(n), reported through logger.log"}};
  main_reflection.argument_descriptions = {"n: i32"};
  main_reflection.result_descriptions = {"fib(n): i32"};
  builder.AddExport("main", main.ordinal(), main_reflection);

  return builder.Finish();
}

Status WriteModule(const std::string& path) {
  KILN_ASSIGN_OR_RETURN(std::vector<uint8_t> bytes, BuildSampleModule());
  std::filesystem::path parent = std::filesystem::path(path).parent_path();
  if (!parent.empty()) {
    std::error_code error;
    std::filesystem::create_directories(parent, error);
    if (error) {
      return UnavailableError("cannot create directory '" + parent.string() +
                              "': " + error.message());
    }
  }
  KILN_RETURN_IF_ERROR(WriteFile(path, bytes));
  std::printf("wrote %s (%zu bytes)\n", path.c_str(), bytes.size());
  return OkStatus();
}

}  // namespace

int main(int argc, char** argv) {
  if (argc != 2) {
    std::fprintf(stderr, "usage: %s <out.kmod>\n", argv[0]);
    return 1;
  }
  Status status = WriteModule(argv[1]);
  if (!status.ok()) {
    std::fprintf(stderr, "kiln-make-sample-module: %s\n", status.ToString().c_str());
    return 1;
  }
  return 0;
}
