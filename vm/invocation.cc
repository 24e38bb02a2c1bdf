#include "vm/invocation.h"

#include <vector>

#include "vm/signature.h"

namespace kiln::vm {

namespace {

// Checks `arguments` and `results` against the already parsed signature of
// `function`, then calls it.
Status CheckAndCall(const Function& function, const SignatureParts& parts,
                    std::span<const Variant> arguments, std::span<Variant> results, Stack& stack) {
  const std::string& name = function.info->name;
  if (arguments.size() != parts.arguments.size()) {
    return InvalidArgumentError("function '" + name + "' expects " +
                                std::to_string(parts.arguments.size()) + " argument(s) " +
                                FormatSignature(function.info->signature) + ", got " +
                                std::to_string(arguments.size()));
  }
  for (size_t i = 0; i < arguments.size(); ++i) {
    ValueType expected = ValueTypeOfChar(parts.arguments[i]);
    if (arguments[i].type() != expected) {
      return InvalidArgumentError("argument " + std::to_string(i) + " of '" + name + "' must be " +
                                  std::string(ValueTypeName(expected)) + ", got " +
                                  arguments[i].ToString());
    }
  }
  if (results.size() != parts.results.size()) {
    return InvalidArgumentError("function '" + name + "' returns " +
                                std::to_string(parts.results.size()) + " result(s)");
  }
  // A new top-level invocation gets the whole budget; nested ones share it.
  if (stack.depth() == 0) stack.ResetBudget();
  return function.module->Call(*function.state, function.info->ordinal, arguments, results, stack);
}

// The value type of a calling-convention character; kNone for anything else
// ('_', '*', junk), which ValueTypeOfChar would take for a ref.
inline ValueType TypeOfChar(char c) {
  const bool typed = c == 'i' || c == 'I' || c == 'f' || c == 'F' || c == 'r';
  return typed ? ValueTypeOfChar(c) : ValueType::kNone;
}

// Whether `signature` is well formed and `arguments` and `results` match it
// exactly: one pass over the characters, with no Status or message built.
// When this holds, ParseSignature and CheckAndCall's checks all pass; when it
// does not, the caller runs those to say what is wrong.
bool MatchesExactly(std::string_view signature, std::span<const Variant> arguments,
                    std::span<const Variant> results) {
  const size_t argument_count = arguments.size();
  // One '_' after the arguments, then exactly one character per result
  // (ParseSignature also bounds both counts by 255).
  if (argument_count > 255 || results.size() > 255 ||
      signature.size() != argument_count + 1 + results.size() || signature[argument_count] != '_') {
    return false;
  }
  for (size_t i = 0; i < argument_count; ++i) {
    const ValueType type = TypeOfChar(signature[i]);
    if (type == ValueType::kNone || arguments[i].type() != type) return false;
  }
  for (char c : signature.substr(argument_count + 1)) {
    if (TypeOfChar(c) == ValueType::kNone) return false;
  }
  return true;
}

// What InvokeWithStack does when the fast check fails: the full checks, which
// say what is wrong. Out of line, so the fast path keeps a small frame.
[[gnu::noinline]] Status ParseCheckAndCall(const Function& function,
                                           std::span<const Variant> arguments,
                                           std::span<Variant> results, Stack& stack) {
  SignatureParts parts;
  KILN_RETURN_IF_ERROR(ParseSignature(function.info->signature, &parts));
  return CheckAndCall(function, parts, arguments, results, stack);
}

}  // namespace

Status InvokeWithStack(const Function& function, std::span<const Variant> arguments,
                       std::span<Variant> results, Stack& stack) {
  if (!function.module || !function.info) return InvalidArgumentError("invalid function");
  if (MatchesExactly(function.info->signature, arguments, results)) {
    // A new top-level invocation gets the whole budget; nested ones share it.
    if (stack.depth() == 0) stack.ResetBudget();
    return function.module->Call(*function.state, function.info->ordinal, arguments, results,
                                 stack);
  }
  return ParseCheckAndCall(function, arguments, results, stack);
}

Result<Ref<List>> Invoke(Context& context, const Function& function, const List& arguments) {
  if (!function.module || !function.info) return InvalidArgumentError("invalid function");
  SignatureParts parts;
  KILN_RETURN_IF_ERROR(ParseSignature(function.info->signature, &parts));
  std::vector<Variant> results(parts.results.size());
  std::unique_ptr<Stack> stack = context.AcquireStack();
  Status status = CheckAndCall(function, parts, arguments.items(), results, *stack);
  context.ReleaseStack(std::move(stack));
  KILN_RETURN_IF_ERROR(status);
  Ref<List> list = List::Create(results.size());
  for (Variant& result : results) list->Push(std::move(result));
  return list;
}

Result<Ref<List>> Invoke(Context& context, std::string_view function_name, const List& arguments) {
  KILN_ASSIGN_OR_RETURN(Function function, context.LookupFunction(function_name));
  return Invoke(context, function, arguments);
}

}  // namespace kiln::vm
