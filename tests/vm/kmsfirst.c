/* kmsfirst: the baseline for "time to the first frame": the least a program
 * can do to put one frame on a KMS screen (first connected connector, its
 * current CRTC and mode, one dumb buffer filled with a colour, SetCrtc), then
 * it reports, like dormouse with DORMOUSE_DEBUG_TIMING, how long after its
 * process started the frame was set, and holds it for a moment. run.py
 * builds it static (kmsfirst, the baseline) and dynamic (kmsfirst-dyn: libc
 * and libdrm through the loader); each names itself by its argv[0]. */
#include <errno.h>
#include <fcntl.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <time.h>
#include <unistd.h>
#include <xf86drm.h>
#include <xf86drmMode.h>

static double process_start_s(void)
{
        char buf[1024];
        FILE *f = fopen("/proc/self/stat", "r");
        if (!f)
                return 0;
        size_t n = fread(buf, 1, sizeof(buf) - 1, f);
        fclose(f);
        buf[n] = '\0';
        const char *p = strrchr(buf, ')');
        unsigned long long ticks = 0;
        if (!p || sscanf(p + 2,
                         "%*c %*d %*d %*d %*d %*d %*u %*u %*u %*u %*u %*u %*u %*d %*d "
                         "%*d %*d %*d %*d %llu",
                         &ticks) != 1)
                return 0;
        return (double)ticks / (double)sysconf(_SC_CLK_TCK);
}

int main(int argc, char **argv)
{
        const char *card = argc > 1 ? argv[1] : "/dev/dri/card0";
        int fd = open(card, O_RDWR | O_CLOEXEC);
        if (fd < 0) {
                perror(card);
                return 1;
        }
        drmModeRes *res = drmModeGetResources(fd);
        if (!res)
                return 1;
        drmModeConnector *conn = NULL;
        for (int i = 0; i < res->count_connectors && !conn; i++) {
                conn = drmModeGetConnector(fd, res->connectors[i]);
                if (conn && (conn->connection != DRM_MODE_CONNECTED || conn->count_modes == 0)) {
                        drmModeFreeConnector(conn);
                        conn = NULL;
                }
        }
        if (!conn)
                return 1;
        uint32_t crtc_id = res->crtcs[0];
        drmModeEncoder *enc = conn->encoder_id ? drmModeGetEncoder(fd, conn->encoder_id) : NULL;
        if (enc && enc->crtc_id)
                crtc_id = enc->crtc_id;
        drmModeModeInfo mode = conn->modes[0];
        struct drm_mode_create_dumb create = {
            .width = mode.hdisplay, .height = mode.vdisplay, .bpp = 32};
        if (drmIoctl(fd, DRM_IOCTL_MODE_CREATE_DUMB, &create) < 0)
                return 1;
        uint32_t fb;
        if (drmModeAddFB(fd, mode.hdisplay, mode.vdisplay, 24, 32, create.pitch, create.handle,
                         &fb) < 0)
                return 1;
        struct drm_mode_map_dumb map = {.handle = create.handle};
        if (drmIoctl(fd, DRM_IOCTL_MODE_MAP_DUMB, &map) < 0)
                return 1;
        uint32_t *px =
            mmap(NULL, create.size, PROT_READ | PROT_WRITE, MAP_SHARED, fd, (off_t)map.offset);
        if (px == MAP_FAILED)
                return 1;
        for (size_t i = 0; i < create.size / 4; i++)
                px[i] = 0x00203050;
        if (drmModeSetCrtc(fd, crtc_id, fb, 0, 0, &conn->connector_id, 1, &mode) < 0)
                return 1;
        struct timespec now;
        clock_gettime(CLOCK_BOOTTIME, &now);
        double t = (double)now.tv_sec + (double)now.tv_nsec / 1e9 - process_start_s();
        const char *name = strrchr(argv[0], '/') ? strrchr(argv[0], '/') + 1 : argv[0];
        fprintf(stderr, "%s: timing: first frame set %.0f ms after the process started\n", name,
                t * 1000.0);
        sleep(1);
        return 0;
}
