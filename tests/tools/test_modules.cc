#include "tests/tools/test_modules.h"

#include <utility>

#include "vm/module_builder.h"

namespace kiln::testing {

using namespace kiln::vm;

Result<std::vector<uint8_t>> BuildToolsTestModule() {
  ModuleBuilder builder("tools_test", /*version=*/3);
  const uint32_t source = builder.AddSourceFile("tools_test.mlir");
  const uint32_t log = builder.AddImport("host.log", "i_i", /*optional=*/true);
  const uint8_t weights_data[16] = {1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15, 16};
  const uint32_t weights = builder.AddRodata("weights", weights_data);
  const uint32_t boom = builder.AddString("boom: bad \"value\"");
  const uint32_t showcase_message = builder.AddString("showcase");
  builder.SetGlobals(8, 0);

  FunctionBuilder& add_i32 = builder.AddFunction("add_i32", "ii_i");
  add_i32.SetLocation(source, 1, 1);
  add_i32.Emit(Opcode::kAddI32, {Reg(2), Reg(0), Reg(1)});
  add_i32.SetLocation(source, 2, 3);
  add_i32.EmitReturn({2});

  // fib(n) = n < 2 ? n : fib(n - 1) + fib(n - 2)
  FunctionBuilder& fib = builder.AddFunction("fib", "i_i");
  {
    Label base = fib.NewLabel(), recurse = fib.NewLabel();
    fib.SetLocation(source, 10, 3);
    fib.Emit(Opcode::kConstI32, {Reg(1), ImmI32(2)});
    fib.Emit(Opcode::kBrLtI32S, {Reg(0), Reg(1), Target(base), Target(recurse)});
    fib.Bind(base);
    fib.SetLocation(source, 11, 5);
    fib.EmitReturn({0});
    fib.Bind(recurse);
    fib.SetLocation(source, 13, 10);
    fib.Emit(Opcode::kConstI32, {Reg(2), ImmI32(1)});
    fib.Emit(Opcode::kSubI32, {Reg(3), Reg(0), Reg(2)});
    const uint16_t n_minus[] = {3}, first[] = {4}, second[] = {5};
    fib.EmitCall(fib.ordinal(), n_minus, first);
    fib.SetLocation(source, 14, 10);
    fib.Emit(Opcode::kSubI32, {Reg(3), Reg(0), Reg(1)});
    fib.EmitCall(fib.ordinal(), n_minus, second);
    fib.SetLocation(source, 15, 5);
    fib.Emit(Opcode::kAddI32, {Reg(4), Reg(4), Reg(5)});
    fib.EmitReturn({4});
  }

  FunctionBuilder& mixed = builder.AddFunction("mixed", "IfF_IfF");
  mixed.SetLocation(source, 20, 3);
  mixed.Emit(Opcode::kAddImmI64, {Reg(1), Reg(0), ImmI32(1)});
  mixed.SetLocation(source, 21, 3);
  mixed.Emit(Opcode::kConstF32, {Reg(1), ImmF32(2.0f)});
  mixed.Emit(Opcode::kMulF32, {Reg(2), Reg(0), Reg(1)});
  mixed.SetLocation(source, 22, 3);
  mixed.Emit(Opcode::kConstF64, {Reg(1), ImmF64(0.25)});
  mixed.Emit(Opcode::kMulF64, {Reg(2), Reg(0), Reg(1)});
  mixed.EmitReturn({1, 2, 2});

  FunctionBuilder& add_f64 = builder.AddFunction("add_f64", "FF_F");
  add_f64.SetLocation(source, 25, 3);
  add_f64.Emit(Opcode::kAddF64, {Reg(2), Reg(0), Reg(1)});
  add_f64.EmitReturn({2});

  FunctionBuilder& fail_inner = builder.AddFunction("fail_inner", "i_i");
  fail_inner.SetLocation(source, 30, 5);
  fail_inner.Emit(Opcode::kFail, {Index(boom)});

  FunctionBuilder& fail_outer = builder.AddFunction("fail_outer", "i_i");
  {
    const uint16_t n[] = {0}, result[] = {1};
    fail_outer.SetLocation(source, 34, 3);
    fail_outer.EmitCall(fail_inner.ordinal(), n, result);
    fail_outer.SetLocation(source, 35, 3);
    fail_outer.EmitReturn({1});
  }

  FunctionBuilder& div = builder.AddFunction("div", "ii_i");
  div.SetLocation(source, 40, 3);
  div.Emit(Opcode::kDivSI32, {Reg(2), Reg(0), Reg(1)});
  div.EmitReturn({2});

  FunctionBuilder& make_list = builder.AddFunction("make_list", "_ir");
  make_list.Emit(Opcode::kConstI32, {Reg(0), ImmI32(7)});
  make_list.Emit(Opcode::kListAlloc, {Reg(0), Reg(0)});
  make_list.EmitReturn({0, 0});

  FunctionBuilder& list_size = builder.AddFunction("list_size", "r_i");
  list_size.Emit(Opcode::kListSize, {Reg(0), Reg(0)});
  list_size.EmitReturn({0});

  FunctionBuilder& noop = builder.AddFunction("noop", "_");
  noop.EmitReturn(std::initializer_list<uint16_t>{});

  FunctionBuilder& get_global = builder.AddFunction("get_global", "_i");
  get_global.SetLocation(source, 45, 3);
  get_global.Emit(Opcode::kGlobalLoadI32, {Reg(0), Index(0)});
  get_global.EmitReturn({0});

  FunctionBuilder& init = builder.AddFunction("init", "_");
  init.SetLocation(source, 47, 3);
  init.Emit(Opcode::kConstI32, {Reg(0), ImmI32(42)});
  init.Emit(Opcode::kGlobalStoreI32, {Index(0), Reg(0)});
  init.EmitReturn(std::initializer_list<uint16_t>{});
  builder.SetInitializer(init.ordinal());

  FunctionBuilder& showcase = builder.AddFunction("showcase", "i_i");
  {
    Label call = showcase.NewLabel(), skip = showcase.NewLabel();
    Label one = showcase.NewLabel(), two = showcase.NewLabel(), other = showcase.NewLabel();
    showcase.SetLocation(source, 50, 3);
    showcase.Emit(Opcode::kImportResolved, {Reg(1), Index(log)});
    showcase.Emit(Opcode::kCondBr, {Reg(1), Target(call), Target(skip)});
    showcase.Bind(call);
    showcase.SetLocation(source, 51, 3);
    const uint16_t n[] = {0}, logged[] = {2};
    showcase.EmitCallImport(log, n, logged);
    showcase.EmitReturn({2});
    showcase.Bind(skip);
    showcase.SetLocation(source, 53, 3);
    showcase.Emit(Opcode::kConstRefRodata, {Reg(0), Index(weights)});
    showcase.Emit(Opcode::kBufferLength, {Reg(0), Reg(0)});
    showcase.Emit(Opcode::kTruncI64I32, {Reg(2), Reg(0)});
    showcase.SetLocation(source, 54, 3);
    const std::pair<Bank, uint16_t> traced[] = {{Bank::kI32, 0}, {Bank::kI32, 2}};
    showcase.EmitTrace(showcase_message, traced);
    showcase.SetLocation(source, 55, 3);
    const Label cases[] = {one, two};
    showcase.EmitSwitch(0, other, cases);
    showcase.Bind(one);
    showcase.SetLocation(source, 56, 3);
    showcase.EmitReturn({2});
    showcase.Bind(two);
    showcase.SetLocation(source, 57, 3);
    showcase.Emit(Opcode::kAddI32, {Reg(3), Reg(2), Reg(2)});
    showcase.EmitReturn({3});
    showcase.Bind(other);
    showcase.SetLocation(source, 58, 3);
    showcase.Emit(Opcode::kConstI32, {Reg(3), ImmI32(-1)});
    showcase.EmitReturn({3});
  }

  builder.AddExport("add_i32", add_i32.ordinal());
  ExportReflection fib_reflection;
  fib_reflection.attributes = {{"description", "recursive \"Fibonacci\""}, {"iree.abi", "{}"}};
  fib_reflection.argument_descriptions = {"n: i32"};
  fib_reflection.result_descriptions = {"fib(n): i32"};
  builder.AddExport("fib", fib.ordinal(), fib_reflection);
  builder.AddExport("mixed", mixed.ordinal());
  builder.AddExport("add_f64", add_f64.ordinal());
  builder.AddExport("fail_outer", fail_outer.ordinal());
  builder.AddExport("div", div.ordinal());
  builder.AddExport("make_list", make_list.ordinal());
  builder.AddExport("list_size", list_size.ordinal());
  builder.AddExport("noop", noop.ordinal());
  builder.AddExport("get_global", get_global.ordinal());
  builder.AddExport("showcase", showcase.ordinal());
  return builder.Finish();
}

Result<std::vector<uint8_t>> BuildPlainModule() {
  ModuleBuilder builder("plain");
  FunctionBuilder& id = builder.AddFunction("id", "F_F");
  id.EmitReturn({0});
  builder.AddExport("id", id.ordinal());
  return builder.Finish();
}

Result<std::vector<uint8_t>> BuildBrokenModule() {
  ModuleBuilder builder("broken");
  FunctionBuilder& f = builder.AddFunction("f", "_i");
  f.Emit(Opcode::kConstI32, {Reg(0), ImmI32(1)});
  f.EmitReturn({3});
  f.SetRegisterCounts({1, 0, 0, 0, 0});
  builder.AddExport("f", f.ordinal());
  return builder.Finish();
}

}  // namespace kiln::testing
