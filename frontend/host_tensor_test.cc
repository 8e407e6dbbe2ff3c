#include "frontend/host_tensor.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

namespace pto::ptoc {
namespace {

using ::testing::ElementsAre;

std::shared_ptr<HostTensor> Make(std::vector<int64_t> shape, std::vector<double> values,
                                 trace::DType dtype = trace::FP32) {
  auto t = std::make_shared<HostTensor>(shape, dtype);
  t->Assign(values);
  return t;
}

TEST(HostTensorTest, BinaryBroadcastsRowsAndScalars) {
  auto a = Make({2, 3}, {1, 2, 3, 4, 5, 6});
  auto row = Make({3}, {10, 20, 30});
  auto sum =
      HostBinary(a.get(), 0, false, row.get(), 0, false, [](double x, double y) { return x + y; });
  ASSERT_TRUE(sum.ok());
  EXPECT_THAT((*sum)->values(), ElementsAre(11, 22, 33, 14, 25, 36));
  auto scaled =
      HostBinary(a.get(), 0, false, nullptr, 0.5, true, [](double x, double y) { return x * y; });
  ASSERT_TRUE(scaled.ok());
  EXPECT_DOUBLE_EQ((*scaled)->values()[5], 3.0);
  auto bad = HostBinary(a.get(), 0, false, Make({2}, {1, 2}).get(), 0, false,
                        [](double x, double y) { return x; });
  EXPECT_FALSE(bad.ok());
}

TEST(HostTensorTest, ValuesAreRoundedToTheDtype) {
  auto h = Make({1}, {1.0 + 1e-4}, trace::FP16);
  EXPECT_DOUBLE_EQ(h->values()[0], 1.0);  // below half's resolution at 1.0
  auto i = Make({1}, {2.9}, trace::INT32);
  EXPECT_DOUBLE_EQ(i->values()[0], 2.0);
}

TEST(HostTensorTest, IndexingSlicesAndScatter) {
  auto a = Make({3, 4}, {0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11});
  HostIndex rows;
  rows.is_slice = true;
  rows.start = 1;
  HostIndex col;
  col.index = -1;
  auto r = ResolveIndex(a->shape(), {rows, col});
  ASSERT_TRUE(r.ok());
  auto g = HostGather(*a, *r);
  EXPECT_THAT(g->shape(), ElementsAre(2));
  EXPECT_THAT(g->values(), ElementsAre(7, 11));
  ASSERT_TRUE(HostScatter(a.get(), *r, nullptr, -1.0).ok());
  EXPECT_DOUBLE_EQ(a->values()[7], -1.0);
  EXPECT_DOUBLE_EQ(a->values()[3], 3.0);
  HostIndex out_of_range;
  out_of_range.index = 3;
  EXPECT_FALSE(ResolveIndex(a->shape(), {out_of_range}).ok());
}

TEST(HostTensorTest, MatmulCatRollWhere) {
  auto a = Make({2, 2}, {1, 2, 3, 4});
  auto m = HostMatmul(*a, *a);
  ASSERT_TRUE(m.ok());
  EXPECT_THAT((*m)->values(), ElementsAre(7, 10, 15, 22));
  auto c = HostCat({a, a}, 1);
  ASSERT_TRUE(c.ok());
  EXPECT_THAT((*c)->shape(), ElementsAre(2, 4));
  EXPECT_THAT((*c)->values(), ElementsAre(1, 2, 1, 2, 3, 4, 3, 4));
  auto rolled = HostRoll(*a, 1, 1);
  ASSERT_TRUE(rolled.ok());
  EXPECT_THAT((*rolled)->values(), ElementsAre(2, 1, 4, 3));
  auto cond = Make({2, 2}, {1, 0, 0, 1}, trace::BOOL);
  auto w = HostWhere(*cond, *a, *Make({2, 2}, {0, 0, 0, 0}));
  ASSERT_TRUE(w.ok());
  EXPECT_THAT((*w)->values(), ElementsAre(1, 0, 0, 4));
}

TEST(HostTensorTest, InitIsZerosOrBytesUnlessProvenanceKnown) {
  auto z = Make({2}, {0, 0});
  EXPECT_TRUE(z->ToInit().zeros());
  auto v = Make({2}, {1, 2});
  EXPECT_EQ(v->ToInit().data().size(), 8u);
  trace::TensorInit gen;
  gen.mutable_generator()->set_kind(trace::TensorInit::Generator::RANDN);
  v->set_provenance(gen);
  EXPECT_TRUE(v->ToInit().has_generator());
  v->Set(0, 5);  // any change drops the provenance
  EXPECT_FALSE(v->ToInit().has_generator());
}

}  // namespace
}  // namespace pto::ptoc
