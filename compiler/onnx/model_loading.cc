#include "compiler/onnx/model_loading.h"

#include <exception>
#include <filesystem>
#include <fstream>
#include <sstream>

#include "onnx/defs/parser.h"
#include "onnx/shape_inference/implementation.h"

namespace kiln::onnx_import {
namespace {

bool ReadFile(const std::filesystem::path& path, std::string& contents) {
  std::ifstream file(path, std::ios::binary);
  if (!file) return false;
  std::ostringstream stream;
  stream << file.rdbuf();
  contents = stream.str();
  return static_cast<bool>(file) || file.eof();
}

// Reads the external data of `tensor` (relative to `directory`) into its
// raw_data.
bool LoadExternalData(const std::filesystem::path& directory, onnx::TensorProto& tensor,
                      std::string* error) {
  std::string location;
  int64_t offset = 0;
  int64_t length = -1;
  for (const onnx::StringStringEntryProto& entry : tensor.external_data()) {
    try {
      if (entry.key() == "location") location = entry.value();
      if (entry.key() == "offset") offset = std::stoll(entry.value());
      if (entry.key() == "length") length = std::stoll(entry.value());
    } catch (const std::exception&) {
      *error = "tensor '" + tensor.name() + "': external data " + entry.key() + " '" +
               entry.value() + "' is not a number";
      return false;
    }
  }
  const std::filesystem::path relative(location);
  bool escapes = location.empty() || relative.is_absolute();
  for (const auto& part : relative) escapes |= part == "..";
  if (escapes) {
    *error = "tensor '" + tensor.name() + "': external data location '" + location +
             "' is not a path inside the model's directory";
    return false;
  }
  const std::filesystem::path path = directory / relative;
  std::ifstream file(path, std::ios::binary | std::ios::ate);
  if (!file) {
    *error = "tensor '" + tensor.name() + "': cannot open external data file '" + path.string() + "'";
    return false;
  }
  const int64_t file_size = static_cast<int64_t>(file.tellg());
  if (length < 0) length = file_size - offset;
  if (offset < 0 || length < 0 || offset > file_size || length > file_size - offset) {
    *error = "tensor '" + tensor.name() + "': external data [" + std::to_string(offset) + ", +" +
             std::to_string(length) + ") lies outside '" + path.string() + "' (" +
             std::to_string(file_size) + " bytes)";
    return false;
  }
  std::string bytes(static_cast<size_t>(length), '\0');
  file.seekg(offset);
  file.read(bytes.data(), length);
  if (!file) {
    *error = "tensor '" + tensor.name() + "': cannot read external data from '" + path.string() + "'";
    return false;
  }
  tensor.set_raw_data(std::move(bytes));
  tensor.clear_external_data();
  tensor.set_data_location(onnx::TensorProto::DEFAULT);
  return true;
}

bool LoadGraphExternalData(const std::filesystem::path& directory, onnx::GraphProto& graph,
                           std::string* error);

bool LoadAttributeExternalData(const std::filesystem::path& directory,
                               onnx::AttributeProto& attribute, std::string* error) {
  if (attribute.has_t() && attribute.t().data_location() == onnx::TensorProto::EXTERNAL &&
      !LoadExternalData(directory, *attribute.mutable_t(), error)) {
    return false;
  }
  if (attribute.has_g() && !LoadGraphExternalData(directory, *attribute.mutable_g(), error)) {
    return false;
  }
  for (onnx::GraphProto& graph : *attribute.mutable_graphs()) {
    if (!LoadGraphExternalData(directory, graph, error)) return false;
  }
  return true;
}

bool LoadGraphExternalData(const std::filesystem::path& directory, onnx::GraphProto& graph,
                           std::string* error) {
  for (onnx::TensorProto& tensor : *graph.mutable_initializer()) {
    if (tensor.data_location() == onnx::TensorProto::EXTERNAL &&
        !LoadExternalData(directory, tensor, error)) {
      return false;
    }
  }
  for (onnx::NodeProto& node : *graph.mutable_node()) {
    for (onnx::AttributeProto& attribute : *node.mutable_attribute()) {
      if (!LoadAttributeExternalData(directory, attribute, error)) return false;
    }
  }
  return true;
}

}  // namespace

bool LoadOnnxModel(const std::string& path, onnx::ModelProto& model, std::string* error) {
  std::string contents;
  if (!ReadFile(path, contents)) {
    *error = "cannot read '" + path + "'";
    return false;
  }
  if (std::filesystem::path(path).extension() == ".onnxtxt") {
    onnx::Common::Status status = onnx::OnnxParser::Parse(model, contents.c_str());
    if (!status.IsOK()) {
      *error = "'" + path + "' does not parse as ONNX's text format: " + status.ErrorMessage();
      return false;
    }
  } else if (!model.ParseFromString(contents)) {
    *error = "'" + path + "' is not an ONNX model (the protobuf does not parse)";
    return false;
  }
  if (!model.has_graph()) {
    *error = "'" + path + "' has no graph";
    return false;
  }
  const std::filesystem::path directory = std::filesystem::path(path).parent_path();
  if (!LoadGraphExternalData(directory, *model.mutable_graph(), error)) {
    *error = "'" + path + "': " + *error;
    return false;
  }
  return true;
}

bool InferOnnxShapes(onnx::ModelProto& model, std::string* error) {
  try {
    onnx::ShapeInferenceOptions options(/*check_type_val=*/false, /*strict_mode_val=*/0,
                                        /*data_prop_val=*/true);
    onnx::shape_inference::InferShapes(model, onnx::OpSchemaRegistry::Instance(), options);
  } catch (const std::exception& e) {
    *error = std::string("ONNX shape inference failed: ") + e.what();
    return false;
  }
  return true;
}

}  // namespace kiln::onnx_import
