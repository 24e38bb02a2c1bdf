// Parsers, printers and verifiers of the hal attributes (hal_attrs.td).
//
// The pipeline layout parses both of IREE's syntaxes into one attribute:
//   <push_constants = N, sets = [<0, bindings = [<0, storage_buffer, ReadOnly>]>]>
//   <constants = N, bindings = [#hal.pipeline.binding<storage_buffer, ReadOnly>]>
#include <string>

#include "compiler/dialects/hal/hal_dialect.h"
#include "llvm/ADT/STLExtras.h"
#include "llvm/ADT/StringExtras.h"
#include "llvm/ADT/TypeSwitch.h"
#include "mlir/IR/DialectImplementation.h"

#define GET_ATTRDEF_CLASSES
#include "compiler/dialects/hal/hal_attrs.cpp.inc"

namespace kiln::compiler::HAL {

using mlir::AsmParser;
using mlir::AsmPrinter;
using mlir::Attribute;
using mlir::failure;
using mlir::FailureOr;
using mlir::LogicalResult;
using mlir::ParseResult;
using mlir::success;

namespace {

// `ReadOnly`, `ReadOnly|Indirect` or "ReadOnly|Indirect" into `text`.
ParseResult ParseFlagText(AsmParser& parser, std::string* text) {
  std::string quoted;
  if (succeeded(parser.parseOptionalString(&quoted))) {
    *text = quoted;
    return success();
  }
  llvm::StringRef keyword;
  if (parser.parseKeyword(&keyword)) return failure();
  *text = keyword.str();
  while (succeeded(parser.parseOptionalVerticalBar())) {
    if (parser.parseKeyword(&keyword)) return failure();
    *text += "|" + keyword.str();
  }
  return success();
}

// Joins IREE's bit-enum spelling ("A|B") after dropping spaces.
std::string Compact(llvm::StringRef text) {
  std::string out;
  for (char c : text) {
    if (c != ' ') out.push_back(c);
  }
  return out;
}

// IREE's printing of flags: bare when one, quoted when several.
void PrintFlags(AsmPrinter& printer, const std::string& text) {
  if (text.find('|') != std::string::npos) {
    printer << '"' << text << '"';
  } else {
    printer << text;
  }
}

}  // namespace

//===----------------------------------------------------------------------===//
// #hal.pipeline.binding
//===----------------------------------------------------------------------===//

FailureOr<PipelineBindingAttr> PipelineBindingAttr::parseBody(AsmParser& parser) {
  llvm::SMLoc type_loc = parser.getCurrentLocation();
  llvm::StringRef type_name;
  if (parser.parseKeyword(&type_name)) return failure();
  std::optional<DescriptorType> type = symbolizeDescriptorType(type_name);
  if (!type) {
    return parser.emitError(type_loc, "unknown binding type '")
           << type_name << "'; expected 'storage_buffer' or 'uniform_buffer'";
  }
  DescriptorFlags flags = DescriptorFlags::None;
  if (succeeded(parser.parseOptionalComma())) {
    if (succeeded(parser.parseOptionalKeyword("flags")) && parser.parseEqual()) {
      return failure();
    }
    llvm::SMLoc flags_loc = parser.getCurrentLocation();
    std::string text;
    if (ParseFlagText(parser, &text)) return failure();
    std::optional<DescriptorFlags> parsed = symbolizeDescriptorFlags(Compact(text));
    if (!parsed) {
      return parser.emitError(flags_loc, "unknown binding flags '")
             << text << "'; expected 'ReadOnly', 'Indirect', 'Instrumentation' or 'None'";
    }
    flags = *parsed;
  }
  return PipelineBindingAttr::get(parser.getContext(), *type, flags);
}

Attribute PipelineBindingAttr::parse(AsmParser& parser, mlir::Type) {
  if (parser.parseLess()) return {};
  FailureOr<PipelineBindingAttr> binding = parseBody(parser);
  if (failed(binding) || parser.parseGreater()) return {};
  return *binding;
}

void PipelineBindingAttr::print(AsmPrinter& printer) const {
  printer << '<' << stringifyDescriptorType(getType());
  if (getFlags() != DescriptorFlags::None) {
    printer << ", ";
    PrintFlags(printer, stringifyDescriptorFlags(getFlags()));
  }
  printer << '>';
}

//===----------------------------------------------------------------------===//
// #hal.pipeline.layout
//===----------------------------------------------------------------------===//

//===----------------------------------------------------------------------===//
// #hal.descriptor_set.binding / #hal.descriptor_set.layout (older syntax)
//===----------------------------------------------------------------------===//

FailureOr<DescriptorSetBindingAttr> DescriptorSetBindingAttr::parseBody(AsmParser& parser) {
  int64_t ordinal = 0;
  if (parser.parseInteger(ordinal) || parser.parseComma()) return failure();
  FailureOr<PipelineBindingAttr> binding = PipelineBindingAttr::parseBody(parser);
  if (failed(binding)) return failure();
  return DescriptorSetBindingAttr::get(parser.getContext(), ordinal, *binding);
}

Attribute DescriptorSetBindingAttr::parse(AsmParser& parser, mlir::Type) {
  if (parser.parseLess()) return {};
  FailureOr<DescriptorSetBindingAttr> binding = parseBody(parser);
  if (failed(binding) || parser.parseGreater()) return {};
  return *binding;
}

void DescriptorSetBindingAttr::print(AsmPrinter& printer) const {
  printer << '<' << getOrdinal() << ", " << stringifyDescriptorType(getBinding().getType());
  if (getBinding().getFlags() != DescriptorFlags::None) {
    printer << ", ";
    PrintFlags(printer, stringifyDescriptorFlags(getBinding().getFlags()));
  }
  printer << '>';
}

FailureOr<DescriptorSetLayoutAttr> DescriptorSetLayoutAttr::parseBody(AsmParser& parser) {
  int64_t ordinal = 0;
  if (parser.parseInteger(ordinal)) return failure();
  llvm::SmallVector<PipelineBindingAttr> bindings;
  bool indirect = false;
  bool seen_bindings = false, seen_flags = false;
  while (succeeded(parser.parseOptionalComma())) {
    llvm::SMLoc key_loc = parser.getCurrentLocation();
    llvm::StringRef key;
    if (parser.parseKeyword(&key) || parser.parseEqual()) return failure();
    if (key == "bindings" && !seen_bindings) {
      seen_bindings = true;
      if (parser.parseCommaSeparatedList(AsmParser::Delimiter::Square, [&]() -> ParseResult {
            llvm::SMLoc loc = parser.getCurrentLocation();
            DescriptorSetBindingAttr binding;
            if (succeeded(parser.parseOptionalLess())) {
              FailureOr<DescriptorSetBindingAttr> parsed =
                  DescriptorSetBindingAttr::parseBody(parser);
              if (failed(parsed) || parser.parseGreater()) return failure();
              binding = *parsed;
            } else {
              Attribute attr;
              if (parser.parseAttribute(attr)) return failure();
              binding = llvm::dyn_cast<DescriptorSetBindingAttr>(attr);
              if (!binding) {
                return parser.emitError(loc,
                                        "expected a binding <N, storage_buffer[, flags]>, got ")
                       << attr;
              }
            }
            if (binding.getOrdinal() != static_cast<int64_t>(bindings.size())) {
              return parser.emitError(loc, "binding ")
                     << binding.getOrdinal() << " is out of order: expected binding "
                     << bindings.size() << " (bindings are numbered 0..n-1 in order)";
            }
            bindings.push_back(binding.getBinding());
            return success();
          })) {
        return failure();
      }
    } else if (key == "flags" && !seen_flags) {
      seen_flags = true;
      llvm::SMLoc flags_loc = parser.getCurrentLocation();
      std::string text;
      if (ParseFlagText(parser, &text)) return failure();
      std::optional<PipelineLayoutFlags> flags = symbolizePipelineLayoutFlags(Compact(text));
      if (!flags) {
        return parser.emitError(flags_loc, "unknown descriptor set flags '")
               << text << "'; expected 'Indirect' or 'None'";
      }
      indirect = indirect || bitEnumContainsAll(*flags, PipelineLayoutFlags::Indirect);
    } else if (key == "bindings" || key == "flags") {
      return parser.emitError(key_loc, "'") << key << "' is given twice";
    } else {
      return parser.emitError(key_loc, "unknown key '")
             << key << "' in a descriptor set; expected 'bindings'";
    }
  }
  return DescriptorSetLayoutAttr::get(
      parser.getContext(), ordinal, bindings,
      indirect ? PipelineLayoutFlags::Indirect : PipelineLayoutFlags::None);
}

Attribute DescriptorSetLayoutAttr::parse(AsmParser& parser, mlir::Type) {
  if (parser.parseLess()) return {};
  FailureOr<DescriptorSetLayoutAttr> set = parseBody(parser);
  if (failed(set) || parser.parseGreater()) return {};
  return *set;
}

void DescriptorSetLayoutAttr::print(AsmPrinter& printer) const {
  printer << '<' << getOrdinal() << ", bindings = [";
  llvm::interleaveComma(llvm::enumerate(getBindings()), printer, [&](auto indexed) {
    printer << '<' << indexed.index() << ", " << stringifyDescriptorType(indexed.value().getType());
    if (indexed.value().getFlags() != DescriptorFlags::None) {
      printer << ", ";
      PrintFlags(printer, stringifyDescriptorFlags(indexed.value().getFlags()));
    }
    printer << '>';
  });
  printer << ']';
  if (getFlags() != PipelineLayoutFlags::None) {
    printer << ", flags = ";
    PrintFlags(printer, stringifyPipelineLayoutFlags(getFlags()));
  }
  printer << '>';
}

//===----------------------------------------------------------------------===//
// #hal.pipeline.layout
//===----------------------------------------------------------------------===//

Attribute PipelineLayoutAttr::parse(AsmParser& parser, mlir::Type) {
  mlir::MLIRContext* context = parser.getContext();
  if (parser.parseLess()) return {};
  int64_t constants = 0;
  llvm::SmallVector<PipelineBindingAttr> bindings;
  bool indirect = false;
  bool seen_constants = false, seen_sets = false, seen_bindings = false, seen_flags = false;
  if (failed(parser.parseOptionalGreater())) {
    do {
      llvm::SMLoc key_loc = parser.getCurrentLocation();
      llvm::StringRef key;
      if (parser.parseKeyword(&key) || parser.parseEqual()) return {};
      if (key == "push_constants" || key == "constants") {
        if (seen_constants) {
          parser.emitError(key_loc, "the constant count is given twice");
          return {};
        }
        seen_constants = true;
        llvm::SMLoc count_loc = parser.getCurrentLocation();
        if (parser.parseInteger(constants)) return {};
        if (constants < 0 || constants > INT32_MAX) {
          parser.emitError(count_loc, "the constant count must be in [0, 2^31), got ") << constants;
          return {};
        }
      } else if (key == "sets" || key == "bindings") {
        if (seen_sets || seen_bindings) {
          parser.emitError(key_loc, "the bindings are given twice ('sets' and 'bindings')");
          return {};
        }
        if (key == "sets") {
          seen_sets = true;
          int sets = 0;
          if (parser.parseCommaSeparatedList(AsmParser::Delimiter::Square, [&]() -> ParseResult {
                llvm::SMLoc set_loc = parser.getCurrentLocation();
                if (++sets > 1) {
                  return parser.emitError(set_loc, "only one descriptor set (set 0) is supported");
                }
                // `<0, bindings = [...]>` or #hal.descriptor_set.layout<...>.
                DescriptorSetLayoutAttr set;
                if (succeeded(parser.parseOptionalLess())) {
                  FailureOr<DescriptorSetLayoutAttr> parsed =
                      DescriptorSetLayoutAttr::parseBody(parser);
                  if (failed(parsed) || parser.parseGreater()) return failure();
                  set = *parsed;
                } else {
                  Attribute attr;
                  if (parser.parseAttribute(attr)) return failure();
                  set = llvm::dyn_cast<DescriptorSetLayoutAttr>(attr);
                  if (!set) {
                    return parser.emitError(set_loc,
                                            "expected a descriptor set <0, bindings = "
                                            "[...]>, got ")
                           << attr;
                  }
                }
                if (set.getOrdinal() != 0) {
                  return parser.emitError(set_loc, "descriptor set ")
                         << set.getOrdinal() << " is not supported; kiln's layouts use set 0 only";
                }
                llvm::append_range(bindings, set.getBindings());
                indirect =
                    indirect || bitEnumContainsAll(set.getFlags(), PipelineLayoutFlags::Indirect);
                return success();
              })) {
            return {};
          }
        } else {
          seen_bindings = true;
          if (parser.parseCommaSeparatedList(AsmParser::Delimiter::Square, [&]() -> ParseResult {
                llvm::SMLoc binding_loc = parser.getCurrentLocation();
                Attribute attr;
                if (parser.parseAttribute(attr)) return failure();
                auto binding = llvm::dyn_cast<PipelineBindingAttr>(attr);
                if (!binding) {
                  return parser.emitError(binding_loc,
                                          "expected a #hal.pipeline.binding<...>, got ")
                         << attr;
                }
                bindings.push_back(binding);
                return success();
              })) {
            return {};
          }
        }
      } else if (key == "flags") {
        if (seen_flags) {
          parser.emitError(key_loc, "'flags' is given twice");
          return {};
        }
        seen_flags = true;
        llvm::SMLoc flags_loc = parser.getCurrentLocation();
        std::string text;
        if (ParseFlagText(parser, &text)) return {};
        std::optional<PipelineLayoutFlags> flags = symbolizePipelineLayoutFlags(Compact(text));
        if (!flags) {
          parser.emitError(flags_loc, "unknown layout flags '")
              << text << "'; expected 'Indirect' or 'None'";
          return {};
        }
        indirect = indirect || bitEnumContainsAll(*flags, PipelineLayoutFlags::Indirect);
      } else {
        parser.emitError(key_loc, "unknown key '")
            << key
            << "'; expected 'constants', 'bindings', 'flags' (or 'push_constants', "
               "'sets')";
        return {};
      }
    } while (succeeded(parser.parseOptionalComma()));
    if (parser.parseGreater()) return {};
  }
  return PipelineLayoutAttr::getChecked(
      [&] { return parser.emitError(parser.getNameLoc()); }, context, constants, bindings,
      indirect ? PipelineLayoutFlags::Indirect : PipelineLayoutFlags::None);
}

void PipelineLayoutAttr::print(AsmPrinter& printer) const {
  printer << '<';
  if (getConstants() != 0) printer << "constants = " << getConstants() << ", ";
  printer << "bindings = [";
  llvm::interleaveComma(getBindings(), printer,
                        [&](PipelineBindingAttr binding) { printer.printAttribute(binding); });
  printer << ']';
  if (getFlags() != PipelineLayoutFlags::None) {
    printer << ", flags = ";
    PrintFlags(printer, stringifyPipelineLayoutFlags(getFlags()));
  }
  printer << '>';
}

LogicalResult PipelineLayoutAttr::verify(llvm::function_ref<mlir::InFlightDiagnostic()> emit_error,
                                         int64_t constants,
                                         llvm::ArrayRef<PipelineBindingAttr> bindings,
                                         PipelineLayoutFlags) {
  if (constants < 0 || constants > INT32_MAX) {
    return emit_error() << "the constant count must be in [0, 2^31), got " << constants;
  }
  for (auto [i, binding] : llvm::enumerate(bindings)) {
    if (!binding) return emit_error() << "null binding";
    // The host appends the ring and the site id after the dispatch's own
    // operands, so both must close the layout (instrumented_layout.h).
    if (!binding.isInstrumentation()) continue;
    if (i + 1 != bindings.size()) {
      return emit_error() << "binding " << i
                          << " is an Instrumentation binding, which must be the last binding "
                             "(the layout has "
                          << bindings.size() << ")";
    }
    if (constants < 1) {
      return emit_error() << "a layout with an Instrumentation binding needs at least one "
                             "constant (the last one is the dispatch site id)";
    }
  }
  return success();
}

//===----------------------------------------------------------------------===//
// #hal.executable.object / objects
//===----------------------------------------------------------------------===//

Attribute ExecutableObjectAttr::parse(AsmParser& parser, mlir::Type) {
  mlir::DictionaryAttr dict;
  if (parser.parseLess()) return {};
  llvm::SMLoc dict_loc = parser.getCurrentLocation();
  if (parser.parseAttribute(dict) || parser.parseGreater()) return {};
  mlir::StringAttr path;
  mlir::ElementsAttr data;
  for (mlir::NamedAttribute entry : dict) {
    if (entry.getName() == "path") {
      path = llvm::dyn_cast<mlir::StringAttr>(entry.getValue());
      if (!path) {
        parser.emitError(dict_loc, "'path' must be a string, got ") << entry.getValue();
        return {};
      }
    } else if (entry.getName() == "data") {
      data = llvm::dyn_cast<mlir::ElementsAttr>(entry.getValue());
      if (!data) {
        parser.emitError(dict_loc, "'data' must be elements (dense<...> : vector<Nxi8>), got ")
            << entry.getValue();
        return {};
      }
    } else {
      parser.emitError(dict_loc, "unknown key '")
          << entry.getName().getValue() << "'; expected 'path' or 'data'";
      return {};
    }
  }
  return getChecked([&] { return parser.emitError(dict_loc); }, parser.getContext(), path, data);
}

void ExecutableObjectAttr::print(AsmPrinter& printer) const {
  printer << "<{";
  if (getPath()) {
    printer << "path = ";
    printer.printAttribute(getPath());
    if (getData()) printer << ", ";
  }
  if (getData()) {
    printer << "data = ";
    printer.printAttribute(getData());
  }
  printer << "}>";
}

LogicalResult ExecutableObjectAttr::verify(
    llvm::function_ref<mlir::InFlightDiagnostic()> emit_error, mlir::StringAttr path,
    mlir::ElementsAttr data) {
  if (!path && !data) return emit_error() << "an executable object needs a 'path' or 'data'";
  if (path && path.getValue().empty()) return emit_error() << "the object's path is empty";
  return success();
}

Attribute ExecutableObjectsAttr::parse(AsmParser& parser, mlir::Type) {
  llvm::SmallVector<Attribute> targets, objects;
  if (parser.parseLess()) return {};
  llvm::SMLoc loc = parser.getCurrentLocation();
  if (parser.parseCommaSeparatedList(AsmParser::Delimiter::Braces,
                                     [&]() -> ParseResult {
                                       Attribute target;
                                       mlir::ArrayAttr list;
                                       if (parser.parseAttribute(target) || parser.parseEqual() ||
                                           parser.parseAttribute(list)) {
                                         return failure();
                                       }
                                       targets.push_back(target);
                                       objects.push_back(list);
                                       return success();
                                     }) ||
      parser.parseGreater()) {
    return {};
  }
  mlir::MLIRContext* context = parser.getContext();
  return getChecked([&] { return parser.emitError(loc); }, context,
                    mlir::ArrayAttr::get(context, targets), mlir::ArrayAttr::get(context, objects));
}

void ExecutableObjectsAttr::print(AsmPrinter& printer) const {
  printer << "<{";
  llvm::interleaveComma(llvm::zip_equal(getTargets(), getTargetObjects()), printer, [&](auto pair) {
    printer.printAttribute(std::get<0>(pair));
    printer << " = ";
    printer.printAttribute(std::get<1>(pair));
  });
  printer << "}>";
}

LogicalResult ExecutableObjectsAttr::verify(
    llvm::function_ref<mlir::InFlightDiagnostic()> emit_error, mlir::ArrayAttr targets,
    mlir::ArrayAttr target_objects) {
  if (targets.size() != target_objects.size()) {
    return emit_error() << "has " << targets.size() << " targets but " << target_objects.size()
                        << " object lists";
  }
  for (auto [i, target] : llvm::enumerate(targets)) {
    if (!llvm::isa<ExecutableTargetAttr>(target)) {
      return emit_error() << "expected a #hal.executable.target<...> as key, got " << target;
    }
    for (size_t j = 0; j < i; ++j) {
      if (targets[j] == target) {
        return emit_error() << "target " << target << " is given twice";
      }
    }
    auto list = llvm::dyn_cast<mlir::ArrayAttr>(target_objects[i]);
    if (!list) {
      return emit_error() << "the objects of " << target
                          << " must be a list of #hal.executable.object<...>";
    }
    for (Attribute object : list) {
      if (!llvm::isa<ExecutableObjectAttr>(object)) {
        return emit_error() << "expected a #hal.executable.object<...> in the objects of " << target
                            << ", got " << object;
      }
    }
  }
  return success();
}

mlir::ArrayAttr ExecutableObjectsAttr::getObjects(ExecutableTargetAttr target) const {
  for (auto [key, list] : llvm::zip_equal(getTargets(), getTargetObjects())) {
    if (key == target) return llvm::cast<mlir::ArrayAttr>(list);
  }
  return {};
}

//===----------------------------------------------------------------------===//
// #hal.device.target
//===----------------------------------------------------------------------===//

namespace {

ParseResult AppendTargets(AsmParser& parser, llvm::SMLoc loc, Attribute list_attr,
                          llvm::SmallVectorImpl<ExecutableTargetAttr>& targets) {
  auto list = llvm::dyn_cast<mlir::ArrayAttr>(list_attr);
  if (!list) {
    return parser.emitError(loc, "the executable targets must be a list, got ") << list_attr;
  }
  for (Attribute element : list) {
    auto target = llvm::dyn_cast<ExecutableTargetAttr>(element);
    if (!target) {
      return parser.emitError(loc, "expected a #hal.executable.target<...>, got ") << element;
    }
    targets.push_back(target);
  }
  return success();
}

}  // namespace

Attribute DeviceTargetAttr::parse(AsmParser& parser, mlir::Type) {
  mlir::StringAttr device_id;
  if (parser.parseLess() || parser.parseAttribute(device_id)) return {};
  mlir::DictionaryAttr configuration;
  llvm::SmallVector<ExecutableTargetAttr> targets;
  bool seen_list = false;
  while (succeeded(parser.parseOptionalComma())) {
    llvm::SMLoc loc = parser.getCurrentLocation();
    Attribute attr;
    if (parser.parseAttribute(attr)) return {};
    if (auto dict = llvm::dyn_cast<mlir::DictionaryAttr>(attr);
        dict && !configuration && !seen_list) {
      // IREE's older `{executable_targets = [...]}` form: the list moves out
      // of the configuration.
      llvm::SmallVector<mlir::NamedAttribute> rest;
      for (mlir::NamedAttribute entry : dict) {
        if (entry.getName() == "executable_targets") {
          if (AppendTargets(parser, loc, entry.getValue(), targets)) return {};
          seen_list = true;
        } else {
          rest.push_back(entry);
        }
      }
      if (!rest.empty()) configuration = mlir::DictionaryAttr::get(parser.getContext(), rest);
    } else if (llvm::isa<mlir::ArrayAttr>(attr) && !seen_list) {
      if (AppendTargets(parser, loc, attr, targets)) return {};
      seen_list = true;
    } else {
      parser.emitError(loc, seen_list ? "unexpected text after the list of executable targets"
                                      : "expected the configuration {...} or the list of "
                                        "executable targets [...]");
      return {};
    }
  }
  if (parser.parseGreater()) return {};
  return DeviceTargetAttr::get(parser.getContext(), device_id, configuration, targets);
}

void DeviceTargetAttr::print(AsmPrinter& printer) const {
  printer << '<';
  printer.printAttribute(getDeviceID());
  if (getConfiguration() && !getConfiguration().empty()) {
    printer << ", ";
    printer.printAttribute(getConfiguration());
  }
  printer << ", [";
  llvm::interleaveComma(getExecutableTargets(), printer,
                        [&](ExecutableTargetAttr target) { printer.printAttribute(target); });
  printer << "]>";
}

//===----------------------------------------------------------------------===//
// #hal.collective<kind [with reduction] : element_type>
//===----------------------------------------------------------------------===//

Attribute CollectiveAttr::parse(AsmParser& parser, mlir::Type) {
  const llvm::SMLoc loc = parser.getCurrentLocation();
  llvm::StringRef kind_text, element_text;
  if (parser.parseLess() || parser.parseKeyword(&kind_text)) return {};
  std::optional<CollectiveKind> kind = symbolizeCollectiveKind(kind_text);
  if (!kind) {
    parser.emitError(loc, "unknown collective '")
        << kind_text
        << "'; expected all_gather, all_reduce, all_to_all, reduce_scatter or send_recv";
    return {};
  }
  CollectiveReduction reduction = CollectiveReduction::None;
  if (succeeded(parser.parseOptionalKeyword("with"))) {
    const llvm::SMLoc reduction_loc = parser.getCurrentLocation();
    llvm::StringRef reduction_text;
    if (parser.parseKeyword(&reduction_text)) return {};
    std::optional<CollectiveReduction> parsed = symbolizeCollectiveReduction(reduction_text);
    if (!parsed) {
      parser.emitError(reduction_loc, "unknown reduction '")
          << reduction_text << "'; expected sum, product, minimum, maximum or average";
      return {};
    }
    reduction = *parsed;
  }
  const llvm::SMLoc element_loc = parser.getCurrentLocation();
  if (parser.parseColon() || parser.parseKeyword(&element_text)) return {};
  std::optional<CollectiveElementType> element_type = symbolizeCollectiveElementType(element_text);
  if (!element_type) {
    parser.emitError(element_loc, "unknown collective element type '")
        << element_text
        << "'; expected si8, ui8, si16, ui16, si32, ui32, si64, ui64, f16, "
           "f32, f64 or bf16";
    return {};
  }
  if (parser.parseGreater()) return {};
  return getChecked([&] { return parser.emitError(loc); }, parser.getContext(), *kind, reduction,
                    *element_type);
}

void CollectiveAttr::print(AsmPrinter& printer) const {
  printer << '<' << stringifyCollectiveKind(getKind());
  if (getReduction() != CollectiveReduction::None) {
    printer << " with " << stringifyCollectiveReduction(getReduction());
  }
  printer << " : " << stringifyCollectiveElementType(getElementType()) << '>';
}

LogicalResult CollectiveAttr::verify(llvm::function_ref<mlir::InFlightDiagnostic()> emit_error,
                                     CollectiveKind kind, CollectiveReduction reduction,
                                     CollectiveElementType) {
  const bool reduces = kind == CollectiveKind::AllReduce || kind == CollectiveKind::ReduceScatter;
  if (reduces && reduction == CollectiveReduction::None) {
    return emit_error() << "collective " << stringifyCollectiveKind(kind)
                        << " needs a reduction (`with sum`, product, minimum, maximum or average)";
  }
  if (!reduces && reduction != CollectiveReduction::None) {
    return emit_error() << "collective " << stringifyCollectiveKind(kind)
                        << " takes no reduction, got `with "
                        << stringifyCollectiveReduction(reduction) << "`";
  }
  return success();
}

void HALDialect::registerAttributes() {
  addAttributes<
#define GET_ATTRDEF_LIST
#include "compiler/dialects/hal/hal_attrs.cpp.inc"
      >();
}

}  // namespace kiln::compiler::HAL
