// Text from a user, clipped for quoting in a one-line message. Torch-free, unlike one_line.hpp,
// so that the config module, which builds without LibTorch, uses it too.
#pragma once

#include <string>

namespace runner {

// The most characters of a user's value a message quotes: enough to recognise it.
inline constexpr size_t kQuotedCharacters = 200;

// A UTF-8 continuation byte (10xxxxxx) never starts a character.
inline bool starts_character(char byte) {
  return (static_cast<unsigned char>(byte) & 0xC0) != 0x80;
}

// Characters are UTF-8 code points, so that a cut never splits one.
inline size_t characters_in(const std::string& text) {
  size_t characters = 0;
  for (char byte : text) characters += starts_character(byte) ? 1 : 0;
  return characters;
}

// The first `count` characters of `text` (all of it when shorter).
inline std::string first_characters(const std::string& text, size_t count) {
  size_t characters = 0;
  for (size_t i = 0; i < text.size(); ++i)
    if (starts_character(text[i]) && characters++ == count) return text.substr(0, i);
  return text;
}

// What follows the kept part of a clipped text: how long the whole was.
inline std::string clip_mark(size_t characters) {
  return "... (" + std::to_string(characters) + " characters)";
}

// `text` when it has at most `limit` characters, else its first `limit` and the clip mark.
inline std::string clipped(const std::string& text, size_t limit = kQuotedCharacters) {
  const size_t characters = characters_in(text);
  if (characters <= limit) return text;
  return first_characters(text, limit) + clip_mark(characters);
}

}  // namespace runner
