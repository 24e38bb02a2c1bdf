// The .kmod checksum (vm/module_checksum.h): a module carries a digest of its
// bytes, checked by BytecodeModule::Load before anything else in the file is
// read. Every single-bit corruption and every truncation of a module is
// refused with an error that says the file is corrupted; a module edited on
// purpose loads again once its checksum is rewritten.
#include <gtest/gtest.h>

#include <algorithm>
#include <cstring>
#include <string>
#include <vector>

#include "tests/vm/test_util.h"
#include "vm/module_checksum.h"

namespace kiln::vm {
namespace {

using testing::BuildBytes;
using testing::LoadBytes;

// A module with some bulk (a rodata segment, strings, two functions), so the
// corruption sweeps below touch every kind of byte a .kmod holds.
std::vector<uint8_t> SampleModule() {
  ModuleBuilder builder("checksummed", /*version=*/3);
  std::vector<uint8_t> weights(256);
  for (size_t i = 0; i < weights.size(); ++i) weights[i] = static_cast<uint8_t>(i * 7);
  builder.AddRodata("weights", weights, 16);
  builder.AddString("a message");
  FunctionBuilder& twice = builder.AddFunction("twice", "i_i");
  twice.Emit(Opcode::kAddI32, {Reg(1), Reg(0), Reg(0)});
  twice.EmitReturn({1});
  builder.AddExport("twice", twice.ordinal());
  FunctionBuilder& answer = builder.AddFunction("answer", "_i");
  answer.Emit(Opcode::kConstI32, {Reg(0), ImmI32(42)});
  answer.EmitReturn({0});
  builder.AddExport("answer", answer.ordinal());
  return BuildBytes(builder);
}

// Whether `status` is the refusal of a damaged file (and not some later,
// unrelated failure that happened to stop the load).
bool SaysCorrupted(const Status& status) {
  const std::string& message = status.message();
  return status.code() == StatusCode::kDataLoss &&
         (message.find("module is corrupt: its checksum does not match") == 0 ||
          message.find("module is corrupt: it has no checksum trailer") == 0 ||
          message.find("module is corrupt: its checksum names unknown algorithm") == 0);
}

TEST(ModuleChecksumTest, TheBuilderSealsModulesAndTheyLoad) {
  std::vector<uint8_t> bytes = SampleModule();
  ASSERT_GT(bytes.size(), kModuleTrailerBytes);
  EXPECT_EQ(std::memcmp(bytes.data() + bytes.size() - kModuleTrailerBytes, "KSUM", 4), 0);
  auto contents = CheckModuleChecksum(bytes);
  ASSERT_TRUE(contents.ok()) << contents.status().ToString();
  EXPECT_EQ(contents->data(), bytes.data());
  EXPECT_EQ(contents->size(), bytes.size() - kModuleTrailerBytes);
  uint64_t recorded;
  std::memcpy(&recorded, bytes.data() + bytes.size() - 8, 8);
  EXPECT_EQ(recorded, ModuleDigest(*contents));

  Ref<Instance> instance = Instance::Create();
  auto module = LoadBytes(*instance, bytes);
  ASSERT_TRUE(module.ok()) << module.status().ToString();
  EXPECT_EQ((*module)->name(), "checksummed");
}

TEST(ModuleChecksumTest, EverySingleBitFlipIsRefusedAsCorrupted) {
  const std::vector<uint8_t> original = SampleModule();
  Ref<Instance> instance = Instance::Create();
  for (size_t bit = 0; bit < original.size() * 8; ++bit) {
    std::vector<uint8_t> corrupted = original;
    corrupted[bit / 8] ^= static_cast<uint8_t>(1u << (bit % 8));
    auto module = LoadBytes(*instance, corrupted);
    ASSERT_FALSE(module.ok()) << "a module with bit " << bit << " flipped loaded";
    ASSERT_TRUE(SaysCorrupted(module.status()))
        << "bit " << bit << " (byte " << bit / 8 << " of " << original.size()
        << "): " << module.status().ToString();
  }
}

TEST(ModuleChecksumTest, EveryTruncationAndAnyAppendedByteIsRefused) {
  const std::vector<uint8_t> original = SampleModule();
  Ref<Instance> instance = Instance::Create();
  for (size_t length = 0; length < original.size(); ++length) {
    std::vector<uint8_t> prefix(original.begin(), original.begin() + length);
    auto module = LoadBytes(*instance, prefix);
    ASSERT_FALSE(module.ok()) << "a prefix of " << length << " bytes loaded";
    if (length < kModuleTrailerBytes) {
      EXPECT_EQ(module.status().message(),
                "module is truncated (" + std::to_string(length) + " bytes; not a .kmod file)");
    } else {
      EXPECT_TRUE(SaysCorrupted(module.status()))
          << "prefix of " << length << ": " << module.status().ToString();
    }
  }
  std::vector<uint8_t> longer = original;
  longer.push_back(0);
  auto module = LoadBytes(*instance, longer);
  ASSERT_FALSE(module.ok());
  EXPECT_TRUE(SaysCorrupted(module.status())) << module.status().ToString();
}

TEST(ModuleChecksumTest, ErrorsSayWhatIsWrong) {
  const std::vector<uint8_t> original = SampleModule();
  Ref<Instance> instance = Instance::Create();

  // A module without a trailer: written before modules carried checksums.
  std::vector<uint8_t> unsealed(original.begin(), original.end() - kModuleTrailerBytes);
  auto old = LoadBytes(*instance, unsealed);
  ASSERT_FALSE(old.ok());
  EXPECT_EQ(old.status().code(), StatusCode::kDataLoss);
  EXPECT_EQ(old.status().message(),
            "module is corrupt: it has no checksum trailer (the file is truncated or damaged at "
            "its end, or was written by a kiln-compile older than module checksums: recompile "
            "it)");

  // Not a module at all.
  std::vector<uint8_t> text(64, 'x');
  auto not_a_module = LoadBytes(*instance, text);
  ASSERT_FALSE(not_a_module.ok());
  EXPECT_EQ(not_a_module.status().code(), StatusCode::kInvalidArgument);
  EXPECT_EQ(not_a_module.status().message(),
            "not a kiln module: file identifier is 'xxxx', expected 'KILN'");

  // One flipped bit in the body names both digests and the size.
  std::vector<uint8_t> flipped = original;
  flipped[original.size() / 2] ^= 0x10;
  auto mismatch = LoadBytes(*instance, flipped);
  ASSERT_FALSE(mismatch.ok());
  const std::string& message = mismatch.status().message();
  EXPECT_EQ(message.rfind("module is corrupt: its checksum does not match its contents (the "
                          "file records 0x",
                          0),
            0u)
      << message;
  EXPECT_NE(message.find(", its " + std::to_string(original.size()) + " bytes hash to 0x"),
            std::string::npos)
      << message;

  // An algorithm this kiln does not know.
  std::vector<uint8_t> algorithm = original;
  algorithm[original.size() - 12] = 9;
  auto unknown = LoadBytes(*instance, algorithm);
  ASSERT_FALSE(unknown.ok());
  EXPECT_EQ(unknown.status().message(),
            "module is corrupt: its checksum names unknown algorithm 9 (this kiln knows 1, "
            "XXH3-64)");
}

// Tools that edit a module on purpose rewrite its checksum, and the edit then
// loads (and is checked by the verifier like any module).
TEST(ModuleChecksumTest, RewritingTheChecksumAcceptsAnIntendedEdit) {
  std::vector<uint8_t> edited = SampleModule();
  // Rename the module in place: "checksummed" -> "Checksummed".
  const std::string name = "checksummed";
  auto at = std::search(edited.begin(), edited.end(), name.begin(), name.end());
  ASSERT_NE(at, edited.end());
  *at = 'C';
  Ref<Instance> instance = Instance::Create();
  ASSERT_FALSE(LoadBytes(*instance, edited).ok());
  ASSERT_TRUE(RewriteModuleChecksum(edited).ok());
  auto module = LoadBytes(*instance, edited);
  ASSERT_TRUE(module.ok()) << module.status().ToString();
  EXPECT_EQ((*module)->name(), "Checksummed");

  std::vector<uint8_t> unsealed(edited.begin(), edited.end() - kModuleTrailerBytes);
  Status status = RewriteModuleChecksum(unsealed);
  EXPECT_EQ(status.message(), "cannot rewrite the checksum of a module that has no trailer");
}

}  // namespace
}  // namespace kiln::vm
