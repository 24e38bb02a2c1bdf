#include "hal/parameters/parameter_index.h"

#include <utility>

namespace kiln::hal {
namespace {

std::string FormatTensorType(std::span<const int64_t> dims, ElementType type) {
  std::string text = "tensor<";
  for (int64_t dim : dims) text += std::to_string(dim) + "x";
  return text + std::string(FormatElementType(type)) + ">";
}

std::string FormatShape(std::span<const int64_t> shape) {
  std::string text = "[";
  for (size_t i = 0; i < shape.size(); ++i) text += (i ? ", " : "") + std::to_string(shape[i]);
  return text + "]";
}

}  // namespace

std::string ParameterIndex::FormatParameter(std::string_view scope, std::string_view key) {
  const std::string quoted_key = "\"" + std::string(key) + "\"";
  return scope.empty() ? quoted_key : "\"" + std::string(scope) + "\"::" + quoted_key;
}

Status ParameterIndex::AddFile(std::string_view scope, const std::string& path) {
  KILN_ASSIGN_OR_RETURN(std::unique_ptr<SafetensorsFile> file, SafetensorsFile::Open(path));
  return Add(scope, std::move(file));
}

Status ParameterIndex::Add(std::string_view scope, std::unique_ptr<SafetensorsFile> file) {
  Scope* entry = nullptr;
  for (Scope& s : scopes_) {
    if (s.name == scope) entry = &s;
  }
  if (entry) {
    // A key in two files of one scope would make the value depend on the
    // order the files were given in.
    for (const auto& [key, tensor] : file->tensors()) {
      for (const std::unique_ptr<SafetensorsFile>& other : entry->files) {
        if (other->Find(key)) {
          return InvalidArgumentError("parameter " + FormatParameter(scope, key) + " is in both '" +
                                      other->path() + "' and '" + file->path() + "'");
        }
      }
    }
  } else {
    entry = &scopes_.emplace_back();
    entry->name = std::string(scope);
  }
  entry->files.push_back(std::move(file));
  return OkStatus();
}

const ParameterIndex::Scope* ParameterIndex::FindScope(std::string_view scope) const {
  for (const Scope& s : scopes_) {
    if (s.name == scope) return &s;
  }
  return nullptr;
}

bool ParameterIndex::HasScope(std::string_view scope) const { return FindScope(scope) != nullptr; }

Result<const SafetensorsTensor*> ParameterIndex::Lookup(std::string_view scope,
                                                        std::string_view key,
                                                        ElementType element_type,
                                                        std::span<const int64_t> dims) const {
  const std::string parameter = FormatParameter(scope, key);
  const Scope* entry = FindScope(scope);
  if (!entry) {
    std::string known;
    for (const Scope& s : scopes_) known += (known.empty() ? "" : ", ") + ("\"" + s.name + "\"");
    return NotFoundError(
        "no parameter files for scope \"" + std::string(scope) + "\" (parameter " + parameter +
        "); give them as --parameters=" + (scope.empty() ? "" : std::string(scope) + "=") +
        "FILE.safetensors" + (known.empty() ? "" : " (scopes given: " + known + ")"));
  }
  const SafetensorsFile* file = nullptr;
  const SafetensorsTensor* tensor = nullptr;
  std::string files;
  for (const std::unique_ptr<SafetensorsFile>& f : entry->files) {
    files += (files.empty() ? "'" : ", '") + f->path() + "'";
    if (!tensor && (tensor = f->Find(key))) file = f.get();
  }
  if (!tensor) return NotFoundError("parameter " + parameter + " not found in " + files);
  bool matches = IsCompatibleElementType(element_type, tensor->element_type) &&
                 tensor->shape.size() == dims.size();
  for (size_t i = 0; matches && i < dims.size(); ++i) matches = tensor->shape[i] == dims[i];
  if (!matches) {
    return InvalidArgumentError("parameter " + parameter + " in '" + file->path() + "' holds " +
                                tensor->dtype + " " + FormatShape(tensor->shape) +
                                ", but the program expects " +
                                FormatTensorType(dims, element_type));
  }
  return tensor;
}

}  // namespace kiln::hal
