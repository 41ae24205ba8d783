// The report page's template, style sheets and scripts, built into runner from assets/ and
// vendor/ by embed_assets.cmake, so that the page needs no file beside runner to be written.
#pragma once

#include <string>

namespace runner::report::html {

struct EmbeddedAssets {
  std::string page_html;   // the template, with the placeholders html_page.hpp fills
  std::string report_css;  // the page's own style and script
  std::string report_js;
  std::string uplot_css;  // the chart library (vendor/uplot-*)
  std::string uplot_js;
};

const EmbeddedAssets& embedded_assets();

}  // namespace runner::report::html
