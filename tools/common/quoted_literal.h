// QuoteLiteral: a command-line value as error messages quote it.
//
// Values can be long (a tensor literal of thousands of elements), so messages
// quote the first 64 characters and mark the cut: 'f32=1 2 3 ...'.
#pragma once

#include <string>
#include <string_view>

namespace kiln::tools {

inline std::string QuoteLiteral(std::string_view text) {
  constexpr size_t kMaxQuoted = 64;
  if (text.size() > kMaxQuoted) return "'" + std::string(text.substr(0, kMaxQuoted)) + "...'";
  return "'" + std::string(text) + "'";
}

}  // namespace kiln::tools
