#include "kernel/zoneinfo.h"

#include <errno.h>
#include <stdbool.h>
#include <stdio.h>
#include <string.h>

#include "util/parse.h"

int dmo_zoneinfo_present_pages(const char *path, uint64_t *pages)
{
        FILE *f = fopen(path, "re");
        if (!f)
                return -errno;
        /* Lines are short; a longer one (a zone's protection array on a
         * machine with many nodes) is read on in pieces, none of which
         * starts with the field looked for. */
        char line[256];
        uint64_t sum = 0;
        unsigned zones = 0;
        int r = 0;
        bool line_start = true;
        while (fgets(line, sizeof(line), f)) {
                bool whole = strchr(line, '\n') != NULL;
                const char *p = line + strspn(line, " \t");
                if (line_start && strncmp(p, "present", 7) == 0 && (p[7] == ' ' || p[7] == '\t')) {
                        char count[32];
                        p += 7 + strspn(p + 7, " \t");
                        size_t len = strcspn(p, " \t\n");
                        uint64_t n;
                        if (len == 0 || len >= sizeof(count) ||
                            p[len + strspn(p + len, " \t")] != '\n') {
                                r = -EINVAL;
                                break;
                        }
                        memcpy(count, p, len);
                        count[len] = '\0';
                        if (dmo_parse_u64(count, &n) < 0 || sum + n < sum) {
                                r = -EINVAL;
                                break;
                        }
                        sum += n;
                        zones++;
                }
                line_start = whole;
        }
        if (r == 0 && ferror(f))
                r = -EIO;
        fclose(f);
        if (r < 0)
                return r;
        if (zones == 0 || sum == 0)
                return -EINVAL;
        *pages = sum;
        return 0;
}

uint64_t dmo_zoneinfo_max_image_pages(uint64_t present, uint32_t page_size)
{
        const uint64_t data = present / 2;
        const uint64_t per_meta = page_size >= 8 ? page_size / 8 : 1;
        return data + (data + per_meta - 1) / per_meta + 1;
}
