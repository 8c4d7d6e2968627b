/* drm_select against recorded resource descriptions (tests/fixtures/drm). */
#include "splash/output/drm_select.h"

#include <errno.h>

#include "tests/testlib.h"

enum { MAXN = 16, MAX_MODES = 64, MAX_EXPECT = 16 };

struct expect {
        uint32_t connector;
        bool none;
        uint32_t crtc;
        unsigned w, h;
        bool kept;
};

struct fixture {
        struct dmo_drm_crtc crtcs[MAXN];
        struct dmo_drm_encoder encoders[MAXN];
        struct dmo_drm_connector connectors[MAXN];
        struct dmo_drm_mode modes[MAXN][MAX_MODES];
        struct dmo_drm_resources res;
        struct expect expect[MAX_EXPECT];
        size_t n_expect;
        int heads;
};

static bool parse_mode(const char *s, struct dmo_drm_mode *m)
{
        unsigned w, h;
        double hz;
        if (sscanf(s, "%ux%u@%lf", &w, &h, &hz) != 3)
                return false;
        m->width = (uint16_t)w;
        m->height = (uint16_t)h;
        m->refresh_mhz = (uint32_t)(hz * 1000 + 0.5);
        return true;
}

static bool parse_line(struct fixture *f, char *line)
{
        char *save = NULL;
        char *word = strtok_r(line, " \t\n", &save);
        if (!word || word[0] == '#')
                return true;
        if (!strcmp(word, "crtc")) {
                struct dmo_drm_crtc *c = (struct dmo_drm_crtc *)&f->res.crtcs[f->res.n_crtcs++];
                c->id = (uint32_t)strtoul(strtok_r(NULL, " \n", &save), NULL, 0);
                char *kw = strtok_r(NULL, " \n", &save);
                if (kw && !strcmp(kw, "mode"))
                        c->mode_valid = parse_mode(strtok_r(NULL, " \n", &save), &c->mode);
                return true;
        }
        if (!strcmp(word, "encoder")) {
                struct dmo_drm_encoder *e = &f->encoders[f->res.n_encoders++];
                unsigned id, crtc;
                unsigned long mask;
                char *rest = strtok_r(NULL, "\n", &save);
                if (!rest || sscanf(rest, "%u crtc %u possible %lx", &id, &crtc, &mask) != 3)
                        return false;
                e->id = id;
                e->crtc_id = crtc;
                e->possible_crtcs = (uint32_t)mask;
                return true;
        }
        if (!strcmp(word, "connector")) {
                size_t i = f->res.n_connectors++;
                struct dmo_drm_connector *c = &f->connectors[i];
                c->id = (uint32_t)strtoul(strtok_r(NULL, " \n", &save), NULL, 0);
                strtok_r(NULL, " \n", &save); /* name */
                char *status = strtok_r(NULL, " \n", &save);
                c->connected = status && !strcmp(status, "connected");
                c->modes = f->modes[i];
                for (char *kw; (kw = strtok_r(NULL, " \n", &save));) {
                        if (!strcmp(kw, "encoder")) {
                                c->encoder_id =
                                    (uint32_t)strtoul(strtok_r(NULL, " \n", &save), NULL, 0);
                        } else if (!strcmp(kw, "encoders")) {
                                char *list = strtok_r(NULL, " \n", &save), *s2 = NULL;
                                for (char *id = strtok_r(list, ",", &s2); id;
                                     id = strtok_r(NULL, ",", &s2))
                                        c->encoders[c->n_encoders++] =
                                            (uint32_t)strtoul(id, NULL, 0);
                        } else if (!strcmp(kw, "mm")) {
                                unsigned w, h;
                                if (sscanf(strtok_r(NULL, " \n", &save), "%ux%u", &w, &h) != 2)
                                        return false;
                                c->mm_width = w;
                                c->mm_height = h;
                        } else if (!strcmp(kw, "non-desktop")) {
                                c->non_desktop = true;
                        } else {
                                return false;
                        }
                }
                return true;
        }
        if (!strcmp(word, "mode")) {
                if (f->res.n_connectors == 0)
                        return false;
                size_t i = f->res.n_connectors - 1;
                struct dmo_drm_mode *m = &f->modes[i][f->connectors[i].n_modes++];
                if (!parse_mode(strtok_r(NULL, " \n", &save), m))
                        return false;
                char *kw = strtok_r(NULL, " \n", &save);
                m->preferred = kw && !strcmp(kw, "preferred");
                return true;
        }
        if (!strcmp(word, "expect")) {
                struct expect *e = &f->expect[f->n_expect++];
                char *rest = strtok_r(NULL, "\n", &save);
                if (!rest || sscanf(rest, "%u crtc %u mode %ux%u", &e->connector, &e->crtc, &e->w,
                                    &e->h) != 4)
                        return false;
                e->kept = strstr(rest, " kept") != NULL;
                return true;
        }
        if (!strcmp(word, "expect-none")) {
                struct expect *e = &f->expect[f->n_expect++];
                e->connector = (uint32_t)strtoul(strtok_r(NULL, " \n", &save), NULL, 0);
                e->none = true;
                return true;
        }
        if (!strcmp(word, "expect-heads")) {
                f->heads = atoi(strtok_r(NULL, " \n", &save));
                return true;
        }
        return false;
}

