// kiln-make-fuzz-corpus DIR: writes the module fuzzer's seed corpus.
//
// Each seed is a small valid module built with the ModuleBuilder that covers
// one instruction family (integer and float arithmetic of every bank,
// compares, selects, conversions, branches, switch, calls, imports, globals,
// rodata, lists, buffers, trace, fail, traps, stack limits). libFuzzer mutates
// and crosses these over; starting from valid modules is what gets mutated
// inputs past the FlatBuffer and bytecode verifiers into the interpreter.
// Every seed is loaded (verified) before it is written, and each has at least
// one export the harness runs (kiln_fuzz_regression_test checks that), so
// exports that loop or recurse only add verifier coverage.
//
// The checked-in corpus (tests/fuzz/corpus) is this program's output; rerun
//   kiln-make-fuzz-corpus tests/fuzz/corpus
// after changing the seeds or the bytecode encoding.
#include <array>
#include <cmath>
#include <cstdio>
#include <filesystem>
#include <limits>
#include <string>
#include <utility>
#include <vector>

#include "base/file_io.h"
#include "vm/bytecode_module.h"
#include "vm/module_builder.h"
#include "vm/module_checksum.h"

namespace kiln::vm {
namespace {

// Registers of one function by bank: the next unused one, and the values
// generated instructions read (in turn), so results feed later instructions.
class RegisterPool {
 public:
  // Arguments occupy the first registers of their banks.
  explicit RegisterPool(std::string_view argument_types) {
    for (char c : argument_types) {
      Bank bank;
      BankOfTypeChar(c, &bank);
      Produce(bank, next_[static_cast<int>(bank)]++);
    }
  }
  uint16_t Fresh(Bank bank) { return next_[static_cast<int>(bank)]++; }
  void Produce(Bank bank, uint16_t reg) { values_[static_cast<int>(bank)].push_back(reg); }
  uint16_t Read(Bank bank) {
    auto& values = values_[static_cast<int>(bank)];
    return values[cursor_[static_cast<int>(bank)]++ % values.size()];
  }
  uint16_t Last(Bank bank) const { return values_[static_cast<int>(bank)].back(); }

