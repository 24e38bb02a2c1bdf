// Robustness of the HAL attribute and affine map parsers: every truncation and
// many deterministic mutations of valid bodies give a value or an error,
// never a crash (run under the sanitizers in the fuzz build too).
#include <gtest/gtest.h>

#include <cstdint>
#include <string>
#include <vector>

#include "compiler/parser/affine_map.h"
#include "compiler/parser/hal_attributes.h"

namespace kiln::compiler {
namespace {

struct Sample {
  const char* name;
  const char* body;
};

constexpr Sample kSamples[] = {
    {"hal.pipeline.layout",
     "push_constants = 1, sets = [<0, bindings = [<0, storage_buffer, ReadOnly>, <1, "
     "storage_buffer, \"ReadOnly|Indirect\">, <2, storage_buffer>], flags = Indirect>]"},
    {"hal.pipeline.layout",
     "constants = 1, bindings = [#hal.pipeline.binding<storage_buffer, ReadOnly>, "
     "#hal.pipeline.binding<storage_buffer, flags = \"ReadOnly\">], flags = Indirect"},
    {"hal.executable.target",
     "\"cuda\", \"cuda-nvptx-fb\", {target_arch = \"sm_80\", n = 4 : i64}"},
    {"hal.executable.object",
     "{path = \"kernels_sm_80.ptx\", data = dense<[1, 2]> : vector<2xi8>}"},
    {"hal.executable.objects",
     "{#hal.executable.target<\"cuda\", \"cuda-nvptx-fb\", {target_arch = \"sm_80\"}> = "
     "[#hal.executable.object<{path = \"a.ptx\"}>, #hal.executable.object<{path = \"b.ptx\"}>]}"},
    {"hal.device.target",
     "\"cuda\", {executable_targets = [#hal.executable.target<\"cuda\", \"cuda-nvptx-fb\">], "
     "legacy_sync}, [#hal.executable.target<\"cuda\", \"cuda-nvptx-fb\", {a = [1, 2]}>]"},
    {"affine_map", "(d0, d1)[s0, s1] -> (d0 * s0 + d1 floordiv 2 - -(s1 mod 5), s0 ceildiv s1)"},
};

// Runs the parser matching `name`; if it succeeds, uses the result.
void ParseAny(const std::string& name, const std::string& body) {
  Attribute attribute = Attribute::Dialect(name, body);
  if (name == "hal.pipeline.layout") {
    (void)ParsePipelineLayout(attribute);
  } else if (name == "hal.executable.target") {
    (void)ParseExecutableTarget(attribute);
  } else if (name == "hal.executable.object") {
    (void)ParseExecutableObject(attribute);
  } else if (name == "hal.executable.objects") {
    (void)ParseExecutableObjects(attribute);
  } else if (name == "hal.device.target") {
    (void)ParseDeviceTarget(attribute);
  } else {
    Result<AffineMap> map = ParseAffineMap(attribute);
    if (map.ok()) {
      std::vector<int64_t> dims(map->num_dims, -7), symbols(map->num_symbols, 3);
      (void)map->Evaluate(dims, symbols);
      Result<AffineMap> again = ParseAffineMap(map->ToString());
      EXPECT_TRUE(again.ok()) << body << " printed as " << map->ToString();
      if (again.ok()) {
        EXPECT_EQ(*again, *map) << body;
      }
    }
  }
  // Every parser also sees the body as any other attribute's.
  (void)ParsePipelineLayout(Attribute::Dialect("hal.pipeline.layout", body));
  (void)ParseDeviceTarget(Attribute::Dialect("hal.device.target", body));
  (void)ParseAffineMap(body);
}

TEST(HalAttributesRobustnessTest, SamplesParse) {
  for (const Sample& sample : kSamples) {
    Attribute attribute = Attribute::Dialect(sample.name, sample.body);
    std::string name = sample.name;
    bool ok = name == "hal.pipeline.layout"      ? ParsePipelineLayout(attribute).ok()
              : name == "hal.executable.target"  ? ParseExecutableTarget(attribute).ok()
              : name == "hal.executable.object"  ? ParseExecutableObject(attribute).ok()
              : name == "hal.executable.objects" ? ParseExecutableObjects(attribute).ok()
              : name == "hal.device.target"      ? ParseDeviceTarget(attribute).ok()
                                                 : ParseAffineMap(attribute).ok();
    EXPECT_TRUE(ok) << sample.name << "<" << sample.body << ">";
  }
}

TEST(HalAttributesRobustnessTest, TruncatedBodiesNeverCrash) {
  for (const Sample& sample : kSamples) {
    std::string body = sample.body;
    for (size_t length = 0; length <= body.size(); ++length) {
      ParseAny(sample.name, body.substr(0, length));
      ParseAny(sample.name, body.substr(length));
    }
  }
}

TEST(HalAttributesRobustnessTest, MutatedBodiesNeverCrash) {
  const std::string alphabet = "<>()[]{},=\"|#-+*:0123456789 ds_xRy\\\n\x01";
  uint64_t state = 0x9E3779B97F4A7C15ull;
  auto next = [&state] {
    state ^= state << 13;
    state ^= state >> 7;
    state ^= state << 17;
    return state;
  };
  for (const Sample& sample : kSamples) {
    std::string original = sample.body;
    for (int round = 0; round < 3000; ++round) {
      std::string body = original;
      int edits = 1 + static_cast<int>(next() % 4);
      for (int e = 0; e < edits && !body.empty(); ++e) {
        size_t at = next() % body.size();
        char c = alphabet[next() % alphabet.size()];
        switch (next() % 4) {
          case 0:
            body[at] = c;
            break;
          case 1:
            body.insert(body.begin() + static_cast<std::ptrdiff_t>(at), c);
            break;
          case 2:
            body.erase(at, 1 + next() % 8);
            break;
          default:  // Duplicate a slice (nesting, repeated keys).
            body.insert(at, body.substr(next() % body.size(), next() % 16));
            break;
        }
      }
      ParseAny(sample.name, body);
    }
  }
}

TEST(HalAttributesRobustnessTest, DeepNestingIsRejected) {
  std::string deep_config =
      "\"cuda\", \"f\", {a = " + std::string(5000, '[') + std::string(5000, ']') + "}";
  EXPECT_FALSE(
      ParseExecutableTarget(Attribute::Dialect("hal.executable.target", deep_config)).ok());
  std::string deep_sets = "sets = " + std::string(5000, '[') + std::string(5000, ']');
  EXPECT_FALSE(ParsePipelineLayout(Attribute::Dialect("hal.pipeline.layout", deep_sets)).ok());
}

}  // namespace
}  // namespace kiln::compiler
