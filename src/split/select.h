// Which objects to split: `--only REGEX` and `--skip REGEX` of regen and gen,
// matched (RE2, partial match) against each object's output path as the ninja
// file spells it. Users skip small files, where splitting costs more than it saves.
#pragma once

#include "util/error.h"

#include <memory>
#include <string>
#include <string_view>

namespace re2 {
class RE2;
}

namespace phc::split {

class Selection {
public:
    /// Every object (no --only, no --skip).
    Selection() = default;

    /// From the two patterns ("" = not given). An Error naming the option when a
    /// pattern is not a valid RE2 regular expression.
    static Result<Selection> make(const std::string& only, const std::string& skip);

    /// "" when `object` is to be split; otherwise why it is left alone (the text
    /// of a not-selected decision).
    std::string why_not(std::string_view object) const;

    /// The patterns as given ("" = not given), e.g. for a command that runs again.
    const std::string& only() const { return only_text_; }
    const std::string& skip() const { return skip_text_; }

private:
    std::shared_ptr<const re2::RE2> only_, skip_;
    std::string only_text_, skip_text_;
};

} // namespace phc::split
