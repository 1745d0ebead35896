// The Markdown rendering of a report document (README.md, compare.md): GitHub-flavoured
// tables, relative image and file links.
#include "perf/report/document.h"

#include <fmt/format.h>

namespace magnetar::perf::report {
namespace {

// Characters that would start markup in running text or end a table cell.
std::string escape(std::string_view text, bool in_table) {
  std::string out;
  for (char c : text) {
    if (c == '\\' || c == '*' || c == '_' || c == '`' || c == '[' || c == ']' || c == '<' || (in_table && c == '|')) {
      out += '\\';
    }
    if (c == '\n') {
      out += in_table ? ' ' : '\n';
      continue;
    }
    out += c;
  }
  return out;
}

std::string target(std::string_view path) {
  // A target with spaces needs the angle-bracket form.
  if (path.find(' ') != std::string_view::npos) return fmt::format("<{}>", path);
  return std::string(path);
}

std::string render(const inline_text& text, bool in_table = false) {
  std::string out;
  for (const auto& s : text.spans) {
    switch (s.kind) {
      case span::style::text: out += escape(s.text, in_table); break;
      case span::style::code: {
        // A code span holding a backquote takes double backquotes and spaces around it.
        std::string body = s.text;
        if (in_table) {
          for (std::size_t i = 0; (i = body.find('|', i)) != std::string::npos; i += 2) body.insert(i, "\\");
        }
        bool ticks = body.find('`') != std::string::npos;
        out += ticks ? fmt::format("`` {} ``", body) : fmt::format("`{}`", body);
        break;
      }
      case span::style::bold: out += fmt::format("**{}**", escape(s.text, in_table)); break;
      case span::style::link: out += fmt::format("[{}]({})", escape(s.text, in_table), target(s.target)); break;
    }
  }
  return out;
}

void render_block(std::string& out, const block& b) {
  if (const auto* p = std::get_if<paragraph>(&b)) {
    out += render(p->text) + "\n\n";
  } else if (const auto* list = std::get_if<bullet_list>(&b)) {
    for (const auto& item : list->items) out += "- " + render(item) + "\n";
    out += "\n";
  } else if (const auto* t = std::get_if<table>(&b)) {
    out += "|";
    for (const auto& h : t->header) out += " " + escape(h, true) + " |";
    out += "\n|";
    for (std::size_t i = 0; i < t->header.size(); ++i) {
      out += i < t->numeric.size() && t->numeric[i] ? "---:|" : "---|";
    }
    out += "\n";
    for (const auto& row : t->rows) {
      out += "|";
      for (std::size_t i = 0; i < t->header.size(); ++i) {
        out += " " + (i < row.size() ? render(row[i], true) : std::string()) + " |";
      }
      out += "\n";
    }
    out += "\n";
  } else if (const auto* row = std::get_if<image_row>(&b)) {
    for (const auto& img : row->images) out += fmt::format("![{}]({})\n\n", escape(img.alt, false), target(img.file));
  } else if (const auto* v = std::get_if<verdict>(&b)) {
    out += fmt::format("**Verdict: {}**\n\n", v->label);
    for (const auto& reason : v->reasons) out += "- " + escape(reason, false) + "\n";
    if (!v->reasons.empty()) out += "\n";
  }
}

}  // namespace

std::string render_markdown(const document& doc) {
  std::string out = fmt::format("# {}\n\n", escape(doc.title, false));
  for (const auto& s : doc.sections) {
    if (!s.title.empty()) out += fmt::format("## {}\n\n", escape(s.title, false));
    for (const auto& b : s.blocks) render_block(out, b);
  }
  while (out.size() > 1 && out.ends_with("\n\n")) out.pop_back();
  return out;
}

}  // namespace magnetar::perf::report
