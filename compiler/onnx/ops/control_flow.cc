// Control flow: If, Loop, Scan, by importing their body graphs inline.
//
// kiln-compile's host program cannot carry tensors through scf.if, scf.for
// or scf.while (onnx-gaps/scf-tensor-results.mlir), so:
//   If    with a condition known at import time inlines the taken branch;
//         otherwise both branches are imported and each output selected
//         elementwise by the condition (ONNX ops have no side effects; the
//         branches' outputs must have the same shapes).
//   Loop  with a trip count known at import time (at most 1024) and a
//         condition that stays known true is unrolled; scan outputs are
//         stacked along a new leading dimension. Otherwise the loop becomes
//         a private function that runs one iteration and calls itself for
//         the rest (the trip count and condition read back on the host,
//         tensors passed through func.call, which kiln supports), its scan
//         outputs each iteration's value in front of the rest's.
//   Scan  (static sequence length, at most 1024) is unrolled.
// Anything else is refused with the reason.
//
// A body's nodes go through the same converters as the graph's (the
// SubgraphImporter below); its values are defined in the graph's value
// table (ONNX names are unique across a model's graphs), so a body reads
// the enclosing graph's values by name, and each unrolled iteration
// redefines the body's own values.
#include "compiler/onnx/graph_importer.h"
#include "compiler/onnx/node_importer.h"
#include "compiler/onnx/op_registry.h"
#include "compiler/onnx/ops/misc_helpers.h"
#include "compiler/onnx/ops/misc_registration.h"
#include "compiler/onnx/tensor_builders.h"
#include "llvm/ADT/StringSet.h"
#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Arith/Utils/Utils.h"
#include "mlir/Dialect/ControlFlow/IR/ControlFlowOps.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"
#include "mlir/Dialect/Utils/StaticValueUtils.h"
#include "mlir/IR/SymbolTable.h"

