# The test user's session on tty1: the "menu" helper, then Weston.
if [ "$(tty)" = /dev/tty1 ] && [ -z "${WAYLAND_DISPLAY:-}" ]; then
	/usr/local/lib/dmo/menu &
	# Weston 10 (Debian 12) takes --use-pixman; 12 and later (Debian 13's
	# 14) replaced it with --renderer=pixman.
	case "$(weston --version 2>/dev/null)" in
	"weston "[0-9].* | "weston 1"[01].*)
		exec weston --backend=drm-backend.so --use-pixman --log=/tmp/weston.log ;;
	*)
		exec weston --backend=drm --renderer=pixman --log=/tmp/weston.log ;;
	esac
fi
