#include "compiler/ir/source.h"

#include <algorithm>

namespace kiln::compiler {

uint32_t SourceManager::AddFile(std::string path, std::string text) {
  auto file = std::make_unique<File>();
  file->path = std::move(path);
  file->text = std::move(text);
  file->has_text = true;
  file->line_starts.push_back(0);
  for (size_t i = 0; i < file->text.size(); ++i) {
    if (file->text[i] == '\n') file->line_starts.push_back(static_cast<uint32_t>(i + 1));
  }
  files_.push_back(std::move(file));
  return static_cast<uint32_t>(files_.size() - 1);
}

uint32_t SourceManager::AddFileName(std::string_view path) {
  for (size_t i = 0; i < files_.size(); ++i) {
    if (files_[i]->path == path) return static_cast<uint32_t>(i);
  }
  auto file = std::make_unique<File>();
  file->path = std::string(path);
  files_.push_back(std::move(file));
  return static_cast<uint32_t>(files_.size() - 1);
}

Location SourceManager::LocationOf(uint32_t file, size_t offset) const {
  const File& f = *files_[file];
  auto it = std::upper_bound(f.line_starts.begin(), f.line_starts.end(), offset);
  uint32_t line = static_cast<uint32_t>(it - f.line_starts.begin());  // >= 1
  uint32_t column = static_cast<uint32_t>(offset - f.line_starts[line - 1]) + 1;
  return Location{file, line, column};
}

std::string_view SourceManager::LineText(uint32_t file, uint32_t line) const {
  if (file >= files_.size()) return {};
  const File& f = *files_[file];
  if (!f.has_text || line == 0 || line > f.line_starts.size()) return {};
  size_t begin = f.line_starts[line - 1];
  size_t end = line < f.line_starts.size() ? f.line_starts[line] - 1 : f.text.size();
  std::string_view text(f.text);
  text = text.substr(begin, end - begin);
  if (!text.empty() && text.back() == '\r') text.remove_suffix(1);
  return text;
}

std::string SourceManager::Format(const Location& location) const {
  std::string out = location.file < files_.size() ? files_[location.file]->path : "<unknown>";
  if (location.known()) {
    out += ':' + std::to_string(location.line) + ':' + std::to_string(location.column);
  }
  return out;
}

}  // namespace kiln::compiler
