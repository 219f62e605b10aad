#include "tests/index/reference_rational.h"

#include <algorithm>
#include <cstddef>
#include <utility>

namespace cfx::index::reference {

Nat::Nat(uint64_t v) {
  while (v != 0) {
    d_.push_back(static_cast<uint32_t>(v));
    v >>= 32;
  }
}

void Nat::Trim() {
  while (!d_.empty() && d_.back() == 0) d_.pop_back();
}

uint64_t Nat::Low64() const {
  uint64_t v = 0;
  if (d_.size() > 1) v = uint64_t{d_[1]} << 32;
  if (!d_.empty()) v |= d_[0];
  return v;
}

Nat operator+(const Nat& a, const Nat& b) {
  Nat out;
  uint64_t carry = 0;
  for (std::size_t i = 0; i < std::max(a.d_.size(), b.d_.size()); ++i) {
    const uint64_t s = carry + (i < a.d_.size() ? a.d_[i] : 0) +
                       (i < b.d_.size() ? b.d_[i] : 0);
    out.d_.push_back(static_cast<uint32_t>(s));
    carry = s >> 32;
  }
  if (carry != 0) out.d_.push_back(static_cast<uint32_t>(carry));
  return out;
}

Nat operator-(const Nat& a, const Nat& b) {
  Nat out;
  int64_t borrow = 0;
  for (std::size_t i = 0; i < a.d_.size(); ++i) {
    int64_t s = int64_t{a.d_[i]} - borrow - (i < b.d_.size() ? b.d_[i] : 0);
    borrow = s < 0 ? 1 : 0;
    if (s < 0) s += int64_t{1} << 32;
    out.d_.push_back(static_cast<uint32_t>(s));
  }
  out.Trim();
  return out;
}

Nat operator*(const Nat& a, const Nat& b) {
  Nat out;
  if (a.zero() || b.zero()) return out;
  out.d_.assign(a.d_.size() + b.d_.size(), 0);
  for (std::size_t i = 0; i < a.d_.size(); ++i) {
    uint64_t carry = 0;
    for (std::size_t j = 0; j < b.d_.size(); ++j) {
      const uint64_t t = uint64_t{a.d_[i]} * b.d_[j] + out.d_[i + j] + carry;
      out.d_[i + j] = static_cast<uint32_t>(t);
      carry = t >> 32;
    }
    out.d_[i + b.d_.size()] = static_cast<uint32_t>(carry);
  }
  out.Trim();
  return out;
}

int Cmp(const Nat& a, const Nat& b) {
  if (a.d_.size() != b.d_.size()) return a.d_.size() < b.d_.size() ? -1 : 1;
  for (std::size_t i = a.d_.size(); i-- > 0;) {
    if (a.d_[i] != b.d_[i]) return a.d_[i] < b.d_[i] ? -1 : 1;
  }
  return 0;
}

// Long division, Knuth's algorithm D (TAOCP 4.3.1) in base 2^32.
void Nat::DivMod(const Nat& a, const Nat& b, Nat* q, Nat* r) {
  *q = Nat();
  *r = Nat();
  if (Cmp(a, b) < 0) {
    *r = a;
    return;
  }
  const std::size_t n = b.d_.size();
  const std::size_t m = a.d_.size() - n;
  if (n == 1) {  // one-digit divisor
    uint64_t rem = 0;
    q->d_.assign(a.d_.size(), 0);
    for (std::size_t i = a.d_.size(); i-- > 0;) {
      const uint64_t cur = (rem << 32) | a.d_[i];
      q->d_[i] = static_cast<uint32_t>(cur / b.d_[0]);
      rem = cur % b.d_[0];
    }
    q->Trim();
    *r = Nat(rem);
    return;
  }
  const int s = __builtin_clz(b.d_[n - 1]);
  std::vector<uint32_t> v(n);
  std::vector<uint32_t> u(a.d_.size() + 1);
  for (std::size_t i = n; i-- > 1;) {
    v[i] =
        (b.d_[i] << s) |
        (s == 0 ? 0 : static_cast<uint32_t>(uint64_t{b.d_[i - 1]} >> (32 - s)));
  }
  v[0] = b.d_[0] << s;
  u[a.d_.size()] =
      s == 0 ? 0 : static_cast<uint32_t>(uint64_t{a.d_.back()} >> (32 - s));
  for (std::size_t i = a.d_.size(); i-- > 1;) {
    u[i] =
        (a.d_[i] << s) |
        (s == 0 ? 0 : static_cast<uint32_t>(uint64_t{a.d_[i - 1]} >> (32 - s)));
  }
  u[0] = a.d_[0] << s;
  q->d_.assign(m + 1, 0);
  const uint64_t base = uint64_t{1} << 32;
  for (std::size_t j = m + 1; j-- > 0;) {
    const uint64_t top = (uint64_t{u[j + n]} << 32) | u[j + n - 1];
    uint64_t qhat = top / v[n - 1];
    uint64_t rhat = top % v[n - 1];
    while (qhat >= base || qhat * v[n - 2] > ((rhat << 32) | u[j + n - 2])) {
      --qhat;
      rhat += v[n - 1];
      if (rhat >= base) break;
    }
    int64_t borrow = 0;
    uint64_t carry = 0;
    for (std::size_t i = 0; i < n; ++i) {
      const uint64_t p = qhat * v[i] + carry;
      carry = p >> 32;
      const int64_t t =
          int64_t{u[i + j]} - borrow - static_cast<int64_t>(p & 0xffffffffu);
      u[i + j] = static_cast<uint32_t>(t);
      borrow = t < 0 ? 1 : 0;
    }
    const int64_t t = int64_t{u[j + n]} - borrow - static_cast<int64_t>(carry);
    u[j + n] = static_cast<uint32_t>(t);
    if (t < 0) {  // qhat was one too large: add the divisor back
      --qhat;
      uint64_t c = 0;
      for (std::size_t i = 0; i < n; ++i) {
        const uint64_t sum = uint64_t{u[i + j]} + v[i] + c;
        u[i + j] = static_cast<uint32_t>(sum);
        c = sum >> 32;
      }
      u[j + n] = static_cast<uint32_t>(u[j + n] + c);
    }
    q->d_[j] = static_cast<uint32_t>(qhat);
  }
  q->Trim();
  r->d_.assign(n, 0);
  for (std::size_t i = 0; i < n; ++i) {
    r->d_[i] =
        (u[i] >> s) |
        (s == 0 ? 0 : static_cast<uint32_t>(uint64_t{u[i + 1]} << (32 - s)));
  }
  r->Trim();
}

Nat operator/(const Nat& a, const Nat& b) {
  Nat q, r;
  Nat::DivMod(a, b, &q, &r);
  return q;
}

Nat operator%(const Nat& a, const Nat& b) {
  Nat q, r;
  Nat::DivMod(a, b, &q, &r);
  return r;
}

Nat GcdOf(Nat a, Nat b) {
  while (!b.zero()) {
    Nat r = a % b;
    a = std::move(b);
    b = std::move(r);
  }
  return a;
}

Frac::Frac(Nat n, Nat d) : num_(std::move(n)), den_(std::move(d)) {
  const Nat g = GcdOf(num_, den_);
  if (!(g == Nat(1)) && !g.zero()) {
    num_ = num_ / g;
    den_ = den_ / g;
  }
  if (num_.zero()) den_ = 1;
}

Frac operator+(const Frac& a, const Frac& b) {
  return Frac(a.num_ * b.den_ + b.num_ * a.den_, a.den_ * b.den_);
}
Frac operator-(const Frac& a, const Frac& b) {
  return Frac(a.num_ * b.den_ - b.num_ * a.den_, a.den_ * b.den_);
}
Frac operator*(const Frac& a, const Frac& b) {
  return Frac(a.num_ * b.num_, a.den_ * b.den_);
}
Frac operator/(const Frac& a, const Frac& b) {
  return Frac(a.num_ * b.den_, a.den_ * b.num_);
}
int Cmp(const Frac& a, const Frac& b) {
  return Cmp(a.num_ * b.den_, b.num_ * a.den_);
}

int64_t Frac::RoundHalfUp(int64_t unit) const {
  // floor((2 num + unit den) / (2 unit den)) x unit.
  const Nat u = static_cast<uint64_t>(unit);
  const Nat q = (Nat(2) * num_ + u * den_) / (Nat(2) * u * den_);
  return static_cast<int64_t>(q.Low64()) * unit;
}

}  // namespace cfx::index::reference
