// SpirvTestModule for the tests of compiler/executables: the hand-assembled
// SPIR-V of tests/base/spirv_test_module.h (shared with the tests of the
// reader in base/ that the compiler uses), under the compiler tests' name.
#pragma once

#include "tests/base/spirv_test_module.h"

namespace kiln::compiler::testing {

using ::kiln::testing::SpirvTestModule;

}  // namespace kiln::compiler::testing
