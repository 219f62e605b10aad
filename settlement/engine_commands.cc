#include "settlement/engine_commands.h"

#include <cstdint>
#include <vector>

namespace cfx::settlement {

std::vector<exchange::Command> EngineCommands(const RunResult& result,
                                              bool prices) {
  std::vector<exchange::Command> out;
  if (prices) {
    for (const ContractSettlement& c : result.contracts) {
      exchange::Command cmd;
      cmd.instrument = exchange::InstrumentId{c.instrument};
      if (c.final) {  // the FSP is on $0.001, not a price the book takes
        cmd.type = exchange::CommandType::kSetInstrumentState;
        cmd.state = exchange::InstrumentState::kExpired;
      } else {
        cmd.type = exchange::CommandType::kSetReferencePrice;
        cmd.price = c.price;
      }
      out.push_back(cmd);
    }
  }
  for (const auto& [account, amount] : result.bookings) {
    exchange::Command cmd;
    cmd.type = exchange::CommandType::kCollateral;
    cmd.account = exchange::AccountId{account};
    cmd.set_amount(amount);
    cmd.set_settlement_date(result.date);
    out.push_back(cmd);
  }
  return out;
}

}  // namespace cfx::settlement
