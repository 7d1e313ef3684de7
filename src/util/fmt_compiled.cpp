// fmt's compiled part, built once for the whole program where phc-ninja is
// linked statically (PHC_STATIC_RUNTIME): Debian ships libfmt.so only, and the
// header-only fmt this replaces compiled the whole formatting engine, -O2 -g,
// into every one of our files (about 40% of each file's compile time).
//
// Without FMT_HEADER_ONLY, fmt's headers declare the engine and leave its
// definitions to the library: format-inl.h defines the functions (FMT_FUNC is
// empty here, so they are ordinary external definitions), and the templates
// the headers declare for the library to instantiate are instantiated below
// (fmt 9's `extern template` and FMT_API templates). A definition missing here
// is an undefined symbol when phc-ninja links, never a different program.
// src/util/CMakeLists.txt uses this file with fmt 9 only.
#include <fmt/format-inl.h>
FMT_BEGIN_NAMESPACE
namespace detail {
template FMT_API locale_ref::locale_ref(const std::locale&);
template FMT_API auto locale_ref::get<std::locale>() const -> std::locale;
template FMT_API auto thousands_sep_impl<char>(locale_ref) -> thousands_sep_result<char>;
template FMT_API auto thousands_sep_impl<wchar_t>(locale_ref) -> thousands_sep_result<wchar_t>;
template FMT_API auto decimal_point_impl(locale_ref) -> char;
template FMT_API auto decimal_point_impl(locale_ref) -> wchar_t;
template FMT_API auto dragonbox::to_decimal(float) noexcept -> dragonbox::decimal_fp<float>;
template FMT_API auto dragonbox::to_decimal(double) noexcept -> dragonbox::decimal_fp<double>;
} // namespace detail
FMT_END_NAMESPACE
