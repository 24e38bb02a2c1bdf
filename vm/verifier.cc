#include "vm/verifier.h"

#include <algorithm>
#include <cstring>
#include <string>
#include <unordered_set>
#include <vector>

#include "schemas/module_generated.h"
#include "vm/bytecode_version.h"
#include "vm/opcodes.h"
#include "vm/signature.h"

namespace kiln::vm {
namespace {

namespace s = ::kiln::schema;

// Limits that keep a hostile module from asking for absurd amounts of memory.
constexpr uint32_t kMaxGlobalBytes = 64u << 20;
constexpr uint32_t kMaxGlobalRefs = 1u << 20;
constexpr uint32_t kMaxRodataAlignment = 4096;

std::string Str(const flatbuffers::String* s) { return s ? s->str() : std::string(); }

// Register counts of each bank for one function.
using RegisterCounts = std::array<uint32_t, kBankCount>;

class FunctionVerifier {
 public:
  FunctionVerifier(const s::Module& module, uint32_t index, std::span<const uint8_t> code,
                   RegisterCounts counts, SignatureParts own)
      : module_(module), index_(index), code_(code), counts_(counts), own_(own) {}

  Status Verify();

 private:
  Status Fail(uint32_t offset, const std::string& message) const {
    const s::Function* f = module_.functions()->Get(index_);
    return InvalidArgumentError("function '" + Str(f->name()) + "' at bytecode offset " +
                                std::to_string(offset) + ": " + message);
  }
  bool Has(size_t bytes) const { return pc_ + bytes <= code_.size(); }
  template <typename T>
  T Read() {
    T value;
    std::memcpy(&value, code_.data() + pc_, sizeof(T));
    pc_ += sizeof(T);
    return value;
  }
  Status CheckRegister(Bank bank, uint16_t reg) const {
    if (reg >= counts_[static_cast<int>(bank)]) {
      return Fail(start_, "register " + std::string(BankName(bank)) + ":" + std::to_string(reg) +
                              " out of range (function has " +
                              std::to_string(counts_[static_cast<int>(bank)]) + " " +
                              std::string(BankName(bank)) + " registers)");
    }
    return OkStatus();
  }
  Status CheckIndex(uint32_t index, uint32_t size, std::string_view what) const {
    if (index >= size) {
      return Fail(start_, std::string(what) + " index " + std::to_string(index) +
                              " out of range (module has " + std::to_string(size) + ")");
    }
    return OkStatus();
  }
  // A u8-counted register list whose banks come from `types`.
  Status CheckRegisterList(std::string_view types, std::string_view what, std::string_view callee) {
    if (!Has(1)) return Fail(start_, "truncated " + std::string(mnemonic_) + " instruction");
    uint8_t count = Read<uint8_t>();
    if (count != types.size()) {
      return Fail(start_, std::string(what) + " count " + std::to_string(count) +
                              " does not match " + std::string(callee) + " (expects " +
                              std::to_string(types.size()) + ")");
    }
    if (!Has(2u * count))
      return Fail(start_, "truncated " + std::string(mnemonic_) + " instruction");
    for (char c : types) {
      Bank bank;
      BankOfTypeChar(c, &bank);
      KILN_RETURN_IF_ERROR(CheckRegister(bank, Read<uint16_t>()));
    }
    return OkStatus();
  }
  Status AddTarget(uint32_t target) {
    targets_.push_back({start_, target});
    return OkStatus();
  }

