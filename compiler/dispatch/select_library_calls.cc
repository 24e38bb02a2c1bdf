// SelectLibraryCalls (--kiln-select-library-calls): each generated kernel
// that computes what one library call computes (library_calls.h) gets the
// call as `kiln.library_call` on its export; the CUDA target serializes it
// beside the kernel (schemas/executable_cuda.fbs) and the other targets
// ignore it. Runs after --kiln-form-dispatches, before the kernels are
// tiled:
//
//   hal.executable.export public @f_dispatch_0 ordinal(0) layout(#layout)
//   ->
//   hal.executable.export public @f_dispatch_0 ordinal(0) layout(#layout)
//       attributes {kiln.library_call = {kind = "matmul", element_type = "f32",
//                   m = 256, n = 1024, k = 1024, batch_count = 1,
//                   transpose_a = false, transpose_b = true, a = 0, b = 1, d = 3,
//                   bias = 2, activation = "relu", allow_tf32 = false, ...}}
//
// Matmul fields: kind, element_type, m, n, k, batch_count, transpose_a,
// transpose_b, a, b, d, bias, c (binding ordinals; bias and c optional),
// batch_stride_a/b/c/d (elements), activation, allow_tf32. Convolution
// fields: kind, element_type, n, c, h, w, k, r, s, stride_h/w,
// dilation_h/w, x, filter, y, bias, z, activation, allow_tf32, and
// constant_filter where every flow.dispatch of the export passes an
// immutable global (util.global.load of a global that is not mutable) as
// the filter: a driver may then keep the filter reordered into its
// library's preferred layout (schemas/library_call.fbs). A hand-authored
// export may carry the same attribute.
#include "compiler/dialects/flow/flow_dialect.h"
#include "compiler/dialects/hal/hal_dialect.h"
#include "compiler/dialects/util/util_dialect.h"
#include "compiler/dispatch/library_calls.h"
#include "compiler/dispatch/passes.h"
#include "llvm/ADT/MapVector.h"
#include "mlir/IR/BuiltinOps.h"
#include "mlir/Pass/Pass.h"

namespace kiln::compiler {
namespace {

struct SelectLibraryCallsPass
    : mlir::PassWrapper<SelectLibraryCallsPass, mlir::OperationPass<mlir::ModuleOp>> {
  MLIR_DEFINE_EXPLICIT_INTERNAL_INLINE_TYPE_ID(SelectLibraryCallsPass)
  SelectLibraryCallsPass() = default;
  SelectLibraryCallsPass(const SelectLibraryCallsPass& other) : PassWrapper(other) {}
  explicit SelectLibraryCallsPass(bool allow_tf32) { allow_tf32_ = allow_tf32; }

  llvm::StringRef getArgument() const override { return "kiln-select-library-calls"; }
  llvm::StringRef getDescription() const override {
    return "Marks each generated kernel that one library call (a cuBLASLt matmul, a cuDNN "
           "convolution) computes with that call";
  }
  void runOnOperation() override {
    getOperation().walk([&](HAL::ExecutableSourceOp executable) {
      for (auto kernels : executable.getBlock().getOps<mlir::ModuleOp>()) {
        for (HAL::ExecutableExportOp export_op : executable.getExportOps()) {
          auto kernel = kernels.lookupSymbol<mlir::func::FuncOp>(export_op.getSymName());
          if (!kernel) continue;
          if (std::optional<mlir::DictionaryAttr> call = MatchLibraryCall(kernel, allow_tf32_)) {
            export_op->setAttr("kiln.library_call", *call);
          }
        }
      }
    });
    MarkConstantFilters();
  }

 private:
  // Adds constant_filter = true to each convolution call whose dispatches
  // all pass an immutable global as the filter.
  void MarkConstantFilters() {
    mlir::ModuleOp module = getOperation();
    mlir::SymbolTable symbols(module);
    // Per export: whether every dispatch seen so far passed a constant.
    llvm::MapVector<mlir::Operation*, bool> constant;
    module.walk([&](Flow::DispatchOp dispatch) {
      HAL::ExecutableExportOp export_op = dispatch.lookupExport();
      if (!export_op) return;
      auto call = export_op->getAttrOfType<mlir::DictionaryAttr>("kiln.library_call");
      auto kind = call ? call.getAs<mlir::StringAttr>("kind") : nullptr;
      auto filter = call ? call.getAs<mlir::IntegerAttr>("filter") : nullptr;
      if (!kind || kind.getValue() != "convolution" || !filter) return;
      // Tensor arguments are the export's bindings, in order.
      llvm::SmallVector<mlir::Value> tensors;
      for (mlir::Value argument : dispatch.getArguments()) {
        if (llvm::isa<mlir::TensorType>(argument.getType())) tensors.push_back(argument);
      }
      bool is_constant = false;
      const int64_t binding = filter.getInt();
      if (binding >= 0 && binding < static_cast<int64_t>(tensors.size())) {
        if (auto load = tensors[binding].getDefiningOp<Util::GlobalLoadOp>()) {
          auto global = symbols.lookup<Util::GlobalOp>(load.getGlobal());
          is_constant = global && !global.getIsMutable();
        }
      }
      auto [it, inserted] = constant.insert({export_op.getOperation(), is_constant});
      if (!inserted) it->second = it->second && is_constant;
    });
    for (auto [op, is_constant] : constant) {
      if (!is_constant) continue;
      auto call = op->getAttrOfType<mlir::DictionaryAttr>("kiln.library_call");
      mlir::NamedAttrList fields(call);
      fields.set("constant_filter", mlir::BoolAttr::get(op->getContext(), true));
      op->setAttr("kiln.library_call", fields.getDictionary(op->getContext()));
    }
  }

  Option<bool> allow_tf32_{
      *this, "allow-tf32",
      llvm::cl::desc("Let f32 library calls use TF32 tensor cores (default: exact f32)"),
      llvm::cl::init(false)};
};

}  // namespace

std::unique_ptr<mlir::Pass> createSelectLibraryCallsPass(bool allow_tf32) {
  return std::make_unique<SelectLibraryCallsPass>(allow_tf32);
}

}  // namespace kiln::compiler
