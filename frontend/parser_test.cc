#include "frontend/parser.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

namespace pto::ptoc {
namespace {

using ::testing::HasSubstr;

Module ParseOk(const std::string& text) {
  SourceFile source("t.py", text);
  auto module = Parse(source);
  EXPECT_TRUE(module.ok()) << module.status();
  return module.ok() ? std::move(*module) : Module{};
}

std::string ParseError(const std::string& text) {
  SourceFile source("bad.py", text);
  auto module = Parse(source);
  EXPECT_FALSE(module.ok()) << "expected an error for: " << text;
  return module.ok() ? "" : std::string(module.status().message());
}

TEST(ParserTest, ImportsWithAliases) {
  Module m =
      ParseOk("import pypto.language as pl\nimport torch\nfrom pypto.runtime import RunConfig\n");
  ASSERT_EQ(m.body.size(), 3u);
  EXPECT_EQ(m.body[0]->kind, StmtKind::kImport);
  EXPECT_EQ(m.body[0]->names[0], "pypto.language");
  EXPECT_EQ(m.body[0]->aliases[0], "pl");
  EXPECT_EQ(m.body[2]->kind, StmtKind::kImportFrom);
  EXPECT_EQ(m.body[2]->name, "pypto.runtime");
  EXPECT_EQ(m.body[2]->names[0], "RunConfig");
}

TEST(ParserTest, TupleAssignmentAndChainedAssignment) {
  Module m = ParseOk("A, B, C = 4, 64, 128\nx = y = 2\n");
  ASSERT_EQ(m.body.size(), 2u);
  EXPECT_EQ(m.body[0]->targets[0]->kind, ExprKind::kTuple);
  EXPECT_EQ(m.body[0]->targets[0]->elts.size(), 3u);
  EXPECT_EQ(m.body[0]->value->kind, ExprKind::kTuple);
  EXPECT_EQ(m.body[1]->targets.size(), 2u);
}

TEST(ParserTest, AnnotatedAssignment) {
  Module m = ParseOk("t: pl.Tile[[64, 128], pl.FP32] = pl.load(a, [0, 0], [64, 128])\n");
  ASSERT_EQ(m.body.size(), 1u);
  EXPECT_EQ(m.body[0]->kind, StmtKind::kAnnAssign);
  EXPECT_EQ(m.body[0]->annotation->kind, ExprKind::kSubscript);
  EXPECT_EQ(m.body[0]->value->kind, ExprKind::kCall);
}

TEST(ParserTest, ArithmeticPrecedence) {
  Module m = ParseOk("x = 1 + 2 * 3 // 4 % 5 - -6 ** 2\n");
  const Expr& e = *m.body[0]->value;
  ASSERT_EQ(e.kind, ExprKind::kBinary);
  EXPECT_EQ(e.op, "-");
  EXPECT_EQ(e.elts[0]->op, "+");
  EXPECT_EQ(e.elts[0]->elts[1]->op, "%");
  EXPECT_EQ(e.elts[1]->kind, ExprKind::kUnary);  // -(6 ** 2)
  EXPECT_EQ(e.elts[1]->elts[0]->op, "**");
}

TEST(ParserTest, ComparisonsAndBooleans) {
  Module m = ParseOk("x = a < b <= c and not d or e is not None\n");
  const Expr& e = *m.body[0]->value;
  ASSERT_EQ(e.kind, ExprKind::kBoolOp);
  EXPECT_EQ(e.op, "or");
  EXPECT_EQ(e.elts[0]->op, "and");
  EXPECT_EQ(e.elts[0]->elts[0]->ops, (std::vector<std::string>{"<", "<="}));
  EXPECT_EQ(e.elts[1]->ops, (std::vector<std::string>{"is not"}));
}

TEST(ParserTest, SubscriptsSlicesAndTupleIndex) {
  Module m = ParseOk("y = A[:64]\nz = g[0, 0]\nw = t[1:2:3, ::2]\nout[:] = v\n");
  const Expr& s0 = *m.body[0]->value->elts[1];
  EXPECT_EQ(s0.kind, ExprKind::kSlice);
  EXPECT_EQ(s0.elts[0], nullptr);
  EXPECT_EQ(s0.elts[1]->int_value, 64);
  EXPECT_EQ(m.body[1]->value->elts[1]->kind, ExprKind::kTuple);
  EXPECT_EQ(m.body[2]->value->elts[1]->elts[0]->elts[2]->int_value, 3);
  EXPECT_EQ(m.body[3]->targets[0]->kind, ExprKind::kSubscript);
}

TEST(ParserTest, ListsAndComprehensions) {
  Module m = ParseOk("x = [t[k] for k in range(8) if k % 2 for j in y]\ny = [1, 2,]\n");
  const Expr& c = *m.body[0]->value;
  ASSERT_EQ(c.kind, ExprKind::kListComp);
  EXPECT_EQ(c.comp_targets.size(), 2u);
  EXPECT_EQ(c.comp_conds[0].size(), 1u);
  EXPECT_EQ(m.body[1]->value->elts.size(), 2u);
}

TEST(ParserTest, DecoratedFunctionsWithAnnotationsDefaultsAndDocstring) {
  Module m = ParseOk(
      "@pl.jit\n"
      "def k(a: pl.Tensor, c: pl.Out[pl.Tensor], n=4) -> pl.Tensor:\n"
      "    \"\"\"Adds.\"\"\"\n"
      "    return c\n");
  ASSERT_EQ(m.body.size(), 1u);
  const Stmt& f = *m.body[0];
  EXPECT_EQ(f.kind, StmtKind::kFunctionDef);
  EXPECT_EQ(f.decorators.size(), 1u);
  ASSERT_EQ(f.params.size(), 3u);
  EXPECT_NE(f.params[1].annotation, nullptr);
  EXPECT_NE(f.params[2].default_value, nullptr);
  EXPECT_EQ(f.docstring, "Adds.");
}

TEST(ParserTest, ForIfElifElseWith) {
  Module m = ParseOk(
      "for i, j in pairs:\n"
      "    if i:\n        pass\n    elif j:\n        x = 1\n    else:\n        x = 2\n"
      "with pl.at(level=pl.Level.CORE_GROUP, deps=[t]) as tid:\n    pass\n"
      "with pl.manual_scope():\n    pass\n");
  ASSERT_EQ(m.body.size(), 3u);
  EXPECT_EQ(m.body[0]->targets[0]->kind, ExprKind::kTuple);
  const Stmt& if_stmt = *m.body[0]->body[0];
  ASSERT_EQ(if_stmt.orelse.size(), 1u);
  EXPECT_EQ(if_stmt.orelse[0]->kind, StmtKind::kIf);  // elif
  EXPECT_EQ(if_stmt.orelse[0]->orelse.size(), 1u);
  EXPECT_EQ(m.body[1]->with_targets[0]->name, "tid");
  EXPECT_EQ(m.body[1]->with_exprs[0]->keywords.size(), 2u);
  EXPECT_EQ(m.body[2]->with_targets[0], nullptr);
}

TEST(ParserTest, KeywordArgumentsAndConditionalExpression) {
  Module m = ParseOk("f(1, x=2, y=a if b else c)\n");
  const Expr& call = *m.body[0]->value;
  EXPECT_EQ(call.elts.size(), 2u);  // callee + one positional
  ASSERT_EQ(call.keywords.size(), 2u);
  EXPECT_EQ(call.keywords[1].value->kind, ExprKind::kIfExp);
}

TEST(ParserTest, AugmentedAssignmentAndSemicolons) {
  Module m = ParseOk("x += 1; y //= 2\n");
  ASSERT_EQ(m.body.size(), 2u);
  EXPECT_EQ(m.body[0]->name, "+");
  EXPECT_EQ(m.body[1]->name, "//");
}

TEST(ParserTest, UnsupportedConstructsAreNamedWithLocation) {
  EXPECT_THAT(ParseError("while x:\n    pass\n"), HasSubstr("bad.py:1:1: error: 'while'"));
  EXPECT_THAT(ParseError("class K:\n    pass\n"),
              HasSubstr("a 'class' must be a @pl.program class"));
  EXPECT_THAT(ParseError("f = lambda x: x\n"), HasSubstr("bad.py:1:5: error: 'lambda'"));
  EXPECT_THAT(ParseError("try:\n    pass\n"), HasSubstr("'try'"));
  EXPECT_THAT(ParseError("def g():\n    yield 1\n"), HasSubstr("bad.py:2:5: error: 'yield'"));
  EXPECT_THAT(ParseError("global x\n"), HasSubstr("'global'"));
  EXPECT_THAT(ParseError("f(*args)\n"), HasSubstr("star arguments"));
  EXPECT_THAT(ParseError("f(**kw)\n"), HasSubstr("star arguments"));
  EXPECT_THAT(ParseError("def g(*a):\n    pass\n"), HasSubstr("star parameters"));
  EXPECT_THAT(ParseError("x = (i for i in y)\n"), HasSubstr("generator expressions"));
  EXPECT_THAT(ParseError("x = {1, 2}\n"), HasSubstr("set displays"));
  EXPECT_THAT(ParseError("raise X\n"), HasSubstr("'raise'"));
  EXPECT_THAT(ParseError("del x\n"), HasSubstr("'del'"));
  EXPECT_THAT(ParseError("for i in x:\n    pass\nelse:\n    pass\n"), HasSubstr("for ... else"));
  EXPECT_THAT(ParseError("from . import x\n"), HasSubstr("relative imports"));
}

TEST(ParserTest, SyntaxErrorsShowTheLineAndCaret) {
  std::string msg = ParseError("x = 1\ny = (1 +)\n");
  EXPECT_THAT(msg, HasSubstr("bad.py:2:9: error: expected an expression, found ')'"));
  EXPECT_THAT(msg, HasSubstr("\ny = (1 +)\n        ^"));
  EXPECT_THAT(ParseError("1 = x\n"), HasSubstr("cannot assign"));
  EXPECT_THAT(ParseError("if x\n    pass\n"), HasSubstr("expected ':'"));
  EXPECT_THAT(ParseError("f(a=1, 2)\n"), HasSubstr("positional argument follows keyword"));
}

}  // namespace
}  // namespace pto::ptoc

namespace pto::ptoc {
namespace {

TEST(SourceFileTest, SegmentsNameTheFileTheirLinesStandFor) {
  SourceFile source("main.py", "a = 1\nb = 2\nc = x\nd = 4\n");
  source.AddSegment(/*first_line=*/3, /*lines=*/2, "kernels.py", /*original_first_line=*/40);
  EXPECT_EQ(source.Origin({2, 1}), "main.py:2");
  EXPECT_EQ(source.Origin({3, 1}), "kernels.py:40");
  EXPECT_EQ(source.Origin({4, 1}), "kernels.py:41");
  const absl::Status error = source.Error({3, 5}, "name 'x' is not defined");
  EXPECT_EQ(error.message(), "kernels.py:40:5: error: name 'x' is not defined\nc = x\n    ^");
}

}  // namespace
}  // namespace pto::ptoc
