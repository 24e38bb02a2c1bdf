// Malformed modules: each case feeds BytecodeModule::Load one defect and
// checks that loading fails with the message that names that defect.
//
// Most cases are built with the ModuleBuilder (raw bytes, overridden register
// counts, a foreign bytecode version); those the builder cannot express (a
// missing name or function table, a bad rodata alignment, a function span
// outside the bytecode) are built with the generated FlatBuffer API; the rest
// patch bytes of a valid module. Every builder-made case starts from a module
// that would load, so the one defect is the reason for the failure.
//
// These are hostile modules, not damaged ones: each carries a correct
// checksum (LoadHostile seals the FlatBuffer bytes a case makes), because a
// checksum stops accidents, not attacks, and the verifier has to refuse every
// one of them on its own. Damaged files are tests/vm/module_checksum_test.cc's.
#include <cstdio>
#include <cstring>
#include <functional>
#include <optional>
#include <ostream>
#include <set>
#include <string>
#include <vector>

#include "schemas/module_generated.h"
#include "tests/vm/test_util.h"
#include "vm/bytecode_version.h"
#include "vm/module_checksum.h"

namespace kiln::vm {
namespace {

using testing::LoadBytes;

// The builder's FlatBuffer bytes, without the checksum trailer, so a case can
// patch them; LoadHostile seals them again.
std::vector<uint8_t> BuildBytes(ModuleBuilder& builder) {
  std::vector<uint8_t> bytes = testing::BuildBytes(builder);
  if (bytes.size() >= kModuleTrailerBytes) bytes.resize(bytes.size() - kModuleTrailerBytes);
  return bytes;
}

// Loads FlatBuffer bytes sealed with a correct checksum, as an attacker would.
Result<Ref<BytecodeModule>> LoadHostile(const Instance& instance, std::vector<uint8_t> bytes) {
  AppendModuleChecksum(&bytes);
  return LoadBytes(instance, bytes);
}

// Register lists for EmitCall/EmitCallImport.
constexpr uint16_t kR0[] = {0};
constexpr uint16_t kR1[] = {1};

// Raw bytecode, for instructions the builder would encode correctly.
class Code {
 public:
  Code& Op(Opcode opcode) { return U8(static_cast<uint8_t>(opcode)); }
  Code& U8(uint8_t value) {
    bytes_.push_back(value);
    return *this;
  }
  Code& U16(uint16_t value) { return Append(&value, sizeof(value)); }
  Code& U32(uint32_t value) { return Append(&value, sizeof(value)); }
  const std::vector<uint8_t>& bytes() const { return bytes_; }

