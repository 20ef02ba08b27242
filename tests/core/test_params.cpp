#include <gtest/gtest.h>

#include "core/errors.hpp"
#include "core/params.hpp"

namespace ema {
namespace {

constexpr param_spec specs[] = {
    {"hit", param_kind::choice, "none", "where", "none|first|last"},
    {"copies", param_kind::integer, "1", "how many"},
    {"eps", param_kind::real, "0.5", "threshold"},
    {"strict", param_kind::boolean, "true", "strict"},
};

std::string message_of(const std::vector<std::string>& a) {
  try {
    param_set::resolve("demo", specs, a);
  } catch (const usage_error& e) {
    return e.what();
  }
  return "";
}

TEST(Params, DefaultsFillEveryDeclaredParameter) {
  auto p = param_set::resolve("demo", specs, {});
  EXPECT_EQ(p.text("hit"), "none");
  EXPECT_EQ(p.integer("copies"), 1);
  EXPECT_DOUBLE_EQ(p.real("eps"), 0.5);
  EXPECT_TRUE(p.boolean("strict"));
}

TEST(Params, AssignmentsOverrideDefaults) {
  auto p = param_set::resolve("demo", specs, {"hit=last", "copies=3", "eps=1e-3", "strict=false"});
  EXPECT_EQ(p.text("hit"), "last");
  EXPECT_EQ(p.integer("copies"), 3);
  EXPECT_DOUBLE_EQ(p.real("eps"), 1e-3);
  EXPECT_FALSE(p.boolean("strict"));
}

TEST(Params, UnknownKeyListsTheValidOnes) {
  auto m = message_of({"colour=red"});
  EXPECT_NE(m.find("unknown parameter 'colour'"), std::string::npos) << m;
  EXPECT_NE(m.find("hit, copies, eps, strict"), std::string::npos) << m;
}

TEST(Params, WrongKindsAreNamed) {
  EXPECT_NE(message_of({"copies=two"}).find("must be an integer"), std::string::npos);
  EXPECT_NE(message_of({"eps=x"}).find("must be a finite number"), std::string::npos);
  EXPECT_NE(message_of({"strict=maybe"}).find("true or false"), std::string::npos);
  auto m = message_of({"hit=middle"});
  EXPECT_NE(m.find("none|first|last"), std::string::npos) << m;
  EXPECT_NE(message_of({"hit"}).find("key=value"), std::string::npos);
}

TEST(Params, CanonicalJsonIsSortedAndStable) {
  auto a = param_set::resolve("demo", specs, {"hit=first", "copies=2"});
  auto b = param_set::resolve("demo", specs, {"copies=2", "hit=first"});
  EXPECT_EQ(a.canonical_json(), b.canonical_json());
  EXPECT_EQ(a.canonical_json(), R"({"copies":"2","eps":"0.5","hit":"first","strict":"true"})");
  EXPECT_EQ(a.short_text(), "copies=2,eps=0.5,hit=first,strict=true");
}

}  // namespace
}  // namespace ema
