// List: a growable list of Variants ("vm.list"), the VM's only container.
//
// Lists carry invocation arguments and results and are what bytecode uses for
// variadic data (list.alloc/size/resize/get/set). Accesses are bounds- and
// type-checked: reading an i32 from an element that holds an f32 is an error,
// not a reinterpretation. A list is not internally synchronised; it belongs to
// one invocation at a time.
#pragma once

#include <cstdint>
#include <vector>

#include "base/result.h"
#include "vm/object.h"
#include "vm/variant.h"

namespace kiln::vm {

class List final : public Object {
 public:
  static const RefType& Type();
  static Ref<List> Create(size_t capacity = 0);

  size_t size() const { return items_.size(); }
  size_t capacity() const { return items_.capacity(); }
  // New elements are `none`.
  void Resize(size_t size) { items_.resize(size); }
  void Reserve(size_t capacity) { items_.reserve(capacity); }
  void Push(Variant value) { items_.push_back(std::move(value)); }
  void Clear() { items_.clear(); }

  Result<Variant> Get(size_t index) const;
  Status Set(size_t index, Variant value);
  // Typed accessors; fail on a bad index or an element of another type.
  Result<int32_t> GetI32(size_t index) const;
  Result<int64_t> GetI64(size_t index) const;
  Result<float> GetF32(size_t index) const;
  Result<double> GetF64(size_t index) const;
  Result<Ref<Object>> GetRef(size_t index) const;

  const std::vector<Variant>& items() const { return items_; }

 private:
  List() : Object(Type()) {}
  Status CheckIndex(size_t index) const;
  Result<const Variant*> GetTyped(size_t index, ValueType type) const;

  std::vector<Variant> items_;
};

}  // namespace kiln::vm
