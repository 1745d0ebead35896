#include "perf/bench/perf_report.h"

#include "perf/measure/latency_summary.h"

#include <fmt/format.h>

#include <algorithm>

namespace magnetar::perf {

namespace {

std::string latency_row(std::string_view name, const base::histogram& micros) {
  const auto l = latency_in_millis(micros);
  return fmt::format("| {} | {} | {:.2f} | {:.2f} | {:.2f} | {:.2f} | {:.2f} |", name, l.count, l.p50, l.p99, l.p999,
                     l.max, l.mean);
}

std::string latency_line(std::string_view name, const base::histogram& micros) {
  if (micros.empty()) return {};
  return fmt::format("{} latency ms: {}\n", name, latency_percentiles_line(micros));
}

// The three 100 ms windows with the slowest publishes, slowest first.
std::string slowest_windows_line(const perf_results& r) {
  std::vector<std::size_t> windows;
  for (std::size_t i = 0; i < r.publish_max_ms_by_window.size(); ++i) {
    if (r.publish_max_ms_by_window[i] > 0) windows.push_back(i);
  }
  if (windows.empty()) return {};
  const auto slower = [&](std::size_t a, std::size_t b) {
    return r.publish_max_ms_by_window[a] > r.publish_max_ms_by_window[b];
  };
  const auto shown = std::min<std::size_t>(3, windows.size());
  std::partial_sort(windows.begin(), windows.begin() + static_cast<std::ptrdiff_t>(shown), windows.end(), slower);
  std::string out = "slowest publishes, by 100 ms of send times:";
  for (std::size_t i = 0; i < shown; ++i) {
    const auto at = std::chrono::duration<double>(perf_results::publish_window * windows[i]).count();
    out += fmt::format("{} {:.2f} ms at {:.1f} s", i == 0 ? "" : ",", r.publish_max_ms_by_window[windows[i]], at);
  }
  return out + "\n";
}

double megabytes_per_second(double messages_per_second, std::size_t message_size) {
  return messages_per_second * static_cast<double>(message_size) / 1e6;
}

}  // namespace

double per_second(std::uint64_t count, double seconds) {
  return seconds > 0 ? static_cast<double>(count) / seconds : 0;
}

std::string summary(const perf_options& options, const perf_results& r) {
  const double produce_rate = per_second(r.sent, r.produce_seconds);
  const double consume_rate = per_second(r.received, r.consume_seconds);
  std::string out = fmt::format(
      "topic {} | {} B messages | {}\n"
      "produced {} msgs in {:.1f} s: {:.0f} msg/s, {:.1f} MB/s; send errors {}\n"
      "consumed {} msgs in {:.1f} s: {:.0f} msg/s\n",
      options.topic, options.message_size,
      options.rate > 0 ? fmt::format("paced at {:.0f} msg/s", options.rate) : "max rate", r.sent, r.produce_seconds,
      produce_rate, megabytes_per_second(produce_rate, options.message_size), r.send_errors, r.received,
      r.consume_seconds, consume_rate);
  if (r.received_per_consumer.size() > 1) {
    const auto [least, most] = std::minmax_element(r.received_per_consumer.begin(), r.received_per_consumer.end());
    out += fmt::format("{} {} consumers: {:.0f} to {:.0f} msg/s each\n", r.received_per_consumer.size(),
                       options.subscription_type, per_second(*least, r.consume_seconds),
                       per_second(*most, r.consume_seconds));
  }
  return out + latency_line("publish", r.publish_latency_us) + slowest_windows_line(r) +
         latency_line("end-to-end", r.end_to_end_latency_us);
}

std::string markdown_report(const perf_options& options, const perf_results& r) {
  const double produce_rate = per_second(r.sent, r.produce_seconds);
  const double consume_rate = per_second(r.received, r.consume_seconds);
  std::string out = fmt::format(
      "# magnetar-perf run\n\n"
      "| setting | value |\n| --- | --- |\n"
      "| service URL | {} |\n| topic | {} |\n| message size | {} B |\n| rate | {} |\n| duration | {} s |\n"
      "| batching | {} (max {} messages, {} ms) |\n| compression | {} |\n"
      "| subscription | {} x {} |\n| keys | {} |\n\n"
      "## Throughput\n\n| side | messages | seconds | msg/s | MB/s |\n| --- | --- | --- | --- | --- |\n"
      "| produce | {} | {:.1f} | {:.0f} | {:.1f} |\n| consume | {} | {:.1f} | {:.0f} | {:.1f} |\n\n"
      "Send errors: {}. Messages lost (receipted, never received): {}.\n\n"
      "## Latency (ms)\n\n| measure | count | p50 | p99 | p99.9 | max | mean |\n| --- | --- | --- | --- | --- | --- | "
      "--- |\n",
      options.service_url, options.topic, options.message_size,
      options.rate > 0 ? fmt::format("{:.0f} msg/s", options.rate) : "max", options.duration.count(),
      options.batching ? (options.keys > 0 ? "key-based" : "on") : "off", options.batch_max_messages,
      options.batch_max_delay.count(), options.compression, options.subscription_type, options.consumers,
      options.keys > 0 ? std::to_string(options.keys) : "none", r.sent, r.produce_seconds, produce_rate,
      megabytes_per_second(produce_rate, options.message_size), r.received, r.consume_seconds, consume_rate,
      megabytes_per_second(consume_rate, options.message_size), r.send_errors,
      r.sent > r.received ? r.sent - r.received : 0);
  if (!r.publish_latency_us.empty())
    out += latency_row("publish (from intended send time)", r.publish_latency_us) + "\n";
  if (!r.end_to_end_latency_us.empty()) out += latency_row("end to end", r.end_to_end_latency_us) + "\n";
  if (r.received_per_consumer.size() > 1) {
    out += "\n## Per consumer\n\n| consumer | messages | msg/s |\n| --- | --- | --- |\n";
    for (std::size_t i = 0; i < r.received_per_consumer.size(); ++i) {
      out += fmt::format("| {} | {} | {:.0f} |\n", i, r.received_per_consumer[i],
                         per_second(r.received_per_consumer[i], r.consume_seconds));
    }
  }
  return out;
}

}  // namespace magnetar::perf
