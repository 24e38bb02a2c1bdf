#include "vm/disassembler.h"

#include <charconv>
#include <cstring>
#include <span>

#include "schemas/module_generated.h"
#include "vm/signature.h"

namespace kiln::vm {
namespace {

namespace s = ::kiln::schema;

template <typename T>
std::string FormatShortest(T value) {
  char buffer[64];
  auto [end, error] = std::to_chars(buffer, buffer + sizeof(buffer), value);
  if (error != std::errc()) return "?";
  return std::string(buffer, end);
}

// Decodes one instruction with bounds checks on every read.
class InstructionDecoder {
 public:
  InstructionDecoder(const s::Module& module, uint32_t function, const s::Function& descriptor,
                     std::span<const uint8_t> code, uint32_t offset)
      : module_(module),
        function_(function),
        descriptor_(descriptor),
        code_(code),
        start_(offset),
        pc_(offset) {}

  Result<DisassembledInstruction> Decode() {
    if (start_ >= code_.size()) {
      return Fail("offset is outside the function's " + std::to_string(code_.size()) +
                  " bytes of bytecode");
    }
    const uint8_t byte = code_[pc_++];
    if (!IsValidOpcode(byte)) return Fail("invalid opcode " + std::to_string(byte));
    DisassembledInstruction instruction;
    instruction.offset = start_;
    instruction.opcode = static_cast<Opcode>(byte);
    const OpcodeInfo& info = GetOpcodeInfo(instruction.opcode);
    instruction.mnemonic = info.mnemonic;
    mnemonic_ = info.mnemonic;
    for (int i = 0; i < info.operand_count; ++i) {
      KILN_ASSIGN_OR_RETURN(std::string text, DecodeOperand(info.operands[i]));
      instruction.operands.push_back({info.operands[i], std::move(text)});
    }
    instruction.length = pc_ - start_;
    return instruction;
  }

 private:
  Status Fail(const std::string& message) const {
    const s::Function* f = module_.functions()->Get(function_);
    return InvalidArgumentError("cannot disassemble function '" +
                                (f->name() ? f->name()->str() : std::string()) +
                                "' at bytecode offset " + std::to_string(start_) + ": " + message);
  }
  Status Truncated() const { return Fail("truncated " + std::string(mnemonic_) + " instruction"); }

  template <typename T>
  Result<T> Read() {
    if (code_.size() - pc_ < sizeof(T)) return Truncated();
    T value;
    std::memcpy(&value, code_.data() + pc_, sizeof(T));
    pc_ += sizeof(T);
    return value;
  }

  // The name of entry `index` of a module table, or "#index" when unnamed;
  // an error when the table is absent or too short.
  template <typename Table, typename NameOf>
  Result<std::string> Entry(const Table* table, uint32_t index, std::string_view what,
                            NameOf name_of) const {
    uint32_t size = table ? table->size() : 0;
    if (index >= size) {
      return Fail(std::string(what) + " index " + std::to_string(index) +
                  " out of range (module has " + std::to_string(size) + ")");
    }
    const flatbuffers::String* name = name_of(table->Get(index));
    if (!name || name->size() == 0) return "#" + std::to_string(index);
    return name->str();
  }

  // A u8-counted register list whose banks are the type characters `types`.
  Result<std::string> RegisterList(std::string_view types, std::string_view separator) {
    KILN_ASSIGN_OR_RETURN(uint8_t count, Read<uint8_t>());
    if (count != types.size()) {
      return Fail("register list of " + std::to_string(count) + " does not match " +
                  std::to_string(types.size()) + " value(s) of the signature");
    }
    std::string text;
    for (uint8_t i = 0; i < count; ++i) {
      KILN_ASSIGN_OR_RETURN(uint16_t reg, Read<uint16_t>());
      if (i) text += separator;
      text += types[i];
      text += std::to_string(reg);
    }
    return text;
  }

  // Splits the calling-convention string of a callee or of this function.
  Status Signature(const flatbuffers::String* signature, SignatureParts* parts) const {
    if (!signature) return Fail("missing signature");
    Status status = ParseSignature(signature->string_view(), parts);
    return status.ok() ? status : Fail(status.message());
  }

