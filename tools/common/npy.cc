#include "tools/common/npy.h"

#include <cerrno>
#include <charconv>
#include <cstdio>
#include <cstring>
#include <optional>
#include <string_view>

#include "base/file_io.h"

namespace kiln::tools {
namespace {

using hal::ElementType;

constexpr std::string_view kMagic = "\x93NUMPY";
constexpr size_t kAlignment = 64;  // NumPy aligns the data to 64 bytes.

struct DtypeEntry {
  std::string_view descr;  // Without the byte-order character.
  ElementType type;
};
// Reading: every dtype kiln knows; writing uses the first entry of a type.
constexpr DtypeEntry kDtypes[] = {
    {"f2", ElementType::kFloat16}, {"f4", ElementType::kFloat32}, {"f8", ElementType::kFloat64},
    {"b1", ElementType::kBool},    {"i1", ElementType::kInt8},    {"i2", ElementType::kInt16},
    {"i4", ElementType::kInt32},   {"i8", ElementType::kInt64},   {"i1", ElementType::kSint8},
    {"i2", ElementType::kSint16},  {"i4", ElementType::kSint32},  {"i8", ElementType::kSint64},
    {"u1", ElementType::kUint8},   {"u2", ElementType::kUint16},  {"u4", ElementType::kUint32},
    {"u8", ElementType::kUint64},
};

// The parts of the header dict kiln reads.
struct Header {
  std::optional<std::string> descr;
  std::optional<bool> fortran_order;
  std::optional<std::vector<int64_t>> shape;
};

// A reader of the small Python-literal subset NumPy writes in headers.
class HeaderParser {
 public:
  explicit HeaderParser(std::string_view text) : text_(text) {}

  Result<Header> Parse() {
    Header header;
    SkipSpaces();
    if (!Consume('{')) return Error("expected '{'");
    while (true) {
      SkipSpaces();
      if (Consume('}')) break;
      KILN_ASSIGN_OR_RETURN(std::string key, ParseString());
      SkipSpaces();
      if (!Consume(':')) return Error("expected ':' after '" + key + "'");
      SkipSpaces();
      if (key == "descr") {
        KILN_ASSIGN_OR_RETURN(std::string descr, ParseString());
        header.descr = std::move(descr);
      } else if (key == "fortran_order") {
        if (ConsumeWord("True")) {
          header.fortran_order = true;
        } else if (ConsumeWord("False")) {
          header.fortran_order = false;
        } else {
          return Error("fortran_order must be True or False");
        }
      } else if (key == "shape") {
        KILN_ASSIGN_OR_RETURN(std::vector<int64_t> shape, ParseShape());
        header.shape = std::move(shape);
      } else {
        return Error("unknown key '" + key + "'");
      }
      SkipSpaces();
      if (Consume(',')) continue;
      SkipSpaces();
      if (Consume('}')) break;
      return Error("expected ',' or '}'");
    }
    SkipSpaces();
    if (pos_ != text_.size()) return Error("unexpected text after the dict");
    return header;
  }

 private:
  Status Error(const std::string& what) const {
    return InvalidArgumentError("malformed .npy header at character " + std::to_string(pos_) +
                                ": " + what);
  }
  void SkipSpaces() {
    while (pos_ < text_.size() &&
           (text_[pos_] == ' ' || text_[pos_] == '\n' || text_[pos_] == '\t')) {
      ++pos_;
    }
  }
  bool Consume(char c) {
    if (pos_ < text_.size() && text_[pos_] == c) {
      ++pos_;
      return true;
    }
    return false;
  }
  bool ConsumeWord(std::string_view word) {
    if (text_.substr(pos_, word.size()) != word) return false;
    pos_ += word.size();
    return true;
  }
  Result<std::string> ParseString() {
    if (pos_ >= text_.size() || (text_[pos_] != '\'' && text_[pos_] != '"')) {
      return Error("expected a quoted string");
    }
    const char quote = text_[pos_++];
    const size_t end = text_.find(quote, pos_);
    if (end == std::string_view::npos) return Error("unterminated string");
    std::string value(text_.substr(pos_, end - pos_));
    pos_ = end + 1;
    return value;
  }
  Result<std::vector<int64_t>> ParseShape() {
    if (!Consume('(')) return Error("shape must be a tuple");
    std::vector<int64_t> shape;
    while (true) {
      SkipSpaces();
      if (Consume(')')) break;
      const size_t start = pos_;
      while (pos_ < text_.size() && text_[pos_] >= '0' && text_[pos_] <= '9') ++pos_;
      int64_t dim = 0;
      auto [ptr, error] = std::from_chars(text_.data() + start, text_.data() + pos_, dim);
      if (pos_ == start || error != std::errc()) return Error("bad dimension in shape");
      // Python 2 era writers append 'L' to longs.
      if (pos_ < text_.size() && text_[pos_] == 'L') ++pos_;
      shape.push_back(dim);
      if (shape.size() > 64) return Error("shape has more than 64 dimensions");
      SkipSpaces();
      if (Consume(',')) continue;
      SkipSpaces();
      if (Consume(')')) break;
      return Error("expected ',' or ')' in shape");
    }
    return shape;
  }

