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
// batch_stride_a/b/c/d (elements), activation, allow_tf32, and for a
// strided operand (strided_matmul.h) lda/ldb/ldc/ldd and
// offset_a/b/c/d (elements), each only where it is not the packed
// default (the stored row length; 0). Convolution
// fields: kind, element_type, n, c, h, w, k, r, s, stride_h/w,
// dilation_h/w, x, filter, y, bias, z, activation, allow_tf32, and
// constant_filter where every flow.dispatch of the export passes an
// immutable global (util.global.load of a global that is not mutable) as
// the filter: a driver may then keep the filter reordered into its
// library's preferred layout (schemas/library_call.fbs). A hand-authored
// export may carry the same attribute.
//
// With `blocked-activations` (set by the pipeline where cpu is the only
// target with library calls: cuDNN reads NCHW), a convolution's result
// that goes to other convolution calls alone stays in oneDNN's blocked
// layout (nChw16c on AVX-512, nChw8c otherwise) between them: the
// producer's call says y_blocked, each consumer's x_blocked or z_blocked,
// and no reorder runs in between. Keeping every activation NCHW costs two
// reorders per call (the image in, the result out): a third of ResNet-50's
// convolution time on a 16-core AVX-512 CPU (its 53 convolutions alone:
// 9.5 ms with the reorders, 6.5 without); on the 2-core one, ResNet-50's
// first two stages take 13.7 ms instead of 15.6 (convolutions_to_matmuls.cc
// has the rest of those numbers). The result must
// be 4-D f32 with a multiple of 16 channels, and at every flow.dispatch of
// the producer's export each of its users must be a flow.dispatch of a
// convolution call that binds it as x or z (not a generated kernel, a
// return, a reshape); a consumer's x (z) is blocked only where it is such a
// result at every dispatch of the consumer's export. One export dispatched
// from several places is blocked everywhere or nowhere, so a disagreement
// makes the producer plain, which can make other consumers plain, and so on
// to a fixed point. The export's generated kernel still computes NCHW: the
// cpu driver runs the whole program's calls in oneDNN or none of them
// (schemas/library_call.fbs).
#include "compiler/dialects/flow/flow_dialect.h"
#include "compiler/dialects/hal/hal_dialect.h"
#include "compiler/dialects/util/util_dialect.h"
#include "compiler/dispatch/library_calls.h"
#include "compiler/dispatch/passes.h"
#include "llvm/ADT/DenseSet.h"
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
  SelectLibraryCallsPass(bool allow_tf32, bool blocked_activations) {
    allow_tf32_ = allow_tf32;
    blocked_activations_ = blocked_activations;
  }

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
    if (blocked_activations_) MarkBlockedActivations();
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
      llvm::SmallVector<mlir::Value> tensors = BoundTensors(dispatch);
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

  // A convolution call as the layout decision sees it: its bindings,
  // shapes, the places it is dispatched from, and which of its activations
  // may still be blocked.
  struct Convolution {
    int64_t x = -1, y = -1, z = -1;                  // Bindings (z -1: none).
    llvm::SmallVector<int64_t, 4> x_shape, y_shape;  // NCHW; z is shaped like y.
    llvm::SmallVector<Flow::DispatchOp> sites;
    bool x_blocked = false, y_blocked = false, z_blocked = false;
  };
  using Convolutions = llvm::MapVector<mlir::Operation*, Convolution>;

  // The tensors dispatch binds, by binding: its tensor arguments in order,
  // then its results (the convolutions' dispatches tie none).
  static llvm::SmallVector<mlir::Value> BoundTensors(Flow::DispatchOp dispatch) {
    llvm::SmallVector<mlir::Value> bound;
    for (mlir::Value argument : dispatch.getArguments()) {
      if (llvm::isa<mlir::TensorType>(argument.getType())) bound.push_back(argument);
    }
    llvm::append_range(bound, dispatch.getResults());
    return bound;
  }

  // Whether `value` is a static tensor of exactly `shape`: the bytes the
  // call reads as that NCHW shape are the value's own (no reshape between).
  static bool HasShape(mlir::Value value, llvm::ArrayRef<int64_t> shape) {
    auto type = llvm::dyn_cast<mlir::RankedTensorType>(value.getType());
    return type && type.hasStaticShape() && type.getShape() == shape;
  }

  // Whether every user of `call`'s result, at every dispatch site, is a
  // dispatch of a convolution call binding it only as an x or z that may
  // still be blocked.
  static bool ResultGoesToBlockedInputs(const Convolution& call, const Convolutions& calls) {
    for (Flow::DispatchOp site : call.sites) {
      mlir::Value result = BoundTensors(site)[call.y];
      for (mlir::OpOperand& use : result.getUses()) {
        auto consumer = llvm::dyn_cast<Flow::DispatchOp>(use.getOwner());
        if (!consumer) return false;
        auto it = calls.find(consumer.lookupExport().getOperation());
        if (it == calls.end()) return false;
        const Convolution& other = it->second;
        llvm::SmallVector<mlir::Value> bound = BoundTensors(consumer);
        for (auto [binding, value] : llvm::enumerate(bound)) {
          if (value != result) continue;
          const auto b = static_cast<int64_t>(binding);
          if (!((b == other.x && other.x_blocked) || (b == other.z && other.z_blocked))) {
            return false;
          }
        }
      }
    }
    return true;
  }

  // Whether `binding` of `call`, at every dispatch site, is the result of a
  // convolution call whose result may still be blocked.
  static bool InputIsBlockedResult(const Convolution& call, int64_t binding,
                                   const Convolutions& calls) {
    for (Flow::DispatchOp site : call.sites) {
      auto result = llvm::dyn_cast<mlir::OpResult>(BoundTensors(site)[binding]);
      auto producer = result ? llvm::dyn_cast<Flow::DispatchOp>(result.getOwner()) : nullptr;
      if (!producer) return false;
      auto it = calls.find(producer.lookupExport().getOperation());
      if (it == calls.end() || !it->second.y_blocked) return false;
      if (BoundTensors(producer)[it->second.y] != result) return false;
    }
    return true;
  }

  // Marks the activations that stay in the blocked layout between
  // convolution calls (the file comment says which).
  void MarkBlockedActivations() {
    mlir::ModuleOp module = getOperation();
    Convolutions calls;
    llvm::DenseSet<mlir::Operation*> ineligible;
    module.walk([&](Flow::DispatchOp dispatch) {
      HAL::ExecutableExportOp export_op = dispatch.lookupExport();
      if (!export_op) return;
      auto call = export_op->getAttrOfType<mlir::DictionaryAttr>("kiln.library_call");
      auto kind = call ? call.getAs<mlir::StringAttr>("kind") : nullptr;
      auto element = call ? call.getAs<mlir::StringAttr>("element_type") : nullptr;
      if (!kind || kind.getValue() != "convolution" || !element || element.getValue() != "f32") {
        return;
      }
      auto number = [&](llvm::StringRef name, int64_t fallback) -> int64_t {
        auto value = call.getAs<mlir::IntegerAttr>(name);
        return value ? value.getInt() : fallback;
      };
      auto [it, inserted] = calls.insert({export_op.getOperation(), Convolution()});
      Convolution& c = it->second;
      if (inserted) {
        c.x = number("x", -1), c.y = number("y", -1), c.z = number("z", -1);
        const int64_t r = number("r", 0), s = number("s", 0);
        const int64_t h = number("h", 0), w = number("w", 0);
        const int64_t p = h - number("dilation_h", 1) * (r - 1) - 1;
        const int64_t q = w - number("dilation_w", 1) * (s - 1) - 1;
        c.x_shape = {number("n", 0), number("c", 0), h, w};
        c.y_shape = {number("n", 0), number("k", 0),
                     p / std::max<int64_t>(number("stride_h", 1), 1) + 1,
                     q / std::max<int64_t>(number("stride_w", 1), 1) + 1};
      }
      c.sites.push_back(dispatch);
      // Every site binds the call's operands as the shapes it reads, and
      // ties no result (its binding would be an operand's).
      llvm::SmallVector<mlir::Value> bound = BoundTensors(dispatch);
      const auto count = static_cast<int64_t>(bound.size());
      const auto inputs = count - static_cast<int64_t>(dispatch.getNumResults());
      const bool untied =
          !dispatch.getTiedOperands() ||
          llvm::all_of(*dispatch.getTiedOperands(), [](int64_t t) { return t < 0; });
      if (!untied || c.x < 0 || c.x >= inputs || c.y < inputs || c.y >= count || c.z >= inputs ||
          !HasShape(bound[c.x], c.x_shape) || !HasShape(bound[c.y], c.y_shape) ||
          (c.z >= 0 && !HasShape(bound[c.z], c.y_shape))) {
        ineligible.insert(export_op.getOperation());
      }
    });
    // Start from every activation the layout allows, then take back what a
    // neighbour cannot match until nothing changes.
    for (auto& [op, c] : calls) {
      if (ineligible.contains(op)) continue;
      c.y_blocked = c.y_shape[1] % 16 == 0 && c.z != c.y;
      c.x_blocked = c.x_shape[1] % 16 == 0;
      c.z_blocked = c.z >= 0 && c.y_shape[1] % 16 == 0;
    }
    for (bool changed = true; changed;) {
      changed = false;
      for (auto& [op, c] : calls) {
        auto take_back = [&](bool& blocked, bool keep) {
          if (blocked && !keep) {
            blocked = false;
            changed = true;
          }
        };
        if (c.y_blocked) take_back(c.y_blocked, ResultGoesToBlockedInputs(c, calls));
        if (c.x_blocked) take_back(c.x_blocked, InputIsBlockedResult(c, c.x, calls));
        if (c.z_blocked) take_back(c.z_blocked, InputIsBlockedResult(c, c.z, calls));
      }
    }
    for (auto& [op, c] : calls) {
      if (!c.x_blocked && !c.y_blocked && !c.z_blocked) continue;
      auto call = op->getAttrOfType<mlir::DictionaryAttr>("kiln.library_call");
      mlir::NamedAttrList fields(call);
      mlir::BoolAttr on = mlir::BoolAttr::get(op->getContext(), true);
      if (c.x_blocked) fields.set("x_blocked", on);
      if (c.y_blocked) fields.set("y_blocked", on);
      if (c.z_blocked) fields.set("z_blocked", on);
      op->setAttr("kiln.library_call", fields.getDictionary(op->getContext()));
    }
  }

  Option<bool> allow_tf32_{
      *this, "allow-tf32",
      llvm::cl::desc("Let f32 library calls use TF32 tensor cores (default: exact f32)"),
      llvm::cl::init(false)};
  Option<bool> blocked_activations_{
      *this, "blocked-activations",
      llvm::cl::desc("Keep the results of convolution calls that only other convolution calls "
                     "read in the cpu driver's blocked layout (cpu alone: cuDNN reads NCHW)"),
      llvm::cl::init(false)};
};

}  // namespace

std::unique_ptr<mlir::Pass> createSelectLibraryCallsPass(bool allow_tf32,
                                                         bool blocked_activations) {
  return std::make_unique<SelectLibraryCallsPass>(allow_tf32, blocked_activations);
}

}  // namespace kiln::compiler
