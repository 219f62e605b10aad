#pragma once

#include <functional>
#include <utility>

namespace cfx::gateway {

// How a gateway reads the index and settlement services, which apply the
// durable events on a thread of their own (gateway/server/service_feed.h):
// an answer that reads them is handed over as a closure and runs on the
// gateway thread once the services have applied every event the gateway
// had handed them when the request arrived, with the services' state held
// still while it runs. So a query answered after event N was delivered to
// the gateways sees the services' state after N (read-your-writes), and the
// gateway thread never waits for a settlement run.
//
// The answer may run at once (the services are caught up) or later, from
// the gateway loop; answers run in the order they were handed over. A
// closure must capture what it needs by value and find its session again
// by id: the session may be gone by then, and the answer is then dropped.
//
// The answers waiting are bounded: Read() returns false, without running
// the answer, when the queue is full, and the interface then refuses the
// request as busy (back-pressure, like a full producer ring).
//
// Thread: the gateway thread.
class ServiceReads {
 public:
  using Answer = std::function<void()>;
  virtual ~ServiceReads() = default;
  virtual bool Read(Answer answer) = 0;
};

// Runs `answer` through `reads`, or at once without one (the services are
// then read on the calling thread only, as in a test of one gateway).
// false: refused busy, `answer` will not run.
inline bool ReadServices(ServiceReads* reads, ServiceReads::Answer answer) {
  if (reads == nullptr) {
    answer();
    return true;
  }
  return reads->Read(std::move(answer));
}

}  // namespace cfx::gateway
