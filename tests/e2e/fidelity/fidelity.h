// The fidelity corpus's shared header: literals and functions that every
// source sees, so a header's strings meet each source's own.
#pragma once
inline const char* header_text() {
    return "in a header";
}
static const char* const kHeaderEmpty = "";
inline int fidelity_shared(const char* s) {
    return s[0] == '\0' ? 1 : 0;
}
template <typename T> inline const char* header_template() {
    return "";
}
