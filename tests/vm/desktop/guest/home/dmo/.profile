# The test user's session on tty1: the "menu" helper, then Weston.
if [ "$(tty)" = /dev/tty1 ] && [ -z "${WAYLAND_DISPLAY:-}" ]; then
	/usr/local/lib/dmo/menu &
	exec weston --backend=drm-backend.so --use-pixman --log=/tmp/weston.log
fi
