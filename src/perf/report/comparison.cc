// The comparison of two runs (`magnetar-perf compare A B`): what each was, the key figures
// side by side with B's change against A, and both runs' charts next to each other.
#include "perf/report/figures.h"
#include "perf/report/report_content.h"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <map>
#include <string_view>

namespace magnetar::perf::report {
namespace fs = std::filesystem;
namespace {

std::string run_label(const run_data& run) {
  return run.run_id.empty() ? run.name : fmt::format("{} ({})", run.name, run.run_id.substr(0, 8));
}

std::string info(const run_data& run, const char* key) {
  return run.run_info ? json_text(*run.run_info, key).value_or("–") : "–";
}

std::string delta_text(const key_figure& a, const key_figure& b) {
  if (!a.value || !b.value) return "–";
  key_figure delta = b;
  delta.value = *b.value - *a.value;
  std::string text = format_figure(delta);
  return *delta.value > 0 ? "+" + text : text;
}

std::string change_text(const key_figure& a, const key_figure& b) {
  if (!a.value || !b.value) return "–";
  if (*a.value == *b.value) return "0 %";
  if (*a.value == 0) return "new";
  double percent = (*b.value - *a.value) / std::abs(*a.value) * 100.0;
  std::string change = fmt::format("{}{:.1f} %", percent > 0 ? "+" : "", percent);
  if (a.direction == key_figure::better::neither) return change;
  bool better = a.direction == key_figure::better::lower ? percent < 0 : percent > 0;
  return fmt::format("{} ({})", change, better ? "better" : "worse");
}

section runs_section(const run_data& a, const run_data& b) {
  section s{"Runs", {}};
  table t{{"", "A", "B"}, {false, false, false}, {}};
  t.rows.push_back({"Name", a.name, b.name});
  t.rows.push_back({"Run id", code(a.run_id.empty() ? "–" : a.run_id), code(b.run_id.empty() ? "–" : b.run_id)});
  t.rows.push_back({"Directory", code(a.dir.string()), code(b.dir.string())});
  t.rows.push_back({"Verdict", bold(run_verdict(a).label), bold(run_verdict(b).label)});
  t.rows.push_back({"Started", info(a, "startedAt"), info(b, "startedAt")});
  t.rows.push_back({"magnetar version", info(a, "magnetarVersion"), info(b, "magnetarVersion")});
  auto host = [](const run_data& run) -> std::string {
    if (!run.run_info || !run.run_info->contains("host")) return "–";
    const auto& h = (*run.run_info)["host"];
    return fmt::format("{}, {} CPUs", json_text(h, "hostname").value_or("?"), json_text(h, "cpus").value_or("?"));
  };
  t.rows.push_back({"Host", host(a), host(b)});
  s.blocks.push_back(std::move(t));
  for (const auto* run : {&a, &b}) {
    auto v = run_verdict(*run);
    if (v.outcome == verdict::state::passed && run->missing.empty()) continue;
    bullet_list notes;
    for (const auto& reason : v.reasons) notes.items.push_back(inline_text(reason));
    if (!run->missing.empty()) {
      std::string list;
      for (const auto& m : run->missing) list += (list.empty() ? "" : ", ") + m;
      notes.items.push_back(inline_text("missing files: ") + code(list));
    }
    s.blocks.push_back(paragraph{bold(fmt::format("{} ({}):", run == &a ? "A" : "B", v.label))});
    s.blocks.push_back(std::move(notes));
  }
  return s;
}

section settings_section(const run_data& a, const run_data& b) {
  section s{"Settings", {}};
  std::vector<std::string> names;
  std::map<std::string, std::pair<std::string, std::string>> values;
  for (const auto& setting : a.settings) {
    names.push_back(setting.name);
    values[setting.name].first = setting.value;
  }
  for (const auto& setting : b.settings) {
    if (!values.contains(setting.name)) names.push_back(setting.name);
    values[setting.name].second = setting.value;
  }
  table t{{"Setting", "A", "B"}, {false, false, false}, {}};
  for (const auto& name : names) {
    auto [va, vb] = values[name];
    inline_text marked_b = va == vb ? inline_text(vb.empty() ? "–" : vb) : bold(vb.empty() ? "–" : vb);
    t.rows.push_back({name, va.empty() ? "–" : va, marked_b});
  }
  if (t.rows.empty()) {
    s.blocks.push_back(paragraph{"Neither run has a resolved-config.yaml."});
  } else {
    s.blocks.push_back(std::move(t));
    s.blocks.push_back(paragraph{"B's settings that differ from A's are in bold."});
  }
  return s;
}

std::vector<section> figure_sections(const run_data& a, const run_data& b) {
  auto figures_a = key_figures(a);
  auto figures_b = key_figures(b);
  std::vector<std::pair<std::string, std::string>> order;  // (group, label)
  std::map<std::pair<std::string, std::string>, std::pair<std::optional<key_figure>, std::optional<key_figure>>> joined;
  for (const auto& f : figures_a) {
    order.emplace_back(f.group, f.label);
    joined[{f.group, f.label}].first = f;
  }
  for (const auto& f : figures_b) {
    auto key = std::pair{f.group, f.label};
    if (!joined.contains(key)) order.push_back(key);
    joined[key].second = f;
  }
  std::vector<section> sections;
  for (const char* group : {"Throughput", "Latency", "Correctness", "Catch-up", "Backlog", "Geo-replication"}) {
    table t{{"Figure", "A", "B", "B − A", "Change"}, {false, true, true, true, true}, {}};
    for (const auto& key : order) {
      if (key.first != group) continue;
      const auto& [fa, fb] = joined[key];
      const key_figure& any = fa ? *fa : *fb;
      key_figure none = any;
      none.value.reset();
      const key_figure& va = fa ? *fa : none;
      const key_figure& vb = fb ? *fb : none;
      t.rows.push_back({key.second + (any.unit.empty() ? "" : " (" + any.unit + ")"), format_figure(va),
                        format_figure(vb), delta_text(va, vb), change_text(va, vb)});
    }
    // Catch-up figures exist only for runs with late applications, geo-replication's for
    // runs with a remote cluster; a section saying that neither run has them would be
    // noise in every other comparison.
    if (t.rows.empty() && (std::string_view(group) == "Catch-up" || std::string_view(group) == "Geo-replication")) {
      continue;
    }
    section s{group, {}};
    if (t.rows.empty()) {
      s.blocks.push_back(paragraph{"Neither run has these figures."});
    } else {
      s.blocks.push_back(std::move(t));
    }
    sections.push_back(std::move(s));
  }
  return sections;
}

section charts_section(const chart_set& charts_a, const chart_set& charts_b, const fs::path& base_dir) {
  section s{"Charts", {}};
  std::vector<std::string> titles;
  for (const auto* set : {&charts_a, &charts_b}) {
    for (const auto& c : set->drawn) {
      if (std::find(titles.begin(), titles.end(), c.title) == titles.end()) titles.push_back(c.title);
    }
  }
  for (const auto& title : titles) {
    image_row row;
    for (const auto& [side, set] : {std::pair{"A", &charts_a}, std::pair{"B", &charts_b}}) {
      auto it = std::find_if(set->drawn.begin(), set->drawn.end(), [&](const chart& c) { return c.title == title; });
      if (it != set->drawn.end()) {
        row.images.push_back(
            {fmt::format("{}: {}", side, title), it->png.lexically_relative(base_dir).generic_string()});
      }
    }
    s.blocks.emplace_back(std::in_place_type<image_row>, std::move(row));
  }
  bullet_list notes;
  for (const auto& note : charts_a.notes) notes.items.push_back(inline_text("A: " + note));
  for (const auto& note : charts_b.notes) notes.items.push_back(inline_text("B: " + note));
  if (!notes.items.empty()) s.blocks.push_back(std::move(notes));
  return s;
}

}  // namespace

document comparison_document(const run_data& a, const chart_set& charts_a, const run_data& b, const chart_set& charts_b,
                             const fs::path& base_dir) {
  document doc;
  doc.title = fmt::format("Comparison: A {} vs B {}", run_label(a), run_label(b));
  doc.sections.push_back(runs_section(a, b));
  doc.sections.push_back(settings_section(a, b));
  for (auto& s : figure_sections(a, b)) doc.sections.push_back(std::move(s));
  doc.sections.push_back(charts_section(charts_a, charts_b, base_dir));
  return doc;
}

}  // namespace magnetar::perf::report
