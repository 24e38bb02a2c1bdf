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

}  // namespace

Status InvokeWithStack(const Function& function, std::span<const Variant> arguments,
                       std::span<Variant> results, Stack& stack) {
  if (!function.module || !function.info) return InvalidArgumentError("invalid function");
  SignatureParts parts;
  KILN_RETURN_IF_ERROR(ParseSignature(function.info->signature, &parts));
  return CheckAndCall(function, parts, arguments, results, stack);
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
