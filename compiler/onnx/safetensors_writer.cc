#include "compiler/onnx/safetensors_writer.h"

#include <cstdint>
#include <fstream>

#include "nlohmann/json.hpp"

namespace kiln::onnx_import {

bool WriteSafetensors(const std::string& path, const std::vector<ExternalParameter>& parameters,
                      std::string* error) {
  nlohmann::ordered_json header = nlohmann::ordered_json::object();
  header["__metadata__"] = {{"format", "pt"}, {"producer", "kiln-import-onnx"}};
  uint64_t offset = 0;
  for (const ExternalParameter& parameter : parameters) {
    if (header.contains(parameter.key)) {
      *error = "two parameters are named '" + parameter.key + "'";
      return false;
    }
    header[parameter.key] = {{"dtype", parameter.dtype},
                             {"shape", parameter.shape},
                             {"data_offsets", {offset, offset + parameter.bytes.size()}}};
    offset += parameter.bytes.size();
  }
  std::string text = header.dump();
  // The data section starts 8-byte aligned (readers may map it as is).
  text.append((8 - (text.size() % 8)) % 8, ' ');
  std::ofstream file(path, std::ios::binary | std::ios::trunc);
  if (!file) {
    *error = "cannot write '" + path + "'";
    return false;
  }
  const uint64_t header_size = text.size();
  char size_bytes[8];
  for (int i = 0; i < 8; ++i) size_bytes[i] = static_cast<char>((header_size >> (8 * i)) & 0xff);
  file.write(size_bytes, 8);
  file.write(text.data(), static_cast<std::streamsize>(text.size()));
  for (const ExternalParameter& parameter : parameters) {
    file.write(parameter.bytes.data(), static_cast<std::streamsize>(parameter.bytes.size()));
  }
  file.close();
  if (!file) {
    *error = "cannot write '" + path + "'";
    return false;
  }
  return true;
}

}  // namespace kiln::onnx_import
