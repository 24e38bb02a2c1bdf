// Diagnostics: compiler errors in the one format every tool prints.
//
//   example.mlir:3:12: error: use of undefined value '%x'
//     %0 = arith.addi %x, %c1 : i32
//                     ^
//
// Every stage (parser, verifier, passes, codegen) reports into one
// DiagnosticEngine; a stage that reported an error returns a failed Status
// and the driver prints the collected diagnostics. Notes attach extra
// locations to the preceding error ("note: previous definition is here").
#pragma once

#include <string>
#include <vector>

#include "base/status.h"
#include "compiler/ir/source.h"

namespace kiln::compiler {

struct Diagnostic {
  enum class Severity { kError, kNote };
  Severity severity = Severity::kError;
  Location location;
  std::string message;
};

class DiagnosticEngine {
 public:
  explicit DiagnosticEngine(const SourceManager& sources) : sources_(sources) {}

  void Error(const Location& location, std::string message);
  void Note(const Location& location, std::string message);

  bool has_errors() const { return error_count_ > 0; }
  size_t error_count() const { return error_count_; }
  const std::vector<Diagnostic>& diagnostics() const { return diagnostics_; }

  // Every diagnostic, each as "file:line:col: error: message" followed by the
  // source line and a caret under the column when the text is known.
  std::string Render() const;
  // A Status carrying Render() (INVALID_ARGUMENT), or OK with no errors.
  Status ToStatus() const;

  // Stop collecting after this many errors (a broken file must not produce
  // megabytes of output); further errors are counted but not stored.
  static constexpr size_t kMaxStoredErrors = 20;

 private:
  const SourceManager& sources_;
  std::vector<Diagnostic> diagnostics_;
  size_t error_count_ = 0;
};

}  // namespace kiln::compiler
