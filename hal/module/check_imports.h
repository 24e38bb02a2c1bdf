// The `check` import contract: the functions of the `check` VM module that
// IREE-style test programs call (check.expect_eq, ...), defined once. The
// runtime module (tools/common/check_module.h, served by kiln-check-module)
// registers its exports from this table, and the compiler's check->VM
// conversion (compiler/vm/conversion/check_to_vm.cc) declares its imports and
// builds its calls from it.
//
// The table lives beside hal_imports.h because its values are hal objects
// (buffer views, the device they live on) and it has the same form: one
// entry per import,
//   X(Id, "name", "signature", "arguments", "tail", "results", "meaning")
// with the fields hal_imports.h describes (f32 for tolerances). Plain
// constexpr C++: the compiler includes it without the runtime.
//
// Every expectation takes `location`, the "file:line:col" of the check op in
// the program's source (empty when unknown), so that a failure names the
// line that failed. A failed expectation is not an error of the call: it is
// recorded (googletest's EXPECT semantics) and the function goes on; the
// host asks the module for the failures after the invocation. Errors of the
// call are for what is not a comparison at all (a null or non-view operand,
// a device that cannot read the buffer back).
//
// The comparisons follow IREE's check module:
//   - expect_true / expect_false: the i32 is non-zero / zero.
//   - expect_all_true: every element of the view is non-zero.
//   - expect_eq: same element type, same shape, and bitwise-equal contents.
//   - expect_almost_eq: same element type and shape, and every element pair
//     has |lhs - rhs| <= atol + rtol * |rhs| (f16 and bf16 compared as
//     float; NaN equals NaN; equal infinities are equal).
#pragma once

#include <array>
#include <cstddef>
#include <cstdint>
#include <string_view>

#include "hal/module/hal_imports.h"

namespace kiln::hal {

// clang-format off
#define KILN_FOR_EACH_CHECK_IMPORT(X)                                                             \
  X(ExpectTrue, "expect_true", "ir_",                                                             \
    "operand:i32 location:vm.buffer", "",                                                         \
    "",                                                                                           \
    "records a failure when the operand is zero")                                                 \
  X(ExpectFalse, "expect_false", "ir_",                                                           \
    "operand:i32 location:vm.buffer", "",                                                         \
    "",                                                                                           \
    "records a failure when the operand is non-zero")                                             \
  X(ExpectAllTrue, "expect_all_true", "rrr_",                                                     \
    "device:hal.device operand:hal.buffer_view location:vm.buffer", "",                           \
    "",                                                                                           \
    "records a failure when any element of the view (read back from the device) is zero")         \
  X(ExpectEq, "expect_eq", "rrrr_",                                                               \
    "device:hal.device lhs:hal.buffer_view rhs:hal.buffer_view location:vm.buffer", "",           \
    "",                                                                                           \
    "records a failure unless the views have the same element type and shape and equal bytes")    \
  X(ExpectAlmostEq, "expect_almost_eq", "rrrffr_",                                                \
    "device:hal.device lhs:hal.buffer_view rhs:hal.buffer_view atol:f32 rtol:f32 "                \
    "location:vm.buffer", "",                                                                     \
    "",                                                                                           \
    "records a failure unless the views have the same element type and shape and every element " \
    "pair has |lhs - rhs| <= atol + rtol * |rhs|")
// clang-format on

enum class CheckImport : uint8_t {
#define KILN_CHECK_IMPORT_ENUM(id, ...) k##id,
  KILN_FOR_EACH_CHECK_IMPORT(KILN_CHECK_IMPORT_ENUM)
#undef KILN_CHECK_IMPORT_ENUM
};

struct CheckImportInfo {
  CheckImport id;
  std::string_view name;       // "expect_eq": the export's name in "check".
  std::string_view signature;  // "rrrr_".
  std::string_view arguments;  // "device:hal.device ...".
  std::string_view tail;       // Always "" (no check import is variadic).
  std::string_view results;    // Always "".
  std::string_view meaning;
};

inline constexpr std::array kCheckImports = {
#define KILN_CHECK_IMPORT_INFO(id, name, signature, arguments, tail, results, meaning) \
  CheckImportInfo{CheckImport::k##id, name, signature, arguments, tail, results, meaning},
    KILN_FOR_EACH_CHECK_IMPORT(KILN_CHECK_IMPORT_INFO)
#undef KILN_CHECK_IMPORT_INFO
};

constexpr const CheckImportInfo& GetCheckImport(CheckImport id) {
  return kCheckImports[static_cast<size_t>(id)];
}

// The module every entry belongs to: programs import "check.<name>".
inline constexpr std::string_view kCheckModuleName = "check";

namespace check_imports_detail {

constexpr bool AllSignaturesMatch() {
  for (size_t i = 0; i < kCheckImports.size(); ++i) {
    if (static_cast<size_t>(kCheckImports[i].id) != i ||
        !hal_imports_detail::SignatureMatches(kCheckImports[i])) {
      return false;
    }
  }
  return true;
}

}  // namespace check_imports_detail

static_assert(check_imports_detail::AllSignaturesMatch(),
              "a check import's signature disagrees with its typed arguments or results");

}  // namespace kiln::hal