static bool load(const char *name, struct fixture *f)
{
        char rel[256], path[1024], line[512];
        memset(f, 0, sizeof(*f));
        f->res.crtcs = f->crtcs;
        f->res.encoders = f->encoders;
        f->res.connectors = f->connectors;
        f->heads = -1;
        snprintf(rel, sizeof(rel), "tests/fixtures/drm/%s", name);
        FILE *fp = fopen(dmo_test_srcpath(rel, path, sizeof(path)), "r");
        if (!fp) {
                printf("# cannot open %s\n", path);
                return false;
        }
        bool ok = true;
        int lineno = 0;
        while (ok && fgets(line, sizeof(line), fp)) {
                lineno++;
                ok = parse_line(f, line);
                if (!ok)
                        printf("# %s:%d: cannot parse\n", name, lineno);
        }
        fclose(fp);
        return ok;
}

static const struct dmo_drm_encoder *encoder_by_id(const struct fixture *f, uint32_t id)
{
        for (size_t i = 0; i < f->res.n_encoders; i++)
                if (f->encoders[i].id == id)
                        return &f->encoders[i];
        return NULL;
}

/* Selects, then checks the fixture's expectations and the invariants that
 * hold for any resources. */
static void check_fixture(const char *name)
{
        struct fixture f;
        printf("# fixture %s\n", name);
        REQUIRE(load(name, &f));
        struct dmo_drm_head heads[MAXN];
        int n = dmo_drm_select(&f.res, heads, MAXN);
        REQUIRE(n > 0);
        CHECK_INT(n, ==, f.heads);
        uint32_t used = 0;
        for (int i = 0; i < n; i++) {
                const struct dmo_drm_head *h = &heads[i];
                const struct dmo_drm_connector *c = &f.connectors[h->connector];
                CHECK(!(used & (1u << h->crtc))); /* no CRTC lit twice */
                used |= 1u << h->crtc;
                CHECK(c->connected && !c->non_desktop);
                bool possible = false;
                for (size_t e = 0; e < c->n_encoders; e++) {
                        const struct dmo_drm_encoder *enc = encoder_by_id(&f, c->encoders[e]);
                        possible |= enc && (enc->possible_crtcs & (1u << h->crtc));
                }
                CHECK(possible);
                if (h->keep_current) {
                        CHECK_INT(h->mode_index, ==, -1);
                        CHECK_INT(h->mode.width, ==, f.crtcs[h->crtc].mode.width);
                        CHECK_INT(h->mode.height, ==, f.crtcs[h->crtc].mode.height);
                } else {
                        REQUIRE(h->mode_index >= 0 && (size_t)h->mode_index < c->n_modes);
                        CHECK_INT(h->mode.width, ==, c->modes[h->mode_index].width);
                }
        }
        for (size_t x = 0; x < f.n_expect; x++) {
                const struct expect *e = &f.expect[x];
                const struct dmo_drm_head *found = NULL;
                for (int i = 0; i < n; i++)
                        if (f.connectors[heads[i].connector].id == e->connector)
                                found = &heads[i];
                if (e->none) {
                        CHECK(found == NULL);
                        continue;
                }
                CHECK(found != NULL);
                if (!found) {
                        printf("# connector %u not lit\n", e->connector);
                        continue;
                }
                CHECK_INT(f.crtcs[found->crtc].id, ==, e->crtc);
                CHECK_INT(found->mode.width, ==, e->w);
                CHECK_INT(found->mode.height, ==, e->h);
                CHECK_INT(found->keep_current, ==, e->kept);
        }
}

