#include "vm/module_checksum.h"

#include <cstdio>
#include <cstring>
#include <string>

// The library's documented header-only mode: the hash is compiled into this
// file, so neither kiln's runtime nor an application embedding it links
// libxxhash.
#define XXH_INLINE_ALL
#include <xxhash.h>

namespace kiln::vm {
namespace {

constexpr char kTrailerMagic[4] = {'K', 'S', 'U', 'M'};
constexpr uint32_t kAlgorithmXxh3_64 = 1;

// The trailer's fields are little-endian; kiln's hosts are too (x86-64,
// AArch64), and the FlatBuffer itself already assumes it.
uint32_t LoadU32(const uint8_t* p) {
  uint32_t value;
  std::memcpy(&value, p, sizeof(value));
  return value;
}
uint64_t LoadU64(const uint8_t* p) {
  uint64_t value;
  std::memcpy(&value, p, sizeof(value));
  return value;
}

// The digest of a sealed file: its FlatBuffer bytes and the trailer's magic
// and algorithm (so a flipped bit there is a mismatch too).
uint64_t SealedDigest(std::span<const uint8_t> file) {
  return XXH3_64bits(file.data(), file.size() - sizeof(uint64_t));
}

std::string Hex(uint64_t value) {
  char text[19];
  std::snprintf(text, sizeof(text), "0x%016llx", static_cast<unsigned long long>(value));
  return text;
}

}  // namespace

uint64_t ModuleDigest(std::span<const uint8_t> contents) {
  XXH3_state_t state;
  XXH3_64bits_reset(&state);
  XXH3_64bits_update(&state, contents.data(), contents.size());
  uint8_t header[8];
  std::memcpy(header, kTrailerMagic, 4);
  std::memcpy(header + 4, &kAlgorithmXxh3_64, 4);
  XXH3_64bits_update(&state, header, sizeof(header));
  return XXH3_64bits_digest(&state);
}

void AppendModuleChecksum(std::vector<uint8_t>* module) {
  const uint64_t digest = ModuleDigest(*module);
  const size_t at = module->size();
  module->resize(at + kModuleTrailerBytes);
  uint8_t* trailer = module->data() + at;
  std::memcpy(trailer, kTrailerMagic, 4);
  std::memcpy(trailer + 4, &kAlgorithmXxh3_64, 4);
  std::memcpy(trailer + 8, &digest, 8);
}

Status RewriteModuleChecksum(std::span<uint8_t> sealed_module) {
  if (sealed_module.size() < kModuleTrailerBytes ||
      std::memcmp(sealed_module.data() + sealed_module.size() - kModuleTrailerBytes,
                  kTrailerMagic, 4) != 0) {
    return InvalidArgumentError("cannot rewrite the checksum of a module that has no trailer");
  }
  uint8_t* trailer = sealed_module.data() + sealed_module.size() - kModuleTrailerBytes;
  std::memcpy(trailer + 4, &kAlgorithmXxh3_64, 4);
  const uint64_t digest = SealedDigest(sealed_module);
  std::memcpy(trailer + 8, &digest, 8);
  return OkStatus();
}

Result<std::span<const uint8_t>> CheckModuleChecksum(std::span<const uint8_t> file) {
  // The FlatBuffer's own minimum (its header) is the verifier's to check, on
  // the contents this returns.
  if (file.size() < kModuleTrailerBytes) {
    return InvalidArgumentError("module is truncated (" + std::to_string(file.size()) +
                                " bytes; not a .kmod file)");
  }
  const uint8_t* trailer = file.data() + file.size() - kModuleTrailerBytes;
  if (std::memcmp(trailer, kTrailerMagic, 4) != 0) {
    if (std::memcmp(file.data() + 4, "KILN", 4) != 0) {
      return InvalidArgumentError("not a kiln module: file identifier is '" +
                                  std::string(reinterpret_cast<const char*>(file.data()) + 4, 4) +
                                  "', expected 'KILN'");
    }
    return DataLossError(
        "module is corrupt: it has no checksum trailer (the file is truncated or damaged at its "
        "end, or was written by a kiln-compile older than module checksums: recompile it)");
  }
  const uint32_t algorithm = LoadU32(trailer + 4);
  if (algorithm != kAlgorithmXxh3_64) {
    return DataLossError("module is corrupt: its checksum names unknown algorithm " +
                         std::to_string(algorithm) + " (this kiln knows 1, XXH3-64)");
  }
  const uint64_t recorded = LoadU64(trailer + 8);
  const uint64_t actual = SealedDigest(file);
  if (recorded != actual) {
    return DataLossError("module is corrupt: its checksum does not match its contents (the "
                         "file records " + Hex(recorded) + ", its " +
                         std::to_string(file.size()) + " bytes hash to " + Hex(actual) + ")");
  }
  return file.first(file.size() - kModuleTrailerBytes);
}

}  // namespace kiln::vm
