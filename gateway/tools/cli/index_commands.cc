// The `index` commands of the cfx tool that ask the exchange: show,
// history and explain (`index recompute` is index_tool.h's).

#include <CLI/CLI.hpp>
#include <chrono>
#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "gateway/config/instrument_table.h"
#include "gateway/tools/cli/command_groups.h"
#include "gateway/tools/cli/index_render.h"
#include "gateway/tools/cli/render.h"
#include "gateway/tools/cli/text.h"
#include "index/index_service.h"

namespace cfx::gateway::cli {

namespace w = cfx::wire::v1;

namespace {

struct IndexArgs {
  std::string grade;
  std::string from;
  std::string to;
  std::string date;
  bool all_revisions = false;
};

// A usage error for a grade that is not printable ASCII without spaces
// (protobuf strings must be UTF-8: such a name could not even be sent), else
// kExitOk. Whether the grade exists is the exchange's answer.
int CheckGrade(const std::string& grade) {
  for (const char ch : grade) {
    if (ch <= 0x20 || ch >= 0x7f) {
      return Fail(kExitUsage, "GRADE: not a grade name, e.g. B200-STD");
    }
  }
  return kExitOk;
}

// Sends an IndexQuery and collects its IndexPrintLists into *out. Returns
// kExitOk, or the exit code of a printed error.
int QueryIndex(Connection& c, const std::string& grade, const std::string& from,
               const std::string& to, std::vector<w::IndexPrint>* out,
               bool all_revisions = false) {
  w::Envelope e;
  w::IndexQuery* q = e.mutable_index_query();
  q->set_request_id(RequestId());
  q->set_grade(grade);
  q->set_from_date(from);
  q->set_to_date(to);
  q->set_all_revisions(all_revisions);
  const uint64_t id = q->request_id();
  if (const int rc = c.Send(e); rc != kExitOk) return rc;
  w::IndexPrintList all;
  const int rc = AwaitParts(c, "index query", "the index prints", id,
                            &w::Envelope::has_index_print_list,
                            &w::Envelope::index_print_list, &all,
                            [&](const w::IndexPrintList& l) {
                              all.mutable_prints()->MergeFrom(l.prints());
                            });
  out->insert(out->end(), all.prints().begin(), all.prints().end());
  return rc;
}

int RunIndexShow(const GlobalOptions& g, const IndexArgs& a) {
  if (const int rc = CheckGrade(a.grade); rc != kExitOk) return rc;
  Connection c(g);
  if (const int rc = c.Start(); rc != kExitOk) return rc;
  std::vector<w::IndexPrint> prints;
  if (const int rc = QueryIndex(c, a.grade, "", "", &prints); rc != kExitOk) {
    return rc;
  }
  if (prints.empty()) {
    return Fail(kExitRejected, "no print of CFX-" + a.grade + " yet");
  }
  Print(c.json() ? IndexPrintJson(prints.back()) + "\n"
                 : IndexPrintText(prints.back()));
  return kExitOk;
}

int RunIndexHistory(const GlobalOptions& g, const IndexArgs& a) {
  if (const int rc = CheckGrade(a.grade); rc != kExitOk) return rc;
  if (const int rc = CheckDate(a.from, "--from"); rc != kExitOk) return rc;
  if (const int rc = CheckDate(a.to, "--to"); rc != kExitOk) return rc;
  Connection c(g);
  if (const int rc = c.Start(); rc != kExitOk) return rc;
  std::string to = a.to;
  if (a.from.empty() && to.empty()) {
    // No range: the days up to the latest print (the server's default span
    // before to_date).
    std::vector<w::IndexPrint> latest;
    if (const int rc = QueryIndex(c, a.grade, "", "", &latest); rc != kExitOk) {
      return rc;
    }
    if (latest.empty()) {
      if (!c.json()) Print("no prints of CFX-" + a.grade + "\n");
      return kExitOk;
    }
    to = latest.back().date();
  }
  std::vector<w::IndexPrint> prints;
  if (const int rc =
          QueryIndex(c, a.grade, a.from, to, &prints, a.all_revisions);
      rc != kExitOk) {
    return rc;
  }
  if (c.json()) {
    for (const w::IndexPrint& p : prints) PrintJson(IndexPrintJson(p));
  } else if (prints.empty()) {
    Print("no prints of CFX-" + a.grade + " in that range\n");
  } else {
    Print(IndexHistoryText(prints, /*computed_at=*/a.all_revisions));
  }
  return kExitOk;
}

int RunIndexExplain(const GlobalOptions& g, const IndexArgs& a) {
  if (const int rc = CheckGrade(a.grade); rc != kExitOk) return rc;
  if (const int rc = CheckDate(a.date, "DATE"); rc != kExitOk) return rc;
  Connection c(g);
  if (const int rc = c.Start(); rc != kExitOk) return rc;
  w::Envelope e;
  w::IndexExplainRequest* r = e.mutable_index_explain_request();
  r->set_request_id(RequestId());
  r->set_grade(a.grade);
  r->set_date(a.date);
  const uint64_t id = r->request_id();
  if (const int rc = c.Send(e); rc != kExitOk) return rc;
  // A long explanation comes in parts: the first has the print, the notes
  // and the partitions; every part has more trades.
  w::IndexExplanation x;
  const int rc = AwaitParts(c, "index explain", "the index explanation", id,
                            &w::Envelope::has_index_explanation,
                            &w::Envelope::index_explanation, &x,
                            [&](const w::IndexExplanation& part) {
                              x.mutable_trades()->MergeFrom(part.trades());
                              x.mutable_excluded()->MergeFrom(part.excluded());
                            });
  if (rc != kExitOk) return rc;
  if (!c.json()) {
    Print(IndexExplanationText(x));
    return kExitOk;
  }
  // The print reads as everywhere else (IndexPrintJson); the rest of the
  // explanation is the message's JSON.
  w::IndexExplanation rest = x;
  rest.clear_print();
  const std::string others = ProtoJson(rest);
  Print("{\"print\":" + IndexPrintJson(x.print()) +
        (others.size() > 2 ? "," + others.substr(1) : "}") + "\n");
  return kExitOk;
}

}  // namespace

void AddIndexCommands(CLI::App& app, const std::shared_ptr<GlobalOptions>& g,
                      int* exit_code) {
  CLI::App* index_group = nullptr;
  for (CLI::App* sub : app.get_subcommands(
           [](CLI::App* a) { return a->get_name() == "index"; })) {
    index_group = sub;
  }
  if (index_group == nullptr) {
    index_group = app.add_subcommand("index", "The CFX index (docs/cli.md)");
    index_group->require_subcommand(1);
  }
  auto ia = std::make_shared<IndexArgs>();
  CLI::App* ishow = index_group->add_subcommand(
      "show", "Show the latest print of CFX-GRADE, with every field");
  ishow->add_option("GRADE", ia->grade, "Grade, e.g. B200-STD")->required();
  ishow->callback([g, ia, exit_code] { *exit_code = RunIndexShow(*g, *ia); });
  CLI::App* ihistory = index_group->add_subcommand(
      "history",
      "One row per day (at most 1,000 days; default: those up to the latest "
      "print)");
  ihistory->add_option("GRADE", ia->grade, "Grade, e.g. B200-STD")->required();
  ihistory->add_option("--from", ia->from,
                       "First day, YYYY-MM-DD (default: 999 days before "
                       "--to)");
  ihistory->add_option("--to", ia->to,
                       "Last day, YYYY-MM-DD (default: the latest print)");
  ihistory->add_flag(
      "--all-revisions", ia->all_revisions,
      "Every revision of each day (the fixing, then each "
      "restatement, with its computed-at time), not only "
      "the latest; at most " +
          std::to_string(index::IndexService::kMaxRevisionsPerRequest) +
          " prints");
  ihistory->callback(
      [g, ia, exit_code] { *exit_code = RunIndexHistory(*g, *ia); });
  CLI::App* iexplain = index_group->add_subcommand(
      "explain",
      "How a print came about: notes, contributing trades (firms "
      "anonymised), partitions, excluded trades");
  iexplain->add_option("GRADE", ia->grade, "Grade, e.g. B200-STD")->required();
  iexplain->add_option("DATE", ia->date,
                       "Fixing date, YYYY-MM-DD (default: the latest print)");
  iexplain->callback(
      [g, ia, exit_code] { *exit_code = RunIndexExplain(*g, *ia); });
}

}  // namespace cfx::gateway::cli
