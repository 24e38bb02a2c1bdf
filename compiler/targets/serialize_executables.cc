// SerializeExecutables (--kiln-serialize-executables): each hand-authored
// hal.executable.source becomes a hal.executable holding one
// hal.executable.binary per executable format of the selected targets (the
// FlatBuffer the runtime's driver loads, as `data`) and the exports,
// unchanged: the host passes read their ordinals, layouts and workgroup
// counts, and the emission's debug table their names and sizes.
//
//   hal.executable.source private @ex attributes {objects = #hal.executable.objects<{
//       #hal.executable.target<"cuda", "cuda-nvptx-fb", {target_arch = "sm_80"}> =
//           [#hal.executable.object<{path = "k.ptx"}>]}>} {
//     hal.executable.export public @mul ordinal(0) layout(...)
//   }
// ->
//   hal.executable private @ex {
//     hal.executable.binary public @cuda_nvptx_fb attributes {
//         data = dense<...> : vector<Nxi8>, format = "cuda-nvptx-fb",
//         kiln.backend = "cuda", kiln.config = "target_arch = [sm_80]"}
//     hal.executable.export public @mul ordinal(0) layout(...)
//   }
//
// `kiln.backend` and `kiln.config` describe the variant in the module's
// executables debug table (kiln-dump-module). The format-level work (object
// lookup, ELF/PTX/SPIR-V checks, the FlatBuffers) is
// executable_serialization.h's. The targets are the pass's `targets` (kiln's
// or IREE's names), else those of the module's `hal.device.targets`, else
// every declared one. An executable left without a binary is an error at
// each use of it (a dispatch), not at the executable: one that nothing
// dispatches needs no variant.
//
// A source whose body holds a builtin.module has generated kernels
// (compiler/dispatch): they are compiled for each selected target
// (generated_kernels.h; the cpu when none is selected) into inline objects,
// then serialized the same way.
#include <algorithm>
#include <string>
#include <vector>

#include "compiler/dialects/hal/hal_dialect.h"
#include "compiler/targets/generated_kernels.h"
#include "compiler/targets/passes.h"
#include "llvm/Support/Path.h"
#include "llvm/Support/raw_ostream.h"
#include "mlir/IR/BuiltinOps.h"
#include "mlir/IR/SymbolTable.h"