static void test_bochs_vm_keeps_the_mode_already_set(void)
{
        check_fixture("bochs-vm-mode-set.txt");
}

static void test_laptop_and_4k_get_preferred_then_largest_mode(void)
{
        check_fixture("laptop-panel-external-4k.txt");
        struct fixture f;
        REQUIRE(load("laptop-panel-external-4k.txt", &f));
        struct dmo_drm_head heads[MAXN];
        REQUIRE(dmo_drm_select(&f.res, heads, MAXN) == 2);
        /* Among the two 3840x2160 modes, the 60 Hz one. */
        CHECK_INT(heads[1].mode.refresh_mhz, ==, 60000);
}

static void test_disconnected_connector_is_not_lit(void)
{
        check_fixture("disconnected-connector.txt");
}

static void test_more_connectors_than_crtcs_never_reuses_a_crtc(void)
{
        check_fixture("more-connectors-than-crtcs.txt");
}

static void test_non_desktop_connector_is_skipped(void)
{
        check_fixture("non-desktop-vr.txt");
}

static void test_nothing_connected_is_enodev_and_bad_resources_einval(void)
{
        struct fixture f;
        REQUIRE(load("disconnected-connector.txt", &f));
        struct dmo_drm_head heads[MAXN];
        f.connectors[1].connected = false;
        CHECK_INT(dmo_drm_select(&f.res, heads, MAXN), ==, -ENODEV);
        /* A connected connector without modes cannot be lit either. */
        f.connectors[1].connected = true;
        f.connectors[1].n_modes = 0;
        CHECK_INT(dmo_drm_select(&f.res, heads, MAXN), ==, -ENODEV);
        /* An encoder naming a CRTC it may not drive: search instead of trusting it. */
        REQUIRE(load("disconnected-connector.txt", &f));
        f.connectors[1].encoder_id = 43;
        f.encoders[1].crtc_id = 40; /* 40 is index 0, not in possible 0x2 */
        f.crtcs[0].mode_valid = true;
        f.crtcs[0].mode.width = 640;
        f.crtcs[0].mode.height = 480;
        CHECK_INT(dmo_drm_select(&f.res, heads, MAXN), ==, 1);
        CHECK_INT(heads[0].crtc, ==, 1);
        CHECK(!heads[0].keep_current);
        /* More CRTCs than a 32-bit mask can name. */
        f.res.n_crtcs = 33;
        CHECK_INT(dmo_drm_select(&f.res, heads, MAXN), ==, -EINVAL);
}

static void test_max_heads_bounds_the_output(void)
{
        struct fixture f;
        REQUIRE(load("laptop-panel-external-4k.txt", &f));
        struct dmo_drm_head heads[1];
        CHECK_INT(dmo_drm_select(&f.res, heads, 1), ==, 1);
        CHECK_INT(f.connectors[heads[0].connector].id, ==, 70);
}

DMO_TEST_MAIN(T(test_bochs_vm_keeps_the_mode_already_set),
              T(test_laptop_and_4k_get_preferred_then_largest_mode),
              T(test_disconnected_connector_is_not_lit),
              T(test_more_connectors_than_crtcs_never_reuses_a_crtc),
              T(test_non_desktop_connector_is_skipped),
              T(test_nothing_connected_is_enodev_and_bad_resources_einval),
              T(test_max_heads_bounds_the_output))
