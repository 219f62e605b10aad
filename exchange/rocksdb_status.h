#pragma once

// The one conversion of a rocksdb::Status into a cfx Status, for every
// store kept in RocksDB (journal, index, ledger).

#include <rocksdb/status.h>

#include <string>

#include "exchange/core/status.h"

namespace cfx::exchange {

// How a store reports a RocksDB failure; each keeps the texts and codes it
// has always produced.
enum class RocksErrors {
  // "<what>: rocksdb: <text>"; corruption is data loss, invalid argument,
  // not found and I/O errors keep their kinds, the rest is internal.
  kByKind,
  // "<what>: <text>"; corruption is data loss, the rest is internal.
  kCorruptionOrInternal,
};

// Ok when `s` is ok; otherwise the error `style` gives for `s`, naming `what`.
Status FromRocks(const rocksdb::Status& s, const std::string& what,
                 RocksErrors style);

}  // namespace cfx::exchange
