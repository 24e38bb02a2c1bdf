// check -> vm: the check dialect's expectations into calls of the runtime's
// `check` module through its one import contract
// (hal/module/check_imports.h); see check_to_vm.cc.
#pragma once

namespace kiln::compiler {

// Adds the patterns to --kiln-convert-to-vm (RegisterVMConversionExtension),
// with the check dialect illegal. Idempotent.
void RegisterCheckToVMConversion();

}  // namespace kiln::compiler