  const s::Module& module_;
  uint32_t index_;
  std::span<const uint8_t> code_;
  RegisterCounts counts_;
  SignatureParts own_;
  size_t pc_ = 0;
  uint32_t start_ = 0;                                  // Offset of the instruction being verified.
  std::string_view mnemonic_;                           // Its mnemonic, for messages.
  std::vector<std::pair<uint32_t, uint32_t>> targets_;  // (instruction, target)
};

Status FunctionVerifier::Verify() {
  // kStart marks instruction starts; kAfterTerminator marks offsets reached
  // only by a preceding terminator (valid block starts).
  enum : uint8_t { kStart = 1, kAfterTerminator = 2 };
  std::vector<uint8_t> marks(code_.size() + 1, 0);
  marks[0] = kAfterTerminator;
  const uint32_t function_count = module_.functions()->size();
  const uint32_t import_count = module_.imports() ? module_.imports()->size() : 0;
  bool last_was_terminator = false;
  while (pc_ < code_.size()) {
    start_ = static_cast<uint32_t>(pc_);
    marks[pc_] |= kStart;
    uint8_t byte = Read<uint8_t>();
    if (!IsValidOpcode(byte)) {
      return Fail(
          start_, "invalid opcode 0x" + [&] {
            char hex[3];
            std::snprintf(hex, sizeof(hex), "%02x", byte);
            return std::string(hex);
          }());
    }
    const OpcodeInfo& info = GetOpcodeInfo(static_cast<Opcode>(byte));
    mnemonic_ = info.mnemonic;
    std::string_view callee_arguments, callee_results;
    std::string callee_name;
    for (int i = 0; i < info.operand_count; ++i) {
      OperandKind kind = info.operands[i];
      if (!IsVariadicKind(kind) && !Has(FixedOperandSize(kind))) {
        return Fail(start_, "truncated " + std::string(info.mnemonic) + " instruction");
      }
      switch (kind) {
        case OperandKind::kRegI32:
        case OperandKind::kRegI64:
        case OperandKind::kRegF32:
        case OperandKind::kRegF64:
        case OperandKind::kRegRef:
          KILN_RETURN_IF_ERROR(CheckRegister(BankOfRegisterKind(kind), Read<uint16_t>()));
          break;
        case OperandKind::kImmI32:
        case OperandKind::kImmF32:
          pc_ += 4;
          break;
        case OperandKind::kImmI64:
        case OperandKind::kImmF64:
          pc_ += 8;
          break;
        case OperandKind::kTarget:
          KILN_RETURN_IF_ERROR(AddTarget(Read<uint32_t>()));
          break;
        case OperandKind::kFunction: {
          uint32_t callee = Read<uint32_t>();
          KILN_RETURN_IF_ERROR(CheckIndex(callee, function_count, "function"));
          const s::Function* f = module_.functions()->Get(callee);
          SignatureParts parts;
          // Signatures were validated before any function body.
          (void)ParseSignature(f->signature()->string_view(), &parts);
          callee_arguments = parts.arguments;
          callee_results = parts.results;
          callee_name = "the signature of callee '" + Str(f->name()) + "' " +
                        FormatSignature(f->signature()->string_view());
          break;
        }
        case OperandKind::kImport: {
          uint32_t import = Read<uint32_t>();
          KILN_RETURN_IF_ERROR(CheckIndex(import, import_count, "import"));
          const s::Import* imp = module_.imports()->Get(import);
          SignatureParts parts;
          (void)ParseSignature(imp->signature()->string_view(), &parts);
          callee_arguments = parts.arguments;
          callee_results = parts.results;
          callee_name = "the signature of import '" + Str(imp->name()) + "' " +
                        FormatSignature(imp->signature()->string_view());
          break;
        }
        case OperandKind::kRodata:
          KILN_RETURN_IF_ERROR(CheckIndex(
              Read<uint32_t>(), module_.rodata() ? module_.rodata()->size() : 0, "rodata"));
          break;
        case OperandKind::kString:
          KILN_RETURN_IF_ERROR(CheckIndex(
              Read<uint32_t>(), module_.strings() ? module_.strings()->size() : 0, "string"));
          break;
        case OperandKind::kType:
          KILN_RETURN_IF_ERROR(
              CheckIndex(Read<uint32_t>(), module_.types() ? module_.types()->size() : 0, "type"));
          break;
        case OperandKind::kGlobal32:
        case OperandKind::kGlobal64: {
          uint32_t width = kind == OperandKind::kGlobal32 ? 4 : 8;
          uint32_t offset = Read<uint32_t>();
          if (offset % width != 0) {
            return Fail(start_, "global byte offset " + std::to_string(offset) +
                                    " is not aligned to " + std::to_string(width));
          }
          if (uint64_t{offset} + width > module_.global_bytes()) {
            return Fail(start_, "global byte offset " + std::to_string(offset) + " (+" +
                                    std::to_string(width) + ") out of range (module has " +
                                    std::to_string(module_.global_bytes()) + " global bytes)");
          }
          break;
        }
        case OperandKind::kGlobalRef:
          KILN_RETURN_IF_ERROR(CheckIndex(Read<uint32_t>(), module_.global_refs(), "global ref"));
          break;
        case OperandKind::kCallArgs:
          KILN_RETURN_IF_ERROR(CheckRegisterList(callee_arguments, "argument", callee_name));
          break;
        case OperandKind::kCallResults:
          KILN_RETURN_IF_ERROR(CheckRegisterList(callee_results, "result", callee_name));
          break;
        case OperandKind::kReturnValues:
          KILN_RETURN_IF_ERROR(
              CheckRegisterList(own_.results, "return value",
                                "the function's result signature " + FormatTypeList(own_.results)));
          break;
        case OperandKind::kSwitchTargets: {
          if (!Has(2)) return Fail(start_, "truncated switch instruction");
          uint16_t count = Read<uint16_t>();
          if (!Has(4u * count)) return Fail(start_, "truncated switch instruction");
          for (uint16_t c = 0; c < count; ++c) KILN_RETURN_IF_ERROR(AddTarget(Read<uint32_t>()));
          break;
        }
        case OperandKind::kTraceOperands: {
          if (!Has(1)) return Fail(start_, "truncated trace instruction");
          uint8_t count = Read<uint8_t>();
          if (!Has(3u * count)) return Fail(start_, "truncated trace instruction");
          for (uint8_t c = 0; c < count; ++c) {
            uint8_t bank = Read<uint8_t>();
            if (bank >= kBankCount) {
              return Fail(start_,
                          "trace operand has invalid register bank " + std::to_string(bank));
            }
            KILN_RETURN_IF_ERROR(CheckRegister(static_cast<Bank>(bank), Read<uint16_t>()));
          }
          break;
        }
      }
    }
    last_was_terminator = info.is_terminator();
    if (last_was_terminator) marks[pc_] |= kAfterTerminator;
  }
  if (!last_was_terminator) {
    return Fail(start_, "function does not end with a terminator (falls off the end)");
  }
  for (auto [from, target] : targets_) {
    if (target >= code_.size()) {
      return Fail(from, "branch target " + std::to_string(target) +
                            " is outside the function (length " + std::to_string(code_.size()) +
                            ")");
    }
    if (!(marks[target] & kStart)) {
      return Fail(from,
                  "branch target " + std::to_string(target) + " is not an instruction boundary");
    }
    if (!(marks[target] & kAfterTerminator)) {
      return Fail(target, "block is entered by falling through from a non-terminator");
    }
  }
  return OkStatus();
}

Status VerifySignature(const flatbuffers::String* signature, std::string_view what,
                       SignatureParts* parts) {
  if (!signature) return InvalidArgumentError(std::string(what) + " has no signature");
  Status status = ParseSignature(signature->string_view(), parts);
  return status.ok() ? status : status.WithContext(what);
}

// The executables debug table must point at rodata and functions the module
// has, so tools can print it without further checks.
Status VerifyExecutableDescriptors(const s::Module& module) {
  if (!module.executables()) return OkStatus();
  const uint32_t rodata_count = module.rodata() ? module.rodata()->size() : 0;
  const uint32_t function_count = module.functions()->size();
  for (uint32_t i = 0; i < module.executables()->size(); ++i) {
    const s::ExecutableDescriptor* e = module.executables()->Get(i);
    const std::string what = "executable descriptor " + std::to_string(i);
    if (!e->name()) return InvalidArgumentError(what + " has no name");
    const std::string named = what + " '" + e->name()->str() + "'";
    const uint32_t export_count = e->exports() ? e->exports()->size() : 0;
    if (e->variants()) {
      for (const s::ExecutableVariantDescriptor* v : *e->variants()) {
        if (!v->target() || !v->format() || v->rodata() >= rodata_count) {
          return InvalidArgumentError(named + " has a variant without target/format or with "
                                      "rodata index " + std::to_string(v->rodata()) +
                                      " (module has " + std::to_string(rodata_count) + ")");
        }
      }
    }
    for (uint32_t x = 0; x < export_count; ++x) {
      const s::ExecutableExportDescriptor* d = e->exports()->Get(x);
      if (!d->name() || !d->workgroup_size() || d->workgroup_size()->size() != 3) {
        return InvalidArgumentError(named + " export " + std::to_string(x) +
                                    " has no name or not three workgroup size components");
      }
    }
    if (e->dispatch_sites()) {
      for (const s::DispatchSiteDescriptor* d : *e->dispatch_sites()) {
        if (d->function() >= function_count || d->export_ordinal() >= export_count) {
          return InvalidArgumentError(named + " has a dispatch site in function " +
                                      std::to_string(d->function()) + " of export " +
                                      std::to_string(d->export_ordinal()) + " (module has " +
                                      std::to_string(function_count) + " functions, " +
                                      std::to_string(export_count) + " exports)");
        }
        const s::Function* f = module.functions()->Get(d->function());
        if (d->bytecode_offset() >= f->bytecode_length()) {
          return InvalidArgumentError(named + " has a dispatch site at offset " +
                                      std::to_string(d->bytecode_offset()) +
                                      ", past the end of its function");
        }
      }
    }
  }
  return OkStatus();
}

}  // namespace

Status VerifyModule(std::span<const uint8_t> bytes, const TypeRegistry& types) {
  if (bytes.size() < 8) {
    return InvalidArgumentError("module is truncated (" + std::to_string(bytes.size()) +
                                " bytes; not a .kmod file)");
  }
  if (!s::ModuleBufferHasIdentifier(bytes.data())) {
    return InvalidArgumentError("not a kiln module: file identifier is '" +
                                std::string(reinterpret_cast<const char*>(bytes.data()) + 4, 4) +
                                "', expected 'KILN'");
  }
  flatbuffers::Verifier::Options options;
  options.max_tables = 10'000'000;
  flatbuffers::Verifier fb_verifier(bytes.data(), bytes.size(), options);
  if (!s::VerifyModuleBuffer(fb_verifier)) {
    return InvalidArgumentError(
        "module is corrupt: FlatBuffer verification failed (truncated "
        "or malformed .kmod)");
  }
  const s::Module& module = *s::GetModule(bytes.data());

  if (module.bytecode_version_major() != kBytecodeVersionMajor ||
      module.bytecode_version_minor() > kBytecodeVersionMinor) {
    return InvalidArgumentError(
        "unsupported bytecode version " + std::to_string(module.bytecode_version_major()) + "." +
        std::to_string(module.bytecode_version_minor()) + " (this VM runs " +
        std::to_string(kBytecodeVersionMajor) + ".0 through " +
        std::to_string(kBytecodeVersionMajor) + "." + std::to_string(kBytecodeVersionMinor) + ")");
  }
  if (!module.name() || module.name()->size() == 0) {
    return InvalidArgumentError("module has no name");
  }
  if (!module.functions()) return InvalidArgumentError("module has no function table");
  if (module.global_bytes() > kMaxGlobalBytes) {
    return InvalidArgumentError("module asks for " + std::to_string(module.global_bytes()) +
                                " global bytes (limit " + std::to_string(kMaxGlobalBytes) + ")");
  }
  if (module.global_refs() > kMaxGlobalRefs) {
    return InvalidArgumentError("module asks for " + std::to_string(module.global_refs()) +
                                " global refs (limit " + std::to_string(kMaxGlobalRefs) + ")");
  }

  // Global descriptors (debug names) must describe storage the module has.
  if (module.globals()) {
    for (uint32_t i = 0; i < module.globals()->size(); ++i) {
      const s::GlobalDescriptor* g = module.globals()->Get(i);
      const std::string what = "global descriptor " + std::to_string(i);
      if (!g->name() || !g->type()) return InvalidArgumentError(what + " has no name or type");
      if (g->is_ref()) {
        if (g->offset() >= module.global_refs()) {
          return InvalidArgumentError(what + " '" + g->name()->str() + "' names ref slot " +
                                      std::to_string(g->offset()) + " (module has " +
                                      std::to_string(module.global_refs()) + ")");
        }
      } else if ((g->size() != 4 && g->size() != 8) ||
                 uint64_t{g->offset()} + g->size() > module.global_bytes()) {
        return InvalidArgumentError(what + " '" + g->name()->str() + "' has " +
                                    std::to_string(g->size()) + " bytes at offset " +
                                    std::to_string(g->offset()) + " (module has " +
                                    std::to_string(module.global_bytes()) + " global bytes)");
      }
    }
  }

  KILN_RETURN_IF_ERROR(VerifyExecutableDescriptors(module));

  // Ref types must be known to this instance.
  if (module.types()) {
    for (uint32_t i = 0; i < module.types()->size(); ++i) {
      const auto* name = module.types()->Get(i);
      if (!types.Lookup(name->string_view())) {
        return NotFoundError("unknown ref type '" + name->str() + "' (type index " +
                             std::to_string(i) + ")");
      }
    }
  }
  // Rodata: alignment is a power of two and honoured within the file.
  if (module.rodata()) {
    for (uint32_t i = 0; i < module.rodata()->size(); ++i) {
      const s::RodataSegment* segment = module.rodata()->Get(i);
      uint32_t alignment = segment->alignment();
      if (alignment == 0 || (alignment & (alignment - 1)) || alignment > kMaxRodataAlignment) {
        return InvalidArgumentError("rodata segment " + std::to_string(i) +
                                    " has invalid alignment " + std::to_string(alignment));
      }
      // An empty segment has no bytes to align.
      if (segment->data() && segment->data()->size() > 0 &&
          (segment->data()->data() - bytes.data()) % alignment != 0) {
        return InvalidArgumentError("rodata segment " + std::to_string(i) + " is not aligned to " +
                                    std::to_string(alignment) + " bytes in the file");
      }
    }
  }
  // Imports: qualified names and valid signatures.
  if (module.imports()) {
    for (uint32_t i = 0; i < module.imports()->size(); ++i) {
      const s::Import* import = module.imports()->Get(i);
      std::string name = Str(import->name());
      if (name.find('.') == std::string::npos || name.front() == '.' || name.back() == '.') {
        return InvalidArgumentError("import " + std::to_string(i) + " name '" + name +
                                    "' is not a qualified 'module.function' name");
      }
      SignatureParts parts;
      KILN_RETURN_IF_ERROR(VerifySignature(import->signature(), "import '" + name + "'", &parts));
    }
  }
  // Function descriptors: signatures, spans and argument registers.
  const uint32_t bytecode_size = module.bytecode() ? module.bytecode()->size() : 0;
  std::vector<SignatureParts> signatures(module.functions()->size());
  for (uint32_t i = 0; i < module.functions()->size(); ++i) {
    const s::Function* f = module.functions()->Get(i);
    std::string what = "function " + std::to_string(i) + " '" + Str(f->name()) + "'";
    KILN_RETURN_IF_ERROR(VerifySignature(f->signature(), what, &signatures[i]));
    if (f->bytecode_length() == 0) return InvalidArgumentError(what + " has no bytecode");
    if (uint64_t{f->bytecode_offset()} + f->bytecode_length() > bytecode_size) {
      return InvalidArgumentError(what + " bytecode span [" + std::to_string(f->bytecode_offset()) +
                                  ", +" + std::to_string(f->bytecode_length()) +
                                  ") is outside the module's " + std::to_string(bytecode_size) +
                                  " bytes of bytecode");
    }
    RegisterCounts counts = {f->i32_register_count(), f->i64_register_count(),
                             f->f32_register_count(), f->f64_register_count(),
                             f->ref_register_count()};
    uint32_t total_registers = counts[0] + counts[1] + counts[2] + counts[3] + counts[4];
    if (total_registers > kMaxFrameSlots) {
      return InvalidArgumentError(what + " has " + std::to_string(total_registers) +
                                  " registers in total (limit " + std::to_string(kMaxFrameSlots) +
                                  ")");
    }
    RegisterCounts needed{};
    for (char c : signatures[i].arguments) {
      Bank bank;
      BankOfTypeChar(c, &bank);
      ++needed[static_cast<int>(bank)];
    }
    for (int b = 0; b < kBankCount; ++b) {
      if (needed[b] > counts[b]) {
        return InvalidArgumentError(what + " has " + std::to_string(needed[b]) + " " +
                                    std::string(BankName(static_cast<Bank>(b))) +
                                    " arguments but only " + std::to_string(counts[b]) +
                                    " registers in that bank");
      }
    }
    if (f->locations()) {
      uint32_t previous = 0;
      uint32_t files = module.source_files() ? module.source_files()->size() : 0;
      for (const s::SourceLocation* location : *f->locations()) {
        if (location->bytecode_offset() < previous ||
            location->bytecode_offset() >= f->bytecode_length()) {
          return InvalidArgumentError(what + " debug locations are unsorted or out of range");
        }
        if (location->file() >= files) {
          return InvalidArgumentError(what + " debug location names source file " +
                                      std::to_string(location->file()) + " of " +
                                      std::to_string(files));
        }
        previous = location->bytecode_offset();
      }
    }
  }
  // Function spans must not overlap: the loader rewrites each function's
  // register operands in place, so shared bytes would be rewritten twice and
  // address registers outside the frame.
  std::vector<std::pair<uint32_t, uint32_t>> spans;  // (bytecode offset, function)
  for (uint32_t i = 0; i < module.functions()->size(); ++i) {
    spans.push_back({module.functions()->Get(i)->bytecode_offset(), i});
  }
  std::sort(spans.begin(), spans.end());
  for (size_t k = 1; k < spans.size(); ++k) {
    const s::Function* before = module.functions()->Get(spans[k - 1].second);
    if (uint64_t{before->bytecode_offset()} + before->bytecode_length() > spans[k].first) {
      const s::Function* f = module.functions()->Get(spans[k].second);
      return InvalidArgumentError(
          "function " + std::to_string(spans[k].second) + " '" + Str(f->name()) +
          "' bytecode span [" + std::to_string(f->bytecode_offset()) + ", +" +
          std::to_string(f->bytecode_length()) + ") overlaps function " +
          std::to_string(spans[k - 1].second) + " '" + Str(before->name()) + "'");
    }
  }
  // Exports and the initializer.
  if (module.exports()) {
    // A set, not a pairwise scan: a hostile module may hold ~10^5 exports.
    std::unordered_set<std::string_view> export_names;
    for (uint32_t i = 0; i < module.exports()->size(); ++i) {
      const s::Export* e = module.exports()->Get(i);
      if (!e->name() || e->name()->size() == 0) {
        return InvalidArgumentError("export " + std::to_string(i) + " has no name");
      }
      if (e->function() >= module.functions()->size()) {
        return InvalidArgumentError("export '" + e->name()->str() + "' refers to function " +
                                    std::to_string(e->function()) + " but the module has " +
                                    std::to_string(module.functions()->size()));
      }
      if (!export_names.insert(e->name()->string_view()).second) {
        return InvalidArgumentError("export '" + e->name()->str() + "' is defined twice");
      }
    }
  }
  // -1 (the schema default) means "none"; any other negative value is corrupt.
  if (module.initializer() != -1) {
    if (module.initializer() < 0 ||
        static_cast<uint32_t>(module.initializer()) >= module.functions()->size()) {
      return InvalidArgumentError("initializer function " + std::to_string(module.initializer()) +
                                  " out of range");
    }
    const s::Function* f = module.functions()->Get(module.initializer());
    if (f->signature()->string_view() != "_") {
      return InvalidArgumentError("initializer '" + Str(f->name()) + "' must take and return " +
                                  "nothing, but its signature is " +
                                  FormatSignature(f->signature()->string_view()));
    }
  }
  // Function bodies.
  for (uint32_t i = 0; i < module.functions()->size(); ++i) {
    const s::Function* f = module.functions()->Get(i);
    std::span<const uint8_t> code(module.bytecode()->data() + f->bytecode_offset(),
                                  f->bytecode_length());
    RegisterCounts counts = {f->i32_register_count(), f->i64_register_count(),
                             f->f32_register_count(), f->f64_register_count(),
                             f->ref_register_count()};
    FunctionVerifier verifier(module, i, code, counts, signatures[i]);
    KILN_RETURN_IF_ERROR(verifier.Verify());
  }
  return OkStatus();
}

}  // namespace kiln::vm
