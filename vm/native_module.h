// NativeModule<State>: a module whose functions are plain C++ functions.
//
//   struct LoggerState { int calls = 0; };
//   Result<int32_t> Log(LoggerState& state, int32_t value) {
//     ++state.calls;
//     return value;
//   }
//   auto logger = NativeModule<LoggerState>::Create("logger", [] {
//     return std::make_unique<LoggerState>();
//   });
//   logger->Export("log", &Log);   // signature "i_i", derived from the C++ types
//
// Each function receives the calling context's State explicitly as its first
// parameter; there is no global or thread-local state, so one module shared by
// two contexts keeps two independent states. Arguments and results are
// marshalled from the C++ types:
//   int32_t/uint32_t/bool -> i, int64_t/uint64_t -> I, float -> f, double -> F,
//   Ref<T> -> r (T = Object accepts any ref; otherwise the ref's type must be
//   T::Type(), checked on every call, and the error names the function).
// A function returns void, a value, Status, Result<T> or Result<std::tuple<...>>;
// an error Status fails the calling invocation with the function's name.
//
// Variadic exports take the raw values instead:
//   Status Concat(LoggerState& state, std::span<const Variant> args,
//                 std::span<Variant> results);
//   logger->ExportVariadic("concat", "r*_r", &Concat);
// The signature's arguments end with '*' (signature.h): the export links to
// every import whose concrete signature extends the fixed prefix ("r", "rI",
// "rif", ...). Module::Call checks the prefix's value types and the result
// count before calling (a call.import of linked bytecode skips that: linking
// and verification already proved it, see TrustedEntry in module.h); the
// function checks the tail (Variant::type()) and fills every result, naming
// the argument index in its errors (the VM adds the import's name). No
// marshalling happens, so this is also the form for hot paths.
#pragma once

#include <functional>
#include <memory>
#include <span>
#include <string>
#include <tuple>
#include <type_traits>
#include <utility>
#include <vector>

#include "vm/module.h"
#include "vm/object.h"
#include "vm/signature.h"

