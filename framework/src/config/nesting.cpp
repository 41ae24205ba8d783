// A one-pass scanner of TOML text that finds nesting too deep for the parser, before parsing.
#include "config/nesting.hpp"

#include <vector>

#include "config/error_text.hpp"

namespace runner::config {
namespace {

// A single pass over the text that knows just enough TOML to tell keys from values: strings,
// comments, [headers], dotted keys before '=', and '[' '{' inside values.
class NestingScanner {
 public:
  NestingScanner(const std::string& text, int limit) : text_(text), limit_(limit) {}

  std::optional<TooDeep> scan() {
    while (i_ < text_.size() && !found_) step(text_[i_]);
    return found_;
  }

 private:
  struct Open {
    char kind;  // '[' array or '{' inline table
    int depth;
  };

  void step(char c) {
    if (c == '"' || c == '\'') return skip_string(c);
    if (c == '#') return skip_comment();
    if (c == '\n')
      new_line();
    else if (expect_key_)
      key_char(c);
    else
      value_char(c);
    ++i_;
  }

  void new_line() {
    ++line_;
    if (open_.empty()) start_key(), in_header_ = false;
  }

  void start_key() {
    expect_key_ = true;
    segments_ = 0;
  }

  void key_char(char c) {
    if (c == '[' && open_.empty() && segments_ == 0) {
      in_header_ = true;  // the second '[' of [[array.of.tables]] changes nothing
      header_depth_ = 0;
    } else if (c == ']' && in_header_) {
      if (segments_ > 0) check(header_depth_ = segments_);
      segments_ = 0;
    } else if (c == '.') {
      ++segments_;
    } else if (c == '=') {
      expect_key_ = false;
      pending_ = key_base() + segments_;
      check(pending_);
    } else if (c == '}' && !open_.empty()) {
      close();
    } else if (c != ' ' && c != '\t' && c != '\r' && segments_ == 0) {
      segments_ = 1;
    }
  }

  void value_char(char c) {
    if (c == '[' || c == '{') {
      open_.push_back({c, pending_});
      check(pending_);
      if (c == '{')
        start_key();
      else
        pending_ = pending_ + 1;
    } else if (c == ']' || c == '}') {
      close();
    } else if (c == ',' && !open_.empty()) {
      if (open_.back().kind == '{')
        start_key();
      else
        pending_ = open_.back().depth + 1;
    }
  }

  void close() {
    if (!open_.empty()) open_.pop_back();
    if (!open_.empty() && open_.back().kind == '[') pending_ = open_.back().depth + 1;
    expect_key_ = false;
  }

  int key_base() const { return open_.empty() ? header_depth_ : open_.back().depth; }

  void check(int depth) {
    if (depth > limit_ && !found_) found_ = TooDeep{line_, depth};
  }

  // A quoted key counts as one segment; a string value adds nothing.
  void skip_string(char quote) {
    if (expect_key_ && segments_ == 0) segments_ = 1;
    const std::string triple(3, quote);
    const bool multiline = text_.compare(i_, 3, triple) == 0;
    i_ += multiline ? 3 : 1;
    while (i_ < text_.size()) {
      if (quote == '"' && text_[i_] == '\\') {
        if (i_ + 1 < text_.size() && text_[i_ + 1] == '\n') ++line_;
        i_ += 2;
        continue;
      }
      if (text_[i_] == '\n') {
        if (!multiline) return;  // an unterminated string: the parser reports it
        ++line_;
      }
      if (multiline ? text_.compare(i_, 3, triple) == 0 : text_[i_] == quote) {
        i_ += multiline ? 3 : 1;
        return;
      }
      ++i_;
    }
  }

  void skip_comment() {
    while (i_ < text_.size() && text_[i_] != '\n') ++i_;
  }

  const std::string& text_;
  const int limit_;
  size_t i_ = 0;
  int line_ = 1;
  bool expect_key_ = true;
  bool in_header_ = false;
  int segments_ = 0;
  int header_depth_ = 0;
  int pending_ = 0;
  std::vector<Open> open_;
  std::optional<TooDeep> found_;
};

}  // namespace

std::optional<TooDeep> find_too_deep(const std::string& text, int limit) {
  return NestingScanner(text, limit).scan();
}

void require_shallow(const std::string& text, const std::string& where, bool with_line) {
  const std::optional<TooDeep> deep = find_too_deep(text);
  if (!deep) return;
  fail(with_line ? where + ":" + std::to_string(deep->line) : where,
       "tables, keys and values nested " + std::to_string(deep->depth) +
           " levels deep, more than " + std::to_string(kMaxNesting),
       "an experiment nests a few levels: [section] key = value");
}

}  // namespace runner::config
