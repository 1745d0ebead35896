#include "perf/report/run_report.h"

#include "perf/report/charts.h"
#include "perf/report/report_content.h"
#include "perf/report/run_data.h"

#include <fmt/format.h>

#include <fstream>

namespace magnetar::perf {
namespace fs = std::filesystem;
namespace {

// Written beside and renamed over, so that a reader never sees half a report.
result<void> write_file(const fs::path& file, const std::string& content) {
  auto temporary = file;
  temporary += ".tmp";
  {
    std::ofstream out(temporary, std::ios::binary | std::ios::trunc);
    out << content;
    out.close();
    if (!out) return fail(base::errc::io_error, fmt::format("{}: cannot write", temporary.string()));
  }
  std::error_code ec;
  fs::rename(temporary, file, ec);
  if (ec) return fail(base::errc::io_error, fmt::format("{}: {}", file.string(), ec.message()));
  return success();
}

result<fs::path> write_pair(const report::document& doc, const fs::path& dir, const std::string& markdown_name,
                            const std::string& html_name) {
  MAGNETAR_TRY(write_file(dir / markdown_name, report::render_markdown(doc)));
  MAGNETAR_TRY(html, report::render_html(doc, dir));
  MAGNETAR_TRY(write_file(dir / html_name, html));
  return dir / html_name;
}

}  // namespace

result<fs::path> write_run_report(const fs::path& run_dir) {
  MAGNETAR_TRY(run, report::load_run_data(run_dir));
  auto charts = report::draw_charts(run, run_dir / "charts", report::default_chart_options());
  return write_pair(report::run_document(run, charts, run_dir), run_dir, "README.md", "index.html");
}

result<fs::path> write_comparison(const fs::path& run_a, const fs::path& run_b, const fs::path& out_dir) {
  MAGNETAR_TRY(a, report::load_run_data(run_a));
  MAGNETAR_TRY(b, report::load_run_data(run_b));
  std::error_code ec;
  fs::create_directories(out_dir, ec);
  if (ec) return fail(base::errc::io_error, fmt::format("{}: {}", out_dir.string(), ec.message()));
  auto options = report::default_chart_options();
  options.file_prefix = "a-";
  auto charts_a = report::draw_charts(a, out_dir / "charts", options);
  options.file_prefix = "b-";
  auto charts_b = report::draw_charts(b, out_dir / "charts", options);
  return write_pair(report::comparison_document(a, charts_a, b, charts_b, out_dir), out_dir, "compare.md",
                    "compare.html");
}

}  // namespace magnetar::perf
