#include "tools/common/tensor_type.h"

#include <charconv>

namespace kiln::tools {

bool TensorType::is_static() const {
  for (int64_t dim : dims) {
    if (dim == kDynamic) return false;
  }
  return true;
}

std::string TensorType::ShapeAndType() const {
  std::string text;
  for (int64_t dim : dims) text += (dim == kDynamic ? std::string("?") : std::to_string(dim)) + "x";
  return text + std::string(hal::FormatElementType(element_type));
}

std::string TensorType::ToString() const { return "tensor<" + ShapeAndType() + ">"; }

Result<std::optional<TensorType>> ParseTensorTypeDescription(std::string_view description) {
  const size_t start = description.find("tensor<");
  if (start == std::string_view::npos) return std::optional<TensorType>();
  const size_t body_start = start + std::string_view("tensor<").size();
  const size_t end = description.find('>', body_start);
  auto malformed = [&](std::string_view why) {
    return InvalidArgumentError("malformed tensor type '" + std::string(description) +
                                "': " + std::string(why));
  };
  if (end == std::string_view::npos) return malformed("no closing '>'");
  std::string_view body = description.substr(body_start, end - body_start);
  // An encoding attribute follows the element type after a comma.
  if (const size_t comma = body.find(','); comma != std::string_view::npos) {
    body = body.substr(0, comma);
  }
  while (!body.empty() && body.back() == ' ') body.remove_suffix(1);
  // The element type follows the last 'x' ("index" holds one itself).
  std::string_view element = body;
  std::string_view dims;  // Each dimension followed by its 'x'.
  if (body.ends_with("index")) {
    element = "index";
    dims = body.substr(0, body.size() - element.size());
  } else if (const size_t last_x = body.rfind('x'); last_x != std::string_view::npos) {
    element = body.substr(last_x + 1);
    dims = body.substr(0, last_x + 1);
  }
  TensorType type;
  while (!dims.empty()) {
    const size_t x = dims.find('x');
    if (x == std::string_view::npos) return malformed("bad shape");
    const std::string_view dim = dims.substr(0, x);
    if (dim == "?") {
      type.dims.push_back(TensorType::kDynamic);
    } else {
      int64_t value = 0;
      auto [ptr, error] = std::from_chars(dim.data(), dim.data() + dim.size(), value);
      if (dim.empty() || error != std::errc() || ptr != dim.data() + dim.size() || value < 0) {
        return malformed("bad dimension '" + std::string(dim) + "'");
      }
      type.dims.push_back(value);
    }
    dims.remove_prefix(x + 1);
  }
  if (element == "index") {
    type.element_type = hal::ElementType::kInt64;
  } else {
    auto element_type = hal::ParseElementType(element);
    if (!element_type.ok()) return malformed(element_type.status().message());
    type.element_type = *element_type;
  }
  return std::optional<TensorType>(std::move(type));
}

std::optional<std::string> DescribeTensorTypeMismatch(const TensorType& type,
                                                      std::span<const int64_t> shape,
                                                      hal::ElementType element_type) {
  if (element_type != type.element_type) {
    return "element type " + std::string(hal::FormatElementType(element_type)) + " differs from " +
           std::string(hal::FormatElementType(type.element_type));
  }
  if (shape.size() != type.dims.size()) {
    return "rank " + std::to_string(shape.size()) + " differs from " +
           std::to_string(type.dims.size());
  }
  for (size_t i = 0; i < shape.size(); ++i) {
    if (type.dims[i] != TensorType::kDynamic && type.dims[i] != shape[i]) {
      return "dimension " + std::to_string(i) + " is " + std::to_string(shape[i]) + ", not " +
             std::to_string(type.dims[i]);
    }
  }
  return std::nullopt;
}

}  // namespace kiln::tools
