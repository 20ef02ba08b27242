// Conformance of every registered variant, driven by the registry: each problem declares its edge
// sizes and parameter sets (problem_desc::test_sizes, test_params); every variant runs every case
// on two seeds, must verify, and must give its algorithm's `seq` answer on the same input (the
// fields problem_desc::answer_fields names, else the whole result). A case the problem refuses
// (validate, or the generator) or the variant declines (not_applicable) is counted, and the counts
// are checked: a variant without not_applicable declines nothing, and every variant checks
// something. The CPU and GPU test binaries differ only in the variants they select, so a new
// problem or variant is covered by registering it.
#pragma once

#include <fmt/format.h>
#include <algorithm>
#include <cmath>
#include <functional>
#include <span>
#include <gtest/gtest.h>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "core/errors.hpp"
#include "core/registry.hpp"
#include "measure/gpu.hpp"

namespace ema::test {

/// `k=v,k=v` as --param takes it, split into arguments.
inline std::vector<std::string> split_params(std::string_view text) {
  std::vector<std::string> out;
  while (!text.empty()) {
    const auto comma = text.find(',');
    out.emplace_back(text.substr(0, comma));
    if (comma == std::string_view::npos) break;
    text.remove_prefix(comma + 1);
  }
  return out;
}

/// The variant whose answer `v`'s must equal (on the problem's answer_fields): its algorithm's on one
/// thread, else the problem's reference variant (sssp's delta-stepping against Dijkstra, a radix
/// sort against std::sort: the answer is the problem's, whatever the algorithm); nullptr when neither
/// is in this build.
inline const variant_desc* algorithm_seq(const variant_desc& v) {
  for (const auto* c : variants_of(v.problem))
    if (c->backend == backend::seq && std::string_view(c->algorithm) == v.algorithm) return c;
  const auto* p = lookup_problem(v.problem);
  return p && p->reference_variant ? lookup_variant(v.problem, p->reference_variant) : nullptr;
}

/// The part of a result every variant of one algorithm must agree on.
inline nlohmann::json answer_of(const problem_desc& p, const std::string& result_json) {
  auto all = nlohmann::json::parse(result_json);
  if (p.answer_fields.empty()) return all;
  nlohmann::json part = nlohmann::json::object();
  for (const char* f : p.answer_fields) part[f] = all.value(f, nlohmann::json());
  return part;
}

/// Whether two answers agree: the same structure, integers and text equal, and floating-point
/// numbers within 1e-9 relative (a sum taken in another order, as OpenMP's reductions do, differs in
/// its last bits; results are stored exactly, so they show it).
inline bool same_answer(const nlohmann::json& a, const nlohmann::json& b) {
  if (a.is_number_float() || b.is_number_float()) {
    if (!a.is_number() || !b.is_number()) return false;
    const double x = a.get<double>(), y = b.get<double>();
    return std::abs(x - y) <= 1e-9 * std::max({1.0, std::abs(x), std::abs(y)});
  }
  if (a.type() != b.type() || a.size() != b.size()) return false;
  if (a.is_object()) {
    for (auto it = a.begin(); it != a.end(); ++it)
      if (!b.contains(it.key()) || !same_answer(it.value(), b[it.key()])) return false;
    return true;
  }
  if (a.is_array()) {
    for (std::size_t i = 0; i < a.size(); ++i)
      if (!same_answer(a[i], b[i])) return false;
    return true;
  }
  return a == b;
}

struct conformance_counts {
  int checked = 0, compared = 0, refused = 0, declined = 0;
};

inline conformance_counts check_variant(const problem_desc& p, const variant_desc& v) {
  conformance_counts c;
  const auto* seq = algorithm_seq(v);
  const auto memory = uses_gpu(v.backend) ? host_memory_kind::pinned : host_memory_kind::pageable;
  const int gpus = devices_used(v.backend, gpu::device_count());
  for (const char* text : p.test_params)
    for (const auto n : p.test_sizes)
      for (const std::uint64_t seed : {1ull, 977ull}) {
        const std::string where = fmt::format("{} {} n={} {} seed={}", p.name, v.name, n, text, seed);
        const auto params = param_set::resolve(p.name, p.params, split_params(text));
        if (v.not_applicable && v.not_applicable(params, n)) {
          ++c.declined;
          continue;
        }
        std::unique_ptr<workload> w;
        try {
          if (p.validate) p.validate(params, std::span<const std::uint64_t>(&n, 1));
          w = p.prepare({n, &params, seed, memory});
        } catch (const usage_error&) {
          ++c.refused;
          continue;
        }
        run_context ctx(n, params, gpus);
        ctx.begin_repetition();
        outcome got;
        try {
          got = v.run(*w, ctx);
        } catch (const usage_error& e) {  // a variant's own limit (rqa's seed estimator: Q <= N)
          ++c.refused;
          continue;
        }
        EXPECT_TRUE(got.verified) << where << ": " << got.reason;
        EXPECT_EQ(ctx.device_memory().current(), 0u) << where << ": device memory left allocated";
        ++c.checked;
        if (seq && seq != &v) {
          run_context seq_ctx(n, params, 0);
          const auto expected = seq->run(*w, seq_ctx);
          EXPECT_TRUE(expected.verified) << where << " (" << seq->name << "): " << expected.reason;
          EXPECT_TRUE(same_answer(answer_of(p, got.result_json), answer_of(p, expected.result_json)))
              << where << " against " << seq->name << ": " << got.result_json << " and " << expected.result_json;
          ++c.compared;
        }
      }
  return c;
}

/// Runs every selected variant of every problem; returns how many variants were checked.
inline int check_every_variant(const std::function<bool(const variant_desc&)>& select) {
  int variants_checked = 0;
  for (const auto* p : problems()) {
    EXPECT_FALSE(p->test_sizes.empty()) << p->name << " declares no test sizes";
    EXPECT_FALSE(p->test_params.empty()) << p->name << " declares no test parameter sets";
    for (const auto* v : variants_of(p->name)) {
      if (!select(*v)) continue;
      const auto c = check_variant(*p, *v);
      ++variants_checked;
      const auto cases = static_cast<int>(p->test_sizes.size() * p->test_params.size() * 2);
      EXPECT_EQ(c.checked + c.refused + c.declined, cases) << p->name << " " << v->name;
      EXPECT_GT(c.checked, cases / 3) << p->name << " " << v->name << ": most cases were refused or declined";
      if (!v->not_applicable) EXPECT_EQ(c.declined, 0) << p->name << " " << v->name;
      if (algorithm_seq(*v) && algorithm_seq(*v) != v) EXPECT_EQ(c.compared, c.checked) << p->name << " " << v->name;
      testing::Test::RecordProperty(fmt::format("{}/{}", p->name, v->name),
                                    fmt::format("{} checked, {} against seq, {} refused, {} declined", c.checked, c.compared, c.refused, c.declined));
    }
  }
  return variants_checked;
}

/// Every launch setting a selected variant declares, overridden to its least value and to a few
/// times that: the variant must still verify and agree with its algorithm's seq, and record the
/// value it was given. Runs each problem's largest test size on its first parameter set (a case
/// every variant accepts); returns how many overrides were checked.
inline int check_launch_overrides(const std::function<bool(const variant_desc&)>& select) {
  int checked = 0;
  for (const auto* p : problems()) {
    const std::uint64_t n = *std::max_element(p->test_sizes.begin(), p->test_sizes.end());
    for (const auto* v : variants_of(p->name)) {
      if (!select(*v)) continue;
      for (const auto& f : v->launch) {
        if (f.min == f.max) continue;  // fixed by the kernel
        const std::int64_t low = f.min, high = std::min(f.max, (3 * f.min + f.multiple - 1) / f.multiple * f.multiple + f.multiple);
        for (const std::int64_t value : {low, high}) {
          const std::string key = fmt::format("launch.{}", f.name);
          const auto params = param_set::resolve(p->name, p->params, split_params(p->test_params.front())).with(key, std::to_string(value));
          const std::string where = fmt::format("{} {} n={} {}={}", p->name, v->name, n, key, value);
          auto w = p->prepare({n, &params, 1, uses_gpu(v->backend) ? host_memory_kind::pinned : host_memory_kind::pageable});
          run_context ctx(n, params, devices_used(v->backend, gpu::device_count()));
          const auto got = v->run(*w, ctx);
          EXPECT_TRUE(got.verified) << where << ": " << got.reason;
          EXPECT_EQ(ctx.notes().count(key) ? ctx.notes().at(key) : "", std::to_string(value)) << where;
          if (const auto* seq = algorithm_seq(*v); seq && seq != v) {
            run_context seq_ctx(n, params, 0);
            const auto expected = seq->run(*w, seq_ctx).result_json;
            EXPECT_TRUE(same_answer(answer_of(*p, got.result_json), answer_of(*p, expected)))
                << where << ": " << got.result_json << " and " << expected;
          }
          ++checked;
        }
      }
    }
  }
  return checked;
}

}  // namespace ema::test
