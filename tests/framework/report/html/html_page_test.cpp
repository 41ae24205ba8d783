// html_page: the template filled in one pass, the title escaped, the data's JSON unable to end
// its element, uPlot's style and script before the report's own. Small assets of the test's own
// stand in for report.js and report.css; only the placeholders of the real template are relied on.
#include "report/html/html_page.hpp"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <algorithm>
#include <cctype>
#include <stdexcept>

#include "html_test_runs.hpp"
#include "report/html/page_data.hpp"

using ::testing::HasSubstr;

namespace runner::report::html {
namespace {

using nlohmann::json;

const std::string kDataStart = "<script type=\"application/json\" id=\"runner-data\">";

EmbeddedAssets small_assets() {
  EmbeddedAssets assets;
  assets.page_html =
      "<!DOCTYPE html>\n<meta name=\"generator\" content=\"{{GENERATOR}}\">\n"
      "<title>{{TITLE}}</title>\n<style>\n{{STYLE}}\n</style>\n" +
      kDataStart + "\n{{DATA}}\n</script>\n<script>\n{{SCRIPT}}\n</script>\n";
  assets.report_css = "/* report.css */";
  assets.report_js = "/* report.js */";
  assets.uplot_css = "/* uPlot.min.css */";
  assets.uplot_js = "/* uPlot.iife.min.js */";
  return assets;
}

json titled(const std::string& title) {
  return {{"title", title}, {"generator", "runner 9.9.9"}, {"runs", json::array()}};
}

// The JSON between the data element's tags, as the page's script reads it.
json data_in(const std::string& page) {
  const size_t start = page.find(kDataStart) + kDataStart.size();
  return json::parse(page.substr(start, page.find("</script>", start) - start));
}

size_t count_of(std::string text, const std::string& part) {
  std::transform(text.begin(), text.end(), text.begin(),
                 [](unsigned char c) { return static_cast<char>(std::tolower(c)); });
  size_t count = 0;
  for (size_t at = text.find(part); at != std::string::npos; at = text.find(part, at + 1)) ++count;
  return count;
}

TEST(HtmlEscaped, WritesTheFiveSpecialCharactersAsReferences) {
  EXPECT_EQ(html_escaped("a<b>&\"c'd é"), "a&lt;b&gt;&amp;&quot;c&#39;d é");
}

TEST(HtmlPage, EscapesTheTitleAndNamesTheGenerator) {
  const std::string page = html_page(titled("<b>\"Q&A\"</b>'s"), small_assets());
  EXPECT_THAT(page, HasSubstr("<title>&lt;b&gt;&quot;Q&amp;A&quot;&lt;/b&gt;&#39;s</title>"));
  EXPECT_THAT(page, HasSubstr("<meta name=\"generator\" content=\"runner 9.9.9\">"));
}

TEST(HtmlPage, PutsUPlotBeforeTheReportsOwnStyleAndScript) {
  const std::string page = html_page(titled("t"), small_assets());
  EXPECT_THAT(page, HasSubstr("<style>/* uPlot.min.css */\n/* report.css */</style>"));
  EXPECT_THAT(page, HasSubstr("<script>/* uPlot.iife.min.js */\n/* report.js */</script>"));
}

TEST(HtmlPage, TheDataCanNeverEndItsElementAndReadsBackWhole) {
  json data = titled("t");
  data["runs"] = {{{"label", "</script><script>alert(1)</script>"},
                   {"config_toml", "note = \"<!-- \\\"q\\\" 'x' -->\""}}};
  const std::string page = html_page(data, small_assets());
  EXPECT_EQ(count_of(page, "</script"), 2u) << page;
  EXPECT_EQ(count_of(page, "<!--"), 0u) << page;
  EXPECT_EQ(data_in(page), data);
  EXPECT_EQ(script_safe_json(json("a<b")), "\"a\\u003cb\"");
}

TEST(HtmlPage, InvalidUtf8InARunsTextBecomesAReplacementCharacter) {
  const std::string page = html_page(titled(std::string("bad \xff byte")), small_assets());
  EXPECT_EQ(data_in(page)["title"], "bad \xef\xbf\xbd byte");
}

TEST(FilledPage, APlaceholdersNameInAValueStaysText) {
  const PageParts parts{"{{DATA}}", "runner 1", "{{SCRIPT}}", "{{TITLE}}", "{{GENERATOR}}"};
  EXPECT_EQ(filled_page("{{TITLE}}|{{GENERATOR}}|{{STYLE}}|{{DATA}}|{{SCRIPT}}", parts),
            "{{DATA}}|runner 1|{{SCRIPT}}|{{TITLE}}|{{GENERATOR}}");
}

TEST(FilledPage, APlaceholderOnALineOfItsOwnTakesTheLineBreaksAroundIt) {
  const PageParts parts{"T", "runner 1", "S", "D", "X"};
  EXPECT_EQ(filled_page("<meta content=\"\n{{GENERATOR}}\n\">\n<title>\n{{TITLE}}\n</title>\n"
                        "<style>\n{{STYLE}}\n</style>\n{{DATA}} {{SCRIPT}}\n",
                        parts),
            "<meta content=\"runner 1\">\n<title>T</title>\n<style>S</style>\nD X\n");
}

TEST(FilledPage, ATemplateWithoutEachPlaceholderOnceIsRefused) {
  const PageParts parts;
  EXPECT_THROW(filled_page("{{TITLE}}{{GENERATOR}}{{STYLE}}{{DATA}}", parts), std::logic_error);
  EXPECT_THROW(filled_page("{{TITLE}}{{GENERATOR}}{{STYLE}}{{DATA}}{{SCRIPT}}{{DATA}}", parts),
               std::logic_error);
}

// The template built into runner: its placeholders, the generator line that marks a page as
// runner's, and nothing of a run's text that could end a <script>.
TEST(BuiltInPage, HoldsEachPlaceholderAndNoRunTextEndsAScript) {
  const std::string hostile = "</script><script>alert(1)</script> \"q\" 'q' <!--";
  results::RunRecord run = testing::test_run(hostile, results::Status::failed, 3);
  run.header.label = hostile;
  run.header.experiment = hostile;
  run.header.config_toml = "note = \"" + hostile + "\"\n";
  run.error = hostile;
  const std::string page = html_page(page_data({run}, {"r.h5", "now", false}));
  EXPECT_EQ(count_of(page, "</script"), count_of(embedded_assets().page_html, "</script"));
  EXPECT_EQ(page.find("alert(1)</script>"), std::string::npos);
  EXPECT_THAT(page, HasSubstr("<meta name=\"generator\" content=\"runner "));
  EXPECT_THAT(page, HasSubstr("&lt;/script&gt;&lt;script&gt;alert(1)"));
}

}  // namespace
}  // namespace runner::report::html