namespace kiln::vm {

namespace native_detail {

template <typename T>
struct IsRef : std::false_type {};
template <typename T>
struct IsRef<Ref<T>> : std::true_type {
  using Pointee = T;
};

template <typename T>
constexpr char TypeChar() {
  using U = std::remove_cvref_t<T>;
  if constexpr (std::is_same_v<U, int32_t> || std::is_same_v<U, uint32_t> ||
                std::is_same_v<U, bool>) {
    return 'i';
  } else if constexpr (std::is_same_v<U, int64_t> || std::is_same_v<U, uint64_t>) {
    return 'I';
  } else if constexpr (std::is_same_v<U, float>) {
    return 'f';
  } else if constexpr (std::is_same_v<U, double>) {
    return 'F';
  } else if constexpr (IsRef<U>::value) {
    return 'r';
  } else {
    static_assert(sizeof(U) == 0, "unsupported native function parameter or result type");
  }
}

// The result types a native function may return, normalised to a tuple.
template <typename R>
struct ResultTraits {  // A plain value.
  using Tuple = std::tuple<R>;
};
template <>
struct ResultTraits<void> {
  using Tuple = std::tuple<>;
};
template <>
struct ResultTraits<Status> {
  using Tuple = std::tuple<>;
};
template <typename T>
struct ResultTraits<Result<T>> {
  using Tuple = std::tuple<T>;
};
template <typename... Ts>
struct ResultTraits<Result<std::tuple<Ts...>>> {
  using Tuple = std::tuple<Ts...>;
};

template <typename... Ts>
std::string TypeChars(std::tuple<Ts...>*) {
  return std::string{TypeChar<Ts>()...};
}

// Converts argument `index` of `function` to T, checking value and ref types.
template <typename T>
Status Unpack(const Variant& value, std::string_view function, size_t index, T* out) {
  using U = std::remove_cvref_t<T>;
  auto mismatch = [&](std::string_view expected) {
    return InvalidArgumentError("argument " + std::to_string(index) + " of '" +
                                std::string(function) + "': expected " + std::string(expected) +
                                ", got " + value.ToString());
  };
  if constexpr (IsRef<U>::value) {
    using P = typename IsRef<U>::Pointee;
    if (!value.is_ref()) return mismatch("ref");
    if constexpr (std::is_same_v<P, Object>) {
      *out = value.ref();
    } else {
      if (value.ref() && &value.ref()->type() != &P::Type()) {
        return mismatch("ref<" + std::string(P::Type().name) + ">");
      }
      *out = Ref<P>(static_cast<P*>(value.ref().get()));
    }
  } else if constexpr (TypeChar<U>() == 'i') {
    if (value.type() != ValueType::kI32) return mismatch("i32");
    *out = static_cast<U>(value.i32());
  } else if constexpr (TypeChar<U>() == 'I') {
    if (value.type() != ValueType::kI64) return mismatch("i64");
    *out = static_cast<U>(value.i64());
  } else if constexpr (TypeChar<U>() == 'f') {
    if (value.type() != ValueType::kF32) return mismatch("f32");
    *out = value.f32();
  } else {
    if (value.type() != ValueType::kF64) return mismatch("f64");
    *out = value.f64();
  }
  return OkStatus();
}

template <typename T>
Variant Pack(T value) {
  using U = std::remove_cvref_t<T>;
  if constexpr (IsRef<U>::value) {
    return Variant::FromRef(Ref<Object>(std::move(value)));
  } else if constexpr (TypeChar<U>() == 'i') {
    return Variant::I32(static_cast<int32_t>(value));
  } else if constexpr (TypeChar<U>() == 'I') {
    return Variant::I64(static_cast<int64_t>(value));
  } else if constexpr (TypeChar<U>() == 'f') {
    return Variant::F32(value);
  } else {
    return Variant::F64(value);
  }
}

template <typename Tuple, size_t... I>
void PackTuple(Tuple&& tuple, std::span<Variant> results, std::index_sequence<I...>) {
  ((results[I] = Pack(std::get<I>(std::forward<Tuple>(tuple)))), ...);
}

}  // namespace native_detail

template <typename State>
class NativeModule final : public Module {
 public:
  using StateFactory = std::function<Result<std::unique_ptr<State>>()>;

  static Ref<NativeModule> Create(std::string name, StateFactory factory) {
    return Ref<NativeModule>::Adopt(new NativeModule(std::move(name), std::move(factory)));
  }

  // Exports `function` (a function pointer or captureless lambda whose first
  // parameter is State&) under `function_name`.
  template <typename F>
  NativeModule& Export(std::string function_name, F function) {
    AddExport(std::move(function_name), +function);
    return *this;
  }

  // The function type of variadic exports.
  using VariadicFunction = Status (*)(State&, std::span<const Variant> args,
                                      std::span<Variant> results);

  // Exports `function` under `function_name` with `signature`, whose
  // arguments normally end with '*'. A malformed signature is reported by
  // CreateState (so by Context::Create), which then fails.
  NativeModule& ExportVariadic(std::string function_name, std::string signature,
                               VariadicFunction function) {
    SignatureParts parts;
    Status parsed = ParseNativeSignature(signature, &parts);
    if (!parsed.ok()) {
      if (registration_error_.ok()) {
        registration_error_ = parsed.WithContext("export '" + name_ + "." + function_name + "'");
      }
      return *this;
    }
    auto entry = std::make_unique<Entry>();
    entry->variadic_form = true;
    entry->variadic = function;
    entry->qualified = name_ + "." + function_name;
    // Parsed once here, so a call compares value types without re-reading
    // the signature.
    for (char c : parts.arguments) entry->prefix.push_back(ValueTypeOfChar(c));
    entry->result_count = parts.results.size();
    entry->open_ended = parts.variadic;
    exports_.push_back(
        {std::move(function_name), std::move(signature), static_cast<uint32_t>(exports_.size())});
    entries_.push_back(std::move(entry));
    return *this;
  }

