#include "split/select.h"

#include <re2/re2.h>

namespace phc::split {

namespace {

/// The compiled `pattern`, or an Error naming `option`.
Result<std::shared_ptr<const re2::RE2>> compile_pattern(std::string_view option,
                                                        const std::string& pattern) {
    if (pattern.empty()) return std::shared_ptr<const re2::RE2>();
    re2::RE2::Options o;
    o.set_log_errors(false);
    auto re = std::make_shared<const re2::RE2>(pattern, o);
    if (!re->ok())
        return make_error(std::string(option) + ": '" + pattern +
                          "' is not a regular expression (" + re->error() + ")");
    return std::shared_ptr<const re2::RE2>(std::move(re));
}

} // namespace

Result<Selection> Selection::make(const std::string& only, const std::string& skip) {
    Selection s;
    auto o = compile_pattern("--only", only);
    if (!o) return o.error();
    auto k = compile_pattern("--skip", skip);
    if (!k) return k.error();
    s.only_ = std::move(*o);
    s.skip_ = std::move(*k);
    s.only_text_ = only;
    s.skip_text_ = skip;
    return s;
}

std::string Selection::why_not(std::string_view object) const {
    if (only_ && !re2::RE2::PartialMatch(object, *only_))
        return "--only '" + only_->pattern() + "' does not match " + std::string(object);
    if (skip_ && re2::RE2::PartialMatch(object, *skip_))
        return "--skip '" + skip_->pattern() + "' matches " + std::string(object);
    return {};
}

} // namespace phc::split
