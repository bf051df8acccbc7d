#include <algorithm>
#include <cmath>
#include <utility>

#include "claim_rows.hpp"
#include "memhier/model/text.hpp"

namespace memhier::probe {

std::string fixed(double v, int precision) {
  return model::strf("%.*f", precision, v);
}

std::string fmt(double v, int precision) {
  return std::isfinite(v) ? fixed(v, precision) : "n/a";
}

std::string fmt_bytes(double b) {
  if (!std::isfinite(b)) return "n/a";
  const char* units[] = {"B", "KiB", "MiB", "GiB"};
  int u = 0;
  while (b >= 1024.0 && u < 3) {
    b /= 1024.0;
    ++u;
  }
  return fmt(b, b == std::floor(b) ? 0 : 1) + " " + units[u];
}

std::string kib(double bytes) {
  return fixed(bytes / 1024.0, 0) + " KiB";
}
std::string mib(double bytes) {
  return fixed(bytes / (1024.0 * 1024.0), 0) + " MiB";
}
std::string gib(double bytes) {
  return fixed(bytes / (1024.0 * 1024.0 * 1024.0), 0) + " GiB";
}

std::string fmt_mib(double bytes) {
  return std::isfinite(bytes) ? fmt(bytes / MiB, bytes < 10 * MiB ? 1 : 0) + " MiB" : "n/a";
}

double median(std::vector<double> v) {
  v.erase(std::remove_if(v.begin(), v.end(), [](double x) { return !std::isfinite(x); }), v.end());
  if (v.empty()) return NAN;
  std::sort(v.begin(), v.end());
  const std::size_t m = v.size() / 2;
  return v.size() % 2 ? v[m] : 0.5 * (v[m - 1] + v[m]);
}

double cycles_to_ns(double cycles, double sm_clock_mhz) {
  return sm_clock_mhz > 0 && std::isfinite(cycles) ? cycles * 1e3 / sm_clock_mhz : NAN;
}

void add_claims(report::Section& section, const std::string& probe_name,
                std::vector<ClaimRow> rows) {
  claims::add_checks(section, claims::Checker::probe(probe_name), std::move(rows));
}

}  // namespace memhier::probe