  Result<std::string> DecodeOperand(OperandKind kind) {
    switch (kind) {
      case OperandKind::kRegI32:
      case OperandKind::kRegI64:
      case OperandKind::kRegF32:
      case OperandKind::kRegF64:
      case OperandKind::kRegRef: {
        KILN_ASSIGN_OR_RETURN(uint16_t reg, Read<uint16_t>());
        return TypeCharOfBank(BankOfRegisterKind(kind)) + std::to_string(reg);
      }
      case OperandKind::kImmI32: {
        KILN_ASSIGN_OR_RETURN(int32_t value, Read<int32_t>());
        return std::to_string(value);
      }
      case OperandKind::kImmI64: {
        KILN_ASSIGN_OR_RETURN(int64_t value, Read<int64_t>());
        return std::to_string(value);
      }
      case OperandKind::kImmF32: {
        KILN_ASSIGN_OR_RETURN(float value, Read<float>());
        return FormatFloat(value);
      }
      case OperandKind::kImmF64: {
        KILN_ASSIGN_OR_RETURN(double value, Read<double>());
        return FormatDouble(value);
      }
      case OperandKind::kTarget: {
        KILN_ASSIGN_OR_RETURN(uint32_t target, Read<uint32_t>());
        return "@" + std::to_string(target);
      }
      case OperandKind::kFunction: {
        KILN_ASSIGN_OR_RETURN(uint32_t index, Read<uint32_t>());
        KILN_ASSIGN_OR_RETURN(std::string name,
                              Entry(module_.functions(), index, "function",
                                    [](const s::Function* f) { return f->name(); }));
        KILN_RETURN_IF_ERROR(Signature(module_.functions()->Get(index)->signature(), &callee_));
        return "@" + name;
      }
      case OperandKind::kImport: {
        KILN_ASSIGN_OR_RETURN(uint32_t index, Read<uint32_t>());
        KILN_ASSIGN_OR_RETURN(std::string name,
                              Entry(module_.imports(), index, "import",
                                    [](const s::Import* i) { return i->name(); }));
        KILN_RETURN_IF_ERROR(Signature(module_.imports()->Get(index)->signature(), &callee_));
        return "@" + name;
      }
      case OperandKind::kRodata: {
        KILN_ASSIGN_OR_RETURN(uint32_t index, Read<uint32_t>());
        KILN_ASSIGN_OR_RETURN(std::string name,
                              Entry(module_.rodata(), index, "rodata",
                                    [](const s::RodataSegment* r) { return r->name(); }));
        return "rodata:" + name;
      }
      case OperandKind::kString: {
        KILN_ASSIGN_OR_RETURN(uint32_t index, Read<uint32_t>());
        uint32_t size = module_.strings() ? module_.strings()->size() : 0;
        if (index >= size) {
          return Fail("string index " + std::to_string(index) + " out of range (module has " +
                      std::to_string(size) + ")");
        }
        return QuoteString(module_.strings()->Get(index)->string_view());
      }
      case OperandKind::kType: {
        KILN_ASSIGN_OR_RETURN(uint32_t index, Read<uint32_t>());
        uint32_t size = module_.types() ? module_.types()->size() : 0;
        if (index >= size) {
          return Fail("type index " + std::to_string(index) + " out of range (module has " +
                      std::to_string(size) + ")");
        }
        return "!" + module_.types()->Get(index)->str();
      }
      case OperandKind::kGlobal32:
      case OperandKind::kGlobal64: {
        KILN_ASSIGN_OR_RETURN(uint32_t offset, Read<uint32_t>());
        return "global[" + std::to_string(offset) + "]";
      }
      case OperandKind::kGlobalRef: {
        KILN_ASSIGN_OR_RETURN(uint32_t slot, Read<uint32_t>());
        return "global.ref[" + std::to_string(slot) + "]";
      }
      case OperandKind::kCallArgs: {
        KILN_ASSIGN_OR_RETURN(std::string list, RegisterList(callee_.arguments, ", "));
        return "(" + list + ")";
      }
      case OperandKind::kCallResults: {
        KILN_ASSIGN_OR_RETURN(std::string list, RegisterList(callee_.results, ", "));
        return "(" + list + ")";
      }
      case OperandKind::kReturnValues: {
        SignatureParts own;
        KILN_RETURN_IF_ERROR(Signature(descriptor_.signature(), &own));
        return RegisterList(own.results, ", ");
      }
      case OperandKind::kSwitchTargets: {
        KILN_ASSIGN_OR_RETURN(uint16_t count, Read<uint16_t>());
        std::string text = "[";
        for (uint16_t i = 0; i < count; ++i) {
          KILN_ASSIGN_OR_RETURN(uint32_t target, Read<uint32_t>());
          if (i) text += ", ";
          text += "@" + std::to_string(target);
        }
        return text + "]";
      }
      case OperandKind::kTraceOperands: {
        KILN_ASSIGN_OR_RETURN(uint8_t count, Read<uint8_t>());
        std::string text;
        for (uint8_t i = 0; i < count; ++i) {
          KILN_ASSIGN_OR_RETURN(uint8_t bank, Read<uint8_t>());
          KILN_ASSIGN_OR_RETURN(uint16_t reg, Read<uint16_t>());
          if (bank >= kBankCount) return Fail("invalid register bank " + std::to_string(bank));
          if (i) text += ", ";
          text += TypeCharOfBank(static_cast<Bank>(bank)) + std::to_string(reg);
        }
        return text;
      }
    }
    return Fail("unknown operand kind");
  }

