#include "models/aicpu/dep_inference.h"

#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"

namespace pto {
namespace {

using ::testing::ElementsAre;
using ::testing::IsEmpty;

constexpr uint64_t kA = 0x100000;        // external input, 256x128 FP32
constexpr uint64_t kOut = 0x200000;      // external output, 256x128 FP32
constexpr uint64_t kScratch = 0x300000;  // pl.create_tensor, 256x128 FP32
constexpr int64_t kRows = 256;
constexpr int64_t kCols = 128;
constexpr int64_t kTileRows = 64;
constexpr int kN = 4;
constexpr auto kAuto = trace::ScopeBegin::AUTO;
constexpr auto kManual = trace::ScopeBegin::MANUAL;

// [row, row + rows) x [col, col + cols) of a row-major root of
// `root_rows` x `root_cols` FP32 elements at `base`.
TensorView Box(uint64_t base, int64_t row, int64_t rows, int64_t col = 0, int64_t cols = kCols,
               int64_t root_cols = kCols) {
  TensorView view;
  view.base_addr = base;
  view.dtype = trace::FP32;
  view.ndims = 2;
  view.start_offset = row * root_cols + col;
  view.shape[0] = rows;
  view.shape[1] = cols;
  view.strides[0] = root_cols;
  view.strides[1] = 1;
  return view;
}

TensorView Whole(uint64_t base) { return Box(base, 0, kRows); }
TensorView Band(uint64_t base, int i) { return Box(base, i * kTileRows, kTileRows); }

DepArg Arg(TensorView view, trace::ArgDirection direction, std::optional<TaskSeq> creator = {},
           bool manual_dep = false) {
  return DepArg{view, direction, manual_dep, creator};
}

// "3 explicit", "0 creator arg1", "2 tensormap arg0 covered".
std::string Describe(const DepEdge& edge) {
  std::string text = absl::StrCat(edge.producer, " ", EdgeSourceName(edge.source));
  if (edge.source != EdgeSource::kExplicit) absl::StrAppend(&text, " arg", edge.arg_index);
  if (edge.source == EdgeSource::kTensorMap) absl::StrAppend(&text, " ", OverlapName(edge.overlap));
  return text;
}

// Submits tasks with consecutive sequence numbers from 0 and keeps each
// task's edges, as the orchestrator would.
class DepInferenceTest : public ::testing::Test {
 protected:
  // Returns the new task's sequence number.
  TaskSeq Submit(std::vector<DepArg> args, std::vector<TaskSeq> explicit_deps = {},
                 ScopeMode mode = kAuto) {
    const TaskSeq self = next_++;
    std::vector<DepEdge> edges;
    deps_.Infer(self, mode, args, explicit_deps, &edges, &stats_);
    edges_.push_back(edges);
    return self;
  }

  // An alloc task (pl.create_tensor): no args, no deps; its seq is the creator.
  TaskSeq Alloc() { return Submit({}); }

  std::vector<std::string> EdgesOf(TaskSeq task) const {
    std::vector<std::string> text;
    for (const DepEdge& edge : edges_[task]) text.push_back(Describe(edge));
    return text;
  }

  int TotalEdges(EdgeSource source) const {
    int n = 0;
    for (const auto& edges : edges_) {
      for (const DepEdge& edge : edges) n += edge.source == source;
    }
    return n;
  }

