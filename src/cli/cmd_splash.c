/* The theme author's commands: preview and theme check. */
#include <errno.h>
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli/cli.h"
#include "cli/display.h"
#include "splash/preview.h"
#include "splash/theme/theme.h"
#include "splash/theme/theme_check.h"
#include "util/i18n.h"

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

static int parse_kind(const char *s, enum dmo_scene_kind *out)
{
        static const struct {
                const char *name;
                enum dmo_scene_kind kind;
        } kinds[] = {
            {"hibernate", DMO_SCENE_HIBERNATE},       {"resume", DMO_SCENE_RESUME},
            {"aborted", DMO_SCENE_ABORTED},           {"error", DMO_SCENE_ERROR},
            {"resume-error", DMO_SCENE_RESUME_ERROR},
        };
        for (size_t i = 0; i < sizeof(kinds) / sizeof(kinds[0]); i++)
                if (strcmp(s, kinds[i].name) == 0) {
                        *out = kinds[i].kind;
                        return 0;
                }
        return -EINVAL;
}

static void preview_usage(FILE *f)
{
        fprintf(f, "%s",
                _("Usage: dormouse preview [--theme NAME|DIR] [--mode "
                  "hibernate|resume|aborted|error]\n"
                  "         [--progress 0..1] [--size WxH] [--scale S] [--lang LL]\n"
                  "         [--dialog password|question] [--frames N] --output FILE.png|DIR\n"
                  "Renders the splash to PNG, as it would look on a screen of that size.\n"));
}

int dmo_cmd_preview(int argc, char **argv)
{
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
        char themes[512], fonts[512];
        dmo_display_data_paths(themes, sizeof(themes), fonts, sizeof(fonts));
        struct dmo_theme_paths paths = {.themes_dir = themes, .fonts_dir = fonts};
        struct dmo_preview_params p = {
            .theme = "default", .paths = &paths, .kind = DMO_SCENE_HIBERNATE, .progress = 0.42};
        int opt;
        char *end;
        optind = 1;
        while ((opt = getopt_long(argc, argv, "", opts, NULL)) != -1) {
                switch (opt) {
                case O_THEME:
                        p.theme = optarg;
                        break;
                case O_MODE:
                        if (parse_kind(optarg, &p.kind) < 0) {
                                dmo_cli_error(_("--mode: use hibernate, resume, aborted or error"));
                                return DMO_EXIT_USAGE;
                        }
                        break;
                case O_PROGRESS:
                        p.progress = strtod(optarg, &end);
                        if (*end || !(p.progress >= 0 && p.progress <= 1)) {
                                dmo_cli_error(_("--progress: a number from 0 to 1"));
                                return DMO_EXIT_USAGE;
                        }
                        break;
                case O_SIZE:
                        if (sscanf(optarg, "%dx%d", &p.width, &p.height) != 2 || p.width < 64 ||
                            p.height < 64 || p.width > 16384 || p.height > 16384) {
                                dmo_cli_error(_("--size: WIDTHxHEIGHT, e.g. 1920x1080 (64 to "
                                                "16384)"));
                                return DMO_EXIT_USAGE;
                        }
                        break;
                case O_SCALE:
                        p.scale = strtod(optarg, &end);
                        if (*end || !(p.scale > 0 && p.scale <= 8)) {
                                dmo_cli_error(_("--scale: a number above 0, at most 8"));
                                return DMO_EXIT_USAGE;
                        }
                        break;
                case O_LANG:
                        p.lang = optarg;
                        break;
                case O_OUTPUT:
                        p.output = optarg;
                        break;
                case O_FRAMES:
                        p.frames = (unsigned)strtoul(optarg, &end, 10);
                        if (*end || p.frames > 100000) {
                                dmo_cli_error(_("--frames: a count up to 100000"));
                                return DMO_EXIT_USAGE;
                        }
                        break;
                case O_DIALOG:
                        if (strcmp(optarg, "password") == 0) {
                                p.dialog = DMO_DIALOG_PASSWORD;
                                p.bullets = 7;
                        } else if (strcmp(optarg, "question") == 0) {
                                p.dialog = DMO_DIALOG_QUESTION;
                        } else {
                                dmo_cli_error(_("--dialog: use password or question"));
                                return DMO_EXIT_USAGE;
                        }
                        break;
                case O_HELP:
                        preview_usage(stdout);
                        return DMO_EXIT_OK;
                default:
                        preview_usage(stderr);
                        return DMO_EXIT_USAGE;
                }
        }
        if (!p.output) {
                dmo_cli_error(_("preview: --output is required (a .png file, or a directory with "
                                "--frames)"));
                return DMO_EXIT_USAGE;
        }
        struct dmo_diag diag;
        dmo_diag_init(&diag);
        int r = dmo_preview_render(&p, &diag);
        print_diag(&diag, stderr);
        dmo_diag_clear(&diag);
        if (r < 0) {
                dmo_cli_error(_("preview of theme \"%s\" failed: %s"), p.theme, strerror(-r));
                return DMO_EXIT_FAILED;
        }
        return DMO_EXIT_OK;
}

int dmo_cmd_theme(int argc, char **argv)
{
        if (argc < 2 || strcmp(argv[1], "check") != 0 || argc != 3) {
                fprintf(stderr, "%s", _("Usage: dormouse theme check DIR|NAME\n"));
                return DMO_EXIT_USAGE;
        }
        char themes[512], fonts[512];
        dmo_display_data_paths(themes, sizeof(themes), fonts, sizeof(fonts));
        struct dmo_theme_paths paths = {.themes_dir = themes, .fonts_dir = fonts};
        struct dmo_diag diag;
        dmo_diag_init(&diag);
        int r = dmo_theme_check(argv[2], &paths, &diag);
        print_diag(&diag, stdout);
        size_t errors = dmo_diag_count(&diag, DMO_DIAG_ERROR);
        size_t warnings = dmo_diag_count(&diag, DMO_DIAG_WARNING) - errors;
        dmo_diag_clear(&diag);
        printf(_("%s: %zu errors, %zu warnings\n"), argv[2], errors, warnings);
        if (r < 0 && errors == 0)
                return DMO_EXIT_FAILED;
        return errors ? DMO_EXIT_FAILED : DMO_EXIT_OK;
}