 private:
  Code& Append(const void* data, size_t size) {
    const auto* p = static_cast<const uint8_t*>(data);
    bytes_.insert(bytes_.end(), p, p + size);
    return *this;
  }
  std::vector<uint8_t> bytes_;
};

// A module "bad" with one exported function "fn" of `signature`: `setup` adds
// module-level entries first (so they get index 0), `body` emits the code.
std::vector<uint8_t> OneFunction(const std::string& signature,
                                 const std::function<void(FunctionBuilder&)>& body,
                                 const std::function<void(ModuleBuilder&)>& setup = nullptr) {
  ModuleBuilder builder("bad");
  if (setup) setup(builder);
  FunctionBuilder& fn = builder.AddFunction("fn", signature);
  body(fn);
  builder.AddExport("fn", fn.ordinal());
  return BuildBytes(builder);
}

// fn: "_" whose body is `code`.
std::vector<uint8_t> RawBody(const Code& code,
                             const std::function<void(ModuleBuilder&)>& setup = nullptr,
                             const std::string& signature = "_") {
  return OneFunction(
      signature, [&](FunctionBuilder& fn) { fn.EmitRaw(code.bytes()); }, setup);
}

// A module that loads, for the byte-patching cases.
std::vector<uint8_t> ValidModule() {
  return OneFunction("i_i", [](FunctionBuilder& fn) {
    fn.Emit(Opcode::kAddI32, {Reg(1), Reg(0), Reg(0)});
    fn.EmitReturn({1});
  });
}

void PatchU32(std::vector<uint8_t>& bytes, size_t offset, uint32_t value) {
  std::memcpy(bytes.data() + offset, &value, sizeof(value));
}
uint32_t ReadU32(const std::vector<uint8_t>& bytes, size_t offset) {
  uint32_t value;
  std::memcpy(&value, bytes.data() + offset, sizeof(value));
  return value;
}
size_t OffsetOf(const std::vector<uint8_t>& bytes, const void* p) {
  return static_cast<const uint8_t*>(p) - bytes.data();
}

// A module written with the generated FlatBuffer API, for the defects the
// ModuleBuilder cannot produce. The defaults give a module that loads.
struct RawModule {
  std::optional<std::string> name = "raw";
  bool has_functions = true;
  std::optional<std::string> signature = "_";
  std::vector<uint8_t> bytecode = {static_cast<uint8_t>(Opcode::kReturn), 0};
  uint32_t bytecode_offset = 0;
  std::optional<uint32_t> bytecode_length;               // Defaults to bytecode.size().
  std::vector<std::pair<uint32_t, uint32_t>> locations;  // (bytecode offset, file)
  std::vector<std::string> source_files;
  // Adds one 16-byte rodata segment claiming this alignment; its data is
  // placed 16-byte aligned.
  std::optional<uint32_t> rodata_alignment;
  // Adds a second function "g" of signature "_" with this (offset, length).
  std::optional<std::pair<uint32_t, uint32_t>> second_function_span;
};

std::vector<uint8_t> BuildRaw(const RawModule& spec) {
  namespace s = ::kiln::schema;
  flatbuffers::FlatBufferBuilder fbb;
  flatbuffers::Offset<flatbuffers::Vector<flatbuffers::Offset<s::Function>>> functions = 0;
  if (spec.has_functions) {
    std::vector<flatbuffers::Offset<s::SourceLocation>> locations;
    for (auto [offset, file] : spec.locations) {
      locations.push_back(s::CreateSourceLocation(fbb, offset, file, 1, 1));
    }
    auto fn = s::CreateFunction(
        fbb, fbb.CreateString("fn"), spec.signature ? fbb.CreateString(*spec.signature) : 0,
        /*i32_register_count=*/0, 0, 0, 0, 0, spec.bytecode_offset,
        spec.bytecode_length.value_or(static_cast<uint32_t>(spec.bytecode.size())),
        fbb.CreateVector(locations));
    std::vector<flatbuffers::Offset<s::Function>> list = {fn};
    if (spec.second_function_span) {
      auto [offset, length] = *spec.second_function_span;
      list.push_back(s::CreateFunction(fbb, fbb.CreateString("g"), fbb.CreateString("_"), 0, 0, 0,
                                       0, 0, offset, length));
    }
    functions = fbb.CreateVector(list);
  }
  flatbuffers::Offset<flatbuffers::Vector<flatbuffers::Offset<s::RodataSegment>>> rodata = 0;
  if (spec.rodata_alignment) {
    std::vector<uint8_t> data(16, 0xab);
    auto segment_name = fbb.CreateString("segment");
    fbb.ForceVectorAlignment(data.size(), 1, 16);
    auto segment =
        s::CreateRodataSegment(fbb, segment_name, *spec.rodata_alignment, fbb.CreateVector(data));
    rodata = fbb.CreateVector(std::vector<flatbuffers::Offset<s::RodataSegment>>{segment});
  }
  std::vector<flatbuffers::Offset<flatbuffers::String>> files;
  for (const std::string& file : spec.source_files) files.push_back(fbb.CreateString(file));
  auto module = s::CreateModule(fbb, spec.name ? fbb.CreateString(*spec.name) : 0, /*version=*/0,
                                kBytecodeVersionMajor, kBytecodeVersionMinor, /*types=*/0,
                                /*imports=*/0, /*exports=*/0, functions,
                                fbb.CreateVector(spec.bytecode), rodata, /*strings=*/0,
                                /*global_bytes=*/0, /*global_refs=*/0, /*initializer=*/-1,
                                fbb.CreateVector(files));
  s::FinishModuleBuffer(fbb, module);
  return std::vector<uint8_t>(fbb.GetBufferPointer(), fbb.GetBufferPointer() + fbb.GetSize());
}

std::vector<uint8_t> Raw(const std::function<void(RawModule&)>& defect) {
  RawModule spec;
  defect(spec);
  return BuildRaw(spec);
}

std::string VersionText(uint16_t major, uint16_t minor) {
  return "unsupported bytecode version " + std::to_string(major) + "." + std::to_string(minor) +
         " (this VM runs " + std::to_string(kBytecodeVersionMajor) + ".0 through " +
         std::to_string(kBytecodeVersionMajor) + "." + std::to_string(kBytecodeVersionMinor) + ")";
}

struct MalformedCase {
  std::string name;
  std::function<std::vector<uint8_t>()> make;
  std::string expected;  // Must appear in the error message.
  StatusCode code = StatusCode::kInvalidArgument;
};

std::vector<MalformedCase> MalformedCases() {
  using O = Opcode;
  return {
      // --- The file as a whole. ---
      {"EmptyFile", [] { return std::vector<uint8_t>(); },
       "module is truncated (0 bytes; not a .kmod file)"},
      {"SevenBytes",
       [] {
         std::vector<uint8_t> bytes = ValidModule();
         bytes.resize(7);
         return bytes;
       },
       "module is truncated (7 bytes; not a .kmod file)"},
      {"TruncatedToHalf",
       [] {
         std::vector<uint8_t> bytes = ValidModule();
         bytes.resize(bytes.size() / 2);
         return bytes;
       },
       "module is corrupt: FlatBuffer verification failed (truncated or malformed .kmod)"},
      {"WrongFileIdentifier",
       [] {
         std::vector<uint8_t> bytes = ValidModule();
         std::memcpy(bytes.data() + 4, "KMOD", 4);
         return bytes;
       },
       "not a kiln module: file identifier is 'KMOD', expected 'KILN'"},
      {"RootOffsetPastTheEnd",
       [] {
         std::vector<uint8_t> bytes = ValidModule();
         PatchU32(bytes, 0, static_cast<uint32_t>(bytes.size()) + 64);
         return bytes;
       },
       "module is corrupt: FlatBuffer verification failed"},
      {"RootVtableOffsetCorrupt",
       [] {
         std::vector<uint8_t> bytes = ValidModule();
         uint32_t root = ReadU32(bytes, 0);
         PatchU32(bytes, root, ReadU32(bytes, root) ^ 0x00ff0000u);
         return bytes;
       },
       "module is corrupt: FlatBuffer verification failed"},
      {"ModuleNameLengthCorrupt",
       [] {
         std::vector<uint8_t> bytes = ValidModule();
         const auto* name = schema::GetModule(bytes.data())->name();
         PatchU32(bytes, OffsetOf(bytes, name), 0x7fffffffu);
         return bytes;
       },
       "module is corrupt: FlatBuffer verification failed"},
      {"FunctionTableEntryOffsetCorrupt",
       [] {
         std::vector<uint8_t> bytes = ValidModule();
         const auto* functions = schema::GetModule(bytes.data())->functions();
         // The vector's first element (after its length) is an offset to the table.
         PatchU32(bytes, OffsetOf(bytes, functions) + 4, 0xfffffff0u);
         return bytes;
       },
       "module is corrupt: FlatBuffer verification failed"},

      // --- Module tables. ---
      {"MajorVersionTooNew",
       [] {
         ModuleBuilder builder("bad");
         builder.SetBytecodeVersion(kBytecodeVersionMajor + 1, 0);
         builder.AddFunction("fn", "_").EmitReturn({});
         return BuildBytes(builder);
       },
       VersionText(kBytecodeVersionMajor + 1, 0)},
      {"MajorVersionTooOld",
       [] {
         ModuleBuilder builder("bad");
         builder.SetBytecodeVersion(kBytecodeVersionMajor - 1, kBytecodeVersionMinor);
         builder.AddFunction("fn", "_").EmitReturn({});
         return BuildBytes(builder);
       },
       VersionText(kBytecodeVersionMajor - 1, kBytecodeVersionMinor)},
      {"MinorVersionNewerThanVm",
       [] {
         ModuleBuilder builder("bad");
         builder.SetBytecodeVersion(kBytecodeVersionMajor, kBytecodeVersionMinor + 1);
         builder.AddFunction("fn", "_").EmitReturn({});
         return BuildBytes(builder);
       },
       VersionText(kBytecodeVersionMajor, kBytecodeVersionMinor + 1)},
      {"EmptyModuleName",
       [] {
         ModuleBuilder builder("");
         builder.AddFunction("fn", "_").EmitReturn({});
         return BuildBytes(builder);
       },
       "module has no name"},
      {"AbsentModuleName", [] { return Raw([](RawModule& m) { m.name.reset(); }); },
       "module has no name"},
      {"AbsentFunctionTable", [] { return Raw([](RawModule& m) { m.has_functions = false; }); },
       "module has no function table"},
      {"TooManyGlobalBytes",
       [] {
         return RawBody(Code().Op(O::kReturn).U8(0),
                        [](ModuleBuilder& b) { b.SetGlobals(1u << 30, 0); });
       },
       "module asks for 1073741824 global bytes (limit 67108864)"},
      {"TooManyGlobalRefs",
       [] {
         return RawBody(Code().Op(O::kReturn).U8(0),
                        [](ModuleBuilder& b) { b.SetGlobals(0, 1u << 24); });
       },
       "module asks for 16777216 global refs (limit 1048576)"},
      {"GlobalDescriptorPastEnd",
       [] {
         return RawBody(Code().Op(O::kReturn).U8(0), [](ModuleBuilder& b) {
           b.SetGlobals(8, 0);
           b.AddGlobalDescriptor("counter", "i64", 4, 8);
         });
       },
       "global descriptor 0 'counter' has 8 bytes at offset 4 (module has 8 global bytes)"},
      {"GlobalDescriptorBadRefSlot",
       [] {
         return RawBody(Code().Op(O::kReturn).U8(0), [](ModuleBuilder& b) {
           b.SetGlobals(0, 1);
           b.AddGlobalDescriptor("list", "!vm.list", 1, 0, /*is_ref=*/true);
         });
       },
       "global descriptor 0 'list' names ref slot 1 (module has 1)"},
      {"ExecutableVariantBadRodata",
       [] {
         return RawBody(Code().Op(O::kReturn).U8(0), [](ModuleBuilder& b) {
           ExecutableDescription e;
           e.name = "ex";
           e.variants.push_back({"llvm-cpu", "system-elf-x86_64", "", 3});
           b.AddExecutableDescription(e);
         });
       },
       "executable descriptor 0 'ex' has a variant without target/format or with rodata index "
       "3 (module has 0)"},
      {"ExecutableDispatchSiteBadExport",
       [] {
         return RawBody(Code().Op(O::kReturn).U8(0), [](ModuleBuilder& b) {
           ExecutableDescription e;
           e.name = "ex";
           e.exports.push_back({"f", 0, "#hal.pipeline.layout<constants = 0, bindings = []>"});
           e.dispatch_sites.push_back({0, 0, 1});
           b.AddExecutableDescription(e);
         });
       },
       "executable descriptor 0 'ex' has a dispatch site in function 0 of export 1 (module has "
       "1 functions, 1 exports)"},
      {"ExecutableDispatchSitePastFunctionEnd",
       [] {
         return RawBody(Code().Op(O::kReturn).U8(0), [](ModuleBuilder& b) {
           ExecutableDescription e;
           e.name = "ex";
           e.exports.push_back({"f", 0, ""});
           e.dispatch_sites.push_back({0, 1000, 0});
           b.AddExecutableDescription(e);
         });
       },
       "executable descriptor 0 'ex' has a dispatch site at offset 1000, past the end of its "
       "function"},
      {"UnknownRefTypeName",
       [] {
         return RawBody(Code().Op(O::kReturn).U8(0), [](ModuleBuilder& b) {
           b.AddType("vm.buffer");
           b.AddType("hal.nope");
         });
       },
       "unknown ref type 'hal.nope' (type index 1)", StatusCode::kNotFound},
      {"RodataAlignmentNotPowerOfTwo",
       [] { return Raw([](RawModule& m) { m.rodata_alignment = 3; }); },
       "rodata segment 0 has invalid alignment 3"},
      {"RodataAlignmentZero", [] { return Raw([](RawModule& m) { m.rodata_alignment = 0; }); },
       "rodata segment 0 has invalid alignment 0"},
      {"RodataAlignmentTooLarge",
       [] { return Raw([](RawModule& m) { m.rodata_alignment = 8192; }); },
       "rodata segment 0 has invalid alignment 8192"},
      {"RodataNotAlignedInFile",
       // The data sits 16-byte aligned at a non-zero offset of a file far
       // smaller than 4096 bytes, so it cannot be 4096-byte aligned.
       [] { return Raw([](RawModule& m) { m.rodata_alignment = 4096; }); },
       "rodata segment 0 is not aligned to 4096 bytes in the file"},
      {"ImportWithoutModuleQualifier",
       [] {
         return RawBody(Code().Op(O::kReturn).U8(0),
                        [](ModuleBuilder& b) { b.AddImport("print", "i_"); });
       },
       "import 0 name 'print' is not a qualified 'module.function' name"},
      {"ImportWithEmptyFunctionName",
       [] {
         return RawBody(Code().Op(O::kReturn).U8(0), [](ModuleBuilder& b) {
           b.AddImport("host.log", "i_");
           b.AddImport("host.", "i_");
         });
       },
       "import 1 name 'host.' is not a qualified 'module.function' name"},
      {"ImportSignatureMalformed",
       [] {
         return RawBody(Code().Op(O::kReturn).U8(0),
                        [](ModuleBuilder& b) { b.AddImport("host.log", "q_"); });
       },
       "import 'host.log': malformed signature 'q_': unknown type character 'q'"},
      {"FunctionSignatureWithTwoUnderscores",
       [] { return RawBody(Code().Op(O::kReturn).U8(0), nullptr, "i_i_"); },
       "function 0 'fn': malformed signature 'i_i_': expected exactly one '_' between arguments "
       "and results"},
      {"FunctionSignatureUnknownType",
       [] { return RawBody(Code().Op(O::kReturn).U8(0), nullptr, "x_"); },
       "function 0 'fn': malformed signature 'x_': unknown type character 'x'"},
      {"FunctionSignatureAbsent", [] { return Raw([](RawModule& m) { m.signature.reset(); }); },
       "function 0 'fn' has no signature"},
      {"FunctionWithoutBytecode", [] { return Raw([](RawModule& m) { m.bytecode_length = 0; }); },
       "function 0 'fn' has no bytecode"},
      {"FunctionSpanOutsideBytecode",
       [] { return Raw([](RawModule& m) { m.bytecode_offset = 8; }); },
       "function 0 'fn' bytecode span [8, +2) is outside the module's 2 bytes of bytecode"},
      {"FunctionSpanWrapsAround",
       [] {
         return Raw([](RawModule& m) {
           m.bytecode_offset = 0xffffffffu;
           m.bytecode_length = 2;
         });
       },
       "function 0 'fn' bytecode span [4294967295, +2) is outside the module's 2 bytes"},
      {"FunctionSpansShared",
       // The loader rewrites registers in place per function: a shared span
       // would be rewritten twice and address registers beyond the frame.
       [] { return Raw([](RawModule& m) {
              m.second_function_span = {{0, 2}};
            }); },
       "function 1 'g' bytecode span [0, +2) overlaps function 0 'fn'"},
      {"FunctionSpansPartiallyOverlap",
       [] {
         return Raw([](RawModule& m) {
           m.bytecode = Code().Op(O::kReturn).U8(0).Op(O::kReturn).U8(0).bytes();
           m.second_function_span = {{2, 2}};
         });
       },
       "function 1 'g' bytecode span [2, +2) overlaps function 0 'fn'"},
      {"ArgumentsExceedRegisterCount",
       [] {
         return OneFunction("iI_", [](FunctionBuilder& fn) {
           fn.EmitReturn({});
           fn.SetRegisterCounts({1, 0, 0, 0, 0});
         });
       },
       "function 0 'fn' has 1 i64 arguments but only 0 registers in that bank"},
      {"TooManyRegistersInTotal",
       // Each bank fits in a u16, but all banks share one frame of slots.
       [] {
         return OneFunction("_", [](FunctionBuilder& fn) {
           fn.EmitReturn({});
           fn.SetRegisterCounts({40000, 40000, 0, 0, 0});
         });
       },
       "function 0 'fn' has 80000 registers in total (limit " + std::to_string(kMaxFrameSlots) +
           ")"},
      {"DebugLocationNamesMissingFile",
       [] {
         return OneFunction("_", [](FunctionBuilder& fn) {
           fn.SetLocation(3, 1, 1);
           fn.EmitReturn({});
         });
       },
       "function 0 'fn' debug location names source file 3 of 0"},
      {"DebugLocationsUnsorted",
       [] {
         return Raw([](RawModule& m) {
           m.bytecode = Code().Op(O::kConstI32).U16(0).U32(1).Op(O::kReturn).U8(0).bytes();
           m.source_files = {"a.mlir"};
           m.locations = {{7, 0}, {0, 0}};
         });
       },
       "function 0 'fn' debug locations are unsorted or out of range"},
      {"DebugLocationPastFunctionEnd",
       [] {
         return Raw([](RawModule& m) {
           m.source_files = {"a.mlir"};
           m.locations = {{2, 0}};
         });
       },
       "function 0 'fn' debug locations are unsorted or out of range"},
      {"ExportOfNonexistentFunction",
       [] {
         ModuleBuilder builder("bad");
         builder.AddFunction("fn", "_").EmitReturn({});
         builder.AddExport("main", 7);
         return BuildBytes(builder);
       },
       "export 'main' refers to function 7 but the module has 1"},
      {"DuplicateExportName",
       [] {
         ModuleBuilder builder("bad");
         builder.AddFunction("fn", "_").EmitReturn({});
         builder.AddFunction("other", "_").EmitReturn({});
         builder.AddExport("main", 0);
         builder.AddExport("main", 1);
         return BuildBytes(builder);
       },
       "export 'main' is defined twice"},
      {"ExportWithoutName",
       [] {
         ModuleBuilder builder("bad");
         builder.AddFunction("fn", "_").EmitReturn({});
         builder.AddExport("fn", 0);
         builder.AddExport("", 0);
         return BuildBytes(builder);
       },
       "export 1 has no name"},
      {"InitializerWithArguments",
       [] {
         ModuleBuilder builder("bad");
         builder.AddFunction("init", "i_").EmitReturn({});
         builder.SetInitializer(0);
         return BuildBytes(builder);
       },
       "initializer 'init' must take and return nothing, but its signature is (i32) -> ()"},
      {"InitializerWithResults",
       [] {
         ModuleBuilder builder("bad");
         FunctionBuilder& init = builder.AddFunction("init", "_f");
         init.Emit(Opcode::kConstF32, {Reg(0), ImmF32(1.0f)});
         init.EmitReturn({0});
         builder.SetInitializer(0);
         return BuildBytes(builder);
       },
       "initializer 'init' must take and return nothing, but its signature is () -> (f32)"},
      {"InitializerOutOfRange",
       [] {
         ModuleBuilder builder("bad");
         builder.AddFunction("fn", "_").EmitReturn({});
         builder.SetInitializer(4);
         return BuildBytes(builder);
       },
       "initializer function 4 out of range"},
      {"InitializerNegative",
       // Only -1 means "no initializer"; other negative values are corrupt.
       [] {
         ModuleBuilder builder("bad");
         builder.AddFunction("fn", "_").EmitReturn({});
         builder.SetInitializer(0xfffffffeu);
         return BuildBytes(builder);
       },
       "initializer function -2 out of range"},

      // --- Instruction encoding. ---
      {"InvalidOpcode0xfe",
       [] {
         return RawBody(Code().Op(O::kConstI32).U16(0).U32(1).U8(0xfe).Op(O::kReturn).U8(0),
                        nullptr, "i_");
       },
       "function 'fn' at bytecode offset 7: invalid opcode 0xfe"},
      {"FirstUnassignedOpcode",
       [] { return RawBody(Code().U8(static_cast<uint8_t>(kOpcodeCount)).Op(O::kReturn).U8(0)); },
       [] {
         char hex[8];
         std::snprintf(hex, sizeof(hex), "0x%02x", kOpcodeCount);
         return "function 'fn' at bytecode offset 0: invalid opcode " + std::string(hex);
       }()},
      {"TruncatedImmediate",
       [] { return RawBody(Code().Op(O::kConstI32).U16(0).U16(0), nullptr, "i_"); },
       "function 'fn' at bytecode offset 0: truncated const.i32 instruction"},
      {"TruncatedRegisterAfterReturn",
       [] {
         return RawBody(Code().Op(O::kReturn).U8(0).Op(O::kMovI32).U16(0).U8(0), nullptr, "ii_");
       },
       "function 'fn' at bytecode offset 2: truncated mov.i32 instruction"},
      {"TruncatedReturnCount", [] { return RawBody(Code().Op(O::kReturn)); },
       "function 'fn' at bytecode offset 0: truncated return instruction"},
      {"TruncatedCallArgumentRegisters",
       [] { return RawBody(Code().Op(O::kCall).U32(0).U8(1).U8(0), nullptr, "i_"); },
       // fn calls itself: the count (1) matches "i_", the register is cut short.
       "function 'fn' at bytecode offset 0: truncated call instruction"},
      {"TruncatedSwitchTable",
       [] { return RawBody(Code().Op(O::kSwitch).U16(0).U32(0).U16(3).U32(0), nullptr, "i_"); },
       "function 'fn' at bytecode offset 0: truncated switch instruction"},
      {"TruncatedTraceOperands",
       [] {
         return RawBody(
             Code().Op(O::kTrace).U32(0).U8(2).U8(0).U16(0),
             [](ModuleBuilder& b) { b.AddString("x"); }, "i_");
       },
       "function 'fn' at bytecode offset 0: truncated trace instruction"},

      // --- Registers: range and bank. ---
      {"I32RegisterOutOfRange",
       [] {
         return OneFunction("i_i", [](FunctionBuilder& fn) {
           fn.Emit(Opcode::kAddI32, {Reg(5), Reg(0), Reg(0)});
           fn.EmitReturn({0});
           fn.SetRegisterCounts({3, 0, 0, 0, 0});
         });
       },
       "function 'fn' at bytecode offset 0: register i32:5 out of range (function has 3 i32 "
       "registers)"},
      {"I64RegisterOutOfRange",
       [] {
         return OneFunction("I_", [](FunctionBuilder& fn) {
           fn.Emit(Opcode::kAddI64, {Reg(1), Reg(0), Reg(2)});
           fn.EmitReturn({});
           fn.SetRegisterCounts({0, 2, 0, 0, 0});
         });
       },
       "function 'fn' at bytecode offset 0: register i64:2 out of range (function has 2 i64 "
       "registers)"},
      {"F32RegisterOutOfRange",
       [] {
         return OneFunction("f_", [](FunctionBuilder& fn) {
           fn.Emit(Opcode::kConstF32, {Reg(0), ImmF32(1.0f)});
           fn.Emit(Opcode::kSqrtF32, {Reg(1), Reg(0)});
           fn.EmitReturn({});
           fn.SetRegisterCounts({0, 0, 1, 0, 0});
         });
       },
       "function 'fn' at bytecode offset 7: register f32:1 out of range (function has 1 f32 "
       "registers)"},
      {"F64RegisterOutOfRange",
       [] {
         return OneFunction("_F", [](FunctionBuilder& fn) {
           fn.Emit(Opcode::kConstF64, {Reg(4), ImmF64(2.0)});
           fn.EmitReturn({4});
           fn.SetRegisterCounts({0, 0, 0, 4, 0});
         });
       },
       "function 'fn' at bytecode offset 0: register f64:4 out of range (function has 4 f64 "
       "registers)"},
      {"RefRegisterOutOfRange",
       [] {
         return OneFunction("r_r", [](FunctionBuilder& fn) {
           fn.Emit(Opcode::kMovRef, {Reg(0), Reg(65535)});
           fn.EmitReturn({0});
           fn.SetRegisterCounts({0, 0, 0, 0, 1});
         });
       },
       "function 'fn' at bytecode offset 0: register ref:65535 out of range (function has 1 ref "
       "registers)"},
      {"F32OpOnI32OnlyRegister",
       // Register 0 exists in the i32 bank only; add.f32 names the f32 bank.
       [] {
         return OneFunction("i_", [](FunctionBuilder& fn) {
           fn.Emit(Opcode::kConstI32, {Reg(1), ImmI32(3)});
           fn.Emit(Opcode::kAddF32, {Reg(0), Reg(0), Reg(1)});
           fn.EmitReturn({});
           fn.SetRegisterCounts({2, 0, 0, 0, 0});
         });
       },
       "function 'fn' at bytecode offset 7: register f32:0 out of range (function has 0 f32 "
       "registers)"},
      {"SelectConditionInWrongBank",
       // select.f64's condition is an i32 register; the function has f64 registers only.
       [] {
         return OneFunction("FF_F", [](FunctionBuilder& fn) {
           fn.Emit(Opcode::kSelectF64, {Reg(0), Reg(0), Reg(0), Reg(1)});
           fn.EmitReturn({0});
           fn.SetRegisterCounts({0, 0, 0, 2, 0});
         });
       },
       "function 'fn' at bytecode offset 0: register i32:0 out of range (function has 0 i32 "
       "registers)"},
      {"ReturnValueOutOfRange",
       [] {
         return OneFunction("f_f", [](FunctionBuilder& fn) {
           fn.EmitReturn({3});
           fn.SetRegisterCounts({0, 0, 1, 0, 0});
         });
       },
       "function 'fn' at bytecode offset 0: register f32:3 out of range (function has 1 f32 "
       "registers)"},
      {"TraceOperandOutOfRange",
       [] {
         return OneFunction(
             "_",
             [](FunctionBuilder& fn) {
               const std::pair<Bank, uint16_t> operands[] = {{Bank::kF64, 3}};
               fn.EmitTrace(0, operands);
               fn.EmitReturn({});
               fn.SetRegisterCounts({0, 0, 0, 3, 0});
             },
             [](ModuleBuilder& b) { b.AddString("x"); });
       },
       "function 'fn' at bytecode offset 0: register f64:3 out of range (function has 3 f64 "
       "registers)"},
      {"TraceOperandInvalidBank",
       [] {
         return RawBody(
             Code().Op(O::kTrace).U32(0).U8(1).U8(5).U16(0).Op(O::kReturn).U8(0),
             [](ModuleBuilder& b) { b.AddString("x"); }, "i_");
       },
       "function 'fn' at bytecode offset 0: trace operand has invalid register bank 5"},

      // --- Control flow. ---
      {"BranchIntoMiddleOfInstruction",
       [] {
         return RawBody(Code().Op(O::kConstI32).U16(0).U32(1).Op(O::kBr).U32(3), nullptr, "i_");
       },
       "function 'fn' at bytecode offset 7: branch target 3 is not an instruction boundary"},
      {"BranchOutOfFunction", [] { return RawBody(Code().Op(O::kBr).U32(1000)); },
       "function 'fn' at bytecode offset 0: branch target 1000 is outside the function (length 5)"},
      {"BranchToFunctionEnd", [] { return RawBody(Code().Op(O::kBr).U32(5)); },
       "function 'fn' at bytecode offset 0: branch target 5 is outside the function (length 5)"},
      {"CondBrFalseTargetOutOfFunction",
       [] {
         return RawBody(Code()
                            .Op(O::kConstI32)
                            .U16(0)
                            .U32(1)
                            .Op(O::kCondBr)
                            .U16(0)
                            .U32(18)
                            .U32(999)
                            .Op(O::kReturn)
                            .U8(0),
                        nullptr, "i_");
       },
       "function 'fn' at bytecode offset 7: branch target 999 is outside the function (length "
       "20)"},
      {"FusedBranchIntoMiddleOfInstruction",
       [] {
         // br.lt.i32.s r0, r0 -> 13 | 14; the return at 13 is 4 bytes long.
         return RawBody(
             Code().Op(O::kBrLtI32S).U16(0).U16(0).U32(13).U32(14).Op(O::kReturn).U8(1).U16(0),
             nullptr, "i_i");
       },
       "function 'fn' at bytecode offset 0: branch target 14 is not an instruction boundary"},
      {"SwitchCaseTargetOutOfFunction",
       [] {
         // switch (17 bytes) then return (2 bytes) at 17.
         return RawBody(
             Code().Op(O::kSwitch).U16(0).U32(17).U16(2).U32(17).U32(400).Op(O::kReturn).U8(0),
             nullptr, "i_");
       },
       "function 'fn' at bytecode offset 0: branch target 400 is outside the function (length "
       "19)"},
      {"SwitchDefaultIntoMiddleOfInstruction",
       [] {
         return RawBody(Code().Op(O::kSwitch).U16(0).U32(14).U16(1).U32(13).Op(O::kReturn).U8(0),
                        nullptr, "i_");
       },
       "function 'fn' at bytecode offset 0: branch target 14 is not an instruction boundary"},
      {"MissingTerminator",
       [] {
         return OneFunction("_", [](FunctionBuilder& fn) {
           fn.Emit(Opcode::kConstI32, {Reg(0), ImmI32(1)});
           fn.Emit(Opcode::kConstI32, {Reg(1), ImmI32(2)});
         });
       },
       "function 'fn' at bytecode offset 7: function does not end with a terminator (falls off "
       "the end)"},
      {"EndsWithCall",
       [] {
         ModuleBuilder builder("bad");
         FunctionBuilder& fn = builder.AddFunction("fn", "_");
         FunctionBuilder& callee = builder.AddFunction("callee", "_");
         callee.EmitReturn({});
         fn.EmitReturn({});
         fn.EmitCall(callee.ordinal(), {}, {});
         return BuildBytes(builder);
       },
       "function 'fn' at bytecode offset 2: function does not end with a terminator"},
      {"FallThroughIntoBranchTarget",
       [] {
         return OneFunction("i_", [](FunctionBuilder& fn) {
           Label loop = fn.NewLabel(), done = fn.NewLabel();
           fn.Emit(Opcode::kConstI32, {Reg(1), ImmI32(0)});
           fn.Bind(loop);  // Reached from the const above without a terminator.
           fn.Emit(Opcode::kBrLtI32S, {Reg(1), Reg(0), Target(loop), Target(done)});
           fn.Bind(done);
           fn.EmitReturn({});
         });
       },
       "function 'fn' at bytecode offset 7: block is entered by falling through from a "
       "non-terminator"},

      // --- Calls and returns. ---
      {"CallToNonexistentFunction",
       [] {
         return OneFunction("_", [](FunctionBuilder& fn) {
           fn.EmitCall(5, {}, {});
           fn.EmitReturn({});
         });
       },
       "function 'fn' at bytecode offset 0: function index 5 out of range (module has 1)"},
      {"CallWithTooFewArguments",
       [] {
         ModuleBuilder builder("bad");
         FunctionBuilder& fn = builder.AddFunction("fn", "i_i");
         FunctionBuilder& callee = builder.AddFunction("callee", "ii_i");
         callee.EmitReturn({0});
         fn.EmitCall(callee.ordinal(), kR0, kR1);
         fn.EmitReturn({1});
         return BuildBytes(builder);
       },
       "function 'fn' at bytecode offset 0: argument count 1 does not match the signature of "
       "callee 'callee' (i32, i32) -> (i32) (expects 2)"},
      {"CallWithWrongResultCount",
       [] {
         ModuleBuilder builder("bad");
         FunctionBuilder& fn = builder.AddFunction("fn", "i_");
         FunctionBuilder& callee = builder.AddFunction("callee", "i_i");
         callee.EmitReturn({0});
         fn.EmitCall(callee.ordinal(), kR0, {});
         fn.EmitReturn({});
         return BuildBytes(builder);
       },
       "function 'fn' at bytecode offset 0: result count 0 does not match the signature of "
       "callee 'callee' (i32) -> (i32) (expects 1)"},
      {"CallArgumentInWrongBank",
       [] {
         ModuleBuilder builder("bad");
         FunctionBuilder& fn = builder.AddFunction("fn", "i_");
         FunctionBuilder& callee = builder.AddFunction("callee", "f_");
         callee.EmitReturn({});
         fn.EmitCall(callee.ordinal(), kR0, {});
         fn.EmitReturn({});
         fn.SetRegisterCounts({1, 0, 0, 0, 0});
         return BuildBytes(builder);
       },
       "function 'fn' at bytecode offset 0: register f32:0 out of range (function has 0 f32 "
       "registers)"},
      {"CallImportWithBadIndex",
       [] {
         return OneFunction(
             "i_",
             [](FunctionBuilder& fn) {
               fn.EmitCallImport(3, kR0, {});
               fn.EmitReturn({});
             },
             [](ModuleBuilder& b) { b.AddImport("host.log", "i_"); });
       },
       "function 'fn' at bytecode offset 0: import index 3 out of range (module has 1)"},
      {"CallImportWithWrongArgumentCount",
       [] {
         return OneFunction(
             "i_",
             [](FunctionBuilder& fn) {
               fn.EmitCallImport(0, {}, {});
               fn.EmitReturn({});
             },
             [](ModuleBuilder& b) { b.AddImport("host.log", "i_"); });
       },
       "function 'fn' at bytecode offset 0: argument count 0 does not match the signature of "
       "import 'host.log' (i32) -> () (expects 1)"},
      {"ImportResolvedWithBadIndex",
       [] {
         return OneFunction("_", [](FunctionBuilder& fn) {
           fn.Emit(Opcode::kImportResolved, {Reg(0), Index(0)});
           fn.EmitReturn({});
         });
       },
       "function 'fn' at bytecode offset 0: import index 0 out of range (module has 0)"},
      {"ReturnWithTooFewValues",
       [] { return OneFunction("i_i", [](FunctionBuilder& fn) { fn.EmitReturn({}); }); },
       "function 'fn' at bytecode offset 0: return value count 0 does not match the function's "
       "result signature (i32) (expects 1)"},
      {"ReturnWithTooManyValues",
       [] { return OneFunction("ii_", [](FunctionBuilder& fn) {
              fn.EmitReturn({0, 1});
            }); },
       "function 'fn' at bytecode offset 0: return value count 2 does not match the function's "
       "result signature () (expects 0)"},

      // --- Indices into module tables. ---
      {"RodataIndexOutOfRange",
       [] {
         return OneFunction(
             "_",
             [](FunctionBuilder& fn) {
               fn.Emit(Opcode::kConstRefRodata, {Reg(0), Index(2)});
               fn.EmitReturn({});
             },
             [](ModuleBuilder& b) {
               const uint8_t data[] = {1, 2, 3, 4};
               b.AddRodata("table", data);
             });
       },
       "function 'fn' at bytecode offset 0: rodata index 2 out of range (module has 1)"},
      {"FailStringIndexOutOfRange",
       [] {
         return OneFunction("_", [](FunctionBuilder& fn) { fn.Emit(Opcode::kFail, {Index(0)}); });
       },
       "function 'fn' at bytecode offset 0: string index 0 out of range (module has 0)"},
      {"TraceStringIndexOutOfRange",
       [] {
         return OneFunction(
             "_",
             [](FunctionBuilder& fn) {
               fn.EmitTrace(1, {});
               fn.EmitReturn({});
             },
             [](ModuleBuilder& b) { b.AddString("only"); });
       },
       "function 'fn' at bytecode offset 0: string index 1 out of range (module has 1)"},
      {"RefIsTypeIndexOutOfRange",
       [] {
         return OneFunction(
             "r_i",
             [](FunctionBuilder& fn) {
               fn.Emit(Opcode::kRefIsType, {Reg(0), Reg(0), Index(1)});
               fn.EmitReturn({0});
             },
             [](ModuleBuilder& b) { b.AddType("vm.buffer"); });
       },
       "function 'fn' at bytecode offset 0: type index 1 out of range (module has 1)"},
      {"GlobalOffsetPastEnd",
       [] {
         return OneFunction(
             "_i",
             [](FunctionBuilder& fn) {
               fn.Emit(Opcode::kGlobalLoadI32, {Reg(0), Index(8)});
               fn.EmitReturn({0});
             },
             [](ModuleBuilder& b) { b.SetGlobals(8, 0); });
       },
       "function 'fn' at bytecode offset 0: global byte offset 8 (+4) out of range (module has 8 "
       "global bytes)"},
      {"GlobalI64StraddlesEnd",
       [] {
         return OneFunction(
             "I_",
             [](FunctionBuilder& fn) {
               fn.Emit(Opcode::kGlobalStoreI64, {Index(8), Reg(0)});
               fn.EmitReturn({});
             },
             [](ModuleBuilder& b) { b.SetGlobals(12, 0); });
       },
       "function 'fn' at bytecode offset 0: global byte offset 8 (+8) out of range (module has "
       "12 global bytes)"},
      {"GlobalOffsetWrapsAround",
       [] {
         return OneFunction(
             "f_",
             [](FunctionBuilder& fn) {
               fn.Emit(Opcode::kGlobalStoreF32, {Index(0xfffffffcu), Reg(0)});
               fn.EmitReturn({});
             },
             [](ModuleBuilder& b) { b.SetGlobals(16, 0); });
       },
       "function 'fn' at bytecode offset 0: global byte offset 4294967292 (+4) out of range"},
      {"GlobalI64Misaligned",
       [] {
         return OneFunction(
             "_F",
             [](FunctionBuilder& fn) {
               fn.Emit(Opcode::kGlobalLoadF64, {Reg(0), Index(4)});
               fn.EmitReturn({0});
             },
             [](ModuleBuilder& b) { b.SetGlobals(16, 0); });
       },
       "function 'fn' at bytecode offset 0: global byte offset 4 is not aligned to 8"},
      {"GlobalI32Misaligned",
       [] {
         return OneFunction(
             "i_",
             [](FunctionBuilder& fn) {
               fn.EmitReturn({});
               fn.Emit(Opcode::kGlobalStoreI32, {Index(2), Reg(0)});
               fn.EmitReturn({});
             },
             [](ModuleBuilder& b) { b.SetGlobals(16, 0); });
       },
       "function 'fn' at bytecode offset 2: global byte offset 2 is not aligned to 4"},
      {"GlobalRefSlotOutOfRange",
       [] {
         return OneFunction(
             "_r",
             [](FunctionBuilder& fn) {
               fn.Emit(Opcode::kGlobalLoadRef, {Reg(0), Index(2)});
               fn.EmitReturn({0});
             },
             [](ModuleBuilder& b) { b.SetGlobals(0, 2); });
       },
       "function 'fn' at bytecode offset 0: global ref index 2 out of range (module has 2)"},
  };
}

// Names the case in test listings and failure output.
void PrintTo(const MalformedCase& c, std::ostream* os) { *os << c.name; }

class MalformedModuleTest : public ::testing::TestWithParam<MalformedCase> {};

TEST_P(MalformedModuleTest, LoadFailsWithSpecificMessage) {
  const MalformedCase& c = GetParam();
  std::vector<uint8_t> bytes = c.make();
  Ref<Instance> instance = Instance::Create();
  auto module = LoadHostile(*instance, bytes);
  ASSERT_FALSE(module.ok()) << c.name << ": a malformed module loaded";
  EXPECT_EQ(module.status().code(), c.code) << module.status().ToString();
  EXPECT_NE(module.status().message().find(c.expected), std::string::npos)
      << "expected: " << c.expected << "\n  actual: " << module.status().message();
}

INSTANTIATE_TEST_SUITE_P(Verifier, MalformedModuleTest, ::testing::ValuesIn(MalformedCases()),
                         [](const ::testing::TestParamInfo<MalformedCase>& info) {
                           return info.param.name;
                         });

// The table above must stay a list of distinct defects with distinct messages
// (a few share the FlatBuffer-corruption message, which is all the loader can
// say about a broken container).
TEST(MalformedModuleTableTest, HasAtLeastThirtyDistinctCases) {
  std::vector<MalformedCase> cases = MalformedCases();
  std::set<std::string> names, messages;
  for (const MalformedCase& c : cases) {
    EXPECT_TRUE(names.insert(c.name).second) << "duplicate case " << c.name;
    messages.insert(c.expected);
  }
  EXPECT_GE(names.size(), 30u);
  EXPECT_GE(messages.size(), 30u);
}

// The raw FlatBuffer writer's defaults, and the builder-made baselines the
// byte-patching cases start from, load: the failures above come from the one
// defect each case introduces.
TEST(MalformedModuleTableTest, BaselinesLoad) {
  Ref<Instance> instance = Instance::Create();
  auto raw = LoadHostile(*instance, BuildRaw(RawModule{}));
  EXPECT_TRUE(raw.ok()) << raw.status().ToString();
  RawModule aligned;
  aligned.rodata_alignment = 16;
  aligned.source_files = {"a.mlir"};
  aligned.locations = {{0, 0}};
  auto raw_aligned = LoadHostile(*instance, BuildRaw(aligned));
  EXPECT_TRUE(raw_aligned.ok()) << raw_aligned.status().ToString();
  RawModule adjacent;
  adjacent.bytecode = Code().Op(Opcode::kReturn).U8(0).Op(Opcode::kReturn).U8(0).bytes();
  adjacent.bytecode_length = 2;
  adjacent.second_function_span = {{2, 2}};
  auto raw_adjacent = LoadHostile(*instance, BuildRaw(adjacent));
  EXPECT_TRUE(raw_adjacent.ok()) << raw_adjacent.status().ToString();
  auto valid = LoadHostile(*instance, ValidModule());
  EXPECT_TRUE(valid.ok()) << valid.status().ToString();
}

// Cutting a valid module anywhere inside its FlatBuffer tables fails cleanly.
TEST(TruncatedModuleTest, FailsAtSeveralLengths) {
  std::vector<uint8_t> full = ValidModule();
  Ref<Instance> instance = Instance::Create();
  for (size_t length : {size_t{0}, size_t{4}, size_t{8}, size_t{12}, size_t{16}, full.size() / 4,
                        full.size() / 2, full.size() * 3 / 4, full.size() - 8}) {
    std::vector<uint8_t> prefix(full.begin(), full.begin() + length);
    auto module = LoadHostile(*instance, prefix);
    ASSERT_FALSE(module.ok()) << "prefix of " << length << " bytes loaded";
    const std::string& message = module.status().message();
    if (length < 8) {
      EXPECT_EQ(message,
                "module is truncated (" + std::to_string(length) + " bytes; not a .kmod file)");
    } else {
      EXPECT_EQ(message,
                "module is corrupt: FlatBuffer verification failed (truncated or malformed .kmod)");
    }
  }
}

}  // namespace
}  // namespace kiln::vm
