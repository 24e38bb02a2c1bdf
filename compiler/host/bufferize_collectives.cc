// The Bufferizer's channels and collectives (bufferizer.h): the flow ops of
// flow_collective_ops.td into hal channels and collective commands.
//
// Channels: !flow.channel values become !hal.channel ones everywhere
// (arguments, results, calls). A flow.channel.default is a channel made
// once per context, like the device and the executables: an immutable
// global per distinct group, joined by the module initializer
//
//   %channel = flow.channel.default "tp" : !flow.channel
// becomes
//   util.global private @__hal_channel_tp : !hal.channel
//   util.initializer {             (the one that sets the device)
//     %channel = hal.channel.default device(%device : !hal.device) group("tp") : !hal.channel
//     util.global.store %channel, @__hal_channel_tp : !hal.channel
//   }
//   %channel = util.global.load immutable @__hal_channel_tp : !hal.channel
//
// while splits, ranks and counts run where they are, at every call
// (hal.channel.split of i32 color and key; hal.channel.rank_and_count, its
// i32 results cast to index).
//
// Collectives: each is a collective command in its own one-shot submission
// (scheduling merges it with its neighbours, memoization records it once
// where it is static), reading the source's buffer and writing the
// result's:
//
//   %r = flow.collective.all_reduce sum, f32, %t, %x, %channel
//       : (tensor<4xf32>, tensor<4xf32>, !flow.channel) -> %t as tensor<4xf32>
// becomes
//   %cmd = hal.command_buffer.create device(%device : !hal.device) mode(OneShot)
//   hal.command_buffer.collective<%cmd : !hal.command_buffer>
//       channel(%channel : !hal.channel) op(<all_reduce with sum : f32>)
//       send(%x_buffer : !hal.buffer)[%c0, %c16] recv(%t_buffer : !hal.buffer)[%c0, %c16]
//       count(%c4)
//   ... finalize, execute, await (as a dispatch's)
//
// The result's storage: a tied result (`-> %t as ...`) is the target's
// buffer, as a tied dispatch result is; an untied one is too when the
// target is a tensor.empty that nothing else reads (its contents are
// overwritten, so nobody could tell); otherwise a new buffer. A read-only
// target (an immutable global's), and one that is the source's buffer for
// a collective other than all_reduce (the only one the HAL runs in place),
// also get a new buffer: the collective writes every element of it, so
// nothing is copied. The byte lengths are the tensors' (the runtime checks
// them against the element count and the channel's participant count: an
// all_gather target of the wrong size fails there), and a buffer that may
// hold less than its tensor's dims say is asserted first, as dispatch
// operands are.
//
// The command's element count, computed on the host from the (possibly
// dynamic) dims: the target's elements for reduce_scatter, the source's for
// the others (hal/collective.h's table).
#include <string>

#include "compiler/dialects/flow/flow_dialect.h"
#include "compiler/dialects/hal/hal_dialect.h"
#include "compiler/dialects/source_location.h"
#include "compiler/dialects/util/util_dialect.h"
#include "compiler/host/bufferizer.h"
#include "compiler/host/host_utils.h"
#include "llvm/ADT/StringExtras.h"
#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"

