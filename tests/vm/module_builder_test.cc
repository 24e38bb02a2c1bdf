// Tests of the ModuleBuilder: what it writes into the .kmod, and how it
// reports misuse (it never writes a module it knows to be ill-formed as a
// builder; semantic problems are the verifier's job).
#include "vm/module_builder.h"

#include <gtest/gtest.h>

#include <cstring>
#include <vector>

#include "base/file_io.h"
#include "schemas/module_generated.h"
#include "vm/bytecode_module.h"
#include "vm/bytecode_version.h"

namespace kiln::vm {
namespace {

using enum Opcode;

TEST(ModuleBuilderTest, WritesEveryTable) {
  ModuleBuilder builder("tables", /*version=*/7);
  uint32_t type = builder.AddType("vm.buffer");
  uint32_t import = builder.AddImport("host.log", "i_i", /*optional=*/true);
  const uint8_t blob[] = {1, 2, 3, 4, 5};
  uint32_t rodata = builder.AddRodata("blob", blob, /*alignment=*/64);
  uint32_t message = builder.AddString("boom");
  uint32_t file = builder.AddSourceFile("tables.mlir");
  builder.SetGlobals(16, 2);
  FunctionBuilder& init = builder.AddFunction("init", "_");
  init.EmitReturn({});
  builder.SetInitializer(init.ordinal());
  FunctionBuilder& f = builder.AddFunction("f", "iI_i");
  f.SetLocation(file, 3, 9);
  f.Emit(kAddI32, {Reg(4), Reg(0), Reg(1)});
  f.SetLocation(file, 4, 2);
  f.Emit(kConstF64, {Reg(2), ImmF64(1.5)});
  f.EmitReturn({4});
  ExportReflection reflection;
  reflection.attributes = {{"abi", "kiln"}};
  reflection.argument_descriptions = {"i32 a", "i64 b"};
  reflection.result_descriptions = {"i32 sum"};
  builder.AddExport("f", f.ordinal(), reflection);
  auto bytes = builder.Finish();
  ASSERT_TRUE(bytes.ok()) << bytes.status().ToString();

  flatbuffers::Verifier verifier(bytes->data(), bytes->size());
  ASSERT_TRUE(schema::VerifyModuleBuffer(verifier));
  const schema::Module& m = *schema::GetModule(bytes->data());
  EXPECT_EQ(m.name()->str(), "tables");
  EXPECT_EQ(m.version(), 7u);
  EXPECT_EQ(m.bytecode_version_major(), kBytecodeVersionMajor);
  EXPECT_EQ(m.bytecode_version_minor(), kBytecodeVersionMinor);
  EXPECT_EQ(m.types()->Get(type)->str(), "vm.buffer");
  EXPECT_EQ(m.imports()->Get(import)->name()->str(), "host.log");
  EXPECT_EQ(m.imports()->Get(import)->signature()->str(), "i_i");
  EXPECT_TRUE(m.imports()->Get(import)->optional());
  const schema::RodataSegment* segment = m.rodata()->Get(rodata);
  EXPECT_EQ(segment->alignment(), 64u);
  ASSERT_EQ(segment->data()->size(), 5u);
  EXPECT_EQ(segment->data()->Get(4), 5);
  EXPECT_EQ((segment->data()->data() - bytes->data()) % 64, 0) << "rodata aligned in the file";
  EXPECT_EQ(m.strings()->Get(message)->str(), "boom");
  EXPECT_EQ(m.global_bytes(), 16u);
  EXPECT_EQ(m.global_refs(), 2u);
  EXPECT_EQ(m.initializer(), static_cast<int32_t>(init.ordinal()));

  const schema::Function* fn = m.functions()->Get(f.ordinal());
  EXPECT_EQ(fn->signature()->str(), "iI_i");
  // Registers: i32 0 (argument) and 4 (destination) -> 5; i64 argument -> 1;
  // f64 register 2 -> 3; nothing else.
  EXPECT_EQ(fn->i32_register_count(), 5);
  EXPECT_EQ(fn->i64_register_count(), 1);
  EXPECT_EQ(fn->f32_register_count(), 0);
  EXPECT_EQ(fn->f64_register_count(), 3);
  EXPECT_EQ(fn->ref_register_count(), 0);
  // add.i32 (7 bytes) + const.f64 (11) + return with one value (4).
  EXPECT_EQ(fn->bytecode_length(), 7u + 11u + 4u);
  ASSERT_EQ(fn->locations()->size(), 2u);
  EXPECT_EQ(fn->locations()->Get(0)->bytecode_offset(), 0u);
  EXPECT_EQ(fn->locations()->Get(0)->line(), 3u);
  EXPECT_EQ(fn->locations()->Get(1)->bytecode_offset(), 7u);
  EXPECT_EQ(fn->locations()->Get(1)->column(), 2u);
  EXPECT_EQ(m.source_files()->Get(file)->str(), "tables.mlir");

  const schema::Export* e = m.exports()->Get(0);
  EXPECT_EQ(e->name()->str(), "f");
  EXPECT_EQ(e->function(), f.ordinal());
  EXPECT_EQ(e->attributes()->Get(0)->key()->str(), "abi");
  EXPECT_EQ(e->attributes()->Get(0)->value()->str(), "kiln");
  EXPECT_EQ(e->argument_descriptions()->Get(1)->str(), "i64 b");
  EXPECT_EQ(e->result_descriptions()->Get(0)->str(), "i32 sum");
  EXPECT_TRUE(schema::ModuleBufferHasIdentifier(bytes->data()));
}

TEST(ModuleBuilderTest, EncodesOperandsLittleEndianInTableOrder) {
  ModuleBuilder builder("enc");
  FunctionBuilder& f = builder.AddFunction("f", "_");
  Label end = f.NewLabel();
  f.Emit(kConstI32, {Reg(0x0102), ImmI32(0x0A0B0C0D)});
  f.Emit(kBr, {Target(end)});
  f.Bind(end);
  f.EmitReturn({});
  auto bytes = builder.Finish();
  ASSERT_TRUE(bytes.ok()) << bytes.status().ToString();
  const schema::Module& m = *schema::GetModule(bytes->data());
  const uint8_t* code = m.bytecode()->data() + m.functions()->Get(0)->bytecode_offset();
  const uint8_t expected[] = {
      static_cast<uint8_t>(kConstI32), 0x02, 0x01, 0x0D, 0x0C, 0x0B, 0x0A,  // const.i32
      static_cast<uint8_t>(kBr),       12,   0,    0,    0,                 // br to 12
      static_cast<uint8_t>(kReturn),   0,                                   // return
  };
  EXPECT_EQ(std::vector<uint8_t>(code, code + sizeof(expected)),
            std::vector<uint8_t>(expected, expected + sizeof(expected)));
}

// Alignments above the file buffer's own (64 bytes) and above FlatBuffers'
// 32-byte limit hold both in the file and in memory after loading.
TEST(ModuleBuilderTest, LargeRodataAlignmentsHoldInMemory) {
  for (uint32_t alignment : {16u, 64u, 256u, 4096u}) {
    ModuleBuilder builder("aligned");
    std::vector<uint8_t> data(alignment * 2 + 3, 0xAB);
    builder.AddRodata("small", std::vector<uint8_t>{1, 2, 3}, 1);
    builder.AddRodata("empty", std::vector<uint8_t>{}, alignment);  // Nothing to align.
    uint32_t segment = builder.AddRodata("big", data, alignment);
    FunctionBuilder& f = builder.AddFunction("f", "_");
    f.EmitReturn({});
    auto bytes = builder.Finish();
    ASSERT_TRUE(bytes.ok()) << bytes.status().ToString();
    Ref<Instance> instance = Instance::Create();
    // Load from a buffer deliberately offset from any large alignment.
    AlignedBuffer shifted(bytes->size() + 64, 8192);
    std::memcpy(shifted.data() + 64, bytes->data(), bytes->size());
    auto module = BytecodeModule::Load(*instance,
                                       AlignedBuffer::CopyOf({shifted.data() + 64, bytes->size()}));
    ASSERT_TRUE(module.ok()) << alignment << ": " << module.status().ToString();
    const Ref<ByteBuffer>& rodata = (*module)->rodata(segment);
    ASSERT_EQ(rodata->length(), data.size());
    EXPECT_EQ(reinterpret_cast<uintptr_t>(rodata->data()) % alignment, 0u) << alignment;
    EXPECT_EQ(rodata->data()[0], 0xAB);
  }
}

struct MisuseCase {
  const char* name;
  void (*build)(FunctionBuilder& f);
  const char* message;
};

const MisuseCase kMisuseCases[] = {
    {"unbound label", [](FunctionBuilder& f) { f.Emit(kBr, {Target(f.NewLabel())}); },
     "branch to an unbound label"},
    {"label bound twice",
     [](FunctionBuilder& f) {
       Label l = f.NewLabel();
       f.Bind(l);
       f.Bind(l);
       f.EmitReturn({});
     },
     "label bound twice"},
    {"operand count",
     [](FunctionBuilder& f) {
       f.Emit(kAddI32, {Reg(0), Reg(1)});
     },
     "add.i32 takes 3 operands, got 2"},
    {"operand kind",
     [](FunctionBuilder& f) {
       f.Emit(kConstI32, {Reg(0), ImmF32(1.0f)});
     },
     "const.i32 operand 1 has the wrong kind"},
    {"variadic through Emit", [](FunctionBuilder& f) { f.Emit(kReturn, {}); },
     "return has variadic operands; use its Emit* method"},
};

TEST(ModuleBuilderTest, ReportsMisuseWithTheFunctionAndOffset) {
  for (const MisuseCase& c : kMisuseCases) {
    ModuleBuilder builder("misuse");
    FunctionBuilder& f = builder.AddFunction("f", "_");
    c.build(f);
    auto bytes = builder.Finish();
    ASSERT_FALSE(bytes.ok()) << c.name;
    EXPECT_NE(bytes.status().message().find("function 'f'"), std::string::npos)
        << c.name << ": " << bytes.status().message();
    EXPECT_NE(bytes.status().message().find(c.message), std::string::npos)
        << c.name << ": " << bytes.status().message();
  }
}

}  // namespace
}  // namespace kiln::vm
