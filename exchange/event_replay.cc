#include "exchange/event_replay.h"

#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "exchange/core/engine.h"
#include "exchange/recovery.h"

namespace cfx::exchange {
namespace {

// Hands the events of commands after `after` to `fn`.
struct Forwarder {
  Seq after;
  const std::function<void(const Event&)>* fn;

  static void Flush(void* self, const Event* events, std::size_t n) {
    const auto* f = static_cast<const Forwarder*>(self);
    for (std::size_t i = 0; i < n; ++i) {
      if (events[i].seq > f->after) (*f->fn)(events[i]);
    }
  }
};

}  // namespace

Status ReplayEvents(const Journal& journal, const EngineConfig& config,
                    Seq after, Seq through,
                    const std::function<void(const Event&)>& fn) {
  const Seq end = journal.last_seq();
  if (through > end) {
    return OutOfRangeError(
        "replay events: seq " + std::to_string(through.value) +
        " is beyond the journal's durable end " + std::to_string(end.value));
  }
  if (through < after) {
    return InvalidArgumentError(
        "replay events: through seq " + std::to_string(through.value) +
        " is before after seq " + std::to_string(after.value));
  }
  if (through == after) return Status::Ok();

  auto created = Engine::Create(config);
  if (!created.has_value()) return created.error();
  Engine& engine = *created.value();
  CFX_RETURN_IF_ERROR(SeedEngine(journal, engine));
  auto snapshot = journal.FindSnapshotAtOrBefore(after);
  if (!snapshot.has_value()) return snapshot.error();
  Seq start;
  if (snapshot.value().found) {
    CFX_RETURN_IF_ERROR(LoadSnapshotRecord(journal, snapshot.value(), engine));
    start = snapshot.value().seq;
  }

  Forwarder forwarder{after, &fn};
  std::vector<Event> buffer(256);
  EventSink sink(buffer.data(), buffer.size(), &Forwarder::Flush, &forwarder);
  const Status st = journal.ReplayRangeWithPayloads(
      start, through, [&](const Command& c, std::string_view payload) {
        engine.Apply(c, payload, sink);
        return Status::Ok();
      });
  sink.Flush();
  return st;
}

}  // namespace cfx::exchange
