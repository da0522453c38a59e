/* conio.h for etwsim-cc: _getch and _kbhit on standard input. _getch reads one byte
 * (on a terminal, without waiting for Enter and without echo); _kbhit says whether one is
 * waiting (on a terminal, without Enter). */
#ifndef ETWSIM_WIN_CONIO_H
#define ETWSIM_WIN_CONIO_H
#ifdef __cplusplus
extern "C" {
#endif
int _getch(void);
int _kbhit(void);
#ifdef __cplusplus
}
#endif
#endif
