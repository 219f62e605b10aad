#include "settlement/ledger.h"

#include <gtest/gtest.h>
#include <rocksdb/db.h>
#include <rocksdb/options.h>

#include <algorithm>
#include <cstdint>
#include <map>
#include <memory>
#include <random>
#include <string>
#include <utility>
#include <vector>

#include "tests/support/temp_dir.h"

namespace cfx::settlement {
namespace {

constexpr int64_t kDate = 20791;  // 2026-12-04
constexpr int64_t kNextDate = kDate + 1;

// Accounts 1, 2 belong to member 1; 3, 4 to member 2; 5, 6 to member 3.
LedgerConfig Config() {
  LedgerConfig c;
  c.account_member = {0, 1, 1, 2, 2, 3, 3};
  return c;
}

Movement M(int64_t date, MovementKind kind, uint32_t account, uint64_t ref,
           int64_t amount) {
  Movement m;
  m.date = date;
  m.kind = kind;
  m.account = account;
  m.ref = ref;
  m.amount.micros = amount;
  return m;
}
Movement Vm(uint32_t account, uint64_t ref, int64_t amount,
            int64_t date = kDate) {
  return M(date, MovementKind::kVariationMargin, account, ref, amount);
}
Movement Spot(uint32_t account, uint64_t ref, int64_t amount,
              int64_t date = kDate) {
  return M(date, MovementKind::kSpotCash, account, ref, amount);
}
Movement Deposit(uint32_t account, uint64_t ref, int64_t amount,
                 int64_t date = kDate) {
  return M(date, MovementKind::kDeposit, account, ref, amount);
}
Movement Withdrawal(uint32_t account, uint64_t ref, int64_t amount,
                    int64_t date = kDate) {
  return M(date, MovementKind::kWithdrawal, account, ref, amount);
}

// A balanced run: contract 7 moves 7.3 $ from account 3 to account 1,
// contract 8 moves 1 $ from account 5 to account 4, and a spot trade pays
// 2 $ from account 2 to account 6.
std::vector<Movement> SampleRun() {
  return {Vm(1, 7, 7'300'000),     Vm(3, 7, -7'300'000),
          Vm(4, 8, 1'000'000),     Vm(5, 8, -1'000'000),
          Spot(2, 99, -2'000'000), Spot(6, 99, 2'000'000)};
}

// Everything observable about a ledger, for "nothing changed" checks.
struct Snapshot {
  std::vector<int64_t> balances;
  std::vector<int64_t> member_balances;
  int64_t house = 0;
  std::vector<int64_t> dates;
  std::map<int64_t, std::string> reports;
  std::map<int64_t, std::vector<Movement>> movements;
  friend bool operator==(const Snapshot&, const Snapshot&) = default;
};

Snapshot Take(const Ledger& l, std::vector<int64_t> extra_dates = {}) {
  Snapshot s;
  for (uint32_t a = 0; a <= 7; ++a) s.balances.push_back(l.Balance(a));
  for (uint32_t m = 0; m <= 4; ++m)
    s.member_balances.push_back(l.MemberBalance(m));
  s.house = l.HouseBalance();
  s.dates = l.SettledDates();
  for (int64_t d : s.dates) {
    s.reports[d] = l.Report(d).value_or("<none>");
    extra_dates.push_back(d);
  }
  for (int64_t d : extra_dates) s.movements[d] = l.Movements(d);
  return s;
}

TEST(LedgerTest, RunBooksMovementsAndBalances) {
  auto ledger = Ledger::InMemory(Config());
  Result<RunOutcome> r = ledger->PostRun(kDate, SampleRun(), "report-1");
  ASSERT_TRUE(r.has_value()) << r.error().ToString();
  EXPECT_FALSE(r.value().already_settled);
  EXPECT_EQ(r.value().report, "report-1");

  EXPECT_EQ(ledger->Balance(1), 7'300'000);
  EXPECT_EQ(ledger->Balance(2), -2'000'000);
  EXPECT_EQ(ledger->Balance(3), -7'300'000);
  EXPECT_EQ(ledger->Balance(4), 1'000'000);
  EXPECT_EQ(ledger->Balance(5), -1'000'000);
  EXPECT_EQ(ledger->Balance(6), 2'000'000);
  EXPECT_EQ(ledger->Balance(99), 0);  // unknown account
  EXPECT_TRUE(ledger->IsSettled(kDate));
  EXPECT_FALSE(ledger->IsSettled(kNextDate));
  EXPECT_EQ(ledger->SettledDates(), std::vector<int64_t>{kDate});
  EXPECT_EQ(ledger->Report(kDate), "report-1");
  EXPECT_EQ(ledger->Report(kNextDate), std::nullopt);

  std::vector<Movement> expected = {
      Vm(1, 7, 7'300'000),  Vm(3, 7, -7'300'000),    Vm(4, 8, 1'000'000),
      Vm(5, 8, -1'000'000), Spot(2, 99, -2'000'000), Spot(6, 99, 2'000'000)};
  EXPECT_EQ(ledger->Movements(kDate), expected);
  EXPECT_TRUE(ledger->Movements(kNextDate).empty());
}

TEST(LedgerTest, SettledDatesAscendAndEmptyRunIsAllowed) {
  auto ledger = Ledger::InMemory(Config());
  ASSERT_TRUE(ledger->PostRun(kNextDate, {}, "empty").has_value());
  std::vector<Movement> run = SampleRun();
  ASSERT_TRUE(ledger->PostRun(kDate, run, "r").has_value());
  EXPECT_EQ(ledger->SettledDates(), (std::vector<int64_t>{kDate, kNextDate}));
  EXPECT_EQ(ledger->Report(kNextDate), "empty");
  Result<RunOutcome> again = ledger->PostRun(kNextDate, {}, "empty");
  ASSERT_TRUE(again.has_value());
  EXPECT_TRUE(again.value().already_settled);
}

TEST(LedgerTest, RerunWithSameMovementsInAnotherOrderIsNoOp) {
  auto ledger = Ledger::InMemory(Config());
  ASSERT_TRUE(ledger->PostRun(kDate, SampleRun(), "report-1").has_value());
  const Snapshot before = Take(*ledger);

  std::vector<Movement> shuffled = SampleRun();
  std::reverse(shuffled.begin(), shuffled.end());
  std::swap(shuffled[1], shuffled[4]);
  Result<RunOutcome> r = ledger->PostRun(kDate, shuffled, "report-1");
  ASSERT_TRUE(r.has_value()) << r.error().ToString();
  EXPECT_TRUE(r.value().already_settled);
  EXPECT_EQ(r.value().report, "report-1");
  EXPECT_EQ(Take(*ledger), before);
}

TEST(LedgerTest, RerunWithOneDifferentAmountIsRefusedAndChangesNothing) {
  auto ledger = Ledger::InMemory(Config());
  ASSERT_TRUE(ledger->PostRun(kDate, SampleRun(), "report-1").has_value());
  const Snapshot before = Take(*ledger);

  std::vector<Movement> changed = SampleRun();
  changed[0].amount.micros = 7'310'000;
  changed[1].amount.micros = -7'310'000;  // still balanced
  Result<RunOutcome> r = ledger->PostRun(kDate, changed, "report-1");
  ASSERT_FALSE(r.has_value());
  EXPECT_EQ(r.error().code(), StatusCode::kFailedPrecondition);
  EXPECT_EQ(r.error().message(),
            "date 2026-12-04 already settled differently: account 1 "
            "VARIATION_MARGIN ref 7: stored 7300000, now 7310000");
  EXPECT_EQ(Take(*ledger), before);
}

TEST(LedgerTest, RerunWithMissingOrExtraMovementOrOtherReportIsRefused) {
  auto ledger = Ledger::InMemory(Config());
  ASSERT_TRUE(ledger->PostRun(kDate, SampleRun(), "report-1").has_value());
  const Snapshot before = Take(*ledger);

  std::vector<Movement> fewer = SampleRun();
  fewer.erase(fewer.begin() + 2, fewer.begin() + 4);  // contract 8
  Result<RunOutcome> r = ledger->PostRun(kDate, fewer, "report-1");
  ASSERT_FALSE(r.has_value());
  EXPECT_EQ(r.error().code(), StatusCode::kFailedPrecondition);
  EXPECT_NE(r.error().message().find(
                "already settled differently: account 4 VARIATION_MARGIN "
                "ref 8: stored 1000000, now none"),
            std::string::npos)
      << r.error().message();

  std::vector<Movement> more = SampleRun();
  more.push_back(Spot(1, 100, 5));
  more.push_back(Spot(2, 100, -5));
  r = ledger->PostRun(kDate, more, "report-1");
  ASSERT_FALSE(r.has_value());
  EXPECT_NE(r.error().message().find(
                "account 1 SPOT_CASH ref 100: stored none, now 5"),
            std::string::npos)
      << r.error().message();

  r = ledger->PostRun(kDate, SampleRun(), "report-2");
  ASSERT_FALSE(r.has_value());
  EXPECT_EQ(r.error().code(), StatusCode::kFailedPrecondition);
  EXPECT_NE(r.error().message().find("already settled differently: report"),
            std::string::npos)
      << r.error().message();
  EXPECT_EQ(Take(*ledger), before);
}

// A run refused by `check` leaves an earlier run and a transfer untouched.
struct RefusalCase {
  const char* name;
  std::vector<Movement> movements;
  StatusCode code;
  std::string message_part;
};

TEST(LedgerTest, InvalidRunsAreRefusedWithReasonsAndWriteNothing) {
  const std::vector<RefusalCase> cases = {
      {"duplicate key",
       {Vm(1, 7, 5), Vm(3, 7, -5), Vm(1, 7, 5), Vm(3, 8, -5)},
       StatusCode::kFailedPrecondition,
       "keys unique: account 1 VARIATION_MARGIN ref 7 appears more than "
       "once in the run of 2026-12-05"},
      {"vm not zero for a contract",
       {Vm(1, 7, 5), Vm(3, 7, -5), Vm(2, 9, 10), Vm(4, 9, -7), Spot(5, 1, -3)},
       StatusCode::kFailedPrecondition,
       "variation margin sums to zero per contract: contract 9 "
       "(VARIATION_MARGIN) sums to 3 in the run of 2026-12-05"},
      {"final settlement not zero for a contract",
       {M(kNextDate, MovementKind::kFinalSettlement, 1, 4, 8),
        M(kNextDate, MovementKind::kFinalSettlement, 3, 4, -9),
        Spot(5, 1, 1, kNextDate)},
       StatusCode::kFailedPrecondition,
       "variation margin sums to zero per contract: contract 4 "
       "(FINAL_SETTLEMENT) sums to -1"},
      {"cash not conserved",
       {Vm(1, 7, 5), Vm(3, 7, -5), Spot(2, 50, -2'000'000),
        Spot(6, 50, 1'999'999)},
       StatusCode::kFailedPrecondition,
       "cash conserved: the movements sum to -1 in the run of 2026-12-05"},
      {"unknown account",
       {Vm(1, 7, 5), Vm(42, 7, -5)},
       StatusCode::kInvalidArgument,
       "unknown account 42"},
      {"account zero",
       {Vm(0, 7, 5), Vm(1, 7, -5)},
       StatusCode::kInvalidArgument,
       "unknown account 0"},
      {"wrong date",
       {Vm(1, 7, 5, kNextDate), Vm(3, 7, -5, kDate)},
       StatusCode::kInvalidArgument,
       "movement date 2026-12-04 account 3 VARIATION_MARGIN ref 7: not of "
       "the run's date 2026-12-05"},
      {"zero amount",
       {Vm(1, 7, 5), Vm(3, 7, -5), Spot(4, 3, 0)},
       StatusCode::kInvalidArgument,
       "zero amount: movement date 2026-12-05 account 4 SPOT_CASH ref 3"},
      {"deposit in a run",
       {Vm(1, 7, 5), Vm(3, 7, -5), Deposit(4, 3, 5)},
       StatusCode::kInvalidArgument,
       "not a settlement run kind"},
      {"kind out of range",
       {M(kNextDate, static_cast<MovementKind>(77), 1, 1, 5)},
       StatusCode::kInvalidArgument,
       "kind 77"},
  };
  for (const RefusalCase& c : cases) {
    SCOPED_TRACE(c.name);
    auto ledger = Ledger::InMemory(Config());
    ASSERT_TRUE(ledger->PostTransfer(Deposit(2, 1, 100)).ok());
    ASSERT_TRUE(ledger->PostRun(kDate, SampleRun(), "r1").has_value());
    const Snapshot before = Take(*ledger, {kNextDate});

    std::vector<Movement> run = c.movements;
    for (Movement& m : run) {
      if (c.message_part.find("not of the run's date") == std::string::npos) {
        m.date = kNextDate;
      }
    }
    Result<RunOutcome> r = ledger->PostRun(kNextDate, run, "r2");
    ASSERT_FALSE(r.has_value());
    EXPECT_EQ(r.error().code(), c.code) << r.error().ToString();
    EXPECT_NE(r.error().message().find(c.message_part), std::string::npos)
        << r.error().message();
    EXPECT_EQ(Take(*ledger, {kNextDate}), before);
    EXPECT_FALSE(ledger->IsSettled(kNextDate));
  }
}

TEST(LedgerTest, InvariantsAreCheckedInOrder) {
  auto ledger = Ledger::InMemory(Config());
  // Duplicate key and broken VM and broken cash: the key check wins.
  Result<RunOutcome> r =
      ledger->PostRun(kDate, {Vm(1, 7, 5), Vm(1, 7, 5), Spot(2, 1, 1)}, "");
  ASSERT_FALSE(r.has_value());
  EXPECT_EQ(r.error().message().rfind("keys unique", 0), 0u)
      << r.error().message();
  // Broken VM (two contracts) and cash: VM wins, naming the lowest ref.
  r = ledger->PostRun(kDate, {Vm(1, 9, 5), Vm(1, 8, 4), Spot(2, 1, 1)}, "");
  ASSERT_FALSE(r.has_value());
  EXPECT_EQ(r.error().message().rfind(
                "variation margin sums to zero per contract: contract 8 ", 0),
            0u)
      << r.error().message();
  EXPECT_TRUE(ledger->SettledDates().empty());
}

TEST(LedgerTest, MembersAndHouseAreAtZeroAfterRuns) {
  auto ledger = Ledger::InMemory(Config());
  ASSERT_TRUE(ledger->PostTransfer(Deposit(1, 1, 50'000'000)).ok());
  ASSERT_TRUE(ledger->PostRun(kDate, SampleRun(), "a").has_value());
  ASSERT_TRUE(ledger
                  ->PostRun(kNextDate,
                            {Vm(2, 7, -1, kNextDate), Vm(6, 7, 1, kNextDate)},
                            "b")
                  .has_value());
  for (uint32_t m = 0; m <= 4; ++m) {
    SCOPED_TRACE("member=" + std::to_string(m));
    EXPECT_EQ(ledger->MemberBalance(m), 0);
  }
  EXPECT_EQ(ledger->HouseBalance(), 0);

  // The same holds computed from the entries of each date.
  for (int64_t d : {kDate, kNextDate}) {
    std::map<std::pair<int, uint32_t>, int64_t> net;
    for (const Entry& e : ledger->Entries(d)) {
      net[{static_cast<int>(e.from.kind), e.from.id}] -= e.amount.micros;
      net[{static_cast<int>(e.to.kind), e.to.id}] += e.amount.micros;
    }
    for (const auto& [book, amount] : net) {
      if (book.first == static_cast<int>(BookKind::kMember) ||
          book.first == static_cast<int>(BookKind::kHouse)) {
        EXPECT_EQ(amount, 0) << "book kind " << book.first << " id "
                             << book.second << " date " << d;
      }
    }
  }
}

TEST(LedgerTest, EntriesFollowTheChain) {
  auto ledger = Ledger::InMemory(Config());
  ASSERT_TRUE(ledger->PostTransfer(Deposit(3, 11, 9'000'000)).ok());
  ASSERT_TRUE(ledger->PostTransfer(Withdrawal(3, 12, -4'000'000)).ok());
  ASSERT_TRUE(
      ledger->PostRun(kDate, {Vm(1, 7, 7'300'000), Vm(3, 7, -7'300'000)}, "")
          .has_value());
  const std::vector<Entry> entries = ledger->Entries(kDate);
  ASSERT_EQ(entries.size(), 8u);
  const BookId bank{BookKind::kBank, 0};
  const BookId house{BookKind::kHouse, 0};
  const BookId member1{BookKind::kMember, 1};
  const BookId member2{BookKind::kMember, 2};
  const BookId account1{BookKind::kAccount, 1};
  const BookId account3{BookKind::kAccount, 3};
  struct Leg {
    MovementKind kind;
    uint32_t leg;
    BookId from, to;
    int64_t amount;
  };
  const std::vector<Leg> expected = {
      // Deposit: bank -> member 2 -> account 3.
      {MovementKind::kDeposit, 0, bank, member2, 9'000'000},
      {MovementKind::kDeposit, 1, member2, account3, 9'000'000},
      // Withdrawal: account 3 -> member 2 -> bank.
      {MovementKind::kWithdrawal, 0, account3, member2, 4'000'000},
      {MovementKind::kWithdrawal, 1, member2, bank, 4'000'000},
      // VM received: house -> member 1 -> account 1.
      {MovementKind::kVariationMargin, 0, house, member1, 7'300'000},
      {MovementKind::kVariationMargin, 1, member1, account1, 7'300'000},
      // VM paid: account 3 -> member 2 -> house.
      {MovementKind::kVariationMargin, 0, account3, member2, 7'300'000},
      {MovementKind::kVariationMargin, 1, member2, house, 7'300'000},
  };
  for (std::size_t i = 0; i < expected.size(); ++i) {
    SCOPED_TRACE("entry " + std::to_string(i));
    EXPECT_EQ(entries[i].movement.kind, expected[i].kind);
    EXPECT_EQ(entries[i].leg, expected[i].leg);
    EXPECT_EQ(entries[i].from, expected[i].from);
    EXPECT_EQ(entries[i].to, expected[i].to);
    EXPECT_EQ(entries[i].amount.micros, expected[i].amount);
  }
  EXPECT_EQ(entries[6].movement, Vm(3, 7, -7'300'000));
  EXPECT_EQ(ledger->Balance(3), 9'000'000 - 4'000'000 - 7'300'000);
}

TEST(LedgerTest, MemberFilterShowsOnlyThatMembersAccounts) {
  auto ledger = Ledger::InMemory(Config());
  ASSERT_TRUE(ledger->PostTransfer(Deposit(4, 1, 10)).ok());
  ASSERT_TRUE(ledger->PostTransfer(Deposit(2, 2, 10)).ok());
  ASSERT_TRUE(ledger->PostRun(kDate, SampleRun(), "").has_value());

  const std::vector<Movement> mine = ledger->Movements(kDate, 1);
  const std::vector<Movement> expected = {
      Deposit(2, 2, 10), Vm(1, 7, 7'300'000), Spot(2, 99, -2'000'000)};
  EXPECT_EQ(mine, expected);
  const std::vector<Entry> entries = ledger->Entries(kDate, 1);
  ASSERT_EQ(entries.size(), 6u);
  for (const Entry& e : entries) {
    EXPECT_TRUE(e.movement.account == 1 || e.movement.account == 2)
        << e.movement.account;
    for (const BookId& b : {e.from, e.to}) {
      if (b.kind == BookKind::kAccount) {
        EXPECT_TRUE(b.id == 1 || b.id == 2) << b.id;
      }
      if (b.kind == BookKind::kMember) {
        EXPECT_EQ(b.id, 1u);
      }
    }
  }
  for (const Movement& m : ledger->Movements(kDate, 2)) {
    EXPECT_TRUE(m.account == 3 || m.account == 4) << m.account;
  }
  EXPECT_EQ(ledger->Movements(kDate, 2).size(), 3u);
  EXPECT_TRUE(ledger->Movements(kDate, 9).empty());  // no such member
  EXPECT_EQ(ledger->Movements(kDate).size(), 8u);
}

TEST(LedgerTest, TransfersAreIdempotentPerKey) {
  auto ledger = Ledger::InMemory(Config());
  ASSERT_TRUE(ledger->PostTransfer(Deposit(1, 5, 1'000'000)).ok());
  ASSERT_TRUE(ledger->PostTransfer(Deposit(1, 5, 1'000'000)).ok());
  EXPECT_EQ(ledger->Balance(1), 1'000'000);

  Status st = ledger->PostTransfer(Deposit(1, 5, 2'000'000));
  EXPECT_EQ(st.code(), StatusCode::kFailedPrecondition);
  EXPECT_NE(st.message().find("already booked: stored 1000000, now 2000000"),
            std::string::npos)
      << st.message();
  EXPECT_EQ(ledger->Balance(1), 1'000'000);

  // A withdrawal replayed after the balance fell is still a no-op.
  ASSERT_TRUE(ledger->PostTransfer(Withdrawal(1, 6, -1'000'000)).ok());
  EXPECT_EQ(ledger->Balance(1), 0);
  EXPECT_TRUE(ledger->PostTransfer(Withdrawal(1, 6, -1'000'000)).ok());
  EXPECT_EQ(ledger->Balance(1), 0);
  EXPECT_EQ(ledger->Movements(kDate).size(), 2u);
  EXPECT_FALSE(ledger->IsSettled(kDate));

  // Several transfers of one account and day, posted out of ref order.
  for (uint64_t ref : {9u, 3u, 5u}) {
    ASSERT_TRUE(ledger->PostTransfer(Deposit(2, ref, 100 + ref)).ok());
  }
  EXPECT_TRUE(ledger->PostTransfer(Deposit(2, 5, 105)).ok());
  EXPECT_EQ(ledger->PostTransfer(Deposit(2, 3, 104)).code(),
            StatusCode::kFailedPrecondition);
  const std::vector<Movement> expected = {
      Deposit(1, 5, 1'000'000), Deposit(2, 3, 103), Deposit(2, 5, 105),
      Deposit(2, 9, 109), Withdrawal(1, 6, -1'000'000)};
  EXPECT_EQ(ledger->Movements(kDate), expected);
  EXPECT_EQ(ledger->Balance(2), 103 + 105 + 109);
}

TEST(LedgerTest, BadTransfersAreRefused) {
  auto ledger = Ledger::InMemory(Config());
  ASSERT_TRUE(ledger->PostTransfer(Deposit(1, 1, 500)).ok());

  Status st = ledger->PostTransfer(Withdrawal(1, 2, -501));
  EXPECT_EQ(st.code(), StatusCode::kFailedPrecondition);
  EXPECT_NE(st.message().find("withdrawal exceeds balance"), std::string::npos)
      << st.message();
  EXPECT_EQ(ledger->PostTransfer(Deposit(1, 3, -5)).code(),
            StatusCode::kInvalidArgument);
  EXPECT_EQ(ledger->PostTransfer(Deposit(1, 3, 0)).code(),
            StatusCode::kInvalidArgument);
  EXPECT_EQ(ledger->PostTransfer(Withdrawal(1, 3, 5)).code(),
            StatusCode::kInvalidArgument);
  EXPECT_EQ(ledger->PostTransfer(Withdrawal(1, 3, INT64_MIN)).code(),
            StatusCode::kInvalidArgument);
  EXPECT_EQ(ledger->PostTransfer(Vm(1, 3, 5)).code(),
            StatusCode::kInvalidArgument);
  st = ledger->PostTransfer(Deposit(7, 3, 5));
  EXPECT_EQ(st.code(), StatusCode::kInvalidArgument);
  EXPECT_NE(st.message().find("unknown account 7"), std::string::npos);
  EXPECT_EQ(ledger->PostTransfer(Deposit(1, 3, INT64_MAX)).code(),
            StatusCode::kInvalidArgument);  // balance would overflow

  EXPECT_EQ(ledger->Balance(1), 500);
  EXPECT_EQ(ledger->Movements(kDate).size(), 1u);
}

TEST(LedgerTest, TransfersOnARunDateDoNotAffectItsIdempotency) {
  auto ledger = Ledger::InMemory(Config());
  ASSERT_TRUE(ledger->PostRun(kDate, SampleRun(), "r").has_value());
  ASSERT_TRUE(ledger->PostTransfer(Deposit(3, 77, 8'000'000)).ok());
  Result<RunOutcome> r = ledger->PostRun(kDate, SampleRun(), "r");
  ASSERT_TRUE(r.has_value()) << r.error().ToString();
  EXPECT_TRUE(r.value().already_settled);
  EXPECT_EQ(ledger->Balance(3), 700'000);
  // Transfers sort first: their kinds come before the run kinds.
  EXPECT_EQ(ledger->Movements(kDate).front(), Deposit(3, 77, 8'000'000));
}

TEST(LedgerTest, ReopenedLedgerHasTheSameState) {
  testing::TempDir dir;
  Snapshot before;
  {
    Result<std::unique_ptr<Ledger>> l = Ledger::Open(Config(), dir.path());
    ASSERT_TRUE(l.has_value()) << l.error().ToString();
    Ledger& ledger = *l.value();
    ASSERT_TRUE(ledger.PostTransfer(Deposit(3, 1, 20'000'000)).ok());
    ASSERT_TRUE(ledger.PostRun(kDate, SampleRun(), "report-1").has_value());
    ASSERT_TRUE(
        ledger.PostTransfer(Withdrawal(3, 2, -1'000'000, kNextDate)).ok());
    ASSERT_TRUE(ledger
                    .PostRun(kNextDate,
                             {Vm(3, 7, 2, kNextDate), Vm(1, 7, -2, kNextDate)},
                             std::string("bin\0ary", 7))
                    .has_value());
    before = Take(ledger);
  }
  Result<std::unique_ptr<Ledger>> l = Ledger::Open(Config(), dir.path());
  ASSERT_TRUE(l.has_value()) << l.error().ToString();
  Ledger& ledger = *l.value();
  EXPECT_EQ(Take(ledger), before);
  EXPECT_EQ(ledger.Balance(3), 20'000'000 - 7'300'000 - 1'000'000 + 2);
  EXPECT_EQ(ledger.Report(kNextDate), std::string("bin\0ary", 7));
  // Still idempotent, still refusing a different run, after reopening.
  Result<RunOutcome> r = ledger.PostRun(kDate, SampleRun(), "report-1");
  ASSERT_TRUE(r.has_value()) << r.error().ToString();
  EXPECT_TRUE(r.value().already_settled);
  std::vector<Movement> changed = SampleRun();
  changed[5].amount.micros = 3;
  EXPECT_FALSE(ledger.PostRun(kDate, changed, "report-1").has_value());
  EXPECT_TRUE(ledger.PostTransfer(Deposit(3, 1, 20'000'000)).ok());
  EXPECT_EQ(Take(ledger), before);
}

// Raw store access for corruption tests. The layout is the ledger's format
// version 1 (see ledger.cc).
void AppendBigEndian(std::string* out, uint64_t v, int bytes) {
  for (int i = bytes - 1; i >= 0; --i) {
    out->push_back(static_cast<char>((v >> (8 * i)) & 0xffu));
  }
}
uint64_t DateBits(int64_t date) {
  return static_cast<uint64_t>(date) ^ (uint64_t{1} << 63);
}
// The key of an account's movements of one date and kind.
std::string MovementKey(const Movement& m) {
  std::string k(1, 'm');
  AppendBigEndian(&k, DateBits(m.date), 8);
  k.push_back(static_cast<char>(m.kind));
  AppendBigEndian(&k, m.account, 4);
  return k;
}
// A stored (ref, amount) pair, little-endian.
std::string Pair(uint64_t ref, int64_t amount) {
  std::string v;
  for (int i = 0; i < 8; ++i) v.push_back(static_cast<char>(ref >> (8 * i)));
  const auto a = static_cast<uint64_t>(amount);
  for (int i = 0; i < 8; ++i) v.push_back(static_cast<char>(a >> (8 * i)));
  return v;
}
std::string RunKey(int64_t date) {
  std::string k(1, 'r');
  AppendBigEndian(&k, DateBits(date), 8);
  return k;
}

// Writes a valid ledger in `dir`, then applies `damage` with raw RocksDB.
template <typename F>
void MakeAndDamage(const std::string& dir, F damage) {
  {
    Result<std::unique_ptr<Ledger>> l = Ledger::Open(Config(), dir);
    ASSERT_TRUE(l.has_value()) << l.error().ToString();
    ASSERT_TRUE(l.value()->PostTransfer(Deposit(2, 1, 10)).ok());
    ASSERT_TRUE(l.value()->PostRun(kDate, SampleRun(), "r").has_value());
  }
  rocksdb::DB* raw = nullptr;
  rocksdb::Options options;
  ASSERT_TRUE(rocksdb::DB::Open(options, dir, &raw).ok());
  std::unique_ptr<rocksdb::DB> db(raw);
  damage(*db);
}

TEST(LedgerTest, CorruptStoreIsDataLossNotACrash) {
  struct Damage {
    const char* name;
    std::string key;
    std::optional<std::string> value;  // nullopt: delete the key
    StatusCode code;
    std::string message_part;
  };
  const std::vector<Damage> cases = {
      {"garbage movement value", MovementKey(Vm(3, 7, 0)), "\x01\x02\x03",
       StatusCode::kDataLoss,
       "account 3 VARIATION_MARGIN): value of 3 bytes, expected a positive "
       "multiple of 16"},
      {"changed movement amount", MovementKey(Vm(3, 7, 0)), Pair(7, 1),
       StatusCode::kDataLoss, "stored run of 2026-12-04 is inconsistent"},
      {"zero movement amount", MovementKey(Vm(3, 7, 0)), Pair(7, 0),
       StatusCode::kDataLoss, "ref 7: invalid amount 0"},
      {"refs out of order", MovementKey(Vm(3, 7, 0)),
       Pair(8, -1) + Pair(7, -7'299'999), StatusCode::kDataLoss,
       "refs not strictly ascending at ref 7"},
      {"deleted movement", MovementKey(Vm(3, 7, 0)), std::nullopt,
       StatusCode::kDataLoss, "inconsistent"},
      {"deleted run record", RunKey(kDate), std::nullopt, StatusCode::kDataLoss,
       "without a run record"},
      {"short run record", RunKey(kDate), "xy", StatusCode::kDataLoss,
       "value of 2 bytes"},
      {"run record count", RunKey(kDate),
       std::string("\x05\0\0\0\0\0\0\0\0\0\0\0\0\0\0\0r", 17),
       StatusCode::kDataLoss, "records 5 movements, found 6"},
      {"unknown key", "zzz", "1", StatusCode::kDataLoss, "unknown key 7a7a7a"},
      {"short movement key", "m123", "1", StatusCode::kDataLoss,
       "malformed movement key"},
      {"bad kind", MovementKey(M(kDate, static_cast<MovementKind>(9), 1, 0, 0)),
       Pair(1, 1), StatusCode::kDataLoss, "unknown kind"},
      {"positive withdrawal", MovementKey(Withdrawal(1, 0, 0)), Pair(1, 1),
       StatusCode::kDataLoss, "invalid amount 1"},
      {"bad version", "v", "abc", StatusCode::kDataLoss, "format version"},
      {"unknown account", MovementKey(Deposit(6000, 1, 0)), Pair(1, 1),
       StatusCode::kFailedPrecondition,
       "account 6000 is not in the configuration"},
  };
  for (const Damage& c : cases) {
    SCOPED_TRACE(c.name);
    testing::TempDir dir;
    MakeAndDamage(dir.path(), [&](rocksdb::DB& db) {
      rocksdb::Status s = c.value.has_value()
                              ? db.Put(rocksdb::WriteOptions(), c.key, *c.value)
                              : db.Delete(rocksdb::WriteOptions(), c.key);
      ASSERT_TRUE(s.ok()) << s.ToString();
    });
    Result<std::unique_ptr<Ledger>> l = Ledger::Open(Config(), dir.path());
    ASSERT_FALSE(l.has_value());
    EXPECT_EQ(l.error().code(), c.code) << l.error().ToString();
    EXPECT_NE(l.error().message().find(c.message_part), std::string::npos)
        << l.error().message();
  }
}

TEST(LedgerTest, StoreWithoutVersionButWithDataIsDataLoss) {
  testing::TempDir dir;
  MakeAndDamage(dir.path(), [](rocksdb::DB& db) {
    ASSERT_TRUE(db.Delete(rocksdb::WriteOptions(), "v").ok());
  });
  Result<std::unique_ptr<Ledger>> l = Ledger::Open(Config(), dir.path());
  ASSERT_FALSE(l.has_value());
  EXPECT_EQ(l.error().code(), StatusCode::kDataLoss);
  EXPECT_NE(l.error().message().find("no format version"), std::string::npos);
}

// Random runs over random accounts, each contract's VM summing to zero and
// spot trades paying buyer to seller, interleaved with deposits and
// withdrawals: cash is conserved and reopening gives the same state.
TEST(LedgerTest, RandomRunsConserveCashAndSurviveReopen) {
  for (uint32_t seed : {1u, 2u, 3u, 20261204u}) {
    SCOPED_TRACE("seed=" + std::to_string(seed));
    std::mt19937_64 rng(seed);
    LedgerConfig config;
    const uint32_t accounts = 40;
    config.account_member.assign(accounts + 1, 0);
    for (uint32_t a = 1; a <= accounts; ++a) {
      config.account_member[a] = 1 + static_cast<uint32_t>(rng() % 5);
    }
    testing::TempDir dir;
    Result<std::unique_ptr<Ledger>> opened = Ledger::Open(config, dir.path());
    ASSERT_TRUE(opened.has_value()) << opened.error().ToString();
    std::unique_ptr<Ledger> ledger = std::move(opened).value();
    auto pick = [&] { return 1 + static_cast<uint32_t>(rng() % accounts); };

    int64_t transfers = 0;
    uint64_t ref = 1;
    std::vector<std::vector<Movement>> runs;
    for (int64_t day = 0; day < 15; ++day) {
      const int64_t date = kDate + day;
      for (int i = 0; i < 5; ++i) {
        const uint32_t a = pick();
        const int64_t amount = 1 + static_cast<int64_t>(rng() % 5'000'000);
        const bool withdraw = rng() % 3 == 0;
        Movement m = withdraw ? Withdrawal(a, ref++, -amount, date)
                              : Deposit(a, ref++, amount, date);
        Status st = ledger->PostTransfer(m);
        if (st.ok()) {
          transfers += m.amount.micros;
        } else {
          ASSERT_EQ(st.code(), StatusCode::kFailedPrecondition)
              << st.ToString();
          ASSERT_LT(ledger->Balance(a) + m.amount.micros, 0);
        }
      }
      std::vector<Movement> run;
      for (uint64_t contract = 1; contract <= 4; ++contract) {
        std::vector<uint32_t> holders;
        for (uint32_t a = 1; a <= accounts; ++a) {
          if (rng() % 3 == 0) holders.push_back(a);
        }
        if (holders.size() < 2) continue;
        int64_t sum = 0;
        for (std::size_t i = 0; i + 1 < holders.size(); ++i) {
          int64_t amount =
              static_cast<int64_t>(rng() % 20'000'001) - 10'000'000;
          if (amount == 0) amount = 1;
          if (amount == -sum && i + 2 == holders.size()) {
            amount += amount > 0 ? 1 : -1;  // keeps the last one nonzero
          }
          sum += amount;
          run.push_back(Vm(holders[i], contract, amount, date));
        }
        run.push_back(Vm(holders.back(), contract, -sum, date));
      }
      for (int t = 0; t < 3; ++t) {
        const uint32_t buyer = pick();
        uint32_t seller = pick();
        if (seller == buyer) seller = buyer % accounts + 1;
        const int64_t cash = 1 + static_cast<int64_t>(rng() % 9'000'000);
        run.push_back(Spot(buyer, 1000 + ref, -cash, date));
        run.push_back(Spot(seller, 1000 + ref, cash, date));
        ++ref;
      }
      std::shuffle(run.begin(), run.end(), rng);
      Result<RunOutcome> r =
          ledger->PostRun(date, run, "day " + std::to_string(day));
      ASSERT_TRUE(r.has_value()) << r.error().ToString();
      runs.push_back(run);
    }
    int64_t total = 0;
    for (uint32_t a = 0; a <= accounts; ++a) total += ledger->Balance(a);
    EXPECT_EQ(total, transfers);
    EXPECT_EQ(ledger->HouseBalance(), 0);
    for (uint32_t m = 1; m <= 5; ++m) EXPECT_EQ(ledger->MemberBalance(m), 0);

    std::vector<int64_t> balances;
    for (uint32_t a = 0; a <= accounts; ++a) {
      balances.push_back(ledger->Balance(a));
    }
    std::vector<std::vector<Movement>> movements;
    for (int64_t day = 0; day < 15; ++day) {
      movements.push_back(ledger->Movements(kDate + day));
    }
    const std::vector<int64_t> dates = ledger->SettledDates();
    ASSERT_EQ(dates.size(), 15u);
    ledger.reset();

    opened = Ledger::Open(config, dir.path());
    ASSERT_TRUE(opened.has_value()) << opened.error().ToString();
    ledger = std::move(opened).value();
    EXPECT_EQ(ledger->SettledDates(), dates);
    for (uint32_t a = 0; a <= accounts; ++a) {
      EXPECT_EQ(ledger->Balance(a), balances[a]) << "account " << a;
    }
    for (int64_t day = 0; day < 15; ++day) {
      EXPECT_EQ(ledger->Movements(kDate + day), movements[day]);
      EXPECT_EQ(ledger->Report(kDate + day), "day " + std::to_string(day));
      std::vector<Movement> again = runs[static_cast<std::size_t>(day)];
      std::shuffle(again.begin(), again.end(), rng);
      Result<RunOutcome> r =
          ledger->PostRun(kDate + day, again, "day " + std::to_string(day));
      ASSERT_TRUE(r.has_value()) << r.error().ToString();
      EXPECT_TRUE(r.value().already_settled);
    }
  }
}

TEST(LedgerTest, LargeRunIsBookedAndReloaded) {
  // 10,000 accounts x 12 contracts: each contract's VM alternates +/-.
  LedgerConfig config;
  const uint32_t accounts = 10'000;
  config.account_member.assign(accounts + 1, 0);
  for (uint32_t a = 1; a <= accounts; ++a) {
    config.account_member[a] = 1 + a % 50;
  }
  std::vector<Movement> run;
  run.reserve(accounts * 12);
  for (uint64_t c = 1; c <= 12; ++c) {
    for (uint32_t a = 1; a <= accounts; ++a) {
      const int64_t amount = static_cast<int64_t>(c * 1000 + (a + 1) / 2);
      run.push_back(Vm(a, c, a % 2 == 0 ? amount : -amount));
    }
  }
  testing::TempDir dir;
  {
    Result<std::unique_ptr<Ledger>> l = Ledger::Open(config, dir.path());
    ASSERT_TRUE(l.has_value()) << l.error().ToString();
    ASSERT_TRUE(l.value()->PostRun(kDate, run, "big").has_value());
  }
  Result<std::unique_ptr<Ledger>> l = Ledger::Open(config, dir.path());
  ASSERT_TRUE(l.has_value()) << l.error().ToString();
  EXPECT_EQ(l.value()->Movements(kDate).size(), run.size());
  EXPECT_EQ(l.value()->Movements(kDate, 7).size(), run.size() / 50);
  EXPECT_EQ(l.value()->Balance(2), 78 * 1000 + 12 * 1);
  EXPECT_EQ(l.value()->HouseBalance(), 0);
}

}  // namespace
}  // namespace cfx::settlement
