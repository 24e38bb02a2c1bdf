#include "compiler/onnx/graph_importer.h"

#include "compiler/dialects/registration.h"
#include "compiler/dialects/util/util_dialect.h"
#include "compiler/onnx/node_importer.h"
#include "compiler/onnx/op_registry.h"
#include "mlir/AsmParser/AsmParser.h"
#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"
#include "llvm/ADT/StringSet.h"
#include "llvm/Support/raw_ostream.h"
#include "mlir/IR/Diagnostics.h"

namespace kiln::onnx_import {
namespace {

bool IsDefaultDomain(const std::string& domain) { return domain.empty() || domain == "ai.onnx"; }

// The safetensors dtype of an ONNX element type.
std::string SafetensorsDtype(OnnxElementType type) {
  switch (type) {
    case onnx::TensorProto::FLOAT:
      return "F32";
    case onnx::TensorProto::DOUBLE:
      return "F64";
    case onnx::TensorProto::FLOAT16:
      return "F16";
    case onnx::TensorProto::BFLOAT16:
      return "BF16";
    case onnx::TensorProto::BOOL:
      return "BOOL";
    case onnx::TensorProto::INT8:
      return "I8";
    case onnx::TensorProto::UINT8:
      return "U8";
    case onnx::TensorProto::INT16:
      return "I16";
    case onnx::TensorProto::UINT16:
      return "U16";
    case onnx::TensorProto::INT32:
      return "I32";
    case onnx::TensorProto::UINT32:
      return "U32";
    case onnx::TensorProto::INT64:
      return "I64";
    case onnx::TensorProto::UINT64:
      return "U64";
    default:
      return "";
  }
}

// Whether `refined` has the rank of `type` and at least its static sizes.
bool Refines(mlir::TensorType refined, mlir::Type type) {
  auto ranked = llvm::dyn_cast<mlir::RankedTensorType>(type);
  auto target = llvm::dyn_cast_or_null<mlir::RankedTensorType>(refined);
  if (!ranked || !target || ranked == target) return false;
  if (ranked.getRank() != target.getRank() ||
      ranked.getElementType() != target.getElementType()) {
    return false;
  }
  for (int64_t i = 0; i < ranked.getRank(); ++i) {
    if (!ranked.isDynamicDim(i) && ranked.getDimSize(i) != target.getDimSize(i)) return false;
  }
  return true;
}

}  // namespace

GraphImporter::GraphImporter(mlir::MLIRContext& context, const onnx::ModelProto& model,
                             const OnnxImportOptions& options)
    : context_(context), model_(model), options_(options), builder_(&context) {}

const ImportedValue* GraphImporter::Lookup(const std::string& name) const {
  auto it = values_.find(name);
  return it == values_.end() ? nullptr : &it->second;
}

void GraphImporter::Define(const std::string& name, ImportedValue value) {
  values_[name] = value;
}

const onnx::TypeProto* GraphImporter::InferredType(const std::string& name) const {
  auto it = inferred_types_.find(name);
  return it == inferred_types_.end() ? nullptr : it->second;
}

mlir::Location GraphImporter::NodeLocation(const onnx::NodeProto& node, int64_t index) const {
  // Line = the node's position in the graph (1-based), so that two nodes of
  // one name still differ.
  mlir::Location file = mlir::FileLineColLoc::get(&context_, options_.model_path,
                                                  static_cast<unsigned>(index + 1), 1);
  const std::string name = node.name().empty() ? node.op_type() : node.name();
  return mlir::NameLoc::get(mlir::StringAttr::get(&context_, name), file);
}

int64_t GraphImporter::OpsetOf(const std::string& domain) const {
  auto it = opsets_.find(IsDefaultDomain(domain) ? "" : domain);
  return it == opsets_.end() ? -1 : it->second;
}

mlir::LogicalResult GraphImporter::ImportInitializer(const onnx::TensorProto& tensor) {
  mlir::Location loc = mlir::NameLoc::get(
      mlir::StringAttr::get(&context_, tensor.name()),
      mlir::FileLineColLoc::get(&context_, options_.model_path, 0, 0));
  std::string error;
  mlir::FailureOr<mlir::DenseElementsAttr> contents =
      ConvertTensorProto(context_, tensor, &error);
  if (mlir::failed(contents)) return mlir::emitError(loc) << "initializer " << error;
  const OnnxElementType element_type = tensor.data_type();
  const int64_t byte_size = contents->getNumElements() * ElementByteSize(element_type);
  ImportedValue value;
  value.element_type = element_type;
  if (options_.parameter_threshold_bytes >= 0 && byte_size > options_.parameter_threshold_bytes) {
    // An external parameter: a util.global initialized from the named
    // parameter, read where the function starts.
    ExternalParameter parameter;
    parameter.key = tensor.name();
    parameter.dtype = SafetensorsDtype(element_type);
    parameter.shape.assign(tensor.dims().begin(), tensor.dims().end());
    if (contents->getElementType().isInteger(1)) {
      for (bool bit : contents->getValues<bool>()) parameter.bytes.push_back(bit ? 1 : 0);
    } else {
      llvm::ArrayRef<char> raw = contents->getRawData();
      if (contents->isSplat()) {
        for (int64_t i = 0; i < contents->getNumElements(); ++i) {
          parameter.bytes.append(raw.begin(), raw.end());
        }
      } else {
        parameter.bytes.assign(raw.begin(), raw.end());
      }
    }
    std::string quoted_scope, quoted_key;
    llvm::raw_string_ostream scope_stream(quoted_scope), key_stream(quoted_key);
    scope_stream << '"';
    llvm::printEscapedString(options_.parameter_scope, scope_stream);
    scope_stream << '"';
    key_stream << '"';
    llvm::printEscapedString(parameter.key, key_stream);
    key_stream << '"';
    std::string type_text;
    llvm::raw_string_ostream type_stream(type_text);
    contents->getType().print(type_stream);
    const std::string attribute_text = "#flow.parameter.named<" + quoted_scope +
                                       "::" + quoted_key + "> : " + type_text;
    mlir::Attribute initial = mlir::parseAttribute(attribute_text, &context_);
    if (!initial) {
      return mlir::emitError(loc) << "cannot express initializer '" << tensor.name()
                                  << "' as an external parameter";
    }
    const std::string symbol = "__param." + tensor.name();
    mlir::OpBuilder module_builder = mlir::OpBuilder::atBlockBegin(module_->getBody());
    auto global = module_builder.create<compiler::Util::GlobalOp>(
        loc, module_builder.getStringAttr(symbol), module_builder.getStringAttr("private"),
        mlir::TypeAttr::get(contents->getType()), /*is_mutable=*/nullptr, initial);
    value.value = builder_.create<compiler::Util::GlobalLoadOp>(
        loc, contents->getType(), mlir::FlatSymbolRefAttr::get(global.getSymNameAttr()),
        /*is_immutable=*/builder_.getUnitAttr());
    parameters_.push_back(std::move(parameter));
  } else {
    value.value = builder_.create<mlir::arith::ConstantOp>(loc, *contents);
    value.constant = *contents;
  }
  Define(tensor.name(), value);
  return mlir::success();
}

mlir::LogicalResult GraphImporter::ImportNode(const onnx::NodeProto& node, int64_t index) {
  const int64_t opset = OpsetOf(node.domain());
  NodeImporter importer(*this, node, opset, index);
  if (!IsDefaultDomain(node.domain())) {
    return importer.Fail("operators of domain '" + node.domain() + "' are not supported");
  }
  for (int64_t i = 0; i < node.input_size(); ++i) {
    if (!node.input(i).empty() && !Lookup(node.input(i))) {
      return importer.Fail("input '" + node.input(i) + "' is not defined before the node");
    }
  }
  const OpConverterEntry* entry = OpRegistry::Get().Lookup(node.op_type());
  if (!entry) return importer.Fail("unsupported operator");
  if (opset < entry->min_opset) {
    return importer.Fail("unsupported before opset " + std::to_string(entry->min_opset));
  }
  if (mlir::failed(entry->convert(importer))) return mlir::failure();
  for (int64_t i = 0; i < node.output_size(); ++i) {
    if (!node.output(i).empty() && !Lookup(node.output(i))) {
      return importer.Fail("output " + std::to_string(i) + " ('" + node.output(i) +
                           "') is not supported");
    }
  }
  return mlir::success();
}

mlir::FailureOr<ImportedModel> GraphImporter::Import() {
  const onnx::GraphProto& graph = model_.graph();
  for (const onnx::OperatorSetIdProto& opset : model_.opset_import()) {
    opsets_[IsDefaultDomain(opset.domain()) ? "" : opset.domain()] = opset.version();
  }
  for (const onnx::ValueInfoProto& info : graph.value_info()) inferred_types_[info.name()] = &info.type();
  for (const onnx::ValueInfoProto& info : graph.output()) inferred_types_[info.name()] = &info.type();

  mlir::Location model_loc = mlir::FileLineColLoc::get(&context_, options_.model_path, 0, 0);
  module_ = mlir::ModuleOp::create(model_loc);
  std::string name = options_.function_name;
  if (name.empty()) name = graph.name().empty() ? "main_graph" : graph.name();

  // Graph inputs; before IR version 4 initializers were listed as inputs too.
  llvm::StringSet<> initializer_names;
  for (const onnx::TensorProto& tensor : graph.initializer()) initializer_names.insert(tensor.name());
  llvm::SmallVector<mlir::Type> argument_types;
  llvm::SmallVector<const onnx::ValueInfoProto*> arguments;
  for (const onnx::ValueInfoProto& input : graph.input()) {
    if (initializer_names.contains(input.name())) continue;
    mlir::TensorType type = ConvertTensorType(context_, input.type());
    if (!type || !llvm::isa<mlir::RankedTensorType>(type)) {
      return mlir::emitError(model_loc)
             << "graph input '" << input.name() << "' is not a tensor of known rank and a "
             << "supported element type (kiln imports tensors of numbers and bools)";
    }
    argument_types.push_back(type);
    arguments.push_back(&input);
  }
  builder_.setInsertionPointToEnd(module_->getBody());
  func_ = builder_.create<mlir::func::FuncOp>(model_loc, name,
                                              builder_.getFunctionType(argument_types, {}));
  mlir::Block* entry = func_.addEntryBlock();
  builder_.setInsertionPointToEnd(entry);
  for (size_t i = 0; i < arguments.size(); ++i) {
    func_.setArgAttr(i, "onnx.name", builder_.getStringAttr(arguments[i]->name()));
    ImportedValue value;
    value.value = entry->getArgument(i);
    value.element_type = arguments[i]->type().tensor_type().elem_type();
    Define(arguments[i]->name(), value);
  }
  for (const onnx::TensorProto& tensor : graph.initializer()) {
    if (mlir::failed(ImportInitializer(tensor))) return mlir::failure();
  }
  for (int64_t i = 0; i < graph.node_size(); ++i) {
    if (mlir::failed(ImportNode(graph.node(i), i))) return mlir::failure();
  }

  llvm::SmallVector<mlir::Value> results;
  for (const onnx::ValueInfoProto& output : graph.output()) {
    const ImportedValue* value = Lookup(output.name());
    if (!value) {
      return mlir::emitError(model_loc) << "graph output '" << output.name() << "' is not computed";
    }
    mlir::Value result = value->value;
    mlir::TensorType declared = ConvertTensorType(context_, output.type());
    if (Refines(declared, result.getType())) {
      result = builder_.create<mlir::tensor::CastOp>(model_loc, declared, result);
    }
    results.push_back(result);
  }
  builder_.create<mlir::func::ReturnOp>(model_loc, results);
  func_.setFunctionType(builder_.getFunctionType(argument_types, mlir::ValueRange(results).getTypes()));
  for (int i = 0; i < graph.output_size(); ++i) {
    func_.setResultAttr(i, "onnx.name", builder_.getStringAttr(graph.output(i).name()));
  }
  // MLIR's integers are signless; the module's reflection (kiln.abi_type)
  // keeps ONNX's unsigned types so that tools read and write uint8 data.
  llvm::SmallVector<OnnxElementType> argument_elements, result_elements;
  for (const onnx::ValueInfoProto* argument : arguments) {
    argument_elements.push_back(argument->type().tensor_type().elem_type());
  }
  for (const onnx::ValueInfoProto& output : graph.output()) {
    result_elements.push_back(Lookup(output.name())->element_type);
  }
  auto abi_type = [&](mlir::Type type, OnnxElementType element) -> mlir::Type {
    auto ranked = llvm::cast<mlir::RankedTensorType>(type);
    if (!IsUnsigned(element) || element == onnx::TensorProto::BOOL) return type;
    return ranked.clone(mlir::IntegerType::get(&context_, ranked.getElementTypeBitWidth(),
                                               mlir::IntegerType::Unsigned));
  };
  const bool any_unsigned =
      llvm::any_of(argument_elements,
                   [](OnnxElementType t) { return IsUnsigned(t) && t != onnx::TensorProto::BOOL; }) ||
      llvm::any_of(result_elements,
                   [](OnnxElementType t) { return IsUnsigned(t) && t != onnx::TensorProto::BOOL; });
  if (any_unsigned) {
    llvm::SmallVector<mlir::Type> abi_inputs, abi_results;
    for (size_t i = 0; i < argument_types.size(); ++i) {
      abi_inputs.push_back(abi_type(argument_types[i], argument_elements[i]));
    }
    for (size_t i = 0; i < results.size(); ++i) {
      abi_results.push_back(abi_type(results[i].getType(), result_elements[i]));
    }
    func_->setAttr("kiln.abi_type",
                   mlir::TypeAttr::get(builder_.getFunctionType(abi_inputs, abi_results)));
  }
  ImportedModel imported;
  imported.module = std::move(module_);
  imported.parameters = std::move(parameters_);
  return imported;
}

void LoadOnnxImportDialects(mlir::MLIRContext& context) {
  // kiln-compile's input dialects: the importer's output parses there as is.
  mlir::DialectRegistry registry;
  compiler::RegisterDialects(registry);
  context.appendDialectRegistry(registry);
  context.loadAllAvailableDialects();
}

mlir::FailureOr<ImportedModel> ImportOnnxModel(mlir::MLIRContext& context,
                                               const onnx::ModelProto& model,
                                               const OnnxImportOptions& options) {
  LoadOnnxImportDialects(context);
  GraphImporter importer(context, model, options);
  return importer.Import();
}

}  // namespace kiln::onnx_import
