// document: the report's content as a small tree (sections of paragraphs, lists, tables
// and images with a little inline markup), written once and rendered twice, as Markdown
// (README.md, compare.md) and as a self-contained HTML page (index.html, compare.html),
// so that both always say the same.
//
// Plain values; not shared between threads while built.
#pragma once

#include "base/result.h"

#include <filesystem>
#include <string>
#include <variant>
#include <vector>

namespace magnetar::perf::report {

struct span {
  enum class style { text, code, bold, link };
  style kind = style::text;
  std::string text;
  std::string target;  // a link's relative path
};

// A run of inline spans; a plain string converts to one text span.
struct inline_text {
  std::vector<span> spans;
  inline_text() = default;
  inline_text(std::string text) : spans{{span::style::text, std::move(text), {}}} {}  // NOLINT: implicit
  inline_text(const char* text) : inline_text(std::string(text)) {}                   // NOLINT: implicit
  inline_text& operator+=(const inline_text& more) {
    spans.insert(spans.end(), more.spans.begin(), more.spans.end());
    return *this;
  }
};
inline inline_text operator+(inline_text a, const inline_text& b) { return a += b; }
inline inline_text code(std::string text) {
  inline_text t;
  t.spans.push_back({span::style::code, std::move(text), {}});
  return t;
}
inline inline_text bold(std::string text) {
  inline_text t;
  t.spans.push_back({span::style::bold, std::move(text), {}});
  return t;
}
inline inline_text link(std::string text, std::string target) {
  inline_text t;
  t.spans.push_back({span::style::link, std::move(text), std::move(target)});
  return t;
}

struct paragraph {
  inline_text text;
};

struct bullet_list {
  std::vector<inline_text> items;
};

struct table {
  std::vector<std::string> header;
  std::vector<bool> numeric;  // per column: right-aligned; missing entries are text
  std::vector<std::vector<inline_text>> rows;
};

// An image file (a path relative to the document's folder). Several in one row are shown
// side by side in HTML and one after the other in Markdown.
struct image {
  std::string alt;
  std::string file;
};
struct image_row {
  std::vector<image> images;
};

// The run's verdict, shown first: passed, failed, or unknown when the run did not say.
struct verdict {
  enum class state { passed, failed, unknown };
  state outcome = state::unknown;
  std::string label;                 // "PASSED", "FAILED", "UNKNOWN", or a custom headline
  std::vector<std::string> reasons;  // shown under it
};

using block = std::variant<paragraph, bullet_list, table, image_row, verdict>;

struct section {
  std::string title;
  std::vector<block> blocks;
};

struct document {
  std::string title;
  std::vector<section> sections;  // a section with an empty title renders its blocks only
};

std::string render_markdown(const document& doc);

// The page with inline CSS and every image inlined as a data: URI read from base_dir;
// links stay relative. io_error naming the image when one cannot be read.
result<std::string> render_html(const document& doc, const std::filesystem::path& base_dir);

}  // namespace magnetar::perf::report