 private:
  std::array<std::vector<uint16_t>, kBankCount> values_;
  std::array<size_t, kBankCount> cursor_{};
  std::array<uint16_t, kBankCount> next_{};
};

void ConstI32(FunctionBuilder& f, RegisterPool& pool, int32_t value) {
  uint16_t reg = pool.Fresh(Bank::kI32);
  f.Emit(Opcode::kConstI32, {Reg(reg), ImmI32(value)});
  pool.Produce(Bank::kI32, reg);
}
void ConstI64(FunctionBuilder& f, RegisterPool& pool, int64_t value) {
  uint16_t reg = pool.Fresh(Bank::kI64);
  f.Emit(Opcode::kConstI64, {Reg(reg), ImmI64(value)});
  pool.Produce(Bank::kI64, reg);
}
void ConstF32(FunctionBuilder& f, RegisterPool& pool, float value) {
  uint16_t reg = pool.Fresh(Bank::kF32);
  f.Emit(Opcode::kConstF32, {Reg(reg), ImmF32(value)});
  pool.Produce(Bank::kF32, reg);
}
void ConstF64(FunctionBuilder& f, RegisterPool& pool, double value) {
  uint16_t reg = pool.Fresh(Bank::kF64);
  f.Emit(Opcode::kConstF64, {Reg(reg), ImmF64(value)});
  pool.Produce(Bank::kF64, reg);
}

// Emits every opcode in [first, last] (all register operands; operand 0 the
// destination) reading pooled registers; `fixed_divisor` (when set) is the
// right-hand side of the integer division and remainder opcodes, which would
// otherwise trap on a zero and end the function early.
void EmitRange(FunctionBuilder& f, RegisterPool& pool, Opcode first, Opcode last,
               int fixed_divisor = -1) {
  for (int op = static_cast<int>(first); op <= static_cast<int>(last); ++op) {
    const Opcode opcode = static_cast<Opcode>(op);
    const OpcodeInfo& info = GetOpcodeInfo(opcode);
    const bool divides = info.mnemonic.starts_with("div.i") || info.mnemonic.starts_with("rem.i");
    std::vector<uint16_t> regs;
    for (int i = 1; i < info.operand_count; ++i) {
      const Bank bank = BankOfRegisterKind(info.operands[i]);
      regs.push_back(divides && i == 2 && fixed_divisor >= 0 ? fixed_divisor : pool.Read(bank));
    }
    const Bank dst_bank = BankOfRegisterKind(info.operands[0]);
    const uint16_t dst = pool.Fresh(dst_bank);
    switch (info.operand_count) {
      case 2:
        f.Emit(opcode, {Reg(dst), Reg(regs[0])});
        break;
      case 3:
        f.Emit(opcode, {Reg(dst), Reg(regs[0]), Reg(regs[1])});
        break;
      case 4:
        f.Emit(opcode, {Reg(dst), Reg(regs[0]), Reg(regs[1]), Reg(regs[2])});
        break;
    }
    pool.Produce(dst_bank, dst);
  }
}

constexpr float kNanF = std::numeric_limits<float>::quiet_NaN();
constexpr double kNanD = std::numeric_limits<double>::quiet_NaN();
constexpr float kInfF = std::numeric_limits<float>::infinity();
constexpr double kInfD = std::numeric_limits<double>::infinity();

// --- Seeds. ---

void ArithI32(ModuleBuilder& b) {
  FunctionBuilder& f = b.AddFunction("run", "ii_i");
  RegisterPool pool("ii");
  for (int32_t v : {1234567, -7, INT32_MAX, INT32_MIN, 31, 33}) ConstI32(f, pool, v);
  ConstI32(f, pool, -1);
  const uint16_t minus_one = pool.Last(Bank::kI32);
  EmitRange(f, pool, Opcode::kAddI32, Opcode::kShrUI32, minus_one);
  EmitRange(f, pool, Opcode::kAddI32, Opcode::kShrUI32, 3);  // -7
  f.EmitReturn({pool.Last(Bank::kI32)});
  b.AddExport("run", f.ordinal());
  // Zero arguments: division by zero traps.
  FunctionBuilder& div = b.AddFunction("div", "ii_i");
  div.Emit(Opcode::kDivSI32, {Reg(2), Reg(0), Reg(1)});
  div.EmitReturn({2});
  b.AddExport("div", div.ordinal());
  FunctionBuilder& rem = b.AddFunction("rem", "ii_i");
  rem.Emit(Opcode::kRemUI32, {Reg(2), Reg(0), Reg(1)});
  rem.EmitReturn({2});
  b.AddExport("rem", rem.ordinal());
}

void ArithI64(ModuleBuilder& b) {
  FunctionBuilder& f = b.AddFunction("run", "II_I");
  RegisterPool pool("II");
  for (int64_t v :
       {int64_t{1} << 40, int64_t{-7}, INT64_MAX, INT64_MIN, int64_t{63}, int64_t{65}}) {
    ConstI64(f, pool, v);
  }
  ConstI64(f, pool, -1);
  const uint16_t minus_one = pool.Last(Bank::kI64);
  EmitRange(f, pool, Opcode::kAddI64, Opcode::kShrUI64, minus_one);
  EmitRange(f, pool, Opcode::kAddI64, Opcode::kShrUI64, 3);  // -7
  f.EmitReturn({pool.Last(Bank::kI64)});
  b.AddExport("run", f.ordinal());
  FunctionBuilder& div = b.AddFunction("div", "II_I");
  div.Emit(Opcode::kDivUI64, {Reg(2), Reg(0), Reg(1)});
  div.EmitReturn({2});
  b.AddExport("div", div.ordinal());
  FunctionBuilder& rem = b.AddFunction("rem", "II_I");
  rem.Emit(Opcode::kRemSI64, {Reg(2), Reg(0), Reg(1)});
  rem.EmitReturn({2});
  b.AddExport("rem", rem.ordinal());
}

void ArithF32(ModuleBuilder& b) {
  FunctionBuilder& f = b.AddFunction("run", "ff_f");
  RegisterPool pool("ff");
  for (float v : {1.5f, -0.0f, kInfF, kNanF, 1e-30f, 3.0f, -2.25f}) ConstF32(f, pool, v);
  EmitRange(f, pool, Opcode::kAddF32, Opcode::kRoundF32);
  EmitRange(f, pool, Opcode::kAddF32, Opcode::kRoundF32);
  f.EmitReturn({pool.Last(Bank::kF32)});
  b.AddExport("run", f.ordinal());
}

void ArithF64(ModuleBuilder& b) {
  FunctionBuilder& f = b.AddFunction("run", "FF_F");
  RegisterPool pool("FF");
  for (double v : {1.5, -0.0, kInfD, kNanD, 1e-300, 3.0, -2.25}) ConstF64(f, pool, v);
  EmitRange(f, pool, Opcode::kAddF64, Opcode::kRoundF64);
  EmitRange(f, pool, Opcode::kAddF64, Opcode::kRoundF64);
  f.EmitReturn({pool.Last(Bank::kF64)});
  b.AddExport("run", f.ordinal());
}

void CompareInt(ModuleBuilder& b) {
  FunctionBuilder& f = b.AddFunction("run", "iI_iI");
  RegisterPool pool("iI");
  for (int32_t v : {-1, 5, INT32_MIN}) ConstI32(f, pool, v);
  for (int64_t v : {int64_t{-1}, int64_t{5}, INT64_MIN}) ConstI64(f, pool, v);
  EmitRange(f, pool, Opcode::kCmpEqI32, Opcode::kCmpGeUI32);
  EmitRange(f, pool, Opcode::kCmpEqI64, Opcode::kCmpGeUI64);
  EmitRange(f, pool, Opcode::kSelectI32, Opcode::kSelectI64);
  f.EmitReturn({pool.Last(Bank::kI32), pool.Last(Bank::kI64)});
  b.AddExport("run", f.ordinal());
}

void CompareFloat(ModuleBuilder& b) {
  FunctionBuilder& f = b.AddFunction("run", "fF_ifF");
  RegisterPool pool("fF");
  ConstI32(f, pool, 1);
  for (float v : {kNanF, -0.0f, 0.0f, kInfF, 2.5f}) ConstF32(f, pool, v);
  for (double v : {kNanD, -0.0, 0.0, -kInfD, 2.5}) ConstF64(f, pool, v);
  EmitRange(f, pool, Opcode::kCmpOeqF32, Opcode::kCmpUnoF32);
  EmitRange(f, pool, Opcode::kCmpOeqF64, Opcode::kCmpUnoF64);
  EmitRange(f, pool, Opcode::kSelectF32, Opcode::kSelectF64);
  f.EmitReturn({pool.Last(Bank::kI32), pool.Last(Bank::kF32), pool.Last(Bank::kF64)});
  b.AddExport("run", f.ordinal());
}

void Conversions(ModuleBuilder& b) {
  FunctionBuilder& f = b.AddFunction("run", "_iIfF");
  RegisterPool pool("");
  for (int32_t v : {-1, 300, INT32_MIN, 70000}) ConstI32(f, pool, v);
  for (int64_t v : {int64_t{-1}, INT64_MAX, int64_t{1} << 33}) ConstI64(f, pool, v);
  for (float v : {kNanF, 3e9f, -3e9f, 1.5f, 1e30f}) ConstF32(f, pool, v);
  for (double v : {kNanD, 1e20, -1e20, -1.5, 1e300}) ConstF64(f, pool, v);
  for (int round = 0; round < 3; ++round) {
    EmitRange(f, pool, Opcode::kTruncI64I32, Opcode::kBitcastF64I64);
  }
  f.EmitReturn(
      {pool.Last(Bank::kI32), pool.Last(Bank::kI64), pool.Last(Bank::kF32), pool.Last(Bank::kF64)});
  b.AddExport("run", f.ordinal());
}

void Branches(ModuleBuilder& b) {
  FunctionBuilder& f = b.AddFunction("pick", "iI_i");
  Label yes = f.NewLabel(), no = f.NewLabel(), less = f.NewLabel(), more = f.NewLabel(),
        less64 = f.NewLabel(), more64 = f.NewLabel(), done = f.NewLabel();
  f.Emit(Opcode::kConstI32, {Reg(1), ImmI32(10)});
  f.Emit(Opcode::kCondBr, {Reg(0), Target(yes), Target(no)});
  f.Bind(yes);
  f.Emit(Opcode::kAddI32, {Reg(1), Reg(1), Reg(1)});
  f.Emit(Opcode::kBr, {Target(no)});
  f.Bind(no);
  f.Emit(Opcode::kBrLtI32S, {Reg(0), Reg(1), Target(less), Target(more)});
  f.Bind(less);
  f.Emit(Opcode::kConstI32, {Reg(2), ImmI32(-1)});
  f.Emit(Opcode::kBr, {Target(more)});
  f.Bind(more);
  f.Emit(Opcode::kConstI64, {Reg(1), ImmI64(-5)});
  f.Emit(Opcode::kBrLtI64S, {Reg(1), Reg(0), Target(less64), Target(more64)});
  f.Bind(less64);
  f.Emit(Opcode::kConstI32, {Reg(2), ImmI32(64)});
  f.Emit(Opcode::kBr, {Target(done)});
  f.Bind(more64);
  f.Emit(Opcode::kConstI32, {Reg(2), ImmI32(46)});
  f.Emit(Opcode::kBr, {Target(done)});
  f.Bind(done);
  f.EmitReturn({2});
  b.AddExport("pick", f.ordinal());
}

void Switch(ModuleBuilder& b) {
  // A small table on the argument, then a 300-entry one on a constant.
  FunctionBuilder& f = b.AddFunction("run", "i_i");
  std::vector<Label> cases;
  for (int i = 0; i < 4; ++i) cases.push_back(f.NewLabel());
  Label fallback = f.NewLabel(), next = f.NewLabel(), done = f.NewLabel();
  f.EmitSwitch(0, fallback, cases);
  for (int i = 0; i < 4; ++i) {
    f.Bind(cases[i]);
    f.Emit(Opcode::kConstI32, {Reg(1), ImmI32(100 + i)});
    f.Emit(Opcode::kBr, {Target(next)});
  }
  f.Bind(fallback);
  f.Emit(Opcode::kConstI32, {Reg(1), ImmI32(-1)});
  f.Emit(Opcode::kBr, {Target(next)});
  f.Bind(next);
  std::vector<Label> many(300, done);
  Label hit = f.NewLabel();
  many[257] = hit;
  f.Emit(Opcode::kConstI32, {Reg(2), ImmI32(257)});
  f.EmitSwitch(2, done, many);
  f.Bind(hit);
  f.Emit(Opcode::kAddI32, {Reg(1), Reg(1), Reg(2)});
  f.Emit(Opcode::kBr, {Target(done)});
  f.Bind(done);
  f.EmitReturn({1});
  b.AddExport("run", f.ordinal());
  // An index past the table (and a negative one) takes the default.
  FunctionBuilder& g = b.AddFunction("out_of_table", "_i");
  Label a = g.NewLabel(), d = g.NewLabel();
  const Label table[] = {a};
  g.Emit(Opcode::kConstI32, {Reg(0), ImmI32(-3)});
  g.EmitSwitch(0, d, table);
  g.Bind(a);
  g.EmitReturn({0});
  g.Bind(d);
  g.Emit(Opcode::kConstI32, {Reg(0), ImmI32(7)});
  g.EmitReturn({0});
  b.AddExport("out_of_table", g.ordinal());
}

void Calls(ModuleBuilder& b) {
  // mix reverses its arguments across banks; twice calls it twice; main
  // calls twice, a three-level non-recursive chain.
  FunctionBuilder& mix = b.AddFunction("mix", "iIfFr_rFfIi");
  mix.Emit(Opcode::kAddI32, {Reg(0), Reg(0), Reg(0)});
  mix.EmitReturn({0, 0, 0, 0, 0});
  FunctionBuilder& twice = b.AddFunction("twice", "iIfFr_iIfFr");
  const uint16_t args[] = {0, 0, 0, 0, 0}, results[] = {1, 1, 1, 1, 1};
  twice.EmitCall(mix.ordinal(), args, results);
  twice.EmitCall(mix.ordinal(), args, results);
  twice.EmitReturn({1, 1, 1, 1, 1});
  FunctionBuilder& main = b.AddFunction("main", "_iIfFr");
  main.Emit(Opcode::kConstI32, {Reg(0), ImmI32(21)});
  main.Emit(Opcode::kConstI64, {Reg(0), ImmI64(-2)});
  main.Emit(Opcode::kConstF32, {Reg(0), ImmF32(0.5f)});
  main.Emit(Opcode::kConstF64, {Reg(0), ImmF64(0.25)});
  main.Emit(Opcode::kConstRefNull, {Reg(0)});
  const uint16_t out[] = {1, 1, 1, 1, 1};
  main.EmitCall(twice.ordinal(), args, out);
  main.EmitReturn({1, 1, 1, 1, 1});
  b.AddExport("main", main.ordinal());
  b.AddExport("twice", twice.ordinal());
}

void Imports(ModuleBuilder& b) {
  const uint32_t nop = b.AddImport("fuzz._", "_");
  const uint32_t count = b.AddImport("fuzz._i", "_i");
  const uint32_t check = b.AddImport("fuzz.i_", "i_");
  const uint32_t inc = b.AddImport("fuzz.i_i", "i_i");
  const uint32_t xor2 = b.AddImport("fuzz.ii_i", "ii_i");
  const uint32_t i64 = b.AddImport("fuzz.I_I", "I_I");
  const uint32_t f32 = b.AddImport("fuzz.f_f", "f_f");
  const uint32_t f64 = b.AddImport("fuzz.F_F", "F_F");
  const uint32_t same = b.AddImport("fuzz.r_r", "r_r");
  const uint32_t list = b.AddImport("fuzz.i_r", "i_r");
  const uint32_t buffer = b.AddImport("fuzz.I_r", "I_r");
  const uint32_t length = b.AddImport("fuzz.r_I", "r_I");
  const uint32_t absent = b.AddImport("absent.fn", "i_i", /*optional=*/true);

  FunctionBuilder& main = b.AddFunction("main", "_iIfFr");
  const uint16_t r0[] = {0}, r1[] = {1}, r01[] = {0, 1}, r2[] = {2};
  main.EmitCallImport(nop, {}, {});
  main.EmitCallImport(count, {}, r0);
  main.EmitCallImport(inc, r0, r1);
  main.EmitCallImport(xor2, r01, r2);
  main.Emit(Opcode::kConstI64, {Reg(0), ImmI64(40)});
  main.EmitCallImport(i64, r0, r1);
  main.Emit(Opcode::kConstF32, {Reg(0), ImmF32(3.0f)});
  main.EmitCallImport(f32, r0, r0);
  main.Emit(Opcode::kConstF64, {Reg(0), ImmF64(3.0)});
  main.EmitCallImport(f64, r0, r0);
  main.EmitCallImport(list, r2, r0);  // ref:0 = list of i32:2 elements
  main.EmitCallImport(same, r0, r1);
  main.EmitCallImport(buffer, r1, r0);  // ref:0 = buffer of i64:1 bytes
  main.EmitCallImport(length, r0, r1);
  main.Emit(Opcode::kImportResolved, {Reg(3), Index(absent)});
  main.Emit(Opcode::kImportResolved, {Reg(4), Index(inc)});
  main.Emit(Opcode::kConstI32, {Reg(5), ImmI32(0)});
  const uint16_t r5[] = {5};
  main.EmitCallImport(check, r5, {});
  main.EmitReturn({2, 1, 0, 0, 0});
  b.AddExport("main", main.ordinal());
  // Errors: an unresolved optional import, a failing native function, a ref
  // of the wrong type.
  FunctionBuilder& call_absent = b.AddFunction("call_absent", "i_i");
  call_absent.EmitCallImport(absent, r0, r0);
  call_absent.EmitReturn({0});
  b.AddExport("call_absent", call_absent.ordinal());
  FunctionBuilder& reject = b.AddFunction("reject", "_");
  reject.Emit(Opcode::kConstI32, {Reg(0), ImmI32(5)});
  reject.EmitCallImport(check, r0, {});
  reject.EmitReturn({});
  b.AddExport("reject", reject.ordinal());
  FunctionBuilder& wrong_type = b.AddFunction("wrong_type", "_I");
  wrong_type.Emit(Opcode::kConstI32, {Reg(0), ImmI32(3)});
  wrong_type.EmitCallImport(list, r0, r0);
  wrong_type.EmitCallImport(length, r0, r0);
  wrong_type.EmitReturn({0});
  b.AddExport("wrong_type", wrong_type.ordinal());
}

void Globals(ModuleBuilder& b) {
  b.SetGlobals(32, 2);
  FunctionBuilder& init = b.AddFunction("init", "_");
  init.Emit(Opcode::kConstI32, {Reg(0), ImmI32(7)});
  init.Emit(Opcode::kGlobalStoreI32, {Index(0), Reg(0)});
  init.Emit(Opcode::kConstF32, {Reg(0), ImmF32(1.25f)});
  init.Emit(Opcode::kGlobalStoreF32, {Index(4), Reg(0)});
  init.Emit(Opcode::kConstI64, {Reg(0), ImmI64(-9)});
  init.Emit(Opcode::kGlobalStoreI64, {Index(8), Reg(0)});
  init.Emit(Opcode::kConstF64, {Reg(0), ImmF64(-0.5)});
  init.Emit(Opcode::kGlobalStoreF64, {Index(24), Reg(0)});
  init.Emit(Opcode::kConstI32, {Reg(0), ImmI32(2)});
  init.Emit(Opcode::kListAlloc, {Reg(0), Reg(0)});
  init.Emit(Opcode::kGlobalStoreRef, {Index(1), Reg(0)});
  init.EmitReturn({});
  b.SetInitializer(init.ordinal());
  FunctionBuilder& get = b.AddFunction("get", "_iIfFr");
  get.Emit(Opcode::kGlobalLoadI32, {Reg(0), Index(0)});
  get.Emit(Opcode::kGlobalLoadI64, {Reg(0), Index(8)});
  get.Emit(Opcode::kGlobalLoadF32, {Reg(0), Index(4)});
  get.Emit(Opcode::kGlobalLoadF64, {Reg(0), Index(24)});
  get.Emit(Opcode::kGlobalLoadRef, {Reg(0), Index(1)});
  get.EmitReturn({0, 0, 0, 0, 0});
  b.AddExport("get", get.ordinal());
  FunctionBuilder& bump = b.AddFunction("bump", "_i");
  bump.Emit(Opcode::kGlobalLoadI32, {Reg(0), Index(0)});
  bump.Emit(Opcode::kConstI32, {Reg(1), ImmI32(1)});
  bump.Emit(Opcode::kAddI32, {Reg(0), Reg(0), Reg(1)});
  bump.Emit(Opcode::kGlobalStoreI32, {Index(0), Reg(0)});
  bump.Emit(Opcode::kGlobalLoadRef, {Reg(0), Index(1)});
  bump.Emit(Opcode::kGlobalStoreRef, {Index(0), Reg(0)});
  bump.Emit(Opcode::kConstRefNull, {Reg(0)});
  bump.Emit(Opcode::kGlobalStoreRef, {Index(1), Reg(0)});
  bump.EmitReturn({0});
  b.AddExport("bump", bump.ordinal());
}

void Rodata(ModuleBuilder& b) {
  std::vector<uint8_t> table(32);
  for (size_t i = 0; i < table.size(); ++i) table[i] = static_cast<uint8_t>(0xF0 + i);
  const uint32_t data = b.AddRodata("table", table, 16);
  // Alignment 1: the builder cannot align an empty vector (FlatBuffers skips
  // it), and the verifier checks the alignment of empty segments too.
  const uint32_t empty = b.AddRodata("empty", {}, 1);
  FunctionBuilder& read = b.AddFunction("read", "_iIfF");
  read.Emit(Opcode::kConstRefRodata, {Reg(0), Index(data)});
  read.Emit(Opcode::kBufferLength, {Reg(0), Reg(0)});
  read.Emit(Opcode::kConstI64, {Reg(1), ImmI64(8)});
  read.Emit(Opcode::kBufferLoadI8S, {Reg(0), Reg(0), Reg(1)});
  read.Emit(Opcode::kBufferLoadI8U, {Reg(1), Reg(0), Reg(1)});
  read.Emit(Opcode::kBufferLoadI16S, {Reg(2), Reg(0), Reg(1)});
  read.Emit(Opcode::kBufferLoadI16U, {Reg(3), Reg(0), Reg(1)});
  read.Emit(Opcode::kBufferLoadI32, {Reg(4), Reg(0), Reg(1)});
  read.Emit(Opcode::kBufferLoadI64, {Reg(2), Reg(0), Reg(1)});
  read.Emit(Opcode::kBufferLoadF32, {Reg(0), Reg(0), Reg(1)});
  read.Emit(Opcode::kBufferLoadF64, {Reg(0), Reg(0), Reg(1)});
  read.Emit(Opcode::kConstRefRodata, {Reg(1), Index(empty)});
  read.Emit(Opcode::kBufferLength, {Reg(3), Reg(1)});
  read.EmitReturn({4, 2, 0, 0});
  b.AddExport("read", read.ordinal());
  FunctionBuilder& write = b.AddFunction("write_read_only", "_");
  write.Emit(Opcode::kConstRefRodata, {Reg(0), Index(data)});
  write.Emit(Opcode::kConstI64, {Reg(0), ImmI64(0)});
  write.Emit(Opcode::kConstI32, {Reg(0), ImmI32(1)});
  write.Emit(Opcode::kBufferStoreI8, {Reg(0), Reg(0), Reg(0)});
  write.EmitReturn({});
  b.AddExport("write_read_only", write.ordinal());
  FunctionBuilder& past = b.AddFunction("past_end", "_i");
  past.Emit(Opcode::kConstRefRodata, {Reg(0), Index(data)});
  past.Emit(Opcode::kConstI64, {Reg(0), ImmI64(29)});
  past.Emit(Opcode::kBufferLoadI32, {Reg(0), Reg(0), Reg(0)});
  past.EmitReturn({0});
  b.AddExport("past_end", past.ordinal());
}

void Lists(ModuleBuilder& b) {
  b.AddType("vm.list");
  const uint32_t native_list = b.AddImport("fuzz.i_r", "i_r");
  FunctionBuilder& f = b.AddFunction("roundtrip", "_iIfFr");
  f.Emit(Opcode::kConstI32, {Reg(0), ImmI32(4)});
  f.Emit(Opcode::kListAlloc, {Reg(0), Reg(0)});
  f.Emit(Opcode::kConstI32, {Reg(1), ImmI32(5)});
  f.Emit(Opcode::kListResize, {Reg(0), Reg(1)});
  f.Emit(Opcode::kListSize, {Reg(2), Reg(0)});
  f.Emit(Opcode::kConstI32, {Reg(1), ImmI32(0)});
  f.Emit(Opcode::kConstI64, {Reg(0), ImmI64(-3)});
  f.Emit(Opcode::kConstF32, {Reg(0), ImmF32(2.5f)});
  f.Emit(Opcode::kConstF64, {Reg(0), ImmF64(-2.5)});
  f.Emit(Opcode::kListSetI32, {Reg(0), Reg(1), Reg(2)});
  f.Emit(Opcode::kConstI32, {Reg(1), ImmI32(1)});
  f.Emit(Opcode::kListSetI64, {Reg(0), Reg(1), Reg(0)});
  f.Emit(Opcode::kConstI32, {Reg(1), ImmI32(2)});
  f.Emit(Opcode::kListSetF32, {Reg(0), Reg(1), Reg(0)});
  f.Emit(Opcode::kConstI32, {Reg(1), ImmI32(3)});
  f.Emit(Opcode::kListSetF64, {Reg(0), Reg(1), Reg(0)});
  f.Emit(Opcode::kListGetF64, {Reg(1), Reg(0), Reg(1)});
  f.Emit(Opcode::kConstI32, {Reg(1), ImmI32(2)});
  f.Emit(Opcode::kListGetF32, {Reg(1), Reg(0), Reg(1)});
  f.Emit(Opcode::kConstI32, {Reg(1), ImmI32(1)});
  f.Emit(Opcode::kListGetI64, {Reg(1), Reg(0), Reg(1)});
  f.Emit(Opcode::kConstI32, {Reg(1), ImmI32(0)});
  f.Emit(Opcode::kListGetI32, {Reg(3), Reg(0), Reg(1)});
  f.Emit(Opcode::kConstI32, {Reg(1), ImmI32(4)});
  f.Emit(Opcode::kListGetRef, {Reg(1), Reg(0), Reg(1)});  // none reads as null
  f.Emit(Opcode::kRefIsType, {Reg(4), Reg(0), Index(0)});
  f.EmitReturn({3, 1, 1, 1, 0});
  b.AddExport("roundtrip", f.ordinal());
  // Errors on a list made by native code: a mistyped get, an index past the
  // end, a negative resize, and a null list.
  FunctionBuilder& errors = b.AddFunction("mistyped", "_f");
  const uint16_t r0[] = {0};
  errors.Emit(Opcode::kConstI32, {Reg(0), ImmI32(3)});
  errors.EmitCallImport(native_list, r0, r0);
  errors.Emit(Opcode::kConstI32, {Reg(0), ImmI32(1)});
  errors.Emit(Opcode::kListGetF32, {Reg(0), Reg(0), Reg(0)});
  errors.EmitReturn({0});
  b.AddExport("mistyped", errors.ordinal());
  FunctionBuilder& oob = b.AddFunction("past_end", "_i");
  oob.Emit(Opcode::kConstI32, {Reg(0), ImmI32(3)});
  oob.EmitCallImport(native_list, r0, r0);
  oob.Emit(Opcode::kConstI32, {Reg(0), ImmI32(-1)});
  oob.Emit(Opcode::kListGetI32, {Reg(0), Reg(0), Reg(0)});
  oob.EmitReturn({0});
  b.AddExport("past_end", oob.ordinal());
  FunctionBuilder& null_list = b.AddFunction("null_list", "r_i");
  null_list.Emit(Opcode::kListSize, {Reg(0), Reg(0)});
  null_list.EmitReturn({0});
  b.AddExport("null_list", null_list.ordinal());
  // list.set.ref: the harness does not run it (a list may hold itself and
  // leak), but mutations of it are worth having.
  FunctionBuilder& nest = b.AddFunction("nest", "_r");
  nest.Emit(Opcode::kConstI32, {Reg(0), ImmI32(1)});
  nest.EmitCallImport(native_list, r0, r0);
  const uint16_t r1[] = {1};
  nest.EmitCallImport(native_list, r0, r1);
  nest.Emit(Opcode::kConstI32, {Reg(0), ImmI32(0)});
  nest.Emit(Opcode::kListSetRef, {Reg(0), Reg(0), Reg(1)});
  nest.EmitReturn({0});
  b.AddExport("nest", nest.ordinal());
}

void Buffers(ModuleBuilder& b) {
  b.AddType("vm.buffer");
  FunctionBuilder& f = b.AddFunction("roundtrip", "_iIfFr");
  f.Emit(Opcode::kConstI64, {Reg(0), ImmI64(64)});
  f.Emit(Opcode::kBufferAlloc, {Reg(0), Reg(0)});
  f.Emit(Opcode::kBufferAlloc, {Reg(1), Reg(0)});
  f.Emit(Opcode::kConstI64, {Reg(1), ImmI64(3)});
  f.Emit(Opcode::kConstI64, {Reg(2), ImmI64(40)});
  f.Emit(Opcode::kConstI32, {Reg(0), ImmI32(0xAB)});
  f.Emit(Opcode::kBufferFill, {Reg(0), Reg(1), Reg(2), Reg(0)});
  f.Emit(Opcode::kBufferCopy, {Reg(0), Reg(1), Reg(1), Reg(1), Reg(2)});
  f.Emit(Opcode::kConstI64, {Reg(3), ImmI64(16)});
  f.Emit(Opcode::kConstI32, {Reg(0), ImmI32(-2)});
  f.Emit(Opcode::kBufferStoreI8, {Reg(1), Reg(3), Reg(0)});
  f.Emit(Opcode::kBufferStoreI16, {Reg(1), Reg(3), Reg(0)});
  f.Emit(Opcode::kBufferStoreI32, {Reg(1), Reg(3), Reg(0)});
  f.Emit(Opcode::kBufferStoreI64, {Reg(1), Reg(3), Reg(1)});
  f.Emit(Opcode::kConstF32, {Reg(0), ImmF32(-1.0f)});
  f.Emit(Opcode::kBufferStoreF32, {Reg(1), Reg(3), Reg(0)});
  f.Emit(Opcode::kConstF64, {Reg(0), ImmF64(1e10)});
  f.Emit(Opcode::kBufferStoreF64, {Reg(1), Reg(2), Reg(0)});
  f.Emit(Opcode::kBufferLoadF64, {Reg(0), Reg(1), Reg(2)});
  f.Emit(Opcode::kBufferLoadF32, {Reg(0), Reg(1), Reg(3)});
  f.Emit(Opcode::kBufferLoadI64, {Reg(4), Reg(1), Reg(1)});
  f.Emit(Opcode::kBufferLoadI16S, {Reg(1), Reg(1), Reg(3)});
  f.Emit(Opcode::kBufferLength, {Reg(5), Reg(1)});
  f.Emit(Opcode::kRefIsType, {Reg(2), Reg(1), Index(0)});
  f.EmitReturn({1, 4, 0, 0, 1});
  b.AddExport("roundtrip", f.ordinal());
  // Range errors on a native buffer: an overlapping copy that runs past
  // the end, and a negative-length buffer.alloc.
  const uint32_t native_buffer = b.AddImport("fuzz.I_r", "I_r");
  FunctionBuilder& range = b.AddFunction("copy_past_end", "_");
  const uint16_t r0[] = {0};
  range.Emit(Opcode::kConstI64, {Reg(0), ImmI64(16)});
  range.EmitCallImport(native_buffer, r0, r0);
  range.Emit(Opcode::kConstI64, {Reg(1), ImmI64(8)});
  range.Emit(Opcode::kConstI64, {Reg(2), ImmI64(9)});
  range.Emit(Opcode::kBufferCopy, {Reg(0), Reg(1), Reg(0), Reg(0), Reg(2)});
  range.EmitReturn({});
  b.AddExport("copy_past_end", range.ordinal());
  FunctionBuilder& negative = b.AddFunction("negative_alloc", "_r");
  negative.Emit(Opcode::kConstI64, {Reg(0), ImmI64(-16)});
  negative.Emit(Opcode::kBufferAlloc, {Reg(0), Reg(0)});
  negative.EmitReturn({0});
  b.AddExport("negative_alloc", negative.ordinal());
}

void Refs(ModuleBuilder& b) {
  b.AddType("vm.buffer");
  b.AddType("vm.list");
  const uint32_t data = b.AddRodata("bytes", std::vector<uint8_t>{1, 2, 3, 4}, 4);
  FunctionBuilder& f = b.AddFunction("run", "r_iiiir");
  f.Emit(Opcode::kConstRefRodata, {Reg(1), Index(data)});
  f.Emit(Opcode::kRefIsNull, {Reg(0), Reg(0)});
  f.Emit(Opcode::kRefIsNull, {Reg(1), Reg(1)});
  f.Emit(Opcode::kMovRef, {Reg(2), Reg(1)});
  f.Emit(Opcode::kRefEq, {Reg(2), Reg(2), Reg(1)});
  f.Emit(Opcode::kRefIsType, {Reg(3), Reg(1), Index(0)});
  f.Emit(Opcode::kRefIsType, {Reg(4), Reg(1), Index(1)});
  f.Emit(Opcode::kSelectRef, {Reg(3), Reg(0), Reg(0), Reg(1)});
  f.Emit(Opcode::kConstRefNull, {Reg(2)});
  f.EmitReturn({0, 2, 3, 4, 3});
  b.AddExport("run", f.ordinal());
}

void Moves(ModuleBuilder& b) {
  FunctionBuilder& f = b.AddFunction("run", "iIfFr_rFfIi");
  f.Emit(Opcode::kMovI32, {Reg(1), Reg(0)});
  f.Emit(Opcode::kMovI64, {Reg(1), Reg(0)});
  f.Emit(Opcode::kMovF32, {Reg(1), Reg(0)});
  f.Emit(Opcode::kMovF64, {Reg(1), Reg(0)});
  f.Emit(Opcode::kMovRef, {Reg(1), Reg(0)});
  f.EmitReturn({1, 1, 1, 1, 1});
  b.AddExport("run", f.ordinal());
  // Exports with many signatures, so argument synthesis sees every bank.
  const char* signatures[] = {"_",  "i_",    "I_",     "f_",     "F_",
                              "r_", "iiii_", "rrrr_r", "FFFF_F", "fIrFi_"};
  for (const char* signature : signatures) {
    FunctionBuilder& g = b.AddFunction(std::string("sig") + signature, signature);
    std::string_view results =
        std::string_view(signature).substr(std::string_view(signature).find('_') + 1);
    std::vector<uint16_t> values(results.size(), 0);
    g.EmitReturn(values);
    b.AddExport(g.name(), g.ordinal());
  }
}

void Trace(ModuleBuilder& b) {
  const uint32_t file = b.AddSourceFile("trace.mlir");
  const uint32_t message = b.AddString("values");
  const uint32_t empty = b.AddString("");
  FunctionBuilder& f = b.AddFunction("run", "iIfF_");
  f.SetLocation(file, 3, 5);
  f.Emit(Opcode::kConstRefNull, {Reg(0)});
  const std::pair<Bank, uint16_t> operands[] = {
      {Bank::kI32, 0}, {Bank::kI64, 0}, {Bank::kF32, 0}, {Bank::kF64, 0}, {Bank::kRef, 0}};
  f.SetLocation(file, 4, 1);
  f.EmitTrace(message, operands);
  f.ClearLocation();
  f.EmitTrace(empty, {});
  f.EmitReturn({});
  b.AddExport("run", f.ordinal());
}

void Fail(ModuleBuilder& b) {
  const uint32_t file = b.AddSourceFile("fail.mlir");
  const uint32_t message = b.AddString("assertion failed: x > 0");
  FunctionBuilder& inner = b.AddFunction("inner", "i_");
  inner.SetLocation(file, 10, 3);
  inner.Emit(Opcode::kFail, {Index(message)});
  FunctionBuilder& outer = b.AddFunction("outer", "_");
  outer.SetLocation(file, 20, 7);
  outer.Emit(Opcode::kConstI32, {Reg(0), ImmI32(0)});
  const uint16_t args[] = {0};
  outer.EmitCall(inner.ordinal(), args, {});
  outer.EmitReturn({});
  b.AddExport("outer", outer.ordinal());
  b.AddExport("inner", inner.ordinal());
}

void Traps(ModuleBuilder& b) {
  // A division by zero three calls deep: the error has "called from" lines.
  const uint32_t file = b.AddSourceFile("traps.mlir");
  FunctionBuilder& leaf = b.AddFunction("leaf", "ii_i");
  leaf.SetLocation(file, 1, 1);
  leaf.Emit(Opcode::kDivSI32, {Reg(2), Reg(0), Reg(1)});
  leaf.EmitReturn({2});
  FunctionBuilder& middle = b.AddFunction("middle", "i_i");
  middle.SetLocation(file, 5, 2);
  middle.Emit(Opcode::kConstI32, {Reg(1), ImmI32(0)});
  const uint16_t args[] = {0, 1}, result[] = {2};
  middle.EmitCall(leaf.ordinal(), args, result);
  middle.EmitReturn({2});
  FunctionBuilder& top = b.AddFunction("top", "_i");
  top.Emit(Opcode::kConstI32, {Reg(0), ImmI32(9)});
  const uint16_t arg[] = {0}, out[] = {1};
  top.EmitCall(middle.ordinal(), arg, out);
  top.EmitReturn({1});
  b.AddExport("top", top.ordinal());
}

void StackLimits(ModuleBuilder& b) {
  // A chain of 70 distinct functions: deeper than the harness's 64-deep
  // stack without any recursion.
  constexpr int kChain = 70;
  std::vector<FunctionBuilder*> chain;
  for (int i = 0; i < kChain; ++i) chain.push_back(&b.AddFunction("f" + std::to_string(i), "_"));
  for (int i = 0; i < kChain; ++i) {
    if (i + 1 < kChain) chain[i]->EmitCall(chain[i + 1]->ordinal(), {}, {});
    chain[i]->EmitReturn({});
  }
  b.AddExport("deep", chain[0]->ordinal());
  // A frame bigger than the harness's 64 KiB register arena.
  FunctionBuilder& big = b.AddFunction("big_frame", "_");
  big.SetRegisterCounts({0, 9000, 0, 0, 0});
  big.EmitReturn({});
  b.AddExport("big_frame", big.ordinal());
  FunctionBuilder& small = b.AddFunction("small", "_i");
  small.Emit(Opcode::kConstI32, {Reg(0), ImmI32(1)});
  small.EmitReturn({0});
  b.AddExport("small", small.ordinal());
}

void Loops(ModuleBuilder& b) {
  // sum(0..n) with a br.lt back-edge and recursive fib (run with n = 0 by
  // the harness, whose arguments are zeros), and one straight-line export.
  FunctionBuilder& sum = b.AddFunction("sum", "i_i");
  Label head = sum.NewLabel(), body = sum.NewLabel(), exit = sum.NewLabel();
  sum.Emit(Opcode::kConstI32, {Reg(1), ImmI32(0)});
  sum.Emit(Opcode::kConstI32, {Reg(2), ImmI32(0)});
  sum.Emit(Opcode::kConstI32, {Reg(3), ImmI32(1)});
  sum.Emit(Opcode::kBr, {Target(head)});
  sum.Bind(head);
  sum.Emit(Opcode::kBrLtI32S, {Reg(2), Reg(0), Target(body), Target(exit)});
  sum.Bind(body);
  sum.Emit(Opcode::kAddI32, {Reg(1), Reg(1), Reg(2)});
  sum.Emit(Opcode::kAddI32, {Reg(2), Reg(2), Reg(3)});
  sum.Emit(Opcode::kBr, {Target(head)});
  sum.Bind(exit);
  sum.EmitReturn({1});
  b.AddExport("sum", sum.ordinal());
  FunctionBuilder& fib = b.AddFunction("fib", "i_i");
  Label base = fib.NewLabel(), recurse = fib.NewLabel();
  fib.Emit(Opcode::kConstI32, {Reg(1), ImmI32(2)});
  fib.Emit(Opcode::kBrLtI32S, {Reg(0), Reg(1), Target(base), Target(recurse)});
  fib.Bind(base);
  fib.EmitReturn({0});
  fib.Bind(recurse);
  fib.Emit(Opcode::kConstI32, {Reg(2), ImmI32(1)});
  fib.Emit(Opcode::kSubI32, {Reg(3), Reg(0), Reg(2)});
  const uint16_t arg[] = {3}, first[] = {4}, second[] = {5};
  fib.EmitCall(fib.ordinal(), arg, first);
  fib.Emit(Opcode::kSubI32, {Reg(3), Reg(0), Reg(1)});
  fib.EmitCall(fib.ordinal(), arg, second);
  fib.Emit(Opcode::kAddI32, {Reg(4), Reg(4), Reg(5)});
  fib.EmitReturn({4});
  b.AddExport("fib", fib.ordinal());
  FunctionBuilder& straight = b.AddFunction("straight", "i_i");
  straight.Emit(Opcode::kNegI32, {Reg(0), Reg(0)});
  straight.EmitReturn({0});
  b.AddExport("straight", straight.ordinal());
  // Loops and recursion that run for real under the harness's execution
  // budget: a counted loop with constant operands, fib(12) through the
  // recursive fib, and a loop that never ends (stopped by the budget).
  FunctionBuilder& count = b.AddFunction("count", "i_i");
  Label again = count.NewLabel(), done = count.NewLabel();
  count.Emit(Opcode::kConstI32, {Reg(1), ImmI32(0)});
  count.Emit(Opcode::kBr, {Target(again)});  // Blocks are entered by branches only.
  count.Bind(again);
  count.Emit(Opcode::kAddImmI32, {Reg(1), Reg(1), ImmI32(3)});
  count.Emit(Opcode::kBrLtImmI32S, {Reg(1), ImmI32(300), Target(again), Target(done)});
  count.Bind(done);
  count.EmitReturn({1});
  b.AddExport("count", count.ordinal());
  FunctionBuilder& fib12 = b.AddFunction("fib12", "i_i");
  fib12.Emit(Opcode::kConstI32, {Reg(1), ImmI32(12)});
  const uint16_t n12[] = {1}, out[] = {2};
  fib12.EmitCall(fib.ordinal(), n12, out);
  fib12.EmitReturn({2});
  b.AddExport("fib12", fib12.ordinal());
  FunctionBuilder& forever = b.AddFunction("forever", "I_I");
  Label top = forever.NewLabel();
  forever.Bind(top);
  forever.Emit(Opcode::kAddImmI64, {Reg(0), Reg(0), ImmI32(1)});
  forever.Emit(Opcode::kBr, {Target(top)});
  b.AddExport("forever", forever.ordinal());
}

void Reflection(ModuleBuilder& b) {
  // Export reflection, several source files and a module version.
  ModuleBuilder& m = b;
  m.AddSourceFile("a.mlir");
  const uint32_t second = m.AddSourceFile("b.mlir");
  FunctionBuilder& f = m.AddFunction("predict", "ff_f");
  f.SetLocation(second, 12, 9);
  f.Emit(Opcode::kMulF32, {Reg(2), Reg(0), Reg(1)});
  f.SetLocation(second, 13, 1);
  f.EmitReturn({2});
  ExportReflection reflection;
  reflection.attributes = {{"iree.abi", "{\"a\":[\"f32\",\"f32\"]}"}, {"kind", "model"}};
  reflection.argument_descriptions = {"f32 x", "f32 w"};
  reflection.result_descriptions = {"f32 y"};
  m.AddExport("predict", f.ordinal(), reflection);
  m.AddExport("@alias.with.dots", f.ordinal());
}

struct Seed {
  const char* name;
  void (*build)(ModuleBuilder&);
  uint32_t version = 0;
};

constexpr Seed kSeeds[] = {
    {"arith_i32", ArithI32},
    {"arith_i64", ArithI64},
    {"arith_f32", ArithF32},
    {"arith_f64", ArithF64},
    {"compare_int", CompareInt},
    {"compare_float", CompareFloat},
    {"conversions", Conversions},
    {"branches", Branches},
    {"switch", Switch},
    {"calls", Calls},
    {"imports", Imports},
    {"globals", Globals},
    {"rodata", Rodata},
    {"lists", Lists},
    {"buffers", Buffers},
    {"refs", Refs},
    {"moves", Moves},
    {"trace", Trace},
    {"fail", Fail},
    {"traps", Traps},
    {"stack_limits", StackLimits},
    {"loops", Loops},
    {"reflection", Reflection, 7},
};

}  // namespace
}  // namespace kiln::vm

