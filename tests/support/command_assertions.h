#pragma once

#include <gtest/gtest.h>

#include "exchange/core/command.h"

namespace cfx::exchange::testing {

// Expects every field of two commands to be equal, naming the field that
// differs.
inline void ExpectSameCommand(const Command& a, const Command& b) {
  EXPECT_EQ(a.seq, b.seq);
  EXPECT_EQ(a.ts, b.ts);
  EXPECT_EQ(a.type, b.type);
  EXPECT_EQ(a.side, b.side);
  EXPECT_EQ(a.order_type, b.order_type);
  EXPECT_EQ(a.tif, b.tif);
  EXPECT_EQ(a.stp, b.stp);
  EXPECT_EQ(a.flags, b.flags);
  EXPECT_EQ(a.state, b.state);
  EXPECT_EQ(a.reserved, b.reserved);
  EXPECT_EQ(a.account, b.account);
  EXPECT_EQ(a.instrument, b.instrument);
  EXPECT_EQ(a.client_order_id, b.client_order_id);
  EXPECT_EQ(a.target, b.target);
  EXPECT_EQ(a.price, b.price);
  EXPECT_EQ(a.quantity, b.quantity);
}

}  // namespace cfx::exchange::testing
