#include "compiler/ir/types.h"

namespace kiln::compiler {

struct Type::Detail {
  // Tensor: shape + element (elements[0]). Function: inputs, then results.
  std::vector<int64_t> shape;
  std::vector<Type> inputs;
  std::vector<Type> results;
  std::string name, body;  // Dialect types.
};

Type Type::Integer(uint32_t width) { return Type(TypeKind::kInteger, width); }
Type Type::Index() { return Type(TypeKind::kIndex, 64); }
Type Type::Float(uint32_t width) { return Type(TypeKind::kFloat, width); }
Type Type::BF16() { return Type(TypeKind::kBFloat16, 16); }
Type Type::None() { return Type(TypeKind::kNone, 0); }

Type Type::Tensor(std::vector<int64_t> shape, Type element) {
  auto detail = std::make_shared<Detail>();
  detail->shape = std::move(shape);
  detail->inputs.push_back(std::move(element));
  return Type(TypeKind::kTensor, 0, std::move(detail));
}

Type Type::Function(std::vector<Type> inputs, std::vector<Type> results) {
  auto detail = std::make_shared<Detail>();
  detail->inputs = std::move(inputs);
  detail->results = std::move(results);
  return Type(TypeKind::kFunction, 0, std::move(detail));
}

Type Type::Dialect(std::string name, std::string body) {
  auto detail = std::make_shared<Detail>();
  detail->name = std::move(name);
  detail->body = std::move(body);
  return Type(TypeKind::kDialect, 0, std::move(detail));
}

namespace {
const std::vector<int64_t> kNoShape;
const std::vector<Type> kNoTypes;
const std::string kNoString;
}  // namespace

const std::vector<int64_t>& Type::shape() const {
  return is_tensor() ? detail_->shape : kNoShape;
}
Type Type::element_type() const { return is_tensor() ? detail_->inputs[0] : Type(); }
const std::vector<Type>& Type::inputs() const {
  return is_function() ? detail_->inputs : kNoTypes;
}
const std::vector<Type>& Type::results() const {
  return is_function() ? detail_->results : kNoTypes;
}
const std::string& Type::dialect_name() const {
  return is_dialect() ? detail_->name : kNoString;
}
const std::string& Type::dialect_body() const {
  return is_dialect() ? detail_->body : kNoString;
}

bool operator==(const Type& a, const Type& b) {
  if (a.kind_ != b.kind_ || a.width_ != b.width_) return false;
  if (a.detail_ == b.detail_) return true;
  if (!a.detail_ || !b.detail_) return false;
  const Type::Detail& x = *a.detail_;
  const Type::Detail& y = *b.detail_;
  return x.shape == y.shape && x.inputs == y.inputs && x.results == y.results &&
         x.name == y.name && x.body == y.body;
}

std::string FormatTypes(const std::vector<Type>& types) {
  std::string out;
  for (size_t i = 0; i < types.size(); ++i) {
    if (i) out += ", ";
    out += types[i].ToString();
  }
  return out;
}

std::string Type::ToString() const {
  switch (kind_) {
    case TypeKind::kNull:
      return "<<null type>>";
    case TypeKind::kInteger:
      return "i" + std::to_string(width_);
    case TypeKind::kIndex:
      return "index";
    case TypeKind::kFloat:
      return "f" + std::to_string(width_);
    case TypeKind::kBFloat16:
      return "bf16";
    case TypeKind::kNone:
      return "none";
    case TypeKind::kTensor: {
      std::string out = "tensor<";
      for (int64_t dim : detail_->shape) {
        out += dim == kDynamic ? "?" : std::to_string(dim);
        out += 'x';
      }
      return out + detail_->inputs[0].ToString() + ">";
    }
    case TypeKind::kFunction: {
      std::string out = "(" + FormatTypes(detail_->inputs) + ") -> ";
      if (detail_->results.size() == 1 && !detail_->results[0].is_function()) {
        return out + detail_->results[0].ToString();
      }
      return out + "(" + FormatTypes(detail_->results) + ")";
    }
    case TypeKind::kDialect:
      return "!" + detail_->name + (detail_->body.empty() ? "" : "<" + detail_->body + ">");
  }
  return "<<bad type>>";
}

}  // namespace kiln::compiler
