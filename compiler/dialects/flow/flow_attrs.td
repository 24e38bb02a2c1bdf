// The flow dialect's attributes, in IREE's spelling. Parser, printer and
// verifier are in flow_attrs.cc.
#ifndef KILN_COMPILER_DIALECTS_FLOW_FLOW_ATTRS
#define KILN_COMPILER_DIALECTS_FLOW_FLOW_ATTRS

include "compiler/dialects/flow/flow_base.td"
include "mlir/IR/BuiltinAttributeInterfaces.td"

class Flow_AttrDef<string name, list<Trait> traits = []>
    : AttrDef<Flow_Dialect, name, traits>;

def Flow_ParameterNamedAttr : Flow_AttrDef<"ParameterNamed", [TypedAttrInterface]> {
  let mnemonic = "parameter.named";
  let summary = "A tensor's value kept outside the program: a named parameter.";
  let description = [{
    ```mlir
    util.global private @"fc.weight" =
        #flow.parameter.named<"model"::"fc.weight"> : tensor<1024x1024xf32>
    util.global private @w = #flow.parameter.named<"w"> : tensor<4xf32>
    ```
    The value of key `key` in the parameters of scope `scope` (an empty
    scope when only the key is given, as in IREE), provided when the program
    runs (kiln-run-module --parameters=scope=file.safetensors): the
    ONNX importer keeps large initializers out of the program this way. As
    the initial value of a util.global of a static tensor type, the module
    initializer fills the global's buffer from the parameter once per
    context (hal.allocator.allocate.parameter); the runtime checks that the
    stored tensor has the global's element type and shape.
  }];
  let parameters = (ins
    AttributeSelfTypeParameter<"">:$type,
    "::mlir::StringAttr":$scope,
    "::mlir::StringAttr":$key
  );
  let builders = [
    AttrBuilderWithInferredContext<(ins "::mlir::Type":$type,
                                        "::mlir::StringAttr":$scope,
                                        "::mlir::StringAttr":$key), [{
      return $_get(type.getContext(), type, scope, key);
    }]>
  ];
  let hasCustomAssemblyFormat = 1;
  let genVerifyDecl = 1;
}

#endif  // KILN_COMPILER_DIALECTS_FLOW_FLOW_ATTRS
