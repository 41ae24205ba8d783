// The page of `runner report --html`: its template with the title, the generator, the style
// sheets, the data and the scripts put in place. Nothing from a results file ever becomes markup
// or code: the title is HTML-escaped and the data's JSON can never end its element.
#pragma once

#include <string>

#include <nlohmann/json.hpp>

#include "report/html/embedded_assets.hpp"

namespace runner::report::html {

// What goes in place of each placeholder of the template, as it is.
struct PageParts {
  std::string title;      // {{TITLE}}, already HTML-escaped
  std::string generator;  // {{GENERATOR}}: "runner 0.6.0"
  std::string style;      // {{STYLE}}
  std::string data;       // {{DATA}}
  std::string script;     // {{SCRIPT}}
};

// `text` with & < > " ' as character references.
std::string html_escaped(const std::string& text);

// The JSON as text that may stand inside a <script> element: every '<' written \u003c, so
// neither "</script>" nor "<!--" can appear in it. Invalid UTF-8 becomes U+FFFD.
std::string script_safe_json(const nlohmann::json& data);

// `page_template` with each placeholder ({{TITLE}}, {{GENERATOR}}, {{STYLE}}, {{DATA}},
// {{SCRIPT}}; each exactly once) replaced in one pass, so that a placeholder's name inside a
// value stays text. A placeholder on a line of its own is replaced with the line breaks before
// and after it: its value joins the lines around it (`<title>\n{{TITLE}}\n</title>` gives
// `<title>T</title>`). Throws std::logic_error when the template lacks one or holds one twice:
// the built-in template is checked by the tests, never by a user.
std::string filled_page(const std::string& page_template, const PageParts& parts);

// The page of `data` (page_data()) from the assets: uPlot's CSS then report.css, uPlot's script
// then report.js.
std::string html_page(const nlohmann::json& data, const EmbeddedAssets& assets = embedded_assets());

}  // namespace runner::report::html