int main(int argc, char** argv) {
  using namespace kiln;
  if (argc != 2) {
    std::fprintf(stderr, "usage: %s OUTPUT_DIR\n", argv[0]);
    return 2;
  }
  const std::filesystem::path directory = argv[1];
  std::error_code error;
  std::filesystem::create_directories(directory, error);
  if (error) {
    std::fprintf(stderr, "error: cannot create '%s': %s\n", argv[1], error.message().c_str());
    return 1;
  }
  Ref<vm::Instance> instance = vm::Instance::Create();
  size_t total = 0;
  for (const vm::Seed& seed : vm::kSeeds) {
    vm::ModuleBuilder builder(seed.name, seed.version);
    seed.build(builder);
    auto bytes = builder.Finish();
    if (!bytes.ok()) {
      std::fprintf(stderr, "error: seed '%s': %s\n", seed.name, bytes.status().ToString().c_str());
      return 1;
    }
    auto module = vm::BytecodeModule::Load(*instance, AlignedBuffer::CopyOf(*bytes));
    if (!module.ok()) {
      std::fprintf(stderr, "error: seed '%s' does not verify: %s\n", seed.name,
                   module.status().ToString().c_str());
      return 1;
    }
    const std::string path = (directory / (std::string(seed.name) + ".kmod")).string();
    // The corpus holds FlatBuffer bytes: the fuzzer seals each input itself
    // (tests/fuzz/module_runner.h).
    Status written = WriteFile(
        path, std::span<const uint8_t>(*bytes).first(bytes->size() - vm::kModuleTrailerBytes));
    if (!written.ok()) {
      std::fprintf(stderr, "error: %s\n", written.ToString().c_str());
      return 1;
    }
    total += bytes->size();
  }
  std::printf("wrote %zu seeds (%zu bytes) to %s\n", std::size(vm::kSeeds), total, argv[1]);
  return 0;
}
