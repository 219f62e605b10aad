#pragma once

#include <bit>
#include <cstdint>
#include <memory>

namespace cfx::exchange::internal {

// One price level: an intrusive FIFO of order slots plus its aggregate.
struct Level {
  int64_t lots = 0;
  uint32_t head = 0;  // order slot, 0 = none
  uint32_t tail = 0;
  uint32_t count = 0;
  uint32_t touched_epoch = 0;  // for L2 change detection within a command
  int64_t old_lots = 0;
  uint32_t old_count = 0;
};

// Dense array of levels indexed by price / tick (1..size), with a two-level
// bitmap of non-empty levels so the next best price is found in a few word
// scans, whatever the depth. Level 0 is unused: index 0 means "none".
//
// Thread: owned by the engine's thread. Memory: allocated in the
// constructor only.
class PriceLadder {
 public:
  explicit PriceLadder(uint32_t levels)
      : size_(levels),
        words_(levels / 64 + 1),
        summary_words_(words_ / 64 + 1),
        levels_(new Level[levels + 1]),
        bits_(new uint64_t[words_]()),
        summary_(new uint64_t[summary_words_]()) {}

  uint32_t size() const { return size_; }
  Level& at(uint32_t i) { return levels_[i]; }
  const Level& at(uint32_t i) const { return levels_[i]; }

  void Mark(uint32_t i) {
    const uint32_t w = i >> 6;
    bits_[w] |= uint64_t{1} << (i & 63);
    summary_[w >> 6] |= uint64_t{1} << (w & 63);
  }

  void Unmark(uint32_t i) {
    const uint32_t w = i >> 6;
    bits_[w] &= ~(uint64_t{1} << (i & 63));
    if (bits_[w] == 0) summary_[w >> 6] &= ~(uint64_t{1} << (w & 63));
  }

  // Highest non-empty level below i, or 0.
  uint32_t HighestBelow(uint32_t i) const {
    if (i <= 1) return 0;
    const uint32_t j = i - 1;
    uint32_t w = j >> 6;
    const uint64_t m = bits_[w] & ((uint64_t{2} << (j & 63)) - 1);
    if (m != 0)
      return (w << 6) + 63 - static_cast<uint32_t>(std::countl_zero(m));
    if (w == 0) return 0;
    --w;  // highest non-empty word <= w
    uint32_t s = w >> 6;
    uint64_t sm = summary_[s] & ((uint64_t{2} << (w & 63)) - 1);
    while (true) {
      if (sm != 0) {
        const uint32_t word =
            (s << 6) + 63 - static_cast<uint32_t>(std::countl_zero(sm));
        return (word << 6) + 63 -
               static_cast<uint32_t>(std::countl_zero(bits_[word]));
      }
      if (s == 0) return 0;
      --s;
      sm = summary_[s];
    }
  }

  // Lowest non-empty level above i, or 0.
  uint32_t LowestAbove(uint32_t i) const {
    const uint32_t j = i + 1;
    if (j > size_) return 0;
    uint32_t w = j >> 6;
    const uint64_t m = bits_[w] & (~uint64_t{0} << (j & 63));
    if (m != 0) return (w << 6) + static_cast<uint32_t>(std::countr_zero(m));
    ++w;  // lowest non-empty word >= w
    if (w >= words_) return 0;
    uint32_t s = w >> 6;
    uint64_t sm = summary_[s] & (~uint64_t{0} << (w & 63));
    while (true) {
      if (sm != 0) {
        const uint32_t word =
            (s << 6) + static_cast<uint32_t>(std::countr_zero(sm));
        return (word << 6) +
               static_cast<uint32_t>(std::countr_zero(bits_[word]));
      }
      if (++s >= summary_words_) return 0;
      sm = summary_[s];
    }
  }

 private:
  uint32_t size_;
  uint32_t words_;
  uint32_t summary_words_;
  std::unique_ptr<Level[]> levels_;
  std::unique_ptr<uint64_t[]> bits_;
  std::unique_ptr<uint64_t[]> summary_;
};

}  // namespace cfx::exchange::internal