  DependencyInference deps_;
  InferStats stats_;
  TaskSeq next_ = 0;
  std::vector<std::vector<DepEdge>> edges_;
};

TEST_F(DepInferenceTest, RawThroughInputAfterInoutWriter) {
  const TaskSeq writer = Submit({Arg(Whole(kOut), trace::INOUT)});
  const TaskSeq reader = Submit({Arg(Whole(kOut), trace::INPUT)});
  EXPECT_THAT(EdgesOf(writer), IsEmpty());
  EXPECT_THAT(EdgesOf(reader), ElementsAre("0 tensormap arg0 covered"));
  EXPECT_EQ(edges_[reader][0].producer_view.start_offset, 0);
  EXPECT_EQ(edges_[reader][0].producer_view.shape[0], kRows);
}

TEST_F(DepInferenceTest, RawThroughInputAfterOutputExistingWriter) {
  Submit({Arg(Whole(kOut), trace::OUTPUT_EXISTING)});
  const TaskSeq reader = Submit({Arg(Band(kOut, 2), trace::INPUT)});
  // The reader's band lies inside the writer's view: the writer is not covered.
  EXPECT_THAT(EdgesOf(reader), ElementsAre("0 tensormap arg0 other"));
  EXPECT_EQ(stats_.lookups, 1);
  EXPECT_EQ(stats_.entries_probed, 1);
  EXPECT_EQ(stats_.registrations, 0);
}

TEST_F(DepInferenceTest, WawChainOfOutputExistingThenInoutWriters) {
  Submit({Arg(Whole(kOut), trace::OUTPUT_EXISTING)});
  const TaskSeq second = Submit({Arg(Whole(kOut), trace::INOUT)});
  EXPECT_EQ(stats_.removals, 1);
  const TaskSeq third = Submit({Arg(Whole(kOut), trace::INOUT)});
  EXPECT_THAT(EdgesOf(second), ElementsAre("0 tensormap arg0 covered"));
  // The first writer's entry was covered and removed: a chain, not a fan.
  EXPECT_THAT(EdgesOf(third), ElementsAre("1 tensormap arg0 covered"));
  EXPECT_EQ(deps_.tensor_map().size(), 1u);
}

TEST_F(DepInferenceTest, OutputExistingWritersDoNotWaitOnEachOther) {
  // OUTPUT_EXISTING registers without looking up: only INOUT writers chain.
  Submit({Arg(Whole(kOut), trace::OUTPUT_EXISTING)});
  const TaskSeq second = Submit({Arg(Whole(kOut), trace::OUTPUT_EXISTING)});
  EXPECT_THAT(EdgesOf(second), IsEmpty());
  EXPECT_EQ(deps_.tensor_map().size(), 2u);
}

TEST_F(DepInferenceTest, WarIsNotTracked) {
  Submit({Arg(Whole(kOut), trace::INPUT)});
  const TaskSeq inout_writer = Submit({Arg(Whole(kOut), trace::INOUT)});
  Submit({Arg(Whole(kOut), trace::INPUT)});
  const TaskSeq overwriter = Submit({Arg(Whole(kOut), trace::OUTPUT_EXISTING)});
  // Neither writer waits for the reader before it; readers are never entries.
  EXPECT_THAT(EdgesOf(inout_writer), IsEmpty());
  EXPECT_THAT(EdgesOf(overwriter), IsEmpty());
  EXPECT_EQ(deps_.tensor_map().size(), 2u);
}

TEST_F(DepInferenceTest, DisjointSlicesHaveNoEdge) {
  Submit({Arg(Band(kOut, 0), trace::INOUT)});
  const TaskSeq rows = Submit({Arg(Band(kOut, 1), trace::INOUT)});
  EXPECT_THAT(EdgesOf(rows), IsEmpty());
  // Column halves interleave in memory; the per-dimension test separates them.
  Submit({Arg(Box(kScratch, 0, kRows, 0, 64), trace::OUTPUT_EXISTING)});
  const TaskSeq right = Submit({Arg(Box(kScratch, 0, kRows, 64, 64), trace::INOUT)});
  EXPECT_THAT(EdgesOf(right), IsEmpty());
  EXPECT_EQ(stats_.entries_probed, 1);
}

TEST_F(DepInferenceTest, PartiallyOverlappingViewsGiveOtherEdgeAndKeepTheEntry) {
  Submit({Arg(Box(kOut, 0, 64), trace::INOUT)});
  const TaskSeq reader = Submit({Arg(Box(kOut, 32, 64), trace::INPUT)});
  const TaskSeq writer = Submit({Arg(Box(kOut, 32, 64), trace::INOUT)});
  EXPECT_THAT(EdgesOf(reader), ElementsAre("0 tensormap arg0 other"));
  EXPECT_THAT(EdgesOf(writer), ElementsAre("0 tensormap arg0 other"));
  EXPECT_EQ(stats_.removals, 0);
  EXPECT_EQ(deps_.tensor_map().size(), 2u);
}

TEST_F(DepInferenceTest, CoveringInoutRemovesTheOldEntry) {
  Submit({Arg(Band(kOut, 0), trace::INOUT)});
  Submit({Arg(Band(kOut, 1), trace::INOUT)});
  const TaskSeq cover = Submit({Arg(Whole(kOut), trace::INOUT)});
  EXPECT_THAT(EdgesOf(cover), ElementsAre("1 tensormap arg0 covered", "0 tensormap arg0 covered"));
  EXPECT_EQ(stats_.removals, 2);
  EXPECT_EQ(deps_.tensor_map().size(), 1u);
  const TaskSeq reader = Submit({Arg(Band(kOut, 0), trace::INPUT)});
  EXPECT_THAT(EdgesOf(reader), ElementsAre("2 tensormap arg0 other"));
}

TEST_F(DepInferenceTest, CoveringInputKeepsTheOldEntry) {
  Submit({Arg(Band(kOut, 0), trace::INOUT)});
  Submit({Arg(Whole(kOut), trace::INPUT)});
  const TaskSeq reader = Submit({Arg(Band(kOut, 0), trace::INPUT)});
  EXPECT_THAT(EdgesOf(reader), ElementsAre("0 tensormap arg0 covered"));
}

TEST_F(DepInferenceTest, CoveredEntryRemovedByOneArgIsGoneForTheNextArg) {
  Submit({Arg(Whole(kOut), trace::INOUT)});
  const TaskSeq task = Submit({Arg(Whole(kOut), trace::INOUT), Arg(Whole(kOut), trace::INPUT)});
  EXPECT_THAT(EdgesOf(task), ElementsAre("0 tensormap arg0 covered"));
}

TEST_F(DepInferenceTest, DifferentStridesAreConservativelyOther) {
  // kOut seen as 256x128 (columns 0..63) and as 128x256 (columns 192..255):
  // element-disjoint in truth, but the layouts differ.
  Submit({Arg(Box(kOut, 0, kRows, 0, 64), trace::OUTPUT_EXISTING)});
  const TaskSeq reader = Submit({Arg(Box(kOut, 0, 128, 192, 64, /*root_cols=*/256), trace::INPUT)});
  EXPECT_THAT(EdgesOf(reader), ElementsAre("0 tensormap arg0 other"));
}

TEST_F(DepInferenceTest, NoDepSkipsLookupAndRegistrationButKeepsCreator) {
  const TaskSeq alloc = Alloc();
  Submit({Arg(Whole(kScratch), trace::INOUT, alloc)});
  const TaskSeq no_dep = Submit({Arg(Whole(kScratch), trace::NO_DEP, alloc)});
  EXPECT_THAT(EdgesOf(no_dep), ElementsAre("0 creator arg0"));
  EXPECT_EQ(stats_.lookups, 0);
  EXPECT_EQ(stats_.registrations, 0);
  const TaskSeq reader = Submit({Arg(Whole(kScratch), trace::INPUT, alloc)});
  EXPECT_THAT(EdgesOf(reader), ElementsAre("0 creator arg0", "1 tensormap arg0 covered"));
}

TEST_F(DepInferenceTest, ManualDepTensorSkipsLookupAndRegistrationButKeepsCreator) {
  const TaskSeq alloc = Alloc();
  Submit({Arg(Whole(kOut), trace::INOUT)});
  const TaskSeq writer = Submit({Arg(Whole(kScratch), trace::INOUT, alloc, true)});
  EXPECT_THAT(EdgesOf(writer), ElementsAre("0 creator arg0"));
  EXPECT_EQ(stats_.lookups, 0);
  EXPECT_EQ(stats_.registrations, 0);
  // manual_dep is per tensor: the same task's other args still take part.
  const TaskSeq mixed =
      Submit({Arg(Whole(kScratch), trace::INOUT, alloc, true), Arg(Whole(kOut), trace::INPUT)});
  EXPECT_THAT(EdgesOf(mixed), ElementsAre("0 creator arg0", "1 tensormap arg1 covered"));
}

TEST_F(DepInferenceTest, ManualDepConsumerLosesItsRawEdge) {
  // A manual_dep tensor claimed without deps=: its reader does not wait for
  // its writers (the runtime tracks no edges for manual_dep arguments).
  const TaskSeq alloc = Alloc();
  for (int i = 0; i < kN; ++i) Submit({Arg(Band(kScratch, i), trace::INOUT, alloc, true)});
  const TaskSeq reader = Submit({Arg(Whole(kScratch), trace::INPUT, alloc, true)});
  EXPECT_THAT(EdgesOf(reader), ElementsAre("0 creator arg0"));
  EXPECT_EQ(deps_.tensor_map().size(), 0u);
}

TEST_F(DepInferenceTest, ManualScopeSkipsLookupRegistrationAndCreator) {
  const TaskSeq alloc = Alloc();
  const TaskSeq auto_writer = Submit({Arg(Whole(kOut), trace::INOUT)});
  const TaskSeq manual =
      Submit({Arg(Whole(kOut), trace::INOUT), Arg(Whole(kScratch), trace::INPUT, alloc)},
             {auto_writer}, kManual);
  EXPECT_THAT(EdgesOf(manual), ElementsAre("1 explicit"));
  EXPECT_EQ(stats_.lookups, 0);
  EXPECT_EQ(stats_.registrations, 0);
  EXPECT_EQ(stats_.tensor_args, 2);
  // The manual task registered nothing: a later reader finds the AUTO writer.
  const TaskSeq reader = Submit({Arg(Whole(kOut), trace::INPUT)});
  EXPECT_THAT(EdgesOf(reader), ElementsAre("1 tensormap arg0 covered"));
}

TEST_F(DepInferenceTest, ExplicitDepsAreUnionedWithInferredOnes) {
  const TaskSeq alloc = Alloc();
  const TaskSeq writer = Submit({Arg(Whole(kScratch), trace::INOUT, alloc)});
  const TaskSeq other = Submit({Arg(Whole(kA), trace::INPUT)});
  const TaskSeq task = Submit({Arg(Whole(kScratch), trace::INPUT, alloc)}, {writer, other});
  // Explicit first, then per arg creator and tensormap, every reason kept.
  EXPECT_THAT(EdgesOf(task), ElementsAre("1 explicit", "2 explicit", "0 creator arg0",
                                         "1 tensormap arg0 covered"));
  EXPECT_EQ(stats_.edges, 4);
  std::vector<TaskSeq> producers;
  UniqueProducers(task, edges_[task], &producers);
  EXPECT_THAT(producers, ElementsAre(alloc, writer, other));
}

TEST_F(DepInferenceTest, OutputIsNeverRegisteredAndReadersGetOnlyTheCreatorEdge) {
  const TaskSeq producer = Submit({Arg(Whole(kScratch), trace::OUTPUT)});
  EXPECT_THAT(EdgesOf(producer), IsEmpty());
  EXPECT_EQ(stats_.registrations, 0);
  EXPECT_EQ(stats_.lookups, 0);
  EXPECT_EQ(deps_.tensor_map().size(), 0u);
  const TaskSeq reader = Submit({Arg(Whole(kScratch), trace::INPUT, producer)});
  EXPECT_THAT(EdgesOf(reader), ElementsAre("0 creator arg0"));
}

TEST_F(DepInferenceTest, OutputExistingArgKeepsCreatorRetention) {
  const TaskSeq alloc = Alloc();
  const TaskSeq writer = Submit({Arg(Whole(kScratch), trace::OUTPUT_EXISTING, alloc)});
  EXPECT_THAT(EdgesOf(writer), ElementsAre("0 creator arg0"));
}

TEST_F(DepInferenceTest, EraseProducerForgetsItsEntries) {
  const TaskSeq writer = Submit({Arg(Whole(kOut), trace::INOUT)});
  deps_.EraseProducer(writer);
  const TaskSeq reader = Submit({Arg(Whole(kOut), trace::INPUT)});
  EXPECT_THAT(EdgesOf(reader), IsEmpty());
  EXPECT_EQ(deps_.tensor_map().size(), 0u);
}

TEST(UniqueProducersTest, DeduplicatesSortsAndDropsSelf) {
  std::vector<DepEdge> edges(5);
  edges[0].producer = 7;
  edges[1].producer = 3;
  edges[2].producer = 7;
  edges[3].producer = 9;  // self
  edges[4].producer = 3;
  std::vector<TaskSeq> producers = {42};
  UniqueProducers(9, edges, &producers);
  EXPECT_THAT(producers, ElementsAre(3, 7));
}

TEST(EdgeSourceNameTest, MatchesDepsJsonSpelling) {
  EXPECT_STREQ(EdgeSourceName(EdgeSource::kCreator), "creator");
  EXPECT_STREQ(EdgeSourceName(EdgeSource::kTensorMap), "tensormap");
  EXPECT_STREQ(EdgeSourceName(EdgeSource::kExplicit), "explicit");
}

// The four kernels of the dependency-tuning page (seed 004): N = 4 tasks each
// scaling a 64-row band of `a` (256x128) into `out`.

TEST_F(DepInferenceTest, SerializedPerBlockWritersOfOneOutputFormAChain) {
  // `out` is written whole by every iteration (pl.range promotes Out to InOut).
  for (int i = 0; i < kN; ++i) {
    Submit({Arg(Band(kA, i), trace::INPUT), Arg(Whole(kOut), trace::INOUT)});
  }
  EXPECT_EQ(TotalEdges(EdgeSource::kTensorMap), 3);
  EXPECT_EQ(TotalEdges(EdgeSource::kCreator), 0);
  EXPECT_EQ(TotalEdges(EdgeSource::kExplicit), 0);
  EXPECT_THAT(EdgesOf(0), IsEmpty());
  EXPECT_THAT(EdgesOf(1), ElementsAre("0 tensormap arg1 covered"));
  EXPECT_THAT(EdgesOf(2), ElementsAre("1 tensormap arg1 covered"));
  EXPECT_THAT(EdgesOf(3), ElementsAre("2 tensormap arg1 covered"));
}

TEST_F(DepInferenceTest, SlicedPerTaskViewsHaveNoEdges) {
  for (int i = 0; i < kN; ++i) {
    Submit({Arg(Band(kA, i), trace::INPUT), Arg(Band(kOut, i), trace::INOUT)});
  }
  EXPECT_EQ(TotalEdges(EdgeSource::kTensorMap), 0);
  EXPECT_EQ(TotalEdges(EdgeSource::kCreator), 0);
  EXPECT_EQ(deps_.tensor_map().size(), static_cast<size_t>(kN));
  // Each lookup still probes the other tasks' entries: the cost of slicing.
  EXPECT_EQ(stats_.entries_probed, kN - 1);
}

TEST_F(DepInferenceTest, NarrowClaimNoDepOutputHasNoEdges) {
  for (int i = 0; i < kN; ++i) {
    Submit({Arg(Band(kA, i), trace::INPUT), Arg(Whole(kOut), trace::NO_DEP)});
  }
  EXPECT_EQ(TotalEdges(EdgeSource::kTensorMap) + TotalEdges(EdgeSource::kCreator) +
                TotalEdges(EdgeSource::kExplicit),
            0);
  EXPECT_EQ(deps_.tensor_map().size(), 0u);
}

TEST_F(DepInferenceTest, TensorClaimManualDepScratchHasOnlyExplicitEdgesBetweenKernels) {
  const TaskSeq alloc = Alloc();  // pl.create_tensor(..., manual_dep=True)
  std::vector<TaskSeq> writers;
  for (int i = 0; i < kN; ++i) {
    writers.push_back(
        Submit({Arg(Band(kA, i), trace::INPUT), Arg(Whole(kScratch), trace::INOUT, alloc, true)}));
  }
  const TaskSeq consumer = Submit(
      {Arg(Whole(kScratch), trace::INPUT, alloc, true), Arg(Whole(kOut), trace::OUTPUT_EXISTING)},
      writers);
  EXPECT_EQ(TotalEdges(EdgeSource::kTensorMap), 0);
  EXPECT_EQ(TotalEdges(EdgeSource::kExplicit), kN);
  // The only other edges retain the alloc task that owns the scratch buffer.
  for (TaskSeq w : writers) EXPECT_THAT(EdgesOf(w), ElementsAre("0 creator arg1"));
  EXPECT_THAT(EdgesOf(consumer), ElementsAre("1 explicit", "2 explicit", "3 explicit", "4 explicit",
                                             "0 creator arg0"));
  std::vector<TaskSeq> producers;
  UniqueProducers(consumer, edges_[consumer], &producers);
  EXPECT_THAT(producers, ElementsAre(alloc, 1, 2, 3, 4));
}

}  // namespace
}  // namespace pto
