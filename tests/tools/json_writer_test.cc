// Tests of tools/common/json_writer.h: layout, commas and indentation,
// escaping, and UTF-8 handling (invalid bytes become U+FFFD).
#include "tools/common/json_writer.h"

#include <gtest/gtest.h>

#include <string>

namespace kiln::tools {
namespace {

TEST(JsonWriterTest, NestedDocument) {
  JsonWriter json;
  json.BeginObject();
  json.Key("name");
  json.String("m");
  json.Key("version");
  json.Uint(3);
  json.Key("delta");
  json.Int(-4);
  json.Key("ok");
  json.Bool(true);
  json.Key("none");
  json.Null();
  json.Key("list");
  json.BeginArray();
  json.Int(1);
  json.BeginObject();
  json.Key("a");
  json.Bool(false);
  json.EndObject();
  json.EndArray();
  json.Key("empty_list");
  json.BeginArray();
  json.EndArray();
  json.Key("empty_object");
  json.BeginObject();
  json.EndObject();
  json.EndObject();
  EXPECT_EQ(json.str(),
            "{\n"
            "  \"name\": \"m\",\n"
            "  \"version\": 3,\n"
            "  \"delta\": -4,\n"
            "  \"ok\": true,\n"
            "  \"none\": null,\n"
            "  \"list\": [\n"
            "    1,\n"
            "    {\n"
            "      \"a\": false\n"
            "    }\n"
            "  ],\n"
            "  \"empty_list\": [],\n"
            "  \"empty_object\": {}\n"
            "}\n");
}

TEST(JsonWriterTest, TopLevelArray) {
  JsonWriter json(1);
  json.BeginArray();
  json.String("x");
  json.String("y");
  json.EndArray();
  EXPECT_EQ(json.str(), "[\n \"x\",\n \"y\"\n]\n");
}

TEST(JsonWriterTest, Escaping) {
  EXPECT_EQ(JsonQuote("plain"), "\"plain\"");
  EXPECT_EQ(JsonQuote("q\"b\\s/"), "\"q\\\"b\\\\s/\"");
  EXPECT_EQ(JsonQuote("\n\r\t\b\f"), "\"\\n\\r\\t\\b\\f\"");
  EXPECT_EQ(JsonQuote(std::string("\x00\x01\x1f\x7f", 4)), "\"\\u0000\\u0001\\u001f\\u007f\"");
}

TEST(JsonWriterTest, Utf8) {
  // Valid multi-byte sequences pass through: é, €, 😀.
  EXPECT_EQ(JsonQuote("\xc3\xa9 \xe2\x82\xac \xf0\x9f\x98\x80"),
            "\"\xc3\xa9 \xe2\x82\xac \xf0\x9f\x98\x80\"");
  // Invalid ones are replaced byte by byte: a lone continuation byte, a
  // truncated sequence, an overlong '/', a surrogate, a byte never valid.
  EXPECT_EQ(JsonQuote("\x80"), "\"\\ufffd\"");
  EXPECT_EQ(JsonQuote("a\xe2\x82"), "\"a\\ufffd\\ufffd\"");
  EXPECT_EQ(JsonQuote("\xc0\xaf"), "\"\\ufffd\\ufffd\"");
  EXPECT_EQ(JsonQuote("\xed\xa0\x80"), "\"\\ufffd\\ufffd\\ufffd\"");
  EXPECT_EQ(JsonQuote("\xff"), "\"\\ufffd\"");
}

TEST(JsonWriterTest, DoublesAreShortestExactAndNonFiniteIsNull) {
  JsonWriter json(0);
  json.BeginArray();
  json.Double(1.5);
  json.Double(0.1);
  json.Double(-2e-7);
  json.Double(1e300 * 1e300);
  json.EndArray();
  EXPECT_EQ(json.str(), "[\n1.5,\n0.1,\n-2e-07,\nnull\n]\n");
}

}  // namespace
}  // namespace kiln::tools