  const s::Module& module_;
  uint32_t function_;
  const s::Function& descriptor_;
  std::span<const uint8_t> code_;
  uint32_t start_;
  uint32_t pc_;
  std::string_view mnemonic_;
  SignatureParts callee_;  // Of the preceding function/import operand.
};

// The bytecode of function `function`, checked against the module's bytecode.
Result<std::span<const uint8_t>> FunctionCode(const s::Module& module, uint32_t function) {
  uint32_t count = module.functions() ? module.functions()->size() : 0;
  if (function >= count) {
    return InvalidArgumentError("function index " + std::to_string(function) +
                                " out of range (module has " + std::to_string(count) + ")");
  }
  const s::Function* f = module.functions()->Get(function);
  uint64_t size = module.bytecode() ? module.bytecode()->size() : 0;
  if (uint64_t{f->bytecode_offset()} + f->bytecode_length() > size) {
    return InvalidArgumentError("function " + std::to_string(function) +
                                " bytecode lies outside the module's bytecode");
  }
  return std::span<const uint8_t>(module.bytecode()->data() + f->bytecode_offset(),
                                  f->bytecode_length());
}

}  // namespace

std::string DisassembledInstruction::ToString() const {
  std::string text(mnemonic);
  bool first = true;
  for (const Operand& operand : operands) {
    if (operand.kind == OperandKind::kCallArgs) {
      text += operand.text;  // Attached to the callee: "@fib(i3)".
      continue;
    }
    if (operand.kind == OperandKind::kCallResults) {
      if (operand.text != "()") text += " -> " + operand.text;
      continue;
    }
    if (operand.text.empty()) continue;
    text += first ? " " : ", ";
    text += operand.text;
    first = false;
  }
  return text;
}

Result<DisassembledInstruction> DisassembleInstruction(const schema::Module& module,
                                                       uint32_t function, uint32_t offset) {
  KILN_ASSIGN_OR_RETURN(std::span<const uint8_t> code, FunctionCode(module, function));
  return InstructionDecoder(module, function, *module.functions()->Get(function), code, offset)
      .Decode();
}

Result<std::vector<DisassembledInstruction>> DisassembleFunction(const schema::Module& module,
                                                                 uint32_t function) {
  KILN_ASSIGN_OR_RETURN(std::span<const uint8_t> code, FunctionCode(module, function));
  const s::Function& descriptor = *module.functions()->Get(function);
  std::vector<DisassembledInstruction> instructions;
  for (uint32_t offset = 0; offset < code.size();) {
    KILN_ASSIGN_OR_RETURN(DisassembledInstruction instruction,
                          InstructionDecoder(module, function, descriptor, code, offset).Decode());
    offset += instruction.length;
    instructions.push_back(std::move(instruction));
  }
  return instructions;
}

std::string QuoteString(std::string_view text) {
  static constexpr char kHex[] = "0123456789abcdef";
  std::string quoted = "\"";
  for (char c : text) {
    const auto byte = static_cast<unsigned char>(c);
    switch (c) {
      case '"':
        quoted += "\\\"";
        break;
      case '\\':
        quoted += "\\\\";
        break;
      case '\n':
        quoted += "\\n";
        break;
      case '\t':
        quoted += "\\t";
        break;
      case '\r':
        quoted += "\\r";
        break;
      default:
        if (byte < 0x20 || byte >= 0x7F) {
          quoted += "\\x";
          quoted += kHex[byte >> 4];
          quoted += kHex[byte & 0xF];
        } else {
          quoted += c;
        }
    }
  }
  return quoted + "\"";
}

std::string FormatFloat(float value) { return FormatShortest(value); }
std::string FormatDouble(double value) { return FormatShortest(value); }

}  // namespace kiln::vm
