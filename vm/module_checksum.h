// The .kmod checksum: every module file ends in a 16-byte trailer that holds
// a 64-bit digest (XXH3, from libxxhash) of everything before the digest.
//
//   file = FlatBuffer module bytes | "KSUM" | u32 algorithm (1 = XXH3-64) | u64 digest
//                                    <------- trailer (kModuleTrailerBytes) ------->
//
// The loader checks it before it reads anything else in the file
// (BytecodeModule::Load), so a file damaged on disk or in transit is refused
// with an error saying it is corrupted, instead of being handed to the
// FlatBuffer verifier and the bytecode verifier, which catch what is
// malformed but not what is merely different (a flipped bit in a constant, a
// weight or an embedded kernel still verifies, and runs wrongly). A hostile
// file can carry a correct digest: the verifier is still what makes a module
// safe to run; the checksum is what makes an accident visible.
//
// The trailer sits after the FlatBuffer, not inside it, so the digest covers
// every byte of the module (no field has to be zeroed to compute it) and the
// FlatBuffer's own layout (its identifier at offset 4, the alignment of its
// rodata relative to the file's start) is unchanged.
#pragma once

#include <cstddef>
#include <cstdint>
#include <span>
#include <vector>

#include "base/result.h"

namespace kiln::vm {

inline constexpr size_t kModuleTrailerBytes = 16;

// The digest the trailer records for `contents` (the module's FlatBuffer bytes).
uint64_t ModuleDigest(std::span<const uint8_t> contents);

// Appends the checksum trailer to a module's FlatBuffer bytes.
void AppendModuleChecksum(std::vector<uint8_t>* module);

// Recomputes the trailer of an already sealed module in place (for tools and
// tests that edit a module's bytes on purpose). The module must end in a
// trailer.
Status RewriteModuleChecksum(std::span<uint8_t> sealed_module);

// Checks the trailer of a whole .kmod file and returns the FlatBuffer bytes it
// covers. Errors: a file too short to hold a module, a file with no trailer
// (truncated, damaged at its end, not a .kmod, or written before modules
// carried checksums), an unknown checksum algorithm, a digest mismatch.
Result<std::span<const uint8_t>> CheckModuleChecksum(std::span<const uint8_t> file);

}  // namespace kiln::vm
