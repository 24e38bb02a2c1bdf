#include "compiler/targets/library_call_serialization.h"

#include <limits>
#include <set>
#include <string>

namespace kiln::compiler {
namespace {

namespace lib = ::kiln::schema::library;

// Reads an export's call fields; remembers the first error.
class Fields {
 public:
  explicit Fields(const ExportInfo& e) : e_(e), call_(*e.library_call) {}

  // A size or stride: present (unless `fallback` is given), at least `min`.
  int64_t Number(const std::string& name, int64_t min, int64_t max,
                 std::optional<int64_t> fallback = std::nullopt) {
    used_.insert(name);
    auto it = call_.fields.find(name);
    if (it == call_.fields.end()) {
      if (fallback) return *fallback;
      Fail("has no field '" + name + "'");
      return min;
    }
    if (it->second < min || it->second > max) {
      Fail("field '" + name + "' = " + std::to_string(it->second) + " is outside [" +
           std::to_string(min) + ", " + std::to_string(max) + "]");
      return min;
    }
    return it->second;
  }
  uint32_t Size(const std::string& name, std::optional<int64_t> fallback = std::nullopt) {
    return static_cast<uint32_t>(Number(name, 1, std::numeric_limits<uint32_t>::max(), fallback));
  }
  uint64_t Stride(const std::string& name) {
    return static_cast<uint64_t>(Number(name, 0, std::numeric_limits<int64_t>::max(), 0));
  }
  bool Flag(const std::string& name) { return Number(name, 0, 1, 0) != 0; }
  // A binding ordinal of the export's layout; -1 when optional and absent.
  int32_t Binding(const std::string& name, bool required) {
    const int64_t count = static_cast<int64_t>(e_.read_only.size());
    int64_t ordinal = Number(name, 0, count - 1, required ? std::nullopt : std::optional(-1));
    return static_cast<int32_t>(ordinal);
  }

  lib::LibraryElementType ElementType() {
    if (call_.element_type == "f32") return lib::LibraryElementType::F32;
    if (call_.element_type == "f16") return lib::LibraryElementType::F16;
    if (call_.element_type == "bf16") return lib::LibraryElementType::BF16;
    Fail("element_type '" + call_.element_type + "' is not f32, f16 or bf16");
    return lib::LibraryElementType::F32;
  }
  lib::LibraryActivation Activation() {
    if (call_.activation == "none") return lib::LibraryActivation::None;
    if (call_.activation == "relu") return lib::LibraryActivation::Relu;
    if (call_.activation == "gelu_tanh") return lib::LibraryActivation::GeluTanh;
    Fail("activation '" + call_.activation + "' is not none, relu or gelu_tanh");
    return lib::LibraryActivation::None;
  }

  // The first error, or one naming a field the call's kind does not have.
  Status Finish() {
    for (const auto& [name, value] : call_.fields) {
      if (!used_.count(name)) Fail("has an unknown field '" + name + "'");
    }
    return status_;
  }
  void Fail(const std::string& what) {
    if (status_.ok()) {
      status_ = InvalidArgumentError("export @" + e_.name + ": kiln.library_call (" + call_.kind +
                                     ") " + what);
    }
  }

