#pragma once

// The one way CFX code includes Boost.Asio (STYLE.md §10): Boost 1.74's Asio
// coroutine headers need <utility> first on GCC 12.
#include <boost/asio.hpp>
#include <utility>

namespace cfx::gateway {
namespace asio = boost::asio;
}  // namespace cfx::gateway
