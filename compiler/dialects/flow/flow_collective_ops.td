// The flow dialect's collective ops, in IREE's spelling: channels (the
// group a program runs in, split into subgroups) and the collectives that
// run over them on tensors. Syntax and verification are in
// flow_collectives.cc; the enums and !flow.channel in flow_base.td.
//
// A collective writes a new tensor of the target's type. Tied
// (`-> %target as tensor<...>`), the result is the target's storage,
// written in place as a tied flow.dispatch result is; untied
// (`-> tensor<...>`), the target only gives the result's type and dims.
// `{%dims}` after the result type are the target's dynamic dimensions; the
// source's come with the source.
//
// Collectives communicate: every participant of the channel must run the
// same collectives on it in the same order, so none of them is ever
// removed or reordered as dead code, even when its result is unused.
#ifndef KILN_COMPILER_DIALECTS_FLOW_FLOW_COLLECTIVE_OPS
#define KILN_COMPILER_DIALECTS_FLOW_FLOW_COLLECTIVE_OPS

include "compiler/dialects/flow/flow_base.td"
include "mlir/IR/OpAsmInterface.td"
include "mlir/Interfaces/SideEffectInterfaces.td"

//===----------------------------------------------------------------------===//
// Channels
//===----------------------------------------------------------------------===//

def Flow_ChannelDefaultOp : Op<Flow_Dialect, "channel.default", [
  Pure, DeclareOpInterfaceMethods<OpAsmOpInterface, ["getAsmResultNames"]>,
]> {
  let summary = "The channel of the group the program runs in.";
  let description = [{
    ```mlir
    %channel = flow.channel.default : !flow.channel
    %tp = flow.channel.default "tensor_parallel" : !flow.channel
    ```
    The group the runtime was started in (kiln-run-module's rank and world
    size; a group of one by default). Each distinct `group` name is its own
    channel over those participants, made once per program instance.
  }];
  let arguments = (ins OptionalAttr<StrAttr>:$group);
  let results = (outs Flow_Channel:$result);
  let assemblyFormat = "($group^)? `:` type($result) attr-dict-with-keyword";
}

def Flow_ChannelSplitOp : Op<Flow_Dialect, "channel.split", [
  DeclareOpInterfaceMethods<OpAsmOpInterface, ["getAsmResultNames"]>,
]> {
  let summary = "Partitions a channel's group into subgroups.";
  let description = [{
    ```mlir
    %row = flow.channel.split %channel, %color, %key : !flow.channel -> !flow.channel
    ```
    The participants that pass the same `color` form one subgroup, ranked
    by `key` (ties by their rank in `channel`). A color of -1 leaves the
    participant out of every subgroup (it gets no channel). Every
    participant of `channel` must split it, at run time, in the same order
    relative to its other splits and collectives.
  }];
  let arguments = (ins Flow_Channel:$channel, Index:$color, Index:$key);
  let results = (outs Flow_Channel:$result);
  let assemblyFormat = [{
    $channel `,` $color `,` $key `:` type($channel) `->` type($result) attr-dict-with-keyword
  }];
}

def Flow_ChannelRankOp : Op<Flow_Dialect, "channel.rank", [
  Pure, DeclareOpInterfaceMethods<OpAsmOpInterface, ["getAsmResultNames"]>,
]> {
  let summary = "This participant's rank in the channel's group, in [0, count).";
  let description = [{
    ```mlir
    %rank = flow.channel.rank %channel : index
    ```
  }];
  let arguments = (ins Flow_Channel:$channel);
  let results = (outs Index:$result);
  let assemblyFormat = "$channel `:` type($result) attr-dict-with-keyword";
}

def Flow_ChannelCountOp : Op<Flow_Dialect, "channel.count", [
  Pure, DeclareOpInterfaceMethods<OpAsmOpInterface, ["getAsmResultNames"]>,
]> {
  let summary = "The number of participants in the channel's group.";
  let description = [{
    ```mlir
    %count = flow.channel.count %channel : index
    ```
  }];
  let arguments = (ins Flow_Channel:$channel);
  let results = (outs Index:$result);
  let assemblyFormat = "$channel `:` type($result) attr-dict-with-keyword";
}

//===----------------------------------------------------------------------===//
// Collectives
//===----------------------------------------------------------------------===//