namespace kiln::onnx_import {
namespace {

using mlir::Value;

constexpr int64_t kMaxUnrolledIterations = 1024;

const onnx::GraphProto* GraphAttribute(NodeImporter& node, llvm::StringRef name) {
  const onnx::AttributeProto* attribute = node.Attribute(name);
  if (!attribute || !attribute->has_g()) return nullptr;
  return &attribute->g();
}

// Imports `body` into the enclosing graph with its inputs bound to
// `inputs`; returns its outputs.
mlir::FailureOr<std::vector<ImportedValue>> ImportSubgraph(NodeImporter& parent,
                                                           const onnx::GraphProto& body,
                                                           llvm::ArrayRef<ImportedValue> inputs) {
  GraphImporter& graph = parent.graph();
  if (static_cast<int64_t>(inputs.size()) != body.input_size()) {
    return parent.Fail("body '" + body.name() + "' has " + std::to_string(body.input_size()) +
                       " inputs, " + std::to_string(inputs.size()) + " are bound");
  }
  for (int64_t i = 0; i < body.input_size(); ++i) graph.Define(body.input(i).name(), inputs[i]);
  for (const onnx::TensorProto& tensor : body.initializer()) {
    std::string error;
    mlir::FailureOr<mlir::DenseElementsAttr> contents =
        ConvertTensorProto(parent.context(), tensor, &error);
    if (mlir::failed(contents)) return parent.Fail("body initializer " + error);
    ImportedValue value;
    value.value = parent.builder().create<mlir::arith::ConstantOp>(parent.loc(), *contents);
    value.element_type = tensor.data_type();
    value.constant = *contents;
    graph.Define(tensor.name(), value);
  }
  for (int64_t i = 0; i < body.node_size(); ++i) {
    const onnx::NodeProto& node = body.node(i);
    // A body imports the operator sets of its model; its nodes of the
    // default domain have the parent's opset.
    NodeImporter importer(graph, node, parent.opset(), i);
    if (!node.domain().empty() && node.domain() != "ai.onnx") {
      return importer.Fail("operators of domain '" + node.domain() + "' are not supported");
    }
    for (int64_t j = 0; j < node.input_size(); ++j) {
      if (!node.input(j).empty() && !graph.Lookup(node.input(j))) {
        return importer.Fail("input '" + node.input(j) + "' is not defined before the node");
      }
    }
    const OpConverterEntry* entry = OpRegistry::Get().Lookup(node.op_type());
    if (!entry) return importer.Fail("unsupported operator");
    if (parent.opset() < entry->min_opset) {
      return importer.Fail("unsupported before opset " + std::to_string(entry->min_opset));
    }
    if (mlir::failed(entry->convert(importer))) return mlir::failure();
    for (int64_t j = 0; j < node.output_size(); ++j) {
      if (!node.output(j).empty() && !graph.Lookup(node.output(j))) {
        return importer.Fail("output " + std::to_string(j) + " is not supported");
      }
    }
  }
  std::vector<ImportedValue> outputs;
  for (const onnx::ValueInfoProto& output : body.output()) {
    const ImportedValue* value = graph.Lookup(output.name());
    if (!value) return parent.Fail("body output '" + output.name() + "' is not computed");
    outputs.push_back(*value);
  }
  return outputs;
}

// Whether `value` is known at import time to be true.
std::optional<bool> KnownBool(const ImportedValue& value) {
  if (!value.constant || value.constant.getNumElements() != 1) return std::nullopt;
  if (value.constant.getElementType().isInteger(1))
    return *value.constant.getValues<bool>().begin();
  if (llvm::isa<mlir::IntegerType>(value.constant.getElementType())) {
    return !(*value.constant.getValues<llvm::APInt>().begin()).isZero();
  }
  return std::nullopt;
}

void SetImported(NodeImporter& node, int64_t index, const ImportedValue& value) {
  if (value.constant) {
    node.SetConstantOutput(index, value.constant, value.element_type);
  } else {
    node.SetOutput(index, value.value, value.element_type);
  }
}

mlir::LogicalResult ConvertIf(NodeImporter& node) {
  const onnx::GraphProto* then_branch = GraphAttribute(node, "then_branch");
  const onnx::GraphProto* else_branch = GraphAttribute(node, "else_branch");
  if (!then_branch || !else_branch) return node.Fail("then_branch and else_branch are required");
  const ImportedValue* cond = node.InputInfo(0);
  if (!cond) return node.Fail("cond is required");
  if (std::optional<bool> known = KnownBool(*cond)) {
    mlir::FailureOr<std::vector<ImportedValue>> outputs =
        ImportSubgraph(node, *known ? *then_branch : *else_branch, {});
    if (mlir::failed(outputs)) return mlir::failure();
    if (static_cast<int64_t>(outputs->size()) < node.output_count()) {
      return node.Fail("the branch has fewer outputs than the node");
    }
    for (int64_t i = 0; i < node.output_count(); ++i) SetImported(node, i, (*outputs)[i]);
    return mlir::success();
  }
  // Both branches, then a select per output.
  mlir::FailureOr<std::vector<ImportedValue>> then_outputs = ImportSubgraph(node, *then_branch, {});
  if (mlir::failed(then_outputs)) return mlir::failure();
  mlir::FailureOr<std::vector<ImportedValue>> else_outputs = ImportSubgraph(node, *else_branch, {});
  if (mlir::failed(else_outputs)) return mlir::failure();
  if (static_cast<int64_t>(then_outputs->size()) < node.output_count() ||
      then_outputs->size() != else_outputs->size()) {
    return node.Fail("the branches have different numbers of outputs");
  }
  mlir::OpBuilder& b = node.builder();
  Value condition = misc::ExtractScalar(b, node.loc(), cond->value);
  condition = ConvertScalar(b, node.loc(), condition, cond->element_type, onnx::TensorProto::BOOL);
  for (int64_t i = 0; i < node.output_count(); ++i) {
    const ImportedValue& t = (*then_outputs)[i];
    const ImportedValue& e = (*else_outputs)[i];
    auto t_type = llvm::dyn_cast<mlir::RankedTensorType>(t.value.getType());
    auto e_type = llvm::dyn_cast<mlir::RankedTensorType>(e.value.getType());
    if (!t_type || !e_type || t_type.getElementType() != e_type.getElementType() ||
        t.element_type != e.element_type || t_type.getRank() != e_type.getRank()) {
      return node.Fail("output " + std::to_string(i) +
                       ": a condition known only at run time needs branches of one element type "
                       "and rank (kiln selects between them)");
    }
    for (int64_t d = 0; d < t_type.getRank(); ++d) {
      if (t_type.isDynamicDim(d) || e_type.isDynamicDim(d) ||
          t_type.getDimSize(d) != e_type.getDimSize(d)) {
        return node.Fail("output " + std::to_string(i) +
                         ": a condition known only at run time needs branches of the same static "
                         "shape (kiln selects between them)");
      }
    }
    const int64_t rank = t_type.getRank();
    mlir::AffineMap identity = misc::IdentityMap(&node.context(), rank);
    Value selected = misc::BuildIndexed(
        b, node.loc(), TensorSizes(b, node.loc(), t.value), t_type.getElementType(),
        {t.value, e.value}, {identity, identity},
        [&](mlir::OpBuilder& nb, mlir::Location l, mlir::ValueRange args) {
          return nb.create<mlir::arith::SelectOp>(l, condition, args[0], args[1]).getResult();
        });
    node.SetOutput(i, selected, t.element_type);
  }
  return mlir::success();
}

// Stacks `values` (tensors of one type) along a new dimension `axis`.
mlir::FailureOr<Value> Stack(NodeImporter& node, llvm::ArrayRef<Value> values, int64_t axis) {
  mlir::OpBuilder& b = node.builder();
  mlir::Location loc = node.loc();
  auto type = llvm::dyn_cast<mlir::RankedTensorType>(values[0].getType());
  if (!type) return node.Fail("scan outputs of unknown rank are not supported");
  for (Value v : values) {
    if (v.getType() != type) {
      return node.Fail("scan output iterations have different types; kiln stacks equal ones");
    }
  }
  llvm::SmallVector<mlir::OpFoldResult> sizes = TensorSizes(b, loc, values[0]);
  llvm::SmallVector<mlir::OpFoldResult> stacked(sizes);
  stacked.insert(stacked.begin() + axis, b.getIndexAttr(values.size()));
  Value result = EmptyTensor(b, loc, stacked, type.getElementType());
  for (size_t i = 0; i < values.size(); ++i) {
    llvm::SmallVector<mlir::OpFoldResult> offsets(stacked.size(), b.getIndexAttr(0));
    offsets[axis] = b.getIndexAttr(i);
    llvm::SmallVector<mlir::OpFoldResult> slice_sizes(stacked);
    slice_sizes[axis] = b.getIndexAttr(1);
    llvm::SmallVector<mlir::OpFoldResult> strides(stacked.size(), b.getIndexAttr(1));
    result = b.create<mlir::tensor::InsertSliceOp>(loc, values[i], result, offsets, slice_sizes,
                                                   strides);
  }
  return result;
}

// Slice `index` of `value` along `axis`, that dimension dropped.
Value SliceAt(NodeImporter& node, Value value, int64_t axis, int64_t index) {
  mlir::OpBuilder& b = node.builder();
  mlir::Location loc = node.loc();
  auto type = llvm::cast<mlir::RankedTensorType>(value.getType());
  llvm::SmallVector<mlir::OpFoldResult> sizes = TensorSizes(b, loc, value);
  llvm::SmallVector<mlir::OpFoldResult> offsets(type.getRank(), b.getIndexAttr(0));
  offsets[axis] = b.getIndexAttr(index);
  sizes[axis] = b.getIndexAttr(1);
  llvm::SmallVector<mlir::OpFoldResult> strides(type.getRank(), b.getIndexAttr(1));
  llvm::SmallVector<int64_t> shape(type.getShape());
  shape.erase(shape.begin() + axis);
  auto result_type = mlir::RankedTensorType::get(shape, type.getElementType());
  return b.create<mlir::tensor::ExtractSliceOp>(loc, result_type, value, offsets, sizes, strides);
}

// The names `graph` (and the graphs nested in it) read but do not define:
// values of the enclosing graphs.
void CollectFreeNames(const onnx::GraphProto& graph, llvm::StringSet<>& used,
                      llvm::StringSet<>& defined) {
  for (const onnx::ValueInfoProto& input : graph.input()) defined.insert(input.name());
  for (const onnx::TensorProto& tensor : graph.initializer()) defined.insert(tensor.name());
  for (const onnx::NodeProto& node : graph.node()) {
    for (const std::string& input : node.input()) {
      if (!input.empty()) used.insert(input);
    }
    for (const std::string& output : node.output()) defined.insert(output);
    for (const onnx::AttributeProto& attribute : node.attribute()) {
      if (attribute.has_g()) CollectFreeNames(attribute.g(), used, defined);
      for (const onnx::GraphProto& nested : attribute.graphs()) {
        CollectFreeNames(nested, used, defined);
      }
    }
  }
  for (const onnx::ValueInfoProto& output : graph.output()) used.insert(output.name());
}

// A 0-d tensor holding `value` + 1 (i64).
Value Increment(mlir::OpBuilder& b, mlir::Location loc, Value value) {
  return misc::BuildIndexed(b, loc, {}, b.getI64Type(), value,
                            {mlir::AffineMap::get(0, 0, {}, b.getContext())},
                            [](mlir::OpBuilder& nb, mlir::Location l, mlir::ValueRange args) {
                              Value one = ScalarConstant(nb, l, nb.getI64Type(), 1);
                              return nb.create<mlir::arith::AddIOp>(l, args[0], one).getResult();
                            });
}

// `value` as `type` (a tensor.cast), or null when the shapes disagree.
Value CastTo(mlir::OpBuilder& b, mlir::Location loc, Value value, mlir::Type type) {
  if (value.getType() == type) return value;
  if (!mlir::tensor::CastOp::areCastCompatible(value.getType(), type)) return Value();
  return b.create<mlir::tensor::CastOp>(loc, type, value);
}

// A Loop whose trip count or condition is known only at run time: a
// private function `loop(M?, cond?, i, states..., outer values...) ->
// (states..., scans...)` that returns its states when i >= M or !cond, and
// otherwise runs the body once and calls itself with i + 1.
mlir::LogicalResult BuildRecursiveLoop(NodeImporter& node, const onnx::GraphProto& body) {
  mlir::OpBuilder& b = node.builder();
  mlir::Location loc = node.loc();
  GraphImporter& graph = node.graph();
  const int64_t carried = node.input_count() - 2;
  const int64_t scans = body.output_size() - 1 - carried;
  if (body.input_size() != 2 + carried) {
    return node.Fail(
        "the body must take the iteration number, the condition and the "
        "loop-carried values");
  }
  // The values of enclosing graphs the body reads: constants are re-made in
  // the function, the others passed.
  llvm::StringSet<> used, defined;
  CollectFreeNames(body, used, defined);
  std::vector<std::string> free_names;
  std::vector<ImportedValue> free_values;
  for (const auto& entry : used) {
    const std::string name = entry.getKey().str();
    if (defined.contains(name)) continue;
    const ImportedValue* value = graph.Lookup(name);
    if (!value) return node.Fail("the body reads '" + name + "', which is not defined");
    free_names.push_back(name);
    free_values.push_back(*value);
  }
  llvm::SmallVector<Value> operands;
  llvm::SmallVector<mlir::Type> argument_types;
  const bool has_m = node.HasInput(0), has_cond = node.HasInput(1);
  if (has_m) operands.push_back(node.Input(0));
  if (has_cond) operands.push_back(node.Input(1));
  auto i64_scalar = mlir::RankedTensorType::get({}, b.getI64Type());
  Value zero = b.create<mlir::arith::ConstantOp>(
      loc, mlir::DenseElementsAttr::get(i64_scalar, static_cast<int64_t>(0)));
  operands.push_back(zero);
  std::vector<OnnxElementType> state_types;
  for (int64_t i = 0; i < carried; ++i) {
    const ImportedValue* value = node.InputInfo(2 + i);
    if (!value) return node.Fail("loop-carried input " + std::to_string(i) + " is missing");
    operands.push_back(value->value);
    state_types.push_back(value->element_type);
  }
  const int64_t first_free = operands.size();
  for (const ImportedValue& value : free_values) {
    if (!value.constant) operands.push_back(value.value);
  }
  for (Value operand : operands) argument_types.push_back(operand.getType());

  // The function, next to the graph's.
  mlir::Block* outer_block = b.getInsertionBlock();
  mlir::Block::iterator outer_point = b.getInsertionPoint();
  mlir::Operation* outer_function = outer_block->getParentOp();
  while (outer_function && !llvm::isa<mlir::func::FuncOp>(outer_function)) {
    outer_function = outer_function->getParentOp();
  }
  if (!outer_function) return node.Fail("no enclosing function");
  auto module = outer_function->getParentOfType<mlir::ModuleOp>();
  b.setInsertionPointAfter(outer_function);
  auto function = b.create<mlir::func::FuncOp>(loc, "loop", b.getFunctionType(argument_types, {}));
  function.setPrivate();
  mlir::SymbolTable(module).insert(function);  // Uniques the name.
  mlir::Block* entry = function.addEntryBlock();
  mlir::Block* done = function.addBlock();
  mlir::Block* run = function.addBlock();
  auto restore = [&](mlir::LogicalResult result) {
    for (size_t i = 0; i < free_names.size(); ++i) graph.Define(free_names[i], free_values[i]);
    b.setInsertionPoint(outer_block, outer_point);
    return result;
  };
  mlir::ValueRange args = entry->getArguments();
  int64_t at = 0;
  Value m_arg = has_m ? args[at++] : Value();
  Value cond_arg = has_cond ? args[at++] : Value();
  Value iteration_arg = args[at++];
  llvm::SmallVector<Value> state_args(args.begin() + at, args.begin() + at + carried);

  // Entry: go on while i < M and cond.
  b.setInsertionPointToEnd(entry);
  Value go = ScalarConstant(b, loc, b.getI1Type(), 1);
  if (m_arg) {
    Value m = ConvertScalar(b, loc, misc::ExtractScalar(b, loc, m_arg), node.InputElementType(0),
                            onnx::TensorProto::INT64);
    Value i = misc::ExtractScalar(b, loc, iteration_arg);
    go = b.create<mlir::arith::CmpIOp>(loc, mlir::arith::CmpIPredicate::slt, i, m);
  }
  if (cond_arg) {
    Value cond = ConvertScalar(b, loc, misc::ExtractScalar(b, loc, cond_arg),
                               node.InputElementType(1), onnx::TensorProto::BOOL);
    go = b.create<mlir::arith::AndIOp>(loc, go, cond);
  }
  b.create<mlir::cf::CondBranchOp>(loc, go, run, mlir::ValueRange{}, done, mlir::ValueRange{});

  // One iteration: the body with its inputs bound.
  b.setInsertionPointToEnd(run);
  int64_t free_at = first_free;
  for (size_t i = 0; i < free_names.size(); ++i) {
    ImportedValue value = free_values[i];
    if (value.constant) {
      value.value = b.create<mlir::arith::ConstantOp>(loc, value.constant);
    } else {
      value.value = args[free_at++];
    }
    graph.Define(free_names[i], value);
  }
  std::vector<ImportedValue> inputs(2);
  inputs[0].value = iteration_arg;
  inputs[0].element_type = onnx::TensorProto::INT64;
  if (cond_arg) {
    inputs[1].value = cond_arg;
  } else {
    inputs[1].constant = mlir::DenseElementsAttr::get(
        mlir::RankedTensorType::get({}, b.getI1Type()), llvm::ArrayRef<bool>{true});
    inputs[1].value = b.create<mlir::arith::ConstantOp>(loc, inputs[1].constant);
  }
  inputs[1].element_type = onnx::TensorProto::BOOL;
  for (int64_t i = 0; i < carried; ++i) {
    ImportedValue state;
    state.value = state_args[i];
    state.element_type = state_types[i];
    inputs.push_back(state);
  }
  mlir::FailureOr<std::vector<ImportedValue>> outputs = ImportSubgraph(node, body, inputs);
  if (mlir::failed(outputs)) return restore(mlir::failure());
  // The next call: M, the body's condition, i + 1, the new states.
  llvm::SmallVector<Value> call_operands;
  if (m_arg) call_operands.push_back(m_arg);
  if (cond_arg) {
    Value next_cond = CastTo(b, loc, (*outputs)[0].value, cond_arg.getType());
    if (!next_cond) return restore(node.Fail("the body's condition must be a bool scalar"));
    call_operands.push_back(next_cond);
  }
  call_operands.push_back(Increment(b, loc, iteration_arg));
  for (int64_t i = 0; i < carried; ++i) {
    Value next = CastTo(b, loc, (*outputs)[1 + i].value, state_args[i].getType());
    if (!next) {
      return restore(node.Fail("loop-carried value " + std::to_string(i) +
                               " changes its shape across iterations"));
    }
    call_operands.push_back(next);
  }
  call_operands.append(args.begin() + first_free, args.end());
  // Scan outputs: each iteration's value in front of the later ones'.
  llvm::SmallVector<mlir::Type> result_types(mlir::ValueRange(state_args).getTypes());
  std::vector<OnnxElementType> scan_types;
  for (int64_t j = 0; j < scans; ++j) {
    const ImportedValue& value = (*outputs)[1 + carried + j];
    auto type = llvm::dyn_cast<mlir::RankedTensorType>(value.value.getType());
    if (!type) return restore(node.Fail("scan outputs of unknown rank are not supported"));
    llvm::SmallVector<int64_t> shape{mlir::ShapedType::kDynamic};
    shape.append(type.getShape().begin(), type.getShape().end());
    result_types.push_back(mlir::RankedTensorType::get(shape, type.getElementType()));
    scan_types.push_back(value.element_type);
  }
  function.setFunctionType(b.getFunctionType(argument_types, result_types));
  auto call = b.create<mlir::func::CallOp>(loc, function, call_operands);
  llvm::SmallVector<Value> results(call.getResults().take_front(carried));
  for (int64_t j = 0; j < scans; ++j) {
    Value current = (*outputs)[1 + carried + j].value;
    Value rest = call.getResult(carried + j);
    llvm::SmallVector<mlir::OpFoldResult> item_sizes = TensorSizes(b, loc, current);
    llvm::SmallVector<mlir::OpFoldResult> rest_sizes = TensorSizes(b, loc, rest);
    Value count = b.create<mlir::arith::AddIOp>(
        loc, mlir::getValueOrCreateConstantIndexOp(b, loc, rest_sizes[0]),
        misc::IndexConstant(b, loc, 1));
    llvm::SmallVector<mlir::OpFoldResult> sizes{count};
    sizes.append(item_sizes.begin(), item_sizes.end());
    auto result_type = llvm::cast<mlir::RankedTensorType>(result_types[carried + j]);
    Value stacked = EmptyTensor(b, loc, sizes, result_type.getElementType());
    stacked = CastTo(b, loc, stacked, result_type);
    const int64_t rank = sizes.size();
    llvm::SmallVector<mlir::OpFoldResult> zeros(rank, b.getIndexAttr(0));
    llvm::SmallVector<mlir::OpFoldResult> ones(rank, b.getIndexAttr(1));
    llvm::SmallVector<mlir::OpFoldResult> first_sizes{b.getIndexAttr(1)};
    first_sizes.append(item_sizes.begin(), item_sizes.end());
    stacked =
        b.create<mlir::tensor::InsertSliceOp>(loc, current, stacked, zeros, first_sizes, ones);
    llvm::SmallVector<mlir::OpFoldResult> rest_offsets(zeros);
    rest_offsets[0] = b.getIndexAttr(1);
    stacked =
        b.create<mlir::tensor::InsertSliceOp>(loc, rest, stacked, rest_offsets, rest_sizes, ones);
    results.push_back(stacked);
  }
  b.create<mlir::func::ReturnOp>(loc, results);

  // Done: the states as they are, empty scan outputs.
  b.setInsertionPointToEnd(done);
  llvm::SmallVector<Value> finished(state_args);
  for (int64_t j = 0; j < scans; ++j) {
    auto type = llvm::cast<mlir::RankedTensorType>(result_types[carried + j]);
    llvm::SmallVector<mlir::OpFoldResult> sizes;
    for (int64_t d = 0; d < type.getRank(); ++d) {
      sizes.push_back(b.getIndexAttr(type.isDynamicDim(d) ? 0 : type.getDimSize(d)));
    }
    finished.push_back(CastTo(b, loc, EmptyTensor(b, loc, sizes, type.getElementType()), type));
  }
  b.create<mlir::func::ReturnOp>(loc, finished);

  (void)restore(mlir::success());
  auto outer_call = b.create<mlir::func::CallOp>(loc, function, operands);
  for (int64_t i = 0; i < carried; ++i) {
    node.SetOutput(i, outer_call.getResult(i), state_types[i]);
  }
  for (int64_t j = 0; j < scans; ++j) {
    node.SetOutput(carried + j, outer_call.getResult(carried + j), scan_types[j]);
  }
  return mlir::success();
}

// Whether the body's condition output is known at import time in every
// iteration: a Constant, or its condition input passed on (through
// Identity).
bool BodyConditionIsKnown(const onnx::GraphProto& body) {
  if (body.input_size() < 2 || body.output_size() < 1) return false;
  std::string name = body.output(0).name();
  for (int step = 0; step < body.node_size() + 1; ++step) {
    if (name == body.input(1).name()) return true;
    const onnx::NodeProto* producer = nullptr;
    for (const onnx::NodeProto& node : body.node()) {
      if (llvm::is_contained(node.output(), name)) producer = &node;
    }
    if (!producer) return false;
    if (producer->op_type() == "Constant") return true;
    if (producer->op_type() != "Identity" || producer->input_size() != 1) return false;
    name = producer->input(0);
  }
  return false;
}

mlir::LogicalResult ConvertLoop(NodeImporter& node) {
  const onnx::GraphProto* body = GraphAttribute(node, "body");
  if (!body) return node.Fail("body is required");
  std::optional<int64_t> trip_count;
  bool known = true;
  if (node.HasInput(0)) {
    std::optional<std::vector<int64_t>> ints = node.InputInts(0);
    if (ints && ints->size() == 1) {
      trip_count = (*ints)[0];
    } else {
      known = false;
    }
  }
  if (node.HasInput(1)) {
    std::optional<bool> cond = KnownBool(*node.InputInfo(1));
    if (!cond) {
      known = false;
    } else if (!*cond) {
      trip_count = 0;
    }
  }
  if (node.input_count() < 2) return node.Fail("needs M and cond inputs (possibly empty)");
  if (!known || !trip_count || *trip_count > kMaxUnrolledIterations ||
      !BodyConditionIsKnown(*body)) {
    return BuildRecursiveLoop(node, *body);
  }
  const int64_t carried = node.input_count() - 2;
  if (carried < 0) return node.Fail("needs M and cond inputs (possibly empty)");
  const int64_t scans = body->output_size() - 1 - carried;
  if (scans < 0) return node.Fail("the body has fewer outputs than loop-carried values");
  std::vector<ImportedValue> state;
  for (int64_t i = 0; i < carried; ++i) {
    const ImportedValue* value = node.InputInfo(2 + i);
    if (!value) return node.Fail("loop-carried input " + std::to_string(i) + " is missing");
    state.push_back(*value);
  }
  std::vector<std::vector<Value>> scan_values(scans);
  std::vector<OnnxElementType> scan_types(scans, 0);
  mlir::OpBuilder& b = node.builder();
  ImportedValue cond_value;
  {
    auto type = mlir::RankedTensorType::get({}, b.getI1Type());
    cond_value.constant = mlir::DenseElementsAttr::get(type, llvm::ArrayRef<bool>{true});
    cond_value.element_type = onnx::TensorProto::BOOL;
  }
  for (int64_t i = 0; i < *trip_count; ++i) {
    auto type = mlir::RankedTensorType::get({}, b.getI64Type());
    ImportedValue iteration;
    iteration.constant = mlir::DenseElementsAttr::get(type, i);
    iteration.value = b.create<mlir::arith::ConstantOp>(node.loc(), iteration.constant);
    iteration.element_type = onnx::TensorProto::INT64;
    cond_value.value = b.create<mlir::arith::ConstantOp>(node.loc(), cond_value.constant);
    std::vector<ImportedValue> inputs{iteration, cond_value};
    inputs.insert(inputs.end(), state.begin(), state.end());
    mlir::FailureOr<std::vector<ImportedValue>> outputs = ImportSubgraph(node, *body, inputs);
    if (mlir::failed(outputs)) return mlir::failure();
    std::optional<bool> keep_going = KnownBool((*outputs)[0]);
    if (!keep_going) {
      return node.Fail(
          "the body's condition is known only at run time but the trip count is "
          "not (kiln unrolls such loops and cannot stop them early)");
    }
    for (int64_t j = 0; j < carried; ++j) state[j] = (*outputs)[1 + j];
    for (int64_t j = 0; j < scans; ++j) {
      scan_values[j].push_back((*outputs)[1 + carried + j].value);
      scan_types[j] = (*outputs)[1 + carried + j].element_type;
    }
    if (!*keep_going) break;
  }
  for (int64_t j = 0; j < carried; ++j) SetImported(node, j, state[j]);
  for (int64_t j = 0; j < scans; ++j) {
    if (scan_values[j].empty()) {
      return node.Fail("scan outputs of a loop that runs no iteration are not supported");
    }
    mlir::FailureOr<Value> stacked = Stack(node, scan_values[j], 0);
    if (mlir::failed(stacked)) return mlir::failure();
    node.SetOutput(carried + j, *stacked, scan_types[j]);
  }
  return mlir::success();
}

mlir::LogicalResult ConvertScan(NodeImporter& node) {
  const onnx::GraphProto* body = GraphAttribute(node, "body");
  if (!body) return node.Fail("body is required");
  const int64_t num_scan_inputs = node.IntAttribute("num_scan_inputs", -1);
  if (num_scan_inputs < 1) return node.Fail("num_scan_inputs is required");
  // Opset 8 has a leading sequence_lens input and a batch dimension on
  // every input and output; the body runs per batch entry.
  const bool batched = node.opset() < 9;
  const int64_t first = batched ? 1 : 0;
  if (batched && node.HasInput(0)) {
    return node.Fail("sequence_lens is not supported (every sequence must be full)");
  }
  const int64_t states = node.input_count() - first - num_scan_inputs;
  if (states < 0) return node.Fail("fewer inputs than num_scan_inputs");
  const int64_t scan_outputs = node.output_count() - states;
  if (scan_outputs < 0 || body->output_size() != states + scan_outputs) {
    return node.Fail("the body's outputs do not match the node's");
  }
  std::vector<int64_t> input_axes =
      node.IntsAttribute("scan_input_axes", std::vector<int64_t>(num_scan_inputs, 0));
  std::vector<int64_t> input_directions = node.IntsAttribute(
      "scan_input_directions",
      node.IntsAttribute("directions", std::vector<int64_t>(num_scan_inputs, 0)));
  std::vector<int64_t> output_axes =
      node.IntsAttribute("scan_output_axes", std::vector<int64_t>(scan_outputs, 0));
  std::vector<int64_t> output_directions =
      node.IntsAttribute("scan_output_directions", std::vector<int64_t>(scan_outputs, 0));
  if (static_cast<int64_t>(input_axes.size()) != num_scan_inputs ||
      static_cast<int64_t>(input_directions.size()) != num_scan_inputs ||
      static_cast<int64_t>(output_axes.size()) != scan_outputs ||
      static_cast<int64_t>(output_directions.size()) != scan_outputs) {
    return node.Fail("the scan axes and directions need one entry per scan input/output");
  }
  // The batch (opset 8), the sequence length: static.
  int64_t batch = 1;
  int64_t steps = -1;
  for (int64_t i = 0; i < num_scan_inputs; ++i) {
    const ImportedValue* input = node.InputInfo(first + states + i);
    if (!input) return node.Fail("scan input " + std::to_string(i) + " is missing");
    auto type = llvm::dyn_cast<mlir::RankedTensorType>(input->value.getType());
    if (!type) return node.Fail("scan inputs of unknown rank are not supported");
    const int64_t offset = batched ? 1 : 0;
    mlir::FailureOr<int64_t> axis = NormalizeAxis(node, input_axes[i], type.getRank() - offset);
    if (mlir::failed(axis)) return mlir::failure();
    input_axes[i] = *axis + offset;
    const int64_t length = type.getDimSize(input_axes[i]);
    if (mlir::ShapedType::isDynamic(length)) {
      return node.Fail(
          "a sequence length unknown at import time is not supported (kiln unrolls "
          "scans at import time)");
    }
    if (steps >= 0 && steps != length) return node.Fail("scan inputs have different lengths");
    steps = length;
    if (batched) {
      if (type.isDynamicDim(0)) return node.Fail("a dynamic batch is not supported");
      batch = type.getDimSize(0);
    }
  }
  if (steps > kMaxUnrolledIterations || steps * batch > kMaxUnrolledIterations) {
    return node.Fail("sequences longer than " + std::to_string(kMaxUnrolledIterations) +
                     " steps are not unrolled");
  }
  std::vector<std::vector<ImportedValue>> final_states(states);
  std::vector<std::vector<Value>> batch_scans(scan_outputs);
  std::vector<OnnxElementType> scan_types(scan_outputs, 0);
  for (int64_t n = 0; n < batch; ++n) {
    std::vector<ImportedValue> state;
    for (int64_t i = 0; i < states; ++i) {
      ImportedValue value = *node.InputInfo(first + i);
      if (batched) {
        value.value = SliceAt(node, value.value, 0, n);
        value.constant = nullptr;
      }
      state.push_back(value);
    }
    std::vector<std::vector<Value>> scans(scan_outputs);
    for (int64_t t = 0; t < steps; ++t) {
      std::vector<ImportedValue> inputs(state);
      for (int64_t i = 0; i < num_scan_inputs; ++i) {
        ImportedValue input = *node.InputInfo(first + states + i);
        Value source = input.value;
        int64_t axis = input_axes[i];
        if (batched) {
          source = SliceAt(node, source, 0, n);
          axis -= 1;
        }
        const int64_t position = input_directions[i] ? steps - 1 - t : t;
        input.value = SliceAt(node, source, axis, position);
        input.constant = nullptr;
        inputs.push_back(input);
      }
      mlir::FailureOr<std::vector<ImportedValue>> outputs = ImportSubgraph(node, *body, inputs);
      if (mlir::failed(outputs)) return mlir::failure();
      for (int64_t i = 0; i < states; ++i) state[i] = (*outputs)[i];
      for (int64_t j = 0; j < scan_outputs; ++j) {
        scans[j].push_back((*outputs)[states + j].value);
        scan_types[j] = (*outputs)[states + j].element_type;
      }
    }
    for (int64_t i = 0; i < states; ++i) final_states[i].push_back(state[i]);
    for (int64_t j = 0; j < scan_outputs; ++j) {
      if (output_directions[j]) std::reverse(scans[j].begin(), scans[j].end());
      auto type = llvm::dyn_cast<mlir::RankedTensorType>(scans[j][0].getType());
      if (!type) return node.Fail("scan outputs of unknown rank are not supported");
      mlir::FailureOr<int64_t> axis = NormalizeAxis(node, output_axes[j], type.getRank() + 1);
      if (mlir::failed(axis)) return mlir::failure();
      mlir::FailureOr<Value> stacked = Stack(node, scans[j], *axis);
      if (mlir::failed(stacked)) return mlir::failure();
      batch_scans[j].push_back(*stacked);
    }
  }
  for (int64_t i = 0; i < states; ++i) {
    if (!batched) {
      SetImported(node, i, final_states[i][0]);
      continue;
    }
    llvm::SmallVector<Value> values;
    for (const ImportedValue& v : final_states[i]) values.push_back(v.value);
    mlir::FailureOr<Value> stacked = Stack(node, values, 0);
    if (mlir::failed(stacked)) return mlir::failure();
    node.SetOutput(i, *stacked, final_states[i][0].element_type);
  }
  for (int64_t j = 0; j < scan_outputs; ++j) {
    Value result = batch_scans[j][0];
    if (batched) {
      mlir::FailureOr<Value> stacked = Stack(node, batch_scans[j], 0);
      if (mlir::failed(stacked)) return mlir::failure();
      result = *stacked;
    }
    node.SetOutput(states + j, result, scan_types[j]);
  }
  return mlir::success();
}

}  // namespace

void RegisterControlFlowOps(OpRegistry& registry) {
  registry.Register("If", ConvertIf);
  registry.Register("Loop", ConvertLoop);
  registry.Register("Scan", ConvertScan, 8);
}

}  // namespace kiln::onnx_import
