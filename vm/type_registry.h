// TypeRegistry: resolves ref type names from a module's type table.
//
// An Instance owns one registry. vm.buffer and vm.list are always present;
// other libraries (the HAL module) register their types when they are set up
// on the instance. Registration happens before contexts are created; lookups
// are then read-only, so contexts on several threads may share the registry.
#pragma once

#include <map>
#include <string>
#include <string_view>

#include "base/status.h"
#include "vm/object.h"

namespace kiln::vm {

class TypeRegistry {
 public:
  TypeRegistry();

  // Registers `type` under type.name. Registering the same type twice is fine;
  // a different type under an existing name is an error.
  Status Register(const RefType& type);
  // Returns the type named `name` or null.
  const RefType* Lookup(std::string_view name) const;

 private:
  std::map<std::string, const RefType*, std::less<>> types_;
};

}  // namespace kiln::vm
