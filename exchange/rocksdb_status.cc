#include "exchange/rocksdb_status.h"

namespace cfx::exchange {

Status FromRocks(const rocksdb::Status& s, const std::string& what,
                 RocksErrors style) {
  if (s.ok()) return Status::Ok();
  if (style == RocksErrors::kCorruptionOrInternal) {
    if (s.IsCorruption()) return DataLossError(what + ": " + s.ToString());
    return InternalError(what + ": " + s.ToString());
  }
  const std::string m = what + ": rocksdb: " + s.ToString();
  if (s.IsCorruption()) return DataLossError(m);
  if (s.IsInvalidArgument()) return InvalidArgumentError(m);
  if (s.IsNotFound()) return NotFoundError(m);
  if (s.IsIOError()) return Status(StatusCode::kUnavailable, m);
  return InternalError(m);
}

}  // namespace cfx::exchange
