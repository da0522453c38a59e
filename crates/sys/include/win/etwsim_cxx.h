/*
 * etwsim_cxx.h: included first by etwsim-c++. libstdc++ is built with a 32-bit wchar_t,
 * so its std::wstring, std::wcout and wide streams misread -fshort-wchar strings; they are
 * made unavailable (std::wcout, wcerr, wclog, wcin: an error; std::wstring: a deprecation
 * warning), with this message, rather than left to corrupt. (std::string, narrow
 * streams and wchar_t arrays with the Windows functions work.)
 */
#ifdef __cplusplus
#include <bits/stringfwd.h>
#include <iosfwd>
namespace std {
#define ETWSIM_NO_WIDE_STD                                                                         \
    __attribute__((unavailable("etwsim: libstdc++'s wide strings and streams use a 32-bit wchar_t; "  \
                               "under -fshort-wchar they would misread UTF-16. Use WCHAR arrays "    \
                               "with wcslen/wprintf/StringCch* instead")))
extern wostream wcout ETWSIM_NO_WIDE_STD;
extern wostream wcerr ETWSIM_NO_WIDE_STD;
extern wostream wclog ETWSIM_NO_WIDE_STD;
extern wistream wcin ETWSIM_NO_WIDE_STD;
/* std::wstring is used inside libstdc++'s own headers, where an error cannot be confined to
 * the program: it is deprecated instead (a warning naming the reason; an error with -Werror). */
typedef basic_string<wchar_t> wstring __attribute__((deprecated(
    "etwsim: libstdc++'s std::wstring uses a 32-bit wchar_t; under -fshort-wchar it misreads UTF-16")));
#undef ETWSIM_NO_WIDE_STD
}
#endif
