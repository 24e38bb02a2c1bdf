#include "vm/bytecode_module.h"

#include <algorithm>
#include <cstring>

#include "schemas/module_generated.h"
#include "vm/interpreter.h"
#include "vm/module_checksum.h"
#include "vm/signature.h"
#include "vm/verifier.h"

namespace kiln::vm {

namespace {

// Rewrites every register operand of one (verified) function from its
// bank-relative index to its frame slot. Walks instructions exactly as the
// verifier did, so every access is known to be in bounds.
void RewriteRegistersToSlots(const BytecodeModule& module, const FunctionInfo& info,
                             uint8_t* code) {
  const schema::Module& flat = module.flat();
  auto rewrite = [&](uint8_t* at, Bank bank) {
    uint16_t reg;
    std::memcpy(&reg, at, 2);
    reg = static_cast<uint16_t>(reg + info.bank_slots[static_cast<int>(bank)]);
    std::memcpy(at, &reg, 2);
  };
  auto rewrite_list = [&](uint8_t*& at, std::string_view types) {
    uint8_t count = *at++;
    for (uint8_t i = 0; i < count; ++i, at += 2) {
      Bank bank;
      BankOfTypeChar(types[i], &bank);
      rewrite(at, bank);
    }
  };
  // Signatures of call targets, split into arguments and results.
  auto callee_types = [&](bool is_import, uint32_t index, SignatureParts* parts) {
    const flatbuffers::String* signature = is_import ? flat.imports()->Get(index)->signature()
                                                     : flat.functions()->Get(index)->signature();
    (void)ParseSignature(signature->string_view(), parts);
  };
  uint8_t* pc = code;
  uint8_t* end = code + info.code_length;
  while (pc < end) {
    const OpcodeInfo& op = GetOpcodeInfo(static_cast<Opcode>(*pc++));
    SignatureParts callee;
    for (int i = 0; i < op.operand_count; ++i) {
      OperandKind kind = op.operands[i];
      if (IsRegisterKind(kind)) {
        rewrite(pc, BankOfRegisterKind(kind));
        pc += 2;
        continue;
      }
      switch (kind) {
        case OperandKind::kFunction:
        case OperandKind::kImport: {
          uint32_t index;
          std::memcpy(&index, pc, 4);
          callee_types(kind == OperandKind::kImport, index, &callee);
          pc += 4;
          break;
        }
        case OperandKind::kCallArgs:
          rewrite_list(pc, callee.arguments);
          break;
        case OperandKind::kCallResults:
          rewrite_list(pc, callee.results);
          break;
        case OperandKind::kReturnValues:
          rewrite_list(pc, info.results);
          break;
        case OperandKind::kTraceOperands: {
          uint8_t count = *pc++;
          for (uint8_t c = 0; c < count; ++c, pc += 3) rewrite(pc + 1, static_cast<Bank>(pc[0]));
          break;
        }
        default:
          pc += EncodedOperandSize(kind, pc);
          break;
      }
    }
  }
}

}  // namespace

Result<Ref<BytecodeModule>> BytecodeModule::Load(const Instance& instance, AlignedBuffer bytes) {
  // The checksum first: nothing in a damaged file is read before it passes.
  KILN_ASSIGN_OR_RETURN(std::span<const uint8_t> contents, CheckModuleChecksum(bytes.span()));
  KILN_RETURN_IF_ERROR(VerifyModule(contents, instance.types()));
  // The verifier checked each rodata segment's alignment within the file; the
  // file's own start must be at least as aligned for that to hold in memory.
  size_t max_alignment = kFileAlignment;
  if (const auto* rodata = schema::GetModule(bytes.data())->rodata()) {
    for (const schema::RodataSegment* segment : *rodata) {
      max_alignment = std::max<size_t>(max_alignment, segment->alignment());
    }
  }
  if (reinterpret_cast<uintptr_t>(bytes.data()) % max_alignment != 0) {
    bytes = AlignedBuffer::CopyOf(bytes.span(), max_alignment);
  }
  auto module = Ref<BytecodeModule>::Adopt(new BytecodeModule());
  module->bytes_ = MakeRef<Bytes>(std::move(bytes));
  const uint8_t* base = module->bytes_->buffer.data();
  const schema::Module& flat = *schema::GetModule(base);
  module->flat_ = &flat;
  module->name_ = flat.name()->str();

  for (const schema::Function* f : *flat.functions()) {
    FunctionInfo info;
    info.name = f->name() ? f->name()->str() : std::string("<unnamed>");
    info.signature = f->signature()->str();
    info.code_length = f->bytecode_length();
    info.register_counts = {f->i32_register_count(), f->i64_register_count(),
                            f->f32_register_count(), f->f64_register_count(),
                            f->ref_register_count()};
    info.descriptor = f;
    module->functions_.push_back(std::move(info));
  }
  // Views into `signature` are taken after the vector stops moving.
  for (FunctionInfo& info : module->functions_) {
    SignatureParts parts;
    (void)ParseSignature(info.signature, &parts);
    info.arguments = parts.arguments;
    info.results = parts.results;
    uint32_t slot = 0;
    for (int b = 0; b < kBankCount; ++b) {
      info.bank_slots[b] = static_cast<uint16_t>(slot);
      slot += info.register_counts[b];
    }
    info.ref_free = info.register_counts[static_cast<int>(Bank::kRef)] == 0;
    // The verifier bounds `slot` by kMaxFrameSlots.
    info.frame_bytes = kFrameHeaderBytes + 8 * slot;
    std::array<uint16_t, kBankCount> next = info.bank_slots;
    for (char c : info.arguments) {
      Bank bank;
      BankOfTypeChar(c, &bank);
      info.argument_slots.push_back(next[static_cast<int>(bank)]++);
    }
    if (!info.argument_slots.empty()) info.first_argument_slot = info.argument_slots[0];
  }
  // Copy the bytecode and rewrite register operands to slots.
  if (flat.bytecode()) {
    module->code_ = AlignedBuffer::CopyOf({flat.bytecode()->data(), flat.bytecode()->size()});
  }
  for (FunctionInfo& info : module->functions_) {
    const schema::Function* f = info.descriptor;
    info.code = module->code_.data() + f->bytecode_offset();
    RewriteRegistersToSlots(*module, info, module->code_.data() + f->bytecode_offset());
  }
  if (flat.exports()) {
    for (uint32_t i = 0; i < flat.exports()->size(); ++i) {
      const schema::Export* e = flat.exports()->Get(i);
      module->exports_.push_back(
          {e->name()->str(), module->functions_[e->function()].signature, i});
      module->export_functions_.push_back(e->function());
    }
  }
  if (flat.imports()) {
    for (const schema::Import* import : *flat.imports()) {
      module->imports_.push_back(
          {import->name()->str(), import->signature()->str(), import->optional()});
      SignatureParts parts;
      (void)ParseSignature(import->signature()->string_view(), &parts);  // Verified.
      std::vector<ValueType>& types = module->import_types_.emplace_back();
      for (char c : parts.arguments) types.push_back(ValueTypeOfChar(c));
      for (char c : parts.results) types.push_back(ValueTypeOfChar(c));
    }
  }
  if (flat.rodata()) {
    for (const schema::RodataSegment* segment : *flat.rodata()) {
      std::span<const uint8_t> data;
      if (segment->data()) data = {segment->data()->data(), segment->data()->size()};
      module->rodata_.push_back(ByteBuffer::WrapReadOnly(data, module->bytes_));
    }
  }
  if (flat.types()) {
    for (const auto* name : *flat.types()) {
      module->types_.push_back(instance.types().Lookup(name->string_view()));
    }
  }
  if (flat.strings()) {
    for (const auto* text : *flat.strings()) module->strings_.push_back(text->string_view());
  }
  return module;
}

Result<Ref<BytecodeModule>> BytecodeModule::LoadFile(const Instance& instance,
                                                     const std::string& path) {
  KILN_ASSIGN_OR_RETURN(AlignedBuffer bytes, ReadFile(path));
  auto module = Load(instance, std::move(bytes));
  if (!module.ok()) return module.status().WithContext("loading '" + path + "'");
  return module;
}

uint32_t BytecodeModule::version() const { return flat_->version(); }

Result<std::unique_ptr<ModuleState>> BytecodeModule::CreateState() {
  return std::unique_ptr<ModuleState>(
      new BytecodeModuleState(flat_->global_bytes(), flat_->global_refs(), imports_.size()));
}

Status BytecodeModule::ResolveImport(ModuleState& state, size_t ordinal,
                                     const ImportTarget& target) {
  auto& imports = static_cast<BytecodeModuleState&>(state).imports();
  if (ordinal >= imports.size()) return InternalError("import ordinal out of range");
  imports[ordinal] = target;
  return OkStatus();
}

Status BytecodeModule::Initialize(ModuleState& state, Stack& stack) {
  if (flat_->initializer() < 0) return OkStatus();
  Status status = Execute(*this, static_cast<BytecodeModuleState&>(state),
                          static_cast<uint32_t>(flat_->initializer()), {}, {}, stack);
  return status.ok() ? status : status.WithContext("initializing module '" + name_ + "'");
}

Status BytecodeModule::Call(ModuleState& state, uint32_t ordinal, std::span<const Variant> args,
                            std::span<Variant> results, Stack& stack) {
  if (ordinal >= exports_.size()) return NotFoundError("export ordinal out of range");
  return Execute(*this, static_cast<BytecodeModuleState&>(state), export_functions_[ordinal], args,
                 results, stack);
}

std::string BytecodeModule::SourceLocation(uint32_t function, uint32_t offset) const {
  const schema::Function* f = functions_[function].descriptor;
  if (!f->locations() || f->locations()->size() == 0) return "";
  const schema::SourceLocation* best = nullptr;
  for (const schema::SourceLocation* location : *f->locations()) {
    if (location->bytecode_offset() > offset) break;
    best = location;
  }
  if (!best) return "";
  return flat_->source_files()->Get(best->file())->str() + ":" + std::to_string(best->line()) +
         ":" + std::to_string(best->column());
}

std::string BytecodeModule::DescribeLocation(uint32_t function, uint32_t offset) const {
  std::string text = "function '" + name_ + "." + functions_[function].name +
                     "' at bytecode offset " + std::to_string(offset);
  std::string source = SourceLocation(function, offset);
  if (!source.empty()) text += " (" + source + ")";
  return text;
}

BytecodeModuleState::BytecodeModuleState(uint32_t global_bytes, uint32_t global_refs,
                                         size_t import_count)
    : global_bytes_(global_bytes, 0), global_refs_(global_refs, nullptr), imports_(import_count) {}

BytecodeModuleState::~BytecodeModuleState() {
  for (Object* object : global_refs_) {
    if (object) object->Release();
  }
}

}  // namespace kiln::vm