  std::string_view text_;
  size_t pos_ = 0;
};

Result<ElementType> ParseDescr(const std::string& descr) {
  if (descr.size() == 3 &&
      (descr[0] == '<' || descr[0] == '|' || descr[0] == '>' || descr[0] == '=')) {
    const std::string_view code = std::string_view(descr).substr(1);
    for (const DtypeEntry& entry : kDtypes) {
      if (entry.descr != code) continue;
      const bool one_byte = hal::ElementByteSize(entry.type) == 1;
      // '=' is native order, little-endian on every host kiln runs on.
      if (descr[0] == '>' && !one_byte) {
        return UnimplementedError("big-endian .npy dtype '" + descr +
                                  "' is not supported (save with '<' byte order)");
      }
      return entry.type;
    }
  }
  return UnimplementedError("unsupported .npy dtype '" + descr +
                            "' (supported: <f2 <f4 <f8 |b1 |i1 <i2 <i4 <i8 |u1 <u2 <u4 <u8)");
}

uint32_t LoadLittleEndian(const uint8_t* p, size_t size) {
  uint32_t value = 0;
  for (size_t i = 0; i < size; ++i) value |= static_cast<uint32_t>(p[i]) << (8 * i);
  return value;
}

}  // namespace

Result<HostTensor> ReadNpyArray(std::span<const uint8_t> bytes, size_t* consumed) {
  if (bytes.size() < kMagic.size() + 2 ||
      std::memcmp(bytes.data(), kMagic.data(), kMagic.size()) != 0) {
    return InvalidArgumentError("not a .npy file (no \\x93NUMPY magic)");
  }
  const uint8_t major = bytes[6];
  const uint8_t minor = bytes[7];
  if (major < 1 || major > 3 || minor != 0) {
    return UnimplementedError("unsupported .npy version " + std::to_string(major) + "." +
                              std::to_string(minor) + " (supported: 1.0, 2.0, 3.0)");
  }
  const size_t length_size = major == 1 ? 2 : 4;
  const size_t header_start = 8 + length_size;
  if (bytes.size() < header_start) {
    return InvalidArgumentError("truncated .npy file: " + std::to_string(bytes.size()) +
                                " bytes end inside the header length");
  }
  const uint64_t header_length = LoadLittleEndian(bytes.data() + 8, length_size);
  if (bytes.size() - header_start < header_length) {
    return InvalidArgumentError("truncated .npy file: the header needs " +
                                std::to_string(header_length) + " bytes, " +
                                std::to_string(bytes.size() - header_start) + " remain");
  }
  const std::string_view header_text(reinterpret_cast<const char*>(bytes.data()) + header_start,
                                     header_length);
  KILN_ASSIGN_OR_RETURN(Header header, HeaderParser(header_text).Parse());
  if (!header.descr) return InvalidArgumentError("malformed .npy header: no 'descr'");
  if (!header.shape) return InvalidArgumentError("malformed .npy header: no 'shape'");
  if (!header.fortran_order) {
    return InvalidArgumentError("malformed .npy header: no 'fortran_order'");
  }
  KILN_ASSIGN_OR_RETURN(ElementType type, ParseDescr(*header.descr));
  const std::string shape_text = FormatShapeAndType(*header.shape, type);
  if (*header.fortran_order) {
    int64_t non_trivial = 0;
    for (int64_t dim : *header.shape) non_trivial += dim > 1 ? 1 : 0;
    // With at most one dimension above 1, Fortran and C order lay out alike.
    if (non_trivial > 1) {
      return UnimplementedError(".npy array " + shape_text +
                                " is in Fortran order (fortran_order: True); only C order is "
                                "supported (save a C-contiguous array, e.g. "
                                "numpy.ascontiguousarray)");
    }
  }
  KILN_ASSIGN_OR_RETURN(int64_t count,
                        CheckedElementCount(*header.shape, hal::ElementByteSize(type)));
  const uint64_t data_size = static_cast<uint64_t>(count) * hal::ElementByteSize(type);
  const uint64_t available = bytes.size() - header_start - header_length;
  // With `consumed`, the array may be followed by more (an appended file).
  if (consumed ? available < data_size : available != data_size) {
    return InvalidArgumentError(std::string(available < data_size ? "truncated" : "corrupt") +
                                " .npy file: " + shape_text + " needs " +
                                std::to_string(data_size) + " bytes of data, the file has " +
                                std::to_string(available));
  }
  const std::span<const uint8_t> data = bytes.subspan(header_start + header_length, data_size);
  if (consumed) *consumed = header_start + header_length + data_size;
  if (type == ElementType::kBool) {
    for (size_t i = 0; i < data.size(); ++i) {
      if (data[i] > 1) {
        return InvalidArgumentError("corrupt .npy file: bool element " + std::to_string(i) +
                                    " is " + std::to_string(data[i]) + ", not 0 or 1");
      }
    }
  }
  return HostTensor::FromBytes(*header.shape, type, data);
}

Result<HostTensor> ReadNpy(std::span<const uint8_t> bytes) { return ReadNpyArray(bytes, nullptr); }

Result<HostTensor> ReadNpyFile(const std::string& path) {
  KILN_ASSIGN_OR_RETURN(AlignedBuffer file, ReadFile(path));
  auto tensor = ReadNpy(file.span());
  if (!tensor.ok()) {
    return tensor.status().WithContext(path == "-" ? "<stdin>" : "'" + path + "'");
  }
  return tensor;
}

Result<std::vector<uint8_t>> WriteNpy(const HostTensor& tensor) {
  const DtypeEntry* dtype = nullptr;
  for (const DtypeEntry& entry : kDtypes) {
    if (entry.type == tensor.element_type) {
      dtype = &entry;
      break;
    }
  }
  if (dtype == nullptr) {
    return UnimplementedError(std::string(hal::FormatElementType(tensor.element_type)) +
                              " tensors cannot be written as .npy (NumPy has no such dtype)");
  }
  KILN_ASSIGN_OR_RETURN(int64_t count, CheckedElementCount(tensor.shape, tensor.element_size()));
  if (tensor.bytes.size() != static_cast<uint64_t>(count) * tensor.element_size()) {
    return InvalidArgumentError("tensor data size does not match its shape " +
                                FormatShapeAndType(tensor.shape, tensor.element_type));
  }
  const char order = tensor.element_size() == 1 ? '|' : '<';
  std::string header = "{'descr': '" + std::string(1, order) + std::string(dtype->descr) +
                       "', 'fortran_order': False, 'shape': (";
  for (size_t i = 0; i < tensor.shape.size(); ++i) {
    if (i > 0) header += ", ";
    header += std::to_string(tensor.shape[i]);
  }
  if (tensor.shape.size() == 1) header += ",";
  header += "), }";
  // Pad with spaces so that magic + version + length + header + '\n' is a
  // multiple of the alignment.
  size_t length_size = 2;
  uint8_t major = 1;
  auto padded = [&]() {
    const size_t prefix = kMagic.size() + 2 + length_size;
    const size_t unpadded = prefix + header.size() + 1;
    return (unpadded + kAlignment - 1) / kAlignment * kAlignment - prefix;
  };
  if (padded() > 0xFFFF) {
    length_size = 4;
    major = 2;
  }
  const size_t header_length = padded();
  header.resize(header_length - 1, ' ');
  header += '\n';
  const size_t prefix = kMagic.size() + 2 + length_size;
  std::vector<uint8_t> out(prefix + header_length + tensor.bytes.size());
  std::memcpy(out.data(), kMagic.data(), kMagic.size());
  out[kMagic.size()] = major;
  out[kMagic.size() + 1] = 0;
  for (size_t i = 0; i < length_size; ++i) {
    out[kMagic.size() + 2 + i] = static_cast<uint8_t>(header_length >> (8 * i));
  }
  std::memcpy(out.data() + prefix, header.data(), header.size());
  if (!tensor.bytes.empty()) {
    std::memcpy(out.data() + prefix + header_length, tensor.bytes.data(), tensor.bytes.size());
  }
  return out;
}

Status WriteNpyFile(const std::string& path, const HostTensor& tensor) {
  KILN_ASSIGN_OR_RETURN(std::vector<uint8_t> bytes, WriteNpy(tensor));
  return WriteFile(path, bytes);
}

Status AppendNpyFile(const std::string& path, const HostTensor& tensor) {
  KILN_ASSIGN_OR_RETURN(std::vector<uint8_t> bytes, WriteNpy(tensor));
  return AppendFile(path, bytes);
}

Status AppendFile(const std::string& path, std::span<const uint8_t> bytes) {
  if (path == "-") return WriteFile(path, bytes);
  std::FILE* file = std::fopen(path.c_str(), "ab");
  if (file == nullptr) {
    return UnavailableError("cannot open '" + path + "' for appending: " + std::strerror(errno));
  }
  const size_t written = bytes.empty() ? 0 : std::fwrite(bytes.data(), 1, bytes.size(), file);
  const bool failed = written != bytes.size() || std::ferror(file);
  if (std::fclose(file) != 0 || failed) {
    return UnavailableError("cannot write '" + path + "': " + std::strerror(errno));
  }
  return OkStatus();
}

}  // namespace kiln::tools
