/* askw.exe: the launcher through which tests/cross/wine-run starts ask_user.exe
 * under wine. Wine rebuilds a Windows process's profile variables (APPDATA,
 * LOCALAPPDATA, USERPROFILE, TEMP, ...) from its prefix and ignores the Unix
 * values, so a test could not point `setup` at a temporary %APPDATA%. This
 * launcher, already under wine, sets each variable NAME from ASKW_NAME, drops
 * the ASKW_ variables, then runs ASKW_EXE with its own command line's
 * arguments unchanged (the same quoting wine produced), with the same standard
 * handles, and exits with the child's exit code.
 * Built by scripts/cross-setup with x86_64-w64-mingw32-gcc. */
#define WIN32_LEAN_AND_MEAN
#include <windows.h>
#include <wchar.h>

static const wchar_t *names[] = {
    L"APPDATA", L"LOCALAPPDATA", L"USERPROFILE", L"HOMEDRIVE", L"HOMEPATH",
    L"TEMP", L"TMP", L"PROGRAMDATA", L"ALLUSERSPROFILE", NULL,
};

static void fail(const char *what) {
    DWORD n;
    HANDLE err = GetStdHandle(STD_ERROR_HANDLE);
    WriteFile(err, "askw: ", 6, &n, NULL);
    WriteFile(err, what, (DWORD)strlen(what), &n, NULL);
    WriteFile(err, "\n", 1, &n, NULL);
    ExitProcess(125);
}

int main(void) {
    static wchar_t value[32768], exe[32768], name[64];
    if (!GetEnvironmentVariableW(L"ASKW_EXE", exe, 32768)) fail("ASKW_EXE is not set");
    SetEnvironmentVariableW(L"ASKW_EXE", NULL);
    for (int i = 0; names[i]; i++) {
        swprintf(name, 64, L"ASKW_%ls", names[i]);
        if (GetEnvironmentVariableW(name, value, 32768)) {
            SetEnvironmentVariableW(names[i], value);
            SetEnvironmentVariableW(name, NULL);
        } else if (GetLastError() == ERROR_ENVVAR_NOT_FOUND) {
            /* ASKW_UNSET_NAME: the test removed NAME. */
            swprintf(name, 64, L"ASKW_UNSET_%ls", names[i]);
            if (GetEnvironmentVariableW(name, value, 32768)) {
                SetEnvironmentVariableW(names[i], NULL);
                SetEnvironmentVariableW(name, NULL);
            }
        }
    }
    /* Skip argv[0] in our own command line, keep the rest verbatim. */
    const wchar_t *rest = GetCommandLineW();
    if (*rest == L'"') {
        rest++;
        while (*rest && *rest != L'"') rest++;
        if (*rest) rest++;
    } else {
        while (*rest && *rest != L' ' && *rest != L'\t') rest++;
    }
    size_t len = wcslen(exe) + wcslen(rest) + 4;
    wchar_t *line = HeapAlloc(GetProcessHeap(), 0, len * sizeof(wchar_t));
    if (!line) fail("out of memory");
    swprintf(line, len, L"\"%ls\"%ls", exe, rest);
    STARTUPINFOW si;
    ZeroMemory(&si, sizeof si);
    si.cb = sizeof si;
    si.dwFlags = STARTF_USESTDHANDLES;
    si.hStdInput = GetStdHandle(STD_INPUT_HANDLE);
    si.hStdOutput = GetStdHandle(STD_OUTPUT_HANDLE);
    si.hStdError = GetStdHandle(STD_ERROR_HANDLE);
    PROCESS_INFORMATION pi;
    if (!CreateProcessW(exe, line, NULL, NULL, TRUE, 0, NULL, NULL, &si, &pi))
        fail("cannot start ASKW_EXE");
    CloseHandle(pi.hThread);
    WaitForSingleObject(pi.hProcess, INFINITE);
    DWORD code = 1;
    GetExitCodeProcess(pi.hProcess, &code);
    ExitProcess(code);
}
