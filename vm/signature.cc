#include "vm/signature.h"

namespace kiln::vm {

namespace {

Status Parse(std::string_view signature, bool allow_variadic, SignatureParts* parts) {
  size_t split = signature.find('_');
  if (split == std::string_view::npos || signature.find('_', split + 1) != std::string_view::npos) {
    return InvalidArgumentError("malformed signature '" + std::string(signature) +
                                "': expected exactly one '_' between arguments and results");
  }
  const bool variadic = split > 0 && signature[split - 1] == '*';
  for (size_t i = 0; i < signature.size(); ++i) {
    Bank bank;
    if (signature[i] == '*') {
      if (!allow_variadic) {
        return InvalidArgumentError("malformed signature '" + std::string(signature) +
                                    "': '*' (variadic arguments) is only allowed in native "
                                    "export signatures");
      }
      if (i + 1 != split) {
        return InvalidArgumentError("malformed signature '" + std::string(signature) +
                                    "': '*' must end the arguments");
      }
      continue;
    }
    if (i != split && !BankOfTypeChar(signature[i], &bank)) {
      return InvalidArgumentError("malformed signature '" + std::string(signature) +
                                  "': unknown type character '" + std::string(1, signature[i]) +
                                  "'");
    }
  }
  if (split > 255 || signature.size() - split - 1 > 255) {
    return InvalidArgumentError("signature '" + std::string(signature) +
                                "' has more than 255 arguments or results");
  }
  parts->arguments = signature.substr(0, variadic ? split - 1 : split);
  parts->results = signature.substr(split + 1);
  parts->variadic = variadic;
  return OkStatus();
}

}  // namespace

Status ParseSignature(std::string_view signature, SignatureParts* parts) {
  return Parse(signature, /*allow_variadic=*/false, parts);
}

Status ParseNativeSignature(std::string_view signature, SignatureParts* parts) {
  return Parse(signature, /*allow_variadic=*/true, parts);
}

bool ImportMatchesExport(std::string_view import, std::string_view exported) {
  if (import.find('*') != std::string_view::npos) return false;  // Imports are concrete.
  if (import == exported) return true;
  SignatureParts want, have;
  if (!ParseSignature(import, &want).ok() || !ParseNativeSignature(exported, &have).ok()) {
    return false;
  }
  return have.variadic && want.arguments.starts_with(have.arguments) &&
         want.results == have.results;
}

ValueType ValueTypeOfChar(char c) {
  switch (c) {
    case 'i':
      return ValueType::kI32;
    case 'I':
      return ValueType::kI64;
    case 'f':
      return ValueType::kF32;
    case 'F':
      return ValueType::kF64;
    default:
      return ValueType::kRef;
  }
}

std::string FormatTypeList(std::string_view types) {
  std::string text = "(";
  for (size_t i = 0; i < types.size(); ++i) {
    if (i) text += ", ";
    Bank bank;
    if (types[i] == '*') {
      text += "...";
    } else if (BankOfTypeChar(types[i], &bank)) {
      text += BankName(bank);
    } else {
      text += '?';
    }
  }
  return text + ")";
}

std::string FormatSignature(std::string_view signature) {
  auto list = FormatTypeList;
  size_t split = signature.find('_');
  if (split == std::string_view::npos) return "<malformed '" + std::string(signature) + "'>";
  return list(signature.substr(0, split)) + " -> " + list(signature.substr(split + 1));
}

}  // namespace kiln::vm
