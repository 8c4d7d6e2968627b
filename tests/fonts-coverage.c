/* fonts-coverage: which characters of a text a font has, asked of FreeType
 * the way the splash asks it (src/splash/paint/text.c, font_has: a glyph
 * index other than 0). For tests/fonts-initramfs.sh.
 *
 *   fonts-coverage FULL CUT <TEXT
 *     prints "U+XXXX C" for each character of TEXT (UTF-8, each once, in
 *     the order met) that FULL has and CUT does not, or CUT has and FULL
 *     does not ("+" after it): the splash would pick another font for it,
 *     or find no glyph. Exit 1 when there is one, 0 otherwise.
 *   fonts-coverage --none FONT... <TEXT
 *     prints each character of TEXT that none of the FONTs has, but for the
 *     default-ignorable ones (bidirectional marks and isolates, joiners,
 *     variation selectors: HarfBuzz draws nothing for them, font or not).
 *     Exit 1 when there is one.
 *
 * Control characters (below U+0020) are never drawn and are skipped, as
 * the splash skips them. Exit 2 on errors (a font FreeType cannot open). */

#include <ft2build.h>
#include FT_FREETYPE_H

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

enum { MAX_FONTS = 8, MAX_CHARS = 0x110000 };

/* The next code point of s (advancing *i), or -1 for a malformed byte
 * (skipped). */
static long next_cp(const unsigned char *s, size_t n, size_t *i)
{
        unsigned char b = s[(*i)++];
        int more = b < 0x80             ? 0
                   : (b & 0xe0) == 0xc0 ? 1
                   : (b & 0xf0) == 0xe0 ? 2
                   : (b & 0xf8) == 0xf0 ? 3
                                        : -1;
        if (more < 0)
                return -1;
        long cp = more == 0 ? b : b & (0x3f >> more);
        for (int k = 0; k < more; k++) {
                if (*i >= n || (s[*i] & 0xc0) != 0x80)
                        return -1;
                cp = cp << 6 | (s[(*i)++] & 0x3f);
        }
        return cp < MAX_CHARS ? cp : -1;
}

/* Unicode's Default_Ignorable_Code_Point, the ranges text can hold. */
static bool ignorable(long cp)
{
        static const long range[][2] = {
            {0x00ad, 0x00ad}, {0x034f, 0x034f}, {0x061c, 0x061c},   {0x115f, 0x1160},
            {0x17b4, 0x17b5}, {0x180b, 0x180f}, {0x200b, 0x200f},   {0x202a, 0x202e},
            {0x2060, 0x206f}, {0x3164, 0x3164}, {0xfe00, 0xfe0f},   {0xfeff, 0xfeff},
            {0xffa0, 0xffa0}, {0xfff0, 0xfff8}, {0xe0000, 0xe0fff},
        };
        for (size_t k = 0; k < sizeof(range) / sizeof(range[0]); k++)
                if (cp >= range[k][0] && cp <= range[k][1])
                        return true;
        return false;
}

static void put_cp(long cp)
{
        char u[5] = {0};
        if (cp < 0x80) {
                u[0] = (char)cp;
        } else if (cp < 0x800) {
                u[0] = (char)(0xc0 | cp >> 6);
                u[1] = (char)(0x80 | (cp & 0x3f));
        } else if (cp < 0x10000) {
                u[0] = (char)(0xe0 | cp >> 12);
                u[1] = (char)(0x80 | (cp >> 6 & 0x3f));
                u[2] = (char)(0x80 | (cp & 0x3f));
        } else {
                u[0] = (char)(0xf0 | cp >> 18);
                u[1] = (char)(0x80 | (cp >> 12 & 0x3f));
                u[2] = (char)(0x80 | (cp >> 6 & 0x3f));
                u[3] = (char)(0x80 | (cp & 0x3f));
        }
        printf("U+%04lX %s", cp, u);
}

static unsigned char *read_all(FILE *f, size_t *n)
{
        size_t cap = 1 << 16;
        unsigned char *buf = malloc(cap);
        *n = 0;
        while (buf) {
                size_t r = fread(buf + *n, 1, cap - *n, f);
                *n += r;
                if (r == 0)
                        break;
                if (*n == cap) {
                        unsigned char *b = realloc(buf, cap * 2);
                        if (!b) {
                                free(buf);
                                return NULL;
                        }
                        buf = b;
                        cap *= 2;
                }
        }
        return buf;
}

int main(int argc, char **argv)
{
        bool none = argc > 1 && !strcmp(argv[1], "--none");
        int first = none ? 2 : 1, nfonts = argc - first;
        if (nfonts < 1 || nfonts > MAX_FONTS || (!none && nfonts != 2)) {
                fprintf(stderr, "usage: fonts-coverage FULL CUT <TEXT\n"
                                "       fonts-coverage --none FONT... <TEXT\n");
                return 2;
        }
        FT_Library lib;
        FT_Face face[MAX_FONTS];
        if (FT_Init_FreeType(&lib)) {
                fprintf(stderr, "fonts-coverage: FreeType does not start\n");
                return 2;
        }
        for (int k = 0; k < nfonts; k++) {
                if (FT_New_Face(lib, argv[first + k], 0, &face[k])) {
                        fprintf(stderr, "fonts-coverage: FreeType cannot open %s\n",
                                argv[first + k]);
                        return 2;
                }
        }
        size_t n;
        unsigned char *text = read_all(stdin, &n);
        bool *seen = calloc(MAX_CHARS, sizeof(bool));
        if (!text || !seen) {
                fprintf(stderr, "fonts-coverage: out of memory\n");
                return 2;
        }
        int found = 0;
        for (size_t i = 0; i < n;) {
                long cp = next_cp(text, n, &i);
                if (cp < 0x20 || seen[cp])
                        continue;
                seen[cp] = true;
                bool has[MAX_FONTS];
                for (int k = 0; k < nfonts; k++)
                        has[k] = FT_Get_Char_Index(face[k], (FT_ULong)cp) != 0;
                if (none) {
                        bool any = false;
                        for (int k = 0; k < nfonts; k++)
                                any = any || has[k];
                        if (any || ignorable(cp))
                                continue;
                        put_cp(cp);
                        putchar('\n');
                        found++;
                } else if (has[0] != has[1]) {
                        put_cp(cp);
                        puts(has[1] ? " +" : "");
                        found++;
                }
        }
        free(seen);
        free(text);
        for (int k = 0; k < nfonts; k++)
                FT_Done_Face(face[k]);
        FT_Done_FreeType(lib);
        return found ? 1 : 0;
}
