#pragma once

#include <cstddef>
#include <cstdint>

namespace cfx::exchange {

// CRC-32C (Castagnoli), as used by leveldb and RocksDB for their records.
// `init` continues a previous value (0 to start).
uint32_t Crc32c(const void* data, std::size_t n, uint32_t init = 0) noexcept;

}  // namespace cfx::exchange
