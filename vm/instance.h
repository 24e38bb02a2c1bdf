// Instance: what all contexts of one application share: the ref type registry.
//
// Create one Instance per process (or per plugin), register the ref types of
// any extra native modules (the HAL does this), then load modules and create
// contexts from it. After setup the instance is read-only and thread-safe.
#pragma once

#include "base/ref.h"
#include "vm/type_registry.h"

namespace kiln::vm {

class Instance final : public RefObject {
 public:
  static Ref<Instance> Create() { return Ref<Instance>::Adopt(new Instance()); }

  TypeRegistry& types() { return types_; }
  const TypeRegistry& types() const { return types_; }

 private:
  Instance() = default;
  TypeRegistry types_;
};

}  // namespace kiln::vm
