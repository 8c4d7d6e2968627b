/* scene: everything a frame shows, independent of how it is drawn.
 *
 * The renderer builds a scene from a progress snapshot, the run's messages
 * and the dialog state, and hands it to every output. Outputs must draw a
 * scene from this struct alone (plus the theme they were opened with): it is
 * a plain value, copied, never shared with the engine.
 */
#ifndef DMO_SPLASH_SCENE_H
#define DMO_SPLASH_SCENE_H

#include <stdbool.h>
#include <stdint.h>

#include "progress/progress.h"

enum dmo_scene_kind {
        DMO_SCENE_HIBERNATE,    /* theme section [hibernate] */
        DMO_SCENE_RESUME,       /* [resume] */
        DMO_SCENE_ABORTED,      /* [aborted] */
        DMO_SCENE_ERROR,        /* [error]: hibernation failed */
        DMO_SCENE_RESUME_ERROR, /* [resume-error]: an image could not be restored */
};

#define DMO_SCENE_KINDS 5

enum dmo_dialog_kind {
        DMO_DIALOG_NONE,
        DMO_DIALOG_PASSWORD, /* prompt + one bullet per typed character */
        DMO_DIALOG_QUESTION, /* prompt + yes/no */
};

struct dmo_dialog {
        enum dmo_dialog_kind kind;
        char prompt[256]; /* already translated */
        unsigned bullets; /* password: characters typed so far */
        bool answer_yes;  /* question: the highlighted answer */
};

struct dmo_scene {
        enum dmo_scene_kind kind;
        struct dmo_progress_snapshot progress;
        /* What the bar shows: progress.fraction eased towards by the renderer,
         * so the bar moves smoothly between samples and never goes backwards. */
        double bar_fraction;
        uint32_t frame_counter; /* animation clock for throbbers (frames since start) */
        bool reboot_after;      /* the `r` key toggled "reboot instead of power off" */
        char detail[256];       /* error detail line (already translated), or "" */
        struct dmo_dialog dialog;
};

#endif
