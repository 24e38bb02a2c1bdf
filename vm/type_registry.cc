#include "vm/type_registry.h"

#include "vm/byte_buffer.h"
#include "vm/list.h"

namespace kiln::vm {

TypeRegistry::TypeRegistry() {
  types_.emplace(std::string(ByteBuffer::Type().name), &ByteBuffer::Type());
  types_.emplace(std::string(List::Type().name), &List::Type());
}

Status TypeRegistry::Register(const RefType& type) {
  auto [it, inserted] = types_.emplace(std::string(type.name), &type);
  if (!inserted && it->second != &type) {
    return InvalidArgumentError("ref type '" + std::string(type.name) +
                                "' is already registered as a different type");
  }
  return OkStatus();
}

const RefType* TypeRegistry::Lookup(std::string_view name) const {
  auto it = types_.find(name);
  return it == types_.end() ? nullptr : it->second;
}

}  // namespace kiln::vm
