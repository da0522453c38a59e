/* VersionHelpers.h for etwsim-cc: the simulated machine is Windows 10 (a client). */
#ifndef ETWSIM_WIN_VERSIONHELPERS_H
#define ETWSIM_WIN_VERSIONHELPERS_H
#include <windows.h>
ETWSIM_INLINE BOOL IsWindowsXPOrGreater(void) { return TRUE; }
ETWSIM_INLINE BOOL IsWindowsXPSP3OrGreater(void) { return TRUE; }
ETWSIM_INLINE BOOL IsWindowsVistaOrGreater(void) { return TRUE; }
ETWSIM_INLINE BOOL IsWindowsVistaSP2OrGreater(void) { return TRUE; }
ETWSIM_INLINE BOOL IsWindows7OrGreater(void) { return TRUE; }
ETWSIM_INLINE BOOL IsWindows7SP1OrGreater(void) { return TRUE; }
ETWSIM_INLINE BOOL IsWindows8OrGreater(void) { return TRUE; }
ETWSIM_INLINE BOOL IsWindows8Point1OrGreater(void) { return TRUE; }
ETWSIM_INLINE BOOL IsWindows10OrGreater(void) { return TRUE; }
ETWSIM_INLINE BOOL IsWindowsServer(void) { return FALSE; }
#endif
