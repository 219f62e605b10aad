#pragma once

// A logged-on protobuf client over loopback for the `cfx-bench abuse`
// workloads: full protobuf encoding and parsing (the abuse workloads send
// at modest rates, so the client's cost does not matter), blocking writes,
// reads bounded by a deadline.

#include <cstdint>
#include <string>

#include "cfx/wire/v1/wire.pb.h"
#include "exchange/core/status.h"
#include "gateway/pb/frame.h"

namespace cfx::bench {

class PbClient {
 public:
  PbClient() = default;
  PbClient(const PbClient&) = delete;
  PbClient& operator=(const PbClient&) = delete;
  ~PbClient();

  // Connects to 127.0.0.1:port and logs on with API key `key` and its
  // `secret`. kUnavailable when the server does not answer,
  // kFailedPrecondition when it refuses the logon.
  Status ConnectAndLogon(uint16_t port, const std::string& key,
                         const std::string& secret);

  // Queues one message; Flush() writes every queued one.
  void Queue(const wire::v1::Envelope& e);
  Status Flush();

  // The next server message into *e: true when one arrived by `deadline_ns`
  // (NowNanos()), false at the deadline. kUnavailable/kDataLoss when the
  // connection broke or sent a malformed frame.
  Result<bool> Next(int64_t deadline_ns, wire::v1::Envelope* e);

 private:
  int fd_ = -1;
  gateway::pb::FrameReader reader_;
  std::string out_;
};

// The client order id this message answers, when it acknowledges a new
// order (ExecutionReport NEW or REJECTED) or refuses one (SessionReject);
// 0 otherwise. *rejected tells which.
uint64_t AnsweredClientOrderId(const wire::v1::Envelope& e, bool* rejected);

}  // namespace cfx::bench
