// Source text and positions: the files a compilation reads, and the
// `file:line:col` locations that diagnostics and the module's debug table use.
//
// A SourceManager owns every source buffer of one compilation (the input file,
// and file names that only appear in `loc("name":l:c)` trailers, which have no
// text). A Location is a (file index, line, column) triple, 1-based; line 0
// means "unknown". Locations are small values copied into every operation.
#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

namespace kiln::compiler {

struct Location {
  uint32_t file = 0;
  uint32_t line = 0;    // 1-based; 0 = unknown.
  uint32_t column = 0;  // 1-based, in bytes.
  bool known() const { return line != 0; }
  friend bool operator==(const Location&, const Location&) = default;
};

class SourceManager {
 public:
  // Adds a file with its text; returns its index. The text is kept for the
  // lifetime of the manager so string_views into it stay valid.
  uint32_t AddFile(std::string path, std::string text);
  // Adds (or finds) a file known only by name, e.g. from a loc() trailer.
  uint32_t AddFileName(std::string_view path);

  size_t file_count() const { return files_.size(); }
  const std::string& path(uint32_t file) const { return files_[file]->path; }
  std::string_view text(uint32_t file) const { return files_[file]->text; }
  bool has_text(uint32_t file) const { return files_[file]->has_text; }

  // Line/column of a byte offset in `file`'s text.
  Location LocationOf(uint32_t file, size_t offset) const;
  // The text of line `line` (1-based) of `file` without its newline, or "" if
  // the file has no text or no such line.
  std::string_view LineText(uint32_t file, uint32_t line) const;
  // "path:line:col" (or "path" when the line is unknown).
  std::string Format(const Location& location) const;

 private:
  struct File {
    std::string path;
    std::string text;
    bool has_text = false;
    std::vector<uint32_t> line_starts;  // Byte offset of each line.
  };
  std::vector<std::unique_ptr<File>> files_;
};

}  // namespace kiln::compiler
