#include "kernel/kmsg.h"

#include <errno.h>
#include <fcntl.h>
#include <stdbool.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "util/cleanup.h"

static bool is_control(unsigned char c)
{
        return c < 0x20 || c == 0x7f;
}

size_t dmo_kmsg_format(char *buf, enum dmo_kmsg_level level, const char *prefix, const char *text)
{
        size_t skip = 0;
        while (text[skip] == ' ' || (text[skip] && is_control((unsigned char)text[skip])))
                skip++;
        if (!text[skip]) {
                buf[0] = '\0';
                return 0;
        }
        int head = snprintf(buf, DMO_KMSG_LINE_MAX + 1, "<%d>%s: ", (int)level, prefix);
        if (head < 0 || head >= DMO_KMSG_LINE_MAX / 2)
                head = 0; /* an absurd prefix is left out rather than crowd the text */
        size_t room = DMO_KMSG_LINE_MAX - (size_t)head;
        const char *t = text + skip;
        size_t n = strlen(t);
        if (n > room) {
                /* Cut at the last space that fits; a word longer than a
                 * whole record is cut where the record ends. Never inside a
                 * UTF-8 sequence: back up over continuation bytes. */
                size_t cut = room;
                while (cut > room / 2 && t[cut] != ' ')
                        cut--;
                if (t[cut] != ' ') {
                        cut = room;
                        while (cut > 0 && ((unsigned char)t[cut] & 0xc0) == 0x80)
                                cut--;
                }
                n = cut;
        }
        char *out = buf + head;
        for (size_t i = 0; i < n; i++)
                out[i] = is_control((unsigned char)t[i]) ? ' ' : t[i];
        while (n > 0 && out[n - 1] == ' ')
                n--;
        out[n] = '\0';
        size_t used = (size_t)(t - text) + n;
        while (text[used] == ' ')
                used++;
        return used > 0 ? used : 1;
}

int dmo_kmsg_write(const char *path, enum dmo_kmsg_level level, const char *prefix,
                   const char *text)
{
        _cleanup_close_ int fd =
            open(path, O_WRONLY | O_APPEND | O_CREAT | O_CLOEXEC | O_NOCTTY, 0600);
        if (fd < 0)
                return -errno;
        char rec[DMO_KMSG_LINE_MAX + 2];
        size_t used;
        while ((used = dmo_kmsg_format(rec, level, prefix, text)) > 0) {
                text += used;
                if (!rec[0])
                        break;
                size_t len = strlen(rec);
                rec[len++] = '\n';
                /* One write() is one record to the kernel. */
                ssize_t w = write(fd, rec, len);
                if (w < 0)
                        return -errno;
                if ((size_t)w != len)
                        return -EIO;
        }
        return 0;
}
