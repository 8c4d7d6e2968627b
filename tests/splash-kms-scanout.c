/* scanout: which pictures left on a CRTC the kms output continues, and
 * that the copy takes the CRTC's viewport, row by row, whatever the pitches. */
#include "splash/output/scanout.h"

#include <drm_fourcc.h>
#include <errno.h>
#include <stdlib.h>

#include "tests/testlib.h"

/* Plymouth's framebuffer on bochs-drm: 1280×800 XRGB8888, no modifier. */
static struct dmo_scanout plymouth_fb(void)
{
        return (struct dmo_scanout){.width = 1280,
                                    .height = 800,
                                    .format = DRM_FORMAT_XRGB8888,
                                    .n_planes = 1,
                                    .pitch = 1280 * 4};
}

static void test_a_linear_xrgb_or_argb_picture_of_the_mode_is_continued(void)
{
        struct dmo_scanout fb = plymouth_fb();
        CHECK_INT(dmo_scanout_check(&fb, 1280, 800), ==, 0);
        fb.format = DRM_FORMAT_ARGB8888;
        fb.has_modifier = true;
        fb.modifier = DRM_FORMAT_MOD_LINEAR;
        CHECK_INT(dmo_scanout_check(&fb, 1280, 800), ==, 0);
}

static void test_tiled_other_formats_and_planar_pictures_are_left_alone(void)
{
        struct dmo_scanout fb = plymouth_fb();
        fb.has_modifier = true;
        fb.modifier = I915_FORMAT_MOD_X_TILED;
        CHECK_INT(dmo_scanout_check(&fb, 1280, 800), ==, -EOPNOTSUPP);
        fb = plymouth_fb();
        fb.format = DRM_FORMAT_RGB565;
        CHECK_INT(dmo_scanout_check(&fb, 1280, 800), ==, -EOPNOTSUPP);
        fb = plymouth_fb();
        fb.format = DRM_FORMAT_NV12;
        fb.n_planes = 2;
        CHECK_INT(dmo_scanout_check(&fb, 1280, 800), ==, -EOPNOTSUPP);
}

static void test_a_viewport_outside_the_buffer_is_out_of_range(void)
{
        struct dmo_scanout fb = plymouth_fb();
        CHECK_INT(dmo_scanout_check(&fb, 1920, 1080), ==, -ERANGE);
        fb.x = 1;
        CHECK_INT(dmo_scanout_check(&fb, 1280, 800), ==, -ERANGE);
        fb = plymouth_fb();
        fb.pitch = 1000;
        CHECK_INT(dmo_scanout_check(&fb, 1280, 800), ==, -ERANGE);
        CHECK_INT(dmo_scanout_check(&fb, 0, 800), ==, -ERANGE);
}

static void test_the_copy_takes_the_viewport_row_by_row(void)
{
        /* A 6×5 buffer with 8 bytes of padding a row; the CRTC shows the
         * 3×2 part at (2, 1). Each pixel holds its own coordinates. */
        struct dmo_scanout fb = {.width = 6,
                                 .height = 5,
                                 .format = DRM_FORMAT_XRGB8888,
                                 .n_planes = 1,
                                 .pitch = 6 * 4 + 8,
                                 .offset = 16,
                                 .x = 2,
                                 .y = 1};
        REQUIRE(dmo_scanout_check(&fb, 3, 2) == 0);
        CHECK_INT(dmo_scanout_span(&fb, 2), ==, 16 + 3 * (6 * 4 + 8));
        uint8_t *src = calloc(1, (size_t)dmo_scanout_span(&fb, 4));
        REQUIRE(src != NULL);
        for (uint32_t y = 0; y < 5; y++)
                for (uint32_t x = 0; x < 6; x++) {
                        uint32_t v = 0xff000000u | (x << 8) | y;
                        memcpy(src + fb.offset + y * fb.pitch + x * 4, &v, 4);
                }
        uint32_t dst[2][4];
        memset(dst, 0xab, sizeof(dst));
        dmo_scanout_copy(&fb, src, (uint8_t *)dst, sizeof(dst[0]), 3, 2);
        for (uint32_t y = 0; y < 2; y++)
                for (uint32_t x = 0; x < 3; x++)
                        CHECK_INT(dst[y][x], ==, 0xff000000u | ((x + 2) << 8) | (y + 1));
        /* Past the viewport's width, the destination is not written. */
        CHECK_INT(dst[0][3], ==, 0xababababu);
        CHECK_INT(dst[1][3], ==, 0xababababu);
        free(src);
}

DMO_TEST_MAIN(T(test_a_linear_xrgb_or_argb_picture_of_the_mode_is_continued),
              T(test_tiled_other_formats_and_planar_pictures_are_left_alone),
              T(test_a_viewport_outside_the_buffer_is_out_of_range),
              T(test_the_copy_takes_the_viewport_row_by_row))
