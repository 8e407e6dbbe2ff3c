#include "frontend/name_analysis.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "frontend/parser.h"

namespace pto::ptoc {
namespace {

using ::testing::ElementsAre;
using ::testing::HasSubstr;

Module ParseOk(const std::string& text) {
  SourceFile source("t.py", text);
  auto module = Parse(source);
  EXPECT_TRUE(module.ok()) << module.status();
  return module.ok() ? std::move(*module) : Module{};
}

NameUse Use(const std::string& text, const std::string& name) {
  Module m = ParseOk(text);
  return FirstUse(m.body, 0, name);
}

TEST(NameAnalysisTest, CollectsEveryBindingButNotNestedFunctionLocals) {
  Module m = ParseOk(
      "a = 1\n"
      "b, (c, d) = x\n"
      "e += 1\n"
      "out[:] = t\n"
      "for i in r:\n"
      "    if q:\n"
      "        f = 2\n"
      "with m() as g:\n"
      "    h = 3\n"
      "def k(p):\n"
      "    local = p\n");
  std::set<std::string> names;
  CollectAssignedNames(m.body, &names);
  EXPECT_THAT(names, ElementsAre("a", "b", "c", "d", "e", "f", "g", "h", "i", "k"));
}

TEST(NameAnalysisTest, FirstUseSeesReadsBeforeRebinding) {
  EXPECT_EQ(Use("y = t + 1\nt = 0\n", "t"), NameUse::kRead);
  EXPECT_EQ(Use("t = 0\ny = t\n", "t"), NameUse::kDead);
  EXPECT_EQ(Use("t = t + 1\n", "t"), NameUse::kRead);  // the value is read first
  EXPECT_EQ(Use("t += 1\n", "t"), NameUse::kRead);
  EXPECT_EQ(Use("y = 1\n", "t"), NameUse::kNone);
  EXPECT_EQ(Use("t[0] = 1\n", "t"), NameUse::kRead);  // a store through it
  EXPECT_EQ(Use("return 3\ny = t\n", "t"), NameUse::kDead);
  EXPECT_EQ(Use("return t\n", "t"), NameUse::kRead);
}

TEST(NameAnalysisTest, BranchesAndLoopsAreConservative) {
  // A read in either arm may happen; a rebinding counts only in both.
  EXPECT_EQ(Use("if c:\n    y = t\n", "t"), NameUse::kRead);
  EXPECT_EQ(Use("if c:\n    t = 1\nelse:\n    t = 2\ny = t\n", "t"), NameUse::kDead);
  EXPECT_EQ(Use("if c:\n    t = 1\ny = t\n", "t"), NameUse::kRead);
  // A loop may not run: its rebinding does not hide the read after it.
  EXPECT_EQ(Use("for i in r:\n    t = i\ny = t\n", "t"), NameUse::kRead);
  EXPECT_EQ(Use("for t in r:\n    y = t\n", "t"), NameUse::kNone);
  // A with body runs once, and its target binds on entry.
  EXPECT_EQ(Use("with s():\n    t = 1\ny = t\n", "t"), NameUse::kDead);
  EXPECT_EQ(Use("with s() as t:\n    y = t\n", "t"), NameUse::kDead);
  EXPECT_EQ(Use("with s(t):\n    pass\n", "t"), NameUse::kRead);
}

TEST(NameAnalysisTest, ClosuresReadFreeNamesAndComprehensionsShadow) {
  EXPECT_EQ(Use("def f():\n    return t\n", "t"), NameUse::kRead);
  EXPECT_EQ(Use("def f(t):\n    return t\n", "t"), NameUse::kNone);
  EXPECT_EQ(Use("y = [t for t in r]\n", "t"), NameUse::kNone);
  EXPECT_EQ(Use("y = [t for i in t]\n", "t"), NameUse::kRead);
}

TEST(NameAnalysisTest, FirstUseStartsWhereAsked) {
  Module m = ParseOk("y = t\nt = 1\nz = t\n");
  EXPECT_EQ(FirstUse(m.body, 0, "t"), NameUse::kRead);
  EXPECT_EQ(FirstUse(m.body, 1, "t"), NameUse::kDead);
  EXPECT_EQ(FirstUse(m.body, 3, "t"), NameUse::kNone);
}

TEST(NameAnalysisTest, FindsTheYieldOfALoopBodyNotOfNestedLoopsOrIfs) {
  // A nested loop's yield is that loop's, an if's yield names the if's
  // results (pypto's SSA form): the body's own is the one at its top level.
  Module m = ParseOk(
      "for i in r:\n"
      "    for j in s:\n"
      "        a = pl.yield_(j)\n"
      "    if c:\n"
      "        b = pl.yield_(i)\n"
      "    else:\n"
      "        b = pl.yield_(j)\n"
      "    d = pl.yield_(b)\n");
  const Block& body = m.body[0]->body;
  const Stmt* y = YieldAssignment(body);
  ASSERT_NE(y, nullptr);
  EXPECT_EQ(y->loc.line, 8);
  EXPECT_EQ(YieldAssignment(m.body[0]->body[0]->body)->loc.line, 3);
  Module no_own = ParseOk("for i in r:\n    if c:\n        b = pl.yield_(i)\n");
  EXPECT_EQ(YieldAssignment(no_own.body[0]->body), nullptr);
  EXPECT_EQ(BareYield(body), nullptr);
  Module bare = ParseOk("for i in r:\n    pl.yield_(i)\n");
  EXPECT_NE(BareYield(bare.body[0]->body), nullptr);
}

std::string StrictError(const std::string& text) {
  SourceFile source("s.py", text);
  auto module = Parse(source);
  EXPECT_TRUE(module.ok()) << module.status();
  absl::Status s = CheckStrictSsa(*module->body[0], source);
  return s.ok() ? "" : std::string(s.message());
}

TEST(NameAnalysisTest, StrictSsaRejectsTheSecondBindingWithTheFirstLine) {
  EXPECT_EQ(StrictError("def f(x):\n    a = x\n    b = a\n"), "");
  EXPECT_THAT(StrictError("def f(x):\n    a = x\n    a = a + 1\n"),
              HasSubstr("s.py:3:5: error: variable 'a' is already defined (line 2)"));
  EXPECT_THAT(StrictError("def f(x):\n    x = 1\n"), HasSubstr("variable 'x' is already defined"));
  EXPECT_THAT(StrictError("def f(x):\n    a = x\n    for i in r:\n        a = i\n"),
              HasSubstr("s.py:4:9: error: variable 'a'"));
  EXPECT_THAT(StrictError("def f(x):\n    x[0] = 1\n"), HasSubstr("subscript-write syntax"));
  // Both arms of an if binding one name is one value after it (a phi).
  EXPECT_EQ(StrictError("def f(x):\n    if x:\n        a = 1\n    else:\n        a = 2\n"), "");
}

}  // namespace
}  // namespace pto::ptoc
