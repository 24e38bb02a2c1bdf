// Einsum: the equation becomes one linalg.generic whose loops are its
// labels, the output's first (parallel), the summed ones after (reduction).
//
// Each operand reads its labels through its map: a label repeated within an
// operand reads its diagonal ("ii->i"); an ellipsis stands for the same
// trailing-aligned dimensions in every operand, broadcast where an operand's
// size is a static 1 (numpy). Without "->" the output is the ellipsis
// dimensions then the labels used once, in alphabetical order (numpy).
#include <map>

#include "compiler/onnx/layer_builders.h"
#include "compiler/onnx/node_importer.h"
#include "compiler/onnx/ops/layer_ops.h"
#include "compiler/onnx/tensor_builders.h"
#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Utils/StaticValueUtils.h"

namespace kiln::onnx_import {
namespace {

// One term of the equation: labels by position; -1 marks the ellipsis.
struct Term {
  llvm::SmallVector<int> labels;
  bool has_ellipsis = false;
};

mlir::FailureOr<Term> ParseTerm(NodeImporter& node, llvm::StringRef text) {
  Term term;
  for (size_t i = 0; i < text.size(); ++i) {
    const char c = text[i];
    if (std::isalpha(static_cast<unsigned char>(c))) {
      term.labels.push_back(c);
    } else if (text.substr(i).starts_with("...")) {
      if (term.has_ellipsis) return node.Fail("a term of the equation has two ellipses");
      term.has_ellipsis = true;
      term.labels.push_back(-1);
      i += 2;
    } else {
      return node.Fail("unexpected character '" + std::string(1, c) + "' in the equation");
    }
  }
  return term;
}

mlir::LogicalResult ConvertEinsum(NodeImporter& node) {
  mlir::OpBuilder& b = node.builder();
  mlir::Location loc = node.loc();
  mlir::MLIRContext* context = b.getContext();
  std::string equation;
  for (char c : node.StringAttribute("equation", "")) {
    if (!std::isspace(static_cast<unsigned char>(c))) equation.push_back(c);
  }
  llvm::StringRef text(equation);
  auto [lhs, rhs] = text.split("->");
  const bool explicit_output = text.contains("->");
  llvm::SmallVector<llvm::StringRef> term_texts;
  lhs.split(term_texts, ',');
  const int64_t count = node.input_count();
  if (static_cast<int64_t>(term_texts.size()) != count) {
    return node.Fail("the equation has " + std::to_string(term_texts.size()) +
                     " operand terms for " + std::to_string(count) + " inputs");
  }
  const OnnxElementType type = node.InputElementType(0);
  if (type == onnx::TensorProto::BOOL) return node.Fail("bool operands are not supported");
  llvm::SmallVector<Term> terms;
  llvm::SmallVector<mlir::RankedTensorType> types;
  llvm::SmallVector<mlir::Value> inputs;
  int64_t ellipsis_rank = 0;
  for (int64_t i = 0; i < count; ++i) {
    mlir::FailureOr<Term> term = ParseTerm(node, term_texts[i]);
    if (mlir::failed(term)) return mlir::failure();
    if (!node.HasInput(i)) return node.Fail("every input is needed");
    if (node.InputElementType(i) != type) return node.Fail("the operands' types differ");
    auto operand_type = llvm::dyn_cast<mlir::RankedTensorType>(node.Input(i).getType());
    if (!operand_type) return node.Fail("operands of unknown rank are not supported");
    const int64_t letters = static_cast<int64_t>(term->labels.size()) - (term->has_ellipsis ? 1 : 0);
    const int64_t spanned = operand_type.getRank() - letters;
    if (spanned < 0 || (!term->has_ellipsis && spanned != 0)) {
      return node.Fail("term '" + term_texts[i] + "' does not match operand " + std::to_string(i) +
                       " of rank " + std::to_string(operand_type.getRank()));
    }
    ellipsis_rank = std::max(ellipsis_rank, spanned);
    terms.push_back(*term);
    types.push_back(operand_type);
    inputs.push_back(node.Input(i));
  }

  // Loop ids: the ellipsis dimensions are labels 1000 + d (d from the
  // first of them); letters are their character codes.
  auto ellipsis_label = [](int64_t d) { return static_cast<int>(1000 + d); };
  llvm::SmallVector<int> output_labels;
  if (explicit_output) {
    mlir::FailureOr<Term> output = ParseTerm(node, rhs);
    if (mlir::failed(output)) return mlir::failure();
    for (int label : output->labels) {
      if (label == -1) {
        for (int64_t d = 0; d < ellipsis_rank; ++d) output_labels.push_back(ellipsis_label(d));
      } else {
        if (llvm::is_contained(output_labels, label)) {
          return node.Fail("label '" + std::string(1, static_cast<char>(label)) +
                           "' appears twice in the output");
        }
        output_labels.push_back(label);
      }
    }
  } else {
    std::map<int, int> uses;
    for (const Term& term : terms) {
      for (int label : term.labels) {
        if (label != -1) ++uses[label];
      }
    }
    for (int64_t d = 0; d < ellipsis_rank; ++d) output_labels.push_back(ellipsis_label(d));
    for (auto [label, n] : uses) {
      if (n == 1) output_labels.push_back(label);
    }
  }

  // Each operand's labels per dimension.
  llvm::SmallVector<llvm::SmallVector<int>> operand_labels;
  for (int64_t i = 0; i < count; ++i) {
    llvm::SmallVector<int> labels;
    const int64_t spanned = types[i].getRank() - (static_cast<int64_t>(terms[i].labels.size()) -
                                                  (terms[i].has_ellipsis ? 1 : 0));
    for (int label : terms[i].labels) {
      if (label != -1) {
        labels.push_back(label);
        continue;
      }
      for (int64_t d = ellipsis_rank - spanned; d < ellipsis_rank; ++d) {
        labels.push_back(ellipsis_label(d));
      }
    }
    operand_labels.push_back(labels);
  }
  // Loops: output labels, then the others in order of appearance.
  llvm::SmallVector<int> loops(output_labels);
  for (const auto& labels : operand_labels) {
    for (int label : labels) {
      if (!llvm::is_contained(loops, label)) loops.push_back(label);
    }
  }
  for (int label : output_labels) {
    bool found = false;
    for (const auto& labels : operand_labels) found |= llvm::is_contained(labels, label);
    if (!found) {
      return node.Fail("output label '" + std::string(1, static_cast<char>(label)) +
                       "' is in no operand");
    }
  }
  // Loop sizes: a static size other than 1 wins, then a dynamic one, then 1.
  const int64_t loop_count = static_cast<int64_t>(loops.size());
  llvm::SmallVector<mlir::OpFoldResult> loop_sizes(loop_count);
  for (int64_t l = 0; l < loop_count; ++l) {
    std::optional<int64_t> static_size;
    mlir::OpFoldResult dynamic_size;
    for (int64_t i = 0; i < count; ++i) {
      for (size_t d = 0; d < operand_labels[i].size(); ++d) {
        if (operand_labels[i][d] != loops[l]) continue;
        const int64_t size = types[i].getDimSize(d);
        if (mlir::ShapedType::isDynamic(size)) {
          if (!dynamic_size) dynamic_size = TensorSizes(b, loc, inputs[i])[d];
          continue;
        }
        if (size == 1) continue;
        if (static_size && *static_size != size) {
          return node.Fail("the sizes of a label differ (" + std::to_string(*static_size) +
                           " and " + std::to_string(size) + ")");
        }
        static_size = size;
      }
    }
    loop_sizes[l] = static_size ? b.getIndexAttr(*static_size)
                                : (dynamic_size ? dynamic_size : b.getIndexAttr(1));
  }
  llvm::SmallVector<mlir::AffineMap> maps;
  for (int64_t i = 0; i < count; ++i) {
    llvm::SmallVector<mlir::AffineExpr> exprs;
    for (size_t d = 0; d < operand_labels[i].size(); ++d) {
      const int64_t l = llvm::find(loops, operand_labels[i][d]) - loops.begin();
      const bool broadcast =
          types[i].getDimSize(d) == 1 && !mlir::isConstantIntValue(loop_sizes[l], 1);
      exprs.push_back(broadcast ? mlir::getAffineConstantExpr(0, context)
                                : mlir::getAffineDimExpr(l, context));
    }
    maps.push_back(mlir::AffineMap::get(loop_count, 0, exprs, context));
  }
  const int64_t output_rank = static_cast<int64_t>(output_labels.size());
  llvm::SmallVector<mlir::AffineExpr> output_exprs;
  for (int64_t l = 0; l < output_rank; ++l) output_exprs.push_back(mlir::getAffineDimExpr(l, context));
  mlir::AffineMap output_map = mlir::AffineMap::get(loop_count, 0, output_exprs, context);
  llvm::SmallVector<mlir::utils::IteratorType> iterators(loop_count,
                                                         mlir::utils::IteratorType::reduction);
  for (int64_t l = 0; l < output_rank; ++l) iterators[l] = mlir::utils::IteratorType::parallel;
  mlir::Type element_type = types[0].getElementType();
  mlir::Value init = FilledTensor(b, loc, llvm::ArrayRef(loop_sizes).take_front(output_rank),
                                  ScalarConstant(b, loc, element_type, 0));
  const bool is_float = IsFloat(type);
  mlir::Value result = BuildGeneric(
      b, loc, inputs, maps, init, output_map, iterators,
      [&](mlir::OpBuilder& nested, mlir::Location nested_loc, mlir::ValueRange args) {
        mlir::Value product = args[0];
        for (int64_t i = 1; i < count; ++i) {
          product = is_float ? nested.create<mlir::arith::MulFOp>(nested_loc, product, args[i])
                                   .getResult()
                             : nested.create<mlir::arith::MulIOp>(nested_loc, product, args[i])
                                   .getResult();
        }
        mlir::Value acc = args[count];
        return is_float ? nested.create<mlir::arith::AddFOp>(nested_loc, acc, product).getResult()
                        : nested.create<mlir::arith::AddIOp>(nested_loc, acc, product).getResult();
      });
  node.SetOutput(0, result, type);
  return mlir::success();
}

}  // namespace

void RegisterEinsumOp(OpRegistry& registry) { registry.Register("Einsum", ConvertEinsum, 12); }

}  // namespace kiln::onnx_import
