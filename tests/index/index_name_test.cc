#include "index/index_name.h"

#include <gtest/gtest.h>

namespace cfx::index {
namespace {

TEST(IndexName, IsThePrefixAndTheGrade) {
  EXPECT_EQ(IndexName("B200-STD"), "CFX-B200-STD");
}

TEST(IndexName, GradeOfAnIndexNameIsWhatFollowsThePrefix) {
  EXPECT_EQ(GradeOfIndexName("CFX-B200-STD"), "B200-STD");
  EXPECT_EQ(GradeOfIndexName(IndexName("H100-PRM")), "H100-PRM");
}

TEST(IndexName, NamesWithoutThePrefixOrAGradeAreNotIndexNames) {
  EXPECT_FALSE(GradeOfIndexName("CFX-").has_value());
  EXPECT_FALSE(GradeOfIndexName("B200-STD").has_value());
  EXPECT_FALSE(GradeOfIndexName("cfx-B200-STD").has_value());
  EXPECT_FALSE(GradeOfIndexName("").has_value());
}

}  // namespace
}  // namespace cfx::index