namespace kiln::compiler::bufferize {

bool IsChannelOp(Operation* op) {
  return llvm::isa<Flow::ChannelDefaultOp, Flow::ChannelSplitOp, Flow::ChannelRankOp,
                   Flow::ChannelCountOp>(op);
}

namespace {

// Whether `state`'s buffer is known to hold the bytes of `declared` (dims of
// `state`'s element type): the same dim values, or constants no larger.
bool HoldsDeclared(const TensorState& state, Type element_type, llvm::ArrayRef<Value> declared) {
  if (!state.sized || state.type.getElementType() != element_type ||
      state.dims.size() != declared.size()) {
    return false;
  }
  for (auto [have, want] : llvm::zip(state.dims, declared)) {
    std::optional<int64_t> have_value = host::ConstantIntOf(have);
    std::optional<int64_t> want_value = host::ConstantIntOf(want);
    if (have != want && !(have_value && want_value && *have_value >= *want_value)) return false;
  }
  return true;
}

// `_tp` for group "tp" in a symbol name (other characters as `_`).
std::string GroupSuffix(llvm::StringRef group) {
  std::string suffix;
  for (char c : group) suffix += llvm::isAlnum(c) ? c : '_';
  return suffix.empty() ? suffix : "_" + suffix;
}

}  // namespace

bool UsesChannels(Operation* root) {
  return root
      ->walk([](Operation* op) {
        return IsChannelOp(op) ? mlir::WalkResult::interrupt() : mlir::WalkResult::advance();
      })
      .wasInterrupted();
}

void Bufferizer::RetypeChannels() {
  const Type channel = HAL::ChannelType::get(module_.getContext());
  auto retype = [&](Type type) { return llvm::isa<Flow::ChannelType>(type) ? channel : type; };
  module_.walk([&](Operation* op) {
    for (mlir::Region& region : op->getRegions()) {
      for (mlir::Block& block : region) {
        for (mlir::BlockArgument arg : block.getArguments()) arg.setType(retype(arg.getType()));
      }
    }
    for (Value result : op->getResults()) result.setType(retype(result.getType()));
    if (auto func = llvm::dyn_cast<mlir::func::FuncOp>(op)) {
      mlir::FunctionType type = func.getFunctionType();
      llvm::SmallVector<Type> inputs, results;
      for (Type t : type.getInputs()) inputs.push_back(retype(t));
      for (Type t : type.getResults()) results.push_back(retype(t));
      auto retyped = mlir::FunctionType::get(op->getContext(), inputs, results);
      if (retyped == type) return;
      // The source-level signature stays the ABI type (as for tensors).
      if (!func->hasAttr("kiln.abi_type"))
        func->setAttr("kiln.abi_type", mlir::TypeAttr::get(type));
      func.setFunctionType(retyped);
    } else if (auto global = llvm::dyn_cast<Util::GlobalOp>(op)) {
      global.setType(retype(global.getType()));
    }
  });
}

llvm::StringRef Bufferizer::ChannelGlobal(llvm::StringRef group, Location loc) {
  for (const ChannelGlobalInfo& channel : channel_globals_) {
    if (channel.group == group) return channel.global;
  }
  std::string name = host::UniqueSymbolName(symbols_, "__hal_channel" + GroupSuffix(group));
  OpBuilder b = OpBuilder::atBlockEnd(module_.getBody());
  symbols_.insert(Util::GlobalOp::create(b, loc, name, b.getStringAttr("private"),
                                         HAL::ChannelType::get(b.getContext()),
                                         /*is_mutable=*/false, nullptr));
  channel_globals_.push_back({group.str(), std::move(name), loc});
  return channel_globals_.back().global;
}

void Bufferizer::InitializeChannels(OpBuilder& b, Value device) {
  for (const ChannelGlobalInfo& channel : channel_globals_) {
    Value joined = HAL::ChannelDefaultOp::create(
        b, channel.loc, HAL::ChannelType::get(b.getContext()), device,
        channel.group.empty() ? mlir::StringAttr() : b.getStringAttr(channel.group));
    Util::GlobalStoreOp::create(b, channel.loc, joined, channel.global);
  }
}

void Bufferizer::LowerChannelOp(Operation* op) {
  const Location loc = op->getLoc();
  OpBuilder b(op);
  const Type channel_type = HAL::ChannelType::get(op->getContext());
  Value replacement;
  if (auto channel = llvm::dyn_cast<Flow::ChannelDefaultOp>(op)) {
    replacement = Util::GlobalLoadOp::create(b, loc, channel_type,
                                             ChannelGlobal(channel.getGroup().value_or(""), loc),
                                             /*is_immutable=*/true);
  } else if (auto split = llvm::dyn_cast<Flow::ChannelSplitOp>(op)) {
    Value color = mlir::arith::IndexCastOp::create(b, loc, b.getI32Type(), split.getColor());
    Value key = mlir::arith::IndexCastOp::create(b, loc, b.getI32Type(), split.getKey());
    replacement = HAL::ChannelSplitOp::create(b, loc, channel_type, split.getChannel(), color, key);
  } else {
    const bool rank = llvm::isa<Flow::ChannelRankOp>(op);
    auto query = HAL::ChannelRankAndCountOp::create(b, loc, b.getI32Type(), b.getI32Type(),
                                                    op->getOperand(0));
    replacement = mlir::arith::IndexCastOp::create(b, loc, b.getIndexType(),
                                                   rank ? query.getRank() : query.getCount());
  }
  op->getResult(0).replaceAllUsesWith(replacement);
  erased_.push_back(op);
}

void Bufferizer::LowerCollective(Operation* op) {
  const Flow::Collective c = *Flow::GetCollective(op);
  const Location loc = op->getLoc();
  mlir::MLIRContext* context = op->getContext();
  OpBuilder b(op);
  erased_.push_back(op);
  poisoned_.insert(c.result);
  TensorState* source = StateOf(op, c.source);
  TensorState* target = StateOf(op, c.target);
  if (!source || !target) return;
  const auto target_type = llvm::cast<RankedTensorType>(c.target.getType());
  const Type element_type = target_type.getElementType();
  const llvm::StringRef kind = HAL::stringifyCollectiveKind(c.kind);

  // The declared dims: the target's in the op, the source's its own.
  llvm::SmallVector<Value> target_dims;
  size_t next_dim = 0;
  for (int64_t i = 0; i < target_type.getRank(); ++i) {
    target_dims.push_back(target_type.isDynamicDim(i)
                              ? c.target_dims[next_dim++]
                              : host::IndexConstant(b, loc, target_type.getDimSize(i)));
  }
  const Value source_length = ByteLength(b, loc, element_type, source->dims);
  const Value target_length = ByteLength(b, loc, element_type, target_dims);
  auto assert_holds = [&](Value buffer, Value length, llvm::StringRef what, Type type) {
    std::string message = function_name_ + ": the " + what.str() + " (" + TypeText(type) +
                          ") of the " + kind.str() + " collective";
    const std::string where = SourceLocationText(loc);
    if (!where.empty()) message += " at " + where;
    HAL::BufferAssertOp::create(b, loc, buffer, b.getStringAttr(message), length);
  };
  if (!source->sized) {
    assert_holds(source->buffer, source_length, "source", c.source.getType());
  }

  // Where the result goes (see the top of the file).
  const bool overlaps_source =
      target->buffer == source->buffer && c.kind != HAL::CollectiveKind::AllReduce;
  auto empty = c.target.getDefiningOp<mlir::tensor::EmptyOp>();
  const bool target_is_scratch = empty && c.target.hasOneUse();
  Value result_buffer;
  if ((c.tied || target_is_scratch) && !target->read_only && !overlaps_source) {
    result_buffer = target->buffer;
    if (!HoldsDeclared(*target, element_type, target_dims)) {
      assert_holds(target->buffer, target_length, "target", target_type);
    }
  } else {
    result_buffer = Allocate(b, loc, target_length);
  }

  // The elements the command counts: reduce_scatter's target, the others'
  // source.
  llvm::ArrayRef<Value> counted = c.kind == HAL::CollectiveKind::ReduceScatter
                                      ? llvm::ArrayRef<Value>(target_dims)
                                      : llvm::ArrayRef<Value>(source->dims);
  Value element_count = host::IndexConstant(b, loc, 1);
  for (Value dim : counted) element_count = mlir::arith::MulIOp::create(b, loc, element_count, dim);

  // flow's enums and hal's spell their cases alike.
  auto collective = HAL::CollectiveAttr::get(
      context, c.kind,
      *HAL::symbolizeCollectiveReduction(Flow::stringifyCollectiveReductionOp(c.reduction)),
      *HAL::symbolizeCollectiveElementType(Flow::stringifyCollectiveElementType(c.element_type)));
  Value send_rank, recv_rank;
  if (c.send_rank) {
    send_rank = mlir::arith::IndexCastOp::create(b, loc, b.getI32Type(), c.send_rank);
    recv_rank = mlir::arith::IndexCastOp::create(b, loc, b.getI32Type(), c.recv_rank);
  }
  Submit(b, loc, device_, [&](Value cmd) {
    Value zero = host::IndexConstant(b, loc, 0);
    HAL::CommandBufferCollectiveOp::create(b, loc, cmd, c.channel, collective, send_rank, recv_rank,
                                           source->buffer, zero, source_length, result_buffer, zero,
                                           target_length, element_count);
  });

  TensorState state;
  state.type = target_type;
  state.buffer = result_buffer;
  state.dims = std::move(target_dims);
  poisoned_.erase(c.result);
  tensors_[c.result] = std::move(state);
}

}  // namespace kiln::compiler::bufferize