  std::string_view name() const override { return name_; }
  std::span<const ExportedFunction> exports() const override { return exports_; }

  Result<std::unique_ptr<ModuleState>> CreateState() override {
    KILN_RETURN_IF_ERROR(registration_error_);
    auto holder = std::make_unique<StateHolder>();
    if (factory_) {
      auto state = factory_();
      if (!state.ok()) {
        return state.status().WithContext("creating state of module '" + name_ + "'");
      }
      holder->state = std::move(*state);
    } else {
      if constexpr (std::is_default_constructible_v<State>) {
        holder->state = std::make_unique<State>();
      }
    }
    if (!holder->state) return InvalidArgumentError("module '" + name_ + "' produced no state");
    return std::unique_ptr<ModuleState>(std::move(holder));
  }

  Status Call(ModuleState& state, uint32_t ordinal, std::span<const Variant> args,
              std::span<Variant> results, Stack& stack) override {
    if (ordinal >= entries_.size()) return NotFoundError("bad export ordinal");
    const Entry& entry = *entries_[ordinal];
    if (entry.variadic_form) {
      KILN_RETURN_IF_ERROR(CheckVariadicCall(entry, args, results));
      return entry.variadic(UserState(state), args, results);
    }
    return entry.typed(entry, UserState(state), args, results);
  }

  // A variadic export is entered without the checks of Call (a linked
  // import's calls have the shape they check); a typed one still unpacks,
  // checking each ref's type.
  TrustedEntry GetTrustedEntry(uint32_t ordinal) const override {
    if (ordinal >= entries_.size()) return {};
    const Entry* entry = entries_[ordinal].get();
    return {entry->variadic_form ? &TrustedVariadic : &TrustedTyped, entry};
  }

  // The user state of a context's module state (for tests and hosts).
  static State& UserState(ModuleState& state) { return *static_cast<StateHolder&>(state).state; }

 private:
  struct StateHolder final : ModuleState {
    std::unique_ptr<State> state;
  };
  // One export. Held by pointer, so TrustedEntry::data stays valid while
  // more exports are added.
  struct Entry {
    bool variadic_form = false;  // Added by ExportVariadic rather than Export.
    // ExportVariadic: the function, the value types of the signature's fixed
    // arguments, its result count, and whether it ends with '*'.
    VariadicFunction variadic = nullptr;
    std::vector<ValueType> prefix;
    size_t result_count = 0;
    bool open_ended = false;
    // Export: unpacks the arguments (checking count and types), calls the
    // function `erased` (its type erased, restored by `typed`) and packs the
    // results.
    Status (*typed)(const Entry& entry, State& state, std::span<const Variant> args,
                    std::span<Variant> results) = nullptr;
    void (*erased)() = nullptr;
    std::string qualified;  // "module.function", for messages.
  };

  NativeModule(std::string name, StateFactory factory)
      : name_(std::move(name)), factory_(std::move(factory)) {}

  // Call's checks of a variadic export's arguments and result count.
  static Status CheckVariadicCall(const Entry& entry, std::span<const Variant> args,
                                  std::span<Variant> results) {
    const size_t fixed = entry.prefix.size();
    if (args.size() < fixed || (!entry.open_ended && args.size() != fixed) ||
        results.size() != entry.result_count) {
      return InvalidArgumentError("'" + entry.qualified + "' called with " +
                                  std::to_string(args.size()) + " argument(s) and " +
                                  std::to_string(results.size()) + " result(s)");
    }
    for (size_t i = 0; i < fixed; ++i) {
      if (args[i].type() != entry.prefix[i]) {
        return InvalidArgumentError("argument " + std::to_string(i) + " of '" + entry.qualified +
                                    "': expected " + std::string(ValueTypeName(entry.prefix[i])) +
                                    ", got " + args[i].ToString());
      }
    }
    return OkStatus();
  }

