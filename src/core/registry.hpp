// The registry of problems and variants. Each registration is one declarative statement at the
// bottom of the problem's or variant's own file; it places a pointer to a constant descriptor in a
// dedicated linker section, so registering does no work at all before main (no constructor, no
// allocation, no CUDA call), and the linker assembles the list. The problems are built as a CMake
// OBJECT library so that no registration can be dropped by the linker.
#pragma once

#include <functional>
#include <memory>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "core/problem.hpp"

namespace ema {

/// Registers a problem: EMA_PROBLEM(search, kit::problem({.title = ..., ...}));
#define EMA_PROBLEM(id, ...)                                                      \
  static constinit const ::ema::problem_desc ema_problem_desc_##id = __VA_ARGS__; \
  [[gnu::used, gnu::retain, gnu::section("ema_problems")]] const ::ema::problem_desc* ema_problem_ptr_##id = &ema_problem_desc_##id

/// Registers a variant: EMA_VARIANT(search_seq, kit::variant<&fn>({.name = "seq", ...}));
#define EMA_VARIANT(id, ...)                                                      \
  static constinit const ::ema::variant_desc ema_variant_desc_##id = __VA_ARGS__; \
  [[gnu::used, gnu::retain, gnu::section("ema_variants")]] const ::ema::variant_desc* ema_variant_ptr_##id = &ema_variant_desc_##id

/// Every registered problem, sorted by name.
const std::vector<const problem_desc*>& problems();
/// Every registered variant, sorted by problem, then by back end, then by name.
const std::vector<const variant_desc*>& variants();
/// The variants of one problem, in the order above.
std::vector<const variant_desc*> variants_of(std::string_view problem);

/// A variant's name before it was renamed, which databases written then store.
struct renamed_variant {
  const char* problem;
  const char* formerly;
  const char* now;
};
/// Every rename (issue 30, item 7: the sources' listings as written were `*-seed`, a word the random
/// seed also has; they are `*-listing`, and rqa's estimator `microstates-*` after its algorithm).
/// Build-independent, so a build without CUDA reads an old database's GPU variants the same way.
std::span<const renamed_variant> renamed_variants();
/// The name a variant has now: `name` itself unless it is a former name (renamed_variants). Every
/// name read from a database, a plan or the command line goes through it.
std::string_view current_variant_name(std::string_view problem, std::string_view name);

/// Look-ups that throw usage_error listing the valid names; a former name finds the variant.
const problem_desc& find_problem(std::string_view name);
const variant_desc& find_variant(std::string_view problem, std::string_view name);
/// The same without throwing: nullptr when this build has no such problem or variant (a former
/// name finds it too).
const problem_desc* lookup_problem(std::string_view name);
const variant_desc* lookup_variant(std::string_view problem, std::string_view name);

/// What a speedup needs to know of a variant present in an experiment: recorded with its points
/// (so a report reads the same in every build of ema), or this build's registration.
struct variant_identity {
  std::string name;
  std::string algorithm;  ///< "" for a program ema does not know (`ema exec`)
  std::optional<backend> back_end;
  variant_role role = variant_role::unset;
};

/// The identity this build registers for a variant, or one with no algorithm when it has none.
variant_identity identity_of(std::string_view problem, std::string_view variant);

/// The work a variant of `algorithm` must do at size n, as floors of its cost's growth
/// (analysis_options::work): the problem's work model's bytes and operations with these
/// parameters, and the algorithm's own (problem_desc::algorithm_floors); none for an algorithm
/// that estimates (problem_desc::estimators) or a problem without a work model. A size the work
/// model refuses throws usage_error from the function called.
/// The bytes a run of `p` at n keeps resident: its working_set where it declares one, else its work's
/// bytes (problem_desc::working_set). The problem must have a work model.
double working_set_bytes(const problem_desc& p, std::uint64_t n, const param_set& params);

std::vector<std::function<double(double)>> work_floors(const problem_desc& p, std::shared_ptr<const param_set> params, std::string_view algorithm);

/// The algorithm of a problem's reference variant in this build ("" when unknown).
std::string reference_algorithm(std::string_view problem);

/// The variant whose time a speedup of `variant` against back end `against` (seq or omp) is
/// taken from, among `present`: the same algorithm's variant on that back end (the source's first
/// where there are several), else the reference algorithm's on it (gauss's LU on the GPU against
/// the source's `seq` elimination). A variant of no known algorithm (a user's program under
/// `ema exec`) is compared with the variant named after the back end, `seq` or `omp`. "" when
/// none is present.
std::string speedup_baseline(std::string_view variant, backend against, std::span<const variant_identity> present,
                             std::string_view reference_algorithm);

}  // namespace ema
