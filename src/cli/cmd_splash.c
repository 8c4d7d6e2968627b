/* The theme author's commands: preview and theme check. */
#include <errno.h>
#include <getopt.h>
#include <stdio.h>
#include <string.h>

#include "cli/cli.h"
#include "cli/display.h"
#include "splash/preview.h"
#include "splash/theme/theme.h"
#include "splash/theme/theme_check.h"
#include "util/i18n.h"
#include "util/parse.h"
#include "util/strtable.h"

static void print_diag(const struct dmo_diag *diag, FILE *f)
{
        char line[640];
        for (size_t i = 0; i < diag->n; i++) {
                dmo_diag_format(&diag->items[i], line, sizeof(line));
                fprintf(f, "%s\n", line);
        }
        if (diag->dropped)
                fprintf(f, _("... and %zu more\n"), diag->dropped);
}

/* --mode names the scene; --dialog the dialog drawn over it. */
static const char *const scene_kind_table[DMO_SCENE_KINDS] = {
    [DMO_SCENE_HIBERNATE] = "hibernate",       [DMO_SCENE_RESUME] = "resume",
    [DMO_SCENE_ABORTED] = "aborted",           [DMO_SCENE_ERROR] = "error",
    [DMO_SCENE_RESUME_ERROR] = "resume-error",
};
DMO_DEFINE_STRING_TABLE_LOOKUP(static, scene_kind, enum dmo_scene_kind)

static const char *const dialog_kind_table[] = {
    [DMO_DIALOG_PASSWORD] = "password",
    [DMO_DIALOG_QUESTION] = "question",
};
DMO_DEFINE_STRING_TABLE_LOOKUP(static, dialog_kind, enum dmo_dialog_kind)

/* --size WIDTHxHEIGHT, each from 64 to 16384. */
static int parse_size(const char *arg, struct dmo_preview_params *p)
{
        static const unsigned min = 64, max = 16384;
        char w[16];
        const char *x = strchr(arg, 'x');
        unsigned width, height;
        if (x && (size_t)(x - arg) < sizeof(w)) {
                memcpy(w, arg, (size_t)(x - arg));
                w[x - arg] = '\0';
                if (dmo_parse_unsigned(w, min, max, &width) == 0 &&
                    dmo_parse_unsigned(x + 1, min, max, &height) == 0) {
                        p->width = (int)width;
                        p->height = (int)height;
                        return 0;
                }
        }
        dmo_cli_error(_("--size: \"%s\" is not WIDTHxHEIGHT; give e.g. 1920x1080 (64 to 16384)"),
                      arg);
        return -EINVAL;
}

static void preview_usage(FILE *f)
{
        fprintf(f, "%s",
                _("Usage: dormouse preview [--theme NAME|DIR]\n"
                  "         [--mode hibernate|resume|aborted|error|resume-error]\n"
                  "         [--progress 0..1] [--size WxH] [--scale S] [--lang LL]\n"
                  "         [--dialog password|question] [--frames N] --output FILE.png|DIR\n"
                  "Renders the splash to PNG, as it would look on a screen of that size\n"
                  "(default 1920x1080, scale automatic, the language of the environment).\n"));
}

enum {
        O_THEME = 1,
        O_MODE,
        O_PROGRESS,
        O_SIZE,
        O_SCALE,
        O_LANG,
        O_OUTPUT,
        O_FRAMES,
        O_DIALOG,
        O_HELP
};

/* The options that take a value to check; 1 when opt was one of them. */
static int parse_value(struct dmo_preview_params *p, int opt, const char *arg)
{
        uint64_t frames;
        switch (opt) {
        case O_MODE:
                if (scene_kind_from_string(arg, &p->kind) == 0)
                        return 1;
                dmo_cli_error(_("--mode: use hibernate, resume, aborted, error or resume-error"));
                return -EINVAL;
        case O_PROGRESS:
                if (dmo_parse_double(arg, 0, 1, &p->progress) == 0)
                        return 1;
                dmo_cli_error(_("--progress: a number from 0 to 1"));
                return -EINVAL;
        case O_SIZE:
                return parse_size(arg, p) < 0 ? -EINVAL : 1;
        case O_SCALE:
                if (dmo_parse_double(arg, 0, 8, &p->scale) == 0 && p->scale > 0)
                        return 1;
                dmo_cli_error(_("--scale: a number above 0, at most 8"));
                return -EINVAL;
        case O_FRAMES:
                if (dmo_cli_parse_number("--frames", arg, 0, 100000, &frames) < 0)
                        return -EINVAL;
                p->frames = (unsigned)frames;
                return 1;
        case O_DIALOG:
                if (dialog_kind_from_string(arg, &p->dialog) < 0) {
                        dmo_cli_error(_("--dialog: use password or question"));
                        return -EINVAL;
                }
                p->bullets = p->dialog == DMO_DIALOG_PASSWORD ? 7 : 0;
                return 1;
        }
        return 0;
}

