/* drm_select: which connectors to light, on which CRTC, in which mode.
 *
 * Contract:
 * - Pure functions over plain structs: no libdrm calls, no I/O, no
 *   allocation. The KMS output fills the structs from drmModeGetResources()
 *   and friends; the tests fill them from recorded descriptions in
 *   tests/fixtures/drm/.
 * - Rules: only connected, desktop connectors with a mode; keep the mode a
 *   CRTC already shows (no modeset flicker), else the preferred mode, else
 *   the largest; the connector's current CRTC first, else a free one from its
 *   encoders' possible_crtcs; never one CRTC for two connectors.
 */
#ifndef DMO_SPLASH_DRM_SELECT_H
#define DMO_SPLASH_DRM_SELECT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#define DMO_DRM_MAX_ENCODERS_PER_CONNECTOR 8

struct dmo_drm_mode {
        uint16_t width, height;
        uint32_t refresh_mhz; /* vertical refresh in mHz, for ties between sizes */
        bool preferred;
};

struct dmo_drm_connector {
        uint32_t id;
        bool connected;
        bool non_desktop;    /* VR headsets and the like: never ours to light */
        uint32_t encoder_id; /* current encoder, 0 if none */
        uint32_t encoders[DMO_DRM_MAX_ENCODERS_PER_CONNECTOR];
        size_t n_encoders;
        const struct dmo_drm_mode *modes;
        size_t n_modes;
        uint32_t mm_width, mm_height;
};

struct dmo_drm_encoder {
        uint32_t id;
        uint32_t crtc_id;        /* current CRTC, 0 if none */
        uint32_t possible_crtcs; /* bit i: the i-th CRTC of the resources */
};

struct dmo_drm_crtc {
        uint32_t id;
        bool mode_valid; /* a mode is set (the CRTC shows something) */
        struct dmo_drm_mode mode;
};

struct dmo_drm_resources {
        const struct dmo_drm_connector *connectors;
        size_t n_connectors;
        const struct dmo_drm_encoder *encoders;
        size_t n_encoders;
        const struct dmo_drm_crtc *crtcs;
        size_t n_crtcs;
};

struct dmo_drm_head {
        size_t connector;  /* index into resources.connectors */
        size_t crtc;       /* index into resources.crtcs */
        int mode_index;    /* index into the connector's modes; -1: keep the CRTC's mode */
        bool keep_current; /* the CRTC's current mode is kept */
        struct dmo_drm_mode mode;
};

/* Fills up to max heads, in connector order. Returns the number of heads,
 * -ENODEV when no connector can be lit, -EINVAL on malformed resources. */
int dmo_drm_select(const struct dmo_drm_resources *res, struct dmo_drm_head *heads, size_t max);

#endif
