// Tests of vm/disassembler.h: exact text of real functions (calls, branches,
// imports, rodata, strings, globals, switch, trace, float immediates), the
// structured form, every fixed-operand opcode generically against the opcode
// table, and errors on bad offsets and malformed bytecode.
#include "vm/disassembler.h"

#include <gtest/gtest.h>

#include <cmath>
#include <limits>
#include <string>
#include <vector>

#include "base/file_io.h"
#include "schemas/module_generated.h"
#include "tests/tools/test_modules.h"
#include "vm/bytecode_module.h"
#include "vm/instance.h"
#include "vm/module_builder.h"

namespace kiln::vm {
namespace {

class DisassemblerTest : public ::testing::Test {
 protected:
  void SetUp() override {
    auto bytes = kiln::testing::BuildToolsTestModule();
    ASSERT_TRUE(bytes.ok()) << bytes.status().ToString();
    instance_ = Instance::Create();
    auto module = BytecodeModule::Load(*instance_, AlignedBuffer::CopyOf(*bytes));
    ASSERT_TRUE(module.ok()) << module.status().ToString();
    module_ = *module;
  }

  uint32_t FunctionIndex(std::string_view name) const {
    for (uint32_t i = 0; i < module_->functions().size(); ++i) {
      if (module_->function(i).name == name) return i;
    }
    ADD_FAILURE() << "no function " << name;
    return 0;
  }

  // "offset: text" for every instruction of function `name`.
  std::vector<std::string> Listing(std::string_view name) const {
    auto instructions = DisassembleFunction(module_->flat(), FunctionIndex(name));
    EXPECT_TRUE(instructions.ok()) << instructions.status().ToString();
    std::vector<std::string> lines;
    if (!instructions.ok()) return lines;
    for (const DisassembledInstruction& instruction : *instructions) {
      lines.push_back(std::to_string(instruction.offset) + ": " + instruction.ToString());
    }
    return lines;
  }

