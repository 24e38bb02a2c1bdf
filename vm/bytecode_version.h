// The bytecode version this VM reads and writes.
//
// Rule (also stated in schemas/module.fbs): a module loads when its major
// version equals kBytecodeVersionMajor and its minor version is at most
// kBytecodeVersionMinor. Adding opcodes at the end bumps the minor version;
// changing an encoding bumps the major version.
#pragma once

#include <cstdint>

namespace kiln::vm {

inline constexpr uint16_t kBytecodeVersionMajor = 1;
inline constexpr uint16_t kBytecodeVersionMinor = 0;

}  // namespace kiln::vm
