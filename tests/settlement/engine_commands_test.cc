#include "settlement/engine_commands.h"

#include <gtest/gtest.h>

#include <vector>

namespace cfx::settlement {
namespace {

using exchange::Command;
using exchange::CommandType;

RunResult TwoContractsTwoBookings() {
  RunResult r;
  r.date = 20'800;
  ContractSettlement dsp;
  dsp.instrument = 3;
  dsp.price = exchange::Price{59'000};
  ContractSettlement fsp;
  fsp.instrument = 4;
  fsp.price = exchange::Price{58'080};
  fsp.final = true;
  r.contracts = {dsp, fsp};
  r.bookings = {{1, exchange::Amount{-2'500'000}},
                {2, exchange::Amount{2'500'000}}};
  return r;
}

TEST(EngineCommands, PricesThenExpiriesThenBookingsDated) {
  const std::vector<Command> cmds =
      EngineCommands(TwoContractsTwoBookings(), /*prices=*/true);
  ASSERT_EQ(cmds.size(), 4u);
  EXPECT_EQ(cmds[0].type, CommandType::kSetReferencePrice);
  EXPECT_EQ(cmds[0].instrument.value, 3u);
  EXPECT_EQ(cmds[0].price.units, 59'000);
  EXPECT_EQ(cmds[1].type, CommandType::kSetInstrumentState);
  EXPECT_EQ(cmds[1].instrument.value, 4u);
  EXPECT_EQ(cmds[1].state, exchange::InstrumentState::kExpired);
  for (int i = 2; i < 4; ++i) {
    EXPECT_EQ(cmds[i].type, CommandType::kCollateral);
    EXPECT_EQ(cmds[i].target, 20'800u);
  }
  EXPECT_EQ(cmds[2].account.value, 1u);
  EXPECT_EQ(cmds[2].quantity.lots, -2'500'000);
  EXPECT_EQ(cmds[3].account.value, 2u);
  EXPECT_EQ(cmds[3].quantity.lots, 2'500'000);
}

TEST(EngineCommands, WithoutPricesOnlyTheBookings) {
  const std::vector<Command> cmds =
      EngineCommands(TwoContractsTwoBookings(), /*prices=*/false);
  ASSERT_EQ(cmds.size(), 2u);
  EXPECT_EQ(cmds[0].type, CommandType::kCollateral);
  EXPECT_EQ(cmds[1].type, CommandType::kCollateral);
}

}  // namespace
}  // namespace cfx::settlement
