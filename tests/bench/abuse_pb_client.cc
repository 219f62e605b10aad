#include "tests/bench/abuse_pb_client.h"

#include <poll.h>
#include <unistd.h>

#include <cerrno>
#include <chrono>
#include <cstring>

#include "gateway/pb/logon_signature.h"
#include "tests/bench/loopback_bench.h"

namespace cfx::bench {

namespace w = cfx::wire::v1;

PbClient::~PbClient() {
  if (fd_ >= 0) close(fd_);
}

Status PbClient::ConnectAndLogon(uint16_t port, const std::string& key,
                                 const std::string& secret) {
  CFX_RETURN_IF_ERROR(ConnectLoopback(port, &fd_));
  const int64_t wall = std::chrono::duration_cast<std::chrono::nanoseconds>(
                           std::chrono::system_clock::now().time_since_epoch())
                           .count();
  const std::string nonce = "cfx-bench-abuse-" + std::to_string(getpid()) +
                            "-" + std::to_string(NowNanos());
  w::Envelope e;
  w::Logon* l = e.mutable_logon();
  l->set_api_key(key);
  l->set_timestamp_ns(wall);
  l->set_nonce(nonce);
  l->set_signature(gateway::pb::LogonSignature(secret, key, wall, nonce));
  l->set_heartbeat_interval_ms(60'000);  // the client sends no heartbeats
  Queue(e);
  CFX_RETURN_IF_ERROR(Flush());
  w::Envelope answer;
  Result<bool> got = Next(NowNanos() + 5'000'000'000, &answer);
  if (!got.has_value()) return got.error();
  if (!got.value()) {
    return Status(StatusCode::kUnavailable, key + ": no answer to the Logon");
  }
  if (!answer.has_logon_ack()) {
    return FailedPreconditionError(
        key + ": logon refused: " + answer.ShortDebugString());
  }
  return Status::Ok();
}

void PbClient::Queue(const w::Envelope& e) {
  gateway::pb::AppendFrame(e, &out_);
}

Status PbClient::Flush() {
  std::size_t done = 0;
  while (done < out_.size()) {
    const ssize_t n = write(fd_, out_.data() + done, out_.size() - done);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) {
      return Status(StatusCode::kUnavailable,
                    std::string("write: ") + std::strerror(errno));
    }
    done += static_cast<std::size_t>(n);
  }
  out_.clear();
  return Status::Ok();
}

Result<bool> PbClient::Next(int64_t deadline_ns, w::Envelope* e) {
  while (true) {
    std::string_view payload;
    if (reader_.Next(&payload)) {
      if (!e->ParseFromArray(payload.data(),
                             static_cast<int>(payload.size()))) {
        return DataLossError("a server frame does not parse");
      }
      return true;
    }
    if (reader_.error() != gateway::pb::FrameError::kNone) {
      return DataLossError(
          std::string(gateway::pb::FrameErrorName(reader_.error())));
    }
    const int64_t wait = deadline_ns - NowNanos();
    if (wait <= 0) return false;
    pollfd pfd{fd_, POLLIN, 0};
    const timespec ts{static_cast<time_t>(wait / 1'000'000'000),
                      static_cast<long>(wait % 1'000'000'000)};
    const int ready = ppoll(&pfd, 1, &ts, nullptr);
    if (ready < 0 && errno != EINTR) {
      return Status(StatusCode::kUnavailable,
                    std::string("poll: ") + std::strerror(errno));
    }
    if (ready <= 0) continue;
    const ssize_t n =
        read(fd_, reader_.WritableSpace(), reader_.WritableSize());
    if (n < 0 && (errno == EINTR || errno == EAGAIN)) continue;
    if (n <= 0) {
      return Status(StatusCode::kUnavailable,
                    n == 0 ? std::string("connection closed by the server")
                           : std::string("read: ") + std::strerror(errno));
    }
    reader_.Commit(static_cast<std::size_t>(n));
  }
}

uint64_t AnsweredClientOrderId(const w::Envelope& e, bool* rejected) {
  *rejected = false;
  if (e.has_session_reject()) {
    *rejected = true;
    return e.session_reject().client_order_id();
  }
  if (!e.has_execution_report()) return 0;
  const w::ExecutionReport& r = e.execution_report();
  if (r.exec_type() == w::EXEC_TYPE_REJECTED) {
    *rejected = true;
    return r.client_order_id();
  }
  return r.exec_type() == w::EXEC_TYPE_NEW ? r.client_order_id() : 0;
}

}  // namespace cfx::bench
