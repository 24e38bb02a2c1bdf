// Invocation: calling a context's function with a list of arguments.
//
//   KILN_ASSIGN_OR_RETURN(Function fib, context->LookupFunction("module.fib"));
//   auto args = List::Create();
//   args->Push(Variant::I32(32));
//   KILN_ASSIGN_OR_RETURN(Ref<List> results, Invoke(*context, fib, *args));
//
// Arguments are checked against the function's signature (count and each
// value's type) before anything runs. Each invocation gets a fresh Stack
// configured from the context's options.
#pragma once

#include <span>

#include "base/result.h"
#include "vm/context.h"
#include "vm/list.h"

namespace kiln::vm {

Result<Ref<List>> Invoke(Context& context, const Function& function, const List& arguments);
Result<Ref<List>> Invoke(Context& context, std::string_view function_name, const List& arguments);
// Runs on a caller-provided stack (reuse one across many calls to avoid
// allocating the frame arena each time).
Status InvokeWithStack(const Function& function, std::span<const Variant> arguments,
                       std::span<Variant> results, Stack& stack);

}  // namespace kiln::vm
