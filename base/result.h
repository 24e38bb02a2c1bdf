// Result<T>: a value or the Status that explains why there is none.
//
//   Result<Ref<Module>> module = LoadModule(bytes);
//   if (!module.ok()) return module.status();
//   Use(*module);
//
// KILN_ASSIGN_OR_RETURN(auto m, LoadModule(bytes)) unwraps or propagates.
#pragma once

#include <cassert>
#include <optional>
#include <utility>

#include "base/status.h"

namespace kiln {

template <typename T>
class [[nodiscard]] Result {
 public:
  Result(T value) : value_(std::move(value)) {}         // NOLINT: implicit by design.
  Result(Status status) : status_(std::move(status)) {  // NOLINT: implicit by design.
    if (status_.ok()) status_ = InternalError("Result constructed from an OK status");
  }

  bool ok() const { return value_.has_value(); }
  const Status& status() const& { return status_; }
  Status status() && { return std::move(status_); }

  T& value() & { return *value_; }
  const T& value() const& { return *value_; }
  T&& value() && { return std::move(*value_); }
  T& operator*() & { return *value_; }
  const T& operator*() const& { return *value_; }
  T&& operator*() && { return std::move(*value_); }
  T* operator->() { return &*value_; }
  const T* operator->() const { return &*value_; }

 private:
  Status status_;
  std::optional<T> value_;
};

}  // namespace kiln

#define KILN_CONCAT_INNER_(a, b) a##b
#define KILN_CONCAT_(a, b) KILN_CONCAT_INNER_(a, b)
#define KILN_ASSIGN_OR_RETURN_IMPL_(tmp, lhs, expr) \
  auto tmp = (expr);                                \
  if (!tmp.ok()) [[unlikely]]                       \
    return std::move(tmp).status();                 \
  lhs = std::move(tmp).value()
// Declares/assigns `lhs` from a Result, returning its Status on failure.
#define KILN_ASSIGN_OR_RETURN(lhs, expr) \
  KILN_ASSIGN_OR_RETURN_IMPL_(KILN_CONCAT_(kiln_result_, __LINE__), lhs, expr)
