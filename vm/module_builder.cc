#include "vm/module_builder.h"

#include <cstring>

#include "schemas/module_generated.h"
#include "vm/bytecode_version.h"
#include "vm/module_checksum.h"
#include "vm/signature.h"

namespace kiln::vm {

Operand Reg(uint16_t index) { return {Operand::Kind::kRegister, index}; }
Operand ImmI32(int32_t value) { return {Operand::Kind::kImmI32, static_cast<uint32_t>(value)}; }
Operand ImmI64(int64_t value) { return {Operand::Kind::kImmI64, static_cast<uint64_t>(value)}; }
Operand ImmF32(float value) {
  uint32_t bits;
  std::memcpy(&bits, &value, 4);
  return {Operand::Kind::kImmF32, bits};
}
Operand ImmF64(double value) {
  uint64_t bits;
  std::memcpy(&bits, &value, 8);
  return {Operand::Kind::kImmF64, bits};
}
Operand Target(Label label) { return {Operand::Kind::kLabel, label.id}; }
Operand Index(uint32_t index) { return {Operand::Kind::kIndex, index}; }

FunctionBuilder::FunctionBuilder(ModuleBuilder* module, uint32_t ordinal, std::string name,
                                 std::string signature)
    : module_(module), ordinal_(ordinal), name_(std::move(name)), signature_(std::move(signature)) {
  // Arguments occupy the first registers of their banks.
  SignatureParts parts;
  if (ParseSignature(signature_, &parts).ok()) {
    for (char c : parts.arguments) {
      Bank bank;
      BankOfTypeChar(c, &bank);
      ++max_register_plus_one_[static_cast<int>(bank)];
    }
  }
}

void FunctionBuilder::Error(std::string message) {
  module_->errors_.push_back("function '" + name_ + "' at offset " + std::to_string(offset()) +
                             ": " + std::move(message));
}

Label FunctionBuilder::NewLabel() {
  label_offsets_.push_back(-1);
  return Label{static_cast<uint32_t>(label_offsets_.size() - 1)};
}

void FunctionBuilder::Bind(Label label) {
  if (label.id >= label_offsets_.size()) return Error("binding an unknown label");
  if (label_offsets_[label.id] >= 0) return Error("label bound twice");
  label_offsets_[label.id] = offset();
}

void FunctionBuilder::SetLocation(uint32_t file, uint32_t line, uint32_t column) {
  has_location_ = true;
  file_ = file;
  line_ = line;
  column_ = column;
}

void FunctionBuilder::RecordLocation() {
  if (!has_location_) return;
  if (!locations_.empty() && locations_.back().file == file_ && locations_.back().line == line_ &&
      locations_.back().column == column_) {
    return;  // Same location as the previous instruction: one entry covers both.
  }
  locations_.push_back({offset(), file_, line_, column_});
}

void FunctionBuilder::UseRegister(Bank bank, uint16_t index) {
  uint32_t& max = max_register_plus_one_[static_cast<int>(bank)];
  if (uint32_t{index} + 1 > max) max = uint32_t{index} + 1;
}

void FunctionBuilder::Append(const void* data, size_t size) {
  const auto* bytes = static_cast<const uint8_t*>(data);
  code_.insert(code_.end(), bytes, bytes + size);
}

void FunctionBuilder::Emit(Opcode opcode, std::initializer_list<Operand> operands) {
  const OpcodeInfo& info = GetOpcodeInfo(opcode);
  for (int i = 0; i < info.operand_count; ++i) {
    if (IsVariadicKind(info.operands[i])) {
      return Error(std::string(info.mnemonic) + " has variadic operands; use its Emit* method");
    }
  }
  if (operands.size() != info.operand_count) {
    return Error(std::string(info.mnemonic) + " takes " + std::to_string(info.operand_count) +
                 " operands, got " + std::to_string(operands.size()));
  }
  RecordLocation();
  AppendValue(static_cast<uint8_t>(opcode));
  int i = 0;
  for (const Operand& operand : operands) {
    OperandKind kind = info.operands[i++];
    using K = Operand::Kind;
    auto expect = [&](K expected) {
      if (operand.kind == expected) return true;
      Error(std::string(info.mnemonic) + " operand " + std::to_string(i - 1) +
            " has the wrong kind");
      return false;
    };
    if (IsRegisterKind(kind)) {
      if (!expect(K::kRegister)) return;
      UseRegister(BankOfRegisterKind(kind), static_cast<uint16_t>(operand.bits));
      AppendValue(static_cast<uint16_t>(operand.bits));
      continue;
    }
    switch (kind) {
      case OperandKind::kImmI32:
        if (!expect(K::kImmI32)) return;
        AppendValue(static_cast<uint32_t>(operand.bits));
        break;
      case OperandKind::kImmF32:
        if (!expect(K::kImmF32)) return;
        AppendValue(static_cast<uint32_t>(operand.bits));
        break;
      case OperandKind::kImmI64:
        if (!expect(K::kImmI64)) return;
        AppendValue(operand.bits);
        break;
      case OperandKind::kImmF64:
        if (!expect(K::kImmF64)) return;
        AppendValue(operand.bits);
        break;
      case OperandKind::kTarget:
        if (!expect(K::kLabel)) return;
        fixups_.push_back({offset(), static_cast<uint32_t>(operand.bits)});
        AppendValue(uint32_t{0});
        break;
      default:  // Indices.
        if (!expect(K::kIndex)) return;
        AppendValue(static_cast<uint32_t>(operand.bits));
        break;
    }
  }
}

static void AppendRegisterList(FunctionBuilder* builder, std::vector<uint8_t>* code,
                               std::span<const uint16_t> registers) {
  code->push_back(static_cast<uint8_t>(registers.size()));
  for (uint16_t r : registers) {
    code->push_back(static_cast<uint8_t>(r));
    code->push_back(static_cast<uint8_t>(r >> 8));
  }
}

void FunctionBuilder::EmitCallTo(bool is_import, uint32_t callee, std::span<const uint16_t> args,
                                 std::span<const uint16_t> results) {
  if (args.size() > 255 || results.size() > 255) return Error("too many call operands");
  RecordLocation();
  AppendValue(static_cast<uint8_t>(is_import ? Opcode::kCallImport : Opcode::kCall));
  AppendValue(callee);
  AppendRegisterList(this, &code_, args);
  AppendRegisterList(this, &code_, results);
  // Banks come from the callee's signature; register uses are recorded once
  // Finish() knows it.
  pending_calls_.push_back({callee, is_import, std::vector<uint16_t>(args.begin(), args.end()),
                            std::vector<uint16_t>(results.begin(), results.end())});
}

void FunctionBuilder::EmitCall(uint32_t function, std::span<const uint16_t> args,
                               std::span<const uint16_t> results) {
  EmitCallTo(/*is_import=*/false, function, args, results);
}

void FunctionBuilder::EmitCallImport(uint32_t import, std::span<const uint16_t> args,
                                     std::span<const uint16_t> results) {
  EmitCallTo(/*is_import=*/true, import, args, results);
}

void FunctionBuilder::EmitReturn(std::span<const uint16_t> values) {
  if (values.size() > 255) return Error("too many return values");
  RecordLocation();
  AppendValue(static_cast<uint8_t>(Opcode::kReturn));
  AppendRegisterList(this, &code_, values);
  SignatureParts parts;
  if (ParseSignature(signature_, &parts).ok()) {
    for (size_t i = 0; i < values.size() && i < parts.results.size(); ++i) {
      Bank bank;
      BankOfTypeChar(parts.results[i], &bank);
      UseRegister(bank, values[i]);
    }
  }
}

void FunctionBuilder::EmitSwitch(uint16_t index_register, Label default_target,
                                 std::span<const Label> cases) {
  if (cases.size() > 65535) return Error("too many switch cases");
  RecordLocation();
  AppendValue(static_cast<uint8_t>(Opcode::kSwitch));
  UseRegister(Bank::kI32, index_register);
  AppendValue(index_register);
  fixups_.push_back({offset(), default_target.id});
  AppendValue(uint32_t{0});
  AppendValue(static_cast<uint16_t>(cases.size()));
  for (Label label : cases) {
    fixups_.push_back({offset(), label.id});
    AppendValue(uint32_t{0});
  }
}

void FunctionBuilder::EmitTrace(uint32_t string,
                                std::span<const std::pair<Bank, uint16_t>> operands) {
  if (operands.size() > 255) return Error("too many trace operands");
  RecordLocation();
  AppendValue(static_cast<uint8_t>(Opcode::kTrace));
  AppendValue(string);
  AppendValue(static_cast<uint8_t>(operands.size()));
  for (auto [bank, reg] : operands) {
    UseRegister(bank, reg);
    AppendValue(static_cast<uint8_t>(bank));
    AppendValue(reg);
  }
}

void FunctionBuilder::EmitRaw(std::span<const uint8_t> bytes) {
  Append(bytes.data(), bytes.size());
}

void FunctionBuilder::SetRegisterCounts(std::array<uint16_t, kBankCount> counts) {
  has_register_override_ = true;
  register_override_ = counts;
}

ModuleBuilder::ModuleBuilder(std::string name, uint32_t version)
    : name_(std::move(name)),
      version_(version),
      bytecode_major_(kBytecodeVersionMajor),
      bytecode_minor_(kBytecodeVersionMinor) {}

uint32_t ModuleBuilder::AddType(std::string name) {
  types_.push_back(std::move(name));
  return static_cast<uint32_t>(types_.size() - 1);
}
uint32_t ModuleBuilder::AddImport(std::string qualified_name, std::string signature,
                                  bool optional) {
  imports_.push_back({std::move(qualified_name), std::move(signature), optional});
  return static_cast<uint32_t>(imports_.size() - 1);
}
uint32_t ModuleBuilder::AddRodata(std::string name, std::span<const uint8_t> data,
                                  uint32_t alignment) {
  rodata_.push_back({std::move(name), std::vector<uint8_t>(data.begin(), data.end()), alignment});
  return static_cast<uint32_t>(rodata_.size() - 1);
}
uint32_t ModuleBuilder::AddString(std::string text) {
  strings_.push_back(std::move(text));
  return static_cast<uint32_t>(strings_.size() - 1);
}
uint32_t ModuleBuilder::AddSourceFile(std::string path) {
  source_files_.push_back(std::move(path));
  return static_cast<uint32_t>(source_files_.size() - 1);
}
void ModuleBuilder::AddGlobalDescriptor(std::string name, std::string type, uint32_t offset,
                                        uint32_t size, bool is_ref) {
  globals_.push_back({std::move(name), std::move(type), offset, size, is_ref});
}

void ModuleBuilder::AddExecutableDescription(ExecutableDescription description) {
  executables_.push_back(std::move(description));
}

void ModuleBuilder::SetGlobals(uint32_t bytes, uint32_t refs) {
  global_bytes_ = bytes;
  global_refs_ = refs;
}
void ModuleBuilder::SetInitializer(uint32_t function) {
  initializer_ = static_cast<int32_t>(function);
}
void ModuleBuilder::SetBytecodeVersion(uint16_t major, uint16_t minor) {
  bytecode_major_ = major;
  bytecode_minor_ = minor;
}

FunctionBuilder& ModuleBuilder::AddFunction(std::string name, std::string signature) {
  uint32_t ordinal = static_cast<uint32_t>(functions_.size());
  functions_.push_back(FunctionBuilder(this, ordinal, std::move(name), std::move(signature)));
  return functions_.back();
}

void ModuleBuilder::AddExport(std::string name, uint32_t function, ExportReflection reflection) {
  exports_.push_back({std::move(name), function, std::move(reflection)});
}

namespace {

// Marks the registers of a call's argument/result lists as used, with banks
// from the callee's signature.
void UseCallRegisters(FunctionBuilder* builder, std::string_view signature,
                      const std::vector<uint16_t>& args, const std::vector<uint16_t>& results,
                      const std::function<void(Bank, uint16_t)>& use) {
  SignatureParts parts;
  if (!ParseSignature(signature, &parts).ok()) return;
  for (size_t i = 0; i < args.size() && i < parts.arguments.size(); ++i) {
    Bank bank;
    BankOfTypeChar(parts.arguments[i], &bank);
    use(bank, args[i]);
  }
  for (size_t i = 0; i < results.size() && i < parts.results.size(); ++i) {
    Bank bank;
    BankOfTypeChar(parts.results[i], &bank);
    use(bank, results[i]);
  }
}

}  // namespace

Result<std::vector<uint8_t>> ModuleBuilder::Finish() {
  namespace fb = ::flatbuffers;
  namespace s = ::kiln::schema;
  // Resolve labels and call-register banks.
  for (FunctionBuilder& function : functions_) {
    for (auto [at, label] : function.fixups_) {
      if (label >= function.label_offsets_.size() || function.label_offsets_[label] < 0) {
        errors_.push_back("function '" + function.name_ + "': branch to an unbound label");
        continue;
      }
      uint32_t target = static_cast<uint32_t>(function.label_offsets_[label]);
      std::memcpy(&function.code_[at], &target, 4);
    }
    for (const auto& call : function.pending_calls_) {
      const std::string* signature = nullptr;
      if (call.is_import && call.callee < imports_.size()) {
        signature = &imports_[call.callee].signature;
      } else if (!call.is_import && call.callee < functions_.size()) {
        signature = &functions_[call.callee].signature_;
      }
      if (!signature) continue;  // Left for the verifier to reject.
      UseCallRegisters(&function, *signature, call.args, call.results,
                       [&](Bank bank, uint16_t reg) { function.UseRegister(bank, reg); });
    }
  }
  if (!errors_.empty()) {
    std::string message = "module builder errors:";
    for (const std::string& e : errors_) message += "\n  " + e;
    return InvalidArgumentError(message);
  }

  fb::FlatBufferBuilder fbb(1024);
  auto strings = [&](const std::vector<std::string>& list) {
    std::vector<fb::Offset<fb::String>> offsets;
    for (const std::string& s : list) offsets.push_back(fbb.CreateString(s));
    return fbb.CreateVector(offsets);
  };

  // Bytecode of all functions, concatenated with 8-byte padding between them.
  std::vector<uint8_t> bytecode;
  std::vector<fb::Offset<s::Function>> function_offsets;
  for (FunctionBuilder& function : functions_) {
    while (bytecode.size() % 8) bytecode.push_back(0);
    uint32_t start = static_cast<uint32_t>(bytecode.size());
    bytecode.insert(bytecode.end(), function.code_.begin(), function.code_.end());
    std::vector<fb::Offset<s::SourceLocation>> locations;
    for (const auto& l : function.locations_) {
      locations.push_back(s::CreateSourceLocation(fbb, l.offset, l.file, l.line, l.column));
    }
    std::array<uint16_t, kBankCount> counts;
    for (int b = 0; b < kBankCount; ++b) {
      counts[b] = function.has_register_override_ ? function.register_override_[b]
                                                  : static_cast<uint16_t>(std::min<uint32_t>(
                                                        function.max_register_plus_one_[b], 65535));
    }
    function_offsets.push_back(s::CreateFunction(
        fbb, fbb.CreateString(function.name_), fbb.CreateString(function.signature_), counts[0],
        counts[1], counts[2], counts[3], counts[4], start,
        static_cast<uint32_t>(function.code_.size()), fbb.CreateVector(locations)));
  }

  std::vector<fb::Offset<s::Import>> import_offsets;
  for (const ImportEntry& import : imports_) {
    import_offsets.push_back(s::CreateImport(fbb, fbb.CreateString(import.name),
                                             fbb.CreateString(import.signature), import.optional));
  }
  std::vector<fb::Offset<s::Export>> export_offsets;
  for (const ExportEntry& e : exports_) {
    std::vector<fb::Offset<s::Attribute>> attributes;
    for (const auto& [key, value] : e.reflection.attributes) {
      attributes.push_back(s::CreateAttribute(fbb, fbb.CreateString(key), fbb.CreateString(value)));
    }
    export_offsets.push_back(s::CreateExport(
        fbb, fbb.CreateString(e.name), e.function, fbb.CreateVector(attributes),
        strings(e.reflection.argument_descriptions), strings(e.reflection.result_descriptions)));
  }
  std::vector<fb::Offset<s::RodataSegment>> rodata_offsets;
  for (const RodataEntry& r : rodata_) {
    auto name = fbb.CreateString(r.name);
    // Align the vector's data (not its length prefix) within the file.
    // PreAlign is what ForceVectorAlignment does, without its assertion that
    // alignments stop at 32 bytes. An alignment that is not a power of two is
    // written as given (for the verifier to reject) and not honoured.
    if (r.alignment != 0 && (r.alignment & (r.alignment - 1)) == 0 && !r.data.empty()) {
      fbb.PreAlign(r.data.size(), r.alignment);
    }
    auto data = fbb.CreateVector(r.data);
    rodata_offsets.push_back(s::CreateRodataSegment(fbb, name, r.alignment, data));
  }
  std::vector<fb::Offset<s::GlobalDescriptor>> global_offsets;
  for (const GlobalEntry& g : globals_) {
    global_offsets.push_back(s::CreateGlobalDescriptor(
        fbb, fbb.CreateString(g.name), fbb.CreateString(g.type), g.offset, g.size, g.is_ref));
  }
  std::vector<fb::Offset<s::ExecutableDescriptor>> executable_offsets;
  for (const ExecutableDescription& e : executables_) {
    std::vector<fb::Offset<s::ExecutableVariantDescriptor>> variants;
    for (const auto& v : e.variants) {
      variants.push_back(s::CreateExecutableVariantDescriptor(
          fbb, fbb.CreateString(v.target), fbb.CreateString(v.format), fbb.CreateString(v.config),
          v.rodata));
    }
    std::vector<fb::Offset<s::ExecutableExportDescriptor>> exports;
    for (const auto& x : e.exports) {
      exports.push_back(s::CreateExecutableExportDescriptor(
          fbb, fbb.CreateString(x.name), x.ordinal, fbb.CreateString(x.layout),
          fbb.CreateVector(x.workgroup_size.data(), x.workgroup_size.size())));
    }
    std::vector<fb::Offset<s::DispatchSiteDescriptor>> sites;
    for (const auto& d : e.dispatch_sites) {
      sites.push_back(s::CreateDispatchSiteDescriptor(fbb, d.function, d.bytecode_offset,
                                                      d.export_ordinal, d.site_id));
    }
    executable_offsets.push_back(
        s::CreateExecutableDescriptor(fbb, fbb.CreateString(e.name), fbb.CreateVector(variants),
                                      fbb.CreateVector(exports), fbb.CreateVector(sites)));
  }
  if (!bytecode.empty()) fbb.PreAlign(bytecode.size(), 8);
  auto bytecode_offset = fbb.CreateVector(bytecode);
  auto module = s::CreateModule(
      fbb, fbb.CreateString(name_), version_, bytecode_major_, bytecode_minor_, strings(types_),
      fbb.CreateVector(import_offsets), fbb.CreateVector(export_offsets),
      fbb.CreateVector(function_offsets), bytecode_offset, fbb.CreateVector(rodata_offsets),
      strings(strings_), global_bytes_, global_refs_, initializer_, strings(source_files_),
      globals_.empty() ? 0 : fbb.CreateVector(global_offsets),
      executables_.empty() ? 0 : fbb.CreateVector(executable_offsets));
  s::FinishModuleBuffer(fbb, module);
  std::vector<uint8_t> file;
  file.reserve(fbb.GetSize() + kModuleTrailerBytes);
  file.assign(fbb.GetBufferPointer(), fbb.GetBufferPointer() + fbb.GetSize());
  AppendModuleChecksum(&file);
  return file;
}

}  // namespace kiln::vm
