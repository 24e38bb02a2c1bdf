// The `check` VM module: the expectations of IREE-style test programs
// (check.expect_true, expect_false, expect_all_true, expect_eq,
// expect_almost_eq), which kiln-check-module links before the program.
//
// Its imports are defined once, in hal/module/check_imports.h (with the
// comparison rules); the compiler lowers the check dialect's ops to calls of
// them. An expectation that does not hold is recorded, not returned as an
// error (googletest's EXPECT semantics: the test function keeps running and
// the test fails), with the check's source location and a message that shows
// both tensors (at most kCheckMaxPrintedElements elements each):
//
//   check.mlir:12:3: expect_eq failed: element [1]: expected 5 but got 4
//     lhs: 4xi32=1 4 3 4
//     rhs: 4xi32=1 5 3 4
//
// Buffer views are read back from the device the program passes (through the
// tools' DownloadTensor, so any driver works). A call fails (an error, which
// fails the invocation) only when its operands are not what the import takes:
// null or non-view refs, or a buffer the device cannot read back.
//
// Each context that links the module has its own list of failures;
// TakeCheckFailures hands a context's list to the host and empties it.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "base/ref.h"
#include "base/result.h"
#include "vm/context.h"
#include "vm/instance.h"
#include "vm/module.h"

namespace kiln::tools {

// Elements of each tensor a failure message prints ('...' marks the rest).
inline constexpr int64_t kCheckMaxPrintedElements = 64;

// One expectation that did not hold.
struct CheckFailure {
  std::string location;  // "file:line:col" of the check op; empty when unknown.
  std::string message;   // "expect_eq failed: ..." with the tensors, one per line.

  // "file:line:col: <message>" (or just the message without a location).
  std::string ToString() const;
};

// The "check" native module. Registers the hal ref types on `instance` (its
// imports take hal objects).
Result<Ref<vm::Module>> CreateCheckModule(vm::Instance& instance);

// The failures `check_module` recorded in `context` since the last call, in
// order; the context's list is emptied. Empty when `context` does not link
// `check_module`.
std::vector<CheckFailure> TakeCheckFailures(const vm::Context& context,
                                            const vm::Module& check_module);

}  // namespace kiln::tools
