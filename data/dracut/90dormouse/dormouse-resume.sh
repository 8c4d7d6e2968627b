#!/bin/sh
# dracut pre-mount hook (sourced by dracut, so it must not exit): restore a
# dormouse hibernation image before anything can enable swap. Exit status
# of "dormouse resume": no return on success, 1 no image, 2 configuration
# error, 3 image refused (swap area usable again); boot goes on after these.
# 7: the image is still there (it could not be removed, or a read of it
# failed and it may be whole): the boot stops in an
# emergency shell before the root is mounted. 8: an encrypted image was not
# unlocked: it is untouched, and the boot stops the same way. 9: the image was made by
# another kernel and is kept: the machine restarts so that the boot menu can
# pick that kernel.

type getargbool >/dev/null 2>&1 || . /lib/dracut-lib.sh

dormouse_resume() {
    local rc plymouth=no
    [ -x /bin/dormouse ] || return 0

    DORMOUSE_LANGUAGE=""
    DORMOUSE_THEMES_DIR=/usr/share/dormouse/themes
    DORMOUSE_FONTS_DIR=/usr/share/dormouse/fonts
    [ -r /etc/dormouse-initrd.conf ] && . /etc/dormouse-initrd.conf
    export DORMOUSE_THEMES_DIR DORMOUSE_FONTS_DIR
    [ -n "${LANG:-}" ] || export LANG=C.UTF-8
    [ -n "${LANGUAGE:-}" ] || [ -z "$DORMOUSE_LANGUAGE" ] || export LANGUAGE="$DORMOUSE_LANGUAGE"

    # noresume is handled by dormouse itself: it discards the image, so a
    # stale one is not restored at a later boot over changed file systems.
    # Plymouth lets go of the display while dormouse draws; it takes it
    # back when the boot goes on (no image, or an image refused), and quits
    # when the boot stops or fails so that the reason stays readable on the
    # console.
    if command -v plymouth >/dev/null 2>&1 && plymouth --ping 2>/dev/null; then
        plymouth deactivate 2>/dev/null && plymouth=yes
    fi
    # systemd's HibernateLocation, for a resume device nothing names:
    # efivarfs, where systemd has not mounted it already.
    if [ -d /sys/firmware/efi/efivars ] && ! grep -qs " /sys/firmware/efi/efivars " /proc/mounts; then
        mount -t efivarfs efivarfs /sys/firmware/efi/efivars 2>/dev/null
    fi
    /bin/dormouse resume
    rc=$?
    # Killed by a signal (a crash, in the graphics stack most likely): the
    # image may still be there, whole. Once more with text progress only.
    if [ "$rc" -ge 128 ]; then
        warn "dormouse resume was killed (status $rc); trying again with text progress only"
        /bin/dormouse resume --splash text
        rc=$?
    fi

    case $rc in
        0 | 1)
            [ "$plymouth" = yes ] && plymouth reactivate 2>/dev/null
            ;;
        3)
            warn "dormouse: the hibernation image was not restored (see above); booting normally"
            # The reason was on the resume screen; under Plymouth the boot
            # goes on under its splash, else there is time to read it.
            if [ "$plymouth" = yes ]; then
                plymouth reactivate 2>/dev/null
            else
                sleep "${DORMOUSE_REFUSED_PAUSE:-10}"
            fi
            ;;
        7)
            # The image is still on the resume device (it could not be
            # removed, or a read of it failed and it may be whole): stop
            # before the root is mounted read-write.
            [ "$plymouth" = yes ] && plymouth quit 2>/dev/null
            emergency_shell -n dormouse "dormouse: the hibernation image is still on the resume device (see above): it could not be removed, or the disk failed a read of it and it may be whole. The boot stops here so that no file system changes under it. Run 'dormouse resume' to try again (make the device writable first if it is read-only), or 'dormouse resume --noresume' to discard the image, then exit this shell."
            ;;
        8)
            # An encrypted image was not unlocked: untouched on the device.
            [ "$plymouth" = yes ] && plymouth quit 2>/dev/null
            emergency_shell -n dormouse "dormouse: the hibernation image is encrypted and was not unlocked (see above); it is still on the resume device, untouched. The boot stops here so that no file system changes under it. Run 'dormouse resume' to type its passphrase again, or 'dormouse resume --noresume' to discard the image, then exit this shell."
            ;;
        9)
            # Another kernel's image, kept (the default): booting on would
            # change the file systems it expects. Restart for the boot menu.
            warn "dormouse: the hibernation image was made by another kernel and is kept (see above); restarting to choose that kernel"
            sleep "${DORMOUSE_REFUSED_PAUSE:-10}"
            [ "$plymouth" = yes ] && plymouth quit 2>/dev/null
            reboot -f
            emergency_shell -n dormouse "dormouse: the hibernation image was made by another kernel and is kept, but the restart failed. Restart the machine and choose that kernel, or boot with 'noresume' to discard the image."
            ;;
        *)
            if [ "$rc" -ge 128 ]; then
                [ "$plymouth" = yes ] && plymouth quit 2>/dev/null
                emergency_shell -n dormouse "dormouse: 'dormouse resume' was killed twice (status $rc); the hibernation image may still be on the resume device. The boot stops here so that no file system changes under it. Run 'dormouse resume' to try again, or 'dormouse resume --noresume' to discard the image, then exit this shell."
            fi
            warn "dormouse resume failed with status $rc; booting normally"
            [ "$plymouth" = yes ] && plymouth quit 2>/dev/null
            ;;
    esac
    return 0
}

dormouse_resume
