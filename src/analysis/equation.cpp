#include "analysis/equation.hpp"

#include <cmath>
#include <fmt/format.h>
#include <fmt/ranges.h>
#include <regex>
#include <vector>

namespace ema::fit {
namespace {

double round_half(double x) { return std::round(x * 2) / 2; }

double round_significant(double x, int digits) {
  if (x == 0 || !std::isfinite(x)) return x;
  const double scale = std::pow(10.0, digits - 1 - static_cast<int>(std::floor(std::log10(std::abs(x)))));
  return std::round(x * scale) / scale;
}

std::string superscript(int k) {
  static const char* digits[] = {"⁰", "¹", "²", "³", "⁴", "⁵", "⁶", "⁷", "⁸", "⁹"};
  std::string s;
  for (char ch : std::to_string(k)) s += digits[ch - '0'];
  return s;
}

bool is_integer(double x) { return std::abs(x - std::round(x)) < 1e-9; }

// "n", "n²", "√n", "n^1.5" (power of a variable named `var`).
std::string power(const std::string& var, double e) {
  if (e == 1) return var;
  if (e == 0.5 && var == "n") return "√n";
  if (is_integer(e) && e > 1) return var + superscript(static_cast<int>(std::round(e)));
  return fmt::format("{}^{:g}", var, e);
}

std::string exponent_text(double e, bool free) { return free ? fmt::format("{:.4g}", e) : fmt::format("{:g}", e); }

}  // namespace

std::string theta_class::text() const {
  std::vector<std::string> parts;
  if (n != 0) parts.push_back(power("n", n));
  if (log != 0)
    parts.push_back(log == 1                     ? "log n"
                    : is_integer(log) && log > 1 ? "log" + superscript(static_cast<int>(log)) + " n"
                                                 : fmt::format("log^{:g} n", log));
  if (exp_base) {
    std::vector<std::string> arg;
    if (exp_n != 0) arg.push_back(power("n", exp_n));
    if (exp_log != 0) arg.push_back(exp_log == 1 ? "log n" : fmt::format("log^{:g} n", exp_log));
    const auto joined = fmt::format("{}", fmt::join(arg, " "));
    const bool simple = joined == "n" || joined == "√n";
    parts.push_back(fmt::format("{:.10g}^{}", *exp_base, simple ? joined : fmt::format("({})", joined)));
  }
  return fmt::format("Θ({})", parts.empty() ? std::string("1") : fmt::format("{}", fmt::join(parts, " ")));
}

nlohmann::json theta_class::to_json() const {
  return {{"n", n}, {"log", log}, {"exp", exp_base ? nlohmann::json(*exp_base) : nlohmann::json(nullptr)}, {"text", text()}};
}

theta_class parse_theta(const std::string& text) {
  static const std::regex form(R"(\s*(?:(sqrt\s*n|√n|n(?:\s*\^\s*([0-9]+(?:\.[0-9]+)?))?)\s*)?(?:(log)(?:\s*\^\s*([0-9]+(?:\.[0-9]+)?))?\s*n\s*)?)");
  std::smatch m;
  theta_class c;
  if (std::regex_match(text, std::regex(R"(\s*1\s*)"))) return c;
  if (!std::regex_match(text, m, form) || (!m[1].matched && !m[3].matched))
    throw std::invalid_argument(fmt::format("'{}' is not a class: write it as 1, log n, n, n log n, n^2, n^1.5 log^2 n", text));
  if (m[1].matched) c.n = m[1].str().rfind("sqrt", 0) == 0 || m[1].str() == "√n" ? 0.5 : m[2].matched ? std::stod(m[2]) : 1;
  if (m[3].matched) c.log = m[4].matched ? std::stod(m[4]) : 1;
  return c;
}

std::string shape::key() const {
  return fmt::format("{}{:g}|{}{:g}|{}|{:g},{:g}|{}{}", free_a1 ? "f" : "", free_a1 ? 0.0 : a1, free_a5 ? "f" : "", free_a5 ? 0.0 : a5, exp_term,
                     exp_term ? a3 : 0.0, exp_term ? a4 : 0.0, constant,
                     lower ? fmt::format("|{}{:g},{:g}", lower_less ? '-' : '+', l1, l5) : std::string()) +
         (free_half != 0.5 ? fmt::format("|~{:g}", free_half) : std::string());
}

equation equation::of(const shape& s) {
  equation e;
  e.form = s;
  e.a1 = s.a1;
  e.a5 = s.a5;
  e.a3 = s.exp_term ? s.a3 : 1;
  e.a4 = s.exp_term ? s.a4 : 0;
  return e;
}

double equation::log_term(double n) const {
  const double l = std::log2(n);
  double r = std::log(a0) + a1 * std::log(n);
  if (a5 != 0) r += l > 0 ? a5 * std::log(l) : -INFINITY;
  if (form.exp_term) r += std::log(a2) * std::pow(n, a3) * (a4 != 0 ? std::pow(l, a4) : 1.0);
  return r;
}

double equation::lower_term(double n) const {
  if (!form.lower) return 0;
  return (form.lower_less ? -d : d) * std::pow(n, form.l1) * (form.l5 != 0 ? std::pow(std::log2(n), form.l5) : 1.0);
}

double equation::operator()(double n) const { return (form.constant ? c : 0.0) + lower_term(n) + std::exp(log_term(n)); }

std::string equation::formula() const {
  std::string s = fmt::format("{:.3e}", a0);
  if (a1 != 0 || form.free_a1) s += a1 == 1 && !form.free_a1 ? " · n" : " · n^" + exponent_text(a1, form.free_a1);
  if (a5 != 0 || form.free_a5) s += a5 == 1 && !form.free_a5 ? " · log2(n)" : " · log2(n)^" + exponent_text(a5, form.free_a5);
  if (form.exp_term) {
    std::string arg = a3 == 1 ? "n" : "n^" + exponent_text(a3, false);
    if (a4 != 0) arg += a4 == 1 ? " · log2(n)" : " · log2(n)^" + exponent_text(a4, false);
    s +=
        fmt::format(" · {}^{}", std::abs(a2 - 1) < 0.01 ? fmt::format("{:.10g}", a2) : fmt::format("{:.4g}", a2), arg == "n" ? arg : "(" + arg + ")");
  }
  if (form.lower) {
    s += fmt::format(" {} {:.3e}", form.lower_less ? "-" : "+", d);
    if (form.l1 != 0) s += form.l1 == 1 ? " · n" : " · n^" + exponent_text(form.l1, false);
    if (form.l5 != 0) s += form.l5 == 1 ? " · log2(n)" : " · log2(n)^" + exponent_text(form.l5, false);
  }
  if (form.constant) s += fmt::format(" + {:.3e}", c);
  return s;
}

theta_class equation::theta() const {
  theta_class t;
  t.n = round_half(a1);
  t.log = round_half(a5);
  if (form.exp_term) {
    // Three significant digits of the base, or of its distance from 1 when it is that close.
    const double base = std::abs(a2 - 1) < 0.01 ? 1 + round_significant(a2 - 1, 3) : round_significant(a2, 3);
    if (base != 1) {
      t.exp_base = base;
      t.exp_n = a3;
      t.exp_log = a4;
    }
  }
  // A term that falls with n leaves the constant c as the asymptote.
  const bool falling = t.exp_base ? *t.exp_base < 1 : (t.n < 0 || (t.n == 0 && t.log < 0));
  if (falling && form.constant && c > 0) return {};
  return t;
}

nlohmann::json equation::to_json() const {
  nlohmann::json coef = {{"a0", a0}, {"a1", a1}, {"a5", a5}};
  nlohmann::json free = {"a0"};
  if (form.free_a1) free.push_back("a1");
  if (form.free_a5) free.push_back("a5");
  if (form.exp_term) {
    coef["a2"] = a2;
    coef["a3"] = a3;
    coef["a4"] = a4;
    free.push_back("a2");
  }
  if (form.lower) {
    coef["d"] = d;
    coef["l1"] = form.l1;
    coef["l5"] = form.l5;
    free.push_back("d");
  }
  if (form.constant) {
    coef["c"] = c;
    free.push_back("c");
  }
  auto finite = [](double x) { return std::isfinite(x) ? nlohmann::json(x) : nlohmann::json(nullptr); };
  return {{"formula", formula()},       {"coefficients", coef}, {"fitted", free},     {"count", coefficient_count()},
          {"theta", theta().to_json()}, {"mse", finite(mse)},   {"mae", finite(mae)}, {"max_rel_err", finite(max_rel_err)}};
}

}  // namespace ema::fit
