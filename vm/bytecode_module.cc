#include "vm/bytecode_module.h"

#include "schemas/module_generated.h"
#include "vm/interpreter.h"
#include "vm/signature.h"
#include "vm/verifier.h"

namespace kiln::vm {

Result<Ref<BytecodeModule>> BytecodeModule::Load(const Instance& instance, AlignedBuffer bytes) {
  KILN_RETURN_IF_ERROR(VerifyModule(bytes.span(), instance.types()));
  auto module = Ref<BytecodeModule>::Adopt(new BytecodeModule());
  module->bytes_ = MakeRef<Bytes>(std::move(bytes));
  const uint8_t* base = module->bytes_->buffer.data();
  const schema::Module& flat = *schema::GetModule(base);
  module->flat_ = &flat;
  module->name_ = flat.name()->str();

  const uint8_t* bytecode = flat.bytecode() ? flat.bytecode()->data() : nullptr;
  for (const schema::Function* f : *flat.functions()) {
    FunctionInfo info;
    info.name = f->name() ? f->name()->str() : std::string("<unnamed>");
    info.signature = f->signature()->str();
    info.code = bytecode + f->bytecode_offset();
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
    // Frame layout: header, then 8-byte banks (i64, f64, ref), then 4-byte
    // banks (i32, f32); every offset stays naturally aligned.
    uint32_t offset = kFrameHeaderBytes;
    auto place = [&](Bank bank, uint32_t width) {
      info.bank_offsets[static_cast<int>(bank)] = offset;
      offset += info.register_counts[static_cast<int>(bank)] * width;
    };
    place(Bank::kI64, 8);
    place(Bank::kF64, 8);
    place(Bank::kRef, sizeof(Object*));
    place(Bank::kI32, 4);
    place(Bank::kF32, 4);
    info.frame_bytes = (offset + 7) & ~7u;
  }
  if (flat.exports()) {
    for (uint32_t i = 0; i < flat.exports()->size(); ++i) {
      const schema::Export* e = flat.exports()->Get(i);
      module->exports_.push_back({e->name()->str(), module->functions_[e->function()].signature, i});
    }
  }
  if (flat.imports()) {
    for (const schema::Import* import : *flat.imports()) {
      module->imports_.push_back(
          {import->name()->str(), import->signature()->str(), import->optional()});
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
  uint32_t function = flat_->exports()->Get(ordinal)->function();
  return Execute(*this, static_cast<BytecodeModuleState&>(state), function, args, results, stack);
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
