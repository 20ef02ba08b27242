// Built graphs kept on disk between points (issue 17: building a kron graph of 2^24 vertices takes
// seconds, and every variant of a sweep asks for the same one). The graph of a point is stored in
// `ema run`'s input cache (inputs/input_cache.hpp: ema's own folder, the least recently used
// dropped first past its cap), under the problem's folder, named by n, the seed and a key the
// problem derives from everything that shapes the graph. A file is written under a temporary name
// and renamed once complete, with a checksum of its content in its header; one that is short,
// malformed, for another key or whose content does not match its checksum (changed on disk) is
// rebuilt, never trusted, and the point's note says so (its rows are also checked as they are
// read: monotone offsets, ids below n).
#pragma once

#include <cstdint>
#include <functional>
#include <string>

#include "core/problem.hpp"
#include "inputs/graph.hpp"

namespace ema {

/// How a point's graph was obtained (graph_problem records it as the point's note `graph`).
enum class graph_source {
  built,             ///< no cache asked for
  cached,            ///< read from the cache
  built_and_stored,  ///< built, then stored in the cache
  larger_than_cap,   ///< built; alone it would not fit the cache's cap, so not stored
  not_stored,        ///< built; writing it to the cache failed (a full disk, say), so not stored
  rebuilt,           ///< the cached file was damaged or changed (its checksum, its rows): built again and stored
};
const char* to_string(graph_source s);

/// The graph of `request` from the cache when it holds it, else `build()` — stored in the cache
/// when the request names one (request.cache_dir) and the cap (request.cache_cap) is not exceeded
/// by it alone. `key` identifies the graph among those of the same (problem, n, seed).
csr_graph cached_graph(const point_request& request, const std::string& problem, std::uint64_t key, const std::function<csr_graph()>& build,
                       graph_source* how = nullptr);

/// The graph file format (for the tests): write and read back; read says whether the file holds
/// the graph of `key` (absent: no such file, or one for another key; damaged: short, malformed, or
/// content that does not match its checksum).
enum class graph_read { ok, absent, damaged };
void write_graph(const std::string& path, const csr_graph& g, std::uint64_t key);
graph_read read_graph(const std::string& path, std::uint64_t key, csr_graph& g);

/// A hash of a file's content (hash_bytes over it, read in pieces): the identity of an input file
/// whatever its path or modification time. std::runtime_error when it cannot be read.
std::uint64_t file_content_hash(const std::string& path);

}  // namespace ema
