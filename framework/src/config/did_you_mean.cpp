// Typo suggestions: the known word with the smallest edit distance, when that distance is small
// for the word's length (a third of it, at least one edit). Swapped neighbours ("trian") count
// as one edit, as they are the commonest typo.
#include "config/did_you_mean.hpp"

#include <algorithm>
#include <limits>
#include <vector>

namespace runner::config {
namespace {

// Levenshtein distance with adjacent transpositions (optimal string alignment).
size_t edit_distance(const std::string& a, const std::string& b) {
  std::vector<std::vector<size_t>> d(a.size() + 1, std::vector<size_t>(b.size() + 1));
  for (size_t i = 0; i <= a.size(); ++i) d[i][0] = i;
  for (size_t j = 0; j <= b.size(); ++j) d[0][j] = j;
  for (size_t i = 1; i <= a.size(); ++i)
    for (size_t j = 1; j <= b.size(); ++j) {
      const size_t substitution = d[i - 1][j - 1] + (a[i - 1] == b[j - 1] ? 0 : 1);
      d[i][j] = std::min({d[i - 1][j] + 1, d[i][j - 1] + 1, substitution});
      if (i > 1 && j > 1 && a[i - 1] == b[j - 2] && a[i - 2] == b[j - 1])
        d[i][j] = std::min(d[i][j], d[i - 2][j - 2] + 1);
    }
  return d[a.size()][b.size()];
}

}  // namespace

std::string did_you_mean(const std::string& word, const std::vector<std::string>& known) {
  const size_t allowed = std::max<size_t>(1, word.size() / 3);
  size_t best_distance = std::numeric_limits<size_t>::max();
  std::string best;
  for (const auto& candidate : known) {
    // Each edit changes the length by one at most: a word far longer or shorter than the
    // candidate needs no table (a megabyte-long word would take seconds and gigabytes).
    const size_t length_gap = word.size() > candidate.size() ? word.size() - candidate.size()
                                                             : candidate.size() - word.size();
    if (length_gap > allowed) continue;
    size_t d = edit_distance(word, candidate);
    if (d < best_distance) {
      best_distance = d;
      best = candidate;
    }
  }
  return best_distance <= allowed ? best : "";
}

}  // namespace runner::config
