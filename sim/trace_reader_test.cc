#include "sim/trace_reader.h"

#include "gtest/gtest.h"

namespace pto {
namespace {

TEST(TraceReaderTest, Placeholder) { EXPECT_FALSE(TraceReader::Open("/nonexistent.pb").ok()); }

}  // namespace
}  // namespace pto
