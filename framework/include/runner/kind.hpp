// The four kinds of component a plugin can register.
#pragma once

namespace runner {

enum class Kind { dataset, model, op, strategy };

inline const char* kind_name(Kind kind) {
  switch (kind) {
    case Kind::dataset: return "dataset";
    case Kind::model: return "model";
    case Kind::op: return "op";
    case Kind::strategy: return "strategy";
  }
  return "?";
}

}  // namespace runner
