// html_page: the template filled in one pass, the user's text escaped on the way.
#include "report/html/html_page.hpp"

#include <algorithm>
#include <stdexcept>
#include <utility>
#include <vector>

namespace runner::report::html {

namespace {

// The part of the template a placeholder's value replaces: [begin, end).
struct Placement {
  size_t begin = 0;
  size_t end = 0;
  const std::string* value = nullptr;
};

// A placeholder on a line of its own takes the line breaks around it, so that
// `content="\n{{GENERATOR}}\n"` becomes `content="runner 0.6.0"`.
Placement placement_of(const std::string& page_template, const std::string& name,
                       const std::string& value) {
  const size_t at = page_template.find(name);
  if (at == std::string::npos) throw std::logic_error("the report page's template lacks " + name);
  if (page_template.find(name, at + name.size()) != std::string::npos)
    throw std::logic_error("the report page's template holds " + name + " twice");
  const size_t after = at + name.size();
  const bool own_line =
      at > 0 && page_template[at - 1] == '\n' && page_template.compare(after, 1, "\n") == 0;
  return own_line ? Placement{at - 1, after + 1, &value} : Placement{at, after, &value};
}

}  // namespace

std::string html_escaped(const std::string& text) {
  std::string escaped;
  escaped.reserve(text.size());
  for (char c : text) {
    switch (c) {
      case '&': escaped += "&amp;"; break;
      case '<': escaped += "&lt;"; break;
      case '>': escaped += "&gt;"; break;
      case '"': escaped += "&quot;"; break;
      case '\'': escaped += "&#39;"; break;
      default: escaped += c;
    }
  }
  return escaped;
}

std::string script_safe_json(const nlohmann::json& data) {
  const std::string text = data.dump(-1, ' ', false, nlohmann::json::error_handler_t::replace);
  std::string safe;
  safe.reserve(text.size());
  for (char c : text) {
    if (c == '<')
      safe += "\\u003c";
    else
      safe += c;
  }
  return safe;
}

std::string filled_page(const std::string& page_template, const PageParts& parts) {
  std::vector<Placement> placements = {
      placement_of(page_template, "{{TITLE}}", parts.title),
      placement_of(page_template, "{{GENERATOR}}", parts.generator),
      placement_of(page_template, "{{STYLE}}", parts.style),
      placement_of(page_template, "{{DATA}}", parts.data),
      placement_of(page_template, "{{SCRIPT}}", parts.script)};
  std::sort(placements.begin(), placements.end(),
            [](const Placement& a, const Placement& b) { return a.begin < b.begin; });
  std::string page;
  size_t copied = 0;
  for (const Placement& placement : placements) {
    page.append(page_template, copied, placement.begin - copied);
    page += *placement.value;
    copied = placement.end;
  }
  page.append(page_template, copied, std::string::npos);
  return page;
}

std::string html_page(const nlohmann::json& data, const EmbeddedAssets& assets) {
  PageParts parts;
  parts.title = html_escaped(data.at("title").get<std::string>());
  parts.generator = data.at("generator").get<std::string>();
  parts.style = assets.uplot_css + "\n" + assets.report_css;
  parts.data = script_safe_json(data);
  parts.script = assets.uplot_js + "\n" + assets.report_js;
  return filled_page(assets.page_html, parts);
}

}  // namespace runner::report::html
