#include "hal/parameters/safetensors_file.h"

#include <algorithm>
#include <set>
#include <utility>

#include "nlohmann/json.hpp"

namespace kiln::hal {
namespace {

using Json = nlohmann::json;

// The header length the reference implementation accepts at most: a larger
// one is a hostile or corrupt file, not a header to allocate for.
constexpr uint64_t kMaxHeaderBytes = 100'000'000;

struct DtypeInfo {
  std::string_view name;
  ElementType type;
  uint32_t bytes;
};

// The dtypes kiln reads. Integers keep their signedness (I8 -> si8, U8 ->
// ui8) so that a mismatch can say what the file holds; a program's signless
// integers accept either (parameter_index.h).
constexpr DtypeInfo kDtypes[] = {
    {"BOOL", ElementType::kBool, 1},     {"U8", ElementType::kUint8, 1},
    {"I8", ElementType::kSint8, 1},      {"U16", ElementType::kUint16, 2},
    {"I16", ElementType::kSint16, 2},    {"U32", ElementType::kUint32, 4},
    {"I32", ElementType::kSint32, 4},    {"U64", ElementType::kUint64, 8},
    {"I64", ElementType::kSint64, 8},    {"F16", ElementType::kFloat16, 2},
    {"BF16", ElementType::kBFloat16, 2}, {"F32", ElementType::kFloat32, 4},
    {"F64", ElementType::kFloat64, 8},
};

const DtypeInfo* FindDtype(std::string_view dtype) {
  for (const DtypeInfo& info : kDtypes) {
    if (info.name == dtype) return &info;
  }
  return nullptr;
}

std::string FormatShape(const std::vector<int64_t>& shape) {
  std::string text = "[";
  for (size_t i = 0; i < shape.size(); ++i) text += (i ? ", " : "") + std::to_string(shape[i]);
  return text + "]";
}

uint64_t ReadLittleEndian64(const uint8_t* bytes) {
  uint64_t value = 0;
  for (int i = 7; i >= 0; --i) value = (value << 8) | bytes[i];
  return value;
}

// A tensor's place in the data section, for the overlap and gap checks.
struct Extent {
  uint64_t begin, end;
  const std::string* key;
};

}  // namespace

ElementType SafetensorsElementType(std::string_view dtype) {
  const DtypeInfo* info = FindDtype(dtype);
  return info ? info->type : ElementType::kNone;
}

Result<std::unique_ptr<SafetensorsFile>> SafetensorsFile::Open(const std::string& path) {
  KILN_ASSIGN_OR_RETURN(std::unique_ptr<MappedFile> mapping, MappedFile::Open(path));
  std::unique_ptr<SafetensorsFile> file(new SafetensorsFile());
  file->path_ = path;
  KILN_RETURN_IF_ERROR(file->ParseHeader(mapping->bytes()));
  file->mapping_ = std::move(mapping);
  return file;
}

Result<std::unique_ptr<SafetensorsFile>> SafetensorsFile::Parse(std::span<const uint8_t> bytes,
                                                                std::string name) {
  std::unique_ptr<SafetensorsFile> file(new SafetensorsFile());
  file->path_ = std::move(name);
  KILN_RETURN_IF_ERROR(file->ParseHeader(bytes));
  return file;
}

const SafetensorsTensor* SafetensorsFile::Find(std::string_view key) const {
  auto it = tensors_.find(key);
  return it == tensors_.end() ? nullptr : &it->second;
}

Status SafetensorsFile::ParseHeader(std::span<const uint8_t> bytes) {
  const std::string where = "'" + path_ + "'";
  auto error = [&](const std::string& what) {
    return InvalidArgumentError(where + " is not a valid safetensors file: " + what);
  };
  if (bytes.size() < 8) {
    return error("it holds " + std::to_string(bytes.size()) +
                 " bytes, fewer than the 8 of the header length (truncated?)");
  }
  const uint64_t header_bytes = ReadLittleEndian64(bytes.data());
  if (header_bytes > bytes.size() - 8) {
    return error("the header length " + std::to_string(header_bytes) +
                 " runs past the end of the file (" + std::to_string(bytes.size()) +
                 " bytes; truncated?)");
  }
  if (header_bytes > kMaxHeaderBytes) {
    return error("the header length " + std::to_string(header_bytes) + " exceeds " +
                 std::to_string(kMaxHeaderBytes) + " bytes");
  }
  const auto* header_begin = reinterpret_cast<const char*>(bytes.data() + 8);
  const std::span<const uint8_t> data = bytes.subspan(8 + header_bytes);

  // Repeated keys would let two readers see different tensors under one
  // name (JSON leaves them undefined; nlohmann keeps the last): found while
  // parsing, as the parser forgets them.
  std::vector<std::set<std::string>> open_objects;
  std::string repeated;
  auto track_keys = [&](int, Json::parse_event_t event, Json& parsed) {
    if (event == Json::parse_event_t::object_start) {
      open_objects.emplace_back();
    } else if (event == Json::parse_event_t::object_end && !open_objects.empty()) {
      open_objects.pop_back();
    } else if (event == Json::parse_event_t::key && !open_objects.empty() && repeated.empty()) {
      const std::string& key = parsed.get_ref<const std::string&>();
      if (!open_objects.back().insert(key).second) repeated = key;
    }
    return true;
  };
  Json header;
  try {
    header = Json::parse(header_begin, header_begin + header_bytes, track_keys);
  } catch (const Json::exception& e) {
    return error(std::string("the header is not JSON: ") + e.what());
  }
  if (!repeated.empty()) return error("the header repeats the key \"" + repeated + "\"");
  if (!header.is_object()) return error("the header is not a JSON object");

  std::vector<Extent> extents;
  for (auto& [key, entry] : header.items()) {
    if (key == "__metadata__") {
      if (!entry.is_object()) return error("__metadata__ is not an object");
      for (auto& [name, value] : entry.items()) {
        if (!value.is_string()) return error("__metadata__ \"" + name + "\" is not a string");
      }
      continue;
    }
    const std::string tensor = "tensor \"" + key + "\": ";
    if (!entry.is_object()) return error(tensor + "its entry is not an object");
    for (auto& [field, value] : entry.items()) {
      if (field != "dtype" && field != "shape" && field != "data_offsets") {
        return error(tensor + "unknown field \"" + field +
                     "\" (expected dtype, shape and data_offsets)");
      }
    }
    const auto dtype = entry.find("dtype");
    if (dtype == entry.end() || !dtype->is_string()) {
      return error(tensor + "dtype is missing or not a string");
    }
    const std::string& dtype_name = dtype->get_ref<const std::string&>();
    const DtypeInfo* info = FindDtype(dtype_name);
    if (!info) {
      return error(tensor + "dtype \"" + dtype_name +
                   "\" is not one kiln reads (BOOL, U8, I8, U16, I16, U32, I32, U64, I64, F16, "
                   "BF16, F32, F64)");
    }
    const auto shape = entry.find("shape");
    if (shape == entry.end() || !shape->is_array()) {
      return error(tensor + "shape is missing or not an array");
    }
    SafetensorsTensor parsed;
    parsed.dtype = dtype_name;
    parsed.element_type = info->type;
    uint64_t elements = 1;
    bool overflow = false, empty = false;
    for (const Json& dim : *shape) {
      if (!dim.is_number_unsigned() || dim.get<uint64_t>() > static_cast<uint64_t>(INT64_MAX)) {
        return error(tensor + "shape " + shape->dump() + " holds " + dim.dump() +
                     ", not a non-negative integer");
      }
      const uint64_t extent = dim.get<uint64_t>();
      parsed.shape.push_back(static_cast<int64_t>(extent));
      if (extent == 0) empty = true;
      if (extent != 0 && elements > UINT64_MAX / extent) overflow = true;
      elements *= extent;
    }
    // A zero dimension empties the tensor whatever the others are (whose
    // product may have wrapped around).
    if (empty) {
      elements = 0;
      overflow = false;
    }
    const auto offsets = entry.find("data_offsets");
    if (offsets == entry.end() || !offsets->is_array() || offsets->size() != 2 ||
        !(*offsets)[0].is_number_unsigned() || !(*offsets)[1].is_number_unsigned()) {
      return error(tensor + "data_offsets is missing or not two non-negative integers");
    }
    const uint64_t begin = (*offsets)[0].get<uint64_t>();
    const uint64_t end = (*offsets)[1].get<uint64_t>();
    const std::string range =
        "data_offsets [" + std::to_string(begin) + ", " + std::to_string(end) + "]";
    if (begin > end) return error(tensor + range + " ends before it begins");
    if (end > data.size()) {
      return error(tensor + range + " run past the data section (" + std::to_string(data.size()) +
                   " bytes)");
    }
    const std::string described = dtype_name + " " + FormatShape(parsed.shape);
    if (overflow || elements > UINT64_MAX / info->bytes) {
      return error(tensor + described + " has more bytes than a file can hold");
    }
    if (end - begin != elements * info->bytes) {
      return error(tensor + range + " hold " + std::to_string(end - begin) + " bytes, but " +
                   described + " needs " + std::to_string(elements * info->bytes));
    }
    parsed.bytes = data.subspan(begin, end - begin);
    auto [it, inserted] = tensors_.emplace(key, std::move(parsed));
    extents.push_back({begin, end, &it->first});
  }

  // The tensors tile the data section: no byte belongs to two tensors (one
  // write would change both) and none to no tensor (the format forbids
  // hidden data).
  std::sort(extents.begin(), extents.end(), [](const Extent& a, const Extent& b) {
    return a.begin != b.begin ? a.begin < b.begin : a.end < b.end;
  });
  uint64_t covered = 0;
  const Extent* previous = nullptr;
  for (const Extent& extent : extents) {
    if (extent.begin < covered) {
      return error("tensors \"" + *previous->key + "\" [" + std::to_string(previous->begin) + ", " +
                   std::to_string(previous->end) + "] and \"" + *extent.key + "\" [" +
                   std::to_string(extent.begin) + ", " + std::to_string(extent.end) + "] overlap");
    }
    if (extent.begin > covered) {
      return error("bytes [" + std::to_string(covered) + ", " + std::to_string(extent.begin) +
                   ") of the data section belong to no tensor");
    }
    covered = extent.end;
    previous = &extent;
  }
  if (covered != data.size()) {
    return error("bytes [" + std::to_string(covered) + ", " + std::to_string(data.size()) +
                 ") of the data section belong to no tensor");
  }
  return OkStatus();
}

}  // namespace kiln::hal
