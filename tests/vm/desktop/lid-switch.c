/* lid-switch: a laptop's lid for the desktop guest, which QEMU cannot give
 * (its machines have no lid). It creates an input device through uinput
 * with the one switch a lid has (EV_SW, SW_LID), as the ACPI button driver
 * creates one for a real lid: udev tags it "power-switch" from its
 * capabilities alone, and logind watches it and acts on its events exactly
 * as on a real lid's.
 *
 * Usage: lid-switch < COMMANDS. Prints "ready /dev/input/eventN" once the
 * device exists, then reads lines: "close" (SW_LID 1), "open" (SW_LID 0),
 * each answered "lid closed" / "lid opened". End of input removes the
 * device. Built static on the host by tests/vm/desktop/run.py: the guest
 * has no compiler. */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <linux/input.h>
#include <linux/uinput.h>
#include <stdio.h>
#include <string.h>
#include <sys/ioctl.h>
#include <unistd.h>

static int emit(int fd, int type, int code, int value)
{
        struct input_event ev = {
            .type = (unsigned short)type, .code = (unsigned short)code, .value = value};
        return write(fd, &ev, sizeof(ev)) == (ssize_t)sizeof(ev) ? 0 : -1;
}

static int set_lid(int fd, int closed)
{
        return emit(fd, EV_SW, SW_LID, closed) || emit(fd, EV_SYN, SYN_REPORT, 0) ? -1 : 0;
}

int main(void)
{
        int fd = open("/dev/uinput", O_WRONLY | O_CLOEXEC);
        if (fd < 0) {
                fprintf(stderr, "lid-switch: /dev/uinput: %s (modprobe uinput)\n", strerror(errno));
                return 1;
        }
        struct uinput_setup setup = {.id = {.bustype = BUS_HOST, .vendor = 0x1, .product = 0x1}};
        snprintf(setup.name, sizeof(setup.name), "dmo Lid Switch");
        if (ioctl(fd, UI_SET_EVBIT, EV_SW) < 0 || ioctl(fd, UI_SET_SWBIT, SW_LID) < 0 ||
            ioctl(fd, UI_DEV_SETUP, &setup) < 0 || ioctl(fd, UI_DEV_CREATE) < 0) {
                fprintf(stderr, "lid-switch: cannot create the device: %s\n", strerror(errno));
                return 1;
        }
        char sys[64] = "", dev[320] = "?";
        if (ioctl(fd, UI_GET_SYSNAME(sizeof(sys)), sys) >= 0) {
                char path[160];
                snprintf(path, sizeof(path), "/sys/devices/virtual/input/%s", sys);
                DIR *d = opendir(path);
                struct dirent *e;
                while (d && (e = readdir(d)))
                        if (strncmp(e->d_name, "event", 5) == 0)
                                snprintf(dev, sizeof(dev), "/dev/input/%s", e->d_name);
                if (d)
                        closedir(d);
        }
        printf("ready %s\n", dev);
        fflush(stdout);
        char line[64];
        int rc = 0;
        while (fgets(line, sizeof(line), stdin)) {
                int closed = strncmp(line, "close", 5) == 0;
                if (!closed && strncmp(line, "open", 4) != 0)
                        continue;
                if (set_lid(fd, closed) < 0) {
                        fprintf(stderr, "lid-switch: write: %s\n", strerror(errno));
                        rc = 1;
                        break;
                }
                printf("lid %s\n", closed ? "closed" : "opened");
                fflush(stdout);
        }
        ioctl(fd, UI_DEV_DESTROY);
        close(fd);
        return rc;
}
