// The device clock in Vulkan kernels (shader_clock.h).
#include "compiler/targets/vulkan/shader_clock.h"

#include <string>

#include "compiler/dialects/hal/hal_dialect.h"
#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Vector/IR/VectorOps.h"
#include "mlir/IR/Matchers.h"

namespace kiln::compiler::vulkan {
namespace {

// SPIR-V opcodes and enumerants (the SPIR-V specification, section 3).
constexpr uint32_t kOpName = 5;
constexpr uint32_t kOpExtension = 10;
constexpr uint32_t kOpCapability = 17;
constexpr uint32_t kOpTypeInt = 21;
constexpr uint32_t kOpConstant = 43;
constexpr uint32_t kOpLoad = 61;
constexpr uint32_t kOpReadClockKHR = 5056;
constexpr uint32_t kCapabilityShaderClockKHR = 5055;
constexpr uint32_t kScopeDevice = 1;
constexpr size_t kHeaderWords = 5;
constexpr size_t kBoundWord = 3;

uint32_t Instruction(uint32_t opcode, size_t words) {
  return static_cast<uint32_t>(words << 16) | opcode;
}

// A literal string's words: its bytes, NUL-terminated, little-endian.
llvm::SmallVector<uint32_t> StringWords(llvm::StringRef text) {
  llvm::SmallVector<uint32_t> words(text.size() / 4 + 1, 0);
  for (size_t i = 0; i < text.size(); ++i) {
    words[i / 4] |= static_cast<uint32_t>(static_cast<uint8_t>(text[i])) << (8 * (i % 4));
  }
  return words;
}

// The literal string starting at `words[begin]`, up to its NUL.
std::string ReadString(llvm::ArrayRef<uint32_t> words, size_t begin, size_t end) {
  std::string text;
  for (size_t i = begin; i < end; ++i) {
    for (int b = 0; b < 4; ++b) {
      const char c = static_cast<char>((words[i] >> (8 * b)) & 0xFF);
      if (c == '\0') return text;
      text.push_back(c);
    }
  }
  return text;
}

// Whether `value` is the constant 32.
bool IsThirtyTwo(mlir::Value value) {
  llvm::APInt constant;
  return mlir::matchPattern(value, mlir::m_ConstantInt(&constant)) && constant == 32;
}

}  // namespace

mlir::LogicalResult SplitClockReads(mlir::ModuleOp module) {
  llvm::SmallVector<HAL::InterfaceTimestampOp> reads;
  module.walk([&](HAL::InterfaceTimestampOp op) {
    if (op.getType().isInteger(64)) reads.push_back(op);
  });
  for (HAL::InterfaceTimestampOp read : reads) {
    // The words it is used as: trunci(t) is the low word, trunci(t >> 32)
    // the high word.
    llvm::SmallVector<mlir::Operation*> low, high, shifts;
    for (mlir::Operation* user : read->getUsers()) {
      if (auto trunc = llvm::dyn_cast<mlir::arith::TruncIOp>(user);
          trunc && trunc.getType().isInteger(32)) {
        low.push_back(user);
        continue;
      }
      auto shift = llvm::dyn_cast<mlir::arith::ShRUIOp>(user);
      bool ok = shift && shift.getLhs() == read.getResult() && IsThirtyTwo(shift.getRhs());
      if (ok) {
        for (mlir::Operation* shift_user : shift->getUsers()) {
          auto trunc = llvm::dyn_cast<mlir::arith::TruncIOp>(shift_user);
          ok = ok && trunc && trunc.getType().isInteger(32);
          if (ok) high.push_back(shift_user);
        }
      }
      if (!ok) {
        return read.emitOpError()
               << "is used as a 64-bit value by " << user->getName()
               << "; the Vulkan target reads the device clock as two 32-bit words (their "
                  "arith.trunci and arith.trunci of arith.shrui by 32)";
      }
      shifts.push_back(user);
    }
    mlir::OpBuilder builder(read);
    auto words_type = mlir::VectorType::get({2}, builder.getI32Type());
    mlir::Value words = HAL::InterfaceTimestampOp::create(builder, read.getLoc(), words_type);
    mlir::Value low_word = mlir::vector::ExtractOp::create(builder, read.getLoc(), words, 0);
    mlir::Value high_word = mlir::vector::ExtractOp::create(builder, read.getLoc(), words, 1);
    for (mlir::Operation* op : low) op->getResult(0).replaceAllUsesWith(low_word);
    for (mlir::Operation* op : high) op->getResult(0).replaceAllUsesWith(high_word);
    for (mlir::Operation* op : high) op->erase();
    for (mlir::Operation* op : low) op->erase();
    for (mlir::Operation* op : shifts) op->erase();
    read.erase();
  }
  return mlir::success();
}

Status PatchShaderClock(llvm::SmallVectorImpl<uint32_t>& words) {
  if (words.size() < kHeaderWords) return InternalError("the SPIR-V module has no header");
  // One pass over the instructions: the placeholder's id, the unsigned
  // 32-bit integer type, where the capabilities end.
  uint32_t placeholder = 0, u32 = 0;
  size_t u32_end = 0, capabilities_end = kHeaderWords;
  llvm::SmallVector<size_t> loads;
  for (size_t at = kHeaderWords; at < words.size();) {
    const uint32_t count = words[at] >> 16, opcode = words[at] & 0xFFFF;
    if (count == 0 || at + count > words.size()) {
      return InternalError("malformed SPIR-V instruction at word " + std::to_string(at));
    }
    if (opcode == kOpCapability) capabilities_end = at + count;
    if (opcode == kOpName && count >= 3 &&
        ReadString(words, at + 2, at + count) == kShaderClockPlaceholder) {
      placeholder = words[at + 1];
    }
    if (opcode == kOpTypeInt && count == 4 && words[at + 2] == 32 && words[at + 3] == 0) {
      u32 = words[at + 1];
      u32_end = at + count;
    }
    if (opcode == kOpLoad && count == 4) loads.push_back(at);
    at += count;
  }
  if (placeholder == 0) return OkStatus();
  llvm::erase_if(loads, [&](size_t at) { return words[at + 3] != placeholder; });
  if (loads.empty()) return OkStatus();
  if (u32 == 0) return InternalError("the SPIR-V module reads the clock but has no 32-bit integer");

  // The scope operand: a new constant (duplicate constants are valid).
  const uint32_t scope = words[kBoundWord]++;
  for (size_t at : loads) {
    words[at] = Instruction(kOpReadClockKHR, 4);
    words[at + 3] = scope;
  }
  const uint32_t constant[] = {Instruction(kOpConstant, 4), u32, scope, kScopeDevice};
  words.insert(words.begin() + u32_end, std::begin(constant), std::end(constant));
  // The capability and the extension after the last capability (the
  // extensions follow the capabilities); both insertions are before u32's.
  llvm::SmallVector<uint32_t> declarations = {Instruction(kOpCapability, 2),
                                              kCapabilityShaderClockKHR};
  llvm::SmallVector<uint32_t> name = StringWords("SPV_KHR_shader_clock");
  declarations.push_back(Instruction(kOpExtension, 1 + name.size()));
  declarations.append(name.begin(), name.end());
  words.insert(words.begin() + capabilities_end, declarations.begin(), declarations.end());
  return OkStatus();
}

}  // namespace kiln::compiler::vulkan
