#include "inputs/graph_cache.hpp"

#include <cstring>
#include <filesystem>
#include <fstream>

#include "core/errors.hpp"
#include "inputs/input_cache.hpp"
#include "inputs/random.hpp"

namespace ema {
namespace {

namespace fs = std::filesystem;

constexpr char magic[8] = {'E', 'M', 'A', 'G', 'R', 'P', 'H', '2'};  // 2: with the checksum

struct header {
  char magic[8];
  std::uint64_t key, n, flags, entries, weights, checksum;
};

std::uint64_t checksum_of(const csr_graph& g) {
  auto h = hash_bytes(g.offsets.data(), g.offsets.size() * sizeof(std::uint64_t));
  h = hash_bytes(g.neighbours.data(), g.neighbours.size() * sizeof(std::uint32_t), h);
  return hash_bytes(g.weights.data(), g.weights.size() * sizeof(std::uint32_t), h);
}

/// The size of a graph file: the header and the three arrays.
std::uint64_t file_bytes(std::uint64_t n, std::uint64_t entries, std::uint64_t weights) {
  return sizeof(header) + (n + 1) * 8 + entries * 4 + weights * 4;
}

template <class T>
bool read_array(std::istream& in, std::vector<T>& v, std::uint64_t count) {
  v.resize(count);
  in.read(reinterpret_cast<char*>(v.data()), static_cast<std::streamsize>(count * sizeof(T)));
  return static_cast<bool>(in);
}

}  // namespace

const char* to_string(graph_source s) {
  switch (s) {
    case graph_source::built:
      return "built";
    case graph_source::cached:
      return "read from the input cache";
    case graph_source::built_and_stored:
      return "built and stored in the input cache";
    case graph_source::larger_than_cap:
      return "built; larger than the input cache's cap, so not stored";
    case graph_source::not_stored:
      return "built; writing it to the input cache failed, so not stored";
    case graph_source::rebuilt:
      return "built again: the input cache's copy was damaged or changed on disk (its checksum or its rows); stored again";
  }
  return "?";
}

void write_graph(const std::string& path, const csr_graph& g, std::uint64_t key) {
  header h{};
  std::memcpy(h.magic, magic, sizeof magic);
  h.key = key;
  h.n = g.n;
  h.flags = g.directed ? 1 : 0;
  h.entries = g.neighbours.size();
  h.weights = g.weights.size();
  h.checksum = checksum_of(g);
  std::ofstream out(path, std::ios::binary | std::ios::trunc);
  out.write(reinterpret_cast<const char*>(&h), sizeof h);
  out.write(reinterpret_cast<const char*>(g.offsets.data()), static_cast<std::streamsize>(g.offsets.size() * sizeof(std::uint64_t)));
  out.write(reinterpret_cast<const char*>(g.neighbours.data()), static_cast<std::streamsize>(g.neighbours.size() * sizeof(std::uint32_t)));
  out.write(reinterpret_cast<const char*>(g.weights.data()), static_cast<std::streamsize>(g.weights.size() * sizeof(std::uint32_t)));
  if (!out.flush()) throw std::runtime_error("cannot write the graph cache file " + path);
}

graph_read read_graph(const std::string& path, std::uint64_t key, csr_graph& g) {
  std::error_code ec;
  if (!fs::exists(fs::symlink_status(path, ec))) return graph_read::absent;
  const auto size = fs::file_size(path, ec);
  if (ec || size < sizeof(header)) return graph_read::damaged;
  std::ifstream in(path, std::ios::binary);
  header h{};
  if (!in.read(reinterpret_cast<char*>(&h), sizeof h)) return graph_read::damaged;
  if (std::memcmp(h.magic, magic, sizeof magic) != 0) return graph_read::damaged;
  if (h.key != key) return graph_read::absent;
  if (h.n > (std::uint64_t{1} << 32) || h.flags > 1 || (h.weights != 0 && h.weights != h.entries)) return graph_read::damaged;
  // The file must be exactly the header and the three arrays (a short or padded one is not trusted).
  if (size != file_bytes(h.n, h.entries, h.weights)) return graph_read::damaged;
  csr_graph out;
  out.n = h.n;
  out.directed = h.flags == 1;
  if (!read_array(in, out.offsets, h.n + 1) || !read_array(in, out.neighbours, h.entries) || !read_array(in, out.weights, h.weights))
    return graph_read::damaged;
  if (checksum_of(out) != h.checksum) return graph_read::damaged;  // changed on disk since it was written
  if (out.offsets[0] != 0 || out.offsets[h.n] != h.entries) return graph_read::damaged;
  for (std::uint64_t v = 0; v < h.n; ++v)
    if (out.offsets[v + 1] < out.offsets[v]) return graph_read::damaged;
  for (const auto u : out.neighbours)
    if (u >= h.n) return graph_read::damaged;
  g = std::move(out);
  return graph_read::ok;
}

std::uint64_t file_content_hash(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  if (!in) throw std::runtime_error("cannot read " + path);
  std::vector<char> piece(1 << 20);
  std::uint64_t h = 0x13198a2e03707344ull;
  while (in) {
    in.read(piece.data(), static_cast<std::streamsize>(piece.size()));
    const auto got = static_cast<std::size_t>(in.gcount());
    if (got) h = hash_bytes(piece.data(), got, h);
  }
  if (in.bad()) throw std::runtime_error("cannot read " + path);
  return h;
}

csr_graph cached_graph(const point_request& r, const std::string& problem, std::uint64_t key, const std::function<csr_graph()>& build,
                       graph_source* how) {
  auto said = [&](graph_source s) {
    if (how) *how = s;
  };
  if (r.cache_dir.empty()) {
    said(graph_source::built);
    return build();
  }
  const auto cache = input_cache::open(r.cache_dir);
  const fs::path path = cache.input_path(problem, r.n, r.seed, key);
  std::error_code ec;
  csr_graph g;
  const auto found = fs::is_regular_file(fs::symlink_status(path, ec)) ? read_graph(path.string(), key, g) : graph_read::absent;
  if (found == graph_read::ok) {
    fs::last_write_time(path, fs::file_time_type::clock::now(), ec);  // most recently used
    if (r.cache_cap > 0) cache.trim(r.cache_cap, path);               // the cap holds on reading too (it may have been lowered since)
    said(graph_source::cached);
    return g;
  }
  g = build();
  const auto bytes = static_cast<double>(file_bytes(g.n, g.neighbours.size(), g.weights.size()));
  if (r.cache_cap > 0 && bytes > r.cache_cap) {  // it alone would not fit
    said(graph_source::larger_than_cap);
    return g;
  }
  const fs::path partial = path.string() + ".partial";
  try {
    write_graph(partial.string(), g, key);
    fs::rename(partial, path, ec);
    if (ec) throw std::runtime_error(ec.message());
  } catch (const std::exception&) {
    fs::remove(partial, ec);  // a full disk costs the cache, not the point (the note says so)
    said(graph_source::not_stored);
    return g;
  }
  if (r.cache_cap > 0) cache.trim(r.cache_cap, path);
  said(found == graph_read::damaged ? graph_source::rebuilt : graph_source::built_and_stored);
  return g;
}

}  // namespace ema