/* 0 with *help set after --help; -EINVAL on a bad option (said). */
static int parse_preview(struct dmo_preview_params *p, int argc, char **argv, bool *help)
{
        static const struct option opts[] = {
            {"theme", required_argument, NULL, O_THEME},
            {"mode", required_argument, NULL, O_MODE},
            {"progress", required_argument, NULL, O_PROGRESS},
            {"size", required_argument, NULL, O_SIZE},
            {"scale", required_argument, NULL, O_SCALE},
            {"lang", required_argument, NULL, O_LANG},
            {"output", required_argument, NULL, O_OUTPUT},
            {"frames", required_argument, NULL, O_FRAMES},
            {"dialog", required_argument, NULL, O_DIALOG},
            {"help", no_argument, NULL, O_HELP},
            {0},
        };
        int opt, r;
        optind = 1;
        while ((opt = getopt_long(argc, argv, "", opts, NULL)) != -1) {
                if ((r = parse_value(p, opt, optarg)) != 0) {
                        if (r < 0)
                                return r;
                } else if (opt == O_THEME) {
                        p->theme = optarg;
                } else if (opt == O_LANG) {
                        p->lang = optarg;
                } else if (opt == O_OUTPUT) {
                        p->output = optarg;
                } else if (opt == O_HELP) {
                        preview_usage(stdout);
                        *help = true;
                        return 0;
                } else {
                        preview_usage(stderr);
                        return -EINVAL;
                }
        }
        if (!p->output) {
                dmo_cli_error(_("preview: --output is required (a .png file, or a directory with "
                                "--frames)"));
                return -EINVAL;
        }
        return 0;
}

static void theme_paths(struct dmo_theme_paths *paths, char *themes, char *fonts, size_t len)
{
        dmo_display_data_paths(themes, len, fonts, len);
        *paths = (struct dmo_theme_paths){.themes_dir = themes, .fonts_dir = fonts};
        dmo_display_plymouth_paths(paths);
}

int dmo_cmd_preview(int argc, char **argv)
{
        char themes[512], fonts[512];
        struct dmo_theme_paths paths;
        theme_paths(&paths, themes, fonts, sizeof(themes));
        struct dmo_preview_params p = {
            .theme = "default", .paths = &paths, .kind = DMO_SCENE_HIBERNATE, .progress = 0.42};
        bool help = false;
        int r = parse_preview(&p, argc, argv, &help);
        if (r < 0 || help)
                return dmo_cli_exit_status(DMO_CMD_PREVIEW, r);

        struct dmo_diag diag;
        dmo_diag_init(&diag);
        r = dmo_preview_render(&p, &diag);
        print_diag(&diag, stderr);
        /* Said once: the diagnostics already name the file and the reason. */
        bool said = dmo_diag_count(&diag, DMO_DIAG_ERROR) > 0;
        dmo_diag_clear(&diag);
        if (r < 0) {
                if (!said)
                        dmo_cli_error(_("preview of theme \"%s\" failed: %s"), p.theme,
                                      strerror(-r));
                r = r == -EINVAL ? -EIO : r; /* a failure, not a usage error */
        }
        return dmo_cli_exit_status(DMO_CMD_PREVIEW, r);
}

static void theme_usage(FILE *f)
{
        fprintf(f, "%s",
                _("Usage: dormouse theme check DIR|NAME\n"
                  "Checks a theme at 800x600, 1280x800, 1920x1080 and 3840x2160 in the current\n"
                  "language: every scene and dialog, text that does not fit its box, elements\n"
                  "that overlap, text with too little contrast. Prints one line per finding.\n"
                  "Exit status: 0 the theme loads (findings are warnings), 6 errors.\n"));
}

static bool wants_help(const char *arg)
{
        return !strcmp(arg, "--help") || !strcmp(arg, "-h");
}

int dmo_cmd_theme(int argc, char **argv)
{
        if ((argc == 2 && wants_help(argv[1])) ||
            (argc == 3 && !strcmp(argv[1], "check") && wants_help(argv[2]))) {
                theme_usage(stdout);
                return 0;
        }
        if (argc < 2 || strcmp(argv[1], "check") != 0 || argc != 3) {
                theme_usage(stderr);
                return dmo_cli_exit_status(DMO_CMD_THEME, -EINVAL);
        }
        char themes[512], fonts[512];
        struct dmo_theme_paths paths;
        theme_paths(&paths, themes, fonts, sizeof(themes));
        struct dmo_diag diag;
        dmo_diag_init(&diag);
        int r = dmo_theme_check(argv[2], &paths, &diag);
        print_diag(&diag, stdout);
        size_t errors = dmo_diag_count(&diag, DMO_DIAG_ERROR);
        size_t warnings = dmo_diag_count(&diag, DMO_DIAG_WARNING) - errors;
        dmo_diag_clear(&diag);
        /* TRANSLATORS: theme, then how many errors and warnings its check
         * found (no plural: "errors: 1" reads right for every count). */
        printf(_("%s: errors: %zu, warnings: %zu\n"), argv[2], errors, warnings);
        if (r < 0 || errors)
                r = -EIO; /* said: the errors, or why the theme could not be checked */
        return dmo_cli_exit_status(DMO_CMD_THEME, r);
}