  Ref<Instance> instance_;
  Ref<BytecodeModule> module_;
};

TEST_F(DisassemblerTest, RecursiveFunction) {
  EXPECT_EQ(Listing("fib"), (std::vector<std::string>{
                                "0: const.i32 i1, 2",
                                "7: br.lt.i32.s i0, i1, @20, @24",
                                "20: return i0",
                                "24: const.i32 i2, 1",
                                "31: sub.i32 i3, i0, i2",
                                "38: call @fib(i3) -> (i4)",
                                "49: sub.i32 i3, i0, i1",
                                "56: call @fib(i3) -> (i5)",
                                "67: add.i32 i4, i4, i5",
                                "74: return i4",
                            }));
}

TEST_F(DisassemblerTest, ImportsRodataTraceAndSwitch) {
  EXPECT_EQ(Listing("showcase"), (std::vector<std::string>{
                                     "0: import.resolved i1, @host.log",
                                     "7: cond_br i1, @18, @33",
                                     "18: call.import @host.log(i0) -> (i2)",
                                     "29: return i2",
                                     "33: const.ref.rodata r0, rodata:weights",
                                     "40: buffer.length I0, r0",
                                     "45: trunc.i64.i32 i2, I0",
                                     "50: trace \"showcase\", i0, i2",
                                     "62: switch i0, @94, [@79, @83]",
                                     "79: return i2",
                                     "83: add.i32 i3, i2, i2",
                                     "90: return i3",
                                     "94: const.i32 i3, -1",
                                     "101: return i3",
                                 }));
}

TEST_F(DisassemblerTest, AllBanksAndFloatImmediates) {
  EXPECT_EQ(Listing("mixed"), (std::vector<std::string>{
                                  "0: add.imm.i64 I1, I0, 1",
                                  "9: const.f32 f1, 2",
                                  "16: mul.f32 f2, f0, f1",
                                  "23: const.f64 F1, 0.25",
                                  "34: mul.f64 F2, F0, F1",
                                  "41: return I1, f2, F2",
                              }));
  EXPECT_EQ(Listing("make_list"), (std::vector<std::string>{
                                      "0: const.i32 i0, 7",
                                      "7: list.alloc r0, i0",
                                      "12: return i0, r0",
                                  }));
}

TEST_F(DisassemblerTest, StringsGlobalsAndEmptyOperandLists) {
  EXPECT_EQ(Listing("fail_inner"),
            (std::vector<std::string>{"0: fail \"boom: bad \\\"value\\\"\""}));
  EXPECT_EQ(Listing("noop"), (std::vector<std::string>{"0: return"}));
  EXPECT_EQ(Listing("get_global"), (std::vector<std::string>{
                                       "0: global.load.i32 i0, global[0]",
                                       "7: return i0",
                                   }));
  EXPECT_EQ(Listing("init"), (std::vector<std::string>{
                                 "0: const.i32 i0, 42",
                                 "7: global.store.i32 global[0], i0",
                                 "14: return",
                             }));
}

TEST_F(DisassemblerTest, StructuredForm) {
  auto call = DisassembleInstruction(module_->flat(), FunctionIndex("fib"), 38);
  ASSERT_TRUE(call.ok()) << call.status().ToString();
  EXPECT_EQ(call->offset, 38u);
  EXPECT_EQ(call->length, 11u);
  EXPECT_EQ(call->opcode, Opcode::kCall);
  EXPECT_EQ(call->mnemonic, "call");
  ASSERT_EQ(call->operands.size(), 3u);
  EXPECT_EQ(call->operands[0].kind, OperandKind::kFunction);
  EXPECT_EQ(call->operands[0].text, "@fib");
  EXPECT_EQ(call->operands[1].kind, OperandKind::kCallArgs);
  EXPECT_EQ(call->operands[1].text, "(i3)");
  EXPECT_EQ(call->operands[2].kind, OperandKind::kCallResults);
  EXPECT_EQ(call->operands[2].text, "(i4)");

  auto branch = DisassembleInstruction(module_->flat(), FunctionIndex("fib"), 7);
  ASSERT_TRUE(branch.ok());
  ASSERT_EQ(branch->operands.size(), 4u);
  EXPECT_EQ(branch->operands[2].kind, OperandKind::kTarget);
  EXPECT_EQ(branch->operands[2].text, "@20");
}

// The instruction lengths agree with the loader's view: decoding every
// function instruction by instruction ends exactly at its last byte.
TEST_F(DisassemblerTest, DecodesEveryFunctionToItsEnd) {
  for (uint32_t i = 0; i < module_->functions().size(); ++i) {
    auto instructions = DisassembleFunction(module_->flat(), i);
    ASSERT_TRUE(instructions.ok()) << instructions.status().ToString();
    ASSERT_FALSE(instructions->empty());
    const DisassembledInstruction& last = instructions->back();
    EXPECT_EQ(last.offset + last.length, module_->function(i).code_length)
        << module_->function(i).name;
  }
}

// Expected text of one operand as emitted by EveryFixedOperandOpcode.
std::string ExpectedOperandText(OperandKind kind) {
  switch (kind) {
    case OperandKind::kRegI32:
      return "i1";
    case OperandKind::kRegI64:
      return "I1";
    case OperandKind::kRegF32:
      return "f1";
    case OperandKind::kRegF64:
      return "F1";
    case OperandKind::kRegRef:
      return "r1";
    case OperandKind::kImmI32:
      return "-5";
    case OperandKind::kImmI64:
      return "1099511627776";
    case OperandKind::kImmF32:
      return "1.5";
    case OperandKind::kImmF64:
      return "-0.125";
    case OperandKind::kTarget:
      return "@0";
    case OperandKind::kFunction:
      return "@f";
    case OperandKind::kImport:
      return "@host.fn";
    case OperandKind::kRodata:
      return "rodata:blob";
    case OperandKind::kString:
      return "\"hello\"";
    case OperandKind::kType:
      return "!vm.list";
    case OperandKind::kGlobal32:
      return "global[8]";
    case OperandKind::kGlobal64:
      return "global[8]";
    case OperandKind::kGlobalRef:
      return "global.ref[0]";
    default:
      return "?";
  }
}

// Every opcode whose operands are all fixed-size, emitted once with one
// operand of each kind, decodes to its mnemonic, the opcode table's length
// and the expected operand texts.
TEST(DisassemblerOpcodeTest, EveryFixedOperandOpcode) {
  int tested = 0;
  for (int op = 0; op < kOpcodeCount; ++op) {
    const Opcode opcode = static_cast<Opcode>(op);
    const OpcodeInfo& info = GetOpcodeInfo(opcode);
    bool variadic = false;
    for (int i = 0; i < info.operand_count; ++i) variadic |= IsVariadicKind(info.operands[i]);
    if (variadic) continue;
    ++tested;
    SCOPED_TRACE(std::string(info.mnemonic));

    ModuleBuilder builder("ops");
    builder.AddImport("host.fn", "_");
    const uint8_t blob[4] = {1, 2, 3, 4};
    builder.AddRodata("blob", blob);
    builder.AddString("hello");
    builder.AddType("vm.list");
    builder.SetGlobals(16, 1);
    FunctionBuilder& f = builder.AddFunction("f", "_");
    Label start = f.NewLabel();
    f.Bind(start);
    std::vector<Operand> operands;
    std::string expected(info.mnemonic);
    for (int i = 0; i < info.operand_count; ++i) {
      const OperandKind kind = info.operands[i];
      if (IsRegisterKind(kind)) {
        operands.push_back(Reg(1));
      } else {
        switch (kind) {
          case OperandKind::kImmI32:
            operands.push_back(ImmI32(-5));
            break;
          case OperandKind::kImmI64:
            operands.push_back(ImmI64(int64_t{1} << 40));
            break;
          case OperandKind::kImmF32:
            operands.push_back(ImmF32(1.5f));
            break;
          case OperandKind::kImmF64:
            operands.push_back(ImmF64(-0.125));
            break;
          case OperandKind::kTarget:
            operands.push_back(Target(start));
            break;
          case OperandKind::kGlobal32:
          case OperandKind::kGlobal64:
            operands.push_back(Index(8));
            break;
          default:
            operands.push_back(Index(0));
            break;
        }
      }
      expected += (i ? ", " : " ") + ExpectedOperandText(kind);
    }
    // Emit takes an initializer_list; build one of the right length.
    switch (operands.size()) {
      case 0:
        f.Emit(opcode, {});
        break;
      case 1:
        f.Emit(opcode, {operands[0]});
        break;
      case 2:
        f.Emit(opcode, {operands[0], operands[1]});
        break;
      case 3:
        f.Emit(opcode, {operands[0], operands[1], operands[2]});
        break;
      case 4:
        f.Emit(opcode, {operands[0], operands[1], operands[2], operands[3]});
        break;
      case 5:
        f.Emit(opcode, {operands[0], operands[1], operands[2], operands[3], operands[4]});
        break;
    }
    auto bytes = builder.Finish();
    ASSERT_TRUE(bytes.ok()) << bytes.status().ToString();
    AlignedBuffer buffer = AlignedBuffer::CopyOf(*bytes);
    const schema::Module& flat = *schema::GetModule(buffer.data());
    auto instruction = DisassembleInstruction(flat, 0, 0);
    ASSERT_TRUE(instruction.ok()) << instruction.status().ToString();
    EXPECT_EQ(instruction->opcode, opcode);
    EXPECT_EQ(instruction->length, static_cast<uint32_t>(FixedLength(opcode)));
    EXPECT_EQ(instruction->ToString(), expected);
  }
  // Only call, call.import, return, switch and trace have variadic operands.
  EXPECT_EQ(tested, kOpcodeCount - 5);
}

// Raw module bytes for the error tests: one function "f" with `code`.
std::vector<uint8_t> RawFunctionModule(std::vector<uint8_t> code) {
  ModuleBuilder builder("raw");
  FunctionBuilder& f = builder.AddFunction("f", "_");
  f.EmitRaw(code);
  auto bytes = builder.Finish();
  EXPECT_TRUE(bytes.ok()) << bytes.status().ToString();
  return bytes.ok() ? *bytes : std::vector<uint8_t>();
}

TEST(DisassemblerErrorTest, BadOffsetsAndMalformedBytecode) {
  // const.i64 with only 3 of its 10 operand bytes.
  AlignedBuffer truncated =
      AlignedBuffer::CopyOf(RawFunctionModule({static_cast<uint8_t>(Opcode::kConstI64), 0, 0, 1}));
  const schema::Module& flat = *schema::GetModule(truncated.data());
  auto result = DisassembleInstruction(flat, 0, 0);
  ASSERT_FALSE(result.ok());
  EXPECT_EQ(
      result.status().message(),
      "cannot disassemble function 'f' at bytecode offset 0: truncated const.i64 instruction");

  auto past_end = DisassembleInstruction(flat, 0, 4);
  ASSERT_FALSE(past_end.ok());
  EXPECT_NE(past_end.status().message().find("outside the function's 4 bytes"), std::string::npos)
      << past_end.status().message();

  auto no_function = DisassembleInstruction(flat, 1, 0);
  ASSERT_FALSE(no_function.ok());
  EXPECT_EQ(no_function.status().message(), "function index 1 out of range (module has 1)");

  AlignedBuffer invalid = AlignedBuffer::CopyOf(RawFunctionModule({0xFF}));
  auto bad_opcode = DisassembleInstruction(*schema::GetModule(invalid.data()), 0, 0);
  ASSERT_FALSE(bad_opcode.ok());
  EXPECT_NE(bad_opcode.status().message().find("invalid opcode 255"), std::string::npos);

  // A call to function 7 of a module with one function.
  AlignedBuffer bad_callee = AlignedBuffer::CopyOf(
      RawFunctionModule({static_cast<uint8_t>(Opcode::kCall), 7, 0, 0, 0, 0, 0}));
  auto callee = DisassembleFunction(*schema::GetModule(bad_callee.data()), 0);
  ASSERT_FALSE(callee.ok());
  EXPECT_NE(callee.status().message().find("function index 7 out of range (module has 1)"),
            std::string::npos)
      << callee.status().message();
}

TEST(DisassemblerFormatTest, QuoteString) {
  EXPECT_EQ(QuoteString("plain"), "\"plain\"");
  EXPECT_EQ(QuoteString("a\"b\\c\n\t\r"), "\"a\\\"b\\\\c\\n\\t\\r\"");
  EXPECT_EQ(QuoteString(std::string("\x01\x7f\xff", 3)), "\"\\x01\\x7f\\xff\"");
  EXPECT_EQ(QuoteString(""), "\"\"");
}

TEST(DisassemblerFormatTest, ShortestRoundTripFloats) {
  EXPECT_EQ(FormatFloat(0.1f), "0.1");
  EXPECT_EQ(FormatFloat(1.5f), "1.5");
  EXPECT_EQ(FormatFloat(2.0f), "2");
  EXPECT_EQ(FormatFloat(1e-7f), "1e-07");
  EXPECT_EQ(FormatFloat(-std::numeric_limits<float>::infinity()), "-inf");
  EXPECT_EQ(FormatFloat(std::numeric_limits<float>::quiet_NaN()), "nan");
  EXPECT_EQ(FormatDouble(0.1 + 0.2), "0.30000000000000004");
  EXPECT_EQ(FormatDouble(-0.0), "-0");
  EXPECT_EQ(FormatDouble(1e300), "1e+300");
  // Round trip: the text reads back as the same float.
  const float value = 3.14159274f;
  EXPECT_EQ(std::stof(FormatFloat(value)), value);
}

}  // namespace
}  // namespace kiln::vm