namespace kiln::compiler {
namespace {

// The directory of the file the module was parsed from ("" for stdin or a
// module without a file location: the current directory).
std::string SourceDirectoryOf(mlir::ModuleOp module) {
  std::string directory;
  module->getLoc()->walk([&](mlir::Location loc) {
    if (auto file = llvm::dyn_cast<mlir::FileLineColLoc>(loc)) {
      llvm::StringRef name = file.getFilename().getValue();
      if (name != "<stdin>" && name != "-") directory = llvm::sys::path::parent_path(name).str();
      return mlir::WalkResult::interrupt();
    }
    return mlir::WalkResult::advance();
  });
  return directory;
}

// kiln target names of the executable targets the module's
// `hal.device.targets` name, or empty when it names none.
std::vector<std::string> DeviceTargetNames(mlir::ModuleOp module) {
  std::vector<std::string> names;
  auto devices = module->getAttrOfType<mlir::ArrayAttr>("hal.device.targets");
  if (!devices) return names;
  for (mlir::Attribute attr : devices) {
    auto device = llvm::dyn_cast<HAL::DeviceTargetAttr>(attr);
    if (!device) continue;
    for (HAL::ExecutableTargetAttr target : device.getExecutableTargets()) {
      std::string name = TargetNameOfBackend(target.getBackend().getValue());
      if (!name.empty() && std::find(names.begin(), names.end(), name) == names.end()) {
        names.push_back(name);
      }
    }
  }
  return names;
}

std::string ToText(mlir::Attribute attr) {
  std::string text;
  llvm::raw_string_ostream os(text);
  attr.print(os);
  return text;
}

// The bytes of an inline object: `dense<[...]> : vector<Nxi8>`.
mlir::FailureOr<std::vector<uint8_t>> InlineBytes(HAL::ExecutableSourceOp op,
                                                  mlir::ElementsAttr data) {
  auto dense = llvm::dyn_cast<mlir::DenseIntElementsAttr>(data);
  if (!dense || dense.getElementType().getIntOrFloatBitWidth() != 8) {
    return op.emitError("executable '")
           << op.getSymName() << "': inline object data must be dense<[...]> : vector<Nxi8>, got "
           << data.getType();
  }
  std::vector<uint8_t> bytes;
  bytes.reserve(dense.getNumElements());
  for (const llvm::APInt& value : dense.getValues<llvm::APInt>()) {
    bytes.push_back(static_cast<uint8_t>(value.getZExtValue()));
  }
  return bytes;
}

// Reads the source op into the format-level description.
mlir::FailureOr<ExecutableInfo> DescribeExecutable(HAL::ExecutableSourceOp op) {
  ExecutableInfo info;
  info.name = op.getSymName().str();
  int64_t position = 0;
  for (HAL::ExecutableExportOp export_op : op.getExportOps()) {
    ExportInfo e;
    e.name = export_op.getSymName().str();
    std::optional<llvm::APInt> ordinal = export_op.getOrdinal();
    e.ordinal = static_cast<uint32_t>(ordinal ? ordinal->getZExtValue() : position);
    ++position;
    HAL::PipelineLayoutAttr layout = export_op.getLayout();
    e.constants = static_cast<uint32_t>(layout.getConstants());
    for (HAL::PipelineBindingAttr binding : layout.getBindings()) {
      e.read_only.push_back(binding.isReadOnly());
    }
    if (auto call = export_op->getAttrOfType<mlir::DictionaryAttr>("kiln.library_call")) {
      LibraryCallInfo library;
      for (mlir::NamedAttribute field : call) {
        llvm::StringRef name = field.getName().getValue();
        mlir::Attribute value = field.getValue();
        auto text = llvm::dyn_cast<mlir::StringAttr>(value);
        if (name == "kind" && text) {
          library.kind = text.str();
        } else if (name == "element_type" && text) {
          library.element_type = text.str();
        } else if (name == "activation" && text) {
          library.activation = text.str();
        } else if (auto flag = llvm::dyn_cast<mlir::BoolAttr>(value)) {
          if (name == "generated_on_gpu") {
            library.generated_on_gpu = flag.getValue();  // The target's choice, not a field.
          } else {
            library.fields[name.str()] = flag.getValue() ? 1 : 0;
          }
        } else if (auto number = llvm::dyn_cast<mlir::IntegerAttr>(value)) {
          library.fields[name.str()] = number.getInt();
        } else {
          return export_op.emitError("kiln.library_call field '")
                 << name << "' must be an integer or a bool, got " << value;
        }
      }
      e.library_call = std::move(library);
    }
    e.workgroup_size_declared = static_cast<bool>(export_op.getWorkgroupSizeAttr());
    llvm::SmallVector<int64_t, 3> size = export_op.getWorkgroupSizeValues();
    for (size_t i = 0; i < 3 && i < size.size(); ++i) {
      e.workgroup_size[i] = static_cast<uint32_t>(size[i]);
    }
    info.exports.push_back(std::move(e));
  }
  std::stable_sort(info.exports.begin(), info.exports.end(),
                   [](const ExportInfo& a, const ExportInfo& b) { return a.ordinal < b.ordinal; });

  HAL::ExecutableObjectsAttr objects = op.getObjectsAttr();
  if (!objects) return info;
  if (GeneratedKernelsOf(op)) {
    return op.emitError("executable '")
           << op.getSymName() << "' has both objects and generated kernels";
  }
  for (auto [target_attr, objects_attr] :
       llvm::zip_equal(objects.getTargets(), objects.getTargetObjects())) {
    auto target = llvm::cast<HAL::ExecutableTargetAttr>(target_attr);
    TargetObjects out;
    out.backend = target.getBackend().str();
    out.format = target.getFormat().str();
    if (auto arch =
            llvm::dyn_cast_or_null<mlir::StringAttr>(target.getConfigurationAttr("target_arch"))) {
      out.target_arch = arch.str();
    }
    if (mlir::DictionaryAttr config = target.getConfiguration()) out.config_text = ToText(config);
    for (mlir::Attribute attr : llvm::cast<mlir::ArrayAttr>(objects_attr)) {
      auto object = llvm::cast<HAL::ExecutableObjectAttr>(attr);
      ObjectSource source;
      // Inline data wins over a path (IREE keeps the path for reference).
      if (mlir::ElementsAttr data = object.getData()) {
        mlir::FailureOr<std::vector<uint8_t>> bytes = InlineBytes(op, data);
        if (mlir::failed(bytes)) return mlir::failure();
        source.data = std::move(*bytes);
      } else if (mlir::StringAttr path = object.getPath()) {
        source.path = path.str();
      }
      out.objects.push_back(std::move(source));
    }
    info.targets.push_back(std::move(out));
  }
  return info;
}

// Compiles the generated kernels of `op` (if it has any) for each selected
// target, as inline objects of `info`. With no target selected, they are
// compiled for the cpu.
mlir::LogicalResult CompileGenerated(HAL::ExecutableSourceOp op, const ObjectSearch& search,
                                     ExecutableInfo& info) {
  mlir::ModuleOp kernels = GeneratedKernelsOf(op);
  if (!kernels) return mlir::success();
  std::vector<std::string> targets = search.selected_targets;
  if (targets.empty()) targets.push_back("cpu");
  for (const std::string& target : targets) {
    Result<TargetObjects> objects = CompileGeneratedKernels(kernels, target);
    if (!objects.ok()) {
      return op.emitError("executable '")
             << op.getSymName() << "' for " << target << ": " << objects.status().message();
    }
    info.targets.push_back(std::move(*objects));
  }
  return mlir::success();
}

// The binary's symbol: its format with '-' as '_' ("cuda_nvptx_fb").
std::string BinarySymbol(const std::string& format) {
  std::string symbol = format;
  std::replace(symbol.begin(), symbol.end(), '-', '_');
  return symbol;
}

// Replaces `op` by a hal.executable with `variants` and op's exports.
HAL::ExecutableOp Rewrite(HAL::ExecutableSourceOp op,
                          const std::vector<SerializedExecutable>& variants) {
  mlir::OpBuilder builder(op);
  auto executable = HAL::ExecutableOp::create(builder, op.getLoc(), op.getSymVisibilityAttr(),
                                              op.getSymNameAttr());
  mlir::Block& block = executable.getBody().emplaceBlock();
  builder.setInsertionPointToEnd(&block);
  mlir::Type i8 = builder.getIntegerType(8);
  for (const SerializedExecutable& variant : variants) {
    auto type = mlir::VectorType::get({static_cast<int64_t>(variant.bytes.size())}, i8);
    auto data = mlir::DenseElementsAttr::getFromRawBuffer(
        type, llvm::ArrayRef<char>(reinterpret_cast<const char*>(variant.bytes.data()),
                                   variant.bytes.size()));
    auto binary = HAL::ExecutableBinaryOp::create(
        builder, op.getLoc(), builder.getStringAttr("public"),
        builder.getStringAttr(BinarySymbol(variant.format)), builder.getStringAttr(variant.format),
        llvm::cast<mlir::ElementsAttr>(data), mlir::StringAttr());
    binary->setAttr("kiln.backend", builder.getStringAttr(variant.backend));
    if (!variant.config_text.empty()) {
      binary->setAttr("kiln.config", builder.getStringAttr(variant.config_text));
    }
  }
  // The exports stay; the generated kernels are in the binaries now.
  for (mlir::Operation& child : llvm::make_early_inc_range(op.getBlock())) {
    if (llvm::isa<mlir::ModuleOp>(child)) continue;
    child.moveBefore(&block, block.end());
  }
  op.erase();
  return executable;
}

class SerializeExecutablesPass
    : public mlir::PassWrapper<SerializeExecutablesPass, mlir::OperationPass<mlir::ModuleOp>> {
 public:
  MLIR_DEFINE_EXPLICIT_INTERNAL_INLINE_TYPE_ID(SerializeExecutablesPass)

  SerializeExecutablesPass() = default;
  SerializeExecutablesPass(const SerializeExecutablesPass& other)
      : PassWrapper(other), read_object_(other.read_object_) {}
  explicit SerializeExecutablesPass(SerializeExecutablesOptions options)
      : read_object_(std::move(options.read_object)) {
    targets_ = options.targets;
    search_paths_ = options.object_search_paths;
    source_directory_ = options.source_directory;
  }

  llvm::StringRef getArgument() const final { return "kiln-serialize-executables"; }
  llvm::StringRef getDescription() const final {
    return "Serializes each hal.executable.source's objects into a hal.executable with one "
           "hal.executable.binary per executable format";
  }
  void getDependentDialects(mlir::DialectRegistry& registry) const final {
    registry.insert<HAL::HALDialect>();
  }

  void runOnOperation() final {
    mlir::ModuleOp module = getOperation();
    Result<std::vector<std::string>> targets =
        NormalizeTargetNames(std::vector<std::string>(targets_.begin(), targets_.end()));
    if (!targets.ok()) {
      module.emitError(targets.status().message());
      return signalPassFailure();
    }
    ObjectSearch search;
    search.source_directory =
        source_directory_.empty() ? SourceDirectoryOf(module) : std::string(source_directory_);
    search.search_paths.assign(search_paths_.begin(), search_paths_.end());
    search.selected_targets = targets->empty() ? DeviceTargetNames(module) : *targets;
    search.read_object = read_object_;

    // Collected first: rewriting inserts ops into the module's block.
    llvm::SmallVector<HAL::ExecutableSourceOp> sources(module.getOps<HAL::ExecutableSourceOp>());
    bool failed = false;
    llvm::SmallVector<HAL::ExecutableOp> without_variants;
    for (HAL::ExecutableSourceOp op : sources) {
      mlir::FailureOr<ExecutableInfo> info = DescribeExecutable(op);
      if (mlir::succeeded(info) && mlir::failed(CompileGenerated(op, search, *info))) {
        info = mlir::failure();
      }
      if (mlir::failed(info)) {
        failed = true;
        continue;
      }
      Result<std::vector<SerializedExecutable>> variants = SerializeExecutable(*info, search);
      if (!variants.ok()) {
        // The message names the executable and, where one is at fault, the
        // target and object; every executable is reported.
        op.emitError(variants.status().message());
        failed = true;
        continue;
      }
      HAL::ExecutableOp executable = Rewrite(op, *variants);
      if (variants->empty()) without_variants.push_back(executable);
    }
    for (HAL::ExecutableOp executable : without_variants) {
      std::optional<mlir::SymbolTable::UseRange> uses =
          mlir::SymbolTable::getSymbolUses(executable.getSymNameAttr(), module);
      if (!uses) continue;
      for (const mlir::SymbolTable::SymbolUse& use : *uses) {
        use.getUser()->emitError("dispatch to executable '@")
            << executable.getSymName() << "', which has no variant for the selected targets";
        failed = true;
      }
    }
    if (failed) signalPassFailure();
  }

 private:
  ListOption<std::string> targets_{
      *this, "targets",
      llvm::cl::desc("Targets to embed: cpu (llvm-cpu), cuda, vulkan (vulkan-spirv); default: "
                     "the module's hal.device.targets, else every declared target")};
  ListOption<std::string> search_paths_{
      *this, "object-search-paths",
      llvm::cl::desc("Directories searched for relative object paths after the source's")};
  Option<std::string> source_directory_{
      *this, "source-directory",
      llvm::cl::desc("Where relative object paths start (default: the .mlir file's directory)")};
  std::function<Result<std::vector<uint8_t>>(const std::string&)> read_object_ = nullptr;
};

}  // namespace

Result<std::vector<std::string>> NormalizeTargetNames(const std::vector<std::string>& names) {
  std::vector<std::string> normalized;
  for (const std::string& name : names) {
    if (name.empty()) continue;  // `--target=cpu,` lists nothing after the comma.
    std::string target = TargetNameOfBackend(name);
    if (target.empty()) {
      return InvalidArgumentError("unknown target '" + name + "' (targets: cpu, cuda, vulkan)");
    }
    if (std::find(normalized.begin(), normalized.end(), target) == normalized.end()) {
      normalized.push_back(target);
    }
  }
  return normalized;
}

std::unique_ptr<mlir::Pass> createSerializeExecutablesPass(SerializeExecutablesOptions options) {
  return std::make_unique<SerializeExecutablesPass>(std::move(options));
}

void registerSerializeExecutablesPass() { mlir::PassRegistration<SerializeExecutablesPass>(); }

}  // namespace kiln::compiler
