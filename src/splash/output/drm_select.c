#include "splash/output/drm_select.h"

#include <errno.h>

/* CRTC bitmasks are 32 bits wide in the kernel's encoder description. */
enum { MAX_CRTCS = 32 };

static const struct dmo_drm_encoder *find_encoder(const struct dmo_drm_resources *res, uint32_t id)
{
        for (size_t i = 0; i < res->n_encoders && id; i++)
                if (res->encoders[i].id == id)
                        return &res->encoders[i];
        return NULL;
}

static int crtc_index(const struct dmo_drm_resources *res, uint32_t id)
{
        for (size_t i = 0; i < res->n_crtcs && id; i++)
                if (res->crtcs[i].id == id)
                        return (int)i;
        return -1;
}

static bool usable(const struct dmo_drm_connector *c)
{
        return c->connected && !c->non_desktop && c->n_modes > 0;
}

/* The CRTC the connector drives now, if its encoder may drive it. */
static int current_crtc(const struct dmo_drm_resources *res, const struct dmo_drm_connector *c)
{
        const struct dmo_drm_encoder *enc = find_encoder(res, c->encoder_id);
        if (!enc)
                return -1;
        int idx = crtc_index(res, enc->crtc_id);
        if (idx < 0 || !(enc->possible_crtcs & (1u << idx)))
                return -1;
        return idx;
}

static int free_crtc(const struct dmo_drm_resources *res, const struct dmo_drm_connector *c,
                     uint32_t used)
{
        for (size_t e = 0; e < c->n_encoders; e++) {
                const struct dmo_drm_encoder *enc = find_encoder(res, c->encoders[e]);
                if (!enc)
                        continue;
                for (size_t i = 0; i < res->n_crtcs; i++)
                        if ((enc->possible_crtcs & (1u << i)) && !(used & (1u << i)))
                                return (int)i;
        }
        return -1;
}

static int best_mode(const struct dmo_drm_connector *c)
{
        int best = -1;
        for (size_t i = 0; i < c->n_modes; i++)
                if (c->modes[i].preferred)
                        return (int)i;
        for (size_t i = 0; i < c->n_modes; i++) {
                const struct dmo_drm_mode *m = &c->modes[i];
                if (best < 0) {
                        best = (int)i;
                        continue;
                }
                const struct dmo_drm_mode *b = &c->modes[best];
                uint32_t area = (uint32_t)m->width * m->height;
                uint32_t barea = (uint32_t)b->width * b->height;
                if (area > barea || (area == barea && m->refresh_mhz > b->refresh_mhz))
                        best = (int)i;
        }
        return best;
}

int dmo_drm_select(const struct dmo_drm_resources *res, struct dmo_drm_head *heads, size_t max)
{
        int chosen[64];
        uint32_t used = 0;
        size_t n = 0;

        if (res->n_crtcs > MAX_CRTCS || res->n_connectors > sizeof(chosen) / sizeof(chosen[0]))
                return -EINVAL;
        /* First every connector keeps the CRTC it has, so that a connector
         * listed earlier cannot take the CRTC of one listed later. */
        for (size_t i = 0; i < res->n_connectors; i++) {
                chosen[i] = -1;
                if (!usable(&res->connectors[i]))
                        continue;
                int idx = current_crtc(res, &res->connectors[i]);
                if (idx >= 0 && !(used & (1u << idx))) {
                        chosen[i] = idx;
                        used |= 1u << idx;
                }
        }
        for (size_t i = 0; i < res->n_connectors; i++) {
                if (chosen[i] >= 0 || !usable(&res->connectors[i]))
                        continue;
                int idx = free_crtc(res, &res->connectors[i], used);
                if (idx >= 0) {
                        chosen[i] = idx;
                        used |= 1u << idx;
                }
        }
        for (size_t i = 0; i < res->n_connectors && n < max; i++) {
                if (chosen[i] < 0)
                        continue;
                const struct dmo_drm_connector *c = &res->connectors[i];
                const struct dmo_drm_crtc *crtc = &res->crtcs[chosen[i]];
                struct dmo_drm_head *h = &heads[n++];
                h->connector = i;
                h->crtc = (size_t)chosen[i];
                bool was_driving = current_crtc(res, c) == chosen[i];
                if (was_driving && crtc->mode_valid && crtc->mode.width && crtc->mode.height) {
                        h->keep_current = true;
                        h->mode_index = -1;
                        h->mode = crtc->mode;
                } else {
                        h->keep_current = false;
                        h->mode_index = best_mode(c);
                        h->mode = c->modes[h->mode_index];
                }
        }
        return n > 0 ? (int)n : -ENODEV;
}