  static Status TrustedVariadic(const void* data, ModuleState& state, std::span<const Variant> args,
                                std::span<Variant> results, Stack&) {
    return static_cast<const Entry*>(data)->variadic(UserState(state), args, results);
  }
  static Status TrustedTyped(const void* data, ModuleState& state, std::span<const Variant> args,
                             std::span<Variant> results, Stack&) {
    const Entry& entry = *static_cast<const Entry*>(data);
    return entry.typed(entry, UserState(state), args, results);
  }

  template <typename R, typename... Args>
  void AddExport(std::string function_name, R (*function)(State&, Args...)) {
    using ResultTuple = typename native_detail::ResultTraits<R>::Tuple;
    std::string signature = std::string{native_detail::TypeChar<Args>()...} + "_" +
                            native_detail::TypeChars(static_cast<ResultTuple*>(nullptr));
    auto entry = std::make_unique<Entry>();
    entry->typed = &InvokeTyped<R, Args...>;
    entry->erased = reinterpret_cast<void (*)()>(function);
    entry->qualified = name_ + "." + function_name;
    exports_.push_back(
        {std::move(function_name), std::move(signature), static_cast<uint32_t>(exports_.size())});
    entries_.push_back(std::move(entry));
  }

  template <typename R, typename... Args>
  static Status InvokeTyped(const Entry& entry, State& state, std::span<const Variant> args,
                            std::span<Variant> results) {
    return Invoke(reinterpret_cast<R (*)(State&, Args...)>(entry.erased), entry.qualified, state,
                  args, results, std::index_sequence_for<Args...>{});
  }

  template <typename R, typename... Args, size_t... I>
  static Status Invoke(R (*function)(State&, Args...), const std::string& qualified, State& state,
                       std::span<const Variant> args, std::span<Variant> results,
                       std::index_sequence<I...>) {
    if (args.size() != sizeof...(Args)) {
      return InvalidArgumentError("'" + qualified + "' takes " + std::to_string(sizeof...(Args)) +
                                  " argument(s), got " + std::to_string(args.size()));
    }
    std::tuple<std::remove_cvref_t<Args>...> unpacked;
    Status status;
    ((status.ok()
          ? (void)(status = native_detail::Unpack(args[I], qualified, I, &std::get<I>(unpacked)))
          : void()),
     ...);
    if (!status.ok()) return status;
    using ResultTuple = typename native_detail::ResultTraits<R>::Tuple;
    constexpr size_t kResultCount = std::tuple_size_v<ResultTuple>;
    if (results.size() != kResultCount) {
      return InvalidArgumentError("'" + qualified + "' returns " + std::to_string(kResultCount) +
                                  " result(s), caller expects " + std::to_string(results.size()));
    }
    auto failed = [&](const Status& s) { return s.WithContext("'" + qualified + "' failed"); };
    if constexpr (std::is_void_v<R>) {
      function(state, std::move(std::get<I>(unpacked))...);
      return OkStatus();
    } else if constexpr (std::is_same_v<R, Status>) {
      Status s = function(state, std::move(std::get<I>(unpacked))...);
      return s.ok() ? s : failed(s);
    } else if constexpr (native_detail::IsRef<R>::value || !requires(const R& r) { r.status(); }) {
      results[0] = native_detail::Pack(function(state, std::move(std::get<I>(unpacked))...));
      return OkStatus();
    } else {
      R result = function(state, std::move(std::get<I>(unpacked))...);
      if (!result.ok()) return failed(result.status());
      if constexpr (kResultCount == 1 &&
                    !std::is_same_v<ResultTuple, std::remove_cvref_t<decltype(*result)>>) {
        results[0] = native_detail::Pack(std::move(*result));
      } else {
        native_detail::PackTuple(std::move(*result), results,
                                 std::make_index_sequence<kResultCount>{});
      }
      return OkStatus();
    }
  }

  std::string name_;
  StateFactory factory_;
  std::vector<ExportedFunction> exports_;
  // One per export, by ordinal.
  std::vector<std::unique_ptr<Entry>> entries_;
  Status registration_error_;  // The first malformed ExportVariadic signature.
};

}  // namespace kiln::vm