 private:
  const ExportInfo& e_;
  const LibraryCallInfo& call_;
  std::set<std::string> used_;
  Status status_;
};

}  // namespace

Result<flatbuffers::Offset<lib::LibraryCall>> BuildLibraryCall(
    flatbuffers::FlatBufferBuilder& builder, const ExportInfo& e) {
  const LibraryCallInfo& call = *e.library_call;
  Fields f(e);
  if (call.kind == "matmul") {
    lib::MatmulCallBuilder m(builder);
    // Fields are read in one place each, before the builder writes them.
    const auto element = f.ElementType();
    const auto activation = f.Activation();
    const uint32_t rows = f.Size("m"), cols = f.Size("n"), depth = f.Size("k");
    const uint32_t batches = f.Size("batch_count", 1);
    const bool ta = f.Flag("transpose_a"), tb = f.Flag("transpose_b"), tf32 = f.Flag("allow_tf32");
    const int32_t a = f.Binding("a", true), b = f.Binding("b", true), d = f.Binding("d", true);
    const int32_t bias = f.Binding("bias", false), c = f.Binding("c", false);
    const uint64_t sa = f.Stride("batch_stride_a"), sb = f.Stride("batch_stride_b"),
                   sc = f.Stride("batch_stride_c"), sd = f.Stride("batch_stride_d");
    const uint64_t lda = f.Stride("lda"), ldb = f.Stride("ldb"), ldc = f.Stride("ldc"),
                   ldd = f.Stride("ldd");
    const uint64_t offset_a = f.Stride("offset_a"), offset_b = f.Stride("offset_b"),
                   offset_c = f.Stride("offset_c"), offset_d = f.Stride("offset_d");
    KILN_RETURN_IF_ERROR(f.Finish());
    m.add_element_type(element);
    m.add_activation(activation);
    m.add_m(rows);
    m.add_n(cols);
    m.add_k(depth);
    m.add_batch_count(batches);
    m.add_transpose_a(ta);
    m.add_transpose_b(tb);
    m.add_allow_tf32(tf32);
    m.add_a(a);
    m.add_b(b);
    m.add_d(d);
    m.add_bias(bias);
    m.add_c(c);
    m.add_batch_stride_a(sa);
    m.add_batch_stride_b(sb);
    m.add_batch_stride_c(sc);
    m.add_batch_stride_d(sd);
    m.add_lda(lda);
    m.add_ldb(ldb);
    m.add_ldc(ldc);
    m.add_ldd(ldd);
    m.add_offset_a(offset_a);
    m.add_offset_b(offset_b);
    m.add_offset_c(offset_c);
    m.add_offset_d(offset_d);
    auto matmul = m.Finish();
    return lib::CreateLibraryCall(builder, matmul, 0);
  }
  if (call.kind == "convolution") {
    const auto element = f.ElementType();
    const auto activation = f.Activation();
    const uint32_t n = f.Size("n"), c = f.Size("c"), h = f.Size("h"), w = f.Size("w");
    const uint32_t k = f.Size("k"), r = f.Size("r"), s_ = f.Size("s");
    const uint32_t groups = f.Size("groups", 1);
    const uint32_t stride_h = f.Size("stride_h", 1), stride_w = f.Size("stride_w", 1);
    const uint32_t dilation_h = f.Size("dilation_h", 1), dilation_w = f.Size("dilation_w", 1);
    const bool tf32 = f.Flag("allow_tf32");
    const bool constant_filter = f.Flag("constant_filter");
    const bool x_blocked = f.Flag("x_blocked"), y_blocked = f.Flag("y_blocked"),
               z_blocked = f.Flag("z_blocked");
    const int32_t x = f.Binding("x", true), filter = f.Binding("filter", true),
                  y = f.Binding("y", true);
    const int32_t bias = f.Binding("bias", false), z = f.Binding("z", false);
    KILN_RETURN_IF_ERROR(f.Finish());
    lib::ConvolutionCallBuilder v(builder);
    v.add_element_type(element);
    v.add_activation(activation);
    v.add_n(n);
    v.add_c(c);
    v.add_h(h);
    v.add_w(w);
    v.add_k(k);
    v.add_r(r);
    v.add_s(s_);
    v.add_groups(groups);
    v.add_stride_h(stride_h);
    v.add_stride_w(stride_w);
    v.add_dilation_h(dilation_h);
    v.add_dilation_w(dilation_w);
    v.add_allow_tf32(tf32);
    v.add_constant_filter(constant_filter);
    v.add_x_blocked(x_blocked);
    v.add_y_blocked(y_blocked);
    v.add_z_blocked(z_blocked);
    v.add_x(x);
    v.add_filter(filter);
    v.add_y(y);
    v.add_bias(bias);
    v.add_z(z);
    auto convolution = v.Finish();
    return lib::CreateLibraryCall(builder, 0, convolution);
  }
  return InvalidArgumentError("export @" + e.name + ": kiln.library_call kind '" + call.kind +
                              "' is not matmul or convolution");
}

std::string DescribeLibraryCall(const LibraryCallInfo& call) {
  auto field = [&](const char* name, int64_t fallback = 0) {
    auto it = call.fields.find(name);
    return it == call.fields.end() ? fallback : it->second;
  };
  auto number = [&](const char* name, int64_t fallback = 0) {
    return std::to_string(field(name, fallback));
  };
  std::string text;
  if (call.kind == "matmul") {
    text = "matmul ";
    if (field("batch_count", 1) != 1) text += number("batch_count") + "x";
    text += number("m") + "x" + number("n") + "x" + number("k") + " " + call.element_type;
    if (field("transpose_a")) text += " transpose_a";
    if (field("transpose_b")) text += " transpose_b";
    if (field("bias", -1) >= 0) text += " bias";
    if (field("c", -1) >= 0) text += " c";
    // Strided operands (library_call.fbs): "lda=2304 offset_b=768".
    for (const char* layout :
         {"lda", "ldb", "ldc", "ldd", "offset_a", "offset_b", "offset_c", "offset_d"}) {
      if (field(layout) != 0) text += std::string(" ") + layout + "=" + number(layout);
    }
  } else {
    text = "conv " + number("n") + "x" + number("c") + "x" + number("h") + "x" + number("w") +
           " * " + number("k") + "x" + number("r") + "x" + number("s") + " stride " +
           number("stride_h", 1) + "," + number("stride_w", 1) + " dilation " +
           number("dilation_h", 1) + "," + number("dilation_w", 1) + " " + call.element_type;
    if (field("bias", -1) >= 0) text += " bias";
    if (field("z", -1) >= 0) text += " z";
    if (field("constant_filter")) text += " constant_filter";
    if (field("x_blocked")) text += " x_blocked";
    if (field("y_blocked")) text += " y_blocked";
    if (field("z_blocked")) text += " z_blocked";
  }
  if (call.activation != "none") text += " " + call.activation;
  if (field("allow_tf32")) text += " tf32";
  return text;
}

}  // namespace kiln::compiler
