#include "vm/list.h"

#include <string>

namespace kiln::vm {

const RefType& List::Type() {
  static constexpr RefType kType{"vm.list"};
  return kType;
}

Ref<List> List::Create(size_t capacity) {
  auto list = Ref<List>::Adopt(new List());
  list->items_.reserve(capacity);
  return list;
}

Status List::CheckIndex(size_t index) const {
  if (index >= items_.size()) {
    return OutOfRangeError("list index " + std::to_string(index) + " out of range (size " +
                           std::to_string(items_.size()) + ")");
  }
  return OkStatus();
}

Result<Variant> List::Get(size_t index) const {
  KILN_RETURN_IF_ERROR(CheckIndex(index));
  return items_[index];
}

Status List::Set(size_t index, Variant value) {
  KILN_RETURN_IF_ERROR(CheckIndex(index));
  items_[index] = std::move(value);
  return OkStatus();
}

Result<const Variant*> List::GetTyped(size_t index, ValueType type) const {
  KILN_RETURN_IF_ERROR(CheckIndex(index));
  const Variant& item = items_[index];
  if (item.type() != type) {
    return InvalidArgumentError("list element " + std::to_string(index) + " is " +
                                std::string(ValueTypeName(item.type())) + ", not " +
                                std::string(ValueTypeName(type)));
  }
  return &item;
}

Result<int32_t> List::GetI32(size_t index) const {
  KILN_ASSIGN_OR_RETURN(const Variant* item, GetTyped(index, ValueType::kI32));
  return item->i32();
}
Result<int64_t> List::GetI64(size_t index) const {
  KILN_ASSIGN_OR_RETURN(const Variant* item, GetTyped(index, ValueType::kI64));
  return item->i64();
}
Result<float> List::GetF32(size_t index) const {
  KILN_ASSIGN_OR_RETURN(const Variant* item, GetTyped(index, ValueType::kF32));
  return item->f32();
}
Result<double> List::GetF64(size_t index) const {
  KILN_ASSIGN_OR_RETURN(const Variant* item, GetTyped(index, ValueType::kF64));
  return item->f64();
}
Result<Ref<Object>> List::GetRef(size_t index) const {
  KILN_RETURN_IF_ERROR(CheckIndex(index));
  const Variant& item = items_[index];
  // A `none` element reads as a null ref: lists grown by resize hold none.
  if (item.is_none()) return Ref<Object>();
  if (!item.is_ref()) {
    return InvalidArgumentError("list element " + std::to_string(index) + " is " +
                                std::string(ValueTypeName(item.type())) + ", not ref");
  }
  return item.ref();
}

}  // namespace kiln::vm
