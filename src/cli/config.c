/* The config file's syntax: lines, comments, keys in any spelling. */
#include "cli/config.h"

#include <ctype.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "keys/keys.h"
#include "util/cleanup.h"

void dmo_config_init(struct dmo_config *cfg)
{
        memset(cfg, 0, sizeof(*cfg));
        cfg->resume_offset = -1;
        cfg->image_size = -1;
        cfg->compress = DMO_COMPRESS_LZ4;
        cfg->shutdown = DMO_SHUTDOWN_PLATFORM;
        cfg->resume_timeout_ms = -1;
        cfg->encrypt = DMO_ENCRYPT_NONE;
        cfg->kdf = (struct dmo_kdf_costs){DMO_KDF_OPSLIMIT_DEFAULT, DMO_KDF_MEMLIMIT_DEFAULT};
        cfg->tpm_pcrs = DMO_KEYS_TPM_PCRS_DEFAULT;
        cfg->tpm_counter = DMO_KEYS_TPM_COUNTER_DEFAULT;
}

static void add_note(struct dmo_config_notes *notes, enum dmo_config_note_kind kind, unsigned line,
                     const char *key, size_t key_len, const char *value, size_t value_len)
{
        if (!notes)
                return;
        if (notes->count >= DMO_CONFIG_MAX_NOTES) {
                notes->dropped++;
                return;
        }
        struct dmo_config_note *n = &notes->note[notes->count++];
        n->kind = kind;
        n->line = line;
        snprintf(n->key, sizeof(n->key), "%.*s", (int)(key_len < 47 ? key_len : 47), key);
        snprintf(n->value, sizeof(n->value), "%.*s", (int)(value_len < 47 ? value_len : 47),
                 value ? value : "");
}

static void canonical_key(const char *key, size_t len, char *out, size_t out_len)
{
        size_t o = 0;
        bool gap = false;
        for (size_t i = 0; i < len && o + 1 < out_len; i++) {
                unsigned char c = (unsigned char)key[i];
                if (c == ' ' || c == '\t' || c == '_' || c == '-') {
                        gap = o > 0;
                        continue;
                }
                if (gap && o + 2 < out_len)
                        out[o++] = '-';
                gap = false;
                out[o++] = (char)tolower(c);
        }
        out[o] = '\0';
}

static bool is_space(char c)
{
        return c == ' ' || c == '\t' || c == '\r';
}

int dmo_config_parse(struct dmo_config *cfg, const char *text, size_t len,
                     struct dmo_config_notes *notes)
{
        unsigned line_no = 0;
        size_t pos = 0;
        while (pos < len) {
                size_t end = pos;
                while (end < len && text[end] != '\n')
                        end++;
                line_no++;
                const char *line = text + pos;
                size_t n = end - pos;
                pos = end + 1;

                size_t cut = 0;
                while (cut < n && line[cut] != '#')
                        cut++;
                n = cut;
                while (n && is_space(line[0])) {
                        line++;
                        n--;
                }
                while (n && is_space(line[n - 1]))
                        n--;
                if (!n)
                        continue;

                size_t sep = 0;
                while (sep < n && line[sep] != '=' && line[sep] != ':')
                        sep++;
                if (sep == n || sep == 0) {
                        add_note(notes, DMO_NOTE_SYNTAX, line_no, line, n, NULL, 0);
                        continue;
                }
                size_t key_len = sep;
                while (key_len && is_space(line[key_len - 1]))
                        key_len--;
                const char *val = line + sep + 1;
                size_t val_len = n - sep - 1;
                while (val_len && is_space(*val)) {
                        val++;
                        val_len--;
                }
                if (val_len >= 2 && (val[0] == '"' || val[0] == '\'') &&
                    val[val_len - 1] == val[0]) {
                        val++;
                        val_len -= 2;
                }

                char key[64], value[512];
                canonical_key(line, key_len, key, sizeof(key));
                if (val_len >= sizeof(value) || memchr(val, '\0', val_len)) {
                        add_note(notes, DMO_NOTE_BAD_VALUE, line_no, line, key_len, val, val_len);
                        continue;
                }
                memcpy(value, val, val_len);
                value[val_len] = '\0';

                int r = dmo_config_apply(cfg, key, value);
                if (r == -ENOENT)
                        add_note(notes, DMO_NOTE_UNKNOWN_KEY, line_no, line, key_len, val, val_len);
                else if (r == -EOPNOTSUPP)
                        add_note(notes, DMO_NOTE_IGNORED_KEY, line_no, line, key_len, val, val_len);
                else if (r < 0)
                        add_note(notes, DMO_NOTE_BAD_VALUE, line_no, line, key_len, val, val_len);
        }
        return 0;
}

int dmo_config_load(struct dmo_config *cfg, const char *path, struct dmo_config_notes *notes)
{
        _cleanup_close_ int fd = open(path, O_RDONLY | O_CLOEXEC);
        if (fd < 0)
                return -errno;
        struct stat st;
        if (fstat(fd, &st) < 0)
                return -errno;
        if (S_ISDIR(st.st_mode))
                return -EISDIR;
        if (st.st_size > 1024 * 1024)
                return -EFBIG;
        _cleanup_free_ char *buf = malloc((size_t)st.st_size + 1);
        if (!buf)
                return -ENOMEM;
        size_t got = 0;
        while (got < (size_t)st.st_size) {
                ssize_t r = read(fd, buf + got, (size_t)st.st_size - got);
                if (r < 0 && errno == EINTR)
                        continue;
                if (r < 0)
                        return -errno;
                if (r == 0)
                        break;
                got += (size_t)r;
        }
        return dmo_config_parse(cfg, buf, got, notes);
}
