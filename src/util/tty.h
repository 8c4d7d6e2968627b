/* tty: a terminal already open on a descriptor, opened again.
 *
 * Contract: gives a new open file description of the same terminal, so that
 * its file status flags (O_NONBLOCK) are the caller's own and never leak to
 * the descriptor it came from (stdin shares the console's with stdout and
 * stderr). Works when the terminal has no reachable name: in the initramfs
 * the kernel opens /dev/console on the rootfs before devtmpfs is mounted
 * over /dev, so ttyname() cannot name PID 1's stdin, nor anything it passes
 * on. Never changes the terminal's settings; never prints.
 */
#ifndef DMO_UTIL_TTY_H
#define DMO_UTIL_TTY_H

/* A new descriptor (O_CLOEXEC | O_NOCTTY added to flags) on the terminal
 * open on fd: through /proc/self/fd/N, else by the terminal's name. The
 * caller closes it. -ENOTTY when fd is not a terminal, or the open error. */
int dmo_tty_reopen(int fd, int flags);

#endif
