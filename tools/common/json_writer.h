// JsonWriter: builds a pretty-printed JSON document for the tools' --output=json.
//
//   JsonWriter json;
//   json.BeginObject();
//   json.Key("name");
//   json.String("sample");
//   json.Key("exports");
//   json.BeginArray();
//   ...
//   json.EndArray();
//   json.EndObject();
//   std::fputs(json.str().c_str(), stdout);
//
// Strings are escaped per RFC 8259 (quotes, backslashes, control characters
// as \n or \u00XX). Module strings are arbitrary bytes, so byte sequences that
// are not valid UTF-8 are written as U+FFFD: the output is always valid JSON
// in valid UTF-8. The caller keeps the structure balanced (a Key before each
// value of an object); the writer only places commas, newlines and indents.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

namespace kiln::tools {

class JsonWriter {
 public:
  explicit JsonWriter(int indent = 2) : indent_(indent) {}

  void BeginObject();
  void EndObject();
  void BeginArray();
  void EndArray();
  // The name of the next member of the current object.
  void Key(std::string_view key);

  void String(std::string_view value);
  void Int(int64_t value);
  void Uint(uint64_t value);
  // A finite number, written in the shortest form that reads back exactly
  // (JSON has no NaN or infinity: those are written as null).
  void Double(double value);
  void Bool(bool value);
  void Null();

  // The document so far (complete once every Begin has its End), ending in a
  // newline when complete.
  const std::string& str() const { return out_; }

 private:
  void BeforeValue();
  void Close(char bracket);
  void NewLine();

  struct Level {
    bool empty = true;
  };
  int indent_;
  std::string out_;
  std::vector<Level> levels_;
  bool after_key_ = false;
};

// `text` as a JSON string literal, quotes included.
std::string JsonQuote(std::string_view text);

}  // namespace kiln::tools
