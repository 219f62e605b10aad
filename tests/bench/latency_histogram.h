#pragma once

#include <array>
#include <bit>
#include <cstddef>
#include <cstdint>

namespace cfx::bench {

// Fixed-size log-linear histogram of nanosecond latencies, in the spirit of
// HdrHistogram: values below 256 ns are exact; above, each power of two is
// split into 128 buckets, so a reported value is within 1/128 (< 0.8 %) of
// the true one. Values up to 2^40 ns (~18 min) are kept; larger ones land in
// the top bucket (max() stays exact).
//
// Thread: single owner. Memory: one inline array (~36 KiB); Record() never
// allocates, so it may be used inside timed loops.
class LatencyHistogram {
 public:
  void Record(uint64_t nanos) {
    ++counts_[Bucket(nanos)];
    ++count_;
    if (nanos > max_) max_ = nanos;
    if (nanos < min_) min_ = nanos;
  }

  uint64_t count() const { return count_; }
  uint64_t max() const { return count_ == 0 ? 0 : max_; }
  uint64_t min() const { return count_ == 0 ? 0 : min_; }

  // Adds every sample of `other` (e.g. one histogram per thread, merged
  // after the threads are joined).
  void Merge(const LatencyHistogram& other) {
    for (std::size_t i = 0; i < kBuckets; ++i) counts_[i] += other.counts_[i];
    count_ += other.count_;
    if (other.count_ != 0) {
      if (other.max_ > max_) max_ = other.max_;
      if (other.min_ < min_) min_ = other.min_;
    }
  }

  // Samples whose bucket lies wholly at or below `nanos` (within the
  // bucket resolution, < 0.8 %): one point of the cumulative distribution.
  uint64_t CountAtOrBelow(uint64_t nanos) const {
    uint64_t n = 0;
    for (std::size_t i = 0; i < kBuckets && UpperBound(i) <= nanos; ++i) {
      n += counts_[i];
    }
    return n;
  }

  // Smallest recorded-bucket upper bound v such that at least `q` (in
  // [0, 1]) of the samples are <= v; capped at max(). 0 when empty.
  uint64_t Percentile(double q) const {
    if (count_ == 0) return 0;
    auto rank = static_cast<uint64_t>(q * static_cast<double>(count_) + 0.5);
    if (rank < 1) rank = 1;
    if (rank > count_) rank = count_;
    uint64_t seen = 0;
    for (std::size_t i = 0; i < kBuckets; ++i) {
      seen += counts_[i];
      if (seen >= rank) {
        const uint64_t upper = UpperBound(i);
        return upper < max_ ? upper : max_;
      }
    }
    return max_;
  }

 private:
  static constexpr unsigned kSubBits = 7;                  // 128 per octave
  static constexpr uint64_t kExactBelow = 2u << kSubBits;  // 256
  static constexpr unsigned kMaxExponent = 40;
  static constexpr std::size_t kOctaves = kMaxExponent - kSubBits - 1;
  // Exact buckets, log-linear octaves, one overflow bucket.
  static constexpr std::size_t kBuckets =
      kExactBelow + kOctaves * (std::size_t{1} << kSubBits) + 1;

  static std::size_t Bucket(uint64_t v) {
    if (v < kExactBelow) return static_cast<std::size_t>(v);
    auto e = static_cast<unsigned>(std::bit_width(v)) - 1;  // >= kSubBits + 1
    if (e >= kMaxExponent) return kBuckets - 1;
    const uint64_t sub =
        (v >> (e - kSubBits)) & ((uint64_t{1} << kSubBits) - 1);
    return static_cast<std::size_t>(
        kExactBelow + (e - kSubBits - 1) * (uint64_t{1} << kSubBits) + sub);
  }

  // Largest value that maps to bucket `i`.
  static uint64_t UpperBound(std::size_t i) {
    if (i < kExactBelow) return i;
    if (i == kBuckets - 1) return UINT64_MAX;
    const uint64_t k = i - kExactBelow;
    const uint64_t e = k / (uint64_t{1} << kSubBits) + kSubBits + 1;
    const uint64_t sub = k % (uint64_t{1} << kSubBits);
    const uint64_t width = uint64_t{1} << (e - kSubBits);
    return (uint64_t{1} << e) + (sub + 1) * width - 1;
  }

  std::array<uint64_t, kBuckets> counts_{};
  uint64_t count_ = 0;
  uint64_t max_ = 0;
  uint64_t min_ = UINT64_MAX;
};

}  // namespace cfx::bench
