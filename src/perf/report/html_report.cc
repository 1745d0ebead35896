// The HTML rendering of a report document (index.html, compare.html): one file that opens
// offline, with its CSS inline and its charts inlined as base64 data: URIs; links to the
// run's raw files stay relative.
#include "perf/report/document.h"
#include "perf/report/run_files.h"

#include <fmt/format.h>
#include <boost/beast/core/detail/base64.hpp>

namespace magnetar::perf::report {
namespace {

constexpr std::string_view style_sheet = R"css(
:root { color-scheme: light; }
body { font-family: system-ui, -apple-system, "Segoe UI", Roboto, "DejaVu Sans", sans-serif; color: #1f2328;
       background: #f6f8fa; margin: 0; line-height: 1.45; }
main { max-width: 1200px; margin: 0 auto; padding: 24px 32px 48px; background: #fff; min-height: 100vh;
       box-shadow: 0 0 0 1px #d0d7de; }
h1 { font-size: 1.7em; margin: 0.2em 0 0.6em; border-bottom: 1px solid #d0d7de; padding-bottom: 0.3em; }
h2 { font-size: 1.3em; margin: 1.6em 0 0.6em; border-bottom: 1px solid #eaeef2; padding-bottom: 0.2em; }
table { border-collapse: collapse; margin: 0.6em 0 1em; font-size: 0.93em; }
th, td { border: 1px solid #d0d7de; padding: 5px 12px; vertical-align: top; }
th { background: #f0f3f6; text-align: left; font-weight: 600; }
tr:nth-child(even) td { background: #f9fafb; }
td.num, th.num { text-align: right; font-variant-numeric: tabular-nums; }
code { font-family: ui-monospace, "DejaVu Sans Mono", monospace; font-size: 0.9em; background: #eff1f3;
       padding: 1px 4px; border-radius: 4px; }
td code { overflow-wrap: anywhere; }
a { color: #0969da; text-decoration: none; }
a:hover { text-decoration: underline; }
.verdict { border-radius: 6px; padding: 12px 18px; margin: 0.4em 0 1.2em; border-left: 6px solid; }
.verdict .label { font-size: 1.35em; font-weight: 700; letter-spacing: 0.02em; }
.verdict ul { margin: 0.4em 0 0; padding-left: 1.3em; }
.verdict.passed { background: #dafbe1; border-color: #1a7f37; color: #0f5323; }
.verdict.failed { background: #ffebe9; border-color: #cf222e; color: #82071e; }
.verdict.unknown { background: #fff8c5; border-color: #9a6700; color: #4d2d00; }
.charts { display: flex; gap: 12px; flex-wrap: wrap; margin: 0.5em 0 1em; }
.charts figure { flex: 1 1 0; min-width: 320px; margin: 0; }
.charts img { width: 100%; height: auto; border: 1px solid #d0d7de; border-radius: 4px; }
.charts figcaption { font-size: 0.85em; color: #57606a; margin-top: 2px; }
)css";

std::string escape(std::string_view text) {
  std::string out;
  for (char c : text) {
    switch (c) {
      case '&': out += "&amp;"; break;
      case '<': out += "&lt;"; break;
      case '>': out += "&gt;"; break;
      case '"': out += "&quot;"; break;
      case '\'': out += "&#39;"; break;
      default: out += c;
    }
  }
  return out;
}

std::string render(const inline_text& text) {
  std::string out;
  for (const auto& s : text.spans) {
    switch (s.kind) {
      case span::style::text: out += escape(s.text); break;
      case span::style::code: out += "<code>" + escape(s.text) + "</code>"; break;
      case span::style::bold: out += "<strong>" + escape(s.text) + "</strong>"; break;
      case span::style::link: out += fmt::format("<a href=\"{}\">{}</a>", escape(s.target), escape(s.text)); break;
    }
  }
  return out;
}

result<std::string> data_uri(const std::filesystem::path& file) {
  auto bytes = read_text(file);
  if (!bytes) return fail(base::errc::io_error, fmt::format("image {}: {}", file.string(), bytes.error().detail()));
  const auto& raw = bytes.value();
  std::string encoded(boost::beast::detail::base64::encoded_size(raw.size()), '\0');
  encoded.resize(boost::beast::detail::base64::encode(encoded.data(), raw.data(), raw.size()));
  return "data:image/png;base64," + encoded;
}

result<void> render_block(std::string& out, const block& b, const std::filesystem::path& base_dir) {
  if (const auto* p = std::get_if<paragraph>(&b)) {
    out += "<p>" + render(p->text) + "</p>\n";
  } else if (const auto* list = std::get_if<bullet_list>(&b)) {
    out += "<ul>\n";
    for (const auto& item : list->items) out += "<li>" + render(item) + "</li>\n";
    out += "</ul>\n";
  } else if (const auto* t = std::get_if<table>(&b)) {
    auto cls = [&](std::size_t i) {
      return i < t->numeric.size() && t->numeric[i] ? std::string(" class=\"num\"") : std::string();
    };
    out += "<table>\n<thead><tr>";
    for (std::size_t i = 0; i < t->header.size(); ++i)
      out += fmt::format("<th{}>{}</th>", cls(i), escape(t->header[i]));
    out += "</tr></thead>\n<tbody>\n";
    for (const auto& row : t->rows) {
      out += "<tr>";
      for (std::size_t i = 0; i < t->header.size(); ++i) {
        out += fmt::format("<td{}>{}</td>", cls(i), i < row.size() ? render(row[i]) : std::string());
      }
      out += "</tr>\n";
    }
    out += "</tbody>\n</table>\n";
  } else if (const auto* row = std::get_if<image_row>(&b)) {
    out += "<div class=\"charts\">\n";
    for (const auto& img : row->images) {
      MAGNETAR_TRY(uri, data_uri(base_dir / img.file));
      // A chart alone carries its title; side by side, the caption says whose it is.
      std::string caption = row->images.size() > 1 ? "<figcaption>" + escape(img.alt) + "</figcaption>" : "";
      out += fmt::format("<figure><img src=\"{}\" alt=\"{}\">{}</figure>\n", uri, escape(img.alt), caption);
    }
    out += "</div>\n";
  } else if (const auto* v = std::get_if<verdict>(&b)) {
    const char* cls = v->outcome == verdict::state::passed   ? "passed"
                      : v->outcome == verdict::state::failed ? "failed"
                                                             : "unknown";
    out += fmt::format("<div class=\"verdict {}\"><div class=\"label\">{}</div>\n", cls, escape(v->label));
    if (!v->reasons.empty()) {
      out += "<ul>\n";
      for (const auto& reason : v->reasons) out += "<li>" + escape(reason) + "</li>\n";
      out += "</ul>\n";
    }
    out += "</div>\n";
  }
  return success();
}

}  // namespace

result<std::string> render_html(const document& doc, const std::filesystem::path& base_dir) {
  std::string out = fmt::format(
      "<!DOCTYPE html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\">\n"
      "<meta name=\"viewport\" content=\"width=device-width, initial-scale=1\">\n<title>{}</title>\n"
      "<style>{}</style>\n</head>\n<body>\n<main>\n<h1>{}</h1>\n",
      escape(doc.title), style_sheet, escape(doc.title));
  for (const auto& s : doc.sections) {
    if (!s.title.empty()) out += fmt::format("<h2>{}</h2>\n", escape(s.title));
    for (const auto& b : s.blocks) {
      MAGNETAR_TRY(render_block(out, b, base_dir));
    }
  }
  out += "</main>\n</body>\n</html>\n";
  return out;
}

}  // namespace magnetar::perf::report
