// Object: the base of every value a ref register can hold, with its RefType.
//
// A RefType names a kind of object ("vm.buffer", "vm.list", "hal.buffer").
// Each C++ object class owns one immutable RefType and stamps it into every
// instance, so checking the type of a ref (at a native-module boundary, or in
// ref.is_type) is a pointer comparison. Modules name the ref types they use in
// their type table; the Instance's TypeRegistry resolves those names.
#pragma once

#include <string_view>

#include "base/ref.h"

namespace kiln::vm {

struct RefType {
  std::string_view name;
};

class Object : public RefObject {
 public:
  explicit Object(const RefType& type) : type_(&type) {}
  const RefType& type() const { return *type_; }

 private:
  const RefType* type_;
};

// Returns `object` as a T if its type is T::Type(), else null.
template <typename T>
T* DynCast(Object* object) {
  return object && &object->type() == &T::Type() ? static_cast<T*>(object) : nullptr;
}

}  // namespace kiln::vm