// `leading` arguments come before the element type (the reduction),
// `trailing` ones after the channel (send_recv's ranks). `tied`: the result
// is written into the target's storage.
class Flow_CollectiveOp<string mnemonic, string summaryText, dag leading = (ins),
                        dag trailing = (ins)>
    : Op<Flow_Dialect, mnemonic, [AllTypesMatch<["target", "result"]>]> {
  let summary = summaryText;
  let arguments = !con(
    leading,
    (ins
      Flow_CollectiveElementType:$element_type,
      AnyRankedTensor:$target,
      Variadic<Index>:$target_dims,
      AnyRankedTensor:$source,
      Flow_Channel:$channel),
    trailing,
    (ins UnitAttr:$tied));
  let results = (outs AnyRankedTensor:$result);
  let hasCustomAssemblyFormat = 1;
  let hasVerifier = 1;
}

class Flow_ReducingCollectiveOp<string mnemonic, string summaryText>
    : Flow_CollectiveOp<mnemonic, summaryText,
                        (ins Flow_CollectiveReductionOp:$reduction_op)>;

def Flow_CollectiveAllReduceOp
    : Flow_ReducingCollectiveOp<"collective.all_reduce",
                                "Reduces the source over all participants."> {
  let description = [{
    ```mlir
    %r = flow.collective.all_reduce sum, f32, %empty, %input, %channel
        : (tensor<4xf32>, tensor<4xf32>, !flow.channel) -> %empty as tensor<4xf32>
    %m = flow.collective.all_reduce maximum, si32, %init, %x, %channel
        : (tensor<?xi32>, tensor<?xi32>, !flow.channel) -> tensor<?xi32>{%n}
    ```
    Every participant gets the elementwise reduction (sum, product,
    minimum, maximum or average) of all participants' sources; source and
    target have the same shape.
  }];
}

def Flow_CollectiveAllGatherOp
    : Flow_CollectiveOp<"collective.all_gather",
                        "Concatenates all participants' sources along dimension 0."> {
  let description = [{
    ```mlir
    %g = flow.collective.all_gather f32, %empty, %input, %channel
        : (tensor<8x4xf32>, tensor<2x4xf32>, !flow.channel) -> %empty as tensor<8x4xf32>
    ```
    The target's dimension 0 is the source's times the participant count
    (checked at run time); the other dimensions are the source's. Rank r's
    source is the r-th slice of the target.
  }];
}

def Flow_CollectiveReduceScatterOp
    : Flow_ReducingCollectiveOp<"collective.reduce_scatter",
                                "Reduces over all participants; each keeps its slice."> {
  let description = [{
    ```mlir
    %s = flow.collective.reduce_scatter sum, f32, %empty, %input, %channel
        : (tensor<2x2xf32>, tensor<4x2xf32>, !flow.channel) -> tensor<2x2xf32>
    ```
    The source's dimension 0 is the target's times the participant count
    (checked at run time); rank r gets slice r of the reduction.
  }];
}

def Flow_CollectiveAllToAllOp
    : Flow_CollectiveOp<"collective.all_to_all",
                        "Exchanges equal chunks among all participants."> {
  let description = [{
    ```mlir
    %t = flow.collective.all_to_all f32, %empty, %input, %channel
        : (tensor<1024xf32>, tensor<1024xf32>, !flow.channel) -> tensor<1024xf32>
    ```
    The source is cut into count equal chunks (its element count must be a
    multiple of the participant count: checked at run time); chunk r of the
    target is chunk `rank` of participant r's source. Source and target
    have the same number of elements.
  }];
}

def Flow_CollectiveSendRecvOp
    : Flow_CollectiveOp<"collective.send_recv",
                        "Sends the source to one participant, receives from another.",
                        (ins), (ins Index:$send, Index:$recv)> {
  let description = [{
    ```mlir
    %x = flow.collective.send_recv f32, %empty, %input, %channel, %send, %recv
        : (tensor<1024xf32>, tensor<1024xf32>, !flow.channel, index, index)
        -> tensor<1024xf32>
    ```
    Sends the source to rank `send` and receives the target from rank
    `recv`; -1 sends nothing, or receives zeros. Source and target have the
    same shape.
  }];
}

#endif  // KILN_COMPILER_DIALECTS_FLOW_FLOW_COLLECTIVE_OPS
