#include "compiler/ir/diagnostics.h"

namespace kiln::compiler {

void DiagnosticEngine::Error(const Location& location, std::string message) {
  ++error_count_;
  if (error_count_ > kMaxStoredErrors) return;
  diagnostics_.push_back({Diagnostic::Severity::kError, location, std::move(message)});
}

void DiagnosticEngine::Note(const Location& location, std::string message) {
  if (error_count_ > kMaxStoredErrors) return;
  diagnostics_.push_back({Diagnostic::Severity::kNote, location, std::move(message)});
}

std::string DiagnosticEngine::Render() const {
  std::string out;
  for (const Diagnostic& d : diagnostics_) {
    out += sources_.Format(d.location);
    out += d.severity == Diagnostic::Severity::kError ? ": error: " : ": note: ";
    out += d.message;
    out += '\n';
    std::string_view line = sources_.LineText(d.location.file, d.location.line);
    if (!line.empty()) {
      out += "  ";
      out += line;
      out += "\n  ";
      // Keep tabs so the caret lines up under tab-indented source.
      for (uint32_t i = 1; i < d.location.column && i - 1 < line.size(); ++i) {
        out += line[i - 1] == '\t' ? '\t' : ' ';
      }
      out += "^\n";
    }
  }
  if (error_count_ > kMaxStoredErrors) {
    out += std::to_string(error_count_ - kMaxStoredErrors) + " more error(s) not shown\n";
  }
  return out;
}

Status DiagnosticEngine::ToStatus() const {
  if (!has_errors()) return OkStatus();
  return InvalidArgumentError(Render());
}

}  // namespace kiln::compiler
