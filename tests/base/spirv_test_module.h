// SpirvTestModule: hand-assembled SPIR-V binaries for the tests of
// base/spirv_module.h and of its users (the compiler's export table, the
// Vulkan driver's checks). Only the instructions the reader looks at are
// emitted (types beyond 32-bit integers, function bodies and the rest that a
// valid module needs are left out): enough to describe entry points,
// functions and workgroup sizes, and to break them on purpose.
//
//   std::vector<uint8_t> spv = SpirvTestModule()
//       .EntryPoint(1, "main").LocalSize(1, 64, 1, 1).Function(1).Bytes();
#pragma once

#include <cstdint>
#include <cstring>
#include <string>
#include <vector>

namespace kiln::testing {

class SpirvTestModule {
 public:
  static constexpr uint32_t kGLCompute = 5;
  static constexpr uint32_t kFragment = 4;

  // Header: magic, version 1.0, generator 0, id bound, schema 0.
  SpirvTestModule() : words_{0x07230203u, 0x00010000u, 0u, 100u, 0u} {}

  // Appends an instruction: its first word is (word count << 16) | opcode.
  SpirvTestModule& Op(uint32_t opcode, const std::vector<uint32_t>& operands) {
    words_.push_back((static_cast<uint32_t>(operands.size() + 1) << 16) | opcode);
    words_.insert(words_.end(), operands.begin(), operands.end());
    return *this;
  }
  SpirvTestModule& EntryPoint(uint32_t id, const std::string& name, uint32_t model = kGLCompute) {
    std::vector<uint32_t> operands = {model, id};
    // The name's bytes, a NUL, zero padding to a whole word.
    // SPIR-V packs the bytes of each word low byte first.
    std::vector<uint32_t> text(name.size() / 4 + 1, 0);
    for (size_t i = 0; i < name.size(); ++i) {
      text[i / 4] |= static_cast<uint32_t>(static_cast<uint8_t>(name[i])) << (8 * (i % 4));
    }
    operands.insert(operands.end(), text.begin(), text.end());
    return Op(15, operands);
  }
  SpirvTestModule& LocalSize(uint32_t id, uint32_t x, uint32_t y, uint32_t z) {
    return Op(16, {id, 17, x, y, z});
  }
  SpirvTestModule& LocalSizeId(uint32_t id, uint32_t x, uint32_t y, uint32_t z) {
    return Op(331, {id, 38, x, y, z});
  }
  SpirvTestModule& DecorateWorkgroupSize(uint32_t id) { return Op(71, {id, 11, 25}); }
  SpirvTestModule& TypeInt(uint32_t id, uint32_t width) { return Op(21, {id, width, 0}); }
  SpirvTestModule& Constant(uint32_t type, uint32_t id, uint32_t value) {
    return Op(43, {type, id, value});
  }
  SpirvTestModule& SpecConstant(uint32_t type, uint32_t id, uint32_t value) {
    return Op(50, {type, id, value});
  }
  SpirvTestModule& Composite(uint32_t type, uint32_t id, const std::vector<uint32_t>& parts) {
    return CompositeOp(44, type, id, parts);
  }
  SpirvTestModule& SpecComposite(uint32_t type, uint32_t id, const std::vector<uint32_t>& parts) {
    return CompositeOp(51, type, id, parts);
  }
  // An empty function `id`: OpFunction (result type %98, control None,
  // function type %99, neither declared) and OpFunctionEnd.
  SpirvTestModule& Function(uint32_t id) { return Op(54, {98, id, 0, 99}).Op(56, {}); }

  const std::vector<uint32_t>& words() const { return words_; }
  std::vector<uint32_t>& words() { return words_; }
  std::vector<uint8_t> Bytes() const {
    std::vector<uint8_t> bytes(words_.size() * 4);
    std::memcpy(bytes.data(), words_.data(), bytes.size());
    return bytes;
  }

 private:
  SpirvTestModule& CompositeOp(uint32_t opcode, uint32_t type, uint32_t id,
                               const std::vector<uint32_t>& parts) {
    std::vector<uint32_t> operands = {type, id};
    operands.insert(operands.end(), parts.begin(), parts.end());
    return Op(opcode, operands);
  }

  std::vector<uint32_t> words_;
};

}  // namespace kiln::testing
