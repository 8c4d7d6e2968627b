/* Questions on the splash's dialog, or on the terminal: see keys.h. */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <termios.h>
#include <unistd.h>

#include "cli/keys.h"
#include "util/i18n.h"
#include "util/tty.h"

/* A terminal with echo off: the text fallback of the password dialog. */
static int tty_ask(const char *prompt, char *buf, size_t cap, bool echo)
{
        /* The terminal on stdin, as the initramfs and a person at a shell
         * give it; under a service stdin is no terminal and nobody is
         * asked (the key file is the way then). */
        int fd = dmo_tty_reopen(STDIN_FILENO, O_RDWR);
        if (fd < 0)
                return -ENOTTY;
        struct termios old, quiet;
        bool restore = false;
        if (tcgetattr(fd, &old) == 0) {
                quiet = old;
                if (!echo)
                        quiet.c_lflag &= ~(tcflag_t)ECHO;
                quiet.c_lflag |= ICANON;
                restore = tcsetattr(fd, TCSAFLUSH, &quiet) == 0;
        }
        ssize_t w = write(fd, prompt, strlen(prompt));
        (void)w;
        size_t n = 0;
        int r = 0;
        for (;;) {
                char c;
                ssize_t got = read(fd, &c, 1);
                if (got < 0 && errno == EINTR)
                        continue;
                if (got <= 0) {
                        /* End of input: nobody is there to answer. */
                        r = got < 0 ? -errno : -ENOTTY;
                        break;
                }
                if (c == '\n' || c == '\r')
                        break;
                if (n + 1 < cap)
                        buf[n++] = c;
        }
        buf[n] = '\0';
        if (restore)
                tcsetattr(fd, TCSAFLUSH, &old);
        if (!echo)
                w = write(fd, "\n", 1);
        close(fd);
        if (r < 0)
                memset(buf, 0, cap);
        return r;
}

int dmo_cli_ask_passphrase(struct dmo_splash_session *s, const char *prompt, char *buf, size_t cap)
{
        int r = dmo_splash_session_ask_password(s, prompt, buf, cap);
        if (r != -ENOTTY)
                return r;
        char line[512];
        snprintf(line, sizeof(line), "%.500s ", prompt);
        return tty_ask(line, buf, cap, false);
}

int dmo_cli_ask_yes_no(struct dmo_splash_session *s, const char *prompt, bool default_yes)
{
        int r = dmo_splash_session_ask_yes_no(s, NULL, prompt, default_yes, -1);
        if (r != -ENOTTY)
                return r;
        char line[512], answer[16];
        snprintf(line, sizeof(line), "%s %s ", prompt, default_yes ? _("[Y/n]") : _("[y/N]"));
        r = tty_ask(line, answer, sizeof(answer), true);
        if (r < 0)
                return r;
        /* Only an explicit answer counts; Enter takes the default. */
        if (answer[0] == 'y' || answer[0] == 'Y' || strcmp(answer, _("y")) == 0)
                return 1;
        if (answer[0] == 'n' || answer[0] == 'N' || strcmp(answer, _("n")) == 0)
                return 0;
        return default_yes;
}
